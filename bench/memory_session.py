"""A seeded synthetic agent session for bench/memory.py, and what it knows about itself.

The bee works a backlog of tickets in a billing back office: the operator hands tickets,
gives rules (some again, word for word), settles decisions; the bee greps, reads and
edits files, runs tests that fail and are fixed, meets failures it cannot fix, states its
next step, commits and closes. The story is the same in both languages for one seed
(every random draw is the same); only the words change.

The generator keeps the ground truth the probes need: which rules were given and when,
which files each exchange touched, every failure and the exchange that fixed it (a later
success of the same tool on the same path), the tickets' spans and the next steps stated.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

import memory_outputs as out
from memory_texts import AREAS, OPEN_FAILURES, PHRASES, Area, Phrases

OPERATOR = "apicultrice"
QUEEN = "reine"  # the runtime's scheduler: its messages are not the operator's
ZONE = timezone(timedelta(hours=1))
START = datetime(2026, 3, 5, 8, 40, tzinfo=ZONE)  # a Thursday: the session spans a weekend
DAY_ENDS = 18.5  # local hour after which the bee stops until the next working morning


@dataclass(frozen=True)
class Exchange:
    seq: int
    instant: float
    record: dict[str, Any]  # the journal line
    touched: tuple[str, ...]  # files read, written, edited, tested or checked


@dataclass
class Failure:
    seq: int
    tool: str
    path: str
    fixed_at: int | None = None  # the later success of the same tool on the same path


@dataclass
class Ticket:
    name: str
    opened: int
    closed: int | None = None


@dataclass(frozen=True)
class NextStep:
    seq: int
    text: str
    key: str  # the path or ticket it names


@dataclass
class Session:
    langue: str
    mission: str
    exchanges: list[Exchange] = field(default_factory=list)
    rules: dict[str, list[int]] = field(default_factory=dict)  # rule -> seqs it was given at
    failures: list[Failure] = field(default_factory=list)
    tickets: list[Ticket] = field(default_factory=list)
    next_steps: list[NextStep] = field(default_factory=list)
    decisions: list[int] = field(default_factory=list)

    def chars(self) -> int:
        return sum(len(e.record["question"]) + len(e.record["answer"]) for e in self.exchanges)

    def span_hours(self) -> float:
        if not self.exchanges:
            return 0.0
        return (self.exchanges[-1].instant - self.exchanges[0].instant) / 3600


MIN_CHARS_PER_EXCHANGE = 2500  # 400 exchanges hold at least 1 M characters


def generate(langue: str, seed: int, exchanges: int) -> Session:
    """`exchanges` journal lines, one exchange each, seq 1 to `exchanges`, holding at
    least MIN_CHARS_PER_EXCHANGE characters each on average.

    The story and the tools' texts draw from two generators, so that files read can be
    made longer until the session is long enough without changing the story.
    """
    scale = 1.0
    while True:
        session = _Writer(langue, seed, exchanges, scale).build()
        if session.chars() >= MIN_CHARS_PER_EXCHANGE * exchanges:
            return session
        scale *= 1.1


class _Writer:
    def __init__(self, langue: str, seed: int, total: int, scale: float) -> None:
        self.rng = random.Random(seed)  # the story
        self.noise = random.Random(f"{seed}/outputs")  # what tools print
        self.scale = scale  # files read are this much longer
        self.langue = langue
        self.words: Phrases = PHRASES[langue]
        self.total = total
        self.session = Session(langue, self.words.mission)
        self.clock = START.timestamp()
        self.open_pool = list(range(len(OPEN_FAILURES)))
        self.rng.shuffle(self.open_pool)
        self.ticket_names: set[str] = set()

    # -- the story ------------------------------------------------------------------------

    def build(self) -> Session:
        schedule = self._rule_schedule()
        script: Iterator[None] | None = None
        while len(self.session.exchanges) < self.total:
            if schedule and schedule[0][0] <= len(self.session.exchanges):
                self._rule(schedule.pop(0)[1])
                continue
            if script is None:
                script = self._ticket()
            try:
                next(script)
            except StopIteration:
                script = None
        return self.session

    def _rule_schedule(self) -> list[tuple[float, int]]:
        """When each rule is given, then repeated: first times over the first three
        quarters, repeats after them; the sizes scale with the session."""
        rng, n = self.rng, self.total
        rules = self.words.rules
        distinct = min(len(rules), max(3, round(len(rules) * n / 400)))
        chosen = rng.sample(range(len(rules)), distinct)
        firsts = sorted(rng.uniform(0.01, 0.75) * n for _ in chosen)
        events = list(zip(firsts, chosen, strict=True))
        repeated = rng.sample(range(distinct), max(1, distinct * 2 // 5))
        for rank, index in enumerate(repeated):
            given = 20 if rank == 0 else rng.choice((2, 2, 3, 3, 4, 5, 6, 8, 12))
            extra = max(1, round((given - 1) * min(1.0, n / 400)))
            first = firsts[index]
            events += [(rng.uniform(first + 1, n), chosen[index]) for _ in range(extra)]
        return sorted(events)

    def _rule(self, index: int) -> None:
        text = self.words.rules[index]
        again = text in self.session.rules
        answer = self.rng.choice(self.words.repeat_acks if again else self.words.rule_acks)
        seq = self._emit("conversation", text, answer, sender=OPERATOR, minutes=(2, 8))
        self.session.rules.setdefault(text, []).append(seq)

    def _ticket(self) -> Iterator[None]:
        rng, words = self.rng, self.words
        area = AREAS[rng.randrange(len(AREAS))]
        title = area.titles[self.langue][rng.randrange(len(area.titles[self.langue]))]
        fill = {"ticket": self._ticket_name(), "title": title,
                "src": rng.choice(area.sources), "test": rng.choice(area.tests),
                "doc": area.doc, "symbol": rng.choice(area.symbols), "next": words.next_label}
        # Opening: the operator hands the ticket, or the queen asks and the bee picks it.
        if rng.random() < 0.6:
            seq = self._emit("conversation", self._say(rng.choice(words.assign), fill),
                             self._say(words.assign_answer, fill), sender=OPERATOR,
                             minutes=(3, 12))
        else:
            seq = self._emit("task", rng.choice(words.pickup_question),
                             self._say(words.pickup_answer, fill), sender=QUEEN)
        self._stated(seq, fill)
        ticket = Ticket(fill["ticket"], seq)
        self.session.tickets.append(ticket)
        yield
        for _ in range(rng.randint(2, 4)):
            yield from self._explore(area, fill)
        if rng.random() < 0.5:
            command, log = out.long_log(self.noise, rng.randrange(4), fill["src"])
            self._tool("bash", command, log, ())
            yield
        yield from self._plan(fill)
        if rng.random() < 0.35:
            yield from self._decision(fill)
        yield from self._fix_cycle(area, fill)
        if rng.random() < 0.4 and self.open_pool:
            yield from self._open_failure(fill)
        if rng.random() < 0.2:
            question = self._say(rng.choice(words.status_question), fill)
            seq = self._emit("conversation", question, self._status(fill), sender=OPERATOR,
                             minutes=(3, 10))
            self._stated(seq, fill)
            yield
        if rng.random() < 0.4:
            yield from self._decision(fill)
        if rng.random() < 0.3:
            yield from self._typecheck(fill)
        command, log = out.long_log(self.noise, 3, fill["src"])
        self._tool("bash", command, log, ())  # the full suite, before the commit
        yield
        if rng.random() < 0.2:
            self._emit("conversation", self._say(rng.choice(words.request), fill),
                       self._say(words.request_answer, fill), sender=OPERATOR, minutes=(2, 6))
            yield
        if rng.random() < 0.45:
            body = out.source_file(self.noise, fill["doc"], area.symbols, self._size(800, 3000))
            self._tool("write_file", f"write_file {fill['doc']}",
                       f"Wrote {len(body.encode())} bytes to {fill['doc']}.", (fill["doc"],))
            yield
        yield from self._close(ticket, fill)

    def _close(self, ticket: Ticket, fill: dict[str, str]) -> Iterator[None]:
        """Commit and push, then the bee or the operator closes the ticket."""
        rng, words = self.rng, self.words
        branch = fill["ticket"].lstrip("#").lower()
        message = self._say(words.commit, fill)
        self._tool("bash", f"git commit -am \"{message}\" && git push origin {branch}",
                   f"[{branch} {rng.getrandbits(28):07x}] {message}\n 2 files changed, "
                   f"{rng.randint(3, 80)} insertions(+), {rng.randint(1, 40)} deletions(-)\n"
                   f"To github.com:ruche/back-office.git\n * [new branch]      {branch} -> "
                   f"{branch}", ())
        yield
        if rng.random() < 0.5:
            seq = self._emit("task", rng.choice(words.note_questions),
                             self._say(words.close_bee, fill), sender=QUEEN)
        else:
            seq = self._emit("conversation", self._say(rng.choice(words.close_operator), fill),
                             self._say(words.close_operator_answer, fill), sender=OPERATOR,
                             minutes=(2, 8))
        ticket.closed = seq
        yield

    def _explore(self, area: Area, fill: dict[str, str]) -> Iterator[None]:
        rng = self.rng
        if rng.random() < 0.3 and not fill.get("grepped"):
            fill["grepped"] = "yes"
            paths = [*area.sources, *area.tests]
            output = out.grep_output(self.noise, fill["symbol"], rng.sample(paths, len(paths)))
            pattern = fill["symbol"].rpartition(".")[2]
            self._tool("grep", f"grep -rn \"{pattern}\" src/ tests/", output, ())
            yield
            return
        other = AREAS[rng.randrange(len(AREAS))]
        path = rng.choice([*area.sources, *area.tests, area.doc, fill["src"], fill["test"],
                           rng.choice(other.sources)])
        content = out.source_file(self.noise, path, area.symbols, self._size(6000, 28000))
        self._tool("read_file", f"read_file {path}", content, (path,))
        yield
        if rng.random() < 0.4:
            note = self._say(rng.choice(self.words.reading), fill)
            self._emit("task", rng.choice(self.words.note_questions), note, sender=QUEEN,
                       minutes=(2, 5))
            yield

    def _plan(self, fill: dict[str, str]) -> Iterator[None]:
        step = self._say(self.rng.choice(self.words.steps), fill)
        seq = self._emit("task", self.rng.choice(self.words.note_questions),
                         self._say(self.words.plan, {**fill, "step": step}), sender=QUEEN,
                         minutes=(3, 8))
        self._stated(seq, fill)
        yield

    def _fix_cycle(self, area: Area, fill: dict[str, str]) -> Iterator[None]:
        """Reproduce in a test (it fails, most of the time), fix the source, run again
        until it passes: the pass fixes every failure of that test still open."""
        rng, words = self.rng, self.words
        test, src = fill["test"], fill["src"]
        self._tool("edit_file", f"edit_file {test}: add a test reproducing {fill['ticket']}",
                   out.diff_output(self.noise, test, fill["symbol"]), (test,))
        yield
        failing = rng.random() < 0.75
        for attempt in range(4):
            passed = not failing or attempt == 3
            output = out.test_run(self.noise, test, fill["symbol"], src, passed=passed)
            seq = self._tool("bash", self._test_command(test), output, (test,))
            yield
            if passed:
                self._fixed("bash", test, seq)
                if rng.random() < 0.6:
                    step = self._say(rng.choice(words.steps), fill)
                    filled = {**fill, "step": step, "count": str(rng.randint(6, 40))}
                    seq = self._emit("task", rng.choice(words.note_questions),
                                     self._say(words.passing, filled), sender=QUEEN)
                    self._stated(seq, fill)
                    yield
                return
            self.session.failures.append(Failure(seq, "bash", test))
            template = words.failing if attempt == 0 else words.failing_again
            seq = self._emit("task", rng.choice(words.note_questions),
                             self._say(template, fill), sender=QUEEN, minutes=(2, 6))
            self._stated(seq, fill)
            yield
            if rng.random() < 0.3:
                path = rng.choice(area.sources)
                self._tool("read_file", f"read_file {path}",
                           out.source_file(self.noise, path, area.symbols, self._size(4000, 14000)),
                           (path,))
                yield
            self._tool("edit_file", f"edit_file {src}: fix {fill['symbol']}",
                       out.diff_output(self.noise, src, fill["symbol"]), (src,))
            yield
            failing = rng.random() < 0.3

    def _typecheck(self, fill: dict[str, str]) -> Iterator[None]:
        src = fill["src"]
        failing = self.rng.random() < 0.3
        seq = self._tool("bash", f"mypy {src}", out.typecheck(self.noise, src, passed=not failing),
                         (src,))
        yield
        if not failing:
            self._fixed("bash", src, seq)
            return
        self.session.failures.append(Failure(seq, "bash", src))
        self._tool("edit_file", f"edit_file {src}: Decimal instead of float",
                   out.diff_output(self.noise, src, fill["symbol"]), (src,))
        yield
        seq = self._tool("bash", f"mypy {src}", out.typecheck(self.noise, src, passed=True), (src,))
        self._fixed("bash", src, seq)
        yield

    def _open_failure(self, fill: dict[str, str]) -> Iterator[None]:
        tool, path, command, reason, error = OPEN_FAILURES[self.open_pool.pop()]
        question = command or f"{tool} {path}"
        seq = self._tool(tool, question, out.open_failure_output(self.noise, command, error),
                         (path,))
        self.session.failures.append(Failure(seq, tool, path))
        yield
        note = self._say(self.words.open_failure,
                         {**fill, "path": path, "reason": self.words.open_reasons[reason]})
        self._emit("task", self.rng.choice(self.words.note_questions), note, sender=QUEEN)
        yield

    def _decision(self, fill: dict[str, str]) -> Iterator[None]:
        rng = self.rng
        if rng.random() < 0.5:
            question, answer = rng.choice(self.words.decisions_operator)
            sender = OPERATOR
        else:
            question, answer = rng.choice(self.words.decisions_queen)
            sender = QUEEN
        seq = self._emit("conversation", self._say(question, fill), self._say(answer, fill),
                         sender=sender, minutes=(4, 15))
        self.session.decisions.append(seq)
        yield

    def _status(self, fill: dict[str, str]) -> str:
        step = self._say(self.rng.choice(self.words.steps), fill)
        return self._say(self.words.status_answer, {**fill, "step": step})

    # -- the ground truth -----------------------------------------------------------------

    def _stated(self, seq: int, fill: dict[str, str]) -> None:
        """The answer at `seq` ends with the bee's next step: remember it and what it names."""
        answer = self.session.exchanges[seq - 1].record["answer"]
        text = answer.rsplit(self.words.next_label, 1)[1].rstrip(".")
        key = next((fill[name] for name in ("test", "src", "doc", "ticket")
                    if fill[name] in text), fill["ticket"])
        self.session.next_steps.append(NextStep(seq, text, key))

    def _fixed(self, tool: str, path: str, seq: int) -> None:
        for failure in self.session.failures:
            if failure.fixed_at is None and failure.tool == tool and failure.path == path:
                failure.fixed_at = seq

    # -- writing ----------------------------------------------------------------------------

    def _ticket_name(self) -> str:
        # `#` tickets are numbered far above any seq of the session, so that `#5123`
        # cannot be read as an exchange's address.
        low = max(5000, self.total * 3)
        while True:
            if self.rng.random() < 0.5:
                name = f"TICKET-{self.rng.randint(100, 999)}"
            else:
                name = f"#{self.rng.randint(low, low * 2 - 1)}"
            if name not in self.ticket_names:
                self.ticket_names.add(name)
                return name

    def _size(self, low: int, high: int) -> int:
        return int(self.rng.randint(low, high) * self.scale)

    def _test_command(self, test: str) -> str:
        return f"npx vitest run {test}" if test.endswith(".tsx") else f"pytest {test}"

    def _say(self, template: str, fill: dict[str, str]) -> str:
        return template.format(**fill)

    def _tool(self, tool: str, question: str, answer: str, touched: tuple[str, ...]) -> int:
        return self._emit("tool", question, answer, tool=tool, touched=touched)

    def _emit(self, kind: str, question: str, answer: str, *, sender: str | None = None,
              tool: str | None = None, touched: tuple[str, ...] = (),
              minutes: tuple[int, int] = (1, 4)) -> int:
        self._advance(minutes)
        seq = len(self.session.exchanges) + 1
        when = datetime.fromtimestamp(self.clock, ZONE)
        record: dict[str, Any] = {"ts": when.isoformat(), "type": kind, "question": question,
                                  "answer": answer}
        if sender is not None:
            record["from"] = sender
        if tool is not None:
            record["tool"] = tool
            record["id"] = f"call_{self.rng.getrandbits(40):010x}"
        self.session.exchanges.append(Exchange(seq, self.clock, record, touched))
        return seq

    def _advance(self, minutes: tuple[int, int]) -> None:
        """A few minutes per exchange within working hours; evenings, nights and the
        weekend pass without a word (the weekend lets net's exchanges age out)."""
        self.clock += self.rng.randint(*minutes) * 60 + self.rng.randint(0, 59)
        local = datetime.fromtimestamp(self.clock, ZONE)
        if local.hour + local.minute / 60 < DAY_ENDS and local.hour >= 8:
            return
        day = local.date() + timedelta(days=1 if local.hour >= 8 else 0)
        while day.weekday() >= 5:
            day += timedelta(days=1)
        morning = datetime(day.year, day.month, day.day, 8, 0, tzinfo=ZONE)
        self.clock = morning.timestamp() + self.rng.randint(0, 90) * 60
