"""The runtime's side, measured side by side: `view()` in process, `render --fresh` in a new
process against the interpreter's own start, `append` against a raw open-append-close,
and several processes appending to one journal."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from journals import BEE, line, write_history

from horizon.client import append, view
from horizon.core.settings import GlobalConfig
from horizon.engine.bee_engine import BeeEngine, ReadNew
from horizon.hive.settings_files import effective_settings

HORIZON = Path(sys.executable).parent / "horizon"
BEHIND = 100  # lines appended after the daemon's last pass
ENTRY_BYTES = 1024
WRITERS = 8


def behind_bee(folder: Path, history: int, segment: int) -> tuple[Path, Path]:
    """A hive whose bee has a full view derived from `history` lines, then `BEHIND` more
    lines the daemon has not read; and its config.json."""
    hive = folder / "hive"
    now = time.time()
    write_history(hive / "window", history, segment, now)
    (hive / "horizon.toml").write_text("[horizon]\nactif = true\n")
    config = folder / "config.json"
    config.write_text(json.dumps({"hives": [str(hive)]}))
    settings = effective_settings(GlobalConfig(), str(config), hive, BEE)
    BeeEngine(hive, BEE, GlobalConfig(), settings).run(ReadNew(), now)
    with (hive / "window" / f"{BEE}-messages.jsonl").open("ab") as out:
        out.write(b"".join(line(history + i, now) for i in range(BEHIND)))
    return hive, config


def percentile(samples: list[float], share: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def view_cost(folder: Path, history: int, segment: int, calls: int) -> dict[str, Any]:
    hive, config = behind_bee(folder / "view", history, segment)
    first = view(hive, BEE, config=config)
    assert first.behind == BEHIND and first.source == "computed", first
    samples = []
    for _ in range(calls):
        start = time.perf_counter()
        view(hive, BEE, config=config)
        samples.append((time.perf_counter() - start) * 1000)
    return {"history": history, "behind": BEHIND, "calls": calls,
            "view_chars": len(first.text),
            "p50_ms": round(statistics.median(samples), 2),
            "p99_ms": round(percentile(samples, 0.99), 2)}


def fresh_process_cost(folder: Path, history: int, segment: int, runs: int
                       ) -> dict[str, Any]:
    """`horizon render --fresh` against `python -c pass`, run in turns so both see the
    same machine."""
    hive, config = behind_bee(folder / "render", history, segment)
    command = [str(HORIZON), "render", str(hive), BEE, "--fresh", "--config", str(config)]
    expected = view(hive, BEE, config=config).text

    def timed(argv: list[str]) -> tuple[float, bytes]:
        start = time.perf_counter()
        done = subprocess.run(argv, stdout=subprocess.PIPE, check=True)
        return (time.perf_counter() - start) * 1000, done.stdout

    passes, renders = [], []
    for _ in range(runs):
        passes.append(timed([sys.executable, "-c", "pass"])[0])
        elapsed, out = timed(command)
        assert out.decode() == expected, "render --fresh differs from view()"
        renders.append(elapsed)
    python_ms = statistics.median(passes)
    render_ms = statistics.median(renders)
    return {"runs": runs, "python_pass_p50_ms": round(python_ms, 1),
            "render_fresh_p50_ms": round(render_ms, 1),
            "over_python_ms": round(render_ms - python_ms, 1)}


def append_cost(folder: Path, entries: int, rounds: int) -> dict[str, Any]:
    """`append` per 1 KB entry against opening, appending and closing the same bytes."""
    hive = folder / "append"
    (hive / "window").mkdir(parents=True)
    (hive / "window" / f"{BEE}-messages.jsonl").touch()
    # A window and a journal made a while ago, as a runtime finds them: a folder changed
    # within the last second is listed again at each append (client.writer._Listing).
    os.utime(hive / "window", (time.time() - 60, time.time() - 60))
    filler = "x" * 900
    records = [{"ts": 1_700_000_000 + i, "type": "tool", "tool": "bash", "ok": True,
                "question": f"pytest -q tests/test_{i}.py", "answer": filler[:ENTRY_BYTES - 100]}
               for i in range(entries)]
    raw_lines = [json.dumps(record).encode() + b"\n" for record in records]
    raw_path = folder / "raw.jsonl"

    def client_rate() -> float:
        start = time.perf_counter()
        for record in records:
            append(hive, BEE, record)
        return entries / (time.perf_counter() - start)

    def raw_rate() -> float:
        start = time.perf_counter()
        for raw in raw_lines:
            fd = os.open(raw_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o660)
            os.write(fd, raw)
            os.close(fd)
        return entries / (time.perf_counter() - start)

    ratios, client_rates, raw_rates = [], [], []
    for _ in range(rounds):
        raw = raw_rate()
        client = client_rate()
        raw_rates.append(raw)
        client_rates.append(client)
        ratios.append(client / raw)
    return {"entries": entries, "entry_bytes": len(raw_lines[0]),
            "append_per_s": round(statistics.median(client_rates)),
            "raw_per_s": round(statistics.median(raw_rates)),
            "ratio": round(statistics.median(ratios), 3)}


WRITER = """
import sys
from horizon.client import append
hive, bee, writer, count = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
for number in range(count):
    append(hive, bee, {"ts": 1700000000 + number, "type": "tool", "question": f"w{writer}",
                       "answer": f"{writer}:{number}:" + "y" * (200 + 37 * writer)},
           create=True)
"""


def concurrent_writers(folder: Path, each: int) -> dict[str, Any]:
    """WRITERS processes appending to one journal at once: every line whole, each
    writer's lines all there, in its order."""
    hive = folder / "writers"
    (hive / "window").mkdir(parents=True)
    children = [subprocess.Popen([sys.executable, "-c", WRITER, str(hive), BEE, str(writer),
                                  str(each)]) for writer in range(WRITERS)]
    failed = sum(child.wait() != 0 for child in children)
    seen: dict[int, list[int]] = {writer: [] for writer in range(WRITERS)}
    torn = 0
    for raw in (hive / "window" / f"{BEE}-messages.jsonl").read_bytes().splitlines():
        try:
            writer_text, number, padding = json.loads(raw)["answer"].split(":")
            writer = int(writer_text)
            if padding != "y" * (200 + 37 * writer):
                raise ValueError(padding)
            seen[writer].append(int(number))
        except (ValueError, KeyError):
            torn += 1
    exact = all(numbers == list(range(each)) for numbers in seen.values())
    return {"writers": WRITERS, "lines_each": each, "failed_writers": failed,
            "torn_lines": torn, "counts_exact": exact,
            "whole": failed == 0 and torn == 0 and exact}


def client_cost(root: Path, history: int, segment: int, runs: int, *, calls: int,
                entries: int, each: int) -> dict[str, Any]:
    folder = root / "client"
    return {"view": view_cost(folder, history, segment, calls),
            "render_fresh": fresh_process_cost(folder, history, segment, runs),
            "append": append_cost(folder, entries, max(runs, 3)),
            "writers": concurrent_writers(folder, each)}


def client_rows(client: dict[str, Any]) -> list[dict[str, Any]]:
    """The report's rows for this item: measure, goal, met."""
    view, fresh = client["view"], client["render_fresh"]
    append, writers = client["append"], client["writers"]
    return [
        {"name": "client: view() p99, 100 lines behind (ms)", "measured": view["p99_ms"],
         "target": "<= 20", "met": view["p99_ms"] <= 20},
        {"name": "client: render --fresh p50 over python -c pass (ms)",
         "measured": fresh["over_python_ms"], "target": "<= 150",
         "met": fresh["over_python_ms"] <= 150},
        {"name": "client: append vs raw open-append-close", "measured": append["ratio"],
         "target": ">= 0.3", "met": append["ratio"] >= 0.3},
        {"name": f"client: {writers['writers']} writers, lines whole and counted",
         "measured": writers["torn_lines"], "target": "0 torn, counts exact",
         "met": writers["whole"]},
    ]
