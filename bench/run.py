"""horizon against the floor of its own work: every figure is measured side by side in one
run and reported as a ratio or against a target (README, "Performance").

    python bench/run.py            # full sizes, medians of --runs runs
    python bench/run.py --smoke    # tiny sizes: proves the harness still works
    python bench/run.py --only catch_up,live   # some items alone, and only their rows
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from client import client_cost, client_rows
from daemon_process import Daemon
from fairness import fairness
from imports import import_cost, import_rows
from journals import BEE, floor_rate, line, write_history
from live import live_load
from recall import search_cost, show_cost

from horizon.core.deferred import Deferred
from horizon.core.ingest import Stepper
from horizon.core.settings import Effective, GlobalConfig, HorizonSettings
from horizon.core.zone_state import Changes, Zones
from horizon.core.zones import settle
from horizon.engine.bee_engine import BeeEngine, ReadNew, Rebuild
from horizon.engine.stepping import context
from horizon.hive.journal import Checkpoint
from horizon.hive.manifest import read_manifest
from horizon.hive.reader import JournalReader

HERE = Path(__file__).resolve().parent
HORIZON = Path(sys.executable).parent / "horizon"


@dataclass
class Sizes:
    ingest: int = 100_000
    history: int = 200_000
    history_small: int = 50_000  # the search's memory is compared at both lengths
    segment: int = 500
    bees_fresh: int = 100
    fresh_seconds: float = 20.0
    bees_scale: int = 1000
    entries_scale: int = 100
    idle_seconds: float = 10.0
    flood_lines: int = 10_000_000
    fair_seconds: float = 30.0
    catch_up: int = 200_000
    bees_live: int = 1000
    live_seconds: float = 60.0
    client_history: int = 5_000  # the view() bee: a full view, 100 lines behind
    client_calls: int = 300
    client_processes: int = 21  # render --fresh and python -c pass, in turns
    client_entries: int = 5_000
    writer_lines: int = 2_000
    transcript_mb: float = 3.5
    hook_events: int = 200


SMOKE = Sizes(ingest=2_000, history=3_000, history_small=750, segment=500, bees_fresh=5,
              fresh_seconds=2.0, bees_scale=20, entries_scale=20, idle_seconds=1.0,
              flood_lines=100_000, fair_seconds=2.0, catch_up=3_000, bees_live=20,
              live_seconds=3.0, client_history=1_000, client_calls=20, client_processes=3,
              client_entries=300, writer_lines=100, transcript_mb=0.5, hook_events=10)


def effective() -> Effective:
    return Effective(HorizonSettings(actif=True), {}, "Garder la ruche en bon état", None)


def median(run: Callable[[], float], runs: int) -> float:
    return statistics.median(run() for _ in range(runs))


# -- 1. ingest throughput ---------------------------------------------------------------

def ingest(root: Path, sizes: Sizes, runs: int) -> dict[str, Any]:
    hive = root / "ingest"
    write_history(hive / "window", sizes.ingest, 10**9, time.time())
    paths = [hive / "window" / f"{BEE}-messages.jsonl"]

    def horizon_rate() -> float:
        start = time.perf_counter()
        BeeEngine(hive, BEE, GlobalConfig(), effective()).run(Rebuild(), time.time())
        return sizes.ingest / (time.perf_counter() - start)

    def read_rate() -> float:
        """The reading stage alone: seqs, typed decoding, checks and the checkpoint."""
        window = hive / "window"
        start = time.perf_counter()
        reader = JournalReader(window, BEE, Checkpoint(), GlobalConfig().max_line_bytes,
                               time.time(), read_manifest(window, BEE), {}, set())
        count = sum(1 for _ in reader)
        return count / (time.perf_counter() - start)

    def zones_rate() -> float:
        return 1e6 / zones_us_per_entry(hive / "window")

    # The machine's speed drifts (a shared 2-core VM): each run times the floor right
    # before the stages, and the ratios are taken run by run.
    samples: dict[str, list[float]] = {"floor": [], "horizon": [], "read": [], "zones": []}
    for _ in range(runs):
        samples["floor"].append(floor_rate(paths, sizes.ingest))
        samples["horizon"].append(horizon_rate())
        samples["read"].append(read_rate())
        samples["zones"].append(zones_rate())

    def ratio(stage: str) -> float:
        pairs = zip(samples[stage], samples["floor"], strict=True)
        return round(statistics.median(rate / floor for rate, floor in pairs), 3)

    rates = {stage: statistics.median(taken) for stage, taken in samples.items()}
    return {"floor_entries_per_s": round(rates["floor"]),
            "horizon_entries_per_s": round(rates["horizon"]), "ratio": ratio("horizon"),
            "read_stage_entries_per_s": round(rates["read"]),
            "read_stage_ratio": ratio("read"),
            "zones_stage_entries_per_s": round(rates["zones"]),
            "zones_stage_us_per_entry": round(1e6 / rates["zones"], 1)}


def zones_us_per_entry(window: Path) -> float:
    """The zones alone, over entries already read, as a pass steps them: measuring,
    condensing, folding, and the text work settled at the end."""
    records = list(JournalReader(window, BEE, Checkpoint(), GlobalConfig().max_line_bytes,
                                 time.time(), read_manifest(window, BEE), {}, set()))
    ctx = context(BEE, effective(), time.time(), deferred=Deferred())
    start = time.perf_counter()
    zones = Zones()
    stepper = Stepper(zones, ctx, Changes())
    for record in records:
        stepper.add(record)
    stepper.flush()
    settle(zones, ctx)
    return (time.perf_counter() - start) * 1e6 / len(records)


# -- 2. cost independent of history -----------------------------------------------------

# The batches are timed alone: a rotation during one would fall on one side of the ratio.
UNROTATED = GlobalConfig(rotation_entries=10_000_000)


def batch_cost(root: Path, sizes: Sizes, runs: int) -> dict[str, Any]:
    """Both bees take their batches in turn, so drift in the machine (fsync latency, other
    load) falls on both sides of the ratio alike."""
    now = time.time()
    counts = {"small": 100, "large": sizes.history}
    samples: dict[str, list[float]] = {label: [] for label in counts}
    for label, count in counts.items():
        hive = root / f"history-{label}"
        write_history(hive / "window", count, sizes.segment, now)
        BeeEngine(hive, BEE, UNROTATED, effective()).run(Rebuild(), now)
    # One engine per bee across its batches, as the daemon keeps it (its state and its
    # manifest in memory between passes).
    engines = {label: BeeEngine(root / f"history-{label}", BEE, UNROTATED, effective())
               for label in counts}
    for engine in engines.values():
        engine.run(ReadNew(), now)  # loads the state and the manifest, as a start does
    for run in range(max(runs * 5, 5)):
        for label, count in counts.items():
            hive = root / f"history-{label}"
            engine = engines[label]
            with (hive / "window" / f"{BEE}-messages.jsonl").open("ab") as out:
                out.write(b"".join(line(count + run * 10 + i, now) for i in range(10)))
            start = time.perf_counter()
            engine.run(ReadNew(), now)
            samples[label].append(time.perf_counter() - start)
    costs = {label: statistics.median(taken) for label, taken in samples.items()}
    return {"history_small": 100, "history_large": sizes.history,
            "batch_of_10_small_ms": round(costs["small"] * 1000, 3),
            "batch_of_10_large_ms": round(costs["large"] * 1000, 3),
            "ratio": round(costs["large"] / costs["small"], 3)}


# -- 3. end-to-end freshness --------------------------------------------------------------

def freshness(root: Path, sizes: Sizes, metrics_port: int | None = None) -> dict[str, Any]:
    """Lines written to many bees at a steady rate: how long until each shows in its view.
    With `metrics_port`, the daemon serves its metrics and is scraped every 5 s."""
    debounce = 0.05
    folder = root / ("fresh-metrics" if metrics_port else "fresh")
    hive = folder / "hive"
    bees = [f"b{index:03d}" for index in range(sizes.bees_fresh)]
    (hive / "window").mkdir(parents=True)
    (hive / "bees").mkdir()
    for bee in bees:
        (hive / "bees" / f"{bee}.toml").write_text("[horizon]\nactif = true\n")
    daemon = Daemon(folder, [hive], debounce,
                    metrics=f"127.0.0.1:{metrics_port}" if metrics_port else None)
    daemon.start()
    scraping = threading.Event()
    if metrics_port:
        def scrape() -> None:
            while not scraping.wait(5.0):  # an eager Prometheus (15 s is the default)
                with contextlib.suppress(OSError):
                    urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics",
                                           timeout=5).read()

        threading.Thread(target=scrape, daemon=True).start()
    written: list[tuple[str, int, float]] = []
    counts = dict.fromkeys(bees, 0)
    rng = random.Random(1)
    deadline = time.monotonic() + sizes.fresh_seconds
    while time.monotonic() < deadline:
        bee = rng.choice(bees)
        counts[bee] += 1
        record = json.dumps({"ts": time.time(), "type": "task", "question": "q",
                             "answer": "a" * rng.randint(10, 400)}).encode() + b"\n"
        fd = os.open(hive / "window" / f"{bee}-messages.jsonl",
                     os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o640)
        os.write(fd, record)
        os.close(fd)
        written.append((bee, counts[bee], time.time()))
        time.sleep(rng.expovariate(200))  # ~200 lines/s over the hive
    time.sleep(1.0)
    cpu = daemon.cpu_seconds()
    scraping.set()
    daemon.stop()
    seen: dict[str, list[tuple[int, float]]] = {}
    for raw in daemon.log.read_text().splitlines():
        event = json.loads(raw)
        if event.get("event") == "handoff.written" and "bee" in event:
            when = datetime.fromisoformat(event["ts"]).timestamp()
            seen.setdefault(event["bee"], []).append((event["up_to"], when))
    delays = []
    for bee, seq, at in written:
        shown = next((when for up_to, when in seen.get(bee, []) if up_to >= seq), None)
        if shown is not None:
            delays.append(shown - at)
    delays.sort()
    p50 = delays[len(delays) // 2] if delays else float("nan")
    p99 = delays[int(len(delays) * 0.99)] if delays else float("nan")
    return {"bees": sizes.bees_fresh, "lines": len(written), "debounce_s": debounce,
            "p50_ms": round(p50 * 1000, 1), "p99_ms": round(p99 * 1000, 1),
            "unseen": len(written) - len(delays), "cpu_s": round(cpu, 3),
            "cpu_ms_per_line": round(cpu * 1000 / max(1, len(written)), 3)}


def metrics_cost(root: Path, sizes: Sizes) -> dict[str, Any]:
    """The freshness item again with metrics on and scraped, beside the run without."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = int(probe.getsockname()[1])
    off = freshness(root / "cost-off", sizes)
    on = freshness(root / "cost-on", sizes, metrics_port=port)
    return {"off": off, "on": on,
            "cpu_ratio": round(on["cpu_ms_per_line"] / max(off["cpu_ms_per_line"], 1e-9), 3),
            "p99_ms_off": off["p99_ms"], "p99_ms_on": on["p99_ms"]}


# -- 4. scale -------------------------------------------------------------------------------

def scale(root: Path, sizes: Sizes) -> dict[str, Any]:
    hive = root / "scale" / "hive"
    (hive / "window").mkdir(parents=True)
    (hive / "bees").mkdir()
    now = time.time()
    for index in range(sizes.bees_scale):
        bee = f"b{index:04d}"
        (hive / "window" / f"{bee}-messages.jsonl").write_bytes(
            b"".join(line(i, now) for i in range(sizes.entries_scale)))
    first = Daemon(root / "scale", [hive], 0.1)
    first.start()  # the first start derives every bee
    first.stop()
    daemon = Daemon(root / "scale", [hive], 0.1)
    daemon.start()  # resuming from checkpoints
    assert daemon.ready_at is not None
    ready_s = daemon.ready_at - daemon.started_at
    rss = daemon.rss_mb()
    time.sleep(1.0)
    before = daemon.cpu_seconds()
    time.sleep(sizes.idle_seconds)
    idle = (daemon.cpu_seconds() - before) / sizes.idle_seconds
    daemon.stop()
    return {"bees": sizes.bees_scale, "entries_each": sizes.entries_scale,
            "ready_s": round(ready_s, 3), "rss_mb": round(rss, 1),
            "idle_cpu_percent": round(idle * 100, 2)}


# -- 1b. catch-up ------------------------------------------------------------------------

def catch_up(root: Path, sizes: Sizes) -> dict[str, Any]:
    """A daemon started on a hive whose bee has `catch_up` entries and no derived state:
    from its start to READY=1, against the floor over the same bytes."""
    folder = root / "catch-up"
    hive = folder / "hive"
    write_history(hive / "window", sizes.catch_up, sizes.segment, time.time())
    (hive / "horizon.toml").write_text("[horizon]\nactif = true\n")
    paths = sorted((hive / "window" / "archive").glob(f"{BEE}-messages.*.jsonl"))
    paths.append(hive / "window" / f"{BEE}-messages.jsonl")
    floor = floor_rate(paths, sizes.catch_up, passes=1)
    daemon = Daemon(folder, [hive], 2.0, 10.0, metrics=f"127.0.0.1:{free_port()}")
    daemon.start()
    assert daemon.ready_at is not None
    seconds = daemon.ready_at - daemon.started_at
    daemon.stop()
    rate = sizes.catch_up / seconds
    return {"entries": sizes.catch_up, "segments": len(paths), "ready_s": round(seconds, 3),
            "entries_per_s": round(rate), "floor_entries_per_s": round(floor),
            "ratio_to_floor": round(rate / floor, 4),
            "zones_us_per_entry": round(zones_us_per_entry(hive / "window"), 2)}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


# -- 5. rebuild -----------------------------------------------------------------------------

def rebuild(root: Path, sizes: Sizes, runs: int) -> dict[str, Any]:
    hive = root / "rebuild" / "hive"
    now = time.time()
    write_history(hive / "window", sizes.history, sizes.segment, now)
    paths = sorted((hive / "window" / "archive").glob(f"{BEE}-messages.*.jsonl"))
    paths.append(hive / "window" / f"{BEE}-messages.jsonl")
    config = root / "rebuild" / "config.json"
    config.write_text(json.dumps({"horizon": {"actif": True}}))

    def timed() -> tuple[float, float]:
        start = time.perf_counter()
        command = [str(HORIZON), "rebuild", str(hive), BEE, "--config", str(config)]
        child = subprocess.Popen([sys.executable, str(HERE / "peak.py"), *command],
                                 stdout=subprocess.PIPE)
        out, _ = child.communicate()
        elapsed = time.perf_counter() - start
        return elapsed, float(out.decode().strip() or 0)

    samples = [timed() for _ in range(runs)]
    elapsed = statistics.median(s[0] for s in samples)
    peak = max(s[1] for s in samples)
    floor = median(lambda: floor_rate(paths, sizes.history, passes=1), runs)
    return {"entries": sizes.history, "segments": len(paths), "seconds": round(elapsed, 3),
            "entries_per_s": round(sizes.history / elapsed),
            "ratio_to_floor": round(sizes.history / elapsed / floor, 3),
            "peak_rss_mb": round(peak, 1)}


# -- the report -------------------------------------------------------------------------------

def targets(results: dict[str, Any]) -> list[dict[str, Any]]:
    """Every row whose item ran: its measure, its goal and whether it is met."""
    rows: list[dict[str, Any]] = []

    def row(name: str, measured: float, target: str, met: bool) -> None:
        rows.append({"name": name, "measured": measured, "target": target, "met": bool(met)})

    if "ingest" in results:
        read = results["ingest"]["read_stage_ratio"]
        row("1a read stage vs floor", read, ">= 0.5", read >= 0.5)
    if "catch_up" in results:
        catch = results["catch_up"]
        row("1b catch-up to READY (entries/s)", catch["entries_per_s"], ">= 40000",
            catch["entries_per_s"] >= 40_000)
        row("1b catch-up vs floor", catch["ratio_to_floor"], ">= 0.05",
            catch["ratio_to_floor"] >= 0.05)
    if "history" in results:
        ratio = results["history"]["ratio"]
        row("batch of 10: 200k vs 100 history", ratio, "<= 1.2", ratio <= 1.2)
    if "freshness" in results:
        fresh = results["freshness"]
        budget_ms = fresh["debounce_s"] * 1000 + 100
        row("freshness p99 (ms)", fresh["p99_ms"], f"<= {budget_ms:.0f}",
            fresh["p99_ms"] <= budget_ms and fresh["unseen"] == 0)
    if "metrics_cost" in results:
        cost = results["metrics_cost"]["cpu_ratio"]
        row("metrics on and scraped: daemon CPU per line, on/off", cost, "<= 1.15",
            cost <= 1.15)
    if "scale" in results:
        scaled = results["scale"]
        row("scale: RSS after catch-up (MB)", scaled["rss_mb"], "<= 200",
            scaled["rss_mb"] <= 200)
        row("scale: start to READY (s)", scaled["ready_s"], "<= 3", scaled["ready_s"] <= 3)
        row("scale: idle CPU (% of a core)", scaled["idle_cpu_percent"], "< 1",
            scaled["idle_cpu_percent"] < 1)
    if "rebuild" in results:
        peak = results["rebuild"]["peak_rss_mb"]
        row("rebuild peak memory (MB)", peak, "<= 150", peak <= 150)
    if "search" in results:
        search = results["search"]
        row("search: rare word over 200k entries vs floor", search["ratio"], ">= 0.5",
            search["ratio"] >= 0.5 and search["hits_expected"])
        row("search peak memory: 200k vs 50k history", search["memory_ratio"], "<= 1.5",
            search["memory_ratio"] <= 1.5)
    if "show" in results:
        ratio = results["show"]["ratio"]
        row("show: last of 200k vs 100th entry", ratio, "<= 1.5", ratio <= 1.5)
    if "fairness" in results:
        fair = results["fairness"]
        row("fairness: others' p99 under a 10 M-line flood (s)", fair["p99_s"],
            f"<= {fair['debounce_s'] + 1:.1f}",
            fair["p99_s"] <= fair["debounce_s"] + 1 and fair["unseen"] == 0)
        row("fairness: longest gap between WATCHDOG=1 (s)", fair["max_watchdog_gap_s"],
            f"<= {fair['watchdog_s'] / 2:.1f}",
            fair["max_watchdog_gap_s"] <= fair["watchdog_s"] / 2)
    if "live" in results:
        live = results["live"]
        age_limit = live["max_wait_s"] + 1
        row("6 live: oldest line's age p99 (s)", live["age_p99_s"], f"<= {age_limit:g}",
            live["age_p99_s"] <= age_limit and live["unseen"] == 0)
        row("6 live: oldest line's age max (s)", live["age_max_s"], f"<= {age_limit:g}",
            live["age_max_s"] <= age_limit)
        row("6 live: lag back to 0 after the writers stop (s)", live["drain_s"],
            f"<= {live['drain_limit_s']:g}", live["drain_s"] <= live["drain_limit_s"])
        row("6 live: daemon CPU (% of a core)", live["cpu_percent"], "<= 60",
            live["cpu_percent"] <= 60)
        row("6 live: daemon peak RSS (MB)", live["peak_rss_mb"], "<= 200",
            live["peak_rss_mb"] <= 200)
    rows += [row for item, item_rows in (("client", client_rows), ("imports", import_rows))
             if item in results for row in item_rows(results[item])]
    return rows


Item = Callable[[Path, Sizes, int], dict[str, Any]]
ITEMS: dict[str, Item] = {
    "ingest": ingest,
    "catch_up": lambda root, sizes, runs: catch_up(root, sizes),
    "history": batch_cost,
    "freshness": lambda root, sizes, runs: freshness(root, sizes),
    "metrics_cost": lambda root, sizes, runs: metrics_cost(root, sizes),
    "scale": lambda root, sizes, runs: scale(root, sizes),
    "rebuild": rebuild,
    "search": lambda root, sizes, runs: search_cost(root, sizes.history, sizes.history_small,
                                                    sizes.segment, runs),
    "show": lambda root, sizes, runs: show_cost(root, sizes.history, sizes.segment, runs),
    "fairness": lambda root, sizes, runs: fairness(root, sizes.flood_lines, sizes.fair_seconds),
    "live": lambda root, sizes, runs: live_load(root, sizes.bees_live, sizes.live_seconds),
    "client": lambda root, sizes, runs: client_cost(
        root, sizes.client_history, sizes.segment, sizes.client_processes,
        calls=sizes.client_calls, entries=sizes.client_entries, each=sizes.writer_lines),
    "imports": lambda root, sizes, runs: import_cost(root, sizes.transcript_mb,
                                                     sizes.hook_events, runs),
}


def machine() -> dict[str, Any]:
    return {"python": platform.python_version(), "platform": platform.platform(),
            "cpus": os.cpu_count(), "processor": platform.processor() or platform.machine()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--smoke", action="store_true", help="tiny sizes, one run")
    parser.add_argument("--runs", type=int, default=3, help="runs per figure (median)")
    parser.add_argument("--out", type=Path, default=HERE / "results.json")
    parser.add_argument("--only", type=lambda text: set(text.split(",")), default=None,
                        metavar="ITEM,...", help=f"run only these items ({', '.join(ITEMS)}); "
                        "the report then holds only their rows")
    args = parser.parse_args()
    if args.only and not args.only <= set(ITEMS):
        parser.error(f"unknown items: {', '.join(sorted(args.only - set(ITEMS)))}")
    sizes = SMOKE if args.smoke else Sizes()
    runs = 1 if args.smoke else args.runs
    root = Path(tempfile.mkdtemp(prefix="horizon-bench-"))
    try:
        results = {name: item(root, sizes, runs) for name, item in ITEMS.items()
                   if args.only is None or name in args.only}
    finally:
        shutil.rmtree(root, ignore_errors=True)
    report = {"date": datetime.now(UTC).isoformat(timespec="seconds"), "machine": machine(),
              "smoke": args.smoke, "runs": runs, "results": results,
              "targets": targets(results)}
    args.out.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n")
    print_table(report)
    return 0


def print_table(report: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"horizon bench — {report['date']} ({report['runs']} runs, medians)")
    for column in ("target", "measured", "goal", "met"):
        table.add_column(column)
    for row in report["targets"]:
        table.add_row(row["name"], str(row["measured"]), row["target"],
                      "yes" if row["met"] else "NO")
    Console(width=120).print(table)
    print(json.dumps(report["results"], indent=2, ensure_ascii=False))


if __name__ == "__main__":
    sys.exit(main())
