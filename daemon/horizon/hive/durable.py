"""Durable files: atomic replacement, folder fsync, durable appends, and opening a file of a
hive without following links or blocking on a FIFO."""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import stat
from pathlib import Path

from horizon.core.errors import JournalError, WriteError

FILE_MODE = 0o640
DIR_MODE = 0o750


class StoreError(WriteError):
    """A derived file could not be written; the previous version is still in place."""


def ensure_dir(path: Path, under: Path) -> None:
    """`path` and every folder between it and `under` (the hive, or a folder of it),
    each 0750 (mkdir's parents ignore `mode`); a link or a file in the way is refused
    (StoreError), never written through."""
    os.close(open_made_dir(path, under))


def open_made_dir(path: Path, under: Path) -> int:
    """`ensure_dir`, giving a descriptor on `path` (the caller closes it): the files then
    written in it are reached without walking the folders again."""
    try:
        fd = os.open(under, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError as error:
        raise StoreError(f"{under}: {error.strerror or error}") from None
    try:
        # Made and entered one name at a time, through descriptors: never through a link,
        # however the folders change meanwhile.
        reached = under
        for part in path.relative_to(under).parts:
            reached = reached / part
            with contextlib.suppress(FileExistsError):  # a link or a file: refused below
                os.mkdir(part, DIR_MODE, dir_fd=fd)
            try:
                child = os.open(part, _FOLDER, dir_fd=fd)
            except OSError as error:
                if error.errno in (errno.ELOOP, errno.ENOTDIR):
                    raise StoreError(f"{reached}: a link or not a folder; refused (the "
                                     "daemon never writes through a link inside a hive)"
                                     ) from None
                raise StoreError(f"{reached}: {error.strerror or error}") from None
            os.close(fd)
            fd = child
    except BaseException:
        os.close(fd)
        raise
    return fd


def require_real_dir(path: Path, refusal: type[Exception] = StoreError) -> None:
    """`path` is a folder itself, not a link to one: else `refusal` says so."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        raise refusal(f"{path}: missing") from None
    if stat.S_ISLNK(mode):
        raise refusal(f"{path}: a link; refused (the daemon never writes or reads through "
                      "a link inside a hive)")
    if not stat.S_ISDIR(mode):
        raise refusal(f"{path}: not a folder; refused")


def write_atomic(path: Path, data: bytes, mode: int = FILE_MODE, sync_dir: bool = True,
                 under: Path | None = None) -> None:
    """Temp file in the same folder, fsync, rename over `path`, fsync the folder. With
    `under` (the hive), the folder is reached through descriptors that follow no link.

    On failure the temp file is removed, `path` keeps its previous content, and
    StoreError says why.
    """
    try:
        folder = (open_folder(under, path.parent) if under is not None
                  else os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC))
    except OSError as error:
        raise StoreError(f"{path.parent}: {error.strerror or error}") from None
    try:
        replace_in(folder, path, data, mode, sync_dir)
    finally:
        os.close(folder)


def replace_in(folder: int, path: Path, data: bytes, mode: int = FILE_MODE,
               sync_dir: bool = True) -> None:
    """`write_atomic` of `path` in the folder open at `folder` (its descriptor)."""
    temp = None
    try:
        temp = f".{path.name}.{os.urandom(6).hex()}.tmp"  # not `secrets`: a hook starts faster
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                     mode, dir_fd=folder)
        try:
            os.fchmod(fd, mode)
            _write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temp, path.name, src_dir_fd=folder, dst_dir_fd=folder)
        temp = None
        if sync_dir:
            os.fsync(folder)
    except OSError as error:
        raise StoreError(f"{path}: {error.strerror or error}") from None
    finally:
        if temp is not None:
            with contextlib.suppress(OSError):
                os.unlink(temp, dir_fd=folder)


_FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


@functools.lru_cache(maxsize=8192)
def _names_below(under: Path, folder: Path) -> tuple[str, ...]:
    # Every pass walks down to its journal and its flags: taking the path apart each time
    # cost more than the opens.
    parts = folder.relative_to(under).parts
    if ".." in parts:  # relative_to is textual: 'window/../..' is not below the hive
        raise OSError(errno.EACCES, "a path that climbs out of the hive", str(folder))
    return parts


def open_folder(under: Path, folder: Path) -> int:
    """A descriptor on `folder`, walked down from `under` (the hive) one name at a time:
    a link anywhere on the way is refused (ELOOP or ENOTDIR), however it got there."""
    fd = os.open(under, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for part in _names_below(under, folder):
            child = os.open(part, _FOLDER, dir_fd=fd)
            os.close(fd)
            fd = child
    except BaseException:
        os.close(fd)
        raise
    return fd


def _open_at(path: Path, flags: int, mode: int, under: Path | None) -> int:
    """os.open(path) without following a link: through folder descriptors from `under`
    when given, else on the last name only."""
    if under is None:
        return os.open(path, flags | os.O_NOFOLLOW, mode)
    folder = open_folder(under, path.parent)
    try:
        return os.open(path.name, flags | os.O_NOFOLLOW, mode, dir_fd=folder)
    finally:
        os.close(folder)


def open_regular(path: Path, under: Path | None = None) -> int:
    """A read descriptor on `path`, refusing links and anything but a regular file, and
    never blocking on a FIFO. `under`: the hive, walked down without following links."""
    try:
        fd = _open_at(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK, 0, under)
    except OSError as error:
        if error.errno in (errno.ELOOP, errno.ENOTDIR) and os.path.lexists(path):
            raise JournalError(f"{path}: a link; refused") from None
        raise JournalError(f"{path}: {error.strerror}") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise JournalError(f"{path}: not a regular file")
    return fd


def read_regular(path: Path, limit: int | None = None, under: Path | None = None
                 ) -> bytes | None:
    """The bytes of regular file `path` (at most `limit`), None when absent. A link, a
    FIFO or a device is refused (JournalError) without blocking."""
    try:
        fd = open_regular(path, under)
    except JournalError:
        if not os.path.lexists(path):
            return None
        raise
    try:
        with os.fdopen(fd, "rb", closefd=False) as stream:
            return stream.read() if limit is None else stream.read(limit)
    finally:
        os.close(fd)


def read_records(path: Path, under: Path | None = None) -> list[bytes]:
    """The non-blank lines of a small append-only file (flags, manifest); [] when absent."""
    data = read_regular(path, under=under)
    if data is None:
        return []
    return [line for line in data.split(b"\n") if line.strip()]


def append_durably(path: Path, payload: bytes, under: Path | None = None) -> None:
    """Written whole on an O_APPEND descriptor, then fsync; a torn last line (a crash or a
    full disk mid-append) is closed first so the new records start on a line of their
    own."""
    ensure_dir(path.parent, under if under is not None else path.parent.parent)
    fd = _open_at(path, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, FILE_MODE, under)
    try:
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            payload = b"\n" + payload
        _write_all(fd, payload)
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_all(fd: int, data: bytes) -> None:
    """Every byte of `data`: near a full disk or a size limit, a write takes only part."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
