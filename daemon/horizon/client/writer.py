"""`append`: one entry, checked with the daemon's own decoder, written as one line with
one `write()` on an `O_APPEND` descriptor opened and closed for it."""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Mapping
from pathlib import Path

import msgspec

from horizon.core.entries import Rejection, decode_line
from horizon.core.errors import HorizonError
from horizon.core.settings import GlobalConfig
from horizon.hive.durable import open_folder
from horizon.hive.layout import is_bee_name, live_name, parse_journal_name, window_dir

DEFAULT_MAX_LINE_BYTES = GlobalConfig().max_line_bytes
JOURNAL_MODE = 0o660  # the daemon, in the hive group, must read and link it
_encoder = msgspec.json.Encoder()


class ClientError(HorizonError):
    """What `append` refuses: nothing was written."""


class InvalidEntry(ClientError, ValueError):
    """The entry breaks the writer contract: the daemon would reject it or ignore a field."""


class LineTooLong(InvalidEntry):
    """The encoded line is over `max_line_bytes`: the daemon would reject it."""


class InvalidBee(ClientError, ValueError):
    """Not a bee name, or the case twin of a bee the hive already has."""


class JournalRefused(ClientError, OSError):
    """The journal or its folder is not a regular file and folder of the hive (a link, a
    FIFO, a folder), or cannot be opened."""


class ShortWrite(ClientError, OSError):
    """The system wrote part of the line. It is never followed by a second write: the
    daemon rejects the torn line when a later one completes it."""


def append(hive: str | os.PathLike[str], bee: str, entry: Mapping[str, object], *,
           max_line_bytes: int = DEFAULT_MAX_LINE_BYTES) -> int:
    """Append `entry` to the bee's live journal; the bytes written (the line and its
    newline). Raises a ClientError, having written nothing, for a refused entry or
    journal."""
    hive_path = Path(hive)
    if not is_bee_name(bee):
        raise InvalidBee(f"{bee!r} is not a bee name")
    line = encoded(entry, max_line_bytes)
    window = window_dir(hive_path)
    try:
        folder = open_folder(hive_path, window)
    except OSError as error:
        raise JournalRefused(error.errno, f"{window}: {error.strerror}") from None
    try:
        _refuse_twin(folder, bee)
        fd = _open_journal(folder, live_name(bee), window)
    finally:
        os.close(folder)
    try:
        written = os.write(fd, line)
    except OSError as error:
        raise JournalRefused(error.errno, f"{window / live_name(bee)}: {error.strerror}") \
            from None
    finally:
        os.close(fd)
    if written != len(line):
        raise ShortWrite(errno.EIO, f"{window / live_name(bee)}: {written} of {len(line)} "
                                    "bytes written; the torn line is left as it is")
    return written


def encoded(entry: Mapping[str, object], max_line_bytes: int) -> bytes:
    """The entry's journal line, checked as the daemon reads it."""
    if not isinstance(entry, Mapping):
        raise InvalidEntry(f"an entry is a JSON object, not {type(entry).__name__}")
    try:
        line = _encoder.encode(dict(entry)) + b"\n"
    except (TypeError, ValueError, msgspec.EncodeError) as error:
        raise InvalidEntry(f"cannot be written as JSON: {error}") from None
    if len(line) - 1 > max_line_bytes:
        raise LineTooLong(f"the line would be {len(line) - 1} bytes, over max_line_bytes "
                          f"({max_line_bytes})")
    read = decode_line(1, line[:-1])
    if isinstance(read, Rejection):
        detail = f": {read.detail}" if read.detail else ""
        raise InvalidEntry(f"the daemon would reject it ({read.reason.value}{detail})")
    if read.bad_field:
        field = "ok" if entry.get("ok") is not None and read.ok is None else "files"
        raise InvalidEntry(f"{field!r} has the wrong type: ok is true or false, files a "
                           "list of strings")
    return line


def _refuse_twin(folder: int, bee: str) -> None:
    """A bee whose name differs from one the hive has only by case is refused: on a
    case-folding file system they would share a journal."""
    folded = bee.casefold()
    for name in os.listdir(folder):
        parsed = parse_journal_name(name)
        if parsed is not None and parsed.number is None and parsed.bee != bee and (
                parsed.bee.casefold() == folded):
            raise InvalidBee(f"{bee!r} is the case twin of the hive's bee {parsed.bee!r}")


def _open_journal(folder: int, name: str, window: Path) -> int:
    """The live journal for appending, made 0660 whatever the umask when missing; only a
    regular file, never through a link, never blocking on a FIFO."""
    flags = os.O_WRONLY | os.O_APPEND | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    try:
        try:
            fd = os.open(name, flags, dir_fd=folder)
        except FileNotFoundError:
            try:
                fd = os.open(name, flags | os.O_CREAT | os.O_EXCL, JOURNAL_MODE, dir_fd=folder)
                os.fchmod(fd, JOURNAL_MODE)  # the umask took bits the group needs
            except FileExistsError:  # another writer made it meanwhile
                fd = os.open(name, flags, dir_fd=folder)
    except OSError as error:
        raise JournalRefused(error.errno, f"{window / name}: {error.strerror} (a journal "
                                          "is a regular file, never a link)") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise JournalRefused(errno.EINVAL, f"{window / name}: not a regular file")
    return fd
