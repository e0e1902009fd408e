"""A second daemon on hives one already serves: it says who holds them and leaves,
before it binds a port or writes a log line, touching nothing of the first."""

from __future__ import annotations

import subprocess
from pathlib import Path

import httpx

from tests.e2e.daemon_harness import (
    HORIZON,
    Start,
    append,
    clean_env,
    entry,
    free_port,
    make_hive,
    wait_for_up_to,
    write_config,
)


def test_a_second_daemon_names_the_holder_and_touches_nothing(
        tmp_path: Path, start: Start) -> None:
    hive = make_hive(tmp_path, [entry("one")])
    port = free_port()
    config = write_config(tmp_path, hive, metrics=f"127.0.0.1:{port}")
    first = start(config)
    wait_for_up_to(hive, 1)
    log = first.log_file.read_bytes()
    second = subprocess.run([HORIZON, "run", "--config", str(config)], capture_output=True,
                            text=True, timeout=120, check=False, env=clean_env())
    assert second.returncode == 1
    assert f"locked by pid {first.pid}" in second.stderr, second.stderr
    assert "metrics" not in second.stderr and "Traceback" not in second.stderr
    after = first.log_file.read_bytes()
    assert after.startswith(log)
    assert b"daemon.locked" not in after and b"metrics" not in after[len(log):]
    assert httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=10).status_code == 200
    append(hive, entry("two"))  # the first goes on serving
    wait_for_up_to(hive, 2)
    first.assert_alive()
