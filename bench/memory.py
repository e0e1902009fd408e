"""What a bee's view remembers of long coding sessions (`make eval`).

A family of generated sessions (eval_session.py: one project per seed, each told in French
and in English, plus one variant per language with budget_net = 3000) is played through
the real engine in-process, one exchange per pass, with age sweeps between exchanges. At
each checkpoint the probes read handoff.md and the `render --json` summary and compare
them with the ground truth the generator wrote down while telling the story; nothing is
recomputed from the text, and no probe uses horizon's own words.

    python bench/memory.py                 # 6 seeds x fr/en x 300 exchanges, + 2 variants
    python bench/memory.py --seeds 3 --exchanges 150
    python bench/memory.py --quick         # 2 seeds x 60 exchanges: the harness works

Writes bench/memory.json (per probe: the measures, and failing examples with the section
text that failed) and exits 1 when a target is not met.

What is folded. The récit only knows folded entries: at a checkpoint, the folded set is
every seq up to the summary's `up_to` that is neither in its `condense` or `net` lists nor
removed by the hard cut (`cut` items with a `seq`). Probes of a récit section take their
ground truth over folded entries only; probes of the whole view take it over everything.
Sections are found by their headings (French or English titles, docs/reference.md §3.5); a
section's lines are its non-blank lines, a leading `>` quote marker removed.

How names are matched (fair to any rendering of the view, docs/reference.md §3.5):
- a path, a symbol, a ticket or a choice word is named when it appears whole: not inside a
  longer word, number, id or path (`WX-230` is not named by `WX-2301`, `src/a.rs` not by
  `lib/src/a.rs`); tickets and choice words ignore case ("Pandas it is" names pandas), and
  `issue 57` is also named `issue #57` or `#57`;
- a command is named when its text, whitespace folded, appears whole and is not followed by
  more arguments (`cargo test` is not named by `cargo test --test decoder`);
- text is compared whitespace folded, quote markers removed;
- a Paroles line shows a message when both read the same once seq references (`#12`) and
  framing punctuation are set aside, case folded (`> #8, #40 — ok` shows "ok").

The probes (target in brackets):
- rules_current_verbatim [100 %]: every rule the operator gave up to the checkpoint, and that
  no later rule replaced nor the operator withdrew, appears word for word anywhere in the
  view;
- rule_replaced_shown [0]: a replaced rule appears after its replacement in the view, or at
  all when its replacement is not in the view (counted per checkpoint and rule);
- rule_withdrawn_shown [0]: once the operator withdrew a rule ("Forget the rule about…"), the
  rule appears in the view with no withdrawal words after its last appearance (per
  checkpoint and rule);
- paroles_share [0; the share's median and maximum reported]: checkpoints where Operator's
  words holds over half of the récit's characters (the section's body over the
  `## Self-narrative` block up to the first entry) while one of its lines is not a current
  rule (a line holding a current rule's text word for word is a rule's line);
- chatter_quoted [0]: a folded chatter message (what only acknowledges, approves or nudges:
  "ok", "lgtm", "vas-y", "yes, apply it") shown as a line of Operator's words (per checkpoint
  and distinct text). Chatter that settles a choice the bee asked about is a decision, not
  counted here (decision_current measures it);
- noise_in_sections [0]: per checkpoint and section (Decisions, Files, Errors, Operator's
  words, Work in progress, Next step), a line holding the runtime's markup
  (`system-reminder`, `local-command-caveat`, `command-name>`, Codex's
  `environment_context`) or an orchestrator's nudge ("Continue from where you left off.":
  the whole line, or inside it when the nudge has 20 characters or more);
- open_failures_named [90 %]: each folded failure whose fix is not in the view (or that has
  no fix) is named on an Errors line by its command or its test path. A failure is a failing
  test, linter, checker, build or shell command (never a read); a test failure is fixed by a
  later success of the same command, of a test run naming the same path, or of a whole-suite
  run; any other failure by the same command succeeding, or by the success of a wrapper that
  runs it (`make lint` after `tflint`, `scripts/smoke.sh` after `nslookup`: the project says
  which commands a wrapper runs, as its build file does);
- fixed_failures_listed_open [0]: for each failure whose fix is in the view, folded or still
  below the récit in condensé or net (whatever fixed it, a wrapper included), an Errors line
  naming its command or path with the failure's #seq, and with neither the fix's #seq nor a
  word saying it was resolved (resolved, fixed, solved, résolu, corrigé, réparé, réglé...);
- failed_heading_marked [100 %] and failed_tail_kept [100 %]: each long failing test run
  (thousands of passing lines, the failing test named in its tail, a command that does not
  name it), measured once, at the first pass that shows it in condensé (the summary's
  `condense` seqs; its block found by its `### #seq ·` heading): its heading line says it
  failed (any of "failed", "failure", "fail", "échec", "échoué(e)", "en échec", "✗", "✘",
  "❌", "ok: false", case ignored), and its block names the failing test;
- open_tickets_in_progress [90 %]: each ticket whose newest event in the view is an opening,
  and whose newest folded event is one too, is named in Work in progress. A ticket's events
  are its openings (assigned, in the operator's words or in three of them; started; resumed;
  reopened, by the operator, by a tracker's output such as `linear issue view`'s "moved from
  Done to In Progress", or by the bee's `bd update … --status in_progress`; and what says it
  is in flight: parked, "not closed yet") and its closings, so a ticket can be closed,
  reopened and closed again;
- closed_tickets_in_flight [0]: a ticket whose newest event in the view (folded, or below
  the récit in condensé or net) is a closing is the first ticket named on a Work in progress
  line that has no word saying it is closed (closed, merged, done, shipped, fermé, livré,
  mergé, terminé...);
- next_step_newest [90 % of checkpoints]: the newest folded next step (the bee's, or the
  operator's request for the next thing to do) is named in Next step by one of its keys
  (the path, symbol or ticket it names);
- decision_current [90 %]: for each subject with a folded decision and no newer one still
  below the récit, the newest folded decision's choice word is on a Decisions line. A
  decision is the bee's ("I'll use OVERWRITE for…", a reversal of its own), or the
  operator's: a reply that settles what the bee asked ("Fine, MERGE it is."), or that
  overrules the bee ("No, use MERGE instead").
  An overrule that names neither the old choice nor its subject ("no, OneSignal") gets an
  answer from the bee that names what it undoes: nothing else in the text says which
  decision it reverses;
- decision_reversed_as_current [0]: once a reversal (the bee's or the operator's) is
  folded, a Decisions line names the old choice, not the new one, nor the reversal's #seq,
  nor a word saying it was replaced;
- next_step_in_decisions [0]: checkpoints where a Decisions line holds the first 60
  characters of a folded next step's action (what it says to do);
- recent_files_named [80 %]: the files the last 30 exchanges read or changed are named
  anywhere in the view, as paths relative to the work tree: Claude Code's tools write them
  absolute (/home/pi/wx-station/src/main.rs), and an absolute path does not name its
  relative form;
- cut_answer_tail_kept [100 %]: when the last exchange's answer (without what the runtime
  appended to it) is not in the view whole, its last line (the last two when the last is
  under 16 characters) is;
- view_over_cap [0]: passes (and checkpoint files) where len(handoff.md) is over
  budget_net + budget_condense + budget_recit;
- mission_present [100 %]: the bee's mission, whitespace folded;
- next_step_placeholder [0]: checkpoints whose Next step reads "reprendre après", "voir le
  condensé", "resume after" or "see the condensed";
- view_fill [reported, no target]: len(handoff.md) / cap at every pass once the session is
  longer than the cap, median and minimum. The old eval held it to 75 %; these sessions'
  10-100 KB tool outputs fill net alone, and the next exchange pushes them out (net's
  rule): what the fill measures then is the session's shape, not what the view keeps;
- folds_per_100_evictions [<= 20]: over the whole run;
- lighthouses_over_half_condense [0 passes]: passes where the lighthouses in condensé (the
  summary's `condense` items with `phare`, their `chars`) hold more than half of
  `budget_condense` plus one entry's wrapper (the largest of theirs: its block less the
  texts it quotes), docs/reference.md §3.4.1;
- read_only_tickets_in_flight [0]: a ticket named so far only in folded tool outputs (a git
  log, a grep), never opened nor parked by the bee in a folded exchange, is the first
  ticket of a Work in progress line;
- failed_reads_listed [0]: a folded read that exited non-zero (a grep finding nothing, a
  missing file) has its #seq on an Errors line (a read is never a failure, docs/reference.md §3.8);
- rule_taken_for_work [0]: checkpoints where a Next step or Work in progress line holds the
  first 60 characters of a folded rule's words (a rule is for every time, not work to do).
A probe with nothing to measure at a checkpoint is skipped there.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import tomli_w
from eval_projects import project_for
from eval_session import CLOSE, OPEN, Session, fold, generate

from horizon.core.settings import GlobalConfig
from horizon.engine.bee_engine import BeeEngine, ReadNew, SweepAges
from horizon.engine.stepping import Pass
from horizon.hive.layout import handoff_path
from horizon.hive.settings_files import config_source, effective_settings

HERE = Path(__file__).resolve().parent
FULL_SEEDS, FULL_EXCHANGES = 6, 300
QUICK_SEEDS, QUICK_EXCHANGES = 2, 60
FILES_WINDOW = 30
PASS_DELAY_S = 2.0  # the daemon's pass comes about a debounce after the write
EXAMPLES_PER_SESSION = 3
EXAMPLES_PER_PROBE = 40
SECTION_EXCERPT = 1500
RULE_HEAD = 60  # of a rule's words, what names it on a line

# The récit's headings, in section order (docs/reference.md §3.5).
TITLES = {
    "fr": ("## Récit de soi", ("Mission", "Décisions", "Fichiers", "Erreurs",
                               "Paroles de l'apicultrice", "Travail en cours", "Prochaine étape")),
    "en": ("## Self-narrative", ("Mission", "Decisions", "Files", "Errors", "Operator's words",
                                 "Work in progress", "Next step")),
}
MISSION, DECISIONS, FILES, ERRORS, WORDS_, WORK, NEXT = range(7)
PLACEHOLDERS = ("reprendre après", "voir le condensé", "resume after", "see the condensed")
PAROLES_SHARE = 0.5  # of the récit's characters, what Operator's words may hold with non-rules
# Runtime markup no section line should carry (Claude Code's, Codex's).
MARKUP = ("system-reminder", "local-command-caveat", "command-name>", "environment_context")
NUDGE_CONTAINED = 20  # a nudge this long is noise wherever a line holds it
# A heading that says its entry failed (docs/reference.md §3.6's fields, and any mark).
FAILED_MARK = re.compile(r"(?i:\b(?:failed|failure|fail|échec|échouée?|en échec)\b)|[✗✘❌]"
                         r"|(?i:\bok\s*[:=]\s*false\b)")
RESOLVED = re.compile(r"\b(resolved|fixed|solved|now passes|passes now|résolue?s?|corrigée?s?|"
                      r"réparée?s?|réglée?s?)\b", re.IGNORECASE)
CLOSED = re.compile(r"\b(closed|closing|merged|done|shipped|fixed|resolved|fermée?|clos|close|"
                    r"livrée?|mergée?|fusionnée?|terminée?|bouclée?|corrigée?)\b", re.IGNORECASE)
REPLACED = re.compile(r"\b(replaced|superseded|reversed|abandoned|dropped|instead|obsolete|"
                      r"remplacée?s?|abandonnée?s?|annulée?s?|obsolète|au lieu|plutôt que)\b",
                      re.IGNORECASE)
_PRE = r"(?<![\w#-])(?<!\w/)"
_POST = r"(?![\w-]|\.\w|/\w)"
_CMD_POST = r"(?=$|[\s:;,)`\"'…]|\.(?:\s|$))(?!\s+(?:-\S|\S*/\S|\S*::))"


# -- reading a view -------------------------------------------------------------------------

@dataclass
class View:
    text: str
    plain: str  # quote markers removed, whitespace folded
    unquoted: str  # quote markers removed, lines kept
    sections: dict[int, list[str]]
    bodies: dict[int, str] = field(default_factory=dict)  # each section's body as written
    recit_chars: int = 0  # the récit block, its title to the first entry

    def section(self, index: int) -> list[str]:
        return self.sections.get(index, [])

    def section_text(self, index: int) -> str:
        return "\n".join(self.section(index))


def unquote(line: str) -> str:
    if line.startswith("> "):
        return line[2:]
    return line[1:] if line.startswith(">") else line


def parse_view(text: str, langue: str) -> View:
    title, names = TITLES[langue]
    lines = text.split("\n")
    sections: dict[int, list[str]] = {}
    bodies: dict[int, list[str]] = {}
    recit_chars = 0
    if title in lines:
        start = lines.index(title)
        recit_chars = len(title) + 1
        current: int | None = None
        for line in lines[start + 1:]:
            if line.startswith("### ") and line[4:].strip() in names:
                current = names.index(line[4:].strip())
                sections[current], bodies[current] = [], []
            elif line.startswith(("### ", "## ", "[horizon")):
                break  # the first condensed or net entry, or the notice
            elif current is not None:
                bodies[current].append(line)
                if unquote(line).strip():
                    sections[current].append(fold(unquote(line)))
            recit_chars += len(line) + 1
    unquoted = "\n".join(unquote(line) for line in lines)
    return View(text, fold(unquoted), unquoted, sections,
                {index: "\n".join(body).strip("\n") for index, body in bodies.items()},
                recit_chars)


def _pattern(key: str, flags: int = 0) -> re.Pattern[str]:
    return re.compile(_PRE + re.escape(key) + _POST, flags)


def names(text: str, key: str, *, ignore_case: bool = False) -> bool:
    return _pattern(key, re.IGNORECASE if ignore_case else 0).search(text) is not None


def names_command(text: str, command: str) -> bool:
    return re.search(r"(?<![\w./-])" + re.escape(fold(command)) + _CMD_POST, fold(text)) is not None


def names_seq(text: str, seq: int) -> bool:
    return re.search(rf"#{seq}(?!\d)", text) is not None


def names_ticket(text: str, aliases: tuple[str, ...]) -> bool:
    return any(names(text, alias, ignore_case=True) for alias in aliases)


def first_ticket(line: str, session: Session) -> str | None:
    """The ticket a line is about: the first one it names."""
    best: tuple[int, str] | None = None
    for ticket in session.tickets:
        for alias in ticket.aliases:
            found = _pattern(alias, re.IGNORECASE).search(line)
            if found and (best is None or found.start() < best[0]):
                best = (found.start(), ticket.name)
    return best[1] if best else None


def as_said(text: str) -> str:
    """A line or a message with its seq references and framing punctuation set aside, case
    folded: how a Paroles line is compared with the words it quotes."""
    bare = re.sub(r"#\d+", "", fold(text))
    return " ".join(bare.strip(" ,;:—–-…·()[]\"'«»“”>").split()).casefold()


def is_noise(line: str, nudges: set[str]) -> bool:
    """Runtime markup, or an orchestrator's nudge: the whole line, or inside it when long."""
    if any(mark in line for mark in MARKUP):
        return True
    said = as_said(line)
    return any(said == as_said(nudge) or (len(nudge) >= NUDGE_CONTAINED and fold(nudge) in line)
               for nudge in nudges)


def entry_block(text: str, seq: int) -> str | None:
    """An entry's block in the view: its `### #seq ·` heading to the next heading."""
    found = re.search(rf"^### #{seq} ·.*$", text, re.MULTILINE)
    if found is None:
        return None
    end = re.search(r"^(?:### |## |\[horizon)", text[found.end():], re.MULTILINE)
    return text[found.start():found.end() + (end.start() if end else len(text))]


def wrapper_chars(block: str) -> int:
    """What an entry's block adds around its texts: the heading, the labels, the quote
    markers and line ends."""
    return len(block) - sum(len(unquote(line)) for line in block.split("\n")
                            if line.startswith(">"))


def tail_of(answer: str) -> str:
    lines = [line for line in answer.split("\n") if line.strip()]
    if not lines:
        return ""
    if len(lines[-1].strip()) < 16 and len(lines) > 1:
        return fold(lines[-2] + " " + lines[-1])
    return fold(lines[-1])


# -- measures -------------------------------------------------------------------------------

@dataclass
class Probe:
    name: str
    kind: str  # ratio (hits over expected, at least target), count (at most target), value
    target: float
    label: str  # the target as printed
    section: int | None  # the section its examples show (None: the whole view)


PROBES = (
    Probe("rules_current_verbatim", "ratio", 1.0, "100 %", WORDS_),
    Probe("rule_replaced_shown", "count", 0, "0", WORDS_),
    Probe("rule_withdrawn_shown", "count", 0, "0", WORDS_),
    Probe("paroles_share", "count", 0, "0", WORDS_),
    Probe("chatter_quoted", "count", 0, "0", WORDS_),
    Probe("noise_in_sections", "count", 0, "0", None),
    Probe("open_failures_named", "ratio", 0.9, ">= 90 %", ERRORS),
    Probe("fixed_failures_listed_open", "count", 0, "0", ERRORS),
    Probe("failed_heading_marked", "ratio", 1.0, "100 %", None),
    Probe("failed_tail_kept", "ratio", 1.0, "100 %", None),
    Probe("open_tickets_in_progress", "ratio", 0.9, ">= 90 %", WORK),
    Probe("closed_tickets_in_flight", "count", 0, "0", WORK),
    Probe("next_step_newest", "ratio", 0.9, ">= 90 % of checkpoints", NEXT),
    Probe("decision_current", "ratio", 0.9, ">= 90 %", DECISIONS),
    Probe("decision_reversed_as_current", "count", 0, "0", DECISIONS),
    Probe("next_step_in_decisions", "count", 0, "0", DECISIONS),
    Probe("recent_files_named", "ratio", 0.8, ">= 80 %", FILES),
    Probe("cut_answer_tail_kept", "ratio", 1.0, "100 %", None),
    Probe("view_over_cap", "count", 0, "0 passes", None),
    Probe("mission_present", "ratio", 1.0, "100 %", MISSION),
    Probe("next_step_placeholder", "count", 0, "0", NEXT),
    Probe("view_fill", "value", 0.0, "reported", None),
    Probe("folds_per_100_evictions", "value", 20, "<= 20", None),
    Probe("lighthouses_over_half_condense", "count", 0, "0 passes", None),
    Probe("read_only_tickets_in_flight", "count", 0, "0", WORK),
    Probe("failed_reads_listed", "count", 0, "0", ERRORS),
    Probe("rule_taken_for_work", "count", 0, "0", NEXT),
)
BY_NAME = {probe.name: probe for probe in PROBES}


@dataclass
class Tally:
    hits: int = 0
    expected: int = 0  # ratio: items measured; count: items examined
    count: int = 0  # count probes: violations
    checkpoints: int = 0  # checkpoints where something was measured
    examples: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class Play:
    """One session's run: tallies, per-pass numbers, per-checkpoint rows."""

    session: Session
    tallies: dict[str, Tally] = field(default_factory=lambda: {p.name: Tally() for p in PROBES})
    fills: list[float] = field(default_factory=list)
    shares: list[float] = field(default_factory=list)  # Paroles over the récit, per checkpoint
    passes: int = 0
    over_cap: int = 0
    evictions: int = 0
    folds: int = 0
    rows: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0
    error: str | None = None

    def example(self, probe: str, checkpoint: int, expected: str, view: View | None,
                **more: Any) -> None:
        tally = self.tallies[probe]
        if len(tally.examples) >= EXAMPLES_PER_SESSION:
            return
        section = BY_NAME[probe].section
        if view is None:
            text = ""
        elif section is None:
            text = view.text[-SECTION_EXCERPT:]
        else:
            text = view.section_text(section)[:SECTION_EXCERPT]
        tally.examples.append({"session": self.session.name, "seed": self.session.seed,
                               "langue": self.session.langue, "variant": self.session.variant,
                               "checkpoint": checkpoint, "expected": expected,
                               "section": text, **more})

    def ratio(self, probe: str, checkpoint: int, hit: bool, expected: str,
              view: View | None, **more: Any) -> None:
        tally = self.tallies[probe]
        tally.expected += 1
        tally.hits += hit
        if not hit:
            self.example(probe, checkpoint, expected, view, **more)

    def violation(self, probe: str, checkpoint: int, bad: bool, expected: str,
                  view: View | None, **more: Any) -> None:
        tally = self.tallies[probe]
        tally.expected += 1
        tally.count += bad
        if bad:
            self.example(probe, checkpoint, expected, view, **more)


# -- playing a session ----------------------------------------------------------------------

def write_hive(root: Path, session: Session) -> Path:
    hive = root / f"hive-{session.name.replace('/', '-')}"
    shutil.rmtree(hive, ignore_errors=True)  # --keep into a folder of an earlier run
    (hive / "window").mkdir(parents=True)
    (hive / "bees").mkdir()
    settings = {"mission": session.mission, "horizon": session.horizon}
    (hive / "bees" / f"{session.bee}.toml").write_text(tomli_w.dumps(settings))
    return hive


def append(journal: Path, record: dict[str, Any]) -> None:
    """As the writer contract says: one write on an O_APPEND descriptor."""
    fd = os.open(journal, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o640)
    try:
        os.write(fd, json.dumps(record, ensure_ascii=False).encode() + b"\n")
    finally:
        os.close(fd)


def play(session: Session, root: Path, keep: bool) -> Play:
    result = Play(session)
    hive = write_hive(root, session)
    config = GlobalConfig()
    effective = effective_settings(config, config_source(None), hive, session.bee)
    cap = effective.horizon.cap
    half = effective.horizon.budget_condense / 2
    engine = BeeEngine(hive, session.bee, config, effective)
    journal = hive / "window" / f"{session.bee}-messages.jsonl"
    history = 0
    previous: float | None = None
    measured: set[int] = set()  # failed runs already measured in condensé

    def took(outcome: Pass | None) -> None:
        if outcome is None:
            return
        result.evictions += len(outcome.changes.evicted)
        result.folds += outcome.changes.folds
        result.passes += 1
        if len(outcome.view.text) > cap:
            result.over_cap += 1
            result.example("view_over_cap", outcome.state.checkpoint.seq,
                           f"len(handoff.md) <= {cap}", None, chars=len(outcome.view.text))
        check_pass(result, outcome.view.text, outcome.view.summary, half, measured)

    checkpoints = set(session.checkpoints)
    for exchange in session.exchanges:
        if previous is not None:
            moment = previous + 3600  # the daemon sweeps ages while nothing is written
            while moment < exchange.instant:
                took(engine.run(SweepAges(), moment, moment))
                moment += 3600
        append(journal, exchange.record)
        now = exchange.instant + PASS_DELAY_S
        outcome = engine.run(ReadNew(), now, now)
        took(outcome)
        if outcome is None:
            raise RuntimeError(f"no pass after exchange #{exchange.seq}")
        previous = now
        history += len(exchange.record["question"]) + len(exchange.record["answer"])
        if history > cap:
            result.fills.append(len(outcome.view.text) / cap)
        if exchange.seq in checkpoints:
            text = handoff_path(hive, session.bee).read_text(encoding="utf-8")
            if len(text) > cap:
                result.over_cap += 1
            probe(result, exchange.seq, text, outcome.view.summary, cap)
    if keep:
        (hive / "truth.json").write_text(json.dumps(session.truth(), indent=1,
                                                    ensure_ascii=False))
    return result


def folded_set(summary: dict[str, Any]) -> set[int]:
    shown = {item["seq"] for item in summary.get("condense", [])}
    shown |= {item["seq"] for item in summary.get("net", [])}
    shown |= {item["seq"] for item in summary.get("cut", []) if item.get("seq") is not None}
    return set(range(1, summary["up_to"] + 1)) - shown


def probe(result: Play, cp: int, text: str, summary: dict[str, Any], cap: int) -> None:
    """Every probe at checkpoint `cp`, against what the session knows up to it."""
    s = result.session
    view = parse_view(text, s.langue)
    folded = folded_set(summary)
    row: dict[str, Any] = {"seq": cp, "chars": len(text), "fill": round(len(text) / cap, 3),
                           "folded": len(folded), "condense": len(summary.get("condense", [])),
                           "net": len(summary.get("net", [])),
                           "cut": len(summary.get("cut", []))}
    before = {name: (t.hits, t.expected, t.count) for name, t in result.tallies.items()}
    for check in CHECKS:
        check(result, cp, view, folded)
    for name, tally in result.tallies.items():
        hits, expected, count = before[name]
        if tally.expected > expected:
            tally.checkpoints += 1
            kind = BY_NAME[name].kind
            row[name] = (f"{tally.hits - hits}/{tally.expected - expected}" if kind == "ratio"
                         else tally.count - count)
    result.rows.append(row)


def check_rules(result: Play, cp: int, view: View, folded: set[int]) -> None:
    s = result.session
    for rule in s.rules:
        if not rule.given or rule.given[0] > cp:
            continue
        text = fold(rule.text)
        if rule.replaced_at is not None and rule.replaced_at <= cp:
            replacement = next(r for r in s.rules if r.replaces == s.rules.index(rule))
            new_at = view.plain.find(fold(replacement.text))
            old_at = view.plain.rfind(text)
            bad = old_at >= 0 and (new_at < 0 or old_at > new_at)
            result.violation("rule_replaced_shown", cp, bad,
                             f"not shown after its replacement: {rule.text}", view,
                             replacement=replacement.text)
            continue
        if rule.withdrawn_at is not None and rule.withdrawn_at <= cp:
            assert rule.withdrawal is not None
            old_at = view.plain.rfind(text)
            bad = old_at >= 0 and view.plain.find(fold(rule.withdrawal), old_at) < 0
            result.violation("rule_withdrawn_shown", cp, bad,
                             f"withdrawn at #{rule.withdrawn_at}, not shown without its "
                             f"withdrawal after it: {rule.text}", view,
                             withdrawal=rule.withdrawal)
            continue
        result.ratio("rules_current_verbatim", cp, text in view.plain, rule.text, view,
                     given_at=rule.given)
    # A rule is for every time: never the next step nor the work in flight.
    given = [fold(rule.text)[:RULE_HEAD] for rule in s.rules
             if rule.given and rule.given[0] in folded]
    if given:
        lines = [fold(line) for line in view.section(NEXT) + view.section(WORK)]
        taken = [line for line in lines if any(head in line for head in given)]
        result.violation("rule_taken_for_work", cp, bool(taken),
                         "no rule as the next step or work in flight", view,
                         lines=taken[:3])


def check_words(result: Play, cp: int, view: View, folded: set[int]) -> None:
    """Operator's words hold rules: chatter is not quoted, and non-rules do not fill it."""
    s = result.session
    lines = view.section(WORDS_)
    current = [fold(rule.text) for rule in s.rules if rule.current(cp)]
    others = [line for line in lines if not any(rule in line for rule in current)]
    if WORDS_ in view.bodies and view.recit_chars:
        share = len(view.bodies[WORDS_]) / view.recit_chars
        result.shares.append(share)
        result.violation("paroles_share", cp, share > PAROLES_SHARE and bool(others),
                         f"Operator's words at most {PAROLES_SHARE:.0%} of the récit while it "
                         f"holds other lines than the current rules", view,
                         share=round(share, 3), not_rules=others[:5])
    said = {as_said(line) for line in others}
    for text in dict.fromkeys(c.text for c in s.chatter
                              if c.seq in folded and c.settles is None):
        result.violation("chatter_quoted", cp, as_said(text) in said,
                         f"chatter not quoted: {text!r}", view,
                         seqs=[c.seq for c in s.chatter if c.text == text and c.seq <= cp])


def check_noise(result: Play, cp: int, view: View, folded: set[int]) -> None:
    """No section line carries the runtime's markup or an orchestrator's nudge."""
    s = result.session
    nudges = {n.text for n in s.nudges if n.seq <= cp}
    for index in (DECISIONS, FILES, ERRORS, WORDS_, WORK, NEXT):
        if index not in view.sections:
            continue
        noisy = [line for line in view.section(index) if is_noise(line, nudges)]
        result.violation("noise_in_sections", cp, bool(noisy),
                         f"no runtime markup nor nudge in {TITLES[s.langue][1][index]}", view,
                         section=view.section_text(index)[:SECTION_EXCERPT], lines=noisy[:3])


def check_pass(result: Play, text: str, summary: dict[str, Any], half: float,
               measured: set[int]) -> None:
    """At every pass: the lighthouses' share of condensé, and each long failing run the
    first time it is shown there."""
    s = result.session
    up_to = summary["up_to"]
    condensed = {item["seq"]: item for item in summary.get("condense", [])}
    lighthouses = [item for item in condensed.values() if item["phare"]]
    if lighthouses:
        blocks = [entry_block(text, item["seq"]) for item in lighthouses]
        wrapper = max((wrapper_chars(block) for block in blocks if block), default=0)
        chars = sum(item["chars"] for item in lighthouses)
        result.violation("lighthouses_over_half_condense", up_to, chars > half + wrapper,
                         f"lighthouses in condensé at most {half:g} + {wrapper} characters",
                         None, chars=chars, lighthouses=[item["seq"] for item in lighthouses])
    for run in s.failed_runs:
        if run.seq in measured or run.seq not in condensed:
            continue
        measured.add(run.seq)
        block = entry_block(text, run.seq) or ""
        heading = block.split("\n", 1)[0]
        plain = fold("\n".join(unquote(line) for line in block.split("\n")))
        what = f"#{run.seq} {run.command}, failing {run.test}"
        result.ratio("failed_heading_marked", up_to, FAILED_MARK.search(heading) is not None,
                     f"heading marked failed: {what}", None, section=block[:SECTION_EXCERPT])
        result.ratio("failed_tail_kept", up_to, names(plain, run.test),
                     f"the failing test kept: {what}", None,
                     section=block[-SECTION_EXCERPT:])


def failure_named(line: str, command: str, path: str | None) -> bool:
    return names_command(line, command) or (path is not None and names(line, path))


def check_errors(result: Play, cp: int, view: View, folded: set[int]) -> None:
    s = result.session
    errors = view.section(ERRORS)
    for failure in s.failures:
        if failure.seq not in folded:
            continue
        # Fixed once the fix is in the view, folded or still below the récit: a view
        # whose Errors says "fails" above the run that passes tells the bee two things.
        fixed = failure.fixed_at is not None and failure.fixed_at <= cp
        what = f"{failure.command} (#{failure.seq}, {failure.kind}" + (
            f", path {failure.path})" if failure.path else ")")
        if not fixed:
            hit = any(failure_named(line, failure.command, failure.path) for line in errors)
            result.ratio("open_failures_named", cp, hit, f"named open: {what}", view,
                         fixed_at=failure.fixed_at)
            continue
        assert failure.fixed_at is not None
        bad = any(names_seq(line, failure.seq)
                  and failure_named(line, failure.command, failure.path)
                  and not names_seq(line, failure.fixed_at) and not RESOLVED.search(line)
                  for line in errors)
        result.violation("fixed_failures_listed_open", cp, bad,
                         f"not listed open: {what}, fixed at #{failure.fixed_at} "
                         f"({failure.fixed_by})", view)
    for read in s.failed_reads:
        if read.seq not in folded:
            continue
        bad = any(names_seq(line, read.seq) for line in errors)
        result.violation("failed_reads_listed", cp, bad,
                         f"a read is no failure: {read.command} (#{read.seq})", view)


def check_tickets(result: Play, cp: int, view: View, folded: set[int]) -> None:
    s = result.session
    work = view.section(WORK)
    work_text = "\n".join(work)

    def in_flight_line(name: str) -> bool:
        return any(first_ticket(line, s) == name and not CLOSED.search(line) for line in work)

    for ticket in s.tickets:
        # Its state in the view, folded or below the récit: closed there, it is not in
        # flight whatever the récit learnt before; open there, it is in Work in progress
        # when the récit can know it (the newest folded of its events is an opening).
        state = ticket.state(lambda seq: seq <= cp)
        if state is not None and state[0] == OPEN:
            state = ticket.state(lambda seq: seq in folded)
            if state is not None and state[0] == CLOSE:
                state = None  # reopened below the récit: shown there
        events = [event for event in ticket.events if event[0] <= cp]
        if state is not None and state[0] == CLOSE:
            result.violation("closed_tickets_in_flight", cp, in_flight_line(ticket.name),
                             f"not in flight: {ticket.name} (closed at #{state[1]}; "
                             f"events {events})", view)
        elif state is not None and state[0] == OPEN:
            negated = [q for q in ticket.not_closed if q <= cp]
            result.ratio("open_tickets_in_progress", cp, names_ticket(work_text, ticket.aliases),
                         f"in flight: {ticket.name} (opened at #{state[1]}, events {events}"
                         f"{', negated closings ' + str(negated) if negated else ''})", view)
        elif (any(seq in folded for seq in ticket.read_only)
              and not any(seq in folded for seq in ticket.parked)):
            result.violation("read_only_tickets_in_flight", cp, in_flight_line(ticket.name),
                             f"not in flight: {ticket.name}, only named in tool outputs "
                             f"{[q for q in ticket.read_only if q <= cp]}", view)


def check_next_step(result: Play, cp: int, view: View, folded: set[int]) -> None:
    s = result.session
    text = view.section_text(NEXT)
    if folded:
        lowered = text.lower()
        result.violation("next_step_placeholder", cp,
                         any(words in lowered for words in PLACEHOLDERS),
                         "no placeholder next step", view)
    stated = [step for step in s.steps if step.seq in folded]
    if not stated:
        return
    newest = max(stated, key=lambda step: step.seq)
    hit = any(names(text, key, ignore_case=key.startswith(("#", "issue"))) for key in newest.keys)
    result.ratio("next_step_newest", cp, hit,
                 f"#{newest.seq} ({newest.by}): {newest.text} — keys {list(newest.keys)}", view)


def check_decisions(result: Play, cp: int, view: View, folded: set[int]) -> None:
    s = result.session
    lines = view.section(DECISIONS)
    for subject in range(len(s.project.choices)):
        made = [d for d in s.decisions if d.subject == subject and d.seq in folded]
        if not made:
            continue
        newest = max(made, key=lambda d: d.seq)
        if any(d.subject == subject and newest.seq < d.seq <= cp for d in s.decisions):
            continue  # a newer one is shown below the récit, and the récit defers to it
        label = s.project.choices[subject].subject[s.langue]
        result.ratio("decision_current", cp,
                     any(names(line, newest.choice, ignore_case=True) for line in lines),
                     f"{label}: {newest.choice} (#{newest.seq}, by the {newest.by})", view)
        if newest.replaces is not None:
            old = newest.replaces
            bad = any(names(line, old, ignore_case=True)
                      and not names(line, newest.choice, ignore_case=True)
                      and not names_seq(line, newest.seq) and not REPLACED.search(line)
                      for line in lines)
            result.violation("decision_reversed_as_current", cp, bad,
                             f"{label}: {old} replaced by {newest.choice} at #{newest.seq} "
                             f"(by the {newest.by})", view)
    # A next step is work to do, not a decision.
    steps = [fold(step.action)[:RULE_HEAD] for step in s.steps if step.seq in folded]
    if steps:
        held = [line for line in lines if any(step in line for step in steps)]
        result.violation("next_step_in_decisions", cp, bool(held),
                         "no next step on a Decisions line", view, lines=held[:3])


def check_view(result: Play, cp: int, view: View, folded: set[int]) -> None:
    s = result.session
    result.ratio("mission_present", cp, fold(s.mission) in view.plain, s.mission, view)
    recent = [e for e in s.exchanges if cp - FILES_WINDOW < e.seq <= cp]
    for path in dict.fromkeys(p for e in recent for p in e.files):
        result.ratio("recent_files_named", cp, names(view.plain, path), path, view)
    last = s.exchanges[cp - 1]
    answer = last.clean_answer  # what the runtime appended is no verdict
    if answer.strip() and fold(answer) not in view.plain:
        tail = tail_of(answer)
        result.ratio("cut_answer_tail_kept", cp, tail in view.plain,
                     f"the tail of #{cp} ({len(answer)} characters): {tail}", view)


CHECKS: tuple[Callable[[Play, int, View, set[int]], None], ...] = (
    check_rules, check_words, check_noise, check_errors, check_tickets, check_next_step,
    check_decisions, check_view)


# -- the report -----------------------------------------------------------------------------

def measure(probe_: Probe, tally: Tally, plays: list[Play]) -> dict[str, Any]:
    """One probe's measure over some plays."""
    row: dict[str, Any] = {"target": probe_.label}
    if probe_.name == "view_over_cap":
        count = sum(p.over_cap for p in plays)
        passes = sum(p.passes for p in plays)
        row |= {"measured": count, "met": count == 0 if passes else None, "passes": passes}
    elif probe_.name == "view_fill":
        fills = [f for p in plays for f in p.fills]
        median = round(statistics.median(fills), 4) if fills else None
        row |= {"measured": median, "met": None,  # reported: no target (see the docstring)
                "passes": len(fills), "min": round(min(fills), 4) if fills else None}
    elif probe_.name == "folds_per_100_evictions":
        evictions, folds = sum(p.evictions for p in plays), sum(p.folds for p in plays)
        per_100 = round(100 * folds / evictions, 2) if evictions else None
        row |= {"measured": per_100, "evictions": evictions, "folds": folds,
                "met": None if per_100 is None else per_100 <= probe_.target}
    elif probe_.kind == "ratio":
        measured = round(tally.hits / tally.expected, 4) if tally.expected else None
        row |= {"measured": measured, "hits": tally.hits, "expected": tally.expected,
                "checkpoints": tally.checkpoints,
                "met": None if measured is None else measured >= probe_.target - 1e-9}
    else:
        row |= {"measured": tally.count, "examined": tally.expected,
                "checkpoints": tally.checkpoints,
                "met": tally.count <= probe_.target if tally.expected else None}
        if probe_.name == "paroles_share":
            shares = [share for p in plays for share in p.shares]
            row |= {"share_median": round(statistics.median(shares), 4) if shares else None,
                    "share_max": round(max(shares), 4) if shares else None}
    return row


def cell(row: dict[str, Any]) -> str:
    """A measure as the tables print it; paroles_share with its largest share."""
    if row.get("share_max") is not None:
        return f"{row['measured']} (max {row['share_max']:.0%})"
    return show(row["measured"])


def merged(plays: list[Play], name: str) -> Tally:
    total = Tally()
    for play_ in plays:
        tally = play_.tallies[name]
        total.hits += tally.hits
        total.expected += tally.expected
        total.count += tally.count
        total.checkpoints += tally.checkpoints
    return total


def report_of(plays: list[Play], args: argparse.Namespace, seconds: float) -> dict[str, Any]:
    sessions = []
    for play_ in plays:
        entry: dict[str, Any] = {"session": play_.session.name, "seed": play_.session.seed,
                                 "langue": play_.session.langue,
                                 "variant": play_.session.variant,
                                 "facts": play_.session.facts(), "seconds": round(play_.seconds, 2)}
        if play_.error:
            entry["error"] = play_.error
        entry["probes"] = {p.name: measure(p, play_.tallies[p.name], [play_]) for p in PROBES}
        entry["checkpoints"] = play_.rows
        sessions.append(entry)
    ok_plays = [p for p in plays if not p.error]
    overall = {}
    for p in PROBES:
        row = measure(p, merged(ok_plays, p.name), ok_plays)
        row["sessions_not_met"] = [s["session"] for s in sessions
                                   if s["probes"][p.name]["met"] is False]
        examples = [e for play_ in plays for e in play_.tallies[p.name].examples]
        row["failing_examples"] = examples[:EXAMPLES_PER_PROBE]
        overall[p.name] = row
    met = not any(p.error for p in plays) and all(
        row["met"] is not False for row in overall.values())
    return {"date": datetime.now(UTC).isoformat(timespec="seconds"),
            "seconds": round(seconds, 1), "seeds": args.seeds, "exchanges": args.exchanges,
            "quick": args.quick, "met": met, "probes": overall, "sessions": sessions}


def show(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.1%}" if value <= 1.0 else f"{value:g}"
    return str(value)


def met_mark(met: bool | None) -> str:
    return "-" if met is None else ("yes" if met else "[red]NO[/]")


def print_report(report: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(width=140)
    groups: dict[str, list[dict[str, Any]]] = {}
    for entry in report["sessions"]:
        key = f"seed {entry['seed']}" + (f" · {entry['variant']}" if entry["variant"] else "")
        groups.setdefault(key, []).append(entry)
    for key, entries in groups.items():
        facts = entries[0]["facts"]
        table = Table(title=f"{key}: {facts['project']} ({facts['flavor']}, "
                            f"{'ok/files' if facts['metadata'] else 'no ok/files'}), "
                            f"{facts['exchanges']} exchanges, {facts['chars']:,} characters",
                      title_justify="left")
        table.add_column("probe")
        for entry in entries:
            table.add_column(entry["langue"], justify="right")
        table.add_column("target")
        table.add_column("met")
        for p in PROBES:
            cells = [cell(entry["probes"][p.name]) for entry in entries]
            mets = [entry["probes"][p.name]["met"] for entry in entries]
            met = None if all(m is None for m in mets) else all(m is not False for m in mets)
            table.add_row(p.name, *cells, p.label, met_mark(met))
        console.print(table)
        for entry in entries:
            if entry.get("error"):
                console.print(f"[red]{entry['session']}: the run failed: {entry['error']}[/]")
    table = Table(title=f"memory eval, overall: {len(report['sessions'])} sessions, "
                        f"{report['seconds']} s", title_justify="left")
    for column in ("probe", "measured", "target", "met", "measured over", "sessions not met"):
        table.add_column(column)
    for name, row in report["probes"].items():
        over = row.get("expected", row.get("examined", row.get("passes", row.get("evictions"))))
        table.add_row(name, cell(row), row["target"], met_mark(row["met"]),
                      show(over), str(len(row["sessions_not_met"])))
    console.print(table)
    console.print("all targets met" if report["met"] else "[red]targets not met[/]")


# -- the command -------------------------------------------------------------------------

def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, help=f"seeds 1..N (default {FULL_SEEDS})")
    parser.add_argument("--exchanges", type=int,
                        help=f"exchanges per session (default {FULL_EXCHANGES})")
    parser.add_argument("--quick", action="store_true",
                        help=f"{QUICK_SEEDS} seeds x {QUICK_EXCHANGES} exchanges unless given")
    parser.add_argument("--out", type=Path, default=HERE / "memory.json")
    parser.add_argument("--keep", type=Path, help="keep the hives (and truth.json) here")
    args = parser.parse_args()
    args.seeds = args.seeds or (QUICK_SEEDS if args.quick else FULL_SEEDS)
    args.exchanges = args.exchanges or (QUICK_EXCHANGES if args.quick else FULL_EXCHANGES)
    if args.seeds < 1 or args.exchanges < 10:
        parser.error("--seeds must be at least 1 and --exchanges at least 10")
    root = args.keep or Path(tempfile.mkdtemp(prefix="horizon-eval-"))
    if args.keep:
        root.mkdir(parents=True, exist_ok=True)
    plan = [(seed, langue, "") for seed in range(1, args.seeds + 1) for langue in ("fr", "en")]
    plan += [(1, langue, "net3000") for langue in ("fr", "en")]
    start = time.perf_counter()
    plays = []
    try:
        for seed, langue, variant in plan:
            began = time.perf_counter()
            session = Session(seed, langue, variant, project_for(seed), "", False, {}, [])
            try:
                session = generate(seed, langue, args.exchanges, variant)
                play_ = play(session, root, args.keep is not None)
            except Exception as error:  # reported, never a traceback
                play_ = Play(session)
                play_.error = (f"{type(error).__name__}: {error}\n"
                               + "".join(traceback.format_exc(limit=-3)))
            play_.seconds = time.perf_counter() - began
            plays.append(play_)
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)
    report = report_of(plays, args, time.perf_counter() - start)
    args.out.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n")
    print_report(report)
    return 0 if report["met"] else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
    except Exception as error:  # never a traceback: say what went wrong, exit 1
        print(f"memory eval: {type(error).__name__}: {error}", file=sys.stderr)
        sys.exit(1)
