"""The Summarizer interface every implementation (truncation, models) provides."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from horizon.blocks import Item
from horizon.recit import Recit


class Summarizer(Protocol):
    """Condenses one evicted exchange and folds a batch of condensed ones into the récit.

    Implementations return only the free sections of the récit; the daemon writes
    Mission and Paroles itself and bounds the result, whatever the implementation says.
    """

    @property
    def level(self) -> str:
        """What produced the text: "troncature" or "<provider>/<model>"."""
        ...

    def condense(self, exchange: Item) -> str:
        """The answer of `exchange` in a few factual sentences."""
        ...

    def fold(self, recit: Recit, batch: Sequence[Item]) -> Recit:
        """`recit` updated with `batch` (oldest first); Mission and Paroles are ignored."""
        ...
