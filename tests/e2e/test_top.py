"""`horizon top` in a real terminal: tmux runs it on a private server against a real
daemon, and the tests read the screen as an operator would (`capture-pane`), press its
keys, and check that it quits leaving the terminal as it found it."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import subprocess
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.e2e.daemon_harness import (
    HORIZON,
    Start,
    append,
    clean_env,
    entry,
    horizon,
    make_hive,
    wait_for,
    wait_for_up_to,
    write_config,
)
from tests.e2e.test_metrics import free_port

TMUX = shutil.which("tmux")
BEES = ("alpha", "mid", "zed")  # zed's settings get broken: last by name, first on screen
pytestmark = pytest.mark.skipif(TMUX is None, reason="tmux is not installed")


def terminal_env() -> dict[str, str]:
    """Without the COLUMNS and LINES pytest-xdist exports: the pane has its own size."""
    env = clean_env(TERM="xterm-256color")
    for name in ("COLUMNS", "LINES"):
        env.pop(name, None)
    return env


class Terminal:
    """A tmux server of the test's own (its private socket), one window running a shell
    command; everything said is read back with capture-pane, wrapped lines joined."""

    def __init__(self) -> None:
        self.socket = f"horizon-top-{uuid.uuid4().hex[:12]}"
        self.socket_path: Path | None = None

    def tmux(self, *args: str) -> str:
        assert TMUX is not None
        result = subprocess.run([TMUX, "-L", self.socket, "-f", "/dev/null", *args],
                                capture_output=True, text=True, timeout=30, check=False,
                                env=terminal_env())
        assert result.returncode == 0, result.stderr
        return result.stdout

    def start(self, command: str, width: int, height: int = 30) -> None:
        self.tmux("new-session", "-d", "-s", "top", "-x", str(width), "-y", str(height),
                  command)
        self.socket_path = Path(self.tmux("display-message", "-p", "#{socket_path}").strip())

    def lines(self) -> list[str]:
        return self.tmux("capture-pane", "-p", "-J", "-t", "top").rstrip("\n").split("\n")

    def keys(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", "top", *keys)

    def resize(self, width: int, height: int = 30) -> None:
        self.tmux("resize-window", "-t", "top", "-x", str(width), "-y", str(height))

    def close(self) -> None:
        subprocess.run([TMUX or "tmux", "-L", self.socket, "kill-server"],
                       capture_output=True, timeout=30, check=False)
        if self.socket_path is not None:  # a killed server leaves its socket file behind
            self.socket_path.unlink(missing_ok=True)


@pytest.fixture
def terminal() -> Iterator[Terminal]:
    screen = Terminal()
    yield screen
    screen.close()


def top_in_a_shell(config: Path) -> str:
    """top, then what the shell sees once it is gone: its exit code and the terminal's
    modes (a terminal left in cbreak mode says -icanon -echo). Ctrl-C reaches the shell
    too: its trap keeps it alive, and leaves top's own handling of the signal alone."""
    top = shlex.join([HORIZON, "top", "--config", str(config)])
    return shlex.join(["sh", "-c", f"trap : INT; {top}; echo \"top exited $?\"; stty -a; "
                                   "exec sleep 600"])


def top_gone_and_modes_shown(lines: list[str]) -> bool:
    """The shell has said top's exit code and printed the modes after it: the screen
    can show the first line a moment before the second."""
    words = set(" ".join(lines).split())
    return "top exited 0" in lines and bool({"icanon", "-icanon"} & words)


def rows_of(lines: list[str]) -> dict[str, tuple[int, str]]:
    """Each bee's row on the screen: its line number and text."""
    found = {}
    for number, line in enumerate(lines):
        words = line.removeprefix("! ").split(" ")
        if words and words[0] in BEES:
            found[words[0]] = (number, line)
    return found


def wait_screen(terminal: Terminal, check: Callable[[list[str]], bool], what: str,
                timeout: float = 30.0) -> list[str]:
    """The screen once `check` holds for it."""

    def seen() -> list[str] | None:
        lines = terminal.lines()
        return lines if check(lines) else None

    return wait_for(seen, what, timeout, every=0.2)


def status_zones(config: Path, hive: Path, bee: str) -> dict[str, dict[str, int]]:
    result = horizon(config, "status", hive, "--json")
    [report] = json.loads(result.stdout)["hives"]
    zones: dict[str, dict[str, int]] = next(
        item for item in report["bees"] if item["bee"] == bee)["zones"]
    return zones


def a_hive_with_a_degraded_bee(tmp_path: Path, start: Start, **top: object
                               ) -> tuple[Path, Path]:
    hive = make_hive(tmp_path, [entry(f"q{n}", "a" * 300) for n in range(20)], bee="alpha")
    make_hive(tmp_path, [entry("m"), "not json"], bee="mid")
    make_hive(tmp_path, [entry("z")], bee="zed")
    config = write_config(tmp_path, hive, horizon={"budget_net": 2000}, **top)
    start(config)
    for bee, last in (("alpha", 20), ("mid", 2), ("zed", 1)):
        wait_for_up_to(hive, last, bee)
    (hive / "bees").mkdir()
    (hive / "bees" / "zed.toml").write_text("[horizon\n", encoding="utf-8")
    return hive, config


def test_top_at_80_and_160_columns_degraded_first_keys_and_a_clean_exit(
        tmp_path: Path, start: Start, terminal: Terminal) -> None:
    hive, config = a_hive_with_a_degraded_bee(tmp_path, start)
    zones = status_zones(config, hive, "alpha")
    terminal.start(top_in_a_shell(config), 80)

    lines = wait_screen(terminal, lambda lines: len(rows_of(lines)) == 3, "three bees")
    rows = rows_of(lines)
    assert rows["zed"][0] < rows["alpha"][0] < rows["mid"][0], lines
    assert rows["zed"][1].startswith("! zed")
    assert all(len(line) <= 80 for line in lines), lines
    for zone in zones.values():
        assert f"{zone['after']}/{zone['budget']}" in rows["alpha"][1], rows["alpha"][1]
    assert any("settings rejected: bees/zed.toml" in line for line in lines), lines

    terminal.resize(160)
    lines = wait_screen(terminal, lambda lines: any("passes/s" in line and "notes" in line
                                                    for line in lines), "every column")
    rows = rows_of(lines)
    assert all(len(line) <= 160 for line in lines), lines
    for zone in zones.values():
        cut = f"{zone['before']}→" if zone["before"] != zone["after"] else ""
        assert f" {cut}{zone['after']}/{zone['budget']} " in rows["alpha"][1], rows["alpha"]
    assert rows["zed"][0] < rows["alpha"][0] < rows["mid"][0]

    terminal.keys("d")
    wait_screen(terminal, lambda lines: set(rows_of(lines)) == {"zed"}
                and any("degraded only: on" in line for line in lines), "degraded only")
    terminal.keys("d", "/", "a", "l")
    wait_screen(terminal, lambda lines: any("filter: al_" in line for line in lines)
                and set(rows_of(lines)) == {"alpha"}, "the filter being typed")
    terminal.keys("Enter", "s")
    wait_screen(terminal, lambda lines: set(rows_of(lines)) == {"alpha"} and any(
        "sort: degraded, lag · / filter: al" in line for line in lines), "filter and sort")

    terminal.keys("q")
    lines = wait_screen(terminal, top_gone_and_modes_shown, "top to quit")
    modes = " ".join(lines).split()
    assert "icanon" in modes and "echo" in modes, lines
    assert "-icanon" not in modes and "-echo" not in modes, lines


def test_top_follows_the_journal_and_counts_passes(
        tmp_path: Path, start: Start, terminal: Terminal) -> None:
    hive, config = a_hive_with_a_degraded_bee(tmp_path, start)
    terminal.start(top_in_a_shell(config), 160)

    def alpha_entries(lines: list[str]) -> int | None:
        row = rows_of(lines).get("alpha")
        return int(row[1].split()[1]) if row else None

    wait_screen(terminal, lambda lines: alpha_entries(lines) == 20, "alpha's 20 entries")
    for number in range(3):
        append(hive, entry(f"new {number}"), bee="alpha")
    wait_screen(terminal, lambda lines: alpha_entries(lines) == 23, "the entries to change")

    def alpha_rate(lines: list[str]) -> float:
        row = rows_of(lines).get("alpha")
        cells = row[1].split() if row else []
        rate = next((cells[n + 2] for n, cell in enumerate(cells) if cell == "troncature"),
                    "-")
        return float(rate) if rate != "-" else 0.0

    # A rate is Δpasses over the time between two beats, which are 10 s apart.
    wait_screen(terminal, lambda lines: alpha_rate(lines) > 0, "alpha's passes per second",
                timeout=45)
    terminal.keys("q")
    wait_screen(terminal, lambda lines: "top exited 0" in lines, "top to quit")


@pytest.mark.parametrize("stop", ["Ctrl-C", "SIGTERM"])
def test_top_stopped_by_ctrl_c_or_sigterm_restores_the_terminal(
        tmp_path: Path, terminal: Terminal, stop: str) -> None:
    hive = make_hive(tmp_path, [entry("q")], bee="alpha")  # no daemon: top shows it so
    terminal.start(top_in_a_shell(write_config(tmp_path, hive)), 100)
    wait_screen(terminal, lambda lines: "alpha" in rows_of(lines)
                and any("no daemon" in line for line in lines), "top's first frame")
    if stop == "Ctrl-C":
        terminal.keys("C-c")
    else:
        shell = int(terminal.tmux("display-message", "-p", "-t", "top", "#{pane_pid}"))
        [top] = Path(f"/proc/{shell}/task/{shell}/children").read_text().split()
        os.kill(int(top), signal.SIGTERM)
    lines = wait_screen(terminal, top_gone_and_modes_shown, f"{stop} to quit")
    modes = " ".join(lines).split()
    assert "icanon" in modes and "echo" in modes, lines
    assert "-icanon" not in modes and "-echo" not in modes, lines


def once(config: Path, *args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([HORIZON, "top", *map(str, args), "--config", str(config)],
                          capture_output=True, text=True, timeout=60, check=False,
                          env=clean_env(COLUMNS="160"))


def test_top_once_uses_the_metrics_and_says_when_they_are_unreachable(
        tmp_path: Path, start: Start) -> None:
    port = free_port()
    hive, config = a_hive_with_a_degraded_bee(tmp_path, start, metrics=f"127.0.0.1:{port}")
    result = once(config)  # stdout is a pipe: one frame even without --once
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert "metrics:" in lines[0] and "unreachable" not in lines[0], lines
    assert "passes/s (metrics)" in lines[1], lines
    assert lines[-1].startswith("s sort")
    assert [line.split()[1] for line in lines if line.startswith("! ")] == ["zed"]

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    lonely = write_config(elsewhere, hive, metrics=f"127.0.0.1:{free_port()}")
    result = once(lonely, hive, "--once")
    assert result.returncode == 0, result.stderr
    assert "metrics: unreachable" in result.stdout.splitlines()[0]
    assert "alpha" in result.stdout, "the files still speak"


def test_top_refuses_a_missing_hive_in_one_line(tmp_path: Path) -> None:
    hive = make_hive(tmp_path, [entry("q")])
    config = write_config(tmp_path, hive)
    result = horizon(config, "top", tmp_path / "nowhere")
    assert result.returncode == 1
    assert result.stderr.startswith("horizon: hive not found:"), result.stderr
    assert len(result.stderr.splitlines()) == 1 and "Traceback" not in result.stderr

    (tmp_path / "empty").mkdir()
    empty = tmp_path / "empty" / "config.json"
    empty.write_text("{}", encoding="utf-8")
    result = horizon(empty, "top")
    assert result.returncode == 1 and "no hive to show" in result.stderr
