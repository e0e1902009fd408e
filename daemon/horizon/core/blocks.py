"""The rendered pieces of a view: header, notice, one block per exchange (pure).

Zones measure their budgets with these very functions, so what a zone pays for is
exactly what is injected.
"""

from __future__ import annotations

import functools

import msgspec

from horizon.core.entries import INSTANT_CHARS, format_instant
from horizon.core.labels import Labels
from horizon.core.text import clean, metadata, quoted_lines

FORMAT = 1
# Zones reserve room for a header whose up_to has this many digits, so the real one fits.
_RESERVED_SEQ = 10**12 - 1


class Signals(msgspec.Struct, frozen=True, omit_defaults=True):
    """What the récit's rules read in an exchange, taken from its whole text when it
    leaves net (condensé then holds only the head of its answer): `signals.signals_of`."""

    paths: tuple[str, ...] = ()  # the files it read or changed
    command: str | None = None  # a call that did more than read: its command, as shown
    key: str | None = None  # what makes a rerun of it the same call
    tests: tuple[str, ...] | None = None  # a test run: the test files and folders it names
    nodes: tuple[str, ...] = ()  # the tests (`path::name`) it names
    suite: str = ""  # the family of a test run (runner and folder): `web:npm`
    whole_suite: bool = False  # a test run naming no test and no filter
    failure: str | None = None  # the call failed: the line that says so
    failed_tests: tuple[str, ...] = ()  # the test files its output says failed
    failed_nodes: tuple[str, ...] = ()  # and the tests among them
    tickets: tuple[tuple[str, int, str], ...] = ()  # name, tickets.OPENS..., sentence
    step: str | None = None  # the next step it states, or asks for
    step_asker: str | None = None  # who asked for it (an operator's request)
    # What the bee settles: each decision, what it is about, whether it reverses one.
    decisions: tuple[tuple[str, str, bool], ...] = ()
    operator_decided: int = 0  # how many of them, first, are the operator's
    task: str | None = None  # the task it gives, with no ticket
    asked: str | None = None  # the choice the bee asks for, and its options
    options: tuple[str, ...] = ()
    reply: str | None = None  # the operator's short words: they may settle that choice


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
    whole: bool = False  # in condensé: the answer needed no condensing
    signals: Signals | None = None  # set when it leaves net
    ok: bool | None = None  # the runtime's word on a tool call: it succeeded, or not
    files: tuple[str, ...] | None = None  # the runtime's list of what it read or changed
    # Set when it leaves net: a call the runtime said failed, or whose output says so.
    failed: bool = False


def marked_failed(item: Item) -> bool:
    """Whether a block says its call failed: the runtime said so, or, condensed, its
    output did."""
    return item.ok is False or item.failed


def header(bee: str, mode: str, up_to: int, at: float) -> str:
    return (
        f"<!-- horizon format={FORMAT} bee={bee} mode={mode} up_to={up_to} "
        f"at={format_instant(at)} -->\n"
    )


def notice(bee: str, labels: Labels) -> str:
    return labels.notice(bee)


@functools.lru_cache(maxsize=1024)
def net_overhead(bee: str, labels: Labels) -> int:
    """What net pays for the header and the notice, whatever up_to becomes."""
    return len(header(bee, "horizon", _RESERVED_SEQ, 0)) + len(notice(bee, labels))


def heading(item: Item, labels: Labels) -> str:
    parts = [f"### #{item.seq}", format_instant(item.instant), metadata(item.type)]
    if item.tool:
        parts.append(f"{labels.tool} " + metadata(item.tool))
    if item.sender:
        parts.append(f"{labels.sender} " + metadata(item.sender))
    if item.writer_id:
        parts.append("id " + metadata(item.writer_id))
    if item.lighthouse:
        parts.append(labels.lighthouse)
    if marked_failed(item):
        parts.append(labels.failed)
    return " · ".join(parts)


def heading_size(item: Item, labels: Labels) -> int:
    """len(heading(item)), without formatting the instant (every instant prints in
    INSTANT_CHARS) and with metadata measured once per distinct value."""
    size = 5 + len(str(item.seq)) + _fields_size(item.type, item.tool, item.sender,
                                                  item.lighthouse, marked_failed(item), labels)
    if item.writer_id:  # each exchange's own, mostly: measured apart from the cache
        size += 3 + 3 + len(metadata(item.writer_id))
    return size


@functools.lru_cache(maxsize=4096)
def _fields_size(kind: str, tool: str | None, sender: str | None, lighthouse: bool,
                 failed: bool, labels: Labels) -> int:
    """What the heading's fields after the seq take: a hive's exchanges share a few."""
    size = 3 + INSTANT_CHARS + 3 + len(metadata(kind))
    if tool:
        size += 3 + len(labels.tool) + 1 + len(metadata(tool))
    if sender:
        size += 3 + len(labels.sender) + 1 + len(metadata(sender))
    if lighthouse:
        size += 3 + len(labels.lighthouse)
    if failed:
        size += 3 + len(labels.failed)
    return size


def quoted_size(text: str) -> int:
    """The characters quoted_lines(text) takes, each line with its newline: every line
    gains the two-character prefix, an empty one only `>`."""
    if text.isprintable():  # one line, nothing to clean
        return len(text) + 3 if text else 2
    cleaned = clean(text)
    lines = cleaned.split("\n")
    return len(cleaned) + 2 * len(lines) + 1 - lines.count("")


def exchange_size(item: Item, answer_label: str, labels: Labels, answer: str | None = None,
                  question: str | None = None) -> int:
    """len(exchange_block(...)) by arithmetic: zones measure every exchange they take in,
    and most of them leave before anything renders them."""
    answer = item.answer if answer is None else answer
    return head_size(item, labels, question) + answer_size(answer_label, answer)


def head_size(item: Item, labels: Labels, question: str | None = None) -> int:
    """What an exchange's block takes besides its answer: the heading, the question, the
    closing blank line. An exchange leaving net pays it again in condensé."""
    question = item.question if question is None else question
    size = heading_size(item, labels) + 1 + 1
    if question:
        size += len(labels.question) + 1 + quoted_size(question)
    return size


def answer_size(answer_label: str, answer: str) -> int:
    return len(answer_label) + 1 + quoted_size(answer) if answer else 0


def flat_answer_size(answer_label: str, answer: str) -> int:
    """answer_size of a text `flatten` made: one line with nothing left to clean, so it
    is quoted behind the prefix as it is."""
    return len(answer_label) + len(answer) + 4 if answer else 0


def exchange_block(item: Item, answer_label: str, labels: Labels, answer: str | None = None,
                   question: str | None = None) -> str:
    """One exchange: heading, the question, the answer (whole or condensed), a blank line."""
    question = item.question if question is None else question
    answer = item.answer if answer is None else answer
    lines = [heading(item, labels)]
    if question:
        lines.append(labels.question)
        lines.extend(quoted_lines(question))
    if answer:
        lines.append(answer_label)
        lines.extend(quoted_lines(answer))
    lines.append("")
    return "\n".join(lines) + "\n"


def condensed_label(item: Item, labels: Labels) -> str:
    """`Réponse condensée` only when the answer was condensed: one kept whole says so."""
    return labels.answer if item.whole else labels.condensed_answer


def net_block(item: Item, labels: Labels) -> str:
    return exchange_block(item, labels.answer, labels)


def condensed_block(item: Item, labels: Labels) -> str:
    return exchange_block(item, condensed_label(item, labels), labels)


def condensed_size(item: Item, labels: Labels) -> int:
    return exchange_size(item, condensed_label(item, labels), labels)
