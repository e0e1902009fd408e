"""Recall's words: an entry shown by seq, a search's matching and its excerpts (pure).

What recall prints is as safe as the view: text cleaned as the view cleans it, metadata
escaped in headings, every content line behind the quote prefix.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

import regex

from horizon.core.blocks import Item, heading
from horizon.core.entries import Entry, format_instant
from horizon.core.labels import Labels
from horizon.core.text import ELLIPSIS, clean, cut, flatten, quoted_lines

EXCERPT_CHARS = 300
_BEFORE = 100  # characters of context an excerpt keeps before its match
# JSON may escape these (`\"`, `\\`, `\/`, `\uXXXX`): a word holding one can be absent
# from a line's bytes and present in its text, so such words get no byte prefilter.
_ESCAPABLE = frozenset('"\\/')


# Combining marks (canonical combining class other than 0), dropped by one pass of the
# regex engine: a character at a time in Python cost a string object per character of the
# decomposition, which a hostile line makes 18 times its length (U+FDFA): a line of
# max_line_bytes took seconds and gigabytes.
_COMBINING = regex.compile(r"\P{ccc=0}+")
_FIND_CHUNK = 4096  # characters folded at once while finding where a match starts


def fold(text: str) -> str:
    """Case and accents folded: `Été` and `ete` match each other."""
    if text.isascii():
        return text.lower()
    return _COMBINING.sub("", unicodedata.normalize("NFKD", text.casefold()))


def query_words(query: str) -> tuple[str, ...]:
    """The words a search looks for, folded, each once, in the order given."""
    return tuple(dict.fromkeys(fold(clean(query)).split()))


def has_words(words: tuple[str, ...], *texts: str) -> bool:
    return holds_words(words, [fold(text) for text in texts])


def holds_words(words: tuple[str, ...], folded: list[str]) -> bool:
    """Whether every word is in one of the texts, already folded."""
    return all(any(word in text for text in folded) for word in words)


def byte_prefilter(words: tuple[str, ...]) -> Callable[[int, bytes], bool] | None:
    """A test on a journal line's bytes that never refuses a line whose text holds every
    word: an ASCII line with no `\\u` escape spells its text's characters as themselves,
    so lowering its bytes folds its text. Other lines are always kept (decoded, then
    matched). None when a word could hide behind an escape."""
    if not words or any(not word.isascii() or _ESCAPABLE & set(word) or not word.isprintable()
                        for word in words):
        return None
    needles = [word.encode("ascii") for word in words]

    def keep(_seq: int, raw: bytes) -> bool:
        if not raw.isascii() or b"\\u" in raw:
            return True
        lowered = raw.lower()
        return all(needle in lowered for needle in needles)

    return keep


def folded_prefilter(words: tuple[str, ...]) -> Callable[[int, bytes], bool] | None:
    """`byte_prefilter`'s test, extended to lines outside ASCII: such a line is kept when
    the fold of its characters, taken one by one, holds every word. Never refuses a line
    whose text holds every word; None in the same cases as `byte_prefilter`."""
    ascii_keep = byte_prefilter(words)
    if ascii_keep is None:
        return None
    needles = [word.encode("ascii") for word in words]

    def keep(seq: int, raw: bytes) -> bool:
        if raw.isascii():
            return ascii_keep(seq, raw)
        folded = _folded_line(raw)
        if folded is None:
            return True  # not UTF-8: decoding says what is wrong with it
        # An escape may spell a word's character (`\u0065`): such a line is decoded. A
        # backslash folds to itself; one byte is found faster than two, and most lines
        # hold none.
        if _BACKSLASH in folded and folded.find(b"\\u") >= 0:
            return True
        for needle in needles:  # noqa: SIM110 (all() builds a generator per line searched)
            if folded.find(needle) < 0:
                return False
        return True

    return keep


# Why folding a line finds what folding its texts finds: `fold` is a concatenation of each
# character's fold (casefold and NFKD map characters one by one; canonical reordering only
# moves combining marks, which folding drops). A JSON line spells its texts' characters as
# themselves but for `"`, `\`, `/` and control characters, which no word holds (see
# `byte_prefilter`). A word is ASCII, so a character folding to anything else cannot be
# part of it: it may stand as NUL, which no word holds, or be left out, which only joins
# what was apart (a line kept that need not be, never one refused that holds the word).

def _ascii_fold(char: str) -> str:
    """`char`'s fold with every character outside ASCII as NUL."""
    return "".join(part if part.isascii() else "\0" for part in fold(char))


# Latin-1 (most French text) folded by one `bytes.translate`: each of its characters folds
# to one character but ß, ¼, ½ and ¾, marked so that a text holding one takes the slower
# path.
_LATIN_SPLIT = 0x01  # folds to itself: a line holding it only takes the slower path too
_LATIN_FOLDS = bytes(
    ord(folded) if len(folded := _ascii_fold(chr(code))) == 1 else _LATIN_SPLIT
    for code in range(256))
_BACKSLASH = ord("\\")


def _folded_line(raw: bytes) -> bytes | None:
    """The ASCII of the line's fold (Latin-1 characters folding to anything else as NUL,
    others left out); None when the line is not UTF-8."""
    try:
        text = raw.decode()
    except UnicodeDecodeError:
        return None
    try:
        folded = text.encode("latin-1").translate(_LATIN_FOLDS)
    except UnicodeEncodeError:
        return fold(text).encode("ascii", "ignore")
    if _LATIN_SPLIT in folded:
        return fold(text).encode("ascii", "ignore")
    return folded


def find_folded(text: str, word: str, folded: str | None = None) -> int:
    """Where in `text` the first match of the folded `word` starts (-1: none); `folded`,
    when given, is `fold(text)`."""
    if text.isascii():
        return (text.lower() if folded is None else folded).find(word)
    at = (fold(text) if folded is None else folded).find(word)
    if at < 0:
        return -1
    # Folding works character by character, so a piece's fold is as long as the folds of
    # its characters: count folded characters a piece at a time up to the match, then
    # one character at a time within the piece that holds it.
    total = 0
    for start in range(0, len(text), _FIND_CHUNK):
        piece = text[start:start + _FIND_CHUNK]
        size = len(fold(piece))
        if total + size <= at:
            total += size
            continue
        for index, char in enumerate(piece, start):
            total += len(fold(char))
            if total > at:
                return index
    return len(text)


def excerpt(text: str, at: int, limit: int = EXCERPT_CHARS) -> str:
    """One line of at most `limit` characters of `text` around position `at`."""
    start = max(0, at - _BEFORE)
    stop = at + 2 * limit
    line = (ELLIPSIS if start > 0 else "") + flatten(text[start:stop])
    if len(line) > limit or (stop < len(text) and len(line) == limit):
        return cut(line, limit)
    return line + ELLIPSIS if stop < len(text) else line


# -- an entry shown by seq ---------------------------------------------------------------------

@dataclass(frozen=True)
class Shown:
    """An entry's window of text: its cleaned question then answer, from `offset`."""

    entry: Entry
    question: str
    answer: str
    offset: int
    total: int  # the characters of the whole cleaned question and answer

    @property
    def end(self) -> int:
        return self.offset + len(self.question) + len(self.answer)

    @property
    def truncated(self) -> bool:
        return self.end < self.total


def window(entry: Entry, max_chars: int, offset: int) -> Shown:
    """The part of `entry`'s text from character `offset`, at most `max_chars` long."""
    question, answer = clean(entry.question), clean(entry.answer)
    stop = offset + max_chars
    return Shown(entry, question[offset:stop], answer[max(0, offset - len(question)):
                                                       max(0, stop - len(question))],
                 offset, len(question) + len(answer))


ReadOn = Callable[[int, int], str]  # (seq, next offset) -> how to read on from there


def shown_block(shown: Shown, labels: Labels, read_on: ReadOn) -> str:
    """The entry as the view would quote it, then how to read on when it was cut."""
    entry = shown.entry
    item = Item(entry.seq, entry.instant, entry.type, "", "", entry.phare,
                sender=entry.sender, tool=entry.tool, writer_id=entry.writer_id)
    lines = [heading(item, labels)]
    if shown.offset:
        lines.append(labels.from_offset.format(offset=shown.offset))
    if shown.question:
        lines.append(labels.question)
        lines.extend(quoted_lines(shown.question))
    if shown.answer:
        lines.append(labels.answer)
        lines.extend(quoted_lines(shown.answer))
    if shown.truncated:
        lines.append(labels.read_on.format(left=shown.total - shown.end,
                                           how=read_on(entry.seq, shown.end)))
    elif shown.offset >= shown.total > 0 or (shown.offset and not shown.question
                                             and not shown.answer):
        lines.append(labels.past_end.format(total=shown.total))
    return "\n".join(lines) + "\n"


def shown_json(shown: Shown) -> dict[str, object]:
    entry = shown.entry
    return {"seq": entry.seq, "ts": format_instant(entry.instant), "type": flatten(entry.type),
            "from": _flat(entry.sender), "tool": _flat(entry.tool),
            "id": _flat(entry.writer_id), "phare": entry.phare,
            "question": shown.question, "answer": shown.answer,
            "truncated": shown.truncated}


def _flat(value: str | None) -> str | None:
    return None if value is None else flatten(value)


# -- a search's hits ----------------------------------------------------------------------------

@dataclass(frozen=True)
class Hit:
    entry: Entry
    excerpt: str


def hit_block(hit: Hit, labels: Labels) -> str:
    entry = hit.entry
    item = Item(entry.seq, entry.instant, entry.type, "", "", entry.phare,
                sender=entry.sender, tool=entry.tool, writer_id=entry.writer_id)
    return "\n".join([heading(item, labels), *quoted_lines(hit.excerpt)]) + "\n"


def hit_json(hit: Hit) -> dict[str, object]:
    entry = hit.entry
    return {"seq": entry.seq, "ts": format_instant(entry.instant), "type": flatten(entry.type),
            "tool": _flat(entry.tool), "excerpt": hit.excerpt}
