"""Fixtures every end-to-end test module shares."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.daemon_harness import Daemon, Start


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
