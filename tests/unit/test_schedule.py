"""A bee's schedule: due after its debounce, never later than max_wait_s after its first
unread write, held back after a failed write by a back-off that doubles up to a minute."""

from __future__ import annotations

from horizon.core.settings import HorizonSettings
from horizon.service.schedule import BACKOFF_MAX_S, BACKOFF_MIN_S, Schedule

SETTINGS = HorizonSettings(debounce_s=2.0, max_wait_s=10.0)


def test_a_write_is_due_after_the_debounce_and_never_after_max_wait() -> None:
    schedule = Schedule()
    schedule.wrote(100.0)
    assert schedule.due_at(SETTINGS, 100.0) == 102.0
    for now in (101.0, 103.0, 105.0, 107.0, 109.0):  # writes keep pushing the debounce
        schedule.wrote(now)
    assert schedule.due_at(SETTINGS, 109.0) == 110.0  # capped by the first write
    assert schedule.lag(109.5) == 9.5
    first, dirty = schedule.start_pass()
    assert (first, dirty, schedule.dirty, schedule.lag(120.0)) == (100.0, True, False, 0.0)


def test_a_pass_left_behind_keeps_its_first_write() -> None:
    schedule = Schedule()
    schedule.wrote(5.0)
    first, _ = schedule.start_pass()
    schedule.behind(first, 8.0)
    assert schedule.dirty and schedule.first_dirty == 5.0
    first, _ = schedule.start_pass()
    schedule.still_waiting(first)
    assert schedule.dirty and schedule.first_dirty == 5.0


def test_failed_writes_back_off_twice_as_long_up_to_a_minute() -> None:
    schedule = Schedule()
    waits = []
    for now in range(10):
        before = schedule.backoff_s
        schedule.failed(float(now))
        waits.append(schedule.retry_at - now)
        assert schedule.backoff_s == min(before * 2, BACKOFF_MAX_S)
    assert waits[:4] == [1.0, 2.0, 4.0, 8.0] and max(waits) == BACKOFF_MAX_S
    assert not schedule.may_run(9.0) and schedule.dirty
    assert schedule.due_at(SETTINGS, 9.0) == schedule.retry_at
    schedule.succeeded()
    assert (schedule.backoff_s, schedule.retry_at) == (BACKOFF_MIN_S, 0.0)
    assert schedule.may_run(9.0)
