# PYTHON_ARGCOMPLETE_OK
"""The `horizon` command line: the command a line runs, its module loaded, and the exit
code of every error family (the arguments and help are cli/parser.py's).

The marker above tells argcomplete's global shell hook that this command completes itself.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import time
from collections.abc import Callable, Sequence

from horizon.cli.exits import EXIT_OK, EXIT_PROBLEM, UserError, closed_stdout_is_fine, drop_stdout
from horizon.cli.parser import build_parser
from horizon.cli.safe_text import printable
from horizon.core.errors import HorizonError

# Each command's module, imported only when that command runs: a daemon's start (and
# every command's) pays for its own imports, not for the demo's screen or the web view's.
_COMMANDS = {
    "render": ("horizon.cli.view", "render"),
    "show": ("horizon.cli.recall", "show"),
    "search": ("horizon.cli.recall", "search"),
    "rebuild": ("horizon.cli.operate", "rebuild"),
    "status": ("horizon.cli.status", "command"),
    "top": ("horizon.cli.top", "command"),
    "phare": ("horizon.cli.operate", "phare"),
    "config": ("horizon.cli.operate", "config"),
    "adopt": ("horizon.cli.operate", "adopt"),
    "init": ("horizon.cli.operate", "init"),
    "check": ("horizon.cli.operate", "check"),
    "run": ("horizon.cli.operate", "run"),
    "demo": ("horizon.cli.operate", "demo"),
    "example": ("horizon.cli.examples", "command"),
    "append": ("horizon.cli.append", "command"),
    "import": ("horizon.cli.importing", "command"),
    "hook": ("horizon.cli.hook", "command"),
}


def _handler(command: str) -> Callable[[argparse.Namespace], int]:
    if command == "mcp":
        return _with_extra("horizon.cli.mcp_server", "mcp", "the MCP server")
    if command == "serve":
        return _with_extra("horizon.cli.web.serve", "web", "the web view")
    module, name = _COMMANDS[command]
    handler: Callable[[argparse.Namespace], int] = getattr(
        importlib.import_module(module), name)
    return handler


def _with_extra(module: str, extra: str, what: str
                ) -> Callable[[argparse.Namespace], int]:
    """A command whose module needs an optional extra: its absence said in one line."""
    def run(args: argparse.Namespace) -> int:
        try:
            loaded = importlib.import_module(module)
        except ImportError as error:
            raise UserError(f"{what} needs the {extra} extra ({error.name} is missing): "
                            f"pip install 'horizon[{extra}]'") from None
        command: Callable[[argparse.Namespace], int] = loaded.command
        return command(args)
    return run


def _command_named(argv: Sequence[str] | None) -> str | None:
    """The command a command line runs, when its first word past the options names one."""
    words = list(sys.argv[1:] if argv is None else argv)
    while words and words[0].startswith("-"):
        # --config takes a value: `horizon --config PATH render ...`
        words = words[2:] if words[0] == "--config" else words[1:]
    known = {*_COMMANDS, "mcp", "serve"}
    return words[0] if words and words[0] in known else None


def main(argv: Sequence[str] | None = None) -> int:
    completing = "_ARGCOMPLETE" in os.environ
    parser = build_parser(None if completing else _command_named(argv))
    if completing:  # the shell asks for completions: answer and exit
        import argcomplete
        argcomplete.autocomplete(parser)
    args = parser.parse_args(argv)
    if not hasattr(args, "config"):
        args.config = None
    args.wall_now = time.time()
    try:
        code = _handler(args.command)(args)
    except HorizonError as error:  # every family, said in one line: the one exit they map to
        print(printable(f"horizon: {error}"), file=sys.stderr)
        return EXIT_PROBLEM
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `| head`: what the reader took was what it wanted
        drop_stdout()
        return EXIT_OK
    with closed_stdout_is_fine():  # what is still buffered, flushed while we can say so
        pass
    return code


if __name__ == "__main__":
    sys.exit(main())
