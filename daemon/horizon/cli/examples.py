"""horizon example: the shipped config.json, service files and settings examples, read from
the installed package, with the installed command's path filled in."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import pydoc
import re
import shlex
import shutil
import sys
from importlib.resources import files
from pathlib import Path
from xml.sax.saxutils import escape

from horizon.cli.exits import EXIT_OK

# The command's path as the shipped files name it; `example` puts the real one in its place.
SHIPPED_COMMAND = "/usr/local/bin/horizon"
# What each kind prints: a file of the package's examples folder.
EXAMPLES = {
    "config": "config.json",
    "systemd": "horizon.service",
    "launchd": "org.horizon.daemon.plist",
    "hive": "horizon.example.toml",
    "bee": "bee.example.toml",
    "grafana": "grafana-horizon.json",
    "reference": "reference.md",
}
# Where the shipped unit says the reference is; `example systemd` names the installed one.
SHIPPED_DOCUMENTATION = "file:///usr/local/share/doc/horizon/reference.md"
# Folders the unit hides from the service: ProtectHome=true, then PrivateTmp=true.
HIDDEN_BY_THE_UNIT = ((Path("/home"), "ProtectHome"), (Path("/root"), "ProtectHome"),
                      (Path("/run/user"), "ProtectHome"), (Path("/tmp"), "PrivateTmp"),
                      (Path("/var/tmp"), "PrivateTmp"))
# What ExecStart takes unquoted: anything else is quoted (spaces, quotes, backslashes).
UNQUOTED = re.compile(r"[A-Za-z0-9_./+@,:=-]+")


def shipped(kind: str) -> str:
    """The text of a shipped example, as the package carries it."""
    return (files("horizon") / "examples" / EXAMPLES[kind]).read_text(encoding="utf-8")


def installed_command() -> Path:
    """The absolute path of the `horizon` command running now, else the one beside this
    Python, else the one on PATH, else the path the shipped files name."""
    running = Path(sys.argv[0])
    if running.name == "horizon" and running.is_file():
        return running.resolve()
    beside = Path(sys.executable).parent / "horizon"
    if beside.is_file():
        return beside.absolute()
    found = shutil.which("horizon")
    return Path(found).resolve() if found else Path(SHIPPED_COMMAND)


def installed_reference() -> Path | None:
    """The reference the installed package carries, when it is a file on disk (not
    inside a zip)."""
    path = Path(str(files("horizon") / "examples" / EXAMPLES["reference"]))
    return path.resolve() if path.is_file() else None


def for_systemd(path: Path) -> str:
    """A path as one word of ExecStart: `%` and `$` doubled, quoted when it must be."""
    text = str(path).replace("%", "%%").replace("$", "$$")
    if UNQUOTED.fullmatch(text):
        return text
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def filled(kind: str, command: Path) -> str:
    """The example with `command` where the shipped text names /usr/local/bin/horizon."""
    text = shipped(kind)
    if kind == "systemd":
        reference = installed_reference()
        if reference is not None:
            text = text.replace(f"\nDocumentation={SHIPPED_DOCUMENTATION}\n",
                                f"\nDocumentation={reference.as_uri()}\n")
        return text.replace(f"\nExecStart={SHIPPED_COMMAND} ",
                            f"\nExecStart={for_systemd(command)} ")
    if kind == "launchd":
        return text.replace(f"<string>{SHIPPED_COMMAND}</string>",
                            f"<string>{escape(str(command))}</string>")
    return text


# Claude Code's hook events horizon takes, with the matcher each is wired under.
CLAUDE_CODE_EVENTS = (("SessionStart", "startup|resume|clear|compact"),
                      ("UserPromptSubmit", None), ("PostToolUse", "*"),
                      ("PostToolUseFailure", "*"), ("Stop", None), ("PreCompact", None))
HOOK_TIMEOUT_S = 30


def claude_code_hooks(command: Path, hive: str, bee: str) -> str:
    """The `hooks` block of a project's .claude/settings.json that feeds `bee`."""
    line = " ".join(shlex.quote(word) for word in (
        str(command), "hook", "claude-code", "--hive", hive, "--bee", bee))
    hooks: dict[str, list[dict[str, object]]] = {}
    for event, matcher in CLAUDE_CODE_EVENTS:
        group: dict[str, object] = {} if matcher is None else {"matcher": matcher}
        group["hooks"] = [{"type": "command", "command": line, "timeout": HOOK_TIMEOUT_S}]
        hooks[event] = [group]
    return json.dumps({"hooks": hooks}, indent=2) + "\n"


def command(args: argparse.Namespace) -> int:
    path = installed_command()
    if args.kind == "claude-code":
        return _claude_code(args, path)
    if args.kind == "reference" and sys.stdout.isatty():
        pydoc.pager(shipped("reference"))  # $PAGER, else less, else more
        return EXIT_OK
    sys.stdout.write(filled(args.kind, path))
    if args.kind == "systemd":
        for needed, (hidden, setting) in hidden_from_the_unit(path):
            print(f"horizon: warning: {needed} is under {hidden}, which the unit's "
                  f"{setting}=true hides from the service; install horizon and its Python "
                  f"elsewhere (e.g. python3 -m venv /opt/horizon) or relax {setting}=",
                  file=sys.stderr)
    return EXIT_OK


def hidden_from_the_unit(command: Path) -> list[tuple[Path, tuple[Path, str]]]:
    """What the service must run that the unit hides: the command, the interpreter its
    first line names, and the real files behind them (a venv's python is often a link
    into /root/.pyenv or /home)."""
    needed = [command, Path(os.path.realpath(command))]
    with contextlib.suppress(OSError):
        first = command.read_bytes()[:256].split(b"\n", 1)[0]
        if first.startswith(b"#!"):
            interpreter = Path(first[2:].decode(errors="replace").strip().split(" ")[0])
            needed += [interpreter, Path(os.path.realpath(interpreter))]
    found = []
    for path in dict.fromkeys(needed):
        for hidden in HIDDEN_BY_THE_UNIT:
            if path.is_absolute() and path.is_relative_to(hidden[0]):
                found.append((path, hidden))
                break
    return found


def _claude_code(args: argparse.Namespace, path: Path) -> int:
    from horizon.cli.exits import UserError
    from horizon.cli.importing import bee_of_folder, global_config
    from horizon.hive.layout import is_bee_name

    hive = args.hive
    if hive is None:
        hives = global_config(args).hives
        hive = hives[0] if len(hives) == 1 else "/srv/hive"
    bee = args.bee or bee_of_folder(os.getcwd())
    if not is_bee_name(bee):
        raise UserError(f"{bee!r} is not a bee name: letters, digits, '_' and '-', up to 64")
    sys.stdout.write(claude_code_hooks(path, str(Path(hive).absolute()), bee))
    return EXIT_OK
