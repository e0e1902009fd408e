"""Incremental passes over real journal files equal a full rebuild; flags survive rebuilds."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
from hypothesis import given
from hypothesis import strategies as st

from horizon.core.entries import format_instant
from horizon.core.settings import Effective, GlobalConfig, HorizonSettings
from horizon.engine.bee_engine import BeeEngine, ReadNew, Rebuild
from horizon.engine.stepping import run_pass
from horizon.hive.flags import FlagRecord, append_flag
from horizon.hive.journal import line_hash
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

