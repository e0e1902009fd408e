"""What a tool call did, read from the call and its output (pure): which command ran, whether
it only read, which tests it ran, and whether it failed (ADR 0008).

The runtime knows best: `ok` and `files`, when a line carries them, are taken as they are.
Without `ok`, the output is read the way an engineer reads a terminal: the verdict is at
its end (a summary line, an exit status), what scrolled by before is the log it met.
"""

from __future__ import annotations

import json
import re
import shlex

from horizon.core.text import flatten

COMMAND_CHARS = 200  # of a command, what keys and shows it
TAIL_CHARS = 4096  # of an output, where its verdict is
VERDICT_LINES = 12  # the last non-blank lines of an output that may hold its verdict

# Tools that only read, whatever their arguments (Claude Code's, Codex's, common MCP ones).
_READ_TOOLS = frozenset([
    "read", "read_file", "readfile", "view", "view_file", "open_file", "cat", "grep",
    "glob", "ls", "list", "list_dir", "list_files", "listdir", "find", "find_files",
    "search", "search_files", "codebase_search", "file_search", "grep_search",
    "notebookread", "webfetch", "web_fetch", "websearch", "web_search", "fetch", "get_file",
    "todoread", "todowrite", "think",
])
# Tools whose answer is prose (a subagent's report), not an output with a verdict.
_PROSE_TOOLS = frozenset(["task", "agent", "subagent", "dispatch_agent", "exitplanmode"])
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
}
_GH_WRITES = frozenset(["create", "merge", "close", "edit", "comment", "delete", "reopen",
                        "review", "checkout", "rerun", "cancel", "clone", "fork"])
_FIND_ACTIONS = frozenset(["-exec", "-execdir", "-delete", "-ok", "-okdir", "-fprint"])
# What runs a program on behalf of another: the program is the word after it.
_LAUNCHERS = frozenset(["sudo", "time", "nice", "nohup", "env", "command", "exec",
                        "timeout", "npx", "pnpx", "bunx", "xargs"])
_RUN_LAUNCHERS = {"uv": "run", "poetry": "run", "pipenv": "run", "hatch": "run",
                  "pdm": "run", "rye": "run", "bundle": "exec", "pnpm": "exec",
                  "yarn": "dlx"}
_DURATION = re.compile(r"^\d+(?:\.\d+)?[smhd]?$")
_SHELL_WORDS = ("bash", "shell", "terminal", "command", "exec", "run", "cmd", "console")
_SHELLS = frozenset(["bash", "sh", "zsh", "dash", "fish", "ksh"])

# A test runner, by its first words (after launchers): what family its runs are of (a
# whole-suite run resolves the failures of its family: `npm test` runs vitest), and the
# rest are its targets: paths, or filters that narrow it. `make test`, `tox` and the
# like run whatever a project's tests are: their family resolves every family.
_TEST_RUNNERS = (
    (("vitest", "run"), "js"), (("vitest", "watch"), "js"), (("pytest",), "py"),
    (("py.test",), "py"), (("python", "-m", "pytest"), "py"),
    (("python3", "-m", "pytest"), "py"), (("python", "-m", "unittest"), "py"),
    (("python3", "-m", "unittest"), "py"), (("python", "manage.py", "test"), "py"),
    (("tox",), "tox"), (("nox",), "nox"), (("nose2",), "py"), (("ward",), "py"),
    (("jest",), "js"), (("vitest",), "js"), (("mocha",), "js"), (("ava",), "js"),
    (("jasmine",), "js"), (("karma",), "js"), (("playwright", "test"), "playwright"),
    (("cypress", "run"), "cypress"), (("go", "test"), "go"), (("cargo", "test"), "cargo"),
    (("cargo", "nextest", "run"), "cargo"), (("cargo", "nextest"), "cargo"),
    (("npm", "test"), "js"), (("npm", "t"), "js"), (("npm", "run", "test"), "js"),
    (("yarn", "test"), "js"), (("yarn", "run", "test"), "js"), (("pnpm", "test"), "js"),
    (("pnpm", "run", "test"), "js"), (("bun", "test"), "js"), (("bun", "run", "test"), "js"),
    (("yarn", "jest"), "js"), (("yarn", "vitest"), "js"), (("pnpm", "vitest"), "js"),
    (("pnpm", "jest"), "js"), (("deno", "test"), "deno"), (("make", "test"), "make"),
    (("make", "tests"), "make"), (("make", "check"), "make"), (("just", "test"), "just"),
    (("rspec",), "rspec"), (("rake", "test"), "rake"), (("rails", "test"), "rails"),
    (("phpunit",), "phpunit"), (("php", "artisan", "test"), "artisan"),
    (("mvn", "test"), "jvm"), (("mvn", "verify"), "jvm"), (("mvn", "package"), "jvm"),
    (("mvn", "install"), "jvm"), (("gradle", "test"), "jvm"),
    (("./gradlew", "test"), "jvm"), (("gradlew", "test"), "jvm"),
    (("gradle", "check"), "jvm"), (("./gradlew", "check"), "jvm"),
    (("gradlew", "check"), "jvm"), (("nx", "test"), "nx"), (("turbo", "run", "test"), "turbo"),
    (("dotnet", "test"), "dotnet"), (("ctest",), "ctest"), (("bats",), "bats"),
    (("mix", "test"), "mix"), (("swift", "test"), "swift"), (("zig", "build", "test"), "zig"),
    (("prove",), "prove"), (("busted",), "busted"), (("flutter", "test"), "flutter"),
    (("dart", "test"), "dart"), (("elm-test",), "elm"),
)
_RUNNERS_BY_PROGRAM: dict[str, list[tuple[tuple[str, ...], str]]] = {}
for _runner, _family in _TEST_RUNNERS:
    _RUNNERS_BY_PROGRAM.setdefault(_runner[0], []).append((_runner, _family))
# Script names that run tests (`npm run test:unit`, `./gradlew :app:test`, `mvn -q test`).
_TEST_SCRIPT = re.compile(r"^(?::?[\w-]+:)?tests?(?::[\w-]+)?$|^test[\w:-]*$")
# Options that narrow a test run to some tests without naming their files.
_FILTERS = frozenset(["-k", "-m", "--deselect", "--ff", "-run", "--run", "-t",
                      "--testNamePattern", "-g", "--grep", "--filter", "--only", "-E", "--exact",
                      "--tests", "--test", "-p", "--package", "--testPathPattern", "--spec",
                      "-e", "--example", "-pl", "--projects"])
# Options that rerun the failures of the run before: a success then resolves them all.
_RERUN = frozenset(["--lf", "--last-failed", "--onlyFailures", "--only-failures"])
# Options whose value is the next word (not a target).
_VALUED = frozenset(["-n", "--numprocesses", "-c", "--config", "--rootdir", "--tb",
                     "--maxfail", "-j", "--jobs", "--timeout", "-C", "--manifest-path",
                     "--reporter", "-r", "--cov", "--junitxml", "-o", "--features", "--target",
                     "--count", "--parallel", "-P", "-f", "--workers", "--shard", "-w"])

_FAILURE_WORDS = re.compile(
    r"\b(?:errors?|erreurs?|échecs?|échoué|échouée?s?|failed|failures?|fails|fail|"
    r"exception|traceback|fatal|panic(?:ked)?|denied|refusé|introuvable|not found|aborted|"
    r"segmentation fault|no such file or directory|command not found)\b"
    r"|error(?=:)|^\w*error\b|\berr!", re.IGNORECASE)
# What says a count of failures is nothing: "0 failed", "no errors", "Failed: 0".
_NO_FAILURE = re.compile(
    r"\b(?:0|zero|no|without|aucune?|sans|pas d')\s+(?:\w+\s+)?(?:errors?|erreurs?|"
    r"failures?|failed|fails?|issues?|échecs?|problems?)\b|\b(?:errors?|failures?|failed|"
    r"fails?|erreurs?)\s*[:=]\s*0\b|\b0\s+remaining\b", re.IGNORECASE)
# A line that says it failed wherever it stands in the tail (go's FAIL of one package,
# Maven's BUILD FAILURE above its timing lines, a count of failures above a count of
# passes).
_FAILED_LINE = re.compile(
    r"^(?:FAIL\b|FAILED\b|--- FAIL|make(?:\[\d+\])?: \*\*\*|(?:\[\w+\]\s+)?BUILD FAIL|"
    r"✗|✕)|panicked at|\b[1-9]\d*\s+(?i:failed|failing|failures?|errors?)\b"
    r"|\b(?:Failed|FAILED)\s*$|(?i:would reformat|would be reformatted|no tests ran|"
    r"code style issues found)|Tests?:.*\b[1-9]\d*\s+failed")
_SUCCESS_WORDS = re.compile(
    r"\b(?:passed|passing|pass|ok|success(?:ful(?:ly)?)?|succeeded|all checks passed|"
    r"réussis?|réussi(?:e|es)?|succès|no issues found|test result: ok|up to date)\b|✓|✔",
    re.IGNORECASE)
_EXIT = re.compile(r"\b(?:exit(?:ed)?(?: with)?(?: status| code)?|returned(?: code)?|"
                   r"code de sortie)\s*:?\s*(-?\d+)\b", re.IGNORECASE)
# Within a line, what names things rather than saying how it went: paths, quoted text (a
# commit message), identifiers.
_NAMES = re.compile(r"(?<!\S)\S*[/\\]\S*|[\w-]+\.\w{1,6}\b|\"[^\"]*\"|'[^']*'|`[^`]*`|\w+_\w+")
# A failing test named in an output (pytest, jest, vitest, mocha), with its node.
_FAILED_TEST = re.compile(
    r"^\s*(?:FAILED|FAIL|ERROR|✗|✕|×)\s+([\w./@+-]+\.\w{1,6})(?![\w/])(::\S+)?",
    re.MULTILINE)
_PATH_LIKE = re.compile(r"[/\\]|\.\w{1,6}$|::")
_GIT_FAILED = re.compile(r"^(?:error:|fatal:|CONFLICT|! \[rejected\]|Automatic merge failed|"
                         r"hint: Updates were rejected)", re.MULTILINE)


def is_shell(tool: str | None) -> bool:
    """Whether a tool runs the command its call names (its question)."""
    if tool is None:
        return True  # a `tool` entry with no name: its question is what ran
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
    words = _words(text)
    if (len(words) >= 3 and words[0].rsplit("/", 1)[-1] in _SHELLS
            and words[1].startswith("-") and "c" in words[1]):
        return unwrapped(words[2])
    return command


def _words(command: str) -> list[str]:
    if "'" not in command and '"' not in command and "\\" not in command:
        return command.split()  # what shlex gives for it, at a tenth of the cost
    try:
        return shlex.split(command, comments=False, posix=True)
    except ValueError:  # an unbalanced quote: the plain words
        return command.split()


def _segments(command: str) -> list[list[str]]:
    """The simple commands a command line runs (split at `&&`, `||`, `;`, `|`)."""
    parts = re.split(r"&&|\|\||;|\|(?!\|)|\n", command)
    return [words for part in parts if (words := _words(part))]


def _program(words: list[str]) -> list[str]:
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
    segments = _segments(command)
    return bool(segments) and all(_reads(_program(words)) for words in segments)


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
    for part in re.split(r"&&|\|\||;|\n", unwrapped(question)):
        words = _program(_words(part.split("|")[0]))  # the producer of a pipe
        words = [word for word in words
                 if not re.match(r"^(?:\d?>>?|&>|<)", word) and word != "2>&1"
                 and word.split("=", 1)[0] not in _HOW_FLAGS]
        if words and words[0] != "cd":
            parts.append(" ".join(words))
    return (" && ".join(parts) or flatten(question))[:COMMAND_CHARS]


# Options that change how a command runs or shows, not what it checks: a rerun with them
# is the same call (`ruff check --fix src` after `ruff check src`).
_HOW_FLAGS = frozenset(["--fix", "--write", "--autofix", "--fix-only", "--unsafe-fixes",
                        "--no-cache", "--pull", "-q", "--quiet", "-v", "-vv", "--verbose",
                        "--color", "--no-color", "--tb", "-x", "--exitfirst", "-s", "--ci",
                        "--runInBand", "--progress", "--no-progress"])


class TestRun:
    """A test command: the family of runner it is, the paths it names and the test nodes
    (`path::name`) among them; none: the whole suite, unless filtered."""

    __slots__ = ("family", "filtered", "nodes", "paths", "rerun")

    def __init__(self, family: str, paths: tuple[str, ...], nodes: tuple[str, ...],
                 filtered: bool, rerun: bool) -> None:
        self.family = family
        self.paths = paths
        self.nodes = nodes
        self.filtered = filtered
        self.rerun = rerun

    @property
    def whole_suite(self) -> bool:
        return self.rerun or (not self.paths and not self.nodes and not self.filtered)


def test_run(command: str) -> TestRun | None:
    """The test run a command line makes, or None when it runs no test runner."""
    folder = ""
    for segment in _segments(unwrapped(command)):
        words = _program(segment)
        if words[:1] == ["cd"] and len(words) > 1:
            # A folder of the project (`cd web`); an absolute one is where it all is.
            folder = "" if words[1].startswith(("/", "~", "$")) else words[1].strip("./")
            continue
        for runner, family in _RUNNERS_BY_PROGRAM.get(words[0] if words else "", ()):
            if tuple(words[:len(runner)]) == runner:
                return _targets(f"{folder}:{family}", words[len(runner):])
        if words[:2] in (["npm", "run"], ["yarn", "run"], ["pnpm", "run"], ["bun", "run"]) \
                and len(words) > 2 and _TEST_SCRIPT.match(words[2]):
            return _targets(f"{folder}:js", words[3:])
        if words and words[0].rsplit("/", 1)[-1] in ("mvn", "gradle", "gradlew", "nx",
                                                       "turbo", "just", "hatch") and any(
                _TEST_SCRIPT.match(word) for word in words[1:] if not word.startswith("-")):
            return TestRun(f"{folder}:{words[0].rsplit('/', 1)[-1]}", (), (), True, False)
    return None


def _targets(family: str, words: list[str]) -> TestRun:
    paths: list[str] = []
    nodes: list[str] = []
    filtered = rerun = False
    skip = False
    for word in words:
        if skip:
            skip = False
            continue
        if word == "--":
            continue
        if word.startswith("-"):
            name = word.split("=", 1)[0]
            if name in _RERUN:
                rerun = True
            elif name in _FILTERS:
                filtered = True
                skip = "=" not in word
            elif name in _VALUED and "=" not in word:
                skip = True
            continue
        if word.startswith(("2>", ">", "<")) or word in ("2>&1", "|"):
            continue
        if word in (".", "./...", "...", "./"):
            continue  # every package, from here: the whole suite
        if _PATH_LIKE.search(word):
            path = test_path(word)
            if "::" in word:  # one test of the file, not all of them
                nodes.append(f"{path}::{word.split('::', 1)[1]}")
            elif path:
                paths.append(path)
        else:
            filtered = True  # a test name or a package: a narrower run
    return TestRun(family, tuple(dict.fromkeys(paths)), tuple(dict.fromkeys(nodes)),
                   filtered, rerun)


def test_path(word: str) -> str:
    """A test target as a path: `./x/`, `x/...` and `x::name` name the file or folder x."""
    path = word.split("::", 1)[0]
    if path.startswith("./"):
        path = path[2:]
    if path.endswith("..."):
        path = path[:-3]
    path = path.rstrip("/")
    return "" if path == "." else path


META_RUNNERS = frozenset(["make", "just", "tox", "nox", "nx", "turbo", "hatch", "mvn",
                          "gradle", "gradlew", "ctest", "rake"])


def same_family(failed: str, run: str) -> bool:
    """Whether a whole-suite run of family `run` runs the tests a failure of `failed` was
    of: the same runner's, or any in its folder for a runner of runners (`make test`)."""
    if failed == run:
        return True
    folder, _, family = run.partition(":")
    return family in META_RUNNERS and failed.partition(":")[0] == folder and failed != ""


def covers(run_path: str, failed_path: str) -> bool:
    """Whether a test run of `run_path` runs the tests of `failed_path`."""
    return failed_path == run_path or failed_path.startswith(run_path + "/")


def tail_lines(output: str) -> list[str]:
    """The last non-blank lines of an output, where its verdict is."""
    tail = output[-TAIL_CHARS:] if len(output) > TAIL_CHARS else output
    lines = [line.strip() for line in tail.splitlines() if line.strip()]
    return lines[-VERDICT_LINES:]


def failure_of(output: str, shell: bool = True, tool: str | None = None,
               command: str = "") -> str | None:
    """The line where an output says it failed, or None when it does not.

    A shell's verdict is at its end: a line in its last lines that says it failed
    wherever it stands (`FAIL`, `BUILD FAILURE`, `2 failed`); else, from the last line
    up, a non-zero exit status fails (the line above it says why), a zero one succeeds, a
    line naming a failure that is not a count of none fails, a line saying it passed
    succeeds. Names on a line (paths, quoted text, identifiers) are not read: `src/errors.py`
    says nothing of how it went. A `git` command fails by git's own words (`error:`,
    `fatal:`, `CONFLICT`). Another tool (an edit, a file read) says so on its first line;
    a subagent's answer is prose, with no verdict.
    """
    if tool is not None and tool.lower() in _PROSE_TOOLS:
        return None
    if not shell:
        first = output.lstrip()[:TAIL_CHARS].split("\n", 1)[0].strip()
        return first if first and _failing(first) else None
    program = _program(_words(unwrapped(command).split("|")[0].split("&&")[-1]))[:1]
    if program == ["git"]:
        found = _GIT_FAILED.search(output[-TAIL_CHARS:])
        return found.string[found.start():].split("\n", 1)[0] if found else None
    lines = tail_lines(output)
    for line in lines[-2:]:  # an exit status at the very end says it all
        status = _EXIT.search(line)
        if status is not None and int(status.group(1)) == 0:
            return None
    strong = [line for line in lines if _may_fail(line) and _FAILED_LINE.search(line)
              and _FAILED_LINE.search(_NAMES.sub(" ", line)) and not _NO_FAILURE.search(line)]
    if strong:
        return strong[-1]
    for index in range(len(lines) - 1, -1, -1):
        line = lines[index]
        status = _EXIT.search(line)
        if status is not None:
            if int(status.group(1)) != 0:
                above = lines[index - 1] if index else ""
                return above if above and _failing(above) else line
            return None
        if _failing(line):
            return line
        if _SUCCESS_WORDS.search(line):
            return None
    return None


_FAIL_STEMS = ("fail", "error", "✗", "✕", "panick", "make", "would re", "no tests",
               "code style")


def _may_fail(line: str) -> bool:
    """What any line that says it failed holds: ten times cheaper than the patterns."""
    folded = line.lower()
    return any(stem in folded for stem in _FAIL_STEMS)


def _failing(line: str) -> bool:
    if _FAILURE_WORDS.search(line) is None:  # most lines: no need to look closer
        return False
    said = _NO_FAILURE.sub("", _NAMES.sub(" ", line))
    return _FAILURE_WORDS.search(said) is not None


def failed_tests(output: str) -> tuple[tuple[str, str], ...]:
    """The test files an output says failed (`FAILED tests/x.py::t`), each with the test
    it names (or ""), from its tail."""
    tail = output[-TAIL_CHARS:] if len(output) > TAIL_CHARS else output
    if "FAIL" not in tail and "ERROR" not in tail and "✗" not in tail and "✕" not in tail:
        return ()
    found: dict[tuple[str, str], None] = {}
    for match in _FAILED_TEST.finditer(tail):
        path = test_path(match.group(1))
        if path:
            found.setdefault((path, f"{path}{match.group(2)}" if match.group(2) else ""))
    return tuple(found)[:16]
