"""Fairness: one bee floods its journal with short junk lines while ten others write
normally. The others' views stay fresh and systemd's watchdog keeps being fed: a pass
reads a bounded slice of one bee's backlog before the loop serves the rest."""

from __future__ import annotations

import itertools
import json
import os
import random
import threading
import time
from datetime import datetime
from pathlib import Path
from typing import Any

from daemon_process import Daemon

DEBOUNCE_S = 0.5
WATCHDOG_S = 2.0


def fairness(root: Path, flood_lines: int, seconds: float, others: int = 10) -> dict[str, Any]:
    hive = root / "fair" / "hive"
    window = hive / "window"
    window.mkdir(parents=True)
    (hive / "bees").mkdir()
    bees = [f"b{index:02d}" for index in range(others)]
    for bee in [*bees, "flood"]:
        (hive / "bees" / f"{bee}.toml").write_text("[horizon]\nactif = true\n")
    daemon = Daemon(root / "fair", [hive], DEBOUNCE_S, max_wait=2 * DEBOUNCE_S)
    daemon.start(WATCHDOG_USEC=str(int(WATCHDOG_S * 1_000_000)))
    daemon.listen()
    flood_done = threading.Event()

    def flood() -> None:
        chunk = 100_000
        fd = os.open(window / "flood-messages.jsonl", os.O_WRONLY | os.O_APPEND | os.O_CREAT,
                     0o640)
        try:
            for start in range(0, flood_lines, chunk):
                os.write(fd, b'{"junk": 1}\n' * min(chunk, flood_lines - start))
        finally:
            os.close(fd)
            flood_done.set()

    threading.Thread(target=flood, daemon=True).start()
    written: list[tuple[str, int, float]] = []
    counts = dict.fromkeys(bees, 0)
    rng = random.Random(3)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        bee = rng.choice(bees)
        counts[bee] += 1
        record = json.dumps({"ts": time.time(), "type": "task", "question": "q",
                             "answer": "a" * rng.randint(10, 400)}).encode() + b"\n"
        fd = os.open(window / f"{bee}-messages.jsonl", os.O_WRONLY | os.O_APPEND | os.O_CREAT,
                     0o640)
        os.write(fd, record)
        os.close(fd)
        written.append((bee, counts[bee], time.time()))
        time.sleep(rng.expovariate(others / 1.0))  # a line per bee per second
    flood_done.wait(timeout=600)
    time.sleep(2 * DEBOUNCE_S + 1.0)
    pings = list(daemon.pings)
    daemon.stop()
    seen: dict[str, list[tuple[int, float]]] = {}
    flood_read = 0
    for raw in daemon.log.read_text().splitlines():
        event = json.loads(raw)
        if event.get("event") == "handoff.written" and "bee" in event:
            when = datetime.fromisoformat(event["ts"]).timestamp()
            seen.setdefault(event["bee"], []).append((event["up_to"], when))
        if event.get("event") == "handoff.written" and event.get("bee") == "flood":
            flood_read = max(flood_read, event["up_to"])
    delays = sorted(shown - at for bee, seq, at in written
                    if (shown := next((when for up_to, when in seen.get(bee, [])
                                       if up_to >= seq), None)) is not None)
    gaps = [later - earlier for earlier, later in itertools.pairwise(pings)]
    p99 = delays[int(len(delays) * 0.99)] if delays else float("nan")
    return {"flood_lines": flood_lines, "flood_lines_read_during_run": flood_read,
            "others": others, "lines": len(written), "unseen": len(written) - len(delays),
            "debounce_s": DEBOUNCE_S, "p99_s": round(p99, 3),
            "watchdog_s": WATCHDOG_S, "watchdog_pings": len(pings),
            "max_watchdog_gap_s": round(max(gaps, default=float("nan")), 3)}
