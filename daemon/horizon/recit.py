"""The récit de soi: its seven sections, its rendering and its budget bound (pure)."""

from __future__ import annotations

import functools

import msgspec

from horizon.text import flatten, quoted_lines

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


@functools.lru_cache(maxsize=16384)
def _line(text: str) -> str:
    return "> - " + flatten(text)


def recit_size(recit: Recit, mission: str | None) -> int:
    """len(render_recit(recit, mission)), by arithmetic: folds measure often."""
    if recit.is_empty() and not mission:
        return 0
    size = len(TITLE) + 1 + sum(len(section) + 5 for section in SECTIONS) + 1
    if mission:
        size += sum(len(line) + 1 for line in quoted_lines(mission))
    size += sum(_quote_size(quote.seq, quote.text) for quote in recit.paroles)
    for name in FREE_SECTIONS:
        size += sum(len(_line(line.text)) + 1 for line in recit.lines_of(name))
    return size


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

    Returns the bounded récit and the mission still shown (None once dropped).
    """
    if recit_size(recit, mission) <= budget:
        return recit, mission
    sections = {name: list(recit.lines_of(name)) for name in FREE_SECTIONS}
    paroles = list(recit.paroles)

    def size() -> int:
        bounded = Recit({k: tuple(v) for k, v in sections.items() if v}, tuple(paroles))
        return recit_size(bounded, mission)

    # One pass measuring the drop of each line keeps this linear in the number of lines.
    excess = size() - budget
    order = sorted(
        ((line.seq, FREE_SECTIONS.index(name), name) for name in FREE_SECTIONS
         for line in sections[name]),
    )
    for _, _, name in order:
        if excess <= 0:
            break
        dropped_line = sections[name].pop(0)
        excess -= len(_line(dropped_line.text)) + 1
    if size() > budget and mission:
        mission = None
    excess = size() - budget
    while paroles and excess > 0:
        excess -= _quote_size(paroles[0].seq, paroles[0].text)
        paroles.pop(0)
    return Recit({k: tuple(v) for k, v in sections.items() if v}, tuple(paroles)), mission
