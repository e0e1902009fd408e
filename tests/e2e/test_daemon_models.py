"""A real `horizon run` process with model providers on 127.0.0.1.

One daemon per scenario, all running at once so the module stays short: a good model, a
dedicated model that fails in front of a good bee's model, and both models failing in each
mode of tests/model_servers.py. The same twenty lines go to every hive, one at a time;
after each the test waits for the line's #seq in handoff.md and checks the cap. Then each
scenario is checked for what an operator sees: the level that wrote the texts, the
fallbacks logged, the calls the breakers let through, and no API key anywhere.
"""

from __future__ import annotations

import json
import signal
import subprocess
import time
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.daemon_harness import (
    BEE,
    STOP_GRACE_S,
    Daemon,
    append,
    clean_env,
    entry,
    handoff,
    header_up_to,
    horizon,
    make_hive,
    wait_for,
    write_config,
)
from tests.model_servers import CONDENSED, ModelServer, refused_url, serving

LINES = 20
BUDGETS = {"budget_net": 1500, "budget_condense": 1200, "budget_recit": 1500}
CAP = sum(BUDGETS.values())
KEY_ENV = "HORIZON_E2E_OPENAI_KEY"
KEY = "sk-horizon-e2e-7d41c0ffee5a1b2c3d4e5f60718293a4"
DEDICATED = "openai/m2"  # resumeur: the dedicated model, behind the key
OWN = "ollama/m1"  # modele: the bee's own model
WORKERS = 2  # the daemon's model pool: at most this many calls race a breaker
COOLDOWN_S = 30.0
FAILURES = ("slow", "slow_short", "http500", "refused", "empty", "garbage",
            "missing_sections", "overlong")
# The reason each failure mode makes the cascade log, and for which kinds of call.
REASONS = {
    "slow": {"condense": "timeout"}, "slow_short": {"condense": "timeout"},
    "http500": {"condense": "HTTP 500"},
    "refused": {"condense": "connection refused"},
    "empty": {"condense": "empty reply"},
    "garbage": {"condense": "malformed reply"},
    "missing_sections": {"fold": "malformed récit"},
    "overlong": {"condense": "over-long reply", "fold": "malformed récit"},
}
TRIPS_BREAKER = ("slow", "slow_short", "http500", "empty", "garbage")


@dataclass
class TimedServer(ModelServer):
    """A model server that also notes when each request arrived (monotonic)."""

    arrivals: list[float] = field(default_factory=list)

    def check(self, path: str, headers: Any, body: dict[str, Any]) -> None:
        self.arrivals.append(time.monotonic())
        super().check(path, headers, body)


@dataclass
class Scenario:
    name: str
    dedicated: str | None  # the dedicated openai model's mode, None: resumeur = "abeille"
    own: str  # the bee's ollama model's mode
    timeout_s: float = 1.0
    slow_s: float = 3.0
    root: Path = Path()
    hive: Path = Path()
    config: Path = Path()
    daemon: Daemon | None = None
    servers: dict[str, TimedServer] = field(default_factory=dict)
    written: dict[int, float] = field(default_factory=dict)
    seen: dict[int, float] = field(default_factory=dict)
    longest: int = 0

    def view(self) -> str | None:
        """handoff.md, checked against the cap at every read."""
        text = handoff(self.hive)
        if text is not None:
            self.longest = max(self.longest, len(text))
            assert len(text) <= CAP, f"{self.name}: handoff.md {len(text)} > {CAP} chars"
        return text

    def render(self) -> dict[str, Any]:
        result = horizon(self.config, "render", self.hive, BEE, "--json")
        assert result.returncode == 0, result.stderr
        summary: dict[str, Any] = json.loads(result.stdout)
        return summary

    def status(self) -> dict[str, Any]:
        result = horizon(self.config, "status", self.hive, "--json")
        assert result.returncode == 0, result.stderr
        [report] = json.loads(result.stdout)["hives"]
        bee: dict[str, Any] = next(b for b in report["bees"] if b["bee"] == BEE)
        return bee

    def fallbacks(self) -> list[dict[str, Any]]:
        assert self.daemon is not None
        return self.daemon.events("summarizer.fallback", BEE)


def model_of(event: dict[str, Any]) -> str | None:
    """The model level a `summarizer.fallback` event names, whatever its field is called."""
    named = [value for value in event.values() if value in (DEDICATED, OWN)]
    return named[0] if named else None


def scenarios() -> list[Scenario]:
    return [
        Scenario("good", None, "good"),
        Scenario("fallback_to_own", "http500", "good"),
        Scenario("slow", "slow", "slow", timeout_s=3.0, slow_s=6.0),
        Scenario("slow_short", "slow", "slow", timeout_s=0.5, slow_s=5.0),
        *(Scenario(mode, mode, mode) for mode in FAILURES if not mode.startswith("slow")),
    ]


def serve(stack: ExitStack, scenario: Scenario, wire: str, mode: str, model: str) -> str:
    if mode == "refused":
        return refused_url()
    server = TimedServer(wire, model, mode="slow" if mode.startswith("slow") else mode,
                         slow_s=scenario.slow_s, api_key=KEY if wire == "openai" else None)
    stack.enter_context(serving(server))
    scenario.servers[wire] = server
    return server.url


def prepare(stack: ExitStack, scenario: Scenario, root: Path) -> None:
    scenario.root = root
    providers: dict[str, Any] = {"ollama": {
        "url": serve(stack, scenario, "ollama", scenario.own, "m1"),
        "timeout_s": scenario.timeout_s}}
    resumeur = "abeille"
    if scenario.dedicated is not None:
        providers["openai"] = {
            "url": serve(stack, scenario, "openai", scenario.dedicated, "m2"),
            "timeout_s": scenario.timeout_s, "api_key_env": KEY_ENV,
            "options": {"temperature": 0}}
        resumeur = DEDICATED
    scenario.hive = make_hive(root, bee_toml=f'modele = "{OWN}"\n\n[horizon]\nactif = true\n'
                                             f'resumeur = "{resumeur}"\n')
    scenario.config = write_config(root, scenario.hive, providers=providers,
                                   horizon=BUDGETS)


def line(seq: int) -> str:
    answer = f"Étape {seq} : la page honey/page{seq}.html est composée. " + (
        "Les gabarits, les styles et les scripts ont été relus un par un, sans surprise. " * 4)
    if seq % 7 == 0:
        answer += "Erreur : le test honey/test_page.py a échoué."
    return entry(f"étape {seq} : compose honey/page{seq}.html", answer, tool="editor")


def write_everywhere(scenarios: list[Scenario], count: int = LINES) -> None:
    """Line after line to every hive; each must show the line's #seq before the next."""
    for seq in range(1, count + 1):
        for scenario in scenarios:
            append(scenario.hive, line(seq))
            scenario.written[seq] = time.monotonic()
        waiting = list(scenarios)
        deadline = time.monotonic() + 20
        while waiting:
            for scenario in list(waiting):
                text = scenario.view()
                if (header_up_to(text) or 0) >= seq:
                    scenario.seen[seq] = time.monotonic()
                    waiting.remove(scenario)
            assert time.monotonic() < deadline, f"#{seq} late in {[s.name for s in waiting]}"
            time.sleep(0.01)


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Scenario]]:
    fleet = scenarios()
    with ExitStack() as stack:
        for scenario in fleet:
            prepare(stack, scenario, tmp_path_factory.mktemp(scenario.name))
        env = clean_env(**{KEY_ENV: KEY})
        for scenario in fleet:
            scenario.daemon = Daemon(scenario.config, scenario.root / "logs", env)
        try:
            for scenario in fleet:
                assert scenario.daemon is not None
                scenario.daemon.started()
            write_everywhere(fleet)
            yield {scenario.name: scenario for scenario in fleet}
        finally:
            stop_all(fleet)


def stop_all(scenarios: list[Scenario]) -> dict[str, int]:
    """One SIGTERM to every daemon at once, then their exit codes (SIGKILL past the grace)."""
    daemons = {s.name: s.daemon for s in scenarios if s.daemon is not None}
    for daemon in daemons.values():
        if daemon.process.poll() is None:
            daemon.process.send_signal(signal.SIGTERM)
    codes = {}
    for name, daemon in daemons.items():
        try:
            codes[name] = daemon.process.wait(STOP_GRACE_S)
        except subprocess.TimeoutExpired:
            daemon.process.kill()
            codes[name] = daemon.process.wait()
    return codes


def sources(summary: dict[str, Any]) -> set[str]:
    return {item["source"] for item in summary["condense"]}


def settled(scenario: Scenario, check: Any, what: str, timeout: float = 40.0) -> Any:
    """Poll `check` (handoff.md's cap checked on the way) until it holds."""

    def probe() -> Any:
        assert scenario.daemon is not None
        scenario.daemon.assert_alive()
        scenario.view()
        return check()

    return wait_for(probe, f"{scenario.name}: {what}", timeout, every=0.2)


# --- a good model -------------------------------------------------------------------------


def upgraded(scenario: Scenario, level: str) -> dict[str, Any]:
    """render --json once every condensed entry and the récit come from `level`."""

    def done() -> dict[str, Any] | None:
        summary = scenario.render()
        ok = (summary["condense"] and sources(summary) == {level}
              and "selon le modèle" in (handoff(scenario.hive) or ""))
        return summary if ok else None

    summary: dict[str, Any] = settled(scenario, done, f"condensed entries and récit by {level}")
    return summary


def test_a_good_model_replaces_truncation_in_the_view(fleet: dict[str, Scenario]) -> None:
    good = fleet["good"]
    summary = upgraded(good, OWN)
    text = good.view()
    assert text is not None
    assert f"> {CONDENSED}" in text
    assert "> - décisions selon le modèle" in text
    assert "inventée" not in text  # the model's Mission and Paroles are ignored
    assert summary["up_to"] == LINES
    assert summary["net"][-1]["seq"] == LINES
    assert summary["recit"]["Travail en cours"] == "> - travail en cours selon le modèle"

    def reported() -> dict[str, Any] | None:
        bee = good.status()
        summarizer = bee["summarizer"]
        return bee if summarizer["recit"] == OWN and summarizer["pending_folds"] == 0 else None

    bee = settled(good, reported, "status showing the model's levels")
    assert set(bee["summarizer"]["condense"]) == {OWN}
    assert bee["summarizer"]["fallbacks"] == 0
    assert bee["entries"] == LINES
    result = horizon(good.config, "status", good.hive)
    assert f"récit {OWN}" in result.stdout
    assert good.fallbacks() == []
    assert good.servers["ollama"].problems == []
    assert good.servers["ollama"].calls("fold") >= 1


def test_a_failing_dedicated_model_gives_way_to_the_bees_own(
        fleet: dict[str, Scenario]) -> None:
    scenario = fleet["fallback_to_own"]
    upgraded(scenario, OWN)
    fallbacks = scenario.fallbacks()
    assert fallbacks
    assert "HTTP 500" in fallbacks[0]["reason"]
    assert {f["kind"] for f in fallbacks} <= {"condense", "fold"}
    dedicated = scenario.servers["openai"]
    assert dedicated.problems == []  # the bearer key was sent, and right
    assert len(dedicated.arrivals) <= WORKERS  # the breaker: one failure per cool-down
    assert scenario.servers["ollama"].calls() >= 2


# --- failing models -----------------------------------------------------------------------


@pytest.mark.parametrize("name", FAILURES)
def test_a_failing_model_never_delays_nor_loses_nor_leaks(
        fleet: dict[str, Scenario], name: str) -> None:
    scenario = fleet[name]
    # Each line reached the view before the next was written (write_everywhere waits on
    # it); that a view never waits on a model call is shown causally by the hanging test.
    assert sorted(scenario.seen) == list(range(1, LINES + 1))
    assert all(scenario.seen[seq] >= scenario.written[seq] for seq in scenario.seen)
    assert scenario.longest <= CAP

    expected = REASONS[name]

    def logged() -> list[dict[str, Any]] | None:
        events = scenario.fallbacks()
        kinds = {e["kind"] for e in events if expected.get(e["kind"], "?") in e["reason"]}
        return events if kinds == set(expected) else None

    events = settled(scenario, logged, f"summarizer.fallback for {sorted(expected)}")
    assert all(e["reason"] and e["kind"] in ("condense", "fold") for e in events)
    assert all(e.get("hive") == str(scenario.hive) for e in events)

    def drained() -> dict[str, Any] | None:
        bee = scenario.status()
        return bee if bee["summarizer"]["pending_folds"] == 0 else None

    bee = settled(scenario, drained, "no fold left for the models")
    assert bee["entries"] == LINES
    assert bee["rejected"] == 0
    assert bee["summarizer"]["fallbacks"] >= len(expected) * 2
    assert bee["summarizer"]["recit"] == "troncature"
    # Condensations come from the dedicated model where it still answers them well.
    wanted = {DEDICATED} if "condense" not in expected else {"troncature"}

    def condensed_by_wanted() -> dict[str, Any] | None:
        summary = scenario.render()
        return summary if sources(summary) == wanted else None

    summary = settled(scenario, condensed_by_wanted, f"condensed entries from {wanted}")
    assert summary["up_to"] == LINES
    assert summary["net"][-1]["seq"] == LINES
    assert summary["chars"] <= CAP

    for server in scenario.servers.values():
        assert server.problems == []
        if name in TRIPS_BREAKER:
            assert server.arrivals
            first = server.arrivals[0]
            within = [t for t in server.arrivals if t < first + COOLDOWN_S]
            assert len(within) <= WORKERS, (server.wire, len(within))
    assert scenario.daemon is not None
    assert "Traceback" not in scenario.daemon.read_output()


def test_handoff_md_follows_the_journal_while_a_model_call_hangs(
        fleet: dict[str, Scenario]) -> None:
    """The server sleeps 6 s and the client gives up after 3 s: lines written and shown
    inside that window were rendered while a model call was pending."""
    scenario = fleet["slow"]
    windows = [(arrival, arrival + scenario.timeout_s)
               for server in scenario.servers.values() for arrival in server.arrivals]
    assert windows
    during = [seq for seq in scenario.seen
              if any(start <= scenario.written[seq] and scenario.seen[seq] < end
                     for start, end in windows)]
    assert len(during) >= 3, (during, windows)


def test_each_fallback_event_names_the_model_that_failed(fleet: dict[str, Scenario]) -> None:
    wrong = {}
    for name in ("fallback_to_own", *FAILURES):
        scenario = fleet[name]
        expected = {DEDICATED} if name == "fallback_to_own" else {DEDICATED, OWN}
        events = settled(scenario, scenario.fallbacks, "summarizer.fallback")
        named = {model_of(event) for event in events}
        if named != expected:
            wrong[name] = (named, events[0])
    assert wrong == {}


def test_the_api_key_is_in_no_log_and_no_file(fleet: dict[str, Scenario]) -> None:
    """Every scenario but one sent the key (the servers checked it): it shows nowhere."""
    roots = [scenario.root for scenario in fleet.values()]
    files = [path for root in roots for path in root.rglob("*") if path.is_file()]
    assert any(path.name == "horizon.jsonl" for path in files)
    assert any(path.name == "summaries.sqlite" for path in files)
    assert [str(path) for path in files if KEY.encode() in path.read_bytes()] == []


# --- the cache ----------------------------------------------------------------------------


def test_rebuild_reuses_the_cache_and_calls_no_model(fleet: dict[str, Scenario]) -> None:
    good = fleet["good"]
    before = upgraded(good, OWN)
    assert good.daemon is not None
    assert good.daemon.stop() == 0
    server = good.servers["ollama"]
    calls = server.calls()
    assert (good.hive / "horizon" / "summaries.sqlite").is_file()

    result = horizon(good.config, "rebuild", good.hive)
    assert result.returncode == 0, result.stderr
    assert server.calls() == calls
    after = good.render()
    assert after["up_to"] == LINES
    rebuilt = {item["seq"]: item["source"] for item in after["condense"]}
    assert rebuilt
    # What the model condensed before is condensed by it again, from the cache.
    shown_before = [item["seq"] for item in before["condense"] if item["seq"] in rebuilt]
    assert shown_before
    assert all(rebuilt[seq] == OWN for seq in shown_before)
    assert f"> {CONDENSED}" in (good.view() or "")

    # A restart on the rebuilt state asks the model for no condensation again.
    condensations = server.calls("condense")
    good.daemon = Daemon(good.config, good.root / "logs", clean_env(**{KEY_ENV: KEY}))
    good.daemon.started()
    time.sleep(1.0)
    assert server.calls("condense") == condensations


def test_flagging_a_lighthouse_without_the_daemon_keeps_the_models_texts(
        fleet: dict[str, Scenario]) -> None:
    """`horizon phare` recomputes the bee when no daemon runs: from the cache too."""
    good = fleet["good"]
    upgraded(good, OWN)
    assert good.daemon is not None
    assert good.daemon.stop() == 0
    before = {item["seq"] for item in good.render()["condense"]}
    flagged = min(before)
    result = horizon(good.config, "phare", good.hive, BEE, str(flagged))
    assert result.returncode == 0, result.stderr
    after = good.render()
    assert after["up_to"] == LINES
    assert {item["source"] for item in after["condense"] if item["seq"] in before} == {OWN}
    assert f"> {CONDENSED}" in (good.view() or "")


def test_every_daemon_stops_cleanly(fleet: dict[str, Scenario]) -> None:
    codes = stop_all(list(fleet.values()))
    assert codes == dict.fromkeys(codes, 0)


# --- a model call hanging when the daemon is told to stop -----------------------------------

HUNG_LINES = 8


@pytest.fixture(scope="module")
def hung(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Scenario, float, int]]:
    """Both models take 20 s and the client waits 8 s for each: SIGTERM lands while the
    workers are inside those calls. Yields the scenario, how long the exit took and its
    code (-9: still running after 5 s, killed)."""
    scenario = Scenario("hung", "slow", "slow", timeout_s=8.0, slow_s=20.0)
    with ExitStack() as stack:
        prepare(stack, scenario, tmp_path_factory.mktemp("hung"))
        scenario.daemon = Daemon(scenario.config, scenario.root / "logs",
                                 clean_env(**{KEY_ENV: KEY}))
        try:
            scenario.daemon.started()
            write_everywhere([scenario], HUNG_LINES)
            dedicated = scenario.servers["openai"]
            wait_for(dedicated.calls, "a model call")
            # The workers wait 8 s on the dedicated model, then 8 s on the bee's own.
            assert time.monotonic() - dedicated.arrivals[0] < 12
            started = time.monotonic()
            scenario.daemon.process.send_signal(signal.SIGTERM)
            try:
                code = scenario.daemon.process.wait(5.0)
            except subprocess.TimeoutExpired:
                scenario.daemon.process.kill()
                code = scenario.daemon.process.wait()
            yield scenario, time.monotonic() - started, code
        finally:
            stop_all([scenario])


def test_sigterm_does_not_wait_for_a_model_call(hung: tuple[Scenario, float, int]) -> None:
    """The unit gives the daemon TimeoutStopSec=20 s, less than one default model timeout
    (30 s): a stop must not wait for model calls, nor start the next level's."""
    scenario, elapsed, code = hung
    assert code == 0, f"exit code {code} after {elapsed:.1f} s (-9: killed after 5 s)"
    assert elapsed < 5.0
    assert header_up_to(scenario.view()) == HUNG_LINES


def test_condensations_lost_in_flight_are_asked_again_after_a_restart(
        hung: tuple[Scenario, float, int]) -> None:
    """Pending folds survive a stop (state.json); the condensations in flight must too,
    or the entries keep truncation's text for as long as they stay in condensé."""
    scenario = hung[0]
    for server in scenario.servers.values():
        server.mode = "good"
    scenario.daemon = Daemon(scenario.config, scenario.root / "logs",
                             clean_env(**{KEY_ENV: KEY}))
    scenario.daemon.started()

    def upgraded() -> dict[str, Any] | None:
        summary = scenario.render()
        return summary if sources(summary) == {DEDICATED} else None

    settled(scenario, upgraded, "condensed entries from the dedicated model", timeout=15)
