"""horizon's errors, one tree: what a caller catches, by the family it can act on.

    HorizonError
    ├── UsageError     a request that cannot be run as asked (an argument, a query)
    ├── SettingsError  a settings file or value refused, naming the file and the key
    ├── HiveError      a hive or bee that cannot be served as it is (missing, locked,
    │                  refused, derived by a newer horizon)
    ├── JournalError   a journal that cannot be read safely
    ├── ModelError     a summarizer that did not give a usable answer
    └── WriteError     a file horizon writes that could not be written

The client's errors (`horizon.client`) derive from HorizonError too.
"""

from __future__ import annotations


class HorizonError(Exception):
    """Every error horizon raises on purpose derives from this one."""


class UsageError(HorizonError):
    """A request that cannot be run as asked: an argument, a query, a pattern."""


class SettingsError(HorizonError):
    """A refused settings value, naming the file, the key and the reason."""

    def __init__(self, source: str, key: str, reason: str) -> None:
        super().__init__(f"{source}: {key}: {reason}")
        self.source = source
        self.key = key
        self.reason = reason


class HiveError(HorizonError):
    """A hive or bee that cannot be served as it is, with a message for the operator."""


class JournalError(HorizonError):
    """A journal file that cannot be read safely (not regular, a link, unreadable)."""


class ModelError(HorizonError):
    """A summarizer that did not give a usable answer; the cascade falls back."""


class WriteError(HorizonError):
    """A file horizon writes could not be written; the previous version is in place."""


def os_reason(error: OSError) -> str:
    """A system error in one line: the file it names, when it names one, then why."""
    where = f"{error.filename}: " if error.filename else ""
    return f"{where}{error.strerror or error}"
