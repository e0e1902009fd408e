"""What `horizon demo` shows while it runs: each bee's zones against their budgets, the
whole handoff.md against its cap, and the daemon's last actions, one gauge a line so the
numbers stay whole at any terminal width."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from rich.console import Group, RenderableType
from rich.progress_bar import ProgressBar
from rich.table import Table
from rich.text import Text

from horizon.core.errors import SettingsError
from horizon.core.render import render
from horizon.core.settings import GlobalConfig
from horizon.core.text import counted
from horizon.hive.durable import StoreError
from horizon.hive.layout import handoff_path
from horizon.hive.settings_files import effective_settings
from horizon.hive.store import StateTooNew, load_state

EVENTS_MAX = 8
LOG_TAIL_BYTES = 8192
# The lines of the screen above the bees (title, status, the web view, a blank line) and
# between them and the events (a blank line, the events' title). The events take what is
# left of the terminal's height.
FRAME_LINES = 6


@dataclass(frozen=True)
class Gauge:
    """One measure against its limit: a zone against its budget, handoff.md against its cap."""

    label: str
    used: int
    limit: int
    limit_name: str = ""


@dataclass(frozen=True)
class BeeView:
    bee: str
    mode: str
    entries: int
    rejected: int
    gauges: tuple[Gauge, ...]
    note: str = ""
    memory: tuple[str, ...] = ()  # what the bee reads: the récit's sections, the newest entry


MEMORY_LINE = 72  # a section's first line, cut: the screen shows the shape, not the text
SIDE_BY_SIDE = 120  # columns from which the memory stands beside the gauges


def memory_of(text: str) -> tuple[str, ...]:
    """From the view as the bee reads it: each récit section with its first line, then
    the heading of the newest entry."""
    lines = text.splitlines()
    shown: list[str] = []
    for index, line in enumerate(lines):
        if line.startswith("### ") and not line.startswith("### #"):
            following = lines[index + 1] if index + 1 < len(lines) else ""
            if following.startswith("#"):  # an empty section
                following = "—"
            first = following.strip().removeprefix(">").strip().removeprefix("- ")
            if len(first) > MEMORY_LINE:
                first = first[:MEMORY_LINE - 1] + "…"
            shown.append(f"{line[4:]}: {first}" if first else line[4:])
    newest = next((line for line in reversed(lines) if line.startswith("### #")), None)
    if newest is not None:
        shown.append(f"newest: {newest[4:]}")
    return tuple(shown)


@dataclass(frozen=True)
class Event:
    ts: str
    bee: str
    name: str
    details: str


def read_bee(hive: Path, bee: str, config: GlobalConfig, source: str) -> BeeView:
    """The bee's zones (before the hard cut) and its handoff.md, against their limits; the
    limits show from the start, before the daemon has derived anything."""
    try:
        effective = effective_settings(config, source, hive, bee)
        state = load_state(hive, bee)
    except (SettingsError, StoreError, StateTooNew, OSError) as error:
        return BeeView(bee, "-", 0, 0, (), str(error))
    settings = effective.horizon
    mode = "horizon" if settings.actif else "handoff"
    try:
        text = handoff_path(hive, bee).read_text(encoding="utf-8")
    except OSError:
        text = ""
    size = len(text)
    total = Gauge("handoff.md", size, settings.cap, "cap" if settings.actif else "handoff_max")
    if state is None:
        zones: tuple[Gauge, ...] = ()
        if settings.actif:
            zones = (Gauge("net", 0, settings.budget_net),
                     Gauge("condensé", 0, settings.budget_condense),
                     Gauge("récit", 0, settings.budget_recit))
        return BeeView(bee, mode, 0, 0, (*zones, total), "not derived yet")
    held = state.zones
    if not settings.actif:
        return BeeView(bee, mode, held.accepted, held.rejected, (total,),
                       memory=memory_of(text))
    shown = render(held, bee, settings, effective.mission).zone_chars  # as injected
    return BeeView(bee, mode, held.accepted, held.rejected, (
        Gauge("net", shown["net"][1], settings.budget_net),
        Gauge("condensé", shown["condense"][1], settings.budget_condense),
        Gauge("récit", shown["recit"][1], settings.budget_recit),
        total,
    ), memory=memory_of(text))


def read_events(log_file: Path, count: int) -> list[Event]:
    """The daemon's last `count` log lines, read from the tail of its JSON log."""
    if count <= 0:
        return []
    try:
        with log_file.open("rb") as stream:
            stream.seek(max(0, log_file.stat().st_size - LOG_TAIL_BYTES))
            lines = stream.read().decode("utf-8", "replace").splitlines()[-count:]
    except OSError:
        return []
    events = []
    for line in lines:
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue  # the first line of the tail is usually cut
        if not isinstance(record, dict):
            continue
        details = ", ".join(f"{key}={value}" for key, value in record.items()
                            if key not in ("ts", "bee", "event", "hive", "level"))
        events.append(Event(str(record.get("ts", ""))[11:19], str(record.get("bee", "")),
                            str(record.get("event", "")), details))
    return events


def events_room(height: int, views: list[BeeView], width: int) -> int:
    """How many events fit under the bees in a terminal `height` lines tall."""
    used = FRAME_LINES
    for view in views:
        memory = len(view.memory) + 1 if view.memory else 0
        gauges = len(view.gauges)
        used += 1 + (max(gauges, memory) if width >= SIDE_BY_SIDE else gauges + memory)
    return max(0, min(EVENTS_MAX, height - used - 1))


def _gauges(view: BeeView) -> Table:
    grid = Table.grid(padding=(0, 1), expand=True)
    grid.add_column(no_wrap=True, min_width=2)
    grid.add_column(no_wrap=True, min_width=10)
    grid.add_column(ratio=1, min_width=4)
    grid.add_column(no_wrap=True, justify="right")
    for gauge in view.gauges:
        over = gauge.used > gauge.limit
        numbers = Text(f"{gauge.used}/{gauge.limit}", style="bold red" if over else "bold")
        if gauge.limit_name:
            numbers.append(f" {gauge.limit_name}", style="dim")
        bar = ProgressBar(total=max(gauge.limit, 1), completed=min(gauge.used, gauge.limit))
        grid.add_row("", gauge.label, bar, numbers)
    return grid


def _events(events: list[Event]) -> Table:
    grid = Table.grid(padding=(0, 1), expand=True)
    grid.add_column(no_wrap=True)
    grid.add_column(no_wrap=True)
    grid.add_column(no_wrap=True)
    grid.add_column(ratio=1, no_wrap=True, overflow="ellipsis")
    for event in events:
        grid.add_row(Text(event.ts, style="dim"), event.bee, event.name, event.details)
    return grid


def _memory(view: BeeView) -> Text:
    # One line each, cut at the edge: the screen's height is counted in lines.
    text = Text("what the bee reads", style="dim", no_wrap=True, overflow="ellipsis")
    for line in view.memory:
        text.append("\n")
        title, _, rest = line.partition(": ")
        text.append(title, style="bold")
        if rest:
            text.append(f": {rest}")
    return text


def screen(hive: Path, views: list[BeeView], events: list[Event], written: int,
           elapsed: float, width: int = 80, web: str | None = None) -> RenderableType:
    """The whole screen: title, status, the gauges of every bee with what it reads
    (beside them from SIDE_BY_SIDE columns, under them below), the last events."""
    title = Text("horizon demo ", style="bold", overflow="fold")
    title.append(str(hive), style="")
    status = Text(f"{elapsed:.0f} s, {written} exchanges written; Ctrl-C stops the demo",
                  style="dim")
    parts: list[RenderableType] = [title, status]
    if web is not None:
        parts.append(Text(f"web view: {web}", style="dim"))
    parts.append(Text(""))
    for view in views:
        heading = Text(view.bee, style="bold")
        heading.append(f"  {view.mode}  {counted(view.entries, 'entry', 'entries')}, "
                       f"{view.rejected} rejected")
        if view.note:
            heading.append(f"  ({view.note})", style="yellow")
        if not view.memory:
            parts += [heading, _gauges(view)]
        elif width >= SIDE_BY_SIDE:
            beside = Table.grid(padding=(0, 2), expand=True)
            beside.add_column(ratio=1)
            beside.add_column(ratio=1)
            beside.add_row(_gauges(view), _memory(view))
            parts += [heading, beside]
        else:
            parts += [heading, _gauges(view), _memory(view)]
    parts += [Text(""), Text("dernières actions du démon", style="bold"), _events(events)]
    return Group(*parts)
