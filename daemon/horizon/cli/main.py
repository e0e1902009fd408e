"""The `horizon` command line: argument parsing and the exit codes."""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from collections.abc import Callable, Sequence

from horizon import __version__
from horizon.cli.exits import EXIT_OK, EXIT_PROBLEM, UserError
from horizon.core.entries import parse_ts


def instant(text: str) -> float:
    """`--now`: RFC 3339 with offset, or epoch seconds."""
    value: str | float = text
    with contextlib.suppress(ValueError):
        value = float(text)
    parsed = parse_ts(value)
    if parsed is None:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not an instant (RFC 3339 with offset, or epoch seconds)"
        )
    return parsed


def seq_number(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a seq (a whole number)") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a seq (seqs start at 1)")
    return value


def seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if value <= 0:
        raise argparse.ArgumentTypeError("the duration must be positive")
    return value


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--config", metavar="PATH", default=argparse.SUPPRESS,
                        help="global config.json (else $HORIZON_CONFIG, /etc/horizon/config.json)")
    parser = argparse.ArgumentParser(
        prog="horizon", parents=[common],
        description="Keeps a bounded working memory (handoff.md) for every bee of a hive.",
    )
    parser.add_argument("--version", action="version", version=f"horizon {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    run = commands.add_parser("run", parents=[common], help="the daemon, in the foreground")
    run.add_argument("--log-stdout", action="store_true", help="also log JSON lines to stdout")

    demo = commands.add_parser("demo", parents=[common],
                               help="a demo hive, the daemon on it, the zones live")
    demo.add_argument("--dir", default="demo-hive", help="where to make the demo hive")
    demo.add_argument("--seconds", type=seconds, default=None, help="stop after N seconds")

    render = commands.add_parser("render", parents=[common], help="print the current view")
    render.add_argument("hive")
    render.add_argument("bee")
    render.add_argument("--json", action="store_true", help="the view's structure as JSON")
    render.add_argument("--fresh", action="store_true",
                        help="also fold in complete lines not yet read (in memory)")
    render.add_argument("--now", type=instant, help="the time to render at")

    rebuild = commands.add_parser("rebuild", parents=[common],
                                  help="rebuild derived state from the journal")
    rebuild.add_argument("hive")
    rebuild.add_argument("bee", nargs="?")
    rebuild.add_argument("--now", type=instant, help="the time to rebuild at")

    status = commands.add_parser("status", parents=[common], help="daemon and bees at a glance")
    status.add_argument("hive", nargs="?")
    status.add_argument("--json", action="store_true")

    phare = commands.add_parser("phare", parents=[common],
                                help="flag (or unflag) an entry as a lighthouse")
    phare.add_argument("hive")
    phare.add_argument("bee")
    phare.add_argument("seq", type=seq_number)
    phare.add_argument("--off", action="store_true", help="remove the flag")

    adopt = commands.add_parser(
        "adopt", parents=[common],
        help="take in a bee's archive segments that no record names (made by hand or by "
             "an older tool)",
        description="Records, in name order, the segments of window/archive/ that belong to "
                    "BEE and that no record names, so they become part of its history. "
                    "Refused on a hive a daemon serves, and for a bee whose lines are "
                    "already numbered. Example: horizon adopt /srv/hive mia. Exit codes: 0 "
                    "done, 1 a problem (locked hive, unknown name), 2 bad usage.")
    adopt.add_argument("hive")
    adopt.add_argument("bee")

    config = commands.add_parser("config", parents=[common],
                                 help="a bee's effective settings and where each comes from")
    config.add_argument("hive")
    config.add_argument("bee")
    config.add_argument("--json", action="store_true")

    check = commands.add_parser(
        "check", parents=[common],
        help="validate every settings file and audit each hive's owners, modes and links",
        description="Validates config.json, every hive's horizon.toml and bees/*.toml (the "
                    "whole cascade, naming the bee an error belongs to), then audits each "
                    "hive against the recommended layout: one 'warning: PATH: reason' line "
                    "per breach. Example: horizon check /srv/hive --strict. Exit codes: 0 "
                    "valid (warnings allowed), 1 an invalid file (or, with --strict, a "
                    "warning), 2 bad usage.")
    check.add_argument("hives", nargs="*", metavar="HIVE", help="hives beyond config.json's")
    check.add_argument("--strict", action="store_true", help="exit 1 on an audit warning too")

    init = commands.add_parser(
        "init", parents=[common],
        help="make a hive with the recommended owners and modes",
        description="Creates HIVE, window/ (2770, setgid: journals inherit the group), "
                    "window/archive/, horizon/, phares/ and bees/ (2750), all owned by you "
                    "and GROUP. An existing hive is left as it is and its breaches "
                    "reported; a folder in use that is not a hive is refused. Example: "
                    "sudo -u horizon horizon init /srv/hive --group hive. Exit codes: 0 "
                    "done, 1 a problem, 2 bad usage.")
    init.add_argument("hive")
    init.add_argument("--group", help="the hive group (default: your primary group)")
    return parser


def _handlers() -> dict[str, Callable[[argparse.Namespace], int]]:
    from horizon.cli import operate, status, view

    return {
        "render": view.render,
        "rebuild": operate.rebuild,
        "status": status.command,
        "phare": operate.phare,
        "config": operate.config,
        "adopt": operate.adopt,
        "init": operate.init,
        "check": operate.check,
        "run": operate.run,
        "demo": operate.demo,
    }


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if not hasattr(args, "config"):
        args.config = None
    args.wall_now = time.time()
    try:
        return _handlers()[args.command](args)
    except UserError as error:
        print(f"horizon: {error}", file=sys.stderr)
        return EXIT_PROBLEM
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
