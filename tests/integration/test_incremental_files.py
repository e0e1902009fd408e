"""Incremental passes over real journal files equal a full rebuild; flags survive rebuilds."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
from hypothesis import given
from hypothesis import strategies as st

from horizon.engine import commit, run_pass
from horizon.entries import format_instant
from horizon.flags import FlagRecord, append_flag
from horizon.journal import archive_name, line_hash
from horizon.locate import locate_line
from horizon.manifest import Rotated, Sealed, append_records, read_manifest
from horizon.settings import Effective, GlobalConfig, HorizonSettings
from horizon.store import BeeState, load_state
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
        outcome = run_pass(hive, BEE, CONFIG, effective, now, state)
        state = roundtrip(outcome.state)
    full = run_pass(hive, BEE, CONFIG, effective, now, None).state
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
    first = run_pass(hive, BEE, CONFIG, effective, now, None)
    lighthouses_before = {item.seq for item in first.state.zones.net if item.lighthouse}
    accepted = [item.seq for item in first.state.zones.net]
    if not accepted:
        return  # every line was rejected (too long, bad JSON): nothing to flag
    chosen = set(data.draw(st.lists(st.sampled_from(accepted), max_size=3, unique=True)))
    lines = [line for line in raw.split(b"\n") if line.strip()]
    for seq in chosen:
        append_flag(hive, BEE, FlagRecord(seq, line_hash(lines[seq - 1])))
    commit(hive, BEE, run_pass(hive, BEE, CONFIG, effective, now, first.state))
    saved = []
    for _ in range(2):  # a rebuild, then a rebuild of the rebuild
        commit(hive, BEE, run_pass(hive, BEE, CONFIG, effective, now, None))
        state = load_state(hive, BEE)
        assert state is not None
        lighthouses = {item.seq for item in state.zones.net if item.lighthouse}
        assert lighthouses == lighthouses_before | chosen
        saved.append(msgspec.to_builtins(state))
    assert saved[0] == saved[1]


def _entry_line(number: int) -> bytes:
    return json.dumps({"ts": 1_789_990_000 + number, "type": "task",
                       "question": f"q{number}", "answer": "a" * 300}).encode() + b"\n"


def _archived_hive(tmp: Path, segments: int) -> Path:
    hive = new_hive(tmp)
    (hive / "window" / "archive").mkdir()
    for index in range(segments):
        lines = b"".join(_entry_line(index * 40 + n) for n in range(40))
        (hive / "window" / "archive" / archive_name(BEE, index + 1)).write_bytes(lines)
    live = b"".join(_entry_line(segments * 40 + n) for n in range(5))
    (hive / "window" / f"{BEE}-messages.jsonl").write_bytes(live)
    return hive


def test_the_state_keeps_the_ranges_of_segments_in_use_only(tmp_path: Path) -> None:
    """The state is written at every pass: it must not grow with the number of segments,
    and every entry the zones hold must still be found in its segment."""
    settings = HorizonSettings(actif=True, budget_net=3000, budget_condense=2000)
    effective = Effective(settings, {}, None, None)
    now = 1_790_000_000.0
    kept = []
    for segments in (5, 40):
        hive = _archived_hive(tmp_path / str(segments), segments)
        window = hive / "window"
        # A rotated segment not sealed yet may still receive late lines: its range stays.
        first_archive = archive_name(BEE, 1)
        size = (window / "archive" / first_archive).stat().st_size
        append_records(window, BEE, [Rotated(first_archive, 0, size, 40)])
        state = run_pass(hive, BEE, CONFIG, effective, now, None).state
        manifest = read_manifest(window, BEE)
        held = [item.seq for item in (*state.zones.net, *state.zones.condense)]
        assert held and min(held) > 40
        for seq in held:
            assert locate_line(window, seq, state.segments, manifest,
                               CONFIG.max_line_bytes) == _entry_line(seq - 1).rstrip(b"\n")
        assert first_archive in state.segments
        append_records(window, BEE, [Sealed(first_archive, size)])
        resumed = run_pass(hive, BEE, CONFIG, effective, now, state).state
        assert first_archive not in resumed.segments
        kept.append(sorted(resumed.segments))
    assert len(kept[0]) == len(kept[1]) < 5
