"""Exit codes of the command line, and the one error family it reports without a traceback."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator

from horizon.core.errors import HiveError, HorizonError

EXIT_OK = 0
EXIT_PROBLEM = 1
EXIT_USAGE = 2
EXIT_DEGRADED = 3


class UserError(HorizonError):
    """A problem the operator can fix, reported on stderr without a traceback."""


class DemoError(HiveError):
    """The demo cannot start or go on: a folder it must not touch, or its daemon died."""


def drop_stdout() -> None:
    """Our reader stopped reading (`horizon status | head -1`): what is left to print goes
    nowhere, and flushing it at exit cannot fail."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


@contextlib.contextmanager
def closed_stdout_is_fine() -> Iterator[None]:
    """Printing to a reader that may stop early: a closed stdout drops the rest, and the
    command keeps its own exit code."""
    try:
        yield
        sys.stdout.flush()
    except BrokenPipeError:
        drop_stdout()
