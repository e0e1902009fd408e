"""The deterministic récit's rules (pure, ADR 0008): what an exchange says (`signals_of`),
what the folded exchanges leave in the records (`learn_all`), and the free sections
written from the records (`sections_of`).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable
from typing import TypeVar

from horizon.core.blocks import Item, Signals
from horizon.core.labels import DECISIONS, ERRORS, FILES, NEXT, WORK, Labels
from horizon.core.outcomes import (
    TAIL_CHARS,
    command_key,
    covers,
    failed_tests,
    failure_of,
    is_shell,
    reads_only,
    tail_lines,
    test_run,
)
from horizon.core.recit import Line
from horizon.core.records import (
    DECISIONS_KEPT,
    FAILURES_KEPT,
    FILES_KEPT,
    RECORD_SPAN,
    TICKETS_KEPT,
    Decision,
    Facts,
    Failure,
    Stated,
    Ticket,
)
from horizon.core.statements import (
    CLOSES,
    MENTIONS,
    OPENS,
    decisions_stated,
    dropped_words,
    is_filler,
    is_request,
    same_subject,
    stated_step,
    subject_words,
    ticket_names,
    ticket_states,
)
from horizon.core.text import cut, flatten, named_paths

CONVERSATION, TASK, TOOL = "conversation", "task", "tool"
HEAD_CHARS = 1200  # of an answer, where the bee's words and a file tool's error are
SEPARATOR = "\n[…]\n"
QUESTION_CHARS = 2000  # of a question, what the rules read
SCANNED_CHARS = 400  # of a question and of the bee's answer, where files are named
PATHS_PER_ENTRY = 12
FILES_PER_ENTRY = 32  # of the runtime's `files`, the ones used
FILE_CHARS = 200
ERROR_LINE_CHARS = 160
DEFAULT_ASKER = "apicultrice"
# A path without a folder is a file name only with an extension files have.
_FILE_EXTENSIONS = frozenset({
    "py", "pyi", "rs", "go", "js", "jsx", "ts", "tsx", "mjs", "cjs", "java", "kt", "c",
    "h", "cc", "cpp", "hpp", "cs", "rb", "php", "swift", "scala", "sh", "bash", "zsh",
    "ps1", "md", "rst", "txt", "toml", "yaml", "yml", "json", "jsonl", "ini", "cfg",
    "conf", "env", "lock", "sql", "csv", "xml", "html", "htm", "css", "scss", "vue",
    "svelte", "proto", "graphql", "tf", "ipynb", "dockerfile", "makefile", "mk", "gradle",
})


def ends(answer: str) -> str:
    """The parts of an answer the rules read: its head and its tail. Reading is always
    through this, so a pass that keeps only these (`Deferred`) reads the same."""
    if len(answer) <= HEAD_CHARS + len(SEPARATOR) + TAIL_CHARS:
        return answer
    return answer[:HEAD_CHARS] + SEPARATOR + answer[-TAIL_CHARS:]


def is_call(item: Item) -> bool:
    return item.tool is not None or item.type == TOOL


def files_of(item: Item, answer: str) -> tuple[str, ...]:
    """The files an exchange read or changed: the runtime's `files` when it gave them,
    else the paths named at the head of its question (a command, a file tool's target)
    and of the bee's own answer (a tool's output names what it met)."""
    if item.files is not None:
        cleaned = (cut(flatten(path), FILE_CHARS) for path in item.files[:FILES_PER_ENTRY])
        return tuple(dict.fromkeys(path for path in cleaned if path))
    head = item.question[:SCANNED_CHARS]
    if not is_call(item):
        head += "\n" + answer[:SCANNED_CHARS]
    return tuple(path for path in named_paths(head)
                 if "/" in path or path.rpartition(".")[2].lower() in _FILE_EXTENSIONS
                 )[:PATHS_PER_ENTRY]


def signals_of(item: Item) -> Signals:
    """What the rules read in an exchange, from its question and its answer's ends."""
    answer = ends(item.answer)
    question = item.question[:QUESTION_CHARS]
    paths = files_of(item, answer)
    if is_call(item):
        return _call_signals(item, question, answer, paths)
    tickets = [*ticket_states(question), *ticket_states(answer)]
    step = stated_step(answer)
    asker = None
    request = item.lighthouse and item.type == CONVERSATION and is_request(question)
    if step is None and request:
        step, asker = flatten(question), item.sender or DEFAULT_ASKER
    task = None
    if (item.type == TASK or request) and not is_filler(question) and not ticket_names(question):
        task = flatten(question)
    return Signals(paths, tickets=_latest(tickets), step=step, step_asker=asker,
                   decisions=tuple(decisions_stated(answer)), task=task)


def _call_signals(item: Item, question: str, answer: str, paths: tuple[str, ...]) -> Signals:
    """A tool call: what ran, whether it failed. A call that only reads names its files
    and nothing else (a `grep` that finds nothing exits 1, a `git log` names tickets)."""
    command = flatten(question)
    if reads_only(item.tool, command):
        return Signals(paths)
    shell = is_shell(item.tool)
    run = test_run(command) if shell else None
    if item.ok is not None:
        failure = None if item.ok else (failure_of(answer, shell) or _last_line(answer))
    else:
        failure = failure_of(answer, shell)
    # A command names its tickets at work; its words may close them (a commit message).
    tickets = [(name, MENTIONS if state == OPENS else state, sentence)
               for name, state, sentence in ticket_states(question)]
    return Signals(
        paths, command_key(item.tool, question, paths),
        tests=None if run is None else run.paths,
        whole_suite=run is not None and run.whole_suite, failure=failure,
        failed_tests=failed_tests(answer) if failure is not None and run is not None else (),
        tickets=_latest(tickets))


def _last_line(answer: str) -> str:
    lines = tail_lines(answer[-TAIL_CHARS:])
    return lines[-1] if lines else "ok: false"


def _latest(states: list[tuple[str, int, str]]) -> tuple[tuple[str, int, str], ...]:
    """Each ticket's last statement in the exchange (the answer comes after the question)."""
    latest: dict[str, tuple[str, int, str]] = {}
    for state in states:
        latest.pop(state[0], None)
        latest[state[0]] = state
    return tuple(latest.values())


# -- the records --------------------------------------------------------------------------------

class _Learning:
    """The records being learnt, one folded entry at a time."""

    def __init__(self, facts: Facts) -> None:
        self.newest = facts.newest
        self.files = dict(facts.files)
        self.failures = dict(facts.failures)
        self.tests = dict(facts.tests)
        self.tickets = dict(facts.tickets)
        self.decisions = list(facts.decisions)
        self.task = facts.task
        self.step = facts.step

    def learn(self, item: Item, signals: Signals) -> None:
        seq = item.seq
        self.newest = max(self.newest, seq)
        for path in signals.paths:
            if self.files.get(path, 0) < seq:
                self.files[path] = seq
                _keep_newest(self.files, FILES_KEPT, lambda seen: seen)
        if signals.command is not None:
            self._ran(seq, signals)
        for name, state, sentence in signals.tickets:
            self._ticket(seq, name, state, sentence)
        for text, about in signals.decisions:
            self.decisions.append(Decision(seq, text, subject_words(about),
                                           dropped_words(about)))
            if len(self.decisions) > DECISIONS_KEPT:
                self.decisions.remove(min(self.decisions,
                                          key=lambda decision: (decision.seq, decision.text)))
        if signals.task is not None and (self.task is None or self.task.seq < seq):
            self.task = Stated(seq, signals.task)
        if signals.step is not None and (self.step is None or self.step.seq < seq):
            self.step = Stated(seq, signals.step, signals.step_asker)

    def _ran(self, seq: int, signals: Signals) -> None:
        """A call that did more than read: a failure opens, a success resolves the older
        failures of the same command, of the test paths it covers, or of every test."""
        command = signals.command
        assert command is not None
        if signals.failure is not None:
            failed = Failure(seq, command, signals.failure, signals.tests is not None)
            paths = signals.failed_tests or signals.tests or ()
            for path in paths:
                if path not in self.tests or self.tests[path].seq < seq:
                    self.tests[path] = failed
                    _keep_newest(self.tests, FAILURES_KEPT, _SEQ_OF)
            if not paths and (command not in self.failures or self.failures[command].seq < seq):
                self.failures[command] = failed
                _keep_newest(self.failures, FAILURES_KEPT, _SEQ_OF)
            return
        older = self.failures.get(command)
        if older is not None and older.seq < seq:
            del self.failures[command]
        if signals.tests is None:
            return
        for key, failure in list(self.failures.items()):
            if signals.whole_suite and failure.test and failure.seq < seq:
                del self.failures[key]
        for path, failure in list(self.tests.items()):
            if failure.seq < seq and (signals.whole_suite or failure.command == command
                                      or any(covers(ran, path) for ran in signals.tests)):
                del self.tests[path]

    def _ticket(self, seq: int, name: str, state: int, sentence: str) -> None:
        ticket = self.tickets.get(name) or Ticket(0, 0, 0, "")
        opened, closed, said = ticket.opened, ticket.closed, ticket.said
        if state == OPENS and opened < seq:
            opened, said = seq, sentence
        elif state == CLOSES:
            closed = max(closed, seq)
        self.tickets[name] = Ticket(opened, closed, max(ticket.worked, seq), said)
        _keep_newest(self.tickets, TICKETS_KEPT, lambda kept: kept.newest)

    def done(self, newest: int) -> Facts:
        """The records, those of entries more than RECORD_SPAN seqs older than `newest`
        (the newest seq folded, maybe by entries not learnt) let go."""
        newest = max(newest, self.newest)
        cutoff = newest - RECORD_SPAN
        tickets = {}
        for name, ticket in self.tickets.items():
            opened, closed, worked = (seq if seq > cutoff else 0 for seq in (
                ticket.opened, ticket.closed, ticket.worked))
            kept = Ticket(opened, closed, worked, ticket.said if opened else "")
            if kept.newest:
                tickets[name] = kept
        return Facts(
            newest,
            {path: seq for path, seq in self.files.items() if seq > cutoff},
            {key: failure for key, failure in self.failures.items() if failure.seq > cutoff},
            {key: failure for key, failure in self.tests.items() if failure.seq > cutoff},
            tickets,
            tuple(sorted((decision for decision in self.decisions if decision.seq > cutoff),
                         key=lambda decision: (decision.seq, decision.text))),
            self.task if self.task is not None and self.task.seq > cutoff else None,
            self.step if self.step is not None and self.step.seq > cutoff else None)


_SEQ_OF: Callable[[Failure], int] = operator.attrgetter("seq")
_Record = TypeVar("_Record")


def _keep_newest(records: dict[str, _Record], cap: int,
                 newest_of: Callable[[_Record], int]) -> None:
    """Over its cap, a kind of record lets its oldest go (one at a time, as they come, so
    that the batches do not matter)."""
    if len(records) > cap:
        del records[min(records, key=lambda key: (newest_of(records[key]), key))]


def learn_all(facts: Facts, batch: Iterable[Item], newest: int = 0) -> Facts:
    """The records after `batch` is folded, in order (`newest`: a newer seq folded whose
    entry is not learnt: a pass that let it go as out of the span)."""
    learning = _Learning(facts)
    for item in batch:
        if item.signals is None:
            item.signals = signals_of(item)
        learning.learn(item, item.signals)
    return learning.done(newest)


# -- the sections ------------------------------------------------------------------------------

def sections_of(facts: Facts, labels: Labels, ligne_max: int) -> dict[str, tuple[Line, ...]]:
    """The free sections, each newest first: what the view shows of them is chosen when it
    renders."""
    colon = labels.colon
    sections = {
        DECISIONS: _newest_first(
            (decision.seq, cut(f"#{decision.seq} {decision.text}", ligne_max))
            for decision in current_decisions(facts.decisions)),
        FILES: _newest_first((seq, cut(f"{path} (#{seq})", ligne_max))
                             for path, seq in _files(facts.files).items()),
        ERRORS: _newest_first(_errors(facts, colon, min(ligne_max, ERROR_LINE_CHARS))),
        WORK: _newest_first(_work(facts, ligne_max)),
        NEXT: (Line(facts.step.seq, cut(_step(facts.step, colon), ligne_max)),)
        if facts.step is not None else (),
    }
    return {name: lines for name, lines in sections.items() if lines}


def _newest_first(lines: Iterable[tuple[int, str]]) -> tuple[Line, ...]:
    return tuple(Line(seq, text) for seq, text in sorted(lines, key=lambda line: (-line[0],
                                                                                   line[1])))


def current_decisions(decisions: Iterable[Decision]) -> list[Decision]:
    """The decisions no newer one on the same subject replaces."""
    decisions = sorted(decisions, key=lambda decision: (decision.seq, decision.text))
    return [decision for index, decision in enumerate(decisions)
            if not any(newer.seq > decision.seq
                       and same_subject((decision.words, decision.dropped),
                                        (newer.words, newer.dropped))
                       for newer in decisions[index + 1:])]


def _files(files: dict[str, int]) -> dict[str, int]:
    """Each file once: a bare name is the newest full path that ends with it."""
    shown = {path: seq for path, seq in files.items() if "/" in path}
    for path, seq in files.items():
        if "/" in path:
            continue
        full = [known for known in shown if known.endswith("/" + path)]
        if full:
            newest = max(full, key=lambda known: (shown[known], known))
            shown[newest] = max(shown[newest], seq)
        else:
            shown[path] = seq
    return shown


def _errors(facts: Facts, colon: str, width: int) -> Iterable[tuple[int, str]]:
    for failure in facts.failures.values():
        yield failure.seq, cut(f"#{failure.seq} {failure.command}{colon} "
                               f"{flatten(failure.line)}", width)
    for path, failure in facts.tests.items():
        named = "" if path in failure.command or path in failure.line else f" ({path})"
        yield failure.seq, cut(f"#{failure.seq} {failure.command}{named}{colon} "
                               f"{flatten(failure.line)}", width)


def _work(facts: Facts, ligne_max: int) -> Iterable[tuple[int, str]]:
    for name, ticket in facts.tickets.items():
        if not ticket.in_flight:
            continue
        said = flatten(ticket.said)
        text = said if name in said else f"{name} — {said}"
        yield ticket.worked, cut(f"#{ticket.worked} {text}", ligne_max)
    if facts.task is not None:
        yield facts.task.seq, cut(f"#{facts.task.seq} {facts.task.text}", ligne_max)


def _step(step: Stated, colon: str) -> str:
    if step.asker is None:
        return f"#{step.seq} {step.text}"
    return f"#{step.seq} {flatten(step.asker)}{colon} {step.text}"
