"""`horizon show` and `horizon search`: a bee's whole history by seq or by words, read
without writing and without the lock (the MCP tools print the same text)."""

from __future__ import annotations

import argparse
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

from horizon.cli.common import derived_settings, load_config_for_view, reported, warn
from horizon.cli.exits import EXIT_OK, EXIT_PROBLEM, UserError
from horizon.cli.safe_text import json_text, printable
from horizon.core.labels import Labels
from horizon.core.recall import ReadOn, hit_block, hit_json, shown_block, shown_json
from horizon.core.settings import Effective, GlobalConfig
from horizon.engine.recall import SHOW_MAX_CHARS, RecallError, Showing
from horizon.engine.recall import search as search_history
from horizon.engine.recall import show as show_entries
from horizon.hive.discovery import require_bee, require_hive


@dataclass(frozen=True)
class Bee:
    """A bee to recall for: its hive, its name, its view's language, the line limit."""

    hive: Path
    name: str
    effective: Effective
    max_line_bytes: int

    @property
    def labels(self) -> Labels:
        return self.effective.horizon.labels


def bee_for(args: argparse.Namespace) -> Bee:
    """The bee the arguments name; its settings as the daemon serves them (a broken
    settings file is named on stderr, and the last good settings stand in)."""
    config, source, broken_config = load_config_for_view(args)
    return resolve(config, source, broken_config, args.hive, args.bee)


def resolve(config: GlobalConfig, source: str, broken_config: str | None, hive_arg: str,
            bee_arg: str) -> Bee:
    with reported():
        hive = require_hive(hive_arg)
        bee = require_bee(hive, bee_arg)
        effective, broken = derived_settings(config, source, hive, bee, broken_config)
    if broken is not None and broken != broken_config:
        warn(f"{broken}; going on with the last good settings")
    return Bee(hive, bee, effective, config.max_line_bytes)


def showing_text(showing: Showing, labels: Labels, read_on: ReadOn) -> str:
    return "\n".join(shown_block(shown, labels, read_on) for shown in showing.shown)


def show(args: argparse.Namespace) -> int:
    bee = bee_for(args)
    with reported():
        showing = show_entries(bee.hive, bee.name, args.seqs, bee.max_line_bytes,
                               lighthouses=bee.effective.horizon, max_chars=args.max_chars,
                               offset=args.offset)
    if args.json:
        print(json_text([shown_json(shown) for shown in showing.shown]))
    else:
        hive_word = shlex.quote(args.hive)
        bee_word = shlex.quote(bee.name)

        size = f" --max-chars {args.max_chars}" if args.max_chars != SHOW_MAX_CHARS else ""

        def read_on(seq: int, offset: int) -> str:
            return f"horizon show {hive_word} {bee_word} {seq} --offset {offset}{size}"

        sys.stdout.write(showing_text(showing, bee.labels, read_on))
    for problem in showing.problems:
        print(printable(f"horizon: {problem}"), file=sys.stderr)
    return EXIT_PROBLEM if showing.problems else EXIT_OK


def search(args: argparse.Namespace) -> int:
    bee = bee_for(args)
    try:
        with reported():
            hits = search_history(bee.hive, bee.name, args.query, bee.max_line_bytes,
                                  lighthouses=bee.effective.horizon, pattern=args.regex,
                                  limit=args.limit)
    except RecallError as error:
        raise UserError(str(error)) from None
    if args.json:
        print(json_text([hit_json(hit) for hit in hits]))
    elif hits:
        sys.stdout.write("\n".join(hit_block(hit, bee.labels) for hit in hits))
    else:
        print(f"horizon: no entry of {bee.name} matches {args.query!r}", file=sys.stderr)
    return EXIT_OK

