"""The distribution's Chromium, driven by Selenium, against a real `horizon serve`: what the
browser tests share, and the README's screenshots (`python -m tests.e2e.browser`).

Nothing is ever downloaded: the driver and the browser are named by path, so Selenium
Manager never runs (and would run offline if it did). A machine without them fails the
tests with the command that installs them; it never skips them.
"""

from __future__ import annotations

import io
import os
import random
import time
from pathlib import Path
from typing import Any

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.chrome.webdriver import WebDriver

from tests.e2e.daemon_harness import (
    Daemon,
    Serve,
    append,
    entry,
    make_hive,
    wait_for,
    wait_for_up_to,
    write_config,
)

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts" / "web"
WIDTH, HEIGHT = 1400, 1000
FLAGS = ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
         "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", f"--window-size={WIDTH},{HEIGHT}")


def require_browser() -> None:
    """Fail (never skip: CI must run these tests) when chromium or its driver is missing."""
    missing = [str(path) for path in (CHROMIUM, CHROMEDRIVER) if not os.access(path, os.X_OK)]
    if missing:
        pytest.fail(f"{' and '.join(missing)} missing: run `make browser` (apt installs "
                    "Debian's chromium and chromium-driver)", pytrace=False)


def chromium(profile: Path) -> WebDriver:
    """A headless Chromium with a fresh profile, its console kept for `console_errors`."""
    require_browser()
    # Read by Selenium Manager alone, which naming both binaries already keeps from running.
    os.environ.setdefault("SE_OFFLINE", "true")
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)


def console_errors(driver: WebDriver) -> list[dict[str, Any]]:
    """The console's errors since the last call, and any CSP report whatever its level."""
    return [line for line in driver.get_log("browser")
            if line["level"] == "SEVERE" or "Content Security Policy" in line["message"]]


def screenshot(driver: WebDriver, name: str, at: str | None = None) -> Path:
    """test-artifacts/web/NAME.png, scrolled first to the CSS selector `at` if given."""
    if at is not None:
        driver.execute_script("document.querySelector(arguments[0]).scrollIntoView()", at)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    assert driver.save_screenshot(str(path)), f"no screenshot saved at {path}"
    return path


def zones(driver: WebDriver, container: str) -> list[dict[str, Any]]:
    """Every `.zone` bar under the CSS selector `container`: its data and visible numbers."""
    script = """
        return Array.from(document.querySelectorAll(arguments[0] + " .zone[data-zone]"),
          (zone) => ({zone: zone.dataset.zone, before: Number(zone.dataset.before),
                      after: Number(zone.dataset.after), budget: Number(zone.dataset.budget),
                      text: zone.querySelector(".zone-numbers").textContent}));
    """
    found: list[dict[str, Any]] = driver.execute_script(script, container)
    return found


def zone_text(before: int, after: int, budget: int) -> str:
    """What `.zone-numbers` shows: the chars before the hard cut only when it cut some."""
    return (f"{before} → " if before != after else "") + f"{after} / {budget}"


# --- the README's screenshots -------------------------------------------------------------

# (question, tool, answer): what a coding agent's journal reads like.
WORK = [
    ("Run the test suite", "pytest", "212 passed, 3 failed in 41.2 s: test_invoice_totals, "
     "test_vat_rounding and test_export_csv fail on the new rounding rule."),
    ("Find where VAT is rounded", "rg", "src/billing/vat.py:48 rounds each line; "
     "src/billing/invoice.py:112 rounds the total again."),
    ("Round VAT once, on the total", "edit", "vat.py now returns exact Decimals; "
     "invoice.py rounds half-even once. 3 files changed, 18 insertions, 11 deletions."),
    ("Re-run the failing tests", "pytest", "test_invoice_totals and test_vat_rounding pass; "
     "test_export_csv still expects the old per-line amounts."),
    ("Update the CSV export fixture", "edit", "tests/fixtures/export_march.csv regenerated "
     "from the new totals; the diff is 14 cents over 212 invoices."),
    ("Open a pull request", "gh", "PR #318 opened: 'Round VAT once, on the invoice total'. "
     "CI started."),
    ("Read the review comments", "gh", "Two comments: name the rounding mode in the "
     "docstring; add a test with a negative credit note."),
    ("Add the credit-note test", "edit", "tests/test_vat.py: a -19.99 credit note rounds "
     "to -3.33 VAT, not -3.34. Passes."),
    ("Check the migration on staging", "ssh", "alembic upgrade head ran in 2.1 s on "
     "staging; 48 211 invoices recomputed, none changed by more than 1 cent."),
    ("Summarise the day for the operator", "", "VAT is now rounded once per invoice. "
     "PR #318 is green and waits for a second review; staging is migrated."),
]
ASKS = [
    "Keep the old export format for the March report, finance already imported it.",
    "Please don't deploy before Thursday, the accountants are closing the quarter.",
]
DEMO_BEES = {  # bee: its settings file (budgets chosen so the bars fill differently)
    "billing": 'mission = "Fix VAT rounding in invoices"\n[horizon]\nactif = true\n'
               'langue = "en"\nbudget_net = 2400\nbudget_condense = 1500\n'
               "budget_recit = 900\n",
    "docs": 'mission = "Rewrite the API reference"\n[horizon]\nactif = true\nlangue = "en"\n'
            "budget_net = 6000\nbudget_condense = 3000\nbudget_recit = 1500\n",
    "frontend": 'mission = "Move the checkout page to the new design"\n[horizon]\n'
                'actif = true\nlangue = "en"\nbudget_net = 1600\nbudget_condense = 1800\n'
                "budget_recit = 900\n",
    "ops": 'mission = "Keep the nightly backups green"\n[horizon]\nactif = false\n'
           'langue = "en"\nhandoff_max = 3000\n',
}
DEMO_LINES = {"billing": 60, "docs": 12, "frontend": 35, "ops": 20}


def demo_lines(bee: str, count: int, rng: random.Random) -> list[str]:
    start = time.time() - 6 * 3600
    lines = []
    for number in range(count):
        when = start + number * (6 * 3600 / count)
        if rng.random() < 0.12:
            lines.append(entry(rng.choice(ASKS), "Understood, noted in my plan.",
                               kind="conversation", ts=when, **{"from": "apicultrice"}))
            continue
        question, tool, answer = WORK[number % len(WORK)]
        extra = {"tool": tool} if tool else {}
        lines.append(entry(f"[{bee}] {question}", answer, kind="tool" if tool else "task",
                           ts=when, **extra))
    return lines


def page_height(driver: WebDriver, height: int) -> None:
    """The page's area, exactly WIDTH x `height` (the window's size counts its frame)."""
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": WIDTH, "height": height, "deviceScaleFactor": 1, "mobile": False})


def readme_screenshots(root: Path, docs: Path) -> list[Path]:
    """docs/web-hive.png and docs/web-bee.png, from a demo hive under `root`."""
    rng = random.Random(7)
    hive = None
    for bee, settings in DEMO_BEES.items():
        hive = make_hive(root, bee=bee, bee_toml=settings)
    assert hive is not None
    config = write_config(root, hive, horizon={"actif": True})
    daemon = Daemon(config, root / "logs").started()
    server = None
    driver = None
    try:
        for bee, count in DEMO_LINES.items():
            for line in demo_lines(bee, count, rng):
                append(hive, line, bee)
        for bee, count in DEMO_LINES.items():
            wait_for_up_to(hive, count, bee)
        server = Serve(config).started()
        driver = chromium(root / "chromium")
        docs.mkdir(parents=True, exist_ok=True)
        driver.get(server.url + "/hive/0")
        page_height(driver, 200)
        page_height(driver, min(HEIGHT, driver.execute_script(
            "return document.documentElement.scrollHeight") + 20))
        hive_png = docs / "web-hive.png"
        driver.save_screenshot(str(hive_png))
        page_height(driver, HEIGHT)
        driver.get(server.url + "/hive/0/bee/billing")
        wait_for(lambda: driver.find_element("id", "live-state").text == "on", "live on")
        bee_png = docs / "web-bee.png"
        driver.save_screenshot(str(bee_png))
        return [hive_png, bee_png, top_screenshot(hive, config, driver, root, docs, rng)]
    finally:
        if driver is not None:
            driver.quit()
        if server is not None:
            server.stop()
        daemon.stop()


def top_screenshot(hive: Path, config: Path, driver: WebDriver, root: Path, docs: Path,
                   rng: random.Random) -> Path:
    """docs/top.png: one frame of `horizon top`, after two heartbeats of a busy hive (so
    passes per second show), drawn by rich as HTML and photographed by the browser."""
    import argparse

    from rich.console import Console
    from rich.terminal_theme import DIMMED_MONOKAI

    from horizon.cli.top_data import Sampler
    from horizon.cli.top_screen import frame
    from horizon.cli.top_view import Controls

    # A settings file half-edited by hand: top lists its bee first, in red, and names it.
    (hive / "bees" / "docs.toml").write_text(
        DEMO_BEES["docs"].replace("budget_net = 6000", "budget_net = 6_000k"), encoding="utf-8")
    sampler = Sampler(argparse.Namespace(config=str(config), hives=[], once=True))
    try:
        beats = 0
        last = None
        deadline = time.monotonic() + 60
        while beats < 3 and time.monotonic() < deadline:
            for bee in ("billing", "frontend"):
                append(hive, demo_lines(bee, 1, rng)[0], bee)
            sampler.sample()
            beat = (hive / "horizon" / "daemon.json").stat().st_mtime_ns
            beats += beat != last
            last = beat
            time.sleep(1)
        console = Console(record=True, width=118, force_terminal=True,
                          color_system="truecolor", file=io.StringIO())
        console.print(frame(sampler.sample(), Controls(), 118, 30, sampler.title()), crop=True)
    finally:
        sampler.close()
    page = root / "top.html"
    page.write_text(console.export_html(inline_styles=True, theme=DIMMED_MONOKAI),
                    encoding="utf-8")
    driver.get(page.as_uri())
    page_height(driver, int(driver.execute_script(
        "return document.querySelector('pre').getBoundingClientRect().bottom")) + 16)
    top_png = docs / "top.png"
    driver.save_screenshot(str(top_png))
    return top_png


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory(prefix="demo-") as folder:
        for path in readme_screenshots(Path(folder), ROOT / "docs"):
            print(path)
