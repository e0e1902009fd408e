"""A whole hive's live load: many bees, each appending a ~1 KB line at random (Poisson, a
mean of `interval` seconds between two of a bee's lines), at the default debounce and
max_wait, with metrics on and scraped. How old a line gets before its view shows it, how
long the daemon takes to drain once the writers stop, its CPU and its memory."""

from __future__ import annotations

import contextlib
import heapq
import json
import os
import random
import socket
import threading
import time
import urllib.request
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from daemon_process import Daemon

from horizon.core.settings import HorizonSettings

DEFAULTS = HorizonSettings()
LINE_BYTES = 1000


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def peak_rss_mb(pid: int) -> float:
    for entry in Path(f"/proc/{pid}/status").read_text().splitlines():
        if entry.startswith("VmHWM:"):
            return int(entry.split()[1]) / 1024
    return 0.0


def live_load(root: Path, bees: int, seconds: float, interval: float = 2.0) -> dict[str, Any]:
    folder = root / "live"
    hive = folder / "hive"
    window = hive / "window"
    window.mkdir(parents=True)
    (hive / "horizon.toml").write_text("[horizon]\nactif = true\n")
    names = [f"b{index:04d}" for index in range(bees)]
    rng = random.Random(6)
    filler = "".join(rng.choice("abcdefghij klmnop ") for _ in range(LINE_BYTES))

    def line(bee: str, number: int) -> bytes:
        return json.dumps({"ts": time.time(), "type": "task", "question": f"{bee} {number}",
                           "answer": filler[:LINE_BYTES - 120]}).encode() + b"\n"

    counts = dict.fromkeys(names, 1)
    for bee in names:  # each bee exists, with one line, before the daemon starts
        (window / f"{bee}-messages.jsonl").write_bytes(line(bee, 1))
    port = free_port()
    daemon = Daemon(folder, [hive], DEFAULTS.debounce_s, DEFAULTS.max_wait_s,
                    metrics=f"127.0.0.1:{port}")
    daemon.start()
    assert daemon.process is not None
    scraping = threading.Event()

    def scrape() -> None:
        while not scraping.wait(5.0):
            with contextlib.suppress(OSError):
                urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5).read()

    threading.Thread(target=scrape, daemon=True).start()
    time.sleep(DEFAULTS.max_wait_s + 1)  # the first lines are read: a steady start
    cpu_before = daemon.cpu_seconds()
    started = time.monotonic()
    written, late_writes = write_load(window, names, line, counts, rng, seconds, interval)
    stopped = time.time()
    cpu = daemon.cpu_seconds() - cpu_before  # while the writers write
    busy_s = time.monotonic() - started
    drain_limit = DEFAULTS.debounce_s + 2
    time.sleep(DEFAULTS.max_wait_s + 2)  # everything due has run by then, if it keeps up
    rss = peak_rss_mb(daemon.process.pid)
    scraping.set()
    daemon.stop()
    ages, last_shown = line_ages(daemon.log, written, stopped)
    ages.sort()
    p99 = ages[int(len(ages) * 0.99)] if ages else float("nan")
    return {"bees": bees, "seconds": seconds, "mean_interval_s": interval,
            "lines": len(written), "lines_per_s": round(len(written) / seconds, 1),
            "writer_late": late_writes, "debounce_s": DEFAULTS.debounce_s,
            "max_wait_s": DEFAULTS.max_wait_s,
            "age_p50_s": round(ages[len(ages) // 2], 3) if ages else float("nan"),
            "age_p99_s": round(p99, 3), "age_max_s": round(ages[-1], 3) if ages else
            float("nan"), "unseen": len(written) - len(ages),
            "drain_s": round(last_shown - stopped, 3), "drain_limit_s": drain_limit,
            "cpu_percent": round(100 * cpu / busy_s, 1), "peak_rss_mb": round(rss, 1)}


def write_load(window: Path, names: list[str], line: Callable[[str, int], bytes],
               counts: dict[str, int], rng: random.Random, seconds: float, interval: float
               ) -> tuple[list[tuple[str, int, float]], int]:
    """Every bee appends a line at Poisson instants: (bee, its seq, when) of each line, and
    how many the writer itself wrote more than 0.1 s late."""
    started = time.monotonic()
    due = [(started + rng.expovariate(1 / interval), bee) for bee in names]
    heapq.heapify(due)
    written: list[tuple[str, int, float]] = []
    late_writes = 0
    while True:
        at, bee = heapq.heappop(due)
        if at >= started + seconds:
            return written, late_writes
        pause = at - time.monotonic()
        if pause > 0:
            time.sleep(pause)
        elif pause < -0.1:
            late_writes += 1
        counts[bee] += 1
        fd = os.open(window / f"{bee}-messages.jsonl", os.O_WRONLY | os.O_APPEND)
        os.write(fd, line(bee, counts[bee]))
        os.close(fd)
        written.append((bee, counts[bee], time.time()))
        heapq.heappush(due, (at + rng.expovariate(1 / interval), bee))


def line_ages(log: Path, written: list[tuple[str, int, float]], stopped: float
              ) -> tuple[list[float], float]:
    """How old each line was when the `handoff.written` covering it was logged, and when
    the last of them was."""
    seen: dict[str, list[tuple[int, float]]] = {}
    for raw in log.read_text().splitlines():
        event = json.loads(raw)
        if event.get("event") == "handoff.written" and "bee" in event:
            when = datetime.fromisoformat(event["ts"]).timestamp()
            seen.setdefault(event["bee"], []).append((event["up_to"], when))
    ages: list[float] = []
    last_shown = stopped
    for bee, seq, at in written:
        shown = next((when for up_to, when in seen.get(bee, []) if up_to >= seq), None)
        if shown is not None:
            ages.append(shown - at)
            last_shown = max(last_shown, shown)
    return ages, last_shown
