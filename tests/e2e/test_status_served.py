"""`status` with a broken config.json still reports the hives the daemon serves: the
daemon publishes them in its runtime folder."""

from __future__ import annotations

import json
import stat
import subprocess
from pathlib import Path

from tests.e2e.daemon_harness import (
    HORIZON,
    Daemon,
    clean_env,
    entry,
    make_hive,
    wait_for,
    wait_for_up_to,
    write_config,
)


def status(config: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([HORIZON, "status", "--config", str(config), *args],
                          capture_output=True, text=True, env=env, timeout=60, check=False)


def test_a_broken_config_json_says_so_and_reports_the_hives_served(tmp_path: Path) -> None:
    hive = make_hive(tmp_path, [entry("q1")])
    config = write_config(tmp_path, hive)
    runtime = tmp_path / "run"
    env = clean_env(HORIZON_RUNTIME_DIR=str(runtime))
    daemon = Daemon(config, tmp_path / "logs", env=env)
    try:
        daemon.started()
        wait_for_up_to(hive, 1)
        [published] = wait_for(lambda: list(runtime.glob("served-*.json")), "served hives")
        assert stat.S_IMODE(published.stat().st_mode) == 0o644
        document = json.loads(published.read_text())
        assert (document["pid"], document["hives"]) == (daemon.pid, [str(hive)])
        assert document["config"] == str(config) and document["format"] == 1

        config.write_text('{"hives": [', encoding="utf-8")  # half-saved
        daemon.wait_event("config.rejected")
        broken = status(config, env)
        assert broken.returncode == 3, broken.stdout + broken.stderr
        assert str(hive) in broken.stdout
        assert "config.json" in broken.stdout + broken.stderr
        report = json.loads(status(config, env, "--json").stdout)
        [served] = report["hives"]
        assert served["hive"] == str(hive) and served["daemon"]["running"]
        assert served["exit"] == 3

        # Another runtime folder knows nothing of it: no hive, said so.
        elsewhere = status(config, clean_env(HORIZON_RUNTIME_DIR=str(tmp_path / "other")))
        assert elsewhere.returncode == 1 and "no hive to report on" in elsewhere.stderr
    finally:
        assert daemon.stop() == 0
    assert not list(runtime.glob("served-*.json")), "withdrawn when the daemon stops"
    stopped = status(config, env)
    assert stopped.returncode == 1 and "no hive to report on" in stopped.stderr
