"""A hive on disk: its bees, their names, and the rules on links and file kinds."""

from __future__ import annotations

import os
import re
from pathlib import Path

BEE_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_-]{0,63}$")
_LIVE = re.compile(r"^(?P<bee>.+)-messages\.jsonl$")
_ARCHIVED = re.compile(r"^(?P<bee>.+)-messages\.\d{6}\.jsonl$")


class HiveError(Exception):
    """A hive or bee the commands cannot serve, with a message for the operator."""


def _names(folder: Path, pattern: re.Pattern[str]) -> set[str]:
    try:
        entries = os.listdir(folder)
    except (FileNotFoundError, NotADirectoryError):
        return set()
    return {match["bee"] for name in entries if (match := pattern.match(name))}


def _inside(hive: Path, path: Path) -> bool:
    try:
        return path.resolve().is_relative_to(hive.resolve())
    except OSError:
        return False


def discover(hive: Path) -> tuple[list[str], list[str]]:
    """(bees served, problems): a bee exists by its journal, an archive or its settings file."""
    problems: list[str] = []
    window = hive / "window"
    for folder in (window, window / "archive", hive / "bees"):
        if folder.exists() and not _inside(hive, folder):
            problems.append(f"{folder}: leads out of the hive; ignored")
    candidates = set()
    if _inside(hive, window):
        candidates |= _names(window, _LIVE)
        if _inside(hive, window / "archive"):
            candidates |= _names(window / "archive", _ARCHIVED)
    if _inside(hive, hive / "bees"):
        candidates |= {name[:-5] for name in _names_toml(hive / "bees")}
    by_fold: dict[str, list[str]] = {}
    for name in candidates:
        by_fold.setdefault(name.casefold(), []).append(name)
    bees = []
    for name in sorted(candidates):
        if not BEE_NAME.match(name):
            problems.append(f"bee {name!r}: the name must match {BEE_NAME.pattern}; ignored")
        elif len(by_fold[name.casefold()]) > 1:
            problems.append(
                f"bee {name!r}: names differing only in case "
                f"({', '.join(sorted(by_fold[name.casefold()]))}) are all refused"
            )
        elif (window / f"{name}-messages.jsonl").is_symlink():
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
