"""A real `horizon run` process under load: rotation under concurrent writer processes, and
kill -9 at random moments while a bee writes and a runtime reads handoff.md.

What must hold: no line lost or read twice across a rotation, a
crash or a restart; a rebuild from the files gives every line the seq the daemon gave it
and the same zones; handoff.md is only ever seen whole and within its cap.
`HORIZON_STRESS_SEED=N` replays the random choices of a run (the seed is printed).
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import threading
import time
from collections import Counter
from itertools import pairwise
from pathlib import Path
from typing import Any

from tests.e2e.stress_harness import (
    CAP,
    HEADER,
    Daemon,
    count_events,
    finish_writer,
    handoff_path,
    history,
    journal_questions,
    live_journal,
    log_events,
    make_hive,
    manifest_records,
    question,
    read_state,
    rebuild,
    start_writer,
    state_path,
    up_to,
    wait_for_event,
    wait_until,
)

LINES_PER_WRITER = 800
KILL_ROUNDS = 5
STORM_MAX = 1_000_000  # the storm writers stop on a stop file long before this
QUIET_EVENTS = ("journal.replaced", "entry.rejected", "store.write_failed", "render.guard_cut",
                "store.state_too_new")


def run_seed() -> int:
    seed = int(os.environ.get("HORIZON_STRESS_SEED", time.time_ns() % 2**32))
    print(f"HORIZON_STRESS_SEED={seed}")
    return seed


def expected_questions(counts: dict[str, int]) -> set[str]:
    return {question(writer, n) for writer, count in counts.items()
            for n in range(1, count + 1)}


def check_journal_files(hive: Path, counts: dict[str, int]) -> dict[str, list[str]]:
    """Every written line is in the journal files exactly once, each writer's lines of one
    file in the order it wrote them; nothing else is there."""
    files = journal_questions(hive)
    seen = Counter(q for questions in files.values() for q in questions)
    twice = sorted(q for q, times in seen.items() if times > 1)
    assert not twice, f"lines found more than once in the journal files: {twice[:10]}"
    assert set(seen) == expected_questions(counts)
    for name, questions in files.items():
        for writer in counts:
            ranks = [int(q.rsplit("-", 1)[1]) for q in questions if q.startswith(f"{writer}-")]
            assert ranks == sorted(ranks), f"{name}: {writer}'s lines out of order"
    return files


def check_history(hive: Path, config: Path, counts: dict[str, int],
                  files: dict[str, list[str]]) -> dict[str, int]:
    """The reader gives seqs 1..N, each once, to every written line, each once; inside one
    file seqs follow file order (late lines come after the lines read before them)."""
    total = sum(counts.values())
    records = history(hive, config)
    seqs = [seq for seq, _ in records]
    assert sorted(seqs) == list(range(1, total + 1)), (
        f"seqs are not 1..{total} each once: {len(seqs)} records, "
        f"duplicates {sorted(s for s, n in Counter(seqs).items() if n > 1)[:10]}")
    rejected = [seq for seq, q in records if q is None]
    assert not rejected, f"lines rejected: {rejected[:10]}"
    read = Counter(q for _, q in records)
    assert sorted(q for q, n in read.items() if n > 1) == []
    assert set(read) == expected_questions(counts)
    seq_of = {q: seq for seq, q in records if q is not None}
    for name, questions in files.items():
        in_file = [seq_of[q] for q in questions]
        backwards = [(a, b) for a, b in pairwise(in_file) if b <= a]
        assert not backwards, f"{name}: seqs against file order {backwards[:5]}"
    return seq_of


def check_rebuild_agrees(hive: Path, config: Path) -> dict[str, Any]:
    """The daemon's final state, view and manifest are what a rebuild from the files gives."""
    daemon_state = read_state(hive)
    assert daemon_state is not None
    daemon_view = handoff_path(hive).read_text(encoding="utf-8")
    manifest = hive / "window" / "archive" / "b-segments.jsonl"
    manifest_before = manifest.read_bytes() if manifest.exists() else b""

    rebuild(hive, config)

    rebuilt = json.loads(state_path(hive).read_bytes())
    assert daemon_state["checkpoint"]["seq"] == rebuilt["checkpoint"]["seq"]
    assert daemon_state["zones"] == rebuilt["zones"]
    assert daemon_view == handoff_path(hive).read_text(encoding="utf-8")
    # Everything the rebuild needed was already recorded: it appended nothing.
    assert (manifest.read_bytes() if manifest.exists() else b"") == manifest_before
    return daemon_state


def late_lines_in_files(hive: Path) -> int:
    """Lines past the offset each segment had when it was rotated: read out of file order."""
    late = 0
    for record in manifest_records(hive):
        if record["kind"] == "rotated":
            data = (hive / "window" / "archive" / record["segment"]).read_bytes()
            late += sum(1 for line in data[record["offset"]:].splitlines() if line.strip())
    return late


def check_log_is_quiet(root: Path) -> None:
    events = log_events(root)
    loud = [e for e in events if e.get("event") in QUIET_EVENTS or e.get("level") == "error"]
    assert not loud, loud[:5]


def check_stderr_is_empty(daemon: Daemon) -> None:
    """Off a terminal the daemon logs only JSON lines to its log file: anything on stderr is
    a stray traceback or a library warning (a lost scheduler job, a thread that died)."""
    stderr = daemon.stderr()
    assert stderr == "", "the daemon wrote to stderr (the checks above passed):\n" + (
        stderr[-3000:])


# -- 1. rotation under four concurrent writer processes ---------------------------------------


def test_rotation_under_four_concurrent_writer_processes(tmp_path: Path) -> None:
    seed = run_seed()
    hive, config = make_hive(tmp_path)
    daemon = Daemon(config, tmp_path)
    daemon.start()
    try:
        wait_for_event(tmp_path, "daemon.started", 0, daemon)
        writers = {
            name: start_writer(live_journal(hive), name, LINES_PER_WRITER, mode, 0.01,
                               seed + rank)
            for rank, (name, mode) in enumerate([("ferme1", "append"), ("ferme2", "append"),
                                                 ("tient1", "hold"), ("tient2", "hold")])
        }
        counts = {name: finish_writer(process) for name, process in writers.items()}
        assert counts == dict.fromkeys(writers, LINES_PER_WRITER)
        total = sum(counts.values())
        wait_until(lambda: up_to(hive) == total, f"up_to = {total}", daemon=daemon)
        assert daemon.stop() == 0, daemon.stderr()
    finally:
        if daemon.alive():
            daemon.kill()

    # (a) every line is in the files exactly once.
    files = check_journal_files(hive, counts)
    # (b) every line is in the history exactly once, seqs 1..N.
    check_history(hive, config, counts, files)
    # (c) the daemon's state is the rebuild's.
    state = check_rebuild_agrees(hive, config)
    assert state["checkpoint"]["seq"] == total
    assert (state["zones"]["accepted"], state["zones"]["rejected"]) == (total, 0)

    # (d) rotations and late lines were logged, and match the manifest and the files.
    records = manifest_records(hive)
    rotated = [r for r in records if r["kind"] == "rotated"]
    archived = [name for name in files if name != live_journal(hive).name]
    assert sorted(r["segment"] for r in rotated) == archived
    assert count_events(tmp_path, "archive.rotated") == len(rotated) >= 3, (
        "too few rotations for a stress test")
    late_recorded = sum(r["last_seq"] - r["first_seq"] + 1 for r in records
                        if r["kind"] == "late")
    late_logged = sum(e["lines"] for e in log_events(tmp_path)
                      if e.get("event") == "archive.late_lines")
    assert late_lines_in_files(hive) == late_recorded == late_logged
    assert late_logged > 0, "the holding writers produced no late line"
    ingested = sum(e["lines"] for e in log_events(tmp_path)
                   if e.get("event") == "handoff.written")
    assert ingested == total, "a line was read twice (or never) by the daemon"
    check_log_is_quiet(tmp_path)
    check_stderr_is_empty(daemon)


# -- 2. kill -9 at random moments --------------------------------------------------------------


class HandoffReader(threading.Thread):
    """A runtime reading handoff.md as fast as it can; keeps every read that was not whole
    or was over the cap."""

    def __init__(self, path: Path) -> None:
        super().__init__(daemon=True)
        self.path = path
        self.stopping = threading.Event()
        self.reads = 0
        self.bad: list[tuple[str, int, str]] = []

    def run(self) -> None:
        while not self.stopping.is_set():
            try:
                data = self.path.read_bytes()
            except FileNotFoundError:
                time.sleep(0.001)
                continue
            self.reads += 1
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                self.bad.append(("undecodable", len(data), repr(data[-80:])))
                continue
            if not (text.startswith(HEADER) and text.endswith("\n")):
                self.bad.append(("partial", len(text), repr(text[:60] + " … " + text[-60:])))
            elif len(text) > CAP:
                self.bad.append(("over the cap", len(text), text[:100]))


def test_kill_9_at_random_moments_loses_nothing_and_never_shows_a_partial_view(
        tmp_path: Path) -> None:
    seed = run_seed()
    rng = random.Random(seed)
    hive, config = make_hive(tmp_path)
    stop_file = tmp_path / "stop"
    daemon = Daemon(config, tmp_path)
    reader = HandoffReader(handoff_path(hive))
    writers: dict[str, subprocess.Popen[str]] = {}
    started = 0
    try:
        daemon.start()
        reader.start()
        writers = {
            "orage": start_writer(live_journal(hive), "orage", STORM_MAX, "append", 0.008,
                                  seed, stop_file),
            "tenace": start_writer(live_journal(hive), "tenace", STORM_MAX, "hold", 0.016,
                                   seed + 1, stop_file),
        }
        for round_ in range(KILL_ROUNDS):
            if round_ % 2 == 0:
                # Most kills land while it serves; the others (counted from the spawn) can
                # land in its start-up catch-up, which commits nothing before it ends.
                wait_for_event(tmp_path, "daemon.started", started, daemon)
            time.sleep(rng.uniform(0.1, 1.5))
            daemon.kill()
            time.sleep(rng.uniform(0.0, 0.3))
            if round_ < KILL_ROUNDS - 1:
                started = count_events(tmp_path, "daemon.started")
                daemon.start()
        stop_file.touch()
        counts = {name: finish_writer(process) for name, process in writers.items()}
        total = sum(counts.values())
        assert min(counts.values()) > 0
        # The storm went through passes, rotations and kills, not only the last catch-up.
        assert count_events(tmp_path, "handoff.written") > 0
        assert count_events(tmp_path, "archive.rotated") > 0

        daemon.start()  # the last restart catches up on what was written while it was down
        wait_until(lambda: up_to(hive) == total, f"up_to = {total}", daemon=daemon)
        assert daemon.stop() == 0, daemon.stderr()
    finally:
        reader.stopping.set()
        stop_file.touch()
        for process in writers.values():
            if process.poll() is None:
                process.kill()
        if daemon.alive():
            daemon.kill()
    reader.join(timeout=10)

    print(f"{daemon.starts} daemon starts, {sum(counts.values())} lines, "
          f"{reader.reads} reads of handoff.md")
    assert reader.reads > 0
    assert not reader.bad, f"{len(reader.bad)} bad reads of {reader.reads}: {reader.bad[:5]}"
    files = check_journal_files(hive, counts)
    check_history(hive, config, counts, files)
    state = check_rebuild_agrees(hive, config)
    assert state["checkpoint"]["seq"] == total
    assert len(handoff_path(hive).read_text(encoding="utf-8")) <= CAP
    check_log_is_quiet(tmp_path)
    check_stderr_is_empty(daemon)
