"""The verdict guard (`outcomes.may_fail`) skips reading an output that holds no word of
failure: with it, `failure_of` and `signals.output_failed` say what they say without it.

The generator builds outputs from the pieces the guard must see through: every stem in
upper and mixed case, the letters the patterns fold to `i` and `s` that lower() keeps
apart, exit statuses, runtime noise that splits a word in two, long heads that push the
first line out of the tail, and plain text."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from horizon.core import outcomes, signals
from horizon.core.blocks import Item
from horizon.core.outcomes import failure_of
from horizon.core.signals import output_failed

_PIECES = [
    "tests passed", "ok", "Les tests passent.", "done in 3s", "\n", "  ", "✓ all good",
    "ERROR", "Error:", "eRRor", "FAIL", "Failed", "2 failed", "0 failed", "no errors",
    "Traceback (most recent call last):", "FATAL", "panicked at", "Permission DENIED",
    "REFUSÉ", "introuvable", "NOT FOUND", "aborted", "Segmentation fault",
    "No such file or directory", "✗ renders", "✕", "× boom", "make: *** [all] Error 2",
    "would reformat x.py", "no tests ran", "Code style issues found", "exit status 1",
    "Exit code 0", "returned 2", "code de sortie : 1", "CONFLICT (content)",
    "! [rejected]", "ÉCHEC", "échoué", "exception", "FAİLED", "ERRORS", "faıl",
    "denıed", "ſegmentation fault", "no ſuch file or directory", "refuſé",
    "fa<system-reminder>x</system-reminder>iled", "<system-reminder>ok</system-reminder>",
    "x" * 5000, "line\n" * 30,
]
_outputs = st.lists(st.sampled_from(_PIECES), max_size=8).map(" ".join)
_tools = st.sampled_from([None, "Bash", "bash", "Edit", "Read", "Task", "apply_patch"])
_commands = st.sampled_from(["pytest", "git push", "grep -rn TODO src/", "make lint",
                             "src/app.py", "npm test"])


@contextmanager
def _unguarded() -> Iterator[None]:
    """The plain path: every output read as if it might hold a verdict."""
    saved = outcomes.may_fail, signals.may_fail
    outcomes.may_fail = signals.may_fail = lambda tail: True
    try:
        yield
    finally:
        outcomes.may_fail, signals.may_fail = saved


@settings(max_examples=400, deadline=None)
@given(_outputs, st.booleans(), _tools, _commands)
def test_the_guard_changes_no_verdict(output: str, shell: bool, tool: str | None,
                                      command: str) -> None:
    guarded = failure_of(output, shell, tool, command)
    with _unguarded():
        assert failure_of(output, shell, tool, command) == guarded


@settings(max_examples=400, deadline=None)
@given(_outputs, _tools, _commands)
def test_the_guard_changes_no_failed_mark(output: str, tool: str | None,
                                          command: str) -> None:
    item = Item(seq=1, instant=0.0, type="tool", question=command, answer=output,
                lighthouse=False, tool=tool)
    guarded = output_failed(item)
    with _unguarded():
        assert output_failed(item) == guarded


@pytest.mark.parametrize("output", ["FAİLED: 1 test", "faıled", "ſegmentation fault",
                                    "fa<system-reminder>x</system-reminder>iled",
                                    "x" * 5000 + "\nexit status 1"])
def test_each_guard_is_reached(output: str) -> None:
    """Outputs the guard must not skip, one per guard (`make mutants` removes each)."""
    item = Item(seq=1, instant=0.0, type="tool", question="pytest", answer=output,
                lighthouse=False, tool="Bash")
    with _unguarded():
        expected = output_failed(item), failure_of(output, True, "Bash", "pytest")
    assert (output_failed(item), failure_of(output, True, "Bash", "pytest")) == expected
