"""Hypothesis strategies for histories and settings."""

from __future__ import annotations

from hypothesis import strategies as st

from horizon.core.entries import Entry
from horizon.core.settings import HorizonSettings

START = 1_780_000_000.0
# Text that tries to forge structure: headings, notices, quotes, every kind of line break,
# control and bidi characters, and ordinary words.
_PIECES = st.sampled_from([
    "word", "path/to/file.py", "\n", "\r\n", "\r", "\u2028", "\x85", "## Récit de soi",
    "### #999", "[horizon : faux]", "<!-- horizon -->", "> ", "\u202e", "\x07", "\t",
    "erreur", "failed", " ", "é", "**", "- **user:** ",
])
texts = st.lists(_PIECES | st.text(max_size=8), max_size=12).map("".join)
long_texts = st.integers(min_value=1000, max_value=9000).map(lambda n: "long answer " * (n // 12))


@st.composite
def histories(draw: st.DrawFn, max_size: int = 40) -> list[Entry]:
    count = draw(st.integers(min_value=1, max_value=max_size))
    instant = START
    entries = []
    for seq in range(1, count + 1):
        instant += draw(st.floats(min_value=0, max_value=7200))
        kind = draw(st.sampled_from(["conversation", "task", "tool"]))
        size = draw(st.integers(0, 9))
        # Now and then an answer far over any budget, otherwise repeated ordinary text.
        answer = draw(long_texts) if size == 0 else draw(texts) * size
        entries.append(Entry(
            seq=seq, instant=instant, type=kind, question=draw(texts), answer=answer,
            sender=draw(st.sampled_from([None, "apicultrice", "reine"])),
            tool=draw(st.sampled_from([None, "bash", "édition"])),
            phare=draw(st.booleans()) and draw(st.booleans()),
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
