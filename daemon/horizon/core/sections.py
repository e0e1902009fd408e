"""The récit's free sections written from the records (pure, ADR 0008), each newest
first: what the view shows of them is chosen when it renders.
"""

from __future__ import annotations

from collections.abc import Iterable

from horizon.core.labels import DECISIONS, ERRORS, FILES, NEXT, WORK, Labels
from horizon.core.recit import Line
from horizon.core.records import Decision, Facts, Stated
from horizon.core.subjects import same_subject
from horizon.core.test_runs import FAILING_NAMES
from horizon.core.text import cut, flatten

ERROR_LINE_CHARS = 160
ERROR_COMMAND_CHARS = 100  # of an Errors line, what its command may take


def sections_of(facts: Facts, labels: Labels, ligne_max: int) -> dict[str, tuple[Line, ...]]:
    """The free sections, each newest first: what the view shows of them is chosen when it
    renders."""
    colon = labels.colon
    sections = {
        DECISIONS: _newest_first((line.seq, line.text)
                                 for _, line in decision_lines(facts, ligne_max)),
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


def decision_lines(facts: Facts, ligne_max: int) -> Iterable[tuple[Decision, Line]]:
    """The Décisions lines, each with the decision it shows."""
    for decision in current_decisions(facts.decisions):
        yield decision, Line(decision.seq, cut(f"#{decision.seq} {decision.text}", ligne_max))


def current_decisions(decisions: Iterable[Decision]) -> list[Decision]:
    """The decisions no newer one replaces: one on the same subject, or one that says it
    reverses an earlier decision when it names nothing it drops. Such a reversal
    undoes the current decision it shares the most words with; sharing none, the newest
    (the bee's, when the operator corrects: "Non, prends plutôt nfpm." after the bee
    chose goreleaser). What only repeated an undone choice ("Fine, OVERWRITE it is.")
    goes with it."""
    decisions = sorted(decisions, key=lambda decision: (decision.seq, decision.text))
    replaced: set[int] = set()
    for index, newer in enumerate(decisions):
        older = [(at, decision) for at, decision in enumerate(decisions[:index])
                 if decision.seq < newer.seq]
        matched = [at for at, decision in older
                   if same_subject((decision.words, decision.dropped),
                                   (newer.words, newer.dropped))]
        standing = [(at, decision) for at, decision in older if at not in replaced]
        # One that names what it drops undoes that or nothing ("use bun, not pnpm").
        if not matched and newer.reverses and not newer.dropped and standing:
            matched = [_reversed(newer, standing)]
        for at in matched:
            undone = set(decisions[at].words)
            matched += [other for other, decision in older if other not in matched
                        and decision.words and set(decision.words) <= undone]
        replaced.update(matched)
    return [decision for at, decision in enumerate(decisions) if at not in replaced]


def _reversed(newer: Decision, standing: list[tuple[int, Decision]]) -> int:
    """Which standing decision a reversal that names nothing it drops undoes."""
    words = set(newer.words)
    shared = max(len(words & set(decision.words)) for _, decision in standing)
    if shared:
        return max(at for at, decision in standing
                   if len(words & set(decision.words)) == shared)
    bees = [at for at, decision in standing if not decision.by_operator]
    return bees[-1] if newer.by_operator and bees else standing[-1][0]


def work_tree(paths: Iterable[str]) -> str | None:
    """The folder the absolute paths are the work of: the deepest one that holds three in
    four of them and where they part (`/home/dev/proj` of `/home/dev/proj/src/a.py` and
    `/home/dev/proj/Makefile`), or None."""
    absolute = [path for path in paths if path.startswith("/")]
    if len(absolute) < 2:
        return None
    held: dict[str, int] = {}
    children: dict[str, set[str]] = {}
    for path in absolute:
        parts = path.split("/")[1:]
        for depth in range(2, len(parts)):
            folder = "/" + "/".join(parts[:depth])
            held[folder] = held.get(folder, 0) + 1
            children.setdefault(folder, set()).add(parts[depth])
    enough = -(-len(absolute) * 3 // 4)
    parting = [folder for folder, count in held.items()
               if count >= enough and len(children[folder]) > 1]
    return max(parting, key=lambda folder: (folder.count("/"), folder), default=None)


def _relative(files: dict[str, int]) -> dict[str, int]:
    """The paths under the work tree, relative to it: what the bee's tools name."""
    root = work_tree(files)
    if root is None:
        return dict(files)
    shown: dict[str, int] = {}
    for path, seq in files.items():
        relative = path[len(root) + 1:] if path.startswith(root + "/") else path
        shown[relative] = max(seq, shown.get(relative, 0))
    return shown


def _files(files: dict[str, int]) -> dict[str, int]:
    """Each file once, relative to the work tree when there is one: a bare name, or a
    path a longer one ends with (an absolute path and the same relative one), is the
    newest full path that ends with it."""
    shown = _relative(files)
    for path in sorted(shown, key=len):
        if path not in shown:
            continue
        longer = [known for known in shown if known != path and known.endswith("/" + path)]
        if not longer:
            continue
        within = [known for known in longer if not known.startswith("/")]
        if "/" in path and within:  # relative: the longer names it from the work tree
            newest = max(within, key=lambda known: (shown[known], known))
            shown[newest] = max(shown[newest], shown.pop(path))
        elif "/" in path:  # an absolute path and the same relative one: the relative
            for known in longer:
                shown[path] = max(shown[path], shown.pop(known))
        else:  # a bare name: the newest full path that ends with it
            newest = max(longer, key=lambda known: (shown[known], known))
            shown[newest] = max(shown[newest], shown.pop(path))
    return shown


def _errors(facts: Facts, colon: str, width: int) -> Iterable[tuple[int, str]]:
    for _, line in error_lines(facts, colon, width):
        yield line.seq, line.text


def error_lines(facts: Facts, colon: str, width: int) -> Iterable[tuple[tuple[bool, str], Line]]:
    """The Errors lines, each with the record it shows: (False, the command's key) or
    (True, the test path)."""
    # A long command (a commit with its message) leaves room for what failed.
    for key, failure in facts.failures.items():
        yield (False, key), Line(failure.seq, cut(
            f"#{failure.seq} {cut(failure.command, ERROR_COMMAND_CHARS)}{colon} "
            f"{flatten(failure.line)}", width))
    for path, failure in facts.tests.items():
        named = "" if path in failure.command or path in failure.line else f" ({path})"
        # The tests that failed, by name: what a rerun of one of them needs.
        tests = [node.split("::", 1)[1] for node in failure.nodes if "::" in node]
        tests = [test for test in tests[:FAILING_NAMES] if test not in failure.line]
        said = f"{', '.join(tests)} — {failure.line}" if tests else failure.line
        yield (True, path), Line(failure.seq, cut(
            f"#{failure.seq} {cut(failure.command, ERROR_COMMAND_CHARS)}{named}{colon} "
            f"{flatten(said)}", width))


def ticket_lines(facts: Facts, ligne_max: int) -> Iterable[tuple[tuple[str, ...], Line]]:
    """The Work in progress lines of tickets in flight, each with the tickets it names:
    those opened by the same sentence share one line."""
    said: dict[tuple[int, str], list[str]] = {}
    for name, ticket in facts.tickets.items():
        if ticket.in_flight:
            said.setdefault((ticket.worked, flatten(ticket.said)), []).append(name)
    for (worked, sentence), names in said.items():
        missing = [name for name in names if name not in sentence]
        text = f"{', '.join(missing)} — {sentence}" if missing else sentence
        yield tuple(names), Line(worked, cut(f"#{worked} {text}", ligne_max))


def _work(facts: Facts, ligne_max: int) -> Iterable[tuple[int, str]]:
    """Tickets in flight; the task."""
    for _, line in ticket_lines(facts, ligne_max):
        yield line.seq, line.text
    if facts.task is not None:
        yield facts.task.seq, cut(f"#{facts.task.seq} {facts.task.text}", ligne_max)


def _step(step: Stated, colon: str) -> str:
    if step.asker is None:
        return f"#{step.seq} {step.text}"
    return f"#{step.seq} {flatten(step.asker)}{colon} {step.text}"
