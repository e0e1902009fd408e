"""`horizon demo`: a demo hive, a simulated bee writing to it, the zones filling live.

The demo writes only into a new or empty folder, or into one it made itself (its marker
file says so), and it never outlives its daemon nor leaves it behind: the daemon runs in
its own session, out of reach of the terminal's signals, stopped by the demo on every way
out, and stops itself when the demo dies without a word (its stdin pipe reaches EOF).
"""

from __future__ import annotations

import contextlib
import errno
import importlib.util
import os
import random
import signal
import socket
import subprocess
import sys
import termios
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import TypeAlias

from rich.console import Console, RenderableType
from rich.live import Live

from horizon.cli import demo_screen as shown
from horizon.cli.demo_hive import (
    CLASSIC_BEE,
    CONFIG_FILE,
    DAEMON_ERRORS,
    HORIZON_BEE,
    LOG_DIR,
    append_line,
    exchange,
)
from horizon.cli.exits import DemoError
from horizon.core.settings import GlobalConfig
from horizon.hive.layout import (
    window_dir,
)
from horizon.hive.settings_files import config_source
from horizon.service.logs import LOG_FILE

STOP_GRACE_S = 15.0
CATCH_UP_S = 1.0
# The daemon's process: `horizon run` with a thread that stops it when its stdin closes.
_GUARDED_RUN = ("import sys; from horizon.cli.demo import serve_guarded; "
                "sys.exit(serve_guarded(sys.argv[1]))")
_STOPS = {signal.SIGTERM, signal.SIGINT, signal.SIGHUP}
_GUARDED_WEB = ("import sys; from horizon.cli.demo import web_guarded; "
                "sys.exit(web_guarded(sys.argv[1], sys.argv[2]))")
WEB_ERRORS = "web.err"


# --- stopping on every way out ----------------------------------------------------------


class StopDemo(KeyboardInterrupt):
    """SIGTERM or SIGHUP asked the demo to stop. A KeyboardInterrupt, so that wherever it
    lands the demo unwinds through the same teardown as on Ctrl-C."""


# What signal.signal takes and getsignal gives (typeshed's own alias is private).
SignalHandler: TypeAlias = Callable[[int, FrameType | None], object] | int | signal.Handlers


@dataclass
class _Signals:
    """Ctrl-C, SIGTERM and SIGHUP stop the demo, once: a second one must not cut the
    teardown short."""

    previous: dict[signal.Signals, SignalHandler] = field(default_factory=dict)
    stopping: bool = False

    def install(self) -> None:
        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            previous = signal.getsignal(signum)
            if signum == signal.SIGHUP and previous == signal.SIG_IGN:
                continue  # under nohup: simulate notices a closed terminal by asking it
            self.previous[signum] = signal.SIG_DFL if previous is None else previous
            signal.signal(signum, self._stop)

    def _stop(self, signum: int, frame: FrameType | None) -> None:
        if not self.stopping:
            self.stopping = True
            raise StopDemo(signal.Signals(signum).name)

    def hold(self) -> None:
        self.stopping = True

    def restore(self) -> None:
        for signum, handler in self.previous.items():
            signal.signal(signum, handler)


def _hung_up() -> list[int]:
    """Which of stdout and stderr are a terminal that hung up (a closed window, a lost
    ssh session): one that answers every request with an I/O error."""
    gone = []
    for fd in (1, 2):
        try:
            termios.tcgetattr(fd)
        except termios.error as error:
            if error.args and error.args[0] == errno.EIO:
                gone.append(fd)
    return gone


def _silence(fds: list[int]) -> None:
    """Send what is left to print there to /dev/null: a hung-up terminal fails every
    write, and the demo still has its daemon to stop and a last line to print."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    for fd in fds:
        os.dup2(devnull, fd)
    os.close(devnull)


@dataclass
class DemoDaemon:
    """The demo's `horizon run` process, and what the demo needs to stop it."""

    process: subprocess.Popen[bytes]
    errors: Path
    parent: int
    signals: _Signals

    def check(self) -> None:
        code = self.process.poll()
        if code is None:
            return
        try:
            lines = self.errors.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            lines = []
        said = next((line for line in reversed(lines) if line.strip()), "")
        raise DemoError(f"the daemon stopped (exit {code})" + (f": {said}" if said else ""))


def start_daemon(config: Path) -> DemoDaemon:
    """`horizon run` in its own session, so that the terminal's signals reach the demo
    alone, and the demo decides when its daemon stops."""
    signals = _Signals()
    signals.install()
    errors = config.parent / LOG_DIR / DAEMON_ERRORS
    errors.parent.mkdir(mode=0o750, exist_ok=True)
    # The daemon starts with the stop signals blocked (a mask outlives exec) and unblocks
    # them once its handlers are in: the demo may stop it before a loaded machine has
    # even imported it, and that stop must be a clean one.
    held = signal.pthread_sigmask(signal.SIG_BLOCK, _STOPS)
    try:
        with errors.open("wb") as stream:
            process = subprocess.Popen(
                [sys.executable, "-c", _GUARDED_RUN, str(config)],
                stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=stream,
                start_new_session=True,
            )
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)
    return DemoDaemon(process, errors, os.getppid(), signals)


def serve_guarded(config: str) -> int:
    """`horizon run --config CONFIG` that stops (SIGTERM, then for good after a grace)
    when its stdin reaches EOF: the demo never writes to it, so EOF means the demo is
    gone, however it went, SIGKILL included."""
    from horizon.service import daemon

    threading.Thread(target=_stop_at_eof, name="demo-guard", daemon=True).start()
    return daemon.run(Path(config), log_stdout=False)


def web_guarded(config: str, listen: str) -> int:
    """`horizon serve --listen LISTEN`, stopped as `serve_guarded` stops the daemon."""
    from horizon.cli.main import main

    threading.Thread(target=_stop_at_eof, name="demo-guard", daemon=True).start()
    return main(["serve", "--config", config, "--listen", listen])


def start_web(config: Path) -> tuple[subprocess.Popen[bytes] | None, str]:
    """The web view on a free loopback port: its process and URL, or None and why not."""
    missing = [name for name in ("starlette", "uvicorn", "jinja2")
               if importlib.util.find_spec(name) is None]
    if missing:
        return None, "not installed (pip install 'horizon[web]')"
    with socket.socket() as probe:  # a port free now; serve says so if it is taken since
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with (config.parent / LOG_DIR / WEB_ERRORS).open("wb") as stream:
        process = subprocess.Popen(
            [sys.executable, "-c", _GUARDED_WEB, str(config), f"127.0.0.1:{port}"],
            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=stream,
            start_new_session=True)
    return process, f"http://127.0.0.1:{port}/"


def stop_web(process: subprocess.Popen[bytes] | None) -> None:
    if process is None:
        return
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=STOP_GRACE_S)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    if process.stdin is not None:
        process.stdin.close()


def _stop_at_eof() -> None:
    with contextlib.suppress(OSError):
        while os.read(0, 4096):
            pass
    os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(STOP_GRACE_S)
    os._exit(1)


def stop_daemon(daemon: DemoDaemon) -> int:
    """Stop the daemon and wait for it (its lock goes with it); returns its exit code."""
    daemon.signals.hold()
    _silence(_hung_up())
    process = daemon.process
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
    try:
        code = process.wait(timeout=STOP_GRACE_S)
    except subprocess.TimeoutExpired:
        process.kill()
        code = process.wait()
    if process.stdin is not None:
        process.stdin.close()
    daemon.signals.restore()
    return code


# --- the run ----------------------------------------------------------------------------


def simulate(hive: Path, config: GlobalConfig, seconds: float | None, daemon: DemoDaemon,
             interval: float = 0.25, seed: int = 7, web: str | None = None) -> int:
    """Append exchanges to both bees and redraw the zones until time is up, a signal
    (Ctrl-C, SIGTERM, SIGHUP), a closed terminal or the end of the demo's parent."""
    rng = random.Random(seed)
    window = window_dir(hive)
    source = config_source(hive / CONFIG_FILE)
    console = Console(highlight=False)
    started = time.monotonic()
    deadline = None if seconds is None else started + seconds
    written = 0
    ended = ""

    def draw() -> RenderableType:
        views = [shown.read_bee(hive, bee, config, source) for bee in (HORIZON_BEE, CLASSIC_BEE)]
        size = console.size
        events = shown.read_events(hive / LOG_DIR / LOG_FILE,
                                   shown.events_room(size.height, views, size.width))
        return shown.screen(hive, views, events, written, time.monotonic() - started,
                            size.width, web)

    try:
        # Redrawn from this loop only: a write to a hung-up terminal then fails here,
        # where it ends the demo, not in a refresh thread.
        with Live(draw(), console=console, auto_refresh=False, redirect_stdout=False,
                  redirect_stderr=False) as live:
            while deadline is None or time.monotonic() < deadline:
                daemon.check()
                if os.getppid() != daemon.parent:
                    ended = "the demo's parent process is gone"
                    break
                gone = _hung_up()
                if gone:
                    # Under nohup no SIGHUP comes, and rich quietly stops writing to a
                    # terminal it can no longer query: ask the terminal itself.
                    _silence(gone)
                    break
                bee = HORIZON_BEE if rng.random() < 0.7 else CLASSIC_BEE
                append_line(window, bee, exchange(rng, time.time()))
                written += 1
                live.update(draw(), refresh=True)
                time.sleep(interval)
            else:
                time.sleep(CATCH_UP_S)  # let the daemon catch up on the last lines
                live.update(draw(), refresh=True)
        if not console.is_terminal:
            console.line()  # a file or pipe gets the last screen alone, not ended by a newline
    except KeyboardInterrupt:
        pass
    except OSError:
        gone = _hung_up()
        if not gone:
            raise
        _silence(gone)
    if ended:
        print(f"horizon: {ended}: stopping the demo", file=sys.stderr)
    return written
