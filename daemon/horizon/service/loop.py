"""The main loop: the queue, the bees' deadlines, systemd's WATCHDOG ping, and the match
that gives every message its one handler.

Watchdog, APScheduler, the writer and the model workers only post messages; this loop
takes them one at a time, runs the passes whose deadline came, pings the watchdog between
items, and applies a reload or a log reopening between two items, so a hung loop stops
reporting healthy.
"""

from __future__ import annotations

import queue
import time
from typing import assert_never

from horizon.service import handlers, logs, notify
from horizon.service.hives import reload
from horizon.service.messages import (
    Beat,
    Continue,
    FileEvent,
    Message,
    ModelDone,
    Poll,
    Reload,
    Sweep,
    Written,
)
from horizon.service.state import DaemonState

log = logs.get_logger()
LOOP_TICK_S = 0.25


def run(state: DaemonState) -> None:
    """Until a stop is asked."""
    ping_every = notify.watchdog_interval()
    next_ping = time.monotonic()
    while not state.stopping:
        if ping_every is not None and time.monotonic() >= next_ping:
            notify.notify("WATCHDOG=1")
            next_ping = time.monotonic() + ping_every
        if state.reopen_requested:
            state.reopen_requested = False
            logs.reopen()
        if state.reload_requested:
            state.reload_requested = False
            reload(state)
        run_due(state)
        wait = LOOP_TICK_S
        earliest = state.deadlines.earliest()
        if earliest is not None:
            wait = min(wait, max(0.0, earliest - time.monotonic()))
        try:
            item = state.items.get(timeout=wait)
        except queue.Empty:
            continue
        handle(state, item)


def dispatch(state: DaemonState, item: Message) -> None:
    """The one handler of `item`'s type (mypy checks that every type has its case)."""
    match item:
        case FileEvent():
            handlers.on_file_event(state, item)
        case Written():
            handlers.on_written(state, item)
        case Continue():
            handlers.on_continue(state, item)
        case Poll():
            handlers.on_poll(state, item)
        case Sweep():
            handlers.on_sweep(state, item)
        case Beat():
            handlers.on_beat(state, item)
        case Reload():
            handlers.on_reload(state, item)
        case ModelDone():
            handlers.on_model_done(state, item)
        case _:
            assert_never(item)


def handle(state: DaemonState, item: Message) -> None:
    try:
        dispatch(state, item)
    except Exception as error:  # the loop must outlive any one item; says what, not why
        log.error("daemon.error", item=item.label, error=type(error).__name__)


def run_due(state: DaemonState) -> None:
    """The passes whose deadline has come, earliest first. Passes that fall due while
    these run wait for the next turn, after one item of the queue at most."""
    now = time.monotonic()
    while not state.stopping and (due := state.deadlines.pop_due(now)) is not None:
        hive, bee = due
        try:
            handlers.run_due(state, hive, bee)
        except Exception as error:  # as for an item: the loop goes on
            log.error("daemon.error", item=f"pass {bee}", error=type(error).__name__)


def take_written(state: DaemonState) -> None:
    """The writer's last news, said before stopping (the queue holds nothing else the
    stop needs)."""
    while True:
        try:
            item = state.items.get_nowait()
        except queue.Empty:
            return
        if isinstance(item, Written):
            handlers.on_written(state, item)
