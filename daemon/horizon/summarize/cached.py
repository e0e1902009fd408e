"""The hot-path summarizer when models are configured: the cache or truncation, never a
call. Also the cache keys and the parsing of a model's récit, shared with the cascade."""

from __future__ import annotations

from collections.abc import Sequence

from horizon.core.blocks import Item
from horizon.core.recit import FREE_SECTIONS, PAROLES, SECTIONS, Line, Recit
from horizon.core.settings import HorizonSettings
from horizon.core.summarizer import Condensed, Folded
from horizon.core.text import flatten
from horizon.core.truncation import Truncation
from horizon.summarize.keys import CacheReader, cache_key


def fold_key(level: str, recit: Recit, batch: Sequence[Item]) -> str:
    sections = [f"{name}\n" + "\n".join(line.text for line in recit.lines_of(name))
                for name in FREE_SECTIONS]
    return cache_key("fold", level, [*sections, *(item.content for item in batch)])


def parse_recit(text: str, seq: int, budget: int) -> Recit:
    """A model's récit: the seven headings in order, Mission and Paroles ignored."""
    sections: dict[str, list[Line]] = {}
    order: list[str] = []
    current: str | None = None
    for raw in text.splitlines():
        stripped = raw.strip()
        heading = stripped.lstrip("#").strip() if stripped.startswith("#") else None
        if heading is not None and heading in SECTIONS:
            order.append(heading)
            current = heading
            continue
        if current is None or current in ("Mission", PAROLES) or not stripped:
            continue
        item = stripped[1:].strip() if stripped[:1] in "-*•" else stripped
        if item:
            sections.setdefault(current, []).append(Line(seq, flatten(item)))
    if order != list(SECTIONS):
        raise ValueError("malformed récit (the seven sections are not all there, in order)")
    size = sum(len(line.text) + 5 for lines in sections.values() for line in lines)
    if size > budget:
        raise ValueError(f"over-long récit ({size} > {budget} chars)")
    return Recit({name: tuple(lines) for name, lines in sections.items()})


class CachedSummarizer:
    """The hot-path summarizer when models are configured: cache or truncation, no call."""

    def __init__(self, level_names: list[str], settings: HorizonSettings,
                 cache: CacheReader | None) -> None:
        self.level_names = level_names
        self.cache = cache
        self.truncation = Truncation(settings.ligne_max, settings.labels)
        self.budget_recit = settings.budget_recit

    def condense(self, exchange: Item) -> Condensed:
        if self.cache is not None:
            for name in self.level_names:
                text = self.cache.get(cache_key("condense", name, [exchange.content]))
                if text is not None:
                    return Condensed(text, name)
        return self.truncation.condense(exchange)

    def fold(self, recit: Recit, batch: Sequence[Item]) -> Folded:
        return self.cached_fold(recit, batch) or self.truncation.fold(recit, batch)

    def cached_fold(self, recit: Recit, batch: Sequence[Item]) -> Folded | None:
        """A model's fold of exactly this récit and batch, if one was already paid for."""
        if self.cache is None:
            return None
        for name in self.level_names:
            text = self.cache.get(fold_key(name, recit, batch))
            if text is None:
                continue
            try:
                return Folded(parse_recit(text, batch[-1].seq if batch else 0,
                                          self.budget_recit), name)
            except ValueError:
                continue
        return None

