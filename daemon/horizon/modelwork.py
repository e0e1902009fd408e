"""Model calls off the hot path: a bounded worker pool whose results come back to the
daemon's main loop, which alone touches the zones.

handoff.md is always written first with truncation; a model's text replaces the
truncated one when it arrives, and the view is written again.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from horizon.blocks import Item
from horizon.logs import get_logger
from horizon.settings import Effective, GlobalConfig
from horizon.summarize.base import ModelResult
from horizon.summarize.cache import SummaryCache, hive_cache
from horizon.summarize.cascade import Cascade, Providers

WORKERS = 2
log = get_logger()


@dataclass
class InFlight:
    """What one bee has asked the models and not heard back yet."""

    condense: set[tuple[int, str]] = field(default_factory=set)
    fold: bool = False


class ModelWork:
    def __init__(self, config: GlobalConfig, post: Callable[[tuple[Any, ...]], None],
                 workers: int = WORKERS) -> None:
        self.providers = Providers(config)
        self.pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="horizon-model")
        self.post = post
        self.caches: dict[Path, SummaryCache] = {}

    def reconfigure(self, config: GlobalConfig) -> None:
        self.providers = Providers(config)

    def cache(self, hive: Path) -> SummaryCache:
        if hive not in self.caches:
            self.caches[hive] = hive_cache(hive)
        return self.caches[hive]

    def stop(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)
        for cache in self.caches.values():
            cache.close()

    def submit(self, hive: Path, bee: str, effective: Effective, zones: Any,
               to_condense: list[Item], inflight: InFlight) -> None:
        """Ask the models for what truncation wrote and is still shown or pending."""
        levels = self.providers.levels_for(effective)
        if not levels:
            return
        cascade = Cascade(levels, self.providers.breakers, effective.horizon, self.cache(hive))
        shown = {(item.seq, item.content) for item in zones.condense}
        for original in to_condense:
            key = (original.seq, original.content)
            if key in shown and key not in inflight.condense:
                inflight.condense.add(key)
                self.pool.submit(self._condense, hive, bee, cascade, original)
        if zones.pending_folds and zones.chain is not None and not inflight.fold:
            inflight.fold = True
            batch = list(zones.pending_folds[0])
            self.pool.submit(self._fold, hive, bee, cascade, zones.chain, batch)

    def _condense(self, hive: Path, bee: str, cascade: Cascade, original: Item) -> None:
        try:
            condensed, fallbacks = cascade.condense(original, original.answer)
        except Exception as error:  # a worker must always report back, whatever happened
            log.error("summarizer.error", hive=str(hive), bee=bee, reason=repr(error))
            condensed, fallbacks = None, []
        self.post(("model", hive, bee, ModelResult("condense", [original.seq], original.content,
                                                   condensed=condensed, fallbacks=fallbacks)))

    def _fold(self, hive: Path, bee: str, cascade: Cascade, chain: Any, batch: list[Item]
              ) -> None:
        try:
            folded, fallbacks = cascade.fold(chain, batch)
        except Exception as error:  # a worker must always report back, whatever happened
            log.error("summarizer.error", hive=str(hive), bee=bee, reason=repr(error))
            folded, fallbacks = None, []
        self.post(("model", hive, bee, ModelResult("fold", [item.seq for item in batch],
                                                   folded=folded, fallbacks=fallbacks)))
