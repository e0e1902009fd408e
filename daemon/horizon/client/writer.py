"""`append`: one entry, checked with the daemon's own decoder, written as one line with
one `write()` on an `O_APPEND` descriptor opened and closed for it."""

from __future__ import annotations

import errno
import os
import stat
import threading
import time
from collections.abc import Mapping
from pathlib import Path

import msgspec

from horizon.core.entries import Rejection, decode_line
from horizon.core.errors import HorizonError
from horizon.core.settings import GlobalConfig
from horizon.hive.discovery import discover
from horizon.hive.layout import WINDOW, is_bee_name, live_name, parse_journal_name

DEFAULT_MAX_LINE_BYTES = GlobalConfig().max_line_bytes
JOURNAL_MODE = 0o660  # the daemon, in the hive group, must read and link it
_SETTLED_NS = 1_000_000_000
_FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_encoder = msgspec.json.Encoder()


class ClientError(HorizonError):
    """What the client refuses or cannot do; `append` has then written nothing."""


class InvalidEntry(ClientError, ValueError):
    """The entry breaks the writer contract: the daemon would reject it or ignore a field."""


class LineTooLong(InvalidEntry):
    """The encoded line is over `max_line_bytes`: the daemon would reject it."""


class InvalidBee(ClientError, ValueError):
    """Not a bee name, or the case twin of a bee the hive already has."""


class JournalRefused(ClientError, OSError):
    """The journal or its folder is not a regular file and folder of the hive (a link, a
    FIFO, a folder), or cannot be opened."""


class UnknownBee(ClientError, LookupError):
    """The hive or the bee named is not there: a typo, an unmounted disk. Catch this for
    both; HiveNotFound and BeeNotFound say which."""


class HiveNotFound(UnknownBee):
    """The hive is not a folder with a `window/`."""


class BeeNotFound(UnknownBee):
    """The hive has no such bee (no journal, no recorded segment, no `bees/<bee>.toml`):
    `append(..., create=True)` starts its journal."""


class ShortWrite(ClientError, OSError):
    """The system wrote part of the line. It is never followed by a second write: the
    daemon rejects the torn line when a later one completes it."""


def append(hive: str | os.PathLike[str], bee: str, entry: Mapping[str, object], *,
           max_line_bytes: int = DEFAULT_MAX_LINE_BYTES, create: bool = False) -> int:
    """Append `entry` to the bee's live journal; the bytes written (the line and its
    newline). Raises a ClientError, having written nothing, for a refused entry or
    journal: BeeNotFound for a bee the hive does not have, unless `create` starts it."""
    if not is_bee_name(bee):
        raise InvalidBee(f"{bee!r} is not a bee name")
    line = encoded(entry, max_line_bytes)
    window = os.path.join(hive, WINDOW)
    try:
        # The window's name only is not followed: a link there could lead out of the hive.
        folder = os.open(window, _FOLDER)
    except OSError as error:
        # No hive, or a file where it would be; a window that is a link is refused below.
        if isinstance(error, FileNotFoundError) or (
                isinstance(error, NotADirectoryError) and not os.path.isdir(hive)):
            raise HiveNotFound(f"{os.fspath(hive)}: no hive here (no {WINDOW}/ "
                               "folder)") from None
        raise JournalRefused(error.errno, f"{window}: {error.strerror}") from None
    name = live_name(bee)
    try:
        fd = _open_journal(folder, name, window, create=False)
        try:
            if fd is None or _listing.twins(folder, bee):
                # A new journal, or a case twin beside it: the hive's bees, as the daemon
                # finds them (settings files and manifests too), say whether it is ours.
                _refuse_twin(hive, bee, create=create or fd is not None)
        except BaseException:
            if fd is not None:
                os.close(fd)
            raise
        if fd is None:
            fd = _open_journal(folder, name, window, create=True)
            assert fd is not None  # created, or made by another writer meanwhile
    finally:
        os.close(folder)
    try:
        written = os.write(fd, line)
    except OSError as error:
        raise JournalRefused(error.errno, f"{os.path.join(window, name)}: "
                                          f"{error.strerror}") from None
    finally:
        os.close(fd)
    if written != len(line):
        raise ShortWrite(errno.EIO, f"{os.path.join(window, name)}: {written} of "
                                    f"{len(line)} bytes written; the torn line is left as "
                                    "it is")
    return written


def encoded(entry: Mapping[str, object], max_line_bytes: int) -> bytes:
    """The entry's journal line, checked as the daemon reads it."""
    if not isinstance(entry, Mapping):
        raise InvalidEntry(f"an entry is a JSON object, not {type(entry).__name__}")
    try:
        line = _encoder.encode(entry if type(entry) is dict else dict(entry)) + b"\n"
    except (TypeError, ValueError, msgspec.EncodeError) as error:
        raise InvalidEntry(f"cannot be written as JSON: {error}") from None
    except RecursionError:
        raise InvalidEntry("cannot be written as JSON: nested too deep") from None
    if len(line) - 1 > max_line_bytes:
        raise LineTooLong(f"the line would be {len(line) - 1} bytes, over max_line_bytes "
                          f"({max_line_bytes})")
    read = decode_line(1, line[:-1])
    if isinstance(read, Rejection):
        detail = f": {read.detail}" if read.detail else ""
        raise InvalidEntry(f"the daemon would reject it ({read.reason.value}{detail})")
    if read.bad_field:
        field = "ok" if "ok" in entry and not isinstance(entry["ok"], bool) else "files"
        raise InvalidEntry(f"{field!r} has the wrong type: ok is true or false, files a "
                           "list of strings")
    return line


class _Listing:
    """The live journals' folded names of the last window listed, kept while the folder
    is unchanged (an entry added, removed or renamed changes its mtime): a runtime
    appending line after line lists its window once per new file, not once per line.

    A listing is kept only when the folder's mtime was a second old when it was made: a
    file system's clock ticks coarsely, and a change in the same tick would keep the mtime.
    """

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.key: tuple[int, int, int, int] | None = None
        self.bees: dict[str, set[str]] = {}  # folded name: the bees that fold to it

    def twins(self, folder: int, bee: str) -> list[str]:
        """The hive's other bees whose names fold to `bee`'s."""
        info = os.fstat(folder)
        # ctime too: an owner can set the mtime back, never the ctime.
        key = (info.st_dev, info.st_ino, info.st_mtime_ns, info.st_ctime_ns)
        with self.lock:
            if key != self.key:
                bees: dict[str, set[str]] = {}
                for name in os.listdir(folder):
                    parsed = parse_journal_name(name)
                    if parsed is not None and parsed.number is None:
                        bees.setdefault(parsed.bee.casefold(), set()).add(parsed.bee)
                settled = info.st_mtime_ns < time.time_ns() - _SETTLED_NS
                self.key, self.bees = (key if settled else None), bees
            folding = self.bees.get(bee.casefold())
        if not folding or (len(folding) == 1 and bee in folding):
            return []
        return sorted(folding - {bee})


_listing = _Listing()


def _refuse_twin(hive: str | os.PathLike[str], bee: str, *, create: bool) -> None:
    """A bee whose name differs only by case from one the daemon serves is refused: on a
    case-folding file system they would share a journal. A twin the daemon refuses (a
    journal planted beside a bee it serves) does not refuse the bee it serves. A bee the
    hive does not have is refused unless `create`."""
    try:
        bees, problems = discover(Path(os.fspath(hive)))
    except (HorizonError, OSError) as error:
        raise JournalRefused(errno.EIO, f"{os.fspath(hive)}: {error}") from None
    if bee in bees:
        return
    refused = [problem for problem in problems if problem.startswith(f"bee {bee!r}:")]
    if refused:  # twins none of whose files tells which one the hive has: neither
        raise InvalidBee(refused[0])
    folded = bee.casefold()
    twins = sorted(other for other in bees if other.casefold() == folded)
    if twins:
        raise InvalidBee(f"{bee!r} is the case twin of the hive's bee {twins[0]!r}")
    if not create:
        known = ", ".join(bees[:5]) + (", …" if len(bees) > 5 else "") if bees else "none"
        raise BeeNotFound(f"{os.fspath(hive)} has no bee {bee!r} (its bees: {known}); "
                          "append with create=True (horizon append --create) to start it")


def _open_journal(folder: int, name: str, window: str, *, create: bool) -> int | None:
    """The live journal for appending (None when missing and not `create`), made 0660
    whatever the umask when created; only a regular file, never through a link, never
    blocking on a FIFO."""
    flags = os.O_WRONLY | os.O_APPEND | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    try:
        try:
            fd = os.open(name, flags, dir_fd=folder)
        except FileNotFoundError:
            if not create:
                return None
            try:
                fd = os.open(name, flags | os.O_CREAT | os.O_EXCL, JOURNAL_MODE, dir_fd=folder)
                os.fchmod(fd, JOURNAL_MODE)  # the umask took bits the group needs
            except FileExistsError:  # another writer made it meanwhile
                fd = os.open(name, flags, dir_fd=folder)
    except OSError as error:
        raise JournalRefused(error.errno, f"{os.path.join(window, name)}: {error.strerror} "
                                          "(a journal is a regular file, never a link)"
                             ) from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise JournalRefused(errno.EINVAL, f"{os.path.join(window, name)}: not a regular "
                                           "file")
    return fd
