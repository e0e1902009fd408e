"""The terminal output of `status` and `top`, through rich, with horizon's answer to a
reader that stops reading."""

from __future__ import annotations

from rich.console import Console

from horizon.cli.exits import drop_stdout


class ReaderConsole(Console):
    """A rich Console for output a reader may stop reading (`horizon status | head -1`):
    rich's own answer exits 1; here the rest goes nowhere and the command keeps its own
    exit code (rich documents this override)."""

    def on_broken_pipe(self) -> None:
        self.quiet = True
        drop_stdout()
