"""A hive on disk: its bees, their names, and the rules on links and file kinds."""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Callable, Collection
from pathlib import Path

from horizon.core.errors import HiveError, JournalError
from horizon.hive.layout import (
    BEE_NAME,
    archive_dir,
    bee_settings_path,
    bees_dir,
    derived_dir,
    is_bee_name,
    live_path,
    manifest_bee,
    manifest_path,
    parse_journal_name,
    window_dir,
)
from horizon.hive.manifest import recorded_segments


def _journal_bees(folder: Path, archived: bool) -> set[str]:
    try:
        entries = os.listdir(folder)
    except OSError:  # absent, not a folder, unreadable: nothing listed
        return set()
    return {parsed.bee for name in entries if (parsed := parse_journal_name(name)) is not None
            and (parsed.number is not None) == archived}


def _inside(hive: Path, path: Path) -> bool:
    try:
        return path.resolve().is_relative_to(hive.resolve())
    except OSError:
        return False


def discover(hive: Path, served: Collection[str] = ()) -> tuple[list[str], list[str]]:
    """(bees served, problems): a bee exists by its live journal, its segment manifest
    (recorded segments) or its settings file. Of names differing only in case, the one
    `served` (else the one the settings files, the manifests or the derived files tell) is
    kept, and the newcomers refused."""
    problems: list[str] = []
    window = window_dir(hive)
    archive = archive_dir(window)
    for folder in (window, archive, bees_dir(hive)):
        if folder.exists() and not _inside(hive, folder):
            problems.append(f"{folder}: leads out of the hive; ignored")
    candidates = set()
    if _inside(hive, window):
        candidates |= _journal_bees(window, archived=False)
        if _inside(hive, archive):
            candidates |= _manifest_bees(archive)
    if _inside(hive, bees_dir(hive)):
        candidates |= {name[:-5] for name in _names_toml(bees_dir(hive))}
    by_fold: dict[str, list[str]] = {}
    for name in candidates:
        by_fold.setdefault(name.casefold(), []).append(name)
    bees = []
    for name in sorted(candidates):
        twins = sorted(by_fold[name.casefold()])
        if not is_bee_name(name):
            problems.append(f"bee {name!r}: the name must match ^{BEE_NAME.pattern}$; ignored")
        elif len(twins) > 1 and _twin_kept(hive, twins, served) != name:
            kept = _twin_kept(hive, twins, served)
            problems.append(
                f"bee {name!r}: names differing only in case ({', '.join(twins)}) are "
                + (f"refused; {kept!r} keeps being served" if kept else "all refused"))
        elif live_path(window, name).is_symlink():
            problems.append(f"bee {name!r}: its journal is a link; refused")
        else:
            bees.append(name)
    return bees, problems


def _twin_kept(hive: Path, twins: list[str], served: Collection[str]) -> str | None:
    """The one of case twins that keeps being served: the one served already, else the
    only one an operator's settings file names, else the only one the daemon's manifests
    record, else the only one with derived files; None when that does not tell.

    Journals are the one thing a bee's side can create, so they never break the tie: the
    later signals come from files only the daemon or an operator writes, which keeps the
    bee an operator knows when `horizon/` was deleted and a twin planted meanwhile."""
    window = window_dir(hive)
    signals: tuple[Callable[[str], bool], ...] = (
        lambda twin: twin in served,
        lambda twin: _is_kind(bee_settings_path(hive, twin), stat.S_ISREG),
        lambda twin: _is_kind(manifest_path(window, twin), stat.S_ISREG),
        lambda twin: _is_kind(derived_dir(hive, twin), stat.S_ISDIR),
    )
    for signal in signals:
        kept = [twin for twin in twins if signal(twin)]
        if len(kept) == 1:
            return kept[0]
    return None


def _is_kind(path: Path, kind: Callable[[int], bool]) -> bool:
    """Whether `path` itself (never what a link points to) is of that kind."""
    try:
        return kind(os.lstat(path).st_mode)
    except OSError:
        return False


def _manifest_bees(archive: Path) -> set[str]:
    try:
        entries = os.listdir(archive)
    except OSError:  # absent, not a folder, unreadable: nothing listed
        return set()
    return {bee for name in entries if (bee := manifest_bee(name)) is not None}


def unrecorded_segments(hive: Path, bees: Collection[str]) -> list[str]:
    """Segment files in `window/archive/` that no record of their bee names: never read
    into any history (an operator takes them in with `horizon adopt`)."""
    archive = archive_dir(window_dir(hive))
    try:
        entries = sorted(os.listdir(archive))
    except OSError:  # absent, not a folder, unreadable: nothing listed
        return []
    recorded: dict[str, set[str]] = {}
    found = []
    for name in entries:
        parsed = parse_journal_name(name)
        if parsed is None or parsed.number is None:
            continue
        if parsed.bee not in recorded:
            known = parsed.bee in bees and is_bee_name(parsed.bee)
            recorded[parsed.bee] = set()
            if known:
                with contextlib.suppress(JournalError):  # a refused manifest records none
                    recorded[parsed.bee] = set(
                        recorded_segments(window_dir(hive), parsed.bee))
        if name not in recorded[parsed.bee]:
            found.append(name)
    return found


def _names_toml(folder: Path) -> set[str]:
    try:
        return {name for name in os.listdir(folder) if name.endswith(".toml")}
    except OSError:  # absent, not a folder, unreadable: nothing listed
        return set()


def require_hive(path: str) -> Path:
    hive = Path(path)
    if not hive.is_dir():
        raise HiveError(f"hive not found: {path} is not a folder")
    return hive


def require_bee(hive: Path, bee: str) -> str:
    bees, problems = discover(hive)
    if bee in bees:
        return bee
    for problem in problems:
        if f"bee {bee!r}" in problem:
            raise HiveError(problem)
    known = ", ".join(bees) or "none"
    raise HiveError(f"unknown bee {bee!r} in hive {hive} (bees: {known})")


def file_signature(path: Path | str) -> tuple[int, int, int] | None:
    """(inode, size, mtime) without following links: what the stat fallback compares."""
    try:
        info = os.stat(path, follow_symlinks=False)
    except OSError:
        return None
    return (info.st_ino, info.st_size, info.st_mtime_ns)
