"""The memory eval (`make eval`) at a small size, so it cannot rot between runs.

It checks that the harness runs the generated sessions through the engine and reports every
probe, and the one guarantee that holds whatever the récit's rules are: the view stays
within its cap. Whether the targets are met is `make eval`'s business, not this test's.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROBES = {
    "rules_current_verbatim", "rule_replaced_shown", "rule_withdrawn_shown", "paroles_share",
    "chatter_quoted", "noise_in_sections", "open_failures_named",
    "fixed_failures_listed_open", "failed_heading_marked", "failed_tail_kept",
    "open_tickets_in_progress", "closed_tickets_in_flight", "next_step_newest",
    "decision_current", "decision_reversed_as_current", "next_step_in_decisions",
    "recent_files_named", "cut_answer_tail_kept", "view_over_cap", "mission_present",
    "next_step_placeholder", "view_fill", "folds_per_100_evictions",
    "lighthouses_over_half_condense", "read_only_tickets_in_flight", "failed_reads_listed",
    "rule_taken_for_work",
}
SESSIONS = ["1/fr", "1/en", "2/fr", "2/en", "1/net3000/fr", "1/net3000/en"]


def test_the_memory_eval_runs_and_reports_every_probe(tmp_path: Path) -> None:
    out, hives = tmp_path / "memory.json", tmp_path / "hives"
    run = subprocess.run([sys.executable, str(ROOT / "bench" / "memory.py"), "--quick",
                          "--out", str(out), "--keep", str(hives)],
                         capture_output=True, text=True, timeout=120, check=False)
    assert run.returncode in (0, 1), run.stderr  # 1: a target not met, not a crash
    assert "Traceback" not in run.stderr + run.stdout, run.stderr
    report = json.loads(out.read_text())
    assert report["quick"] is True and (report["seeds"], report["exchanges"]) == (2, 60)
    assert report["met"] is (run.returncode == 0)
    assert set(report["probes"]) == PROBES
    for name, row in report["probes"].items():
        assert "measured" in row and "target" in row, name
        assert row["met"] in (True, False, None), name
        assert isinstance(row["failing_examples"], list), name
    # Things every small run has to measure: it would hide a broken probe otherwise.
    for name in ("rules_current_verbatim", "open_failures_named", "recent_files_named",
                 "cut_answer_tail_kept", "mission_present", "next_step_newest"):
        assert report["probes"][name]["expected"] > 0, name
    assert report["probes"]["view_over_cap"]["measured"] == 0
    sessions = report["sessions"]
    assert [s["session"] for s in sessions] == SESSIONS
    for session in sessions:
        assert not session.get("error"), session.get("error")
        assert set(session["probes"]) == PROBES
        assert session["facts"]["exchanges"] == 60
        assert [row["seq"] for row in session["checkpoints"]] == [12, 24, 36, 48, 60]
        over_cap = session["probes"]["view_over_cap"]
        assert over_cap["measured"] == 0 and over_cap["passes"] >= 60, session["session"]
    # Odd seeds' runtime writes `ok` and `files`, even seeds' never does.
    odd = (hives / "hive-1-fr" / "window" / "anemo-messages.jsonl").read_text().splitlines()
    even = (hives / "hive-2-fr" / "window" / "ledger-messages.jsonl").read_text().splitlines()
    assert any("ok" in json.loads(line) for line in odd)
    assert not any({"ok", "files"} & set(json.loads(line)) for line in even)
    assert (hives / "hive-1-fr" / "truth.json").is_file()


def test_a_seed_tells_the_same_story_in_both_languages() -> None:
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        from eval_session import generate
    finally:
        sys.path.remove(str(ROOT / "bench"))
    french, english = generate(3, "fr", 80), generate(3, "en", 80)
    assert [e.label for e in french.exchanges] == [e.label for e in english.exchanges]
    assert [e.record.get("tool") for e in french.exchanges] == [
        e.record.get("tool") for e in english.exchanges]
    assert [f.command for f in french.failures] == [f.command for f in english.failures]
    assert len(french.rules) == len(english.rules)
    assert french.rules[0].text != english.rules[0].text  # the words are each language's
