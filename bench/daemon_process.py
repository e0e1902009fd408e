"""`horizon run` as the benchmarks drive it: a real process, a real notify socket."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

HORIZON = Path(sys.executable).parent / "horizon"


class Daemon:
    """`horizon run` with a notify socket, so READY=1 is seen the moment it is sent."""

    def __init__(self, root: Path, hives: list[Path], debounce: float,
                 max_wait: float | None = None, metrics: str | None = None) -> None:
        self.config = root / "config.json"
        self.config.write_text(json.dumps({
            "hives": [str(h) for h in hives], "poll_s": 2, "sweep_s": 60,
            "log": {"dir": str(root / "logs")}, "metrics": metrics,
            "horizon": {"debounce_s": debounce,
                        "max_wait_s": max_wait if max_wait else max(debounce, 0.1)},
        }))
        self.log = root / "logs" / "horizon.jsonl"
        self.socket_path = root / "notify.sock"
        self.socket_path.unlink(missing_ok=True)
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(str(self.socket_path))
        self.ready_at: float | None = None
        self.started_at = 0.0
        self.process: subprocess.Popen[bytes] | None = None
        self.pings: list[float] = []  # monotonic instants of WATCHDOG=1 after READY
        self._listening = threading.Event()

    def start(self, **env_extra: str) -> None:
        env = dict(os.environ, NOTIFY_SOCKET=str(self.socket_path), **env_extra)
        self.started_at = time.monotonic()
        self.process = subprocess.Popen([str(HORIZON), "run", "--config", str(self.config)],
                                        env=env, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL)
        self.sock.settimeout(120)
        while True:
            message = self.sock.recv(4096).decode()
            if "READY=1" in message.split("\n"):
                self.ready_at = time.monotonic()
                return

    def listen(self) -> None:
        """From now on, record every WATCHDOG=1 (a thread, until `stop`)."""
        self.sock.settimeout(0.2)
        self._listening.set()

        def collect() -> None:
            while self._listening.is_set():
                try:
                    message = self.sock.recv(4096).decode()
                except (TimeoutError, OSError):
                    continue
                if "WATCHDOG=1" in message.split("\n"):
                    self.pings.append(time.monotonic())

        threading.Thread(target=collect, daemon=True).start()

    def rss_mb(self) -> float:
        assert self.process is not None
        for entry in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if entry.startswith("VmRSS:"):
                return int(entry.split()[1]) / 1024
        return 0.0

    def cpu_seconds(self) -> float:
        assert self.process is not None
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            self.process.wait(timeout=30)
        self._listening.clear()
        time.sleep(0.3)  # the collector's last recv times out
        self.sock.close()


