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

from horizon.core.blocks import Item, condensed_block, header, net_block, notice
from horizon.core.entries import Entry, Rejection
from horizon.core.recit import (
    DECISIONS,
    ERRORS,
    FILES,
    FREE_SECTIONS,
    NEXT,
    WORK,
    Line,
    Quote,
    Recit,
    render_recit,
)
from horizon.core.settings import HorizonSettings
from horizon.core.text import _PATH_PATTERN, cut, flat_cut, flatten
from horizon.core.truncation import _FAILURE
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


def reference_bound(recit: Recit, mission: str | None, budget: int
                    ) -> tuple[Recit, str | None]:
    """Drop, measuring the rendered text each time: free lines by (seq, section order),
    each section from its front; then Mission; then the oldest quotes."""
    def size(sections: dict[str, list[Line]], paroles: list[Quote], shown: str | None) -> int:
        bounded = Recit({k: tuple(v) for k, v in sections.items() if v}, tuple(paroles))
        return len(render_recit(bounded, shown))

    sections = {name: list(recit.lines_of(name)) for name in FREE_SECTIONS}
    paroles = list(recit.paroles)
    if size(sections, paroles, mission) <= budget:
        return recit, mission
    order = sorted((line.seq, FREE_SECTIONS.index(name), name)
                   for name in FREE_SECTIONS for line in sections[name])
    for _, _, name in order:
        if size(sections, paroles, mission) <= budget:
            break
        sections[name].pop(0)
    if mission and size(sections, paroles, mission) > budget:
        mission = None
    while paroles and size(sections, paroles, mission) > budget:
        paroles.pop(0)
    return Recit({k: tuple(v) for k, v in sections.items() if v}, tuple(paroles)), mission


def _label(item: Item) -> str:
    return f"#{item.seq} {flatten(item.tool or item.type)}"


def reference_fold(recit: Recit, batch: list[Item], ligne_max: int) -> Recit:
    sections = {name: list(lines) for name, lines in recit.sections.items()}
    known = {line.text.split(" ", 1)[0] for line in sections.get(FILES, [])}
    for item in batch:
        for path in reference_paths(f"{item.question}\n{item.answer}"):
            if path not in known:
                known.add(path)
                sections.setdefault(FILES, []).append(Line(item.seq, f"{path} (#{item.seq})"))
        if _FAILURE.search(item.answer):
            text = cut(f"{_label(item)} : {flatten(item.answer)}", ligne_max)
            sections.setdefault(ERRORS, []).append(Line(item.seq, text))
        if item.type == "conversation" and item.question:
            text = f"#{item.seq} {flatten(item.question)} → {flatten(item.answer)}"
            sections.setdefault(DECISIONS, []).append(Line(item.seq, cut(text, ligne_max)))
    sections[WORK] = [
        Line(item.seq, cut(f"{_label(item)} : {flatten(item.question) or flatten(item.answer)}",
                           ligne_max))
        for item in batch[-3:]
    ]
    last = batch[-1].seq
    sections[NEXT] = [Line(last, f"reprendre après #{last} : voir le condensé et les échanges "
                                 "récents")]
    return Recit({name: tuple(lines) for name, lines in sections.items() if lines},
                 recit.paroles)


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
        item.chars = len(net_block(item))
        zones.net.append(item)
        zones.net_chars += item.chars
        self.evict(now)

    def sweep(self, now: float) -> None:
        if self.settings.actif and self.zones.net:
            self.evict(now)

    def evict(self, now: float) -> None:
        zones, settings = self.zones, self.settings
        protect = settings.plancher_phare == "net"
        overhead = len(header(self.bee, "horizon", 10**12 - 1, 0)) + len(notice(self.bee))
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
            item.answer = flat_cut(item.answer, settings.ligne_max)
            item.source = "troncature"
            item.chars = len(condensed_block(item))
            bisect.insort(zones.condense, item, key=lambda held: held.seq)
            zones.condense_chars += item.chars
        self.fold_if_over()

    def fold_if_over(self) -> None:
        zones, settings = self.zones, self.settings
        protect = settings.plancher_phare == "condense"
        budget = settings.budget_condense
        folding: list[Item] = []
        if zones.condense_chars > budget:
            for item in zones.condense:
                if zones.condense_chars - sum(i.chars for i in folding) <= budget // 2:
                    break
                if not (protect and item.lighthouse):
                    folding.append(item)
        if protect:
            for item in zones.condense:
                staying = [i for i in zones.condense if i.lighthouse and i not in folding]
                if sum(i.chars for i in staying) <= budget:
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
        folded = reference_fold(zones.recit, folding, settings.ligne_max)
        quotes = tuple(Quote(item.seq, item.question) for item in folding
                       if item.lighthouse and item.question.strip())
        merged = Recit(folded.sections, zones.recit.paroles + quotes)
        mission = self.mission or zones.first_lighthouse
        zones.recit, _ = reference_bound(merged, mission, settings.budget_recit)
        zones.recit_level = "troncature"

