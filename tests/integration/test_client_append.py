"""horizon.client.append: the writer contract checked with the daemon's own decoder, one
write per line, journals made 0660 whatever the umask, and nothing written when refused."""

from __future__ import annotations

import functools
import json
import multiprocessing
import os
import stat
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import horizon.client.writer as client_writer
from horizon import client
from horizon.client import (
    InvalidBee,
    InvalidEntry,
    JournalRefused,
    LineTooLong,
    ShortWrite,
)
from horizon.core.entries import Entry, Rejection, decode_line
from tests.e2e.daemon_harness import HORIZON, clean_env

# These tests start their bees, as a runtime does its first turn: `create=True`. What an
# unknown bee does without it is tested on its own, with `client.append`.
append = functools.partial(client.append, create=True)
BEE = "mia"
GOOD = {"ts": 1_790_000_000, "type": "tool", "question": "pytest -q", "answer": "2 failed",
        "tool": "Bash", "ok": False, "files": ["tests/test_wind.py"], "from": "ana"}


def new_hive(tmp_path: Path) -> Path:
    hive = tmp_path / "hive"
    (hive / "window").mkdir(parents=True)
    return hive


def journal(hive: Path) -> Path:
    return hive / "window" / f"{BEE}-messages.jsonl"


values = st.one_of(st.none(), st.booleans(), st.integers(-10, 2_000_000_000),
                   st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=20),
                   st.lists(st.text(max_size=5), max_size=3),
                   st.lists(st.integers(), max_size=2))
entries = st.dictionaries(
    st.sampled_from(["ts", "type", "question", "answer", "from", "tool", "id", "phare",
                     "ok", "files", "extra"]), values, max_size=11)


@given(entry=entries)
@settings(max_examples=400, deadline=None)
def test_what_append_accepts_the_daemon_accepts_with_the_same_fields(
        tmp_path_factory: pytest.TempPathFactory, entry: dict[str, Any]) -> None:
    hive = new_hive(tmp_path_factory.mktemp("h"))
    raw = json.dumps(entry).encode()
    daemon = decode_line(1, raw)
    accepted = isinstance(daemon, Entry) and not daemon.bad_field
    try:
        append(hive, BEE, entry)
    except InvalidEntry:
        assert not accepted, entry
        assert not journal(hive).exists() or journal(hive).read_bytes() == b""
        return
    assert accepted, entry
    [line] = journal(hive).read_bytes().splitlines()
    written = decode_line(1, line)
    assert isinstance(written, Entry) and written == daemon


@pytest.mark.parametrize("umask", [0o077, 0o022])
def test_a_new_journal_is_0660_whatever_the_umask(tmp_path: Path, umask: int) -> None:
    hive = new_hive(tmp_path)
    before = os.umask(umask)
    try:
        written = append(hive, BEE, GOOD)
    finally:
        os.umask(before)
    assert stat.S_IMODE(journal(hive).stat().st_mode) == 0o660
    assert written == len(journal(hive).read_bytes())
    assert isinstance(decode_line(1, journal(hive).read_bytes()[:-1]), Entry)


@pytest.mark.parametrize("kind", ["link", "fifo", "folder"])
def test_a_journal_that_is_no_regular_file_is_refused(tmp_path: Path, kind: str) -> None:
    hive = new_hive(tmp_path)
    target = tmp_path / "elsewhere.jsonl"
    target.write_bytes(b"")
    if kind == "link":
        journal(hive).symlink_to(target)
    elif kind == "fifo":
        os.mkfifo(journal(hive))
    else:
        journal(hive).mkdir()
    with pytest.raises(JournalRefused):
        append(hive, BEE, GOOD)
    assert target.read_bytes() == b""


def test_a_window_that_is_a_link_is_refused(tmp_path: Path) -> None:
    hive = tmp_path / "hive"
    hive.mkdir()
    (tmp_path / "outside").mkdir()
    (hive / "window").symlink_to(tmp_path / "outside")
    with pytest.raises(JournalRefused):
        append(hive, BEE, GOOD)
    assert list((tmp_path / "outside").iterdir()) == []


@pytest.mark.parametrize("bee", ["a/b", "../mia", "", "x" * 300, "mia\n"])
def test_a_name_that_is_no_bee_name_is_refused(tmp_path: Path, bee: str) -> None:
    hive = new_hive(tmp_path)
    with pytest.raises(InvalidBee):
        append(hive, bee, GOOD)
    assert list((hive / "window").iterdir()) == []


def test_a_case_twin_of_a_bee_is_refused(tmp_path: Path) -> None:
    hive = new_hive(tmp_path)
    append(hive, BEE, GOOD)
    with pytest.raises(InvalidBee, match="case twin"):
        append(hive, "Mia", GOOD)
    assert not (hive / "window" / "Mia-messages.jsonl").exists()


def test_a_line_over_max_line_bytes_is_refused(tmp_path: Path) -> None:
    hive = new_hive(tmp_path)
    with pytest.raises(LineTooLong):
        append(hive, BEE, {**GOOD, "answer": "x" * 5000}, max_line_bytes=4096)
    assert not journal(hive).exists()


def test_a_short_write_is_said_and_never_followed_by_a_second(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    hive = new_hive(tmp_path)
    calls: list[int] = []
    real_write = os.write

    def short(fd: int, data: bytes) -> int:
        calls.append(len(data))
        return real_write(fd, data[:10])

    monkeypatch.setattr(client_writer.os, "write", short)
    with pytest.raises(ShortWrite):
        append(hive, BEE, GOOD)
    assert len(calls) == 1
    assert len(journal(hive).read_bytes()) == 10


def _writer(hive: str, name: str, count: int) -> None:
    for number in range(count):
        append(hive, BEE, {**GOOD, "question": f"{name} {number}", "answer": "z" * 3000})


def test_eight_processes_append_whole_lines_to_one_journal(tmp_path: Path) -> None:
    hive = new_hive(tmp_path)
    context = multiprocessing.get_context("spawn")
    writers = [context.Process(target=_writer, args=(str(hive), f"w{n}", 200))
               for n in range(8)]
    for process in writers:
        process.start()
    for process in writers:
        process.join(timeout=120)
        assert process.exitcode == 0
    lines = journal(hive).read_bytes().splitlines()
    assert len(lines) == 8 * 200
    read = [decode_line(seq, line) for seq, line in enumerate(lines, 1)]
    assert not any(isinstance(record, Rejection) for record in read), "a line interleaved"
    questions = {record.question for record in read if isinstance(record, Entry)}
    assert questions == {f"w{n} {number}" for n in range(8) for number in range(200)}


def test_horizon_append_writes_the_good_lines_and_names_the_bad(tmp_path: Path) -> None:
    hive = new_hive(tmp_path)
    lines = [json.dumps(GOOD), "not json", json.dumps({**GOOD, "ts": "yesterday"}), "",
             json.dumps({**GOOD, "question": "second"})]
    unknown = subprocess.run([HORIZON, "append", str(hive), BEE, "--json", json.dumps(GOOD)],
                             capture_output=True, text=True, env=clean_env(), timeout=60,
                             check=False)
    assert unknown.returncode == 1 and "has no bee 'mia'" in unknown.stderr
    assert "--create" in unknown.stderr and not journal(hive).exists()
    run = subprocess.run([HORIZON, "append", str(hive), BEE, "--create"],
                         input="\n".join(lines) + "\n", capture_output=True, text=True,
                         env=clean_env(), timeout=60, check=False)
    assert run.returncode == 1 and run.stdout == ""
    assert run.stderr.splitlines() == [
        "horizon: line 2: not JSON (Expecting value, column 1); not written",
        "horizon: line 3: the daemon would reject it (bad_ts: ts is not RFC 3339 with offset "
        "nor epoch); not written"]
    assert [json.loads(line)["question"] for line in journal(hive).read_text().splitlines()
            ] == ["pytest -q", "second"]
    one = subprocess.run([HORIZON, "append", str(hive), BEE, "--json", json.dumps(GOOD)],
                         capture_output=True, text=True, env=clean_env(), timeout=60,
                         check=False)
    assert (one.returncode, one.stdout, one.stderr) == (0, "", "")
    refused = subprocess.run([HORIZON, "append", str(tmp_path / "nowhere"), BEE, "--json",
                              json.dumps(GOOD)], capture_output=True, text=True,
                             env=clean_env(), timeout=60, check=False)
    assert refused.returncode == 1 and "Traceback" not in refused.stderr
    assert "no hive here" in refused.stderr


def test_an_integer_ts_too_large_for_a_float_is_a_rejected_line_not_a_crash(
        tmp_path: Path) -> None:
    """One hostile line (a ts of 400 digits) is rejected as a bad ts by the daemon's
    reading, recall's and view's, and refused by append: no OverflowError anywhere."""
    hive = new_hive(tmp_path)
    huge = b'{"ts": 1' + b"0" * 400 + b', "type": "task", "question": "q", "answer": "a"}'
    negative = huge.replace(b'"ts": 1', b'"ts": -1')
    assert isinstance(decode_line(1, huge), Rejection)
    assert isinstance(decode_line(1, negative), Rejection)
    with pytest.raises(InvalidEntry, match="bad_ts"):
        append(hive, BEE, {**GOOD, "ts": 10**400})
    append(hive, BEE, GOOD)
    with journal(hive).open("ab") as out:
        out.write(huge + b"\n" + negative + b"\n")
    append(hive, BEE, GOOD)
    done = subprocess.run([HORIZON, "render", str(hive), BEE, "--fresh"], capture_output=True,
                          text=True, env=clean_env(), check=False)
    assert done.returncode == 0, done.stderr
    assert " up_to=4 " in done.stdout.split("\n", 1)[0]


def test_append_names_what_it_refuses(tmp_path: Path) -> None:
    hive = new_hive(tmp_path)
    with pytest.raises(InvalidEntry, match="'ok' has the wrong type"):
        append(hive, BEE, {**GOOD, "ok": None})
    nested: list[Any] = []
    for _ in range(100_000):
        nested = [nested]
    with pytest.raises(InvalidEntry, match="nested too deep"):
        append(hive, BEE, {**GOOD, "answer": nested})
    assert not journal(hive).exists()


def test_a_twin_known_only_by_its_settings_or_manifest_is_refused(tmp_path: Path) -> None:
    """Between two rotations a bee may have no live journal: its settings file and its
    manifest still make it the hive's, and a case twin of it is refused."""
    hive = new_hive(tmp_path)
    (hive / "bees").mkdir()
    (hive / "bees" / f"{BEE}.toml").write_text('mission = "the station"\n')
    with pytest.raises(InvalidBee, match=f"case twin of the hive's bee '{BEE}'"):
        append(hive, BEE.capitalize(), GOOD)
    (hive / "window" / "archive").mkdir()
    (hive / "window" / "archive" / "noe-segments.jsonl").write_text("")
    with pytest.raises(InvalidBee, match="case twin of the hive's bee 'noe'"):
        append(hive, "NOE", GOOD)
    assert sorted(path.name for path in (hive / "window").iterdir()) == ["archive"]


def test_a_planted_twin_does_not_stop_the_bee_the_daemon_serves(tmp_path: Path) -> None:
    hive = new_hive(tmp_path)
    (hive / "bees").mkdir()
    (hive / "bees" / f"{BEE}.toml").write_text('mission = "the station"\n')  # the operator's
    append(hive, BEE, GOOD)
    (hive / "window" / f"{BEE.upper()}-messages.jsonl").write_text("")  # an agent's doing
    append(hive, BEE, GOOD)  # the bee the daemon keeps serving writes on
    assert journal(hive).read_text().count("\n") == 2
    with pytest.raises(InvalidBee, match="names differing only in case"):
        append(hive, BEE.upper(), GOOD)
    assert (hive / "window" / f"{BEE.upper()}-messages.jsonl").read_text() == ""


def test_a_new_journal_s_twin_is_seen_whatever_the_folder_s_mtime_says(tmp_path: Path) -> None:
    hive = new_hive(tmp_path)
    window = hive / "window"
    append(hive, BEE, GOOD)
    old = window.stat().st_mtime_ns - 10_000_000_000
    os.utime(window, ns=(old, old))
    append(hive, BEE, GOOD)  # the listing is kept: the folder looks a while old
    (window / "Bob-messages.jsonl").write_text("")
    os.utime(window, ns=(old, old))  # its owner sets the mtime back; the ctime moved
    with pytest.raises(InvalidBee, match="case twin of the hive's bee 'Bob'"):
        append(hive, "bob", GOOD)
