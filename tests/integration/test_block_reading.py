"""The daemon's reading a block at a time gives exactly what reading a line at a time
gives: every record, its seq, the checkpoint, the manifest records and the flags noted,
whatever the lines (blank, too long, null fields, string or millisecond instants, two
objects on a line, an object written over several lines, garbage, flags, instants in the
future), the block size, and where time-bound slices stop."""

from __future__ import annotations

import copy
import json
import tempfile
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from horizon.core.entries import Entry, Rejection, _decode_wire, decode_block, decode_line
from horizon.hive import journal
from horizon.hive.journal import Checkpoint, line_hash
from horizon.hive.layout import archive_name
from horizon.hive.manifest import Clamps, Late, Rotated, Sealed, append_records, read_manifest
from horizon.hive.reader import JournalReader
from horizon.hive.recall_reader import Recall, RecallReader

# Recall that keeps every line: the line-at-a-time reading, beside the block reading.
LINE_AT_A_TIME = Recall(keep=lambda _seq, _raw: True)


def reader_for(line_at_a_time: bool, *args: Any, **kwargs: Any) -> JournalReader:
    """The daemon's reader, or recall's reading every line one by one."""
    if line_at_a_time:
        return RecallReader(*args, recall=LINE_AT_A_TIME, **kwargs)
    return JournalReader(*args, **kwargs)
BEE = "b"
MAX_LINE = 600
NOW = 1_790_000_000.0

values = st.one_of(st.none(), st.booleans(), st.integers(-5, 2 * 10**12),
                   st.floats(allow_nan=False, allow_infinity=False, min_value=-1.0,
                             max_value=3e12),
                   st.text(max_size=12), st.sampled_from(["2026-07-10T14:03:00+02:00",
                                                          "2026-07-10T14:03:00", "now"]))
objects = st.fixed_dictionaries(
    {"ts": st.one_of(st.floats(NOW - 9e5, NOW + 2e3), values),
     "type": st.one_of(st.just("task"), values), "question": st.text(max_size=30),
     "answer": st.text(max_size=30)},
    optional={"from": values, "tool": values, "id": values, "phare": values,
              "seq": values, "instant": values})


def line_of(obj: dict[str, object], spaced: bool) -> bytes:
    return json.dumps(obj, ensure_ascii=spaced, separators=None if spaced else (",", ":")
                      ).encode()


def spread(obj: dict[str, object]) -> bytes:
    """An object written over several lines: each line is a line of its own to a reader."""
    return json.dumps(obj, indent=1).encode()


lines = st.one_of(
    st.builds(line_of, objects, st.booleans()),
    st.builds(spread, objects),
    st.builds(line_of, objects, st.booleans()),
    st.builds(line_of, objects, st.booleans()),
    st.sampled_from([b"", b"   ", b"\t\r", b"\x0c", b"[1]", b"{", b"null", b"x" * (MAX_LINE + 5),
                     b'{"ts": 1, "type": "t", "question": "", "answer": ""} {"ts": 2}',
                     b' {"ts": 5.5, "type": "t", "question": "", "answer": ""}',
                     b'{"ts": 5.5, "type": "t", "question": "", "answer": "", "from": null}',
                     # Each line opens an object, yet the first spans two, the last holds two.
                     b'{"ts": 5, "type": "t", "question": "", "answer": "", "x":\n{}}\n'
                     b'{"ts": 6, "type": "t", "question": "", "answer": ""}'
                     b'{"ts": 7, "type": "t", "question": "", "answer": ""}',
                     b'{"ts": 5, "type": "t", "question": "",\n"answer": ""}']),
)


@given(st.lists(objects, max_size=30))
@settings(max_examples=300, deadline=None)
def test_a_line_decoded_straight_is_decoded_as_the_contract_reads_it(
        found: list[dict[str, object]]) -> None:
    for seq, obj in enumerate(found, 1):
        for spaced in (True, False):
            raw = line_of(obj, spaced)
            assert decode_line(seq, raw) == _decode_wire(seq, raw), raw


@pytest.mark.parametrize("block", [
    b'{"ts": 5, "type": "t", "question": "HIDDEN", "answer": "a", "x":\n{}}\n'
    b'{"ts": 6, "type": "t", "question": "v1", "answer": "a"}'
    b'{"ts": 7, "type": "t", "question": "INJECTED", "answer": "a"}\n',
    b'{"ts": 5, "type": "t", "question": "SPLIT",\n"answer": "a"}\n',
    b'{"ts": 5, "type": "t", "question": "q", "answer": "a"}\n\n',
])
def test_a_block_is_decoded_at_once_only_when_each_line_is_one_object(block: bytes) -> None:
    assert decode_block(1, block, block.count(b"\n"), NOW) is None
    one_a_line = b'{"ts": 5, "type": "t", "question": "q", "answer": "a"}\n' * 3
    assert [entry.seq for entry in decode_block(1, one_a_line, 3, NOW) or []] == [1, 2, 3]


def read(window: Path, flags: dict[int, str], slice_s: float | None = None,
         keep_all: bool = False) -> tuple[list[Entry | Rejection], Checkpoint, list[object],
                                          set[int], set[int]]:
    """Everything, in slices when `slice_s` is given (each reading resumes where the last
    stopped, as the daemon's passes do)."""
    manifest = read_manifest(window, BEE)
    checkpoint = Checkpoint()
    records: list[Entry | Rejection] = []
    notes: list[object] = []
    matched: set[int] = set()
    mismatched: set[int] = set()
    while True:
        reader = reader_for(keep_all, window, BEE, checkpoint, MAX_LINE, NOW, manifest, flags,
                            set(), slice_s=slice_s)
        records += list(reader)
        notes += reader.notes.records
        matched |= reader.notes.matched_flags
        mismatched |= reader.notes.mismatched_flags
        checkpoint = reader.checkpoint
        if not reader.more:
            return records, checkpoint, notes, matched, mismatched


@pytest.mark.parametrize("chunk", [64, 300, 1 << 20])
@given(journal_lines=st.lists(lines, max_size=60), flagged=st.sets(st.integers(1, 70)),
       stale=st.sets(st.integers(1, 70)))
@settings(max_examples=120, deadline=None)
def test_reading_by_blocks_gives_what_reading_by_lines_gives(
        chunk: int, journal_lines: list[bytes], flagged: set[int], stale: set[int]) -> None:
    with tempfile.TemporaryDirectory() as folder, pytest.MonkeyPatch.context() as patch:
        patch.setattr(journal, "CHUNK", chunk)
        window = Path(folder) / "hive" / "window"
        window.mkdir(parents=True)
        data = b"".join(line + b"\n" for line in journal_lines)
        (window / f"{BEE}-messages.jsonl").write_bytes(data)
        # Flags on the seqs the lines will take: some still match their line, some not.
        numbered = [line for line in data.split(b"\n") if line.strip()]
        flags = {seq: (line_hash(numbered[seq - 1]) if seq not in stale else "0" * 24)
                 for seq in flagged if seq <= len(numbered)}
        by_lines = read(window, flags, keep_all=True)
        assert read(window, flags) == by_lines
        # Slices bound in time stop after any record; resumed, they give the same.
        sliced = read(window, flags, slice_s=0.0)
        assert sliced[0] == by_lines[0]
        assert sliced[1].offset == by_lines[1].offset and sliced[1].seq == by_lines[1].seq
        # A run of clamped lines is one record a reading: slices may cut it in several.
        assert clamped(sliced[2]) == clamped(by_lines[2])
        assert sliced[3:] == by_lines[3:]


def clamped(notes: list[object]) -> list[object]:
    """Records with each clamped range told seq by seq."""
    told: list[object] = []
    for record in notes:
        if isinstance(record, Clamps):
            told += [(seq, record.instant) for seq in range(record.first, record.last + 1)]
        else:
            told.append(record)
    return told


def test_a_time_bound_slice_stops_inside_a_block_after_whole_lines(tmp_path: Path) -> None:
    window = tmp_path / "hive" / "window"
    window.mkdir(parents=True)
    good = [json.dumps({"ts": NOW - 60, "type": "task", "question": f"q{i}", "answer": "a"})
            for i in range(200)]
    text = "\n".join(line + ("\n\n" if i % 7 == 0 else "") for i, line in enumerate(good))
    (window / f"{BEE}-messages.jsonl").write_text(text + "\n", encoding="utf-8")
    reader = JournalReader(window, BEE, Checkpoint(), MAX_LINE, NOW,
                           read_manifest(window, BEE), {}, set(), slice_s=0.0)
    first = list(reader)
    assert reader.more and len(first) == 1 and first[0].seq == 1
    data = (window / f"{BEE}-messages.jsonl").read_bytes()
    assert data[:reader.checkpoint.offset].endswith(good[0].encode() + b"\n")
    records = first
    while reader.more:
        reader = JournalReader(window, BEE, reader.checkpoint, MAX_LINE, NOW,
                               read_manifest(window, BEE), {}, set(), slice_s=0.0)
        records += list(reader)
    assert [record.seq for record in records] == list(range(1, 201))
    assert msgspec.to_builtins(records[-1])["question"] == "q199"


# -- blocks of plain lines, each guard of the one-call path reached --------------------------

def plain_line(seq_hint: int, ts: float, answer_size: int) -> bytes:
    """A line the one-call path takes: compact, one object, epoch seconds."""
    return line_of({"ts": ts, "type": "task", "question": f"q{seq_hint}",
                    "answer": "a" * answer_size}, spaced=False)


plain_journals = st.lists(
    st.tuples(st.floats(NOW - 9e5, NOW + 9e5),  # some in the future: clamped
              st.sampled_from([5, 20, MAX_LINE - 60, MAX_LINE + 10])),  # some too long
    min_size=1, max_size=40)


@pytest.mark.parametrize("chunk", [300, 1 << 20])
@given(history=plain_journals, flagged=st.sets(st.integers(1, 45)),
       stale=st.sets(st.integers(1, 45)), later=st.floats(0, 2e6))
@settings(max_examples=150, deadline=None)
def test_plain_blocks_holding_flags_clamps_and_long_lines_read_as_lines(
        chunk: int, history: list[tuple[float, int]], flagged: set[int], stale: set[int],
        later: float) -> None:
    """Blocks of lines that are each one plain object, among them a line over
    max_line_bytes, a flagged seq and a future `ts`; read again from the start later (a
    rebuild), when that `ts` is no longer in the future but its clamp is recorded."""
    with tempfile.TemporaryDirectory() as folder, pytest.MonkeyPatch.context() as patch:
        patch.setattr(journal, "CHUNK", chunk)
        window = Path(folder) / "hive" / "window"
        window.mkdir(parents=True)
        lines = [plain_line(n, ts, size) for n, (ts, size) in enumerate(history)]
        (window / f"{BEE}-messages.jsonl").write_bytes(b"".join(line + b"\n" for line in lines))
        flags = {seq: line_hash(lines[seq - 1]) if seq not in stale else "0" * 24
                 for seq in flagged if seq <= len(lines)}
        manifest = read_manifest(window, BEE)
        for read_time in (NOW, NOW + later):  # the second reading finds the clamps
            found = []
            for keep_all in (True, False):
                reader = reader_for(keep_all, window, BEE, Checkpoint(), MAX_LINE, read_time,
                                    copy.deepcopy(manifest), flags, set())
                found.append((list(reader), reader.checkpoint, reader.notes.records,
                              reader.notes.matched_flags, reader.notes.mismatched_flags))
                if not keep_all:
                    manifest = reader.manifest
            assert found[1] == found[0]


@pytest.mark.parametrize("chunk", [200, 1 << 20])
@given(before=st.integers(1, 5), late=st.integers(1, 4), read_first=st.integers(0, 12),
       after=st.integers(1, 12))
@settings(max_examples=60, deadline=None)
def test_late_ranges_read_by_blocks_as_by_lines(chunk: int, before: int, late: int,
                                                read_first: int, after: int) -> None:
    """Lines a writer appended to a rotated segment were read out of order between two
    lines of the new live journal: a rebuild gives them their recorded seqs in the middle
    of a block of plain lines, and so does reading that block in one call."""
    with tempfile.TemporaryDirectory() as folder, pytest.MonkeyPatch.context() as patch:
        patch.setattr(journal, "CHUNK", chunk)
        window = Path(folder) / "hive" / "window"
        (window / "archive").mkdir(parents=True)
        segment = window / "archive" / archive_name(BEE, 1)
        rotated = b"".join(plain_line(n, NOW - 60, 10) + b"\n" for n in range(before))
        appended = b"".join(plain_line(100 + n, NOW - 60, 10) + b"\n" for n in range(late))
        segment.write_bytes(rotated + appended)
        live = [plain_line(200 + n, NOW - 60, 10) for n in range(read_first + after)]
        (window / f"{BEE}-messages.jsonl").write_bytes(b"".join(line + b"\n" for line in live))
        first = before + min(read_first, len(live)) + 1
        append_records(window, BEE, [
            Rotated(segment.name, segment.stat().st_ino, len(rotated), before),
            Late(segment.name, len(rotated), len(rotated) + len(appended), first,
                 first + late - 1),
            Sealed(segment.name, len(rotated) + len(appended))])
        readings = []
        for keep_all in (True, False):
            reader = reader_for(keep_all, window, BEE, Checkpoint(), MAX_LINE, NOW,
                                read_manifest(window, BEE), {}, set())
            readings.append([(record.seq, msgspec.to_builtins(record))
                             for record in reader])
        assert readings[1] == readings[0]
        assert [seq for seq, _ in readings[0]] == list(range(1, before + late + len(live) + 1))
