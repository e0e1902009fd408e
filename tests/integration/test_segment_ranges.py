"""The seq ranges a state keeps per segment: few (state.json is written at every pass),
enough to find the line of every entry net and condensé hold, and the same whether
reached pass by pass or by a rebuild."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest

from horizon.core.blocks import net_block
from horizon.core.entries import Entry, decode_line
from horizon.core.render import render
from horizon.core.settings import Effective, GlobalConfig, HorizonSettings
from horizon.engine.bee_engine import BeeEngine, ReadNew
from horizon.engine.stepping import PassRequest, run_pass
from horizon.hive.layout import archive_name, live_name
from horizon.hive.locate import locate_line
from horizon.hive.manifest import Clamp, append_records, read_manifest
from horizon.hive.rotation import adopt, rotate
from horizon.hive.store import BeeState

BEE = "mia"
CONFIG = GlobalConfig(max_line_bytes=4096)
NOW = 1_790_000_000.0
EFFECTIVE = Effective(HorizonSettings(actif=True, budget_net=3000, budget_condense=2500,
                                      budget_recit=1000), {}, None, None)


def entry_line(number: int) -> bytes:
    return json.dumps({"ts": 1_789_990_000 + number, "type": "task", "question": f"q{number}",
                       "answer": "a" * 300}).encode() + b"\n"


class Hive:
    def __init__(self, tmp: Path) -> None:
        self.root = tmp / "hive"
        self.window = self.root / "window"
        self.window.mkdir(parents=True)
        self.written = 0
        self.engine = BeeEngine(self.root, BEE, CONFIG, EFFECTIVE)

    def write(self, path: Path, count: int) -> None:
        with path.open("ab") as out:
            for _ in range(count):
                self.written += 1
                out.write(entry_line(self.written))

    def live(self) -> Path:
        return self.window / live_name(BEE)

    def run(self, late: set[str] | None = None) -> BeeState:
        self.engine.late_check |= late or set()
        outcome = self.engine.run(ReadNew(), NOW)
        assert outcome is not None
        return msgspec.json.decode(msgspec.json.encode(outcome.state), type=BeeState)

    def rotate(self) -> str:
        state, manifest = self.engine.state, self.engine.manifest
        assert state is not None and manifest is not None
        checkpoint = state.checkpoint
        moved = rotate(self.window, BEE, checkpoint, manifest)
        assert moved is not None
        state.checkpoint = moved  # what the engine does after a rotation
        state.segments[moved.segment] = state.segments.pop(checkpoint.segment)
        return moved.segment

    def assert_every_held_entry_is_found(self, state: BeeState) -> None:
        held = [*state.zones.net, *state.zones.condense]
        assert held
        manifest = read_manifest(self.window, BEE)
        for item in held:
            raw = locate_line(self.window, item.seq, state.segments, manifest,
                              CONFIG.max_line_bytes)
            assert raw is not None, item.seq
            entry = decode_line(item.seq, raw)
            assert isinstance(entry, Entry) and entry.question == item.question

    def assert_equals_a_rebuild(self, state: BeeState) -> None:
        rebuilt = run_pass(PassRequest(self.root, BEE, CONFIG, EFFECTIVE, NOW, None)).state
        assert msgspec.to_builtins(state) == msgspec.to_builtins(rebuilt)


def test_ranges_do_not_grow_with_the_number_of_segments(tmp_path: Path) -> None:
    kept = []
    for segments in (5, 40):
        hive = Hive(tmp_path / str(segments))
        (hive.window / "archive").mkdir()
        for index in range(1, segments + 1):
            hive.write(hive.window / "archive" / archive_name(BEE, index), 40)
        adopt(hive.window, BEE, read_manifest(hive.window, BEE))
        hive.write(hive.live(), 5)
        state = hive.run()
        hive.assert_every_held_entry_is_found(state)
        kept.append(len(state.segments))
    assert kept[0] == kept[1] < 5


def test_lines_read_late_are_found_and_the_ranges_equal_a_rebuilds(tmp_path: Path) -> None:
    """Late lines in a rotated segment, before and after it is sealed and its range gone,
    with the live journal growing in between."""
    hive = Hive(tmp_path)
    hive.write(hive.live(), 40)
    hive.run()
    archived = hive.rotate()
    archive = hive.window / "archive" / archived
    hive.write(hive.live(), 20)
    hive.write(archive, 2)  # lines a writer with a stale descriptor adds after the move
    state = hive.run()
    hive.assert_every_held_entry_is_found(state)
    hive.assert_equals_a_rebuild(state)
    hive.engine.seal(archived, archive.stat().st_size)
    hive.write(hive.live(), 30)
    state = hive.run()
    assert archived not in state.segments
    hive.write(archive, 1)
    hive.write(hive.live(), 3)
    state = hive.run(late={archived})
    hive.assert_every_held_entry_is_found(state)
    hive.assert_equals_a_rebuild(state)


def test_the_range_of_the_segment_being_read_starts_at_its_first_line(tmp_path: Path) -> None:
    """A journal that began with lines the zones do not hold (rejected ones) keeps its
    range, so the entries that come after are still found at the right line."""
    hive = Hive(tmp_path)
    hive.live().write_bytes(b"not json\n{}\n[1]\n")
    hive.run()
    hive.write(hive.live(), 30)
    state = hive.run()
    hive.assert_every_held_entry_is_found(state)
    hive.assert_equals_a_rebuild(state)


def test_a_clamp_record_edited_out_of_range_is_not_taken(tmp_path: Path) -> None:
    hive = Hive(tmp_path)
    hive.write(hive.live(), 3)
    append_records(hive.window, BEE, [Clamp(1, 1e12)])  # the year 33658
    assert read_manifest(hive.window, BEE).clamps == []
    state = hive.run()
    assert state.zones.net[0].instant == 1_789_990_001
    assert all(item.chars == len(net_block(item, EFFECTIVE.horizon.labels))
               for item in state.zones.net)
    assert render(state.zones, BEE, EFFECTIVE.horizon, None).text.startswith("<!-- horizon")


def test_a_manifest_is_read_again_only_when_it_changed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Discovery and status ask every bee's segments whenever a file appears in window/:
    an unchanged manifest is not parsed again (a bee with a 59 MB manifest once made
    another bee's write-to-view take 1.7 s)."""
    import horizon.hive.manifest as manifest_module
    from horizon.hive.manifest import Adopted, recorded_segments

    window = tmp_path / "window"
    (window / "archive").mkdir(parents=True)
    append_records(window, BEE, [Adopted(f"{BEE}-messages.000001.jsonl")])
    reads = []
    real = manifest_module.read_manifest
    monkeypatch.setattr(manifest_module, "read_manifest",
                        lambda *args: reads.append(args) or real(*args))
    assert recorded_segments(window, BEE) == [f"{BEE}-messages.000001.jsonl"]
    assert recorded_segments(window, BEE) == [f"{BEE}-messages.000001.jsonl"]
    assert len(reads) == 1
    append_records(window, BEE, [Adopted(f"{BEE}-messages.000002.jsonl")])
    assert recorded_segments(window, BEE)[-1] == f"{BEE}-messages.000002.jsonl"
    assert len(reads) == 2
