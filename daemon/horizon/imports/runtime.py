"""What an importer of an agent runtime's transcript gives (pure): the journal entries it
made, each with the transcript line it came from, and the lines it could not read.

A runtime's reader (`TranscriptReader`) takes the transcript's lines as read from the file,
numbered, and yields one result at a time, so a long transcript is never held whole.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Protocol

import msgspec

OPERATOR = "apicultrice"  # the writer contract's `from` for the human operator


class JournalEntry(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """One journal line as the writer contract spells it (docs/reference.md §2.2); the
    optional fields left unset are left out of the line."""

    ts: str
    type: str
    question: str
    answer: str
    sender: str | msgspec.UnsetType = msgspec.field(name="from", default=msgspec.UNSET)
    tool: str | msgspec.UnsetType = msgspec.UNSET
    id: str | msgspec.UnsetType = msgspec.UNSET
    ok: bool | msgspec.UnsetType = msgspec.UNSET
    files: tuple[str, ...] | msgspec.UnsetType = msgspec.UNSET


_encoder = msgspec.json.Encoder()


def journal_line(entry: JournalEntry) -> bytes:
    """The entry as one journal line, its newline included."""
    return _encoder.encode(entry) + b"\n"


def journal_record(entry: JournalEntry) -> dict[str, object]:
    """The entry as the dict `horizon.client.append` takes."""
    record: dict[str, object] = msgspec.to_builtins(entry)
    return record


class Converted(msgspec.Struct, frozen=True):
    """An entry made from the transcript. `uuid` and `line_number` are those of the last
    transcript line it was made from, so an importer can say how far it got.

    `settled` is False only for an entry the end of the lines cut short: a longer version
    of the same transcript may make it longer (see the reader's notes on resuming)."""

    line_number: int
    uuid: str
    entry: JournalEntry
    settled: bool = True


class Problem(msgspec.Struct, frozen=True):
    """A line that could not be read; it is skipped and nothing else is lost."""

    line_number: int
    reason: str


class Unfinished(msgspec.Struct, frozen=True):
    """A tool call whose result had not come when the lines ended: no entry is made for it
    until a longer transcript holds its result."""

    line_number: int
    uuid: str
    tool: str
    question: str


Result = Converted | Problem | Unfinished


class TranscriptReader(Protocol):
    """A runtime's transcript read into journal entries; an instance reads one transcript
    once (it keeps what is still open between lines)."""

    @property
    def name(self) -> str:
        """The runtime's name on the command line (`horizon import NAME`)."""
        ...

    def entries(self, lines: Iterable[tuple[int, bytes | str]]) -> Iterator[Result]:
        """The results of the numbered lines, in order; each line as read from the file,
        its newline included (a line without one can only be the last)."""
        ...

    @property
    def settled_through(self) -> int:
        """The number of the last line read after which nothing was left open (a call
        waiting for its result, a text the next line may continue): a new reading that
        starts on the line after it gives the results still to come, the same ones."""
        ...


class Conversion(Protocol):
    """One transcript's reading in progress, as a reader module keeps it."""

    settled_through: int

    def run(self, lines: Iterable[tuple[int, bytes | str]]) -> Iterator[Result]: ...


class ConversionReader:
    """A `TranscriptReader` over a reader module's conversion: one reading per instance.
    A runtime's reader names itself (`name`) and says which conversion it runs."""

    name = ""

    def __init__(self, conversion: Conversion) -> None:
        self._conversion = conversion

    def entries(self, lines: Iterable[tuple[int, bytes | str]]) -> Iterator[Result]:
        """The results of the numbered lines, in order (see the reader module's notes)."""
        return self._conversion.run(lines)

    @property
    def settled_through(self) -> int:
        """The last line read after which nothing was left open."""
        return self._conversion.settled_through
