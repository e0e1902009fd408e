"""Incremental passes over real journal files equal a full rebuild; flags survive rebuilds."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from horizon.core.entries import Entry, Rejection, format_instant
from horizon.core.settings import Effective, GlobalConfig, HorizonSettings
from horizon.engine.bee_engine import BeeEngine, ReadNew, Rebuild
from horizon.engine.stepping import PassRequest, run_pass
from horizon.hive.flags import FlagRecord, append_flag
from horizon.hive.journal import line_hash
from horizon.hive.layout import archive_name
from horizon.hive.manifest import read_manifest
from horizon.hive.rotation import adopt
from horizon.hive.store import BeeState, load_state
from tests.unit.strategies import histories, horizon_settings

BEE = "mia"
CONFIG = GlobalConfig(max_line_bytes=4096)
BAD_LINES = [b"not json", b"[1, 2]", b'{"ts": 1, "type": "t"}', b"\xff\xfe{}",
             b'{"ts": "yesterday", "type": "t", "question": "", "answer": ""}',
             b"{" + b'"x": "' + b"y" * 5000 + b'"}', b"   "]


def journal_bytes(draw: st.DrawFn) -> bytes:
    lines = []
    for entry in draw(histories(max_size=30)):
        record = {"ts": format_instant(entry.instant) if entry.seq % 2 else entry.instant,
                  "type": entry.type, "question": entry.question, "answer": entry.answer}
        if entry.sender:
            record["from"] = entry.sender
        if entry.phare:
            record["phare"] = True
        lines.append(json.dumps(record, ensure_ascii=entry.seq % 3 == 0).encode())
        if draw(st.integers(0, 6)) == 0:
            lines.append(draw(st.sampled_from(BAD_LINES)))
    return b"".join(line + b"\n" for line in lines)


@st.composite
def chunked_journals(draw: st.DrawFn) -> tuple[bytes, list[int]]:
    data = journal_bytes(draw)
    cuts = draw(st.lists(st.integers(0, len(data)), max_size=10))
    return data, sorted(set(cuts))


def roundtrip(state: BeeState) -> BeeState:
    """What a restart sees: the state as saved and loaded."""
    return msgspec.json.decode(msgspec.json.encode(state), type=BeeState)


def new_hive(tmp: Path) -> Path:
    hive = tmp / "hive"
    (hive / "window").mkdir(parents=True)
    return hive


@given(chunked_journals(), horizon_settings(actif=True) | horizon_settings(actif=False))
def test_passes_over_a_growing_file_equal_a_full_rebuild(
    tmp_path_factory: object, journal: tuple[bytes, list[int]], settings: HorizonSettings
) -> None:
    data, cuts = journal
    hive = new_hive(tmp_path_factory.mktemp("inc"))  # type: ignore[attr-defined]
    effective = Effective(settings, {}, None, None)
    now = 1_790_000_000.0
    path = hive / "window" / f"{BEE}-messages.jsonl"
    state = None
    written = 0
    for cut in [*cuts, len(data)]:
        with path.open("ab") as journal_file:
            journal_file.write(data[written:cut])
        written = max(written, cut)
        outcome = run_pass(PassRequest(hive, BEE, CONFIG, effective, now, state))
        state = roundtrip(outcome.state)
    full = run_pass(PassRequest(hive, BEE, CONFIG, effective, now, None)).state
    assert state is not None
    assert msgspec.to_builtins(state) == msgspec.to_builtins(full)
    assert state.zones.up_to == sum(1 for line in data.split(b"\n") if line.strip())


@given(st.data())
def test_manual_flags_survive_a_rebuild(tmp_path_factory: object, data: st.DataObject) -> None:
    hive = new_hive(tmp_path_factory.mktemp("flags"))  # type: ignore[attr-defined]
    raw = journal_bytes(data.draw)
    (hive / "window" / f"{BEE}-messages.jsonl").write_bytes(raw)
    # Budgets wide enough that every entry stays in net, where lighthouses are visible.
    settings = HorizonSettings(actif=True, budget_net=1_000_000, age_net_heures=100_000)
    effective = Effective(settings, {}, None, None)
    now = 1_790_000_000.0
    first = run_pass(PassRequest(hive, BEE, CONFIG, effective, now, None))
    lighthouses_before = {item.seq for item in first.state.zones.net if item.lighthouse}
    accepted = [item.seq for item in first.state.zones.net]
    if not accepted:
        return  # every line was rejected (too long, bad JSON): nothing to flag
    chosen = set(data.draw(st.lists(st.sampled_from(accepted), max_size=3, unique=True)))
    lines = [line for line in raw.split(b"\n") if line.strip()]
    for seq in chosen:
        append_flag(hive, BEE, FlagRecord(seq, line_hash(lines[seq - 1])))
    BeeEngine(hive, BEE, CONFIG, effective).run(ReadNew(), now)
    saved = []
    for _ in range(2):  # a rebuild, then a rebuild of the rebuild
        BeeEngine(hive, BEE, CONFIG, effective).run(Rebuild(), now)
        state = load_state(hive, BEE)
        assert state is not None
        lighthouses = {item.seq for item in state.zones.net if item.lighthouse}
        assert lighthouses == lighthouses_before | chosen
        saved.append(msgspec.to_builtins(state))
    assert saved[0] == saved[1]



# --- bounded slices ------------------------------------------------------------------------


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 4000), st.integers(0, 3))
def test_a_backlog_read_in_bounded_slices_equals_one_reading(
        tmp_path_factory: pytest.TempPathFactory, slice_bytes: int, archives: int) -> None:
    """However small the slice, passes that each stop after a whole line give the seqs,
    the checkpoint and the zones one unbounded reading gives, across archive segments."""
    hive = tmp_path_factory.mktemp("slices")
    window = hive / "window"
    (window / "archive").mkdir(parents=True)
    number = 0
    for index in range(1, archives + 1):
        with (window / "archive" / archive_name(BEE, index)).open("wb") as out:
            for _ in range(7):
                number += 1
                out.write(_slice_line(number))
    adopt(window, BEE, read_manifest(window, BEE))
    with (window / f"{BEE}-messages.jsonl").open("wb") as out:
        for _ in range(30):
            number += 1
            out.write(_slice_line(number))
    effective = Effective(HorizonSettings(actif=True, budget_net=2000, budget_condense=1500),
                          {}, None, None)
    now = 1_790_000_000.0
    seen: list[tuple[int, str]] = []

    def keep(record: Entry | Rejection) -> None:
        seen.append((record.seq, record.question if isinstance(record, Entry) else "?"))

    engine = BeeEngine(hive, BEE, CONFIG, effective, on_record=keep, slice_bytes=slice_bytes)
    passes = 0
    while True:
        before = len(seen)
        outcome = engine.run(ReadNew(), now)
        assert outcome is not None
        passes += 1
        if not outcome.more:
            break
        # A slice's own count is told with the rebuild's last slice: count what it gave.
        assert len(seen) > before, "every slice reads at least one whole line"
    whole = run_pass(PassRequest(hive, BEE, CONFIG, effective, now, None))
    assert seen == [(n, f"q{n}") for n in range(1, number + 1)]
    assert msgspec.to_builtins(engine.state) == msgspec.to_builtins(whole.state)
    total = sum(path.stat().st_size for path in window.rglob("*-messages*.jsonl"))
    longest = max(len(_slice_line(n)) for n in range(1, number + 1))
    assert passes >= total // (slice_bytes + longest), "each pass stopped near its bound"


def _slice_line(number: int) -> bytes:
    return json.dumps({"ts": 1_789_990_000 + number, "type": "task",
                       "question": f"q{number}", "answer": "a" * 40}).encode() + b"\n"
