"""A reader that stops reading (`horizon status | head -1`, `| grep -q ok`): the command
exits with what it had to say, never with a failure of its own, and prints no traceback."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.e2e.daemon_harness import (
    HORIZON,
    Start,
    append,
    clean_env,
    entry,
    make_hive,
    wait_for_up_to,
    write_config,
)


def closed_reader(*args: str, config: Path) -> subprocess.CompletedProcess[bytes]:
    """The command with its stdout a pipe whose reader is already gone."""
    read, write = os.pipe()
    os.close(read)
    try:
        return subprocess.run([HORIZON, *args, "--config", str(config)], stdout=write,
                              stderr=subprocess.PIPE, timeout=120, check=False,
                              env=clean_env())
    finally:
        os.close(write)


def test_status_to_a_closed_reader_exits_with_the_hives_code(
        tmp_path: Path, start: Start) -> None:
    hive = make_hive(tmp_path)
    config = write_config(tmp_path, hive)
    append(hive, entry("q"))
    unserved = closed_reader("status", str(hive), config=config)
    assert unserved.returncode == 1, unserved.stderr  # no daemon: said on stderr
    assert b"Traceback" not in unserved.stderr and b"BrokenPipe" not in unserved.stderr
    start(config)
    wait_for_up_to(hive, 1)
    for args in (("status", str(hive)), ("status", str(hive), "--json"),
                 ("render", str(hive), "b"), ("show", str(hive), "b", "1"),
                 ("top", str(hive), "--once")):
        served = closed_reader(*args, config=config)
        assert served.returncode == 0, (args, served.stderr)
        assert served.stderr == b"", (args, served.stderr)
