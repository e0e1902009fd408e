"""`horizon show` and `horizon search` over real hives that the real engine built: every
seq shows exactly the record a full read gives it, whatever rotations, late lines,
rejected lines, replaced journals and interrupted rotations came before; the text is
cleaned as the view cleans it; a search finds words after case and accent folding; and
neither command writes into the hive or needs its lock.
"""

from __future__ import annotations

import json
import math
import os
import re
import shlex
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

import pytest

from horizon.cli.main import main
from horizon.core.entries import Entry, Rejection, format_instant
from horizon.core.recall import fold
from horizon.core.settings import HorizonSettings
from horizon.core.text import clean, flatten, metadata
from horizon.engine.bee_engine import BeeEngine, ReadNew, Rebuild
from horizon.engine.recall import RecallError, search, show
from horizon.engine.stepping import Pass
from horizon.hive.history import History
from horizon.hive.layout import archive_dir, live_path, lock_path
from horizon.hive.lock import holder
from horizon.hive.manifest import Rotated, append_records, read_manifest
from horizon.hive.settings_files import effective_settings, load_global
from horizon.hive.store import load_state

BEE = "mia"
ROTATION = 3  # lines per live journal before it rotates: many segments, quickly
MAX_LINE = 4096  # max_line_bytes: a line over it is cheap to write
START = 1_780_000_000  # entries' instants: in the past, so none is clamped
SHOW_FIELDS = ["seq", "ts", "type", "from", "tool", "id", "phare", "question", "answer",
               "truncated"]
HIT_FIELDS = ["seq", "ts", "type", "tool", "excerpt"]

Record = Entry | Rejection

DEFAULTS = HorizonSettings()  # the lighthouse rule of a bee with no settings


class Hive:
    """A hive whose journal the real engine reads and rotates, pass by pass, as the daemon
    does (one engine kept between passes); writers append by opening and closing, or hold
    a descriptor across a rotation."""

    def __init__(self, root: Path, rotation_entries: int = ROTATION) -> None:
        self.root = root
        self.path = root / "hive"
        self.window = self.path / "window"
        self.window.mkdir(parents=True)
        (self.path / "bees").mkdir()
        (self.path / "bees" / f"{BEE}.toml").write_text(
            "[horizon]\nactif = true\nbudget_net = 900\nbudget_condense = 600\n"
            "budget_recit = 700\n")
        self.config_path = root / "config.json"
        self.config_path.write_text(json.dumps({
            "hives": [str(self.path)], "rotation_entries": rotation_entries,
            "rotate_wait_s": 0, "max_line_bytes": MAX_LINE,
            "log": {"dir": str(root / "logs")}}))
        self.config = load_global(self.config_path)
        self.effective = effective_settings(self.config, str(self.config_path), self.path, BEE)
        self.engine = BeeEngine(self.path, BEE, self.config, self.effective)
        self.written = 0
        self.size = 0  # the history's last seq, as the last full read found it

    @property
    def live(self) -> Path:
        return live_path(self.window, BEE)

    def segment(self, name: str) -> Path:
        return archive_dir(self.window) / name

    def line(self, question: str | None = None, answer: str | None = None, *,
             ensure_ascii: bool = False, sender: str | None = None, **extra: Any) -> bytes:
        """A valid entry, numbered in writing order unless its question is given."""
        self.written += 1
        fields = {"ts": START + 60 * self.written, "type": "task",
                  "question": f"question {self.written}" if question is None else question,
                  "answer": f"réponse {self.written} " * 3 if answer is None else answer,
                  **({} if sender is None else {"from": sender}), **extra}
        return json.dumps(fields, ensure_ascii=ensure_ascii).encode() + b"\n"

    def lines(self, count: int) -> bytes:
        return b"".join(self.line() for _ in range(count))

    def write(self, data: bytes, to: Path | None = None) -> None:
        """One writer's open, append, close (the live journal unless `to` says)."""
        with (to or self.live).open("ab") as out:
            out.write(data)

    def stale_writer(self) -> IO[bytes]:
        """A writer that opened the live journal and keeps its descriptor: once the journal
        rotates, what it writes lands in the archived segment (late lines)."""
        return self.live.open("ab", buffering=0)

    def daemon(self) -> Pass:
        """One pass of the daemon: read what is new, commit, rotate when due."""
        outcome = self.engine.run(ReadNew(), time.time())
        assert outcome is not None
        return outcome

    def rotated(self) -> list[str]:
        return sorted(read_manifest(self.window, BEE).rotated)

    def record_rotation(self) -> str:
        """The first step of a rotation of the live journal, as `rotate` takes it: its
        record, with the daemon's checkpoint; the segment it names."""
        state = load_state(self.path, BEE)
        assert state is not None and state.checkpoint.segment == self.live.name
        info = os.stat(self.live)
        assert state.checkpoint.ino == info.st_ino
        manifest = read_manifest(self.window, BEE)
        # As `rotate` names it: the number a rotation of this file took before its link
        # failed, else the next one.
        segment = next((r.segment for r in manifest.rotated.values()
                        if r.ino == info.st_ino and not self.segment(r.segment).exists()),
                       f"{BEE}-messages.{len(manifest.segments()) + 1:06d}.jsonl")
        record = Rotated(segment, info.st_ino, state.checkpoint.offset, state.checkpoint.seq)
        append_records(self.window, BEE, [record])
        if self.engine.manifest is not None:
            self.engine.manifest.add(record)
        return segment

    def crash_between_link_and_unlink(self, *, linked: bool = True) -> str:
        """The daemon's rotation of the live journal stopped by a crash after its record,
        its link made or not: the live journal is still there."""
        segment = self.record_rotation()
        if linked:
            archive_dir(self.window).mkdir(exist_ok=True)
            os.link(self.live, self.segment(segment))
        self.engine = BeeEngine(self.path, BEE, self.config, self.effective)  # it died
        return segment

    def link_fails(self) -> str:
        """The daemon's rotation of the live journal fails at its link (no hard links, a
        full disk): the record stays, the daemon reads on and tries again later."""
        segment = self.record_rotation()
        self.engine.rotate_retry_at = math.inf
        return segment

    # -- what a full read gives, and the commands ------------------------------------------

    def full_read(self) -> dict[int, Record]:
        """Every record of the history by seq, as a rebuild that writes nothing reads it."""
        seen: dict[int, Record] = {}

        def keep(record: Record) -> None:
            assert record.seq > max(seen, default=0), f"#{record.seq} out of order"
            seen[record.seq] = record

        outcome = BeeEngine(self.path, BEE, self.config, self.effective, writes=False,
                            on_record=keep).run(Rebuild(), time.time())
        assert outcome is not None
        # The last seq given: above the last record when the newest lines are gone.
        self.size = outcome.state.checkpoint.seq
        return seen

    def cli(self, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
        """A command in-process, with this hive's config: exit code, stdout, stderr."""
        capsys.readouterr()
        code = main([*argv, "--config", str(self.config_path)])
        out, err = capsys.readouterr()
        return code, out, err

    def show_json(self, capsys: pytest.CaptureFixture[str], *seqs: int,
                  extra: tuple[str, ...] = ()) -> tuple[int, list[dict[str, Any]], str]:
        code, out, err = self.cli(capsys, "show", str(self.path), BEE,
                                  *map(str, seqs), "--json", *extra)
        shown: list[dict[str, Any]] = json.loads(out)
        return code, shown, err

    def view_seqs(self, capsys: pytest.CaptureFixture[str], *fresh: str
                  ) -> dict[int, dict[str, Any]]:
        """The seqs `render --json` names (net and condensé), with what it says of each."""
        code, out, err = self.cli(capsys, "render", str(self.path), BEE, "--json", *fresh)
        assert code == 0, err
        view = json.loads(out)
        return {item["seq"]: item for item in [*view["net"], *view["condense"]]}


def expected_json(entry: Entry) -> dict[str, Any]:
    """What `show --json` gives an entry read whole."""
    def flat(value: str | None) -> str | None:
        return None if value is None else flatten(value)

    return {"seq": entry.seq, "ts": format_instant(entry.instant), "type": flatten(entry.type),
            "from": flat(entry.sender), "tool": flat(entry.tool), "id": flat(entry.writer_id),
            "phare": entry.phare, "question": clean(entry.question),
            "answer": clean(entry.answer), "truncated": False}


def snapshot(hive: Path) -> dict[str, tuple[bytes | None, int]]:
    """Every file and folder of the hive: its bytes (files) and its mtime."""
    shot: dict[str, tuple[bytes | None, int]] = {}
    for path in [hive, *sorted(hive.rglob("*"))]:
        info = os.stat(path, follow_symlinks=False)
        data = path.read_bytes() if path.is_file() else None
        shot[str(path.relative_to(hive))] = (data, info.st_mtime_ns)
    return shot


# -- the check every history goes through ---------------------------------------------------

def assert_recall_agrees_with_a_full_read(hive: Hive, capsys: pytest.CaptureFixture[str]
                                          ) -> dict[int, Record]:
    """Every seq shows exactly its record, through History.find, the engine's `show` and the
    command; so does every seq the view names; one past the end is unknown."""
    records = hive.full_read()
    size = hive.size
    every = list(range(1, size + 1))
    entries = {seq: r for seq, r in records.items() if isinstance(r, Entry)}
    rejected = {seq: r for seq, r in records.items() if isinstance(r, Rejection)}
    gone = [seq for seq in every if seq not in records]  # lines of a journal replaced

    history = History(hive.path, BEE, MAX_LINE)
    found, highest = history.find([*every, size + 1])
    assert found == records
    assert highest == size
    for seq in every:  # one at a time: each starts from its own segment
        assert history.find([seq])[0] == ({seq: records[seq]} if seq in records else {})
    assert history.find([size + 1]) == ({}, size)
    assert list(History(hive.path, BEE, MAX_LINE).entries()) == list(records.values())

    showing = show(hive.path, BEE, reversed(every), MAX_LINE, lighthouses=DEFAULTS)
    assert [shown.entry for shown in showing.shown] == list(reversed(entries.values()))
    assert len(showing.problems) == len(rejected) + len(gone)

    code, shown, err = hive.show_json(capsys, *every, size + 1)
    assert code == 1  # one past the end, at least
    assert all(list(item) == SHOW_FIELDS for item in shown)
    assert shown == [expected_json(entry) for entry in entries.values()]
    problems = err.splitlines()
    assert len(problems) == len(rejected) + len(gone) + 1
    said = dict(zip([*sorted([*rejected, *gone]), size + 1], problems, strict=True))
    for seq, rejection in rejected.items():
        assert f"#{seq} " in said[seq] and "rejected" in said[seq]
        assert rejection.reason.value in said[seq]
    for seq in gone:
        assert f"#{seq} " in said[seq] and "gone" in said[seq]
    assert f"#{size + 1} " in said[size + 1] and f"holds {size} lines" in said[size + 1]

    for fresh in ((), ("--fresh",)):
        view = hive.view_seqs(capsys, *fresh)
        assert view, "the view names entries"
        code, shown, err = hive.show_json(capsys, *view)
        assert code == 0, err
        for item in shown:
            named = view[item["seq"]]
            assert (item["ts"], item["type"], item["tool"]) == (
                named["ts"], named["type"], named["tool"]), item["seq"]
            assert item == expected_json(entries[item["seq"]])
    return records


# -- histories ------------------------------------------------------------------------------

def test_many_rotations(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hive = Hive(tmp_path)
    for count in (1, 2, 3, 4, 2, 5, 3, 3, 1, 3):
        hive.write(hive.lines(count))
        hive.daemon()
    hive.write(hive.lines(2))  # not read by the daemon yet
    assert len(hive.rotated()) >= 6
    records = assert_recall_agrees_with_a_full_read(hive, capsys)
    assert len(records) == hive.written


def test_late_lines_in_rotated_segments(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                        ) -> None:
    hive = Hive(tmp_path)
    hive.write(hive.lines(2))
    hive.daemon()
    stale = hive.stale_writer()
    try:
        hive.write(hive.lines(2))
        hive.daemon()  # rotates: the stale writer's descriptor now names the segment
        [first] = hive.rotated()
        stale.write(hive.line("late one"))
        stale.write(hive.line("late two"))
        hive.write(hive.lines(2))
        hive.daemon()  # the live lines, then the late ones, which get a `late` record
        assert read_manifest(hive.window, BEE).late
        hive.engine.seal(first, hive.segment(first).stat().st_size)
        hive.write(hive.lines(2))
        hive.daemon()
        stale.write(hive.line("late after the seal"))
        hive.write(hive.lines(4))
        hive.engine.late_check.add(first)  # what the watcher's event asks
        hive.daemon()
        hive.write(hive.lines(3))
        hive.daemon()
        stale.write(hive.line("late, not read by the daemon yet"))
    finally:
        stale.close()
    hive.write(hive.lines(1))
    records = assert_recall_agrees_with_a_full_read(hive, capsys)
    questions = [r.question for r in records.values() if isinstance(r, Entry)]
    assert questions[-1] == "late, not read by the daemon yet", "late lines come last"
    assert "late after the seal" in questions


def test_rejected_and_blank_lines(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hive = Hive(tmp_path)
    hive.write(hive.line() + b"\n   \n" + b"not json\n" + hive.line())
    hive.daemon()
    hive.write(b'{"ts": 1780000000, "type": "task", "answer": "no question"}\n'
               + b'{"ts": 1780000000, "type": "task", "question": "q", "answer": "a", '
               b'"tool": 7}\n'
               + b'{"ts": "yesterday", "type": "task", "question": "q", "answer": "a"}\n'
               + b"\t\r\n" + hive.line(answer="x" * (MAX_LINE + 10)) + b"[1, 2]\n"
               + hive.line())
    hive.daemon()
    hive.write(b'{"ts": 1780000000, "type": "task", "question": "\xff", "answer": ""}\n'
               + hive.lines(3) + b"\n\n")
    hive.daemon()
    hive.write(b"{}\n" + hive.lines(2))
    records = assert_recall_agrees_with_a_full_read(hive, capsys)
    reasons = {r.reason.value for r in records.values() if isinstance(r, Rejection)}
    assert reasons == {"bad_json", "missing_field", "wrong_type", "bad_ts", "too_long",
                       "not_object", "invalid_utf8"}


def test_a_journal_replaced_by_hand(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                    ) -> None:
    hive = Hive(tmp_path)
    hive.write(hive.lines(4))
    hive.daemon()  # rotated
    hive.write(hive.lines(2))
    hive.daemon()
    replacement = hive.window / "new.tmp"
    replacement.write_bytes(hive.lines(2))
    os.replace(replacement, hive.live)  # two lines read, then gone under their name
    outcome = hive.daemon()
    assert outcome.notes.replaced is not None
    hive.write(hive.lines(2))
    hive.daemon()  # rotates the replaced journal
    hive.write(hive.lines(1))
    replacement.write_bytes(hive.lines(1))
    os.replace(replacement, hive.live)  # replaced before the daemon read it
    hive.daemon()
    records = assert_recall_agrees_with_a_full_read(hive, capsys)
    assert [seq for seq in range(1, max(records)) if seq not in records] == [5, 6], (
        "the two lines the replaced journal held are gone, their seqs with them")


@pytest.mark.parametrize("linked", [True, False])
def test_an_interrupted_rotation(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                 linked: bool) -> None:
    hive = Hive(tmp_path, rotation_entries=4)
    for count in (3, 2, 4, 2, 1):
        hive.write(hive.lines(count))
        hive.daemon()
    segment = hive.crash_between_link_and_unlink(linked=linked)
    hive.write(hive.lines(1))  # a writer still appending to the journal it has open
    assert hive.live.exists() and hive.segment(segment).exists() == linked
    before = assert_recall_agrees_with_a_full_read(hive, capsys)
    code, shown_before, _ = hive.show_json(capsys, *before)
    assert hive.live.exists() and hive.segment(segment).exists() == linked, "left as found"

    hive.daemon()  # the daemon restarts: finishes the rotation, reads the line left
    assert not hive.live.exists() and hive.segment(segment).exists()
    after = assert_recall_agrees_with_a_full_read(hive, capsys)
    assert after == before, "the seqs the daemon gives are those recall gave"
    assert hive.show_json(capsys, *after) == (code, shown_before, "")


def test_a_rotation_whose_link_failed(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                      ) -> None:
    """The record is there, the segment is not, and the daemon read on in the live journal:
    it is the live journal, not the segment, until a retry links it."""
    hive = Hive(tmp_path)
    for count in (3, 4, 2):
        hive.write(hive.lines(count))
        hive.daemon()
    segment = hive.link_fails()
    for count in (2, 3):
        hive.write(hive.lines(count))
        hive.daemon()
    assert hive.live.exists() and not hive.segment(segment).exists()
    before = assert_recall_agrees_with_a_full_read(hive, capsys)
    assert len(before) == hive.written

    hive.engine = BeeEngine(hive.path, BEE, hive.config, hive.effective)  # a restart
    hive.write(hive.lines(1))
    hive.daemon()  # tries again: linked under the same number
    assert hive.segment(segment).exists()
    hive.write(hive.lines(2))
    hive.daemon()
    after = assert_recall_agrees_with_a_full_read(hive, capsys)
    assert {seq: after[seq] for seq in before} == before


def test_render_fresh_numbers_a_sealed_segments_late_lines_as_recall_does(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hive = Hive(tmp_path)
    stale = hive.stale_writer()
    try:
        hive.write(hive.lines(3))
        hive.daemon()  # rotated, the stale writer's descriptor in the segment
        [segment] = hive.rotated()
        hive.engine.seal(segment, hive.segment(segment).stat().st_size)
        stale.write(hive.line("late in a sealed segment"))
    finally:
        stale.close()
    hive.write(hive.lines(2))
    records = hive.full_read()
    assert [r.question for r in records.values() if isinstance(r, Entry)][-1] == (
        "late in a sealed segment"), "read last, after the live journal"
    view = hive.view_seqs(capsys, "--fresh")
    assert max(view) == max(records), "the newest entry is in net"


def test_everything_at_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Rotations, rejected and blank lines, late lines recorded and not, a journal replaced,
    a clamped instant, then a rotation a crash stopped with a line written after it."""
    hive = Hive(tmp_path)
    hive.write(hive.line() + b"\n" + b"oops\n" + hive.line())
    hive.daemon()
    stale = hive.stale_writer()
    try:
        hive.write(hive.lines(2) + b'{"ts": 1, "type": "t"}\n')
        hive.daemon()
        stale.write(hive.line("late and recorded") + b"  \n")
        hive.write(hive.line(ts=time.time() + 10 * 86400))  # a clock ahead: clamped
        hive.daemon()
        hive.write(hive.lines(3))
        hive.daemon()
        stale.write(hive.line("late and unrecorded"))
    finally:
        stale.close()
    replacement = hive.window / "new.tmp"
    replacement.write_bytes(hive.lines(2))
    os.replace(replacement, hive.live)
    hive.daemon()
    hive.crash_between_link_and_unlink()
    hive.write(hive.lines(1))
    assert read_manifest(hive.window, BEE).clamps
    assert_recall_agrees_with_a_full_read(hive, capsys)
    assert len(hive.rotated()) >= 3


# -- reading an entry -------------------------------------------------------------------------

def read_on_pattern(hive: Hive) -> re.Pattern[str]:
    """The last line of a cut entry, from the bee's own labels."""
    template = re.escape(hive.effective.horizon.labels.read_on)
    return re.compile(template.replace(r"\{left\}", r"(?P<left>\d+)")
                      .replace(r"\{how\}", r"(?P<how>.+)"))


def test_a_long_entry_is_read_on_window_by_window(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    hive = Hive(tmp_path)
    question = "Pourquoi\r\nle test échoue-t-il ?\u2028" + "q" * 180
    answer = "\n".join(f"ligne {n} : é\u202e" for n in range(60)) + "\r"
    hive.write(hive.lines(4) + hive.line(question, answer) + hive.lines(2))
    hive.daemon()
    [seq] = [r.seq for r in hive.full_read().values()
             if isinstance(r, Entry) and r.question == question]
    whole = clean(question) + clean(answer)
    assert len(whole) > 600

    # Text: each window's last line is the command that reads the next one.
    argv = ["show", str(hive.path), BEE, str(seq), "--max-chars", "97"]
    windows = 0
    while True:
        code, out, err = hive.cli(capsys, *argv)
        assert (code, err) == (0, "")
        windows += 1
        last = out.splitlines()[-1]
        matched = read_on_pattern(hive).fullmatch(last)
        if matched is None:
            break
        command = shlex.split(matched["how"])
        assert command[0] == "horizon"
        argv = command[1:]
        offset = int(argv[argv.index("--offset") + 1])
        assert int(matched["left"]) == len(whole) - offset
    assert windows == -(-len(whole) // 97)
    assert "\u202e" not in out and "\r" not in out

    # JSON: the windows put end to end give the whole cleaned text.
    read = ""
    offset = 0
    while True:
        code, [item], _ = hive.show_json(capsys, seq, extra=(
            "--max-chars", "97", "--offset", str(offset)))
        assert code == 0
        assert len(item["question"]) + len(item["answer"]) <= 97
        read += item["question"] + item["answer"]
        offset += 97
        if not item["truncated"]:
            break
    assert read == whole
    assert item["question"] == "" and item["answer"] == clean(answer)[-len(item["answer"]):]

    # Past the end: nothing, said so.
    code, out, _ = hive.cli(capsys, "show", str(hive.path), BEE, str(seq),
                            "--offset", str(len(whole) + 5))
    assert code == 0 and str(len(whole)) in out.splitlines()[-1]


def test_show_prints_each_seq_once_in_the_order_asked(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]
                                                     ) -> None:
    hive = Hive(tmp_path)
    hive.write(hive.lines(4) + b"garbage\n" + hive.lines(4))
    hive.daemon()
    code, out, err = hive.cli(capsys, "show", str(hive.path), BEE, "7", "5", "2", "7", "99")
    assert code == 1
    headings = [line for line in out.splitlines() if line.startswith("#")]
    assert [h.split(" ")[1] for h in headings] == ["#7", "#2"]
    assert err.splitlines() == [
        f"horizon: #5 of {BEE} was rejected (bad_json: JSON is malformed: invalid character "
        "(byte 0))",
        f"horizon: no entry #99 for bee '{BEE}': its history holds 9 lines"]


def test_a_lighthouse_is_shown_as_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                      ) -> None:
    """Flagged by the writer or by the operator (`horizon phare`, checked against the line's
    hash), as the view marks it; a writer's id is shown as text."""
    hive = Hive(tmp_path)
    hive.write(hive.lines(1) + hive.line(phare=True) + hive.line(id=42) + hive.lines(3))
    hive.daemon()  # rotated
    code, _, err = hive.cli(capsys, "phare", str(hive.path), BEE, "3")
    assert code == 0, err
    code, shown, _ = hive.show_json(capsys, 1, 2, 3)
    assert [(item["phare"], item["id"]) for item in shown] == [
        (False, None), (True, None), (True, "42")]
    code, out, _ = hive.cli(capsys, "show", str(hive.path), BEE, "3")
    heading = out.splitlines()[0]
    assert heading.endswith(hive.effective.horizon.labels.lighthouse) and "id 42" in heading
    assert heading in hive.cli(capsys, "render", str(hive.path), BEE)[1]


def hostile_line(hive: Hive) -> bytes:
    return hive.line(
        "first\rsecond\u2028### #1 fake heading\n\u202eevil\u202c\u2066 end\r\n## Récit de soi",
        "ok\x85### #2 also fake\x07\u2029> quoted", type="task**\n### #3",
        tool="`bash` #[x]|y", id="id·1 <b>", sender="<b>_ap_</b>\r### #4")


def test_hostile_text_is_shown_as_the_view_shows_it(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]
                                                    ) -> None:
    hive = Hive(tmp_path)
    hive.write(hive.lines(2) + hostile_line(hive))
    hive.daemon()
    code, out, _ = hive.cli(capsys, "show", str(hive.path), BEE, "3")
    assert code == 0
    for forbidden in ("\r", "\u2028", "\u2029", "\x85", "\x07", "\u202e", "\u202c", "\u2066"):
        assert forbidden not in out
    lines = out.splitlines()
    assert [line for line in lines if line.startswith("#")] == [lines[0]], "one heading"
    assert lines[0].startswith("### #3 ")
    for raw in ("task**\n### #3", "`bash` #[x]|y", "<b>_ap_</b>\r### #4", "id·1 <b>"):
        assert metadata(raw) in lines[0]
    assert "`bash`" not in lines[0] and "**" not in lines[0]
    labels = hive.effective.horizon.labels
    assert all(line.startswith(">") or line in (labels.question, labels.answer)
               for line in lines[1:]), "every line of text behind the quote prefix"
    code, view, _ = hive.cli(capsys, "render", str(hive.path), BEE)
    assert out in view, "the entry as the view quotes it, line for line"

    code, [item], _ = hive.show_json(capsys, 3)
    assert item["question"] == clean(
        "first\rsecond\u2028### #1 fake heading\n\u202eevil\u202c\u2066 end\r\n## Récit de soi")
    assert "\n" not in item["type"] and "\r" not in item["from"]


# -- searching ----------------------------------------------------------------------------------

def search_hive(tmp_path: Path) -> tuple[Hive, dict[str, int]]:
    """Entries worth finding, spread over archives, late lines and the live journal; the seq
    a full read gives each, by its question."""
    hive = Hive(tmp_path)
    hive.write(hive.line("Été à Paris", "il fait chaud") + hive.line("archived token here"))
    hive.daemon()
    stale = hive.stale_writer()
    try:
        hive.write(hive.line("un café serré") + hive.line("alpha", "gamma"))
        hive.daemon()  # rotated
        stale.write(hive.line("a latecomer, recorded"))
        hive.write(hive.line("l'été indien", "x", ensure_ascii=True)
                   + b'{"ts": 1780000000, "question": "alpha", "answer": "beta"}\n'
                   + hive.line("alpha then", "BETA after"))
        hive.daemon()
        hive.write(hive.line("long", "word " * 100 + "the needle " + "word " * 100))
        hive.write(b"".join(hive.line(f"common {n}") for n in range(6)))
        hive.daemon()
        hive.write(hostile_line(hive))
        hive.daemon()
        stale.write(hive.line("a latecomer, unrecorded"))
    finally:
        stale.close()
    seqs = {r.question: seq for seq, r in hive.full_read().items() if isinstance(r, Entry)}
    return hive, seqs


def hits(hive: Hive, capsys: pytest.CaptureFixture[str], query: str, *extra: str
         ) -> list[dict[str, Any]]:
    code, out, err = hive.cli(capsys, "search", str(hive.path), BEE, query, "--json", *extra)
    assert code == 0, err
    found: list[dict[str, Any]] = json.loads(out)
    assert all(list(hit) == HIT_FIELDS for hit in found)
    return found


def test_search_folds_case_and_accents(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                       ) -> None:
    hive, seqs = search_hive(tmp_path)
    assert [h["seq"] for h in hits(hive, capsys, "ete")] == [seqs["l'été indien"],
                                                              seqs["Été à Paris"]]
    assert b"\\u00e9t\\u00e9" in b"".join(
        path.read_bytes() for path in hive.window.rglob("*-messages*.jsonl"))
    assert [h["seq"] for h in hits(hive, capsys, "ÉTÉ")] == [seqs["l'été indien"],
                                                              seqs["Été à Paris"]]
    assert [h["seq"] for h in hits(hive, capsys, "CAFE")] == [seqs["un café serré"]]
    assert [h["seq"] for h in hits(hive, capsys, "Serré CAFÉ")] == [seqs["un café serré"]]
    [hit] = hits(hive, capsys, "cafe")
    assert "café" in hit["excerpt"] and hit["tool"] is None and hit["type"] == "task"


def test_search_wants_every_word_in_the_question_or_the_answer(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hive, seqs = search_hive(tmp_path)
    assert [h["seq"] for h in hits(hive, capsys, "alpha beta")] == [seqs["alpha then"]]
    assert [h["seq"] for h in hits(hive, capsys, "beta alpha alpha")] == [seqs["alpha then"]]
    assert [h["seq"] for h in hits(hive, capsys, "alpha")] == [seqs["alpha then"],
                                                               seqs["alpha"]]
    assert hits(hive, capsys, "alpha delta") == []


def test_search_gives_the_newest_first_up_to_the_limit(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    hive, seqs = search_hive(tmp_path)
    common = sorted((seqs[f"common {n}"] for n in range(6)), reverse=True)
    assert [h["seq"] for h in hits(hive, capsys, "common")] == common
    assert [h["seq"] for h in hits(hive, capsys, "COMMON", "--limit", "4")] == common[:4]
    newest = search(hive.path, BEE, "common", MAX_LINE, lighthouses=DEFAULTS, limit=1)
    assert [h.entry.seq for h in newest] == [common[0]]
    # Every entry has a question: `.` matches them all, and the limit keeps the newest.
    everything = sorted((seq for seq, r in hive.full_read().items()
                         if isinstance(r, Entry)), reverse=True)
    assert [h["seq"] for h in hits(hive, capsys, ".", "--regex", "--limit", "200")
            ] == everything
    assert [h["seq"] for h in hits(hive, capsys, ".", "--regex", "--limit", "5")
            ] == everything[:5]
    with pytest.raises(RecallError):
        search(hive.path, BEE, "common", MAX_LINE, lighthouses=DEFAULTS, limit=201)


def test_search_excerpts_are_short_and_hold_the_match(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]
                                                      ) -> None:
    hive, seqs = search_hive(tmp_path)
    [hit] = hits(hive, capsys, "NEEDLE")
    assert hit["seq"] == seqs["long"]
    assert "the needle" in hit["excerpt"] and len(hit["excerpt"]) <= 300
    assert "\n" not in hit["excerpt"]
    for query in ("word", "question", "ete", "e"):
        for hit in hits(hive, capsys, query, "--limit", "200"):
            assert len(hit["excerpt"]) <= 300
            assert query in fold(hit["excerpt"]), (query, hit)
    [hit] = hits(hive, capsys, "needle", "--regex")
    assert "the needle" in hit["excerpt"] and len(hit["excerpt"]) <= 300


def test_search_finds_archived_and_late_lines_at_the_seqs_the_view_gives(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hive, seqs = search_hive(tmp_path)
    view = hive.view_seqs(capsys, "--fresh")
    [hit] = hits(hive, capsys, "ARCHIVED token")
    assert hit["seq"] == seqs["archived token here"]
    latecomers = hits(hive, capsys, "latecomer")
    assert [h["seq"] for h in latecomers] == [seqs["a latecomer, unrecorded"],
                                              seqs["a latecomer, recorded"]]
    for hit in latecomers:
        if hit["seq"] in view:
            assert view[hit["seq"]]["ts"] == hit["ts"]
        code, [item], _ = hive.show_json(capsys, hit["seq"])
        assert code == 0 and item["question"].startswith("a latecomer")
    assert seqs["a latecomer, unrecorded"] in view, "the newest entry is in net"


def test_search_by_regular_expression(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                      ) -> None:
    hive, seqs = search_hive(tmp_path)
    assert [h["seq"] for h in hits(hive, capsys, r"caf[ée]\s+serr", "--regex")] == [
        seqs["un café serré"]]
    assert [h["seq"] for h in hits(hive, capsys, r"(?i)^été", "--regex")] == [
        seqs["Été à Paris"]]
    assert hits(hive, capsys, "ete", "--regex") == [], "a pattern is not folded"
    code, out, err = hive.cli(capsys, "search", str(hive.path), BEE, r"fake heading",
                              "--regex")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0].startswith("### #") and not any(
        line.startswith("#") for line in lines[1:])
    assert "\u202e" not in out and "\r" not in out


def test_a_runaway_pattern_is_stopped_with_a_clear_message(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]
                                                           ) -> None:
    hive = Hive(tmp_path)
    hive.write(hive.lines(2) + hive.line("x" * 900, "") + hive.lines(1))
    hive.daemon()
    code, out, err = hive.cli(capsys, "search", str(hive.path), BEE, "(x+x+)+y", "--regex")
    assert (code, out) == (1, "")
    assert "Traceback" not in err and len(err.splitlines()) == 1
    assert err.startswith("horizon: the regular expression ran away on #3")
    with pytest.raises(RecallError, match="ran away"):
        search(hive.path, BEE, "(x+x+)+y", MAX_LINE, lighthouses=DEFAULTS, pattern=True)


@pytest.mark.parametrize(("query", "extra", "said"), [
    ("(unclosed", ("--regex",), "bad regular expression"),
    ("", (), "no word"),
    ("  \t ", (), "no word"),
    ("\u202e\x07", (), "no word"),
])
def test_a_query_that_cannot_run_is_exit_1(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                           query: str, extra: tuple[str, ...], said: str
                                           ) -> None:
    hive = Hive(tmp_path)
    hive.write(hive.lines(2))
    code, out, err = hive.cli(capsys, "search", str(hive.path), BEE, query, *extra)
    assert (code, out) == (1, "")
    assert said in err and "Traceback" not in err and len(err.splitlines()) == 1


def test_unknown_bee_hive_and_no_match(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                       ) -> None:
    hive = Hive(tmp_path)
    hive.write(hive.lines(2))
    for argv in (["search", str(hive.path), "nobody", "word"],
                 ["show", str(hive.path), "nobody", "1"],
                 ["search", str(tmp_path / "nowhere"), BEE, "word"],
                 ["show", str(tmp_path / "nowhere"), BEE, "1"]):
        code, out, err = hive.cli(capsys, *argv)
        assert (code, out) == (1, ""), argv
        assert err.startswith("horizon: ") and "Traceback" not in err
    code, out, err = hive.cli(capsys, "search", str(hive.path), BEE, "zebra")
    assert (code, out) == (0, "")
    assert "zebra" in err
    assert hits(hive, capsys, "zebra") == []


# -- reading only -------------------------------------------------------------------------------

def every_recall(hive: Hive, capsys: pytest.CaptureFixture[str]) -> None:
    """Every way of asking, each answering."""
    records = hive.full_read()
    seqs = [str(seq) for seq in records]
    for argv in (["show", *seqs], ["show", *seqs, "--json"],
                 ["show", seqs[-1], "--max-chars", "5", "--offset", "3"],
                 ["search", "question"], ["search", "réponse", "--json", "--limit", "200"],
                 ["search", "ques.ion", "--regex"]):
        code, out, err = hive.cli(capsys, argv[0], str(hive.path), BEE, *argv[1:])
        assert code in (0, 1) and out, (argv, err)
    show(hive.path, BEE, map(int, seqs), MAX_LINE, lighthouses=DEFAULTS)
    search(hive.path, BEE, "question", MAX_LINE, lighthouses=DEFAULTS)


def read_only_hive(tmp_path: Path) -> Hive:
    """A hive in the middle of things: late lines no record holds, lines the daemon has
    not read, a rotation stopped between its link and its unlink."""
    hive = Hive(tmp_path)
    hive.write(hive.lines(2) + b"bad\n")
    hive.daemon()
    stale = hive.stale_writer()
    try:
        hive.write(hive.lines(2))
        hive.daemon()
        hive.write(hive.lines(2))
        hive.daemon()
        stale.write(hive.line("late"))
    finally:
        stale.close()
    hive.write(hive.lines(1))
    hive.daemon()
    hive.crash_between_link_and_unlink()
    hive.write(hive.lines(2))
    return hive


def test_recall_writes_nothing_in_the_hive(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                           ) -> None:
    hive = read_only_hive(tmp_path)
    before = snapshot(hive.path)
    assert not lock_path(hive.path).exists()
    every_recall(hive, capsys)
    assert snapshot(hive.path) == before


@pytest.fixture
def lock_holder(tmp_path: Path) -> Iterator[Callable[[Path], int]]:
    """Another process holding a hive's lock (flock), until the test ends."""
    held: list[subprocess.Popen[str]] = []

    def hold(hive: Path) -> int:
        process = subprocess.Popen(
            [sys.executable, "-c", "import sys\nfrom pathlib import Path\n"
             "from horizon.hive.lock import HiveLock\n"
             "lock = HiveLock(Path(sys.argv[1]))\nprint('held', flush=True)\nsys.stdin.read()",
             str(hive)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        held.append(process)
        assert process.stdout is not None and process.stdout.readline() == "held\n"
        return process.pid

    yield hold
    for process in held:
        assert process.stdin is not None
        process.stdin.close()
        process.wait()


def test_recall_works_while_another_process_holds_the_lock(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        lock_holder: Callable[[Path], int]) -> None:
    hive = read_only_hive(tmp_path)
    pid = lock_holder(hive.path)
    assert holder(hive.path) == pid
    before = snapshot(hive.path)
    every_recall(hive, capsys)
    assert snapshot(hive.path) == before
    assert holder(hive.path) == pid
