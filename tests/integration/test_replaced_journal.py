"""A journal replaced or truncated by hand: new lines get seqs after the current end,
nothing already read is read again, and a rebuild gives the same seqs."""

from __future__ import annotations

import json
import os
from pathlib import Path

from horizon.core.entries import Entry, Rejection
from horizon.core.settings import Effective, GlobalConfig, HorizonSettings
from horizon.engine.bee_engine import BeeEngine, ReadNew
from horizon.engine.stepping import PassRequest, run_pass
from horizon.hive.manifest import Jump, read_manifest

BEE = "mia"
NOW = 1_790_000_000.0
EFFECTIVE = Effective(HorizonSettings(actif=True), {}, None, None)


def lines(*questions: str) -> bytes:
    return b"".join(
        json.dumps({"ts": NOW, "type": "task", "question": q, "answer": "a"}).encode() + b"\n"
        for q in questions
    )


def hive_with(tmp_path: Path, data: bytes) -> Path:
    hive = tmp_path / "hive"
    (hive / "window").mkdir(parents=True)
    (hive / "window" / f"{BEE}-messages.jsonl").write_bytes(data)
    return hive


def one_pass(hive: Path) -> tuple[list[tuple[int, str]], object]:
    seen: list[tuple[int, str]] = []

    def keep(record: Entry | Rejection) -> None:
        seen.append((record.seq, record.question if isinstance(record, Entry) else "?"))

    outcome = BeeEngine(hive, BEE, GlobalConfig(), EFFECTIVE, on_record=keep).run(ReadNew(), NOW)
    return seen, outcome


def rebuild_seqs(hive: Path) -> list[tuple[int, str]]:
    seen: list[tuple[int, str]] = []
    run_pass(PassRequest(hive, BEE, GlobalConfig(), EFFECTIVE, NOW, None,
             on_record=lambda r: seen.append((r.seq, r.question if isinstance(r, Entry) else "?"))))
    return seen


def test_a_replaced_journal_is_read_from_its_start_after_the_current_end(tmp_path: Path
                                                                         ) -> None:
    hive = hive_with(tmp_path, lines("a", "b", "c"))
    first, _ = one_pass(hive)
    assert first == [(1, "a"), (2, "b"), (3, "c")]
    live = hive / "window" / f"{BEE}-messages.jsonl"
    replacement = live.with_suffix(".new")
    replacement.write_bytes(lines("x", "y"))
    os.replace(replacement, live)  # a new inode under the same name

    second, outcome = one_pass(hive)
    assert second == [(4, "x"), (5, "y")]
    assert outcome.notes.replaced is not None and "replaced" in outcome.notes.replaced
    assert any(isinstance(r, Jump) and r.seq == 3 for r in outcome.notes.records)
    assert read_manifest(hive / "window", BEE).jumps[0].seq == 3
    assert rebuild_seqs(hive) == [(4, "x"), (5, "y")], "a rebuild keeps the seqs given"

    third, _ = one_pass(hive)
    assert third == [], "nothing is read twice"


def test_a_truncated_journal_is_read_again_from_zero_with_new_seqs(tmp_path: Path) -> None:
    hive = hive_with(tmp_path, lines("a", "b", "c"))
    one_pass(hive)
    live = hive / "window" / f"{BEE}-messages.jsonl"
    with live.open("r+b") as journal:
        journal.truncate(0)
        journal.write(lines("z"))
    seen, outcome = one_pass(hive)
    assert seen == [(4, "z")]
    assert outcome.notes.replaced is not None and "truncated" in outcome.notes.replaced


def test_a_journal_rewritten_in_place_is_noticed_by_its_tail_hash(tmp_path: Path) -> None:
    hive = hive_with(tmp_path, lines("a", "b"))
    one_pass(hive)
    live = hive / "window" / f"{BEE}-messages.jsonl"
    with live.open("r+b") as journal:  # same inode, same size, other bytes, then more
        journal.write(lines("A", "B"))
        journal.write(lines("C"))
    seen, outcome = one_pass(hive)
    assert seen == [(3, "A"), (4, "B"), (5, "C")]
    assert outcome.notes.replaced is not None and "rewritten" in outcome.notes.replaced


def test_a_deleted_live_journal_keeps_its_seqs_for_the_next_one(tmp_path: Path) -> None:
    hive = hive_with(tmp_path, lines("a", "b", "c"))
    one_pass(hive)
    live = hive / "window" / f"{BEE}-messages.jsonl"
    live.unlink()
    seen, outcome = one_pass(hive)
    assert seen == [] and outcome.missing_segment is None, "nothing to read, no rebuild"
    assert outcome.state.zones.up_to == 3, "the zones keep what was read"
    live.write_bytes(lines("new"))
    seen, _ = one_pass(hive)
    assert seen == [(4, "new")], "the writer's new file continues after #3"
