"""Every command's arguments, help, examples and exit codes, as argparse builds them."""

from __future__ import annotations

import argparse

from horizon import __version__
from horizon.cli.arguments import (
    NOW_HELP,
    USAGE_EXIT,
    Commands,
    count,
    filled,
    instant,
    seq_number,
)
from horizon.cli.service_parser import service_commands, web_commands

TOP_EPILOG = f"""\
Run 'horizon COMMAND --help' for a command's arguments, examples and exit codes.

examples:
  horizon status
  horizon render /srv/hive mia
  horizon example systemd | sudo tee /etc/systemd/system/horizon.service

exit codes:
  0  success
  1  a problem, reported in one line on stderr (missing hive, unknown bee, bad
     settings, locked hive, unknown or rejected seq)
  2  {USAGE_EXIT}
  3  degraded (status only: stale heartbeat, a failed derived write, a rejected
     settings file, a refused bee, twin or segment)
"""


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser; `only` names the command being run (the others are left bare)."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--config", metavar="PATH", default=argparse.SUPPRESS,
                        help="the global config.json (default: $HORIZON_CONFIG, then "
                             "/etc/horizon/config.json, then the built-in defaults)")
    parser = argparse.ArgumentParser(
        prog="horizon", parents=[common],
        description=filled("""
            Keeps a bounded working memory (handoff.md) for every bee of a hive: a view
            derived from the bee's journal, which is never rewritten."""),
        epilog=TOP_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("-V", "--version", action="version", version=f"horizon {__version__}",
                        help="print the version and exit")
    commands = Commands(parser, common, only)
    _view_commands(commands)
    _recall_commands(commands)
    _hive_commands(commands)
    service_commands(commands)
    web_commands(commands)
    return parser


def _view_commands(commands: Commands) -> None:
    render = commands.add(
        "render", "print a bee's current view, exactly the text of its handoff.md",
        """With no derived state yet, the view is computed in memory from the journal.
        Nothing is written.""",
        ["horizon render /srv/hive mia",
         "horizon render /srv/hive mia --fresh",
         "horizon render /srv/hive mia --json --now 2026-07-10T14:03:00+02:00"],
        {0: "the view was printed",
         1: "a problem, reported on stderr: a missing hive, an unknown bee, bad settings"})
    render.add_argument("hive", metavar="HIVE", help="the hive's folder")
    render.add_argument("bee", metavar="BEE", help="the bee's name")
    render.add_argument("--json", action="store_true",
                        help="the view's structure as JSON (zones, seqs, sizes, what the cut "
                             "removed) instead of its text")
    render.add_argument("--fresh", action="store_true",
                        help="also fold in complete lines the daemon has not read yet (in "
                             "memory, truncation only, nothing written)")
    render.add_argument("--now", type=instant, metavar="TS", help=NOW_HELP)

    status = commands.add(
        "status", "daemon liveness and every bee at a glance",
        """Reads the daemon's heartbeat and, per bee: entries, segments, rejected lines,
        lag, each zone against its budget, the summarizer in use, stale flags, refused
        files. Without HIVE, every hive of config.json. Across several hives the worst
        exit code wins: 1, then 3, then 0.""",
        ["horizon status", "horizon status /srv/hive --json"],
        {0: "healthy: a daemon beats for every hive asked about, every settings file is "
            "valid, no write has failed",
         1: "a problem, reported on stderr: no daemon serves a hive, a missing hive, no hive "
            "given or configured",
         2: USAGE_EXIT,
         3: "degraded: a stale heartbeat, a failed derived write, a rejected settings file, "
            "a refused bee, twin or segment"})
    status.add_argument("hive", metavar="HIVE", nargs="?",
                        help="the hive to report on (default: every hive of config.json)")
    status.add_argument("--json", action="store_true", help="the report as JSON")

    top = commands.add(
        "top", "a live terminal view of every bee, degraded ones first",
        """Redraws each second, from the heartbeats and derived files (and the daemon's
        /metrics when config.json sets "metrics"): per hive, the daemon and its last beat;
        per bee, each zone against its budget, lag, last pass, summarizer level, rejected
        lines and passes per second. Keys: s cycles the sort, / filters by name (Enter
        applies, Esc clears), d shows degraded bees only, q or Ctrl-C quits. Without
        HIVE, every hive of config.json. When stdout is not a terminal, one frame is
        printed, as with --once.""",
        ["horizon top", "horizon top /srv/hive --config /etc/horizon/config.json",
         "horizon top /srv/hive --once"],
        {0: "quit with q, Ctrl-C or SIGTERM, or the one frame of --once was printed",
         1: "a problem, reported on stderr: a missing hive, no hive given or configured, "
            "config.json missing"})
    top.add_argument("hives", metavar="HIVE", nargs="*",
                     help="hives to show (default: every hive of config.json)")
    top.add_argument("--once", action="store_true",
                     help="print one frame and exit (what top does when stdout is not a "
                          "terminal)")

    config = commands.add(
        "config", "a bee's effective settings, each with the file it came from",
        """The cascade, key by key: built-in defaults, config.json's "horizon" object,
        HIVE/horizon.toml, HIVE/bees/BEE.toml; the most specific value wins.""",
        ["horizon config /srv/hive mia", "horizon config /srv/hive mia --json"],
        {0: "the settings were printed",
         1: "a problem, reported on stderr: a missing hive, an unknown bee, an invalid "
            "settings file (named, with its key and the reason)"})
    config.add_argument("hive", metavar="HIVE", help="the hive's folder")
    config.add_argument("bee", metavar="BEE", help="the bee's name")
    config.add_argument("--json", action="store_true",
                        help="the settings and their sources as JSON")

    check = commands.add(
        "check", "validate every settings file and audit each hive's owners, modes and links",
        """Validates config.json, every hive's horizon.toml and bees/*.toml (the whole
        cascade, naming the bee an error belongs to), then audits each hive against the
        recommended layout: one 'warning: PATH: reason' line per breach.""",
        ["horizon check", "horizon check /srv/hive --strict"],
        {0: "every file is valid (audit warnings allowed without --strict)",
         1: "an invalid file, reported on stderr (with --strict, also an audit warning)"})
    check.add_argument("hives", nargs="*", metavar="HIVE",
                       help="hives to check beyond those of config.json")
    check.add_argument("--strict", action="store_true", help="exit 1 on an audit warning too")


def _recall_commands(commands: Commands) -> None:
    show = commands.add(
        "show", "print entries of a bee's whole history by seq (recall)",
        """Finds each entry in the journal and its archives by its seq, the number every
        view gives it, and prints it cleaned as the view cleans it. Each entry's text (its
        question, then its answer) is cut at --max-chars, with a last line saying how to
        read on with --offset. Unknown or rejected seqs are said on stderr, with the
        reason, while the others print. Reads without writing and without the lock.""",
        ["horizon show /srv/hive mia 212",
         "horizon show /srv/hive mia 212 213 --max-chars 4000",
         "horizon show /srv/hive mia 212 --offset 20000",
         "horizon show /srv/hive mia 212 --json"],
        {0: "every entry asked for was printed",
         1: "a problem, reported on stderr: a missing hive, an unknown bee, a seq that does "
            "not exist or was rejected (the others still print)"})
    show.add_argument("hive", metavar="HIVE", help="the hive's folder")
    show.add_argument("bee", metavar="BEE", help="the bee's name")
    show.add_argument("seqs", metavar="SEQ", nargs="+", type=seq_number,
                      help="an entry's seq (from 1), as views and logs name it")
    show.add_argument("--max-chars", type=count(1), default=20_000, metavar="N",
                      help="characters of each entry's text to print (default: 20000)")
    show.add_argument("--offset", type=count(0), default=0, metavar="K",
                      help="start each entry's text at character K (default: 0)")
    show.add_argument("--json", action="store_true",
                      help="the entries as JSON: seq, ts, type, from, tool, id, phare, "
                           "question, answer, truncated")

    search = commands.add(
        "search", "find entries of a bee's whole history by words or a pattern (recall)",
        """Looks through the journal, its archives and the lines read late for entries
        whose question or answer holds every word of QUERY (case and accents folded:
        'ete' finds 'Été'), or, with --regex, matches QUERY as a regular expression (one
        that runs over a second on an entry's text is stopped, exit 1). Prints the newest
        first, each with its seq, date, type, tool and an excerpt of at most 300
        characters around the match. Reads without writing and without the lock.""",
        ["horizon search /srv/hive mia 'invoice rounding'",
         "horizon search /srv/hive mia '#5385' --limit 5",
         "horizon search /srv/hive mia --regex 'tests? failed' --json"],
        {0: "the search ran (no match is said on stderr)",
         1: "a problem, reported on stderr: a missing hive, an unknown bee, a query with no "
            "word, a bad or runaway regular expression"})
    search.add_argument("hive", metavar="HIVE", help="the hive's folder")
    search.add_argument("bee", metavar="BEE", help="the bee's name")
    search.add_argument("query", metavar="QUERY", help="words to find (all of them), or a "
                                                        "pattern with --regex")
    search.add_argument("--regex", action="store_true",
                        help="QUERY is a regular expression (Python syntax; (?i) for any "
                             "case)")
    search.add_argument("--limit", type=count(1, 200), default=20, metavar="N",
                        help="at most N entries, newest first (default: 20, at most 200)")
    search.add_argument("--json", action="store_true",
                        help="the hits as JSON: seq, ts, type, tool, excerpt")


    mcp = commands.add(
        "mcp", "a bee's recall as an MCP server on stdio, for its agent runtime",
        """Serves the Model Context Protocol on stdin and stdout for one bee of one hive,
        so the bee reaches its own history and nothing else. Tools: horizon_show(seqs,
        max_chars=8000, offset=0), horizon_search(query, limit=10) and horizon_view(),
        each returning the text show, search and render print. Read-only: no lock, no
        write. Register it in the runtime's MCP configuration as a stdio server whose
        command is 'horizon' with the arguments 'mcp', HIVE and BEE. Needs the mcp extra
        (pip install 'horizon[mcp]').""",
        ["horizon mcp /srv/hive mia"],
        {0: "the client closed the session",
         1: "a problem, reported on stderr before serving: a missing hive, an unknown bee, "
            "the mcp extra not installed"})
    mcp.add_argument("hive", metavar="HIVE", help="the hive's folder")
    mcp.add_argument("bee", metavar="BEE", help="the bee whose history the tools read")


def _hive_commands(commands: Commands) -> None:
    rebuild = commands.add(
        "rebuild", "rebuild derived state from the journal, manifest and flags",
        """Recomputes HIVE/horizon/BEE/ (state.json, handoff.md) from the whole history,
        for one bee or every bee. Refused on a hive a daemon serves (stop it first, or
        let it rebuild: deleting HIVE/horizon/ is enough).""",
        ["horizon rebuild /srv/hive", "horizon rebuild /srv/hive mia --now 1783685000"],
        {0: "rebuilt",
         1: "a problem, reported on stderr: a missing hive, an unknown bee, a locked hive, "
            "bad settings, a failed write"})
    rebuild.add_argument("hive", metavar="HIVE", help="the hive's folder")
    rebuild.add_argument("bee", metavar="BEE", nargs="?", help="one bee (default: every bee)")
    rebuild.add_argument("--now", type=instant, metavar="TS", help=NOW_HELP)

    phare = commands.add(
        "phare", "flag (or unflag) an entry as a lighthouse",
        """Records the flag in HIVE/phares/BEE.jsonl; a lighthouse fades from the view
        last. With no daemon serving the hive, the view is rebuilt at once. Run it as the
        daemon's user (sudo -u horizon horizon phare ...).""",
        ["horizon phare /srv/hive mia 42", "horizon phare /srv/hive mia 42 --off"],
        {0: "flagged, or unflagged",
         1: "a problem, reported on stderr: a missing hive, an unknown bee, a seq that does "
            "not exist or was rejected"})
    phare.add_argument("hive", metavar="HIVE", help="the hive's folder")
    phare.add_argument("bee", metavar="BEE", help="the bee's name")
    phare.add_argument("seq", metavar="SEQ", type=seq_number,
                       help="the entry's seq (its line number in the bee's history, from 1)")
    phare.add_argument("--off", action="store_true", help="remove the flag")

    init = commands.add(
        "init", "make a hive with the recommended owners and modes",
        """Creates HIVE, window/ (2770, setgid: journals inherit the group),
        window/archive/, horizon/, phares/ and bees/ (2750), all owned by you and GROUP.
        An existing hive is left as it is and its breaches reported; a folder in use that
        is not a hive is refused.""",
        ["sudo -u horizon horizon init /var/lib/horizon/hive --group hive"],
        {0: "the hive was made, or an existing one reported",
         1: "a problem, reported on stderr: a folder in use that is not a hive, an unknown "
            "group, a permission refused"})
    init.add_argument("hive", metavar="HIVE", help="the folder to make the hive in")
    init.add_argument("--group", help="the hive group (default: your primary group)")

    adopt = commands.add(
        "adopt",
        "take in a bee's archive segments that no record names (made by hand or by an "
        "older tool)",
        """Records, in name order, the segments of HIVE/window/archive/ that belong to BEE
        and that no record names, so they become part of its history, and prints what it
        took in. Refused on a hive a daemon serves, and for a bee whose lines are already
        numbered.""",
        ["horizon adopt /srv/hive mia"],
        {0: "done (or nothing to take in)",
         1: "a problem, reported on stderr: a missing or locked hive, not a bee name, a bee "
            "whose lines are already numbered"})
    adopt.add_argument("hive", metavar="HIVE", help="the hive's folder")
    adopt.add_argument("bee", metavar="BEE", help="the bee's name")
