"""`horizon demo`, the installed command: the folders it refuses, starting its own hive
afresh, the numbers it shows, and how it leaves no process and no held lock behind,
whatever ends it. The terminal cases run the demo on a real pty.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import re
import select
import signal
import socket
import struct
import subprocess
import sys
import termios
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from tests.e2e.daemon_harness import HORIZON, clean_env, wait_for

MARKER = ".horizon-demo"
HIVE_FOLDERS = ("window", "bees")
HIVE_FILES = ("horizon.toml", ".horizon.lock")
STOPPED = re.compile(r"demo stopped after (\d+) exchanges")
# A session leader on the pty (its controlling terminal), then, by mode: `exec` becomes
# the demo; `nohup` becomes the demo with SIGHUP ignored, as under nohup; `parent` stays
# the session leader and runs the demo under a middle process the test can kill.
LAUNCHER = r"""
import fcntl, os, signal, subprocess, sys, termios
fcntl.ioctl(0, termios.TIOCSCTTY, 0)
mode, argv = sys.argv[1], sys.argv[2:]
if mode == "nohup":
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
if mode in ("exec", "nohup"):
    os.execv(argv[0], argv)
middle = "import subprocess, sys; sys.exit(subprocess.call(sys.argv[1:]))"
subprocess.Popen([sys.executable, "-c", middle, *argv])
while True:
    signal.pause()
"""


def demo_env(**extra: str) -> dict[str, str]:
    env = clean_env(**extra)
    for name in ("COLUMNS", "LINES"):
        if name not in extra:
            env.pop(name, None)
    return env


def run_demo(folder: Path, seconds: str = "1", **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [HORIZON, "demo", "--dir", str(folder), "--seconds", seconds],
        stdin=subprocess.DEVNULL, capture_output=True, text=True, env=demo_env(**env),
        cwd=folder.parent, check=False, timeout=120,
    )


def listing(folder: Path) -> dict[str, tuple[int, int, int]]:
    """Every path under `folder` with its mode, size and modification time."""
    found = {}
    for path in [folder, *folder.rglob("*")]:
        info = path.lstat()
        found[str(path.relative_to(folder))] = (info.st_mode, info.st_size, info.st_mtime_ns)
    return found


def lock_held(folder: Path) -> bool:
    try:
        fd = os.open(folder / ".horizon.lock", os.O_RDONLY)
    except FileNotFoundError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


def live_processes(under: Path, besides: tuple[int, ...] = ()) -> list[int]:
    """Pids of the processes, zombies aside, with an argument naming `under` or a path
    inside it."""
    prefix = str(under)
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) in besides or int(entry) == os.getpid():
            continue
        try:
            argv = Path(f"/proc/{entry}/cmdline").read_bytes().decode(errors="replace")
            status = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if status != "Z" and any(arg == prefix or arg.startswith(prefix + "/")
                                 for arg in argv.split("\0")):
            found.append(int(entry))
    return found


@pytest.fixture(autouse=True)
def no_leftovers(tmp_path: Path) -> Iterator[None]:
    """Whatever a failing test leaves running on its folders is killed when it ends."""
    yield
    for pid in live_processes(tmp_path):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


# --- folders it refuses -------------------------------------------------------------------


@pytest.mark.parametrize("name", HIVE_FOLDERS + HIVE_FILES)
def test_refuses_a_folder_holding_a_hive_and_writes_nothing(tmp_path: Path, name: str) -> None:
    folder = tmp_path / "hive"
    folder.mkdir()
    if name in HIVE_FOLDERS:
        (folder / name).mkdir()
    else:
        (folder / name).write_text("", encoding="utf-8")
    before = listing(folder)

    result = run_demo(folder)

    assert result.returncode == 1
    assert result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith("horizon: ") and name in result.stderr
    assert "Traceback" not in result.stderr
    assert listing(folder) == before
    assert not lock_held(folder)


def test_refuses_a_folder_in_use_that_it_did_not_make(tmp_path: Path) -> None:
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "config.json").write_text('{"mine": true}\n', encoding="utf-8")
    before = listing(folder)

    result = run_demo(folder)

    assert result.returncode == 1
    assert result.stderr.startswith("horizon: ") and "not empty" in result.stderr
    assert listing(folder) == before


def test_refuses_its_own_folder_while_a_daemon_serves_it(tmp_path: Path) -> None:
    folder = tmp_path / "demo-hive"
    first = subprocess.Popen(
        [HORIZON, "demo", "--dir", str(folder), "--seconds", "600"],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        env=demo_env(),
    )
    try:
        wait_for(lambda: lock_held(folder), "the first demo's daemon")
        before = listing(folder / "bees")

        second = run_demo(folder)

        assert second.returncode == 1
        assert "still serves" in second.stderr and "Traceback" not in second.stderr
        assert listing(folder / "bees") == before
        assert first.poll() is None
    finally:
        first.send_signal(signal.SIGTERM)
        first.wait(timeout=60)
    wait_for(lambda: not lock_held(folder), "the lock released")


def test_its_daemon_stopped_before_it_is_up_stops_cleanly(tmp_path: Path) -> None:
    """The demo may stop its daemon before a loaded machine has imported it: the stop
    waits for the daemon's handlers, it never kills by the default action."""
    from horizon.cli import demo, demo_hive

    config = demo_hive.write_config(demo_hive.make_hive(tmp_path / "demo-hive"))
    for _ in range(3):
        daemon = demo.start_daemon(config)
        daemon.process.send_signal(signal.SIGTERM)  # at once: it is still importing
        assert daemon.process.wait(timeout=60) == 0
        assert daemon.process.stdin is not None
        daemon.process.stdin.close()
        daemon.signals.restore()


# --- its own folder, twice ----------------------------------------------------------------


def journal_lines(folder: Path) -> int:
    return sum(path.read_bytes().count(b"\n")
               for path in (folder / "window").rglob("*-messages*.jsonl"))


def test_runs_twice_in_a_row_starting_afresh(tmp_path: Path) -> None:
    folder = tmp_path / "demo-hive"

    first = run_demo(folder)
    assert first.returncode == 0, first.stderr
    assert (folder / MARKER).is_file()
    second = run_demo(folder)

    assert second.returncode == 0, second.stderr
    written = STOPPED.search(second.stdout)
    assert written is not None, second.stdout
    # Afresh: the journals hold the second run's lines only.
    assert journal_lines(folder) == int(written.group(1))
    assert (folder / MARKER).is_file()
    assert not lock_held(folder)


# --- what it shows ------------------------------------------------------------------------


@pytest.mark.parametrize("columns", [80, 160])
def test_shows_each_zone_and_the_total_against_its_limit(tmp_path: Path, columns: int) -> None:
    folder = tmp_path / "demo-hive"

    result = run_demo(folder, COLUMNS=str(columns))

    assert result.returncode == 0, result.stderr
    screen = result.stdout.split("demo stopped")[0]
    for line in screen.splitlines():
        assert len(line) <= columns, line
    for label, limit in (("net", "1600"), ("condensé", "1200"), ("récit", "1400"),
                         ("handoff.md", "4200 cap"), ("handoff.md", "1500 handoff_max")):
        # At 120 columns and more, what the bee reads stands beside the gauges.
        assert re.search(rf"^\s*{label}\b.*\s\d+/{limit}(?:\s|$)", screen, re.MULTILINE), (
            label, limit, screen)


def test_shows_what_the_bee_reads_serves_the_web_view_and_says_what_next(
        tmp_path: Path) -> None:
    folder = tmp_path / "demo-hive"
    demo = subprocess.Popen([HORIZON, "demo", "--dir", str(folder), "--seconds", "8"],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=demo_env(COLUMNS="140"),
                            cwd=folder.parent)
    try:
        def web_address() -> str | None:
            for pid in live_processes(folder):
                try:
                    argv = Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")
                except OSError:
                    continue
                if any("web_guarded" in arg for arg in argv):
                    return argv[-2] if not argv[-1] else argv[-1]
            return None

        address = wait_for(web_address, "the demo's web view")
        assert address.startswith("127.0.0.1:"), address
        def answered() -> httpx.Response | None:
            if not _answers(address):
                return None
            response = httpx.get(f"http://{address}/", timeout=10)
            # The web view may answer before the daemon's first heartbeat: "no daemon"
            # is then the truth, and the page is asked again.
            served = response.status_code == 200 and "pid " in response.text
            return response if served else None

        page = wait_for(answered, "the web view to show the demo's daemon")
        assert str(folder) in page.text
        out, err = demo.communicate(timeout=120)
    finally:
        if demo.poll() is None:
            demo.kill()
            demo.wait()
    assert demo.returncode == 0, err
    screen = out.split("demo stopped")[0]
    assert f"web view: http://{address}/" in screen
    assert "what the bee reads" in screen and "Mission: " in screen
    assert re.search(r"newest: #\d+ · ", screen), screen
    # Side by side at 140 columns: the memory starts on the net gauge's line.
    assert re.search(r"^\s*net\b.*\d+/1600\s+what the bee reads", screen, re.MULTILINE), screen
    last = out.strip().splitlines()[-1]
    installed = str(Path(HORIZON).resolve())
    assert last.startswith(f"horizon is installed at {installed}; next: {installed} status"), last
    wait_for(lambda: not live_processes(folder), "the web view stopped with the demo")


def _answers(address: str) -> bool:
    host, port = address.rsplit(":", 1)
    with contextlib.suppress(OSError), socket.create_connection((host, int(port)), timeout=1):
        return True
    return False


# --- every way out, on a real terminal ----------------------------------------------------


class Terminal:
    """A demo whose controlling terminal is a pty the test holds the master side of."""

    def __init__(self, folder: Path, mode: str) -> None:
        self.folder = folder
        self.master, slave = os.openpty()
        fcntl.ioctl(self.master, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
        argv = [HORIZON, "demo", "--dir", str(folder), "--seconds", "600"]
        self.launcher = subprocess.Popen(
            [sys.executable, "-c", LAUNCHER, mode, *argv], stdin=slave, stdout=slave,
            stderr=slave, start_new_session=True, env=demo_env(TERM="xterm"),
        )
        os.close(slave)
        self.output = b""
        self.open = True

    def drain(self) -> None:
        while self.open and select.select([self.master], [], [], 0)[0]:
            try:
                data = os.read(self.master, 65536)
            except OSError as error:  # EIO once every slave side is closed
                assert error.errno == errno.EIO
                return
            if not data:
                return
            self.output += data

    def close(self) -> None:
        if self.open:
            self.open = False
            os.close(self.master)

    def processes(self, besides: tuple[int, ...] = ()) -> list[int]:
        self.drain()
        return live_processes(self.folder, besides)

    def demo_pid(self) -> int:
        """The demo itself: the process running `horizon demo`, not its launchers."""

        def find() -> int | None:
            for pid in self.processes():
                try:
                    argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
                except OSError:
                    continue
                if b"demo" in argv and b"-c" not in argv:  # not a launcher, not the daemon
                    return pid
            return None

        return wait_for(find, "the demo process")

    def wait_up(self) -> None:
        def up() -> bool:
            self.drain()
            assert self.launcher.poll() is None, self.output.decode(errors="replace")
            return lock_held(self.folder)

        wait_for(up, "the demo's daemon holding the lock")


@pytest.fixture
def terminal() -> Iterator[list[Terminal]]:
    """Terminals opened by a test, closed at its end, their launchers killed and reaped."""
    opened: list[Terminal] = []
    yield opened
    for term in opened:
        term.close()
        term.launcher.kill()
        term.launcher.wait()


def assert_all_gone(term: Terminal, besides: tuple[int, ...] = ()) -> None:
    wait_for(lambda: not term.processes(besides), "no process of the demo left")
    wait_for(lambda: not lock_held(term.folder), "the hive lock released")


def ctrl_c(term: Terminal, demo: int) -> None:
    os.write(term.master, b"\x03")


def sigterm(term: Terminal, demo: int) -> None:
    os.kill(demo, signal.SIGTERM)


def sighup(term: Terminal, demo: int) -> None:
    os.kill(demo, signal.SIGHUP)


@pytest.mark.parametrize("stop", [ctrl_c, sigterm, sighup], ids=lambda f: f.__name__)
def test_a_signal_stops_the_demo_and_its_daemon(
        tmp_path: Path, terminal: list[Terminal], stop: Callable[[Terminal, int], None]) -> None:
    term = Terminal(tmp_path / "demo-hive", "exec")
    terminal.append(term)
    term.wait_up()
    demo = term.demo_pid()

    stop(term, demo)

    assert_all_gone(term)
    code = term.launcher.wait(timeout=60)
    term.drain()
    shown = term.output.decode(errors="replace")
    assert code == 0, shown
    assert "demo stopped after" in shown and "Traceback" not in shown


@pytest.mark.parametrize("mode", ["exec", "nohup"])
def test_a_closed_terminal_stops_the_demo_and_its_daemon(
        tmp_path: Path, terminal: list[Terminal], mode: str) -> None:
    """With SIGHUP (the session leader's hang-up) and without it (SIGHUP ignored, as
    under nohup: the demo then learns it from the terminal's I/O errors)."""
    term = Terminal(tmp_path / "demo-hive", mode)
    terminal.append(term)
    term.wait_up()

    term.close()

    assert_all_gone(term)


def test_killing_the_demo_stops_its_daemon(tmp_path: Path, terminal: list[Terminal]) -> None:
    term = Terminal(tmp_path / "demo-hive", "exec")
    terminal.append(term)
    term.wait_up()

    os.kill(term.demo_pid(), signal.SIGKILL)

    assert_all_gone(term)
    again = run_demo(term.folder)
    assert again.returncode == 0, again.stderr


def test_killing_the_demos_parent_stops_the_demo_and_its_daemon(
        tmp_path: Path, terminal: list[Terminal]) -> None:
    term = Terminal(tmp_path / "demo-hive", "parent")
    terminal.append(term)
    term.wait_up()
    parent = int(Path(f"/proc/{term.demo_pid()}/stat").read_text().rsplit(")", 1)[1].split()[1])
    assert parent != term.launcher.pid

    os.kill(parent, signal.SIGKILL)

    # The session leader (the terminal's shell, in real life) lives on.
    assert_all_gone(term, besides=(term.launcher.pid,))
    assert term.launcher.poll() is None
    again = run_demo(term.folder)
    assert again.returncode == 0, again.stderr
