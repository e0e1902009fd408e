"""A journal the daemon may not link, with a real EPERM: the daemon runs as an
unprivileged user (root passes over fs.protected_hardlinks), the journal belongs to root
with mode 0644, as the README's old snippet made it under umask 022."""

from __future__ import annotations

import importlib.metadata
import json
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

import httpx
import pytest
from packaging.requirements import Requirement

from tests.e2e.daemon_harness import (
    BEE,
    Daemon,
    append,
    clean_env,
    entry,
    free_port,
    horizon,
    journal_path,
    wait_for,
    wait_for_up_to,
    write_config,
)

PROTECTED = Path("/proc/sys/fs/protected_hardlinks")
pytestmark = pytest.mark.skipif(
    not PROTECTED.exists() or PROTECTED.read_text().strip() != "1",
    reason="fs.protected_hardlinks is not 1 here: the kernel would allow the link")
USER = "nobody"


@pytest.fixture
def root() -> Iterator[Path]:
    """A folder the unprivileged user can traverse (pytest's own are 0700)."""
    if os.geteuid() != 0:
        pytest.skip("the daemon runs as another user here: only root can switch to it")
    if shutil.which("setpriv") is None:
        pytest.fail("this test runs the daemon as another user: it needs setpriv")
    folder = Path(tempfile.mkdtemp(prefix="horizon-eperm-", dir="/tmp"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def runs_as_user(command: Sequence[str], env: dict[str, str] | None = None) -> bool:
    user = pwd.getpwnam(USER)
    probe = subprocess.run(["setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}",
                            "--clear-groups", *command, "--version"], capture_output=True,
                           timeout=60, check=False, env=env)
    return probe.returncode == 0


def _runtime_distributions() -> list[importlib.metadata.Distribution]:
    """horizon's distribution and those it needs to run here (no extra), transitively."""
    found: dict[str, importlib.metadata.Distribution] = {}
    todo = [Requirement("horizon")]
    while todo:
        requirement = todo.pop()
        name = requirement.name.lower().replace("_", "-")
        if name in found or (requirement.marker is not None
                             and not requirement.marker.evaluate({"extra": ""})):
            continue
        found[name] = importlib.metadata.distribution(name)
        todo += [Requirement(text) for text in found[name].requires or ()]
    return list(found.values())


def daemon_command(root: Path) -> tuple[list[str], dict[str, str] | None]:
    """The daemon's command for the unprivileged user: the installed one when that user
    can run it; else the same Python running a copy of horizon and of what it needs to
    run, in `root` (a clone in a 0700 folder, such as one made by mktemp -d or under
    /root, hides the installed one from other users)."""
    installed = shutil.which("horizon") or str(Path(sys.executable).parent / "horizon")
    if runs_as_user([installed]):
        return [installed], None
    runtime = root / "runtime"
    for distribution in _runtime_distributions():
        base = Path(str(distribution.locate_file("")))
        for file in distribution.files or ():
            source = base / file
            if not source.is_file() or ".." in file.parts:
                continue  # the editable install's finder, scripts out of site-packages
            target = runtime / file
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)
    import horizon  # the package itself, wherever the install reads it from

    shutil.copytree(Path(horizon.__file__).parent, runtime / "horizon", dirs_exist_ok=True)
    for folder, _, _ in os.walk(runtime):
        os.chmod(folder, 0o755)
    python = os.path.realpath(sys.executable)
    command, env = [python, "-m", "horizon"], clean_env(PYTHONPATH=str(runtime))
    if not runs_as_user(command, env):
        pytest.skip(f"{USER} can run neither the installed horizon nor {python}: a folder "
                    "on the interpreter's path is closed to other users")
    return command, env


def owned_by_user(path: Path) -> None:
    user = pwd.getpwnam(USER)
    for folder, _, files in os.walk(path):
        for name in [folder, *(os.path.join(folder, file) for file in files)]:
            os.chown(name, user.pw_uid, user.pw_gid)


def test_a_journal_the_daemon_may_not_link_degrades_it_and_records_nothing(
        root: Path) -> None:
    hive = root / "hive"
    (hive / "window").mkdir(parents=True)
    port = free_port()
    config = write_config(root, hive, rotation_entries=3, metrics=f"127.0.0.1:{port}")
    (root / "logs").mkdir()
    owned_by_user(root)
    journal = journal_path(hive)
    for number in range(4):  # root's, 0644: the daemon may read it, not write it
        append(hive, entry(f"q{number}"))
    journal.chmod(0o644)
    assert journal.stat().st_uid == 0

    user = pwd.getpwnam(USER)
    command, env = daemon_command(root)
    daemon = Daemon(config, root / "logs", env=env, as_user=[
        "setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--clear-groups"],
        command=command)
    try:
        daemon.started()
        wait_for_up_to(hive, 4)
        failed = daemon.wait_event("archive.rotate_failed", bee=BEE)
        assert "protected_hardlinks" in failed["reason"] and USER in failed["reason"]

        def degraded() -> subprocess.CompletedProcess[str] | None:
            run = horizon(config, "status", str(hive))
            return run if run.returncode == 3 else None

        status = wait_for(degraded, "status to say degraded")
        assert "rotation failed" in status.stdout, status.stdout
        health = httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=10)
        assert health.status_code == 503
        assert any("rotation failed" in reason for reason in health.json()["reasons"])
        metrics = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=10).text
        assert f'horizon_rotation_failures_total{{hive="{hive}"}} 1.0' in metrics, metrics

        # check judges the journal for the daemon's user, though root runs it.
        checked = horizon(config, "check", "--strict")
        assert checked.returncode == 1
        assert str(journal) in checked.stderr + checked.stdout
        assert "could not rotate" in checked.stderr + checked.stdout

        append(hive, entry("q4"))  # the journal grows where it is; nothing is lost
        wait_for_up_to(hive, 5)
        daemon.assert_alive()
    finally:
        daemon.stop()
    manifest = hive / "window" / "archive" / f"{BEE}-segments.jsonl"
    assert not manifest.exists() or not manifest.read_text().strip(), \
        "no record for a segment that does not exist"
    assert not list((hive / "window" / "archive").glob("*.jsonl")) if (
        hive / "window" / "archive").exists() else True
    assert [json.loads(line)["question"] for line in journal.read_text().splitlines()] == [
        f"q{number}" for number in range(5)]
