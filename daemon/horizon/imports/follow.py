"""A runtime's transcript followed into a bee's journal: the entries made since the last
import appended through `horizon.client.append`, and how far it got recorded in the
hive's `window/<bee>-imports.json`, so importing the same transcript again, or a longer
version of it, appends only what is new.

The record holds, per transcript (its runtime and file name), where the next reading
starts (a line after which the reader had nothing open), the last transcript line an
appended entry came from with its uuid, and a digest of the bytes just before the
restart. A transcript whose bytes there differ is no longer the one imported: it is read
again from its start, and only what follows the recorded uuid is appended (nothing when
the uuid is gone). Imports of one bee take the record's lock in turn, so hooks fired at
once append each entry once.

Only a transcript's new bytes are read, one line at a time: memory is bounded by the
longest line (at most `MAX_TRANSCRIPT_LINE`), never by the transcript.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

import msgspec

from horizon.client import ClientError, InvalidBee, InvalidEntry, JournalRefused, append
from horizon.hive.layout import is_bee_name
from horizon.imports.record import (
    LOCK_WAIT_S,
    ImportRefused,
    Progress,
    RecordFile,
    locked_record,
)
from horizon.imports.runtime import (
    Converted,
    JournalEntry,
    Problem,
    TranscriptReader,
    Unfinished,
    journal_record,
)

MAX_TRANSCRIPT_LINE = 64 << 20
CHECK_BYTES = 4096
SAVE_EVERY_S = 1.0  # a reading that runs long records how far it got this often
MAX_PROBLEMS = 100  # lines skipped that are named; the others are counted
_line_encoder = msgspec.json.Encoder()


class _HeldStop:
    """A stop (a SIGTERM at a hook's timeout) that comes while an entry is in the journal
    but not yet in the progress is held until the progress holds it: taken at once, it
    would leave the entry to be appended again by the next import."""

    def __init__(self) -> None:
        self.holding = 0
        self.pending: BaseException | None = None

    def __enter__(self) -> None:
        self.holding += 1

    def __exit__(self, *_: object) -> None:
        self.holding -= 1
        if not self.holding and self.pending is not None:
            pending, self.pending = self.pending, None
            raise pending

    def stop(self, stopping: BaseException) -> None:
        """Raise `stopping` now, or as soon as no entry is halfway recorded."""
        if self.holding:
            self.pending = stopping
        else:
            raise stopping


HELD_STOP = _HeldStop()


@dataclass
class ImportReport:
    """What an import did: entries appended, lines skipped (with why), calls still waiting
    for their result, entries the journal refused, entries cut to fit a journal line."""

    transcript: str
    appended: int = 0
    problems: list[Problem] = field(default_factory=list)  # the first MAX_PROBLEMS
    problems_count: int = 0
    waiting: int = 0
    refused: list[str] = field(default_factory=list)
    shortened: int = 0
    restarted: bool = False
    lines_read: int = 0
    bytes_read: int = 0

    def problem(self, problem: Problem) -> None:
        """A line skipped: counted, and kept to be named while there are few."""
        self.problems_count += 1
        if len(self.problems) < MAX_PROBLEMS:
            self.problems.append(problem)


def follow(hive: Path, bee: str, transcript: Path, reader: TranscriptReader, *,
           final: bool, max_line_bytes: int, lock_wait_s: float = LOCK_WAIT_S
           ) -> ImportReport:
    """Append what `transcript` holds past its last import to the bee's journal.

    `final` says the transcript is complete for now (an import, a turn's end): a text
    the end of the lines cut is appended too; else it waits for the next reading.
    """
    if not is_bee_name(bee):
        raise InvalidBee(f"{bee!r} is not a bee name")
    source = _open_transcript(transcript)
    try:
        with locked_record(hive, bee, lock_wait_s) as record:
            return _import(record, hive, bee, transcript, source, reader, final=final,
                           max_line_bytes=max_line_bytes)
    finally:
        source.close()


def _open_transcript(path: Path) -> BinaryIO:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise ImportRefused(f"{path}: a link; name the transcript it leads to") from None
        raise ImportRefused(f"{path}: {error.strerror}") from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        kind = "a FIFO" if stat.S_ISFIFO(mode) else "a folder" if stat.S_ISDIR(mode) else \
            "not a regular file"
        raise ImportRefused(f"{path}: {kind}; a transcript is a regular file")
    return os.fdopen(fd, "rb", buffering=1 << 16)


def _digest(source: BinaryIO, offset: int) -> str:
    """The check of the bytes before `offset`, read without moving the reading: a save
    in the middle of a reading would otherwise send it back to its restart point."""
    start = max(0, offset - CHECK_BYTES)
    return hashlib.sha256(os.pread(source.fileno(), offset - start, start)).hexdigest()


@dataclass
class _Lines:
    """The transcript's lines from an offset, numbered, with the offset each ends at."""

    source: BinaryIO
    number: int
    offset: int
    final: bool
    restart: Callable[[], int]  # the earliest line a new reading may start after
    overlong: list[int] = field(default_factory=list)
    ends: dict[int, int] = field(default_factory=dict)
    complete_through: int = 0

    def __iter__(self) -> Iterator[tuple[int, bytes]]:
        self.source.seek(self.offset)
        self.ends[self.number] = self.offset
        self.complete_through = self.number
        while True:
            raw = self.source.readline(MAX_TRANSCRIPT_LINE + 1)
            if not raw:
                return
            if not raw.endswith(b"\n") and len(raw) > MAX_TRANSCRIPT_LINE:
                skipped = len(raw) + self._skip_rest()
                self.number += 1
                self.overlong.append(self.number)
                self.offset += skipped
                self.ends[self.number] = self.offset
                self.complete_through = self.number
                yield self.number, b"\n"
                continue
            if not raw.endswith(b"\n") and not self.final:
                return  # the writer is still writing it: the next reading takes it whole
            self.number += 1
            self.offset += len(raw)
            self.ends[self.number] = self.offset
            if raw.endswith(b"\n"):
                self.complete_through = self.number
            if self.number % 4096 == 0:  # bounded: only the ends a restart may ask for
                self.forget_before(self.restart())
            yield self.number, raw

    def _skip_rest(self) -> int:
        skipped = 0
        while True:
            chunk = self.source.readline(1 << 20)
            skipped += len(chunk)
            if not chunk or chunk.endswith(b"\n"):
                return skipped

    def forget_before(self, number: int) -> None:
        """Bounded memory: the ends of lines before a settled one are never asked for."""
        for old in [n for n in self.ends if n < number]:
            del self.ends[old]


def _import(record: RecordFile, hive: Path, bee: str, path: Path, source: BinaryIO,
            reader: TranscriptReader, *, final: bool, max_line_bytes: int) -> ImportReport:
    key = f"{reader.name}:{path.name}"
    report = ImportReport(str(path))
    known = record.document.transcripts.get(key)
    skip_through: str | None = None
    start_offset, start_line = 0, 0
    progress = _Progress(0, "")
    if known is not None:
        size = os.fstat(source.fileno()).st_size
        if known.offset <= size and _digest(source, known.offset) == known.check:
            start_offset, start_line = known.offset, known.line
            progress = _Progress(known.imported_line, known.uuid)
        elif known.uuid:
            skip_through, report.restarted = known.uuid, True
    lines = _Lines(source, start_line, start_offset, final,
                   restart=lambda: min(reader.settled_through, lines.complete_through))

    def save() -> None:
        """How far this reading got, recorded: a hook killed at its timeout (SIGTERM
        ends it through here) or any later stop appends nothing twice."""
        restart = max(min(reader.settled_through, lines.complete_through), start_line)
        offset = lines.ends.get(restart, start_offset if restart == start_line else None)
        if offset is None or skip_through is not None:
            return
        with HELD_STOP:
            record.document.transcripts.pop(key, None)  # the newest goes last
            record.document.transcripts[key] = Progress(
                offset, restart, progress.line, progress.uuid, _digest(source, offset))
            record.save()
            progress.saved = time.monotonic()

    try:
        for result in reader.entries(lines):
            if isinstance(result, Problem):
                report.problem(result)
            elif isinstance(result, Unfinished):
                report.waiting += 1
            elif isinstance(result, Converted):
                if skip_through is not None:
                    if result.uuid == skip_through:
                        skip_through = None
                        progress = _Progress(result.line_number, result.uuid)
                    continue
                if result.line_number <= progress.line or not (result.settled or final):
                    continue
                with HELD_STOP:
                    if _appended(hive, bee, result.entry, max_line_bytes, report):
                        progress = _Progress(result.line_number, result.uuid,
                                             progress.saved)
                if time.monotonic() - progress.saved > SAVE_EVERY_S:
                    save()
    finally:
        with HELD_STOP:  # a stop now would skip the save below
            _tally(report, lines, start_line, start_offset)
            if skip_through is None:
                save()
    if skip_through is not None and known is not None:
        raise ImportRefused(
            f"{path}: does not hold the line imported last from it ({known.uuid}); it is "
            "not a longer version of the transcript imported before, so nothing was "
            f"appended (remove its record in {record.name} to import it whole)")
    return report


def _tally(report: ImportReport, lines: _Lines, start_line: int, start_offset: int) -> None:
    for number in lines.overlong:
        report.problem(Problem(number, f"over {MAX_TRANSCRIPT_LINE >> 20} MiB"))
    report.lines_read = lines.number - start_line
    report.bytes_read = lines.offset - start_offset


@dataclass
class _Progress:
    """The last transcript line an appended entry came from, and when it was saved."""

    line: int
    uuid: str
    saved: float = field(default_factory=time.monotonic)


def _appended(hive: Path, bee: str, entry: JournalEntry, max_line_bytes: int,
              report: ImportReport) -> bool:
    record = journal_record(entry)
    try:
        append(hive, bee, record, max_line_bytes=max_line_bytes, create=True)
    except JournalRefused as error:
        raise ImportRefused(str(error)) from None
    except InvalidEntry:
        shortened = _shortened(record, max_line_bytes)
        try:
            append(hive, bee, shortened, max_line_bytes=max_line_bytes, create=True)
        except JournalRefused as error:
            raise ImportRefused(str(error)) from None
        except ClientError as error:
            report.refused.append(f"{entry.type} of {entry.ts}: {error}")
            return False
        report.shortened += 1
    report.appended += 1
    return True


def _shortened(record: dict[str, object], max_line_bytes: int) -> dict[str, object]:
    """The entry with its answer cut in the middle until its line fits: the head and the
    tail are what a reader of a long output needs (the transcript keeps it whole)."""
    answer = str(record.get("answer", ""))
    encoded = len(_line_encoder.encode(record))
    keep = len(answer)
    while keep > 0:
        keep = int(keep * max_line_bytes / (encoded + 1) * 0.9)
        half = keep // 2
        cut = len(answer) - 2 * half
        record = {**record, "answer": f"{answer[:half]}\n[… {cut} characters cut to fit a "
                                      f"journal line …]\n{answer[len(answer) - half:]}"}
        encoded = len(_line_encoder.encode(record))
        if encoded < max_line_bytes:
            break
    return record
