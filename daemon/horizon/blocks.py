"""The rendered pieces of a view: header, notice, one block per exchange (pure).

Zones measure their budgets with these very functions, so what a zone pays for is
exactly what is injected.
"""

from __future__ import annotations

import msgspec

from horizon.entries import format_instant
from horizon.text import metadata, quoted_lines

FORMAT = 1
# Zones reserve room for a header whose up_to has this many digits, so the real one fits.
_RESERVED_SEQ = 10**12 - 1


class Item(msgspec.Struct):
    """An exchange held in net (answer whole) or condensé (answer condensed)."""

    seq: int
    instant: float
    type: str
    question: str
    answer: str
    lighthouse: bool
    chars: int = 0
    sender: str | None = None
    tool: str | None = None
    writer_id: str | None = None
    source: str = ""
    content: str = ""  # a hash of the exchange as written: the model cache's key


def header(bee: str, mode: str, up_to: int, at: float) -> str:
    return (
        f"<!-- horizon format={FORMAT} bee={bee} mode={mode} up_to={up_to} "
        f"at={format_instant(at)} -->\n"
    )


def notice(bee: str) -> str:
    return (
        "[horizon : le passé plus ancien est condensé ci-dessus ; l'historique intégral vit "
        f"au journal window/{bee}-messages.jsonl et window/archive/]\n"
    )


def net_overhead(bee: str) -> int:
    """What net pays for the header and the notice, whatever up_to becomes."""
    return len(header(bee, "horizon", _RESERVED_SEQ, 0)) + len(notice(bee))


def heading(item: Item) -> str:
    parts = [f"### #{item.seq}", format_instant(item.instant), metadata(item.type)]
    if item.tool:
        parts.append("outil " + metadata(item.tool))
    if item.sender:
        parts.append("de " + metadata(item.sender))
    if item.writer_id:
        parts.append("id " + metadata(item.writer_id))
    if item.lighthouse:
        parts.append("phare")
    return " · ".join(parts)


def exchange_block(item: Item, answer_label: str, answer: str | None = None,
                   question: str | None = None) -> str:
    """One exchange: heading, the question, the answer (whole or condensed), a blank line."""
    question = item.question if question is None else question
    answer = item.answer if answer is None else answer
    lines = [heading(item)]
    if question:
        lines.append("Question :")
        lines.extend(quoted_lines(question))
    if answer:
        lines.append(answer_label)
        lines.extend(quoted_lines(answer))
    lines.append("")
    return "\n".join(lines) + "\n"


NET_ANSWER = "Réponse :"
CONDENSED_ANSWER = "Réponse condensée :"


def net_block(item: Item) -> str:
    return exchange_block(item, NET_ANSWER)


def condensed_block(item: Item) -> str:
    return exchange_block(item, CONDENSED_ANSWER)
