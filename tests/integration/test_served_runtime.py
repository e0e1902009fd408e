"""Where a daemon publishes the hives it serves, so `status` finds them with a broken
config.json: root outside systemd, without $XDG_RUNTIME_DIR, makes /run/horizon; a
folder that cannot take the file is named once in the reason."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from horizon.hive import served
from horizon.hive.durable import StoreError


@pytest.fixture
def system_runtime(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "run" / "horizon"
    monkeypatch.setattr(served, "SYSTEM_RUNTIME", folder)
    monkeypatch.delenv("HORIZON_RUNTIME_DIR", raising=False)
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    (tmp_path / "run").mkdir()
    return folder


@pytest.mark.skipif(os.geteuid() != 0, reason="only root makes the system runtime folder")
def test_root_without_a_session_makes_the_system_folder_and_status_reads_it(
        system_runtime: Path, tmp_path: Path) -> None:
    config = tmp_path / "config.json"
    path = served.publish(config, ["/srv/hive"])
    assert path.parent == system_runtime and (system_runtime.stat().st_mode & 0o777) == 0o755
    found = served.read_served(config)
    assert found is not None and found.hives == ["/srv/hive"]


def test_a_folder_that_cannot_take_the_file_is_named_once(
        system_runtime: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocked = tmp_path / "xdg"
    blocked.write_text("a file where a folder should be")
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(blocked))
    system_runtime.write_text("a file, not a folder")  # refused for root and others alike
    with pytest.raises(StoreError) as raised:
        served.publish(tmp_path / "config.json", ["/srv/hive"])
    reason = str(raised.value)
    assert reason.count(str(system_runtime)) == 1, reason
    assert reason.count(str(blocked / "horizon")) == 1, reason
