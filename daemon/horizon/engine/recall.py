"""Recall: entries by seq and searches over a bee's whole history, for the `show` and
`search` commands and the MCP tools. Everything here reads; nothing writes or locks."""

from __future__ import annotations

import heapq
import re
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

import msgspec
import regex

from horizon.core.entries import Entry, Rejection
from horizon.core.errors import UsageError
from horizon.core.recall import (
    Hit,
    Shown,
    excerpt,
    find_folded,
    fold,
    folded_prefilter,
    holds_words,
    query_words,
    window,
)
from horizon.core.settings import HorizonSettings
from horizon.core.text import clean, counted
from horizon.core.zones import is_lighthouse
from horizon.hive.history import History, HistoryChanged, KeepBlock
from horizon.hive.journal import Checkpoint
from horizon.hive.layout import window_dir
from horizon.hive.manifest import read_manifest
from horizon.hive.recall_reader import Recall, RecallReader
from horizon.hive.store import load_state

SEARCH_LIMIT = 20
SEARCH_LIMIT_MAX = 200
SHOW_MAX_CHARS = 20_000
REGEX_TIMEOUT_S = 1.0  # on one entry's text: past it, the pattern is running away
# On all the texts of a search together: a pattern taking just under the limit on each of
# many hostile texts runs away as surely, only slower.
REGEX_BUDGET_S = 10.0
# Readings of a history a daemon keeps rotating under them before giving up: a rotation
# comes every few hundred lines, so a second reading almost always finds the files still.
READINGS = 3

T = TypeVar("T")

_Match = Callable[[Entry], "str | None"]  # an entry's excerpt around its match, or None


class RecallError(UsageError):
    """A query or a pattern that cannot be run, said in one line."""


@dataclass
class Showing:
    shown: list[Shown] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # one line per seq not shown


def marked(entry: Entry, settings: HorizonSettings) -> Entry:
    """The entry with the lighthouse mark the view gives it (`zones.is_lighthouse`: the
    runtime's `phare`, an operator's flag, or a conversation from a listed asker)."""
    lighthouse = is_lighthouse(entry, settings)
    return entry if lighthouse == entry.phare else msgspec.structs.replace(
        entry, phare=lighthouse)


def show(hive: Path, bee: str, seqs: Iterable[int], max_line_bytes: int, *,
         lighthouses: HorizonSettings, max_chars: int = SHOW_MAX_CHARS,
         offset: int = 0) -> Showing:
    """The entries given `seqs`, in the order asked (each once), each its text's window
    from `offset` and marked a lighthouse as `lighthouses` (the bee's settings) make it;
    a seq that is unknown or was rejected is a problem, said with why."""
    asked = list(dict.fromkeys(seqs))
    found, highest = _steady(lambda: History(hive, bee, max_line_bytes).find(asked))
    showing = Showing()
    for seq in asked:
        record = found.get(seq)
        if isinstance(record, Entry):
            showing.shown.append(window(marked(record, lighthouses), max_chars, offset))
        elif isinstance(record, Rejection):
            detail = f": {record.detail}" if record.detail else ""
            showing.problems.append(f"#{seq} of {bee} was rejected ({record.reason.value}"
                                    f"{detail})")
        elif seq > highest:
            showing.problems.append(f"no entry #{seq} for bee {bee!r}: its history holds "
                                    f"{highest} lines")
        else:
            showing.problems.append(f"no entry #{seq} for bee {bee!r}: the file that held "
                                    "it is gone")
    return showing


def find_line(hive: Path, bee: str, seq: int, max_line_bytes: int
              ) -> tuple[Entry | Rejection, bytes | None]:
    """The record given `seq` and its bytes (None for a line too long to hold), with the
    seqs the daemon gives (the manifest, and an interrupted rotation read as if
    finished). It reads the history up to `seq`: for one line a person asked about."""
    window = window_dir(hive)
    written = load_state(hive, bee)
    reader = RecallReader(window, bee, Checkpoint(), max_line_bytes, 0.0,
                          read_manifest(window, bee), {}, late_segments=set(),
                          finish_in_memory=True,
                          read_to=written.checkpoint if written is not None else None,
                          recall=Recall(raw_wanted=seq))
    last = 0
    for record in reader:
        last = max(last, record.seq)
        if record.seq == seq:
            return record, reader.raw_found
    raise RecallError(f"no entry #{seq} for bee {bee!r}: the journal holds "
                      f"{counted(last, 'line')}")


def search(hive: Path, bee: str, query: str, max_line_bytes: int, *,
           lighthouses: HorizonSettings, pattern: bool = False,
           limit: int = SEARCH_LIMIT) -> list[Hit]:
    """The newest `limit` entries whose question or answer holds every word of `query`
    (folded), or match it as a regular expression; newest first, each marked a
    lighthouse as `lighthouses` (the bee's settings) make it."""
    if not 1 <= limit <= SEARCH_LIMIT_MAX:
        raise RecallError(f"limit {limit} is out of range: from 1 to {SEARCH_LIMIT_MAX}")
    match = _pattern_match(query) if pattern else _words_match(query)
    keep = None if pattern else folded_prefilter(query_words(query))
    # A block of lines folds to its lines' folds one after another: a block missing a
    # word holds no line with every word.
    keep_block = None if keep is None else _block_test(keep)

    def newest() -> list[Hit]:
        history = History(hive, bee, max_line_bytes)
        return _newest(history.entries(keep, keep_block), match, limit)

    return [Hit(marked(hit.entry, lighthouses), hit.excerpt) for hit in _steady(newest)]


def _block_test(keep: Callable[[int, bytes], bool]) -> KeepBlock:
    def keep_block(_first: int, _last: int, block: bytes) -> bool:
        return keep(0, block)
    return keep_block


def _newest(records: Iterable[Entry | Rejection], match: _Match, limit: int) -> list[Hit]:
    """The `limit` newest entries `match` finds, newest first."""
    newest: list[tuple[int, Hit]] = []  # a min-heap on seq: the oldest kept leaves first
    for record in records:
        if isinstance(record, Rejection):
            continue
        found = match(record)
        if found is None:
            continue
        # The hit keeps only its excerpt: a long entry is not held until the end.
        slim = msgspec.structs.replace(record, question="", answer="")
        hit = (record.seq, Hit(slim, found))
        if len(newest) < limit:
            heapq.heappush(newest, hit)
        elif record.seq > newest[0][0]:
            heapq.heapreplace(newest, hit)
    return [hit for _, hit in sorted(newest, key=lambda pair: -pair[0])]


def _steady(read: Callable[[], T]) -> T:
    """`read()`, again when a daemon rotated the journal under it (HistoryChanged, a
    JournalError, once the readings are spent)."""
    for _ in range(READINGS - 1):
        try:
            return read()
        except HistoryChanged:
            continue
    return read()


def _words_match(query: str) -> _Match:
    words = query_words(query)
    if not words:
        raise RecallError("the query has no word to look for")

    def match(entry: Entry) -> str | None:
        texts = (entry.question, entry.answer)
        folded = [fold(text) for text in texts]  # once: a long text costs a fold per pass
        if not holds_words(words, folded):
            return None
        for text, text_folded in zip(texts, folded, strict=True):
            at = find_folded(text, words[0], text_folded)
            if at >= 0:
                cleaned_at = len(clean(text[:at]))
                return excerpt(clean(text), cleaned_at)
        return None

    return match


# Compiling a pattern unrolls its counted repeats: '(?:(?:a{1000}){1000}){1000}' would
# take gigabytes before any timeout could stop it. A pattern whose repeats unroll past
# this many items is refused before it is compiled (about 30 MB).
REGEX_MAX_UNROLLED = 100_000
_COUNT = re.compile(r"\{(\d*)(?:,(\d*))?\}")


def unrolled_size(pattern: str) -> int:
    """An upper bound of the items a pattern's counted repeats unroll to: each atom counts
    1, a group the sum of what it holds, and `{n}` or `{n,m}` after either multiplies it
    by the larger count (`*`, `+` and `?` unroll nothing)."""
    stack: list[int] = [0]  # the size so far of each open group, the whole pattern first
    last = 0  # the size of the atom or group just read: what a count applies to
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            index += 2
            last = 1
            stack[-1] += 1
            continue
        if char == "[":
            end = index + 1
            end += pattern[end:end + 1] == "^"
            end += pattern[end:end + 1] == "]"
            while end < len(pattern) and pattern[end] != "]":
                end += 2 if pattern[end] == "\\" else 1
            index = end + 1
            last = 1
            stack[-1] += 1
            continue
        if char == "(":
            stack.append(0)
        elif char == ")" and len(stack) > 1:
            last = stack.pop()
            stack[-1] += last
        elif char == "{" and (count := _COUNT.match(pattern, index)) is not None:
            times = max(int(number) for number in (count[1] or "0", count[2] or "0"))
            stack[-1] += last * (times - 1) if times else -last
            last *= max(times, 1)
            index = count.end()
            continue
        elif char not in "|*+?":
            last = 1
            stack[-1] += 1
        index += 1
    return sum(stack)


def _pattern_match(query: str) -> _Match:
    if unrolled_size(query) > REGEX_MAX_UNROLLED:
        raise RecallError(f"the regular expression {query[:80]!r} repeats too much: its "
                          f"counted repeats unroll to over {REGEX_MAX_UNROLLED:,} items")
    try:
        compiled = regex.compile(query)
    except (regex.error, ValueError, OverflowError) as error:
        raise RecallError(f"bad regular expression {query!r}: {error}") from None

    spent = 0.0  # matching time of the whole search so far

    def match(entry: Entry) -> str | None:
        nonlocal spent
        for text in (clean(entry.question), clean(entry.answer)):
            left = REGEX_BUDGET_S - spent
            started = time.monotonic()
            try:
                if left <= 0:
                    raise TimeoutError
                found = compiled.search(text, timeout=min(REGEX_TIMEOUT_S, left))
            except TimeoutError:
                took = time.monotonic() - started
                if left < REGEX_TIMEOUT_S:
                    raise RecallError(
                        f"the regular expression ran away over the history (over "
                        f"{REGEX_BUDGET_S:g} s of matching in all, stopped at #{entry.seq})"
                        ": simplify it") from None
                raise RecallError(
                    f"the regular expression ran away on #{entry.seq} (over "
                    f"{REGEX_TIMEOUT_S:g} s on {len(text)} characters, stopped after "
                    f"{took:.1f} s): simplify it") from None
            finally:
                spent += time.monotonic() - started
            if found is not None:
                return excerpt(text, found.start())
        return None

    return match

