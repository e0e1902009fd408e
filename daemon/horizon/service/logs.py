"""structlog configuration: JSON lines to `<log dir>/horizon.jsonl` (reopened when rotated),
JSON to stdout under systemd or with `--log-stdout`, readable lines on a terminal.

Journal text and keys never reach a log: callers pass counts, seqs, reasons and paths.
"""

from __future__ import annotations

import logging
import logging.handlers
import os
import sys
from pathlib import Path
from typing import Any

import structlog

LOG_FILE = "horizon.jsonl"
_LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "warning": logging.WARNING,
           "error": logging.ERROR}
_handlers: list[logging.Handler] = []
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


def _pre_chain() -> list[Any]:
    return [
        structlog.contextvars.merge_contextvars,
        structlog.stdlib.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True, key="ts"),
    ]


def _formatter(renderer: Any) -> logging.Formatter:
    return structlog.stdlib.ProcessorFormatter(
        processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta,
                    structlog.processors.format_exc_info, renderer],
        foreign_pre_chain=_pre_chain(),
    )


class _PriorityPrefixed(logging.Formatter):
    """journald reads a leading `<N>` as the line's syslog priority (SyslogLevelPrefix=,
    on by default), so `journalctl -p warning` filters our lines like any daemon's."""

    def __init__(self, inner: logging.Formatter) -> None:
        super().__init__()
        self.inner = inner

    def format(self, record: logging.LogRecord) -> str:
        priority = _SYSLOG_PRIORITY.get(record.levelno, 6)
        return f"<{priority}>{self.inner.format(record)}"


class _StoppingEmitter(logging.Filter):
    """watchdog logs an error when its inotify thread reads one last event while we stop
    it (or unwatch a removed hive): a race inside the library, on a watch we are ending
    ourselves, where nothing is lost. It must not read as a failure of the daemon."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith("InotifyEmitter.queue_events() called when")


class LogDirError(Exception):
    """The log folder cannot be made or its file opened: the message names it and why."""


def configure(log_dir: Path | None, level: str = "info", fmt: str = "auto",
              stdout: bool = False) -> Path | None:
    """Set up every output; returns the log file's path. Raises LogDirError, with the
    outputs in place left as they were, when the log file cannot be opened."""
    json_renderer = structlog.processors.JSONRenderer(ensure_ascii=False)
    path = None
    handlers: list[logging.Handler] = []
    if log_dir is not None:
        try:
            log_dir.mkdir(mode=0o750, parents=True, exist_ok=True)
            path = log_dir / LOG_FILE
            # WatchedFileHandler reopens the file when logrotate moves it away.
            file_handler = logging.handlers.WatchedFileHandler(path, encoding="utf-8")
        except OSError as error:
            raise LogDirError(f"cannot write the log file in {log_dir}: "
                              f"{error.strerror or error}") from None
        file_handler.setFormatter(_formatter(json_renderer))
        handlers.append(file_handler)
    root = logging.getLogger("horizon")
    for handler in _handlers:
        root.removeHandler(handler)
        handler.close()
    _handlers[:] = handlers
    root.setLevel(_LEVELS.get(level, logging.INFO))
    root.propagate = False
    if stdout or under_systemd():
        stream: logging.Handler = logging.StreamHandler(sys.stdout)
        stream.setFormatter(_PriorityPrefixed(_formatter(json_renderer))
                            if stdout_is_the_journal() else _formatter(json_renderer))
        _handlers.append(stream)
    elif sys.stderr.isatty() and fmt != "json":
        stream = logging.StreamHandler(sys.stderr)
        stream.setFormatter(_formatter(structlog.dev.ConsoleRenderer(colors=True)))
        _handlers.append(stream)
    for handler in _handlers:
        root.addHandler(handler)
    # The libraries' own warnings go to the same outputs, as JSON lines like ours.
    for name in ("apscheduler", "watchdog"):
        library = logging.getLogger(name)
        library.handlers = list(_handlers)
        library.setLevel(logging.WARNING)
        library.propagate = False
    logging.getLogger("watchdog.observers.inotify").filters = [_StoppingEmitter()]
    structlog.configure(
        processors=[*_pre_chain(), structlog.stdlib.ProcessorFormatter.wrap_for_formatter],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=False,
    )
    return path


def current_file() -> str | None:
    """The log file lines go to now, if any."""
    return next((handler.baseFilename for handler in _handlers
                 if isinstance(handler, logging.FileHandler)), None)


def reopen() -> None:
    """Close the log file so the next line opens it afresh (SIGHUP, after logrotate)."""
    for handler in _handlers:
        if isinstance(handler, logging.FileHandler):
            handler.acquire()
            try:
                if handler.stream:
                    handler.stream.close()
                handler.stream = handler._open()
            finally:
                handler.release()


def get_logger() -> Any:
    return structlog.get_logger("horizon")
