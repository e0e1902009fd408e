"""The profile preview: a bee's history replayed in memory under other settings, by one
background worker at a time, with progress, cancellation and a cache. Nothing is written:
the engine is a read-only one, the summary cache is opened read-only."""

from __future__ import annotations

import itertools
import queue
import threading
import time
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import msgspec

from horizon.core.errors import SettingsError, UsageError
from horizon.core.settings import Effective, GlobalConfig, Layer, cascade, validate_layer
from horizon.core.view import View
from horizon.engine.bee_engine import BeeEngine, ReadNew, Rebuild
from horizon.engine.stepping import settings_key
from horizon.hive.flags import read_flags
from horizon.hive.store import load_state
from horizon.summarize.cache import hive_cache

# What the form may change; everything else stays as the bee's files say.
PREVIEW_KEYS = ("budget_net", "budget_condense", "budget_recit", "plancher_phare", "actif",
                "langue")
SLICE_BYTES = 1 << 20  # read per step: progress and cancellation are looked at between
CACHED_VIEWS = 16
KEPT_JOBS = 64  # finished jobs kept for their pages to read; older ones are forgotten
QUEUED_MAX = 8

State = Literal["queued", "running", "done", "cancelled", "failed"]


class PreviewError(UsageError):
    """A preview that cannot be asked for: bad settings, too many waiting."""


def ascii_digits(text: str) -> bool:
    """ASCII digits only: str.isdigit() also takes '²' or '①', on which int() raises
    (a 500 and a traceback instead of the page saying what it wanted)."""
    return text.isascii() and text.isdigit()


def preview_settings(effective: Effective, form: Mapping[str, str]) -> Effective:
    """The bee's settings with the form's values on top, checked as a settings file's
    (a budget out of range, a cap under the minimum: SettingsError naming the key)."""
    values: dict[str, object] = {}
    for key in PREVIEW_KEYS:
        raw = form.get(key, "").strip()
        if not raw:
            continue
        if key.startswith("budget_"):
            if not ascii_digits(raw) or len(raw) > 12:  # int() raises past 4300 digits
                raise SettingsError("preview", f"horizon.{key}", f"expected a whole number, "
                                    f"got {raw[:40]!r}")
            values[key] = int(raw)
        elif key == "actif":
            if raw not in ("true", "false"):
                raise SettingsError("preview", "horizon.actif", "expected true or false")
            values[key] = raw == "true"
        else:
            values[key] = raw
    checked = validate_layer(values, "preview")
    current = Layer("current", msgspec.to_builtins(effective.horizon))
    merged = cascade([current, Layer("preview", checked)], "preview", effective.mission,
                     effective.modele)
    return msgspec.structs.replace(merged, levels=effective.levels)


@dataclass
class Job:
    """One preview asked for, as its page polls it."""

    id: str
    hive: Path
    bee: str
    effective: Effective
    key: tuple[str, str, str, int] | None  # None: not cached
    target: int  # the seq the derived view was up to when it was asked (progress's end)
    state: State = "queued"
    done: int = 0  # seqs replayed so far
    view: View | None = None
    error: str | None = None
    cached: bool = False
    cancel: threading.Event = field(default_factory=threading.Event)
    finished_at: float | None = None

    def report(self) -> dict[str, object]:
        return {"id": self.id, "state": self.state, "done": self.done,
                "total": max(self.target, self.done), "cached": self.cached,
                "error": self.error}


class PreviewWorker:
    """One thread replays histories, one job at a time, in the order asked."""

    def __init__(self, config: GlobalConfig) -> None:
        self.config = config
        self.jobs: OrderedDict[str, Job] = OrderedDict()
        self.views: OrderedDict[tuple[str, str, str, int], View] = OrderedDict()
        self.lock = threading.Lock()
        self.waiting: queue.Queue[Job | None] = queue.Queue()
        self.numbers = itertools.count(1)
        self.thread = threading.Thread(target=self._work, name="horizon-preview", daemon=True)
        self.thread.start()

    def submit(self, hive: Path, bee: str, effective: Effective) -> Job:
        state = load_state(hive, bee)
        up_to = state.zones.up_to if state is not None else 0
        # With nothing derived, up_to does not move as the journal grows: no caching then.
        key = (None if state is None else
               (str(hive), bee, settings_key(effective, read_flags(hive, bee)), up_to))
        job = Job(f"p{next(self.numbers)}", hive, bee, effective, key, up_to)
        with self.lock:
            cached = self.views.get(key) if key is not None else None
            if key is not None and cached is not None:
                self.views.move_to_end(key)
                job.view, job.state, job.cached, job.done = cached, "done", True, up_to
                job.finished_at = time.monotonic()
            elif self.waiting.qsize() >= QUEUED_MAX:
                # Cancelled ones count until the worker drops them: asking and cancelling
                # in a loop while a long replay runs cannot pile jobs up.
                raise PreviewError(f"{QUEUED_MAX} previews are already waiting: wait for "
                                   "one to finish")
            self.jobs[job.id] = job
            self._forget_old()
        if job.state == "queued":
            self.waiting.put(job)
        return job

    def get(self, job_id: str) -> Job | None:
        with self.lock:
            return self.jobs.get(job_id)

    def cancel(self, job_id: str) -> Job | None:
        job = self.get(job_id)
        if job is not None:
            job.cancel.set()
            with self.lock:
                if job.state == "queued":
                    job.state = "cancelled"
                    job.finished_at = time.monotonic()  # forgotten in time, like the others
        return job

    def stop(self) -> None:
        for job in list(self.jobs.values()):
            job.cancel.set()
        self.waiting.put(None)
        self.thread.join(timeout=5)

    def _forget_old(self) -> None:
        finished = [job_id for job_id, job in self.jobs.items() if job.finished_at is not None]
        for job_id in finished[:max(0, len(finished) - KEPT_JOBS)]:
            del self.jobs[job_id]

    def _work(self) -> None:
        while (job := self.waiting.get()) is not None:
            if job.cancel.is_set():
                continue  # cancelled while it waited
            job.state = "running"
            try:
                job.view = self._replay(job)
            except Exception as error:  # a page shows it; the worker lives on
                job.error = str(error) or type(error).__name__
            with self.lock:
                if job.view is None:
                    job.state = "cancelled" if job.error is None else "failed"
                else:
                    job.state = "done"
                    if job.key is not None:
                        self.views[job.key] = job.view
                        while len(self.views) > CACHED_VIEWS:
                            self.views.popitem(last=False)
                job.finished_at = time.monotonic()

    def _replay(self, job: Job) -> View | None:
        """The whole history read again in slices under the job's settings: the view a
        daemon would give after rebuilding with them (None if cancelled)."""
        engine = BeeEngine(job.hive, job.bee, self.config, job.effective,
                           cache=hive_cache(job.hive, create=False), writes=False,
                           slice_bytes=SLICE_BYTES)
        given: Rebuild | ReadNew = Rebuild()
        while True:
            now = time.time()
            outcome = engine.run(given, now, now)
            if outcome is None:
                raise PreviewError("the history could not be read")
            job.done = outcome.state.checkpoint.seq
            if not outcome.more:
                return outcome.view
            if job.cancel.is_set():
                return None
            given = ReadNew()
