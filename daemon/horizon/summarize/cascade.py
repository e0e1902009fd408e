"""The cascade: dedicated model → the bee's model → truncation.

`Cascade` calls models (in worker threads, never on the hot path); `CachedSummarizer`
is what the zones use while stepping: it answers from the cache or by truncation and
never touches the network.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from horizon.core.blocks import Item
from horizon.core.recit import Recit
from horizon.core.settings import Effective, GlobalConfig, HorizonSettings
from horizon.core.summarizer import Condensed, Fallback, Folded
from horizon.core.text import flatten
from horizon.core.truncation import Truncation
from horizon.summarize.cache import SummaryCache
from horizon.summarize.cached import fold_key, parse_recit
from horizon.summarize.keys import cache_key
from horizon.summarize.prompts import (
    CONDENSE_SYSTEM,
    FOLD_SYSTEM,
    condense_prompt,
    fold_prompt,
)
from horizon.summarize.providers import Provider, ProviderError, build_provider

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
        for name in effective.levels:
            provider_name, _, model = name.partition("/")
            with self._lock:
                if provider_name not in self._built:
                    provider_config = self.config.providers[provider_name]  # type: ignore[index]
                    self._built[provider_name] = build_provider(provider_name, provider_config)
                self.breakers.setdefault(name, Breaker(self.cooldown_s))
            levels.append(Level(name, self._built[provider_name], model))
        return levels


class Cascade:
    """Model calls for one bee: each level in turn, then truncation."""

    def __init__(self, levels: list[Level], breakers: dict[str, Breaker],
                 settings: HorizonSettings, cache: SummaryCache | None,
                 stopping: threading.Event | None = None) -> None:
        self.stopping = stopping
        self.levels = levels
        self.breakers = breakers
        self.settings = settings
        self.cache = cache
        self.truncation = Truncation(settings.ligne_max, settings.labels)

    def ask_condense(self, item: Item, original_answer: str
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
                reason = None if text else "empty reply"
                if len(text) > limit:
                    reason = f"over-long reply ({len(text)} > {limit} chars)"
                if reason is not None:
                    self._failed(level, reason, fallbacks)
                    continue
                self.breakers[level.name].reset()
                self._store(key, text)
            return Condensed(text, level.name), fallbacks
        restored = Item(item.seq, item.instant, item.type, item.question, original_answer,
                        item.lighthouse, tool=item.tool)
        return self.truncation.condense(restored), fallbacks

    def ask_fold(self, recit: Recit, batch: Sequence[Item]
                 ) -> tuple[Folded, list[Fallback]]:
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
                self._failed(level, str(error), fallbacks)
                continue
            self.breakers[level.name].reset()
            self._store(key, text)
            return Folded(folded, level.name), fallbacks
        return self.truncation.fold(recit, batch), fallbacks

    def _call(self, level: Level, system: str, user: str, fallbacks: list[Fallback]
              ) -> str | None:
        breaker = self.breakers[level.name]
        if self.stopping is not None and self.stopping.is_set():
            fallbacks.append(Fallback(level.name, "daemon stopping"))
            return None
        if breaker.is_open():
            fallbacks.append(Fallback(level.name, "circuit open (recent failure)"))
            return None
        try:
            reply = level.provider.chat(level.model, system, user)
        except ProviderError as error:
            breaker.trip()
            fallbacks.append(Fallback(level.name, str(error)))
            return None
        except Exception as error:  # any surprise is a failed call; its text may hold a key
            breaker.trip()
            fallbacks.append(Fallback(level.name, f"unexpected error ({type(error).__name__})"))
            return None
        return reply

    def _failed(self, level: Level, reason: str, fallbacks: list[Fallback]) -> None:
        """A reply we cannot use. The breaker stays as it is: the server answered, and a
        model bad at folding may still condense well."""
        fallbacks.append(Fallback(level.name, reason))

    def _cached(self, key: str) -> str | None:
        return self.cache.get(key) if self.cache is not None else None

    def _store(self, key: str, text: str) -> None:
        if self.cache is not None:
            self.cache.put(key, text)
