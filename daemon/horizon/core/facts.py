"""The deterministic récit's rules (pure, ADR 0008): what an exchange says (`signals_of`),
what the folded exchanges leave in the records (`learn_all`), and the free sections
written from the records (`sections_of`).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable
from typing import TypeVar

import msgspec

from horizon.core.blocks import Item, Signals
from horizon.core.decisions import (
    decisions_stated,
    dropped_words,
    same_subject,
    subject_words,
)
from horizon.core.labels import DECISIONS, ERRORS, FILES, NEXT, WORK, Labels
from horizon.core.outcomes import (
    COMMAND_CHARS,
    TAIL_CHARS,
    command_key,
    covers,
    failed_tests,
    failure_of,
    is_shell,
    reads_only,
    same_family,
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
from horizon.core.statements import is_filler, is_question, is_request, stated_step
from horizon.core.text import cut, flatten, named_paths
from horizon.core.tickets import CLOSES, MENTIONS, OPENS, ticket_names, ticket_states

CONVERSATION, TASK, TOOL = "conversation", "task", "tool"
HEAD_CHARS = 1200  # of an answer, where the bee's words and a file tool's error are
SEPARATOR = "\n[…]\n"
QUESTION_CHARS = 2000  # of a question, what the rules read
SCANNED_CHARS = 400  # of a question and of the bee's answer, where files are named
PATHS_PER_ENTRY = 12
FILES_PER_ENTRY = 32  # of the runtime's `files`, the ones used
FILE_CHARS = 200
ERROR_LINE_CHARS = 160
COMMAND_SHOWN = COMMAND_CHARS
DEFAULT_ASKER = "apicultrice"
# A path without a folder is a file name only with an extension files have.
_FILE_EXTENSIONS = frozenset({
    "py", "pyi", "rs", "go", "js", "jsx", "ts", "tsx", "mjs", "cjs", "java", "kt", "c",
    "h", "cc", "cpp", "hpp", "cs", "rb", "php", "swift", "scala", "sh", "bash", "zsh",
    "ps1", "md", "rst", "txt", "toml", "yaml", "yml", "json", "jsonl", "ini", "cfg",
    "conf", "env", "lock", "sql", "csv", "xml", "html", "htm", "css", "scss", "vue",
    "svelte", "proto", "graphql", "tf", "ipynb", "dockerfile", "makefile", "mk", "gradle",
})


_NAMED_FILES = frozenset(["Makefile", "Dockerfile", "Containerfile", "Procfile", "Gemfile",
                          "Rakefile", "Justfile", "justfile", "Jenkinsfile", "Vagrantfile",
                          "LICENSE", "README", "CHANGELOG", "CODEOWNERS", "Brewfile"])
_NOT_FILES = frozenset([
    "and/or", "either/or", "client/server", "read/write", "input/output", "yes/no",
    "true/false", "on/off", "w/o", "n/a", "i/o", "tcp/ip", "node.js", "vue.js",
    "next.js", "react.js", "three.js", "d3.js", "chart.js", "express.js", "nuxt.js",
    "socket.io", "asp.net", "vb.net", "ado.net",
])


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
    return tuple(path for path in named_paths(head) if is_file_path(path))[:PATHS_PER_ENTRY]


def is_file_path(path: str) -> bool:
    """Whether a path-like word names a file: a name with a file's extension, or one of
    the files known without one (`Makefile`); not a folder, a URL's route, `and/or`, a
    branch (`fix/PAY-311`) or a framework (`Node.js`)."""
    name = path.rpartition("/")[2]
    stem, dot, extension = name.rpartition(".")
    if path.lower() in _NOT_FILES or name.lower() in _NOT_FILES:
        return False
    if dot and extension.lower() in _FILE_EXTENSIONS and stem:
        return True
    return name in _NAMED_FILES


def signals_of(item: Item) -> Signals:
    """What the rules read in an exchange, from its question and its answer's ends."""
    answer = ends(item.answer)
    question = item.question[:QUESTION_CHARS]
    paths = files_of(item, answer)
    if is_call(item):
        return _call_signals(item, question, answer, paths)
    request = item.lighthouse and item.type == CONVERSATION and is_request(question)
    # An operator's request or a task gives work: the tickets it names are assigned.
    assigning = request or (item.type == TASK and not is_filler(question)) or (
        item.lighthouse and item.type == CONVERSATION and not is_question(question))
    tickets = [*ticket_states(question, assigning), *ticket_states(answer)]
    step = stated_step(answer)
    asker = None
    if step is None and request:
        step, asker = flatten(question), item.sender or DEFAULT_ASKER
    task = None
    if ((item.type == TASK or request) and not is_filler(question)
            and (request or not is_question(question)) and not ticket_names(question)):
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
    failure = failure_of(answer, shell, item.tool, command)
    if item.ok is not None:
        failure = None if item.ok else (failure or _last_line(answer))
    failed = failed_tests(answer) if failure is not None and run is not None else ()
    # A command names its tickets at work; its words may close them (a commit message).
    tickets = [(name, MENTIONS if state == OPENS else state, sentence)
               for name, state, sentence in ticket_states(question)]
    key = command_key(item.tool, question, paths)
    shown = command if shell else f"{flatten(item.tool or '')} {paths[0] if paths else command}"
    if failure is not None and item.files is None:  # where it broke: the file to fix next
        broke = "\n".join([*tail_lines(answer)[-3:], failure])
        paths = tuple(dict.fromkeys([*paths, *(path for path in named_paths(broke)
                                               if is_file_path(path))]))[:PATHS_PER_ENTRY]
    return Signals(
        paths, shown[:COMMAND_SHOWN], key,
        tests=None if run is None else run.paths, nodes=() if run is None else run.nodes,
        suite="" if run is None else run.family,
        whole_suite=run is not None and run.whole_suite, failure=failure,
        failed_tests=tuple(dict.fromkeys(path for path, _ in failed)),
        failed_nodes=tuple(node for _, node in failed if node), tickets=_latest(tickets))


def _last_line(answer: str) -> str:
    lines = tail_lines(answer[-TAIL_CHARS:])
    return lines[-1] if lines else "ok: false"


def _latest(states: list[tuple[str, int, str]]) -> tuple[tuple[str, int, str], ...]:
    """Each ticket's last statement in the exchange (the answer comes after the question);
    a mere mention does not undo an opening or a closing said before it."""
    latest: dict[str, tuple[str, int, str]] = {}
    for state in states:
        said = latest.get(state[0])
        if said is not None and state[1] == MENTIONS and said[1] != MENTIONS:
            continue
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
        for text, about, reverses in signals.decisions:
            self.decisions.append(Decision(seq, text, subject_words(about),
                                           dropped_words(about), reverses))
            if len(self.decisions) > DECISIONS_KEPT:
                self.decisions.remove(min(self.decisions,
                                          key=lambda decision: (decision.seq, decision.text)))
        if signals.task is not None and (self.task is None or self.task.seq < seq):
            self.task = Stated(seq, signals.task)
        if signals.step is not None and (self.step is None or self.step.seq < seq):
            self.step = Stated(seq, signals.step, signals.step_asker)

    def _ran(self, seq: int, signals: Signals) -> None:
        """A call that did more than read: a failure opens, a success resolves the older
        failures of the same call, of the test files and tests it covers, or of every
        test of its family."""
        key, command = signals.key, signals.command
        assert key is not None and command is not None
        if signals.failure is not None:
            paths = signals.failed_tests or signals.tests or tuple(
                dict.fromkeys(node.split("::", 1)[0] for node in signals.nodes))
            nodes = signals.failed_nodes or signals.nodes
            for path in paths:
                failed = Failure(seq, command, key, signals.failure, signals.suite,
                                 tuple(node for node in nodes
                                       if node.split("::", 1)[0] == path))
                if path not in self.tests or self.tests[path].seq < seq:
                    self.tests[path] = failed
                    _keep_newest(self.tests, FAILURES_KEPT, _SEQ_OF)
            if not paths and (key not in self.failures or self.failures[key].seq < seq):
                self.failures[key] = Failure(seq, command, key, signals.failure,
                                             signals.suite)
                _keep_newest(self.failures, FAILURES_KEPT, _SEQ_OF)
            return
        older = self.failures.get(key)
        if older is not None and older.seq < seq:
            del self.failures[key]
        if signals.tests is None:
            return
        for failed_key, failure in list(self.failures.items()):
            if (signals.whole_suite and same_family(failure.suite, signals.suite)
                    and failure.seq < seq):
                del self.failures[failed_key]
        for path, failure in list(self.tests.items()):
            if failure.seq >= seq:
                continue
            if ((signals.whole_suite and same_family(failure.suite, signals.suite))
                    or failure.key == key
                    or any(covers(ran, path) for ran in signals.tests)):
                del self.tests[path]
                continue
            ran = {node for node in signals.nodes if node.split("::", 1)[0] == path}
            if ran and failure.nodes:  # some of its tests passed: those left still fail
                left = tuple(node for node in failure.nodes if node not in ran)
                if left:
                    self.tests[path] = msgspec.structs.replace(failure, nodes=left)
                else:
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


def is_passing_word(text: str) -> bool:
    """Operator words that expire: a question (the bee answered it), words about a ticket
    (done when the ticket is), or words that only carry on. Standing instructions outlast
    them."""
    return is_question(text) or is_filler(text) or bool(ticket_names(text[:1200]))
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
    """The decisions no newer one replaces: one on the same subject, or one that says it
    reverses the decision just before it when it names no subject of an older one."""
    decisions = sorted(decisions, key=lambda decision: (decision.seq, decision.text))
    replaced: set[int] = set()
    for index, newer in enumerate(decisions):
        older = [(at, decision) for at, decision in enumerate(decisions[:index])
                 if decision.seq < newer.seq]
        matched = [at for at, decision in older
                   if same_subject((decision.words, decision.dropped),
                                   (newer.words, newer.dropped))]
        if not matched and newer.reverses and older:
            matched = [older[-1][0]]
        replaced.update(matched)
    return [decision for at, decision in enumerate(decisions) if at not in replaced]


def _files(files: dict[str, int]) -> dict[str, int]:
    """Each file once: a bare name, or a path a longer one ends with (an absolute path and
    the same relative one), is the newest full path that ends with it."""
    shown = dict(files)
    for path in sorted(files, key=len):
        if path not in shown:
            continue
        longer = [known for known in shown if known != path and known.endswith("/" + path)]
        if not longer:
            continue
        if "/" in path:  # relative: the shorter path names the file
            for known in longer:
                shown[path] = max(shown[path], shown.pop(known))
        else:  # a bare name: the newest full path that ends with it
            newest = max(longer, key=lambda known: (shown[known], known))
            shown[newest] = max(shown[newest], shown.pop(path))
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
    """Tickets in flight, those opened by the same sentence on one line; the task."""
    said: dict[tuple[int, str], list[str]] = {}
    for name, ticket in facts.tickets.items():
        if ticket.in_flight:
            said.setdefault((ticket.worked, flatten(ticket.said)), []).append(name)
    for (worked, sentence), names in said.items():
        missing = [name for name in names if name not in sentence]
        text = f"{', '.join(missing)} — {sentence}" if missing else sentence
        yield worked, cut(f"#{worked} {text}", ligne_max)
    if facts.task is not None:
        yield facts.task.seq, cut(f"#{facts.task.seq} {facts.task.text}", ligne_max)


def _step(step: Stated, colon: str) -> str:
    if step.asker is None:
        return f"#{step.seq} {step.text}"
    return f"#{step.seq} {flatten(step.asker)}{colon} {step.text}"
