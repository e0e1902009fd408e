"""The real-session eval (bench/real_sessions.py) runs, so it cannot rot between runs.

It checks that the real transcript converts without a problem, goes through the engine one
pass per entry, and that both texts, horizon's view and Claude Code's summary, are scored on
every probe. Whether horizon is behind the summary is the eval's business, not this test's:
only the cap is held, which holds whatever the récit's rules are.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROBES = ["files_edited", "open_failures", "operator_prompts", "current_request",
          "open_tickets", "last_answer_tail", "pending_tickets"]


def test_the_real_session_eval_prints_both_scores(tmp_path: Path) -> None:
    out = tmp_path / "real_sessions.json"
    run = subprocess.run([sys.executable, str(ROOT / "bench" / "real_sessions.py"), "--report",
                          "--out", str(out), "--keep", str(tmp_path / "hive")],
                         capture_output=True, text=True, timeout=120, check=False)
    assert run.returncode == 0, run.stderr  # --report: 0 whatever the scores
    assert "Traceback" not in run.stderr + run.stdout, run.stderr
    for probe in PROBES:
        row = re.search(rf"{probe}\s*│\s*(\d+)/(\d+)\s*│\s*(\d+)/(\d+)", run.stdout)
        assert row is not None, (probe, run.stdout)
        assert row[2] == row[4] and int(row[2]) > 0, probe
    assert "of a 21,000 cap" in run.stdout
    assert "Operator's words:" in run.stdout
    report = json.loads(out.read_text())
    assert report["problems"] == []
    assert report["entries"] > 200 and report["passes"] >= report["entries"]
    assert report["cap"] == 21_000 and report["view_chars"] <= report["cap"]
    assert report["over_cap_passes"] == 0
    assert set(report["probes"]) == set(PROBES)
    for probe, row in report["probes"].items():
        for text in ("horizon", "claude_code"):
            assert row[text]["hits"] + len(row[text]["missed"]) == row[text]["expected"], probe
    # The hive played has no mission: the bee's settings are a real user's.
    settings = (tmp_path / "hive" / "hive" / "bees" / "spotter.toml").read_text()
    assert "mission" not in settings and "actif = true" in settings
