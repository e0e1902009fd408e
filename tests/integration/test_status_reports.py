"""`status --json` is the typed reports, field for field, as the reference documents them."""

from __future__ import annotations

import json
import re
from pathlib import Path

import msgspec
import pytest

from horizon.cli.main import main
from horizon.core.reports import (
    BeeReport,
    DaemonReport,
    HiveReport,
    StatusReport,
    SummarizerReport,
)

ROOT = Path(__file__).resolve().parents[2]


def _journal(hive: Path, bee: str, count: int, extra: tuple[str, ...] = ()) -> None:
    lines = [json.dumps({"ts": 1_700_000_000 + i, "type": "task", "from": "apicultrice",
                         "question": f"question {i}", "answer": f"answer {i}: it passes"})
             for i in range(count)]
    (hive / "window" / f"{bee}-messages.jsonl").write_text("\n".join([*lines, *extra]) + "\n")


@pytest.fixture
def varied_hive(tmp_path: Path) -> tuple[Path, Path]:
    """A hive with a bee of each kind a report tells apart, and its config.json."""
    hive = tmp_path / "hive"
    (hive / "window" / "archive").mkdir(parents=True)
    (hive / "bees").mkdir()
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"hives": [str(hive)], "log": {"dir": str(tmp_path)}}))
    _journal(hive, "horizon-mode", 40, ("not json", json.dumps(
        {"ts": 1_700_000_999, "type": "tool", "question": "q", "answer": "a", "ok": "yes"})))
    _journal(hive, "last-good", 10)
    _journal(hive, "too-new", 3)
    _journal(hive, "handoff-mode", 2)
    (hive / "bees" / "horizon-mode.toml").write_text("[horizon]\nactif = true\n")
    (hive / "bees" / "last-good.toml").write_text("[horizon]\nactif = true\n")
    assert main(["--config", str(config), "rebuild", "--now", "1700100000", str(hive)]) == 0
    (hive / "bees" / "last-good.toml").write_text("[horizon]\nactif = maybe\n")
    state = hive / "horizon" / "too-new" / "state.json"
    state.write_text(json.dumps({**json.loads(state.read_text()), "format": 999}))
    _journal(hive, "not-derived", 1)
    (hive / "window" / "linked-messages.jsonl").symlink_to("/etc/hostname")
    return hive, config


def _status(config: Path, hive: Path, capsys: pytest.CaptureFixture[str]) -> bytes:
    assert main(["--config", str(config), "status", "--json", str(hive)]) == 1  # no daemon
    return capsys.readouterr().out.encode()


def test_the_json_is_the_typed_report_and_nothing_else(
        varied_hive: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    hive, config = varied_hive
    out = _status(config, hive, capsys)
    typed = msgspec.json.decode(out, type=StatusReport)
    assert json.loads(msgspec.json.encode(typed)) == json.loads(out), "a key untyped"
    bees = {bee.bee: bee for bee in typed.hives[0].bees}
    assert set(bees) == {"horizon-mode", "last-good", "too-new", "handoff-mode",
                         "not-derived"}
    assert typed.hives[0].problems and "linked" in typed.hives[0].problems[0]


def test_each_bee_holds_the_fields_its_case_can_know(
        varied_hive: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    hive, config = varied_hive
    bees = {bee["bee"]: bee for bee in json.loads(_status(config, hive, capsys))["hives"][0]
            ["bees"]}
    derived_only = {"rejections", "last_rejected", "bad_field", "mismatched_flags"}
    view_fields = {"mode", "chars", "cap", "cut"}

    assert set(bees["too-new"]) == {"bee", "segments", "missing_segments", "error",
                                    "degraded"}
    assert "format 999" in bees["too-new"]["error"]

    assert not derived_only & set(bees["not-derived"]) and not view_fields & set(
        bees["not-derived"])
    assert (bees["not-derived"]["entries"], bees["not-derived"]["derived"]) == (0, False)
    assert set(bees["not-derived"]["summarizer"]) == {"asked", "levels", "in_use",
                                                      "unavailable"}

    mode = bees["horizon-mode"]
    assert derived_only | view_fields | {"zones"} <= set(mode)
    assert mode["rejections"] == {"bad_json": 1} and mode["bad_field"] == 1
    assert set(mode["zones"]) == {"net", "condense", "recit"}
    assert "degraded" not in mode and "settings_in_use" not in mode

    assert bees["handoff-mode"]["mode"] == "handoff" and "zones" not in bees["handoff-mode"]

    good = bees["last-good"]
    assert good["settings_in_use"] == "last good" and good["degraded"] is True
    assert good["settings"]["actif"] is True and "last-good.toml" in good["settings_error"]


def _documented_fields() -> set[str]:
    """The field names of the reference's `status --json` tables."""
    text = (ROOT / "docs" / "reference.md").read_text(encoding="utf-8")
    section = text[text.index("### 5.3 `horizon status"):text.index("#### 5.3.1")]
    names: set[str] = set()
    for row in re.findall(r"^\| (`[^|]*) \|", section, flags=re.MULTILINE):
        names.update(re.findall(r"`([a-z_.]+)`", row))
    return names


def test_every_field_of_the_types_is_documented_and_every_documented_one_exists() -> None:
    typed = ({f"daemon.{name}" for name in DaemonReport.__struct_fields__}
             | {f"summarizer.{name}" for name in SummarizerReport.__struct_fields__}
             | set(BeeReport.__struct_fields__) | set(HiveReport.__struct_fields__))
    typed -= {"daemon", "summarizer"}  # their fields are the documented rows
    assert typed == _documented_fields()
