"""The loop's pass deadlines: a write moves its bee's deadline, a moved one leaves no
early pass behind, the earliest comes first."""

from __future__ import annotations

from pathlib import Path

from horizon.service.schedule import Deadlines

HIVE = Path("/hive")


def test_a_moved_deadline_runs_once_at_its_new_instant() -> None:
    deadlines = Deadlines()
    deadlines.set((HIVE, "a"), 1.0)
    deadlines.set((HIVE, "b"), 1.5)
    deadlines.set((HIVE, "a"), 2.0)  # written again: its debounce starts over
    assert deadlines.earliest() == 1.0  # a stale entry may wake the loop, never a pass
    assert deadlines.pop_due(1.2) is None
    assert deadlines.pop_due(1.6) == (HIVE, "b")
    assert (HIVE, "a") in deadlines and (HIVE, "b") not in deadlines
    assert deadlines.pop_due(1.9) is None
    assert deadlines.pop_due(2.0) == (HIVE, "a")
    assert deadlines.pop_due(10.0) is None and (HIVE, "a") not in deadlines


def test_the_earliest_of_several_due_comes_first() -> None:
    deadlines = Deadlines()
    for bee, instant in (("c", 3.0), ("a", 1.0), ("b", 2.0)):
        deadlines.set((HIVE, bee), instant)
    assert [deadlines.pop_due(5.0) for _ in range(4)] == [
        (HIVE, "a"), (HIVE, "b"), (HIVE, "c"), None]
