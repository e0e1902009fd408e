"""The installed `horizon` command, run as a subprocess on hives in tmp_path.

Every command gets HORIZON_CONFIG (or --config) pointing into tmp_path, so
/etc/horizon/config.json is never read; every view is computed at an explicit --now.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from horizon.hive.lock import HiveLock
from horizon.hive.store import STATE_FORMAT

HORIZON = shutil.which("horizon") or str(Path(sys.executable).parent / "horizon")
NOW = datetime(2026, 7, 10, 12, 0, tzinfo=UTC).timestamp()
HOUR = 3600.0
BEE = "b"
NOW_ARG = "2026-07-10T12:00:00Z"
HORIZON_ON = "[horizon]\nactif = true\n"
SECTIONS = ["Mission", "Décisions", "Fichiers", "Erreurs", "Paroles de l'apicultrice",
            "Travail en cours", "Prochaine étape"]

Run = Callable[..., subprocess.CompletedProcess[str]]


def iso(instant: float) -> str:
    return datetime.fromtimestamp(instant, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def entry(question: str = "q", answer: str = "a", *, ts: float | None = None,
          kind: str = "task", **extra: Any) -> str:
    fields = {"ts": iso(NOW - HOUR if ts is None else ts), "type": kind, "question": question,
              "answer": answer, **extra}
    return json.dumps(fields, ensure_ascii=False)


def make_hive(root: Path, lines: list[str], *, bee: str = BEE, bee_toml: str | None = None,
              hive_toml: str | None = None) -> Path:
    hive = root / "hive"
    (hive / "window").mkdir(parents=True, exist_ok=True)
    (hive / "window" / f"{bee}-messages.jsonl").write_text(
        "".join(line + "\n" for line in lines), encoding="utf-8")
    if bee_toml is not None:
        (hive / "bees").mkdir(exist_ok=True)
        (hive / "bees" / f"{bee}.toml").write_text(bee_toml, encoding="utf-8")
    if hive_toml is not None:
        (hive / "horizon.toml").write_text(hive_toml, encoding="utf-8")
    return hive


def three_entries() -> list[str]:
    return [
        entry("Quel est le plan ?", "Lire le code.", ts=NOW - 3 * HOUR, kind="conversation",
              **{"from": "apicultrice"}),
        entry("lire", "src/main.py lu", ts=NOW - 2 * HOUR, tool="read"),
        entry("tester", "tests verts", ts=NOW - HOUR),
    ]


def many_entries(count: int = 12) -> list[str]:
    return [entry(f"Étape {n}", f"Fait l'étape {n}. " + "détail " * 30,
                  ts=NOW - HOUR + 60 * n) for n in range(1, count + 1)]


SMALL_BUDGETS = HORIZON_ON + "budget_net = 1200\nbudget_condense = 700\nbudget_recit = 1200\n"


def append(hive: Path, line: str, bee: str = BEE) -> None:
    with (hive / "window" / f"{bee}-messages.jsonl").open("a", encoding="utf-8") as stream:
        stream.write(line + "\n")


def handoff(hive: Path, bee: str = BEE) -> str:
    return (hive / "horizon" / bee / "handoff.md").read_text(encoding="utf-8")


@pytest.fixture
def config_file(tmp_path: Path) -> Path:
    path = tmp_path / "config.json"
    path.write_text("{}", encoding="utf-8")
    return path


@pytest.fixture
def run(config_file: Path) -> Run:
    env = {key: value for key, value in os.environ.items() if key != "HORIZON_CONFIG"}
    env["HORIZON_CONFIG"] = str(config_file)

    def horizon(*args: str | Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run([HORIZON, *map(str, args)], capture_output=True, text=True,
                              env=env, timeout=60, check=False)

    return horizon


def ok(result: subprocess.CompletedProcess[str]) -> subprocess.CompletedProcess[str]:
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    return result


def problem(result: subprocess.CompletedProcess[str], code: int = 1) -> str:
    """The stderr of a command that failed cleanly with `code`."""
    assert result.returncode == code, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    assert result.stderr.strip()
    return result.stderr


def test_the_command_is_installed() -> None:
    assert Path(HORIZON).is_file()
    assert os.access(HORIZON, os.X_OK)


# --- render -------------------------------------------------------------------------------


@pytest.mark.parametrize("bee_toml", [HORIZON_ON, "[horizon]\nactif = false\n"],
                         ids=["horizon", "handoff"])
def test_render_prints_handoff_md_after_a_rebuild(tmp_path: Path, run: Run,
                                                  bee_toml: str) -> None:
    hive = make_hive(tmp_path, three_entries(), bee_toml=bee_toml)
    ok(run("rebuild", hive, BEE, "--now", NOW_ARG))
    rendered = ok(run("render", hive, BEE, "--now", NOW_ARG)).stdout
    assert rendered == handoff(hive)
    mode = "horizon" if "true" in bee_toml else "handoff"
    assert rendered.startswith(
        f"<!-- horizon format=1 bee={BEE} mode={mode} up_to=3 at={iso(NOW - HOUR)} -->\n")
    # Without --now, a rendered state is shown as it is.
    assert ok(run("render", hive, BEE)).stdout == rendered


def test_render_json_has_the_fields_of_the_spec(tmp_path: Path, run: Run) -> None:
    hive = make_hive(tmp_path, [*many_entries(), entry("bad", ts=None)[:-1]],
                     bee_toml=SMALL_BUDGETS)
    ok(run("rebuild", hive, BEE, "--now", NOW_ARG))
    text = ok(run("render", hive, BEE, "--now", NOW_ARG)).stdout
    summary = json.loads(ok(run("render", hive, BEE, "--json", "--now", NOW_ARG)).stdout)

    assert set(summary) == {"bee", "mode", "up_to", "chars", "cap", "recit", "condense",
                            "net", "cut"}
    assert summary["bee"] == BEE
    assert summary["mode"] == "horizon"
    assert summary["up_to"] == 13  # the rejected last line included
    assert summary["chars"] == len(text)
    assert summary["cap"] == 1200 + 700 + 1200
    assert list(summary["recit"]) == SECTIONS
    assert all(isinstance(body, str) for body in summary["recit"].values())
    assert summary["condense"]
    for item in summary["condense"]:
        assert set(item) == {"seq", "ts", "type", "tool", "source", "chars", "phare"}
        assert item["source"] == "troncature"
    for item in summary["net"]:
        assert set(item) == {"seq", "ts", "type", "tool", "chars", "phare"}
    assert [item["seq"] for item in summary["net"]][-1] == 12
    assert summary["net"][-1]["ts"] == iso(NOW - HOUR + 720)
    assert summary["net"][-1]["type"] == "task"
    assert summary["net"][-1]["tool"] is None
    assert isinstance(summary["cut"], list)
    for cut in summary["cut"]:
        assert "step" in cut
        assert ("seq" in cut) != ("section" in cut)
    # Lists as injected: every listed entry is in the text, in that order.
    listed = [item["seq"] for item in summary["condense"] + summary["net"]]
    headings = [int(line.split(" ")[1][1:]) for line in text.split("\n")
                if line.startswith("### #")]
    assert headings == listed


def test_render_json_in_handoff_mode(tmp_path: Path, run: Run) -> None:
    hive = make_hive(tmp_path, three_entries())
    text = ok(run("render", hive, BEE, "--now", NOW_ARG)).stdout
    summary = json.loads(ok(run("render", hive, BEE, "--json", "--now", NOW_ARG)).stdout)
    assert summary["mode"] == "handoff"
    assert summary["up_to"] == 3
    assert summary["chars"] == len(text)
    assert summary["cap"] == 4096


def test_render_works_with_no_derived_state_and_writes_nothing(tmp_path: Path,
                                                               run: Run) -> None:
    hive = make_hive(tmp_path, many_entries(), bee_toml=SMALL_BUDGETS)
    before = sorted(path.relative_to(hive) for path in hive.rglob("*"))
    rendered = ok(run("render", hive, BEE, "--now", NOW_ARG)).stdout
    assert rendered.startswith(f"<!-- horizon format=1 bee={BEE} mode=horizon up_to=12 ")
    assert sorted(path.relative_to(hive) for path in hive.rglob("*")) == before

    ok(run("rebuild", hive, BEE, "--now", NOW_ARG))
    assert handoff(hive) == rendered


def test_render_fresh_sees_lines_appended_after_a_rebuild(tmp_path: Path, run: Run) -> None:
    hive = make_hive(tmp_path, three_entries(), bee_toml=HORIZON_ON)
    ok(run("rebuild", hive, BEE, "--now", NOW_ARG))
    written = handoff(hive)
    state = (hive / "horizon" / BEE / "state.json").read_bytes()
    append(hive, entry("nouvelle question", "nouvelle réponse", ts=NOW - 60))

    plain = ok(run("render", hive, BEE, "--now", NOW_ARG)).stdout
    assert plain == written
    assert "up_to=3 " in plain.split("\n")[0]
    assert "nouvelle question" not in plain

    fresh = ok(run("render", hive, BEE, "--fresh", "--now", NOW_ARG)).stdout
    assert f"up_to=4 at={iso(NOW - 60)} -->" in fresh.split("\n")[0]
    assert any(line.startswith("### #4 · ") for line in fresh.split("\n"))
    assert "> nouvelle question" in fresh
    # --fresh writes nothing.
    assert handoff(hive) == written
    assert (hive / "horizon" / BEE / "state.json").read_bytes() == state


def test_render_now_applies_age_eviction(tmp_path: Path, run: Run) -> None:
    hive = make_hive(tmp_path, three_entries(), bee_toml=HORIZON_ON)

    def net_and_condense(*extra: str) -> tuple[list[int], list[int]]:
        summary = json.loads(ok(run("render", hive, BEE, "--json", *extra)).stdout)
        return ([item["seq"] for item in summary["net"]],
                [item["seq"] for item in summary["condense"]])

    later = iso(NOW + 22 * HOUR)  # #1 is then 25 h old, #2 24 h, #3 23 h
    assert net_and_condense("--now", NOW_ARG) == ([1, 2, 3], [])
    assert net_and_condense("--now", later) == ([2, 3], [1])
    assert net_and_condense("--now", str(int(NOW + 22 * HOUR))) == ([2, 3], [1])

    ok(run("rebuild", hive, BEE, "--now", NOW_ARG))
    assert net_and_condense("--now", NOW_ARG) == ([1, 2, 3], [])
    assert net_and_condense("--now", later) == ([2, 3], [1])


# --- rebuild ------------------------------------------------------------------------------


def test_rebuild_writes_handoff_and_state(tmp_path: Path, run: Run) -> None:
    hive = make_hive(tmp_path, [*three_entries(), "{not json"], bee_toml=HORIZON_ON)
    result = ok(run("rebuild", hive, BEE, "--now", NOW_ARG))
    assert result.stdout.startswith(f"{BEE}: 3 entries, 1 rejected, up to #4")

    text = handoff(hive)
    assert text.startswith(f"<!-- horizon format=1 bee={BEE} mode=horizon up_to=4 ")
    state = json.loads((hive / "horizon" / BEE / "state.json").read_text(encoding="utf-8"))
    assert state["format"] == STATE_FORMAT
    assert state["bee"] == BEE
    assert state["checkpoint"]["seq"] == 4
    journal = hive / "window" / f"{BEE}-messages.jsonl"
    assert state["checkpoint"]["offset"] == journal.stat().st_size

    # Idempotent: the same files at the same --now give the same view.
    ok(run("rebuild", hive, BEE, "--now", NOW_ARG))
    assert handoff(hive) == text


def test_rebuild_without_a_bee_rebuilds_every_bee(tmp_path: Path, run: Run) -> None:
    hive = make_hive(tmp_path, three_entries())
    make_hive(tmp_path, [entry("autre")], bee="c")
    result = ok(run("rebuild", hive, "--now", NOW_ARG))
    assert f"{BEE}: 3 entries" in result.stdout
    assert "c: 1 entry," in result.stdout
    assert handoff(hive, BEE).startswith(f"<!-- horizon format=1 bee={BEE} mode=handoff ")
    assert handoff(hive, "c").startswith("<!-- horizon format=1 bee=c mode=handoff up_to=1 ")


def test_rebuild_refuses_a_locked_hive_naming_the_pid(tmp_path: Path, run: Run) -> None:
    hive = make_hive(tmp_path, three_entries())
    lock = HiveLock(hive)
    try:
        stderr = problem(run("rebuild", hive, BEE, "--now", NOW_ARG))
    finally:
        lock.release()
    assert f"pid {os.getpid()}" in stderr
    assert not (hive / "horizon" / BEE / "handoff.md").exists()
    ok(run("rebuild", hive, BEE, "--now", NOW_ARG))  # released: it goes through


# --- status -------------------------------------------------------------------------------


def test_status_without_a_daemon_exits_1_and_still_reports(tmp_path: Path, run: Run) -> None:
    hive = make_hive(tmp_path, [*three_entries(), "[1]"], bee_toml=HORIZON_ON)
    ok(run("rebuild", hive, BEE, "--now", NOW_ARG))

    text = run("status", hive)
    assert text.returncode == 1
    assert "no daemon serves it" in text.stdout

    result = run("status", hive, "--json")
    assert result.returncode == 1
    report = json.loads(result.stdout)
    [hive_report] = report["hives"]
    assert hive_report["daemon"]["running"] is False
    [bee] = hive_report["bees"]
    assert bee["bee"] == BEE
    assert (bee["entries"], bee["rejected"], bee["segments"]) == (3, 1, 1)
    assert bee["rejections"] == {"not_object": 1} and bee["last_rejected"] == [4]
    assert bee["zones"]["net"]["budget"] == 12000
    assert bee["zones"]["net"]["before"] == bee["zones"]["net"]["after"] > 0


def test_a_wrongly_typed_ok_or_files_is_ignored_and_counted(tmp_path: Path, run: Run) -> None:
    """`ok` and `files` came later than the other fields: a line with one of the wrong
    type is accepted as it always was, and status counts it."""
    lines = [entry("pytest", "1 failed", kind="tool", tool="Bash", ok="no"),
             entry("edit", "done", files=["a.py", 3]), entry("ls", "a.py", ok=None),
             entry("make", "ok", kind="tool", tool="Bash", ok=True, files=["src/a.py"])]
    hive = make_hive(tmp_path, lines, bee_toml=HORIZON_ON)
    ok(run("rebuild", hive, BEE, "--now", NOW_ARG))
    report = json.loads(run("status", hive, "--json").stdout)
    [bee] = report["hives"][0]["bees"]
    assert (bee["entries"], bee["rejected"], bee["bad_field"]) == (4, 0, 3)
    assert "3 entries with a wrongly typed ok or files (ignored)" in run("status", hive).stdout


def test_status_fits_its_terminal_and_honours_columns(tmp_path: Path,
                                                      config_file: Path) -> None:
    """At 80 columns (piped, or COLUMNS=80) no line is wider and no number is cut; a wide
    terminal gets one row a bee."""
    hive = make_hive(tmp_path, [*three_entries(), "[1]"], bee_toml=HORIZON_ON)
    env = {key: value for key, value in os.environ.items()
           if key not in ("HORIZON_CONFIG", "COLUMNS")}
    env["HORIZON_CONFIG"] = str(config_file)
    ok(subprocess.run([HORIZON, "rebuild", str(hive), BEE, "--now", NOW_ARG],
                      capture_output=True, text=True, env=env, timeout=60, check=False))
    report = json.loads(subprocess.run([HORIZON, "status", str(hive), "--json"],
                                       capture_output=True, text=True, env=env, timeout=60,
                                       check=False).stdout)
    net = report["hives"][0]["bees"][0]["zones"]["net"]
    for columns in (None, "80", "60"):
        shown = subprocess.run([HORIZON, "status", str(hive)], capture_output=True,
                               text=True, timeout=60, check=False,
                               env=env if columns is None else {**env, "COLUMNS": columns})
        width = int(columns or 80)
        lines = shown.stdout.splitlines()
        # Only lines quoting a path may be wider: a path is never broken.
        assert all(len(line) <= width for line in lines if str(hive) not in line), (
            columns, lines)
        assert "…" not in shown.stdout, lines
        assert f"net {net['after']}/{net['budget']}" in shown.stdout, lines
        assert f"{BEE}  horizon · 3 entries · 1 (not_object 1) rejected" in shown.stdout, lines
    wide = subprocess.run([HORIZON, "status", str(hive)], capture_output=True, text=True,
                          timeout=60, check=False, env={**env, "COLUMNS": "200"})
    [row] = [line for line in wide.stdout.splitlines() if line.startswith(f"{BEE} ")]
    assert f"{net['after']}/{net['budget']}" in row and "net" in wide.stdout


def test_status_of_a_hive_never_rendered(tmp_path: Path, run: Run) -> None:
    hive = make_hive(tmp_path, three_entries())
    report = json.loads(run("status", hive, "--json").stdout)
    [bee] = report["hives"][0]["bees"]
    assert bee["entries"] == 0
    assert bee["lag_lines"] == 3
    assert bee["lag_bytes"] == (hive / "window" / f"{BEE}-messages.jsonl").stat().st_size


# --- phare --------------------------------------------------------------------------------


def heading_of(text: str, seq: int) -> str:
    return next(line for line in text.split("\n") if line.startswith(f"### #{seq} · "))


def test_phare_flags_an_entry_as_a_lighthouse(tmp_path: Path, run: Run) -> None:
    hive = make_hive(tmp_path, three_entries(), bee_toml=HORIZON_ON)
    ok(run("rebuild", hive, BEE, "--now", NOW_ARG))
    assert not heading_of(handoff(hive), 2).endswith(" · phare")

    result = ok(run("phare", hive, BEE, "2"))
    assert "#2" in result.stdout
    flags = (hive / "phares" / f"{BEE}.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["seq"] for line in flags] == [2]

    ok(run("rebuild", hive, BEE, "--now", NOW_ARG))
    assert heading_of(handoff(hive), 2) == (
        f"### #2 · {iso(NOW - 2 * HOUR)} · task · outil read · phare")
    assert heading_of(ok(run("render", hive, BEE, "--now", NOW_ARG)).stdout, 2).endswith(
        " · phare")

    ok(run("phare", hive, BEE, "2", "--off"))
    ok(run("rebuild", hive, BEE, "--now", NOW_ARG))
    assert heading_of(handoff(hive), 2) == f"### #2 · {iso(NOW - 2 * HOUR)} · task · outil read"
    assert len((hive / "phares" / f"{BEE}.jsonl").read_text(encoding="utf-8").splitlines()) == 2


def test_phare_refuses_a_seq_that_does_not_exist(tmp_path: Path, run: Run) -> None:
    hive = make_hive(tmp_path, three_entries(), bee_toml=HORIZON_ON)
    stderr = problem(run("phare", hive, BEE, "9"))
    assert "#9" in stderr
    assert not (hive / "phares").exists()


@pytest.mark.parametrize("bad", ["{not json", "[1]", entry("q", ts=None).replace(
    '"task"', "null")], ids=["bad_json", "not_object", "mistyped"])
def test_phare_refuses_a_rejected_seq(tmp_path: Path, run: Run, bad: str) -> None:
    hive = make_hive(tmp_path, [entry("un"), "", bad, entry("trois")], bee_toml=HORIZON_ON)
    stderr = problem(run("phare", hive, BEE, "2"))
    assert "#2" in stderr
    assert "rejected" in stderr
    assert not (hive / "phares").exists()
    ok(run("phare", hive, BEE, "3"))  # the line after it keeps its seq


def test_phare_refuses_a_line_over_max_line_bytes(tmp_path: Path, run: Run,
                                                  config_file: Path) -> None:
    config_file.write_text(json.dumps({"max_line_bytes": 1024}), encoding="utf-8")
    hive = make_hive(tmp_path, [entry("un"), entry("long", "x" * 2000)], bee_toml=HORIZON_ON)
    stderr = problem(run("phare", hive, BEE, "2"))
    assert "rejected" in stderr


# --- config and check ---------------------------------------------------------------------


def test_config_shows_where_each_key_comes_from(tmp_path: Path, run: Run,
                                                config_file: Path) -> None:
    config_file.write_text(json.dumps({"horizon": {"ligne_max": 100, "budget_net": 9000}}),
                           encoding="utf-8")
    hive = make_hive(tmp_path, three_entries(), hive_toml=HORIZON_ON,
                     bee_toml='mission = "Tenir le rucher"\n[horizon]\nbudget_net = 5000\n')
    lines = ok(run("config", hive, BEE)).stdout.splitlines()

    def line_of(key: str) -> str:
        return next(line for line in lines if line.split(" ")[0] == key)

    bee_file = str(hive / "bees" / f"{BEE}.toml")
    assert "5000" in line_of("budget_net")
    assert line_of("budget_net").endswith(bee_file)
    assert "true" in line_of("actif")
    assert line_of("actif").endswith(str(hive / "horizon.toml"))
    assert "100" in line_of("ligne_max")
    assert line_of("ligne_max").endswith(str(config_file))
    assert line_of("budget_recit").endswith("défaut intégré")
    assert "Tenir le rucher" in line_of("mission")
    assert line_of("mission").endswith(bee_file)


def test_config_with_config_flag_overrides_the_environment(tmp_path: Path, run: Run) -> None:
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"horizon": {"ligne_max": 77}}), encoding="utf-8")
    hive = make_hive(tmp_path, three_entries())
    lines = ok(run("config", hive, BEE, "--config", other)).stdout.splitlines()
    line = next(line for line in lines if line.startswith("ligne_max "))
    assert "77" in line
    assert line.endswith(str(other))


def test_check_passes_good_settings(tmp_path: Path, run: Run) -> None:
    hive = make_hive(tmp_path, three_entries(), hive_toml=HORIZON_ON, bee_toml=SMALL_BUDGETS)
    result = ok(run("check", hive))
    assert str(hive / "bees" / f"{BEE}.toml") in result.stdout
    assert result.stderr == ""


def test_check_reports_an_invalid_bee_file(tmp_path: Path, run: Run) -> None:
    hive = make_hive(tmp_path, three_entries(),
                     bee_toml="[horizon]\nactif = true\nbudget_net = -4\n")
    make_hive(tmp_path, [entry()], bee="c", bee_toml='[horizon]\nplancher_phare = "toit"\n')
    stderr = problem(run("check", hive))
    assert str(hive / "bees" / f"{BEE}.toml") in stderr
    assert "horizon.budget_net" in stderr
    assert str(hive / "bees" / "c.toml") in stderr
    assert "horizon.plancher_phare" in stderr


def test_check_reads_a_hives_settings_before_it_has_bees(tmp_path: Path, run: Run) -> None:
    hive = tmp_path / "hive"
    (hive / "window").mkdir(parents=True)
    (hive / "horizon.toml").write_text('[horizon]\nbudget_net = "lots"\n', encoding="utf-8")
    stderr = problem(run("check", hive))
    assert str(hive / "horizon.toml") in stderr and "horizon.budget_net" in stderr
    (hive / "horizon.toml").write_text(HORIZON_ON, encoding="utf-8")
    checked = ok(run("check", hive)).stdout.splitlines()
    assert f"ok: {hive / 'horizon.toml'}" in checked
    assert "ok: 2 files checked" in checked  # config.json and horizon.toml


def test_check_without_any_config_says_what_it_checked(tmp_path: Path) -> None:
    env = {key: value for key, value in os.environ.items() if key != "HORIZON_CONFIG"}
    done = subprocess.run([HORIZON, "check"], capture_output=True, text=True, env=env,
                          cwd=tmp_path, timeout=60, check=False)
    if Path("/etc/horizon/config.json").exists():
        pytest.skip("this machine has a system config.json")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "ok: no config.json (--config, $HORIZON_CONFIG, /etc/horizon/config.json): the "
        "built-in defaults", "ok: 0 files checked"]


def test_check_reports_an_invalid_config_json(tmp_path: Path, run: Run,
                                              config_file: Path) -> None:
    config_file.write_text(json.dumps({"hivez": []}), encoding="utf-8")
    stderr = problem(run("check"))
    assert str(config_file) in stderr
    assert "hivez" in stderr


def test_check_finds_the_hives_listed_in_config_json(tmp_path: Path, run: Run,
                                                     config_file: Path) -> None:
    hive = make_hive(tmp_path, three_entries(), bee_toml="[horizon]\nbudjet = 1\n")
    config_file.write_text(json.dumps({"hives": [str(hive)]}), encoding="utf-8")
    stderr = problem(run("check"))
    assert str(hive / "bees" / f"{BEE}.toml") in stderr
    assert "horizon.budjet" in stderr


# --- user errors and bad usage --------------------------------------------------------------

COMMANDS_ON_A_BEE = [
    ("render", "{hive}", "{bee}", "--now", NOW_ARG),
    ("rebuild", "{hive}", "{bee}", "--now", NOW_ARG),
    ("phare", "{hive}", "{bee}", "1"),
    ("config", "{hive}", "{bee}"),
]


@pytest.mark.parametrize("command", [*COMMANDS_ON_A_BEE, ("status", "{hive}"),
                                     ("check", "{hive}")],
                         ids=lambda command: command[0])
def test_a_missing_hive_is_a_clear_error(tmp_path: Path, run: Run,
                                         command: tuple[str, ...]) -> None:
    missing = tmp_path / "nowhere"
    args = [part.format(hive=missing, bee=BEE) for part in command]
    stderr = problem(run(*args))
    assert str(missing) in stderr


@pytest.mark.parametrize("command", COMMANDS_ON_A_BEE, ids=lambda command: command[0])
def test_an_unknown_bee_is_a_clear_error(tmp_path: Path, run: Run,
                                         command: tuple[str, ...]) -> None:
    hive = make_hive(tmp_path, three_entries())
    args = [part.format(hive=hive, bee="inconnue") for part in command]
    stderr = problem(run(*args))
    assert "inconnue" in stderr
    assert not (hive / "horizon" / "inconnue").exists()


@pytest.mark.parametrize("args", [
    ("phare", "{hive}", BEE, "notanumber"),
    ("phare", "{hive}", BEE, "0"),
    ("render", "{hive}", BEE, "--now", "garbage"),
    ("rebuild", "{hive}", "--now", "2026-07-10T12:00:00"),
    ("render", "{hive}"),
    ("frobnicate",),
    (),
], ids=["seq_not_a_number", "seq_zero", "now_garbage", "now_without_offset", "missing_bee",
        "unknown_command", "no_command"])
def test_bad_usage_exits_2(tmp_path: Path, run: Run, args: tuple[str, ...]) -> None:
    hive = make_hive(tmp_path, three_entries())
    result = run(*[part.format(hive=hive) for part in args])
    problem(result, code=2)
    assert not (hive / "horizon").exists()
    assert not (hive / "phares").exists()


@pytest.mark.parametrize("command", [*COMMANDS_ON_A_BEE, ("status", "{hive}")],
                         ids=lambda command: command[0])
def test_an_invalid_config_json_given_with_config_exits_1(tmp_path: Path, run: Run,
                                                          command: tuple[str, ...]) -> None:
    hive = make_hive(tmp_path, three_entries())
    bad = tmp_path / "bad.json"
    bad.write_text('{"horizon": {"budget_net": 0}}', encoding="utf-8")
    args = [part.format(hive=hive, bee=BEE) for part in command]
    stderr = problem(run(*args, "--config", bad))
    assert str(bad) in stderr
    assert "horizon.budget_net" in stderr
    assert not (hive / "horizon").exists()


def test_a_config_json_syntax_error_exits_1(tmp_path: Path, run: Run) -> None:
    hive = make_hive(tmp_path, three_entries())
    bad = tmp_path / "bad.json"
    bad.write_text("{,}", encoding="utf-8")
    stderr = problem(run("render", hive, BEE, "--config", bad, "--now", NOW_ARG))
    assert str(bad) in stderr


def test_a_missing_config_file_exits_1(tmp_path: Path, run: Run) -> None:
    hive = make_hive(tmp_path, three_entries())
    missing = tmp_path / "absent.json"
    stderr = problem(run("render", hive, BEE, "--config", missing, "--now", NOW_ARG))
    assert str(missing) in stderr


def test_an_invalid_bee_file_makes_render_exit_1(tmp_path: Path, run: Run) -> None:
    hive = make_hive(tmp_path, three_entries(), bee_toml="[horizon]\nbudget_net = 0\n")
    stderr = problem(run("render", hive, BEE, "--now", NOW_ARG))
    assert str(hive / "bees" / f"{BEE}.toml") in stderr
    assert "horizon.budget_net" in stderr


def test_json_reports_escape_what_would_drive_or_reorder_a_terminal(
        tmp_path: Path, run: Run) -> None:
    hive = make_hive(tmp_path, three_entries())
    (hive / "window" / "archive").mkdir()
    hostile = "b\u202egnp.exe-messages.000001.jsonl"
    (hive / "window" / "archive" / hostile).write_bytes(b"")
    result = run("status", hive, "--json")
    assert "\u202e" not in result.stdout and "\\u202e" in result.stdout
    [report] = json.loads(result.stdout)["hives"]
    assert hostile in report["unrecorded"] + report["problems"] or any(
        hostile in problem for problem in report["problems"]), report


def test_init_s_next_step_works_as_written(tmp_path: Path) -> None:
    """Followed word for word on a machine without /etc/horizon/config.json, the commands
    init suggests check the new hive and start a daemon on it."""
    if Path("/etc/horizon/config.json").exists():
        pytest.skip("this machine has a system config.json")
    env = {key: value for key, value in os.environ.items() if key != "HORIZON_CONFIG"}
    made = subprocess.run([HORIZON, "init", "hive"], capture_output=True, text=True,
                          cwd=tmp_path, env=env, timeout=60, check=True)
    hint = made.stdout.splitlines()[-1]
    assert hint.startswith("next: horizon example config > config.json"), hint
    subprocess.run(f"{HORIZON} example config > config.json", shell=True, cwd=tmp_path,
                   env=env, timeout=60, check=True)
    config = json.loads((tmp_path / "config.json").read_text())
    config["hives"], config["log"]["dir"] = [str(tmp_path / "hive")], str(tmp_path / "logs")
    (tmp_path / "config.json").write_text(json.dumps(config))
    check = hint.split("then: ", 1)[1].split(" && ")[0]
    done = subprocess.run(check.replace("horizon", HORIZON, 1), shell=True, cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    again = subprocess.run([HORIZON, "--config", "config.json", "init", "hive"],
                           capture_output=True, text=True, cwd=tmp_path, env=env,
                           timeout=60, check=True)
    assert again.stdout.splitlines()[-1] == (
        "next: horizon --config config.json check && horizon --config config.json run")
