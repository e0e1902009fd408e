"""A runtime's transcript into a hive, measured: `horizon import claude-code` of a 3.5 MB
transcript in a new process (its speed and peak memory, beside reading the same file
line by line with json), and `horizon hook claude-code` once per event as the transcript
grows (each event a new process, beside `python -c pass`)."""

from __future__ import annotations

import json
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HORIZON = Path(sys.executable).parent / "horizon"
REAL = (Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "real-sessions"
        / "claude-code-ae4a77f8.jsonl")
BEE = "bench"
FLOOR = """
import json, sys
with open(sys.argv[1], "rb") as lines:
    for line in lines:
        json.loads(line)
"""


def long_transcript(path: Path, megabytes: float) -> int:
    """The real session told again and again until the file holds `megabytes`: each
    retelling's ids made its own, as a longer session would have them."""
    lines = REAL.read_bytes().splitlines(keepends=True)
    written, copy = 0, 0
    with path.open("wb") as out:
        while written < megabytes * 1e6:
            for line in lines:
                retold = line.replace(b'"toolu_', f'"toolu_{copy}_'.encode()).replace(
                    b'"uuid":"', f'"uuid":"{copy}-'.encode())
                out.write(retold)
                written += len(retold)
            copy += 1
    return written


def timed(argv: list[str], stdin: bytes | None = None) -> float:
    start = time.perf_counter()
    subprocess.run(argv, input=stdin, stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def import_speed(folder: Path, megabytes: float, runs: int) -> dict[str, Any]:
    transcript = folder / "long.jsonl"
    size = long_transcript(transcript, megabytes)
    imports, floors = [], []
    for run in range(runs):
        hive = folder / f"hive-{run}"
        (hive / "window" / "archive").mkdir(parents=True)
        floors.append(timed([sys.executable, "-c", FLOOR, str(transcript)]))
        imports.append(timed([str(HORIZON), "import", "claude-code", str(transcript),
                              "--hive", str(hive), "--bee", BEE]))
    # The largest of the children waited for: the imports, the floors and python alone
    # are all far smaller than the import would be if it held the transcript.
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    entries = sum(1 for _ in (folder / "hive-0" / "window" / f"{BEE}-messages.jsonl")
                  .open("rb"))
    seconds, floor = statistics.median(imports), statistics.median(floors)
    return {"transcript_mb": round(size / 1e6, 2), "entries": entries,
            "import_s": round(seconds, 3), "mb_per_s": round(size / 1e6 / seconds, 1),
            "json_read_s": round(floor, 3), "ratio_to_json_read": round(floor / seconds, 2),
            "peak_rss_mb": round(peak_mb, 1)}


def hook_latency(folder: Path, events: int) -> dict[str, Any]:
    """One PostToolUse event per tool result of the real session, the transcript written
    up to that result, each through a new `horizon hook` process."""
    hive = folder / "hook-hive"
    (hive / "window" / "archive").mkdir(parents=True)
    transcript = folder / "growing.jsonl"
    lines = REAL.read_bytes().splitlines(keepends=True)
    command = [str(HORIZON), "hook", "claude-code", "--hive", str(hive), "--bee", BEE]
    samples, passes = [], []
    with transcript.open("wb") as out:
        for line in lines:
            out.write(line)
            out.flush()
            if b'"tool_result"' not in line or len(samples) >= events:
                continue
            event = json.dumps({"hook_event_name": "PostToolUse", "tool_name": "Bash",
                                "tool_input": {}, "transcript_path": str(transcript),
                                "cwd": str(folder)}).encode()
            passes.append(timed([sys.executable, "-c", "pass"]) * 1000)
            samples.append(timed(command, event) * 1000)
    ordered = sorted(samples)
    return {"events": len(samples),
            "p50_ms": round(statistics.median(samples), 1),
            "p99_ms": round(ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))], 1),
            "python_pass_p50_ms": round(statistics.median(passes), 1)}


def import_cost(root: Path, megabytes: float, events: int, runs: int) -> dict[str, Any]:
    folder = root / "imports"
    folder.mkdir(parents=True)
    return {"import": import_speed(folder, megabytes, runs),
            "hook": hook_latency(folder, events)}


def import_rows(results: dict[str, Any]) -> list[dict[str, Any]]:
    imported, hook = results["import"], results["hook"]
    return [
        {"name": "import: a Claude Code transcript in a new process (MB/s)",
         "measured": imported["mb_per_s"], "target": ">= 20",
         "met": imported["mb_per_s"] >= 20},
        {"name": "import: peak RSS (MB)", "measured": imported["peak_rss_mb"],
         "target": "<= 100", "met": imported["peak_rss_mb"] <= 100},
        {"name": "hook: one event in a new process, p99 (ms)", "measured": hook["p99_ms"],
         "target": "<= 150", "met": hook["p99_ms"] <= 150},
    ]
