"""Model-backed summarizers against real HTTP servers on 127.0.0.1 (issue 4).

The servers of tests/model_servers.py speak Ollama's `/api/chat` and OpenAI's chat
completions and check every request's shape; here the providers, the cascade, its
breakers, the cache and the settings that gate the network are driven in-process.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec
import pytest

from horizon.core.blocks import Item
from horizon.core.errors import SettingsError
from horizon.core.recit import FREE_SECTIONS, PAROLES, SECTIONS, Line, Recit
from horizon.core.settings import (
    Effective,
    GlobalConfig,
    HorizonSettings,
    ProviderConfig,
    level_names,
)
from horizon.core.summarizer import TRUNCATION
from horizon.engine.stepping import PassRequest, run_pass
from horizon.hive.settings_files import load_global
from horizon.service.messages import ModelDone
from horizon.service.modelwork import InFlight, ModelWork
from horizon.summarize.cache import SummaryCache
from horizon.summarize.cached import CachedSummarizer, parse_recit
from horizon.summarize.cascade import Cascade, Providers
from horizon.summarize.providers import ProviderError, build_provider
from tests.model_servers import CONDENSED, ModelServer, good_recit, refused_url, serving

KEY = "sk-horizon-test-0f1e2d3c4b5a69788796a5b4c3d2e1f0"
KEY_ENV = "HORIZON_TEST_OPENAI_KEY"
WIRES = ("ollama", "openai")
TIMEOUT_S = 0.4
ANSWER_WAIT_S = 30.0  # what a server that answers at once is given
SLOW_S = 1.5
ANSWER = ("J'ai écrit honey/page.html puis lancé les tests ; tout passe. " * 12).strip()
# What each failure mode makes a provider say (ProviderError's message, lower-cased).
FAILURES = {
    "slow": "timeout",
    "http500": "http 500",
    "refused": "refused",
    "empty": "empty",
    "garbage": "malformed",
}
CONDENSE_FAILURES = (*FAILURES, "overlong")
FOLD_FAILURES = (*FAILURES, "overlong", "missing_sections")


@dataclass
class Site:
    """A model server in one mode, or a refused URL; what the settings say to reach it.

    Servers are shared by the module's tests (stopping one costs half a second), so a
    site counts only the requests made since it was handed to the test.
    """

    wire: str
    model: str
    mode: str
    server: ModelServer | None = None
    url: str = ""
    base: int = 0
    options: dict[str, Any] = field(default_factory=dict)

    def config(self, **extra: Any) -> ProviderConfig:
        key_env = KEY_ENV if self.wire == "openai" else None
        # Only a slow server meets the short timeout: a loaded machine may take longer
        # than it to answer a quick one, and the test would read a timeout.
        extra.setdefault("timeout_s", TIMEOUT_S if self.mode == "slow" else ANSWER_WAIT_S)
        return ProviderConfig(url=self.url, api_key_env=key_env, options=self.options,
                              **extra)

    def requests(self) -> list[dict[str, Any]]:
        if self.server is None:
            return []
        with self.server.lock:
            return self.server.requests[self.base:]

    def calls(self) -> int:
        return len(self.requests())


class ServerPool:
    """Model servers by (wire, mode, model), started on first use, stopped together."""

    def __init__(self) -> None:
        self.servers: dict[tuple[str, str, str], ModelServer] = {}
        self.contexts: list[Any] = []

    def get(self, wire: str, mode: str, model: str, fresh: bool) -> ModelServer:
        key = (wire, mode, model)
        if fresh or key not in self.servers:
            server = ModelServer(wire, model, mode=mode, slow_s=SLOW_S,
                                 api_key=KEY if wire == "openai" else None)
            context = serving(server)
            context.__enter__()
            self.contexts.append(context)
            if fresh:
                return server
            self.servers[key] = server
        return self.servers[key]

    def close(self) -> None:
        stopping = [threading.Thread(target=context.__exit__, args=(None, None, None))
                    for context in self.contexts]
        for thread in stopping:
            thread.start()
        for thread in stopping:
            thread.join()


@pytest.fixture(scope="module")
def pool() -> Iterator[ServerPool]:
    servers = ServerPool()
    yield servers
    servers.close()


@pytest.fixture
def sites(pool: ServerPool, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """`open_site(wire, mode, model, fresh=False)`: a served model (or a refused URL);
    `fresh` for a test that changes the server's behaviour."""
    monkeypatch.setenv(KEY_ENV, KEY)
    opened: list[Site] = []

    def open_site(wire: str, mode: str = "good", model: str = "m1", fresh: bool = False
                  ) -> Site:
        site = Site(wire, model, mode)
        if mode == "refused":
            site.url = refused_url()
        else:
            site.server = pool.get(wire, mode, model, fresh)
            site.url = site.server.url
            site.base = site.server.calls()
        opened.append(site)
        return site

    yield open_site
    for site in opened:
        assert site.server is None or site.server.problems == [], site.server.problems


def item(seq: int, answer: str = ANSWER, question: str | None = None) -> Item:
    return Item(seq=seq, instant=1_780_000_000.0 + seq, type="task",
                question=question or f"étape {seq} : compose honey/page{seq}.html",
                answer=answer, lighthouse=False, tool="editor", content=f"content-{seq}")


def settings(**overrides: Any) -> HorizonSettings:
    values: dict[str, Any] = {"actif": True, "budget_net": 1500, "budget_condense": 1200,
                              "budget_recit": 1500}
    values.update(overrides)
    return HorizonSettings(**values)


def cascade_of(dedicated: Site | None, bee: Site | None, *, cache: SummaryCache | None = None,
               registry: Providers | None = None, **overrides: Any) -> Cascade:
    """A bee's cascade as the daemon builds it: `resumeur` names `dedicated`, `modele`
    names `bee`."""
    providers: dict[Any, ProviderConfig] = {site.wire: site.config()
                                            for site in (dedicated, bee) if site is not None}
    registry = registry or Providers(GlobalConfig(providers=providers))
    resumeur = f"{dedicated.wire}/{dedicated.model}" if dedicated else "abeille"
    horizon = settings(resumeur=resumeur, **overrides)
    modele = f"{bee.wire}/{bee.model}" if bee else None
    effective = with_levels(registry.config, Effective(horizon, {}, None, modele))
    return Cascade(registry.levels_for(effective), registry.breakers, horizon, cache)


def with_levels(config: GlobalConfig, effective: Effective) -> Effective:
    """What the settings loader computes once per reload: the model levels in use."""
    return msgspec.structs.replace(effective, levels=level_names(config, effective))


def level(site: Site) -> str:
    return f"{site.wire}/{site.model}"


def other(wire: str) -> str:
    return "openai" if wire == "ollama" else "ollama"


# --- providers ----------------------------------------------------------------------------


@pytest.mark.parametrize("wire", WIRES)
def test_a_good_reply_gives_the_text_and_the_request_has_the_wire_shape(
        wire: str, sites: Any) -> None:
    site = sites(wire)
    site.options = {"temperature": 0.2}
    provider = build_provider(wire, site.config())
    assert provider.chat("m1", "consigne", "données") == CONDENSED
    assert site.server is not None
    assert site.server.problems == []
    [request] = site.requests()
    body = request["body"]
    assert body["messages"] == [{"role": "system", "content": "consigne"},
                                {"role": "user", "content": "données"}]
    if wire == "ollama":
        assert body["stream"] is False
        assert body["options"] == {"temperature": 0.2}
        assert "Authorization" not in request["headers"]
    else:
        assert body["temperature"] == 0.2
        assert request["headers"]["Authorization"] == f"Bearer {KEY}"


def test_openai_without_a_key_variable_sends_no_authorization(sites: Any) -> None:
    site = sites("openai", fresh=True)
    assert site.server is not None
    site.server.api_key = None
    config = ProviderConfig(url=site.url, timeout_s=TIMEOUT_S)
    assert build_provider("openai", config).chat("m1", "s", "u") == CONDENSED
    assert "Authorization" not in site.requests()[0]["headers"]


def test_an_unset_key_variable_is_a_provider_error_before_any_call(
        sites: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    site = sites("openai")
    monkeypatch.delenv(KEY_ENV)
    with pytest.raises(ProviderError, match=KEY_ENV):
        build_provider("openai", site.config()).chat("m1", "s", "u")
    assert site.calls() == 0


@pytest.mark.parametrize("mode", FAILURES)
@pytest.mark.parametrize("wire", WIRES)
def test_each_failure_mode_is_a_provider_error_with_a_short_reason(
        wire: str, mode: str, sites: Any) -> None:
    site = sites(wire, mode)
    provider = build_provider(wire, site.config())
    started = time.monotonic()
    with pytest.raises(ProviderError) as raised:
        provider.chat("m1", "s", "u")
    elapsed = time.monotonic() - started
    reason = str(raised.value)
    assert FAILURES[mode] in reason.lower()
    assert KEY not in reason
    assert KEY not in repr(raised.value)
    assert elapsed < SLOW_S  # the timeout, not the server, decides how long a call lasts


@pytest.mark.parametrize("mode", ["bom", "nan", "many"])
@pytest.mark.parametrize("wire", WIRES)
def test_replies_python_s_json_reads_give_their_text(wire: str, mode: str,
                                                     sites: Any) -> None:
    """A BOM, a NaN in a field not read, choices past the first of another shape."""
    assert build_provider(wire, sites(wire, mode).config()).chat("m1", "s", "u") == CONDENSED


@pytest.mark.parametrize(("wire", "mode", "reason"), [
    ("ollama", "null_text", "malformed reply (no text)"),
    ("openai", "null_text", "malformed reply (no text)"),
    ("openai", "no_choices", "malformed reply (no choices[0].message.content)"),
])
def test_a_reply_without_its_text_says_where_it_is_missing(
        wire: str, mode: str, reason: str, sites: Any) -> None:
    with pytest.raises(ProviderError) as raised:
        build_provider(wire, sites(wire, mode).config()).chat("m1", "s", "u")
    assert str(raised.value) == reason


# --- the cascade --------------------------------------------------------------------------


@pytest.mark.parametrize("wire", WIRES)
def test_a_good_dedicated_model_condenses(wire: str, sites: Any) -> None:
    dedicated, bee = sites(wire, model="dedie"), sites(other(wire), model="abeille")
    condensed, fallbacks = cascade_of(dedicated, bee).ask_condense(item(1), ANSWER)
    assert (condensed.text, condensed.level) == (CONDENSED, level(dedicated))
    assert fallbacks == []
    assert bee.calls() == 0
    # Journal text travels inside delimited data blocks, the answer whole.
    user = dedicated.requests()[0]["body"]["messages"][1]["content"]
    assert '<donnees type="question">\nétape 1 : compose honey/page1.html\n</donnees>' in user
    assert f'<donnees type="reponse">\n{ANSWER}\n</donnees>' in user


@pytest.mark.parametrize("mode", CONDENSE_FAILURES)
@pytest.mark.parametrize("wire", WIRES)
def test_a_failing_dedicated_model_falls_back_to_the_bees_model(
        wire: str, mode: str, sites: Any) -> None:
    dedicated, bee = sites(wire, mode, "dedie"), sites(other(wire), model="abeille")
    condensed, fallbacks = cascade_of(dedicated, bee).ask_condense(item(1), ANSWER)
    assert (condensed.text, condensed.level) == (CONDENSED, level(bee))
    assert [f.level for f in fallbacks] == [level(dedicated)]
    expected = "over-long" if mode == "overlong" else FAILURES[mode]
    assert expected in fallbacks[0].reason.lower()


@pytest.mark.parametrize("mode", CONDENSE_FAILURES)
@pytest.mark.parametrize("wire", WIRES)
def test_both_models_failing_condense_by_truncation(wire: str, mode: str, sites: Any) -> None:
    dedicated, bee = sites(wire, mode, "dedie"), sites(other(wire), mode, "abeille")
    original = item(1)
    shown = item(1, answer="déjà tronqué")  # what the zone held: the cascade uses the original
    condensed, fallbacks = cascade_of(dedicated, bee).ask_condense(shown, original.answer)
    assert condensed.level == TRUNCATION
    assert condensed.text.startswith("J'ai écrit honey/page.html")
    assert condensed.text.endswith("…")
    assert len(condensed.text) == settings().ligne_max
    assert [f.level for f in fallbacks] == [level(dedicated), level(bee)]
    assert all(f.reason for f in fallbacks)


def test_the_bees_model_alone_is_the_cascade_with_resumeur_abeille(sites: Any) -> None:
    bee = sites("ollama", model="m1")
    condensed, _ = cascade_of(None, bee).ask_condense(item(1), ANSWER)
    assert condensed.level == "ollama/m1"


def recit_before() -> Recit:
    return Recit({"Fichiers": (Line(1, "honey/ancien.html (#1)"),)})


@pytest.mark.parametrize("wire", WIRES)
def test_a_good_fold_keeps_the_free_sections_and_ignores_mission_and_paroles(
        wire: str, sites: Any) -> None:
    dedicated = sites(wire, model="dedie")
    batch = [item(2, "condensé deux"), item(3, "condensé trois")]
    folded, fallbacks = cascade_of(dedicated, None).ask_fold(recit_before(), batch)
    assert fallbacks == []
    assert folded.level == level(dedicated)
    assert set(folded.recit.sections) == set(FREE_SECTIONS)
    for section in FREE_SECTIONS:
        [line] = folded.recit.lines_of(section)
        assert line.text == f"{section.lower()} selon le modèle"
    assert folded.recit.paroles == ()
    assert "inventée" not in repr(folded.recit)
    request = dedicated.requests()[0]["body"]["messages"]
    assert "récit de soi" in request[0]["content"]
    assert "honey/ancien.html (#1)" in request[1]["content"]
    assert '<donnees type="reponse_condensee">\ncondensé trois\n</donnees>' in request[1]["content"]


@pytest.mark.parametrize("mode", FOLD_FAILURES)
@pytest.mark.parametrize("wire", WIRES)
def test_a_fold_that_fails_falls_back_one_level_then_to_truncation(
        wire: str, mode: str, sites: Any) -> None:
    dedicated, bee = sites(wire, mode, "dedie"), sites(other(wire), model="abeille")
    batch = [item(2, "condensé deux")]
    folded, fallbacks = cascade_of(dedicated, bee).ask_fold(recit_before(), batch)
    assert folded.level == level(bee)
    assert [f.level for f in fallbacks] == [level(dedicated)]
    if mode in ("missing_sections", "overlong"):
        assert "malformed récit" in fallbacks[0].reason

    dedicated, bee = sites(wire, mode, "dedie"), sites(other(wire), mode, "abeille")
    folded, fallbacks = cascade_of(dedicated, bee).ask_fold(recit_before(), batch)
    assert folded.level == TRUNCATION
    assert [f.level for f in fallbacks] == [level(dedicated), level(bee)]
    # Truncation writes the sections from what it learnt of the folded entries (the
    # hand-made récit above taught it nothing).
    assert "honey/page2.html (#2)" in [line.text for line in folded.recit.lines_of("Fichiers")]


@dataclass
class LongRecitServer(ModelServer):
    """Replies with the seven sections in order, but far more than the récit's budget."""

    def reply_text(self, is_fold: bool) -> str:
        filler = "\n".join(f"- décision {n} longuement motivée" for n in range(200))
        return good_recit().replace("### Fichiers", filler + "\n### Fichiers")


def test_a_well_formed_recit_over_its_budget_falls_back() -> None:
    with serving(LongRecitServer("ollama", "m1")) as server:
        site = Site("ollama", "m1", "good", server, server.url)
        folded, fallbacks = cascade_of(site, None).ask_fold(recit_before(), [item(2)])
    assert folded.level == TRUNCATION
    assert "over-long récit" in fallbacks[0].reason


def test_parse_recit_wants_the_seven_headings_in_order_and_drops_mission_and_paroles() -> None:
    parsed = parse_recit(good_recit(), 7, 3000)
    assert set(parsed.sections) == set(FREE_SECTIONS)
    assert all(line.seq == 7 for lines in parsed.sections.values() for line in lines)
    assert "Mission" not in parsed.sections
    assert PAROLES not in parsed.sections
    swapped = good_recit().replace("### Fichiers", "### X").replace("### Erreurs", "### Fichiers")
    with pytest.raises(ValueError, match="malformed"):
        parse_recit(swapped.replace("### X", "### Erreurs"), 7, 3000)
    with pytest.raises(ValueError, match="malformed"):
        parse_recit("\n".join(f"### {s}" for s in SECTIONS[:-1]), 7, 3000)


# --- the circuit breaker ------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["refused", "slow"])
def test_a_dead_server_costs_one_call_per_cooldown(mode: str, sites: Any) -> None:
    dead = sites("ollama", mode)
    cascade = cascade_of(dead, None)
    reasons = []
    for seq in range(1, 11):
        condensed, fallbacks = cascade.ask_condense(item(seq), ANSWER)
        assert condensed.level == TRUNCATION
        reasons += [f.reason for f in fallbacks]
    assert len(reasons) == 10
    assert FAILURES[mode] in reasons[0].lower()
    assert all("circuit open" in reason for reason in reasons[1:])
    assert dead.calls() <= 1  # one timeout, not ten: a hung server saw one request


def test_the_breaker_skips_to_the_next_level_and_reopens_after_the_cooldown(
        sites: Any) -> None:
    dedicated = sites("openai", "http500", "dedie", fresh=True)
    bee = sites("ollama", model="abeille")
    config = GlobalConfig(providers={"openai": dedicated.config(), "ollama": bee.config()})
    registry = Providers(config)  # the default cool-down: no loaded machine outlasts it
    cascade = cascade_of(dedicated, bee, registry=registry)
    for seq in range(1, 6):
        assert cascade.ask_condense(item(seq), ANSWER)[0].level == "ollama/abeille"
    assert dedicated.calls() == 1
    assert bee.calls() == 5
    # Another bee sharing the providers sees the same open circuit.
    neighbour = cascade_of(dedicated, bee, registry=registry)
    assert neighbour.ask_condense(item(6), ANSWER)[0].level == "ollama/abeille"
    assert dedicated.calls() == 1
    # After the cool-down the model is tried again; a success closes the breaker.
    assert dedicated.server is not None
    dedicated.server.mode = "good"
    [tripped] = [breaker for breaker in registry.breakers.values() if breaker.is_open()]
    assert tripped.open_until - time.monotonic() > tripped.cooldown_s / 2  # tripped just now
    tripped.open_until = time.monotonic()  # the cool-down has passed
    for seq in range(7, 10):
        assert cascade.ask_condense(item(seq), ANSWER)[0].level == "openai/dedie"
    assert dedicated.calls() == 4


# --- the API key never shows --------------------------------------------------------------


@pytest.mark.parametrize("mode", [*FAILURES, "overlong", "missing_sections", "good"])
def test_the_api_key_appears_in_no_reason(mode: str, sites: Any) -> None:
    site = sites("openai", mode)
    cascade = cascade_of(site, None)
    said: list[str] = []
    condensed, fallbacks = cascade.ask_condense(item(1), ANSWER)
    said += [condensed.text, *(f"{f.level} {f.reason}" for f in fallbacks)]
    folded, fallbacks = cascade.ask_fold(recit_before(), [item(2)])
    said += [repr(folded), *(f"{f.level} {f.reason}" for f in fallbacks)]
    assert said
    assert not [text for text in said if KEY in text]
    if site.server is not None and mode != "slow":
        assert site.requests()  # the key was really sent
        assert site.requests()[0]["headers"]["Authorization"] == f"Bearer {KEY}"


def test_credentials_in_a_provider_url_stay_out_of_the_reasons() -> None:
    url = refused_url().replace("http://", "http://user:hunter2-secret@")
    config = GlobalConfig(providers={"ollama": ProviderConfig(url=url, timeout_s=TIMEOUT_S)})
    registry = Providers(config)
    horizon = settings(resumeur="ollama/m1")
    cascade = Cascade(registry.levels_for(with_levels(config, Effective(horizon, {}, None, None))),
                      registry.breakers, horizon, None)
    _, fallbacks = cascade.ask_condense(item(1), ANSWER)
    assert fallbacks
    assert not [f for f in fallbacks if "hunter2" in f.reason]


# --- the cache ----------------------------------------------------------------------------


def test_the_cache_answers_the_same_exchange_without_a_call(tmp_path: Path, sites: Any) -> None:
    site = sites("ollama")
    cache = SummaryCache(tmp_path / "summaries.sqlite")
    try:
        cascade = cascade_of(site, None, cache=cache)
        first, _ = cascade.ask_condense(item(1), ANSWER)
        rebuilt = msgspec.structs.replace(item(1), seq=99, answer="autre texte tronqué")
        again, _ = cascade.ask_condense(rebuilt, ANSWER)
        # Same content hash as #1 (a rebuild, a restart): no second call.
        assert (again.text, again.level) == (first.text, first.level) == (CONDENSED, "ollama/m1")
        assert site.calls() == 1
        hot = CachedSummarizer(["ollama/m1"], settings(), cache)
        assert hot.condense(item(1)).level == "ollama/m1"
        assert hot.condense(item(2)).level == TRUNCATION  # never asked: truncation, no call
        batch = [item(3, "condensé")]
        folded, _ = cascade.ask_fold(recit_before(), batch)
        assert hot.fold(recit_before(), batch).level == folded.level == "ollama/m1"
        assert site.calls() == 2
    finally:
        cache.close()


def test_a_new_prompt_version_does_not_reuse_old_texts(
        tmp_path: Path, sites: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    site = sites("ollama")
    cache = SummaryCache(tmp_path / "summaries.sqlite")
    try:
        cascade_of(site, None, cache=cache).ask_condense(item(1), ANSWER)
        monkeypatch.setattr("horizon.summarize.keys.PROMPT_VERSION", "next")
        hot = CachedSummarizer(["ollama/m1"], settings(), cache)
        assert hot.condense(item(1)).level == TRUNCATION
        cascade_of(site, None, cache=cache).ask_condense(item(1), ANSWER)
        assert site.calls() == 2
    finally:
        cache.close()


# --- settings that gate the network ------------------------------------------------------


def write_json(path: Path, document: dict[str, Any]) -> Path:
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


@pytest.mark.parametrize("url", ["http://10.0.0.7:11434", "https://api.openai.com",
                                 "http://localhost.example.com:8080"])
@pytest.mark.parametrize("wire", WIRES)
def test_a_provider_off_the_loopback_needs_allow_remote(
        tmp_path: Path, wire: str, url: str) -> None:
    path = write_json(tmp_path / "config.json", {"providers": {wire: {"url": url}}})
    with pytest.raises(SettingsError) as refused:
        load_global(path)
    assert refused.value.key == f"providers.{wire}.url"
    assert refused.value.source == str(path)
    assert "allow_remote" in refused.value.reason
    write_json(path, {"providers": {wire: {"url": url, "allow_remote": True}}})
    assert load_global(path).providers[wire].url == url  # type: ignore[index]


@pytest.mark.parametrize("url", ["http://127.0.0.1:11434", "http://localhost:8080/v1",
                                 "http://[::1]:11434", "http://127.3.2.1:9"])
def test_loopback_providers_load_without_allow_remote(tmp_path: Path, url: str) -> None:
    path = write_json(tmp_path / "config.json", {"providers": {"ollama": {"url": url}}})
    assert load_global(path).providers["ollama"].url == url


BEE = "mia"


def journal(hive: Path, count: int) -> None:
    window = hive / "window"
    window.mkdir(parents=True)
    lines = [json.dumps({"ts": 1_780_000_000 + n, "type": "task", "tool": "editor",
                         "question": f"étape {n} : compose honey/page{n}.html",
                         "answer": f"étape {n} : " + ANSWER}) for n in range(1, count + 1)]
    (window / f"{BEE}-messages.jsonl").write_text("".join(f"{line}\n" for line in lines),
                                                  encoding="utf-8")


@pytest.mark.parametrize(("provider", "resumeur", "modele", "calls"), [
    ({}, "abeille", "ollama/m1", True),  # the control: the same pass does reach the model
    ({}, "troncature", "ollama/m1", False),
    ({"actif": False}, "abeille", "ollama/m1", False),
    ({"actif": False}, "ollama/m1", None, False),
    ({}, "abeille", None, False),
    ({}, "abeille", "openai/m1", False),  # a provider that is not configured
])
def test_no_model_configured_means_no_call_at_all(
        tmp_path: Path, sites: Any, provider: dict[str, Any], resumeur: str,
        modele: str | None, calls: bool) -> None:
    site = sites("ollama")
    hive = tmp_path / "hive"
    journal(hive, 20)
    config = GlobalConfig(providers={"ollama": site.config(**provider)})
    effective = with_levels(config, Effective(settings(resumeur=resumeur), {}, None, modele))
    posted: list[ModelDone] = []
    work = ModelWork(config, posted.append)
    try:
        outcome = run_pass(PassRequest(hive, BEE, config, effective, 1_780_000_100.0, None,
                           cache=work.cache(hive)))
        assert outcome.changes.evicted  # evictions and folds did happen
        assert outcome.changes.folds
        work.submit(hive, BEE, effective, outcome.state, outcome.changes.to_condense,
                    InFlight(), outcome.manifest)
        work.drain()
    finally:
        work.stop()
    assert bool(site.calls()) is calls
    assert bool(posted) is calls
    if not calls:
        assert outcome.changes.to_condense == []
        assert outcome.state.folds.batches == []
