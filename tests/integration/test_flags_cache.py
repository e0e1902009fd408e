"""A daemon's engine keeps a bee's flags between passes and reads them again only when the
flags file changed: a flag set while it runs is seen at the next pass, and a flags folder
turned into a link is still refused."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from horizon.core.errors import JournalError
from horizon.core.settings import Effective, GlobalConfig, HorizonSettings
from horizon.engine.bee_engine import BeeEngine, ReadNew
from horizon.hive.flags import FlagRecord, FlagsCache, append_flag
from horizon.hive.journal import line_hash

BEE = "mia"
LINES = [json.dumps({"ts": time.time(), "type": "task", "question": f"q{number}",
                     "answer": "a"}).encode() for number in (1, 2, 3)]


def new_hive(tmp_path: Path) -> Path:
    hive = tmp_path / "hive"
    (hive / "window").mkdir(parents=True)
    (hive / "window" / f"{BEE}-messages.jsonl").write_bytes(b"\n".join(LINES) + b"\n")
    return hive


def engine(hive: Path) -> BeeEngine:
    return BeeEngine(hive, BEE, GlobalConfig(),
                     Effective(HorizonSettings(actif=True), {}, None, None))


def lighthouses(engine: BeeEngine) -> list[int]:
    assert engine.state is not None
    return [item.seq for item in engine.state.zones.net if item.lighthouse]


def test_a_flag_set_between_two_passes_is_seen_by_the_second(tmp_path: Path) -> None:
    hive = new_hive(tmp_path)
    bee = engine(hive)
    bee.run(ReadNew(), time.time())
    assert lighthouses(bee) == []
    append_flag(hive, BEE, FlagRecord(2, line_hash(LINES[1])))
    bee.run(ReadNew(), time.time())
    assert lighthouses(bee) == [2]
    append_flag(hive, BEE, FlagRecord(2, line_hash(LINES[1]), on=False))
    append_flag(hive, BEE, FlagRecord(3, line_hash(LINES[2])))
    bee.run(ReadNew(), time.time())
    assert lighthouses(bee) == [3]


def test_the_cache_reads_the_file_again_only_when_it_changed(tmp_path: Path) -> None:
    hive = new_hive(tmp_path)
    cache = FlagsCache()
    assert cache.read(hive, BEE) == {}
    append_flag(hive, BEE, FlagRecord(1, "h1"))
    first = cache.read(hive, BEE)
    assert first == {1: "h1"}
    assert cache.read(hive, BEE) is first  # unchanged: the same flags, not read again
    append_flag(hive, BEE, FlagRecord(1, "h1", on=False))
    assert cache.read(hive, BEE) == {}


def test_a_flags_folder_turned_into_a_link_is_refused_whatever_was_cached(
        tmp_path: Path) -> None:
    hive = new_hive(tmp_path)
    append_flag(hive, BEE, FlagRecord(1, "h1"))
    cache = FlagsCache()
    assert cache.read(hive, BEE) == {1: "h1"}
    elsewhere = tmp_path / "elsewhere"
    (hive / "phares").rename(elsewhere)  # the same file, now reached through a link
    (hive / "phares").symlink_to(elsewhere)
    with pytest.raises(JournalError, match="a link"):
        cache.read(hive, BEE)
