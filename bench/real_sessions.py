"""A real session's memory at Claude Code's compaction: horizon's view against Claude
Code's own summary, scored by the same probes against a hand-written ground truth.

    python bench/real_sessions.py            # exit 1 when horizon scores below the summary
    python bench/real_sessions.py --report   # the same table, exit 0 whatever it shows

The session is tests/fixtures/real-sessions/claude-code-ae4a77f8.jsonl (spotter's, MIT).
Claude Code compacted it at line 1481 (its `compact_boundary`); the last assistant message
of claude-code-ae4a77f8.compaction.jsonl is the summary Claude Code carried on from.

How it runs. The transcript's lines before the compaction are converted with
horizon.imports.claude_code and played through the real engine in-process as
bench/memory.py's play() plays a generated session: one pass per entry at the entry's
instant + 2 s, age sweeps hourly across the gaps between entries, in a hive whose
bees/<bee>.toml holds `horizon = {actif = true, langue = "en"}` at the default budgets and
no mission (a real user does not write one). The view read is handoff.md after the last
entry's pass.

The ground truth (bench/real_sessions/<session>.truth.toml) was written by reading the
transcript, never from horizon's code or output; its comments give the lines it rests on.

The probes. Each text is read whole, quote markers (`>`) removed and whitespace folded
(memory.py's parse_view): the summary has no sections, and a reader of the view reads
all of it, so no part of either text counts more than another. Names are matched as
memory.py matches them (`names`): whole, not inside a longer word, path or id, so
`spotter-4te` is not named by `spotter-4te.1` nor `test.exs` by `config/test.exs`.
- files_edited: each file an Edit or a Write changed is named by its relative path or by
  its basename (both texts shorten paths, "config.exs, dev.exs"; the same leniency for
  both);
- open_failures: each failure still open is named by one of its keys, any case (the check
  that failed, as a reader would call it: "dialyzer");
- operator_prompts: each typed prompt is named when its first 60 characters, whitespace
  folded and in any case, appear (a quote), or when every one of its key words does (a
  paraphrase keeping what was asked: "spotter-4te", "first ready task");
- current_request: the operator's last request, by its key ("spotter-4te"), any case;
- open_tickets: each ticket in flight, by its name, any case;
- pending_tickets: tickets listed but never started; reported, not compared;
- last_answer_tail: the last line of the last assistant text, whitespace folded.
A text "hits" an item when it names it. Without --report the run fails (exit 1) when on
any compared probe horizon's hits are fewer than the summary's, or the view is over the
cap. horizon's sections are looked at only for the report, never for the exit code (the
summary has none to compare with): the last column, and `in_section` in the JSON, say
whether the section meant for an item names it (Files; Errors; Operator's words; Work in
progress for the request and the tickets), so what only the net's raw entries hold shows.
The share of the Self-narrative's characters that its "Operator's words" section takes
(its heading included) is printed too.

Writes bench/real_sessions.json: per probe and text, the hits, the expected count, and
the items missed.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import tomllib
from dataclasses import dataclass
from datetime import UTC, datetime
from itertools import islice
from pathlib import Path
from typing import Any

import tomli_w
from eval_session import fold
from memory import (
    ERRORS,
    FILES,
    PASS_DELAY_S,
    TITLES,
    WORDS_,
    WORK,
    View,
    append,
    names,
    parse_view,
)

from horizon.core.entries import parse_ts
from horizon.core.settings import GlobalConfig
from horizon.engine.bee_engine import BeeEngine, ReadNew, SweepAges
from horizon.hive.layout import handoff_path
from horizon.hive.settings_files import config_source, effective_settings
from horizon.imports import Converted, Problem, Unfinished, claude_code, journal_record

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SESSIONS = HERE / "real_sessions"
DEFAULT_SESSION = "claude-code-ae4a77f8"
PROMPT_HEAD = 60  # of a prompt, the characters that quote it
SWEEP_S = 3600  # the daemon sweeps ages while nothing is written (memory.py's play)
HORIZON, SUMMARY = "horizon", "claude_code"
# Probes compared for the exit code, and the view section meant for each (None: none).
PROBES: dict[str, int | None] = {
    "files_edited": FILES, "open_failures": ERRORS, "operator_prompts": WORDS_,
    "current_request": WORK, "open_tickets": WORK, "last_answer_tail": None,
}
REPORTED = {"pending_tickets": WORK}


# -- the two texts ------------------------------------------------------------------------------

@dataclass
class Played:
    view: str
    cap: int
    entries: int
    passes: int
    over_cap: int
    problems: list[str]


def converted_until(transcript: Path, line: int) -> tuple[list[dict[str, Any]], list[str]]:
    """The journal records of the transcript's lines before `line`, and what went wrong."""
    records, problems = [], []
    with transcript.open("rb") as lines:
        for result in claude_code.entries(islice(enumerate(lines, 1), line - 1)):
            if isinstance(result, Converted):
                records.append(journal_record(result.entry))
            elif isinstance(result, Problem):
                problems.append(f"line {result.line_number}: {result.reason}")
            elif isinstance(result, Unfinished):
                problems.append(f"line {result.line_number}: {result.tool} call unanswered")
    return records, problems


def write_hive(root: Path, bee: str) -> Path:
    """A hive whose bee has the horizon on, in English, at the default budgets, no mission."""
    hive = root / "hive"
    (hive / "window").mkdir(parents=True)
    (hive / "bees").mkdir()
    settings = {"horizon": {"actif": True, "langue": "en"}}
    (hive / "bees" / f"{bee}.toml").write_text(tomli_w.dumps(settings))
    return hive


def play(records: list[dict[str, Any]], bee: str, root: Path,
         problems: list[str]) -> Played:
    """The records through the real engine, one pass each, as memory.py's play() does."""
    hive = write_hive(root, bee)
    config = GlobalConfig()
    effective = effective_settings(config, config_source(None), hive, bee)
    cap = effective.horizon.cap
    engine = BeeEngine(hive, bee, config, effective)
    journal = hive / "window" / f"{bee}-messages.jsonl"
    passes = over_cap = 0
    previous: float | None = None
    for record in records:
        instant = parse_ts(record["ts"])
        if instant is None:
            raise ValueError(f"an entry whose ts the daemon cannot read: {record['ts']!r}")
        if previous is not None:
            moment = previous + SWEEP_S
            while moment < instant:
                swept = engine.run(SweepAges(), moment, moment)
                if swept is not None:
                    passes += 1
                    over_cap += len(swept.view.text) > cap
                moment += SWEEP_S
        append(journal, record)
        now = instant + PASS_DELAY_S
        outcome = engine.run(ReadNew(), now, now)
        if outcome is None:
            raise RuntimeError(f"no pass after the entry of {record['ts']}")
        passes += 1
        over_cap += len(outcome.view.text) > cap
        previous = now
    text = handoff_path(hive, bee).read_text(encoding="utf-8")
    return Played(text, cap, len(records), passes, over_cap, problems)


def summary_of(compaction: Path) -> str:
    """The text of the compaction run's last assistant message."""
    last = None
    for line in compaction.read_text(encoding="utf-8").splitlines():
        if line.strip():
            record = json.loads(line)
            if record.get("type") == "assistant":
                last = record
    if last is None:
        raise ValueError(f"{compaction}: no assistant message")
    content = last["message"]["content"]
    if isinstance(content, str):
        return content
    return "\n\n".join(block["text"] for block in content if block.get("type") == "text")


# -- the probes (the same for both texts) -------------------------------------------------------

def file_named(text: str, path: str) -> bool:
    return names(text, path) or names(text, path.rpartition("/")[2])


def any_key(text: str, keys: list[str]) -> bool:
    return any(names(text, key, ignore_case=True) for key in keys)


def prompt_named(text: str, prompt: dict[str, Any]) -> bool:
    head = fold(prompt["text"])[:PROMPT_HEAD].lower()
    return head in text.lower() or all(names(text, key, ignore_case=True)
                                       for key in prompt["keys"])


def items(truth: dict[str, Any], probe: str) -> list[tuple[str, Any]]:
    """(what is reported, what is matched) for each item a probe expects."""
    if probe == "files_edited":
        return [(path, path) for path in truth["files_edited"]]
    if probe == "open_failures":
        return [(f["keys"][0], f["keys"]) for f in truth["open_failures"]]
    if probe == "operator_prompts":
        return [(fold(p["text"])[:PROMPT_HEAD], p) for p in truth["operator_prompts"]]
    if probe == "current_request":
        request = truth["current_request"]
        return [(request["what"], request["keys"])]
    if probe in ("open_tickets", "pending_tickets"):
        return [(ticket, [ticket]) for ticket in truth[probe]]
    if probe == "last_answer_tail":
        return [(truth["last_answer_tail"], fold(truth["last_answer_tail"]))]
    raise KeyError(probe)


def hit(probe: str, text: str, item: Any) -> bool:
    """Whether `text` (folded, unquoted) names one item of `probe`."""
    if probe == "files_edited":
        return file_named(text, item)
    if probe == "operator_prompts":
        return prompt_named(text, item)
    if probe == "last_answer_tail":
        return bool(item) and item in text
    return any_key(text, item)


def score(probe: str, truth: dict[str, Any], view: View,
          section: int | None) -> dict[str, Any]:
    expected = items(truth, probe)
    missed = [label for label, item in expected if not hit(probe, view.plain, item)]
    row: dict[str, Any] = {"hits": len(expected) - len(missed), "expected": len(expected),
                           "missed": missed}
    if section is not None and view.sections:
        lines = fold(view.section_text(section))
        row["in_section"] = {label: hit(probe, lines, item) for label, item in expected}
    return row


def words_share(text: str) -> dict[str, Any]:
    """The characters of the Self-narrative, and those its Operator's words section takes
    (heading included)."""
    title, headings = TITLES["en"]
    lines = text.split("\n")
    if title not in lines:
        return {"recit_chars": 0, "words_chars": 0, "share": None}
    start = lines.index(title)
    end = len(lines)
    for index in range(start + 1, len(lines)):
        line = lines[index]
        if line.startswith(("## ", "[horizon")) or (
                line.startswith("### ") and line[4:].strip() not in headings):
            end = index
            break
    recit = lines[start:end]
    words: list[str] = []
    inside = False
    for line in recit[1:]:
        if line.startswith("### "):
            inside = line[4:].strip() == headings[WORDS_]
        if inside:
            words.append(line)
    recit_chars = len("\n".join(recit))
    words_chars = len("\n".join(words))
    return {"recit_chars": recit_chars, "words_chars": words_chars,
            "share": round(words_chars / recit_chars, 4) if recit_chars else None}


# -- the run ------------------------------------------------------------------------------------

def evaluate(session: str, keep: Path | None) -> dict[str, Any]:
    truth = tomllib.loads((SESSIONS / f"{session}.truth.toml").read_text(encoding="utf-8"))
    records, problems = converted_until(ROOT / truth["transcript"], truth["compaction_line"])
    root = keep or Path(tempfile.mkdtemp(prefix="horizon-real-"))
    try:
        played = play(records, truth["bee"], root, problems)
    finally:
        if keep is None:
            shutil.rmtree(root, ignore_errors=True)
    summary = summary_of(ROOT / truth["compaction"])
    texts = {HORIZON: parse_view(played.view, "en"), SUMMARY: parse_view(summary, "en")}
    probes: dict[str, dict[str, Any]] = {}
    for probe, section in {**PROBES, **REPORTED}.items():
        probes[probe] = {name: score(probe, truth, view, section if name == HORIZON else None)
                         for name, view in texts.items()}
        probes[probe]["compared"] = probe in PROBES
    behind = [probe for probe in PROBES
              if probes[probe][HORIZON]["hits"] < probes[probe][SUMMARY]["hits"]]
    return {
        "date": datetime.now(UTC).isoformat(timespec="seconds"), "session": session,
        "compaction_line": truth["compaction_line"], "entries": played.entries,
        "passes": played.passes, "problems": played.problems,
        "cap": played.cap, "view_chars": len(played.view), "summary_chars": len(summary),
        "over_cap_passes": played.over_cap + (len(played.view) > played.cap),
        "operator_words": words_share(played.view),
        "probes": probes, "horizon_behind": behind,
        "met": not behind and played.over_cap == 0 and len(played.view) <= played.cap,
        "view": played.view,
    }


def cell(row: dict[str, Any]) -> str:
    return f"{row['hits']}/{row['expected']}"


def section_cell(row: dict[str, Any]) -> str:
    found = row.get("in_section")
    return "-" if found is None else f"{sum(found.values())}/{len(found)}"


def print_report(report: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(width=120)
    table = Table(title=f"{report['session']} at its compaction (line "
                        f"{report['compaction_line']}): {report['entries']} entries, "
                        f"{report['passes']} passes", title_justify="left")
    for column in ("probe", "horizon", "Claude Code summary", "horizon behind",
                   "horizon, its section only"):
        table.add_column(column)
    for probe, row in report["probes"].items():
        behind = (("[red]yes[/]" if probe in report["horizon_behind"] else "no")
                  if row["compared"] else "reported")
        table.add_row(probe, cell(row[HORIZON]), cell(row[SUMMARY]), behind,
                      section_cell(row[HORIZON]))
    console.print(table)
    over = report["view_chars"] > report["cap"] or report["over_cap_passes"]
    console.print(f"view: {report['view_chars']:,} characters of a {report['cap']:,} cap"
                  f" ({report['view_chars'] / report['cap']:.1%})"
                  f"{', [red]over the cap[/]' if over else ''};"
                  f" passes over the cap: {report['over_cap_passes']};"
                  f" Claude Code's summary: {report['summary_chars']:,} characters")
    words = report["operator_words"]
    share = "-" if words["share"] is None else f"{words['share']:.1%}"
    console.print(f"Operator's words: {words['words_chars']:,} of the Self-narrative's "
                  f"{words['recit_chars']:,} characters ({share})")
    for problem in report["problems"]:
        console.print(f"[yellow]conversion: {problem}[/]")
    console.print("horizon is not behind the summary" if report["met"]
                  else "[red]horizon is behind the summary, or over the cap[/]")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--session", default=DEFAULT_SESSION,
                        help=f"a truth file's name in bench/real_sessions (default "
                             f"{DEFAULT_SESSION})")
    parser.add_argument("--report", action="store_true",
                        help="exit 0 whatever the scores (the table is the same)")
    parser.add_argument("--out", type=Path, default=HERE / "real_sessions.json")
    parser.add_argument("--keep", type=Path, help="keep the hive in this (new) folder")
    args = parser.parse_args()
    report = evaluate(args.session, args.keep)
    args.out.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n")
    print_report(report)
    return 0 if args.report or report["met"] else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
    except Exception as error:  # never a traceback: say what went wrong, exit 1
        print(f"real-session eval: {type(error).__name__}: {error}", file=sys.stderr)
        sys.exit(1)
