"""`horizon top`'s hold on the terminal, on a real pseudo-terminal: cbreak mode while it
runs, the saved modes back on every way out."""

from __future__ import annotations

import os
import pty
import signal
import termios
import time

import pytest

from horizon.cli.top import Stop, keys, stopped_by_signals


def test_the_terminal_is_in_cbreak_mode_inside_and_restored_after_an_exception() -> None:
    leader, follower = pty.openpty()
    try:
        before = termios.tcgetattr(follower)
        with pytest.raises(RuntimeError), keys(follower) as typing:
            assert typing
            local = termios.tcgetattr(follower)[3]
            assert not local & termios.ICANON and not local & termios.ECHO
            assert local & termios.ISIG, "Ctrl-C still interrupts"
            raise RuntimeError("a failure while drawing")
        assert termios.tcgetattr(follower) == before
    finally:
        os.close(leader)
        os.close(follower)


def test_not_a_terminal_is_left_alone() -> None:
    read, write = os.pipe()
    try:
        with keys(read) as typing:
            assert not typing
    finally:
        os.close(read)
        os.close(write)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_sigterm_and_sighup_stop_top_and_their_handlers_come_back(signum: int) -> None:
    before = signal.getsignal(signum)
    with pytest.raises(Stop), stopped_by_signals():
        os.kill(os.getpid(), signum)
        time.sleep(10)  # not waited out: the handler raises as soon as it runs
    assert signal.getsignal(signum) == before
