"""structlog configuration: JSON lines to `<log dir>/horizon.jsonl` (reopened when rotated),
JSON to stdout under systemd or with `--log-stdout`, readable lines on a terminal.

Journal text and keys never reach a log: callers pass counts, seqs, reasons and paths.

A line is rendered once, by structlog's own pipeline, and written to every output by one
small sink (`_Outputs`): a busy daemon logs a line per pass, and going through the
standard library's records, handlers and formatters cost it several times the pass's
own rendering. The libraries' warnings (watchdog, APScheduler) still come through the
standard library, and reach the same outputs as JSON lines like ours.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

import msgspec
import structlog
from apscheduler.job import Job
from structlog.typing import EventDict, WrappedLogger

from horizon.core.errors import WriteError

LOG_FILE = "horizon.jsonl"
_LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "warning": logging.WARNING,
           "error": logging.ERROR, "critical": logging.CRITICAL}
_SYSLOG_PRIORITY = {logging.DEBUG: 7, logging.INFO: 6, logging.WARNING: 4, logging.ERROR: 3,
                    logging.CRITICAL: 2}


def under_systemd() -> bool:
    return "INVOCATION_ID" in os.environ or "JOURNAL_STREAM" in os.environ


def stdout_is_the_journal() -> bool:
    """Whether stdout is the journal's stream: JOURNAL_STREAM names its device and inode,
    and child processes inherit the variable, so it is compared with stdout itself."""
    device, _, inode = os.environ.get("JOURNAL_STREAM", "").partition(":")
    try:
        info = os.fstat(sys.stdout.fileno())
        return (int(device), int(inode)) == (info.st_dev, info.st_ino)
    except (ValueError, OSError):
        return False


class LogDirError(WriteError):
    """The log folder cannot be made or its file opened: the message names it and why."""


class _LogFile:
    """The log file, opened again when logrotate moved or removed it (as the standard
    library's WatchedFileHandler does: a stat of its name before each line)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.stream = self._open()

    def _open(self) -> TextIO:
        stream = self.path.open("a", encoding="utf-8")
        info = os.fstat(stream.fileno())
        self.identity = (info.st_dev, info.st_ino)
        return stream

    def write(self, line: str) -> None:
        try:
            info = os.stat(self.path)
            moved = (info.st_dev, info.st_ino) != self.identity
        except FileNotFoundError:
            moved = True
        if moved or self.stream.closed:  # closed: a reopen that failed, tried again
            self.reopen()
        self.stream.write(line)
        self.stream.flush()

    def reopen(self) -> None:
        self.close()
        self.stream = self._open()

    def close(self) -> None:
        with contextlib.suppress(OSError):  # its last lines were lost already: said then
            self.stream.close()


_encoder = msgspec.json.Encoder(enc_hook=repr)  # what JSON cannot hold is shown as repr


def _json(event: EventDict) -> str:
    try:
        return _encoder.encode(event).decode("utf-8")
    except (TypeError, ValueError, OverflowError):
        # A key that is not a string, a number too large, a lone surrogate in a name read
        # from a folder: the standard library's encoder, ASCII only, what it cannot hold
        # as its repr.
        plain = {str(key): value for key, value in event.items()}
        try:
            return json.dumps(plain, default=repr)
        except (TypeError, ValueError, OverflowError, RecursionError):
            return json.dumps({key: repr(value) for key, value in plain.items()})


class _Outputs:
    """Where every line goes, and from which level. One object for the daemon's life:
    loggers made before a reload keep writing through it, to the outputs of the day."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.level = logging.INFO
        self.file: _LogFile | None = None
        self.stdout: TextIO | None = None
        self.prefixed = False  # stdout is the journal: each line says its priority
        self.console: TextIO | None = None
        self.pretty = structlog.dev.ConsoleRenderer(colors=True)
        self.failure: str | None = None  # the last failed write, said once

    def emit(self, levelno: int, event: EventDict) -> None:
        """Write one line everywhere; never raises: a full disk or a closed stdout must
        not stop the daemon that logs it (said once on stderr, as the standard library
        says a logging error)."""
        if levelno < self.level:
            return
        line = _json(event) + "\n"
        with self.lock:
            try:
                if self.file is not None:
                    self.file.write(line)
                if self.stdout is not None:
                    if self.prefixed:
                        self.stdout.write(f"<{_SYSLOG_PRIORITY.get(levelno, 6)}>")
                    self.stdout.write(line)
                    self.stdout.flush()
                if self.console is not None:
                    self.console.write(self.pretty(None, "", dict(event)) + "\n")
                    self.console.flush()
            except (OSError, ValueError) as error:
                self._failed(error)
            else:
                self.failure = None

    def _failed(self, error: Exception) -> None:
        said = f"horizon: a log line could not be written: {error}"
        if said != self.failure:
            self.failure = said
            with contextlib.suppress(OSError, ValueError):
                print(said, file=sys.__stderr__, flush=True)

    # What structlog's bound loggers call, by level, with the event rendered as a dict.
    def debug(self, event: EventDict) -> None:
        self.emit(logging.DEBUG, event)

    def info(self, event: EventDict) -> None:
        self.emit(logging.INFO, event)

    def warning(self, event: EventDict) -> None:
        self.emit(logging.WARNING, event)

    def error(self, event: EventDict) -> None:
        self.emit(logging.ERROR, event)

    def critical(self, event: EventDict) -> None:
        self.emit(logging.CRITICAL, event)


_OUTPUTS = _Outputs()


def _below_level(logger: WrappedLogger, method: str, event: EventDict) -> EventDict:
    # Checked first, so a debug line costs nothing when nobody reads it.
    if _LEVELS.get(method, logging.INFO) < _OUTPUTS.level:
        raise structlog.DropEvent
    return event


def _to_outputs(logger: WrappedLogger, method: str, event: EventDict
                ) -> tuple[tuple[EventDict], dict[str, object]]:
    return (event,), {}  # the sink's level method takes the event itself


# Each gives the event back (a structlog Processor may give other shapes: not these).
_PROCESSORS: list[Callable[[WrappedLogger, str, EventDict], EventDict]] = [
    _below_level,
    structlog.contextvars.merge_contextvars,
    structlog.processors.add_log_level,
    structlog.processors.TimeStamper(fmt="iso", utc=True, key="ts"),
    structlog.processors.format_exc_info,
]


class _LibraryLines(logging.Handler):
    """The libraries' own records, as lines of ours."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            level = record.levelname.lower()
            event: EventDict = {"event": f"library.{level}",
                                "library": record.name.split(".")[0],
                                "message": record.getMessage()}
            job = next((arg.id for arg in (record.args if isinstance(record.args, tuple)
                                           else ()) if isinstance(arg, Job)), None)
            if job is not None:  # APScheduler's "Run time of job ... was missed"
                event["job"] = job
            if record.exc_info:
                event["exc_info"] = record.exc_info
            for process in _PROCESSORS[1:]:
                event = process(None, level, event)
            # Bound when a library logs from a bee's pass; a scheduler thread knows neither.
            event.setdefault("hive", None)
            event.setdefault("bee", None)
        except Exception:  # a library's bad format string: its thread must go on
            self.handleError(record)
            return
        _OUTPUTS.emit(record.levelno, event)


class _StoppingEmitter(logging.Filter):
    """watchdog logs an error when its inotify thread reads one last event while we stop
    it (or unwatch a removed hive): a race inside the library, on a watch we are ending
    ourselves, where nothing is lost. It must not read as a failure of the daemon."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith("InotifyEmitter.queue_events() called when")


def configure(log_dir: Path | None, level: str = "info", fmt: str = "auto",
              stdout: bool = False) -> Path | None:
    """Set up every output; returns the log file's path. Raises LogDirError, with the
    outputs in place left as they were, when the log file cannot be opened."""
    path = None
    log_file = None
    if log_dir is not None:
        try:
            log_dir.mkdir(mode=0o750, parents=True, exist_ok=True)
            path = log_dir / LOG_FILE
            log_file = _LogFile(path)
        except OSError as error:
            raise LogDirError(f"cannot write the log file in {log_dir}: "
                              f"{error.strerror or error}") from None
    with _OUTPUTS.lock:
        if _OUTPUTS.file is not None:
            _OUTPUTS.file.close()
        _OUTPUTS.file = log_file
        _OUTPUTS.level = _LEVELS.get(level, logging.INFO)
        _OUTPUTS.stdout = _OUTPUTS.console = None
        _OUTPUTS.prefixed = False
        if stdout or under_systemd():
            _OUTPUTS.stdout = sys.stdout
            _OUTPUTS.prefixed = stdout_is_the_journal()
        elif sys.stderr.isatty() and fmt != "json":
            _OUTPUTS.console = sys.stderr
    # The libraries' warnings go to the same outputs, as JSON lines like ours.
    for name in ("apscheduler", "watchdog"):
        library = logging.getLogger(name)
        library.handlers = [_LibraryLines()]
        library.setLevel(logging.WARNING)
        library.propagate = False
    logging.getLogger("watchdog.observers.inotify").filters = [_StoppingEmitter()]
    structlog.configure(
        processors=[*_PROCESSORS, _to_outputs],
        logger_factory=lambda *args: _OUTPUTS,
        wrapper_class=structlog.make_filtering_bound_logger(logging.DEBUG),
        cache_logger_on_first_use=True,  # the outputs change in place, never the chain
    )
    return path


def debugging() -> bool:
    """Whether debug lines are written (checked once per pass by who makes many)."""
    return _OUTPUTS.level <= logging.DEBUG


def current_file() -> str | None:
    """The log file lines go to now, if any."""
    return str(_OUTPUTS.file.path) if _OUTPUTS.file is not None else None


def reopen() -> None:
    """Close the log file so the next line opens it afresh (SIGHUP, after logrotate)."""
    with _OUTPUTS.lock:
        if _OUTPUTS.file is not None:
            try:
                _OUTPUTS.file.reopen()
            except OSError as error:  # tried again at the next line
                _OUTPUTS._failed(error)


def get_logger() -> Any:  # structlog.get_logger is typed Any: a proxy bound later
    return structlog.get_logger("horizon")
