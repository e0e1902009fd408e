"""`horizon import RUNTIME TRANSCRIPT`: a runtime's transcript appended to a bee's journal,
only what is new since the last import."""

from __future__ import annotations

import argparse
import os
import re
import signal
import stat
import sys
import unicodedata
from pathlib import Path
from types import FrameType

from horizon.cli.exits import EXIT_OK, EXIT_PROBLEM, UserError
from horizon.cli.safe_text import printable
from horizon.core.errors import HorizonError
from horizon.core.settings import GlobalConfig
from horizon.hive.layout import is_bee_name
from horizon.hive.settings_files import config_path, load_global
from horizon.imports import TranscriptReader
from horizon.imports.follow import HELD_STOP, ImportReport, follow

_NOT_IN_NAME = re.compile(r"[^A-Za-z0-9_-]+")
_CWD = re.compile(rb'"cwd"\s*:\s*"((?:[^"\\]|\\.)*)"')
_PEEK_LINES = 200


def reader(runtime: str) -> TranscriptReader:
    """A new reading of a transcript of one of the runtimes `horizon import` reads
    (`runtime_parser.RUNTIMES`)."""
    if runtime == "codex":
        from horizon.imports.codex import CodexReader
        return CodexReader()
    from horizon.imports.claude_code import ClaudeCodeReader
    return ClaudeCodeReader()


def command(args: argparse.Namespace) -> int:
    config = global_config(args)
    transcript = Path(args.transcript)
    hive = hive_of(args.hive, config)
    bee = args.bee or bee_of_folder(transcript_cwd(transcript) or transcript.parent.name)
    stop_cleanly_on_sigterm(EXIT_PROBLEM)
    try:
        report = follow(hive, bee, transcript, reader(args.runtime), final=True,
                        max_line_bytes=config.max_line_bytes)
    except HorizonError as error:
        raise UserError(str(error)) from None
    for problem in report.problems:
        say(f"{transcript}:{problem.line_number}: {problem.reason}; skipped")
    if report.problems_count > len(report.problems):
        say(f"{transcript}: {report.problems_count - len(report.problems)} more lines "
            "skipped")
    for refused in report.refused:
        say(f"{transcript}: {refused}; not written")
    print(printable(summary(report, hive, bee)))
    return EXIT_PROBLEM if report.problems or report.refused else EXIT_OK


def summary(report: ImportReport, hive: Path, bee: str) -> str:
    parts = [f"{report.appended} new entries appended to {hive}/window/{bee}-messages.jsonl "
             f"from {report.lines_read} lines of {report.transcript}"]
    if report.restarted:
        parts.append("(the transcript changed before the last import's end: read again "
                     "from its start)")
    if report.shortened:
        parts.append(f"{report.shortened} answers cut to fit a journal line")
    if report.waiting:
        parts.append(f"{report.waiting} tool calls still wait for their result (a later "
                     "import takes them)")
    if report.problems_count:
        parts.append(f"{report.problems_count} lines skipped")
    return "; ".join(parts)


def stop_cleanly_on_sigterm(code: int) -> None:
    """A SIGTERM (a hook's timeout) ends the command through its `finally` blocks, so
    an import records how far it got before it goes."""
    def stop(signum: int, frame: FrameType | None) -> None:
        HELD_STOP.stop(SystemExit(code))

    signal.signal(signal.SIGTERM, stop)


def global_config(args: argparse.Namespace) -> GlobalConfig:
    path = config_path(args.config)
    if path is None:
        return GlobalConfig()
    try:
        return load_global(path)
    except FileNotFoundError:
        raise UserError(f"{path}: config file not found") from None
    except (HorizonError, OSError) as error:
        raise UserError(str(error)) from None


def hive_of(given: str | None, config: GlobalConfig) -> Path:
    """`--hive`, else the one hive config.json lists."""
    if given:
        return Path(given)
    if len(config.hives) == 1:
        return Path(config.hives[0])
    listed = f"config.json lists {len(config.hives)} hives" if config.hives else \
        "no config.json lists one"
    raise UserError(f"name the hive with --hive ({listed})")


def bee_of_folder(folder: str) -> str:
    """A bee name from a project folder's name: what a name cannot hold becomes `-`."""
    # Accents folded first: "été" is "ete", not "t".
    ascii_name = unicodedata.normalize("NFKD", os.path.basename(folder.rstrip("/"))).encode(
        "ascii", "ignore").decode()
    name = _NOT_IN_NAME.sub("-", ascii_name)
    name = name.lstrip("-")[:64].rstrip("-")
    if not is_bee_name(name):
        raise UserError(f"no bee name can be made from the folder {folder!r}: give one "
                        "with --bee")
    return name


def transcript_cwd(transcript: Path) -> str | None:
    """The work tree the transcript's first lines name (Claude Code's `cwd`), if any."""
    try:
        if not stat.S_ISREG(transcript.lstat().st_mode):
            return None  # a link, a FIFO: the import itself refuses it
        with transcript.open("rb") as lines:
            for _, line in zip(range(_PEEK_LINES), lines, strict=False):
                found = _CWD.search(line[:1 << 16])
                if found:
                    return found.group(1).decode("utf-8", "replace").replace("\\/", "/")
    except OSError:
        return None  # the import itself says why it cannot read it
    return None


def say(message: str) -> None:
    print(printable(f"horizon: {message}"), file=sys.stderr)
