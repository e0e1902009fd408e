"""The read-only views against a hostile hive: `horizon serve`, `status` and `top` as real
processes, fed what a prompt-injected agent could write (settings files, paths, numbers
typed in a URL). None of them may crash with a traceback, write into the hive, or hand the
operator's terminal an escape sequence."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from pathlib import Path

import httpx
import pytest
from rich import cells

from horizon.cli import top_view
from horizon.summarize.cache import hive_cache
from tests.e2e.daemon_harness import (
    HORIZON,
    Serve,
    clean_env,
    entry,
    horizon,
    make_hive,
    wait_for,
    write_config,
)
from tests.e2e.test_top import Terminal

BEE = "b"
# A TOML key is any string: its "unknown key" error quotes it as is. A clipboard write
# (OSC 52), a title (OSC 2), a screen clear, a newline, a bidi override, rich markup.
# ST (ESC \) ends the OSCs: rich strips BEL, not ESC.
HOSTILE_KEY = (r"\u001b]52;c;cHduZWQ=\u001b\\\u001b]2;PWNED\u001b\\\u001b[2J[/]x\nY\u202eZ"
               r"[bold]")
HOSTILE_TOML = f'[horizon]\n"{HOSTILE_KEY}" = 1\n'


def tree(hive: Path) -> dict[str, tuple[int, int]]:
    found = {}
    for folder, _, names in os.walk(hive):
        for name in names:
            info = os.stat(os.path.join(folder, name), follow_symlinks=False)
            found[os.path.join(folder, name)] = (info.st_size, info.st_mtime_ns)
    return found


def hostile_hive(root: Path) -> tuple[Path, Path]:
    """A derived hive whose bee's settings file then turns hostile."""
    lines = [entry(f"question {i}", f"answer {i} " + "a" * 300) for i in range(30)]
    hive = make_hive(root, lines)
    config = write_config(root, hive, horizon={"budget_net": 2000})
    assert horizon(config, "rebuild", hive).returncode == 0
    (hive / "bees").mkdir()
    (hive / "bees" / f"{BEE}.toml").write_text(HOSTILE_TOML, encoding="utf-8")
    return hive, config


# --- serve ---------------------------------------------------------------------------------


def test_serve_answers_odd_digits_and_huge_numbers_without_a_traceback(
        tmp_path: Path) -> None:
    """'²'.isdigit() is True but int('²') raises, as int() does past 4300 digits: each
    was a 500 with a traceback on the server's stderr."""
    _, config = hostile_hive(tmp_path)
    server = Serve(config).started()
    huge = "9" * 5000
    try:
        bee = f"/hive/0/bee/{BEE}"
        for path, status in ((f"{bee}/entry?seq=%C2%B2", 400), (f"{bee}/entry?seq=%E2%91%A0", 400),
                             (f"{bee}/entry/3?offset=%C2%B2", 404), (f"{bee}/entry/{huge}", 404),
                             (f"/hive/{huge}", 404), (f"/hive/{huge}/bee/{BEE}", 404)):
            response = server.get(path)
            assert response.status_code == status, (path[:60], response.text[:200])
            assert 'class="problem"' in response.text
        assert server.get(f"{bee}/entry/3?offset=0").status_code == 200
        for value in ("²", huge):
            asked = httpx.post(f"{server.url}{bee}/preview", data={"budget_net": value},
                               headers={"Origin": server.url}, timeout=10)
            assert asked.status_code == 400, asked.text[:200]
            assert "horizon.budget_net: expected a whole number" in asked.json()["error"]
    finally:
        code, err = server.stop(), server.read_output()
    assert code == 0 and "Traceback" not in err, err


def test_serve_writes_nothing_beside_a_summary_cache(tmp_path: Path) -> None:
    """A bee with a model level reads the hive's summary cache. The reader opened it
    read-write: SQLite made summaries.sqlite-wal and -shm in the hive (and mode=ro alone
    leaves them behind)."""
    lines = [entry(f"question {i}", f"answer {i} " + "z" * 400) for i in range(40)]
    hive = make_hive(tmp_path, lines, bee_toml='modele = "ollama/m1"\n')
    config = write_config(tmp_path, hive, horizon={"budget_net": 2000},
                          providers={"ollama": {"url": "http://127.0.0.1:9", "timeout_s": 1}})
    writer = hive_cache(hive)
    writer.put("a key", "a summary")
    writer.close()
    assert horizon(config, "rebuild", hive).returncode == 0
    (hive / "horizon" / BEE / "state.json").unlink()  # the bee page computes its view
    before = tree(hive)
    server = Serve(config).started()
    try:
        assert server.get(f"/hive/0/bee/{BEE}").status_code == 200
        asked = httpx.post(f"{server.url}/hive/0/bee/{BEE}/preview",
                           data={"budget_net": "2500"}, headers={"Origin": server.url},
                           timeout=10).json()
        wait_for(lambda: server.get(f"/preview/{asked['id']}").json()["state"] == "done",
                 "the preview to finish")
        assert tree(hive) == before
    finally:
        code, err = server.stop(), server.read_output()
    assert code == 0, err
    assert tree(hive) == before
    reader = hive_cache(hive, create=False)  # and a reader still reads what it holds
    assert reader.get("a key") == "a summary"
    reader.close()
    assert tree(hive) == before


# --- status and top ------------------------------------------------------------------------


def assert_inert(text: str) -> None:
    assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text, text
    assert "Traceback" not in text and "MarkupError" not in text, text


def test_status_and_top_print_hostile_text_inert(tmp_path: Path) -> None:
    """A settings error quoting a hostile key reached the terminal raw (ESC, BEL, a bidi
    override), and status read it as rich markup: its '[/]' raised MarkupError. top read
    its table's cells as markup too: a hive path with '[/]' in a bee's note did the same."""
    hive, config = hostile_hive(tmp_path)
    odd = make_hive(tmp_path / "p[" / "]x", [entry("q", "a")])
    assert horizon(config, "rebuild", odd).returncode == 0
    state = odd / "horizon" / BEE / "state.json"
    state.write_text(state.read_text(encoding="utf-8").replace('"format":', '"format":9',
                                                               1), encoding="utf-8")
    for where in (hive, odd):
        status = horizon(config, "status", where)
        assert status.returncode in (1, 3), status.stderr
        assert_inert(status.stdout + status.stderr)
    said = horizon(config, "status", hive).stdout
    assert "\\x1b]52;c;cHduZWQ=" in said and "[/]x\\x0aY\\u202eZ[bold]" in said
    assert "[/]" in horizon(config, "status", odd).stdout

    top = subprocess.run([HORIZON, "top", "--config", str(config), "--once", hive, odd],
                         capture_output=True, text=True, timeout=120, check=False,
                         env=clean_env(COLUMNS="160"))
    assert top.returncode == 0, top.stderr
    assert_inert(top.stdout + top.stderr)
    lines = top.stdout.splitlines()
    assert all(cells.cell_len(line) <= 160 for line in lines), lines
    alert = [line for line in lines if "unknown key" in line]
    assert len(alert) == 1 and "\\x1b]52;c;" in alert[0], lines  # one line, not two
    # Both bees shown degraded: the odd hive's row notes its state.json by its path.
    assert sum(line.startswith("! b ") for line in lines) == 2, lines


def test_every_command_says_a_hostile_settings_error_inert(tmp_path: Path) -> None:
    """The one line a command prints on stderr for a bad settings file quotes the file:
    render, config, check, rebuild, show and search escape it as status does."""
    hive, config = hostile_hive(tmp_path)
    refused = (["render", hive, BEE, "--fresh"], ["config", hive, BEE], ["check", hive],
               ["rebuild", hive])
    going_on = (["render", hive, BEE], ["show", hive, BEE, "1"],
                ["search", hive, BEE, "question"])
    for args in (*refused, *going_on):
        said = horizon(config, *args)
        assert_inert(said.stdout + said.stderr)
        assert "\\x1b]52;c;" in said.stderr, (args, said.stderr)  # named, escaped
        assert said.returncode == (1 if args in refused else 0), (args, said.stderr)


def test_top_clips_a_huge_settings_error_in_width_steps() -> None:
    """clip cut one character at a time, measuring the whole rest each time: O(n²) cell
    counts for a 1 MiB error (a settings file may hold 1 MiB), so top froze for hours.
    Counted, not timed: the cells measured stay a few times the width."""
    measured = 0
    real = top_view.cell_len

    def counting(text: str) -> int:
        nonlocal measured
        measured += len(text)
        return real(text)

    huge = "k" * (1 << 20)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(top_view, "cell_len", counting)
        clipped = top_view.clip(huge, 80)
    assert clipped == "k" * 79 + "…"
    assert measured <= len(huge) + 10 * 80 * 80


TMUX = shutil.which("tmux")


@pytest.mark.skipif(TMUX is None, reason="tmux is not installed")
def test_live_top_leaves_the_terminal_title_and_clipboard_alone(tmp_path: Path) -> None:
    """In a real terminal (tmux, accepting clipboard writes from programs): the hostile
    key's OSC 2 would retitle the pane and its OSC 52 fill a paste buffer."""
    _, config = hostile_hive(tmp_path)
    screen = Terminal()
    try:
        top = shlex.join([HORIZON, "top", "--config", str(config)])
        # top starts once Enter is pressed, after the server takes clipboard writes.
        screen.start(f"sh -c {shlex.quote('read go; ' + top + '; exec sleep 600')}", 160)
        screen.tmux("set-option", "-g", "set-clipboard", "on")
        screen.keys("Enter")
        title = screen.tmux("display-message", "-p", "-t", "top", "#{pane_title}")
        wait_for(lambda: any("unknown key" in line for line in screen.lines()),
                 "top to show the rejected settings")
        wait_for(lambda: any("unknown key" in line for line in screen.lines()),
                 "a second frame")
        shown = screen.lines()
        assert any("\\x1b]52;c;cHduZWQ=" in line for line in shown), shown
        assert "PWNED" not in screen.tmux("display-message", "-p", "-t", "top",
                                          "#{pane_title}")
        assert screen.tmux("display-message", "-p", "-t", "top", "#{pane_title}") == title
        assert screen.tmux("list-buffers") == ""
        screen.keys("q")
    finally:
        screen.close()
