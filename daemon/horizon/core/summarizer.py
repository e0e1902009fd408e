"""The Summarizer interface every implementation (truncation, models) provides."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import msgspec

from horizon.core.blocks import Item
from horizon.core.recit import Recit

TRUNCATION = "troncature"


class Condensed(msgspec.Struct, frozen=True):
    """A condensed answer and the level that wrote it ("troncature" or "<provider>/<model>")."""

    text: str
    level: str
    whole: bool = False  # the answer as written, only its whitespace folded


class Folded(msgspec.Struct, frozen=True):
    """The récit's free sections after a fold, and the level that wrote them."""

    recit: Recit
    level: str


class Fallback(msgspec.Struct, frozen=True):
    """A model level that could not answer, and why (safe to log: no text, no key)."""

    level: str
    reason: str


class ModelResult(msgspec.Struct):
    """What a model worker brings back to the main loop for one bee."""

    kind: str  # "condense" or "fold"
    seqs: list[int]
    batches: int = 1  # a fold: how many queued batches it covers
    content: str = ""
    condensed: Condensed | None = None
    folded: Folded | None = None
    fallbacks: list[Fallback] = msgspec.field(default_factory=list)


class Summarizer(Protocol):
    """Condenses one evicted exchange and folds a batch of condensed ones into the récit.

    Implementations return only the free sections of the récit; the daemon writes
    Mission and Paroles itself and bounds the result, whatever the implementation says.
    On the hot path an implementation never waits on a model: it answers from its cache
    or by truncation, and says so in `level`.
    """

    def condense(self, exchange: Item) -> Condensed:
        """The answer of `exchange` in a few factual sentences."""
        ...

    def fold(self, recit: Recit, batch: Sequence[Item]) -> Folded:
        """`recit` updated with `batch` (oldest first); Mission and Paroles are ignored."""
        ...
