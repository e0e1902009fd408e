"""The daemon's writer on real files: a bee's commits land in order, those waiting for it
are written as one, a failure drops the ones queued after it and refuses new ones until
the loop has reset the bee, and other bees are written all the while."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

from horizon.engine.stepping import Commit
from horizon.hive.layout import derived_dir, handoff_path, state_path
from horizon.hive.manifest import Clamp, read_manifest
from horizon.service.writer import Writer


def commit(hive: Path, bee: str, number: int) -> Commit:
    return Commit(hive, bee, [], f"view {number}\n".encode(), f'{{"n": {number}}}'.encode())


class Told:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.news: list[tuple[str, bytes, str | None]] = []

    def __call__(self, done: Commit, error: str | None) -> None:
        with self.lock:
            self.news.append((done.bee, done.state, error))


def new_hive(tmp_path: Path) -> Path:
    hive = tmp_path / "hive"
    (hive / "window").mkdir(parents=True)
    return hive


def test_a_bees_commits_land_in_the_order_its_passes_made_them(tmp_path: Path) -> None:
    hive = new_hive(tmp_path)
    told = Told()
    writer = Writer(told)
    for number in range(1, 41):
        for bee in ("a", "b", "c"):
            writer.submit((hive, bee), commit(hive, bee, number))
    writer.close()
    for bee in ("a", "b", "c"):
        assert state_path(hive, bee).read_bytes() == b'{"n": 40}'
        assert handoff_path(hive, bee).read_bytes() == b"view 40\n"
        assert [state for name, state, _ in told.news if name == bee] == [
            f'{{"n": {number}}}'.encode() for number in range(1, 41)]
    assert all(error is None for _, _, error in told.news)


def test_a_failure_drops_what_follows_until_the_bee_is_reset(tmp_path: Path) -> None:
    hive = new_hive(tmp_path)
    told = Told()
    writer = Writer(told)
    key = (hive, "a")
    writer.submit(key, commit(hive, "a", 1))
    writer.wait(key)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    folder = derived_dir(hive, "a")
    folder.rename(tmp_path / "kept")
    folder.symlink_to(elsewhere)  # a link in the way: every write of this bee fails
    for number in (2, 3, 4):
        writer.submit(key, commit(hive, "a", number))
        writer.submit((hive, "b"), commit(hive, "b", number))
    writer.wait(key)
    assert writer.has_failed(key)
    writer.submit(key, commit(hive, "a", 5))  # made before the loop heard: refused
    writer.wait(key)
    failures = [(state, error) for bee, state, error in told.news if bee == "a" and error]
    assert len(failures) == 1 and failures[0][0] == b'{"n": 2}'
    assert "hive/horizon/a" in str(failures[0][1])
    assert [state for bee, state, error in told.news if bee == "a" and not error] == [
        b'{"n": 1}']
    assert list(elsewhere.iterdir()) == []  # nothing written through the link
    folder.unlink()
    (tmp_path / "kept").rename(folder)
    assert state_path(hive, "a").read_bytes() == b'{"n": 1}'  # the last good state stays

    writer.recovered(key)  # the loop reset the bee's engine to the disk
    writer.submit(key, commit(hive, "a", 6))
    writer.close()
    assert state_path(hive, "a").read_bytes() == b'{"n": 6}'
    assert state_path(hive, "b").read_bytes() == b'{"n": 4}'  # never held up by "a"


class HeldWriter:
    """A writer whose thread waits, once the first commit is written, until released: the
    commits handed in meanwhile pile up behind it."""

    def __init__(self) -> None:
        self.told = Told()
        self.held, self.release = threading.Event(), threading.Event()
        self.writer = Writer(self.hold_the_first)

    def hold_the_first(self, done: Commit, error: str | None) -> None:
        self.told(done, error)
        if done.state == b'{"n": 1}':
            self.held.set()
            self.release.wait(10)

    def start(self, key: tuple[Path, str], first: Commit) -> None:
        self.writer.submit(key, first)
        assert self.held.wait(10)


def test_commits_waiting_for_a_bee_are_written_as_one_with_every_record(
        tmp_path: Path) -> None:
    hive = new_hive(tmp_path)
    held = HeldWriter()
    writer, told = held.writer, held.told
    key = (hive, "a")
    first = commit(hive, "a", 1)
    first.records = [Clamp(1, 1.0)]
    held.start(key, first)
    for number in (2, 3, 4):
        waiting = commit(hive, "a", number)
        waiting.records = [Clamp(number, float(number))]
        writer.submit(key, waiting)
    assert not writer.wait(key, timeout=0.2)  # held behind the first
    held.release.set()
    writer.close()
    assert state_path(hive, "a").read_bytes() == b'{"n": 4}'
    assert handoff_path(hive, "a").read_bytes() == b"view 4\n"
    # Every pass's records, in the order the passes made them; every pass told written.
    assert read_manifest(hive / "window", "a").clamps == [(n, n, float(n)) for n in (1, 2, 3, 4)]
    lines = (hive / "window" / "archive" / "a-segments.jsonl").read_text().splitlines()
    assert [json.loads(line)["seq"] for line in lines] == [1, 2, 3, 4]
    assert [(state, error) for _, state, error in told.news] == [
        (f'{{"n": {number}}}'.encode(), None) for number in (1, 2, 3, 4)]


def test_merged_commits_that_fail_are_dropped_and_told_once(tmp_path: Path) -> None:
    hive = new_hive(tmp_path)
    held = HeldWriter()
    writer, told = held.writer, held.told
    key = (hive, "a")
    held.start(key, commit(hive, "a", 1))
    for number in (2, 3):
        writer.submit(key, commit(hive, "a", number))
    folder = derived_dir(hive, "a")
    folder.rename(tmp_path / "kept")
    folder.write_text("not a folder")  # every later write of this bee fails
    held.release.set()
    writer.wait(key)
    assert writer.has_failed(key)
    writer.close()
    assert [(state, error is None) for _, state, error in told.news] == [
        (b'{"n": 1}', True), (b'{"n": 2}', False)]


def test_the_bee_the_loop_waits_for_goes_ahead_of_the_others(tmp_path: Path) -> None:
    hive = new_hive(tmp_path)
    held = HeldWriter()
    writer, told = held.writer, held.told
    held.start((hive, "first"), commit(hive, "first", 1))
    for bee in ("b", "c", "d", "rotating"):  # queued in that order behind the first
        writer.submit((hive, bee), commit(hive, bee, 2))
    waited = threading.Thread(target=writer.wait, args=((hive, "rotating"),))
    waited.start()
    deadline = time.monotonic() + 10
    while list(writer.ready)[:1] != [(hive, "rotating")] and time.monotonic() < deadline:
        time.sleep(0.01)  # until the wait has moved it ahead
    held.release.set()
    waited.join(10)
    writer.close()
    assert [bee for bee, _, _ in told.news] == ["first", "rotating", "b", "c", "d"]


class HeldCommit(Commit):
    """A commit whose write waits until released: its bee is being written meanwhile."""

    entered = threading.Event()
    release = threading.Event()

    def write(self) -> None:
        self.entered.set()
        assert self.release.wait(10)
        if self.state == b"raise":
            raise ValueError("a bug in a write")
        super().write()


def held_commit(hive: Path, bee: str, state: bytes) -> HeldCommit:
    HeldCommit.entered, HeldCommit.release = threading.Event(), threading.Event()
    return HeldCommit(hive, bee, [], b"view\n", state)


def test_a_bee_awaited_while_its_files_are_written_goes_ahead_of_the_others_next(
        tmp_path: Path) -> None:
    hive = new_hive(tmp_path)
    told = Told()
    writer = Writer(told)
    key = (hive, "rotating")
    first = held_commit(hive, "rotating", b'{"n": 1}')
    writer.submit(key, first)
    assert first.entered.wait(10)
    for bee in ("b", "c", "d"):
        writer.submit((hive, bee), commit(hive, bee, 2))
    writer.submit(key, commit(hive, "rotating", 2))
    waited = threading.Thread(target=writer.wait, args=(key,))
    waited.start()
    deadline = time.monotonic() + 10
    while key not in writer.awaited and time.monotonic() < deadline:
        time.sleep(0.01)
    first.release.set()
    waited.join(10)
    writer.close()
    assert [bee for bee, _, _ in told.news] == ["rotating", "rotating", "b", "c", "d"]


def test_a_write_that_raises_something_unexpected_is_a_failed_write_and_the_writer_lives(
        tmp_path: Path) -> None:
    hive = new_hive(tmp_path)
    told = Told()
    writer = Writer(told)
    broken = held_commit(hive, "a", b"raise")
    writer.submit((hive, "a"), broken)
    broken.release.set()
    assert writer.wait((hive, "a"), timeout=10), "the writer thread died"
    writer.submit((hive, "b"), commit(hive, "b", 1))
    assert writer.wait((hive, "b"), timeout=10)
    writer.close()
    assert told.news == [("a", b"raise", "unexpected ValueError: a bug in a write"),
                         ("b", b'{"n": 1}', None)]
    assert writer.has_failed((hive, "a")) and not writer.has_failed((hive, "b"))
