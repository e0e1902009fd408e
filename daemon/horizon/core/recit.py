"""The récit de soi: its seven sections, its rendering and its budget bound (pure)."""

from __future__ import annotations

import functools

import msgspec

from horizon.core.text import flatten, quoted_lines

MISSION = "Mission"
DECISIONS = "Décisions"
FILES = "Fichiers"
ERRORS = "Erreurs"
PAROLES = "Paroles de l'apicultrice"
WORK = "Travail en cours"
NEXT = "Prochaine étape"
SECTIONS = (MISSION, DECISIONS, FILES, ERRORS, PAROLES, WORK, NEXT)
# The sections a summarizer writes; the daemon alone writes Mission and Paroles.
FREE_SECTIONS = (DECISIONS, FILES, ERRORS, WORK, NEXT)
TITLE = "## Récit de soi"


class Line(msgspec.Struct, frozen=True):
    """One line of a free section, remembering the newest seq it speaks of (for eviction)."""

    seq: int
    text: str


class Quote(msgspec.Struct, frozen=True):
    """A folded lighthouse's question, verbatim."""

    seq: int
    text: str


class Recit(msgspec.Struct, frozen=True):
    sections: dict[str, tuple[Line, ...]] = msgspec.field(default_factory=dict)
    paroles: tuple[Quote, ...] = ()

    def lines_of(self, section: str) -> tuple[Line, ...]:
        return self.sections.get(section, ())

    def is_empty(self) -> bool:
        return not self.paroles and not any(self.sections.values())


@functools.lru_cache(maxsize=4096)
def _quote_lines(seq: int, text: str) -> tuple[str, ...]:
    lines = quoted_lines(text)
    lines[0] = f"> #{seq} — " + lines[0][2:] if lines[0] != ">" else f"> #{seq} —"
    return tuple(lines)


def quote_lines(quote: Quote) -> list[str]:
    return list(_quote_lines(quote.seq, quote.text))


@functools.lru_cache(maxsize=4096)
def _quote_size(seq: int, text: str) -> int:
    return sum(len(line) + 1 for line in _quote_lines(seq, text))


@functools.lru_cache(maxsize=16)
def _quote_sizes(paroles: tuple[Quote, ...]) -> tuple[tuple[int, ...], int]:
    """Each quote's size and their sum: Paroles changes at few folds, and a full récit
    can hold hundreds of quotes."""
    sizes = tuple(_quote_size(quote.seq, quote.text) for quote in paroles)
    return sizes, sum(sizes)


@functools.lru_cache(maxsize=16384)
def _line(text: str) -> str:
    return "> - " + flatten(text)


@functools.lru_cache(maxsize=16384)
def _line_size(text: str) -> int:
    return len(_line(text)) + 1


@functools.lru_cache(maxsize=64)
def _mission_size(mission: str) -> int:
    return sum(len(line) + 1 for line in quoted_lines(mission))


_FRAME = len(TITLE) + 1 + sum(len(section) + 5 for section in SECTIONS) + 1


def _size(lines: int, lines_size: int, quotes: int, quotes_size: int, mission: str | None
          ) -> int:
    """The rendered size from the parts' sizes: nothing at all renders as nothing."""
    if not lines and not quotes and not mission:
        return 0
    return _FRAME + (_mission_size(mission) if mission else 0) + quotes_size + lines_size


def recit_size(recit: Recit, mission: str | None) -> int:
    """len(render_recit(recit, mission)), by arithmetic: folds measure often."""
    lines = [line for name in FREE_SECTIONS for line in recit.lines_of(name)]
    return _size(len(lines), sum(_line_size(line.text) for line in lines), len(recit.paroles),
                 _quote_sizes(recit.paroles)[1], mission)


def fits_one_more_line(paroles: tuple[Quote, ...], mission: str | None, line: Line,
                       budget: int) -> bool:
    """Whether a récit holding only these quotes, the mission and `line` is within budget."""
    return _size(1, _line_size(line.text), len(paroles), _quote_sizes(paroles)[1],
                 mission) <= budget


def section_body(recit: Recit, section: str, mission: str | None) -> list[str]:
    """The rendered content lines under one heading."""
    if section == MISSION:
        return quoted_lines(mission) if mission else []
    if section == PAROLES:
        return [line for quote in recit.paroles for line in quote_lines(quote)]
    return [_line(line.text) for line in recit.lines_of(section)]


def render_recit(recit: Recit, mission: str | None, dropped: frozenset[str] = frozenset()
                 ) -> str:
    """The récit block, headings included; empty when there is nothing to say."""
    if recit.is_empty() and not mission:
        return ""
    out = [TITLE]
    for section in SECTIONS:
        out.append(f"### {section}")
        if section not in dropped:
            out.extend(section_body(recit, section, mission))
    out.append("")
    return "\n".join(out) + "\n"


def bound_recit(recit: Recit, mission: str | None, budget: int
                ) -> tuple[Recit, str | None]:
    """Within `budget`: free sections lose their oldest lines first, then Mission, then quotes.

    Returns the bounded récit and the mission still shown (None once dropped). Measured
    by arithmetic on the parts, once: a récit at its budget is bounded at every fold.
    """
    sections = {name: list(recit.lines_of(name)) for name in FREE_SECTIONS}
    line_count = sum(len(lines) for lines in sections.values())
    lines_size = sum(_line_size(line.text) for lines in sections.values() for line in lines)
    quote_sizes, quotes_size = _quote_sizes(recit.paroles)
    excess = _size(line_count, lines_size, len(quote_sizes), quotes_size, mission) - budget
    if excess <= 0:
        return recit, mission
    # Lines leave oldest seq first across sections, each section from its front.
    order = sorted((line.seq, FREE_SECTIONS.index(name), name)
                   for name in FREE_SECTIONS for line in sections[name])
    for _, _, name in order:
        if excess <= 0:
            break
        size = _line_size(sections[name].pop(0).text)
        excess -= size
        lines_size -= size
        line_count -= 1
    if mission and _size(line_count, lines_size, len(quote_sizes), quotes_size,
                         mission) > budget:
        mission = None
    excess = _size(line_count, lines_size, len(quote_sizes), quotes_size, mission) - budget
    dropped = 0
    while dropped < len(quote_sizes) and excess > 0:
        excess -= quote_sizes[dropped]
        dropped += 1
    return (Recit({name: tuple(lines) for name, lines in sections.items() if lines},
                  recit.paroles[dropped:]), mission)
