"""sd_notify: a datagram to $NOTIFY_SOCKET (`@` is an abstract socket). Without systemd,
every call is a no-op."""

from __future__ import annotations

import os
import socket
import time


def notify(*lines: str) -> bool:
    """Send `KEY=value` lines to systemd; False when not run by a notify-aware manager."""
    address = os.environ.get("NOTIFY_SOCKET")
    if not address:
        return False
    if address.startswith("@"):
        address = "\0" + address[1:]
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
            sock.connect(address)
            sock.sendall("\n".join(lines).encode("utf-8"))
    except OSError:
        return False
    return True


def reloading() -> bool:
    """RELOADING=1 with the monotonic timestamp systemd asks for (Type=notify-reload)."""
    usec = time.clock_gettime_ns(time.CLOCK_MONOTONIC) // 1000
    return notify("RELOADING=1", f"MONOTONIC_USEC={usec}")


def watchdog_interval() -> float | None:
    """How often to send WATCHDOG=1: a quarter of the timeout systemd gave us, so that a
    slice of work in between never stretches a gap past half of it; None when there is
    no watchdog."""
    usec = os.environ.get("WATCHDOG_USEC")
    pid = os.environ.get("WATCHDOG_PID")
    if not usec or (pid and pid != str(os.getpid())):
        return None
    try:
        return int(usec) / 4_000_000
    except ValueError:
        return None
