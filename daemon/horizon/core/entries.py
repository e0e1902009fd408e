"""Journal entries: decoding one line into an Entry or a Rejection, never raising."""

from __future__ import annotations

import enum
import math
import time
from collections.abc import Callable
from datetime import datetime
from typing import cast

import msgspec

FILES_KEPT = 32  # of an entry's `files`, the ones used
LATEST = 253402300799.0  # 9999-12-31T23:59:59Z: the last instant a view can print
INSTANT_CHARS = 20  # len(format_instant(t)) for every t in [0, LATEST]


class RejectReason(enum.StrEnum):
    INVALID_UTF8 = "invalid_utf8"
    BAD_JSON = "bad_json"
    NOT_OBJECT = "not_object"
    MISSING_FIELD = "missing_field"
    WRONG_TYPE = "wrong_type"
    BAD_TS = "bad_ts"
    TOO_LONG = "too_long"


class _WireEntry(msgspec.Struct):
    """The writer contract, as msgspec validates it."""

    ts: str | int | float
    type: str
    question: str
    answer: str
    from_: str | msgspec.UnsetType = msgspec.field(name="from", default=msgspec.UNSET)
    tool: str | msgspec.UnsetType = msgspec.UNSET
    id: str | int | msgspec.UnsetType = msgspec.UNSET
    phare: bool | msgspec.UnsetType = msgspec.UNSET
    # Added later: a wrong type is ignored and counted, not the line rejected.
    ok: object = msgspec.UNSET
    files: object = msgspec.UNSET


class Entry(msgspec.Struct, frozen=True, kw_only=True,
            rename={"instant": "ts", "sender": "from", "writer_id": "id"}):
    """An accepted exchange, addressed by its seq.

    Its fields are the writer contract's, renamed, so a usual line decodes straight into
    it (`decode_line`); `seq` is the reader's, set after decoding.
    """

    seq: int = 0
    instant: float  # epoch seconds, UTC
    type: str
    question: str
    answer: str
    sender: str | None = None
    tool: str | None = None
    writer_id: str | None = None
    phare: bool = False
    ok: bool | None = None
    files: tuple[str, ...] | None = None
    bad_field: bool = False  # `ok` or `files` was there with the wrong type: ignored


class _Decoded(Entry, frozen=True, kw_only=True,
               rename={"instant": "ts", "sender": "from", "writer_id": "id"}):
    """An Entry as a journal line decodes into it. An Entry's None stands for a field left
    out; here the optional fields take no null, which the writer contract rejects as the
    wrong type, so a line decoded straight into it is one the contract accepts."""

    sender: str = None  # type: ignore[assignment]
    tool: str = None  # type: ignore[assignment]
    writer_id: str = None  # type: ignore[assignment]
    ok: bool = None  # type: ignore[assignment]
    files: tuple[str, ...] = None  # type: ignore[assignment]


class Rejection(msgspec.Struct, frozen=True):
    """A line that holds bytes but is not a valid entry; it keeps its seq."""

    seq: int
    reason: RejectReason
    detail: str


_decoder = msgspec.json.Decoder(_WireEntry)
_entry_decoder = cast("msgspec.json.Decoder[Entry]", msgspec.json.Decoder(_Decoded))
# The long way makes the same type as the straight decoding, with None for a field left
# out (Entry's typing; _Decoded's only tells the decoder to take no null).
_decoded: Callable[..., Entry] = _Decoded


def parse_ts(value: str | int | float) -> float | None:
    """Epoch seconds for an RFC 3339 instant with offset or an epoch number, else None."""
    kind = type(value)
    if kind is float or kind is int:
        try:
            seconds = float(value)
        except OverflowError:  # an integer of hundreds of digits: no time
            return None
        if seconds > 1e11:  # the writer contract: such a number is milliseconds
            seconds /= 1000.0
        if not math.isfinite(seconds) or not 0 <= seconds <= LATEST:
            return None
        return seconds
    if not isinstance(value, str):
        return None  # a bool, or an int subclass: not a time
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return None
    if parsed.tzinfo is None or "T" not in value.upper():
        return None
    try:
        seconds = parsed.timestamp()
    except (OverflowError, ValueError):
        return None
    return seconds if 0 <= seconds <= LATEST else None


def format_instant(instant: float) -> str:
    """RFC 3339 in UTC, to the second: the form every view and log uses."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(int(instant)))


def _classify(error: msgspec.MsgspecError) -> tuple[RejectReason, str]:
    message = str(error)
    if message.startswith("Invalid UTF-8"):
        return RejectReason.INVALID_UTF8, "invalid UTF-8"
    if not isinstance(error, msgspec.ValidationError):
        return RejectReason.BAD_JSON, message
    if message.startswith("Object missing required field"):
        return RejectReason.MISSING_FIELD, message
    if message.startswith("Expected `object`") and " - at " not in message:
        return RejectReason.NOT_OBJECT, message
    return RejectReason.WRONG_TYPE, message


def decode_line(seq: int, raw: bytes) -> Entry | Rejection:
    """One complete journal line (no newline) into an Entry or a Rejection."""
    # The usual line (epoch seconds, string metadata) decodes straight into its Entry:
    # one object made instead of two.
    try:
        entry = _entry_decoder.decode(raw)
    except (msgspec.MsgspecError, RecursionError, ValueError, OverflowError):
        pass  # the long way says which rule the line breaks
    else:
        if 0.0 <= entry.instant <= 1e11:  # else milliseconds, or out of range
            msgspec.structs.force_setattr(entry, "seq", seq)
            if entry.files is not None and len(entry.files) > FILES_KEPT:
                msgspec.structs.force_setattr(entry, "files", entry.files[:FILES_KEPT])
            return entry
    return _decode_wire(seq, raw)


def decode_block(first_seq: int, block: bytes, lines: int, latest: float
                 ) -> list[Entry] | None:
    """A block of `lines` whole lines (each ending with a newline) decoded in one call
    into entries with seqs from `first_seq`. None when a line must be decoded on its own:
    a line that is not one object (a blank one included), a field not of the usual type
    (a null, a string ts, a number id), an instant not in seconds up to `latest`."""
    # decode_lines reads newlines as whitespace: an object may span lines there, and a
    # line may hold two. When every line opens with "{" and closes with "}", none can
    # span (after a "}" inside a value only ",", "]" or "}" may follow, never "{"), so
    # as many entries as lines means one object a line.
    if (block.count(b"}\n{") != lines - 1 or not block.startswith(b"{")
            or not block.endswith(b"}\n")):
        return None
    try:
        entries = _entry_decoder.decode_lines(block)
    except (msgspec.MsgspecError, RecursionError, ValueError, OverflowError):
        return None
    if len(entries) != lines:
        return None
    seq = first_seq
    for entry in entries:
        if not 0.0 <= entry.instant <= latest:
            return None
        msgspec.structs.force_setattr(entry, "seq", seq)
        if entry.files is not None and len(entry.files) > FILES_KEPT:
            msgspec.structs.force_setattr(entry, "files", entry.files[:FILES_KEPT])
        seq += 1
    return entries


def _decode_wire(seq: int, raw: bytes) -> Entry | Rejection:
    """`decode_line` by the writer contract's own types, field by field."""
    try:
        wire = _decoder.decode(raw)
    except msgspec.MsgspecError as error:
        reason, detail = _classify(error)
        return Rejection(seq, reason, detail)
    except (RecursionError, ValueError, OverflowError):
        return Rejection(seq, RejectReason.BAD_JSON, "nested too deeply or out of range")
    instant = parse_ts(wire.ts)
    if instant is None:
        return Rejection(seq, RejectReason.BAD_TS, "ts is not RFC 3339 with offset nor epoch")
    sender, tool, writer_id = wire.from_, wire.tool, wire.id
    ok = wire.ok if type(wire.ok) is bool else None
    files = _files(wire.files)
    return _decoded(
        seq=seq, instant=instant, type=wire.type, question=wire.question,
        answer=wire.answer, sender=None if sender is msgspec.UNSET else sender,
        tool=None if tool is msgspec.UNSET else tool,
        writer_id=None if writer_id is msgspec.UNSET else str(writer_id),
        phare=wire.phare is True, ok=ok, files=files,
        bad_field=(ok is None and wire.ok is not msgspec.UNSET)
        or (files is None and wire.files is not msgspec.UNSET),
    )


def _files(value: object) -> tuple[str, ...] | None:
    """`files` when it is a list of strings (its first FILES_KEPT), else None."""
    if type(value) is not list or not all(type(path) is str for path in value):
        return None
    return tuple(value[:FILES_KEPT])


def too_long(seq: int, size: int) -> Rejection:
    return Rejection(seq, RejectReason.TOO_LONG, f"line longer than max_line_bytes ({size} bytes)")
