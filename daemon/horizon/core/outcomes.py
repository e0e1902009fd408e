"""Whether a tool call failed, read from its output (pure), and on which line (ADR 0008).

The runtime knows best: `ok`, when a line carries it, is taken as it is. Without it, the
output is read the way an engineer reads a terminal: the verdict is at its end (a summary
line, an exit status), what scrolled by before is the log it met.
"""

from __future__ import annotations

import re

from horizon.core.commands import program_words, shell_words, unwrapped
from horizon.core.patterns import Pattern

TAIL_CHARS = 4096  # of an output, where its verdict is
VERDICT_LINES = 12  # the last non-blank lines of an output that may hold its verdict
VERDICT_CHARS = 16384  # of an output, where a runner names the tests that failed

# Tools whose answer is prose (a subagent's report), not an output with a verdict.
_PROSE_TOOLS = frozenset(["task", "agent", "subagent", "dispatch_agent", "exitplanmode"])
_FAILURE_WORDS = Pattern(
    r"\b(?:errors?|erreurs?|échecs?|échoué|échouée?s?|failed|failures?|fails|fail|"
    r"exception|traceback|fatal|panic(?:ked)?|denied|refusé|introuvable|not found|aborted|"
    r"segmentation fault|no such file or directory|command not found)\b"
    r"|error(?=:)|^\w*error\b|\berr!", re.IGNORECASE)
# What says a count of failures is nothing: "0 failed", "no errors", "Failed: 0".
_NO_FAILURE = Pattern(
    r"\b(?:0|zero|no|without|aucune?|sans|pas d')\s+(?:\w+\s+)?(?:errors?|erreurs?|"
    r"failures?|failed|fails?|issues?|échecs?|problems?)\b|\b(?:errors?|failures?|failed|"
    r"fails?|erreurs?)\s*[:=]\s*0\b|\b0\s+remaining\b", re.IGNORECASE)
# A line that says it failed wherever it stands in the tail (go's FAIL of one package,
# Maven's BUILD FAILURE above its timing lines, a count of failures above a count of
# passes).
_FAILED_LINE = Pattern(
    r"^(?:FAIL\b|FAILED\b|--- FAIL|make(?:\[\d+\])?: \*\*\*|(?:\[\w+\]\s+)?BUILD FAIL|"
    r"✗|✕|× )|panicked at|\b[1-9]\d*\s+(?i:failed|failing|failures?|errors?)\b"
    r"|\b(?:Failed|FAILED)\s*$|(?i:would reformat|would be reformatted|no tests ran|"
    r"code style issues found)|Tests?:.*\b[1-9]\d*\s+failed")
_COUNT = Pattern(r"\b\d+\s+(?i:failed|passed|tests?|errors?)\b")
_SUCCESS_WORDS = Pattern(
    r"\b(?:passed|passing|pass|ok|success(?:ful(?:ly)?)?|succeeded|all checks passed|"
    r"réussis?|réussi(?:e|es)?|succès|no issues found|test result: ok|up to date)\b|✓|✔",
    re.IGNORECASE)
_EXIT = Pattern(r"\b(?:exit(?:ed)?(?: with)?(?: status| code)?|returned(?: code)?|"
                   r"code de sortie)\s*:?\s*(-?\d+)\b", re.IGNORECASE)
# Within a line, what names things rather than saying how it went: paths, quoted text (a
# commit message), identifiers.
_NAMES = Pattern(r"(?<!\S)\S*[/\\]\S*|[\w-]+\.\w{1,6}\b|\"[^\"]*\"|'[^']*'|`[^`]*`|\w+_\w+")
_GIT_FAILED = Pattern(r"^(?:error:|fatal:|CONFLICT|! \[rejected\]|Automatic merge failed|"
                         r"hint: Updates were rejected)", re.MULTILINE)


def tail_lines(output: str) -> list[str]:
    """The last non-blank lines of an output, where its verdict is."""
    tail = output[-TAIL_CHARS:] if len(output) > TAIL_CHARS else output
    lines = [line.strip() for line in tail.splitlines() if line.strip()]
    return lines[-VERDICT_LINES:]


def failing_lines(output: str) -> list[str]:
    """The lines of an output's end that say something failed, in their order: the failing
    tests a runner names above its verdict (`FAILED tests/x.py::t`, `× renders`, `test t
    ... FAILED`, `panicked at`), then the lines that count them."""
    tail = output[-VERDICT_CHARS:] if len(output) > VERDICT_CHARS else output
    found = [line for line in (raw.strip() for raw in tail.splitlines())
             if line and _may_fail(line) and _FAILED_LINE.search(line)
             and not _NO_FAILURE.search(line)]
    # What names a failure before what counts them: the count is in the tail already.
    return sorted(found, key=lambda line: _COUNT.search(line) is not None)


# Every failing verdict the patterns below read holds one of these, case folded: an
# output whose tail holds none has no verdict of failure (most calls' outputs).
_VERDICT_STEMS = ("err", "échec", "échou", "fail", "exception", "traceback", "fatal",
                  "panic", "denied", "refusé", "introuvable", "not found", "abort",
                  "segmentation", "no such file", "✗", "✕", "× ", "make", "would re",
                  "no tests", "code style", "exit", "returned", "code de sortie",
                  "conflict", "rejected")
# Letters the patterns match as `i` or `s` ignoring case, that lower() keeps apart.
_UNFOLDED = ("\u0130", "\u0131", "\u017f")


def may_fail(tail: str) -> bool:
    """Whether a tail may hold a verdict of failure: False only when none can match."""
    if not tail.isascii() and any(letter in tail for letter in _UNFOLDED):
        return True
    folded = tail.lower()
    for stem in _VERDICT_STEMS:  # noqa: SIM110 (a loop: a third cheaper than any())
        if stem in folded:
            return True
    return False


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
    if not may_fail(output[-TAIL_CHARS:]):
        return None
    program = program_words(shell_words(unwrapped(command).split("|")[0].split("&&")[-1]))[:1]
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
                if index == 0 and len(lines) > 1 and output.lstrip().startswith(line):
                    return lines[-1]  # Claude Code's "Exit code 1" heads the output
                above = lines[index - 1] if index else ""
                return above if above and _failing(above) else line
            return None
        if _failing(line):
            return line
        if _SUCCESS_WORDS.search(line):
            return None
    return None


_FAIL_STEMS = ("fail", "error", "✗", "✕", "× ", "panick", "make", "would re", "no tests",
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
