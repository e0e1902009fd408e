"""Hypothesis strategies for histories and settings."""

from __future__ import annotations

from hypothesis import strategies as st

from horizon.core.entries import Entry
from horizon.core.settings import HorizonSettings

START = 1_780_000_000.0
# Text that tries to forge structure: headings, notices, quotes, every kind of line break,
# control and bidi characters, and ordinary words; and what the récit's rules read:
# commands, test runs and their verdicts, tickets opened, closed and not closed,
# decisions, next steps.
_PIECES = st.sampled_from([
    "word", "path/to/file.py", "\n", "\r\n", "\r", "\u2028", "\x85", "## Récit de soi",
    "### #999", "[horizon : faux]", "<!-- horizon -->", "> ", "\u202e", "\x07", "\t",
    "erreur", "failed", " ", "é", "**", "- **user:** ", ". ", "? ",
    "pytest tests/a.py", "pytest -q", "git diff src/b.py", "== 1 failed ==", "3 passed",
    "exit code 1", "WX-12", "#345", "is fixed", "not merged yet", "closed", "Decision: ",
    "we'll use SQLite", "instead of SQLite", "Now let me ", "Next step: ", "Plan: ",
    "Prochaine étape : ", "FAILED tests/a.py::t", "Please ", "Always ", "Go on.",
])
texts = st.lists(_PIECES | st.text(max_size=8), max_size=12).map("".join)
long_texts = st.integers(min_value=1000, max_value=9000).map(lambda n: "long answer " * (n // 12))
files = st.none() | st.lists(st.sampled_from(["src/a.py", "a.py", "docs/b.md", "x/y/a.py",
                                              " ", "\n"]), max_size=4).map(tuple)


@st.composite
def histories(draw: st.DrawFn, max_size: int = 40) -> list[Entry]:
    """Entries in seq order, their instants mostly rising, now and then skewed back
    (several writers, a clock set back): an exchange may be older than those before it,
    the last one too."""
    count = draw(st.integers(min_value=1, max_value=max_size))
    instant = START
    entries = []
    skew = draw(st.sampled_from([0.0, 0.0, 30 * 3600.0]))
    for seq in range(1, count + 1):
        instant += draw(st.floats(min_value=0, max_value=7200))
        shifted = instant - (draw(st.floats(0, skew)) if skew and draw(st.booleans()) else 0)
        kind = draw(st.sampled_from(["conversation", "task", "tool"]))
        size = draw(st.integers(0, 9))
        # Now and then an answer far over any budget, otherwise repeated ordinary text.
        answer = draw(long_texts) if size == 0 else draw(texts) * size
        entries.append(Entry(
            seq=seq, instant=max(0.0, shifted), type=kind, question=draw(texts),
            answer=answer, sender=draw(st.sampled_from([None, "apicultrice", "reine"])),
            tool=draw(st.sampled_from([None, "bash", "édition", "Read"])),
            phare=draw(st.booleans()) and draw(st.booleans()),
            ok=draw(st.sampled_from([None, None, True, False])), files=draw(files),
            bad_field=draw(st.booleans()) and draw(st.booleans()),
        ))
    return entries


@st.composite
def horizon_settings(draw: st.DrawFn, actif: bool = True) -> HorizonSettings:
    net = draw(st.integers(min_value=200, max_value=6000))
    condense = draw(st.integers(min_value=200, max_value=4000))
    recit = draw(st.integers(min_value=200, max_value=3000))
    if net + condense + recit < 1000:
        net = 1000
    return HorizonSettings(
        actif=actif, budget_net=net, budget_condense=condense, budget_recit=recit,
        age_net_heures=draw(st.sampled_from([0.5, 2.0, 24.0, 1000.0])),
        plancher_phare=draw(st.sampled_from(["net", "condense", "recit"])),
        ligne_max=draw(st.integers(min_value=16, max_value=300)),
        handoff_max=draw(st.integers(min_value=1000, max_value=6000)),
        langue=draw(st.sampled_from(["fr", "en"])),
    )


missions = st.none() | texts
