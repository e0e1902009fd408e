"""The benchmark harness at tiny sizes, so it cannot rot between `make bench` runs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXPECTED = {
    "1a read stage vs floor", "1b catch-up to READY (entries/s)", "1b catch-up vs floor",
    "batch of 10: 200k vs 100 history", "freshness p99 (ms)",
    "metrics on and scraped: daemon CPU per line, on/off",
    "scale: RSS after catch-up (MB)", "scale: start to READY (s)",
    "scale: idle CPU (% of a core)", "rebuild peak memory (MB)",
    "search: rare word over 200k entries vs floor", "search peak memory: 200k vs 50k history",
    "show: last of 200k vs 100th entry",
    "fairness: others' p99 under a 10 M-line flood (s)",
    "fairness: longest gap between WATCHDOG=1 (s)",
    "6 live: oldest line's age p99 (s)", "6 live: oldest line's age max (s)",
    "6 live: lag back to 0 after the writers stop (s)", "6 live: daemon CPU (% of a core)",
    "6 live: daemon peak RSS (MB)",
    "client: view() p99, 100 lines behind (ms)",
    "client: render --fresh p50 over python -c pass (ms)",
    "client: append vs raw open-append-close", "client: 8 writers, lines whole and counted",
    "import: a Claude Code transcript in a new process (MB/s)", "import: peak RSS (MB)",
    "hook: one event in a new process, p99 (ms)",
}


def test_the_bench_harness_runs_and_reports_every_target(tmp_path: Path) -> None:
    out = tmp_path / "results.json"
    run = subprocess.run([sys.executable, str(ROOT / "bench" / "run.py"), "--smoke",
                          "--out", str(out)], capture_output=True, text=True, timeout=600,
                         check=False)
    assert run.returncode == 0, run.stderr
    report = json.loads(out.read_text())
    assert report["smoke"] is True
    assert {"date", "machine", "results", "targets"} <= set(report)
    assert {row["name"] for row in report["targets"]} == EXPECTED
    for row in report["targets"]:
        assert isinstance(row["met"], bool)
        assert isinstance(row["measured"], int | float)
    results = report["results"]
    assert results["ingest"]["floor_entries_per_s"] > results["ingest"]["horizon_entries_per_s"] > 0
    assert results["freshness"]["lines"] > 0 and results["freshness"]["unseen"] == 0
    assert results["rebuild"]["segments"] >= 2
    search = results["search"]
    assert search["segments"] >= 2 and search["hits_expected"], search
    assert search["search_entries_per_s"] > 0 and search["peak_mb_small"] > 0
    assert results["show"]["first_ms"] > 0 and results["show"]["last_ms"] > 0
    catch_up = results["catch_up"]
    assert catch_up["entries_per_s"] > 0 and catch_up["segments"] >= 2
    assert catch_up["zones_us_per_entry"] > 0 and results["ingest"]["zones_stage_us_per_entry"] > 0
    live = results["live"]
    assert live["lines"] > 0 and live["unseen"] == 0 and live["peak_rss_mb"] > 0
    fair = results["fairness"]
    assert fair["lines"] > 0 and fair["unseen"] == 0
    assert fair["watchdog_pings"] >= 2
    client = results["client"]
    assert client["view"]["behind"] == 100 and client["view"]["p99_ms"] > 0
    assert client["render_fresh"]["render_fresh_p50_ms"] > 0
    assert client["append"]["append_per_s"] > 0 and client["writers"]["whole"]


def test_the_bench_runs_some_items_alone_and_reports_only_their_rows(tmp_path: Path) -> None:
    out = tmp_path / "results.json"
    run = subprocess.run([sys.executable, str(ROOT / "bench" / "run.py"), "--smoke",
                          "--only", "ingest", "--out", str(out)], capture_output=True,
                         text=True, timeout=600, check=False)
    assert run.returncode == 0, run.stderr
    report = json.loads(out.read_text())
    assert set(report["results"]) == {"ingest"}
    assert [row["name"] for row in report["targets"]] == ["1a read stage vs floor"]
    wrong = subprocess.run([sys.executable, str(ROOT / "bench" / "run.py"), "--smoke",
                            "--only", "ingest,nothing", "--out", str(out)],
                           capture_output=True, text=True, timeout=60, check=False)
    assert wrong.returncode == 2 and "unknown items: nothing" in wrong.stderr


def test_the_walk_of_one_line_is_traced_end_to_end() -> None:
    """bench/walk.py follows one line from the watcher's event to handoff.md."""
    run = subprocess.run([sys.executable, str(ROOT / "bench" / "walk.py")],
                         capture_output=True, text=True, timeout=120, check=False)
    assert run.returncode == 0, run.stderr
    counts, modules = run.stdout.splitlines()[-2:]
    assert counts.endswith("steps between them") and int(counts.split()[0]) >= 20
    for module in ("service.handlers", "engine.bee_engine", "hive.reader", "core.render",
                   "service.writer"):
        assert module in modules.split(), module
