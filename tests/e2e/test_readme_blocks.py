"""Every shell block of the README, run as written: a doc that says what the code does not
fails here.

Each block runs in bash (`set -eo pipefail`) inside a folder standing for the machine's
root: the system paths it names (`/etc/horizon`, `/srv/hive`, `/opt/horizon`…) are moved
under that folder. What only an administrator's machine does is recorded instead of done,
by small stand-ins first on PATH: `sudo` runs its command as this user; `useradd`,
`groupadd`, `systemctl`, `journalctl`, `sysadminctl` and `launchctl` write down their
arguments (and `init --group` takes this user's own group in place of the one `groupadd`
did not make); `install` makes its folders without changing their owner; `make` shows what it
would run (`make -n`: the suite does not run itself); a venv's `pip install .` is noted
(the package is this very checkout). The `horizon` commands are the installed ones, run
for real."""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.daemon_harness import clean_env

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
VENV_BIN = Path(sys.executable).parent
SYSTEM_PATHS = ("/etc/horizon", "/etc/systemd", "/var/lib/horizon", "/var/log/horizon",
                "/opt/horizon", "/usr/local/bin", "/usr/local/etc", "/Library/LaunchDaemons",
                "/srv/hive")
RECORDED = ("useradd", "groupadd", "systemctl", "journalctl", "sysadminctl", "launchctl")
# Commands that serve until stopped: alive after a few seconds is what they promise.
SERVING = re.compile(r"^\s*horizon serve\b")


def shell_blocks() -> list[tuple[int, str]]:
    """The README's ```sh blocks, with the line each starts at."""
    blocks, current, start = [], None, 0
    for number, line in enumerate(README.read_text(encoding="utf-8").splitlines(), 1):
        if current is None and re.match(r"^```(?:sh|bash|shell)\s*$", line):
            current, start = [], number
        elif current is not None and line.startswith("```"):
            blocks.append((start, "\n".join(current)))
            current = None
        elif current is not None:
            current.append(line)
    return blocks


def _script(path: Path, body: str) -> None:
    path.write_text("#!/usr/bin/env bash\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


def machine(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """The folder standing for the root, and the environment the blocks run in."""
    root = tmp_path / "root"
    shims = tmp_path / "shims"
    shims.mkdir()
    calls = tmp_path / "calls.log"
    for name in RECORDED:
        _script(shims / name, f'echo "{name} $*" >> {calls}\n')
    _script(shims / "sudo", 'while [[ "$1" == -* ]]; do\n'
                            '  case "$1" in -u|-g) shift 2 ;; *) shift ;; esac\ndone\n'
                            'if [[ "$1" == */bin/pip && "$2" == install ]]; then\n'
                            f'  echo "pip $*" >> {calls}; exit 0\nfi\n'
                            # The group groupadd only noted: this user's own stands in.
                            'args=()\nwhile (( $# )); do\n'
                            '  if [[ "$1" == --group ]]; then args+=("$1" "$(id -gn)"); shift 2\n'
                            '  else args+=("$1"); shift; fi\ndone\nexec "${args[@]}"\n')
    _script(shims / "install", 'args=()\nwhile (( $# )); do\n'
                               '  case "$1" in -o|-g) shift 2 ;; *) args+=("$1"); shift ;; esac\n'
                               'done\nexec /usr/bin/install "${args[@]}"\n')
    _script(shims / "make", f'exec /usr/bin/make -n -C {ROOT} "$@"\n')
    for folder in ("usr/local/bin", "etc/systemd/system", "Library/LaunchDaemons", "opt",
                   "var/lib", "var/log"):  # what a machine has before the README's steps
        (root / folder).mkdir(parents=True)
    hive = root / "srv" / "hive"
    (hive / "window").mkdir(parents=True)
    lines = [json.dumps({"ts": 1_790_000_000 + n, "type": "task",
                         "question": f"step {n}" + (" ticket #5385" if n == 40 else ""),
                         "answer": "x" * (30_000 if n == 212 else 20)}) for n in range(1, 260)]
    (hive / "window" / "mia-messages.jsonl").write_text("\n".join(lines) + "\n")
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"hives": [str(hive)], "log": {"dir": str(tmp_path / "log")}}))
    env = clean_env(HORIZON_CONFIG=str(config), HOME=str(tmp_path),
                    PATH=f"{shims}:{VENV_BIN}:{os.environ.get('PATH', '/usr/bin:/bin')}")
    return root, env


def moved(block: str, root: Path) -> str:
    for system in SYSTEM_PATHS:
        block = re.sub(rf"(?<![\w/.]){re.escape(system)}(?=[/\s]|$)", f"{root}{system}",
                       block, flags=re.MULTILINE)
    return block


def run_block(block: str, root: Path, env: dict[str, str], cwd: Path
              ) -> subprocess.CompletedProcess[str]:
    lines = []
    for line in moved(block, root).splitlines():
        command = re.sub(r"\s+#\s.*$", "", line).strip()  # its comment
        lines.append(f"timeout -s INT 3 {command} || [ $? -eq 124 ]"
                     if SERVING.match(line) else line)
    return subprocess.run(["bash", "-c", "set -eo pipefail\n" + "\n".join(lines)],
                          capture_output=True, text=True, cwd=cwd, env=env, timeout=300,
                          check=False)


BLOCKS = shell_blocks()


def test_the_readme_has_its_shell_blocks() -> None:
    assert len(BLOCKS) >= 7 and "make run" in BLOCKS[0][1] and "make test" in BLOCKS[0][1]


@pytest.mark.parametrize(("start", "block"), BLOCKS, ids=[f"line{start}" for start, _ in BLOCKS])
def test_each_readme_shell_block_runs_as_written(tmp_path: Path, start: int,
                                                 block: str) -> None:
    if shutil.which("timeout") is None:
        pytest.fail("coreutils' timeout is needed to run the blocks that serve")
    root, env = machine(tmp_path)
    work = tmp_path / "work"
    work.mkdir()
    shutil.copytree(ROOT / "daemon", work / "daemon")  # `pip install .` is noted, not run
    done = run_block(block, root, env, work)
    assert done.returncode == 0, (f"README line {start}:\n{block}\n--- stdout\n"
                                  f"{done.stdout[-3000:]}\n--- stderr\n{done.stderr[-3000:]}")
    assert "Traceback" not in done.stderr
    for written in re.findall(r"\btee (\S+)", moved(block, root)):  # what it said it wrote
        assert Path(written).stat().st_size > 0, written
    for hive in re.findall(r"\bhorizon init (\S+)", moved(block, root)):
        assert (Path(hive) / "window").is_dir(), hive
