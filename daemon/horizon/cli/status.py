"""`horizon status`: daemon liveness from the heartbeat, and each bee at a glance."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from datetime import datetime
from functools import partial
from pathlib import Path

import msgspec
from msgspec import UNSET

from horizon.cli.common import load_config_for_view
from horizon.cli.exits import (
    EXIT_DEGRADED,
    EXIT_OK,
    EXIT_PROBLEM,
    UserError,
    closed_stdout_is_fine,
)
from horizon.cli.safe_text import json_text, printable
from horizon.cli.status_text import print_reports
from horizon.core.errors import JournalError, SettingsError
from horizon.core.render import render
from horizon.core.reports import (
    BeeReport,
    DaemonReport,
    HiveReport,
    StatusReport,
    SummarizerReport,
    ZoneReport,
    known,
)
from horizon.core.settings import Effective, GlobalConfig, unavailable_levels
from horizon.core.summarizer import TRUNCATION
from horizon.core.zone_state import Zones
from horizon.hive import served
from horizon.hive.discovery import discover, unrecorded_segments
from horizon.hive.durable import StoreError, open_regular
from horizon.hive.heartbeat import BEAT_S, Heartbeat, read_heartbeat
from horizon.hive.journal import segment_paths
from horizon.hive.layout import window_dir
from horizon.hive.lock import holder
from horizon.hive.manifest import missing_segments, recorded_segments
from horizon.hive.settings_files import config_path, effective_settings
from horizon.hive.store import BeeState, StateTooNew, load_state
from horizon.service.logs import LOG_FILE

STALE_BEATS = 3
LOG_TAIL_BYTES = 256 * 1024
LAG_COUNT_BYTES = 64 << 20  # lines behind are counted up to this much; beyond, unknown


def unread(paths: list[Path], state: BeeState | None) -> Iterator[tuple[Path, int]]:
    """Each segment from the checkpoint's on, with the offset reading resumes at."""
    reached = state is None or not state.checkpoint.segment
    for path in paths:
        if reached:
            yield path, 0
        elif state is not None and path.name == state.checkpoint.segment:
            reached = True
            yield path, state.checkpoint.offset


def pending_bytes(paths: list[Path], state: BeeState | None) -> int:
    """Journal bytes written after the checkpoint: the lag, without reading them."""
    total = 0
    for path, start in unread(paths, state):
        try:
            total += max(0, os.stat(path, follow_symlinks=False).st_size - start)
        except OSError:
            continue
    return total


def last_write_failure(log_file: Path, hive: Path, since: float) -> str | None:
    """The daemon's last `store.write_failed` for `hive` logged after `since` (the last
    beat) and not followed by a recovery: what the heartbeat cannot say when its own
    folder is the one failing."""
    try:
        fd = open_regular(log_file)
    except JournalError:
        return None
    try:  # its tail only: a log may be gigabytes long
        size = os.fstat(fd).st_size
        data = os.pread(fd, LOG_TAIL_BYTES, max(0, size - LOG_TAIL_BYTES))
    except OSError:
        return None
    finally:
        os.close(fd)
    for line in reversed(data.splitlines()):
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


def pending_lines(hive: Path, paths: list[Path], state: BeeState | None, limit: int
                  ) -> int | None:
    """Complete lines written after the checkpoint, counted in the bytes after it (at
    most `limit` of them: beyond, None)."""
    lines = 0
    budget = limit
    for path, start in unread(paths, state):
        try:
            fd = open_regular(path, under=hive)
        except JournalError:
            continue  # absent meanwhile (rotated), or refused: the bee reports it
        try:
            data = os.pread(fd, budget + 1, start)
        finally:
            os.close(fd)
        if len(data) > budget:
            return None
        lines += data.count(b"\n")
        budget -= len(data)
    return lines


def bee_files_report(hive: Path, bee: str, config: GlobalConfig, source: str,
                     broken_config: str | None = None) -> BeeReport:
    """A bee's report from its files alone; `with_beat` adds what the heartbeat says.
    `lag_s` and `write_failed` hold their places, unknown until then."""
    window = window_dir(hive)
    report = BeeReport(bee=bee)
    try:
        paths = segment_paths(window, bee, recorded_segments(window, bee))
        missing = missing_segments(window, bee)
        report.segments = len(paths)
        report.missing_segments = missing
        if missing:  # lines lost from the history: an operator must know
            report.degraded = True
        state = load_state(hive, bee)
        lag_bytes = pending_bytes(paths, state)
        lag_lines = pending_lines(hive, paths, state, LAG_COUNT_BYTES)
    except (StateTooNew, StoreError, JournalError, OSError) as error:
        report.error = str(error)
        report.degraded = True
        return report
    effective: Effective | None = None
    try:
        if broken_config is not None:
            raise SettingsError(broken_config, "(file)", "rejected")
        effective = effective_settings(config, source, hive, bee)
    except SettingsError as error:
        report.settings_error = broken_config or str(error)
        report.degraded = True
        if state is not None and state.settings is not None:
            effective = state.settings  # what the daemon serves meanwhile: its last good
            report.settings_in_use = "last good"
            report.settings = effective.horizon
    report.lag_bytes, report.lag_lines = lag_bytes, lag_lines
    report.lag_s, report.write_failed = None, False
    summarizer = (summarizer_report(config, effective, broken_config is None)
                  if effective is not None else SummarizerReport())
    if state is None:
        if effective is not None:
            report.summarizer = summarizer
        report.entries, report.rejected, report.up_to, report.derived = 0, 0, 0, False
        return report
    zones = state.zones
    report.derived = True
    report.entries, report.rejected, report.up_to = zones.accepted, zones.rejected, zones.up_to
    report.rejections, report.last_rejected = dict(zones.rejections), zones.last_rejected
    report.bad_field, report.mismatched_flags = zones.bad_fields, state.mismatched_flags
    summarizer.recit = zones.recit_level
    summarizer.condense = dict(Counter(item.source for item in zones.condense))
    summarizer.pending_folds = len(state.folds.batches)
    summarizer.fallbacks = state.fallbacks
    report.summarizer = summarizer
    if effective is not None:
        add_view_report(report, bee, zones, effective)
    return report


def with_beat(report: BeeReport, beat: Heartbeat | None) -> BeeReport:
    """A new report: `report` (from `bee_files_report`, left as it is) with the bee's lag in
    seconds, failed write and refusal as the daemon's heartbeat says them."""
    if report.lag_bytes is UNSET:
        return report  # its files could not be read: the heartbeat adds nothing
    daemon_view = beat.bees.get(report.bee) if beat else None
    merged = msgspec.structs.replace(
        report, lag_s=daemon_view.lag_s if daemon_view else None,
        write_failed=bool(daemon_view and daemon_view.write_failed))
    if daemon_view and daemon_view.error:  # a refused bee or state
        merged.error, merged.degraded = daemon_view.error, True
    if daemon_view and daemon_view.rotation_failed:
        merged.rotation_failed, merged.degraded = daemon_view.rotation_failed, True
    return merged


def summarizer_report(config: GlobalConfig, effective: Effective,
                      config_known: bool = True) -> SummarizerReport:
    """The levels the settings ask for, the ones that can run, and why the others cannot
    (unknown while config.json, where providers are, is rejected)."""
    unusable = unavailable_levels(config, effective) if config_known else {}
    return SummarizerReport(
        asked=effective.horizon.resumeur, levels=list(effective.levels),
        in_use=effective.levels[0] if effective.levels else TRUNCATION, unavailable=unusable)


def add_view_report(report: BeeReport, bee: str, zones: Zones, effective: Effective) -> None:
    """Each zone's chars against its budget, before the hard cut and as injected."""
    settings = effective.horizon
    view = render(zones, bee, settings, effective.mission)
    summary = view.summary
    report.mode = "horizon" if settings.actif else "handoff"
    report.chars, report.cap, report.cut = summary["chars"], settings.cap, len(summary["cut"])
    if settings.actif:
        report.zones = {zone: ZoneReport(before, after, settings.budgets[zone])
                        for zone, (before, after) in view.zone_chars.items()}


def hive_report(hive: Path, config: GlobalConfig, source: str, now: float,
                broken_config: str | None = None,
                files_report: Callable[[Path, str], BeeReport] | None = None
                ) -> HiveReport:
    """One hive's report, with its `exit`: 1 missing or served by no daemon, 3 degraded,
    0 healthy. `files_report(hive, bee)` stands in for `bee_files_report` (`top` passes
    one that remembers unchanged bees)."""
    if not hive.is_dir():
        return HiveReport(hive=str(hive), error="hive not found", exit=EXIT_PROBLEM)
    pid = holder(hive)
    beat = read_heartbeat(hive)
    daemon = DaemonReport(running=pid is not None, pid=pid)
    degraded = False
    if pid is not None:
        age = None if beat is None else now - beat.beat_epoch
        daemon.beat_age_s = None if age is None else round(age, 1)
        daemon.version = beat.version if beat else None
        daemon.watch = beat.watch if beat else None
        daemon.started = beat.started if beat else None
        if age is None or age > STALE_BEATS * BEAT_S:
            daemon.stale = True
            degraded = True
        log_file = (beat.log_file if beat and beat.log_file
                    else str(Path(config.log.dir) / LOG_FILE))
        failure = last_write_failure(Path(log_file), hive,
                                     beat.beat_epoch if beat else 0.0)
        if failure is not None:
            daemon.write_failed = failure
            degraded = True
    bees, problems = discover(hive)
    unrecorded = unrecorded_segments(hive, bees)
    if files_report is None:
        files_report = partial(bee_files_report, config=config, source=source,
                               broken_config=broken_config)
    bee_reports = [with_beat(files_report(hive, bee), beat if pid else None) for bee in bees]
    # A refused bee, twin or segment degrades the hive: something is there and not served.
    degraded = (degraded or bool(problems) or bool(unrecorded) or broken_config is not None
                or any(b.write_failed is True or b.degraded is True for b in bee_reports))
    exit_code = EXIT_PROBLEM if pid is None else EXIT_DEGRADED if degraded else EXIT_OK
    return HiveReport(hive=str(hive), daemon=daemon, bees=bee_reports, problems=problems,
                      unrecorded=unrecorded, degraded=degraded, exit=exit_code)


def served_hives(args: argparse.Namespace) -> list[str]:
    """The hives a daemon running on this config.json says it serves: what a broken
    config.json no longer tells."""
    path = config_path(args.config)
    found = served.read_served(path) if path is not None else None
    return found.hives if found is not None else []


def worst(exits: list[int]) -> int:
    """Across hives: a problem, then degraded, then healthy."""
    for code in (EXIT_PROBLEM, EXIT_DEGRADED):
        if code in exits:
            return code
    return EXIT_OK


def run(args: argparse.Namespace, config: GlobalConfig, source: str,
        broken_config: str | None = None) -> int:
    if args.hive and not Path(args.hive).is_dir():
        raise UserError(f"hive not found: {args.hive} is not a folder")
    # As the daemon names them (absolute, normalised), so its log lines match.
    listed = [args.hive] if args.hive else config.hives
    if not listed and broken_config is not None:
        listed = served_hives(args)
    hives = [os.path.normpath(os.path.abspath(hive)) for hive in listed]
    if not hives:
        where = "config.json rejected" if broken_config else "none configured"
        raise UserError(f"no hive to report on: name one (horizon status HIVE), or list "
                        f"them under \"hives\" in config.json ({where})")
    now = time.time()
    reports = [hive_report(Path(hive), config, source, now, broken_config) for hive in hives]
    with closed_stdout_is_fine():  # `status | head -1` still exits with the hives' code
        if args.json:
            print(json_text(msgspec.to_builtins(StatusReport(reports))))
        else:
            print_reports(reports)
    for report in reports:  # what pages an operator, said where scripts look for it
        if report.exit == EXIT_PROBLEM:
            problem = known(report.error, "no daemon serves it")
            print(printable(f"horizon: {report.hive}: {problem}"), file=sys.stderr)
    return worst([report.exit for report in reports])


def command(args: argparse.Namespace) -> int:
    config, source, broken = load_config_for_view(args)
    return run(args, config, source, broken)
