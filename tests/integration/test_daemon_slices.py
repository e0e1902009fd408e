"""The daemon's passes read a bounded slice of a bee's backlog: one bee's journal never
holds the loop that serves the others."""

from __future__ import annotations

import json
from pathlib import Path

from horizon.core.render import render
from horizon.core.settings import Effective, GlobalConfig, HorizonSettings
from horizon.engine.bee_engine import BeeEngine, ReadNew
from horizon.hive.store import load_state
from horizon.service.bee_settings import SLICE_BYTES
from horizon.service.hive_service import HiveService

BEE = "mia"
NOW = 1_790_000_000.0


def test_a_pass_reads_one_slice_of_a_backlog_and_the_bee_stays_due(tmp_path: Path) -> None:
    hive = tmp_path / "hive"
    (hive / "window").mkdir(parents=True)
    journal = hive / "window" / "big-messages.jsonl"
    line = json.dumps({"ts": 1_790_000_000, "type": "task", "question": "q",
                       "answer": "a" * 1000}).encode() + b"\n"
    journal.write_bytes(line * (SLICE_BYTES * 3 // len(line)))
    service = HiveService(hive, GlobalConfig(rotation_entries=10_000_000), "test")
    try:
        service.refresh_bees()
        first = service.process("big")
        assert first is not None and first.more
        # The slice ends at SLICE_BYTES or SLICE_S, whichever comes first, after a whole line.
        assert 0 < first.state.checkpoint.offset < SLICE_BYTES + len(line)
        assert first.state.checkpoint.offset % len(line) == 0
        assert service.bees["big"].schedule.dirty, "still behind: the daemon posts the rest"
        passes = 1
        while (outcome := service.process("big")) is not None and outcome.more:
            passes += 1
        assert outcome is not None
        assert outcome.state.checkpoint.offset == journal.stat().st_size
        # Three slices' worth of bytes: three passes at least (more when the time bound
        # ends some first), the first of them counted before the loop.
        assert passes >= 2
        assert not service.bees["big"].schedule.dirty
    finally:
        service.close()


def test_a_rebuild_in_slices_reports_old_rejected_lines_no_more_and_its_reading_whole(
        tmp_path: Path) -> None:
    hive = tmp_path / "hive"
    (hive / "bees").mkdir(parents=True)
    (hive / "window").mkdir()
    line = json.dumps({"ts": 1_790_000_000, "type": "task", "question": "q",
                       "answer": "a" * 1000}).encode() + b"\n"
    count = SLICE_BYTES * 2 // len(line)
    (hive / "window" / "big-messages.jsonl").write_bytes(line * count + b"not json\n" * 3)
    bee_file = hive / "bees" / "big.toml"
    bee_file.write_text("[horizon]\nactif = true\n")
    service = HiveService(hive, GlobalConfig(rotation_entries=10_000_000), "test")
    try:
        service.refresh_bees()
        reported = []
        while (outcome := service.process("big")) is not None:
            reported.append(sum(outcome.rejections.values()))
            if not outcome.more:
                break
        assert sum(reported) == 3, "read once, reported once"

        bee_file.write_text("[horizon]\nactif = true\nbudget_net = 9000\n")
        assert service.settings.load(service.bees["big"])
        slices = []
        while (outcome := service.process("big")) is not None:
            slices.append(outcome)
            if not outcome.more:
                break
        assert len(slices) >= 2, "the rebuild was read in slices"
        assert all(not slice_.rejections for slice_ in slices), "old rejected lines: no news"
        last = slices[-1]
        assert last.rebuilt and last.read == count + 3, "the whole rebuild, told once"
    finally:
        service.close()


def test_a_rebuild_whose_last_slice_reads_nothing_is_committed_all_the_same(
        tmp_path: Path) -> None:
    """A slice that ends exactly at the journal's end still says more may come; the next,
    the rebuild's last, reads nothing, and must write the rebuilt view and state."""
    hive = tmp_path / "hive"
    (hive / "window").mkdir(parents=True)
    lines = [json.dumps({"ts": 1_789_990_000 + number, "type": "task",
                         "question": f"q{number:04d}", "answer": "a" * 40}).encode() + b"\n"
             for number in range(1, 41)]
    (hive / "window" / f"{BEE}-messages.jsonl").write_bytes(b"".join(lines))
    config = GlobalConfig(rotation_entries=10_000)
    before = Effective(HorizonSettings(actif=True, budget_net=2000, budget_condense=1500),
                       {}, None, None)
    engine = BeeEngine(hive, BEE, config, before, slice_bytes=len(lines[0]) * 10)
    while (outcome := engine.run(ReadNew(), NOW)) is not None and outcome.more:
        pass
    after = Effective(HorizonSettings(actif=True, budget_net=3000, budget_condense=1500),
                      {}, None, None)
    engine.effective = after
    slices = []
    while (outcome := engine.run(ReadNew(), NOW)) is not None:
        slices.append(outcome)
        if not outcome.more:
            break
    assert slices[-1].read == 40 and slices[-1].rebuilt and slices[-1].committed
    assert engine.state is not None
    on_disk = load_state(hive, BEE)
    assert on_disk is not None and on_disk.settings_key == engine.state.settings_key
    assert (hive / "horizon" / BEE / "handoff.md").read_text() == render(
        engine.state.zones, BEE, after.horizon, after.mission).text


def test_a_slice_that_ends_right_after_a_rejected_line_tells_it_once(tmp_path: Path) -> None:
    """The slice's bound falls just after the first rejected line: the slices before the
    last tell nothing, the last tells the three lines once (it once said 1, then 3)."""
    hive = tmp_path / "hive"
    (hive / "window").mkdir(parents=True)
    good = json.dumps({"ts": NOW - 60, "type": "task", "question": "q",
                       "answer": "a"}).encode() + b"\n"
    bad = b"not json\n"
    (hive / "window" / f"{BEE}-messages.jsonl").write_bytes(good * 5 + bad * 3 + good)
    engine = BeeEngine(hive, BEE, GlobalConfig(rotation_entries=10_000),
                       Effective(HorizonSettings(actif=True), {}, None, None),
                       slice_bytes=len(good) * 5 + len(bad))
    slices, ends = [], []
    while (outcome := engine.run(ReadNew(), NOW)) is not None:
        slices.append(outcome)
        ends.append(outcome.state.checkpoint.seq)  # the state goes on changing after
        if not outcome.more:
            break
    assert ends == [6, 9], "the first slice ended on the first bad line"
    told = [dict(slice_.rejections) for slice_ in slices]
    assert told[:-1] == [{}] * (len(slices) - 1) and told[-1] == {"bad_json": 3}, told
    assert slices[-1].first_rejected == [6, 7, 8]
    assert slices[-1].read == 9 and [slice_.read for slice_ in slices[:-1]] == [0] * (
        len(slices) - 1)
