"""`horizon status`: daemon liveness from the heartbeat, and each bee at a glance."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter
from datetime import datetime
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from horizon.cli.common import load_config
from horizon.cli.exits import EXIT_DEGRADED, UserError
from horizon.core.blocks import net_overhead
from horizon.core.recit import render_recit
from horizon.core.settings import GlobalConfig, SettingsError
from horizon.hive.discovery import discover, unrecorded_segments
from horizon.hive.durable import JournalError, StoreError, read_regular
from horizon.hive.heartbeat import BEAT_S, Heartbeat, read_heartbeat
from horizon.hive.journal import segment_paths
from horizon.hive.layout import window_dir
from horizon.hive.lock import holder
from horizon.hive.manifest import read_manifest
from horizon.hive.settings_files import config_path, config_source, effective_settings
from horizon.hive.store import BeeState, StateTooNew, load_state
from horizon.service.logs import LOG_FILE

STALE_BEATS = 3
LOG_TAIL_BYTES = 256 * 1024


def pending_bytes(hive: Path, bee: str, state: BeeState | None) -> int:
    """Journal bytes written after the checkpoint: the lag, without reading them."""
    total = 0
    reached = state is None or not state.checkpoint.segment
    window = window_dir(hive)
    for path in segment_paths(window, bee, read_manifest(window, bee).segments()):
        try:
            size = os.stat(path, follow_symlinks=False).st_size
        except OSError:
            continue
        if reached:
            total += size
        elif state is not None and path.name == state.checkpoint.segment:
            total += max(0, size - state.checkpoint.offset)
            reached = True
    return total


def last_write_failure(log_file: Path, hive: Path, since: float) -> str | None:
    """The daemon's last `store.write_failed` for `hive` logged after `since` (the last
    beat) and not followed by a recovery: what the heartbeat cannot say when its own
    folder is the one failing."""
    try:
        data = read_regular(log_file) or b""
    except (OSError, JournalError):
        return None
    for line in reversed(data[-LOG_TAIL_BYTES:].splitlines()):
        try:
            event = json.loads(line)
            if event.get("hive") != str(hive):
                continue
            if datetime.fromisoformat(event["ts"].replace("Z", "+00:00")).timestamp() < since:
                return None
        except (ValueError, KeyError, TypeError, AttributeError):
            continue
        if event.get("event") == "store.recovered":
            return None
        if event.get("event") == "store.write_failed":
            return str(event.get("reason", "a derived write failed"))
    return None


def bee_report(hive: Path, bee: str, config: GlobalConfig, source: str,
               beat: Heartbeat | None) -> dict[str, Any]:
    window = window_dir(hive)
    report: dict[str, Any] = {"bee": bee}
    try:
        report["segments"] = len(segment_paths(window, bee,
                                               read_manifest(window, bee).segments()))
        state = load_state(hive, bee)
        lag_bytes = pending_bytes(hive, bee, state)
    except (StateTooNew, StoreError, JournalError, OSError) as error:
        report.update(error=str(error), degraded=True)
        return report
    try:
        effective = effective_settings(config, source, hive, bee)
        settings = effective.horizon
    except SettingsError as error:
        report.update(error=str(error), settings_error=True)
        settings = None
    report["lag_bytes"] = lag_bytes
    daemon_view = beat.bees.get(bee) if beat else None
    report["write_failed"] = bool(daemon_view and daemon_view.write_failed)
    if daemon_view and daemon_view.error:
        report.update(error=daemon_view.error, degraded=True)  # a refused bee or state
    if state is None:
        report.update(entries=0, rejected=0, up_to=0, derived=False)
        return report
    zones = state.zones
    sources = Counter(item.source for item in zones.condense)
    report.update(
        derived=True, entries=zones.accepted, rejected=zones.rejected, up_to=zones.up_to,
        level=zones.recit_level, mismatched_flags=state.mismatched_flags,
        summarizer={"recit": zones.recit_level, "condense": dict(sources),
                    "pending_folds": len(state.folds.batches), "fallbacks": state.fallbacks},
    )
    if settings is not None:
        report["mode"] = "horizon" if settings.actif else "handoff"
        if settings.actif:
            mission = effective.mission or zones.first_lighthouse
            report["zones"] = {
                "net": [net_overhead(bee) + zones.net_chars, settings.budget_net],
                "condense": [zones.condense_chars, settings.budget_condense],
                "recit": [len(render_recit(zones.recit, mission)), settings.budget_recit],
            }
    return report


def hive_report(hive: Path, config: GlobalConfig, source: str, now: float) -> dict[str, Any]:
    report: dict[str, Any] = {"hive": str(hive)}
    if not hive.is_dir():
        report.update(error="hive not found", degraded=False, bees=[])
        return report
    pid = holder(hive)
    beat = read_heartbeat(hive)
    daemon: dict[str, Any] = {"running": pid is not None, "pid": pid}
    degraded = False
    if pid is not None:
        age = None if beat is None else now - beat.beat_epoch
        daemon.update(
            beat_age_s=None if age is None else round(age, 1),
            version=beat.version if beat else None,
            watch=beat.watch if beat else None,
            started=beat.started if beat else None,
        )
        if age is None or age > STALE_BEATS * BEAT_S:
            daemon["stale"] = True
            degraded = True
        failure = last_write_failure(Path(config.log.dir) / LOG_FILE, hive,
                                     beat.beat_epoch if beat else 0.0)
        if failure is not None:
            daemon["write_failed"] = failure
            degraded = True
    bees, problems = discover(hive)
    unrecorded = unrecorded_segments(hive, bees)
    bee_reports = [bee_report(hive, bee, config, source, beat if pid else None) for bee in bees]
    # A refused bee, twin or segment degrades the hive: something is there and not served.
    degraded = (degraded or bool(problems) or bool(unrecorded)
                or any(b.get("write_failed") or b.get("degraded") for b in bee_reports))
    report.update(daemon=daemon, bees=bee_reports, problems=problems, unrecorded=unrecorded,
                  degraded=degraded)
    return report


def run(args: argparse.Namespace, config: GlobalConfig) -> int:
    path = config_path(args.config)
    source = config_source(path)
    hives = [args.hive] if args.hive else list(config.hives)
    if args.hive and not Path(args.hive).is_dir():
        raise UserError(f"hive not found: {args.hive} is not a folder")
    now = time.time()
    reports = [hive_report(Path(hive), config, source, now) for hive in hives]
    if args.json:
        print(json.dumps({"hives": reports}, ensure_ascii=False, indent=2))
    else:
        _print(reports)
    return EXIT_DEGRADED if any(r.get("degraded") for r in reports) else 0


def _print(reports: list[dict[str, Any]]) -> None:
    console = Console(highlight=False, width=None if sys.stdout.isatty() else 200)
    if not reports:
        console.print("no hive: name one, or list them in config.json under \"hives\"")
    for report in reports:
        daemon = report.get("daemon", {})
        if report.get("error"):
            console.print(f"[bold]{report['hive']}[/bold]: {report['error']}")
            continue
        if daemon.get("running"):
            state = "stale heartbeat" if daemon.get("stale") else "alive"
            line = f"daemon pid {daemon['pid']}, {state}"
            if daemon.get("beat_age_s") is not None:
                line += f", last beat {daemon['beat_age_s']} s ago"
        else:
            line = "no daemon running"
        console.print(f"[bold]{report['hive']}[/bold]: {line}")
        if daemon.get("write_failed"):
            console.print(f"  write failed: {daemon['write_failed']}")
        for problem in report.get("problems", []):
            console.print(f"  problem: {problem}")
        for segment in report.get("unrecorded", []):
            console.print(f"  unrecorded segment (never read; horizon adopt takes it in): "
                          f"{segment}")
        table = Table(show_edge=False, pad_edge=False)
        for column in ("bee", "mode", "entries", "rejected", "segments", "lag", "net",
                       "condensé", "récit", "summarizer", "notes"):
            table.add_column(column)
        for bee in report["bees"]:
            zones = bee.get("zones", {})

            def zone(name: str, zones: dict[str, list[int]] = zones) -> str:
                return f"{zones[name][0]}/{zones[name][1]}" if name in zones else "-"

            notes = []
            if bee.get("write_failed"):
                notes.append("write failed")
            if bee.get("mismatched_flags"):
                notes.append("flags no longer matching: " +
                             ", ".join(f"#{seq}" for seq in bee["mismatched_flags"]))
            if bee.get("error"):
                notes.append(bee["error"])
            if not bee.get("derived"):
                notes.append("not derived yet")
            table.add_row(bee["bee"], bee.get("mode", "-"), str(bee.get("entries", "-")),
                          str(bee.get("rejected", "-")), str(bee["segments"]),
                          f"{bee.get('lag_bytes', 0)} B", zone("net"), zone("condense"),
                          zone("recit"), _levels(bee), "; ".join(notes))
        console.print(table)


def _levels(bee: dict[str, Any]) -> str:
    """Which level wrote the current texts, and how often a model fell back."""
    summary = bee.get("summarizer")
    if not summary:
        return "-"
    condensed = ", ".join(f"{level}×{count}" for level, count in summary["condense"].items())
    text = f"récit {summary['recit']}"
    if condensed:
        text += f"; condensé {condensed}"
    if summary["fallbacks"]:
        text += f"; {summary['fallbacks']} fallbacks"
    return text


def command(args: argparse.Namespace) -> int:
    config, _ = load_config(args)
    return run(args, config)
