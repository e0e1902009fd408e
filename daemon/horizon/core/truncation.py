"""The deterministic summarizer: no model, always works (ADR 0003, its rules ADR 0008).

Condensing flattens an answer and cuts it to `ligne_max`. Folding learns from each folded
entry in turn (`learn`) and writes the free sections from what it learnt (`sections_of`):
the récit is then a function of the folded entries and their order, whatever batches
they came in.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

import msgspec

from horizon.core.blocks import Item, Signals
from horizon.core.recit import (
    DECISIONS,
    ERRORS,
    FILES,
    NEXT,
    WORK,
    Fact,
    Facts,
    Line,
    Recit,
)
from horizon.core.summarizer import TRUNCATION, Condensed, Folded
from horizon.core.text import ELLIPSIS, cut, flat_cut, flatten, named_paths

LEVEL = TRUNCATION
# Facts older than this many folded entries are forgotten: the récit speaks of the recent
# folded past (the older one is in the journal, and in Paroles for the operator's words).
WINDOW = 48
# Open failures are kept longer: one nobody fixed still matters far from where it broke.
ERRORS_WINDOW = 400
PATHS_PER_ENTRY = 12
TICKETS_PER_ENTRY = 3
OPEN_TICKETS = 3
TASKS = 2
CONVERSATION = "conversation"
TOOL = "tool"

_FAILURE = re.compile(
    r"\b(error|errors|erreur|erreurs|échec|échoué|failed|failure|fails|exception|traceback|"
    r"fatal|panic|denied|refusé|introuvable|not found)\b",
    re.IGNORECASE,
)
# What _FAILURE needs in a text once it is lower-cased (with the three characters that
# IGNORECASE equates with a letter their lower case is not): most answers report no
# failure, and looking for these is ten times cheaper than the regex.
_FAILURE_STEMS = ("error", "erreur", "échec", "échoué", "fail", "exception", "traceback",
                  "fatal", "panic", "denied", "refusé", "introuvable", "not found")
_CASE_ODDITIES = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s"})
# `ABC-12` (capitals: `pytest-8` is a version), `ticket 42`, `issue #7`, a bare `#5845`.
_TICKET = re.compile(
    r"\b([A-Z][A-Z0-9]{1,9}-\d{1,6})\b"
    r"|\b(?i:ticket|issue|bug|task|tâche)\s+#?(\d{1,6})\b"
    r"|(?<![\w#&])#(\d{2,6})\b")
_CAPS_DASH_DIGIT = re.compile(r"[A-Z0-9]-\d")
_TICKET_WORDS = ("ticket", "issue", "bug", "task", "tâche")
_EXIT_STATUS = re.compile(r"\bexit (?:status|code) [1-9]", re.IGNORECASE)
# A path without a folder is a file name only with an extension files have.
_FILE_EXTENSIONS = frozenset({
    "py", "pyi", "rs", "go", "js", "jsx", "ts", "tsx", "mjs", "cjs", "java", "kt", "c",
    "h", "cc", "cpp", "hpp", "cs", "rb", "php", "swift", "scala", "sh", "bash", "zsh",
    "ps1", "md", "rst", "txt", "toml", "yaml", "yml", "json", "jsonl", "ini", "cfg",
    "conf", "env", "lock", "sql", "csv", "xml", "html", "htm", "css", "scss", "vue",
    "svelte", "proto", "graphql", "tf", "ipynb", "dockerfile", "makefile", "mk", "gradle"
})
SCANNED_CHARS = 400  # of a question and an answer, where the files worked on are named
ERROR_LINE_CHARS = 160
TAIL_CHARS = 4096  # of a tool's answer, where its first and last lines are
# Of the two ends of the bee's own words, where it states a failure or its next step.
PROSE_ENDS_CHARS = 800
_CLOSED = re.compile(
    r"\b(closed?|closing|fixed|resolved|done|merged|shipped|completed|"
    r"ferm[ée]e?s?|résolue?s?|terminée?s?|corrigée?s?|livrée?s?|clos(?:e|es)?)\b",
    re.IGNORECASE)
_STATED_NEXT = re.compile(
    r"(?:next step|prochaine étape|next,? i(?:'ll| will)|ensuite,? je)[ \t]*:?[ \t]*([^\n]+)",
    re.IGNORECASE)
TICKET_SCAN_CHARS = 600  # a ticket is named in the request or the answer's first lines


def reports_failure(original: str) -> bool:
    """Whether a text names a failure (the failure words of ADR 0003, whole, any case)."""
    text = original
    if not text.isascii() and ("\u0130" in text or "\u0131" in text or "\u017f" in text):
        text = text.translate(_CASE_ODDITIES)
    folded = text.lower()
    if not any(stem in folded for stem in _FAILURE_STEMS):
        return False
    return _FAILURE.search(original) is not None


def _may_name_tickets(text: str) -> bool:
    """What any ticket name needs somewhere: `#`, one of the words, or `X-digit`."""
    if "#" in text:
        return True
    folded = text.lower()
    if any(word in folded for word in _TICKET_WORDS):
        return True
    return "-" in text and _CAPS_DASH_DIGIT.search(text) is not None


def ticket_ids(text: str) -> list[str]:
    """Ticket or issue names (`ABC-12`, `ticket 42`, `issue #7`, `#5845`), first seen
    first."""
    text = text[:TICKET_SCAN_CHARS * 2]  # a request names its ticket early
    if not _may_name_tickets(text):
        return []  # most texts name none: a plain look before the whole pattern
    found: dict[str, None] = {}
    for match in _TICKET.finditer(text):
        found.setdefault(match.group(1) or f"#{match.group(2) or match.group(3)}", None)
        if len(found) == TICKETS_PER_ENTRY:
            break
    return list(found)


def files_named(item: Item) -> tuple[str, ...]:
    """The files an entry works on: paths named at the head of its question (a command, a
    file tool's target) and, for the bee's own words, of its answer; a bare name counts
    when its extension is a file's."""
    head = item.question[:SCANNED_CHARS]
    if not item.tool:  # a tool's output names what it met, not what the bee worked on
        head += "\n" + item.answer[:SCANNED_CHARS]
    return tuple(path for path in named_paths(head)
                 if "/" in path or path.rpartition(".")[2].lower() in _FILE_EXTENSIONS
                 )[:PATHS_PER_ENTRY]


def failure_line(item: Item) -> str | None:
    """The line where an entry reports a failure, or None. A tool says so on its last
    line (a summary, an error, a non-zero exit status: then the error line above it) or,
    for a file tool, its first; what it printed between is the file or log it met. The
    bee's own prose says so anywhere."""
    answer = item.answer
    if not item.tool:
        if len(answer) > 2 * PROSE_ENDS_CHARS:  # the bee's words around a long paste
            answer = f"{answer[:PROSE_ENDS_CHARS]}\n{answer[-PROSE_ENDS_CHARS:]}"
        if not reports_failure(answer):  # one cheap look at the whole text first
            return None
        return next((line for line in reversed(answer.splitlines())
                     if line.strip() and reports_failure(line)), None)
    lines = _outer_lines(answer)
    if not lines:
        return None
    last = lines[-1]
    if reports_failure(last):
        return last
    if _EXIT_STATUS.search(last):
        before = lines[-2] if len(lines) > 1 else ""
        return before if before.strip() else last
    return lines[0] if len(lines) > 1 and reports_failure(lines[0]) else None


def _outer_lines(answer: str) -> list[str]:
    """The non-blank lines of a tool's answer that tell its outcome: all of a short one;
    of a long one (megabytes, maybe), its first and its last two."""
    if len(answer) <= 2 * TAIL_CHARS:
        return [line for line in answer.splitlines() if line.strip()]
    first = [line for line in answer[:TAIL_CHARS].splitlines() if line.strip()][:1]
    last = [line for line in answer[-TAIL_CHARS:].splitlines() if line.strip()][-2:]
    return first + last


def is_question(text: str) -> bool:
    """Whether words end with a question mark (looked for at their end only)."""
    return flatten(text[-200:]).endswith("?")


def is_passing_word(text: str) -> bool:
    """Operator words that expire: a question (the bee answered it) or words about a
    ticket (done when the ticket is). Standing instructions outlast them."""
    return is_question(text) or bool(ticket_ids(text))


def stated_next_step(answer: str) -> str | None:
    """The bee's own next step, when its answer states one: at its end (where a bee says
    what comes next) or its start, not in the middle of a long output."""
    if len(answer) > 2 * PROSE_ENDS_CHARS:
        answer = f"{answer[:PROSE_ENDS_CHARS]}\n{answer[-PROSE_ENDS_CHARS:]}"
    folded = answer.lower()
    if "next" not in folded and "prochaine" not in folded and "ensuite" not in folded:
        return None  # the words the pattern needs: ten times cheaper to look for
    match = _STATED_NEXT.search(answer)
    return flatten(match.group(1)) if match and match.group(1).strip() else None


def _label(item: Item) -> str:
    return f"#{item.seq} {flatten(item.tool or item.type)}"


def _gist(item: Item) -> str:
    return flatten(item.question) or flatten(item.answer)


def signals_of(item: Item) -> Signals:
    """What the rules read in an exchange, while its whole answer is at hand."""
    head = f"{item.question[:TICKET_SCAN_CHARS]}\n{item.answer[:TICKET_SCAN_CHARS]}"
    tickets = tuple(ticket_ids(head))
    closes = bool(tickets) and _CLOSED.search(head) is not None
    return Signals(failure_line(item), files_named(item), tickets, closes,
                   stated_next_step(item.answer))


def learn(facts: Facts, item: Item, index: int, ligne_max: int) -> Facts:
    """What one folded entry teaches, the entry being the `index`-th folded."""
    signals = item.signals or signals_of(item)
    paths = signals.paths
    files = [fact for fact in facts.files if fact.key not in paths]
    files += [Fact(item.seq, index, path, path) for path in paths]
    failed = signals.failure
    errors = list(facts.errors)
    if failed is None:
        errors = [fact for fact in errors if not fixes(item, paths, fact)]
    else:
        where = f" {', '.join(paths[:2])}" if paths else ""
        errors.append(Fact(item.seq, index, cut(
            f"{_label(item)}{where} : {flatten(failed)}", min(ligne_max, ERROR_LINE_CHARS)),
            item.tool or "", paths))
    decisions = list(facts.decisions)
    if item.type == CONVERSATION and item.question.strip() and not is_question(item.question):
        decisions.append(Fact(item.seq, index, cut(
            f"#{item.seq} {flatten(item.question)} → {flatten(item.answer)}", ligne_max)))
    tickets = list(facts.tickets)
    named = signals.tickets
    if named:
        tickets = [fact for fact in tickets if fact.key not in named]
        if not signals.closes:
            tickets += [Fact(item.seq, index, cut(f"{name} : {_gist(item)} (#{item.seq})",
                                                  ligne_max), name) for name in named]
    tasks = list(facts.tasks)
    if not item.tool and item.type != TOOL and _gist(item):
        tasks = [*tasks, Fact(item.seq, index, cut(f"{_label(item)} : {_gist(item)}",
                                                   ligne_max))][-TASKS:]
    next_step = next_fact(item, signals.next_step, index, ligne_max) or facts.next
    return Facts(tuple(files), tuple(errors), tuple(decisions), tuple(tickets), tuple(tasks),
                 next_step)


def next_fact(item: Item, stated: str | None, index: int, ligne_max: int) -> Fact | None:
    """The next step an entry gives (`stated`: the one its answer states), or None: then
    the one before it stands."""
    if stated is not None:
        return Fact(item.seq, index, cut(f"#{item.seq} {stated}", ligne_max))
    if (item.type == CONVERSATION and item.lighthouse and item.question.strip()
            and not is_question(item.question) and ticket_ids(item.question)):
        asker = item.sender or "apicultrice"
        return Fact(item.seq, index, cut(f"#{item.seq} {asker} : {flatten(item.question)}",
                                         ligne_max))
    return None


def learn_all(facts: Facts, folded: int, batch: Iterable[Item], ligne_max: int
              ) -> tuple[Facts, int]:
    """The facts after `batch`, folded in turn after `folded` entries, and their count."""
    for item in batch:
        folded += 1
        facts = learn(facts, item, folded, ligne_max)
    return within_window(facts, folded), folded


def fixes(item: Item, paths: tuple[str, ...], failure: Fact) -> bool:
    """Whether a successful entry fixes a failure: the same tool on one of its paths (a
    failure naming no path: the same tool; one from no tool: any success on its path)."""
    shared = bool(set(failure.paths) & set(paths))
    if not failure.key:
        return shared
    if item.tool != failure.key:
        return False
    return shared or not failure.paths


def within_window(facts: Facts, folded: int) -> Facts:
    """The facts of the last WINDOW folded entries (open failures: ERRORS_WINDOW; the next
    step: the newest one stands until another replaces it)."""
    oldest = folded - WINDOW

    def recent(kept: tuple[Fact, ...]) -> tuple[Fact, ...]:
        return tuple(fact for fact in kept if fact.index > oldest)

    return Facts(recent(facts.files),
                 tuple(fact for fact in facts.errors if fact.index > folded - ERRORS_WINDOW),
                 recent(facts.decisions), recent(facts.tickets), recent(facts.tasks),
                 facts.next)


def sections_of(facts: Facts) -> dict[str, tuple[Line, ...]]:
    """The free sections, each oldest first (Travail en cours: the tasks, then the tickets
    in flight): what the view shows of them is chosen when it renders."""
    # The tickets in flight last: the newest of them is the line a full récit keeps.
    work = [*facts.tasks, *facts.tickets[-OPEN_TICKETS:]]
    sections = {
        DECISIONS: tuple(Line(fact.seq, fact.text) for fact in facts.decisions),
        FILES: tuple(Line(fact.seq, f"{fact.text} (#{fact.seq})") for fact in facts.files),
        ERRORS: errors_lines(facts.errors),
        WORK: tuple(Line(fact.seq, fact.text) for fact in work),
        NEXT: (Line(facts.next.seq, facts.next.text),) if facts.next else (),
    }
    return {name: lines for name, lines in sections.items() if lines}


def errors_lines(errors: tuple[Fact, ...]) -> tuple[Line, ...]:
    """One line per open failure, then, when there are several, an index of them all by
    tool (`bash #11 #71; read_file #224`): the newest line, so a récit with room for one
    line of Erreurs still names every open failure, each one recalled by its seq."""
    lines = tuple(Line(fact.seq, fact.text) for fact in errors)
    if len(errors) < 2:
        return lines
    by_tool: dict[str, list[int]] = {}
    for fact in errors:
        by_tool.setdefault(fact.key or "-", []).append(fact.seq)
    index = "; ".join(f"{tool} " + " ".join(f"#{seq}" for seq in seqs)
                      for tool, seqs in by_tool.items())
    return (*lines, Line(errors[-1].seq, index))


class Truncation:
    """Answers flattened and cut to `ligne_max`; the récit filled by documented rules."""

    def __init__(self, ligne_max: int) -> None:
        self.ligne_max = ligne_max

    def condense(self, exchange: Item) -> Condensed:
        return self.condense_answer(exchange.answer)

    def condense_answer(self, answer: str, printable: bool | None = None) -> Condensed:
        """`condense` of an exchange with this answer (`printable`: whether it is, when
        the caller already looked)."""
        limit = self.ligne_max
        if printable is None:
            printable = answer.isprintable()
        if len(answer) <= limit * 4 + 64 and printable and "  " not in answer:
            # The usual short answer: flattening it only strips its ends, and it was kept
            # whole when that fits (what flat_cut and kept_whole give, without the calls).
            flat = answer.strip(" ")
            if len(flat) <= limit:
                return Condensed(flat, LEVEL, whole=True)
            return Condensed(flat[:limit - 1] + ELLIPSIS, LEVEL, whole=False)
        text = flat_cut(answer, limit)
        return Condensed(text, LEVEL, whole=self.kept_whole(answer, text))

    def kept_whole(self, answer: str, text: str) -> bool:
        """Whether `text`, flat_cut(answer), is the whole answer flattened (no cut),
        without flattening a long answer that was cut."""
        limit = self.ligne_max
        if len(text) < limit or not text.endswith(ELLIPSIS):
            return True  # a cut text is `limit` long and ends with the ellipsis
        # A prefix flattens to no more than the whole: over the limit, the whole was cut.
        if len(flatten(answer[: limit * 4 + 64])) > limit:
            return False
        return flatten(answer) == text

    def fold(self, recit: Recit, batch: Sequence[Item]) -> Folded:
        return Folded(self.fold_recit(recit, batch), LEVEL)

    def fold_recit(self, recit: Recit, batch: Sequence[Item]) -> Recit:
        facts, folded = learn_all(recit.facts, recit.folded, batch, self.ligne_max)
        return msgspec.structs.replace(recit, sections=sections_of(facts), facts=facts,
                                       folded=folded)
