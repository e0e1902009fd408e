"""The deterministic summarizer: no model, always works (ADR 0003)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from horizon.core.blocks import Item
from horizon.core.recit import DECISIONS, ERRORS, FILES, NEXT, WORK, Line, Recit
from horizon.core.summarizer import TRUNCATION, Condensed, Folded
from horizon.core.text import cut, flat_cut, flatten, named_paths

LEVEL = TRUNCATION
WORK_ITEMS = 3
_FAILURE = re.compile(
    r"\b(error|errors|erreur|erreurs|échec|échoué|failed|failure|fails|exception|traceback|"
    r"fatal|panic|denied|refusé|introuvable|not found)\b",
    re.IGNORECASE,
)
_CONVERSATION = "conversation"
# What _FAILURE needs in a text once it is lower-cased (with the three characters that
# IGNORECASE equates with a letter their lower case is not): most answers report no
# failure, and looking for these is ten times cheaper than the regex.
_FAILURE_STEMS = ("error", "erreur", "échec", "échoué", "fail", "exception", "traceback",
                  "fatal", "panic", "denied", "refusé", "introuvable", "not found")
_CASE_ODDITIES = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s"})


def reports_failure(original: str) -> bool:
    """Whether a text names a failure (the failure words of ADR 0003, whole, any case)."""
    text = original
    if not text.isascii() and ("\u0130" in text or "\u0131" in text or "\u017f" in text):
        text = text.translate(_CASE_ODDITIES)
    folded = text.lower()
    if not any(stem in folded for stem in _FAILURE_STEMS):
        return False
    return _FAILURE.search(original) is not None


def _label(item: Item) -> str:
    kind = item.tool or item.type
    return f"#{item.seq} {flatten(kind)}"


def _gist(item: Item) -> str:
    return flatten(item.question) or flatten(item.answer)


def next_step(last: int) -> Line:
    """The Prochaine étape line of a fold whose last entry is `last`: the newest line a fold
    writes, so the last one a bound drops."""
    return Line(last, f"reprendre après #{last} : voir le condensé et les échanges récents")


class Truncation:
    """Answers flattened and cut to `ligne_max`; the récit filled by documented rules."""

    def __init__(self, ligne_max: int) -> None:
        self.ligne_max = ligne_max

    def condense(self, exchange: Item) -> Condensed:
        return Condensed(flat_cut(exchange.answer, self.ligne_max), LEVEL)

    def fold(self, recit: Recit, batch: Sequence[Item]) -> Folded:
        return Folded(self.fold_recit(recit, batch), LEVEL)

    def fold_recit(self, recit: Recit, batch: Sequence[Item]) -> Recit:
        sections = {name: list(lines) for name, lines in recit.sections.items()}
        known_files = {line.text.split(" ", 1)[0] for line in sections.get(FILES, [])}
        for item in batch:
            for path in named_paths(f"{item.question}\n{item.answer}"):
                if path not in known_files:
                    known_files.add(path)
                    sections.setdefault(FILES, []).append(Line(item.seq, f"{path} (#{item.seq})"))
            if reports_failure(item.answer):
                text = cut(f"{_label(item)} : {flatten(item.answer)}", self.ligne_max)
                sections.setdefault(ERRORS, []).append(Line(item.seq, text))
            if item.type == _CONVERSATION and item.question:
                text = f"#{item.seq} {flatten(item.question)} → {flatten(item.answer)}"
                sections.setdefault(DECISIONS, []).append(Line(item.seq, cut(text, self.ligne_max)))
        if batch:
            recent = batch[-WORK_ITEMS:]
            sections[WORK] = [
                Line(item.seq, cut(f"{_label(item)} : {_gist(item)}", self.ligne_max))
                for item in recent
            ]
            sections[NEXT] = [next_step(batch[-1].seq)]
        return Recit({name: tuple(lines) for name, lines in sections.items() if lines},
                     recit.paroles)
