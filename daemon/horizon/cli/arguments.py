"""What every command's arguments share: the types of their values (instants, seqs,
counts, durations) and the way a command is added with its description, its examples and
its exit codes, all laid out alike in `--help`."""

from __future__ import annotations

import argparse
import contextlib
import textwrap
from collections.abc import Callable, Mapping, Sequence

from horizon.core.entries import parse_ts

WIDTH = 79
USAGE_EXIT = "bad usage: an unknown option, a missing or malformed argument"
NOW_HELP = ("the time to compute at, RFC 3339 with offset (2026-07-10T14:03:00+02:00, ...Z) "
            "or epoch seconds (default: now)")


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


def filled(text: str) -> str:
    """Paragraphs (blank-line separated) wrapped to the help's width."""
    return "\n\n".join(textwrap.fill(" ".join(paragraph.split()), WIDTH)
                       for paragraph in textwrap.dedent(text).strip().split("\n\n"))


def epilog(examples: Sequence[str], exits: Mapping[int, str]) -> str:
    """The examples and the exit codes, in the same layout for every command."""
    lines = ["examples:", *(f"  {example}" for example in examples), "", "exit codes:"]
    for code, meaning in exits.items():
        wrapped = textwrap.wrap(meaning, WIDTH - 5)
        lines += [f"  {code}  {wrapped[0]}", *(f"     {more}" for more in wrapped[1:])]
    return "\n".join(lines)


class Commands:
    """Adds subcommands that all take --config and carry a description, examples and their
    exit codes.

    `only`: the command being run. The others get a bare parser, so a command's start does
    not pay for wrapping every other command's help (`horizon --help` passes None).
    """

    def __init__(self, parser: argparse.ArgumentParser, common: argparse.ArgumentParser,
                 only: str | None = None):
        self.common = common
        self.only = only
        self.actions = parser.add_subparsers(dest="command", metavar="COMMAND", required=True,
                                             title="commands")

    def add(self, name: str, summary: str, description: str, examples: Sequence[str],
            exits: Mapping[int, str]) -> argparse.ArgumentParser:
        if self.only is not None and name != self.only:
            return self.actions.add_parser(name, help=summary, add_help=False)
        return self.actions.add_parser(
            name, parents=[self.common], help=summary,
            description=filled(f"{summary[0].upper()}{summary[1:]}.\n\n{description}"),
            epilog=epilog(examples, {**exits, 2: USAGE_EXIT} if 2 not in exits else exits),
            formatter_class=argparse.RawDescriptionHelpFormatter)


def count(low: int, high: int | None = None) -> Callable[[str], int]:
    """A whole number from `low` (to `high`), as an argument type."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < low or (high is not None and value > high):
            bounds = f"from {low} to {high}" if high is not None else f"at least {low}"
            raise argparse.ArgumentTypeError(f"{text!r} is out of range: {bounds}")
        return value
    return parse
