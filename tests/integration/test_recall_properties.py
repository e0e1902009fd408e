"""For any history the real engine built (entries, blank and rejected lines, rotations every
few lines, late lines from writers holding a rotated journal open, journals replaced by
hand, restarts, a rotation a crash stopped): every seq the view names can be shown, and
`History.find` gives each seq 1..N exactly the record a full sequential read gives it, and
nothing for N+1."""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from hypothesis import event, given, settings
from hypothesis import strategies as st

from horizon.core.entries import Entry
from horizon.core.settings import HorizonSettings
from horizon.engine.bee_engine import BeeEngine
from horizon.engine.recall import show
from horizon.hive.history import History
from horizon.hive.manifest import read_manifest
from horizon.hive.store import load_state
from tests.integration.test_one_seq_per_line import command
from tests.integration.test_recall import BEE, MAX_LINE, Hive

_REJECTED = [b"not json", b"{}", b"[1]", b'{"ts": 1, "type": "t", "question": "q"}',
             b'{"ts": "soon", "type": "t", "question": "q", "answer": ""}',
             b'{"ts": 1, "type": "t", "question": "q", "answer": "", "tool": 3}',
             b'{"ts": 1, "type": "t", "question": "\xff", "answer": ""}']
_BLANK = [b"", b"   ", b"\t", b" \r"]

# One line's bytes, newline excluded; None stands for a valid entry the hive numbers.
lines = st.one_of(
    st.none(),
    st.none(),
    st.text(max_size=12),  # an entry whose question is this text
    st.sampled_from(_REJECTED),
    st.sampled_from(_BLANK),
    st.just(b"x" * (MAX_LINE + 1)),  # too long
)
batches = st.lists(lines, min_size=1, max_size=4)

DEFAULTS = HorizonSettings()  # the lighthouse rule of a bee with no settings


@dataclass
class Write:
    batch: list[bytes | str | None]


@dataclass
class Pass:
    """The daemon reads what is new, and rotates when due."""


@dataclass
class WriteAndPass:
    """A writer appends, then the daemon passes: what makes a hive rotate often."""

    batch: list[bytes | str | None]


@dataclass
class OpenStale:
    """A writer opens the live journal and keeps its descriptor."""


@dataclass
class StaleWrite:
    """The oldest stale writer appends (late lines once its journal rotated); `half`
    leaves its last line unfinished for its next write."""

    batch: list[bytes | str | None]
    half: bool


@dataclass
class Late:
    """A writer holds the live journal open while it fills and rotates, then appends to
    it: late lines in the segment, read at the next pass."""

    batch: list[bytes | str | None]
    read: bool


@dataclass
class Seal:
    """The oldest unsealed segment stays quiet long enough."""


@dataclass
class LateCheck:
    """The watcher reports changes in every rotated segment."""


@dataclass
class Replace:
    """An operator replaces the live journal by hand."""

    batch: list[bytes | str | None]


@dataclass
class LinkFails:
    """The daemon's next rotation fails at its link: its record stays, reading goes on."""


@dataclass
class Restart:
    """The daemon restarts: its engine starts again from the files."""


Step = (Write | Pass | WriteAndPass | OpenStale | StaleWrite | Late | Seal | LateCheck
        | Replace | LinkFails | Restart)

steps = st.one_of(
    batches.map(WriteAndPass), batches.map(WriteAndPass), batches.map(Write), st.just(Pass()),
    st.just(OpenStale()), st.builds(StaleWrite, batches, st.booleans()),
    st.builds(StaleWrite, batches, st.booleans()), st.builds(Late, batches, st.booleans()),
    st.just(Seal()), st.just(LateCheck()),
    batches.map(Replace), st.just(LinkFails()), st.just(Restart()),
)


@dataclass
class Writers:
    hive: Hive
    stale: list[IO[bytes]] = field(default_factory=list)
    unfinished: bytes = b""  # the rest of the line the oldest stale writer left half-written

    def bytes_of(self, batch: list[bytes | str | None]) -> bytes:
        out = b""
        for line in batch:
            if line is None:
                out += self.hive.line()
            elif isinstance(line, str):
                out += self.hive.line(line)
            else:
                out += line + b"\n"
        return out

    def apply(self, step: Step) -> None:
        hive = self.hive
        if isinstance(step, Write):
            hive.write(self.bytes_of(step.batch))
        elif isinstance(step, Pass):
            hive.daemon()
        elif isinstance(step, WriteAndPass):
            hive.write(self.bytes_of(step.batch))
            hive.daemon()
        elif isinstance(step, OpenStale) and hive.live.exists():
            self.stale.append(hive.stale_writer())
        elif isinstance(step, StaleWrite) and self.stale:
            data = self.unfinished + self.bytes_of(step.batch)
            self.unfinished = b""
            if step.half:
                cut = len(data) - 1 - len(data.rstrip(b"\n").rsplit(b"\n", 1)[-1]) // 2
                data, self.unfinished = data[:cut], data[cut:]
            self.stale[0].write(data)
        elif isinstance(step, Late):
            with hive.stale_writer() as stale:
                hive.write(hive.lines(hive.config.rotation_entries))
                hive.daemon()
                stale.write(self.bytes_of(step.batch))
            if step.read:
                hive.daemon()
        elif isinstance(step, Seal):
            manifest = read_manifest(hive.window, BEE)
            waiting = [name for name in sorted(manifest.rotated) if name not in manifest.sealed
                       and hive.segment(name).exists()]
            if waiting:
                hive.engine.seal(waiting[0], hive.segment(waiting[0]).stat().st_size)
        elif isinstance(step, LateCheck):
            hive.engine.late_check |= set(hive.rotated())
        elif isinstance(step, Replace):
            replacement = hive.window / "replacement.tmp"
            replacement.write_bytes(self.bytes_of(step.batch))
            os.replace(replacement, hive.live)
        elif isinstance(step, LinkFails) and rotation_due(hive):
            hive.link_fails()
        elif isinstance(step, Restart):
            hive.engine = BeeEngine(hive.path, BEE, hive.config, hive.effective)

    def close(self) -> None:
        for writer in self.stale:
            writer.close()


def rotation_due(hive: Hive) -> bool:
    """Whether the daemon could start a rotation now: its checkpoint is in the live journal,
    past a line, and no rotation of that file is under way."""
    state = load_state(hive.path, BEE)
    if (state is None or state.checkpoint.segment != hive.live.name
            or not hive.live.exists() or os.stat(hive.live).st_ino != state.checkpoint.ino
            or not state.checkpoint.lines):
        return False
    manifest = read_manifest(hive.window, BEE)
    return manifest.interrupted_rotation(state.checkpoint.ino) is None


def unread_late_lines(hive: Hive, segment: str) -> bool:
    """Whether complete lines were appended to a rotated segment after what the manifest
    says was read of it."""
    path = hive.segment(segment)
    if not path.exists():
        return False
    start = read_manifest(hive.window, BEE).late_end(segment)
    return b"\n" in path.read_bytes()[start:]


def view_seqs(hive: Hive, fresh: bool) -> list[int]:
    """The seqs `render --json` names, net and condensé."""
    code, out = command("render", str(hive.path), BEE, "--json",
                        *(["--fresh"] if fresh else []), "--config", str(hive.config_path))
    assert code == 0
    view = json.loads(out)
    return [item["seq"] for item in [*view["net"], *view["condense"]]]


@settings(max_examples=40)
@given(history=st.lists(steps, min_size=4, max_size=30), crash=st.booleans(),
       rotation_entries=st.integers(2, 4))
def test_every_seq_is_found_as_a_full_read_gives_it(history: list[Step], crash: bool,
                                                    rotation_entries: int) -> None:
    with tempfile.TemporaryDirectory(prefix="horizon-recall-") as folder:
        hive = Hive(Path(folder), rotation_entries)
        writers = Writers(hive)
        try:
            for step in [Write([None]), OpenStale(), *history, Pass()]:
                writers.apply(step)
            if crash and rotation_due(hive):
                hive.crash_between_link_and_unlink()
                event("a rotation stopped between link and unlink")
                writers.apply(Write([None, None]))
        finally:
            writers.close()
        manifest = read_manifest(hive.window, BEE)
        event(f"{len(manifest.rotated)} rotations" if len(manifest.rotated) < 3
              else "3+ rotations")
        if manifest.late:
            event("late lines recorded")
        unread = {name for name in manifest.rotated if unread_late_lines(hive, name)}
        if unread:
            event("late lines not recorded yet")
        if unread & set(manifest.sealed):
            event("late lines in a sealed segment not recorded yet")
        if manifest.jumps:
            event("a journal replaced")
        if any(not hive.segment(name).exists() for name in manifest.rotated):
            event("a rotation not linked")

        records = hive.full_read()
        size = hive.size
        history_now = History(hive.path, BEE, MAX_LINE)
        assert history_now.find(range(1, size + 2)) == (records, size)
        for seq in range(1, size + 2):
            found, _ = history_now.find([seq])
            assert found == ({seq: records[seq]} if seq in records else {}), seq
        assert list(history_now.entries()) == list(records.values())

        for fresh in (False, True):
            if not fresh and load_state(hive.path, BEE) is None:
                continue
            named = view_seqs(hive, fresh)
            # The view keeps what it read of a journal replaced since: those lines are gone.
            gone = [seq for seq in named if seq not in records]
            if gone:
                event("the view holds lines of a replaced journal")
            showing = show(hive.path, BEE, named, MAX_LINE, lighthouses=DEFAULTS)
            assert [shown.entry for shown in showing.shown] == [
                records[seq] for seq in named if seq in records]
            assert all(isinstance(records[seq], Entry) for seq in named if seq in records)
            assert showing.problems == [f"no entry #{seq} for bee {BEE!r}: the file that "
                                        "held it is gone" for seq in gone]
