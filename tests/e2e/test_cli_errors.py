"""Operating-system errors reach the operator as one line, never a traceback."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

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


@pytest.mark.parametrize(("command", "missing", "said"), [
    (["serve"], "uvicorn", "the web view needs the web extra (uvicorn is missing)"),
    (["mcp", "HIVE", "b"], "mcp", "the MCP server needs the mcp extra (mcp.server is missing)"),
])
def test_a_command_whose_extra_is_missing_says_which(tmp_path: Path, command: list[str],
                                                     missing: str, said: str) -> None:
    hive = tmp_path / "hive"
    (hive / "window").mkdir(parents=True)
    (hive / "window" / "b-messages.jsonl").touch()
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"hives": [str(hive)]}), encoding="utf-8")
    argv = [str(hive) if word == "HIVE" else word for word in command]
    # The module made unimportable, as it is where the extra was not installed.
    script = (f"import sys; sys.modules[{missing!r}] = None\n"
              "from horizon.cli.main import main\n"
              f"sys.exit(main({[*argv, '--config', str(config)]!r}))")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            timeout=60, check=False)
    assert result.returncode == 1, result.stderr
    assert f"horizon: {said}: pip install 'horizon[" in result.stderr
    assert "Traceback" not in result.stderr
