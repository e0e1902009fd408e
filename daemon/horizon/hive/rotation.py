"""Rotation of a live journal into `window/archive/`.

Move, never copy-truncate, never over an existing file: the manifest record first, then
link, then unlink. A crash between any two of these is finished at the next start by
`finish_rotations`. Writers holding a descriptor keep appending to the moved segment;
those lines are read late (see `ingest`).
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Iterator
from pathlib import Path

from horizon.core.errors import WriteError
from horizon.hive.durable import ensure_dir, open_folder
from horizon.hive.journal import Checkpoint, archive_numbers, tail_hash
from horizon.hive.layout import (
    ARCHIVE,
    archive_dir,
    archive_name,
    live_path,
    parse_journal_name,
)
from horizon.hive.links import Identity, hardlinks_protected, link_refusal
from horizon.hive.manifest import (
    Aborted,
    Adopted,
    Manifest,
    Record,
    Rotated,
    Sealed,
    append_records,
)

LAST_SEGMENT = 999_999


def _next_number(window: Path, bee: str, manifest: Manifest) -> int:
    """After the bee's recorded segments, the first number whose name is free. Files no
    record names do not count (a planted `999999` must not push rotation out of the
    names its reader accepts), but are never overwritten."""
    recorded = [parsed.number for name in manifest.segments()
                if (parsed := parse_journal_name(name)) is not None and parsed.number]
    number = max(recorded, default=0) + 1
    while os.path.lexists(archive_dir(window) / archive_name(bee, number)):
        number += 1
    if number > LAST_SEGMENT:
        raise OSError(errno.ENOSPC, "no segment number left (000001 to 999999)",
                      str(archive_dir(window)))
    return number


def rotate(window: Path, bee: str, checkpoint: Checkpoint, manifest: Manifest,
           probe: bool = False) -> Checkpoint | None:
    """Move the live journal to the next archive segment; the checkpoint that follows it.

    None when the live file is not the one the checkpoint has read (nothing is moved).
    `probe`: after a failed link, try one under a name no reader knows before recording
    anything, so that retries of a link that keeps failing add no records.
    """
    live = live_path(window, bee)
    try:
        info = os.stat(live, follow_symlinks=False)
    except FileNotFoundError:
        return None
    if checkpoint.segment != live.name or info.st_ino != checkpoint.ino:
        return None
    archive = archive_dir(window)
    ensure_dir(archive, window.parent)
    # A rotation that failed before its link keeps its number: the new record for the
    # same segment (with today's offset) replaces the old one on replay.
    unfinished = next((r.segment for r in manifest.rotated.values()
                       if r.ino == info.st_ino and not (archive / r.segment).exists()), None)
    target = archive / (unfinished or archive_name(bee, _next_number(window, bee, manifest)))
    # Asked before the intent: a link the kernel refuses records nothing, however often
    # it is retried.
    refusal = link_refusal(info, Identity.of_this_process(), hardlinks_protected())
    if refusal is not None:
        raise RotationRefused(errno.EPERM, refusal, str(live))
    if probe:
        _probe_link(window, bee)
    record = Rotated(target.name, info.st_ino, checkpoint.offset, checkpoint.seq)
    append_records(window, bee, [record])
    manifest.add(record)
    with _folders(window) as (window_fd, archive_fd):
        # Names relative to folder descriptors walked down from the hive: a folder swapped
        # for a link meanwhile leads nowhere.
        try:
            os.link(live.name, target.name, src_dir_fd=window_fd, dst_dir_fd=archive_fd,
                    follow_symlinks=False)
        except OSError:
            _abort(window, bee, manifest, target.name)
            raise
        if os.stat(target.name, dir_fd=archive_fd, follow_symlinks=False).st_ino != (
                info.st_ino):
            # The journal was replaced under its name since we read it: what we linked is
            # the newcomer, unread. Back out; the newcomer stays live and is read as a
            # replaced journal at the next pass.
            os.unlink(target.name, dir_fd=archive_fd)
            _abort(window, bee, manifest, target.name)
            return None
        try:
            os.unlink(live.name, dir_fd=window_fd)
        except FileNotFoundError:
            pass  # removed by hand meanwhile: the archive's name is the one left, as planned
        except OSError:
            # Two names for one journal would be read twice: back out of the link, which
            # is not the only name left while the live one is still that journal.
            if _inode_of(live.name, window_fd) == info.st_ino:
                with contextlib.suppress(OSError):
                    os.unlink(target.name, dir_fd=archive_fd)
                    _abort(window, bee, manifest, target.name)
            raise
        os.fsync(archive_fd)
        os.fsync(window_fd)
    return Checkpoint(target.name, checkpoint.offset, checkpoint.seq, info.st_dev, info.st_ino,
                      tail_hash(target, checkpoint.offset, window.parent), checkpoint.lines)


def probe_name(bee: str) -> str:
    """A second name for the live journal that no reader takes for a segment."""
    return f".{bee}-messages.link-probe"


def _probe_link(window: Path, bee: str) -> None:
    """Link the live journal under the probe name and unlink it: raises what the link
    would raise, records nothing."""
    live, probe = live_path(window, bee).name, probe_name(bee)
    with _folders(window) as (window_fd, archive_fd):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(probe, dir_fd=archive_fd)  # left by a crash
        os.link(live, probe, src_dir_fd=window_fd, dst_dir_fd=archive_fd,
                follow_symlinks=False)
        os.unlink(probe, dir_fd=archive_fd)


class RotationRefused(WriteError, OSError):
    """The kernel would refuse the link: nothing was recorded or moved."""


def _abort(window: Path, bee: str, manifest: Manifest, segment: str) -> None:
    """Close the intent of a rotation that backed out: its record is void."""
    aborted = Aborted(segment)
    append_records(window, bee, [aborted])
    manifest.add(aborted)


def finish_rotations(window: Path, bee: str, manifest: Manifest,
                     read_to: Checkpoint | None = None) -> list[str]:
    """Complete the rotation a crash interrupted, if any; the segments it finished.

    `read_to`: the checkpoint of the state on disk (see `Manifest.interrupted_rotation`).
    """
    with contextlib.suppress(OSError), _folders(window) as (_, archive_fd):
        os.unlink(probe_name(bee), dir_fd=archive_fd)  # a crash left it: it holds blocks
    live = live_path(window, bee)
    try:
        live_ino = os.stat(live, follow_symlinks=False).st_ino
    except FileNotFoundError:
        return []
    segment = manifest.interrupted_rotation(live_ino, read_offset(read_to, live_ino))
    if segment is None:
        return []
    try:
        with _folders(window) as (window_fd, archive_fd):
            made = not _exists(segment, archive_fd)
            if made:
                try:
                    os.link(live.name, segment, src_dir_fd=window_fd,
                            dst_dir_fd=archive_fd, follow_symlinks=False)
                except OSError:
                    _abort(window, bee, manifest, segment)  # retried under a new intent
                    raise
            if os.stat(segment, dir_fd=archive_fd, follow_symlinks=False).st_ino != live_ino:
                if made:  # the journal was replaced meanwhile: that link is not ours to keep
                    os.unlink(segment, dir_fd=archive_fd)
                return []
            with contextlib.suppress(FileNotFoundError):  # removed by hand meanwhile
                os.unlink(live.name, dir_fd=window_fd)
            os.fsync(window_fd)
    except OSError:
        return []  # the next rotation of this file retries under the same number
    return [segment]


@contextlib.contextmanager
def _folders(window: Path) -> Iterator[tuple[int, int]]:
    """Descriptors on `window/` and its archive, walked down from the hive."""
    window_fd = open_folder(window.parent, window)
    try:
        archive_fd = os.open(ARCHIVE, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW
                             | os.O_CLOEXEC, dir_fd=window_fd)
        try:
            yield window_fd, archive_fd
        finally:
            os.close(archive_fd)
    finally:
        os.close(window_fd)


def _inode_of(name: str, folder_fd: int) -> int | None:
    try:
        return os.stat(name, dir_fd=folder_fd, follow_symlinks=False).st_ino
    except OSError:
        return None


def _exists(name: str, folder_fd: int) -> bool:
    try:
        os.stat(name, dir_fd=folder_fd, follow_symlinks=False)
    except FileNotFoundError:
        return False
    return True


def read_offset(checkpoint: Checkpoint | None, ino: int) -> int | None:
    """How far `checkpoint` read file `ino` in order, when it is in that file."""
    if checkpoint is None or checkpoint.ino != ino or not checkpoint.segment:
        return None
    return checkpoint.offset


def seal(window: Path, bee: str, segment: str, size: int, manifest: Manifest) -> None:
    """Record that a rotated segment stayed quiet: from now on only events make us look."""
    record = Sealed(segment, size)
    append_records(window, bee, [record])
    manifest.add(record)


def unadopted(window: Path, bee: str, manifest: Manifest) -> list[str]:
    """The bee's segment files that no record names, in name order (regular files only:
    a link or a FIFO is never taken in)."""
    recorded = set(manifest.segments())
    names = []
    for number in archive_numbers(window, bee):
        name = archive_name(bee, number)
        try:
            regular = stat.S_ISREG(os.lstat(archive_dir(window) / name).st_mode)
        except OSError:
            continue
        if regular and name not in recorded:
            names.append(name)
    return names


def adopt(window: Path, bee: str, manifest: Manifest) -> list[str]:
    """Record, in name order, the bee's segment files no record names (made by hand or
    by an older tool): from now on they are part of its history. The segments taken in."""
    names = unadopted(window, bee, manifest)
    records: list[Record] = [Adopted(name) for name in names]
    append_records(window, bee, records)
    for record in records:
        manifest.add(record)
    return names
