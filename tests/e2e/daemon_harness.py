"""A real `horizon run` process on a hive in tmp_path, and what the tests read of it.

The daemon is the installed command started with subprocess; the tests only look at what
an operator can see: files, the JSON log, the heartbeat and the other commands. Waits
poll with generous deadlines so a slow machine makes a test slower, never red.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

import httpx

HORIZON = shutil.which("horizon") or str(Path(sys.executable).parent / "horizon")
BEE = "b"
DEADLINE_S = 30.0
STOP_GRACE_S = 30.0  # a stop on a loaded machine; a hung one is still killed
# Variables that would make the daemon talk to a real systemd or read another config.
FOREIGN_ENV = ("HORIZON_CONFIG", "NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID",
               "INVOCATION_ID", "JOURNAL_STREAM", "LISTEN_FDS", "LISTEN_PID")

T = TypeVar("T")
Event = dict[str, Any]


def clean_env(**extra: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key not in FOREIGN_ENV}
    env.update(extra)
    return env


def wait_for(check: Callable[[], T | None], what: str, timeout: float = DEADLINE_S,
             every: float = 0.05) -> T:
    """Poll `check` until it returns something truthy; fail naming `what` at the deadline."""
    deadline = time.monotonic() + timeout
    while True:
        result = check()
        if result:
            return result
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(every)


# --- journals -----------------------------------------------------------------------------


def entry(question: str, answer: str = "ok", *, kind: str = "task",
          ts: float | None = None, **extra: Any) -> str:
    """One journal line (without its newline), stamped now unless told otherwise."""
    fields = {"ts": round(time.time() if ts is None else ts, 3), "type": kind,
              "question": question, "answer": answer, **extra}
    return json.dumps(fields, ensure_ascii=False)


def journal_path(hive: Path, bee: str = BEE) -> Path:
    return hive / "window" / f"{bee}-messages.jsonl"


def append(hive: Path, line: str, bee: str = BEE) -> None:
    """The writer contract: one write() of a whole line on an O_APPEND descriptor."""
    fd = os.open(journal_path(hive, bee), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o640)
    try:
        data = (line + "\n").encode("utf-8")
        assert os.write(fd, data) == len(data)
    finally:
        os.close(fd)


def make_hive(root: Path, lines: Sequence[str] = (), *, bee: str = BEE,
              bee_toml: str | None = None) -> Path:
    hive = root / "hive"
    (hive / "window").mkdir(parents=True, exist_ok=True)
    journal_path(hive, bee).touch()
    for line in lines:
        append(hive, line, bee)
    if bee_toml is not None:
        (hive / "bees").mkdir(exist_ok=True)
        (hive / "bees" / f"{bee}.toml").write_text(bee_toml, encoding="utf-8")
    return hive


def write_config(root: Path, hive: Path, *, horizon: dict[str, Any] | None = None,
                 **top: Any) -> Path:
    """config.json for one hive, fast timings; `horizon` and `top` override per test.

    The age sweep is slow (60 s): a sweep pass also reads new lines, which would hide
    how the debounce, max_wait_s and the write back-off schedule passes.
    """
    settings: dict[str, Any] = {"actif": True, "debounce_s": 0.1, "max_wait_s": 0.5}
    settings.update(horizon or {})
    document: dict[str, Any] = {"hives": [str(hive)], "log": {"dir": str(root / "logs")},
                                "poll_s": 0.2, "sweep_s": 60, "rotate_wait_s": 0.3,
                                "horizon": settings}
    document.update(top)
    path = root / "config.json"
    path.write_text(json.dumps(document, indent=2), encoding="utf-8")
    return path


# --- derived files ------------------------------------------------------------------------


def derived(hive: Path, bee: str = BEE) -> Path:
    return hive / "horizon" / bee


def read_text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (FileNotFoundError, NotADirectoryError):
        return None


def handoff(hive: Path, bee: str = BEE) -> str | None:
    return read_text(derived(hive, bee) / "handoff.md")


def header_up_to(text: str | None) -> int | None:
    """The `up_to` of handoff.md's first line."""
    if not text:
        return None
    for field in text.split("\n", 1)[0].split(" "):
        if field.startswith("up_to="):
            return int(field.removeprefix("up_to="))
    return None


def wait_for_up_to(hive: Path, seq: int, bee: str = BEE, timeout: float = DEADLINE_S) -> str:
    """handoff.md once its header says it has read up to `seq`."""

    def written() -> str | None:
        text = handoff(hive, bee)
        return text if (header_up_to(text) or 0) >= seq else None

    return wait_for(written, f"handoff.md of {bee} up to #{seq}", timeout)


def state(hive: Path, bee: str = BEE) -> dict[str, Any] | None:
    text = read_text(derived(hive, bee) / "state.json")
    return json.loads(text) if text else None


# --- the daemon ---------------------------------------------------------------------------


class Daemon:
    """`horizon run --config CONFIG` in the background; `stop` always leaves no process."""

    def __init__(self, config: Path, log_dir: Path, env: dict[str, str] | None = None,
                 cwd: Path | None = None, output: Path | None = None,
                 as_user: Sequence[str] = (), command: Sequence[str] = (HORIZON,)) -> None:
        self.config = config
        self.log_file = log_dir / "horizon.jsonl"
        self.output = output or config.parent / f"daemon-{time.monotonic_ns()}.out"
        with self.output.open("r+b" if self.output.exists() else "wb") as out:
            self.process = subprocess.Popen(
                [*as_user, *command, "run", "--config", str(config)], stdin=subprocess.DEVNULL,
                stdout=out, stderr=subprocess.STDOUT, env=env or clean_env(), cwd=cwd,
            )
        self.pid = self.process.pid

    def events(self, name: str | None = None, bee: str | None = None) -> list[Event]:
        """Every JSON log line so far (the last one only when complete)."""
        try:
            raw = self.log_file.read_text(encoding="utf-8")
        except FileNotFoundError:
            return []
        found = []
        for line in raw.splitlines(keepends=True):
            if not line.endswith("\n"):
                break
            event = json.loads(line)
            if (name is None or event.get("event") == name) and (
                    bee is None or event.get("bee") == bee):
                found.append(event)
        return found

    def wait_event(self, name: str, *, after: int = 0, bee: str | None = None,
                   timeout: float = DEADLINE_S,
                   where: Callable[[Event], bool] = lambda event: True) -> Event:
        """The first `name` event past the first `after` ones that matches `where`."""

        def seen() -> Event | None:
            self.assert_alive()
            matching = [e for e in self.events(name, bee)[after:] if where(e)]
            return matching[0] if matching else None

        return wait_for(seen, f"log event {name}", timeout)

    def wait_written(self, seq: int, bee: str = BEE) -> Event:
        """The `handoff.written` of `bee` whose up_to reaches `seq`. The loop logs it when
        the writer thread reports the file: a moment after the file can be seen, so a
        test that counts log lines after `wait_for_up_to` waits for this first."""
        return self.wait_event("handoff.written", bee=bee,
                               where=lambda event: event.get("up_to", 0) >= seq)

    def started(self) -> Daemon:
        self.wait_event("daemon.started")
        return self

    def assert_alive(self) -> None:
        code = self.process.poll()
        if code is not None:
            raise AssertionError(f"the daemon exited with {code}: {self.read_output()}")

    def read_output(self) -> str:
        return self.output.read_text(encoding="utf-8", errors="replace")

    def signal(self, signum: signal.Signals) -> None:
        self.assert_alive()
        os.kill(self.pid, signum)

    def stop(self) -> int:
        """SIGTERM, then SIGKILL after STOP_GRACE_S; the exit code."""
        return stopped(self.process)


def stopped(process: subprocess.Popen[Any]) -> int:
    """SIGTERM, then SIGKILL after STOP_GRACE_S; the exit code."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(STOP_GRACE_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    return process.returncode


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Serve:
    """`horizon serve --config CONFIG --listen 127.0.0.1:PORT` in the background."""

    def __init__(self, config: Path, *hives: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.output = config.parent / f"serve-{self.port}.out"
        with self.output.open("wb") as out:
            self.process = subprocess.Popen(
                [HORIZON, "serve", *map(str, hives), "--config", str(config),
                 "--listen", f"127.0.0.1:{self.port}"],
                stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                env=clean_env())

    def started(self) -> Serve:
        """Once the home page answers; fails with the server's output if it exited."""

        def answers() -> bool:
            if self.process.poll() is not None:
                raise AssertionError(f"horizon serve exited with {self.process.returncode}: "
                                     f"{self.read_output()}")
            try:
                return httpx.get(self.url + "/", timeout=5).status_code == 200
            except httpx.TransportError:
                return False

        wait_for(answers, f"horizon serve answering on {self.url}", every=0.1)
        return self

    def get(self, path: str, headers: dict[str, str] | None = None) -> httpx.Response:
        return httpx.get(self.url + path, headers=headers, timeout=10)

    def read_output(self) -> str:
        return self.output.read_text(encoding="utf-8", errors="replace")

    def stop(self) -> int:
        return stopped(self.process)


def horizon(config: Path, *args: str | Path) -> subprocess.CompletedProcess[str]:
    """One `horizon` command against the test's config.json."""
    return subprocess.run([HORIZON, *map(str, args), "--config", str(config)],
                          capture_output=True, text=True, env=clean_env(), timeout=60,
                          check=False)


def event_time(event: Event) -> float:
    """A log line's `ts` as epoch seconds."""
    return datetime.fromisoformat(event["ts"].replace("Z", "+00:00")).timestamp()


Start = Callable[..., Daemon]  # the `start` fixture (conftest.py): a started daemon


# --- systemd's notify socket ------------------------------------------------------------


class NotifyListener:
    """A real AF_UNIX datagram socket standing in for systemd's notify socket."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.datagrams: list[list[str]] = []
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(str(path))
        self.sock.settimeout(0.1)
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._collect, daemon=True)
        self.thread.start()

    def _collect(self) -> None:
        while not self.done.is_set():
            try:
                data = self.sock.recv(65536)
            except TimeoutError:
                continue
            self.datagrams.append(data.decode("utf-8").split("\n"))

    def index(self, line: str, after: int = 0) -> int | None:
        """Where the first datagram past `after` holding `line` (or `KEY=` prefix) is."""
        for number, datagram in enumerate(list(self.datagrams)[after:], start=after):
            if any(item == line or (line.endswith("=") and item.startswith(line))
                   for item in datagram):
                return number
        return None

    def wait(self, line: str, after: int = 0) -> int:
        wait_for(lambda: self.index(line, after) is not None, f"datagram {line}")
        index = self.index(line, after)
        assert index is not None
        return index

    def close(self) -> None:
        self.done.set()
        self.thread.join(5)
        self.sock.close()
