"""The récit de soi: its seven sections, the operator's words, its rendering and its
budget bound (pure). The rules are ADR 0008's.

What a fold keeps is the material; what the view shows of it is chosen at rendering,
within `budget_recit`: the Mission first, then the newest line of each free section, then
the operator's words (which may also take the room of ordinary condensed entries), then
the rest of the free sections, newest first.
"""

from __future__ import annotations

import functools
import hashlib
import heapq
from collections.abc import Sequence

import msgspec

from horizon.core.labels import (
    DECISIONS,
    ERRORS,
    FILES,
    MISSION,
    NEXT,
    PAROLES,
    SECTIONS,
    WORK,
    Labels,
)
from horizon.core.operator_words import is_request, stands_as_rule
from horizon.core.records import Facts
from horizon.core.text import ELLIPSIS, cut, flatten, quoted_lines
from horizon.core.withdrawals import withdrawn

__all__ = ["DECISIONS", "ERRORS", "FILES", "MISSION", "NEXT", "PAROLES", "SECTIONS", "WORK"]

# The sections a summarizer writes; the daemon alone writes Mission and Paroles.
FREE_SECTIONS = (DECISIONS, FILES, ERRORS, WORK, NEXT)
# What each free section keeps at least while the récit is over budget, before the
# operator's words lose a quote.
MIN_LINE_CHARS = 100
# A repeated quote lists its first seq, then `…`, then its newest ones.
NEWEST_SEQS = 5
# The distinct quotes whose seqs are remembered: the most recently heard ones.
HEARD_MAX = 512  # bounds state.json, rewritten at every pass: about 70 bytes each
CACHED_CHARS = 4096  # texts longer than this are never kept in a cache


class Line(msgspec.Struct, frozen=True):
    """One line of a free section, remembering the newest seq it speaks of. A section
    holds its lines newest first."""

    seq: int
    text: str


class Quote(msgspec.Struct, frozen=True):
    """A folded lighthouse's question, verbatim, at its newest seq; a question asked again
    is one quote that lists its seqs (`seqs`: the first, then the newest ones; `count`:
    how many times in all)."""

    seq: int
    text: str
    seqs: tuple[int, ...] = ()
    count: int = 1
    # Words that expire (a question, words about a ticket) leave before standing ones.
    passing: bool = False

    def shown_seqs(self) -> str:
        seqs = self.seqs or (self.seq,)
        if self.count > len(seqs):
            return ", ".join([f"#{seqs[0]}", ELLIPSIS, *(f"#{seq}" for seq in seqs[1:])])
        return ", ".join(f"#{seq}" for seq in seqs)


class Heard(msgspec.Struct, frozen=True, array_like=True):
    """Every distinct quote's seqs, kept after its text left the récit, so that a question
    asked again lists the same seqs however the folds fell. Stored as an array: 512 of
    them are rewritten with the state at every pass."""

    count: int
    first: int
    newest: tuple[int, ...]


class Recit(msgspec.Struct, frozen=True):
    sections: dict[str, tuple[Line, ...]] = msgspec.field(default_factory=dict)
    paroles: tuple[Quote, ...] = ()
    heard: dict[str, Heard] = msgspec.field(default_factory=dict)  # by quote_key
    facts: Facts = msgspec.field(default_factory=Facts)
    folded: int = 0  # entries folded so far

    def lines_of(self, section: str) -> tuple[Line, ...]:
        return self.sections.get(section, ())

    def is_empty(self) -> bool:
        return not self.paroles and not any(self.sections.values())


def quote_key(text: str) -> str:
    """Quotes are the same when their texts are, once cleaned and whitespace folded."""
    if len(text) > CACHED_CHARS:  # never pin a huge text in a cache
        return _key(text)
    return _cached_key(text)


def _key(text: str) -> str:
    return hashlib.blake2b(flatten(text).encode(), digest_size=12).hexdigest()


_cached_key = functools.lru_cache(maxsize=4096)(_key)


def add_quotes(recit: Recit, quotes: list[Quote], keep_chars: int) -> Recit:
    """The quotes of a fold merged in, each with the same words heard before and placed
    at its newest seq; the quotes kept are the newest that `keep_chars` can hold, those
    that expire leaving before the standing ones (no view could show more). What leaves
    is chosen after each quote, as a fold of that quote alone would: the quotes kept are
    the same whatever the batches were (a quote's size can shrink when its seqs are
    forgotten, so choosing once at the end could keep one that an earlier fold had let
    go)."""
    if not quotes:
        return recit
    heard = dict(recit.heard)
    held = {quote_key(quote.text): quote for quote in recit.paroles}  # one per key
    size = sum(quote_size(quote) for quote in held.values())
    # The order quotes leave in: passing ones first, then the oldest (lazily: an entry
    # whose quote was said again or left already is passed over).
    leaving = [(not quote.passing, quote.seq, key) for key, quote in held.items()]
    heapq.heapify(leaving)
    for quote in quotes:
        key = quote_key(quote.text)
        before = heard.get(key)
        # Its seqs in order whatever order they came in (a lighthouse folded late).
        seqs = sorted({*((before.first, *before.newest) if before is not None else ()),
                       quote.seq})
        now = Heard((before.count if before is not None else 0) + 1, seqs[0],
                    tuple(seqs[1:])[-NEWEST_SEQS:])
        heard.pop(key, None)
        heard[key] = now  # the most recently heard last
        if len(heard) > HEARD_MAX:  # one at a time, so batches do not matter
            del heard[next(iter(heard))]
        said = held.pop(key, None)
        if said is not None:
            size -= quote_size(said)
        # A request said again is no longer work for now: a standing instruction.
        passing = quote.passing and not (now.count > 1 and is_request(quote.text))
        added = Quote(seqs[-1], quote.text, (now.first, *now.newest), now.count, passing)
        held[key] = added
        size += quote_size(added)
        heapq.heappush(leaving, (not added.passing, added.seq, key))
        while size > keep_chars:  # the oldest passing words leave first, then the oldest
            standing, seq, oldest = heapq.heappop(leaving)
            gone = held.get(oldest)
            if gone is not None and gone.seq == seq and gone.passing != standing:
                size -= quote_size(held.pop(oldest))
    kept = sorted(held.values(), key=lambda kept_quote: kept_quote.seq)
    return msgspec.structs.replace(recit, paroles=tuple(kept), heard=heard)


def _rule_quote(quote: Quote) -> bool:
    """A standing quote the rules' words say is a rule (or undoes one): it never leaves
    before an ordinary condensed entry."""
    return not quote.passing and _is_rule_text(quote.text)


@functools.lru_cache(maxsize=4096)
def _is_rule_text(text: str) -> bool:
    return stands_as_rule(text)


def rule_left_out(whole: Recit, shown: Recit, waiting: Sequence[Quote] = ()) -> bool:
    """Whether `bound_recit` left out for room a rule that no newer words withdraw: the
    rules never leave before an ordinary condensed entry. The operator's other words
    never take condensé's room, so removing condensed entries would not bring them
    back."""
    shown_seqs = {quote.seq for quote in shown.paroles}
    left = [quote for quote in whole.paroles
            if quote.seq not in shown_seqs and _rule_quote(quote)]
    if not left:
        return False
    gone = withdrawn((*whole.paroles, *waiting))
    return any(quote.seq not in gone for quote in left)


def _newest_within(quotes: list[tuple[Quote, int]], room: int) -> list[tuple[Quote, int]]:
    """The newest quotes (each with its size) whose sizes add up within `room`, up to the
    first that does not fit (older ones go first, whole)."""
    kept: list[tuple[Quote, int]] = []
    for quote, size in reversed(quotes):
        room -= size
        if room < 0:
            break
        kept.append((quote, size))
    return kept


def _quote_lines(seqs: str, text: str) -> tuple[str, ...]:
    if len(text) > CACHED_CHARS:
        return _lines_of_quote(seqs, text)
    return _cached_quote_lines(seqs, text)


def _lines_of_quote(seqs: str, text: str) -> tuple[str, ...]:
    lines = quoted_lines(text)
    lines[0] = f"> {seqs} — " + lines[0][2:] if lines[0] != ">" else f"> {seqs} —"
    return tuple(lines)


_cached_quote_lines = functools.lru_cache(maxsize=4096)(_lines_of_quote)


def quote_lines(quote: Quote) -> tuple[str, ...]:
    if len(quote.text) > CACHED_CHARS:
        return _lines_of(quote.seq, quote.seqs, quote.count, quote.text)
    return _cached_lines_of(quote.seq, quote.seqs, quote.count, quote.text)


def _lines_of(seq: int, seqs: tuple[int, ...], count: int, text: str) -> tuple[str, ...]:
    """Rendered once per distinct quote: every fold renders and weighs those it keeps."""
    return _quote_lines(Quote(seq, text, seqs, count).shown_seqs(), text)


_cached_lines_of = functools.lru_cache(maxsize=4096)(_lines_of)


def quote_size(quote: Quote) -> int:
    if len(quote.text) > CACHED_CHARS:
        return _size_of_quote(quote.seq, quote.seqs, quote.count, quote.text)
    return _cached_quote_size(quote.seq, quote.seqs, quote.count, quote.text)


def _size_of_quote(seq: int, seqs: tuple[int, ...], count: int, text: str) -> int:
    return sum(len(line) + 1 for line in _lines_of(seq, seqs, count, text))


_cached_quote_size = functools.lru_cache(maxsize=4096)(_size_of_quote)


@functools.lru_cache(maxsize=16384)
def _line(text: str) -> str:
    return "> - " + flatten(text)


def line_size(text: str) -> int:
    return len(_line(text)) + 1


def mission_size(mission: str) -> int:
    return sum(len(line) + 1 for line in quoted_lines(mission))


@functools.lru_cache(maxsize=8)
def frame_size(labels: Labels) -> int:
    """The title, the seven headings and the closing blank line."""
    return len(labels.recit_title) + 1 + sum(
        len(labels.title(section)) + 5 for section in SECTIONS) + 1


def section_body(recit: Recit, section: str, mission: str | None) -> list[str]:
    """The rendered content lines under one heading."""
    if section == MISSION:
        return quoted_lines(mission) if mission else []
    if section == PAROLES:
        return [line for quote in recit.paroles for line in quote_lines(quote)]
    return [_line(line.text) for line in recit.lines_of(section)]


def render_recit(recit: Recit, mission: str | None, labels: Labels,
                 dropped: frozenset[str] = frozenset()) -> str:
    """The récit block, headings included; empty when there is nothing to say."""
    if recit.is_empty() and not mission:
        return ""
    out = [labels.recit_title]
    for section in SECTIONS:
        out.append(f"### {labels.title(section)}")
        if section not in dropped:
            out.extend(section_body(recit, section, mission))
    out.append("")
    return "\n".join(out) + "\n"


def recit_size(recit: Recit, mission: str | None, labels: Labels,
               dropped: frozenset[str] = frozenset()) -> int:
    """len(render_recit(recit, mission, labels, dropped)), by arithmetic."""
    if recit.is_empty() and not mission:
        return 0
    size = frame_size(labels)
    if mission and MISSION not in dropped:
        size += mission_size(mission)
    if PAROLES not in dropped:
        size += sum(quote_size(quote) for quote in recit.paroles)
    for name in FREE_SECTIONS:
        if name not in dropped:
            size += sum(line_size(line.text) for line in recit.lines_of(name))
    return size


def _sized(recit: Recit, mission: str | None, labels: Labels, quote_sizes: list[int],
           line_sizes: dict[str, list[int]]) -> int:
    if recit.is_empty() and not mission:
        return 0
    return (frame_size(labels) + (mission_size(mission) if mission else 0)
            + sum(quote_sizes) + sum(sum(sizes) for sizes in line_sizes.values()))


# What an agent carrying on the work needs most, when the free sections share what the
# budget leaves: the failures still open, the work in flight, what was decided.
SHARING_ORDER = (ERRORS, WORK, DECISIONS, NEXT, FILES)


def bound_recit(recit: Recit, mission: str | None, budget: int, labels: Labels,
                quote_room: int = 0, waiting: Sequence[Quote] = ()
                ) -> tuple[Recit, str | None]:
    """What the view shows of the récit within `budget`, and the mission shown.

    A standing quote a newer one withdraws is left out (`withdrawals.withdrawn`), newer
    standing words `waiting` for their fold included: the view shows those in condensé
    or net, and the rule they undo must not stand above them. In
    order, while it fits: the Mission (cut further only when the headings and it alone
    are over); the newest line of each free section, cut to MIN_LINE_CHARS (the newest
    sections first); the standing quotes, newest first and whole; the free sections'
    newest lines whole, then their other lines, newest first, a line of each section in
    turn (SHARING_ORDER); then the quotes that expire, newest first. The quotes may take
    `quote_room` beyond the budget (the room of ordinary condensed entries), the lines
    never.
    """
    gone = withdrawn((*recit.paroles, *waiting))
    if gone:  # a withdrawn rule leaves; its withdrawal says what it was
        recit = msgspec.structs.replace(recit, paroles=tuple(
            quote for quote in recit.paroles if quote.seq not in gone))
    # Every quote and line measured once: the choices below weigh them again and again.
    quote_sizes = [quote_size(quote) for quote in recit.paroles]
    sections = {name: recit.lines_of(name) for name in FREE_SECTIONS}
    line_sizes = {name: [line_size(line.text) for line in lines]
                  for name, lines in sections.items()}
    size = _sized(recit, mission, labels, quote_sizes, line_sizes)
    words = sum(size for quote, size in zip(recit.paroles, quote_sizes, strict=True)
                if not _rule_quote(quote))
    if size <= budget and (not words or sum(quote_sizes) <= size - sum(quote_sizes)):
        return recit, mission
    room = budget - frame_size(labels)
    if mission:
        if mission_size(mission) > room:
            mission = cut(mission, max(0, room - 3)) or None
        room -= mission_size(mission) if mission else 0
    chosen: dict[str, dict[int, tuple[Line, int]]] = {name: {} for name in FREE_SECTIONS}
    newest = sorted(((lines[0], name) for name, lines in sections.items() if lines),
                    key=lambda pair: pair[0].seq, reverse=True)
    for line, name in newest:
        short = Line(line.seq, cut(flatten(line.text), MIN_LINE_CHARS))
        size = line_size(short.text)
        if size <= room:
            chosen[name][0] = (short, size)
            room -= size
    kept_quotes: set[int] = set()
    sized = list(zip(recit.paroles, quote_sizes, strict=True))
    # The rules take what the budget leaves, then the room of condensed entries.
    quotes_room = room + quote_room
    for quote, size in _newest_within([pair for pair in sized if _rule_quote(pair[0])],
                                      quotes_room):
        kept_quotes.add(id(quote))
        quotes_room -= size
    # The lines have what the standing words left of the budget (none when they took
    # more: the récit is then over its budget already).
    room = quotes_room - quote_room
    for index in range(max(map(len, sections.values()), default=0)):
        for name in SHARING_ORDER:
            lines = sections[name]
            if index >= len(lines):
                continue
            line = lines[index]
            held = chosen[name].get(index)
            extra = line_sizes[name][index] - (held[1] if held else 0)
            if (held is None or held[0] != line) and extra <= room:
                chosen[name][index] = (line, line_sizes[name][index])
                room -= extra
    # The operator's other words take only what the budget leaves, and no more than the
    # rest of the récit shown: Paroles is then at most half of it, unless rules fill it.
    rest = frame_size(labels) + (mission_size(mission) if mission else 0) + sum(
        size for lines in chosen.values() for _, size in lines.values())
    words_room = min(room, rest - sum(size for quote, size in sized
                                      if id(quote) in kept_quotes))
    for passing in (False, True):  # standing words before those that expire
        if words_room <= 0:
            break
        for quote, size in _newest_within(
                [pair for pair in sized if pair[0].passing is passing
                 and not _rule_quote(pair[0])], words_room):
            kept_quotes.add(id(quote))
            words_room -= size
    kept = {name: tuple(lines[index][0] for index in sorted(lines))
            for name, lines in chosen.items() if lines}
    return (msgspec.structs.replace(
        recit, sections=kept,
        paroles=tuple(quote for quote in recit.paroles if id(quote) in kept_quotes)), mission)
