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
from horizon.core.choices import settled
from horizon.core.coverage import covered_by
from horizon.core.entries import Entry, Rejection
from horizon.core.facts import is_passing_word, quotable
from horizon.core.labels import Labels
from horizon.core.noise import without_noise
from horizon.core.operator_words import is_request, stands_as_rule
from horizon.core.outcomes import failing_lines
from horizon.core.recit import (
    FREE_SECTIONS,
    Heard,
    Line,
    Quote,
    Recit,
    quote_key,
    quote_lines,
    render_recit,
)
from horizon.core.records import (
    CHOICES_KEPT,
    DECISIONS_KEPT,
    FILES_KEPT,
    RECORD_SPAN,
    Asked,
    Decision,
    Facts,
    Failure,
    Stated,
    Ticket,
)
from horizon.core.sections import sections_of
from horizon.core.settings import HorizonSettings
from horizon.core.signals import output_failed, signals_of
from horizon.core.subjects import dropped_words, subject_words
from horizon.core.test_runs import same_family
from horizon.core.text import _PATH_PATTERN, clean, cut, ends_cut, flat_cut, flatten
from horizon.core.tickets import CLOSES, OPENS
from horizon.core.turns import append_turns
from horizon.core.withdrawals import withdrawn
from horizon.core.zone_state import Zones
from horizon.core.zones import is_lighthouse


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


def reference_bound(recit: Recit, mission: str | None, budget: int, labels: Labels,
                    quote_room: int = 0) -> tuple[Recit, str | None]:
    """ADR 0008's order, measuring the rendered text at every step: the Mission (cut only
    when the headings and it alone are over); each section's newest line (its first) cut
    to 100 characters, newest sections first; the standing quotes newest first, whole, up
    to the first that does not fit in the budget and the quotes' extra room; then lines
    whole, newest first and a section in turn, each one that fits in the budget; then the
    passing quotes as the standing ones."""
    gone = withdrawn(recit.paroles)
    recit = Recit(recit.sections, tuple(quote for quote in recit.paroles
                                        if quote.seq not in gone), recit.heard, recit.facts,
                  recit.folded)
    everything = sum(len(line) + 1 for quote in recit.paroles for line in quote_lines(quote))
    if _size(recit, mission, labels) <= budget and (
            all(_rule(quote) for quote in recit.paroles)
            or everything <= _size(recit, mission, labels) - everything):
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
                      for name, lines in chosen.items() if lines},
                     tuple(sorted(quotes, key=recit.paroles.index)))

    def fits(room: int = 0) -> bool:
        return _size(shown(), mission, labels) <= budget + room

    def take_rules() -> None:
        for quote in reversed([quote for quote in recit.paroles if _rule(quote)]):
            quotes.append(quote)
            if not fits(quote_room):
                quotes.pop()
                return

    def paroles_within_half() -> bool:
        words = sum(len(line) + 1 for quote in quotes for line in quote_lines(quote))
        return words <= _size(shown(), mission, labels) - words

    def take_words(passing: bool) -> None:
        for quote in reversed([quote for quote in recit.paroles
                               if quote.passing == passing and not _rule(quote)]):
            quotes.append(quote)
            if not (fits() and paroles_within_half()):
                quotes.pop()
                return

    newest = [(recit.lines_of(name)[0], name) for name in FREE_SECTIONS
              if recit.lines_of(name)]
    for line, name in sorted(newest, key=lambda pair: -pair[0].seq):
        chosen[name][0] = Line(line.seq, cut(flatten(line.text), 100))
        if not fits():
            del chosen[name][0]
    take_rules()
    order = ("Erreurs", "Travail en cours", "Décisions", "Prochaine étape", "Fichiers")
    rounds = max((len(recit.lines_of(name)) for name in order), default=0)
    for index in range(rounds):
        for name in order:
            if index >= len(recit.lines_of(name)):
                continue
            before = chosen[name].get(index)
            chosen[name][index] = recit.lines_of(name)[index]
            if not fits():
                if before is None:
                    del chosen[name][index]
                else:
                    chosen[name][index] = before
    take_words(passing=False)
    take_words(passing=True)
    bounded = shown()
    return (Recit(bounded.sections, bounded.paroles, recit.heard, recit.facts, recit.folded),
            mission)


def _rule(quote: Quote) -> bool:
    return not quote.passing and stands_as_rule(quote.text)


def _success_on(record: Failure, success: Signals, path: str | None) -> Failure | None:
    """A failure's record after a newer successful call: gone when the call is the same
    call, a whole-suite run of its family, or (for a failing test file) a test run naming
    the file or its folder; with the tests that passed taken out of its failing tests."""
    if path is None and success.key is not None and covered_by(success.key, record.key):
        return None  # a wrapper that runs the failing tool
    if success.tests is None:
        return None if success.key == record.key else record
    if success.key == record.key or (success.whole_suite and record.suite
                                       and same_family(record.suite, success.suite)):
        return None
    if path is None:
        return record
    if any(path == ran or path.startswith(ran + "/") for ran in success.tests):
        return None
    ran = {node for node in success.nodes if node.split("::", 1)[0] == path}
    if ran and record.nodes:
        left = tuple(node for node in record.nodes if node not in ran)
        return Failure(record.seq, record.command, record.key, record.line, record.suite,
                       left) if left else None
    return record


def _failure_records(pairs: list[tuple[Item, Signals]]) -> tuple[dict[str, Failure],
                                                                  dict[str, Failure]]:
    """Each command's and failing test file's record, key by key, the calls read in fold
    order: a failure newer than the record replaces it, a newer success acts on it."""
    failures: dict[str, Failure] = {}
    tests: dict[str, Failure] = {}
    for item, said in pairs:
        if said.key is None or said.command is None:
            continue
        if said.failure is not None:
            paths = said.failed_tests or said.tests or tuple(
                dict.fromkeys(node.split("::", 1)[0] for node in said.nodes))
            nodes = said.failed_nodes or said.nodes
            for path in paths:
                if path not in tests or tests[path].seq < item.seq:
                    tests[path] = Failure(item.seq, said.command, said.key, said.failure,
                                          said.suite, tuple(
                                              n for n in nodes if n.split("::", 1)[0] == path))
            if not paths and (said.key not in failures
                              or failures[said.key].seq < item.seq):
                failures[said.key] = Failure(item.seq, said.command, said.key, said.failure,
                                             said.suite)
            continue
        for key, record in list(failures.items()):
            if record.seq < item.seq and _success_on(record, said, None) is None:
                del failures[key]
        for path, record in list(tests.items()):
            if record.seq < item.seq:
                kept = _success_on(record, said, path)
                if kept is None:
                    del tests[path]
                else:
                    tests[path] = kept
    return failures, tests


def reference_facts(folded: list[Item]) -> Facts:
    """The records read off the whole folded history (in fold order) at once, within
    RECORD_SPAN seqs of the newest folded: each file at its newest mention; for each
    command and failing test path, its newest failure that no success folded after it
    (and newer) resolves; each ticket's newest opening and closing; every decision; the
    newest task and step."""
    newest = max((item.seq for item in folded), default=0)
    cutoff = newest - RECORD_SPAN
    signals = [item.signals or signals_of(item) for item in folded]
    pairs = [(item, said) for item, said in zip(folded, signals, strict=True)
             if item.seq > cutoff]
    files: dict[str, int] = {}
    failures, tests = _failure_records(pairs)
    tickets: dict[str, Ticket] = {}
    decisions = []
    asks, replies = [], []
    task = step = None
    for item, said in pairs:
        if said.asked is not None:
            asks.append(Asked(item.seq, said.asked, said.options))
        if said.reply is not None:
            replies.append(Stated(item.seq, said.reply))
        for path in said.paths:
            files[path] = max(files.get(path, 0), item.seq)
        for name, state, sentence in said.tickets:
            ticket = tickets.get(name, Ticket(0, 0, 0, ""))
            opened, closed, text = ticket.opened, ticket.closed, ticket.said
            if state == OPENS and item.seq > opened:
                opened, text = item.seq, sentence
            if state == CLOSES:
                closed = max(closed, item.seq)
            tickets[name] = Ticket(opened, closed, max(ticket.worked, item.seq), text)
        decisions += [Decision(item.seq, text, subject_words(about), dropped_words(about),
                               reverses, index < said.operator_decided)
                      for index, (text, about, reverses) in enumerate(said.decisions)]
        if said.task is not None and (task is None or task.seq < item.seq):
            task = Stated(item.seq, said.task)
        if said.step is not None and (step is None or step.seq < item.seq):
            step = Stated(item.seq, said.step, said.step_asker)
    # A reply that settles a choice the bee asked for is the operator's decision, in place
    # of what else its words decided; the others wait for their choice.
    chosen = settled(tuple(asks), tuple(replies))
    at = {decision.seq for decision in chosen}
    decisions = [decision for decision in decisions if decision.seq not in at] + chosen
    replies = [reply for reply in replies if reply.seq not in at]
    decisions.sort(key=lambda decision: (decision.seq, decision.text))
    return Facts(newest, dict(sorted(files.items(), key=lambda pair: (pair[1], pair[0]))
                              [-FILES_KEPT:]),
                 failures, tests, tickets, tuple(decisions[-DECISIONS_KEPT:]), task, step,
                 tuple(sorted(asks, key=lambda ask: ask.seq)[-CHOICES_KEPT:]),
                 tuple(sorted(replies, key=lambda reply: reply.seq)[-CHOICES_KEPT:]))


def reference_quotes(folded: list[Item], keep: int) -> tuple[tuple[Quote, ...],
                                                             dict[str, Heard]]:
    """The operator's words of the folded lighthouses, each text once at its newest seq
    with its seqs, arriving one at a time; while they are over `keep` characters (as
    rendered), the oldest passing quote leaves, else the oldest."""
    held: list[Quote] = []
    heard: dict[str, list[int]] = {}
    for item in folded:
        text = quotable(item.question) if item.lighthouse else None
        if text is None:
            continue
        words = " ".join(clean(text).split())
        seqs = sorted({*heard.pop(words, []), item.seq})
        heard[words] = seqs
        held = [quote for quote in held if " ".join(clean(quote.text).split()) != words]
        passing = is_passing_word(text) and not (
            len(seqs) > 1 and is_request(text))  # a request said again stands
        held.append(Quote(seqs[-1], text, (seqs[0], *seqs[1:][-5:]), len(seqs),
                          passing))
        while sum(len(line) + 1 for quote in held for line in quote_lines(quote)) > keep:
            held.remove(min(held, key=lambda quote: (not quote.passing, quote.seq)))
    return (tuple(sorted(held, key=lambda quote: quote.seq)),
            {quote_key(words): Heard(len(seqs), seqs[0], tuple(seqs[1:])[-5:])
             for words, seqs in heard.items()})


def reference_recit(folded: list[Item], settings: HorizonSettings) -> Recit:
    """The récit of a folded history: a function of the entries and their order."""
    facts = reference_facts(folded)
    paroles, heard = reference_quotes(folded, settings.budget_recit + settings.budget_condense)
    return Recit(sections_of(facts, settings.labels, settings.ligne_max), paroles, heard,
                 facts, len(folded))


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
        zones.bad_fields += record.bad_field
        lighthouse = is_lighthouse(record, self.settings)
        if lighthouse and zones.first_lighthouse is None and record.question.strip():
            zones.first_lighthouse = flatten(record.question)
        if not self.settings.actif:
            append_turns(zones.turns, record, self.bee, self.settings)
            return
        item = Item(seq=record.seq, instant=record.instant, type=record.type,
                    question=record.question, answer=record.answer, lighthouse=lighthouse,
                    sender=record.sender, tool=record.tool, writer_id=record.writer_id,
                    content=reference_hash(record), ok=record.ok, files=record.files)
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
            item.failed = item.ok is False or output_failed(item)
            answer = without_noise(item.answer)
            condensed = (ends_cut(answer, settings.ligne_max, failing_lines(answer))
                         if item.failed else flat_cut(answer, settings.ligne_max))
            item.whole = condensed == flatten(answer)
            item.answer = condensed
            item.source = "troncature"
            item.chars = len(condensed_block(item, self.labels))
            bisect.insort(zones.condense, item, key=lambda held: held.seq)
            zones.condense_chars += item.chars
        self.fold_if_over()

    def fold_if_over(self) -> None:
        """Over budget: the oldest non-lighthouses fold until the zone is at half; with
        lighthouses at this floor holding more than half, the oldest of them too until
        they hold at most a quarter, whether or not the zone is over its budget."""
        zones, settings = self.zones, self.settings
        protect = settings.plancher_phare == "condense"
        budget = settings.budget_condense
        lighthouses = sum(item.chars for item in zones.condense if item.lighthouse)
        if zones.condense_chars <= budget and not (protect and lighthouses > budget // 2):
            return
        folding: list[Item] = []
        for item in zones.condense:
            if (zones.condense_chars <= budget
                    or zones.condense_chars - sum(i.chars for i in folding) <= budget // 2):
                break
            if not (protect and item.lighthouse):
                folding.append(item)
        staying = [i for i in zones.condense if i.lighthouse and i not in folding]
        if (protect and zones.condense_chars - sum(i.chars for i in folding) > budget // 2
                and sum(i.chars for i in staying) > budget // 2):
            for item in zones.condense:  # down to a quarter, not one per lighthouse
                staying = [i for i in zones.condense if i.lighthouse and i not in folding]
                if sum(i.chars for i in staying) <= budget * 3 // 8:
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
        zones.recit = reference_recit(self.folded, settings)
        zones.recit_level = "troncature"
