"""The recommended layout of a hive's owners and modes (README, "Deploying safely"):
`horizon init` makes it, `horizon check` audits it.

A bee's tools must not be able to write the hive: the runtime appends journals in
`window/` (group-writable, setgid so journals inherit the hive group), and everything
else is written by the daemon or an operator only.
"""

from __future__ import annotations

import contextlib
import grp
import os
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path

from horizon.core.errors import HiveError
from horizon.hive.layout import (
    BEES,
    DERIVED,
    HIVE_SETTINGS,
    PHARES,
    WINDOW,
    archive_dir,
    is_live_name,
    window_dir,
)
from horizon.hive.links import Identity, hardlinks_protected, link_refusal
from horizon.hive.lock import holder


@dataclass(frozen=True)
class Expected:
    relative: str  # "" for the hive itself
    mode: int
    folder: bool = True


LAYOUT = (
    Expected("", 0o2750),
    Expected(WINDOW, 0o2770),
    Expected(f"{WINDOW}/archive", 0o2750),
    Expected(DERIVED, 0o2750),
    Expected(PHARES, 0o2750),
    Expected(BEES, 0o2750),
)
SETTINGS_MODE = 0o640


class InitError(HiveError):
    """`horizon init` cannot make this hive (a folder in use, an unknown group)."""


def group_id(group: str | None) -> int:
    if group is None:
        return os.getegid()
    try:
        return grp.getgrnam(group).gr_gid
    except KeyError:
        raise InitError(f"no group named {group!r} on this machine") from None


def is_hive(folder: Path) -> bool:
    return any((folder / name).exists() for name in (WINDOW, BEES, HIVE_SETTINGS))


def init_hive(hive: Path, group: str | None) -> list[str]:
    """Make the hive's folders with their owners and modes; what it made. A folder that
    holds anything and is not a hive is refused."""
    gid = group_id(group)
    if hive.exists() and not hive.is_dir():
        raise InitError(f"{hive}: not a folder")
    if hive.is_dir() and any(hive.iterdir()) and not is_hive(hive):
        raise InitError(f"{hive}: a folder in use that is not a hive; refused")
    made = []
    for expected in LAYOUT:
        path = hive / expected.relative if expected.relative else hive
        if path.is_symlink():
            raise InitError(f"{path}: a link; refused")
        if not path.exists():
            path.mkdir(parents=True)
            made.append(str(path))
            os.chown(path, -1, gid)
            os.chmod(path, expected.mode)  # after chown: chown clears the setgid bit
    return made


def audit(hive: Path) -> list[str]:
    """`PATH: reason` for every breach of the recommended layout: modes, a group other
    than the hive's, links, and a rotation that could not link a journal."""
    warnings: list[str] = []
    try:
        hive_gid = os.lstat(hive).st_gid
    except OSError as error:
        return [f"{hive}: {error.strerror}"]
    for expected in LAYOUT:
        path = hive / expected.relative if expected.relative else hive
        warnings += _check(path, expected.mode, hive_gid, folder=True)
    bee_files = sorted((hive / BEES).glob("*.toml")) if _is_real_dir(hive / BEES) else []
    for settings in [hive / HIVE_SETTINGS, *bee_files]:
        if os.path.lexists(settings):
            warnings += _check(settings, SETTINGS_MODE, hive_gid, folder=False)
    warnings += _rotation_probe(hive)
    warnings += _records_writable(hive)
    return warnings


def _records_writable(hive: Path) -> list[str]:
    """What the daemon writes and trusts (flags, manifests, each bee's derived folder and
    files), writable by the group or others: a bee's tools could forge it."""
    found = []
    places = [(hive / PHARES, ".jsonl"), (archive_dir(window_dir(hive)), "-segments.jsonl")]
    paths = [path for folder, suffix in places if _is_real_dir(folder)
             for path in sorted(folder.iterdir()) if path.name.endswith(suffix)]
    if _is_real_dir(hive / DERIVED):
        for bee in sorted((hive / DERIVED).iterdir()):
            if _is_real_dir(bee):
                paths += [bee, *sorted(path for path in bee.iterdir() if path.is_file())]
    for path in paths:
        try:
            mode = stat.S_IMODE(os.lstat(path).st_mode)
        except OSError:
            continue
        if mode & 0o022:
            found.append(f"{path}: writable by {'others' if mode & 0o002 else 'the group'} "
                         f"(mode {mode:04o}); a bee's tools could forge what the daemon trusts")
    return found


def _check(path: Path, mode: int, gid: int, *, folder: bool) -> list[str]:
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return [f"{path}: missing (horizon init makes it)"] if folder else []
    except OSError as error:
        return [f"{path}: {error.strerror}"]
    if stat.S_ISLNK(info.st_mode):
        return [f"{path}: a link; the daemon refuses links inside a hive"]
    if folder != stat.S_ISDIR(info.st_mode):
        return [f"{path}: not a {'folder' if folder else 'regular file'}"]
    found = []
    actual = stat.S_IMODE(info.st_mode)
    if (folder and actual & 0o002) or (not folder and actual & 0o022):
        found.append(f"{path}: writable by {'others' if actual & 0o002 else 'the group'} "
                     f"(mode {actual:04o}); a bee's tools could write it")
    elif actual != mode:
        found.append(f"{path}: mode {actual:04o}, {mode:04o} recommended")
    if info.st_gid != gid:
        found.append(f"{path}: group {_group_name(info.st_gid)}, not the hive's "
                     f"({_group_name(gid)})")
    return found


def _group_name(gid: int) -> str:
    try:
        return grp.getgrgid(gid).gr_name
    except KeyError:
        return str(gid)


def _rotation_probe(hive: Path) -> list[str]:
    """Rotation links each journal into the archive: a filesystem without hard links,
    or `fs.protected_hardlinks` with a journal the daemon cannot read and write, makes
    every rotation fail."""
    window = window_dir(hive)
    archive = archive_dir(window)
    if not _is_real_dir(window):
        return []
    found = []
    probe_dir = archive if _is_real_dir(archive) else window
    with contextlib.ExitStack() as cleanup:
        try:
            fd, name = tempfile.mkstemp(dir=window, prefix=".horizon-probe-")
        except OSError as error:
            return [f"{window}: cannot create a file here ({error.strerror})"]
        os.close(fd)
        cleanup.callback(_quietly_unlink, Path(name))
        target = probe_dir / (Path(name).name + ".link")
        try:
            os.link(name, target, follow_symlinks=False)
            cleanup.callback(_quietly_unlink, target)
        except OSError as error:
            found.append(f"{window}: rotation cannot link files into {probe_dir} "
                         f"({error.strerror})")
    protected = hardlinks_protected()
    daemon = daemon_identity(window.parent)
    for journal in sorted(window.iterdir()):
        if not is_live_name(journal.name):
            continue
        try:
            info = os.lstat(journal)
        except OSError:
            continue
        refusal = link_refusal(info, daemon, protected) if stat.S_ISREG(info.st_mode) else None
        if refusal is not None:
            found.append(f"{journal}: the daemon could not rotate it: {refusal}")
    return found


def daemon_identity(hive: Path) -> Identity:
    """Who the daemon is on this hive's files: the running daemon (its lock's holder),
    else the owner of the files it derives, else whoever runs this."""
    pid = holder(hive)
    running = Identity.of_process(pid) if pid is not None else None
    if running is not None:
        return running
    try:
        return Identity.of_user(os.lstat(hive / DERIVED).st_uid)
    except OSError:
        return Identity.of_this_process()


def _is_real_dir(path: Path) -> bool:
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def _quietly_unlink(path: Path) -> None:
    with contextlib.suppress(OSError):
        path.unlink()
