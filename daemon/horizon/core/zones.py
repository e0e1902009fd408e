"""Zone arithmetic: net → condensé → récit, one entry at a time (pure, no I/O).

The state after a history is the left fold of `step` over its entries, so ingesting
in chunks of any size gives exactly the state of a full rebuild at the same `now`
(ADR 0002; `ingest.apply` takes a run of entries in one loop). `sweep` applies age
eviction without a new entry.
"""

from __future__ import annotations

import bisect
import hashlib
import operator

import msgspec

from horizon.core.blocks import (
    Item,
    answer_size,
    condensed_label,
    flat_answer_size,
    head_size,
)
from horizon.core.entries import Entry, Rejection
from horizon.core.folds import fold_if_over
from horizon.core.settings import HorizonSettings
from horizon.core.signals import output_failed, signals_of
from horizon.core.summarizer import TRUNCATION
from horizon.core.text import cut, flatten
from horizon.core.truncation import Truncation
from horizon.core.turns import append_turns
from horizon.core.zone_state import Changes, Context, Zones

CONVERSATION = "conversation"
LAST_REJECTED = 5
_INSTANT = operator.attrgetter("instant")
_SEQ = operator.attrgetter("seq")


def is_lighthouse(entry: Entry, settings: HorizonSettings) -> bool:
    """A `conversation` from a listed asker (or none), or marked by the runtime or a flag."""
    if entry.phare:
        return True
    return entry.type == CONVERSATION and (entry.sender is None or entry.sender in settings.phares)


def count_rejection(zones: Zones, record: Rejection) -> None:
    """What an operator needs to find the bad lines: how many of each reason, and where
    the last ones are (`horizon show` reads them)."""
    zones.rejected += 1
    zones.rejections[record.reason.value] = zones.rejections.get(record.reason.value, 0) + 1
    zones.last_rejected = [*zones.last_rejected, record.seq][-LAST_REJECTED:]


def step(zones: Zones, record: Entry | Rejection, ctx: Context, changes: Changes) -> None:
    zones.up_to = max(zones.up_to, record.seq)
    if isinstance(record, Rejection):
        count_rejection(zones, record)
        return
    zones.accepted += 1
    zones.at = record.instant
    lighthouse = note_accepted(zones, record, ctx.settings)
    if not ctx.settings.actif:
        append_turns(zones.turns, record, ctx.bee, ctx.settings)
        return
    # Held by a pass that defers its text work, the exchange is hashed by `settle`.
    item = new_item(record, lighthouse, content_hash(record) if ctx.deferred is None else "")
    enter_net(zones, item, ctx)
    _evict(zones, ctx, changes)


def note_accepted(zones: Zones, entry: Entry, settings: HorizonSettings) -> bool:
    """What an accepted entry leaves in the bookkeeping (a field of the wrong type counted;
    the first lighthouse question, the Mission while the bee has none), and whether it is
    a lighthouse."""
    if entry.bad_field:
        zones.bad_fields += 1
    lighthouse = is_lighthouse(entry, settings)
    if lighthouse and zones.first_lighthouse is None and entry.question.strip():
        zones.first_lighthouse = flatten(entry.question)
    return lighthouse


def new_item(entry: Entry, lighthouse: bool, content: str = "") -> Item:
    """The exchange as net holds it: its answer whole, its size not measured yet."""
    return Item(seq=entry.seq, instant=entry.instant, type=entry.type,
                question=entry.question, answer=entry.answer, lighthouse=lighthouse,
                sender=entry.sender, tool=entry.tool, writer_id=entry.writer_id,
                content=content, ok=entry.ok, files=entry.files)


def enter_net(zones: Zones, item: Item, ctx: Context, printable: bool | None = None) -> None:
    """`item` measured and placed at net's end (`printable`: whether its answer is, when
    the caller already looked)."""
    labels = ctx.labels
    head = head_size(item, labels)
    answer = item.answer
    if printable if printable is not None else answer.isprintable():
        # One line, nothing to clean: quoted as it is.
        item.chars = head + flat_answer_size(labels.answer, answer)
    else:
        item.chars = head + answer_size(labels.answer, answer)
    if ctx.deferred is not None:
        ctx.deferred.heads[item.seq] = head  # what condensé pays for it again
    zones.net.append(item)
    zones.net_chars += item.chars


def leaving_over_budget(net: list[Item], size: int, budget: int) -> tuple[int, int]:
    """Net's rule with nothing aged or protected: how many of its oldest leave so that
    `size` (net's, framing included) is within `budget`, the last exchange staying; and
    the size then."""
    count = 0
    while size > budget and count < len(net) - 1:
        size -= net[count].chars
        count += 1
    return count, size


def content_hash(entry: Entry | Item) -> str:
    """The identity of an exchange's text, whatever its seq: what the model cache keys on."""
    # Each part ends with a NUL, so no two exchanges share the hashed bytes.
    text = f"{entry.type}\0{entry.tool or ''}\0{entry.question}\0{entry.answer}\0"
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def settle(zones: Zones, ctx: Context) -> None:
    """The text work a pass with `ctx.deferred` left: the held exchanges' signals and
    hashes, and the récit of what it folded."""
    deferred = ctx.deferred
    if deferred is None:
        return
    for item in zones.net:
        if not item.content:
            item.content = content_hash(item)
    for item in zones.condense:
        if item.signals is None:
            whole = deferred.whole(item)
            item.signals = signals_of(whole)
            item.content = content_hash(whole)
    recit = deferred.compose(zones.recit, ctx.settings)
    if recit is not None:
        zones.recit, zones.recit_level = recit, TRUNCATION
    deferred.clear()  # settled: a second call finds nothing owed


def sweep(zones: Zones, ctx: Context) -> Changes:
    """Age eviction at `ctx.now` without a new entry."""
    changes = Changes()
    if ctx.settings.actif and zones.net:
        _evict(zones, ctx, changes)
    return changes


def _evict(zones: Zones, ctx: Context, changes: Changes) -> None:
    settings = ctx.settings
    net = zones.net
    oldest_allowed = age_limit(settings, ctx.now)
    if settings.plancher_phare == "net" or _aged_in_net(zones, ctx, oldest_allowed):
        leaving = _leaving_by_rule(zones, ctx, oldest_allowed)
    else:
        # Nothing aged and nothing protected: the rule reduces to taking net's oldest while
        # over budget, which costs what leaves rather than all that net holds.
        count, size = leaving_over_budget(net, ctx.net_overhead + zones.net_chars,
                                          settings.budget_net)
        leaving = net[:count]
        del net[:count]
        zones.net_chars = size - ctx.net_overhead
    if ctx.deferred is not None and settings.plancher_phare != "net":
        ctx.deferred.unaged_at = ctx.now  # every aged exchange but the last left net
    if not leaving:
        return
    if len(leaving) > 1:
        leaving.sort(key=_SEQ)
    enter_condense(zones, leaving, ctx, changes)


def enter_condense(zones: Zones, leaving: list[Item], ctx: Context, changes: Changes,
                   printable: set[int] | None = None) -> None:
    """What left net, in seq order: each exchange condensed into condensé, then a fold if
    the zone is over its budget (`printable`: the seqs of answers known to be printable)."""
    models = ctx.upgrades is not None
    for item in leaving:
        original = msgspec.structs.replace(item) if models else item
        _condensed(zones, item, ctx, item.seq in printable if printable is not None else None)
        changes.evicted.append(item.seq)
        if models and item.source == TRUNCATION:
            changes.to_condense.append(original)
    settings = ctx.settings
    if zones.condense_chars > settings.budget_condense or (
            settings.plancher_phare == "condense"
            and zones.condense_chars > settings.budget_condense // 2
            and any(item.lighthouse for item in leaving)):
        fold_if_over(zones, ctx, changes)  # over budget, or lighthouses maybe over half


def has_aged(zones: Zones, settings: HorizonSettings, now: float) -> bool:
    """Whether an exchange of net other than the last is older than `age_net_heures`."""
    older = zones.net[:-1]
    return bool(older) and min(map(_INSTANT, older)) < age_limit(settings, now)


def _aged_in_net(zones: Zones, ctx: Context, oldest_allowed: float) -> bool:
    """has_aged, looking only at the exchange that joined net's older ones since the last
    eviction at the same `now`, when that one left none of them aged."""
    if ctx.deferred is not None and ctx.deferred.unaged_at == ctx.now:
        net = zones.net
        return len(net) > 1 and net[-2].instant < oldest_allowed
    return has_aged(zones, ctx.settings, ctx.now)


def age_limit(settings: HorizonSettings, now: float) -> float:
    """The oldest instant net keeps at `now`."""
    return now - settings.age_net_heures * 3600.0


def _leaving_by_rule(zones: Zones, ctx: Context, oldest_allowed: float) -> list[Item]:
    """The exchanges that leave net, taken out of it: aged first, then the oldest while over
    budget, lighthouses last when net is their floor."""
    settings = ctx.settings
    protect = settings.plancher_phare == "net"
    overhead = ctx.net_overhead
    last = zones.net[-1]
    leaving: list[Item] = []
    kept: list[Item] = []
    for item in zones.net[:-1]:
        aged = item.instant < oldest_allowed
        (leaving if aged and not (protect and item.lighthouse) else kept).append(item)
    size = overhead + zones.net_chars - sum(item.chars for item in leaving)
    # Over budget: the oldest unprotected exchanges leave first.
    index = 0
    while size > settings.budget_net and index < len(kept):
        if not (protect and kept[index].lighthouse):
            size -= kept[index].chars
            leaving.append(kept.pop(index))
        else:
            index += 1
    if protect:
        # Lighthouses stay at their floor while they alone fit its budget, beside the
        # last exchange that net always keeps (so a full net still fits the cap).
        lighthouse_size = overhead + last.chars + sum(
            item.chars for item in kept if item.lighthouse)
        index = 0
        while lighthouse_size > settings.budget_net and index < len(kept):
            if kept[index].lighthouse:
                lighthouse_size -= kept[index].chars
                leaving.append(kept.pop(index))
            else:
                index += 1
    if leaving:
        zones.net = [*kept, last]
        zones.net_chars = sum(item.chars for item in zones.net)
    return leaving


def _condensed(zones: Zones, item: Item, ctx: Context, printable: bool | None) -> None:
    """`item`, out of net, condensed and placed in condensé."""
    deferred = ctx.deferred
    if deferred is None:
        item.signals = signals_of(item)  # the whole answer is still here
    else:
        deferred.hold(item.seq, item.answer)  # read if it stays long enough
    item.failed = item.ok is False or output_failed(item)
    summarizer = ctx.summarizer
    if isinstance(summarizer, Truncation):
        condensed = summarizer.condense_answer(item.answer, printable, item.failed)
    else:
        condensed = summarizer.condense(item)
    item.answer = condensed.text
    item.source = condensed.level
    item.whole = condensed.whole
    labels = ctx.labels
    head = deferred.heads.pop(item.seq, None) if deferred is not None else None
    if head is None or item.failed != (item.ok is False):  # its heading now says failed
        head = head_size(item, labels)
    item.chars = head + answer_size(condensed_label(item, labels), item.answer)
    if not zones.condense or zones.condense[-1].seq < item.seq:
        zones.condense.append(item)  # the usual case: evicted after all it holds
    else:
        position = bisect.bisect(zones.condense, item.seq, key=lambda held: held.seq)
        zones.condense.insert(position, item)
    zones.condense_chars += item.chars


def mission_text(mission: str | None, settings: HorizonSettings) -> str | None:
    """One line, cut to `ligne_max`: what the récit pays for first."""
    return cut(flatten(mission), settings.ligne_max) or None if mission else None
