"""What a shell command line is (pure): its words, the simple commands it chains, the
program each runs under its launchers, whether it only reads, and the key that makes a
rerun the same call (ADR 0008).
"""

from __future__ import annotations

import functools
import json
import re
import shlex

from horizon.core.patterns import Pattern
from horizon.core.text import flatten

COMMAND_CHARS = 200  # of a command, what keys and shows it

# Tools that only read, whatever their arguments (Claude Code's, Codex's, common MCP ones).
_READ_TOOLS = frozenset([
    "read", "read_file", "readfile", "view", "view_file", "open_file", "cat", "grep",
    "glob", "ls", "list", "list_dir", "list_files", "listdir", "find", "find_files",
    "search", "search_files", "codebase_search", "file_search", "grep_search",
    "notebookread", "webfetch", "web_fetch", "websearch", "web_search", "fetch", "get_file",
    "todoread", "todowrite", "think",
])
# Programs that only read, when they run without an action that writes.
_READ_PROGRAMS = frozenset([
    "cat", "head", "tail", "less", "more", "ls", "ll", "tree", "grep", "egrep", "fgrep",
    "rg", "ag", "ack", "wc", "file", "stat", "which", "whereis", "pwd", "du", "df", "bat",
    "nl", "diff", "cmp", "realpath", "readlink", "basename", "dirname", "env", "printenv",
    "id", "whoami", "date", "uname", "jq", "yq", "echo", "cd", "ps", "lsof", "awk", "sort",
    "uniq", "cut", "tr", "fd", "exa", "eza", "true", "column", "xxd", "od", "hexdump",
    "md5sum", "sha256sum", "type", "printf", "test", "[",
])
# Programs that only read with these subcommands.
_READ_SUBCOMMANDS = {
    "git": frozenset(["diff", "log", "show", "status", "blame", "shortlog", "describe",
                      "ls-files", "ls-tree", "rev-parse", "reflog", "grep", "whatchanged",
                      "branch", "remote", "config", "cat-file", "ls-remote", "tag",
                      "stash list"]),
    "kubectl": frozenset(["get", "describe", "logs", "top", "explain", "version"]),
    "gh": frozenset(["pr", "issue", "run", "repo", "release", "api", "search", "status"]),
    "docker": frozenset(["ps", "images", "logs", "inspect", "stats", "version", "info"]),
    "pip": frozenset(["show", "list", "freeze", "check"]),
    "pip3": frozenset(["show", "list", "freeze", "check"]),
    "npm": frozenset(["ls", "list", "view", "outdated", "info", "why", "explain"]),
    "yarn": frozenset(["list", "info", "why"]),
    "cargo": frozenset(["tree", "metadata", "search"]),
    "go": frozenset(["list", "env", "version", "doc"]),
    "terraform": frozenset(["show", "output", "plan", "validate", "state"]),
    "bd": frozenset(["show", "list", "ready", "stats", "prime", "search", "blocked", "info",
                     "doctor", "status", "where"]),
}
_GH_WRITES = frozenset(["create", "merge", "close", "edit", "comment", "delete", "reopen",
                        "review", "checkout", "rerun", "cancel", "clone", "fork", "develop",
                        "transfer", "pin", "lock", "unlock"])
_FIND_ACTIONS = frozenset(["-exec", "-execdir", "-delete", "-ok", "-okdir", "-fprint"])
# What runs a program on behalf of another: the program is the word after it.
_LAUNCHERS = frozenset(["sudo", "time", "nice", "nohup", "env", "command", "exec",
                        "timeout", "npx", "pnpx", "bunx", "xargs"])
_RUN_LAUNCHERS = {"uv": "run", "poetry": "run", "pipenv": "run", "hatch": "run",
                  "pdm": "run", "rye": "run", "bundle": "exec", "pnpm": "exec",
                  "yarn": "dlx"}
_DURATION = Pattern(r"^\d+(?:\.\d+)?[smhd]?$")
_SHELL_WORDS = ("bash", "shell", "terminal", "command", "exec", "run", "cmd", "console")
_SHELLS = frozenset(["bash", "sh", "zsh", "dash", "fish", "ksh"])


def is_shell(tool: str | None) -> bool:
    """Whether a tool runs the command its call names (its question)."""
    if tool is None:
        return True  # a `tool` entry with no name: its question is what ran
    return _names_a_shell(tool)


@functools.lru_cache(maxsize=256)  # a hive's tools are a few names, asked of every call
def _names_a_shell(tool: str) -> bool:
    name = tool.lower()
    return name in ("sh", "zsh") or any(word in name for word in _SHELL_WORDS)


def unwrapped(command: str) -> str:
    """The command a shell wrapper runs: `bash -lc 'pytest'`, `sh -c "..."`, or Codex's
    JSON argv (`{"command": ["bash", "-lc", "..."]}`)."""
    text = command.strip()
    if text.startswith(("{", "[")):
        try:
            value = json.loads(text)
        except ValueError:
            return command
        if isinstance(value, dict):
            value = value.get("command", value.get("cmd", value))
        if isinstance(value, list) and all(isinstance(part, str) for part in value):
            return unwrapped(shlex.join(value))
        if isinstance(value, str):
            return unwrapped(value)
        return command
    words = shell_words(text)
    if (len(words) >= 3 and words[0].rsplit("/", 1)[-1] in _SHELLS
            and words[1].startswith("-") and "c" in words[1]):
        return unwrapped(words[2])
    return command


def shell_words(command: str) -> list[str]:
    if "'" not in command and '"' not in command and "\\" not in command:
        return command.split()  # what shlex gives for it, at a tenth of the cost
    try:
        return shlex.split(command, comments=False, posix=True)
    except ValueError:  # an unbalanced quote: the plain words
        return command.split()


def simple_commands(command: str) -> list[list[str]]:
    """The simple commands a command line runs (split at `&&`, `||`, `;`, `|`)."""
    parts = re.split(r"&&|\|\||;|\|(?!\|)|\n", command)
    return [words for part in parts if (words := shell_words(part))]


def program_words(words: list[str]) -> list[str]:
    """The words from the program a launcher (sudo, uv run, npx, VAR=x...) runs on."""
    index = 0
    while index < len(words):
        word = words[index]
        if "=" in word and not word.startswith("-") and (
                index == 0 or words[index - 1] in _LAUNCHERS):
            index += 1  # VAR=value before the program
        elif word in _LAUNCHERS or (index and (word.startswith("-") or _DURATION.match(word))
                                    and words[index - 1] in _LAUNCHERS | {"-n", "-s"}):
            index += 1  # a launcher, its option or its number (`timeout 120`, `nice -n 5`)
        elif word in _RUN_LAUNCHERS and index + 1 < len(words) and (
                words[index + 1] == _RUN_LAUNCHERS[word]):
            index += 2
        else:
            break
    return words[index:]


def reads_only(tool: str | None, command: str) -> bool:
    """Whether a call only reads: a read tool, or shell commands that each only read
    (`git diff|log|show|status`, `cat`, `grep`, `find` without an action...), writing no
    file on the way (`> file`)."""
    if tool is not None and tool.lower().replace("-", "_") in _READ_TOOLS:
        return True
    if not is_shell(tool):
        return False
    command = unwrapped(command)
    if re.search(r"(?<![0-9&>])>(?!\s*/dev/null|&)", command):
        return False  # a redirection writes a file
    segments = simple_commands(command)
    return bool(segments) and all(_reads(program_words(words)) for words in segments)


def _reads(words: list[str]) -> bool:
    if not words:
        return True
    program = words[0].rsplit("/", 1)[-1]
    if program in _READ_SUBCOMMANDS:
        rest = _positional(words[1:])
        if program == "gh" and any(word in _GH_WRITES for word in rest[:2]):
            return False
        if program == "git" and rest[:1] in (["branch"], ["tag"], ["remote"], ["config"]):
            return len(rest) == 1 or rest[1] in ("-a", "-l", "--list", "-v", "show")
        return bool(rest) and rest[0] in _READ_SUBCOMMANDS[program]
    if program == "find":
        return not any(word in _FIND_ACTIONS for word in words)
    if program == "sed":
        return "-n" in words and not any(word.startswith("-i") for word in words)
    if program in ("python", "python3", "node", "ruby", "go", "rustc", "java"):
        return words[1:] in (["--version"], ["-V"], ["version"])
    return program in _READ_PROGRAMS


def _positional(words: list[str]) -> list[str]:
    """The words that are not options, an option's value skipped (`git -C dir status`)."""
    found, skip = [], False
    for word in words:
        if skip:
            skip = False
        elif word in ("-C", "-c", "--git-dir", "--work-tree", "-n", "--namespace",
                      "--context", "-R", "--repo"):
            skip = True
        elif not word.startswith("-"):
            found.append(word)
    return found


def command_key(tool: str | None, question: str, paths: tuple[str, ...]) -> str:
    """What names a call, so that a rerun is the same call: a shell's command without
    its folder change, its launchers, its variables, what it pipes its output into and
    its redirections (`cd web && npx tsc 2>&1 | tail` is `tsc`); another tool's name and
    the file it acts on (an edit retried with other arguments is the same call)."""
    if not is_shell(tool):
        assert tool is not None
        target = paths[0] if paths else flatten(question)[:COMMAND_CHARS - len(tool) - 1]
        name = "edit" if tool.lower() in ("edit", "multiedit", "str_replace") else tool
        return f"{flatten(name)} {target}".strip()
    parts = []
    for part in re.split(r"&&|\|\||;|\n", _HEREDOC.sub(r"<<\2", unwrapped(question))):
        words = program_words(shell_words(part.split("|")[0]))  # the producer of a pipe
        words = [word for word in words
                 if not re.match(r"^(?:\d?>>?|&>|<)", word) and word != "2>&1"
                 and word.split("=", 1)[0] not in _HOW_FLAGS]
        if words[:2] == ["git", "commit"]:
            words = words[:2]  # a commit retried with another message is the same commit
        if words and words[0] != "cd":
            parts.append(" ".join(words))
    return (" && ".join(parts) or flatten(question))[:COMMAND_CHARS]


# A here-document's body is a commit message or a file's text, not the command.
_HEREDOC = re.compile(r"<<-?\s*(['\"]?)(\w+)\1.*?\n.*?\n[ \t]*\2(?=[\s)]|$)", re.DOTALL)


# Options that change how a command runs or shows, not what it checks: a rerun with them
# is the same call (`ruff check --fix src` after `ruff check src`).
_HOW_FLAGS = frozenset(["--fix", "--write", "--autofix", "--fix-only", "--unsafe-fixes",
                        "--no-cache", "--pull", "-q", "--quiet", "-v", "-vv", "--verbose",
                        "--color", "--no-color", "--tb", "-x", "--exitfirst", "-s", "--ci",
                        "--runInBand", "--progress", "--no-progress"])
