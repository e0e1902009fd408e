"""The view (handoff.md): zones to text, the hard cut, the guard (pure).

`render` is a pure, idempotent function of the zones, the settings and the mission.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import msgspec

from horizon.core.blocks import (
    Item,
    Signals,
    condensed_block,
    exchange_block,
    header,
    net_block,
    notice,
)
from horizon.core.bound import bound_text
from horizon.core.entries import format_instant
from horizon.core.facts import is_passing_word, quotable
from horizon.core.labels import Labels
from horizon.core.overtaken import overtaken
from horizon.core.recit import (
    FREE_SECTIONS,
    MISSION,
    SECTIONS,
    Quote,
    Recit,
    bound_recit,
    recit_size,
    section_body,
)
from horizon.core.recit import render_recit as recit_text
from horizon.core.settings import HorizonSettings
from horizon.core.signals import signals_of
from horizon.core.text import clean, flatten
from horizon.core.view import Cut, Listed, Summary, View
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


# Blocks rendered by earlier views of the same bee: (zone, seq) -> (what the block was
# made of, its text). A pass changes a few entries; the others' blocks are taken as they
# were. The caller keeps it between views; `render` leaves in it only what it used.
# A block is made of (item, answer, whole, lighthouse, labels); the récit of (récit,
# mission, budget, quote room, labels), gives (bounded récit, mission shown), and last
# holds the operator's words waiting for their fold that it was bounded with.
_BlockMadeOf = tuple[Item, str, bool, bool, Labels]
_RecitMadeOf = tuple[Recit, str | None, int, int, Labels, Recit, str | None, tuple[Quote, ...]]
# The récit as the waiting exchanges leave it (`overtaken`): made of the récit, the
# exchanges in condensé and net with what was read of them, the labels and ligne_max; and
# what was read of each net exchange, made of the exchange and its answer.
_AheadMadeOf = tuple[Recit, tuple[tuple[Item, str, object], ...], Labels, int, Recit]
_ReadMadeOf = tuple[Item, str, Signals]
BlockMemo = dict[tuple[str, int],
                 tuple[_BlockMadeOf | _RecitMadeOf | _AheadMadeOf | _ReadMadeOf, str]]


def _block(memo: BlockMemo | None, used: set[tuple[str, int]], zone: str, item: Item,
           labels: Labels, make: Callable[[Item, Labels], str]) -> str:
    key = (zone, item.seq)
    used.add(key)
    cached = memo.get(key) if memo is not None else None
    if cached is not None:
        made_of = cached[0]
        # The same item, answer and labels: a block only changes with its answer (condensed,
        # replaced by a model) or its lighthouse mark; what else makes it never changes.
        if (made_of[0] is item and made_of[1] is item.answer and made_of[2] == item.whole
                and made_of[3] == item.lighthouse and made_of[4] is labels):
            return cached[1]
    text = make(item, labels)
    if memo is not None:
        memo[key] = ((item, item.answer, item.whole, item.lighthouse, labels), text)
    return text


_RECIT_KEY = ("recit", 0)  # the récit's entry in a BlockMemo
_AHEAD_KEY = ("ahead", 0)  # and the récit the waiting exchanges leave


def _recit_ahead(memo: BlockMemo | None, used: set[tuple[str, int]], zones: Zones,
                 labels: Labels, ligne_max: int) -> Recit:
    """The récit without what the exchanges in condensé and net overtook (`overtaken`):
    the same object while none of them changed, so the bounded récit's memo holds."""
    used.add(_AHEAD_KEY)
    used.update(("read", item.seq) for item in zones.net)  # kept while in net
    waiting = tuple((item, item.answer, item.signals) for item in (*zones.condense, *zones.net))
    cached = memo.get(_AHEAD_KEY) if memo is not None else None
    if cached is not None:
        made_of = cached[0]
        assert len(made_of) == 5  # the key holds what overtaken made
        if (made_of[0] is zones.recit and made_of[2] is labels and made_of[3] == ligne_max
                and len(made_of[1]) == len(waiting)
                and all(old[0] is new[0] and old[1] is new[1] and old[2] is new[2]
                        for old, new in zip(made_of[1], waiting, strict=True))):
            return made_of[4]

    def read(item: Item) -> Signals:
        """A net exchange's signals, read once while it stays in net: the memo keeps only
        what this view used, so nothing outlives the exchange's stay."""
        key = ("read", item.seq)
        cached = memo.get(key) if memo is not None else None
        if cached is not None:
            made_of = cached[0]
            assert len(made_of) == 3  # the key holds what was read
            if made_of[0] is item and made_of[1] is item.answer:
                return made_of[2]
        signals = signals_of(item)
        if memo is not None:
            memo[key] = ((item, item.answer, signals), "")
        return signals

    recit = overtaken(zones.recit, zones.condense, zones.net, labels, ligne_max, read)
    if memo is not None:
        memo[_AHEAD_KEY] = ((zones.recit, waiting, labels, ligne_max, recit), "")
    return recit


def _bounded_recit(memo: BlockMemo | None, used: set[tuple[str, int]], recit: Recit,
                   mission: str | None, budget: int, quote_room: int, labels: Labels,
                   waiting: tuple[Quote, ...]) -> tuple[Recit, str | None, str]:
    """bound_recit, and the block of what it keeps: the récit changes only at folds, so
    a bee's earlier view usually has both (`memo`)."""
    used.add(_RECIT_KEY)
    cached = memo.get(_RECIT_KEY) if memo is not None else None
    if cached is not None:
        made_of = cached[0]
        assert len(made_of) == 8  # the récit's key holds the récit's
        if (made_of[0] is recit and made_of[1] == mission and made_of[2] == budget
                and made_of[3] == quote_room and made_of[4] is labels
                and made_of[7] == waiting):
            return made_of[5], made_of[6], cached[1]
    bounded, shown_mission = bound_recit(recit, mission, budget, labels, quote_room, waiting)
    text = recit_text(bounded, shown_mission, labels)
    if memo is not None:
        memo[_RECIT_KEY] = ((recit, mission, budget, quote_room, labels, bounded,
                             shown_mission, waiting), text)
    return bounded, shown_mission, text


def _waiting_words(zones: Zones) -> tuple[Quote, ...]:
    """The operator's standing words in condensé and net, not yet folded into Paroles:
    one that withdraws or replaces a rule already withdraws it from the view."""
    waiting = []
    for item in (*zones.condense, *zones.net):
        text = _standing(item.question) if item.lighthouse else None
        if text is not None:
            waiting.append(Quote(item.seq, text))
    return tuple(waiting)


@functools.lru_cache(maxsize=1024)
def _standing(question: str) -> str | None:
    """A lighthouse's words as Paroles would quote them, when they stand: asked again at
    every view while the lighthouse is in condensé or net."""
    text = quotable(question)
    return text if text is not None and not is_passing_word(text) else None


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
    ahead = _recit_ahead(memo, used, zones, labels, settings.ligne_max)
    recit, shown_mission, recit_whole = _bounded_recit(
        memo, used, ahead, mission_text(mission, settings), settings.budget_recit,
        quote_room, labels, _waiting_words(zones) if zones.recit.paroles else ())
    net_texts = {item.seq: _block(memo, used, "net", item, labels, net_block)
                 for item in zones.net}
    condensed_texts = {item.seq: _block(memo, used, "condense", item, labels, condensed_block)
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
    # The operator's words go last: while one is left out for room, no ordinary condensed
    # entry is shown either.
    quote_left_out = len(recit.paroles) < len(zones.recit.paroles)
    _hard_cut(parts, settings.cap, last, sum(before.values()), quote_left_out)
    text = parts.text()
    guarded = bound_text(text, settings.cap)
    after = parts.zone_sizes() if len(parts.cuts) != cuts else before
    return View(guarded, _summary_of(parts, bee, settings, zones, guarded), guarded != text,
                {zone: (before[zone], after[zone]) for zone in before}, mode="horizon",
                cap=settings.cap)


def _hard_cut(parts: _Parts, cap: int, last: Item | None, size: int,
              quote_left_out: bool) -> None:
    """While over the cap (the view being `size` long), remove the least precious first
    (steps 1 to 5 of the hard cut), every size known by arithmetic; every ordinary
    condensed entry when a quote was left out for room (step 1)."""
    for item in [item for item in parts.condense if not item.lighthouse]:
        if size <= cap and not quote_left_out:
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
