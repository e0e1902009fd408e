"""The cascade of SPEC section 6: dedicated model → the bee's model → truncation.

`Cascade` calls models (in worker threads, never on the hot path); `CachedSummarizer`
is what the zones use while stepping: it answers from the cache or by truncation and
never touches the network.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from horizon.blocks import Item
from horizon.recit import FREE_SECTIONS, PAROLES, SECTIONS, Line, Recit
from horizon.settings import Effective, GlobalConfig, HorizonSettings
from horizon.summarize.base import TRUNCATION, Condensed, Fallback, Folded
from horizon.summarize.cache import SummaryCache, cache_key
from horizon.summarize.prompts import (
    CONDENSE_SYSTEM,
    FOLD_SYSTEM,
    condense_prompt,
    fold_prompt,
)
from horizon.summarize.providers import Provider, ProviderError, build_provider
from horizon.summarize.truncation import Truncation
from horizon.text import flatten

COOLDOWN_S = 30.0


@dataclass(frozen=True)
class Level:
    name: str  # "<provider>/<model>"
    provider: Provider
    model: str


@dataclass
class Breaker:
    """Closes a failing model for a cool-down: a dead server costs one timeout, not one
    per exchange."""

    cooldown_s: float = COOLDOWN_S
    open_until: float = 0.0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def is_open(self) -> bool:
        return time.monotonic() < self.open_until

    def trip(self) -> None:
        self.open_until = time.monotonic() + self.cooldown_s

    def reset(self) -> None:
        self.open_until = 0.0


class Providers:
    """The configured providers and one breaker per model, shared by every bee."""

    def __init__(self, config: GlobalConfig, cooldown_s: float = COOLDOWN_S) -> None:
        self.config = config
        self.cooldown_s = cooldown_s
        self._built: dict[str, Provider] = {}
        self.breakers: dict[str, Breaker] = {}
        self._lock = threading.Lock()

    def levels_for(self, effective: Effective) -> list[Level]:
        """The model levels above truncation for one bee, in cascade order."""
        levels = []
        for name in level_names(self.config, effective):
            provider_name, _, model = name.partition("/")
            with self._lock:
                if provider_name not in self._built:
                    provider_config = self.config.providers[provider_name]  # type: ignore[index]
                    self._built[provider_name] = build_provider(provider_name, provider_config)
                self.breakers.setdefault(name, Breaker(self.cooldown_s))
            levels.append(Level(name, self._built[provider_name], model))
        return levels


def level_names(config: GlobalConfig, effective: Effective) -> list[str]:
    """The cascade above truncation: the dedicated model, then the bee's own; a provider
    that is not configured or is switched off is never called."""
    names: list[str] = []
    resumeur = effective.horizon.resumeur
    if resumeur == TRUNCATION:
        return []
    if resumeur != "abeille":
        names.append(resumeur)
    if effective.modele and effective.modele not in names:
        names.append(effective.modele)
    usable = []
    for name in names:
        provider = config.providers.get(name.partition("/")[0])  # type: ignore[call-overload]
        if provider is not None and provider.actif:
            usable.append(name)
    return usable


class Cascade:
    """Model calls for one bee: each level in turn, then truncation."""

    def __init__(self, levels: list[Level], breakers: dict[str, Breaker],
                 settings: HorizonSettings, cache: SummaryCache | None) -> None:
        self.levels = levels
        self.breakers = breakers
        self.settings = settings
        self.cache = cache
        self.truncation = Truncation(settings.ligne_max)

    def condense(self, item: Item, original_answer: str
                 ) -> tuple[Condensed, list[Fallback]]:
        fallbacks: list[Fallback] = []
        limit = min(self.settings.budget_condense // 2, 4 * self.settings.ligne_max)
        for level in self.levels:
            key = cache_key("condense", level.name, [item.content])
            text = self._cached(key)
            if text is None:
                reply = self._call(level, CONDENSE_SYSTEM, condense_prompt(item, original_answer),
                                   fallbacks)
                if reply is None:
                    continue
                text = flatten(reply)
                if not text:
                    fallbacks.append(Fallback(level.name, "empty reply"))
                    continue
                if len(text) > limit:
                    fallbacks.append(Fallback(level.name, f"over-long reply ({len(text)} > "
                                                          f"{limit} chars)"))
                    continue
                self._store(key, text)
            return Condensed(text, level.name), fallbacks
        restored = Item(item.seq, item.instant, item.type, item.question, original_answer,
                        item.lighthouse, tool=item.tool)
        return self.truncation.condense(restored), fallbacks

    def fold(self, recit: Recit, batch: Sequence[Item]) -> tuple[Folded, list[Fallback]]:
        fallbacks: list[Fallback] = []
        for level in self.levels:
            key = fold_key(level.name, recit, batch)
            text = self._cached(key)
            if text is None:
                text = self._call(level, FOLD_SYSTEM, fold_prompt(recit, batch), fallbacks)
                if text is None:
                    continue
            try:
                folded = parse_recit(text, batch[-1].seq if batch else 0,
                                     self.settings.budget_recit)
            except ValueError as error:
                fallbacks.append(Fallback(level.name, str(error)))
                continue
            self._store(key, text)
            return Folded(folded, level.name), fallbacks
        return self.truncation.fold(recit, batch), fallbacks

    def _call(self, level: Level, system: str, user: str, fallbacks: list[Fallback]
              ) -> str | None:
        breaker = self.breakers[level.name]
        if breaker.is_open():
            fallbacks.append(Fallback(level.name, "circuit open (recent failure)"))
            return None
        try:
            reply = level.provider.chat(level.model, system, user)
        except ProviderError as error:
            breaker.trip()
            fallbacks.append(Fallback(level.name, str(error)))
            return None
        breaker.reset()
        return reply

    def _cached(self, key: str) -> str | None:
        return self.cache.get(key) if self.cache is not None else None

    def _store(self, key: str, text: str) -> None:
        if self.cache is not None:
            self.cache.put(key, text)


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
                 cache: SummaryCache | None) -> None:
        self.level_names = level_names
        self.cache = cache
        self.truncation = Truncation(settings.ligne_max)
        self.budget_recit = settings.budget_recit

    @property
    def models(self) -> bool:
        return bool(self.level_names)

    def condense(self, exchange: Item) -> Condensed:
        if self.cache is not None:
            for name in self.level_names:
                text = self.cache.get(cache_key("condense", name, [exchange.content]))
                if text is not None:
                    return Condensed(text, name)
        return self.truncation.condense(exchange)

    def fold(self, recit: Recit, batch: Sequence[Item]) -> Folded:
        if self.cache is not None:
            for name in self.level_names:
                text = self.cache.get(fold_key(name, recit, batch))
                if text is None:
                    continue
                try:
                    return Folded(parse_recit(text, batch[-1].seq if batch else 0,
                                              self.budget_recit), name)
                except ValueError:
                    continue
        return self.truncation.fold(recit, batch)

