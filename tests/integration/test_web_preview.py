"""The web view's preview and pages over real hives: a preview gives exactly the view a
rebuild under the same settings gives, writes nothing, is cancelled between slices, is
cached, and refuses bad values naming the key; the pages' numbers are the status report's.
"""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path

import pytest

from horizon.cli.main import main
from horizon.cli.web import pages
from horizon.cli.web.preview import (
    QUEUED_MAX,
    Job,
    PreviewError,
    PreviewWorker,
    preview_settings,
)
from horizon.core.errors import SettingsError
from horizon.hive.settings_files import config_source, effective_settings, load_global
from horizon.hive.store import read_handoff
from tests.e2e.daemon_harness import append, entry, make_hive, write_config

BEE = "b"
START = 1_780_000_000.0


def lines(count: int, size: int = 300) -> list[str]:
    """Exchanges with a human lighthouse now and then, stamped in the past."""
    return [entry(f"question {i} " + "q" * size, f"answer {i} " + "a" * size,
                  ts=START + i, **({"from": "apicultrice"} if i % 7 == 0 else {}))
            for i in range(count)]


def site_for(root: Path, hive: Path, **horizon: object) -> pages.Site:
    config_file = write_config(root, hive, horizon={"budget_net": 3000,
                                                    "budget_condense": 2000,
                                                    "budget_recit": 1500, **horizon})
    assert main(["rebuild", str(hive), "--config", str(config_file)]) == 0
    config = load_global(config_file)
    return pages.Site(config, config_source(config_file), None, pages.listing([str(hive)]))


def tree(hive: Path) -> dict[str, tuple[int, int]]:
    """Every file under the hive with its size and modification time."""
    found = {}
    for folder, _, names in os.walk(hive):
        for name in names:
            path = os.path.join(folder, name)
            info = os.stat(path, follow_symlinks=False)
            found[os.path.relpath(path, hive)] = (info.st_size, info.st_mtime_ns)
    return found


def finished(worker: PreviewWorker, job: Job) -> Job:
    deadline = time.monotonic() + 60
    while job.state in ("queued", "running"):
        assert time.monotonic() < deadline, "the preview never finished"
        time.sleep(0.02)
    return job


@pytest.fixture
def worker_site(tmp_path: Path) -> tuple[PreviewWorker, pages.Site, Path]:
    hive = make_hive(tmp_path, lines(120))
    site = site_for(tmp_path, hive)
    worker = PreviewWorker(site.config)
    yield worker, site, hive
    worker.stop()


FORM = {"budget_net": "5000", "budget_condense": "900", "budget_recit": "1200",
        "plancher_phare": "net", "actif": "true", "langue": "en"}


def test_a_preview_is_the_view_a_rebuild_under_its_settings_gives(
        worker_site: tuple[PreviewWorker, pages.Site, Path], tmp_path: Path) -> None:
    worker, site, hive = worker_site
    before = tree(hive)
    view = pages.bee_page(site, 0, BEE)
    assert view.effective is not None
    job = finished(worker, worker.submit(hive, BEE, preview_settings(view.effective, FORM)))
    assert job.state == "done" and job.view is not None
    assert job.done == job.target == 120
    assert tree(hive) == before  # nothing written, not even the summary cache

    # The same settings in the bee's file, and a rebuild: the file the bee would read.
    (hive / "bees").mkdir(exist_ok=True)
    (hive / "bees" / f"{BEE}.toml").write_text(
        "[horizon]\n" + "".join(
            f"{key} = {value}\n" if key.startswith("budget") or key == "actif"
            else f'{key} = "{value}"\n' for key, value in FORM.items()), encoding="utf-8")
    config_file = tmp_path / "config.json"
    assert main(["rebuild", str(hive), "--config", str(config_file)]) == 0
    rebuilt = read_handoff(hive, BEE)
    assert rebuilt is not None and "Work in progress" in rebuilt  # langue = en took
    assert job.view.text == rebuilt


def test_the_same_preview_again_is_cached_and_other_settings_are_not(
        worker_site: tuple[PreviewWorker, pages.Site, Path]) -> None:
    worker, site, hive = worker_site
    effective = pages.bee_page(site, 0, BEE).effective
    assert effective is not None
    first = finished(worker, worker.submit(hive, BEE, preview_settings(effective, FORM)))
    again = worker.submit(hive, BEE, preview_settings(effective, FORM))
    assert again.state == "done" and again.cached and again.view is first.view
    other = worker.submit(hive, BEE, preview_settings(effective, {**FORM, "langue": "fr"}))
    assert not other.cached
    assert finished(worker, other).view is not None
    assert other.view is not None and other.view.text != first.view.text


def test_a_cancelled_preview_stops_between_two_slices(tmp_path: Path) -> None:
    hive = make_hive(tmp_path, lines(3000, size=500))  # about 3 MB: three slices or more
    site = site_for(tmp_path, hive)
    worker = PreviewWorker(site.config)
    try:
        effective = pages.bee_page(site, 0, BEE).effective
        assert effective is not None
        job = Job("t", hive, BEE, preview_settings(effective, FORM), ("", "", "", 0), 3000)
        job.cancel.set()
        assert worker._replay(job) is None
        assert 0 < job.done < 3000  # one slice was read, and no more

        queued = worker.submit(hive, BEE, preview_settings(effective, FORM))
        worker.cancel(queued.id)
        assert finished(worker, queued).state == "cancelled"
        assert queued.view is None
    finally:
        worker.stop()


def test_previews_waiting_are_bounded(tmp_path: Path) -> None:
    hive = make_hive(tmp_path, lines(3000, size=500))
    site = site_for(tmp_path, hive)
    worker = PreviewWorker(site.config)
    try:
        effective = pages.bee_page(site, 0, BEE).effective
        assert effective is not None
        jobs = []
        with pytest.raises(PreviewError, match="already waiting"):
            for budget in range(2000, 2000 + QUEUED_MAX + 3):
                jobs.append(worker.submit(
                    hive, BEE, preview_settings(effective, {"budget_net": str(budget)})))
        assert QUEUED_MAX <= len(jobs) <= QUEUED_MAX + 1  # one may already be running
    finally:
        worker.stop()


@pytest.mark.parametrize(("form", "key", "reason"), [
    ({"budget_net": "lots"}, "horizon.budget_net", "whole number"),
    ({"budget_net": "0"}, "horizon.budget_net", ">= 1"),
    ({"budget_net": "10", "budget_condense": "10", "budget_recit": "10"},
     "horizon.budget", "under 1000"),
    ({"actif": "yes"}, "horizon.actif", "true or false"),
    ({"langue": "de"}, "horizon.langue", ""),
    ({"plancher_phare": "<script>"}, "horizon.plancher_phare", ""),
])
def test_bad_preview_values_are_named(worker_site: tuple[PreviewWorker, pages.Site, Path],
                                      form: dict[str, str], key: str, reason: str) -> None:
    _, site, _ = worker_site
    effective = pages.bee_page(site, 0, BEE).effective
    assert effective is not None
    with pytest.raises(SettingsError) as raised:
        preview_settings(effective, form)
    assert key in str(raised.value) and reason in str(raised.value)
    assert str(raised.value).startswith("preview")


def test_the_pages_numbers_are_the_status_reports(
        worker_site: tuple[PreviewWorker, pages.Site, Path], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    _, site, hive = worker_site
    assert main(["status", str(hive), "--json", "--config", str(tmp_path / "config.json")]) == 1
    status = json.loads(capsys.readouterr().out)["hives"][0]["bees"][0]
    report = pages.hive_page(site, 0)
    bars = {bar.zone: bar for bar in report.bars[0]}
    view = pages.bee_page(site, 0, BEE)
    for zone, numbers in status["zones"].items():
        assert (bars[zone].before, bars[zone].after, bars[zone].budget) == (
            numbers["before"], numbers["after"], numbers["budget"])
        shown = next(bar for bar in view.bars if bar.zone == zone)
        assert (shown.before, shown.after, shown.budget) == (bars[zone].before,
                                                              bars[zone].after,
                                                              bars[zone].budget)
    assert view.text == read_handoff(hive, BEE) and view.derived and not view.warnings
    seqs = [item["seq"] for zone in ("condense", "net") for item in view.summary[zone]]
    assert seqs == sorted(seqs) and seqs[-1] == 120


def test_a_bee_with_no_derived_view_is_computed_in_memory_and_said(tmp_path: Path) -> None:
    hive = make_hive(tmp_path, lines(5))
    config_file = write_config(tmp_path, hive)
    config = load_global(config_file)
    site = pages.Site(config, config_source(config_file), None, pages.listing([str(hive)]))
    before = tree(hive)
    view = pages.bee_page(site, 0, BEE)
    assert not view.derived and "computed in memory" in view.warnings[0]
    assert view.summary["up_to"] == 5 and "question 4" in view.text
    assert tree(hive) == before
    effective = effective_settings(config, site.source, hive, BEE)
    assert view.effective == effective


def test_new_settings_not_applied_yet_show_the_file_and_say_so(
        worker_site: tuple[PreviewWorker, pages.Site, Path]) -> None:
    _, site, hive = worker_site
    served = pages.bee_page(site, 0, BEE)
    (hive / "bees").mkdir(exist_ok=True)
    (hive / "bees" / f"{BEE}.toml").write_text("[horizon]\nbudget_net = 1000\n",
                                               encoding="utf-8")
    view = pages.bee_page(site, 0, BEE)
    assert view.text == served.text == read_handoff(hive, BEE)
    assert [bar.budget for bar in view.bars] == [bar.budget for bar in served.bars]
    assert any("settings changed" in warning for warning in view.warnings)
    assert view.effective is not None and view.effective.horizon.budget_net == 1000


def test_with_nothing_derived_a_preview_is_not_cached(tmp_path: Path) -> None:
    hive = make_hive(tmp_path, lines(5))
    config_file = write_config(tmp_path, hive)
    config = load_global(config_file)
    worker = PreviewWorker(config)
    try:
        effective = effective_settings(config, config_source(config_file), hive, BEE)
        first = finished(worker, worker.submit(hive, BEE, effective))
        append(hive, entry("one more", "answer", ts=START + 99))
        second = finished(worker, worker.submit(hive, BEE, effective))
        assert not second.cached and first.view is not None and second.view is not None
        assert second.view.summary["up_to"] == 6 and first.view.summary["up_to"] == 5
    finally:
        worker.stop()


def test_asking_and_cancelling_in_a_loop_cannot_pile_previews_up(
        worker_site: tuple[PreviewWorker, pages.Site, Path],
        monkeypatch: pytest.MonkeyPatch) -> None:
    worker, site, hive = worker_site
    effective = pages.bee_page(site, 0, BEE).effective
    assert effective is not None
    replaying = threading.Event()
    release = threading.Event()
    replay = worker._replay

    def held(job: Job) -> object:  # the first replay lasts until the test lets it go
        replaying.set()
        release.wait(60)
        return replay(job)

    monkeypatch.setattr(worker, "_replay", held)
    first = worker.submit(hive, BEE, preview_settings(effective, FORM))
    assert replaying.wait(60)
    asked = refused = 0
    for budget in range(2000, 2200):
        try:
            job = worker.submit(hive, BEE, preview_settings(
                effective, {"budget_net": str(budget)}))
        except PreviewError:
            refused += 1
            continue
        asked += 1
        worker.cancel(job.id)
    assert asked == QUEUED_MAX and refused == 200 - QUEUED_MAX
    release.set()
    assert finished(worker, first).state == "done"
    # Once the worker dropped the cancelled ones, previews can be asked again.
    again = finished(worker, worker.submit(hive, BEE, preview_settings(
        effective, {"budget_net": "1999"})))
    assert again.state == "done"
