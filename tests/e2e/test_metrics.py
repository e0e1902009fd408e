"""Prometheus `/metrics` and `/healthz` from a real daemon on 127.0.0.1: scraped, parsed
with the client library's own parser, and checked against what was written."""

from __future__ import annotations

import contextlib
import json
import os
import platform
import re
import socket
import time
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from horizon import __version__
from horizon.service import metrics as metrics_module
from horizon.service.metrics import Listener, Metrics
from tests.e2e.daemon_harness import (
    BEE,
    HORIZON,
    Start,
    append,
    clean_env,
    entry,
    free_port,
    make_hive,
    wait_for,
    wait_for_up_to,
    write_config,
)
from tests.e2e.test_daemon import read_only

OTHER = "noe"


def scrape(port: int) -> dict[str, float]:
    """Every sample as `name{label="value",...}` → value."""
    text = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=10).text
    samples = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            labels = ",".join(f'{key}="{value}"' for key, value in sorted(sample.labels.items()))
            samples[f"{sample.name}{{{labels}}}" if labels else sample.name] = sample.value
    return samples


def healthz(port: int) -> tuple[int, dict[str, object]]:
    response = httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=10)
    body = json.loads(response.text)
    # The document's bytes stay what they were before it was typed: Python's json.
    assert response.content == json.dumps(body, ensure_ascii=False).encode()
    return response.status_code, body


def test_the_counters_are_what_was_written(tmp_path: Path, start: Start) -> None:
    hive = make_hive(tmp_path, [entry("one"), "not json", "[1]"],
                     bee_toml="[horizon]\nactif = true\n")
    make_hive(tmp_path, [entry("one")], bee=OTHER, bee_toml="[horizon]\nactif = false\n")
    port = free_port()
    start(write_config(tmp_path, hive, metrics=f"127.0.0.1:{port}", rotation_entries=40,
                       rotate_wait_s=0.2))
    for number in range(150):
        append(hive, entry(f"q{number}", "a" * 300))
    for number in range(100):
        append(hive, entry(f"p{number}"), bee=OTHER)
    append(hive, '{"ts": "never", "type": "task", "question": "q", "answer": "a"}')
    wait_for_up_to(hive, 154)
    wait_for_up_to(hive, 101, bee=OTHER)

    def settled() -> dict[str, float] | None:
        samples = scrape(port)
        return samples if samples.get('horizon_lines_read_total{cause="live"}') == 154 + 101 \
            and samples.get("horizon_rotations_total", 0) >= 1 else None

    samples = wait_for(settled, "every line counted, a rotation done")
    assert samples['horizon_lines_read_total{cause="rebuild"}'] == 0
    assert samples[f'horizon_entries{{bee="{BEE}",hive="{hive}"}}'] == 151  # 3 rejected
    assert samples[f'horizon_entries{{bee="{OTHER}",hive="{hive}"}}'] == 101
    assert samples[f'horizon_build_info{{python="{platform.python_version()}",'
                   f'version="{__version__}"}}'] == 1
    assert samples[f'horizon_rotation_failures_total{{hive="{hive}"}}'] == 0
    assert samples['horizon_lines_rejected_total{reason="bad_json"}'] == 1
    assert samples['horizon_lines_rejected_total{reason="not_object"}'] == 1
    assert samples['horizon_lines_rejected_total{reason="bad_ts"}'] == 1
    assert samples["horizon_passes_total"] >= 2
    assert samples["horizon_pass_duration_seconds_count"] == samples["horizon_passes_total"]
    assert samples["horizon_write_to_view_seconds_count"] >= 2
    assert 'horizon_write_to_view_seconds_bucket{le="0.01"}' in samples
    assert 'horizon_write_to_view_seconds_bucket{le="60.0"}' in samples
    assert samples["horizon_evictions_total"] > 0, "150 answers of 300 chars overflow net"
    fill = samples[f'horizon_zone_fill_ratio{{bee="{BEE}",hive="{hive}",zone="net"}}']
    assert 0 < fill <= 1
    assert f'horizon_zone_fill_ratio{{bee="{OTHER}",hive="{hive}",zone="handoff"}}' in samples
    assert f'horizon_lag_seconds{{bee="{BEE}",hive="{hive}"}}' in wait_for(
        lambda: (found := scrape(port)) and any("horizon_lag_seconds{" in key for key in found)
        and found, "a beat set the lag")
    assert samples["horizon_bee_series_dropped"] == 0
    assert samples["horizon_write_failures_total"] == 0
    assert "process_cpu_seconds_total" in samples, "the client's process metrics"
    assert httpx.get(f"http://127.0.0.1:{port}/other", timeout=10).status_code == 404

    # New settings re-read the bee's history: that is a rebuild's reading, not new lines.
    (hive / "bees" / f"{BEE}.toml").write_text("[horizon]\nactif = true\nbudget_net = 3000\n")
    again = wait_for(lambda: (found := scrape(port)).get(
        'horizon_lines_read_total{cause="rebuild"}') == 154 and found, "the rebuild counted")
    assert again['horizon_lines_read_total{cause="live"}'] == 154 + 101


def test_healthz_flips_with_a_broken_settings_file_and_a_failed_write(
        tmp_path: Path, start: Start) -> None:
    hive = make_hive(tmp_path, [entry("one")])
    port = free_port()
    daemon = start(write_config(tmp_path, hive, metrics=f"127.0.0.1:{port}"))
    wait_for_up_to(hive, 1)
    assert wait_for(lambda: healthz(port)[0] == 200, "healthy")

    (hive / "horizon.toml").write_text("[horizon]\nbudget_net = 'lots'\n")
    daemon.wait_event("config.rejected")
    _, body = wait_for(lambda: (found := healthz(port))[0] == 503 and found, "503")
    assert body["status"] == "degraded"
    assert any("horizon.toml" in str(reason) for reason in body["reasons"])  # type: ignore[union-attr]
    (hive / "horizon.toml").unlink()
    wait_for(lambda: healthz(port)[0] == 200, "healthy again")

    with read_only(hive / "horizon" / BEE):
        append(hive, entry("two"))
        daemon.wait_event("store.write_failed", bee=BEE)
        _, body = wait_for(lambda: (found := healthz(port))[0] == 503 and found,
                           "503 on a failed write", timeout=40)
        assert any("write failed" in str(reason) for reason in body["reasons"])  # type: ignore[union-attr]
    wait_for_up_to(hive, 2, timeout=40)
    wait_for(lambda: healthz(port)[0] == 200, "healthy once written", timeout=40)
    assert int(scrape(port)["horizon_write_failures_total"]) >= 1


def test_a_remote_address_needs_the_flag(tmp_path: Path, start: Start) -> None:
    hive = make_hive(tmp_path, [entry("one")])
    port = free_port()
    config = write_config(tmp_path, hive, metrics=f"0.0.0.0:{port}")
    import subprocess

    refused = subprocess.run([HORIZON, "run", "--config", str(config)], capture_output=True,
                             text=True, env=clean_env(), timeout=60, check=False)
    assert refused.returncode == 1
    assert "metrics" in refused.stderr and "metrics_allow_remote" in refused.stderr

    start(write_config(tmp_path, hive, metrics=f"0.0.0.0:{port}", metrics_allow_remote=True))
    assert wait_for(lambda: healthz(port)[0] == 200, "served on every address")


def test_the_listener_moves_and_stops_on_reload(tmp_path: Path, start: Start) -> None:
    hive = make_hive(tmp_path, [entry("one")])
    first, second = free_port(), free_port()
    config = write_config(tmp_path, hive, metrics=f"127.0.0.1:{first}")
    daemon = start(config)
    wait_for(lambda: healthz(first)[0] == 200, "served on the first port")

    reloads = len(daemon.events("config.reloaded"))
    write_config(tmp_path, hive, metrics=f"127.0.0.1:{second}")
    daemon.wait_event("config.reloaded", after=reloads)
    assert wait_for(lambda: healthz(second)[0] == 200, "moved to the second port")
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"http://127.0.0.1:{first}/healthz", timeout=5)

    reloads = len(daemon.events("config.reloaded"))
    write_config(tmp_path, hive)
    daemon.wait_event("config.reloaded", after=reloads)
    time.sleep(0.2)
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"http://127.0.0.1:{second}/healthz", timeout=5)


def test_per_bee_series_stay_under_the_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(metrics_module, "MAX_BEE_SERIES", 3)
    metrics = Metrics()
    listener = Listener(metrics)
    port = free_port()
    listener.serve(("127.0.0.1", port))
    try:
        for number in range(8):
            metrics.zone_fills("/hive", f"bee{number}", {"net": 0.5})
            metrics.lag_of("/hive", f"bee{number}", 1.0)
        samples = scrape(port)
        bees = {key for key in samples if key.startswith("horizon_zone_fill_ratio{")}
        assert len(bees) == 3
        assert samples["horizon_bee_series_dropped"] == 5
        metrics.served("/hive", ["bee0", "bee5"])  # bees no longer served lose their series
        samples = scrape(port)
        assert {key for key in samples if key.startswith("horizon_zone_fill_ratio{")} == {
            'horizon_zone_fill_ratio{bee="bee0",hive="/hive",zone="net"}'}
        assert samples["horizon_bee_series_dropped"] == 1
        metrics.lag_of("/hive", "bee5", 2.0)  # a slot came free: no longer dropped
        samples = scrape(port)
        assert samples['horizon_lag_seconds{bee="bee5",hive="/hive"}'] == 2.0
        assert samples["horizon_bee_series_dropped"] == 0
    finally:
        listener.stop()


def test_a_bee_served_again_gets_its_zone_series_back() -> None:
    metrics = Metrics()
    listener = Listener(metrics)
    port = free_port()
    listener.serve(("127.0.0.1", port))
    try:
        metrics.zone_fills("/hive", "mia", {"net": 0.5, "condense": 0.25})
        metrics.zone_fills("/hive", "noe", {"handoff": 0.75})  # the horizon off
        metrics.served("/hive", [])
        assert not [key for key in scrape(port) if key.startswith("horizon_zone_fill_ratio{")]
        metrics.served("/hive", ["mia", "noe"])
        metrics.zone_fills("/hive", "mia", {"net": 0.125})
        metrics.zone_fills("/hive", "noe", {"handoff": 0.5})
        samples = scrape(port)
        assert samples['horizon_zone_fill_ratio{bee="mia",hive="/hive",zone="net"}'] == 0.125
        assert samples['horizon_zone_fill_ratio{bee="noe",hive="/hive",zone="handoff"}'] == 0.5
        assert 'horizon_zone_fill_ratio{bee="mia",hive="/hive",zone="condense"}' not in samples
    finally:
        listener.stop()


def test_the_grafana_dashboard_queries_only_metrics_the_daemon_exposes() -> None:
    dashboard = json.loads((Path(__file__).resolve().parents[2] / "docs" /
                            "grafana-horizon.json").read_text(encoding="utf-8"))
    exposed = {sample.name for family in Metrics().registry.collect()
               for sample in family.samples} | {
        family.name for family in Metrics().registry.collect()}
    queried = {name for panel in dashboard["panels"] for target in panel["targets"]
               for name in re.findall(r"horizon_[a-z_]+", target["expr"])}
    assert queried, "the dashboard queries horizon's metrics"
    # Labelled series exist once set; their families are in the registry from the start.
    families = {name.removesuffix("_total").removesuffix("_bucket") for name in queried}
    assert families <= {name.removesuffix("_total") for name in exposed}, families - exposed
    titles = " ".join(panel["title"] for panel in dashboard["panels"]).lower()
    for wanted in ("lines read", "rejected", "pass duration", "write-to-view", "lag",
                   "zone fill", "fallbacks", "write failures"):
        assert wanted in titles, wanted


def test_trickling_connections_take_neither_descriptors_nor_the_bees(
        tmp_path: Path, start: Start) -> None:
    """300 connections sending a byte now and then: the daemon serves a few at once,
    closes the rest as it accepts them, cuts each at its deadline, and every bee's writes
    go on."""
    hive = make_hive(tmp_path, [entry("one")])
    port = free_port()
    daemon = start(write_config(tmp_path, hive, metrics=f"127.0.0.1:{port}"))
    wait_for(lambda: healthz(port)[0] == 200, "metrics served")
    descriptors = len(os.listdir(f"/proc/{daemon.pid}/fd"))
    clients = []
    try:
        for _ in range(300):
            client = socket.create_connection(("127.0.0.1", port), timeout=5)
            client.sendall(b"G")
            clients.append(client)
        held = len(os.listdir(f"/proc/{daemon.pid}/fd")) - descriptors
        assert held <= metrics_module.MAX_CONNECTIONS + 4, held
        append(hive, entry("two"))
        wait_for_up_to(hive, 2)  # the bees' files still open
        for client in clients:
            with contextlib.suppress(OSError):
                client.sendall(b"E")
        # At the deadline the slots come free; a scrape then answers.
        wait_for(lambda: _healthy(port), "a scrape answered after the deadline",
                 timeout=metrics_module.REQUEST_DEADLINE_S * 4)
    finally:
        for client in clients:
            client.close()
    daemon.assert_alive()


def _healthy(port: int) -> bool:
    with contextlib.suppress(httpx.HTTPError):
        return healthz(port)[0] == 200
    return False


def test_a_refused_move_to_the_same_port_keeps_the_old_listener() -> None:
    listener = Listener(Metrics())
    port = free_port()
    listener.serve(("127.0.0.1", port))
    taken = socket.socket()
    try:
        taken.bind(("127.0.0.2", port))
        taken.listen()
        with pytest.raises(OSError):
            listener.serve(("127.0.0.2", port))
        assert listener.address == ("127.0.0.1", port)
        assert healthz(port)[0] in (200, 503), "the old address still answers, as logged"
    finally:
        taken.close()
        listener.stop()
