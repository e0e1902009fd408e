"""What `status` says of a hive and each of its bees, and what /healthz answers.

One typed shape read by `status --json`, its text, `top` and the web view. A field left
UNSET is absent from the JSON: which fields a report holds says what could be known
(a bee whose files cannot be read has its name, its error and `degraded`, and its
segments when they could be listed).
"""

from __future__ import annotations

from typing import Literal, TypeVar

import msgspec
from msgspec import UNSET, UnsetType

from horizon.core.settings import HorizonSettings

T = TypeVar("T")
D = TypeVar("D")


class ZoneReport(msgspec.Struct):
    """A zone's characters before the hard cut and as injected, against its budget."""

    before: int
    after: int
    budget: int


class SummarizerReport(msgspec.Struct, kw_only=True):
    """The first four when the bee's settings are known; the last four when it is derived."""

    asked: str | UnsetType = UNSET  # the `resumeur` setting
    levels: list[str] | UnsetType = UNSET  # the model levels that can run, in cascade order
    in_use: str | UnsetType = UNSET
    unavailable: dict[str, str] | UnsetType = UNSET  # level: why it cannot run
    recit: str | UnsetType = UNSET  # the level that wrote the récit shown
    condense: dict[str, int] | UnsetType = UNSET  # level: condensed entries it wrote
    pending_folds: int | UnsetType = UNSET
    fallbacks: int | UnsetType = UNSET


class BeeReport(msgspec.Struct, kw_only=True):
    """One bee, from its files and, when a daemon beats, its heartbeat."""

    bee: str
    segments: int | UnsetType = UNSET
    missing_segments: list[str] | UnsetType = UNSET
    error: str | UnsetType = UNSET
    degraded: Literal[True] | UnsetType = UNSET
    settings_error: str | UnsetType = UNSET
    settings_in_use: Literal["last good"] | UnsetType = UNSET
    settings: HorizonSettings | UnsetType = UNSET  # the last good, with settings_in_use
    lag_bytes: int | UnsetType = UNSET
    lag_lines: int | UnsetType | None = UNSET  # None: too many bytes unread to count
    lag_s: float | UnsetType | None = UNSET  # None: no daemon's heartbeat says it
    write_failed: bool | UnsetType = UNSET
    rotation_failed: str | UnsetType = UNSET
    summarizer: SummarizerReport | UnsetType = UNSET
    derived: bool | UnsetType = UNSET
    entries: int | UnsetType = UNSET
    rejected: int | UnsetType = UNSET
    up_to: int | UnsetType = UNSET
    rejections: dict[str, int] | UnsetType = UNSET
    last_rejected: list[int] | UnsetType = UNSET
    bad_field: int | UnsetType = UNSET
    mismatched_flags: list[int] | UnsetType = UNSET
    mode: Literal["horizon", "handoff"] | UnsetType = UNSET
    chars: int | UnsetType = UNSET
    cap: int | UnsetType = UNSET
    cut: int | UnsetType = UNSET
    zones: dict[str, ZoneReport] | UnsetType = UNSET  # horizon mode only


class DaemonReport(msgspec.Struct, kw_only=True):
    """Who holds the hive's lock and what its heartbeat says (None: no heartbeat)."""

    running: bool
    pid: int | None  # -1: held, pid unreadable
    beat_age_s: float | UnsetType | None = UNSET
    version: str | UnsetType | None = UNSET
    watch: str | UnsetType | None = UNSET
    started: str | UnsetType | None = UNSET
    stale: Literal[True] | UnsetType = UNSET
    write_failed: str | UnsetType = UNSET  # a failed write the log shows since the last beat


class HiveReport(msgspec.Struct, kw_only=True):
    """One hive: a missing one has only `hive`, `error`, `bees` (empty) and `exit`."""

    hive: str
    daemon: DaemonReport | UnsetType = UNSET
    error: str | UnsetType = UNSET
    bees: list[BeeReport] = msgspec.field(default_factory=list)
    problems: list[str] | UnsetType = UNSET
    unrecorded: list[str] | UnsetType = UNSET
    degraded: bool | UnsetType = UNSET
    exit: int


class StatusReport(msgspec.Struct):
    """`status --json`."""

    hives: list[HiveReport]


class HealthDocument(msgspec.Struct):
    """/healthz: `status` is "ok" exactly when `reasons` is empty."""

    status: Literal["ok", "degraded"]
    reasons: list[str]


def known(value: T | UnsetType, default: D) -> T | D:
    """`value`, or `default` where the report left it out."""
    return default if value is UNSET else value
