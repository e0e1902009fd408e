"""`horizon serve` as a real server on the loopback: its pages, its headers, what it
refuses (other hosts, other origins, big bodies, bad seqs), hostile text escaped, the live
stream telling a page its handoff.md changed, and its exits."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.e2e.daemon_harness import (
    Serve,
    append,
    entry,
    horizon,
    make_hive,
    wait_for,
    write_config,
)

BEE = "b"
HOSTILE = ['<script>window.__pwned=1</script>', '"><img src=x onerror=alert(2)>',
           "' onmouseover='alert(3)"]


def tree(hive: Path) -> dict[str, tuple[int, int]]:
    found = {}
    for folder, _, names in os.walk(hive):
        for name in names:
            info = os.stat(os.path.join(folder, name), follow_symlinks=False)
            found[os.path.join(folder, name)] = (info.st_size, info.st_mtime_ns)
    return found


@pytest.fixture
def hive_config(tmp_path: Path) -> tuple[Path, Path]:
    lines = [entry(f"question {i}", f"answer {i} " + "a" * 200) for i in range(30)]
    lines += [entry(text, text, tool=text, **{"from": text}) for text in HOSTILE]
    hive = make_hive(tmp_path, lines)
    config = write_config(tmp_path, hive, horizon={"budget_net": 2000})
    assert horizon(config, "rebuild", hive).returncode == 0
    return hive, config


@pytest.fixture
def server(hive_config: tuple[Path, Path]) -> Iterator[Serve]:
    running = Serve(hive_config[1]).started()
    yield running
    running.stop()


def test_every_page_answers_with_the_security_headers(server: Serve) -> None:
    for path in ("/", "/hive/0", f"/hive/0/bee/{BEE}", f"/hive/0/bee/{BEE}/live",
                 f"/hive/0/bee/{BEE}/entry/3", "/static/horizon.js", "/static/horizon.css",
                 "/nowhere", "/hive/7", f"/hive/0/bee/{BEE}/entry/999"):
        response = server.get(path)
        csp = response.headers["content-security-policy"]
        assert "script-src 'self'" in csp and "unsafe-inline" not in csp, path
        assert response.headers["x-content-type-options"] == "nosniff"
        assert response.headers["x-frame-options"] == "DENY"
    assert server.get("/nowhere").status_code == 404
    assert "no hive number 7" in server.get("/hive/7").text
    missing = server.get(f"/hive/0/bee/{BEE}/entry/999")
    assert missing.status_code == 404 and "999" in missing.text
    assert server.get("/hive/0/bee/nobody").status_code == 404
    assert server.get("/hive/0/bee/nobody/events").status_code == 404
    assert server.get(f"/hive/9/bee/{BEE}/events").status_code == 404


def test_hostile_text_reaches_the_page_only_escaped(server: Serve) -> None:
    pages = [server.get(f"/hive/0/bee/{BEE}").text]
    pages += [server.get(f"/hive/0/bee/{BEE}/entry/{seq}").text for seq in (31, 32, 33)]
    for page in pages:
        assert "<script>window" not in page
        assert "<img src=x" not in page and "onerror=alert(2)>" not in page
        assert page.count("<script") == 1  # the page's own file, nothing else
    entry_page = pages[1]
    assert "&lt;script&gt;window.__pwned=1&lt;/script&gt;" in entry_page


def test_other_hosts_origins_and_big_bodies_are_refused(server: Serve) -> None:
    assert server.get("/", headers={"Host": "rebound.example"}).status_code == 400
    assert server.get("/", headers={"Host": f"localhost:{server.port}"}).status_code == 200
    preview = f"{server.url}/hive/0/bee/{BEE}/preview"
    foreign = httpx.post(preview, data={"budget_net": "3000"},
                         headers={"Origin": "http://elsewhere.example"}, timeout=10)
    assert foreign.status_code == 403
    big = httpx.post(preview, content=b"budget_net=" + b"9" * 100_000,
                     headers={"Origin": server.url,
                              "Content-Type": "application/x-www-form-urlencoded"},
                     timeout=10)
    assert big.status_code == 413
    bad = httpx.post(preview, data={"budget_net": "-5"}, headers={"Origin": server.url},
                     timeout=10)
    assert bad.status_code == 400 and "horizon.budget_net" in bad.json()["error"]
    redirect = server.get(f"/hive/0/bee/{BEE}/entry?seq=%233")
    assert redirect.status_code == 303
    assert redirect.headers["location"] == f"/hive/0/bee/{BEE}/entry/3"
    assert server.get(f"/hive/0/bee/{BEE}/entry?seq=x").status_code == 400
    assert server.get(f"/hive/0/bee/{BEE}/entry/3?offset=-1").status_code == 404


def test_a_preview_runs_to_its_view_through_http(server: Serve) -> None:
    origin = {"Origin": server.url}
    asked = httpx.post(f"{server.url}/hive/0/bee/{BEE}/preview", headers=origin,
                       data={"budget_net": "1500", "langue": "en"}, timeout=10)
    assert asked.status_code == 202
    job = asked.json()["id"]

    def done() -> dict[str, object] | None:
        report = server.get(f"/preview/{job}").json()
        return report if report["state"] == "done" else None

    report = wait_for(done, "the preview to finish")
    assert report["done"] == report["total"] == 33
    assert 'data-zone="net"' in str(report["html"]) and 'data-budget="1500"' in str(
        report["html"])
    assert "&lt;script&gt;" in str(report["html"]) and "<script>" not in str(report["html"])
    assert server.get("/preview/nope").status_code == 404


def test_the_live_stream_says_when_handoff_md_is_replaced(
        server: Serve, hive_config: tuple[Path, Path]) -> None:
    hive, config = hive_config
    with httpx.stream("GET", f"{server.url}/hive/0/bee/{BEE}/events", timeout=30) as events:
        assert events.headers["content-type"].startswith("text/event-stream")
        lines = events.iter_lines()
        assert next(lines).startswith("retry:")
        append(hive, entry("one more", "and its answer"))
        assert horizon(config, "rebuild", hive).returncode == 0
        seen = []
        for line in lines:
            seen.append(line)
            if line == "event: changed":
                break
        assert "event: changed" in seen
    live = server.get(f"/hive/0/bee/{BEE}/live").text
    assert 'data-up-to="34"' in live


def test_serving_nothing_or_off_the_loopback_is_refused(tmp_path: Path,
                                                        hive_config: tuple[Path, Path]) -> None:
    _, config = hive_config
    remote = horizon(config, "serve", "--listen", "0.0.0.0:8765")
    assert remote.returncode == 1 and "--allow-remote" in remote.stderr
    bad = horizon(config, "serve", "--listen", "nowhere")
    assert bad.returncode == 1 and "host:port" in bad.stderr
    empty = tmp_path / "empty.json"
    empty.write_text(json.dumps({"hives": []}), encoding="utf-8")
    nothing = horizon(empty, "serve")
    assert nothing.returncode == 1 and "no hive to serve" in nothing.stderr
    for result in (remote, bad, nothing):
        assert "Traceback" not in result.stderr


def test_a_taken_port_is_said_and_sigterm_stops_cleanly(
        server: Serve, hive_config: tuple[Path, Path]) -> None:
    taken = horizon(hive_config[1], "serve", "--listen", f"127.0.0.1:{server.port}")
    assert taken.returncode == 1 and "Traceback" not in taken.stderr
    assert "cannot listen" in taken.stderr
    assert server.stop() == 0, server.read_output()


def test_a_broken_settings_file_is_named_and_the_page_still_serves(
        tmp_path: Path, hive_config: tuple[Path, Path]) -> None:
    hive, config = hive_config
    (hive / "bees").mkdir(exist_ok=True)
    (hive / "bees" / f"{BEE}.toml").write_text("[horizon]\nbudget_net = 'lots'\n",
                                               encoding="utf-8")
    before = tree(hive)
    running = Serve(config).started()
    try:
        page = running.get(f"/hive/0/bee/{BEE}")
        assert page.status_code == 200
        assert "budget_net" in page.text and "question 29" in page.text
        assert 'class="bee degraded"' in running.get("/hive/0").text
        origin = {"Origin": running.url}
        asked = httpx.post(f"{running.url}/hive/0/bee/{BEE}/preview", headers=origin,
                           data={"budget_net": "1500"}, timeout=10).json()
        wait_for(lambda: running.get(f"/preview/{asked['id']}").json()["state"] == "done",
                 "the preview to finish")
    finally:
        running.stop()
    assert tree(hive) == before  # pages, the stream and a preview wrote nothing


def test_bidi_and_control_characters_never_reach_a_page_raw(tmp_path: Path) -> None:
    metadata = {"from": "ap\u200fi", "id": "i\u202ed"}
    hive = make_hive(tmp_path, [entry("q\u202eq", "a\u2066a", kind="t\u202ey\x1bpe",
                                      tool="to\u202eol\nx", **metadata)])
    config = write_config(tmp_path, hive)
    assert horizon(config, "rebuild", hive).returncode == 0
    (hive / "bees").mkdir()
    # TOML's own escapes: the key holds a bidi override and an ESC once read.
    (hive / "bees" / f"{BEE}.toml").write_text('[horizon]\n"k\\u202ey\\u001b[2J" = 1\n',
                                               encoding="utf-8")
    running = Serve(config).started()
    try:
        pages = {path: running.get(path).text for path in
                 ("/hive/0", f"/hive/0/bee/{BEE}", f"/hive/0/bee/{BEE}/entry/1",
                  f"/hive/0/bee/{BEE}/live", f"/hive/0/bee/{BEE}/entry/9")}
    finally:
        running.stop()
    for path, page in pages.items():
        for char in ("\u202e", "\u2066", "\u200f", "\x1b"):
            assert char not in page, (path, repr(char))
    assert "\\u202e" in pages["/hive/0"]  # the rejected key, named with its escape
    assert "tool" in pages[f"/hive/0/bee/{BEE}/entry/1"]


def test_a_degraded_hive_has_its_health_and_a_banner_each_reason_once(
        tmp_path: Path) -> None:
    """A daemon serves the hive (a real HiveService holds its lock and beats) while two
    bees share a rejected horizon.toml: the home page says degraded, not "problems 0",
    and the hive page's banner gives the rejection once."""
    from horizon.hive.settings_files import load_global
    from horizon.service.hive_service import HiveService

    hive = make_hive(tmp_path, [entry("q")], bee="a")
    append(hive, entry("q"), bee="c")
    config = write_config(tmp_path, hive)
    service = HiveService(hive, load_global(config), str(config))
    try:
        service.refresh_bees()
        (hive / "horizon.toml").write_text("[horizon]\nbudget_net = 'lots'\n")
        service.health.heartbeat()
        running = Serve(config).started()
        try:
            home = running.get("/").text
            assert 'data-health="degraded"' in home and "problems" not in home
            assert home.count('class="banner degraded-hive"') == 1
            page = running.get("/hive/0").text
            assert 'id="health"' in page
            assert page.count("settings rejected:") == 1, page
            assert page.count("horizon.toml") >= 1
        finally:
            running.stop()
    finally:
        service.close()


def test_a_handoff_mode_bee_shows_its_turns(tmp_path: Path) -> None:
    hive = make_hive(tmp_path, [entry("what is the plan", "ship on friday", **{"from": "ana"})])
    config = write_config(tmp_path, hive, horizon={"actif": False})
    assert horizon(config, "rebuild", hive).returncode == 0
    running = Serve(config).started()
    try:
        page = running.get(f"/hive/0/bee/{BEE}").text
    finally:
        running.stop()
    assert 'class="turns-table"' in page and "entries-table" not in page
    assert "<td>ana</td><td>what is the plan</td>" in page
    assert f"<td>{BEE}</td><td>ship on friday</td>" in page


def test_an_entry_page_shows_its_time_and_a_rejected_line_its_bytes_escaped(
        tmp_path: Path) -> None:
    hostile = '{"ts": 1, "type": "task", "question": "\u202e<script>x</script>"'  # torn
    hive = make_hive(tmp_path, [entry("q", "a", tool="bash", **{"from": "ana"}),
                                hostile + " " + "z" * 5000])
    config = write_config(tmp_path, hive)
    running = Serve(config).started()
    try:
        first = running.get(f"/hive/0/bee/{BEE}/entry/1").text
        rejected = running.get(f"/hive/0/bee/{BEE}/entry/2").text
    finally:
        running.stop()
    assert '<dd class="ts">' in first and 'class="tool">bash' in first
    assert 'class="from">ana' in first
    assert "was rejected (bad_json" in rejected and '<pre class="raw">' in rejected
    assert "\\u202e" in rejected and "\u202e" not in rejected
    assert "<script>x" not in rejected and "&lt;script&gt;x" in rejected
    assert "more bytes)" in rejected and rejected.count("z") < 4500


def test_a_wildcard_address_serves_only_the_host_names_listed(
        hive_config: tuple[Path, Path]) -> None:
    """--allow-remote on 0.0.0.0 once accepted any Host header, which reopens DNS
    rebinding: the names the page is reached by must be listed."""
    import subprocess

    from tests.e2e.daemon_harness import HORIZON, clean_env, free_port

    _, config = hive_config
    port = free_port()
    unlisted = horizon(config, "serve", "--listen", f"0.0.0.0:{port}", "--allow-remote")
    assert unlisted.returncode == 1 and "--allow-host" in unlisted.stderr
    process = subprocess.Popen(
        [HORIZON, "serve", "--config", str(config), "--listen", f"0.0.0.0:{port}",
         "--allow-remote", "--allow-host", "hive.example"],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        env=clean_env())
    try:
        def answered(host: str) -> int | None:
            try:
                return httpx.get(f"http://127.0.0.1:{port}/", headers={"Host": host},
                                 timeout=5).status_code
            except httpx.HTTPError:
                return None

        assert wait_for(lambda: answered("hive.example"), "the listed name") == 200
        assert answered("rebound.example") == 400
        assert answered(f"127.0.0.1:{port}") == 200
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_a_bee_with_nothing_derived_is_replayed_once_per_history(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Its page computes the view from the whole history: once, then again only when the
    journal or the settings change, never once per request."""
    from horizon.cli.web import pages
    from horizon.engine.bee_engine import BeeEngine
    from horizon.hive.settings_files import load_global

    hive = make_hive(tmp_path, [entry(f"q{n}") for n in range(20)])
    config = write_config(tmp_path, hive)
    site = pages.Site(load_global(config), str(config), None, (hive,))
    replays = []
    real = BeeEngine.current_view
    monkeypatch.setattr(BeeEngine, "current_view",
                        lambda self, *args, **kwargs: replays.append(1) or real(
                            self, *args, **kwargs))
    first = pages.bee_page(site, 0, BEE)
    for _ in range(5):
        assert pages.bee_page(site, 0, BEE).text == first.text
    assert len(replays) == 1
    append(hive, entry("q20"))
    assert "q20" in pages.bee_page(site, 0, BEE).text
    assert len(replays) == 2
