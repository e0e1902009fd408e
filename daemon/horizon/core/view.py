"""A rendered view: handoff.md's text, and what `render --json` says of it.

No `from __future__ import annotations` here: TypedDict reads NotRequired at runtime
only from annotations that are evaluated.
"""

from collections.abc import Callable
from typing import NotRequired, TypedDict


class Listed(TypedDict):
    """An exchange as `render --json` lists it; `source` (what wrote its text) in
    condensé only."""

    seq: int
    ts: str
    type: str
    tool: str | None
    source: NotRequired[str]
    chars: int
    phare: bool


class Cut(TypedDict):
    """One cut of the hard cut: an entry's (`seq`) or a récit section's."""

    step: int
    seq: NotRequired[int]
    section: NotRequired[str]


class Summary(TypedDict):
    """What `render --json` says of a view."""

    bee: str
    mode: str
    up_to: int
    chars: int
    cap: int
    recit: dict[str, str]
    condense: list[Listed]
    net: list[Listed]
    cut: list[Cut]


class View:
    """handoff.md's text, and what `render --json` says of it (`summary`, made when first
    asked for: a daemon's pass only writes the text)."""

    __slots__ = ("_summary", "_summary_of", "cap", "guard_cut", "mode", "text", "zone_chars")

    def __init__(self, text: str, summary: Summary | Callable[[], Summary],
                 guard_cut: bool = False,
                 zone_chars: dict[str, tuple[int, int]] | None = None, *,
                 mode: str = "", cap: int | None = None) -> None:
        self.text = text
        self.mode = mode  # horizon or handoff ("": nothing rendered)
        self.cap = cap
        self.guard_cut = guard_cut
        # Each zone's chars before the hard cut and as injected: {zone: (before, after)}.
        self.zone_chars = zone_chars if zone_chars is not None else {}
        self._summary = summary if isinstance(summary, dict) else None
        self._summary_of = None if isinstance(summary, dict) else summary

    @property
    def summary(self) -> Summary:
        if self._summary is None:
            assert self._summary_of is not None
            self._summary, self._summary_of = self._summary_of(), None
        return self._summary

    def _fields(self) -> tuple[object, ...]:
        return (self.text, self.summary, self.guard_cut, self.zone_chars, self.mode, self.cap)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, View) and self._fields() == other._fields()

    __hash__ = None  # type: ignore[assignment]  # equal by content, and mutable inside

    def __repr__(self) -> str:
        return f"View(text={self.text!r}, mode={self.mode!r}, cap={self.cap})"


def unrendered() -> View:
    """A pass's view before anything is rendered: empty, its mode ""."""
    return View("", {"bee": "", "mode": "", "up_to": 0, "chars": 0, "cap": 0, "recit": {},
                     "condense": [], "net": [], "cut": []})
