"""The service files that ship beside the daemon: the systemd unit, as `horizon example
systemd` prints it for the installed command, passes `systemd-analyze verify`; the launchd
plist parses."""

from __future__ import annotations

import os
import plistlib
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.e2e.daemon_harness import HORIZON

SYSTEMD = Path(__file__).resolve().parents[2] / "systemd"
UNIT = SYSTEMD / "horizon.service"
SHIPPED_BINARY = "/usr/local/bin/horizon"


def exec_start(unit_text: str) -> str:
    [line] = [line for line in unit_text.splitlines() if line.startswith("ExecStart=")]
    return line.removeprefix("ExecStart=")


def test_the_unit_runs_horizon_as_a_notify_service() -> None:
    text = UNIT.read_text(encoding="utf-8")
    assert exec_start(text).split() == [SHIPPED_BINARY, "run", "--config",
                                        "/etc/horizon/config.json"]
    lines = set(text.splitlines())
    assert "Type=notify" in lines
    assert "ExecReload=/bin/kill -HUP $MAINPID" in lines
    assert any(line.startswith("WatchdogSec=") for line in lines)


def test_systemd_analyze_verifies_the_unit_as_installed(tmp_path: Path) -> None:
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        if os.environ.get("CI"):
            pytest.fail("systemd-analyze is missing on CI (.ci/run installs systemd)")
        pytest.skip("systemd-analyze is not installed (it is on CI)")
    assert Path(HORIZON).is_file()
    printed = subprocess.run([HORIZON, "example", "systemd"], capture_output=True, text=True,
                             timeout=60, check=True).stdout
    installed = str(Path(HORIZON).resolve())
    assert exec_start(printed).startswith(f"{installed} run ")
    unit = tmp_path / "horizon.service"
    unit.write_text(printed, encoding="utf-8")

    result = subprocess.run([analyze, "verify", str(unit)], capture_output=True, text=True,
                            timeout=120, check=False)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert "horizon.service" not in output, output


def test_systemd_analyze_refuses_a_unit_whose_command_is_missing(tmp_path: Path) -> None:
    """The verification above means something: a missing ExecStart command fails it."""
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed (it is on CI)")
    unit = tmp_path / "horizon.service"
    missing = tmp_path / "nowhere" / "horizon"
    unit.write_text(UNIT.read_text(encoding="utf-8").replace(
        f"ExecStart={SHIPPED_BINARY} ", f"ExecStart={missing} "), encoding="utf-8")
    result = subprocess.run([analyze, "verify", str(unit)], capture_output=True, text=True,
                            timeout=120, check=False)
    assert result.returncode != 0
    assert str(missing) in result.stdout + result.stderr


def test_the_unit_gives_the_daemon_its_folders() -> None:
    lines = set(UNIT.read_text(encoding="utf-8").splitlines())
    assert {"ProtectSystem=strict", "LogsDirectory=horizon", "StateDirectory=horizon",
            "WorkingDirectory=/var/lib/horizon", "User=horizon"} <= lines


def test_the_launchd_plist_runs_horizon() -> None:
    [plist] = sorted((SYSTEMD / "launchd").glob("*.plist"))
    with plist.open("rb") as stream:
        document = plistlib.load(stream)
    assert document["Label"] == plist.stem
    arguments = document["ProgramArguments"]
    assert arguments == [SHIPPED_BINARY, "run", "--config",
                         "/usr/local/etc/horizon/config.json"]
    assert document["KeepAlive"] == {"SuccessfulExit": False}
    assert document["UserName"] == "_horizon"
    assert document["WorkingDirectory"] == "/var/lib/horizon"
    assert document["Umask"] == 0o027
    assert {Path(document[key]).parent for key in ("StandardOutPath", "StandardErrorPath")} \
        == {Path("/var/log/horizon")}


def test_example_systemd_warns_of_what_the_unit_hides_command_and_interpreter(
        tmp_path: Path) -> None:
    from horizon.cli.examples import hidden_from_the_unit

    script = tmp_path / "horizon"  # pytest's folders are under /tmp: PrivateTmp hides it
    script.write_text("#!/root/.pyenv/versions/3.11/bin/python3\nimport horizon\n")
    hidden = {str(path): setting for path, (_, setting) in hidden_from_the_unit(script)}
    if str(tmp_path).startswith("/tmp/"):
        assert hidden[str(script)] == "PrivateTmp"
    assert hidden["/root/.pyenv/versions/3.11/bin/python3"] == "ProtectHome"
    assert hidden_from_the_unit(Path("/usr/bin/true")) == []
