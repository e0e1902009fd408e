"""`horizon status` as an operator reads it in an 80-column terminal (a real pty): no
line wider than the terminal, a degraded hive says why on a line of its own, and a zone
the hard cut took from says it was over its budget."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import struct
import subprocess
import termios
from pathlib import Path

from horizon.cli.status_text import bee_notes, over_budget
from horizon.core.reports import BeeReport, ZoneReport
from tests.e2e.daemon_harness import (
    HORIZON,
    Start,
    clean_env,
    entry,
    make_hive,
    wait_for,
    wait_for_up_to,
    write_config,
)

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def in_a_pty(argv: list[str], columns: int) -> tuple[int, list[str]]:
    """The command's exit and its screen lines, run on a terminal `columns` wide."""
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 40, columns, 0, 0))
    env = {key: value for key, value in clean_env().items()
           if key not in ("COLUMNS", "LINES")}
    process = subprocess.Popen(argv, stdin=follower, stdout=follower, stderr=follower,
                               env={**env, "TERM": "xterm"})
    os.close(follower)
    output = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the command closed the terminal
            break
        if not chunk:
            break
        output += chunk
    os.close(leader)
    code = process.wait(timeout=120)
    return code, [ANSI.sub("", line) for line in output.decode().splitlines()]


def test_status_fits_80_columns_and_says_why_it_is_degraded(
        tmp_path: Path, start: Start) -> None:
    long_name = "a-bee-with-a-rather-long-name-0123456789"
    hive = make_hive(tmp_path, [entry(f"q{n}") for n in range(30)], bee=long_name)
    for _ in range(3):  # rejected lines, of two reasons
        (hive / "window" / f"{long_name}-messages.jsonl").open("a").write("not json\n")
    (hive / "window" / f"{long_name}-messages.jsonl").open("a").write('{"ts": 1}\n')
    make_hive(tmp_path, [entry("question", "x" * 20_000)], bee="big",
              bee_toml="[horizon]\nactif = true\nbudget_net = 2000\nbudget_condense = 9000\n")
    make_hive(tmp_path, [entry("q")], bee="broken", bee_toml="[horizon\n")
    config = write_config(tmp_path, hive)
    start(config)
    wait_for_up_to(hive, 34, bee=long_name)
    wait_for_up_to(hive, 1, bee="big")
    argv = [HORIZON, "status", str(hive), "--config", str(config)]
    _code, lines = wait_for(lambda: (seen := in_a_pty(argv, 80)) and seen[0] == 3 and seen,
                           "status to report the broken bee as degraded")
    assert lines, "status printed nothing"
    # A line that quotes a path is never broken, so grep finds the path whole; every
    # other line fits, whether the bees are a table or a few lines each.
    for columns in (80, 100, 132, 200):
        width_lines = lines if columns == 80 else in_a_pty(argv, columns)[1]
        wide = [line for line in width_lines if len(line) > columns and str(hive) not in line]
        assert not wide, f"{columns} columns:\n" + "\n".join(wide)
    [degraded] = [line for line in lines if line.strip().startswith("degraded:")]
    assert "broken" in degraded, degraded
    report = json.loads(subprocess.run([*argv, "--json"], capture_output=True, text=True,
                                       env=clean_env(), check=False).stdout)
    assert {bee["bee"] for bee in report["hives"][0]["bees"]} == {long_name, "big", "broken"}


def test_a_zone_the_cut_took_from_is_named_over_its_budget() -> None:
    bee = BeeReport(bee="mia", zones={"net": ZoneReport(12_400, 12_000, 12_000),
                                      "condense": ZoneReport(5_000, 5_000, 6_000),
                                      "recit": ZoneReport(3_900, 3_000, 3_000)})
    assert over_budget(bee) == ["net over budget (12400/12000, cut to 12000)",
                                "récit over budget (3900/3000, cut to 3000)"]
    assert bee_notes(bee)[:2] == over_budget(bee)
