"""The deterministic summarizer: no model, always works (ADR 0003, its rules ADR 0008).

Condensing flattens an answer and cuts it to `ligne_max`. Folding learns from each folded
entry in turn (`learn`) and writes the free sections from what it learnt (`sections_of`):
the récit is then a function of the folded entries and their order, whatever batches
they came in.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import msgspec

from horizon.core.blocks import Item
from horizon.core.recit import (
    DECISIONS,
    ERRORS,
    FILES,
    NEXT,
    WORK,
    Fact,
    Facts,
    Line,
    Recit,
)
from horizon.core.summarizer import TRUNCATION, Condensed, Folded
from horizon.core.text import ELLIPSIS, cut, flat_cut, flatten, named_paths

LEVEL = TRUNCATION
# Facts older than this many folded entries are forgotten: the récit speaks of the recent
# folded past (the older one is in the journal, and in Paroles for the operator's words).
WINDOW = 48
PATHS_PER_ENTRY = 12
TICKETS_PER_ENTRY = 3
OPEN_TICKETS = 3
TASKS = 2
CONVERSATION = "conversation"
TOOL = "tool"

_FAILURE = re.compile(
    r"\b(error|errors|erreur|erreurs|échec|échoué|failed|failure|fails|exception|traceback|"
    r"fatal|panic|denied|refusé|introuvable|not found)\b",
    re.IGNORECASE,
)
# What _FAILURE needs in a text once it is lower-cased (with the three characters that
# IGNORECASE equates with a letter their lower case is not): most answers report no
# failure, and looking for these is ten times cheaper than the regex.
_FAILURE_STEMS = ("error", "erreur", "échec", "échoué", "fail", "exception", "traceback",
                  "fatal", "panic", "denied", "refusé", "introuvable", "not found")
_CASE_ODDITIES = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s"})
_TICKET = re.compile(
    r"\b([A-Z][A-Z0-9]{1,9}-\d{1,6})\b"
    r"|\b(?:ticket|issue|bug|task|tâche)\s+#?(\d{1,6})\b", re.IGNORECASE)
_CLOSED = re.compile(
    r"\b(closed?|closing|fixed|resolved|done|merged|shipped|completed|"
    r"ferm[ée]e?s?|résolue?s?|terminée?s?|corrigée?s?|livrée?s?|clos(?:e|es)?)\b",
    re.IGNORECASE)
_STATED_NEXT = re.compile(
    r"(?:next step|prochaine étape|next,? i(?:'ll| will)|ensuite,? je)\s*:?\s*([^\n]+)",
    re.IGNORECASE)
TICKET_SCAN_CHARS = 600  # a ticket is named in the request or the answer's first lines


def reports_failure(original: str) -> bool:
    """Whether a text names a failure (the failure words of ADR 0003, whole, any case)."""
    text = original
    if not text.isascii() and ("\u0130" in text or "\u0131" in text or "\u017f" in text):
        text = text.translate(_CASE_ODDITIES)
    folded = text.lower()
    if not any(stem in folded for stem in _FAILURE_STEMS):
        return False
    return _FAILURE.search(original) is not None


def ticket_ids(text: str) -> list[str]:
    """Ticket or issue names (`ABC-12`, `ticket 42`, `issue #7`), first seen first."""
    found: dict[str, None] = {}
    for match in _TICKET.finditer(text):
        name = match.group(1).upper() if match.group(1) else f"#{match.group(2)}"
        found.setdefault(name, None)
    return list(found)[:TICKETS_PER_ENTRY]


def stated_next_step(answer: str) -> str | None:
    """The bee's own next step, when its answer states one."""
    match = _STATED_NEXT.search(answer)
    return flatten(match.group(1)) if match and match.group(1).strip() else None


def _label(item: Item) -> str:
    return f"#{item.seq} {flatten(item.tool or item.type)}"


def _gist(item: Item) -> str:
    return flatten(item.question) or flatten(item.answer)


def learn(facts: Facts, item: Item, index: int, ligne_max: int) -> Facts:
    """What one folded entry teaches, the entry being the `index`-th folded."""
    paths = tuple(named_paths(f"{item.question}\n{item.answer}")[:PATHS_PER_ENTRY])
    files = [fact for fact in facts.files if fact.key not in paths]
    files += [Fact(item.seq, index, path, path) for path in paths]
    failed = reports_failure(item.answer)
    errors = list(facts.errors)
    if not failed and item.tool:
        # A success of the same tool, or a tool working on the same path, fixes it.
        errors = [fact for fact in errors
                  if fact.key != item.tool and not set(fact.paths) & set(paths)]
    if failed:
        errors.append(Fact(item.seq, index, cut(f"{_label(item)} : {flatten(item.answer)}",
                                                ligne_max), item.tool or "", paths))
    decisions = list(facts.decisions)
    if item.type == CONVERSATION and item.question.strip():
        decisions.append(Fact(item.seq, index, cut(
            f"#{item.seq} {flatten(item.question)} → {flatten(item.answer)}", ligne_max)))
    tickets = list(facts.tickets)
    head = f"{item.question}\n{item.answer[:TICKET_SCAN_CHARS]}"
    named = ticket_ids(head)
    if named:
        closed = _CLOSED.search(head) is not None
        tickets = [fact for fact in tickets if fact.key not in named]
        if not closed:
            tickets += [Fact(item.seq, index, cut(f"{name} : {_gist(item)} (#{item.seq})",
                                                  ligne_max), name) for name in named]
    tasks = list(facts.tasks)
    if not item.tool and item.type != TOOL and _gist(item):
        tasks = [*tasks, Fact(item.seq, index, cut(f"{_label(item)} : {_gist(item)}",
                                                   ligne_max))][-TASKS:]
    next_step = facts.next
    if item.type == CONVERSATION and item.lighthouse and item.question.strip():
        asker = item.sender or "apicultrice"
        next_step = Fact(item.seq, index, cut(f"#{item.seq} {asker} : "
                                              f"{flatten(item.question)}", ligne_max))
    elif (stated := stated_next_step(item.answer)) is not None:
        next_step = Fact(item.seq, index, cut(f"#{item.seq} {stated}", ligne_max))
    return Facts(tuple(files), tuple(errors), tuple(decisions), tuple(tickets), tuple(tasks),
                 next_step)


def within_window(facts: Facts, folded: int) -> Facts:
    """The facts of the last WINDOW folded entries (the next step excepted: the newest one
    stands until another replaces it)."""
    oldest = folded - WINDOW

    def recent(kept: tuple[Fact, ...]) -> tuple[Fact, ...]:
        return tuple(fact for fact in kept if fact.index > oldest)

    return Facts(recent(facts.files), recent(facts.errors), recent(facts.decisions),
                 recent(facts.tickets), recent(facts.tasks), facts.next)


def sections_of(facts: Facts) -> dict[str, tuple[Line, ...]]:
    """The free sections, each in seq order: what the view shows of them is chosen when it
    renders, newest first."""
    work = sorted([*facts.tickets[-OPEN_TICKETS:], *facts.tasks], key=lambda fact: fact.seq)
    sections = {
        DECISIONS: tuple(Line(fact.seq, fact.text) for fact in facts.decisions),
        FILES: tuple(Line(fact.seq, f"{fact.text} (#{fact.seq})") for fact in facts.files),
        ERRORS: tuple(Line(fact.seq, fact.text) for fact in facts.errors),
        WORK: tuple(Line(fact.seq, fact.text) for fact in work),
        NEXT: (Line(facts.next.seq, facts.next.text),) if facts.next else (),
    }
    return {name: lines for name, lines in sections.items() if lines}


class Truncation:
    """Answers flattened and cut to `ligne_max`; the récit filled by documented rules."""

    def __init__(self, ligne_max: int) -> None:
        self.ligne_max = ligne_max

    def condense(self, exchange: Item) -> Condensed:
        return Condensed(flat_cut(exchange.answer, self.ligne_max), LEVEL,
                         whole=self.kept_whole(exchange.answer))

    def kept_whole(self, answer: str) -> bool:
        """Whether flat_cut(answer) is the whole answer flattened (no cut), without
        flattening a long answer that was cut."""
        limit = self.ligne_max
        text = flat_cut(answer, limit)
        if len(text) < limit or not text.endswith(ELLIPSIS):
            return True  # a cut text is `limit` long and ends with the ellipsis
        # A prefix flattens to no more than the whole: over the limit, the whole was cut.
        if len(flatten(answer[: limit * 4 + 64])) > limit:
            return False
        return flatten(answer) == text

    def fold(self, recit: Recit, batch: Sequence[Item]) -> Folded:
        return Folded(self.fold_recit(recit, batch), LEVEL)

    def fold_recit(self, recit: Recit, batch: Sequence[Item]) -> Recit:
        facts = recit.facts
        folded = recit.folded
        for item in batch:
            folded += 1
            facts = learn(facts, item, folded, self.ligne_max)
        facts = within_window(facts, folded)
        return msgspec.structs.replace(recit, sections=sections_of(facts), facts=facts,
                                       folded=folded)
