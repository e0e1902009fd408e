"""What an exchange says to the récit's rules (pure, ADR 0008): the files it touched, the
call it ran and how it went, the tickets, decisions, task and next step it states.
"""

from __future__ import annotations

from horizon.core.blocks import Item, Signals
from horizon.core.chatter import is_chatter
from horizon.core.choices import choice_asked, corrects, is_convention, operator_decisions
from horizon.core.commands import COMMAND_CHARS, command_key, is_shell, reads_only, unwrapped
from horizon.core.decisions import DECISIONS_PER_TEXT, decisions_stated
from horizon.core.entries import FILES_KEPT
from horizon.core.noise import is_nudge, without_noise
from horizon.core.operator_words import is_filler, is_method, is_question, is_request, is_rule
from horizon.core.outcomes import TAIL_CHARS, failure_of, may_fail, tail_lines
from horizon.core.statements import stated_step
from horizon.core.subjects import subject_words
from horizon.core.taking_back import withdraws_rule
from horizon.core.test_runs import failed_tests, failing_names, first_diagnostic, test_run
from horizon.core.text import cut, flatten, named_paths
from horizon.core.tickets import MENTIONS, OPENS, ticket_names, ticket_states
from horizon.core.trackers import created_states, shown_states, tracker_states

CONVERSATION, TASK, TOOL = "conversation", "task", "tool"
HEAD_CHARS = 1200  # of an answer, where the bee's words and a file tool's error are
SEPARATOR = "\n[…]\n"
QUESTION_CHARS = 2000  # of a question, what the rules read
SCANNED_CHARS = 400  # of a question and of the bee's answer, where files are named
PATHS_PER_ENTRY = 12
FILE_CHARS = 200
DEFAULT_ASKER = "apicultrice"
REPLY_CHARS = 200  # the operator's words short enough to be a reply to a choice
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


def output_failed(item: Item) -> bool:
    """A call the runtime said nothing of whose output says it failed (a non-zero exit, a
    runner's FAILED): what a condensed block marks, as the runtime's `ok: false` is."""
    if item.ok is not None or not is_call(item):
        return False
    if item.signals is not None:  # read already, from the same whole answer
        return item.signals.failure is not None
    shell = is_shell(item.tool)
    answer = ends(item.answer)
    if shell and "<" not in answer and not may_fail(answer[-TAIL_CHARS:]):
        return False  # no verdict to read: the command is not worth parsing
    command = flatten(without_noise(item.question[:QUESTION_CHARS]))
    ran = unwrapped(command) if shell else command
    if failure_of(without_noise(answer), shell, item.tool, ran) is None:
        return False
    return not reads_only(item.tool, ran)  # a `grep` that finds nothing exits 1


def files_of(item: Item, answer: str) -> tuple[str, ...]:
    """The files an exchange read or changed: the runtime's `files` when it gave them,
    else the paths named at the head of its question (a command, a file tool's target)
    and of the bee's own answer (a tool's output names what it met)."""
    if item.files is not None:
        cleaned = (cut(flatten(path), FILE_CHARS) for path in item.files[:FILES_KEPT])
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
    answer = without_noise(ends(item.answer))
    question = without_noise(item.question[:QUESTION_CHARS])
    paths = files_of(item, answer)
    if is_call(item):
        return _call_signals(item, question, answer, paths)
    # A standing instruction ("Write the regression test first, then fix the code") is a
    # rule, not the work in flight.
    request = (item.lighthouse and item.type == CONVERSATION and is_request(question)
               and not is_method(question) and not is_convention(question)
               and not is_nudge(question))  # "Reprends là où tu t'étais arrêté" asks nothing
    # An operator's request or a task gives work: the tickets it names are assigned. An
    # acknowledgement names what was done ("Applied #594, thanks"), not work to do.
    assigning = request or (item.type == TASK and not is_filler(question)) or (
        item.lighthouse and item.type == CONVERSATION and not is_question(question)
        and not is_chatter(question))
    tickets = [*ticket_states(question, assigning), *ticket_states(answer)]
    step = stated_step(answer)
    asker = None
    if step is None and request:
        step, asker = flatten(question), item.sender or DEFAULT_ASKER
    decisions = decisions_stated(answer)
    operator_decided = 0
    reply = None
    # A rule stays in Paroles, word for word, unless it corrects a choice; words that take
    # a rule back ("drop the make-lint-before-done thing") decide nothing.
    if item.lighthouse and item.type == CONVERSATION and (
            not is_rule(question) or corrects(question)) and not withdraws_rule(question):
        # The operator's choice stands over the bee's: said after it, it replaces it.
        chosen = operator_decisions(question, answer)
        # The bee's "Right, OneSignal then." only repeats the operator's choice.
        named = {word for _, about, _ in chosen for word in subject_words(about)}
        decisions = [*chosen, *(decision for decision in decisions
                                if not named & set(subject_words(decision[1])))
                     ][:DECISIONS_PER_TEXT]
        operator_decided = min(len(chosen), DECISIONS_PER_TEXT)
        if len(question) <= REPLY_CHARS and not is_question(question):
            reply = flatten(question)  # it may settle a choice the bee asked for
    asked = choice_asked(answer)
    task = None
    if ((item.type == TASK or request) and not is_filler(question) and not is_nudge(question)
            and (request or not is_question(question)) and not ticket_names(question)):
        task = flatten(question)
    return Signals(paths, tickets=_latest(tickets), step=step, step_asker=asker,
                   decisions=tuple(decisions), operator_decided=operator_decided, task=task,
                   asked=None if asked is None else asked[0],
                   options=() if asked is None else asked[1], reply=reply)


def _call_signals(item: Item, question: str, answer: str, paths: tuple[str, ...]) -> Signals:
    """A tool call: what ran, whether it failed. A call that only reads names its files
    and nothing else (a `grep` that finds nothing exits 1, a `git log` names tickets)."""
    command = flatten(question)
    shell = is_shell(item.tool)
    ran = unwrapped(command) if shell else command  # `bash -lc '…'`: what it runs
    if reads_only(item.tool, ran):  # a view of a ticket reads its state, when it worked
        return Signals(paths, tickets=tuple(shown_states(item.tool, ran, answer))
                       if item.ok is not False else ())
    run = test_run(ran) if shell else None
    failure = None if item.ok else failure_of(answer, shell, item.tool, ran)
    if item.ok is False and failure is None:
        failure = _last_line(answer)
    failed = failed_tests(answer) if failure is not None and run is not None else ()
    if failure is not None and shell and not failed:
        # A verdict names no test, and no test file names it either: the runner's lines do.
        named = [name for name in failing_names(answer) if name not in failure]
        where = None if named else first_diagnostic(answer)
        if where is not None and where not in failure:
            named = [where]  # no test failed: a checker says where
        failure = f"{', '.join(named)} — {failure}" if named else failure
    # A command names its tickets at work; its words may close them (a commit message).
    tickets = [(name, MENTIONS if state == OPENS else state, sentence)
               for name, state, sentence in ticket_states(question)]
    if failure is None:  # a tracker's command sets its tickets' state, or shows one's
        tickets += (tracker_states(ran) + shown_states(item.tool, ran, answer)
                    + created_states(ran, answer))
    key = command_key(item.tool, question, paths)
    shown = command if shell else f"{flatten(item.tool or '')} {paths[0] if paths else command}"
    if failure is not None and item.files is None:  # where it broke: the file to fix next
        broke = "\n".join([*tail_lines(answer)[-3:], failure])
        paths = tuple(dict.fromkeys([*paths, *(path for path in named_paths(broke)
                                               if is_file_path(path))]))[:PATHS_PER_ENTRY]
    return Signals(
        paths, shown[:COMMAND_CHARS], key,
        tests=None if run is None else run.paths, nodes=() if run is None else run.nodes,
        suite="" if run is None else run.family,
        whole_suite=run is not None and run.whole_suite, failure=failure,
        failed_tests=tuple(dict.fromkeys(path for path, _ in failed)),
        failed_nodes=tuple(node for _, node in failed if node), tickets=_latest(tickets))


def _last_line(answer: str) -> str:
    lines = tail_lines(answer)
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
