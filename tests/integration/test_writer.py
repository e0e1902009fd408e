"""The daemon's writer threads on real files: a bee's commits land in order, a failure
drops the ones queued after it and refuses new ones until the loop has reset the bee,
and other bees are written all the while."""

from __future__ import annotations

import threading
from pathlib import Path

from horizon.engine.stepping import Commit
from horizon.hive.layout import derived_dir, handoff_path, state_path
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
    writer = Writer(told, threads=4)
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
    writer = Writer(told, threads=2)
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
