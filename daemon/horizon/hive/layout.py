"""Every path and file name of a hive, and the one place journal file names are matched.

A hive on disk (README, "A hive"):

    <hive>/horizon.toml, bees/<bee>.toml, phares/<bee>.jsonl, .horizon.lock
    <hive>/window/<bee>-messages.jsonl
    <hive>/window/archive/<bee>-messages.<NNNNNN>.jsonl, <bee>-segments.jsonl
    <hive>/horizon/daemon.json, <bee>/handoff.md, <bee>/state.json, summaries.sqlite

Names read from a folder listing or a file are matched here, whole, before any path is
built from them.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import ParamSpec, cast

WINDOW = "window"
ARCHIVE = "archive"
DERIVED = "horizon"
BEES = "bees"
PHARES = "phares"
HIVE_SETTINGS = "horizon.toml"
LOCK = ".horizon.lock"
HEARTBEAT = "daemon.json"
STATE = "state.json"
HANDOFF = "handoff.md"
CACHE = "summaries.sqlite"
P = ParamSpec("P")

BEE_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_-]{0,63}")
_LIVE_SUFFIX = "-messages.jsonl"
_JOURNAL = re.compile(r"(?P<bee>.+)-messages(?:\.(?P<number>\d{6}))?\.jsonl", re.DOTALL)


def is_bee_name(name: str) -> bool:
    """The whole name matches the bee-name rule (no trailing newline slips through)."""
    return BEE_NAME.fullmatch(name) is not None


@dataclass(frozen=True)
class JournalName:
    """A journal file name taken apart: the live one (`number` None) or an archive segment.

    `bee` is whatever stands before `-messages`: callers check it with `is_bee_name`.
    """

    bee: str
    number: int | None = None


def parse_journal_name(name: str) -> JournalName | None:
    match = _JOURNAL.fullmatch(name)
    if match is None:
        return None
    number = match["number"]
    return JournalName(match["bee"], int(number) if number is not None else None)


def live_name(bee: str) -> str:
    return f"{bee}{_LIVE_SUFFIX}"


def archive_name(bee: str, number: int) -> str:
    return f"{bee}-messages.{number:06d}.jsonl"


def is_live_name(name: str) -> bool:
    return name.endswith(_LIVE_SUFFIX)


def manifest_name(bee: str) -> str:
    return f"{bee}-segments.jsonl"


def import_record_name(bee: str) -> str:
    """The record of what `horizon import` and `horizon hook` took from which transcript:
    the runtime's, beside its journal (the daemon never reads it)."""
    return f"{bee}-imports.json"


def manifest_bee(name: str) -> str | None:
    """The bee a manifest file name belongs to (checked with `is_bee_name`), or None."""
    suffix = "-segments.jsonl"
    bee = name[: -len(suffix)] if name.endswith(suffix) else ""
    return bee if is_bee_name(bee) else None


# -- folders ------------------------------------------------------------------------------

# Every pass asks for its bee's paths again: building a Path costs microseconds each time,
# where a cached one is a lookup (paths are values: the same one serves every caller).
def _paths(build: Callable[P, Path]) -> Callable[P, Path]:
    return cast("Callable[P, Path]", functools.lru_cache(maxsize=1 << 14)(build))


@_paths
def window_dir(hive: Path) -> Path:
    return hive / WINDOW


@_paths
def archive_dir(window: Path) -> Path:
    return window / ARCHIVE


@_paths
def derived_root(hive: Path) -> Path:
    return hive / DERIVED


@_paths
def derived_dir(hive: Path, bee: str) -> Path:
    return derived_root(hive) / bee


@_paths
def bees_dir(hive: Path) -> Path:
    return hive / BEES


@_paths
def phares_dir(hive: Path) -> Path:
    return hive / PHARES


# -- files --------------------------------------------------------------------------------

@_paths
def segment_path(window: Path, name: str) -> Path:
    """A journal file by its name: the live one in `window/`, a segment in its archive."""
    return window / name if is_live_name(name) else archive_dir(window) / name


@_paths
def live_path(window: Path, bee: str) -> Path:
    return window / live_name(bee)


@_paths
def manifest_path(window: Path, bee: str) -> Path:
    return archive_dir(window) / manifest_name(bee)


@_paths
def flags_path(hive: Path, bee: str) -> Path:
    return phares_dir(hive) / f"{bee}.jsonl"


@_paths
def hive_settings_path(hive: Path) -> Path:
    return hive / HIVE_SETTINGS


@_paths
def bee_settings_path(hive: Path, bee: str) -> Path:
    return bees_dir(hive) / f"{bee}.toml"


@_paths
def lock_path(hive: Path) -> Path:
    return hive / LOCK


@_paths
def heartbeat_path(hive: Path) -> Path:
    return derived_root(hive) / HEARTBEAT


@_paths
def state_path(hive: Path, bee: str) -> Path:
    return derived_dir(hive, bee) / STATE


@_paths
def handoff_path(hive: Path, bee: str) -> Path:
    return derived_dir(hive, bee) / HANDOFF


@_paths
def cache_path(hive: Path) -> Path:
    return derived_root(hive) / CACHE


# -- what a changed path is -----------------------------------------------------------------

@dataclass(frozen=True)
class SettingsFile:
    """`horizon.toml` or a `bees/*.toml`."""


@dataclass(frozen=True)
class HiveFolder:
    """One of the hive's watched folders (appeared, or replaced)."""


@dataclass(frozen=True)
class LiveJournal:
    bee: str


@dataclass(frozen=True)
class ArchiveSegment:
    bee: str
    segment: str


@dataclass(frozen=True)
class FlagsFile:
    bee: str


HivePath = SettingsFile | HiveFolder | LiveJournal | ArchiveSegment | FlagsFile


def classify(hive: Path, path: Path) -> HivePath | None:
    """What `path` is in `hive`'s layout, or None when it is nothing the daemon serves."""
    parent = path.parent
    if parent == hive:
        if path.name == HIVE_SETTINGS:
            return SettingsFile()
        return HiveFolder() if path.name in (WINDOW, BEES, PHARES) else None
    window = window_dir(hive)
    journal = parse_journal_name(path.name)
    if parent == window:
        if path.name == ARCHIVE:
            return HiveFolder()
        if journal is not None and journal.number is None and is_bee_name(journal.bee):
            return LiveJournal(journal.bee)
        return None
    if parent == archive_dir(window):
        if journal is not None and journal.number is not None and is_bee_name(journal.bee):
            return ArchiveSegment(journal.bee, path.name)
        return None
    if parent == bees_dir(hive) and path.suffix == ".toml":
        return SettingsFile()
    if parent == phares_dir(hive) and path.suffix == ".jsonl":
        return FlagsFile(path.stem)
    return None
