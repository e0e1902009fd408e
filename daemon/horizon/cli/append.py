"""`horizon append HIVE BEE`: entries written through `horizon.client.append`."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator

from horizon.cli.common import reported
from horizon.cli.exits import EXIT_OK, EXIT_PROBLEM, UserError
from horizon.cli.safe_text import printable
from horizon.client import ClientError, InvalidEntry, JournalRefused, UnknownBee, append
from horizon.hive.settings_files import config_path, load_global


def command(args: argparse.Namespace) -> int:
    path = config_path(args.config)
    max_line_bytes = None  # the default, when no config.json says otherwise
    if path is not None and path.exists():
        with reported():  # a broken config.json is named, not a traceback
            max_line_bytes = load_global(path).max_line_bytes
    refused = 0
    for where, text in _lines(args):
        try:
            entry = json.loads(text)
            if max_line_bytes is None:
                append(args.hive, args.bee, entry, create=args.create)
            else:
                append(args.hive, args.bee, entry, max_line_bytes=max_line_bytes,
                       create=args.create)
        except json.JSONDecodeError as error:
            refused += 1
            _say(f"{where}: not JSON ({error.msg}, column {error.colno}); not written")
        except (JournalRefused, UnknownBee) as error:
            raise UserError(str(error)) from None  # no later line can be written either
        except (InvalidEntry, ClientError) as error:
            refused += 1
            _say(f"{where}: {error}; not written")
    return EXIT_PROBLEM if refused else EXIT_OK


def _lines(args: argparse.Namespace) -> Iterator[tuple[str, str]]:
    if args.json is not None:
        yield "--json", args.json
        return
    for number, text in enumerate(sys.stdin, start=1):
        if text.strip():
            yield f"line {number}", text


def _say(message: str) -> None:
    print(printable(f"horizon: {message}"), file=sys.stderr)
