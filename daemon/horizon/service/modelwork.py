"""Model calls off the hot path: a few worker threads whose results come back to the
daemon's main loop, which alone touches the zones.

handoff.md is always written first with truncation; a model's text replaces the
truncated one when it arrives, and the view is written again. The workers are daemon
threads and stop between two levels once the daemon stops: SIGTERM never waits on a
model.
"""

from __future__ import annotations

import functools
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import msgspec

from horizon.core.blocks import Item
from horizon.core.entries import Entry, decode_line
from horizon.core.recit import Recit
from horizon.core.settings import Effective, GlobalConfig
from horizon.core.summarizer import TRUNCATION, Condensed, Fallback, Folded, ModelResult
from horizon.core.zones import content_hash
from horizon.hive.layout import window_dir
from horizon.hive.locate import locate_line
from horizon.hive.manifest import Manifest
from horizon.hive.store import BeeState
from horizon.service.logs import get_logger
from horizon.service.messages import ModelDone
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
    def __init__(self, config: GlobalConfig, post: Callable[[ModelDone], None],
                 workers: int = WORKERS) -> None:
        self.providers = Providers(config)
        self.config = config
        self.post = post
        self.caches: dict[Path, SummaryCache] = {}
        self.jobs: queue.Queue[Callable[[], None] | None] = queue.Queue()
        self.stopping = threading.Event()
        self.threads = [threading.Thread(target=self._work, name=f"horizon-model-{n}",
                                         daemon=True) for n in range(workers)]
        for thread in self.threads:
            thread.start()

    def _work(self) -> None:
        while not self.stopping.is_set():
            job = self.jobs.get()
            try:
                if job is None:
                    return
                job()
            finally:
                self.jobs.task_done()

    def drain(self) -> None:
        """Wait until every job asked so far has reported back (tests, benchmarks)."""
        self.jobs.join()

    def reconfigure(self, config: GlobalConfig) -> None:
        self.providers = Providers(config)
        self.config = config

    def cache(self, hive: Path) -> SummaryCache:
        if hive not in self.caches:
            self.caches[hive] = hive_cache(hive, on_refused=functools.partial(
                _cache_refused, hive))
        return self.caches[hive]

    def stop(self) -> None:
        self.stopping.set()
        for _ in self.threads:
            self.jobs.put(None)

    def submit(self, hive: Path, bee: str, effective: Effective, state: BeeState,
               to_condense: list[Item], inflight: InFlight, manifest: Manifest | None,
               upgrade: bool = False) -> None:
        """Ask the models for what truncation wrote and is still shown or queued.

        `upgrade`: also entries condensed by truncation earlier (before a restart, or
        while a model was closed), read back from the journal by their seq.
        """
        levels = self.providers.levels_for(effective)
        if not levels:
            return
        zones = state.zones
        cascade = Cascade(levels, self.providers.breakers, effective.horizon, self.cache(hive),
                          self.stopping)
        shown = {(item.seq, item.content) for item in zones.condense}
        originals = {(item.seq, item.content): item for item in to_condense}
        fresh = set(originals)  # answers whole in hand; the others are read back by seq
        if upgrade and manifest is not None:
            for item in zones.condense:
                key = (item.seq, item.content)
                if item.source == TRUNCATION and key not in originals:
                    originals[key] = item
        for key, original in originals.items():
            if key in shown and key not in inflight.condense:
                inflight.condense.add(key)
                self.jobs.put(functools.partial(self._condense, hive, bee, cascade, original,
                                                key not in fresh, state.segments, manifest))
        queue = state.folds
        if queue.batches and queue.chain is not None and not inflight.fold:
            inflight.fold = True
            batches = len(queue.batches)
            merged = queue.merged(batches)
            chain = queue.chain
            self.jobs.put(functools.partial(self._fold, hive, bee, cascade, chain, merged,
                                            batches))

    def _original_answer(self, hive: Path, item: Item, segments: dict[str, list[int]],
                         manifest: Manifest | None) -> str | None:
        if manifest is None:
            return None
        raw = locate_line(window_dir(hive), item.seq, segments, manifest,
                          self.config.max_line_bytes)
        if raw is None:
            return None
        entry = decode_line(item.seq, raw)
        if not isinstance(entry, Entry) or content_hash(entry) != item.content:
            return None  # not the line it was: leave the entry as it is
        return entry.answer

    def _condense(self, hive: Path, bee: str, cascade: Cascade, item: Item, from_journal: bool,
                  segments: dict[str, list[int]], manifest: Manifest | None) -> None:
        condensed: Condensed | None = None
        fallbacks: list[Fallback] = []
        try:
            answer = (self._original_answer(hive, item, segments, manifest) if from_journal
                      else item.answer)
            if answer is not None:
                original = msgspec.structs.replace(item, answer=answer)
                condensed, fallbacks = cascade.ask_condense(original, answer)
        except Exception as error:  # a worker must always report back, whatever happened
            log.error("summarizer.error", hive=str(hive), bee=bee, error=type(error).__name__)
        self.post(ModelDone(hive, bee, ModelResult("condense", [item.seq], content=item.content,
                                                   condensed=condensed, fallbacks=fallbacks)))

    def _fold(self, hive: Path, bee: str, cascade: Cascade, chain: Recit, merged: list[Item],
              batches: int) -> None:
        folded: Folded | None = None
        fallbacks: list[Fallback] = []
        try:
            folded, fallbacks = cascade.ask_fold(chain, merged)
        except Exception as error:  # a worker must always report back, whatever happened
            log.error("summarizer.error", hive=str(hive), bee=bee, error=type(error).__name__)
            # Truncation's fold keeps the queue moving: never ask the same fold forever.
            folded = cascade.truncation.fold(chain, merged)
        self.post(ModelDone(hive, bee, ModelResult("fold", [item.seq for item in merged],
                                                   batches=batches, folded=folded,
                                                   fallbacks=fallbacks)))


def _cache_refused(hive: Path, reason: str) -> None:
    log.warning("cache.refused", hive=str(hive), reason=reason,
                consequence="model outputs are not kept; a restart asks them again")
