"""A bee's import record, `window/<bee>-imports.json`: per transcript, how far it was
imported. Imports of one bee take its lock in turn; a save replaces the file whole.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import stat
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import msgspec

from horizon.core.errors import JournalError
from horizon.hive.durable import StoreError, replace_in
from horizon.hive.layout import WINDOW, import_record_name

RECORD_FORMAT = 1
RECORD_MODE = 0o660  # the runtime's user and the operator, both in the hive group, import
MAX_TRANSCRIPTS = 1000  # per bee: the oldest transcripts' progress leaves first
MAX_RECORD_BYTES = 16 << 20
LOCK_WAIT_S = 10.0
_FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class ImportRefused(JournalError):
    """The transcript, the hive or the import record cannot be used; nothing was
    appended past what the report says."""


Count = Annotated[int, msgspec.Meta(ge=0)]


class Progress(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """How far one transcript was imported."""

    offset: Count  # where the next reading starts, in bytes
    line: Count  # the number of the line just before it
    imported_line: Count  # the last line an appended entry was made from
    uuid: str  # that line's uuid
    check: str  # sha256 of the up to CHECK_BYTES bytes before `offset`


class ImportRecord(msgspec.Struct, forbid_unknown_fields=True):
    format: int
    transcripts: dict[str, Progress] = msgspec.field(default_factory=dict)


_record = msgspec.json.Decoder(ImportRecord)
_record_encoder = msgspec.json.Encoder()


@dataclass
class RecordFile:
    """The bee's import record, locked, as read."""

    folder: int
    name: str
    window: str
    document: ImportRecord

    def save(self) -> None:
        transcripts = self.document.transcripts
        while len(transcripts) > MAX_TRANSCRIPTS:
            del transcripts[next(iter(transcripts))]
        try:
            replace_in(self.folder, Path(self.window) / self.name,
                       _record_encoder.encode(self.document), RECORD_MODE)
        except StoreError as error:
            raise ImportRefused(f"{error}; the entries were appended, a new import "
                                "would append them again") from None


@contextlib.contextmanager
def locked_record(hive: Path, bee: str, lock_wait_s: float) -> Iterator[RecordFile]:
    window = os.path.join(hive, WINDOW)
    try:
        folder = os.open(window, _FOLDER)
    except OSError as error:
        raise ImportRefused(f"{window}: {error.strerror} (is {hive} a hive?)") from None
    name = import_record_name(bee)
    where = os.path.join(window, name)
    try:
        fd = _lock(folder, name, where, lock_wait_s)
        try:
            yield RecordFile(folder, name, window, _read_record(fd, where))
        finally:
            os.close(fd)  # the lock goes with it
    finally:
        os.close(folder)


def _lock(folder: int, name: str, where: str, wait_s: float) -> int:
    """The record open and locked: a save replaces the file, so a lock taken on a file
    since replaced is taken again on the new one."""
    deadline = time.monotonic() + wait_s
    flags = os.O_RDWR | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    while True:
        try:
            try:
                fd = os.open(name, flags, dir_fd=folder)
            except FileNotFoundError:
                fd = os.open(name, flags | os.O_CREAT | os.O_EXCL, RECORD_MODE,
                             dir_fd=folder)
                os.fchmod(fd, RECORD_MODE)  # ours: the umask took bits the group needs
        except FileExistsError:
            continue  # another import made it meanwhile
        except OSError as error:
            raise ImportRefused(f"{where}: {error.strerror} (the import record is a "
                                "regular file, never a link)") from None
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_nlink != 1:
            os.close(fd)
            raise ImportRefused(f"{where}: not a regular file of its own (a FIFO, a "
                                "folder, or a hard link to another file)")
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    os.close(fd)
                    raise ImportRefused(f"{where}: another import of this bee holds it "
                                        f"for over {wait_s:.0f} s") from None
                time.sleep(0.01)
        try:
            current = os.stat(name, dir_fd=folder, follow_symlinks=False)
        except FileNotFoundError:
            current = None
        if current is not None and current.st_ino == os.fstat(fd).st_ino:
            return fd
        os.close(fd)


def _read_record(fd: int, where: str) -> ImportRecord:
    size = os.fstat(fd).st_size
    if size == 0:
        return ImportRecord(format=RECORD_FORMAT)
    if size > MAX_RECORD_BYTES:
        raise ImportRefused(f"{where}: {size} bytes, not an import record")
    data = os.pread(fd, size, 0)
    try:
        record = _record.decode(data)
    except msgspec.DecodeError as error:
        raise ImportRefused(f"{where}: not an import record ({error}); remove it to "
                            "import from the start (entries imported before would be "
                            "appended again)") from None
    if record.format != RECORD_FORMAT:
        raise ImportRefused(f"{where}: format {record.format}, this horizon reads "
                            f"{RECORD_FORMAT}")
    return record
