"""The web view in a real browser: headless Chromium against `horizon serve` on a real hive
that a real daemon derives. Each test reads what a person would see (the pages, the bars,
the preview's progress, the live refresh) and the console; hostile entry text must stay
text. Screenshots of every page land in test-artifacts/web/.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webelement import WebElement

from tests.e2e.browser import (
    chromium,
    console_errors,
    screenshot,
    zone_text,
    zones,
)
from tests.e2e.daemon_harness import (
    BEE,
    Serve,
    Start,
    append,
    entry,
    horizon,
    make_hive,
    wait_for,
    wait_for_up_to,
    write_config,
)

OTHER = "nova"
CLASSIC = "noe"  # a bee in handoff mode: one bar, the view against its cap
Serving = Callable[[Path], Serve]


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[WebDriver]:
    driver = chromium(tmp_path / "chromium-profile")
    yield driver
    driver.quit()


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Serving]:
    """Start `horizon serve` on a config.json; each must stop on SIGTERM with exit 0."""
    servers: list[Serve] = []

    def starter(config: Path) -> Serve:
        server = Serve(config)
        servers.append(server)
        return server.started()

    yield starter
    for server in servers:
        code = server.stop()
        assert code == 0, f"horizon serve exited with {code}: {server.read_output()}"


def work(count: int, start: int = 0, answer: str = "done: the checks pass") -> list[str]:
    return [entry(f"step {number}: run the checks", f"{answer} ({number})", kind="tool",
                  tool="pytest") for number in range(start, start + count)]


def visit(driver: WebDriver, url: str, ready: str) -> WebElement:
    """Load `url` and wait for the CSS selector `ready`; the console must stay clean."""
    driver.get(url)
    found = wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, ready), f"{ready} at {url}")
    assert console_errors(driver) == [], url
    return found[0]


def wait_live(driver: WebDriver) -> None:
    """Until the page's event stream is open (a change before it would go unseen)."""
    wait_for(lambda: driver.find_element(By.ID, "live-state").text == "on", "live: on")


def status_bees(config: Path, hive: Path) -> dict[str, dict[str, Any]]:
    """`horizon status HIVE --json`: each bee's report by name."""
    result = horizon(config, "status", hive, "--json")
    assert result.returncode == 0, result.stderr
    [report] = json.loads(result.stdout)["hives"]
    return {bee["bee"]: bee for bee in report["bees"]}


def assert_bars(shown: list[dict[str, Any]], expected: dict[str, dict[str, int]]) -> None:
    assert {bar["zone"] for bar in shown} == set(expected)
    assert len(shown) == len(expected)
    for bar in shown:
        want = expected[bar["zone"]]
        assert {key: bar[key] for key in ("before", "after", "budget")} == want, bar["zone"]
        assert bar["text"] == zone_text(want["before"], want["after"], want["budget"])


def files_under(folder: Path) -> dict[str, tuple[int, int]]:
    """Every file and folder under `folder`: (size, mtime_ns) by relative path."""
    found = {}
    for where, folders, files in os.walk(folder):
        for name in folders + files:
            path = Path(where) / name
            info = path.lstat()
            found[str(path.relative_to(folder))] = (info.st_size, info.st_mtime_ns)
    return found


def test_every_page_loads_clean(tmp_path: Path, start: Start, serve: Serving,
                                browser: WebDriver) -> None:
    hive = make_hive(tmp_path, work(30), bee_toml="[horizon]\nbudget_net = 2000\n")
    make_hive(tmp_path, work(5), bee=OTHER, bee_toml="[horizon]\nactif = false\n")
    config = write_config(tmp_path, hive)
    start(config)
    wait_for_up_to(hive, 30)
    wait_for_up_to(hive, 5, OTHER)
    server = serve(config)

    visit(browser, server.url + "/", "a.hive-link").click()
    wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, f'tr.bee[data-bee="{BEE}"]'),
             "the hive page")
    assert console_errors(browser) == []
    assert {row.get_attribute("data-bee") for row in
            browser.find_elements(By.CSS_SELECTOR, "tr.bee")} == {BEE, OTHER}
    screenshot(browser, "pages-hive")
    browser.find_element(By.CSS_SELECTOR, f'tr.bee[data-bee="{BEE}"] a.bee-link').click()
    wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, "#live tr.entry[data-seq]"),
             "the bee page's entries")
    wait_live(browser)
    assert console_errors(browser) == []
    screenshot(browser, "pages-bee")
    visit(browser, f"{server.url}/hive/0/bee/{OTHER}", "#live .zone[data-zone=handoff]")
    screenshot(browser, "pages-bee-handoff")
    visit(browser, f"{server.url}/hive/0/bee/{BEE}/entry/7", "pre.answer")
    screenshot(browser, "pages-entry")
    assert browser.execute_script("return document.readyState") == "complete"
    assert console_errors(browser) == []


def test_the_bars_are_what_status_says(tmp_path: Path, start: Start, serve: Serving,
                                       browser: WebDriver) -> None:
    hive = make_hive(tmp_path, work(40, answer="collected 212 items; all passed " * 4),
                     bee_toml="[horizon]\nbudget_net = 2500\nbudget_condense = 1500\n")
    make_hive(tmp_path, work(12), bee=OTHER,
              bee_toml="[horizon]\nbudget_net = 1200\nbudget_condense = 900\n"
                       "budget_recit = 800\n")
    make_hive(tmp_path, work(25), bee=CLASSIC,
              bee_toml="[horizon]\nactif = false\nhandoff_max = 1800\n")
    config = write_config(tmp_path, hive)
    start(config)
    wait_for_up_to(hive, 40)
    wait_for_up_to(hive, 12, OTHER)
    wait_for_up_to(hive, 25, CLASSIC)
    reports = status_bees(config, hive)
    classic = reports[CLASSIC]
    assert "zones" not in classic
    expected = {BEE: reports[BEE]["zones"], OTHER: reports[OTHER]["zones"], CLASSIC: {
        "handoff": {"before": classic["chars"], "after": classic["chars"],
                    "budget": classic["cap"]}}}
    server = serve(config)

    visit(browser, f"{server.url}/hive/0", "tr.bee")
    for bee, bars in expected.items():
        assert_bars(zones(browser, f'tr.bee[data-bee="{bee}"]'), bars)
    screenshot(browser, "bars-hive")
    for bee, bars in expected.items():
        visit(browser, f"{server.url}/hive/0/bee/{bee}", "#live .zone")
        assert_bars(zones(browser, "#live"), bars)
        counts = browser.find_element(By.CSS_SELECTOR, "#live .counts")
        assert counts.find_element(By.CLASS_NAME, "chars").text == str(reports[bee]["chars"])
        screenshot(browser, f"bars-bee-{bee}")
    assert reports == status_bees(config, hive)  # nothing moved while the pages were read


def run_preview(driver: WebDriver) -> WebElement:
    """Click Preview; the progress line once done and the view shown. A cached job says
    done before its view arrives, and the last run's state is still there: the wait is for
    a view put in the result the test emptied before clicking."""
    driver.execute_script("document.getElementById('preview-result').replaceChildren();")
    driver.find_element(By.ID, "preview-run").click()
    wait_for(lambda: driver.execute_script(
        "return document.getElementById('preview-progress').dataset.state === 'done'"
        " && document.querySelector('#preview-result pre.view-text') !== null;"),
        "the preview done and shown", every=0.1)
    return driver.find_element(By.ID, "preview-progress")


def choose(driver: WebDriver, name: str, value: str) -> None:
    field = driver.find_element(By.CSS_SELECTOR, f'#preview [name="{name}"]')
    if field.tag_name == "select":
        field.find_element(By.CSS_SELECTOR, f'option[value="{value}"]').click()
    else:
        field.clear()
        field.send_keys(value)


def test_the_preview_shows_other_settings_and_writes_nothing(
        tmp_path: Path, start: Start, serve: Serving, browser: WebDriver) -> None:
    hive = make_hive(tmp_path, work(50), bee_toml='[horizon]\nlangue = "fr"\n')
    config = write_config(tmp_path, hive)
    daemon = start(config)
    wait_for_up_to(hive, 50)
    # Stopped: whatever changes under the hive from now on, the web view wrote it.
    assert daemon.stop() == 0
    before = files_under(hive)
    server = serve(config)

    visit(browser, f"{server.url}/hive/0/bee/{BEE}", "#preview-run")
    view_before = browser.find_element(By.CSS_SELECTOR, "#live pre.view-text").text
    assert "Réponse" in view_before
    choose(browser, "budget_net", "1500")
    choose(browser, "langue", "en")
    choose(browser, "plancher_phare", "net")
    progress = run_preview(browser)
    assert "(cached)" not in progress.text
    assert "50 entries replayed" in progress.text
    result = browser.find_element(By.ID, "preview-result")
    net = result.find_element(By.CSS_SELECTOR, ".zone[data-zone=net]")
    assert net.get_attribute("data-budget") == "1500"
    assert int(net.get_attribute("data-after") or 0) <= 1500
    text = result.find_element(By.CSS_SELECTOR, "pre.view-text").text
    assert "\nAnswer:" in text or "\nCondensed answer:" in text
    assert "Réponse" not in text
    assert "Question :" not in text
    assert browser.find_element(By.CSS_SELECTOR, "#live pre.view-text").text == view_before
    assert console_errors(browser) == []
    screenshot(browser, "preview-done", at="#preview-section")

    progress = run_preview(browser)
    assert "(cached)" in progress.text
    assert result.find_element(By.CSS_SELECTOR, ".zone[data-zone=net]").get_attribute(
        "data-budget") == "1500"
    screenshot(browser, "preview-cached", at="#preview-section")
    assert console_errors(browser) == []
    assert server.stop() == 0
    assert files_under(hive) == before


def test_a_long_preview_can_be_cancelled(tmp_path: Path, start: Start, serve: Serving,
                                         browser: WebDriver) -> None:
    # About 12 MB of history: the replay reads it 1 MiB at a time and looks for a cancel
    # between slices, so it is far from over when the click reaches the server.
    big = "collected 212 items; 212 passed; coverage 91%. " * 80
    hive = make_hive(tmp_path, work(3000, answer=big))
    config = write_config(tmp_path, hive)
    start(config)
    wait_for_up_to(hive, 3000, timeout=60)
    server = serve(config)

    visit(browser, f"{server.url}/hive/0/bee/{BEE}", "#preview-run")
    # On a loaded machine the replay can end before the click reaches the server: then it
    # is done, not cancelled, and the next try (another budget: not cached) cancels it.
    cancel = browser.find_element(By.ID, "preview-cancel")
    progress = browser.find_element(By.ID, "preview-progress")
    for budget in ("3000", "3100", "3200", "3300", "3400"):
        choose(browser, "budget_net", budget)
        browser.find_element(By.ID, "preview-run").click()
        wait_for(cancel.is_enabled, "the cancel button enabled")
        cancel.click()
        state = wait_for(lambda: progress.get_attribute("data-state") not in
                         ("idle", "queued", "running") and progress.get_attribute("data-state"),
                         "the preview to stop", every=0.1)
        assert state in ("cancelled", "done"), progress.text
        if state == "cancelled":
            break
    assert state == "cancelled", "the replay always ended before its cancel"
    assert browser.find_element(By.ID, "preview-result").text == ""
    assert browser.find_element(By.ID, "preview-run").is_enabled()
    assert not cancel.is_enabled()
    assert console_errors(browser) == []
    screenshot(browser, "preview-cancelled", at="#preview-section")


def test_an_entry_opens_by_its_seq(tmp_path: Path, start: Start, serve: Serving,
                                   browser: WebDriver) -> None:
    lines = [entry(f"question number {number}", f"the answer to {number}\nsecond line",
                   kind="tool", tool="grep") for number in range(1, 21)]
    hive = make_hive(tmp_path, lines)
    config = write_config(tmp_path, hive)
    start(config)
    wait_for_up_to(hive, 20)
    server = serve(config)

    visit(browser, f"{server.url}/hive/0/bee/{BEE}", "#live tr.entry[data-seq]")
    seqs = [int(row.get_attribute("data-seq") or 0)
            for row in browser.find_elements(By.CSS_SELECTOR, "#live tr.entry[data-seq]")]
    seq = seqs[-1]
    browser.find_element(By.CSS_SELECTOR,
                         f'#live tr.entry[data-seq="{seq}"] a.seq-link').click()
    wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, "pre.answer"), "the entry page")
    assert browser.current_url == f"{server.url}/hive/0/bee/{BEE}/entry/{seq}"
    assert browser.find_element(By.CSS_SELECTOR, "pre.question").text == \
        f"question number {seq}"
    assert browser.find_element(By.CSS_SELECTOR, "pre.answer").text == \
        f"the answer to {seq}\nsecond line"
    assert browser.find_element(By.CSS_SELECTOR, "dd.tool").text == "grep"
    assert console_errors(browser) == []
    screenshot(browser, "entry-by-link")

    browser.back()
    field = wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, "#open-seq #seq-input"),
                     "the seq field")[0]
    field.send_keys("3")
    browser.find_element(By.CSS_SELECTOR, "#open-seq button[type=submit]").click()
    wait_for(lambda: browser.current_url.endswith(f"/bee/{BEE}/entry/3"), "entry #3 opened")
    wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, "pre.question"), "entry #3")
    assert browser.find_element(By.CSS_SELECTOR, "pre.question").text == "question number 3"
    assert browser.find_element(By.CSS_SELECTOR, "dl.entry-meta").get_attribute(
        "data-seq") == "3"
    assert console_errors(browser) == []
    screenshot(browser, "entry-by-seq")


def test_a_bee_page_refreshes_when_its_view_changes(tmp_path: Path, start: Start,
                                                    serve: Serving, browser: WebDriver) -> None:
    hive = make_hive(tmp_path, work(10))
    config = write_config(tmp_path, hive)
    start(config)
    wait_for_up_to(hive, 10)
    server = serve(config)

    live = visit(browser, f"{server.url}/hive/0/bee/{BEE}", "#live")
    assert live.get_attribute("data-up-to") == "10"
    wait_live(browser)
    browser.execute_script("window.__sameDocument = 'kept';")
    append(hive, entry("the new question", "the new answer", kind="tool", tool="make"))

    def refreshed() -> bool:
        # One script: #live is replaced under the test's feet, a held element goes stale.
        count, up_to = browser.execute_script(
            "return [document.body.dataset.refreshes,"
            " document.getElementById('live').dataset.upTo];")
        return int(count or 0) >= 1 and int(up_to or 0) > 10

    wait_for(refreshed, "the page refreshed past #10", every=0.1)
    assert browser.execute_script("return window.__sameDocument") == "kept"
    assert browser.find_element(By.CSS_SELECTOR, '#live tr.entry[data-seq="11"]')
    assert "the new answer" in browser.find_element(By.CSS_SELECTOR,
                                                    "#live pre.view-text").text
    assert int(browser.find_element(By.ID, "refreshes").text) >= 1
    assert console_errors(browser) == []
    screenshot(browser, "live-refreshed")
    # Stopped with the page still open: its event stream must not hold the stop back.
    assert server.stop() == 0
    assert "Traceback" not in server.read_output()
    assert "ERROR" not in server.read_output()


HOSTILE = [
    "<script>window.__pwned=1</script>",
    '<img src=x onerror="window.__pwned=2">',
    '"><svg onload=window.__pwned=3>',
    "' onmouseover='window.__pwned=4",
    "[x](javascript:window.__pwned=5) and **bold**",
]


def test_hostile_text_stays_text(tmp_path: Path, start: Start, serve: Serving,
                                 browser: WebDriver) -> None:
    lines = [entry(text, f"answer {text}", kind="tool", tool=text, **{"from": text})
             for text in HOSTILE]
    hive = make_hive(tmp_path, lines)
    config = write_config(tmp_path, hive)
    start(config)
    wait_for_up_to(hive, len(HOSTILE))
    server = serve(config)

    def inert(page: str) -> None:
        assert browser.execute_script("return typeof window.__pwned") == "undefined", page
        sources = browser.execute_script(
            "return Array.from(document.querySelectorAll('script'), (s) => s.src);")
        assert sources == [f"{server.url}/static/horizon.js"], page
        assert browser.find_elements(By.CSS_SELECTOR, "svg[onload], img, a[href^=javascript],"
                                     " [onmouseover], [onerror], strong, b") == [], page
        assert console_errors(browser) == [], page

    visit(browser, f"{server.url}/hive/0/bee/{BEE}", "#live pre.view-text")
    view = browser.find_element(By.CSS_SELECTOR, "#live pre.view-text").text
    for text in HOSTILE:
        assert text in view
    for cell in browser.find_elements(By.CSS_SELECTOR, "#live tr.entry td:last-child"):
        ActionChains(browser).move_to_element(cell).perform()  # the tool's cell
    inert("bee page")
    screenshot(browser, "hostile-bee")

    for seq, text in enumerate(HOSTILE, start=1):
        visit(browser, f"{server.url}/hive/0/bee/{BEE}/entry/{seq}", "pre.answer")
        assert browser.find_element(By.CSS_SELECTOR, "pre.question").text == text
        assert browser.find_element(By.CSS_SELECTOR, "pre.answer").text == f"answer {text}"
        for field in ("tool", "from"):
            shown = browser.find_element(By.CSS_SELECTOR, f"dd.{field}")
            assert shown.text == text
            ActionChains(browser).move_to_element(shown).perform()
        inert(f"entry #{seq}")
    screenshot(browser, "hostile-entry")

    for page in ("/", "/hive/0", f"/hive/0/bee/{BEE}", f"/hive/0/bee/{BEE}/entry/1"):
        policy = httpx.get(server.url + page, timeout=10).headers["content-security-policy"]
        assert "script-src 'self'" in policy, page
        assert "unsafe-inline" not in policy, page

    # The control: an inline script that did reach the page is refused, and the console
    # check above would have seen it.
    browser.execute_script("const s = document.createElement('script');"
                           " s.textContent = 'window.__pwned = 6'; document.body.append(s);")
    assert browser.execute_script("return typeof window.__pwned") == "undefined"
    assert any("Content Security Policy" in line["message"] for line in console_errors(browser))


def test_every_page_fits_a_400_pixel_screen(tmp_path: Path, serve: Serving,
                                            browser: WebDriver) -> None:
    """On a phone-sized window the page never scrolls sideways: wide tables scroll inside
    their own box."""
    hive = make_hive(tmp_path, work(30), bee_toml="[horizon]\nbudget_net = 2000\n")
    make_hive(tmp_path, work(5), bee=OTHER, bee_toml="[horizon]\nactif = false\n")
    config = write_config(tmp_path, hive)
    assert horizon(config, "rebuild", hive).returncode == 0
    server = serve(config)
    browser.set_window_size(400, 900)
    inner = browser.execute_script("return window.innerWidth")
    assert inner <= 400
    for path, ready in (("/", "a.hive-link"), ("/hive/0", "tr.bee"),
                        (f"/hive/0/bee/{BEE}", "table.entries-table"),
                        (f"/hive/0/bee/{OTHER}", "table.turns-table"),
                        (f"/hive/0/bee/{BEE}/entry/3", "dl.entry-meta")):
        visit(browser, server.url + path, ready)
        wide = browser.execute_script("return document.documentElement.scrollWidth")
        assert wide <= inner, (path, wide, inner)
