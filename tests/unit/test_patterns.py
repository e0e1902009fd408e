"""A pattern compiled at its first use answers as the compiled one does."""

from __future__ import annotations

import re
import subprocess
import sys

from hypothesis import given
from hypothesis import strategies as st

from horizon.core.patterns import Pattern
from horizon.core.tickets import ticket_names

SOURCE = r"\b(?:fail(?:ed|s)?|error)\b|(?P<n>\d+)"


@given(st.text(alphabet="failed error 0123 FAIL\n", max_size=40), st.integers(0, 5))
def test_every_method_answers_as_re(text: str, count: int) -> None:
    lazy, compiled = Pattern(SOURCE, re.IGNORECASE), re.compile(SOURCE, re.IGNORECASE)
    def spans(match: re.Match[str] | None) -> tuple[int, int] | None:
        return match.span() if match else None
    assert spans(lazy.search(text, 1)) == spans(compiled.search(text, 1))
    assert spans(lazy.match(text)) == spans(compiled.match(text))
    assert spans(lazy.fullmatch(text)) == spans(compiled.fullmatch(text))
    assert [m.span() for m in lazy.finditer(text)] == [m.span() for m in
                                                       compiled.finditer(text)]
    assert lazy.findall(text) == compiled.findall(text)
    assert lazy.sub("#", text, count) == compiled.sub("#", text, count)
    assert lazy.split(text, count) == compiled.split(text, count)
    assert (lazy.pattern, lazy.flags) == (SOURCE, re.IGNORECASE)


COUNT_COMPILED = """
from horizon.core import decisions, outcomes, statements, tickets
from horizon.core.patterns import Pattern
lazy = [value for module in (decisions, outcomes, statements, tickets)
        for value in vars(module).values() if isinstance(value, Pattern)]
print(len(lazy), sum(pattern._compiled is not None for pattern in lazy))
"""


def test_importing_the_core_compiles_none_of_its_patterns() -> None:
    """A new process pays for the patterns it runs, not for all of them at import."""
    done = subprocess.run([sys.executable, "-c", COUNT_COMPILED], capture_output=True,
                          text=True, check=True)
    patterns, compiled = map(int, done.stdout.split())
    assert patterns >= 40 and compiled == 0
    assert ticket_names("WX-230 is done, see #12") == ["WX-230", "#12"]
