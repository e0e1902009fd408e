"""What `horizon top` draws, without any I/O: the rows, their order, the keys, and the
columns that fit the terminal's width."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from rich.cells import cell_len

from horizon.cli.safe_text import printable
from horizon.core.text import counted

SORTS = ("name", "lag", "fill", "rejected")
GAP = 1  # cells between two columns
NOTES_MIN = 10  # narrower than this, the notes column is left out
BEE_MAX = 24  # a longer name is cut: the numbers matter more than its end


@dataclass(frozen=True)
class Zone:
    name: str
    before: int
    after: int
    budget: int


@dataclass(frozen=True)
class BeeRow:
    """One bee as `top` shows it; None where the files or the heartbeat do not say."""

    bee: str
    degraded: bool = False
    entries: int | None = None
    rejected: int | None = None
    zones: tuple[Zone, ...] = ()
    fill: float = 0.0  # the fullest zone (handoff.md in handoff mode) against its limit
    lag_lines: int | None = None
    lag_s: float | None = None
    last_pass_age: float | None = None
    level: str | None = None
    passes_per_s: float | None = None
    notes: str = ""


@dataclass(frozen=True)
class Controls:
    """What the keys chose. `draft` is the filter being typed, None when not typing."""

    sort: str = "name"
    filter: str = ""
    draft: str | None = None
    degraded_only: bool = False


QUIT: Literal["quit"] = "quit"
ESC, ENTER, BACKSPACES = "\x1b", ("\r", "\n"), ("\x7f", "\b")


def keys_of(data: str) -> list[str]:
    """The keys in what the terminal sent: a lone ESC is a key, an escape sequence (an
    arrow, a function key) is dropped whole so its tail is not typed into the filter."""
    keys: list[str] = []
    index = 0
    while index < len(data):
        char = data[index]
        if char == ESC and index + 1 < len(data) and data[index + 1] in "[O":
            index += 2
            while index < len(data) and not (data[index].isalpha() or data[index] == "~"):
                index += 1
        else:
            keys.append(char)
        index += 1
    return keys


def press(controls: Controls, key: str) -> Controls | Literal["quit"]:
    """The controls after `key`, or QUIT."""
    if controls.draft is not None:
        if key in ENTER:
            return replace(controls, filter=controls.draft.strip(), draft=None)
        if key == ESC:
            return replace(controls, filter="", draft=None)
        if key in BACKSPACES:
            return replace(controls, draft=controls.draft[:-1])
        if key.isprintable():
            return replace(controls, draft=controls.draft + key)
        return controls
    if key == "q":
        return QUIT
    if key == "s":
        return replace(controls, sort=SORTS[(SORTS.index(controls.sort) + 1) % len(SORTS)])
    if key == "/":
        return replace(controls, draft=controls.filter)
    if key == "d":
        return replace(controls, degraded_only=not controls.degraded_only)
    if key == ESC:
        return replace(controls, filter="")
    return controls


def shown(rows: Sequence[BeeRow], controls: Controls) -> list[BeeRow]:
    """The rows kept by the filter (on the bee's name, any case) and "degraded only",
    degraded ones first, then by the chosen sort, then by name."""
    needle = (controls.draft if controls.draft is not None else controls.filter).casefold()
    kept = [row for row in rows if needle in row.bee.casefold()
            and (row.degraded or not controls.degraded_only)]
    secondary: dict[str, Callable[[BeeRow], tuple[float, ...]]] = {
        "name": lambda row: (),
        "lag": lambda row: (-(row.lag_s or 0.0), -(row.lag_lines or 0)),
        "fill": lambda row: (-row.fill,),
        "rejected": lambda row: (-(row.rejected or 0),),
    }
    by = secondary[controls.sort]
    return sorted(kept, key=lambda row: (not row.degraded, by(row), row.bee))


# --- cells ---------------------------------------------------------------------------------


def age(seconds: float | None, suffix: str = " ago") -> str:
    if seconds is None:
        return "-"
    seconds = max(0.0, seconds)
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{int(seconds // size)}{unit}{suffix}"
    return f"{int(seconds)}s{suffix}"


def rate(per_s: float | None) -> str:
    if per_s is None:
        return "-"
    return f"{per_s:.0f}" if per_s >= 100 else f"{per_s:.1f}"


def zone_cell(row: BeeRow, name: str, form: str) -> str:
    """`full`: before→after/budget when the hard cut took something, else after/budget;
    `short`: after/budget; `tiny`: after over budget in percent."""
    zone = next((zone for zone in row.zones if zone.name == name), None)
    if zone is None:
        return "-"
    if form == "tiny":
        return f"{round(100 * zone.after / zone.budget)}%"
    cut = f"{zone.before}→" if form == "full" and zone.before != zone.after else ""
    return f"{cut}{zone.after}/{zone.budget}"


def lag_cell(row: BeeRow, form: str) -> str:
    lines = "?" if row.lag_lines is None else str(row.lag_lines)  # past what status counts
    seconds = "-" if row.lag_s is None else f"{row.lag_s:.1f}s"
    if form != "full":
        return f"{lines}l {seconds}"
    return f"{counted(row.lag_lines, 'line') if row.lag_lines is not None else '? lines'} {seconds}"


def clip(text: str, width: int) -> str:
    """`text` in at most `width` cells, an ellipsis marking the cut; its control
    characters escaped (every string top prints comes through here, some from the hive)."""
    text = printable(text)
    if cell_len(text) <= width:
        return text
    # `width` characters fill the cut (bar zero-width ones), and the loop below then
    # costs O(width²), not O(len²): a 1 MiB settings error froze the screen for hours.
    text = text[:max(0, width)]
    while text and cell_len(text) > width - 1:
        text = text[:-1]
    return text + "…"


@dataclass(frozen=True)
class Column:
    key: str
    header: str
    cell: Callable[[BeeRow, str], str]  # the row and the form: full, short or tiny
    short_header: str = ""
    right: bool = False


COLUMNS = (
    Column("bee", "bee", lambda row, form: clip(("! " if row.degraded else "") + row.bee,
                                                 BEE_MAX)),
    Column("entries", "entries", lambda row, form: _number(row.entries), "entr", True),
    Column("net", "net", lambda row, form: zone_cell(row, "net", form), right=True),
    Column("condense", "condensé", lambda row, form: zone_cell(row, "condense", form),
           right=True),
    Column("recit", "récit", lambda row, form: zone_cell(row, "recit", form), right=True),
    Column("lag", "lag", lag_cell),
    Column("last", "last pass", lambda row, form: age(row.last_pass_age,
                                                       " ago" if form == "full" else ""),
           "last"),
    Column("level", "level", lambda row, form: row.level or "-"),
    Column("rejected", "rejected", lambda row, form: _number(row.rejected), "rej", True),
    Column("rate", "passes/s", lambda row, form: rate(row.passes_per_s), "p/s", True),
)
# Tried in order until the table fits: abbreviate first, then leave out the least needed.
STEPS: tuple[tuple[str, str], ...] = (
    ("net", "short"), ("condense", "short"), ("recit", "short"), ("lag", "short"),
    ("last", "short"), ("rejected", "short"), ("rate", "short"), ("entries", "short"),
    ("level", "drop"), ("rate", "drop"), ("rejected", "drop"), ("condense", "tiny"),
    ("recit", "tiny"), ("net", "tiny"), ("last", "drop"), ("entries", "drop"),
    ("lag", "drop"),
)


def _number(value: int | None) -> str:
    return "-" if value is None else str(value)


@dataclass(frozen=True)
class Fitted:
    """The columns chosen for a width, each with its form and width; the notes column
    (last, taking what is left) when there is room for it."""

    columns: tuple[tuple[Column, str, int], ...]
    notes_width: int


def fit(rows: Sequence[BeeRow], width: int) -> Fitted:
    forms = {column.key: "full" for column in COLUMNS}

    def widths() -> list[tuple[Column, str, int]]:
        chosen = []
        for column in COLUMNS:
            form = forms[column.key]
            if form == "drop":
                continue
            header = column.header if form == "full" else column.short_header or column.header
            cells = [cell_len(column.cell(row, form)) for row in rows]
            chosen.append((column, form, max([cell_len(header), *cells])))
        return chosen

    def total(chosen: list[tuple[Column, str, int]]) -> int:
        return sum(size for _, _, size in chosen) + GAP * (len(chosen) - 1)

    chosen = widths()
    for key, form in STEPS:
        if total(chosen) <= width:
            break
        forms[key] = form
        chosen = widths()
    if total(chosen) > width:  # even the bee's name alone is too wide: it is cut
        column, form, _ = chosen[0]
        chosen = [(column, form, max(1, width))]
    left = min(width - total(chosen) - GAP, max((cell_len(row.notes) for row in rows),
                                                 default=0))
    return Fitted(tuple(chosen), left if left >= NOTES_MIN else 0)

