"""Where `horizon top` gets its numbers: `status`'s reports (each bee's remembered while
its files stay the same), the heartbeats it has seen, and the daemon's `/metrics`."""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from horizon.cli.common import load_config_for_view
from horizon.cli.exits import UserError
from horizon.cli.status import bee_files_report, hive_report, served_hives
from horizon.cli.status_text import bee_notes
from horizon.cli.top_metrics import Metrics, metrics_url
from horizon.cli.top_screen import HiveHeader, HiveView
from horizon.cli.top_view import BeeRow, Zone, rate
from horizon.core.reports import BeeReport, HiveReport, known
from horizon.core.settings import GlobalConfig
from horizon.hive.discovery import file_signature
from horizon.hive.heartbeat import Heartbeat, read_heartbeat
from horizon.hive.layout import (
    bee_settings_path,
    hive_settings_path,
    live_path,
    manifest_path,
    state_path,
    window_dir,
)
from horizon.hive.settings_files import config_path

ALERTS_MAX = 4

Signature = tuple[tuple[int, int, int] | None, ...]


# --- the heartbeats ------------------------------------------------------------------------


def pass_rate(older: Heartbeat, newer: Heartbeat, bee: str) -> float | None:
    """The bee's passes per second between two beats of the same daemon; None when it is
    not in both or the daemon restarted (its count started again)."""
    span = newer.beat_epoch - older.beat_epoch
    before, after = older.bees.get(bee), newer.bees.get(bee)
    if (before is None or after is None or span <= 0 or after.passes < before.passes
            or (older.pid, older.started) != (newer.pid, newer.started)):
        return None
    return (after.passes - before.passes) / span


@dataclass
class Beats:
    """The two latest distinct heartbeats of a hive seen so far."""

    older: Heartbeat | None = None
    newer: Heartbeat | None = None

    def see(self, beat: Heartbeat | None) -> None:
        if beat is not None and (self.newer is None
                                 or beat.beat_epoch != self.newer.beat_epoch):
            self.older, self.newer = self.newer, beat

    def rate(self, bee: str) -> float | None:
        if self.older is None or self.newer is None:
            return None
        return pass_rate(self.older, self.newer, bee)


# --- status's reports, remembered ----------------------------------------------------------


def bee_signature(hive: Path, bee: str) -> Signature:
    """What a bee's report is made of: its state, its settings, its manifest and live
    journal (the lag). The same signature, the same report."""
    window = window_dir(hive)
    return tuple(file_signature(path) for path in (
        state_path(hive, bee), bee_settings_path(hive, bee), hive_settings_path(hive),
        manifest_path(window, bee), live_path(window, bee)))


@dataclass
class Reports:
    """`bee_files_report` for `hive_report`, made again only for a bee whose files
    changed: an unchanged bee costs a few stats, whatever the size of its state."""

    config: GlobalConfig
    source: str
    broken: str | None
    remembered: dict[tuple[Path, str], tuple[Signature, BeeReport]] = field(
        default_factory=dict)
    asked: set[tuple[Path, str]] = field(default_factory=set)

    def __call__(self, hive: Path, bee: str) -> BeeReport:
        signature = bee_signature(hive, bee)
        self.asked.add((hive, bee))
        remembered = self.remembered.get((hive, bee))
        if remembered is not None and remembered[0] == signature:
            return remembered[1]
        report = bee_files_report(hive, bee, self.config, self.source, self.broken)
        self.remembered[(hive, bee)] = (signature, report)
        return report

    def state_mtime(self, hive: Path, bee: str) -> float | None:
        remembered = self.remembered.get((hive, bee))
        state = remembered[0][0] if remembered is not None else None
        return state[2] / 1e9 if state is not None else None

    def forget_unasked(self) -> None:
        """Bees gone since the last refresh are forgotten."""
        self.remembered = {key: value for key, value in self.remembered.items()
                           if key in self.asked}
        self.asked = set()


# --- one refresh ---------------------------------------------------------------------------


def bee_row(report: BeeReport, *, now: float, last_pass: float | None,
            passes_per_s: float | None, lag_s: float | None) -> BeeRow:
    """A bee's row from its `status` report and what top adds to it."""
    zones = tuple(Zone(name, zone.before, zone.after, zone.budget)
                  for name, zone in known(report.zones, {}).items())
    notes = bee_notes(report)
    fill = max((zone.after / zone.budget for zone in zones), default=0.0)
    if report.mode == "handoff":
        chars, cap = known(report.chars, 0), known(report.cap, 0)
        notes.insert(0, f"handoff mode {chars}/{cap}")
        fill = chars / cap if cap else 0.0
    summarizer = report.summarizer
    return BeeRow(
        bee=report.bee, degraded=bool(report.degraded or report.write_failed),
        entries=known(report.entries, None), rejected=known(report.rejected, None),
        zones=zones, fill=fill, lag_lines=known(report.lag_lines, None), lag_s=lag_s,
        last_pass_age=None if last_pass is None else now - last_pass,
        level=known(summarizer.in_use, None) if summarizer else None,
        passes_per_s=passes_per_s, notes="; ".join(notes))


def alerts(report: HiveReport) -> tuple[str, ...]:
    """What `status` says under the hive's line, in its order, at most ALERTS_MAX lines."""
    daemon = report.daemon
    found = ([f"write failed: {daemon.write_failed}"] if daemon and daemon.write_failed
             else [])
    found += sorted({f"settings rejected: {bee.settings_error}"
                     for bee in report.bees if bee.settings_error})
    found += [f"problem: {problem}" for problem in known(report.problems, [])]
    if report.unrecorded:
        found.append(f"{len(report.unrecorded)} unrecorded segments (never read; "
                     "horizon adopt takes them in)")
    found = [line.replace(f"{report.hive}/", "") for line in found]
    if len(found) > ALERTS_MAX:
        found = [*found[:ALERTS_MAX - 1], f"… {len(found) - ALERTS_MAX + 1} more"]
    return tuple(found)


class Sampler:
    """Each refresh's hives and rows, from config.json (read again when it changes), the
    reports, the heartbeats and /metrics."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.path = config_path(args.config)
        self.signature = self._config_signature()
        self.reports = Reports(*load_config_for_view(args))
        self.asked = [os.path.normpath(os.path.abspath(hive)) for hive in args.hives]
        for hive in self.asked:
            if not Path(hive).is_dir():
                raise UserError(f"hive not found: {hive} is not a folder")
        if not self.hives():
            raise UserError("no hive to show: name one (horizon top HIVE), or list them "
                            "under \"hives\" in config.json")
        self.beats: dict[str, Beats] = {}
        self.metrics: Metrics | None = None
        self._follow_metrics()

    def _config_signature(self) -> tuple[int, int, int] | None:
        return file_signature(self.path) if self.path is not None else None

    def _follow_metrics(self) -> None:
        address = self.reports.config.metrics_address()
        url = metrics_url(address) if address is not None else None
        if self.metrics is not None and self.metrics.url != url:
            self.metrics.close()
            self.metrics = None
        if url is not None and self.metrics is None:
            self.metrics = Metrics(url)

    def hives(self) -> list[str]:
        """As the daemon names them (absolute, normalised), so /metrics' labels match."""
        listed: Sequence[str] = self.reports.config.hives
        if not listed and self.reports.broken is not None:
            listed = served_hives(self.args)  # what a broken config.json no longer says
        return self.asked or [os.path.normpath(os.path.abspath(hive)) for hive in listed]

    def reload(self) -> None:
        """config.json again when it changed; its error, if any, shows on the screen."""
        signature = self._config_signature()
        if signature == self.signature:
            return
        self.signature = signature
        try:
            loaded = load_config_for_view(self.args, quiet=True)
        except UserError as error:  # gone: the last one read goes on serving
            loaded = (self.reports.config, self.reports.source, str(error))
        self.reports = Reports(*loaded)
        self._follow_metrics()

    def title(self) -> str:
        clock = time.strftime("%H:%M:%S")
        if self.metrics is None:
            return f"horizon top · {clock}"
        if self.metrics.last is None:
            return f"horizon top · {clock} · metrics: unreachable"
        return f"horizon top · {clock} · metrics: {rate(self.metrics.passes_per_s())} passes/s"

    def sample(self) -> list[HiveView]:
        self.reload()
        now = time.time()
        if self.metrics is not None:
            self.metrics.scrape(time.monotonic())
        views = [self._hive(hive, now) for hive in self.hives()]
        self.reports.forget_unasked()
        return views

    def _hive(self, hive: str, now: float) -> HiveView:
        reports = self.reports
        report = hive_report(Path(hive), reports.config, reports.source, now, reports.broken,
                             files_report=reports)
        daemon = report.daemon
        if report.error or not daemon:
            return HiveView(HiveHeader(hive, error=known(report.error, "no report")), ())
        beats = self.beats.setdefault(hive, Beats())
        beat = read_heartbeat(Path(hive)) if daemon.running else None
        beats.see(beat)
        scraped = self.metrics.last if self.metrics is not None else None
        rows = []
        for bee in report.bees:
            name = bee.bee
            health = beat.bees.get(name) if beat is not None else None
            passes = [health.last_pass if health is not None else None,
                      reports.state_mtime(Path(hive), name)]
            last = max((moment for moment in passes if moment is not None), default=None)
            lag = scraped.lag_s.get((hive, name)) if scraped is not None else None
            rows.append(bee_row(bee, now=now, last_pass=last, passes_per_s=beats.rate(name),
                                lag_s=known(bee.lag_s, None) if lag is None else lag))
        header = HiveHeader(hive, pid=daemon.pid, stale=bool(daemon.stale),
                            beat_age_s=known(daemon.beat_age_s, None), alerts=alerts(report))
        # /metrics counts the passes of every hive its daemon serves: they are this hive's
        # only when it is the one hive config.json gives that daemon.
        served = [os.path.normpath(os.path.abspath(one)) for one in reports.config.hives]
        if scraped is not None and self.metrics is not None and served == [hive]:
            return HiveView(replace(header, passes_per_s=self.metrics.passes_per_s(),
                                    rate_source="metrics"), tuple(rows))
        rates = [row.passes_per_s for row in rows if row.passes_per_s is not None]
        header = replace(header, passes_per_s=sum(rates) if rates else None)
        return HiveView(header, tuple(rows))

    def close(self) -> None:
        if self.metrics is not None:
            self.metrics.close()

