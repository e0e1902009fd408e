"""The hive's names: matched whole, and every changed path told apart by what it is."""

from __future__ import annotations

from pathlib import Path

import pytest

from horizon.hive.layout import (
    ArchiveSegment,
    FlagsFile,
    HiveFolder,
    JournalName,
    LiveJournal,
    SettingsFile,
    classify,
    is_bee_name,
    parse_journal_name,
)

HIVE = Path("/srv/hive")


@pytest.mark.parametrize(("name", "parsed"), [
    ("mia-messages.jsonl", JournalName("mia")),
    ("mia-messages.000012.jsonl", JournalName("mia", 12)),
    ("a-b-messages.000001.jsonl", JournalName("a-b", 1)),
    ("mia-messages.12.jsonl", None),
    ("mia-segments.jsonl", None),
    ("mia-messages.jsonl\n", None),
    ("mia-messages.jsonl.tmp", None),
])
def test_journal_names_are_matched_whole(name: str, parsed: JournalName | None) -> None:
    assert parse_journal_name(name) == parsed


@pytest.mark.parametrize(("name", "valid"), [
    ("mia", True), ("_x-1", True), ("a" * 64, True), ("a" * 65, False), ("-mia", False),
    ("mia\n", False), ("mi a", False), ("", False), ("é", False),
])
def test_bee_names(name: str, valid: bool) -> None:
    assert is_bee_name(name) is valid


@pytest.mark.parametrize(("path", "kind"), [
    (HIVE / "horizon.toml", SettingsFile()),
    (HIVE / "bees" / "mia.toml", SettingsFile()),
    (HIVE / "window", HiveFolder()),
    (HIVE / "window" / "archive", HiveFolder()),
    (HIVE / "window" / "mia-messages.jsonl", LiveJournal("mia")),
    (HIVE / "window" / "archive" / "mia-messages.000003.jsonl",
     ArchiveSegment("mia", "mia-messages.000003.jsonl")),
    (HIVE / "phares" / "mia.jsonl", FlagsFile("mia")),
    (HIVE / "window" / "-bad-messages.jsonl", None),
    (HIVE / "window" / "archive" / "mia-segments.jsonl", None),
    (HIVE / "horizon" / "mia" / "state.json", None),
    (Path("/elsewhere/window/mia-messages.jsonl"), None),
])
def test_a_changed_path_is_classified_by_the_layout(path: Path, kind: object) -> None:
    assert classify(HIVE, path) == kind
