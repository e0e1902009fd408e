"""Records into zones (pure): a `Stepper` steps each record in turn, and a run of entries
goes through `step_entries`, which gives exactly the zones and changes of stepping them
one by one.

A catch-up steps hundreds of thousands of exchanges that each enter net, push its oldest
into condensé and, a few steps later, fold. When the pass leaves its text work to its end
(truncation alone, `ctx.deferred`) and nothing is aged or held in net by its floor, every
step takes the rule's plain path: `step_entries` then runs those steps in one loop, with
the zones' counters in local variables and the fold looked at only when condensé is over
its budget, instead of going through `step`'s checks for every exchange.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence

from horizon.core.entries import Entry, Rejection
from horizon.core.truncation import Truncation
from horizon.core.zone_state import Changes, Context, Zones
from horizon.core.zones import (
    age_limit,
    enter_condense,
    enter_net,
    leaving_over_budget,
    new_item,
    note_accepted,
    step,
)

_SEQ = operator.attrgetter("seq")
_INSTANT = operator.attrgetter("instant")
RUN = 256  # entries a Stepper holds at most before stepping them


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
    budget_net = settings.budget_net
    overhead = ctx.net_overhead
    net = zones.net
    printable: set[int] = set()  # seqs of the run's printable answers, looked at once
    for entry in entries:
        item = new_item(entry, note_accepted(zones, entry, settings))
        flat = entry.answer.isprintable()
        if flat:
            printable.add(item.seq)
        enter_net(zones, item, ctx, flat)
        if len(net) == 1:
            continue
        # Nothing is aged in this run (`_plain_run`): net's rule is its budget alone.
        count, size = leaving_over_budget(net, overhead + zones.net_chars, budget_net)
        if count:
            leaving = net[:count]
            del net[:count]
            zones.net_chars = size - overhead
            enter_condense(zones, leaving, ctx, changes, printable)
    last = entries[-1]
    zones.up_to = last.seq
    zones.accepted += len(entries)
    zones.at = last.instant
    deferred.unaged_at = ctx.now  # as every step of a pass that defers leaves it


def _plain_run(zones: Zones, entries: Sequence[Entry], ctx: Context) -> bool:
    """Whether every step of `entries` takes net's plain path: a pass deferring its text
    work with truncation alone, the horizon on, no floor in net, seqs after everything
    held and rising, and no exchange, held or new, older than the age limit. (What
    leaves net enters condensé as a step puts it there, in seq order: after an exchange
    that aged out before older ones, it is inserted, not appended.)"""
    settings = ctx.settings
    if (ctx.deferred is None or ctx.upgrades is not None or not settings.actif
            or not isinstance(ctx.summarizer, Truncation)
            or settings.plancher_phare == "net" or entries[0].seq <= zones.up_to):
        return False
    seqs = list(map(_SEQ, entries))
    if not all(map(operator.lt, seqs, seqs[1:])):
        return False
    limit = age_limit(settings, ctx.now)
    return (min(map(_INSTANT, entries)) >= limit
            and (not zones.net or min(map(_INSTANT, zones.net)) >= limit))
