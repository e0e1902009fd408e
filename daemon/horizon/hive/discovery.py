"""A hive on disk: its bees, their names, and the rules on links and file kinds."""

from __future__ import annotations

import os
from pathlib import Path

from horizon.hive.layout import (
    BEE_NAME,
    archive_dir,
    bees_dir,
    is_bee_name,
    live_path,
    parse_journal_name,
    window_dir,
)


class HiveError(Exception):
    """A hive or bee the commands cannot serve, with a message for the operator."""


def _journal_bees(folder: Path, archived: bool) -> set[str]:
    try:
        entries = os.listdir(folder)
    except (FileNotFoundError, NotADirectoryError):
        return set()
    return {parsed.bee for name in entries if (parsed := parse_journal_name(name)) is not None
            and (parsed.number is not None) == archived}


def _inside(hive: Path, path: Path) -> bool:
    try:
        return path.resolve().is_relative_to(hive.resolve())
    except OSError:
        return False


def discover(hive: Path) -> tuple[list[str], list[str]]:
    """(bees served, problems): a bee exists by its journal, an archive or its settings file."""
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
            candidates |= _journal_bees(archive, archived=True)
    if _inside(hive, bees_dir(hive)):
        candidates |= {name[:-5] for name in _names_toml(bees_dir(hive))}
    by_fold: dict[str, list[str]] = {}
    for name in candidates:
        by_fold.setdefault(name.casefold(), []).append(name)
    bees = []
    for name in sorted(candidates):
        if not is_bee_name(name):
            problems.append(f"bee {name!r}: the name must match ^{BEE_NAME.pattern}$; ignored")
        elif len(by_fold[name.casefold()]) > 1:
            problems.append(
                f"bee {name!r}: names differing only in case "
                f"({', '.join(sorted(by_fold[name.casefold()]))}) are all refused"
            )
        elif live_path(window, name).is_symlink():
            problems.append(f"bee {name!r}: its journal is a link; refused")
        else:
            bees.append(name)
    return bees, problems


def _names_toml(folder: Path) -> set[str]:
    try:
        return {name for name in os.listdir(folder) if name.endswith(".toml")}
    except (FileNotFoundError, NotADirectoryError):
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
