"""Recall against what breaks it: a daemon rotating the journal while a search or a show
reads it, text that folding makes eighteen times longer, a pattern that takes just under its
limit on every one of many texts, a manifest edited by hand, and millions of lines that are
not entries."""

from __future__ import annotations

import json
import tempfile
import time
import tracemalloc
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from horizon.core.entries import Entry
from horizon.core.recall import find_folded, fold
from horizon.core.settings import HorizonSettings
from horizon.engine import recall
from horizon.engine.recall import RecallError, search, show
from horizon.hive import journal
from horizon.hive.history import History
from horizon.hive.layout import archive_dir
from horizon.hive.reader import JournalReader
from horizon.hive.recall_reader import RecallReader
from tests.integration.test_recall import BEE, MAX_LINE, Hive

# -- a rotation while the history is read ---------------------------------------------------

DEFAULTS = HorizonSettings()  # the lighthouse rule of a bee with no settings


@pytest.fixture
def rotating_hive(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Hive]:
    """A hive (one segment, two lines read in the live journal) whose daemon rotates the
    journal, once, right after the first reader of a reading is made: the moment a
    search of a long history spends reading its archives."""
    hive = Hive(tmp_path)
    hive.write(hive.lines(3))
    hive.daemon()  # rotated: #1-#3
    hive.write(hive.lines(2))
    hive.daemon()  # #4, #5 read in the live journal
    real = History.reader
    rotated: list[str] = []

    def reader_then_a_rotation(self: History, *args: Any, **kwargs: Any) -> JournalReader:
        made = real(self, *args, **kwargs)
        if not rotated:
            hive.write(hive.lines(1))
            outcome = hive.daemon()  # reads #6 and rotates the journal: #4-#6
            assert outcome.rotated is not None
            rotated.append(outcome.rotated.segment)
            hive.write(hive.lines(2))  # a new live journal, #7 and #8 to come
        return made

    monkeypatch.setattr(History, "reader", reader_then_a_rotation)
    yield hive
    assert rotated, "the daemon rotated during the reading"


def questions(records: dict[int, Any]) -> dict[int, str]:
    return {seq: r.question for seq, r in records.items() if isinstance(r, Entry)}


def test_a_search_while_the_daemon_rotates_gives_every_entry_its_seq(
        rotating_hive: Hive) -> None:
    hive = rotating_hive
    hits = search(hive.path, BEE, "question", MAX_LINE, lighthouses=DEFAULTS, limit=200)
    expected = questions(hive.full_read())
    assert len(expected) == 8
    assert {hit.entry.seq: hit.excerpt for hit in hits} == expected


def test_a_show_while_the_daemon_rotates_gives_the_entry_the_view_names(
        rotating_hive: Hive) -> None:
    hive = rotating_hive
    # Both read by the daemon already.
    showing = show(hive.path, BEE, [4, 5], MAX_LINE, lighthouses=DEFAULTS)
    assert showing.problems == []
    expected = questions(hive.full_read())
    assert {shown.entry.seq: shown.question for shown in showing.shown} == {
        4: expected[4], 5: expected[5]}


# -- folding text that decomposes into many characters ------------------------------------

# U+FDFA decomposes (NFKD) into 18 characters: a line of it is the costliest text to fold.
EXPANDING = "\ufdfa"


def test_folding_a_text_that_decomposes_holds_no_object_per_character() -> None:
    """Folding U+FDFA x 300,000 (5.4 million characters once decomposed) must not make a
    Python string per character (it took 1.9 GB and 20 s for a 4 MB line): its peak stays
    within a few times the folded text itself."""
    text = EXPANDING * 300_000 + " needle"
    tracemalloc.start()
    try:
        assert "needle" in fold(text)
        assert find_folded(text, "needle") == len(text) - len("needle")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    # A str of 5.4 million characters outside Latin-1 takes 2 or 4 bytes each.
    assert peak < 12 * len(decomposed) * 4, (peak, len(decomposed))


RUNAWAY = "(x+x+)+y"


def test_a_pattern_just_under_its_limit_on_every_text_is_stopped_in_all(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each text alone is under the limit of one text; together they are a search that
    never ends (here 24 texts of 0.25 s each): the search has a limit of its own. The
    search's clock is one that advances 0.25 s a look, so a fast machine or a loaded one
    gives the same verdict."""

    class Clock:
        now = 0.0

        def monotonic(self) -> float:
            self.now += 0.125  # two looks a text: 0.25 s each
            return self.now

        def __getattr__(self, name: str) -> Any:
            return getattr(time, name)

    monkeypatch.setattr(recall, "REGEX_BUDGET_S", 1.0, raising=False)
    monkeypatch.setattr(recall, "time", Clock())
    hive = Hive(tmp_path)
    hive.write(b"".join(hive.line("x" * 50, "x" * 50) for _ in range(12)))
    with pytest.raises(RecallError, match="ran away over the history"):
        search(hive.path, BEE, RUNAWAY, MAX_LINE, lighthouses=DEFAULTS, pattern=True)


# -- a manifest edited by hand --------------------------------------------------------------

def edit_manifest(hive: Hive, edit: Any) -> None:
    """Each record of the manifest through `edit` (a dict in, a list of dicts out)."""
    path = archive_dir(hive.window) / f"{BEE}-segments.jsonl"
    records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    path.write_text("".join(json.dumps(out) + "\n" for record in records
                            for out in edit(record)))


def rotated_hive(tmp_path: Path) -> Hive:
    hive = Hive(tmp_path)
    hive.write(hive.lines(3))
    hive.daemon()  # rotated: #1-#3
    hive.write(hive.lines(2))
    hive.daemon()
    return hive


def test_a_rotation_record_past_any_file_size_is_no_traceback(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An offset no file can reach (2**64 - 1): the record is malformed, refused as a torn
    line is, so its segment is not part of the history; show says what it cannot find,
    and agrees with a full read, with no traceback."""
    hive = rotated_hive(tmp_path)
    edit_manifest(hive, lambda record: [
        {**record, "offset": 2**64 - 1} if record["kind"] == "rotated" else record])
    records = hive.full_read()
    code, shown, err = hive.show_json(capsys, 1, 5)
    assert "Traceback" not in err
    assert [item["seq"] for item in shown] == [seq for seq in (1, 5) if seq in records]
    assert code == (0 if {1, 5} <= set(records) else 1)


def test_a_late_record_past_any_file_size_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hive = rotated_hive(tmp_path)
    [segment] = hive.rotated()
    edit_manifest(hive, lambda record: [record, *([{
        "kind": "late", "segment": segment, "start": 2**64 - 10, "end": 2**64 - 1,
        "first_seq": 4, "last_seq": 4}] if record["kind"] == "rotated" else [])])
    for argv in (["show", "1", "4"], ["search", "question"], ["rebuild"]):
        code, _, err = hive.cli(capsys, argv[0], str(hive.path),
                                *([] if argv[0] == "rebuild" else [BEE]), *argv[1:])
        assert code in (0, 1) and "Traceback" not in err, argv


# -- millions of lines that are not entries -------------------------------------------------

def test_lines_that_are_not_objects_are_passed_over_a_block_at_a_time(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two million rejected lines (`x`): a search for an absent word and a show past the
    end pass over them a block at a time, as over lines that open an object (one call per
    line was 4 us a line: 8 s for a search, 3 s for a show). Counted, not timed: no line
    of them is looked at one by one."""
    hive = tmp_path / "hive"
    (hive / "window").mkdir(parents=True)
    live = hive / "window" / f"{BEE}-messages.jsonl"
    max_line = 4 << 20  # the default: blocks of a read (1 MiB) are passed over only under it
    looked_at = 0
    record = RecallReader._record

    def counted(reader: RecallReader, raw: bytes | None) -> Any:
        nonlocal looked_at
        looked_at += 1
        return record(reader, raw)

    monkeypatch.setattr(RecallReader, "_record", counted)
    for line in (b"{}\n", b"x\n"):
        live.write_bytes(line * 2_000_000)
        looked_at = 0
        assert search(hive, BEE, "absent", max_line, lighthouses=DEFAULTS) == []
        assert looked_at == 0, (line, looked_at)
        assert show(hive, BEE, [2_000_001], max_line, lighthouses=DEFAULTS).problems == [
            f"no entry #2000001 for bee {BEE!r}: its history holds 2000000 lines"]
        assert looked_at == 0, (line, looked_at)


odd_lines = st.sampled_from([b"x", b"", b"   ", b"\t\r", b"{", b"{}", b"[1]", b" {}"])
steps = st.lists(st.one_of(st.sampled_from(["needle", "hay"]), odd_lines), max_size=40)


@settings(max_examples=80)
@given(history=steps, chunk=st.sampled_from([16, 64, 256]))
def test_blocks_of_odd_lines_keep_every_seq(history: list[str | bytes], chunk: int) -> None:
    """Blank lines (no seq) among rejected ones and entries, in small blocks and rotated
    segments: a search and a lookup of every seq give what a full read gives."""
    with tempfile.TemporaryDirectory() as folder, pytest.MonkeyPatch.context() as patch:
        patch.setattr(journal, "CHUNK", chunk)
        hive = Hive(Path(folder))
        for number, step in enumerate(history):
            hive.write(hive.line(step) if isinstance(step, str) else step + b"\n")
            if number % 4 == 3:
                hive.daemon()
        records = hive.full_read()
        size = hive.size
        assert History(hive.path, BEE, MAX_LINE).find(range(1, size + 2)) == (records, size)
        for seq in range(1, size + 2):
            found, _ = History(hive.path, BEE, MAX_LINE).find([seq])
            assert found == ({seq: records[seq]} if seq in records else {}), seq
        needles = sorted((seq for seq, r in records.items()
                          if isinstance(r, Entry) and r.question == "needle"), reverse=True)
        assert [hit.entry.seq for hit in search(hive.path, BEE, "needle", MAX_LINE,
                                                lighthouses=DEFAULTS, limit=200)] == needles
