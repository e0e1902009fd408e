"""Prometheus metrics and the health document, served on `metrics` ("host:port").

The main loop updates the instruments once per pass (never per line) and publishes a
health snapshot at each beat; the HTTP server's threads only read them. The exposition
format is the client library's own (`make_wsgi_app`).
"""

from __future__ import annotations

import contextlib
import json
import socket
import sys
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from socketserver import ThreadingMixIn
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server
from wsgiref.types import StartResponse, WSGIEnvironment

import msgspec
from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    Info,
    PlatformCollector,
    ProcessCollector,
    make_wsgi_app,
)

from horizon import __version__
from horizon.core.reports import HealthDocument
from horizon.core.settings import HorizonSettings
from horizon.core.summarizer import TRUNCATION
from horizon.engine.stepping import Pass

# From a fast debounce to a slow catch-up.
LATENCY_BUCKETS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 30.0, 60.0)
# Per-bee series are capped: a hive that makes thousands of bees cannot make the scrape
# (and Prometheus) pay for them.
MAX_BEE_SERIES = 10_000
ZONES = ("net", "condense", "recit")
STALL_S = 30.0  # no health snapshot published for this long: the loop is stuck



@dataclass
class Health:
    """The verdict `horizon status` would give (exit 0 or not) and why."""

    healthy: bool = True
    reasons: list[str] = field(default_factory=list)
    published: float = field(default_factory=time.monotonic)

    def document(self) -> tuple[int, bytes]:
        stalled = time.monotonic() - self.published > STALL_S
        reasons = [*self.reasons, *(["the daemon's loop published nothing for "
                                     f"{STALL_S:.0f} s"] if stalled else [])]
        healthy = self.healthy and not stalled
        body = HealthDocument("ok" if healthy else "degraded", reasons)
        # Python's json, as before the type: the same bytes for a script that compares them.
        text = json.dumps(msgspec.to_builtins(body), ensure_ascii=False)
        return (200 if healthy else 503), text.encode()


class Metrics:
    """Every instrument, in a registry of the daemon's own."""

    def __init__(self) -> None:
        registry = CollectorRegistry()
        self.registry = registry
        ProcessCollector(registry=registry)
        PlatformCollector(registry=registry)
        self.lines_read = Counter("horizon_lines_read",
                                  "Journal lines read: live (new) or rebuild (read again)",
                                  ["cause"], registry=registry)
        self.lines_read_live = self.lines_read.labels("live")
        self.lines_read_again = self.lines_read.labels("rebuild")
        self.build = Info("horizon_build", "The daemon's version", registry=registry)
        self.build.info({"version": __version__,
                         "python": ".".join(map(str, sys.version_info[:3]))})
        self.entries = Gauge("horizon_entries", "Entries a served bee's view was made of",
                             ["hive", "bee"], registry=registry)
        self.lines_rejected = Counter("horizon_lines_rejected", "Rejected journal lines",
                                      ["reason"], registry=registry)
        self.passes = Counter("horizon_passes", "Passes that read or changed a view",
                              registry=registry)
        self.pass_duration = Histogram("horizon_pass_duration_seconds", "Time of one pass",
                                       buckets=LATENCY_BUCKETS, registry=registry)
        self.write_to_view = Histogram(
            "horizon_write_to_view_seconds",
            "From the first unprocessed write of a bee to its view written",
            buckets=LATENCY_BUCKETS, registry=registry)
        self.evictions = Counter("horizon_evictions", "Exchanges that left net",
                                 registry=registry)
        self.folds = Counter("horizon_folds", "Folds of condensé into the récit",
                             registry=registry)
        self.rotations = Counter("horizon_rotations", "Journals rotated into the archive",
                                 registry=registry)
        self.rotation_failures = Counter("horizon_rotation_failures",
                                         "Rotations refused or failed (the journal grows)",
                                         ["hive"], registry=registry)
        self.summarizer_calls = Counter("horizon_summarizer_calls",
                                        "Texts a summarizer level wrote", ["level"],
                                        registry=registry)
        self.summarizer_fallbacks = Counter("horizon_summarizer_fallbacks",
                                            "Model calls that fell back a level", ["level"],
                                            registry=registry)
        self.write_failures = Counter("horizon_write_failures", "Failed derived writes",
                                      registry=registry)
        self.zone_fill = Gauge("horizon_zone_fill_ratio",
                               "A zone's characters in the view over its budget",
                               ["hive", "bee", "zone"], registry=registry)
        self.lag = Gauge("horizon_lag_seconds", "Since a bee's first unprocessed write",
                         ["hive", "bee"], registry=registry)
        self.refused_files = Gauge("horizon_refused_files",
                                   "Files and names refused in the served hives",
                                   registry=registry)
        self.bee_series_dropped = Gauge("horizon_bee_series_dropped",
                                        "Bees left without per-bee series (over the cap)",
                                        registry=registry)
        self.exposition = make_wsgi_app(registry)
        self.truncation_calls = self.summarizer_calls.labels(TRUNCATION)
        self.bees_with_series: set[tuple[str, str]] = set()
        # Each served bee's zone-fill series, looked up once rather than at every pass.
        self.fills: dict[tuple[str, str], dict[str, Gauge]] = {}
        self.dropped: set[tuple[str, str]] = set()
        self.health = Health(False, ["starting: the bees are being brought up to date"])

    # -- per-bee series, capped ---------------------------------------------------------

    def has_series(self, hive: str, bee: str) -> bool:
        key = (hive, bee)
        if key in self.bees_with_series:
            return True
        if len(self.bees_with_series) >= MAX_BEE_SERIES:
            self.dropped.add(key)
            self.bee_series_dropped.set(len(self.dropped))
            return False
        self.bees_with_series.add(key)
        if key in self.dropped:  # a slot came free for it
            self.dropped.discard(key)
            self.bee_series_dropped.set(len(self.dropped))
        return True

    def record_pass(self, hive: str, bee: str, settings: HorizonSettings, outcome: Pass,
                    seconds: float, from_model: bool) -> None:
        """The instruments of one committed pass: per pass, never per line."""
        self.passes.inc()
        self.pass_duration.observe(seconds)
        if not from_model:
            self.lines_read_live.inc(outcome.read - outcome.reread)
            self.lines_read_again.inc(outcome.reread)
            for reason, count in outcome.rejections.items():
                self.lines_rejected.labels(reason).inc(count)
            self.evictions.inc(len(outcome.changes.evicted))
            self.folds.inc(outcome.changes.folds)
            written = len(outcome.changes.evicted) + outcome.changes.folds
            if written:  # truncation writes first, whatever a model replaces later
                self.truncation_calls.inc(written)
        if outcome.rotated is not None:
            self.rotations.inc()
        if settings.actif:
            fills = {zone: after / settings.budgets[zone]
                     for zone, (_, after) in outcome.view.zone_chars.items()}
        else:
            fills = {"handoff": len(outcome.view.text) / settings.handoff_max}
        self.zone_fills(hive, bee, fills)
        if self.has_series(hive, bee):
            self.entries.labels(hive, bee).set(outcome.state.zones.accepted)

    def zone_fills(self, hive: str, bee: str, fills: dict[str, float]) -> None:
        if self.has_series(hive, bee):
            series = self.fills.setdefault((hive, bee), {})
            for zone, ratio in fills.items():
                child = series.get(zone)
                if child is None:
                    child = series[zone] = self.zone_fill.labels(hive, bee, zone)
                child.set(ratio)

    def lag_of(self, hive: str, bee: str, seconds: float) -> None:
        if self.has_series(hive, bee):
            self.lag.labels(hive, bee).set(seconds)

    def served(self, hive: str, bees: Iterable[str]) -> None:
        """Only served bees have series: the others' go."""
        keep = set(bees)
        for key in [key for key in self.bees_with_series if key[0] == hive
                    and key[1] not in keep]:
            self.bees_with_series.discard(key)
            self.fills.pop(key, None)
            with contextlib.suppress(KeyError):  # no beat set it yet
                self.lag.remove(*key)
            with contextlib.suppress(KeyError):  # no pass committed yet
                self.entries.remove(*key)
            for zone in (*ZONES, "handoff"):
                with contextlib.suppress(KeyError):  # no pass wrote that zone yet
                    self.zone_fill.remove(*key, zone)
        self.dropped = {key for key in self.dropped if key[0] != hive or key[1] in keep}
        self.bee_series_dropped.set(len(self.dropped))

    def serving(self, hive: str) -> None:
        """A hive taken up: its counters exist from 0, so a rate can be taken at once."""
        self.rotation_failures.labels(hive)

    def forget_hive(self, hive: str) -> None:
        self.served(hive, ())
        with contextlib.suppress(KeyError):
            self.rotation_failures.remove(hive)

    # -- the health document -----------------------------------------------------------

    def publish_health(self, reasons: list[str]) -> None:
        self.health = Health(not reasons, reasons)  # one assignment: readers see one

    # -- HTTP --------------------------------------------------------------------------

    def app(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        path = environ.get("PATH_INFO", "")
        if path == "/healthz":
            code, body = self.health.document()
            start_response(f"{code} {'OK' if code == 200 else 'Service Unavailable'}",
                           [("Content-Type", "application/json"),
                            ("Content-Length", str(len(body)))])
            return [body]
        if path == "/metrics":
            return self.exposition(environ, start_response)  # type: ignore[no-any-return]
        body = b"not found: /metrics or /healthz\n"
        start_response("404 Not Found", [("Content-Type", "text/plain"),
                                         ("Content-Length", str(len(body)))])
        return [body]


# Connections served at once: a scraper needs one or two. Beyond, a connection is closed
# as soon as it is accepted, so no number of clients can take the daemon's descriptors
# (every bee's journal and derived writes need them) or a thread each.
MAX_CONNECTIONS = 16
Request = socket.socket | tuple[bytes, socket.socket]  # what socketserver hands a server
REQUEST_DEADLINE_S = 10.0  # a whole request, however slowly its bytes trickle in


class _Server(ThreadingMixIn, WSGIServer):
    # typeshed types a client's address as Any (`_RetAddress`): the overrides follow it.
    daemon_threads = True
    request_queue_size = 128  # connections the kernel holds before they are accepted

    def handle_error(self, request: Request, client_address: Any) -> None:
        """A client that times out, hangs up or is cut at its deadline is no failure of
        the daemon: nothing is printed (socketserver writes a traceback to stderr)."""

    def __init__(self, address: tuple[str, int], handler: type[WSGIRequestHandler],
                 bind_and_activate: bool = True) -> None:
        super().__init__(address, handler, bind_and_activate)
        self.slots = threading.BoundedSemaphore(MAX_CONNECTIONS)

    def process_request(self, request: Request, client_address: Any) -> None:
        if not self.slots.acquire(blocking=False):
            self.shutdown_request(request)  # full: closed at once, no thread taken
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self.slots.release()
            raise

    def process_request_thread(self, request: Request, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.slots.release()


class _Quiet(WSGIRequestHandler):
    timeout = 5  # an idle connection is closed, never held open by whoever opened it

    def setup(self) -> None:
        super().setup()
        # The timeout above is per read: one byte every few seconds would hold a slot
        # for ever. The whole request has a deadline, past which its socket is shut.
        self.deadline = threading.Timer(REQUEST_DEADLINE_S, self._cut)
        self.deadline.daemon = True
        self.deadline.start()

    def _cut(self) -> None:
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)

    def finish(self) -> None:
        self.deadline.cancel()
        with contextlib.suppress(OSError):  # a connection cut at its deadline
            super().finish()

    def log_message(self, format: str, *args: Any) -> None:  # typeshed's signature
        """Scrapes are not news."""


class Listener:
    """The HTTP listener of `metrics`, started, moved and stopped on reloads."""

    def __init__(self, metrics: Metrics) -> None:
        self.metrics = metrics
        self.address: tuple[str, int] | None = None
        self.server: _Server | None = None
        self.thread: threading.Thread | None = None

    def serve(self, address: tuple[str, int] | None) -> None:
        """Listen on `address` (None: not at all); OSError when it cannot be bound."""
        if address == self.address:
            return
        if address is None:
            self.stop()
            return
        previous = self.address
        if previous is not None and previous[1] == address[1]:
            self.stop()  # the same port on another host: ours to let go first
        try:
            # Bound before the old one stops: an address that cannot be had keeps the old.
            server = _bind(address, self.metrics)
        except OSError:
            if previous is not None and self.address is None:
                self._start(_bind(previous, self.metrics), previous)  # kept, as logged
            raise
        self.stop()
        self._start(server, address)

    def _start(self, server: _Server, address: tuple[str, int]) -> None:
        thread = threading.Thread(target=server.serve_forever, name="horizon-metrics",
                                  daemon=True)
        thread.start()
        self.server, self.thread, self.address = server, thread, address

    def stop(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()
        self.server, self.thread, self.address = None, None, None


def _bind(address: tuple[str, int], metrics: Metrics) -> _Server:
    host, port = address
    _Server.address_family = _family(host)
    return make_server(host, port, metrics.app, _Server, handler_class=_Quiet)


def _family(host: str) -> int:
    return socket.AF_INET6 if ":" in host else socket.AF_INET
