"""The view (handoff.md): zones to text, the hard cut, the guard (pure).

`render` is a pure, idempotent function of the zones, the settings and the mission.
"""

from __future__ import annotations

from collections.abc import Callable

import msgspec

from horizon.core.blocks import (
    Item,
    condensed_block,
    exchange_block,
    header,
    net_block,
    notice,
)
from horizon.core.bound import bound_text
from horizon.core.entries import format_instant
from horizon.core.labels import Labels
from horizon.core.recit import (
    FREE_SECTIONS,
    MISSION,
    SECTIONS,
    Recit,
    recit_size,
    section_body,
)
from horizon.core.recit import render_recit as recit_text
from horizon.core.settings import HorizonSettings
from horizon.core.text import clean, flatten
from horizon.core.view import Cut, Listed, Summary, View
from horizon.core.view_memo import (
    BlockMemo,
    block,
    bounded_recit,
    recit_ahead,
    waiting_words,
)
from horizon.core.zone_state import Zones
from horizon.core.zones import mission_text

# Step 2 empties the récit's bodies in this order; Mission goes last.
RECIT_CUT_ORDER = (*FREE_SECTIONS, MISSION)


class _Parts:
    """The pieces of a view while the hard cut removes some of them."""

    def __init__(self, head: str, recit: Recit, mission: str | None, condense: list[Item],
                 tail_notice: str, net: list[Item], net_texts: dict[int, str],
                 condensed_texts: dict[int, str], labels: Labels) -> None:
        self.labels = labels
        self.head = head
        self.recit = recit
        self.mission = mission
        self.dropped_sections: set[str] = set()
        self.condense = list(condense)
        self.notice = tail_notice
        self.net = list(net)
        self.net_texts = net_texts
        # Each block is rendered once: the sizes before and after the cut, the cut's own
        # measures and the text all read these.
        self.condensed_texts = condensed_texts
        self._recit_texts: dict[frozenset[str], tuple[Recit, str]] = {}
        self.cuts: list[Cut] = []

    def seed_recit(self, text: str) -> None:
        """The récit block with no section dropped, already rendered."""
        self._recit_texts[frozenset()] = (self.recit, text)

    def recit_block(self) -> str:
        dropped = frozenset(self.dropped_sections)
        cached = self._recit_texts.get(dropped)
        if cached is not None and cached[0] is self.recit:  # the cut replaces it, never edits
            return cached[1]
        text = recit_text(self.recit, self.mission, self.labels, dropped)
        self._recit_texts[dropped] = (self.recit, text)
        return text

    def recit_size(self) -> int:
        """len(self.recit_block()), by arithmetic."""
        return recit_size(self.recit, self.mission, self.labels,
                          frozenset(self.dropped_sections))

    def zone_sizes(self) -> dict[str, int]:
        """The récit with its mission, the condensed blocks, and net with the fixed text
        that frames it (header and notice), as the budgets count them."""
        return {
            "recit": len(self.recit_block()),
            "condense": sum(len(self.condensed_texts[item.seq]) for item in self.condense),
            "net": len(self.head) + len(self.notice)
            + sum(len(self.net_texts[item.seq]) for item in self.net),
        }

    def text(self) -> str:
        return "".join([
            self.head, self.recit_block(),
            *(self.condensed_texts[item.seq] for item in self.condense),
            self.notice,
            *(self.net_texts[item.seq] for item in self.net),
        ])


def _cut_question(item: Item, room: int, labels: Labels) -> str:
    """The last exchange without its answer, its question cut to fit `room` characters
    and ending with the pointer to the journal (step 5)."""
    pointer = labels.question_pointer.format(seq=item.seq)
    # Cleaned once, so every character kept is a character shown: a few rounds suffice.
    text = clean(item.question)
    keep = len(text)
    while True:
        shown = (text[:keep].rstrip() + "\n" + pointer) if keep > 0 else pointer
        block = exchange_block(item, labels.answer, labels, answer="", question=shown)
        over = len(block) - room
        if over <= 0 or keep == 0:
            return block
        keep = max(0, keep - over)


def _quoted(line: str) -> int:
    """What a line of text takes behind the quote prefix, its newline included."""
    return len(line) + 3 if line else 2


def cut_answer(item: Item, room: int, labels: Labels) -> str:
    """The last exchange with its answer cut so that its block fills `room` (step 0): the
    answer's head, about a third, and its tail, the rest (a tool's verdict is at its end),
    whole lines where lines fit, joined by one line saying how much was left out."""
    text = clean(item.answer)
    lines = text.split("\n")
    bare = len(exchange_block(item, labels.answer, labels, answer=""))
    # The marker is sized for the most it could say: what it says is never more.
    widest = labels.cut_marker.format(left=len(text), seq=item.seq)
    room_left = room - bare - (len(labels.answer) + 1) - _quoted(widest)
    head, tail = _ends_within(lines, room_left // 3, room_left)
    head_text, tail_text = "\n".join(head), "\n".join(tail)
    left = len(text) - len(head_text) - len(tail_text)
    marker = labels.cut_marker.format(left=left, seq=item.seq)
    answer = "\n".join(part for part in (head_text, marker, tail_text) if part)
    return exchange_block(item, labels.answer, labels, answer=answer)


def _ends_within(lines: list[str], head_room: int, room: int) -> tuple[list[str], list[str]]:
    """The first lines within `head_room` and the last lines within what `room` leaves,
    each quoted; a line too long for what is left keeps the part nearest the middle's
    edge only when no whole line fits (the head's start, the tail's end)."""
    head: list[str] = []
    used = 0
    for line in lines:
        if used + _quoted(line) > head_room:
            if not head and head_room > 3:
                head.append(line[:head_room - 3])
                used += _quoted(head[0])
            break
        head.append(line)
        used += _quoted(line)
    tail: list[str] = []
    tail_room = room - used
    spent = 0
    for line in reversed(lines[len(head):]):
        if spent + _quoted(line) > tail_room:
            if not tail and tail_room > 3:
                tail.append(line[len(line) - (tail_room - 3):])
            break
        tail.append(line)
        spent += _quoted(line)
    tail.reverse()
    return head, tail


def render(zones: Zones, bee: str, settings: HorizonSettings, mission: str | None,
           memo: BlockMemo | None = None) -> View:
    """The text of handoff.md and its JSON summary (`memo`: the blocks of this bee's
    earlier views, reused when their entry is unchanged)."""
    mission = mission or zones.first_lighthouse
    if not settings.actif:
        return _render_handoff(zones, bee, settings, mission)
    labels = settings.labels
    head = header(bee, "horizon", zones.up_to, zones.at)
    tail_notice = notice(bee, labels)
    used: set[tuple[str, int]] = set()
    # The operator's words may take the room of ordinary condensed entries (the cut's
    # step 1 then removes those), never that of a lighthouse or of net.
    quote_room = max(0, settings.budget_condense - sum(
        item.chars for item in zones.condense if item.lighthouse))
    ahead = recit_ahead(memo, used, zones, labels, settings.ligne_max)
    recit, shown_mission, recit_whole, rule_left_out = bounded_recit(
        memo, used, ahead, mission_text(mission, settings), settings.budget_recit,
        quote_room, labels, waiting_words(zones) if zones.recit.paroles else ())
    net_texts = {item.seq: block(memo, used, "net", item, labels, net_block)
                 for item in zones.net}
    condensed_texts = {item.seq: block(memo, used, "condense", item, labels, condensed_block)
                       for item in zones.condense}
    if memo is not None:
        for key in [key for key in memo if key not in used]:
            del memo[key]
    parts = _Parts(head, recit, shown_mission, zones.condense, tail_notice, zones.net, net_texts,
                   condensed_texts, labels)
    parts.seed_recit(recit_whole)
    overhead = len(head) + len(tail_notice)
    last = zones.net[-1] if zones.net else None
    if last is not None and overhead + len(net_texts[last.seq]) > settings.budget_net:
        net_texts[last.seq] = cut_answer(last, settings.budget_net - overhead, labels)
        parts.cuts.append({"step": 0, "seq": last.seq})
    before = parts.zone_sizes()
    cuts = len(parts.cuts)
    # The operator's rules go last: while one is left out for room, no ordinary condensed
    # entry is shown either.
    _hard_cut(parts, settings.cap, last, sum(before.values()), rule_left_out)
    text = parts.text()
    guarded = bound_text(text, settings.cap)
    after = parts.zone_sizes() if len(parts.cuts) != cuts else before
    return View(guarded, _summary_of(parts, bee, settings, zones, guarded), guarded != text,
                {zone: (before[zone], after[zone]) for zone in before}, mode="horizon",
                cap=settings.cap)


def _hard_cut(parts: _Parts, cap: int, last: Item | None, size: int,
              rule_left_out: bool) -> None:
    """While over the cap (the view being `size` long), remove the least precious first
    (steps 1 to 5 of the hard cut), every size known by arithmetic; every ordinary
    condensed entry when a rule was left out for room (step 1)."""
    for item in [item for item in parts.condense if not item.lighthouse]:
        if size <= cap and not rule_left_out:
            return
        parts.condense.remove(item)
        size -= len(parts.condensed_texts[item.seq])
        parts.cuts.append({"step": 1, "seq": item.seq})
    if size <= cap:
        return
    for section in RECIT_CUT_ORDER:
        if size <= cap:
            return
        if section_body(parts.recit, section, parts.mission):
            before = parts.recit_size()
            parts.dropped_sections.add(section)
            size -= before - parts.recit_size()
            parts.cuts.append({"step": 2, "section": section})
    for item in [item for item in parts.net if not item.lighthouse and item is not last]:
        if size <= cap:
            return
        parts.net.remove(item)
        size -= len(parts.net_texts[item.seq])
        parts.cuts.append({"step": 3, "seq": item.seq})
    precious: list[tuple[int, str]] = [(item.seq, "condense") for item in parts.condense]
    precious += [(item.seq, "net") for item in parts.net if item is not last]
    precious += [(quote.seq, "paroles") for quote in parts.recit.paroles]
    for seq, where in sorted(precious):
        if size <= cap:
            return
        if where == "condense":
            size -= len(parts.condensed_texts[seq])
            parts.condense = [item for item in parts.condense if item.seq != seq]
        elif where == "net":
            size -= len(parts.net_texts[seq])
            parts.net = [item for item in parts.net if item.seq != seq]
        else:
            before = parts.recit_size()
            parts.recit = msgspec.structs.replace(
                parts.recit, paroles=tuple(q for q in parts.recit.paroles if q.seq != seq))
            size -= before - parts.recit_size()
        parts.cuts.append({"step": 4, "seq": seq})
    if size > cap and last is not None:
        room = len(parts.net_texts[last.seq]) - (size - cap)
        parts.net_texts[last.seq] = _cut_question(last, max(room, 0), parts.labels)
        parts.cuts.append({"step": 5, "seq": last.seq})


# What the summary lists of an exchange, taken when the view is made (its item may be
# condensed again or replaced by a model's text after): seq, instant, type, tool, source,
# chars, lighthouse.
_Listed = tuple[int, float, str, str | None, str, int, bool]


def _summary_of(parts: _Parts, bee: str, settings: HorizonSettings, zones: Zones, text: str
                ) -> Callable[[], Summary]:
    """How to make the summary of the view `parts` make, when it is asked for."""
    condense: list[_Listed] = [(item.seq, item.instant, item.type, item.tool, item.source,
                                item.chars, item.lighthouse) for item in parts.condense]
    net: list[_Listed] = [(item.seq, item.instant, item.type, item.tool, item.source,
                           len(parts.net_texts[item.seq]), item.lighthouse)
                          for item in parts.net]
    recit, mission = parts.recit, parts.mission
    dropped = frozenset(parts.dropped_sections)
    shown_recit = bool(parts.recit_block())
    up_to = zones.up_to

    def summary() -> Summary:
        sections = {}
        if shown_recit:
            for section in SECTIONS:
                body = [] if section in dropped else section_body(recit, section, mission)
                sections[section] = "\n".join(body)
        return {
            "bee": bee, "mode": "horizon", "up_to": up_to, "chars": len(text),
            "cap": settings.cap, "recit": sections,
            "condense": [_listed(entry, with_source=True) for entry in condense],
            "net": [_listed(entry, with_source=False) for entry in net],
            "cut": parts.cuts,
        }

    return summary


def _listed(entry: _Listed, *, with_source: bool) -> Listed:
    seq, instant, kind, tool, source, chars, lighthouse = entry
    if with_source:
        return {"seq": seq, "ts": format_instant(instant), "type": kind, "tool": tool,
                "source": source, "chars": chars, "phare": lighthouse}
    return {"seq": seq, "ts": format_instant(instant), "type": kind, "tool": tool,
            "chars": chars, "phare": lighthouse}


def _render_handoff(zones: Zones, bee: str, settings: HorizonSettings, mission: str | None
                    ) -> View:
    lines = [header(bee, "handoff", zones.up_to, zones.at).rstrip("\n")]
    if mission:
        lines.append(settings.labels.mission_prefix + flatten(mission))
    lines.extend(zones.turns)
    text = bound_text("".join(line + "\n" for line in lines), settings.handoff_max)
    summary: Summary = {"bee": bee, "mode": "handoff", "up_to": zones.up_to,
                        "chars": len(text), "cap": settings.cap, "recit": {}, "condense": [],
                        "net": [], "cut": []}
    return View(text, summary, mode="handoff", cap=settings.cap)
