"""A family of generated coding sessions for the eval (bench/memory.py), and what each one
knows about itself.

A seed picks a project (eval_projects.py), a runtime's style (Claude Code's tools Bash,
Read, Edit, Write, Grep, Glob, which write absolute paths under the work tree; or Codex's
shell and apply_patch), whether the runtime writes `ok` and `files` (odd seeds do), and
draws the story: the operator gives rules (one repeated every ten exchanges or so, one
replaced later by a rule that says so, one withdrawn), hands tickets (in a sentence, or in
three words the bee answers with a bare "OK"), parks them, reopens closed ones, asks what
is next, and types a lot of chatter ("ok", "lgtm", "vas-y", "yes, apply it"), some of it
settling a choice the bee asked about ("Fine, OVERWRITE it is."); the bee reads, greps,
edits, runs tests that fail and are fixed by a rerun, by a run of the same path or by the
whole suite, long failing runs whose verdict is at the end, linters and checkers fixed by
a wrapper that runs them (`make lint` after `tflint`), meets commands that fail for reasons
outside the code and are never fixed, settles choices (the operator reverses one), states
its next steps, and closes tickets (or says they are not closed yet). The runtime adds its
noise: orchestrator nudges ("Continue from where you left off."), Claude Code's
`<system-reminder>` blocks and local-command caveats, Codex's environment context. The same
seed tells the same story in French and in English: the story draws from one random
generator, the words from another (eval_phrasings.py), the tools' outputs from a third
(eval_outputs.py), the runtime's noise from a fourth.

The ground truth is written down as the story is told, in structured records (never read
back from the text): every rule with the seqs it was given at, what replaced it and when
it was withdrawn; every ticket's events (opened: assigned, started, resumed, reopened;
closed), negated closings and read-only mentions; every failure with what failed and the
exchange that fixed it (the same command, a covering test run, the whole suite, or a
wrapper that runs it); every failed read; every decision and who made it; every next step
with the words that name it; every chatter message and nudge; every long failing run with
the test its tail names; every exchange's files (relative to the work tree, whatever the
runtime wrote), and the long outputs.
"""

from __future__ import annotations

import heapq
import json
import random
import re
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

import eval_outputs as out
from eval_phrasings import WORDS, Words
from eval_projects import Project, TestTarget, Wrapper, project_for

OPERATOR = "apicultrice"
RUNTIME = "reine"  # the runtime's scheduler: its prompts are not the operator's
ZONE = timezone(timedelta(hours=1))
DAY_START, DAY_END = 8.75, 19.0  # local hours the bee works between
CHECKPOINTS = 5
LONG_OUTPUT = (90_000, 100_000)  # the last exchange at some checkpoints, in characters
SMALL_NET_OUTPUT = (28_000, 30_000)  # the same in the budget_net = 3000 variant
# The rules an operator may withdraw (eval_phrasings' indices): habits of the work, not
# safety ("no secrets in the repo" is never lifted).
WITHDRAWABLE = frozenset({1, 3, 4, 5, 6, 7, 8, 11})


def fold(text: str) -> str:
    """Whitespace folded: how a command is compared."""
    return " ".join(text.split())


# -- the ground truth --------------------------------------------------------------------

@dataclass(frozen=True)
class Exchange:
    seq: int
    instant: float
    record: dict[str, Any]  # the journal line
    files: tuple[str, ...]  # paths it read or changed, relative to the work tree
    label: str  # what the generator meant by it
    answer_noise: int = 0  # characters of runtime noise at the end of the answer

    @property
    def clean_answer(self) -> str:
        """The answer without what the runtime appended to it."""
        answer: str = self.record["answer"]
        return answer[:len(answer) - self.answer_noise]


@dataclass
class Rule:
    text: str
    given: list[int] = field(default_factory=list)
    replaces: int | None = None  # index of the rule this one replaces
    replaced_at: int | None = None  # seq the replacing rule was first given at
    topic: str = ""  # what a withdrawal calls it
    withdrawn_at: int | None = None  # seq the operator withdrew it at
    withdrawal: str | None = None  # the operator's words withdrawing it

    def current(self, seq: int) -> bool:
        """Given by `seq`, and neither replaced nor withdrawn by then."""
        return (bool(self.given) and self.given[0] <= seq
                and (self.replaced_at is None or self.replaced_at > seq)
                and (self.withdrawn_at is None or self.withdrawn_at > seq))


OPEN, CLOSE = "open", "close"


@dataclass
class Ticket:
    name: str  # as people write it: WX-230, #4412, issue 4057
    aliases: tuple[str, ...]  # how a view may write it
    title: int  # index into the project's titles
    # (seq, OPEN or CLOSE) in seq order. OPEN: assigned, started, resumed, reopened, and
    # what says it is still in flight (parked, "not closed yet"); CLOSE: closed.
    events: list[tuple[int, str]] = field(default_factory=list)
    not_closed: list[int] = field(default_factory=list)  # negated closings
    parked: list[int] = field(default_factory=list)
    read_only: list[int] = field(default_factory=list)  # named in a git log or grep output
    worked: bool = True  # False: only ever named in tools' outputs

    @property
    def openings(self) -> list[int]:
        return [seq for seq, kind in self.events if kind == OPEN]

    @property
    def closings(self) -> list[int]:
        return [seq for seq, kind in self.events if kind == CLOSE]

    @property
    def closed_now(self) -> bool:
        return bool(self.events) and self.events[-1][1] == CLOSE

    def state(self, known: Callable[[int], bool]) -> tuple[str, int] | None:
        """(OPEN or CLOSE, seq) of the newest event `known` says is known, or None."""
        told = [(seq, kind) for seq, kind in self.events if known(seq)]
        if not told:
            return None
        seq, kind = max(told)
        return kind, seq


@dataclass
class Failure:
    seq: int
    tool: str
    command: str  # as run
    kind: str  # test, suite, lint, build, outside
    path: str | None  # the test path it covers, when it has one
    fixed_at: int | None = None
    fixed_by: str | None = None  # rerun, path, suite, or the wrapper's command


@dataclass
class FailedRead:
    """A read-only call that exited non-zero (a grep finding nothing, a missing file)."""

    seq: int
    command: str
    path: str | None


@dataclass
class Decision:
    subject: int  # index into the project's choices
    choice: str
    seq: int
    replaces: str | None = None  # the choice it reverses
    by: str = "bee"  # or operator: settled what the bee asked, or overruled it


@dataclass
class NextStep:
    seq: int
    keys: tuple[str, ...]  # any of them names it: a path, a symbol, a ticket
    by: str  # bee or operator
    text: str
    action: str  # what it says to do ("split decode_frame into two smaller functions")


@dataclass
class Chatter:
    """An operator message that only acknowledges, approves or nudges: no rule, no request.
    `settles`: the subject whose pending choice it settles (its decision is recorded too)."""

    seq: int
    text: str
    settles: int | None = None


@dataclass
class Nudge:
    """A turn the runtime's orchestrator sent, not the operator: "Continue.", "Reprends…"."""

    seq: int
    text: str


@dataclass
class FailedRun:
    """A long failing test run: many passing lines, the failing test named in its tail."""

    seq: int
    test: str
    command: str


@dataclass
class LongOutput:
    seq: int
    chars: int
    checkpoint: bool


@dataclass
class Session:
    seed: int
    langue: str
    variant: str  # "" or "net3000"
    project: Project
    flavor: str  # claude or codex
    metadata: bool  # the runtime writes `ok` and `files`
    horizon: dict[str, Any]  # the bee's [horizon] settings
    checkpoints: list[int]
    exchanges: list[Exchange] = field(default_factory=list)
    rules: list[Rule] = field(default_factory=list)
    tickets: list[Ticket] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)
    failed_reads: list[FailedRead] = field(default_factory=list)
    decisions: list[Decision] = field(default_factory=list)
    steps: list[NextStep] = field(default_factory=list)
    long_outputs: list[LongOutput] = field(default_factory=list)
    chatter: list[Chatter] = field(default_factory=list)
    nudges: list[Nudge] = field(default_factory=list)
    failed_runs: list[FailedRun] = field(default_factory=list)
    noise: list[int] = field(default_factory=list)  # seqs carrying runtime markup

    @property
    def name(self) -> str:
        return f"{self.seed}{'/' + self.variant if self.variant else ''}/{self.langue}"

    @property
    def bee(self) -> str:
        return self.project.bee

    @property
    def mission(self) -> str:
        return self.project.mission[self.langue]

    def chars(self) -> int:
        return sum(len(e.record["question"]) + len(e.record["answer"]) for e in self.exchanges)

    def facts(self) -> dict[str, Any]:
        span = (self.exchanges[-1].instant - self.exchanges[0].instant) if self.exchanges else 0
        return {"project": self.project.key, "bee": self.bee, "flavor": self.flavor,
                "metadata": self.metadata, "exchanges": len(self.exchanges),
                "chars": self.chars(), "span_hours": round(span / 3600, 1),
                "rules": len(self.rules), "rule_messages": sum(len(r.given) for r in self.rules),
                "tickets": sum(t.worked for t in self.tickets),
                "tickets_closed": sum(bool(t.closings) for t in self.tickets),
                "tickets_reopened": sum(
                    any(seq > t.closings[0] for seq in t.openings) for t in self.tickets
                    if t.closings),
                "rules_withdrawn": sum(r.withdrawn_at is not None for r in self.rules),
                "failures": len(self.failures),
                "failures_never_fixed": sum(f.fixed_at is None for f in self.failures),
                "failures_fixed_by_wrapper": sum(
                    f.fixed_by not in (None, "rerun", "path", "suite") for f in self.failures),
                "failed_runs": len(self.failed_runs),
                "failed_reads": len(self.failed_reads), "decisions": len(self.decisions),
                "operator_decisions": sum(d.by == "operator" for d in self.decisions),
                "chatter": len(self.chatter), "nudges": len(self.nudges),
                "noisy_exchanges": len(self.noise),
                "next_steps": len(self.steps), "long_outputs": len(self.long_outputs)}

    def truth(self) -> dict[str, Any]:
        """The ground truth as JSON (kept beside the hive with --keep)."""
        return {"session": self.name, "facts": self.facts(), "checkpoints": self.checkpoints,
                "rules": [asdict(r) for r in self.rules],
                "tickets": [asdict(t) for t in self.tickets],
                "failures": [asdict(f) for f in self.failures],
                "failed_reads": [asdict(f) for f in self.failed_reads],
                "decisions": [asdict(d) for d in self.decisions],
                "steps": [asdict(s) for s in self.steps],
                "long_outputs": [asdict(o) for o in self.long_outputs],
                "chatter": [asdict(c) for c in self.chatter],
                "nudges": [asdict(n) for n in self.nudges],
                "failed_runs": [asdict(r) for r in self.failed_runs],
                "noise": self.noise,
                "files": {e.seq: list(e.files) for e in self.exchanges if e.files},
                "labels": {e.seq: e.label for e in self.exchanges}}


def generate(seed: int, langue: str, total: int, variant: str = "") -> Session:
    return _Writer(seed, langue, total, variant).build()


# -- the story ------------------------------------------------------------------------------

Event = Callable[[], None]


class _Writer:
    def __init__(self, seed: int, langue: str, total: int, variant: str) -> None:
        self.rng = random.Random(f"story/{seed}")  # the story: the same in both languages
        self.say_rng = random.Random(f"words/{seed}/{langue}")
        self.out = random.Random(f"outputs/{seed}")
        self.noise = random.Random(f"noise/{seed}")  # what the runtime adds to the lines
        self.project = project_for(seed)
        self.words: Words = WORDS[langue]
        self.langue = langue
        self.total = total
        horizon: dict[str, Any] = {"actif": True}
        if langue != "fr":
            horizon["langue"] = langue
        if variant == "net3000":
            horizon["budget_net"] = 3000
        checkpoints = sorted({max(1, round(total * k / CHECKPOINTS))
                              for k in range(1, CHECKPOINTS + 1)})
        self.s = Session(seed, langue, variant, self.project,
                         "codex" if seed % 3 == 0 else "claude", seed % 2 == 1, horizon,
                         checkpoints)
        self.long_at = {checkpoints[i] for i in (1, 3, 4) if i < len(checkpoints)}
        self.long_size = SMALL_NET_OUTPUT if variant == "net3000" else LONG_OUTPUT
        day = datetime(2026, 3, 2, tzinfo=ZONE) + timedelta(days=seed % 5)
        self.clock = (day + timedelta(hours=DAY_START)).timestamp()
        self.queue: list[tuple[int, int, Event]] = []
        self.order = 0
        self.last_key = ""
        self.ticket: Ticket | None = None
        self.branch = self.project.branch
        self.version = 0
        self.reopened: list[Ticket] = []
        self.pending_wrapper: Wrapper | None = None  # run at the end of the ticket's work
        self.wrapped = 0  # wrapper cycles told

    # -- helpers --------------------------------------------------------------------------

    def say(self, pool: tuple[str, ...], **fill: str) -> str:
        return self.say_rng.choice(pool).format(**fill)

    def at(self, low: float, high: float) -> int:
        """A seq between these fractions of the session."""
        return max(2, round(self.total * self.rng.uniform(low, high)))

    def schedule(self, seq: int, event: Event) -> None:
        self.order += 1
        heapq.heappush(self.queue, (seq, self.order, event))

    def follow(self, event: Event) -> None:
        """The next exchange, before any other event due then: the rest of a conversation
        (an answer to the bee's question, the edit the operator approved)."""
        self.order += 1
        heapq.heappush(self.queue, (self.seq, -self.order, event))

    @property
    def seq(self) -> int:
        return len(self.s.exchanges) + 1

    def title(self, ticket: Ticket) -> str:
        return self.project.titles[self.langue][ticket.title]

    def ticket_fill(self, ticket: Ticket) -> dict[str, str]:
        title = self.title(ticket)
        return {"t": ticket.name, "title": title, "title_cap": title[0].upper() + title[1:]}

    # -- journal lines ------------------------------------------------------------------

    def emit(self, kind: str, question: str, answer: str, label: str, *, sender: str | None = None,
             tool: str | None = None, ok: bool | None = None,
             files: tuple[str, ...] = (), minutes: tuple[float, float] = (0.3, 2.5)) -> int:
        """One journal line. `files` relative to the work tree, as the ground truth keeps them;
        the line says them as the runtime's tools do (absolute, for Claude Code)."""
        self.advance(minutes)
        seq = self.seq
        question, answer, noise = self.runtime_noise(kind, question, answer, label, sender, tool)
        record: dict[str, Any] = {
            "ts": datetime.fromtimestamp(self.clock, ZONE).isoformat(timespec="seconds"),
            "type": kind, "question": question, "answer": answer}
        if sender is not None:
            record["from"] = sender
        if tool is not None:
            record["tool"] = tool
            bits = self.out.getrandbits(96)
            record["id"] = (f"toolu_01{bits:024x}"[:30] if self.s.flavor == "claude"
                            else f"call_{bits:024x}")
            if self.s.metadata and ok is not None:
                record["ok"] = ok
        if self.s.metadata and files:
            record["files"] = [self.shown(path) for path in files]
        self.s.exchanges.append(Exchange(seq, self.clock, record, files, label, noise))
        return seq

    def runtime_noise(self, kind: str, question: str, answer: str, label: str,
                      sender: str | None, tool: str | None) -> tuple[str, str, int]:
        """Claude Code's `<system-reminder>` blocks, appended to tool results and to the
        operator's prompts: (question, answer, characters appended to the answer)."""
        if self.s.flavor != "claude" or label == "long suite":
            return question, answer, 0
        added = ""
        draw = self.noise.random()
        if tool == "Read" and draw < 0.6:
            added = out.READ_REMINDER
        elif tool is not None and draw < 0.04:
            added = out.TODO_REMINDER
        elif tool is not None and draw < 0.07:
            path = self.noise.choice(self.project.sources)
            added = out.changed_reminder(self.noise, self.project, path, self.shown(path))
        elif kind == "conversation" and sender in (OPERATOR, None) and question and draw < 0.1:
            question += out.TODO_REMINDER
            self.s.noise.append(self.seq)
        if added:
            self.s.noise.append(self.seq)
        return question, answer + added, len(added)

    def shown(self, path: str) -> str:
        """A path as the runtime's tools write it: Claude Code's are absolute."""
        return f"{self.project.root}/{path}" if self.s.flavor == "claude" else path

    def advance(self, minutes: tuple[float, float]) -> None:
        self.clock += self.rng.uniform(*minutes) * 60
        local = datetime.fromtimestamp(self.clock, ZONE)
        if DAY_START <= local.hour + local.minute / 60 < DAY_END:
            return
        day = local.date() + timedelta(days=1 if local.hour >= 12 else 0)
        while day.weekday() >= 5:
            day += timedelta(days=1)
        morning = datetime(day.year, day.month, day.day, tzinfo=ZONE) + timedelta(hours=DAY_START)
        self.clock = morning.timestamp() + self.rng.uniform(0, 50) * 60

    def operator(self, question: str, answer: str, label: str,
                 minutes: tuple[float, float] = (2, 25)) -> int:
        sender = OPERATOR if self.rng.random() < 0.7 else None
        return self.emit("conversation", question, answer, label, sender=sender,
                         minutes=minutes)

    def chat(self, text: str, answer: str, label: str, settles: int | None = None) -> int:
        """The operator's chatter: a quick word between two of the bee's steps."""
        seq = self.operator(text, answer, label, minutes=(0.5, 6))
        self.s.chatter.append(Chatter(seq, text, settles))
        return seq

    def bee(self, answer: str, label: str) -> int:
        prompt = self.words.runtime_prompts[self.rng.choice(
            range(len(self.words.runtime_prompts)))]
        sender = RUNTIME if self.rng.random() < 0.6 else None
        seq = self.emit("task", prompt, answer, label, sender=sender, minutes=(0.3, 3))
        if prompt:
            self.s.nudges.append(Nudge(seq, prompt))
        return seq

    def shell(self, command: str, output: str, label: str, *, ok: bool, code: int = 1,
              files: tuple[str, ...] = ()) -> int:
        if self.s.flavor == "codex":
            output = (f"Exit code: {0 if ok else code}\nWall time: {self.out.uniform(0.1, 40):.1f}"
                      f" seconds\nOutput:\n{output}")
            tool = "shell"
        else:
            output = output if ok else f"Exit code {code}\n{output}"
            tool = "Bash"
        return self.emit("tool", command, output, label, tool=tool, ok=ok, files=files,
                         minutes=(0.1, 1.5))

    # -- the next step ------------------------------------------------------------------

    def action(self) -> tuple[str, str]:
        """(an action's words, the key naming it), never the previous step's key."""
        while True:
            # Drawn by the story (the pools are parallel): both languages stay in step.
            template = self.words.actions[self.rng.randrange(len(self.words.actions))]
            if "{src}" in template:
                key = self.rng.choice(self.project.sources)
            elif "{doc}" in template:
                key = self.rng.choice(self.project.docs)
            else:
                key = self.rng.choice(self.project.symbols)
            if key != self.last_key:
                self.last_key = key
                return template.format(src=key, doc=key, symbol=key), key

    def step(self) -> tuple[str, str, str]:
        """(a stated next step, the key naming it, its action's words)."""
        words, key = self.action()
        return self.say(self.words.step, action=words), key, words

    def stated(self, seq: int, keys: tuple[str, ...], by: str, text: str, action: str) -> None:
        self.s.steps.append(NextStep(seq, keys, by, text, action))

    def with_step(self, text: str, label: str, extra_keys: tuple[str, ...] = (),
                  ask: str | None = None, chatter: bool = False) -> int:
        """A bee's message (or its answer to `ask`) ending with, or opening on, its next step."""
        step, key, action = self.step()
        answer = f"{text} {step}" if self.rng.random() < 0.8 else f"{step} {text}"
        if ask is None:
            seq = self.bee(answer.strip(), label)
        elif chatter:
            seq = self.chat(ask, answer.strip(), label)
        else:
            seq = self.operator(ask, answer.strip(), label)
        self.stated(seq, (key, *extra_keys), "bee", step, action)
        return seq

    # -- tickets --------------------------------------------------------------------------

    def make_tickets(self) -> None:
        numbers = self.rng.sample(range(100, 480), 6)
        base = max(1000, 3 * self.total)
        github = self.rng.sample(range(base, base + 8000), 4)
        styles = ["prefix", "prefix", "prefix", "github", "issue"]
        self.rng.shuffle(styles)
        titles = self.rng.sample(range(len(self.project.titles["en"])), 5)
        for n, (style, title) in enumerate(zip(styles, titles, strict=True)):
            if style == "prefix":
                name = f"{self.project.prefix}-{numbers[n]}"
                aliases: tuple[str, ...] = (name,)
            elif style == "github":
                name = f"#{github[0]}"
                aliases = (name,)
            else:
                name = f"issue {github[1]}"
                aliases = (name, f"issue #{github[1]}", f"#{github[1]}")
            self.s.tickets.append(Ticket(name, aliases, title))
        # Named in old commits only: never worked on here.
        name = f"{self.project.prefix}-{numbers[5]}"
        old = Ticket(name, (name,), -1, worked=False)
        pr = Ticket(f"#{github[2]}", (f"#{github[2]}",), -1, worked=False)
        self.s.tickets += [old, pr]

    def open_ticket(self, ticket: Ticket, how: str, parked: Ticket | None = None) -> None:
        """Assigned by the operator, started by the bee, or (parked given) taken instead of it."""
        fill = self.ticket_fill(ticket)
        if parked is not None and how == "operator":
            ask = self.say(self.words.park, **fill | {"t": parked.name, "u": ticket.name})
            ack = self.say(self.words.ack_park, t=parked.name)
            seq = self.with_step(ack, "park+assign", (ticket.name,), ask=ask)
            parked.parked.append(seq)
            parked.events.append((seq, OPEN))
        elif parked is not None:
            text = self.say(self.words.bee_park, **fill | {
                "t": parked.name, "u": ticket.name,
                "reason": self.say(self.words.block_reasons)})
            seq = self.with_step(text, "bee park+start", (ticket.name,))
            parked.parked.append(seq)
            parked.events.append((seq, OPEN))
        elif how == "operator":
            # The bee answers as it would any request, and never says "starting {t}".
            ask = self.say(self.words.assign, **fill)
            if self.rng.random() < 0.6:
                seq = self.with_step(self.say(self.words.ack_request), "assign", (ticket.name,),
                                     ask=ask)
            else:
                seq = self.operator(ask, self.say(self.words.ack_request), "assign")
        else:
            seq = self.with_step(self.say(self.words.start, **fill), "bee start", (ticket.name,))
        ticket.events.append((seq, OPEN))
        self.ticket = ticket

    def resume_ticket(self, ticket: Ticket) -> None:
        if self.rng.random() < 0.5:
            ask = self.say(self.words.resume, t=ticket.name)
            seq = self.with_step(self.say(self.words.ack_request), "resume", (ticket.name,),
                                 ask=ask)
        else:
            seq = self.with_step(self.say(self.words.bee_resume, t=ticket.name), "bee resume",
                                 (ticket.name,))
        ticket.events.append((seq, OPEN))
        self.ticket = ticket

    def reopen_ticket(self, ticket: Ticket) -> None:
        """A closed ticket back in progress: the operator says so, the tracker shows it, or
        the bee moves it back itself."""
        reason = self.say(self.words.reopen_reasons)
        how = self.rng.choice(("operator", "operator", "tracker", "tracker", "bd", "bee"))
        github = not ticket.name[0].isalpha() or ticket.name.startswith("issue")
        number = ticket.name.rsplit(" ", 1)[-1].lstrip("#")
        if how == "operator":
            ask = self.say(self.words.reopen, t=ticket.name, reason=reason,
                           reason_cap=reason[0].upper() + reason[1:])
            if self.rng.random() < 0.5:
                seq = self.operator(ask, self.say(self.words.ack_reopen), "reopen")
            else:
                seq = self.with_step(self.say(self.words.ack_reopen), "reopen", ask=ask)
        elif how == "bee":
            seq = self.with_step(self.say(self.words.bee_reopen, t=ticket.name, reason=reason),
                                 "bee reopen", (ticket.name,))
        elif github:
            seq = self.shell(f"gh issue reopen {number}",
                             out.gh_reopen(number, self.title_en(ticket)), "gh reopen", ok=True)
        elif how == "tracker":
            seq = self.shell(f"linear issue view {ticket.name}",
                             out.linear_issue_view(self.out, ticket.name, self.title_en(ticket),
                                                   self.project.bee),
                             "tracker reopen", ok=True)
        else:
            seq = self.shell(f"bd update {ticket.name.lower()} --status in_progress",
                             out.bd_update(ticket.name), "bd reopen", ok=True)
        ticket.events.append((seq, OPEN))
        self.reopened.append(ticket)
        self.ticket = ticket

    def close_ticket(self, ticket: Ticket) -> None:
        self.version += 1
        fill = {"t": ticket.name, "branch": self.branch, "version": f"v0.{4 + self.version}.0"}
        if self.rng.random() < 0.5:
            seq = self.operator(self.say(self.words.close, **fill),
                                self.say(self.words.ack_close), "close")
        else:
            seq = self.bee(self.say(self.words.bee_close, **fill), "bee close")
        ticket.events.append((seq, CLOSE))
        self.ticket = None

    def not_closed(self, ticket: Ticket) -> None:
        fill = {"t": ticket.name, "reason": self.say(self.words.open_reasons)}
        if self.rng.random() < 0.5:
            seq = self.operator(self.say(self.words.not_closed, **fill),
                                self.say(self.words.ack_not_closed), "not closed")
        else:
            seq = self.bee(self.say(self.words.bee_not_closed, **fill), "bee not closed")
        ticket.not_closed.append(seq)
        ticket.events.append((seq, OPEN))

    # -- tools ----------------------------------------------------------------------------

    def size(self, low: int, high: int, long_chance: float = 0.0) -> int:
        if self.rng.random() < long_chance:
            return self.rng.randint(10_000, 100_000)
        return self.rng.randint(low, high)

    def read(self, path: str) -> int:
        lines = out.source(self.out, self.project, path, self.size(1500, 8000, 0.2))
        return self.read_text(path, lines)

    def read_text(self, path: str, lines: list[str], label: str = "read") -> int:
        """A file read: Claude Code's Read (an absolute path, bare or in its JSON), or a
        shell's `cat` or `nl` (now and then by its absolute path)."""
        if self.s.flavor == "claude":
            shown = self.shown(path)
            question = (json.dumps({"file_path": shown}) if self.rng.random() < 0.5 else shown)
            return self.emit("tool", question, out.numbered(lines), label, tool="Read", ok=True,
                             files=(path,), minutes=(0.1, 1))
        named = f"{self.project.root}/{path}" if self.rng.random() < 0.3 else path
        if self.rng.random() < 0.5:
            return self.shell(f"cat {named}", "\n".join(lines), label, ok=True, files=(path,))
        return self.shell(f"nl -ba {named} | sed -n '1,{len(lines)}p'", out.numbered(lines),
                          label, ok=True, files=(path,))

    def edit(self, path: str) -> int:
        shown = self.shown(path)
        old, new, answer = out.edit_snippet(self.out, self.project, path, shown)
        if self.s.flavor == "claude":
            question = json.dumps({"file_path": shown, "old_string": old, "new_string": new},
                                  ensure_ascii=False)
            return self.emit("tool", question, answer, "edit", tool="Edit", ok=True,
                             files=(path,), minutes=(0.3, 2))
        patch = (f"*** Begin Patch\n*** Update File: {path}\n@@\n-    {old}\n+    {new}\n"
                 "*** End Patch")
        return self.emit("tool", patch, f"Success. Updated the following files:\nM {path}",
                         "edit", tool="apply_patch", ok=True, files=(path,), minutes=(0.3, 2))

    def write(self, path: str) -> int:
        """A file written whole: Claude Code's Write; Codex rewrites it with a patch."""
        if self.s.flavor != "claude":
            return self.edit(path)
        shown = self.shown(path)
        lines = out.source(self.out, self.project, path, self.size(600, 2500))
        question = json.dumps({"file_path": shown, "content": "\n".join(lines)},
                              ensure_ascii=False)
        answer = (f"The file {shown} has been updated. Here's the result of running `cat -n` "
                  f"on a snippet of the edited file:\n{out.numbered(lines[:10])}")
        return self.emit("tool", question, answer, "write", tool="Write", ok=True,
                         files=(path,), minutes=(0.5, 3))

    def grep(self, pattern: str, paths: list[str], extra: list[tuple[str, str]] | None = None,
             label: str = "grep") -> int:
        """A search naming `pattern`; no paths and no extra: it finds nothing (exit 1)."""
        hits = out.grep_hits(self.out, self.project, pattern, paths, extra)
        found = tuple(dict.fromkeys([*paths, *(path for path, _ in extra or [])]))
        if self.s.flavor == "claude" and self.rng.random() < 0.5 and hits:
            question = json.dumps({"pattern": pattern, "path": ".", "output_mode": "content",
                                   "-n": True})
            return self.emit("tool", question, hits, label, tool="Grep", ok=True, files=found,
                             minutes=(0.1, 1))
        command = (f"rg -n {pattern}" if self.s.flavor == "codex"
                   else f"grep -rn {pattern} {self.project.sources[0].split('/')[0]}/")
        seq = self.shell(command, hits, label, ok=bool(hits), files=found)
        if not hits:
            self.s.failed_reads.append(FailedRead(seq, command, None))
        return seq

    def listing(self) -> int:
        """A folder listed (`ls`, or the Glob tool): names files, reads none."""
        folder = self.rng.choice(self.project.sources).rsplit("/", 1)[0]
        inside = sorted({p.rsplit("/", 1)[-1] for p in self.project.sources
                         if p.startswith(folder + "/") and "/" not in p[len(folder) + 1:]})
        if self.s.flavor == "claude" and self.rng.random() < 0.5:
            pattern = f"{folder}/**/*.{inside[0].rsplit('.', 1)[-1]}"
            return self.emit("tool", json.dumps({"pattern": pattern}),
                             "\n".join(f"{self.project.root}/{folder}/{name}" for name in inside),
                             "glob", tool="Glob", ok=True, minutes=(0.1, 1))
        return self.shell(f"ls {folder}/", "\n".join(inside), "ls", ok=True)

    def git_log(self, mention: list[Ticket]) -> int:
        subjects = []
        history = list(self.project.history)
        self.rng.shuffle(history)
        old = next(t for t in self.s.tickets if not t.worked and not t.name.startswith("#"))
        pr = next(t for t in self.s.tickets if not t.worked and t.name.startswith("#"))
        for subject in history:
            subjects.append(subject.format(old=old.name, num=pr.name[1:]))
        for ticket in mention:
            what = self.rng.choice(("spike", "wip notes", "first try"))
            subjects.insert(self.rng.randint(0, len(subjects)), f"{ticket.name}: {what}")
        seq = self.shell("git log --oneline -n 20", out.git_log(self.out, self.project, subjects),
                         "git log", ok=True)
        for ticket in (old, pr, *mention):
            ticket.read_only.append(seq)
        return seq

    def run_test(self, command: str, target: TestTarget | None, *, ok: bool, kind: str,
                 size: int | None = None, label: str = "test") -> int:
        """A test run; its outcome is written down: a failure, or what it fixes."""
        failing = None
        if not ok and target is None:
            open_tests = [f for f in self.s.failures if f.kind == "test" and f.fixed_at is None]
            failing = next((t.name for t in self.project.tests
                            if open_tests and t.path == open_tests[-1].path), None)
        text = out.test_run(self.out, self.project, target, ok=ok,
                            size=size if size is not None else self.size(600, 4000, 0.15),
                            failing=failing)
        path = target.path if target else None
        files = (path,) if path else ()
        code = {"rust": 101}.get(self.project.eco, 1)
        seq = self.shell(command, text, label, ok=ok, code=code, files=files)
        if not ok:
            self.s.failures.append(Failure(seq, "test", command, kind, path))
            return seq
        for failure in self.s.failures:
            if failure.fixed_at is not None or failure.kind not in ("test", "suite"):
                continue
            if fold(failure.command) == fold(command):
                failure.fixed_at, failure.fixed_by = seq, "rerun"
            elif target is None:
                failure.fixed_at, failure.fixed_by = seq, "suite"
            elif path is not None and failure.path == path:
                failure.fixed_at, failure.fixed_by = seq, "path"
        return seq

    def run_command(self, command: str, kind: str, *, ok: bool, output: str) -> int:
        """A linter, a checker or a build: fixed by the same command succeeding, or by a
        wrapper that runs it (run_wrapper)."""
        seq = self.shell(command, output, kind, ok=ok, code=1)
        if not ok:
            self.s.failures.append(Failure(seq, "command", command, kind, None))
            return seq
        for failure in self.s.failures:
            if failure.fixed_at is None and failure.kind in ("lint", "build", "check") and \
                    fold(failure.command) == fold(command):
                failure.fixed_at, failure.fixed_by = seq, "rerun"
        return seq

    def run_wrapper(self, wrapper: Wrapper) -> int:
        """A wrapper's success fixes every open failure of a command it runs."""
        seq = self.shell(wrapper.command, out.wrapper_run(self.out, self.project, wrapper),
                         "wrapper", ok=True)
        runs = {fold(command) for command in wrapper.runs}
        for failure in self.s.failures:
            if failure.fixed_at is None and failure.kind in ("lint", "build", "check") and \
                    fold(failure.command) in runs:
                failure.fixed_at, failure.fixed_by = seq, wrapper.command
        return seq

    def spaced(self, command: str) -> str:
        """The same command, now and then typed with a double space."""
        if self.rng.random() < 0.25 and " " in command:
            head, tail = command.split(" ", 1)
            return f"{head}  {tail}"
        return command

    # -- scheduled events ---------------------------------------------------------------

    def plan(self) -> None:
        self.plan_rules()
        self.plan_decisions()
        self.plan_events()

    def plan_rules(self) -> None:
        words = self.words
        project = self.project
        fill = {"branch": project.branch, "lint": project.lint[0], "suite": project.suite[0],
                "docs": project.docs[0], "prefix": project.prefix}
        chosen = self.rng.sample(range(len(words.rules)), 7)
        pair = self.rng.randrange(len(words.replaced_rules))
        old_text, new_text = (text.format(**fill) for text in words.replaced_rules[pair])
        rules = [Rule(words.rules[i].format(**fill), topic=words.rule_topics[i].format(**fill)
                      if i in WITHDRAWABLE else "") for i in chosen]
        old = Rule(old_text)
        rules.insert(self.rng.randint(1, 4), old)
        self.s.rules = list(rules)
        spread = sorted(self.at(0.02, 0.55) for _ in rules)
        spread[0] = 2
        for rule, seq in zip(rules, spread, strict=True):
            self.schedule(seq, self.rule_event(rule))
        new = Rule(new_text, replaces=rules.index(old))
        self.s.rules.append(new)
        self.schedule(max(spread[rules.index(old)] + 10, self.at(0.45, 0.7)),
                      self.rule_event(new))
        # One rule is withdrawn, never the first: what the operator said first stays.
        withdrawn = self.rng.choice([r for r in rules[1:] if r is not old and r.topic])
        self.schedule(max(spread[rules.index(withdrawn)] + 12, self.at(0.45, 0.85)),
                      self.withdraw_event(withdrawn))
        nag = self.rng.choice([r for r in rules if r not in (old, withdrawn)])
        seq = spread[rules.index(nag)]
        while True:
            seq += self.rng.randint(8, 12)
            if seq > self.total:
                break
            self.schedule(seq, self.rule_event(nag))
        for rule in self.rng.sample([r for r in rules if r not in (old, nag)], 2):
            first = spread[rules.index(rule)]
            for _ in range(self.rng.randint(1, 2)):
                self.schedule(self.rng.randint(first + 5, max(first + 6, self.total)),
                              self.rule_event(rule))

    def plan_decisions(self) -> None:
        project = self.project
        # Decisions: every subject settled once; one reversed by the bee, one overruled by
        # the operator, one the bee asks the operator about, and one the bee settles alone
        # (and now and then reverses).
        roles = ["bee", "bee reversed", "overruled", "asked"]
        self.rng.shuffle(roles)
        for index, role in zip(range(len(project.choices)), roles, strict=False):
            first = self.at(0.06, 0.42)
            if role == "asked":
                self.schedule(first, self.ask_choice_event(index))
                continue
            self.schedule(first, self.decision_event(index, reverse=False))
            if role == "bee reversed" or (role == "bee" and self.rng.random() < 0.3):
                self.schedule(max(first + 15, self.at(0.5, 0.82)),
                              self.decision_event(index, reverse=True))
            elif role == "overruled":
                self.schedule(max(first + 15, self.at(0.45, 0.85)), self.overrule_event(index))

    def plan_events(self) -> None:
        project = self.project
        for _ in range(max(2, self.total // 35)):
            self.schedule(self.at(0.1, 1.0), self.request_event)
        for _ in range(max(1, self.total // 60)):
            self.schedule(self.at(0.1, 1.0), self.what_next_event)
            self.schedule(self.at(0.1, 1.0), self.status_event)
        broken = list(project.broken)
        self.schedule(self.at(0.15, 0.4), self.outside_event(broken[0]))
        self.schedule(self.at(0.45, 0.9), self.outside_event(broken[1]))
        self.schedule(self.at(0.6, 0.95), self.outside_event(broken[0]))
        for _ in range(max(2, self.total // 75)):
            self.schedule(self.at(0.05, 1.0), self.failed_read_event)
        self.schedule(self.at(0.03, 0.15), self.git_log_event(future=True))
        self.schedule(self.at(0.4, 0.9), self.git_log_event(future=False))
        # The operator's chatter, the orchestrator's nudges, the runtime's own turns.
        for _ in range(max(3, self.total // 10)):
            self.schedule(self.at(0.03, 1.0), self.chatter_event)
        for _ in range(max(2, self.total // 25)):
            self.schedule(self.at(0.03, 1.0), self.nudge_event)
        for _ in range(max(1, self.total // 100)):
            self.schedule(self.at(0.05, 1.0), self.runtime_turn_event)

    def rule_event(self, rule: Rule) -> Event:
        def event() -> None:
            again = bool(rule.given)
            seq = self.operator(rule.text, self.say(self.words.ack_repeat if again
                                                    else self.words.ack_rule),
                                "rule again" if again else "rule")
            rule.given.append(seq)
            if rule.replaces is not None and not again:
                self.s.rules[rule.replaces].replaced_at = seq
        def unless_withdrawn() -> None:
            if rule.withdrawn_at is None:  # a withdrawn rule is not said again
                event()
        return unless_withdrawn

    def withdraw_event(self, rule: Rule) -> Event:
        def event() -> None:
            text = self.say(self.words.withdraw, topic=rule.topic)
            text = text[0].upper() + text[1:] if self.rng.random() < 0.7 else text
            seq = self.operator(text, self.say(self.words.ack_withdraw), "withdraw")
            rule.withdrawn_at, rule.withdrawal = seq, text
        return event

    def decision_event(self, index: int, *, reverse: bool) -> Event:
        def event() -> None:
            choice = self.project.choices[index]
            subject = choice.subject[self.langue]
            if reverse:
                text = self.say(self.words.reverse, subject=subject, old=choice.first,
                                new=choice.second, why=choice.why_second[self.langue])
                made = Decision(index, choice.second, 0, choice.first)
            else:
                text = self.say(self.words.decide, subject=subject, choice=choice.first,
                                why=choice.why_first[self.langue])
                made = Decision(index, choice.first, 0)
            made.seq = self.bee(text[0].upper() + text[1:], "decision")
            self.s.decisions.append(made)
        return event

    def overrule_event(self, index: int) -> Event:
        """The operator reverses the bee's decision: the operator's choice is now current."""
        def event() -> None:
            made = [d for d in self.s.decisions if d.subject == index]
            if not made:
                return
            choice = self.project.choices[index]
            old = made[-1].choice
            new = choice.second if old == choice.first else choice.first
            fill = {"old": old, "new": new, "subject": choice.subject[self.langue]}
            said = self.say(self.words.operator_reverse, **fill)
            acks = self.words.ack_operator_reverse
            if old not in said and fill["subject"] not in said:
                # Nothing else in the text could tell which decision "no, OneSignal"
                # reverses: the bee's answer says what it undoes.
                acks = tuple(ack for ack in acks if "{old}" in ack)
            seq = self.operator(said, self.say(acks, **fill), "overrule")
            self.s.decisions.append(Decision(index, new, seq, old, by="operator"))
        return event

    def ask_choice_event(self, index: int) -> Event:
        """The bee asks which option; the operator settles it in a word ("MERGE it is.")."""
        def event() -> None:
            choice = self.project.choices[index]
            self.bee(self.say(self.words.ask_choice, a=choice.first, b=choice.second,
                              subject=choice.subject[self.langue],
                              why_a=choice.why_first[self.langue],
                              why_b=choice.why_second[self.langue]), "ask choice")
            picked = choice.first if self.rng.random() < 0.5 else choice.second

            def settle() -> None:
                seq = self.chat(self.say(self.words.settle, choice=picked),
                                self.say(self.words.ack_settle, choice=picked), "settle",
                                settles=index)
                self.s.decisions.append(Decision(index, picked, seq, by="operator"))
            self.follow(settle)
        return event

    def chatter_event(self) -> None:
        """The operator acknowledges, approves or nudges; now and then the bee offered
        something first and the operator says yes, and the bee does it."""
        if self.rng.random() < 0.25:
            src = self.rng.choice(self.project.sources)
            self.bee(self.say(self.words.propose, src=src), "offer")

            def yes() -> None:
                self.chat(self.say(self.words.approve), self.say(self.words.ack_chatter),
                          "approve")
                self.follow(lambda: self.bee_edit(src))
            self.follow(yes)
            return
        text = self.say(self.words.chatter, pr=str(self.rng.randint(500, 999)))
        if self.rng.random() < 0.35:
            self.with_step(self.say(self.words.ack_chatter), "chatter", ask=text, chatter=True)
        else:
            self.chat(text, self.say(self.words.ack_chatter), "chatter")

    def bee_edit(self, path: str) -> None:
        self.edit(path)

    def nudge_event(self) -> None:
        """The orchestrator's turn when the bee stopped: never the operator's words."""
        text = self.say(self.words.nudges)
        draw = self.rng.random()
        step, key, action = self.step()
        seq = self.emit("conversation" if draw < 0.6 else "task", text, step, "nudge",
                        sender=RUNTIME if draw < 0.8 else None, minutes=(1, 20))
        self.stated(seq, (key,), "bee", step, action)
        self.s.nudges.append(Nudge(seq, text))

    def runtime_turn_event(self) -> None:
        """A turn the runtime writes itself: Claude Code's local-command caveat (the operator
        ran /model or /cost), or Codex's environment context."""
        if self.s.flavor == "claude":
            seq = self.operator(out.local_command(self.out), "", "local command",
                                minutes=(0.2, 3))
        else:
            seq = self.emit("conversation", out.environment_context(self.project), "",
                            "environment", sender=RUNTIME, minutes=(0.2, 3))
        self.s.noise.append(seq)

    def request_event(self) -> None:
        words, key = self.action()
        seq = self.operator(self.say(self.words.request, action=words),
                            self.say(self.words.ack_request), "request")
        self.stated(seq, (key,), "operator", words, words)

    def what_next_event(self) -> None:
        self.with_step("", "what next", ask=self.say(self.words.what_next))

    def status_event(self) -> None:
        ticket = self.ticket or next((t for t in self.s.tickets if t.worked), None)
        if ticket is None:
            return
        finding = self.say(self.words.findings, symbol=self.rng.choice(self.project.symbols),
                           src=self.rng.choice(self.project.sources))
        ask = self.say(self.words.status, t=ticket.name)
        if self.rng.random() < 0.6:
            self.with_step(finding, "status", ask=ask)
        else:
            self.operator(ask, finding, "status")

    def outside_event(self, command: str) -> Event:
        def event() -> None:
            text, reason = out.broken_run(self.out, self.project, command)
            code = 255 if command.startswith("ssh") else 1
            seq = self.shell(command, text, "outside", ok=False, code=code)
            self.s.failures.append(Failure(seq, "command", command, "outside", None))
            self.follow(lambda: self.bee_plain(
                self.say(self.words.outside, cmd=command, reason=reason), "outside note"))
        return event

    def bee_plain(self, text: str, label: str) -> None:
        self.bee(text, label)

    def failed_read_event(self) -> None:
        if self.rng.random() < 0.5:
            self.grep(self.rng.choice(("legacy_station_id", "OLD_API_URL", "TODO(remove)",
                                       "unwrap_or_panic", "FIXME-2019")), [],
                      label="grep nothing")
            return
        missing = self.rng.choice(("src/legacy/station.py", "config/old.toml",
                                   "docs/ARCHITECTURE.md", "scripts/migrate_v1.sh"))
        if self.rng.random() < 0.7:
            command, code = f"cat {missing}", 1
            text = f"cat: {missing}: No such file or directory"
        else:
            missing = missing.rsplit("/", 1)[0] + "/"
            command, code = f"ls {missing}", 2
            text = f"ls: cannot access '{missing}': No such file or directory"
        seq = self.shell(command, text, "read missing", ok=False, code=code)
        self.s.failed_reads.append(FailedRead(seq, command, missing))

    def git_log_event(self, *, future: bool) -> Event:
        def event() -> None:
            later = [t for t in self.s.tickets if t.worked and not t.events]
            self.git_log(later[-2:] if future else [])
        return event

    # -- the work -----------------------------------------------------------------------

    def long_run(self) -> None:
        """The last exchange at a checkpoint: the whole suite's long log, its verdict last."""
        size = self.rng.randint(*self.long_size)
        open_tests = [f for f in self.s.failures if f.kind == "test" and f.fixed_at is None]
        seq = self.run_test(self.project.long_suite, None, ok=not open_tests, kind="suite",
                            size=size, label="long suite")
        self.s.long_outputs.append(LongOutput(seq, len(self.s.exchanges[-1].record["answer"]),
                                              True))

    def build(self) -> Session:
        self.make_tickets()
        self.plan()
        work = self.work()
        while len(self.s.exchanges) < self.total:
            if self.seq in self.long_at:
                self.long_run()
            elif self.queue and self.queue[0][0] <= self.seq:
                heapq.heappop(self.queue)[2]()
            else:
                next(work)
        for exchange in self.s.exchanges:
            answer = exchange.record["answer"]
            if len(answer) >= 10_000 and not any(o.seq == exchange.seq
                                                 for o in self.s.long_outputs):
                self.s.long_outputs.append(LongOutput(exchange.seq, len(answer), False))
        return self.s

    def work(self) -> Iterator[None]:
        """The tickets, one after the other, one parked for another now and then, a closed
        one reopened now and then; then upkeep. Yields after every exchange it writes."""
        backlog = [t for t in self.s.tickets if t.worked]
        parked: list[tuple[Ticket, Iterator[None]]] = []
        scripts: dict[str, Iterator[None]] = {}
        park_next = self.rng.random() < 0.8
        while True:
            closed = [t for t in self.s.tickets
                      if t.worked and t.closed_now and t not in self.reopened]
            if parked and (not backlog or self.rng.random() < 0.6):
                ticket, script = parked.pop()
                self.resume_ticket(ticket)
                yield
            elif closed and len(self.reopened) < 2 and (
                    self.rng.random() < 0.35 or (not self.reopened and len(closed) >= 2)):
                ticket = self.rng.choice(closed)
                self.reopen_ticket(ticket)
                script = scripts[ticket.name] = self.ticket_work(ticket, again=True)
                yield
            elif backlog:
                ticket = backlog.pop(0)
                self.open_ticket(ticket, "operator" if self.rng.random() < 0.6 else "bee")
                script = scripts.setdefault(ticket.name, self.ticket_work(ticket))
                yield
            else:
                yield from self.upkeep()
                continue
            park_after = self.rng.randint(8, 20) if park_next and backlog else None
            park_next = not park_next if park_after is None else self.rng.random() < 0.4
            finished = True
            for done, _ in enumerate(script, 1):
                yield
                if park_after is not None and done == park_after and backlog:
                    newer = backlog.pop(0)
                    self.open_ticket(newer, "operator" if self.rng.random() < 0.5 else "bee",
                                     parked=ticket)
                    parked.append((ticket, script))
                    yield
                    scripts[newer.name] = self.ticket_work(newer)
                    finished = False
                    # The newer ticket is worked on to its end before the parked one resumes.
                    yield from self.finish(newer, scripts[newer.name])
                    break
            if finished and not backlog and not parked:
                yield from self.upkeep()  # the last ticket stays in flight to the end
            elif finished:
                yield from self.close_out(ticket)

    def finish(self, ticket: Ticket, script: Iterator[None]) -> Iterator[None]:
        for _ in script:
            yield
        yield from self.close_out(ticket)

    def close_out(self, ticket: Ticket) -> Iterator[None]:
        if self.rng.random() < 0.5:
            self.not_closed(ticket)
            yield
            target = self.rng.choice(self.project.tests)
            self.edit(self.rng.choice(self.project.sources))
            yield
            self.run_test(target.command, target, ok=True, kind="test")
            yield
        self.close_ticket(ticket)
        yield

    def ticket_work(self, ticket: Ticket, again: bool = False) -> Iterator[None]:
        """A ticket's work; `again`, a reopened ticket's, shorter."""
        project = self.project
        if not again and self.rng.random() < 0.6:
            self.listing()
            yield
        for _ in range(self.rng.randint(1, 2) if again else self.rng.randint(2, 5)):
            self.read(self.rng.choice(project.sources + tuple(
                t.path for t in project.tests if t.path and "." in t.path.rsplit("/", 1)[-1])))
            yield
        if self.rng.random() < 0.7:
            symbol = self.rng.choice(project.symbols)
            paths = self.rng.sample(project.sources, 2)
            extra = []
            later = [t for t in self.s.tickets if t.worked and not t.events]
            if later and self.rng.random() < 0.6:
                mention = self.rng.choice(later)
                extra.append((self.rng.choice(project.sources),
                               f"    // TODO({mention.name}): {symbol} is not enough here"))
            seq = self.grep(symbol, paths, extra)
            for _, text in extra:
                for t in later:
                    if t.name in text:
                        t.read_only.append(seq)
            yield
        self.with_step(self.say(self.words.findings, symbol=self.rng.choice(project.symbols),
                                src=self.rng.choice(project.sources)), "finding",
                       (ticket.name,) if self.rng.random() < 0.3 else ())
        yield
        cycles = (self.rng.randint(1, 2) if again else
                  self.rng.randint(max(1, self.total // 75), max(2, self.total // 50)))
        for _ in range(cycles):
            yield from self.fix_cycle()
        if self.rng.random() < 0.5:
            yield from self.lint_cycle()
        if not again and (self.wrapped == 0 or self.rng.random() < 0.45):
            yield from self.wrapper_cycle()
        if self.rng.random() < 0.3:
            yield from self.build_cycle()
        if self.rng.random() < 0.25:
            self.write(self.rng.choice(project.docs))
            yield
        if self.pending_wrapper is not None:
            wrapper, self.pending_wrapper = self.pending_wrapper, None
            yield from self.wrapper_passes(wrapper)
        path = self.rng.choice(project.sources)
        self.shell(f"git diff {path}", out.git_diff(self.out, project, path), "git diff",
                   ok=True, files=(path,))
        yield
        message = f"{ticket.name}: {self.title_en(ticket)}"
        self.shell(f"git commit -am \"{message}\"",
                   out.commit_output(self.out, self.branch, message, self.rng.randint(1, 4)),
                   "git commit", ok=True)
        yield
        branch = f"fix/{ticket.name.replace('#', '').replace(' ', '-').lower()}"
        self.shell(f"git push -u origin {branch}", out.push_output(self.out, branch), "git push",
                   ok=True)
        yield

    def title_en(self, ticket: Ticket) -> str:
        return self.project.titles["en"][ticket.title]

    def fix_cycle(self) -> Iterator[None]:
        project = self.project
        target = self.rng.choice(project.tests)
        if target.path and self.rng.random() < 0.5:
            self.edit(target.path)
            yield
        # A long failing run: many passing tests, the failing one named in the tail. Its
        # command never names the test, so only the output can.
        long = self.rng.random() < (0.6 if len(self.s.failed_runs) < 3 else 0.25)
        narrow = not long and target.narrow is not None and self.rng.random() < 0.5
        command = target.narrow if narrow and target.narrow else target.command
        seq = self.run_test(command, target, ok=False, kind="test",
                            size=self.rng.randint(8_000, 30_000) if long else None,
                            label="long failing test" if long else "test")
        failure = self.s.failures[-1]
        assert failure.seq == seq
        if long:
            self.s.failed_runs.append(FailedRun(seq, target.name, command))
        yield
        self.with_step(self.say(self.words.reproduced, name=target.name), "reproduced")
        yield
        src = self.rng.choice(project.sources)
        self.edit(src)
        yield
        if self.rng.random() < 0.4:
            self.read(self.rng.choice(project.sources))
            yield
        if self.rng.random() < 0.3:
            # A read neither fixes nor opens anything.
            self.shell(f"git diff {src}", out.git_diff(self.out, project, src), "git diff",
                       ok=True, files=(src,))
            yield
        if narrow:
            plan = "path"
        elif self.rng.random() < 0.4:
            plan = "suite"  # fixes every test failure still open
        elif self.rng.random() < 0.15:
            plan = "later"  # left open: a later whole-suite success fixes it
        else:
            plan = "rerun"
        if plan == "path":
            self.run_test(target.command, target, ok=True, kind="test")
        elif plan == "suite":
            self.run_test(self.spaced(self.rng.choice(project.suite)), None, ok=True,
                          kind="suite")
        elif plan == "rerun":
            self.run_test(self.spaced(command), target, ok=True, kind="test")
        else:
            self.with_step(self.say(self.words.findings,
                                    symbol=self.rng.choice(project.symbols),
                                    src=self.rng.choice(project.sources)), "finding")
        yield
        if self.rng.random() < 0.5:
            self.bee(self.say(self.words.green), "green")
            yield

    def lint_cycle(self) -> Iterator[None]:
        command = self.rng.choice(self.project.lint)
        self.run_command(command, "lint", ok=False,
                         output=out.lint_run(self.out, self.project, command, ok=False))
        yield
        self.edit(self.rng.choice(self.project.sources))
        yield
        self.run_command(self.spaced(command), "lint", ok=True,
                         output=out.lint_run(self.out, self.project, command, ok=True))
        yield

    def build_cycle(self) -> Iterator[None]:
        command = self.project.build[0]
        self.run_command(command, "build", ok=False,
                         output=out.build_run(self.out, self.project, command, ok=False,
                                              size=self.size(800, 3000, 0.3)))
        yield
        self.edit(self.rng.choice(self.project.sources))
        yield
        self.run_command(command, "build", ok=True,
                         output=out.build_run(self.out, self.project, command, ok=True,
                                              size=self.size(800, 3000, 0.3)))
        yield

    def wrapper_cycle(self) -> Iterator[None]:
        """A checker fails; later a wrapper that runs it (make lint, a smoke script, an npm
        script) passes. The build file says the link when the bee reads it; the ground truth
        is the project's, not the text's."""
        wrapper = self.project.wrappers[self.wrapped % len(self.project.wrappers)]
        self.wrapped += 1
        inner = self.rng.choice(wrapper.runs)
        kind = "lint" if inner in self.project.lint else "check"
        self.run_command(inner, kind, ok=False,
                         output=out.check_run(self.out, self.project, inner, ok=False))
        yield
        self.edit(self.rng.choice(self.project.sources))
        yield
        if self.rng.random() < 0.7:
            self.read_text(wrapper.file, wrapper.text.rstrip("\n").split("\n"), "build file")
            yield
        if self.rng.random() < 0.3 and self.pending_wrapper is None:
            self.pending_wrapper = wrapper  # run once the ticket's work is done
            return
        if self.rng.random() < 0.4:
            self.read(self.rng.choice(self.project.sources))
            yield
        yield from self.wrapper_passes(wrapper)

    def wrapper_passes(self, wrapper: Wrapper) -> Iterator[None]:
        self.run_wrapper(wrapper)
        yield
        if self.rng.random() < 0.4:
            self.bee(self.say(self.words.wrapper_note, cmd=wrapper.command), "wrapper note")
            yield

    def upkeep(self) -> Iterator[None]:
        """Once the backlog is empty: docs, reads, the suite, next steps."""
        project = self.project
        while True:
            choice = self.rng.random()
            if choice < 0.3:
                self.read(self.rng.choice(project.sources + project.docs))
            elif choice < 0.4:
                self.edit(self.rng.choice(project.docs))
            elif choice < 0.5:
                self.write(self.rng.choice(project.docs))
            elif choice < 0.65:
                self.run_test(self.rng.choice(project.suite), None,
                              ok=self.rng.random() < 0.8, kind="suite")
            elif choice < 0.8:
                yield from self.fix_cycle()
                continue
            elif choice < 0.86:
                yield from self.wrapper_cycle()
                if self.pending_wrapper is not None:
                    wrapper, self.pending_wrapper = self.pending_wrapper, None
                    yield from self.wrapper_passes(wrapper)
                continue
            else:
                self.with_step(self.say(self.words.findings,
                                        symbol=self.rng.choice(project.symbols),
                                        src=self.rng.choice(project.sources)), "upkeep")
            yield


def names_ticket_pattern(alias: str) -> re.Pattern[str]:
    """A ticket's alias as a whole word: WX-230 is not WX-2301, #4412 is not #44120."""
    return re.compile(rf"(?<![\w#-]){re.escape(alias)}(?![\w-])", re.IGNORECASE)
