"""Recall over a long history, as `horizon search` and `horizon show` run it: a rare word
searched against the floor over the same bytes, the search's memory at two lengths of
history, and the last entry shown against the 100th."""

from __future__ import annotations

import gc
import os
import statistics
import time
import tracemalloc
from pathlib import Path
from typing import Any

from journals import BEE, floor_rate, line

from horizon.core.settings import GlobalConfig, HorizonSettings
from horizon.engine.recall import search, show
from horizon.hive.journal import Checkpoint
from horizon.hive.layout import archive_dir, live_path
from horizon.hive.manifest import read_manifest
from horizon.hive.rotation import rotate

RARE = "Xylophone"  # in no line but the marked ones; searched folded, as typed
QUERY = "xylophone"
MAX_LINE_BYTES = GlobalConfig().max_line_bytes

DEFAULTS = HorizonSettings()  # the lighthouse rule of a bee with no settings


def marked(count: int, segment: int) -> list[int]:
    """The line numbers holding the rare word: one far back in the first segment, two
    in the middle of the history, two in its last segment."""
    return sorted({3, count // 3 + 1, 2 * count // 3 + 2, count - segment // 2, count - 2})


def recorded_history(root: Path, count: int, segment: int) -> Path:
    """A hive whose bee has `count` lines, rotated by the real rotation every `segment`
    lines (a `rotated` record each, as the daemon leaves them), the rest live."""
    hive = root / f"recall-{count}"
    window = hive / "window"
    if window.exists():
        return hive  # the search and show items share the longest history
    window.mkdir(parents=True)
    now = time.time()
    rare = set(marked(count, segment))

    def text(number: int) -> bytes:
        raw = line(number, now)
        if number in rare:
            raw = raw.replace(b"lance les tests", f"accorde le {RARE} puis lance".encode())
        return raw

    live = live_path(window, BEE)
    manifest = read_manifest(window, BEE)
    number = 0
    for _ in range(count // segment if count > segment else 0):
        live.write_bytes(b"".join(text(number + i) for i in range(segment)))
        number += segment
        info = os.stat(live)
        done = Checkpoint(live.name, info.st_size, number, info.st_dev, info.st_ino, "",
                          segment)
        if rotate(window, BEE, done, manifest) is None:
            raise RuntimeError(f"{live}: not rotated")
    live.write_bytes(b"".join(text(i) for i in range(number, count)))
    return hive


def journal_paths(hive: Path) -> list[Path]:
    window = hive / "window"
    return [*sorted(archive_dir(window).glob(f"{BEE}-messages.*.jsonl")), live_path(window, BEE)]


def _search_seqs(hive: Path) -> list[int]:
    return [hit.entry.seq for hit in search(hive, BEE, QUERY, MAX_LINE_BYTES, lighthouses=DEFAULTS)]


def _search_peak_mb(hive: Path) -> float:
    """The most memory a search holds at once beyond what was there before it (Python's
    allocations, traced)."""
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        _search_seqs(hive)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return (peak - before) / (1 << 20)


def search_cost(root: Path, count: int, small: int, segment: int, runs: int
                ) -> dict[str, Any]:
    """Search for a word in a handful of entries of `count`, timed run by run right after
    the floor over the same bytes; peak memory at `small` entries and at `count`."""
    hive = recorded_history(root, count, segment)
    paths = journal_paths(hive)
    expected = [number + 1 for number in reversed(marked(count, segment))]  # newest first
    found = _search_seqs(hive)  # also warms the page cache and the imports
    floors: list[float] = []
    rates: list[float] = []
    for _ in range(max(runs * 2, 5)):  # a second or so each: more pairs, a steadier median
        floors.append(floor_rate(paths, count, passes=1))
        start = time.perf_counter()
        _search_seqs(hive)
        rates.append(count / (time.perf_counter() - start))
    peak_small = _search_peak_mb(recorded_history(root, small, segment))
    peak_large = _search_peak_mb(hive)
    return {"entries": count, "segments": len(paths) - 1, "query": QUERY,
            "hits": found, "hits_expected": found == expected,
            "floor_entries_per_s": round(statistics.median(floors)),
            "search_entries_per_s": round(statistics.median(rates)),
            "ratio": round(statistics.median(r / f for r, f in zip(rates, floors, strict=True)),
                           3),
            "entries_small": small, "peak_mb_small": round(peak_small, 2),
            "peak_mb_large": round(peak_large, 2),
            "memory_ratio": round(peak_large / peak_small, 3)}


def show_cost(root: Path, count: int, segment: int, runs: int) -> dict[str, Any]:
    """`show` of the 100th entry against the last one of the same history, in turn."""
    hive = recorded_history(root, count, segment)
    seqs = {"first": min(100, count), "last": count}
    for seq in seqs.values():  # warm, and a show that finds nothing measures nothing
        found = show(hive, BEE, [seq], MAX_LINE_BYTES, lighthouses=DEFAULTS).shown
        if [shown.entry.seq for shown in found] != [seq]:
            raise RuntimeError(f"show of #{seq} did not find it")
    samples: dict[str, list[float]] = {label: [] for label in seqs}
    for _ in range(max(runs * 7, 7)):
        for label, seq in seqs.items():
            start = time.perf_counter()
            show(hive, BEE, [seq], MAX_LINE_BYTES, lighthouses=DEFAULTS)
            samples[label].append(time.perf_counter() - start)
    costs = {label: statistics.median(taken) for label, taken in samples.items()}
    return {"entries": count, "seq_first": seqs["first"], "seq_last": seqs["last"],
            "first_ms": round(costs["first"] * 1000, 3),
            "last_ms": round(costs["last"] * 1000, 3),
            "ratio": round(costs["last"] / costs["first"], 3)}
