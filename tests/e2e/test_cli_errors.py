"""Operating-system errors reach the operator as one line, never a traceback."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

HORIZON = shutil.which("horizon") or str(Path(sys.executable).parent / "horizon")


def test_a_lock_file_that_is_a_folder_is_reported_plainly(tmp_path: Path) -> None:
    hive = tmp_path / "hive"
    (hive / "window").mkdir(parents=True)
    (hive / "window" / "mia-messages.jsonl").write_text(json.dumps(
        {"ts": 1_790_000_000, "type": "task", "question": "q", "answer": "a"}) + "\n")
    (hive / ".horizon.lock").mkdir()
    config = tmp_path / "config.json"
    config.write_text("{}")
    run = subprocess.run([HORIZON, "rebuild", str(hive), "--config", str(config)],
                         capture_output=True, text=True, timeout=60, check=False)
    assert run.returncode == 1
    assert "Traceback" not in run.stderr
    assert ".horizon.lock" in run.stderr
