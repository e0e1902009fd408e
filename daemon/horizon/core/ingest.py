"""Records into zones (pure): `apply` steps each record in turn, and a run of entries goes
through `step_entries`, which gives exactly the zones and changes of stepping them one by
one.

A catch-up steps hundreds of thousands of exchanges that each enter net, push its oldest
into condensé and, a few steps later, fold. When the pass leaves its text work to its end
(truncation alone, `ctx.deferred`) and nothing is aged or held in net by its floor, every
step takes the rule's plain path: `step_entries` then runs those steps in one loop, with
the zones' counters in local variables and the fold looked at only when condensé is over
its budget, instead of going through `step`'s checks for every exchange.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Sequence

from horizon.core.blocks import Item, answer_size, condensed_label, flat_answer_size, head_size
from horizon.core.entries import Entry, Rejection
from horizon.core.text import flatten
from horizon.core.truncation import Truncation
from horizon.core.zones import (
    CONVERSATION,
    Changes,
    Context,
    Zones,
    age_limit,
    fold_if_over,
    step,
)

_SEQ = operator.attrgetter("seq")
_INSTANT = operator.attrgetter("instant")
RUN = 256  # entries a Stepper holds at most before stepping them


def apply(zones: Zones, records: Iterable[Entry | Rejection], ctx: Context) -> Changes:
    """Ingest `records` (in seq order) into `zones`, in place."""
    changes = Changes()
    stepper = Stepper(zones, ctx, changes)
    for record in records:
        stepper.add(record)
    stepper.flush()
    return changes


class Stepper:
    """Records stepped into `zones` in turn, as `step` steps each: entries given one by
    one are held and stepped a run at a time; `flush` once the last is given."""

    def __init__(self, zones: Zones, ctx: Context, changes: Changes) -> None:
        self.zones, self.ctx, self.changes = zones, ctx, changes
        self.run: list[Entry] = []

    def add(self, record: Entry | Rejection) -> None:
        if isinstance(record, Entry):
            self.run.append(record)
            if len(self.run) >= RUN:
                self.flush()
            return
        self.flush()
        step(self.zones, record, self.ctx, self.changes)

    def add_entries(self, entries: Sequence[Entry]) -> None:
        """A run of entries at once (a block of plain lines), after those held."""
        self.flush()
        step_entries(self.zones, entries, self.ctx, self.changes)

    def flush(self) -> None:
        if self.run:
            step_entries(self.zones, self.run, self.ctx, self.changes)
            self.run = []


def step_entries(zones: Zones, entries: Sequence[Entry], ctx: Context,
                 changes: Changes) -> None:
    """`step` over each of `entries`, in order."""
    if not entries:
        return
    if not _plain_run(zones, entries, ctx):
        for entry in entries:
            step(zones, entry, ctx, changes)
        return
    deferred = ctx.deferred
    assert deferred is not None
    settings = ctx.settings
    labels = ctx.labels
    answer_label = labels.answer
    phares = settings.phares
    budget_net = settings.budget_net
    overhead = ctx.net_overhead
    heads = deferred.heads
    net = zones.net
    net_chars = zones.net_chars
    printable: set[int] = set()  # seqs of the run's printable answers, looked at once
    for entry in entries:
        lighthouse = entry.phare or (entry.type == CONVERSATION and (
            entry.sender is None or entry.sender in phares))
        if lighthouse and zones.first_lighthouse is None and entry.question.strip():
            zones.first_lighthouse = flatten(entry.question)
        item = Item(seq=entry.seq, instant=entry.instant, type=entry.type,
                    question=entry.question, answer=entry.answer, lighthouse=lighthouse,
                    sender=entry.sender, tool=entry.tool, writer_id=entry.writer_id)
        head = head_size(item, labels)
        answer = entry.answer
        if answer.isprintable():  # one line, nothing to clean: quoted as it is
            printable.add(item.seq)
            item.chars = head + (len(answer_label) + len(answer) + 4 if answer else 0)
        else:
            item.chars = head + answer_size(answer_label, answer)
        heads[item.seq] = head
        net.append(item)
        net_chars += item.chars
        # net's rule with nothing aged: its oldest leave while it is over budget, the
        # last exchange always stays.
        size = overhead + net_chars
        if size <= budget_net or len(net) == 1:
            continue
        count = 0
        while size > budget_net and count < len(net) - 1:
            size -= net[count].chars
            count += 1
        leaving = net[:count]
        del net[:count]
        net_chars = size - overhead
        zones.net_chars = net_chars
        _into_condense(zones, leaving, ctx, changes, printable)
    last = entries[-1]
    zones.net_chars = net_chars
    zones.up_to = last.seq
    zones.accepted += len(entries)
    zones.at = last.instant
    deferred.unaged_at = ctx.now  # as every step of a pass that defers leaves it


def _into_condense(zones: Zones, leaving: list[Item], ctx: Context, changes: Changes,
                   printable: set[int]) -> None:
    """What a step's eviction does with what left net, oldest first: each condensed at
    condensé's end, then a fold if the zone is over its budget."""
    deferred = ctx.deferred
    assert deferred is not None and isinstance(ctx.summarizer, Truncation)
    truncation = ctx.summarizer
    labels = ctx.labels
    condense = zones.condense
    for item in leaving:
        deferred.answers[item.seq] = item.answer  # read if it stays long enough
        condensed = truncation.condense_answer(
            item.answer, True if item.seq in printable else None)
        item.answer = condensed.text
        item.source = condensed.level
        item.whole = condensed.whole
        head = deferred.heads.pop(item.seq, None)
        if head is None:
            head = head_size(item, labels)
        # Truncation's condensed answer is flat (`_plain_run`): sized without a look.
        item.chars = head + flat_answer_size(condensed_label(item, labels), item.answer)
        condense.append(item)
        zones.condense_chars += item.chars
        changes.evicted.append(item.seq)
    if zones.condense_chars > ctx.settings.budget_condense:
        fold_if_over(zones, ctx, changes)


def _plain_run(zones: Zones, entries: Sequence[Entry], ctx: Context) -> bool:
    """Whether every step of `entries` takes net's plain path: a pass deferring its text
    work with truncation alone, the horizon on, no floor in net, seqs after everything
    held and rising (so what leaves net goes to condensé's end), and no exchange, held
    or new, older than the age limit."""
    settings = ctx.settings
    if (ctx.deferred is None or ctx.upgrades is not None or not settings.actif
            or not isinstance(ctx.summarizer, Truncation)
            or settings.plancher_phare == "net" or entries[0].seq <= zones.up_to):
        return False
    seqs = list(map(_SEQ, entries))
    if not all(map(operator.lt, seqs, seqs[1:])):
        return False
    if zones.net and zones.condense and zones.net[0].seq < zones.condense[-1].seq:
        return False  # an aged exchange went ahead of older ones: condensé inserts
    limit = age_limit(settings, ctx.now)
    return (min(map(_INSTANT, entries)) >= limit
            and (not zones.net or min(map(_INSTANT, zones.net)) >= limit))
