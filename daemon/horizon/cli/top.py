"""`horizon top`: every bee of the hives, degraded ones first, redrawn each second in the
terminal, with a few keys to sort, filter and quit."""

from __future__ import annotations

import argparse
import contextlib
import os
import select
import signal
import sys
import termios
import time
import tty
from collections.abc import Iterator
from types import FrameType

from rich.live import Live

from horizon.cli.console import ReaderConsole
from horizon.cli.exits import EXIT_OK
from horizon.cli.top_data import Sampler
from horizon.cli.top_screen import frame
from horizon.cli.top_view import QUIT, Controls, keys_of, press

REFRESH_S = 1.0
ONCE_WIDTH = 160  # a frame printed for a script shows every column, whatever the terminal
TALL = 1 << 20  # a printed frame has no bottom to keep the keys above


class Stop(Exception):
    """SIGTERM or SIGHUP (a closed terminal): quit as `q` does."""


def command(args: argparse.Namespace) -> int:
    sampler = Sampler(args)
    try:
        if args.once or not sys.stdout.isatty():
            return print_once(sampler)
        return watch(sampler)
    finally:
        sampler.close()


def print_once(sampler: Sampler) -> int:
    """One frame on stdout, as wide as the terminal (or COLUMNS) when there is one."""
    width = None if sys.stdout.isatty() or "COLUMNS" in os.environ else ONCE_WIDTH
    console = ReaderConsole(highlight=False, width=width)
    console.print(frame(sampler.sample(), Controls(), console.width, TALL, sampler.title()),
                  crop=True)
    return EXIT_OK


@contextlib.contextmanager
def keys(stream: int) -> Iterator[bool]:
    """The terminal in cbreak mode (each key as typed, no echo; Ctrl-C still interrupts)
    while inside, restored on every way out; False when stdin is not a terminal."""
    if not os.isatty(stream):
        yield False
        return
    saved = termios.tcgetattr(stream)
    try:
        tty.setcbreak(stream)
        yield True
    finally:
        termios.tcsetattr(stream, termios.TCSADRAIN, saved)


@contextlib.contextmanager
def stopped_by_signals() -> Iterator[None]:
    """SIGTERM and SIGHUP raise Stop, so every `finally` restoring the terminal runs."""

    def stop(signum: int, frame: FrameType | None) -> None:
        raise Stop(signum)

    saved = {signum: signal.signal(signum, stop) for signum in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for signum, handler in saved.items():
            signal.signal(signum, handler)


def watch(sampler: Sampler) -> int:
    console = ReaderConsole(highlight=False)
    stdin = sys.stdin.fileno()
    controls = Controls()
    with contextlib.suppress(KeyboardInterrupt, Stop), stopped_by_signals(), \
            keys(stdin) as is_terminal, \
            Live(console=console, screen=True, auto_refresh=False) as live:
        typing = is_terminal
        views = sampler.sample()
        due = time.monotonic() + REFRESH_S
        while True:
            # The terminal's own size, not $COLUMNS: a shell's exported value is stale
            # once the window is resized.
            with contextlib.suppress(OSError):
                console.size = os.get_terminal_size(sys.stdout.fileno())
            width, height = console.size
            live.update(frame(views, controls, width, height, sampler.title()), refresh=True)
            wait = max(0.0, due - time.monotonic())
            if typing and select.select([stdin], [], [], wait)[0]:
                data = os.read(stdin, 1024)
                if not data:
                    typing = False  # stdin closed: no more keys, the screen goes on
                for key in keys_of(data.decode("utf-8", errors="ignore")):
                    pressed = press(controls, key)
                    if pressed == QUIT:
                        return EXIT_OK
                    controls = pressed
            elif not typing:
                time.sleep(wait)
            if time.monotonic() >= due:
                views = sampler.sample()
                due = time.monotonic() + REFRESH_S
    return EXIT_OK
