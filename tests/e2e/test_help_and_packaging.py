"""The installed command explains itself (every command's --help, -V, shell completion)
and carries its examples: `horizon example` prints them from the package, and the wheel
holds them."""

from __future__ import annotations

import argparse
import itertools
import json
import plistlib
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from horizon import __version__
from horizon.cli.examples import EXAMPLES, filled, for_systemd, shipped
from horizon.cli.parser import build_parser
from horizon.core.settings import validate_global
from tests.e2e.daemon_harness import HORIZON, clean_env

ROOT = Path(__file__).resolve().parents[2]
PACKAGED = ROOT / "daemon" / "horizon" / "examples"
COMMANDS = ["run", "demo", "render", "show", "search", "mcp", "rebuild", "status", "phare",
            "config", "check", "init", "adopt", "example", "serve", "top", "append", "import",
            "hook"]
INSTALLED = str(Path(HORIZON).resolve())


def horizon(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([HORIZON, *args], capture_output=True, text=True, timeout=60,
                          check=False, env=env or clean_env())


def section(text: str, title: str) -> list[str]:
    """The lines of a help section, from its title to the next blank line."""
    lines = text.splitlines()
    start = lines.index(title) + 1
    end = next((n for n in range(start, len(lines)) if not lines[n].strip()), len(lines))
    return lines[start:end]


def exit_codes(text: str) -> dict[int, str]:
    found = re.findall(r"^  (\d)  (.+)$", "\n".join(section(text, "exit codes:")), re.M)
    return {int(code): meaning for code, meaning in found}


# --- help ----------------------------------------------------------------------------------


def test_the_top_level_help_lists_every_command_and_the_exit_codes() -> None:
    result = horizon("--help")
    assert result.returncode == 0, result.stderr
    listed = re.findall(r"^    (\w+) +\S", result.stdout, re.M)
    assert sorted(listed) == sorted(COMMANDS)
    assert set(exit_codes(result.stdout)) == {0, 1, 2, 3}
    assert "status only" in exit_codes(result.stdout)[3]


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_help_says_what_it_does_with_examples_and_exit_codes(
        command: str) -> None:
    result = horizon(command, "--help")
    assert result.returncode == 0, result.stderr
    text = result.stdout
    blocks = text.split("\n\n")[1:]
    description = " ".join(itertools.takewhile(
        lambda block: not block.startswith(("positional arguments:", "options:")), blocks))
    assert len(description.split()) >= 15, text
    examples = section(text, "examples:")
    assert examples, text
    assert all(f"horizon {command}" in example for example in examples), examples
    codes = exit_codes(text)
    assert {0, 2} <= set(codes), text
    assert (3 in codes) == (command == "status"), text
    assert "bad usage" in codes[2]
    if 1 in codes:
        assert "stderr" in codes[1]


def test_every_argument_of_every_command_has_help() -> None:
    parser = build_parser()
    [commands] = [action for action in parser._actions
                  if isinstance(action, argparse._SubParsersAction)]
    assert sorted(commands.choices) == sorted(COMMANDS)
    for name, command in commands.choices.items():
        for action in command._actions:
            assert action.help, f"horizon {name}: {action.dest} has no help"


@pytest.mark.parametrize("flag", ["-V", "--version"])
def test_the_version_flag_prints_the_version(flag: str) -> None:
    result = horizon(flag)
    assert (result.returncode, result.stdout) == (0, f"horizon {__version__}\n")


# --- shell completion ----------------------------------------------------------------------


def complete(line: str, tmp_path: Path) -> list[str]:
    """What the shell hook receives for `line`, the cursor at its end (argcomplete's
    protocol: the request in the environment, the answer in a file instead of fd 8)."""
    answer = tmp_path / "completions"
    env = clean_env(_ARGCOMPLETE="1", COMP_LINE=line, COMP_POINT=str(len(line)),
                    _ARGCOMPLETE_STDOUT_FILENAME=str(answer))
    result = horizon(env=env)
    assert result.returncode == 0, result.stderr
    return answer.read_text(encoding="utf-8").split("\v")


def test_the_command_completes_its_commands_and_choices(tmp_path: Path) -> None:
    assert [word.strip() for word in complete("horizon st", tmp_path)] == ["status"]
    assert {"config", "systemd", "launchd"} <= set(complete("horizon example ", tmp_path))


def test_global_completion_finds_the_marker() -> None:
    """`activate-global-python-argcomplete` completes only commands whose module says
    PYTHON_ARGCOMPLETE_OK near its top; this is the check its shell hook runs."""
    result = subprocess.run(
        [sys.executable, "-W", "ignore", "-m", "argcomplete._check_console_script", HORIZON],
        capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0, result.stderr


# --- horizon example -----------------------------------------------------------------------


def example(kind: str) -> str:
    result = horizon("example", kind)
    assert result.returncode == 0, result.stderr
    return result.stdout


def unit_values(text: str, key: str) -> list[str]:
    return [line.removeprefix(f"{key}=") for line in text.splitlines()
            if line.startswith(f"{key}=")]


def test_the_example_config_is_valid_and_writes_where_the_unit_allows() -> None:
    document = json.loads(example("config"))
    config = validate_global(document, "example")
    unit = example("systemd")
    [logs] = unit_values(unit, "LogsDirectory")
    [state] = unit_values(unit, "StateDirectory")
    assert config.log.dir == f"/var/log/{logs}"
    assert config.hives
    assert all(hive.startswith(f"/var/lib/{state}/") for hive in config.hives)
    assert unit_values(unit, "WorkingDirectory") == [f"/var/lib/{state}"]


def test_the_example_config_is_the_defaults_file_but_for_its_hives_and_log_folder() -> None:
    """config/config.json keeps every global key at its default; the service example only
    says where the hives and the log live."""
    example_config = json.loads(example("config"))
    defaults = json.loads((ROOT / "config" / "config.json").read_text(encoding="utf-8"))
    for document in (example_config, defaults):
        document.pop("hives")
        document["log"].pop("dir")
    assert example_config == defaults


def test_the_example_unit_runs_the_installed_command() -> None:
    unit = example("systemd")
    [exec_start] = unit_values(unit, "ExecStart")
    assert exec_start.split() == [INSTALLED, "run", "--config", "/etc/horizon/config.json"]
    shipped_lines = shipped("systemd").splitlines()
    changed = [line for line in unit.splitlines() if line not in shipped_lines]
    [documentation] = unit_values(unit, "Documentation")
    assert changed == [f"Documentation={documentation}", f"ExecStart={exec_start}"]
    reference = Path(documentation.removeprefix("file://"))
    assert documentation.startswith("file:///") and reference.is_file(), documentation
    assert reference.read_text(encoding="utf-8").startswith("# horizon reference")
    assert unit_values(unit, "RuntimeDirectory") == ["horizon"]


def test_the_example_plist_runs_the_installed_command_as_its_own_user() -> None:
    document = plistlib.loads(example("launchd").encode())
    assert document["Label"] == "org.horizon.daemon"
    assert document["ProgramArguments"] == [INSTALLED, "run", "--config",
                                            "/usr/local/etc/horizon/config.json"]
    assert document["UserName"] not in {"", "root"}
    assert Path(document["WorkingDirectory"]).is_absolute()
    log_dir = json.loads(example("config"))["log"]["dir"]
    for key in ("StandardOutPath", "StandardErrorPath"):
        assert str(Path(document[key]).parent) == log_dir


@pytest.mark.parametrize("kind", ["hive", "bee", "grafana", "reference"])
def test_the_settings_examples_and_documents_are_printed_as_shipped(kind: str) -> None:
    assert example(kind) == (PACKAGED / EXAMPLES[kind]).read_text(encoding="utf-8")
    assert example(kind) == {"grafana": (ROOT / "docs" / "grafana-horizon.json"),
                             "reference": (ROOT / "docs" / "reference.md")}.get(
        kind, PACKAGED / EXAMPLES[kind]).read_text(encoding="utf-8")


def test_the_shipped_bee_example_passes_check(tmp_path: Path) -> None:
    """What `horizon example bee > bees/mia.toml` makes must be a valid bee file."""
    hive = tmp_path / "hive"
    (hive / "bees").mkdir(parents=True)
    (hive / "window").mkdir()
    (hive / "bees" / "mia.toml").write_text(example("bee"), encoding="utf-8")
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"hives": [str(hive)]}), encoding="utf-8")
    checked = horizon("check", "--config", str(config))
    assert checked.returncode == 0, checked.stderr
    assert "error" not in checked.stderr + checked.stdout


def test_an_unknown_example_is_bad_usage() -> None:
    result = horizon("example", "nginx")
    assert result.returncode == 2
    assert "nginx" in result.stderr


def test_a_path_systemd_would_misread_is_quoted() -> None:
    assert for_systemd(Path("/opt/horizon/bin/horizon")) == "/opt/horizon/bin/horizon"
    assert for_systemd(Path("/opt/my tools/horizon")) == '"/opt/my tools/horizon"'
    assert for_systemd(Path("/opt/50%/$HOME/horizon")) == '"/opt/50%%/$$HOME/horizon"'
    unit = filled("systemd", Path("/opt/my tools/horizon"))
    assert 'ExecStart="/opt/my tools/horizon" run --config' in unit


def test_the_repository_paths_are_the_packaged_files() -> None:
    """config/ and systemd/ link to the package's copies, so the two cannot differ."""
    for repository, name in [("systemd/horizon.service", "horizon.service"),
                             ("systemd/launchd/org.horizon.daemon.plist",
                              "org.horizon.daemon.plist"),
                             ("config/horizon.example.toml", "horizon.example.toml"),
                             ("config/bee.example.toml", "bee.example.toml"),
                             ("docs/reference.md", "reference.md"),
                             ("docs/grafana-horizon.json", "grafana-horizon.json")]:
        assert (ROOT / repository).resolve() == (PACKAGED / name).resolve(), repository
    assert sorted(path.name for path in PACKAGED.iterdir()) == sorted(EXAMPLES.values())


# --- the wheel -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel pip builds from a copy of the sources, offline (the build backend comes
    from the dev install, nothing is fetched)."""
    root = tmp_path_factory.mktemp("wheel")
    source = root / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, source / name)
    shutil.copytree(ROOT / "daemon", source / "daemon",
                    ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    result = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
         "--no-index", "--quiet", "-w", str(root / "dist"), str(source)],
        capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    [built] = sorted((root / "dist").glob("horizon-*.whl"))
    return built


def test_the_wheel_carries_the_examples_and_the_command(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        assert {f"horizon/examples/{name}" for name in EXAMPLES.values()} <= names
        for name in EXAMPLES.values():
            packaged = (PACKAGED / name).read_bytes()
            assert archive.read(f"horizon/examples/{name}") == packaged, name
        [entry_points] = [name for name in names if name.endswith("entry_points.txt")]
        assert "horizon = horizon.cli.main:main" in archive.read(entry_points).decode()
        [metadata] = [name for name in names if name.endswith(".dist-info/METADATA")]
        assert "Requires-Dist: argcomplete" in archive.read(metadata).decode()


def test_the_examples_are_read_from_the_wheel(wheel: Path, tmp_path: Path) -> None:
    """Python imports horizon from the wheel itself, away from the source tree."""
    env = clean_env(PYTHONPATH=str(wheel))
    where = subprocess.run([sys.executable, "-c", "import horizon; print(horizon.__file__)"],
                           capture_output=True, text=True, timeout=60, check=True, env=env,
                           cwd=tmp_path)
    assert where.stdout.startswith(str(wheel)), where.stdout
    result = subprocess.run([sys.executable, "-m", "horizon", "example", "systemd"],
                            capture_output=True, text=True, timeout=60, check=False, env=env,
                            cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "Type=notify" in result.stdout
    assert unit_values(result.stdout, "ExecStart")[0].split()[0] == str(
        Path(sys.executable).parent / "horizon")
