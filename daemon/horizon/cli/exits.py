"""Exit codes of the command line, and the one error family it reports without a traceback."""

from __future__ import annotations

from horizon.core.errors import HiveError, HorizonError

EXIT_OK = 0
EXIT_PROBLEM = 1
EXIT_USAGE = 2
EXIT_DEGRADED = 3


class UserError(HorizonError):
    """A problem the operator can fix, reported on stderr without a traceback."""


class DemoError(HiveError):
    """The demo cannot start or go on: a folder it must not touch, or its daemon died."""
