"""What the web view's pages show, read from the derived files and journals. Everything
here reads; the text it returns is hostile and is escaped by the templates."""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from msgspec import UNSET

from horizon.cli.common import derived_settings
from horizon.cli.exits import EXIT_DEGRADED, EXIT_PROBLEM, UserError
from horizon.cli.safe_text import printable
from horizon.cli.status import hive_report
from horizon.core.entries import Rejection
from horizon.core.recall import Shown
from horizon.core.render import render
from horizon.core.reports import BeeReport, HiveReport, known
from horizon.core.settings import Effective, GlobalConfig
from horizon.core.view import Summary, View
from horizon.engine.bee_engine import BeeEngine
from horizon.engine.recall import Showing, find_line
from horizon.engine.recall import show as show_entries
from horizon.engine.stepping import settings_key
from horizon.hive.discovery import file_signature, require_bee
from horizon.hive.flags import read_flags
from horizon.hive.layout import (
    archive_dir,
    handoff_path,
    live_path,
    manifest_path,
    window_dir,
)
from horizon.hive.store import load_state, read_handoff
from horizon.summarize.cache import hive_cache

ZONE_LABELS = {"recit": "récit", "condense": "condensé", "net": "net"}
ENTRY_MAX_CHARS = 20_000


COMPUTED_KEPT = 8  # views computed in memory for bees with nothing derived, kept


@dataclass(frozen=True)
class Site:
    """What the server serves: its hives in a fixed order (a hive's page is its index)."""

    config: GlobalConfig
    source: str
    broken_config: str | None
    hives: tuple[Path, ...]
    # A bee with nothing derived has its view computed from its whole history: once per
    # history and settings, one at a time, not once per request (requests arriving
    # together each held a whole history in memory and a core busy).
    computed: dict[tuple[object, ...], View] = field(default_factory=dict, compare=False)
    computing: threading.Lock = field(default_factory=threading.Lock, compare=False)

    def computed_view(self, hive: Path, bee: str, effective: Effective) -> View:
        window = window_dir(hive)
        # The minute too: as time passes, exchanges age out of net.
        key = (hive, bee, settings_key(effective, read_flags(hive, bee)), int(time.time() // 60),
               file_signature(live_path(window, bee)),
               file_signature(manifest_path(window, bee)), file_signature(archive_dir(window)))
        with self.computing:
            view = self.computed.get(key)
            if view is None:
                engine = BeeEngine(hive, bee, self.config, effective,
                                   cache=hive_cache(hive, create=False), writes=False)
                now = time.time()
                view = engine.current_view(now, now)
                if len(self.computed) >= COMPUTED_KEPT:
                    del self.computed[next(iter(self.computed))]
                self.computed[key] = view
            return view

    def hive(self, index: int) -> Path:
        if not 0 <= index < len(self.hives):
            raise UserError(f"no hive number {index}: this server serves {len(self.hives)}")
        return self.hives[index]


@dataclass(frozen=True)
class Bar:
    """A zone's chars before the hard cut and as injected, against its budget."""

    zone: str
    before: int
    after: int
    budget: int

    @property
    def label(self) -> str:
        return ZONE_LABELS.get(self.zone, self.zone)

    def width(self, chars: int) -> str:
        """The share of the budget `chars` fills, for an SVG width (at most the whole)."""
        return f"{min(100.0, 100.0 * chars / self.budget) if self.budget else 0.0:.2f}"

    @property
    def over(self) -> bool:
        return self.before > self.budget


def bars(bee: BeeReport) -> list[Bar]:
    """From a status report's `zones` (horizon mode), else the whole view against its cap."""
    zones = known(bee.zones, {})
    if zones:
        return [Bar(name, zones[name].before, zones[name].after, zones[name].budget)
                for name in ("recit", "condense", "net") if name in zones]
    if bee.chars is not UNSET and bee.cap is not UNSET:
        return [Bar("handoff", bee.chars, bee.chars, bee.cap)]
    return []


@dataclass
class HiveLine:
    index: int
    path: Path
    found: bool
    daemon_pid: int | None = None
    bees: int = 0
    health: str = "not found"  # healthy, degraded or no daemon: `status`'s verdict
    reasons: list[str] = field(default_factory=list)


def hive_lines(site: Site) -> list[HiveLine]:
    """The home page: each hive, whether a daemon serves it, how many bees it has, and
    the verdict `status` gives it with why."""
    lines = []
    for index, hive in enumerate(site.hives):
        if not hive.is_dir():
            lines.append(HiveLine(index, hive, found=False))
            continue
        report = hive_report(hive, site.config, site.source, time.time(), site.broken_config)
        pid = report.daemon.pid if report.daemon else None
        lines.append(HiveLine(index, hive, True, pid, len(report.bees), verdict(report),
                              health_reasons(report)))
    return lines


def verdict(report: HiveReport) -> str:
    if report.exit == EXIT_PROBLEM:
        return "no daemon"
    return "degraded" if report.exit == EXIT_DEGRADED else "healthy"


def health_reasons(report: HiveReport) -> list[str]:
    """Why a hive is degraded, each reason once (a settings error many bees share is one)."""
    daemon = report.daemon
    reasons = []
    if daemon and daemon.stale:
        reasons.append("the daemon's heartbeat is stale")
    if daemon and daemon.write_failed:
        reasons.append(f"a derived write failed: {daemon.write_failed}")
    reasons += [f"problem: {problem}" for problem in known(report.problems, [])]
    if report.unrecorded:
        reasons.append(f"{len(report.unrecorded)} unrecorded segment(s)")
    for bee in report.bees:
        if bee.settings_error:
            reasons.append(f"settings rejected: {bee.settings_error}")
        if bee.write_failed:
            reasons.append(f"{bee.bee}: a derived write failed")
        if bee.rotation_failed:
            reasons.append(f"{bee.bee}: rotation failed: {bee.rotation_failed}")
        if bee.missing_segments:
            reasons.append(f"{bee.bee}: archive segments gone: "
                           + ", ".join(bee.missing_segments))
        if bee.error:
            reasons.append(f"{bee.bee}: {bee.error}")
    return list(dict.fromkeys(reasons))


@dataclass
class HivePage:
    """A hive's report as `status --json` gives it, each bee's bars (in the report's
    order), and the verdict with its reasons."""

    report: HiveReport
    bars: list[list[Bar]]
    health: str
    reasons: list[str]


def hive_page(site: Site, index: int) -> HivePage:
    hive = site.hive(index)
    report = hive_report(hive, site.config, site.source, time.time(), site.broken_config)
    return HivePage(report, [bars(bee) for bee in report.bees], verdict(report),
                    health_reasons(report))


@dataclass
class BeePage:
    """A bee's view as it reads it, and what made it."""

    index: int
    hive: Path
    bee: str
    text: str  # handoff.md exactly, or the view computed in memory when none is derived
    summary: Summary
    bars: list[Bar]
    derived: bool
    effective: Effective  # the bee's settings now (the view may predate them)
    warnings: list[str] = field(default_factory=list)



def bee_settings(site: Site, hive: Path, bee: str) -> tuple[Effective, str | None]:
    return derived_settings(site.config, site.source, hive, bee, site.broken_config)


def view_bars(view: View, effective: Effective) -> list[Bar]:
    settings = effective.horizon
    if settings.actif:
        return [Bar(zone, before, after, settings.budgets[zone])
                for zone in ("recit", "condense", "net")
                for before, after in [view.zone_chars.get(zone, (0, 0))]]
    chars = view.summary["chars"]
    return [Bar("handoff", chars, chars, settings.cap)]


def bee_page(site: Site, index: int, bee_name: str) -> BeePage:
    """The view as the daemon derived it, rendered from its state with the settings that
    made it (handoff.md's text); computed in memory only when nothing is derived yet."""
    hive = site.hive(index)
    bee = require_bee(hive, bee_name)
    effective, broken = bee_settings(site, hive, bee)
    warnings = [broken] if broken is not None else []
    state = load_state(hive, bee)
    if state is not None:
        made_with = state.settings or effective
        view = render(state.zones, bee, made_with.horizon, made_with.mission)
        if state.settings_key != settings_key(effective, read_flags(hive, bee)):
            warnings.append("the settings changed since this view was made: the daemon "
                            "rebuilds it with them at its next pass")
    else:
        made_with = effective
        view = site.computed_view(hive, bee, effective)
        warnings.append("nothing derived yet: this view is computed in memory from the "
                        "journal")
    on_disk = read_handoff(hive, bee)
    if state is not None and on_disk is not None and on_disk != view.text:
        warnings.append("handoff.md differs from the derived state (a write in progress?): "
                        "the text below is the file's")
    return BeePage(index, hive, bee, on_disk if on_disk is not None else view.text,
                   view.summary, view_bars(view, made_with), on_disk is not None, effective,
                   warnings)


def handoff_signature(site: Site, index: int, bee: str) -> tuple[int, int, int] | None:
    """What tells the live page that handoff.md changed (it is replaced, never edited)."""
    return file_signature(handoff_path(site.hive(index), bee))


@dataclass
class EntryPage:
    index: int
    hive: Path
    bee: str
    seq: int
    shown: Shown | None
    problems: list[str]
    offset: int
    max_chars: int
    raw: str | None = None  # a rejected line's bytes, escaped and capped


def entry_page(site: Site, index: int, bee_name: str, seq: int, offset: int = 0) -> EntryPage:
    hive = site.hive(index)
    bee = require_bee(hive, bee_name)
    effective, _ = bee_settings(site, hive, bee)
    showing: Showing = show_entries(hive, bee, [seq], site.config.max_line_bytes,
                                    lighthouses=effective.horizon,
                                    max_chars=ENTRY_MAX_CHARS, offset=offset)
    shown = showing.shown[0] if showing.shown else None
    raw = None
    if shown is None and any("was rejected" in problem for problem in showing.problems):
        record, found = find_line(hive, bee, seq, site.config.max_line_bytes)
        if isinstance(record, Rejection):
            raw = escaped_raw(found) if found is not None else "(longer than max_line_bytes)"
    return EntryPage(index, hive, bee, seq, shown, showing.problems, offset, ENTRY_MAX_CHARS,
                     raw)


RAW_MAX_BYTES = 4096  # of a rejected line, on its page


def escaped_raw(raw: bytes) -> str:
    """A rejected line as a person can read it safely: UTF-8 where it is, every other
    byte and every control or bidi character as an escape, cut at RAW_MAX_BYTES."""
    cut = raw[:RAW_MAX_BYTES]
    text = printable(cut.decode("utf-8", "backslashreplace"))
    if len(raw) > RAW_MAX_BYTES:
        text += f" … ({len(raw) - RAW_MAX_BYTES} more bytes)"
    return text


def listing(hives: list[str]) -> tuple[Path, ...]:
    """Hives named as the daemon names them (absolute, normalised), each once."""
    seen: dict[str, Path] = {}
    for hive in hives:
        name = os.path.normpath(os.path.abspath(hive))
        seen.setdefault(name, Path(name))
    return tuple(seen.values())
