"""The rendered pieces of a view: header, notice, one block per exchange (pure).

Zones measure their budgets with these very functions, so what a zone pays for is
exactly what is injected.
"""

from __future__ import annotations

import functools

import msgspec

from horizon.core.entries import INSTANT_CHARS, format_instant
from horizon.core.text import clean, metadata, quoted_lines

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


@functools.lru_cache(maxsize=1024)
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


def heading_size(item: Item) -> int:
    """len(heading(item)), without formatting the instant (every instant prints in
    INSTANT_CHARS) and with metadata measured once per distinct value."""
    size = 5 + len(str(item.seq)) + 3 + INSTANT_CHARS + 3 + len(metadata(item.type))
    if item.tool:
        size += 3 + 6 + len(metadata(item.tool))
    if item.sender:
        size += 3 + 3 + len(metadata(item.sender))
    if item.writer_id:
        size += 3 + 3 + len(metadata(item.writer_id))
    if item.lighthouse:
        size += 3 + 5
    return size


def quoted_size(text: str) -> int:
    """The characters quoted_lines(text) takes, each line with its newline: every line
    gains the two-character prefix, an empty one only `>`."""
    cleaned = clean(text)
    lines = cleaned.split("\n")
    return len(cleaned) + 2 * len(lines) + 1 - lines.count("")


def exchange_size(item: Item, answer_label: str, answer: str | None = None,
                  question: str | None = None) -> int:
    """len(exchange_block(...)) by arithmetic: zones measure every exchange they take in,
    and most of them leave before anything renders them."""
    question = item.question if question is None else question
    answer = item.answer if answer is None else answer
    size = heading_size(item) + 1 + 1
    if question:
        size += len(_QUESTION) + 1 + quoted_size(question)
    if answer:
        size += len(answer_label) + 1 + quoted_size(answer)
    return size


def exchange_block(item: Item, answer_label: str, answer: str | None = None,
                   question: str | None = None) -> str:
    """One exchange: heading, the question, the answer (whole or condensed), a blank line."""
    question = item.question if question is None else question
    answer = item.answer if answer is None else answer
    lines = [heading(item)]
    if question:
        lines.append(_QUESTION)
        lines.extend(quoted_lines(question))
    if answer:
        lines.append(answer_label)
        lines.extend(quoted_lines(answer))
    lines.append("")
    return "\n".join(lines) + "\n"


_QUESTION = "Question :"
NET_ANSWER = "Réponse :"
CONDENSED_ANSWER = "Réponse condensée :"


def net_block(item: Item) -> str:
    return exchange_block(item, NET_ANSWER)


def condensed_block(item: Item) -> str:
    return exchange_block(item, CONDENSED_ANSWER)


def net_size(item: Item) -> int:
    return exchange_size(item, NET_ANSWER)


def condensed_size(item: Item) -> int:
    return exchange_size(item, CONDENSED_ANSWER)
