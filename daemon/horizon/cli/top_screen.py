"""The screen `horizon top` draws from its rows: a title, each hive's header line and
table, the keys. Pure: what it draws depends only on its arguments."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.cells import cell_len
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from horizon.cli.top_view import BeeRow, Controls, Fitted, age, clip, fit, rate, shown
from horizon.core.text import counted

PATH_MIN = 14


@dataclass(frozen=True)
class HiveHeader:
    """What the hive's header line says: its daemon, its beat, what is wrong with it."""

    hive: str
    error: str | None = None  # the hive cannot be read at all
    pid: int | None = None
    stale: bool = False
    beat_age_s: float | None = None
    passes_per_s: float | None = None
    rate_source: str = "heartbeats"
    alerts: tuple[str, ...] = ()  # one line each: rejected settings, refused files, ...


@dataclass(frozen=True)
class HiveView:
    header: HiveHeader
    rows: tuple[BeeRow, ...]


def header_line(view: HiveView, width: int) -> str:
    """The hive, its daemon, its last beat and its totals; in short words when the long
    ones would leave the path less than PATH_MIN cells."""
    header = view.header
    if header.error is not None:
        return clip(f"{header.hive}: {header.error}", width)
    rows = view.rows
    degraded = sum(row.degraded for row in rows)
    entries = sum(row.entries or 0 for row in rows)
    rejected = sum(row.rejected or 0 for row in rows)
    source = " (metrics)" if header.rate_source == "metrics" else ""
    pid = "?" if header.pid == -1 else header.pid  # the lock is held, its pid unreadable
    if header.pid is None:
        daemon = "no daemon"
    else:
        daemon = f"daemon {pid} {'stale' if header.stale else 'alive'}"
    long = [daemon, "no beat" if header.beat_age_s is None else f"beat {age(header.beat_age_s)}",
            counted(len(rows), "bee"), *([f"{degraded} degraded"] if degraded else []),
            counted(entries, "entry", "entries"), f"{rejected} rejected",
            f"{rate(header.passes_per_s)} passes/s{source}"]
    short = ["no daemon" if header.pid is None
             else f"pid {pid}" + (" stale" if header.stale else ""),
             f"beat {age(header.beat_age_s, '')}",
             counted(len(rows), "bee") + (f" ({degraded} deg)" if degraded else ""),
             f"{entries} entr", f"{rejected} rej", f"{rate(header.passes_per_s)} p/s"]
    rest = " · ".join(long)
    if width - cell_len(rest) - 3 < PATH_MIN:
        rest = ", ".join(short)
    # A long path gives way from its start: its end names the hive.
    room = max(PATH_MIN, width - cell_len(rest) - 3)
    path = header.hive if cell_len(header.hive) <= room else "…" + header.hive[-(room - 1):]
    return clip(f"{path} · {rest}", width)


def footer_line(controls: Controls, width: int) -> str:
    """The keys, each with what it chose."""
    if controls.draft is not None:
        return clip(f"filter: {controls.draft}_   Enter applies · Esc clears", width)
    return clip(f"s sort: degraded, {controls.sort} · / filter: {controls.filter or 'none'}"
                f" · d degraded only: {'on' if controls.degraded_only else 'off'} · q quit",
                width)


def table(rows: Sequence[BeeRow], fitted: Fitted) -> Table:
    grid = Table(box=None, padding=(0, 1), collapse_padding=True, pad_edge=False,
                 show_edge=False, header_style="bold")
    for column, form, size in fitted.columns:
        header = column.header if form == "full" else column.short_header or column.header
        grid.add_column(header, justify="right" if column.right else "left", no_wrap=True,
                        overflow="ellipsis", width=size)
    if fitted.notes_width:
        grid.add_column("notes", no_wrap=True, overflow="ellipsis", width=fitted.notes_width)
    for row in rows:
        cells = [clip(column.cell(row, form), size) for column, form, size in fitted.columns]
        if fitted.notes_width:
            cells.append(clip(row.notes, fitted.notes_width))
        # As Text: a str cell is read as rich markup, and a note quoting a path with
        # '[/]' in it raised MarkupError (a traceback instead of the screen).
        grid.add_row(*[Text(cell) for cell in cells], style="red" if row.degraded else None)
    return grid


def frame(views: Sequence[HiveView], controls: Controls, width: int, height: int,
          title: str) -> Group:
    """The whole screen: a title, each hive's header and table, the keys; rows past the
    terminal's height are counted instead of shown, so the keys stay on screen."""
    kept = [(view, shown(view.rows, controls)) for view in views]
    fitted = fit([row for _, rows in kept for row in rows], width)
    room = height - 2 - sum(2 + len(view.header.alerts) for view, _ in kept)
    parts: list[RenderableType] = [Text(clip(title, width), style="bold", no_wrap=True)]
    for view, rows in kept:
        parts.append(Text(header_line(view, width), style="bold", no_wrap=True))
        parts += [Text(clip(f"  ! {alert}", width), style="red", no_wrap=True)
                  for alert in view.header.alerts]
        if not rows:
            parts.append(Text("  no bee" + (" matches" if view.rows else ""), no_wrap=True))
            continue
        fits = len(rows) if len(rows) <= room else max(0, room - 1)
        parts.append(table(rows[:fits], fitted))
        room -= fits
        if fits < len(rows):
            parts.append(Text(f"  … {len(rows) - fits} more bees", no_wrap=True))
            room -= 1
    parts.append(Text(footer_line(controls, width), style="dim", no_wrap=True))
    return Group(*parts)
