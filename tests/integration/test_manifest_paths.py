"""No manifest record, however forged, makes the reader or `finish_rotations` touch a path
outside the hive: checked with an audit hook on every file operation Python audits."""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from horizon.core.entries import Entry
from horizon.core.errors import JournalError
from horizon.hive.journal import Checkpoint
from horizon.hive.manifest import read_manifest
from horizon.hive.reader import JournalReader
from horizon.hive.rotation import finish_rotations

BEE = "mia"
_AUDITED = {"open", "os.link", "os.rename", "os.remove", "os.rmdir", "os.mkdir",
            "os.listdir", "os.scandir", "os.symlink", "os.truncate", "os.chmod"}
_watch: list[tuple[Path, Path, list[str]]] = []  # (root, hive, what left the hive)


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if not _watch or event not in _AUDITED:
        return
    root, hive, escaped = _watch[-1]
    for arg in args[:2]:
        if not isinstance(arg, str | bytes | os.PathLike):
            continue
        path = Path(os.path.abspath(os.fsdecode(arg)))
        inside_root = path == root or root in path.parents
        if inside_root and not (path == hive or hive in path.parents):
            escaped.append(f"{event} {path}")


sys.addaudithook(_audit)  # hooks cannot be removed: this one only looks while `watching`


@contextmanager
def watching(root: Path, hive: Path) -> Iterator[list[str]]:
    escaped: list[str] = []
    _watch.append((root, hive, escaped))
    try:
        yield escaped
    finally:
        _watch.pop()


def segment_names(outside: Path) -> st.SearchStrategy[str]:
    own = st.integers(1, 3).map(lambda n: f"{BEE}-messages.{n:06d}.jsonl")
    hostile = st.sampled_from([
        "../../outside/planted.jsonl", f"../../outside/{BEE}-messages.000001.jsonl",
        str(outside / "secret.jsonl"), str(outside), "/", "..", ".", "",
        f"{BEE}-messages.jsonl", "other-messages.000001.jsonl",
        f"../archive/{BEE}-messages.000001.jsonl", f"{BEE}-messages.000001.jsonl/..",
        f"{BEE}-messages.000001.jsonl\x00", f"sub/{BEE}-messages.000001.jsonl",
    ])
    return own | hostile | st.text(max_size=30)


def records(outside: Path, live_ino: int) -> st.SearchStrategy[dict[str, Any]]:
    segment = segment_names(outside)
    count = st.integers(0, 4096)
    ino = st.sampled_from([live_ino, 0, 1])
    return st.one_of(
        st.fixed_dictionaries({"kind": st.just("rotated"), "segment": segment, "ino": ino,
                               "offset": count, "seq": count}),
        st.fixed_dictionaries({"kind": st.just("late"), "segment": segment, "start": count,
                               "end": count, "first_seq": count, "last_seq": count}),
        st.fixed_dictionaries({"kind": st.just("jump"), "segment": segment, "ino": ino,
                               "seq": count}),
        st.fixed_dictionaries({"kind": st.just("sealed"), "segment": segment, "size": count}),
        st.fixed_dictionaries({"kind": st.just("adopted"), "segment": segment}),
        st.fixed_dictionaries({"kind": st.just("aborted"), "segment": segment}),
    )


@settings(max_examples=150, deadline=None)
@given(st.data(), st.booleans())
def test_no_record_leads_the_reader_or_a_rotation_outside_the_hive(
        tmp_path_factory: Any, data: st.DataObject, read_only: bool) -> None:
    root = Path(tmp_path_factory.mktemp("audit")).resolve()
    hive = root / "hive"
    window = hive / "window"
    (window / "archive").mkdir(parents=True)
    outside = root / "outside"
    outside.mkdir()
    line = json.dumps({"ts": 1_790_000_000, "type": "task", "question": "q", "answer": "a"})
    (outside / "secret.jsonl").write_text(line.replace('"q"', '"outside"') + "\n")
    live = window / f"{BEE}-messages.jsonl"
    live.write_text(line + "\n" + line + "\n")
    (window / "archive" / f"{BEE}-messages.000001.jsonl").write_text(line + "\n")
    planted = data.draw(st.lists(records(outside, live.stat().st_ino), max_size=8))
    (window / "archive" / f"{BEE}-segments.jsonl").write_text(
        "".join(json.dumps(record) + "\n" for record in planted))
    before = sorted(outside.iterdir())

    with watching(root, hive) as escaped:
        manifest = read_manifest(window, BEE)
        if not read_only:
            finish_rotations(window, BEE, manifest)
        reader = JournalReader(window, BEE, Checkpoint(), 1 << 20, time.time(), manifest, {},
                               finish_in_memory=read_only)
        try:
            read = list(reader)
        except JournalError:
            read = []  # a record naming a missing segment of the bee's: the bee is refused
    assert escaped == []
    assert sorted(outside.iterdir()) == before
    # Forged records may make the bee's own lines read in odd orders, never a foreign one.
    assert not [r for r in read if isinstance(r, Entry) and r.question == "outside"]
