"""The zones as their rules and ADR 0003 state them, plainly and slowly: the oracle the
engine's measured-by-arithmetic, shortcut-taking zones are checked against.

Sizes come from rendering each block, the récit is re-measured by rendering it, paths and
failures are matched on the whole text, and every fold is made and bounded. Truncation
only (no model), so a whole history is one left fold of `reference_step`.
"""

from __future__ import annotations

import bisect
import copy
import hashlib

from horizon.core.blocks import Item, Signals, condensed_block, header, net_block, notice
from horizon.core.entries import Entry, Rejection
from horizon.core.labels import Labels
from horizon.core.recit import (
    DECISIONS,
    ERRORS,
    FILES,
    FREE_SECTIONS,
    NEXT,
    WORK,
    Fact,
    Facts,
    Heard,
    Line,
    Quote,
    Recit,
    quote_key,
    quote_size,
    render_recit,
)
from horizon.core.settings import HorizonSettings
from horizon.core.text import _PATH_PATTERN, clean, cut, flat_cut, flatten
from horizon.core.truncation import (
    ERRORS_WINDOW,
    WINDOW,
    is_passing_word,
    is_question,
    signals_of,
    ticket_ids,
)
from horizon.core.turns import append_turns
from horizon.core.zones import Zones, is_lighthouse


def reference_paths(text: str) -> list[str]:
    seen: dict[str, None] = {}
    for match in _PATH_PATTERN.finditer(text):
        path = match.group(1).rstrip(".")
        if "/" in path or "." in path:
            seen.setdefault(path, None)
    return list(seen)


def reference_hash(entry: Entry) -> str:
    digest = hashlib.blake2b(digest_size=16)
    for part in (entry.type, entry.tool or "", entry.question, entry.answer):
        digest.update(part.encode("utf-8", "surrogatepass"))
        digest.update(b"\0")
    return digest.hexdigest()


def _size(recit: Recit, mission: str | None, labels: Labels) -> int:
    return len(render_recit(recit, mission, labels))


def reference_bound(recit: Recit, mission: str | None, budget: int, labels: Labels
                    ) -> tuple[Recit, str | None]:
    """ADR 0008's order, measuring the rendered text at every step: the Mission (cut only
    when the headings and it alone are over); each section's newest line cut to 100
    characters, newest sections first; quotes newest first, whole, up to the first that
    does not fit; then lines whole, newest first, each one that fits."""
    if _size(recit, mission, labels) <= budget:
        return recit, mission
    empty = Recit()
    if mission and _size(empty, mission, labels) > budget:
        fitting = [cut(mission, k) for k in range(1, len(mission) + 1)
                   if _size(empty, cut(mission, k), labels) <= budget]
        mission = fitting[-1] if fitting else None
    chosen: dict[str, dict[int, Line]] = {name: {} for name in FREE_SECTIONS}
    quotes: list[Quote] = []

    def shown() -> Recit:
        return Recit({name: tuple(lines[i] for i in sorted(lines))
                      for name, lines in chosen.items() if lines}, tuple(reversed(quotes)))

    def fits() -> bool:
        return _size(shown(), mission, labels) <= budget

    newest = [(recit.lines_of(name)[-1], name) for name in FREE_SECTIONS
              if recit.lines_of(name)]
    for line, name in sorted(newest, key=lambda pair: -pair[0].seq):
        index = len(recit.lines_of(name)) - 1
        chosen[name][index] = Line(line.seq, cut(flatten(line.text), 100))
        if not fits():
            del chosen[name][index]
    for quote in reversed(recit.paroles):
        quotes.append(quote)
        if not fits():
            quotes.pop()
            break
    everything = [(line.seq, -FREE_SECTIONS.index(name), index, name)
                  for name in FREE_SECTIONS for index, line in enumerate(recit.lines_of(name))]
    for _, _, index, name in sorted(everything, reverse=True):
        before = chosen[name].get(index)
        chosen[name][index] = recit.lines_of(name)[index]
        if not fits():
            if before is None:
                del chosen[name][index]
            else:
                chosen[name][index] = before
    bounded = shown()
    return (Recit(bounded.sections, bounded.paroles, recit.heard, recit.facts, recit.folded),
            mission)


def _label(item: Item) -> str:
    return f"#{item.seq} {flatten(item.tool or item.type)}"


def _gist(item: Item) -> str:
    return flatten(item.question) or flatten(item.answer)


def _fixes(later: Item, said: Signals, failed: Item, paths: tuple[str, ...]) -> bool:
    """A success after a failure fixes it: the same tool on one of its paths (a failure
    naming no path: the same tool; one from no tool: any success on its path)."""
    if said.failure is not None:
        return False
    shared = bool(set(paths) & set(said.paths))
    if not failed.tool:
        return shared
    return later.tool == failed.tool and (shared or not paths)


def reference_facts(folded: list[Item], ligne_max: int) -> Facts:
    """ADR 0008's facts read off the whole folded history at once (each entry's signals
    were read from its whole text when it left net)."""
    count = len(folded)
    window = range(max(0, count - WINDOW), count)
    signals = [item.signals or signals_of(item) for item in folded]
    files: dict[str, Fact] = {}
    for index in window:
        for path in signals[index].paths:
            files.pop(path, None)
            files[path] = Fact(folded[index].seq, index + 1, path, path)
    errors = []
    for index in range(max(0, count - ERRORS_WINDOW), count):
        item, failed, paths = folded[index], signals[index].failure, signals[index].paths
        if failed is None:
            continue

        if not any(_fixes(folded[later], signals[later], item, paths)
                   for later in range(index + 1, count)):
            where = f" {', '.join(paths[:2])}" if paths else ""
            errors.append(Fact(item.seq, index + 1, cut(
                f"{_label(item)}{where} : {flatten(failed)}", min(ligne_max, 160)),
                item.tool or "", paths))
    decisions = [Fact(item.seq, index + 1, cut(f"#{item.seq} {flatten(item.question)} → "
                                               f"{flatten(item.answer)}", ligne_max))
                 for index in window if (item := folded[index]).type == "conversation"
                 and item.question.strip() and not is_question(item.question)]
    last_mention: dict[str, int] = {}
    for index in range(count):
        for name in signals[index].tickets:
            last_mention.pop(name, None)
            last_mention[name] = index
    tickets = [Fact(folded[index].seq, index + 1,
                    cut(f"{name} : {_gist(folded[index])} (#{folded[index].seq})", ligne_max),
                    name)
               for name, index in last_mention.items()
               if index in window and not signals[index].closes]
    tasks = [Fact(item.seq, index + 1, cut(f"{_label(item)} : {_gist(item)}", ligne_max))
             for index, item in enumerate(folded)
             if not item.tool and item.type != "tool" and _gist(item)][-2:]
    tasks = [fact for fact in tasks if fact.index - 1 in window]
    next_step = None
    for index, item in enumerate(folded):
        if signals[index].next_step is not None:
            next_step = Fact(item.seq, index + 1,
                             cut(f"#{item.seq} {signals[index].next_step}", ligne_max))
        elif (item.type == "conversation" and item.lighthouse and item.question.strip()
              and not is_question(item.question) and ticket_ids(item.question)):
            next_step = Fact(item.seq, index + 1, cut(
                f"#{item.seq} {item.sender or 'apicultrice'} : {flatten(item.question)}",
                ligne_max))
    return Facts(tuple(files.values()), tuple(errors), tuple(decisions), tuple(tickets),
                 tuple(tasks), next_step)


def reference_recit(folded: list[Item], ligne_max: int, budget_recit: int) -> Recit:
    """The récit of a folded history: a function of the entries and their order."""
    facts = reference_facts(folded, ligne_max)
    work = [*facts.tasks, *facts.tickets[-3:]]
    sections = {
        DECISIONS: tuple(Line(f.seq, f.text) for f in facts.decisions),
        FILES: tuple(Line(f.seq, f"{f.text} (#{f.seq})") for f in facts.files),
        ERRORS: (*(Line(f.seq, f.text) for f in facts.errors), *(
            [Line(facts.errors[-1].seq, "; ".join(
                f"{tool} " + " ".join(f"#{f.seq}" for f in facts.errors if (f.key or "-") == tool)
                for tool in dict.fromkeys(f.key or "-" for f in facts.errors)))]
            if len(facts.errors) > 1 else [])),
        WORK: tuple(Line(f.seq, f.text) for f in work),
        NEXT: (Line(facts.next.seq, facts.next.text),) if facts.next else (),
    }
    said = [item for item in folded if item.lighthouse and item.question.strip()]
    by_words: dict[str, list[Item]] = {}
    for item in said:
        by_words.setdefault(" ".join(clean(item.question).split()), []).append(item)
    heard = {}
    quotes = []
    for items in by_words.values():
        seqs = [item.seq for item in items]
        key = quote_key(items[-1].question)
        heard[key] = Heard(len(seqs), seqs[0], tuple(seqs[1:])[-5:])
        quotes.append(Quote(seqs[-1], items[-1].question, (seqs[0], *tuple(seqs[1:])[-5:]),
                            len(seqs), is_passing_word(items[-1].question)))
    quotes.sort(key=lambda quote: quote.seq)  # each at its newest saying
    kept = []
    for passing in (False, True):  # each kind keeps its newest within the budget
        kind = [quote for quote in quotes if quote.passing == passing]
        taken: list[Quote] = []
        while kind and sum(quote_size(q) for q in [kind[-1], *taken]) <= budget_recit:
            taken.insert(0, kind.pop())
        kept += taken
    kept.sort(key=lambda quote: quote.seq)
    return Recit({name: lines for name, lines in sections.items() if lines}, tuple(kept),
                 heard, facts, len(folded))


class Reference:
    """One bee's zones, stepped one record at a time by the rules as written."""

    def __init__(self, bee: str, settings: HorizonSettings, mission: str | None,
                 models: bool = False) -> None:
        self.bee = bee
        self.settings = settings
        self.mission = mission
        self.zones = Zones()
        # With models configured (and nothing in their cache), every fold is owed to them:
        # the batches since the queue started, and the récit it started from.
        self.models = models
        self.owed: list[list[Item]] = []
        self.chain: Recit | None = None
        self.folded: list[Item] = []  # every entry folded so far, in fold order
        self.labels = settings.labels

    def step(self, record: Entry | Rejection, now: float) -> None:
        zones = self.zones
        zones.up_to = max(zones.up_to, record.seq)
        if isinstance(record, Rejection):
            zones.rejected += 1
            zones.rejections[record.reason.value] = (
                zones.rejections.get(record.reason.value, 0) + 1)
            zones.last_rejected = [*zones.last_rejected, record.seq][-5:]
            return
        zones.accepted += 1
        zones.at = record.instant
        lighthouse = is_lighthouse(record, self.settings)
        if lighthouse and zones.first_lighthouse is None and record.question.strip():
            zones.first_lighthouse = flatten(record.question)
        if not self.settings.actif:
            append_turns(zones.turns, record, self.bee, self.settings)
            return
        item = Item(seq=record.seq, instant=record.instant, type=record.type,
                    question=record.question, answer=record.answer, lighthouse=lighthouse,
                    sender=record.sender, tool=record.tool, writer_id=record.writer_id,
                    content=reference_hash(record))
        item.chars = len(net_block(item, self.labels))
        zones.net.append(item)
        zones.net_chars += item.chars
        self.evict(now)

    def sweep(self, now: float) -> None:
        if self.settings.actif and self.zones.net:
            self.evict(now)

    def evict(self, now: float) -> None:
        zones, settings = self.zones, self.settings
        protect = settings.plancher_phare == "net"
        overhead = (len(header(self.bee, "horizon", 10**12 - 1, 0))
                    + len(notice(self.bee, self.labels)))
        *older, last = zones.net
        aged = [item for item in older if item.instant < now - settings.age_net_heures * 3600
                and not (protect and item.lighthouse)]
        kept = [item for item in older if item not in aged]
        leaving = list(aged)

        def size(items: list[Item]) -> int:
            return overhead + sum(item.chars for item in items) + last.chars

        for item in [item for item in kept if not (protect and item.lighthouse)]:
            if size(kept) <= settings.budget_net:
                break
            kept.remove(item)
            leaving.append(item)
        if protect:
            for item in [item for item in kept if item.lighthouse]:
                if size([item for item in kept if item.lighthouse]) <= settings.budget_net:
                    break
                kept.remove(item)
                leaving.append(item)
        if not leaving:
            return
        zones.net = [*kept, last]
        zones.net_chars = sum(item.chars for item in zones.net)
        for item in sorted(leaving, key=lambda item: item.seq):
            item.signals = signals_of(item)
            condensed = flat_cut(item.answer, settings.ligne_max)
            item.whole = condensed == flatten(item.answer)
            item.answer = condensed
            item.source = "troncature"
            item.chars = len(condensed_block(item, self.labels))
            bisect.insort(zones.condense, item, key=lambda held: held.seq)
            zones.condense_chars += item.chars
        self.fold_if_over()

    def fold_if_over(self) -> None:
        """Over budget: the oldest non-lighthouses fold until the zone is at half; with
        lighthouses at this floor, the oldest of them too until they hold at most half."""
        zones, settings = self.zones, self.settings
        protect = settings.plancher_phare == "condense"
        budget = settings.budget_condense
        if zones.condense_chars <= budget:
            return
        folding: list[Item] = []
        for item in zones.condense:
            if zones.condense_chars - sum(i.chars for i in folding) <= budget // 2:
                break
            if not (protect and item.lighthouse):
                folding.append(item)
        if protect and zones.condense_chars - sum(i.chars for i in folding) > budget // 2:
            for item in zones.condense:
                staying = [i for i in zones.condense if i.lighthouse and i not in folding]
                if sum(i.chars for i in staying) <= budget // 2:
                    break
                if item.lighthouse and item not in folding:
                    folding.append(item)
        if not folding:
            return
        folding.sort(key=lambda item: item.seq)
        zones.condense = [item for item in zones.condense if item not in folding]
        zones.condense_chars = sum(item.chars for item in zones.condense)
        if self.models:
            if not self.owed:
                self.chain = zones.recit
            self.owed.append([copy.copy(item) for item in folding])
            if len(self.owed) > 32:  # the models are too far behind: the queue is dropped
                self.owed, self.chain = [], None
        self.folded += folding
        zones.recit = reference_recit(self.folded, settings.ligne_max, settings.budget_recit)
        zones.recit_level = "troncature"
