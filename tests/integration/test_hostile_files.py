"""Hostile files met by the daemon's parts in-process: what an independent attack found
after the first round of defences, each kept from coming back."""

from __future__ import annotations

import itertools
import json
import os
import time
from pathlib import Path

import pytest

from horizon.cli.main import main
from horizon.core.entries import Entry, Rejection
from horizon.core.errors import JournalError, SettingsError
from horizon.core.settings import Effective, GlobalConfig, HorizonSettings
from horizon.engine.bee_engine import BeeEngine, ReadNew
from horizon.hive.durable import StoreError, append_durably, open_regular, write_atomic
from horizon.hive.manifest import Rotated, append_records, read_manifest
from horizon.hive.rotation import _next_number
from horizon.hive.settings_files import effective_settings
from horizon.service import polling
from horizon.service.hive_service import HiveService
from horizon.summarize.cache import hive_cache
from tests.integration.test_one_seq_per_line import served_once

BEE = "mia"


def line(question: str) -> bytes:
    return json.dumps({"ts": time.time(), "type": "task", "question": question,
                       "answer": "a"}).encode() + b"\n"


def new_hive(tmp_path: Path, lines: int = 0) -> Path:
    hive = tmp_path / "hive"
    (hive / "window").mkdir(parents=True)
    (hive / "window" / f"{BEE}-messages.jsonl").write_bytes(
        b"".join(line(f"q{n}") for n in range(1, lines + 1)))
    return hive


def test_the_summary_cache_never_writes_through_a_link(tmp_path: Path) -> None:
    hive = new_hive(tmp_path)
    victim = tmp_path / "victim.db"
    victim.write_bytes(b"")
    (hive / "horizon").mkdir()
    (hive / "horizon" / "summaries.sqlite").symlink_to(victim)
    cache = hive_cache(hive)
    cache.put("key", "text")
    assert cache.get("key") is None
    cache.close()
    assert victim.read_bytes() == b""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hive", "victim.db"]


def test_settings_are_never_read_through_a_linked_bees_folder(tmp_path: Path) -> None:
    hive = new_hive(tmp_path, 1)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / f"{BEE}.toml").write_text('mission = "SECRET"\n')
    (hive / "bees").symlink_to(outside, target_is_directory=True)
    with pytest.raises(SettingsError, match="a link; refused"):
        effective_settings(GlobalConfig(), "config.json", hive, BEE)


def test_late_lines_are_read_within_the_slice_bound(tmp_path: Path) -> None:
    hive = new_hive(tmp_path, 2)
    window = hive / "window"
    live = window / f"{BEE}-messages.jsonl"
    held = os.open(live, os.O_WRONLY | os.O_APPEND)
    seen: list[tuple[int, str]] = []

    def keep(record: Entry | Rejection) -> None:
        seen.append((record.seq, record.question if isinstance(record, Entry) else "?"))

    engine = BeeEngine(hive, BEE, GlobalConfig(rotation_entries=2),
                       Effective(HorizonSettings(), {}), on_record=keep, slice_bytes=500)
    try:
        assert engine.run(ReadNew(), time.time()) is not None  # read, then rotated
        assert engine.manifest is not None and engine.manifest.rotated
        for n in range(3, 60):  # through the held descriptor, into the moved segment
            os.write(held, line(f"q{n}"))
        engine.late_check |= set(engine.manifest.rotated)
        slices = 0
        while (outcome := engine.run(ReadNew(), time.time())) is not None and outcome.more:
            slices += 1
            assert outcome.read * 60 < 2 * 500 + 200, "one slice, not the whole backlog"
    finally:
        os.close(held)
    assert slices >= 3
    assert seen == [(n, f"q{n}") for n in range(1, 60)]
    ranges = list(read_manifest(window, BEE).late)
    assert len(ranges) == slices + 1 and all(a.end == b.start for a, b in
                                              itertools.pairwise(ranges))


def test_a_sweep_that_reads_nothing_does_not_hide_new_lines_from_the_poll(
        tmp_path: Path) -> None:
    hive = new_hive(tmp_path, 1)
    service = HiveService(hive, GlobalConfig(), "config.json")
    try:
        service.refresh_bees()
        service.process(BEE)
        with (hive / "window" / f"{BEE}-messages.jsonl").open("ab") as out:
            out.write(line("q2"))
        assert service.process(BEE, sweep_only=True) is None  # nothing aged: no reading
        assert polling.changed_bees(service) == [BEE]
    finally:
        service.close()


def test_a_planted_last_segment_number_cannot_push_rotation_out_of_its_names(
        tmp_path: Path) -> None:
    hive = new_hive(tmp_path, 2)
    window = hive / "window"
    (window / "archive").mkdir()
    (window / "archive" / f"{BEE}-messages.999999.jsonl").write_bytes(line("planted"))
    (window / "archive" / f"{BEE}-messages.000002.jsonl").write_bytes(line("planted"))
    append_records(window, BEE, [Rotated(f"{BEE}-messages.000001.jsonl", 1, 0, 0)])
    assert _next_number(window, BEE, read_manifest(window, BEE)) == 3


def test_a_rebuild_in_slices_keeps_the_previous_view_until_its_last_slice(
        tmp_path: Path) -> None:
    hive = new_hive(tmp_path, 200)
    handoff = hive / "horizon" / BEE / "handoff.md"
    engine = BeeEngine(hive, BEE, GlobalConfig(), Effective(HorizonSettings(), {}),
                       slice_bytes=2000)
    while (outcome := engine.run(ReadNew(), time.time())) is not None and outcome.more:
        pass
    before = handoff.read_text()
    assert "up_to=200 " in before
    engine.effective = Effective(HorizonSettings(handoff_max=1500), {})  # a new setting
    slices = 0
    while (outcome := engine.run(ReadNew(), time.time())) is not None and outcome.more:
        slices += 1
        assert handoff.read_text() == before, "never a younger view meanwhile"
    assert slices > 3
    assert handoff.read_text() != before and "up_to=200 " in handoff.read_text()


def test_adopt_takes_no_link_and_nothing_once_records_show_numbered_lines(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hive = new_hive(tmp_path, 2)
    window = hive / "window"
    (window / "archive").mkdir()
    (window / "archive" / f"{BEE}-messages.000001.jsonl").symlink_to("/etc/hostname")
    assert main(["adopt", str(hive), BEE]) == 0
    assert "nothing to do" in capsys.readouterr().out
    engine = BeeEngine(hive, BEE, GlobalConfig(rotation_entries=2),
                       Effective(HorizonSettings(), {}))
    engine.run(ReadNew(), time.time())  # rotates: a rotated record numbers the lines
    assert engine.state is not None
    moved = engine.manifest is not None and engine.manifest.rotated
    assert moved
    (hive / "horizon").rename(tmp_path / "derived-gone")  # derived files may go any time
    (window / "archive" / f"{BEE}-messages.000001.jsonl").unlink()
    (window / "archive" / f"{BEE}-messages.000001.jsonl").write_bytes(line("old"))
    assert main(["adopt", str(hive), BEE]) == 1
    assert "is missing" in capsys.readouterr().err, "no state to tell numbered lines by"
    (hive / "horizon").mkdir()
    assert main(["adopt", str(hive), BEE]) == 1
    assert "numbered" in capsys.readouterr().err


def test_files_inside_a_hive_are_reached_through_folders_that_are_no_links(
        tmp_path: Path) -> None:
    """Whatever the checks before it, the open itself walks down from the hive one folder
    at a time and follows no link: a folder swapped for a link at the last moment still
    leads nowhere."""
    hive = tmp_path / "hive"
    hive.mkdir()
    outside = tmp_path / "outside"
    (outside / "mia").mkdir(parents=True)
    (outside / f"{BEE}-messages.jsonl").write_bytes(line("foreign"))
    (hive / "window").symlink_to(outside, target_is_directory=True)
    (hive / "horizon").symlink_to(outside, target_is_directory=True)
    with pytest.raises(JournalError, match="a link; refused"):
        open_regular(hive / "window" / f"{BEE}-messages.jsonl", under=hive)
    with pytest.raises(StoreError):
        write_atomic(hive / "horizon" / "mia" / "state.json", b"{}", under=hive)
    with pytest.raises(StoreError):
        append_durably(hive / "window" / "x.jsonl", b"{}\n", under=hive)
    assert sorted(p.name for p in outside.rglob("*")) == ["mia", f"{BEE}-messages.jsonl"]


@pytest.mark.parametrize("vouched_by", ["manifest", "settings file"])
def test_a_twin_planted_while_derived_files_are_gone_does_not_take_the_known_bee(
        tmp_path: Path, vouched_by: str) -> None:
    from horizon.hive.discovery import discover

    hive = new_hive(tmp_path, lines=3)
    if vouched_by == "manifest":
        append_records(hive / "window", BEE, [Rotated(segment=f"{BEE}-messages.000001.jsonl",
                                                      ino=1, offset=0, seq=0)])
    else:
        (hive / "bees").mkdir()
        (hive / "bees" / f"{BEE}.toml").write_text('mission = "m"\n')
    (hive / "window" / f"{BEE.upper()}-messages.jsonl").write_bytes(line("planted"))
    (hive / "horizon" / BEE.upper()).mkdir(parents=True)  # planted by a lax deployment

    bees, problems = discover(hive)

    assert bees == [BEE], "files only the daemon or an operator writes tell the known bee"
    assert any(BEE.upper() in problem and f"{BEE!r} keeps being served" in problem
               for problem in problems), problems


def test_twins_nothing_vouches_for_are_all_refused(tmp_path: Path) -> None:
    from horizon.hive.discovery import discover

    hive = new_hive(tmp_path, lines=1)
    (hive / "window" / f"{BEE.upper()}-messages.jsonl").write_bytes(line("planted"))

    bees, problems = discover(hive)

    assert bees == []
    assert any("all refused" in problem for problem in problems), problems


@pytest.mark.parametrize("open_folder", ["hive", "horizon"])
def test_the_summary_cache_is_not_used_where_anyone_can_swap_its_path(
        tmp_path: Path, open_folder: str) -> None:
    hive = new_hive(tmp_path)
    (hive / "horizon").mkdir()
    folder = hive if open_folder == "hive" else hive / "horizon"
    folder.chmod(0o777)  # anyone could put a link where SQLite will open by name
    refusals: list[str] = []
    cache = hive_cache(hive, on_refused=refusals.append)

    cache.put("key", "text")
    cache.put("key", "text")

    assert cache.get("key") is None
    assert refusals == [f"{folder}: writable by all"], "refused, and told once"
    assert not (hive / "horizon" / "summaries.sqlite").exists()
    folder.chmod(0o750)
    cache.put("key", "text")
    assert cache.get("key") == "text", "used again once the folder is private"
    cache.close()


@pytest.mark.parametrize("where", ["checkpoint", "segments"])
def test_a_forged_name_in_state_json_never_becomes_a_path(tmp_path: Path, where: str) -> None:
    """state.json names files: a name that is not one of the bee's journals
    ('../../outside/...') makes the state not ours (rebuilt), and no walk climbs out."""
    from horizon.hive.durable import open_folder
    from horizon.hive.store import load_state, state_path

    hive = new_hive(tmp_path, lines=3)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / f"{BEE}-messages.jsonl").write_bytes(line("SECRET from outside"))
    service = HiveService(hive, GlobalConfig(), "test")
    try:
        service.refresh_bees()
        service.process(BEE)
    finally:
        service.close()
    path = state_path(hive, BEE)
    document = json.loads(path.read_text())
    forged = f"../../outside/{BEE}-messages.jsonl"
    if where == "checkpoint":
        document["checkpoint"]["segment"] = forged
    else:
        document["segments"][forged] = [1, 3]
    path.write_text(json.dumps(document))
    assert load_state(hive, BEE) is None, "not a state of ours"

    outcome = served_once(hive, GlobalConfig(), "test", BEE)
    assert outcome is not None and outcome.state.zones.accepted == 3
    assert "SECRET" not in (hive / "horizon" / BEE / "handoff.md").read_text()
    assert forged not in path.read_text()
    with pytest.raises(OSError):
        os.close(open_folder(hive, hive / "window" / ".." / ".." / "outside"))


def test_adopt_refuses_to_move_a_flagged_seq(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    """A flag names a line by its seq: segments taken in before it would make it name
    another line."""
    from horizon.hive.flags import FlagRecord, append_flag
    from horizon.hive.journal import line_hash

    hive = new_hive(tmp_path, 2)
    (hive / "horizon").mkdir()
    first = (hive / "window" / f"{BEE}-messages.jsonl").read_bytes().split(b"\n")[0]
    append_flag(hive, BEE, FlagRecord(1, line_hash(first), on=True))
    (hive / "window" / "archive").mkdir()
    (hive / "window" / "archive" / f"{BEE}-messages.000001.jsonl").write_bytes(line("old"))
    assert main(["adopt", str(hive), BEE]) == 1
    assert "flags on #1" in capsys.readouterr().err
    assert not read_manifest(hive / "window", BEE).adopted
