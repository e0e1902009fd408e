"""`horizon status` as text: a table a bee, or a few short lines a bee when the terminal
is too narrow for the table with every cell whole."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text

from horizon.cli.console import ReaderConsole
from horizon.cli.safe_text import printable
from horizon.core.reports import BeeReport, HiveReport, known
from horizon.core.text import counted

COLUMNS = ("bee", "mode", "entries", "rejected", "segments", "lag", "net", "condensé",
           "récit", "summarizer", "notes")


def print_reports(reports: list[HiveReport]) -> None:
    """`status`'s text: per hive its path, daemon and alerts, then its bees."""
    # Paths, settings errors and notes quote the hive's files: no markup is read in them
    # (a '[/]' raised MarkupError, a traceback) and their control characters are escaped.
    # The width is the terminal's, or COLUMNS, or 80 when piped, as `top`'s.
    console = ReaderConsole(highlight=False, markup=False, emoji=False)

    def say(text: str) -> None:
        # These lines quote paths, which a fold would break where grep looks for them.
        console.print(printable(text), soft_wrap=True)

    def titled(hive: str, rest: str) -> None:
        # The path on a line of its own, never broken: what follows it wraps as it must.
        console.print(Text(printable(hive), style="bold"), soft_wrap=True)
        say(f"  {rest}")

    for report in reports:
        daemon = report.daemon
        if report.error:
            titled(report.hive, report.error)
            continue
        if daemon and daemon.running:
            state = "stale heartbeat" if daemon.stale else "alive"
            line = f"daemon pid {daemon.pid}, {state}"
            if known(daemon.beat_age_s, None) is not None:
                line += f", last beat {daemon.beat_age_s} s ago"
        else:
            line = "no daemon serves it"
        titled(report.hive, line)
        if report.degraded is True:
            say(f"  degraded: {'; '.join(degraded_causes(report))}")
        if daemon and daemon.write_failed:
            say(f"  write failed: {daemon.write_failed}")
        for problem in known(report.problems, []):
            say(f"  problem: {problem}")
        for segment in known(report.unrecorded, []):
            say(f"  unrecorded segment (never read; horizon adopt takes it in): {segment}")
        for message in sorted({bee.settings_error for bee in report.bees
                               if bee.settings_error}):
            say(f"  settings rejected: {message}; the last good settings serve")
        rows = [[printable(cell) for cell in _cells(bee)] for bee in report.bees]
        if _table_width(rows) <= console.width:
            table = Table(show_edge=False, pad_edge=False)
            for column in COLUMNS:
                table.add_column(column)
            for row in rows:
                table.add_row(*row)
            console.print(table)
        else:  # too narrow for one row a bee: a few short lines each, never cut
            for row in rows:
                console.print(_bee_lines(row), overflow="fold")


def _cells(bee: BeeReport) -> tuple[str, ...]:
    return (bee.bee, known(bee.mode, "-"), str(known(bee.entries, "-")), _rejected(bee),
            str(known(bee.segments, "-")), _lag(bee), _zone(bee, "net"),
            _zone(bee, "condense"), _zone(bee, "recit"), _levels(bee),
            "; ".join(bee_notes(bee)))


def _table_width(rows: list[list[str]]) -> int:
    """What the table takes with every cell whole: its columns and their separators."""
    widths = [max([len(column), *(len(row[index]) for row in rows)])
              for index, column in enumerate(COLUMNS)]
    return sum(widths) + 3 * (len(widths) - 1)


def _entries(shown: str) -> str:
    return counted(int(shown), "entry", "entries") if shown.isdigit() else f"{shown} entries"


def _segments(shown: str) -> str:
    return counted(int(shown), "segment") if shown.isdigit() else f"{shown} segments"


def _bee_lines(row: list[str]) -> Text:
    bee, mode, entries, rejected, segments, lag, net, condense, recit, levels, notes = row
    lines = [f"{bee}  {mode} · {_entries(entries)} · {rejected} rejected · lag {lag}",
             f"  net {net} · condensé {condense} · récit {recit}",
             f"  {_segments(segments)} · {levels}"]
    if notes:
        lines.append(f"  notes: {notes}")
    return Text("\n".join(lines))


def _zone(bee: BeeReport, name: str) -> str:
    """before→after/budget, or before/budget when the cut took nothing from it."""
    zone = known(bee.zones, {}).get(name)
    if zone is None:
        return "-"
    shown = str(zone.before) if zone.before == zone.after else f"{zone.before}→{zone.after}"
    return f"{shown}/{zone.budget}"


def _rejected(bee: BeeReport) -> str:
    reasons = known(bee.rejections, {})
    text = str(known(bee.rejected, "-"))
    if reasons:
        text += " (" + ", ".join(f"{reason} {count}" for reason, count in
                                 sorted(reasons.items())) + ")"
    return text


def _lag(bee: BeeReport) -> str:
    lines = known(bee.lag_lines, None)
    text = counted(lines, "line") if lines is not None else f"{known(bee.lag_bytes, 0)} B"
    if bee.lag_s:
        text += f", {bee.lag_s} s"
    return text


def degraded_causes(report: HiveReport) -> list[str]:
    """Why a hive is degraded, in a few words each: what to look at first."""
    daemon = report.daemon
    causes = []
    if daemon and daemon.stale:
        causes.append("stale heartbeat")
    if daemon and daemon.write_failed:
        causes.append("a derived write failed")
    if report.problems:
        causes.append(counted(len(report.problems), "refused file"))
    if report.unrecorded:
        causes.append(counted(len(report.unrecorded), "unrecorded segment"))
    failing = [bee.bee for bee in report.bees if bee.write_failed is True
               or bee.degraded is True]
    if failing:
        shown = ", ".join(failing[:3]) + (f" and {len(failing) - 3} more"
                                          if len(failing) > 3 else "")
        causes.append(f"bee{'s' if len(failing) > 1 else ''} {shown} (see notes)")
    if any(bee.settings_error for bee in report.bees) and not failing:
        causes.append("settings rejected")
    return causes or ["config.json rejected"]


def over_budget(bee: BeeReport) -> list[str]:
    """The zones over their budget before the cut: what the hard cut took from."""
    return [f"{name.replace('condense', 'condensé').replace('recit', 'récit')} over budget "
            f"({zone.before}/{zone.budget}, cut to {zone.after})"
            for name, zone in known(bee.zones, {}).items() if zone.before > zone.budget]


def bee_notes(bee: BeeReport) -> list[str]:
    """What a bee's row says beside its numbers: what went wrong, what to look at."""
    notes = over_budget(bee)
    if bee.write_failed:
        notes.append("write failed")
    if bee.rotation_failed:
        notes.append(f"rotation failed (the journal grows): {bee.rotation_failed}")
    if bee.missing_segments:
        notes.append("archive segments gone (their lines are lost, their seqs kept): "
                     + ", ".join(bee.missing_segments))
    if bee.settings_in_use:
        notes.append("settings rejected: serving the last good")
    elif bee.settings_error:
        notes.append("settings rejected")
    if bee.last_rejected:
        notes.append("last rejected: " + ", ".join(f"#{seq}" for seq in bee.last_rejected))
    if bee.bad_field:
        count = bee.bad_field
        notes.append(f"{count} {'entry' if count == 1 else 'entries'} with a wrongly typed "
                     "ok or files (ignored)")
    if bee.mismatched_flags:
        notes.append("flags no longer matching: " +
                     ", ".join(f"#{seq}" for seq in bee.mismatched_flags))
    summarizer = bee.summarizer
    for level, reason in (known(summarizer.unavailable, {}) if summarizer else {}).items():
        notes.append(f"{level} unavailable: {reason}")
    if bee.error:
        notes.append(bee.error)
    if not bee.derived:
        notes.append("not derived yet")
    return notes


def _levels(bee: BeeReport) -> str:
    """The level in use, which level wrote the current texts, how often a model fell back."""
    summary = bee.summarizer
    if not summary:
        return "-"
    text = f"in use {summary.in_use}" if summary.in_use else ""
    if summary.recit:
        condensed = ", ".join(f"{level}×{count}"
                              for level, count in known(summary.condense, {}).items())
        text += f"; récit {summary.recit}"
        if condensed:
            text += f"; condensé {condensed}"
        if summary.fallbacks:
            text += f"; {summary.fallbacks} fallbacks"
    return text.lstrip("; ")
