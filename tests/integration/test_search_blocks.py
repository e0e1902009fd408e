"""A search passes over whole blocks of lines that cannot hold its words: for any history
(rotations, late lines, blank and rejected lines, accents, escapes) and any query, it finds
exactly what matching every entry one by one finds. Blocks are made small here, so a
history of a few dozen lines is many blocks."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from horizon.core.entries import Entry
from horizon.core.recall import has_words, query_words
from horizon.core.settings import HorizonSettings
from horizon.engine.recall import search
from horizon.hive import journal
from horizon.hive.history import History
from horizon.hive.manifest import read_manifest
from tests.integration.test_recall import BEE, MAX_LINE, Hive

WORDS = ["été", "ete", "Café", "tests", "x#5385", "naïve", "ŒUVRE", "ﬁle", "file", "rot"]
texts = st.lists(st.sampled_from([*WORDS, "a", "le", "the", " ", "’", "\u2028"]),
                 max_size=6).map(" ".join)
entries = st.tuples(texts, texts, st.booleans())  # question, answer, escaped JSON
odd_lines = st.sampled_from([b"", b"   ", b"not json", b'{"ts": 1}', b"x" * (MAX_LINE + 1)])
steps = st.lists(st.one_of(entries, entries, entries, odd_lines), min_size=1, max_size=40)

DEFAULTS = HorizonSettings()  # the lighthouse rule of a bee with no settings


@pytest.fixture(autouse=True)
def small_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(journal, "CHUNK", 256)


@settings(max_examples=60, deadline=None)
@given(history=steps, query=st.lists(st.sampled_from(WORDS), min_size=1, max_size=2),
       late=st.booleans())
def test_a_search_finds_what_matching_every_entry_finds(
        history: list[tuple[str, str, bool] | bytes], query: list[str], late: bool) -> None:
    with tempfile.TemporaryDirectory() as folder:
        hive = Hive(Path(folder), rotation_entries=3)
        stale = hive.stale_writer() if late else None
        try:
            for number, step in enumerate(history):
                if isinstance(step, bytes):
                    hive.write(step + b"\n")
                else:
                    question, answer, escaped = step
                    hive.write(hive.line(question, answer, ensure_ascii=escaped))
                if number % 3 == 2:
                    hive.daemon()
                    if stale is not None:  # once rotated, into a segment: read late
                        stale.write(json.dumps({"ts": 1, "type": "t", "question": "late",
                                                "answer": "été file"}).encode() + b"\n")
        finally:
            if stale is not None:
                stale.close()
        hive.daemon()
        if read_manifest(hive.window, BEE).late:
            event("ranges read out of order")
        words = " ".join(query)
        every = [record for record in History(hive.path, BEE, MAX_LINE).entries()
                 if isinstance(record, Entry)
                 and has_words(query_words(words), record.question, record.answer)]
        expected = sorted((record.seq for record in every), reverse=True)[:200]
        found = [hit.entry.seq for hit in search(hive.path, BEE, words, MAX_LINE,
                                                 lighthouses=DEFAULTS, limit=200)]
        assert found == expected


def test_a_range_read_late_within_a_block_passed_over_keeps_its_place(tmp_path: Path) -> None:
    """Lines late in a rotated segment took seqs in the middle of the next segment's lines:
    a block holding that point is read line by line, so the range is found at its seqs."""
    hive = Hive(tmp_path, rotation_entries=3)
    stale = hive.stale_writer()
    try:
        hive.write(b"".join(hive.line("a", "a") for _ in range(3)))
        hive.daemon()  # rotated: the stale writer's lines now land in the segment
        stale.write(json.dumps({"ts": 1, "type": "t", "question": "late",
                                "answer": "été file"}).encode() + b"\n")
        hive.write(b"".join(hive.line("a", "a") for _ in range(2)))
        hive.daemon()  # #4 and #5 from the live journal, then the late line: #6
        hive.write(b"".join(hive.line("a", "b") for _ in range(5)))
        hive.daemon()
    finally:
        stale.close()
    [late] = read_manifest(hive.window, BEE).late
    assert (late.first_seq, late.last_seq) == (6, 6)
    assert [hit.entry.seq for hit in search(hive.path, BEE, "ete", MAX_LINE,
                                            lighthouses=DEFAULTS)] == [6]
    assert [hit.entry.seq for hit in search(hive.path, BEE, "b", MAX_LINE,
                                            lighthouses=DEFAULTS)] == [11, 10, 9, 8, 7]
