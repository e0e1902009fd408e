"""The deterministic summarizer: no model, always works (ADR 0003, its rules ADR 0008).

Condensing flattens an answer and cuts it to `ligne_max`. Folding learns from each folded
entry in turn (`facts.learn_all`) and writes the free sections from what it learnt
(`sections.sections_of`): the récit is then a function of the folded entries, whatever
batches they came in.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from horizon.core.blocks import Item, marked_failed
from horizon.core.facts import learn_all
from horizon.core.labels import FRENCH, Labels
from horizon.core.noise import without_noise
from horizon.core.outcomes import failing_lines
from horizon.core.recit import Line, Recit
from horizon.core.sections import sections_of
from horizon.core.summarizer import TRUNCATION, Condensed, Folded
from horizon.core.text import ELLIPSIS, ends_cut, flat_cut, flatten

LEVEL = TRUNCATION
__all__ = ["LEVEL", "Truncation"]


class Truncation:
    """Answers flattened and cut to `ligne_max`; the récit filled by documented rules."""

    def __init__(self, ligne_max: int, labels: Labels = FRENCH) -> None:
        self.ligne_max = ligne_max
        self.labels = labels

    def condense(self, exchange: Item) -> Condensed:
        return self.condense_answer(exchange.answer, failed=marked_failed(exchange))

    def condense_answer(self, answer: str, printable: bool | None = None,
                        failed: bool = False) -> Condensed:
        """`condense` of an exchange with this answer (`printable`: whether it is, when
        the caller already looked). A failed call keeps its output's ends, its verdict at
        the tail, and the lines above it that name what failed."""
        limit = self.ligne_max
        answer = without_noise(answer)  # what the runtime appended is nobody's output
        if failed:
            text = ends_cut(answer, limit, failing_lines(answer))
            return Condensed(text, LEVEL, whole=flatten(answer) == text)
        if printable is None:
            printable = answer.isprintable()
        if len(answer) <= limit * 4 + 64 and printable and "  " not in answer:
            # The usual short answer: flattening it only strips its ends, and it was kept
            # whole when that fits (what flat_cut and kept_whole give, without the calls).
            flat = answer.strip(" ")
            if len(flat) <= limit:
                return Condensed(flat, LEVEL, whole=True)
            return Condensed(flat[:limit - 1] + ELLIPSIS, LEVEL, whole=False)
        text = flat_cut(answer, limit)
        return Condensed(text, LEVEL, whole=self.kept_whole(answer, text))

    def kept_whole(self, answer: str, text: str) -> bool:
        """Whether `text`, flat_cut(answer), is the whole answer flattened (no cut),
        without flattening a long answer that was cut."""
        limit = self.ligne_max
        if len(text) < limit or not text.endswith(ELLIPSIS):
            return True  # a cut text is `limit` long and ends with the ellipsis
        # A prefix flattens to no more than the whole: over the limit, the whole was cut.
        if len(flatten(answer[: limit * 4 + 64])) > limit:
            return False
        return flatten(answer) == text

    def fold(self, recit: Recit, batch: Sequence[Item]) -> Folded:
        return Folded(self.fold_recit(recit, batch), LEVEL)

    def fold_recit(self, recit: Recit, batch: Sequence[Item],
                   sections: dict[str, tuple[Line, ...]] | None = None) -> Recit:
        """The records learnt from `batch`, and the free sections written from them
        (`sections`: those a model wrote instead)."""
        facts = learn_all(recit.facts, batch)
        if sections is None:
            sections = sections_of(facts, self.labels, self.ligne_max)
        return msgspec.structs.replace(recit, sections=sections, facts=facts,
                                       folded=recit.folded + len(batch))
