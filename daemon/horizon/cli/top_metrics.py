"""The daemon's `/metrics` as `horizon top` reads it: scraped with a short timeout, parsed
by the Prometheus client library's own parser, its pass counter turned into a rate."""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field

import httpx
from prometheus_client.parser import text_string_to_metric_families

SCRAPE_TIMEOUT_S = 0.5  # a scrape is on the screen's clock: it must never hold a refresh
SCRAPE_DEADLINE_S = 1.0  # the whole scrape: a server trickling bytes is given up on
SCRAPE_MAX_BYTES = 8 << 20  # far more than any daemon's exposition: an endless one is cut
RATE_WINDOW_S = 5.0  # passes/s over this much, not one noisy second


@dataclass(frozen=True)
class Scrape:
    passes_total: float | None
    lag_s: dict[tuple[str, str], float]  # (hive, bee) → seconds


def parse_metrics(text: str) -> Scrape:
    """What top uses of a scrape, read by the client library's own parser (ValueError
    on a text that is not the exposition format)."""
    total = None
    lag = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == "horizon_passes_total":
                total = sample.value
            elif sample.name == "horizon_lag_seconds":
                lag[(sample.labels.get("hive", ""), sample.labels.get("bee", ""))] = sample.value
    return Scrape(total, lag)


def counter_rate(samples: list[tuple[float, float]]) -> float | None:
    """Per second between the first and last (instant, value) of a counter."""
    if len(samples) < 2 or samples[-1][0] <= samples[0][0]:
        return None
    return (samples[-1][1] - samples[0][1]) / (samples[-1][0] - samples[0][0])


def metrics_url(address: tuple[str, int]) -> str:
    """A wildcard listen address is reached on the loopback."""
    host, port = address
    host = {"0.0.0.0": "127.0.0.1", "::": "::1", "": "127.0.0.1"}.get(host, host)
    return f"http://[{host}]:{port}/metrics" if ":" in host else f"http://{host}:{port}/metrics"


@dataclass
class Metrics:
    """The daemon's /metrics, scraped each refresh; `last` is None when it failed."""

    url: str
    client: httpx.Client = field(default_factory=lambda: httpx.Client(
        timeout=SCRAPE_TIMEOUT_S, trust_env=False))  # never through a proxy
    totals: deque[tuple[float, float]] = field(default_factory=deque)
    last: Scrape | None = None

    def scrape(self, now: float) -> None:
        try:
            self.last = parse_metrics(self._fetch())
        except (httpx.HTTPError, ValueError):
            self.last = None
            self.totals.clear()
            return
        total = self.last.passes_total
        if total is None or (self.totals and total < self.totals[-1][1]):
            self.totals.clear()  # a restarted daemon counts from 0 again
        if total is not None:
            self.totals.append((now, total))
        while self.totals and self.totals[0][0] < now - RATE_WINDOW_S:
            self.totals.popleft()

    def _fetch(self) -> str:
        """The exposition's text, within SCRAPE_DEADLINE_S in all and SCRAPE_MAX_BYTES
        (the timeout alone is per read); ValueError past either."""
        deadline = time.monotonic() + SCRAPE_DEADLINE_S
        body = bytearray()
        with self.client.stream("GET", self.url) as response:
            response.raise_for_status()
            for chunk in response.iter_bytes():
                body += chunk
                if len(body) > SCRAPE_MAX_BYTES:
                    raise ValueError("the exposition is larger than any daemon's")
                if time.monotonic() > deadline:
                    raise ValueError("the scrape took too long")
        return body.decode("utf-8", "replace")

    def passes_per_s(self) -> float | None:
        return counter_rate(list(self.totals)) if self.last is not None else None

    def close(self) -> None:
        self.client.close()
