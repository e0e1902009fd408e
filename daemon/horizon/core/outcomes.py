"""What a tool call did, read from the call and its output (pure): which command ran, whether
it only read, which tests it ran, and whether it failed (ADR 0008).

The runtime knows best: `ok` and `files`, when a line carries them, are taken as they are.
Without `ok`, the output is read the way an engineer reads a terminal: the verdict is at
its end (a summary line, an exit status), what scrolled by before is the log it met.
"""

from __future__ import annotations

import re
import shlex

from horizon.core.text import flatten

COMMAND_CHARS = 200  # of a command, what keys and shows it
TAIL_CHARS = 4096  # of an output, where its verdict is
VERDICT_LINES = 8  # the last non-blank lines of an output that may hold its verdict

# Tools that only read, whatever their arguments (Claude Code's, Codex's, common MCP ones).
_READ_TOOLS = frozenset({
    "read", "read_file", "readfile", "view", "view_file", "open_file", "cat", "grep",
    "glob", "ls", "list", "list_dir", "list_files", "listdir", "find", "find_files", "search",
    "search_files", "codebase_search", "file_search", "grep_search", "notebookread",
    "webfetch", "web_fetch", "websearch", "web_search", "fetch", "get_file",
})
# Programs that only read, when they run without an action that writes.
_READ_PROGRAMS = frozenset({
    "cat", "head", "tail", "less", "more", "ls", "ll", "tree", "grep", "egrep", "fgrep", "rg",
    "ag", "ack", "wc", "file", "stat", "which", "whereis", "pwd", "du", "df", "bat", "nl",
    "diff", "cmp", "realpath", "readlink", "basename", "dirname", "env", "printenv", "id",
    "whoami", "date", "uname", "jq", "yq", "echo",
})
_GIT_READS = frozenset({"diff", "log", "show", "status", "blame", "shortlog", "describe",
                        "ls-files", "ls-tree", "rev-parse", "reflog", "grep", "whatchanged"})
_FIND_ACTIONS = frozenset({"-exec", "-execdir", "-delete", "-ok", "-okdir", "-fprint"})
# What runs a program on behalf of another: the program is the word after it.
_LAUNCHERS = frozenset({"sudo", "time", "nice", "nohup", "env", "command", "exec", "timeout",
                        "uv", "poetry", "pipenv", "hatch", "pdm", "rye", "npx", "pnpx",
                        "bunx", "bundle", "run"})
_SHELL_WORDS = ("bash", "shell", "terminal", "command", "exec", "run", "cmd", "console")

# A test runner, by its first words (after launchers). The rest of the words are its
# targets: paths, or filters that narrow it.
_TEST_RUNNERS = (
    ("vitest", "run"), ("vitest", "watch"), ("pytest",), ("py.test",), ("tox",), ("nox",),
    ("nose2",), ("ward",), ("python", "-m", "pytest"), ("python3", "-m", "pytest"),
    ("python", "-m", "unittest"), ("python3", "-m", "unittest"), ("jest",), ("vitest",),
    ("mocha",), ("ava",), ("jasmine",), ("karma",), ("playwright", "test"),
    ("cypress", "run"), ("go", "test"), ("cargo", "test"), ("cargo", "nextest", "run"),
    ("cargo", "nextest"), ("npm", "test"), ("npm", "t"), ("npm", "run", "test"),
    ("yarn", "test"), ("yarn", "run", "test"), ("pnpm", "test"), ("pnpm", "run", "test"),
    ("bun", "test"), ("deno", "test"), ("make", "test"), ("make", "tests"), ("make", "check"),
    ("rspec",), ("rake", "test"), ("phpunit",), ("mvn", "test"), ("mvn", "verify"),
    ("gradle", "test"), ("./gradlew", "test"), ("gradlew", "test"), ("gradle", "check"),
    ("./gradlew", "check"), ("gradlew", "check"), ("mvn", "package"), ("mvn", "install"),
    ("dotnet", "test"),
    ("ctest",), ("bats",), ("mix", "test"), ("swift", "test"), ("zig", "build", "test"),
    ("prove",), ("busted",), ("flutter", "test"), ("dart", "test"), ("elm-test",),
)
# Options that narrow a test run to some tests without naming their files.
_FILTERS = frozenset({"-k", "-m", "--deselect", "--lf", "--last-failed", "--ff", "-run",
                      "--run", "-t", "--testNamePattern", "-g", "--grep", "--filter",
                      "--only", "-E", "--exact", "--tests", "--test", "-p", "--package",
                      "--testPathPattern", "--spec", "-e", "--example"})
# Options whose value is the next word (not a target).
_VALUED = frozenset({"-n", "--numprocesses", "-c", "--config", "--rootdir", "--tb",
                     "--maxfail", "-j", "--jobs", "--timeout", "-C", "--manifest-path",
                     "--reporter", "-r", "--cov", "--junitxml", "-o", "--workspace",
                     "--features", "--target", "--count", "--parallel", "-P", "-f", "-v"})

_FAILURE_WORDS = re.compile(
    r"\b(?:errors?|erreurs?|échecs?|échoué|échouée?s?|failed|failures?|fails|fail|"
    r"exception|traceback|fatal|panic(?:ked)?|denied|refusé|introuvable|not found|aborted|"
    r"segmentation fault|no such file or directory|command not found|\w+error)\b"
    r"|\berr!", re.IGNORECASE)
# What says a count of failures is nothing: "0 failed", "no errors", "0 errors found".
_NO_FAILURE = re.compile(
    r"\b(?:0|zero|no|without|aucune?|sans|pas d')\s+(?:\w+\s+)?(?:errors?|erreurs?|"
    r"failures?|failed|fails?|issues?|échecs?|problems?)\b", re.IGNORECASE)
_SUCCESS_WORDS = re.compile(
    r"\b(?:passed|passing|pass|ok|success(?:ful(?:ly)?)?|succeeded|all checks passed|done|"
    r"finished|completed|réussis?|réussi(?:e|es)?|succès|built|compiled|clean|up to date|"
    r"no issues found|test result: ok)\b|✓|✔", re.IGNORECASE)
_EXIT = re.compile(r"\b(?:exit(?:ed)?(?: with)?(?: status| code)?|returned(?: code)?|"
                   r"code de sortie|status)\s*:?\s*(-?\d+)\b", re.IGNORECASE)
# A failing test named in an output (pytest, jest, vitest, mocha).
_FAILED_TEST = re.compile(r"^\s*(?:FAILED|FAIL|ERROR|✗|✕|×)\s+([\w./@+-]+\.\w+)(?:::\S*)?",
                          re.MULTILINE)
_PATH_LIKE = re.compile(r"[/\\]|\.\w{1,6}$|::")


def is_shell(tool: str | None) -> bool:
    """Whether a tool runs the command its call names (its question)."""
    if tool is None:
        return True  # a `tool` entry with no name: its question is what ran
    name = tool.lower()
    return name in ("sh", "zsh") or any(word in name for word in _SHELL_WORDS)


def _words(command: str) -> list[str]:
    try:
        return shlex.split(command, comments=False, posix=True)
    except ValueError:  # an unbalanced quote: the plain words
        return command.split()


def _segments(command: str) -> list[list[str]]:
    """The simple commands a command line runs (split at `&&`, `||`, `;`, `|`)."""
    parts = re.split(r"&&|\|\||;|\|(?!\|)|\n", command)
    return [words for part in parts if (words := _words(part))]


def _program(words: list[str]) -> list[str]:
    """The words from the program a launcher (sudo, uv run, npx...) runs on."""
    index = 0
    while index < len(words):
        word = words[index]
        if ("=" in word and not word.startswith("-") and index == 0) or (
                "=" in word and not word.startswith("-") and words[index - 1] == "env"):
            index += 1  # VAR=value before the program
        elif word in _LAUNCHERS or (word.startswith("-") and index
                                    and words[index - 1] in _LAUNCHERS):
            index += 1
        else:
            break
    return words[index:]


def reads_only(tool: str | None, command: str) -> bool:
    """Whether a call only reads: a read tool, or shell commands that each only read
    (`git diff|log|show|status`, `cat`, `grep`, `find` without an action...)."""
    if tool is not None and tool.lower().replace("-", "_") in _READ_TOOLS:
        return True
    if not is_shell(tool):
        return False
    segments = _segments(command)
    return bool(segments) and all(_reads(_program(words)) for words in segments)


def _reads(words: list[str]) -> bool:
    if not words:
        return True
    program = words[0].rsplit("/", 1)[-1]
    if program == "git":
        rest = [word for word in words[1:] if not word.startswith("-")]
        return bool(rest) and rest[0] in _GIT_READS
    if program == "find":
        return not any(word in _FIND_ACTIONS for word in words)
    if program == "sed":
        return "-n" in words and not any(word.startswith("-i") for word in words)
    if program == "cd":
        return True
    return program in _READ_PROGRAMS


class TestRun:
    """A test command: the paths it names (none: the whole suite, unless filtered)."""

    __slots__ = ("filtered", "paths")

    def __init__(self, paths: tuple[str, ...], filtered: bool) -> None:
        self.paths = paths
        self.filtered = filtered

    @property
    def whole_suite(self) -> bool:
        return not self.paths and not self.filtered


def test_run(command: str) -> TestRun | None:
    """The test run a command line makes, or None when it runs no test runner."""
    for segment in _segments(command):
        words = _program(segment)
        for runner in _TEST_RUNNERS:
            if tuple(words[:len(runner)]) == runner:
                return _targets(words[len(runner):])
    return None


def _targets(words: list[str]) -> TestRun:
    paths: list[str] = []
    filtered = False
    skip = False
    for word in words:
        if skip:
            skip = False
            continue
        if word == "--":
            continue
        if word.startswith("-"):
            name = word.split("=", 1)[0]
            if name in _FILTERS:
                filtered = True
                skip = "=" not in word
            elif name in _VALUED and "=" not in word:
                skip = True
            continue
        if word.startswith(("2>", ">", "<")):
            continue
        if word in (".", "./...", "...", "./"):
            continue  # every package, from here: the whole suite
        if _PATH_LIKE.search(word):
            paths.append(test_path(word))
        else:
            filtered = True  # a test name or a package: a narrower run
    return TestRun(tuple(dict.fromkeys(path for path in paths if path)), filtered)


def test_path(word: str) -> str:
    """A test target as a path: `./x/`, `x/...` and `x::name` name the file or folder x."""
    path = word.split("::", 1)[0]
    if path.startswith("./"):
        path = path[2:]
    if path.endswith("..."):
        path = path[:-3]
    path = path.rstrip("/")
    return "" if path == "." else path


def covers(run_path: str, failed_path: str) -> bool:
    """Whether a test run of `run_path` runs the tests of `failed_path`."""
    return failed_path == run_path or failed_path.startswith(run_path + "/")


def tail_lines(output: str) -> list[str]:
    """The last non-blank lines of an output, where its verdict is."""
    tail = output[-TAIL_CHARS:] if len(output) > TAIL_CHARS else output
    lines = [line.strip() for line in tail.splitlines() if line.strip()]
    return lines[-VERDICT_LINES:]


def failure_of(output: str, shell: bool = True) -> str | None:
    """The line where an output says it failed, or None when it does not.

    A shell's verdict is at its end. From its last line up: a non-zero exit status fails
    (the line above it says why), a zero one succeeds; a line naming a failure that is not
    a count of none fails; a line saying it passed succeeds. Another tool (an edit, a
    file read) says so on its first line: what follows is the file it showed.
    """
    if not shell:
        first = output.lstrip()[:TAIL_CHARS].split("\n", 1)[0].strip()
        return first if first and _failing(first) else None
    lines = tail_lines(output)
    for index in range(len(lines) - 1, -1, -1):
        line = lines[index]
        status = _EXIT.search(line)
        if status is not None and re.search(r"exit|code|status|sortie|returned", line, re.I):
            if int(status.group(1)) != 0:
                above = lines[index - 1] if index else ""
                return above if above and _failing(above) else line
            return None
        if _failing(line):
            return line
        if _SUCCESS_WORDS.search(line):
            return None
    return None


def _failing(line: str) -> bool:
    if _FAILURE_WORDS.search(line) is None:
        return False
    cleared = _NO_FAILURE.sub("", line)
    return _FAILURE_WORDS.search(cleared) is not None


def failed_tests(output: str) -> tuple[str, ...]:
    """The test files an output says failed (`FAILED tests/x.py::t`), from its tail."""
    tail = output[-TAIL_CHARS:] if len(output) > TAIL_CHARS else output
    if "FAIL" not in tail and "ERROR" not in tail and "✗" not in tail and "✕" not in tail:
        return ()
    return tuple(dict.fromkeys(test_path(match.group(1))
                               for match in _FAILED_TEST.finditer(tail)))[:8]


def command_key(tool: str | None, question: str, paths: tuple[str, ...]) -> str:
    """What names a call: a shell's command, whitespace folded; another tool's name and
    the file it acts on (an edit retried with other arguments is the same call)."""
    if is_shell(tool):
        return flatten(question)[:COMMAND_CHARS]
    assert tool is not None
    target = paths[0] if paths else flatten(question)[:COMMAND_CHARS - len(tool) - 1]
    return f"{flatten(tool)} {target}".strip()
