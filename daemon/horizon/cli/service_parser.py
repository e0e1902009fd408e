"""The arguments, help, examples and exit codes of the commands that run horizon or feed
it: the daemon, the demo, the shipped examples, the web page, and what writes a bee's
journal (`append`, the runtimes' `import` and `hook`)."""

from __future__ import annotations

from horizon.cli.arguments import Commands, seconds
from horizon.cli.runtime_parser import runtime_commands


def service_commands(commands: Commands) -> None:
    run = commands.add(
        "run", "the daemon, in the foreground",
        """Takes the lock of every hive listed in config.json's "hives", brings every bee
        up to date, then watches. Logs JSON lines to LOG_DIR/horizon.jsonl; SIGHUP
        re-reads the settings and reopens the log; SIGTERM or Ctrl-C finishes the pass in
        hand and exits 0. Under systemd it speaks sd_notify (READY, STATUS, WATCHDOG).""",
        ["horizon run --config /etc/horizon/config.json",
         "horizon run --config ./config.json --log-stdout"],
        {0: "stopped cleanly (SIGTERM, Ctrl-C)",
         1: "a problem, reported on stderr: config.json missing or invalid, no hive "
            "configured, a log folder it cannot write, a hive locked by another daemon"})
    run.add_argument("--log-stdout", action="store_true",
                     help="also log JSON lines to stdout (always on under systemd)")

    demo = commands.add(
        "demo", "a demo hive, the daemon on it, a simulated bee, the zones live",
        """Makes a demo hive in DIR, runs the daemon on it while a simulated bee writes,
        and shows the zones filling live. It never writes into a folder holding a hive that
        is not its own; it stops its daemon and its bee on every exit.""",
        ["horizon demo", "horizon demo --dir /tmp/demo-hive --seconds 30"],
        {0: "the demo ended (its time ran out, or Ctrl-C)",
         1: "a problem, reported on stderr: DIR holds another hive, the daemon failed"})
    demo.add_argument("--dir", default="demo-hive",
                      help="where to make the demo hive (default: ./demo-hive)")
    demo.add_argument("--seconds", type=seconds, default=None, metavar="N",
                      help="stop after N seconds (default: run until Ctrl-C)")

    example = commands.add(
        "example", "print a shipped example: config.json, the service files, the reference",
        """Prints the example the installed package carries, with the installed horizon
        command's absolute path filled in (the unit's ExecStart, the plist's
        ProgramArguments). The example config.json lists the hive /var/lib/horizon/hive
        and logs to /var/log/horizon, the folders the unit lets the daemon write. 'hive'
        and 'bee' print a commented horizon.toml and bees/BEE.toml, 'grafana' the
        dashboard over the daemon's metrics, and 'reference' the whole reference
        (through a pager on a terminal).""",
        ["horizon example config | sudo tee /etc/horizon/config.json",
         "horizon example systemd | sudo tee /etc/systemd/system/horizon.service",
         "horizon example launchd | sudo tee /Library/LaunchDaemons/org.horizon.daemon.plist",
         "horizon example hive > /srv/hive/horizon.toml",
         "horizon example grafana > horizon-dashboard.json",
         "horizon example claude-code --hive /srv/hive > .claude/settings.json",
         "horizon example reference"],
        {0: "the example was printed"})
    example.add_argument("kind", metavar="KIND",
                         choices=["config", "systemd", "launchd", "hive", "bee", "grafana",
                                  "reference", "claude-code"],
                         help="config (config.json), systemd (horizon.service), launchd "
                              "(org.horizon.daemon.plist), hive (horizon.toml), bee "
                              "(bees/BEE.toml), grafana (the dashboard), reference, or "
                              "claude-code (the hooks of .claude/settings.json)")
    example.add_argument("--hive", metavar="DIR", default=None,
                         help="claude-code: the hive the hooks feed (default: the one hive "
                              "config.json lists, else /srv/hive)")
    example.add_argument("--bee", metavar="NAME", default=None,
                         help="claude-code: the bee (default: this folder's name)")


def web_commands(commands: Commands) -> None:
    serve = commands.add(
        "serve", "a read-only web view of the hives, each bee's zones and view",
        """Serves a page over the derived files and journals (the daemon need not run):
        the hives, then their bees with each zone drawn against its budget, then a bee's
        view exactly as it reads it, each entry's seq, source and size, and what the hard
        cut removed. Any seq opens the whole entry. A profile preview replays a bee's
        history in memory under other budgets, plancher_phare, actif or langue, one at a
        time, with progress and a cancel button. A bee's page refreshes when its
        handoff.md changes. Writes nothing; binds the loopback unless told otherwise.
        Needs the web extra (pip install 'horizon[web]').""",
        ["horizon serve", "horizon serve /srv/hive --listen 127.0.0.1:9000"],
        {0: "stopped (Ctrl-C, SIGTERM)",
         1: "a problem, reported on stderr: no hive to serve, an address it cannot listen "
            "on or off the loopback without --allow-remote, a wildcard address without "
            "--allow-host, the web extra not installed"})
    serve.add_argument("hives", metavar="HIVE", nargs="*",
                       help="the hives to serve (default: config.json's \"hives\")")
    serve.add_argument("--listen", default="127.0.0.1:8765", metavar="HOST:PORT",
                       help="where to serve (default: 127.0.0.1:8765)")
    serve.add_argument("--allow-remote", action="store_true",
                       help="allow an address off the loopback (journals hold what bees "
                            "and humans said)")
    serve.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                       help="a host name the page may be reached by, besides the loopback "
                            "and the address it listens on (repeatable; needed with "
                            "--allow-remote on 0.0.0.0 or ::)")

    append = commands.add(
        "append", "write entries to a bee's journal as the daemon will read them",
        """Reads one JSON object per line on stdin (or one given with --json) and appends
        each to the bee's live journal through horizon.client.append: checked with the
        daemon's own decoder (ok and files included), one write() per line on an
        O_APPEND descriptor, a missing journal made 0660 whatever the umask. A bee the hive
        does not have yet is refused unless --create. A refused entry is one line on stderr
        and is not written; the others are.""",
        ["horizon append /srv/hive mia --create --json '{\"ts\": 1790000000, \"type\": "
         "\"task\", \"question\": \"q\", \"answer\": \"a\"}'",
         "my-runtime --log | horizon append /srv/hive mia"],
        {0: "every entry was written",
         1: "an entry was refused (one line each on stderr; the others were written), or "
            "the hive or journal cannot be used"})
    append.add_argument("hive", metavar="HIVE", help="the hive")
    append.add_argument("bee", metavar="BEE", help="the bee whose journal takes the entries")
    append.add_argument("--json", metavar="OBJECT", default=None,
                        help="one entry, instead of reading stdin")
    append.add_argument("--create", action="store_true",
                        help="start the journal of a bee the hive does not have yet "
                             "(without it, an unknown bee is refused: a typo)")
    runtime_commands(commands)

