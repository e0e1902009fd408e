"""Where `horizon top` reads its numbers: `status`'s reports, remembered while a bee's
files stay the same, and the daemon's real `/metrics` listener on 127.0.0.1."""

from __future__ import annotations

from pathlib import Path

from horizon.cli.status import bee_files_report, with_beat
from horizon.cli.top_data import Reports
from horizon.cli.top_metrics import Metrics as Scraper
from horizon.core.settings import GlobalConfig
from horizon.service.hive_service import HiveService
from horizon.service.metrics import Listener, Metrics
from tests.e2e.daemon_harness import free_port

BEE = "mia"
LINE = b'{"ts": 1790000000, "type": "task", "question": "q", "answer": "a"}\n'


def served_hive(tmp_path: Path) -> tuple[Path, HiveService]:
    hive = tmp_path / "hive"
    (hive / "window").mkdir(parents=True)
    (hive / "window" / f"{BEE}-messages.jsonl").write_bytes(LINE)
    service = HiveService(hive, GlobalConfig(), "config.json")
    service.refresh_bees()
    service.process(BEE)
    return hive, service


def test_an_unchanged_bee_s_report_is_remembered_and_a_change_makes_it_again(
        tmp_path: Path) -> None:
    hive, service = served_hive(tmp_path)
    try:
        reports = Reports(GlobalConfig(), "config.json", None)
        first = reports(hive, BEE)
        assert first == with_beat(bee_files_report(hive, BEE, GlobalConfig(), "config.json"),
                                  None)
        assert reports(hive, BEE) is first, "nothing changed: nothing made again"

        with (hive / "window" / f"{BEE}-messages.jsonl").open("ab") as out:
            out.write(LINE)
        behind = reports(hive, BEE)
        assert behind is not first and behind.lag_lines == 1

        service.process(BEE)  # state.json rewritten
        caught_up = reports(hive, BEE)
        assert (caught_up.entries, caught_up.lag_lines) == (2, 0)

        (hive / "bees").mkdir()
        (hive / "bees" / f"{BEE}.toml").write_text("[horizon\n")
        broken = reports(hive, BEE)
        assert broken.settings_error and broken.settings_in_use == "last good"
        assert reports.state_mtime(hive, BEE) == (
            hive / "horizon" / BEE / "state.json").stat().st_mtime_ns / 1e9
    finally:
        service.close()


def test_bees_no_longer_asked_about_are_forgotten(tmp_path: Path) -> None:
    hive, service = served_hive(tmp_path)
    try:
        reports = Reports(GlobalConfig(), "config.json", None)
        reports(hive, BEE)
        reports.forget_unasked()
        assert reports.remembered
        reports.forget_unasked()
        assert not reports.remembered
    finally:
        service.close()


def test_passes_per_second_and_lags_come_from_the_daemon_s_listener() -> None:
    metrics = Metrics()
    listener = Listener(metrics)
    port = free_port()
    listener.serve(("127.0.0.1", port))
    scraper = Scraper(f"http://127.0.0.1:{port}/metrics")
    try:
        metrics.passes.inc(10)
        metrics.lag_of("/srv/hive", BEE, 1.5)
        scraper.scrape(100.0)
        assert scraper.last is not None and scraper.passes_per_s() is None, "one scrape"
        metrics.passes.inc(6)
        scraper.scrape(102.0)
        assert scraper.passes_per_s() == 3.0
        assert scraper.last is not None and scraper.last.lag_s == {("/srv/hive", BEE): 1.5}
    finally:
        listener.stop()
        scraper.close()


def test_a_listener_that_went_away_is_unreachable_and_forgets_its_rate() -> None:
    scraper = Scraper(f"http://127.0.0.1:{free_port()}/metrics")
    try:
        scraper.scrape(1.0)
        assert scraper.last is None and scraper.passes_per_s() is None
    finally:
        scraper.close()


class _Hostile:
    """A server on 127.0.0.1 that answers /metrics endlessly: a byte at a time within the
    per-read timeout, or megabytes with no end."""

    def __init__(self, mode: str) -> None:
        import socket
        import threading

        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen()
        self.port = self.listener.getsockname()[1]
        self.mode = mode
        self.stop = threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        import contextlib
        import time

        with contextlib.suppress(OSError):
            connection, _ = self.listener.accept()
            with connection:
                connection.recv(4096)
                connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n")
                while not self.stop.is_set():
                    if self.mode == "trickle":
                        connection.sendall(b"#")
                        time.sleep(0.1)
                    else:
                        connection.sendall(b"# " + b"x" * 65536 + b"\n")

    def close(self) -> None:
        self.stop.set()
        self.listener.close()


def test_a_slow_or_endless_metrics_endpoint_is_given_up_on() -> None:
    """top's scrape has a deadline in all and a size cap: it neither hangs a refresh nor
    runs out of memory."""
    import threading

    for mode in ("trickle", "endless"):
        server = _Hostile(mode)
        scraper = Scraper(f"http://127.0.0.1:{server.port}/metrics")
        try:
            scraping = threading.Thread(target=scraper.scrape, args=(0.0,), daemon=True)
            scraping.start()
            scraping.join(timeout=60)  # a generous wait: the server itself never ends
            assert not scraping.is_alive(), f"{mode}: the scrape never gave up"
        finally:
            scraper.close()
            server.close()
        assert scraper.last is None, mode
