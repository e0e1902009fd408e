"""The memory benchmark (`make eval`) at a small size, so it cannot rot between runs.

It checks that the harness runs and reports every probe, and the one guarantee that holds
whatever the récit's rules are: the view stays within its cap. Whether the targets are
met is `make eval`'s business.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROBES = {
    "rules_verbatim", "mission", "files_before_net", "open_failures_named",
    "fixed_failures_listed_open", "ticket_in_flight", "next_step_placeholder",
    "view_over_cap", "view_fill", "folds_per_100_evictions",
    "info_open_failures_out_of_net_named", "info_next_step_names_newest_stated",
}


@pytest.mark.parametrize("langue", ["fr", "en"])
def test_the_memory_bench_runs_and_reports_every_probe(tmp_path: Path, langue: str) -> None:
    out = tmp_path / "memory.json"
    run = subprocess.run([sys.executable, str(ROOT / "bench" / "memory.py"), "--exchanges", "60",
                          "--quick", "--langue", langue, "--out", str(out)],
                         capture_output=True, text=True, timeout=300, check=False)
    assert run.returncode in (0, 1), run.stderr  # 1: a target not met, not a crash
    assert "Traceback" not in run.stderr, run.stderr
    report = json.loads(out.read_text())
    assert report["quick"] is True and report["exchanges"] == 60
    assert report["met"] is (run.returncode == 0)
    result = report["languages"][langue]
    assert not result.get("error"), result.get("error")
    assert result["session"]["exchanges"] == 60
    assert result["session"]["chars"] >= 60 * 2500
    probes = result["probes"]
    assert set(probes) == PROBES
    for name, probe in probes.items():
        assert "measured" in probe and "target" in probe, name
        assert probe["met"] in (True, False, None), name
    assert probes["view_over_cap"]["measured"] == 0
    assert probes["view_over_cap"]["samples"] >= 60  # every pass is looked at
    assert probes["view_fill"]["samples"] > 0 and probes["view_fill"]["min"] is not None
    assert probes["folds_per_100_evictions"]["evictions"] > 0
    samples = result["samples"]
    assert [row["seq"] for row in samples] == [10, 20, 30, 40, 50, 60]
    assert all(row["chars"] <= 21000 for row in samples)
