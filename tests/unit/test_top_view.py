"""`horizon top`'s pure parts: the keys, the order of the rows (degraded first whatever the
sort), the filter, the columns that fit a width, the pass rates and the metrics text."""

from __future__ import annotations

import io

import msgspec
from hypothesis import given
from hypothesis import strategies as st
from prometheus_client import generate_latest
from rich.console import Console

from horizon.cli.top_data import Beats, bee_row, pass_rate
from horizon.cli.top_metrics import counter_rate, metrics_url, parse_metrics
from horizon.cli.top_screen import HiveHeader, HiveView, frame, header_line
from horizon.cli.top_view import (
    COLUMNS,
    QUIT,
    SORTS,
    BeeRow,
    Controls,
    Zone,
    fit,
    keys_of,
    press,
    shown,
)
from horizon.core.reports import BeeReport
from horizon.hive.heartbeat import BeeHealth, Heartbeat
from horizon.service.metrics import Metrics

HIVE = "/srv/hives/a-rather-long-folder-name/of-the-operators/hive"


def row(bee: str, *, degraded: bool = False, lag_s: float = 0.0, fill: float = 0.5,
        rejected: int = 0, notes: str = "") -> BeeRow:
    budgets = {"net": 12000, "condense": 6000, "recit": 3000}
    zones = tuple(Zone(name, int(budget * fill) + 500, int(budget * fill), budget)
                  for name, budget in budgets.items())
    return BeeRow(bee, degraded=degraded, entries=1234, rejected=rejected, zones=zones,
                  fill=fill, lag_lines=3, lag_s=lag_s, last_pass_age=4.0,
                  level="ollama/qwen2.5:3b", passes_per_s=0.4, notes=notes)


ROWS = [row("mia", lag_s=1.0, fill=0.9, rejected=1), row("zed", degraded=True, fill=0.1),
        row("noe", lag_s=9.0, fill=0.2, rejected=7), row("abel", degraded=True, lag_s=5.0,
                                                         notes="settings rejected")]


def names(rows: list[BeeRow]) -> list[str]:
    return [one.bee for one in rows]


# --- keys ----------------------------------------------------------------------------------


def test_keys_drop_escape_sequences_and_keep_a_lone_escape() -> None:
    assert keys_of("s/ab\x1b[A\x1bOP\x1b[15~c\r") == ["s", "/", "a", "b", "c", "\r"]
    assert keys_of("\x1b") == ["\x1b"]


def test_s_cycles_the_sort_and_q_quits() -> None:
    controls = Controls()
    seen = []
    for _ in SORTS:
        seen.append(controls.sort)
        pressed = press(controls, "s")
        assert isinstance(pressed, Controls)
        controls = pressed
    assert seen == list(SORTS) and controls.sort == SORTS[0]
    assert press(controls, "q") == QUIT


def test_the_filter_is_typed_applied_with_enter_and_cleared_with_escape() -> None:
    controls: Controls | str = Controls()
    for key in "/mX\x7fi\r":
        assert isinstance(controls, Controls)
        controls = press(controls, key)
    assert controls == Controls(filter="mi")
    assert names(shown(ROWS, controls)) == ["mia"]
    typing = press(controls, "/")
    assert isinstance(typing, Controls) and typing.draft == "mi"
    assert press(typing, "q") == Controls(filter="mi", draft="miq"), "q is typed, not quit"
    assert press(typing, "\x1b") == Controls()


def test_d_shows_degraded_bees_only() -> None:
    controls = press(Controls(), "d")
    assert isinstance(controls, Controls)
    assert names(shown(ROWS, controls)) == ["abel", "zed"]
    assert press(controls, "d") == Controls()


# --- order and filter ----------------------------------------------------------------------


def test_degraded_bees_come_first_under_every_sort() -> None:
    orders = {sort: names(shown(ROWS, Controls(sort=sort))) for sort in SORTS}
    assert orders == {"name": ["abel", "zed", "mia", "noe"],
                      "lag": ["abel", "zed", "noe", "mia"],
                      "fill": ["abel", "zed", "mia", "noe"],
                      "rejected": ["abel", "zed", "noe", "mia"]}


@given(st.lists(st.tuples(st.text("abcXYZ", min_size=1, max_size=6), st.booleans(),
                          st.floats(0, 100), st.integers(0, 50)), max_size=12),
       st.sampled_from(SORTS), st.text("abxy", max_size=2))
def test_any_sort_keeps_degraded_first_and_filters_on_the_name_in_any_case(
        specs: list[tuple[str, bool, float, int]], sort: str, needle: str) -> None:
    rows = [row(bee, degraded=bad, lag_s=lag, rejected=rejected)
            for bee, bad, lag, rejected in specs]
    result = shown(rows, Controls(sort=sort, filter=needle))
    flags = [one.degraded for one in result]
    assert flags == sorted(flags, reverse=True)
    assert sorted(names(result)) == sorted(one.bee for one in rows
                                           if needle.casefold() in one.bee.casefold())


# --- columns and the frame -----------------------------------------------------------------


def drawn(views: list[HiveView], width: int, height: int = 60,
          controls: Controls | None = None) -> list[str]:
    console = Console(width=width, record=True, file=io.StringIO())
    console.print(frame(views, controls or Controls(), width, height, "horizon top"),
                  crop=False)
    return console.export_text().rstrip("\n").split("\n")


def test_at_160_columns_every_column_shows_in_full() -> None:
    fitted = fit(ROWS, 160)
    assert [column.key for column, _, _ in fitted.columns] == [column.key for column in COLUMNS]
    assert {form for _, form, _ in fitted.columns} == {"full"}
    assert fitted.notes_width > 0
    lines = drawn([HiveView(HiveHeader(HIVE, pid=42), tuple(ROWS))], 160)
    [mia] = [line for line in lines if line.startswith("mia ")]
    assert "11300→10800/12000" in mia and "4s ago" in mia and "ollama/qwen2.5:3b" in mia


def test_at_80_columns_rows_stay_on_one_line_with_their_zones() -> None:
    fitted = fit(ROWS, 80)
    kept = [column.key for column, _, _ in fitted.columns]
    assert {"bee", "net", "condense", "recit", "lag", "entries"} <= set(kept)
    lines = drawn([HiveView(HiveHeader(HIVE, pid=42), tuple(ROWS))], 80)
    assert all(len(line) <= 80 for line in lines)
    assert len(lines) == 1 + 1 + 1 + len(ROWS) + 1  # title, hive, column names, rows, keys
    [mia] = [line for line in lines if line.startswith("mia ")]
    assert "10800/12000" in mia and "5400/6000" in mia and "2700/3000" in mia
    assert lines[1].endswith("4936 entr, 8 rej, - p/s"), lines[1]


@given(st.integers(8, 220), st.lists(st.text("abcdefghé-_", min_size=1, max_size=40),
                                     min_size=1, max_size=8, unique=True))
def test_no_width_wraps_a_row(width: int, bees: list[str]) -> None:
    rows = [row(bee, degraded=number % 2 == 0, notes="x" * number * 9)
            for number, bee in enumerate(bees)]
    lines = drawn([HiveView(HiveHeader(HIVE, pid=1, alerts=("settings rejected: " * 9,)),
                            tuple(rows))], width)
    assert all(len(line) <= width for line in lines)
    assert len(lines) == 1 + 2 + 1 + len(rows) + 1


def test_rows_past_the_height_are_counted_and_the_keys_stay() -> None:
    rows = tuple(row(f"bee{number:02}") for number in range(30))
    lines = drawn([HiveView(HiveHeader(HIVE, pid=1), rows)], 100, height=12)
    assert len(lines) == 12
    assert lines[-2].strip() == "… 23 more bees" and lines[-1].startswith("s sort")


def test_the_header_says_the_daemon_its_beat_and_the_totals() -> None:
    view = HiveView(HiveHeader("/h", pid=7, beat_age_s=3.2, passes_per_s=1.25,
                               rate_source="metrics"), tuple(ROWS))
    assert header_line(view, 200) == ("/h · daemon 7 alive · beat 3s ago · 4 bees · "
                                      "2 degraded · 4936 entries · 8 rejected · "
                                      "1.2 passes/s (metrics)")
    stale = HiveView(HiveHeader("/h", pid=7, stale=True, beat_age_s=95), ())
    assert "daemon 7 stale · beat 1m ago" in header_line(stale, 200)
    assert "no daemon · no beat" in header_line(HiveView(HiveHeader("/h"), ()), 200)


# --- rows from status's report -------------------------------------------------------------


def test_a_row_takes_the_zones_and_degradation_of_the_status_report() -> None:
    report = {"bee": "mia", "write_failed": True, "entries": 9, "rejected": 2,
              "lag_lines": 0, "lag_s": 0.0, "derived": True,
              "summarizer": {"in_use": "troncature"},
              "zones": {"net": {"before": 900, "after": 800, "budget": 1000},
                        "condense": {"before": 10, "after": 10, "budget": 100}}}
    made = bee_row(msgspec.convert(report, BeeReport), now=100.0, last_pass=97.0,
                   passes_per_s=None, lag_s=2.5)
    assert made.degraded and made.level == "troncature" and made.last_pass_age == 3.0
    assert made.zones[0] == Zone("net", 900, 800, 1000) and made.fill == 0.8
    assert made.lag_s == 2.5 and "write failed" in made.notes
    handoff = bee_row(msgspec.convert({"bee": "b", "mode": "handoff", "chars": 100, "cap": 400,
                                       "derived": True}, BeeReport),
                      now=0, last_pass=None, passes_per_s=None, lag_s=None)
    assert handoff.fill == 0.25 and handoff.notes.startswith("handoff mode 100/400")


# --- pass rates ----------------------------------------------------------------------------


def beat(epoch: float, passes: dict[str, int], pid: int = 1) -> Heartbeat:
    return Heartbeat(pid=pid, version="x", started="s", beat="b", beat_epoch=epoch, watch="poll",
                     bees={bee: BeeHealth(passes=count) for bee, count in passes.items()})


def test_a_bee_s_pass_rate_is_its_passes_over_the_time_between_two_beats() -> None:
    assert pass_rate(beat(100, {"mia": 4}), beat(110, {"mia": 29}), "mia") == 2.5
    assert pass_rate(beat(100, {}), beat(110, {"mia": 3}), "mia") is None
    assert pass_rate(beat(100, {"mia": 9}), beat(110, {"mia": 3}, pid=2), "mia") is None
    assert pass_rate(beat(100, {"mia": 9}), beat(100, {"mia": 12}), "mia") is None


def test_the_rate_waits_for_two_distinct_beats() -> None:
    beats = Beats()
    beats.see(beat(100, {"mia": 1}))
    beats.see(beat(100, {"mia": 1}))
    assert beats.rate("mia") is None, "the same beat read twice is one beat"
    beats.see(None)
    beats.see(beat(110, {"mia": 11}))
    assert beats.rate("mia") == 1.0


def test_a_heartbeat_written_before_passes_were_counted_still_decodes() -> None:
    old = (b'{"format":1,"pid":3,"version":"0.1.0","started":"s","beat":"b","beat_epoch":5.0,'
           b'"watch":"poll","bees":{"mia":{"lag_s":0.0,"pending_bytes":0,'
           b'"write_failed":false,"error":null}}}')
    health = msgspec.json.decode(old, type=Heartbeat).bees["mia"]
    assert (health.passes, health.last_pass) == (0, None)


# --- /metrics ------------------------------------------------------------------------------


def test_the_metrics_text_the_daemon_serves_gives_passes_and_lags() -> None:
    metrics = Metrics()
    metrics.passes.inc(7)
    metrics.lag_of("/srv/hive", "mia", 2.5)
    metrics.lag_of("/srv/hive", "noe", 0.0)
    scrape = parse_metrics(generate_latest(metrics.registry).decode())
    assert scrape.passes_total == 7
    assert scrape.lag_s == {("/srv/hive", "mia"): 2.5, ("/srv/hive", "noe"): 0.0}
    assert parse_metrics("# nothing here\n") == type(scrape)(None, {})


def test_a_counter_rate_spans_its_first_and_last_samples() -> None:
    assert counter_rate([(10.0, 5.0), (11.0, 6.0), (14.0, 17.0)]) == 3.0
    assert counter_rate([(10.0, 5.0)]) is None
    assert counter_rate([]) is None


def test_a_wildcard_listen_address_is_scraped_on_the_loopback() -> None:
    assert metrics_url(("0.0.0.0", 9464)) == "http://127.0.0.1:9464/metrics"
    assert metrics_url(("::", 9464)) == "http://[::1]:9464/metrics"
    assert metrics_url(("127.0.0.1", 1)) == "http://127.0.0.1:1/metrics"
