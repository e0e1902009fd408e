"""Turn lines of the handoff mode: one flattened line per side of a turn."""

from __future__ import annotations

from horizon.core.entries import Entry
from horizon.core.settings import HorizonSettings
from horizon.core.text import flat_cut, metadata

DEFAULT_ASKER = "user"


def turn_prefix(role: str) -> str:
    return f"- **{metadata(role)}:** "


def turn_lines(entry: Entry, bee: str, ligne_max: int) -> list[str]:
    """The question under its `from` (or `user`), the answer under the bee's name."""
    lines = []
    for role, text in ((entry.sender or DEFAULT_ASKER, entry.question), (bee, entry.answer)):
        flat = flat_cut(text, ligne_max)
        if flat:
            lines.append(turn_prefix(role) + flat)
    return lines


def append_turns(turns: list[str], entry: Entry, bee: str, settings: HorizonSettings) -> None:
    """Append an entry's lines, keeping only the suffix the bound could ever show."""
    turns.extend(turn_lines(entry, bee, settings.ligne_max))
    # Drop from the front only what can never be shown again: the remaining lines alone
    # already fill handoff_max.
    total = sum(len(line) + 1 for line in turns)
    drop = 0
    while drop < len(turns) and total - (len(turns[drop]) + 1) >= settings.handoff_max:
        total -= len(turns[drop]) + 1
        drop += 1
    if drop:
        del turns[:drop]
