"""Which tests a command runs (pure): its runner's family, the files and test nodes it
names, whether it runs the whole suite or reruns the last failures; and which test files
an output says failed (ADR 0008).
"""

from __future__ import annotations

import re

from horizon.core.commands import program_words, simple_commands, unwrapped
from horizon.core.outcomes import TAIL_CHARS
from horizon.core.patterns import Pattern

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
_TEST_SCRIPT = Pattern(r"^(?::?[\w-]+:)?tests?(?::[\w-]+)?$|^test[\w:-]*$")
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
# A failing test named in an output (pytest, jest, vitest, mocha), with its node.
_FAILED_TEST = Pattern(
    r"^\s*(?:FAILED|FAIL|ERROR|✗|✕|×)\s+([\w./@+-]+\.\w{1,6})(?![\w/])(::\S+)?",
    re.MULTILINE)
_PATH_LIKE = Pattern(r"[/\\]|\.\w{1,6}$|::")


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
    for segment in simple_commands(unwrapped(command)):
        words = program_words(segment)
        if words[:1] == ["cd"] and len(words) > 1:
            # A folder of the project (`cd web`); an absolute one is where it all is.
            folder = "" if words[1].startswith(("/", "~", "$")) else words[1].strip("./")
            continue
        for runner, family in _RUNNERS_BY_PROGRAM.get(words[0] if words else "", ()):
            if tuple(words[:len(runner)]) == runner:
                if family in ("tox", "nox"):
                    return _sessions_run(f"{folder}:{family}", words[1:])
                return _targets(f"{folder}:{family}", words[len(runner):])
        if words[:2] in (["npm", "run"], ["yarn", "run"], ["pnpm", "run"], ["bun", "run"]) \
                and len(words) > 2 and _TEST_SCRIPT.match(words[2]):
            return _targets(f"{folder}:js", words[3:])
        if words and words[0].rsplit("/", 1)[-1] in ("mvn", "gradle", "gradlew", "nx",
                                                       "turbo", "just", "hatch") and any(
                _TEST_SCRIPT.match(word) for word in words[1:] if not word.startswith("-")):
            return TestRun(f"{folder}:{words[0].rsplit('/', 1)[-1]}", (), (), True, False)
    return None


def _sessions_run(family: str, words: list[str]) -> TestRun | None:
    """A tox or nox run: its sessions (`-s tests`, `-e py311`) choose environments, not
    tests, so sessions that test run the whole suite, unless what follows `--` narrows
    it; a session that does something else (`-s lint`) runs no test."""
    cut = words.index("--") if "--" in words else len(words)
    mine, passed = words[:cut], words[cut + 1:]
    sessions: list[str] = []
    for at, word in enumerate(mine):
        name, _, value = word.partition("=")
        if name in _SESSION_OPTIONS:
            chosen = value or (mine[at + 1] if at + 1 < len(mine) else "")
            sessions += [part for part in chosen.split(",") if part]
    if any(not _TEST_SESSION.match(session.lower()) for session in sessions):
        return None
    return _targets(family, passed)


_SESSION_OPTIONS = frozenset(["-s", "--session", "--sessions", "-e", "--envlist", "-f",
                              "--factor"])
# A session that runs the tests: by its name, or by the Python it runs them with.
_TEST_SESSION = Pattern(r"^(?:tests?|unit|pytest|py\d*|py?\d+(?:\.\d+)?|"
                        r"(?:tests?|unit)[-_:.]?[\w.]*)$")


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


FAILING_NAMES = 3  # named on a failure's line; the rest are in the journal
NAMES_CHARS = 20_000  # of an output's end, where runners list what failed


def failing_names(output: str) -> tuple[str, ...]:
    """The tests an output names as failed, in each runner's own words: `go test`'s
    `--- FAIL: TestX`, cargo's `test a::b ... FAILED`, Gradle's `Class > method() FAILED`,
    unittest's `FAIL: test_x (…)`, vitest's or jest's `× name`, pytest's `FAILED p::t`,
    Playwright's `1) [chromium] › file › title`, CTest's `31 - name (Failed)`, ExUnit's
    `1) test name (Module)`."""
    found: dict[str, None] = {}
    for match in _FAILING_NAME.finditer(output[-NAMES_CHARS:]):
        name = ".".join(group for group in match.groups() if group)
        found.setdefault(name.strip()[:80])
        if len(found) == FAILING_NAMES:
            break
    return tuple(found)


_FAILING_NAME = Pattern(
    r"^[ \t]*--- FAIL: (\S+)"
    r"|^test (\S+) \.\.\. FAILED"
    r"|^[ \t]*([\w.$]+) > ([\w$ .-]+?)(?:\(\))? FAILED[ \t]*$"
    r"|^(?:FAIL|ERROR): (test\w*) \("
    r"|^[ \t]*[×✕✗][ \t]+(.+?)(?:[ \t]+\d+[ \t]*ms)?[ \t]*$"
    r"|^FAILED [\w./@+-]+::(\S+)"
    r"|^[ \t]*(?:\d+\)|✘[ \t]+\d+)[ \t]+\[[^\]\n]+\] › [^\s›]+ › (.+?)"
    r"(?:[ \t]+\(\d[\d.]*m?s\)|[ \t]+─+)?[ \t]*$"
    r"|^[ \t]*\d+ - (\S+) \((?:Failed|Timeout|SEGFAULT|Subprocess aborted|Exception|"
    r"Not Run|Child aborted|ILLEGAL|BUS)\)[ \t]*$"
    r"|^[ \t]*\d+\) test (.+?) \([\w.]+\)[ \t]*$", re.MULTILINE)


# A checker's, linter's or compiler's diagnostic: where it points (`src/x.py:3:8: F401`,
# `lib/a.ex:88:call`, `/abs/src/io/f.cpp:64:12: error: …`, rustc's and clippy's
# `  --> src/x.rs:57:10`, tsc's `src/x.ts(15,3): error TS2322`).
_PATH = r"(?P<path>(?:/|\.{1,2}/)?(?:[\w@+.-]+/)*[\w@+-][\w@+.-]*\.[A-Za-z][\w]{0,5})"
_DIAGNOSTIC = Pattern(
    r"^[ \t┃]*(?:-+>[ \t]*)?" + _PATH + r"(?::(?P<line>\d{1,6})(?::(?P<column>\d{1,5}|"
    r"[a-z_]{2,20}))?(?=[:\s]|$)|\((?P<tsc_line>\d{1,6}),(?P<tsc_column>\d{1,5})\):)",
    re.MULTILINE)


def first_diagnostic(output: str) -> str | None:
    """Where the first diagnostic of an output points, `path:line[:column]`; an absolute
    path by its file's name (a work tree's prefix says nothing of the file)."""
    match = _DIAGNOSTIC.search(output)
    if match is None:
        return None
    path = match["path"]
    if path.startswith("/"):
        path = path.rsplit("/", 1)[-1]
    line, column = match["line"] or match["tsc_line"], match["column"] or match["tsc_column"]
    return f"{path}:{line}:{column}" if column else f"{path}:{line}"
