"""A family of generated coding sessions for the eval (bench/memory.py), and what each one
knows about itself.

A seed picks a project (eval_projects.py), a runtime's style (Claude Code's tools Bash,
Read, Edit, Grep, Glob; or Codex's shell and apply_patch), whether the runtime writes `ok`
and `files` (odd seeds do), and draws the story: the operator gives rules (one repeated
every ten exchanges or so, one replaced later by a rule that says so), hands tickets,
parks them, asks what is next; the bee reads, greps, edits, runs tests that fail and are
fixed by a rerun, by a run of the same path or by the whole suite, meets commands that fail
for reasons outside the code and are never fixed, settles choices and reverses one, states
its next steps, and closes tickets (or says they are not closed yet). The same seed tells
the same story in French and in English: the story draws from one random generator, the
words from another (eval_phrasings.py), the tools' outputs from a third (eval_outputs.py).

The ground truth is written down as the story is told, in structured records (never read
back from the text): every rule with the seqs it was given at and what replaced it, every
ticket's openings, closing, negated closings and read-only mentions, every failure with what
failed and the exchange that fixed it, every failed read, every decision, every next step
with the words that name it, every exchange's files, and the long outputs.
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
from eval_projects import Project, TestTarget, project_for

OPERATOR = "apicultrice"
RUNTIME = "reine"  # the runtime's scheduler: its prompts are not the operator's
ZONE = timezone(timedelta(hours=1))
DAY_START, DAY_END = 8.75, 19.0  # local hours the bee works between
CHECKPOINTS = 5
LONG_OUTPUT = (90_000, 100_000)  # the last exchange at some checkpoints, in characters
SMALL_NET_OUTPUT = (28_000, 30_000)  # the same in the budget_net = 3000 variant


def fold(text: str) -> str:
    """Whitespace folded: how a command is compared."""
    return " ".join(text.split())


# -- the ground truth --------------------------------------------------------------------

@dataclass(frozen=True)
class Exchange:
    seq: int
    instant: float
    record: dict[str, Any]  # the journal line
    files: tuple[str, ...]  # paths it read or changed (whether or not the line says so)
    label: str  # what the generator meant by it


@dataclass
class Rule:
    text: str
    given: list[int] = field(default_factory=list)
    replaces: int | None = None  # index of the rule this one replaces
    replaced_at: int | None = None  # seq the replacing rule was first given at


@dataclass
class Ticket:
    name: str  # as people write it: WX-230, #4412, issue 4057
    aliases: tuple[str, ...]  # how a view may write it
    title: int  # index into the project's titles
    openings: list[int] = field(default_factory=list)  # assigned, started, resumed
    closed: int | None = None
    not_closed: list[int] = field(default_factory=list)  # negated closings
    parked: list[int] = field(default_factory=list)
    read_only: list[int] = field(default_factory=list)  # named in a git log or grep output
    worked: bool = True  # False: only ever named in tools' outputs


@dataclass
class Failure:
    seq: int
    tool: str
    command: str  # as run
    kind: str  # test, suite, lint, build, outside
    path: str | None  # the test path it covers, when it has one
    fixed_at: int | None = None
    fixed_by: str | None = None  # rerun, path, suite


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


@dataclass
class NextStep:
    seq: int
    keys: tuple[str, ...]  # any of them names it: a path, a symbol, a ticket
    by: str  # bee or operator
    text: str


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
                "tickets_closed": sum(t.closed is not None for t in self.tickets),
                "failures": len(self.failures),
                "failures_never_fixed": sum(f.fixed_at is None for f in self.failures),
                "failed_reads": len(self.failed_reads), "decisions": len(self.decisions),
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

    # -- helpers --------------------------------------------------------------------------

    def say(self, pool: tuple[str, ...], **fill: str) -> str:
        return self.say_rng.choice(pool).format(**fill)

    def at(self, low: float, high: float) -> int:
        """A seq between these fractions of the session."""
        return max(2, round(self.total * self.rng.uniform(low, high)))

    def schedule(self, seq: int, event: Event) -> None:
        self.order += 1
        heapq.heappush(self.queue, (seq, self.order, event))

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
        self.advance(minutes)
        seq = self.seq
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
            record["files"] = list(files)
        self.s.exchanges.append(Exchange(seq, self.clock, record, files, label))
        return seq

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

    def operator(self, question: str, answer: str, label: str) -> int:
        sender = OPERATOR if self.rng.random() < 0.7 else None
        return self.emit("conversation", question, answer, label, sender=sender,
                         minutes=(2, 25))

    def bee(self, answer: str, label: str) -> int:
        prompt = self.rng.choice(range(len(self.words.runtime_prompts)))
        sender = RUNTIME if self.rng.random() < 0.6 else None
        return self.emit("task", self.words.runtime_prompts[prompt], answer, label, sender=sender,
                         minutes=(0.3, 3))

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

    def step(self) -> tuple[str, str]:
        words, key = self.action()
        return self.say(self.words.step, action=words), key

    def stated(self, seq: int, keys: tuple[str, ...], by: str, text: str) -> None:
        self.s.steps.append(NextStep(seq, keys, by, text))

    def with_step(self, text: str, label: str, extra_keys: tuple[str, ...] = (),
                  ask: str | None = None) -> int:
        """A bee's message (or its answer to `ask`) ending with, or opening on, its next step."""
        step, key = self.step()
        answer = f"{text} {step}" if self.rng.random() < 0.8 else f"{step} {text}"
        if ask is None:
            seq = self.bee(answer.strip(), label)
        else:
            seq = self.operator(ask, answer.strip(), label)
        self.stated(seq, (key, *extra_keys), "bee", step)
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
        elif parked is not None:
            text = self.say(self.words.bee_park, **fill | {
                "t": parked.name, "u": ticket.name,
                "reason": self.say(self.words.block_reasons)})
            seq = self.with_step(text, "bee park+start", (ticket.name,))
            parked.parked.append(seq)
        elif how == "operator":
            ask = self.say(self.words.assign, **fill)
            seq = self.with_step(self.say(self.words.ack_request), "assign", (ticket.name,),
                                 ask=ask)
        else:
            seq = self.with_step(self.say(self.words.start, **fill), "bee start", (ticket.name,))
        ticket.openings.append(seq)
        self.ticket = ticket

    def resume_ticket(self, ticket: Ticket) -> None:
        if self.rng.random() < 0.5:
            ask = self.say(self.words.resume, t=ticket.name)
            seq = self.with_step(self.say(self.words.ack_request), "resume", (ticket.name,),
                                 ask=ask)
        else:
            seq = self.with_step(self.say(self.words.bee_resume, t=ticket.name), "bee resume",
                                 (ticket.name,))
        ticket.openings.append(seq)
        self.ticket = ticket

    def close_ticket(self, ticket: Ticket) -> None:
        self.version += 1
        fill = {"t": ticket.name, "branch": self.branch, "version": f"v0.{4 + self.version}.0"}
        if self.rng.random() < 0.5:
            seq = self.operator(self.say(self.words.close, **fill),
                                self.say(self.words.ack_close), "close")
        else:
            seq = self.bee(self.say(self.words.bee_close, **fill), "bee close")
        ticket.closed = seq
        self.ticket = None

    def not_closed(self, ticket: Ticket) -> None:
        fill = {"t": ticket.name, "reason": self.say(self.words.open_reasons)}
        if self.rng.random() < 0.5:
            seq = self.operator(self.say(self.words.not_closed, **fill),
                                self.say(self.words.ack_not_closed), "not closed")
        else:
            seq = self.bee(self.say(self.words.bee_not_closed, **fill), "bee not closed")
        ticket.not_closed.append(seq)

    # -- tools ----------------------------------------------------------------------------

    def size(self, low: int, high: int, long_chance: float = 0.0) -> int:
        if self.rng.random() < long_chance:
            return self.rng.randint(10_000, 100_000)
        return self.rng.randint(low, high)

    def read(self, path: str) -> int:
        lines = out.source(self.out, self.project, path, self.size(1500, 8000, 0.2))
        if self.s.flavor == "claude":
            return self.emit("tool", path, out.numbered(lines), "read", tool="Read", ok=True,
                             files=(path,), minutes=(0.1, 1))
        if self.rng.random() < 0.5:
            return self.shell(f"cat {path}", "\n".join(lines), "read", ok=True, files=(path,))
        return self.shell(f"nl -ba {path} | sed -n '1,{len(lines)}p'", out.numbered(lines),
                          "read", ok=True, files=(path,))

    def edit(self, path: str) -> int:
        old, new, answer = out.edit_snippet(self.out, self.project, path)
        if self.s.flavor == "claude":
            question = json.dumps({"file_path": path, "old_string": old, "new_string": new},
                                  ensure_ascii=False)
            return self.emit("tool", question, answer, "edit", tool="Edit", ok=True,
                             files=(path,), minutes=(0.3, 2))
        patch = (f"*** Begin Patch\n*** Update File: {path}\n@@\n-    {old}\n+    {new}\n"
                 "*** End Patch")
        return self.emit("tool", patch, f"Success. Updated the following files:\nM {path}",
                         "edit", tool="apply_patch", ok=True, files=(path,), minutes=(0.3, 2))

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
        """A linter or a build: fixed only by the same command succeeding."""
        seq = self.shell(command, output, kind, ok=ok, code=1)
        if not ok:
            self.s.failures.append(Failure(seq, "command", command, kind, None))
            return seq
        for failure in self.s.failures:
            if failure.fixed_at is None and failure.kind in ("lint", "build") and \
                    fold(failure.command) == fold(command):
                failure.fixed_at, failure.fixed_by = seq, "rerun"
        return seq

    def spaced(self, command: str) -> str:
        """The same command, now and then typed with a double space."""
        if self.rng.random() < 0.25 and " " in command:
            head, tail = command.split(" ", 1)
            return f"{head}  {tail}"
        return command

    # -- scheduled events ---------------------------------------------------------------

    def plan(self) -> None:
        words = self.words
        project = self.project
        fill = {"branch": project.branch, "lint": project.lint[0], "suite": project.suite[0],
                "docs": project.docs[0], "prefix": project.prefix}
        chosen = self.rng.sample(range(len(words.rules)), 7)
        pair = self.rng.randrange(len(words.replaced_rules))
        old_text, new_text = (text.format(**fill) for text in words.replaced_rules[pair])
        rules = [Rule(words.rules[i].format(**fill)) for i in chosen]
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
        nag = self.rng.choice([r for r in rules if r is not old])
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
        # Decisions: every subject settled once, the first (and sometimes another) reversed.
        reversed_ = {0} | ({self.rng.randint(1, 2)} if self.rng.random() < 0.5 else set())
        for index in range(len(project.choices)):
            first = self.at(0.06, 0.42)
            self.schedule(first, self.decision_event(index, reverse=False))
            if index in reversed_:
                self.schedule(max(first + 15, self.at(0.5, 0.82)),
                              self.decision_event(index, reverse=True))
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

    def rule_event(self, rule: Rule) -> Event:
        def event() -> None:
            again = bool(rule.given)
            seq = self.operator(rule.text, self.say(self.words.ack_repeat if again
                                                    else self.words.ack_rule),
                                "rule again" if again else "rule")
            rule.given.append(seq)
            if rule.replaces is not None and not again:
                self.s.rules[rule.replaces].replaced_at = seq
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

    def request_event(self) -> None:
        words, key = self.action()
        seq = self.operator(self.say(self.words.request, action=words),
                            self.say(self.words.ack_request), "request")
        self.stated(seq, (key,), "operator", words)

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
            self.schedule(self.seq, lambda: self.bee_plain(
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
            later = [t for t in self.s.tickets if t.worked and not t.openings]
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
        """The tickets, one after the other, one parked for another now and then; then
        upkeep. Yields after every exchange it writes."""
        backlog = [t for t in self.s.tickets if t.worked]
        parked: list[tuple[Ticket, Iterator[None]]] = []
        scripts: dict[str, Iterator[None]] = {}
        park_next = self.rng.random() < 0.8
        while True:
            if parked and (not backlog or self.rng.random() < 0.6):
                ticket, script = parked.pop()
                self.resume_ticket(ticket)
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

    def ticket_work(self, ticket: Ticket) -> Iterator[None]:
        project = self.project
        if self.rng.random() < 0.6:
            self.listing()
            yield
        for _ in range(self.rng.randint(2, 5)):
            self.read(self.rng.choice(project.sources + tuple(
                t.path for t in project.tests if t.path and "." in t.path.rsplit("/", 1)[-1])))
            yield
        if self.rng.random() < 0.7:
            symbol = self.rng.choice(project.symbols)
            paths = self.rng.sample(project.sources, 2)
            extra = []
            later = [t for t in self.s.tickets if t.worked and not t.openings]
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
        for _ in range(self.rng.randint(max(1, self.total // 75), max(2, self.total // 50))):
            yield from self.fix_cycle()
        if self.rng.random() < 0.5:
            yield from self.lint_cycle()
        if self.rng.random() < 0.3:
            yield from self.build_cycle()
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
        narrow = target.narrow is not None and self.rng.random() < 0.5
        command = target.narrow if narrow and target.narrow else target.command
        seq = self.run_test(command, target, ok=False, kind="test")
        failure = self.s.failures[-1]
        assert failure.seq == seq
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

    def upkeep(self) -> Iterator[None]:
        """Once the backlog is empty: docs, reads, the suite, next steps."""
        project = self.project
        while True:
            choice = self.rng.random()
            if choice < 0.3:
                self.read(self.rng.choice(project.sources + project.docs))
            elif choice < 0.5:
                self.edit(self.rng.choice(project.docs))
            elif choice < 0.65:
                self.run_test(self.rng.choice(project.suite), None,
                              ok=self.rng.random() < 0.8, kind="suite")
            elif choice < 0.8:
                yield from self.fix_cycle()
                continue
            else:
                self.with_step(self.say(self.words.findings,
                                        symbol=self.rng.choice(project.symbols),
                                        src=self.rng.choice(project.sources)), "upkeep")
            yield


def names_ticket_pattern(alias: str) -> re.Pattern[str]:
    """A ticket's alias as a whole word: WX-230 is not WX-2301, #4412 is not #44120."""
    return re.compile(rf"(?<![\w#-]){re.escape(alias)}(?![\w-])", re.IGNORECASE)
