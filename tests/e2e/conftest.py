"""Fixtures every end-to-end test module shares."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.daemon_harness import Daemon, NotifyListener, Start


@pytest.fixture
def start(tmp_path: Path) -> Iterator[Start]:
    """Start daemons on a config.json; every one is stopped when the test ends."""
    daemons: list[Daemon] = []

    def starter(config: Path, env: dict[str, str] | None = None) -> Daemon:
        daemon = Daemon(config, tmp_path / "logs", env)
        daemons.append(daemon)
        return daemon.started()

    yield starter
    for daemon in daemons:
        daemon.stop()


@pytest.fixture
def notify_socket(tmp_path: Path) -> Iterator[NotifyListener]:
    folder = tmp_path if len(str(tmp_path)) < 80 else Path(tempfile.mkdtemp(prefix="hz"))
    listener = NotifyListener(folder / "notify.sock")
    yield listener
    listener.close()
