"""`horizon import claude-code` and `horizon hook claude-code` on real files: the real
Claude Code session imported whole, in growing pieces, and event by event through the hook,
giving one journal and one view; and the transcripts that must not hurt (cut, malformed,
a link, a FIFO, a huge output, another file under the same name)."""

from __future__ import annotations

import io
import json
import os
import shutil
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from horizon.cli.main import main
from horizon.client import view
from horizon.hive.layout import import_record_name, live_name

REAL = (Path(__file__).resolve().parents[1] / "fixtures" / "real-sessions"
        / "claude-code-ae4a77f8.jsonl")
BEE = "spotter"


def make_hive(root: Path) -> Path:
    hive = root / "hive"
    (hive / "window" / "archive").mkdir(parents=True)
    return hive


def journal(hive: Path, bee: str = BEE) -> bytes:
    path = hive / "window" / live_name(bee)
    return path.read_bytes() if path.exists() else b""


def entries(hive: Path, bee: str = BEE) -> list[dict[str, Any]]:
    return [json.loads(line) for line in journal(hive, bee).splitlines()]


def run_import(hive: Path, transcript: Path, capsys: pytest.CaptureFixture[str],
               *extra: str) -> tuple[int, str, str]:
    code = main(["import", "claude-code", str(transcript), "--hive", str(hive),
                 "--bee", BEE, *extra])
    out, err = capsys.readouterr()
    return code, out, err


def run_hook(hive: Path, event: dict[str, Any], monkeypatch: pytest.MonkeyPatch,
             capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    stdin = io.TextIOWrapper(io.BytesIO(json.dumps(event).encode()))
    monkeypatch.setattr(sys, "stdin", stdin)
    code = main(["hook", "claude-code", "--hive", str(hive), "--bee", BEE])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def real_lines() -> list[bytes]:
    return REAL.read_bytes().splitlines(keepends=True)


@pytest.fixture(scope="module")
def imported_whole(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real session imported at once (by a command line of its own)."""
    hive = make_hive(tmp_path_factory.mktemp("whole"))
    assert main(["import", "claude-code", str(REAL), "--hive", str(hive), "--bee", BEE]) == 0
    return hive


# -- the real session --------------------------------------------------------------------------

def test_the_real_session_imports_every_prompt_answer_and_call(
        imported_whole: Path, real_lines: list[bytes]) -> None:
    # Counted from the raw transcript by this test's own reading, not the reader's.
    prompts, calls, failed, texts = set(), {}, set(), set()
    for line in real_lines:
        record = json.loads(line)
        if record.get("isSidechain") or record["type"] not in ("user", "assistant"):
            continue
        content = record["message"]["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        for block in blocks:
            if block["type"] == "tool_use":
                calls[block["id"]] = block["name"]
            elif block["type"] == "tool_result" and block.get("is_error"):
                failed.add(block["tool_use_id"])
            elif (block["type"] == "text" and record["type"] == "assistant"
                  and block["text"].strip()):
                texts.add(block["text"].strip())
            elif (block["type"] == "text" and record["type"] == "user"
                  and not record.get("isMeta") and not record.get("isCompactSummary")
                  and "<" not in block["text"][:1] and block["text"].strip()
                  and "[Request interrupted" not in block["text"]):
                prompts.add(block["text"].strip())
    got = entries(imported_whole)
    tools = [e for e in got if e["type"] == "tool"]
    answers = "\n\n".join(e["answer"] for e in got if e["type"] == "assistant")
    questions = {e["question"] for e in got if e["type"] == "conversation"}
    assert len(tools) == len(calls)
    assert sum(1 for e in tools if e["ok"] is False) == len(failed)
    assert all(text in answers for text in texts)
    assert all(any(prompt in question for question in questions) for prompt in prompts)
    assert all(e.get("from") == "apicultrice" for e in got if e["type"] == "conversation")


def test_importing_again_appends_nothing(imported_whole: Path, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    hive = make_hive(tmp_path)
    assert run_import(hive, REAL, capsys)[0] == 0
    first = journal(hive)
    code, out, _ = run_import(hive, REAL, capsys)
    assert code == 0 and out.startswith("0 new entries")
    assert journal(hive) == first == journal(imported_whole)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_growing_transcript_imported_piece_by_piece_is_the_whole_import(
        imported_whole: Path, real_lines: list[bytes], tmp_path: Path, seed: int,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Cut anywhere, a line in half included: each import appends what the piece settled,
    and the last one leaves the journal the whole import made."""
    import random

    data = b"".join(real_lines)
    cuts = [*sorted(random.Random(seed).sample(range(1, len(data)), 12)), len(data)]
    hive = make_hive(tmp_path)
    transcript = tmp_path / REAL.name
    for cut in cuts:
        transcript.write_bytes(data[:cut])
        code, _, err = run_import(hive, transcript, capsys)
        # A piece may end inside a line: said, skipped, and read whole next time.
        assert code == 0 or "truncated" in err
    assert journal(hive) == journal(imported_whole)


def test_the_hook_event_by_event_gives_the_import_journal_and_view(
        imported_whole: Path, real_lines: list[bytes], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Events built from the transcript, each sent when Claude Code would send it, with
    the transcript written as far as it is by then."""
    hive = make_hive(tmp_path)
    transcript = tmp_path / REAL.name
    transcript.write_bytes(b"")
    common = {"session_id": "ae4a77f8", "transcript_path": str(transcript),
              "cwd": "/home/USER/projects/spotter"}
    sent: list[str] = []

    def send(name: str, **fields: Any) -> str:
        code, out, err = run_hook(hive, {**common, "hook_event_name": name, **fields},
                                  monkeypatch, capsys)
        # No daemon runs here: a session's start says so, in one line, and goes on.
        said = [line for line in err.splitlines() if "no daemon beats" not in line]
        assert code == 0 and said == [], err
        assert err.count("\n") == (name == "SessionStart")
        sent.append(name)
        return out

    assert send("SessionStart", source="startup") == ""  # a new bee: nothing to give yet
    with transcript.open("ab") as writing:
        for line in real_lines:
            record = json.loads(line)
            content = (record.get("message") or {}).get("content")
            prompt = (record["type"] == "user" and not record.get("isMeta")
                      and isinstance(content, str))
            if prompt:  # the turn before ended; the prompt is sent before it is written
                send("Stop", stop_hook_active=False)
                send("UserPromptSubmit", prompt=content)
            if record["type"] == "system" and record.get("subtype") == "compact_boundary":
                send("PreCompact", trigger="auto", custom_instructions="")
            writing.write(line)
            writing.flush()
            if record["type"] == "user" and isinstance(content, list):
                for block in content:
                    if block.get("type") == "tool_result":
                        send("PostToolUseFailure" if block.get("is_error") else
                             "PostToolUse", tool_name="Bash", tool_input={},
                             tool_use_id=block["tool_use_id"])
    send("Stop", stop_hook_active=False)
    last = send("SessionStart", source="resume")
    assert sent.count("PostToolUse") + sent.count("PostToolUseFailure") > 100
    assert journal(hive) == journal(imported_whole)
    assert (json.loads(last)["hookSpecificOutput"]["additionalContext"]
            == view(imported_whole, BEE).text)


def test_hooks_fired_at_once_append_each_entry_once(
        imported_whole: Path, tmp_path: Path) -> None:
    hive = make_hive(tmp_path)
    event = json.dumps({"hook_event_name": "Stop", "transcript_path": str(REAL),
                        "cwd": "/x"}).encode()
    horizon = shutil.which("horizon", path=os.path.dirname(sys.executable))
    assert horizon is not None
    import subprocess

    def fire() -> None:
        subprocess.run([horizon, "hook", "claude-code", "--hive", str(hive), "--bee", BEE],
                       input=event, check=True, capture_output=True, timeout=120)

    threads = [threading.Thread(target=fire) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert journal(hive) == journal(imported_whole)


# -- transcripts that must not hurt ----------------------------------------------------------

def _line(record: dict[str, Any]) -> bytes:
    return json.dumps(record).encode() + b"\n"


def prompt(uuid: str, text: str) -> bytes:
    return _line({"type": "user", "uuid": uuid, "timestamp": "2026-02-12T14:00:00.000Z",
                  "cwd": "/w", "message": {"role": "user", "content": text}})


def call(uuid: str, tool_id: str, command: str) -> bytes:
    return _line({"type": "assistant", "uuid": uuid, "timestamp": "2026-02-12T14:00:01.000Z",
                  "cwd": "/w", "message": {"id": f"m-{uuid}", "role": "assistant", "content": [
                      {"type": "tool_use", "id": tool_id, "name": "Bash",
                       "input": {"command": command}}]}})


def result(uuid: str, tool_id: str, output: str, error: bool = False) -> bytes:
    return _line({"type": "user", "uuid": uuid, "timestamp": "2026-02-12T14:00:02.000Z",
                  "cwd": "/w", "message": {"role": "user", "content": [
                      {"type": "tool_result", "tool_use_id": tool_id, "content": output,
                       "is_error": error}]}})


def test_bad_lines_are_named_and_skipped_and_nothing_else_is_lost(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hive = make_hive(tmp_path)
    transcript = tmp_path / "s.jsonl"
    transcript.write_bytes(
        prompt("u1", "run the tests")
        + b"this is not json\n"
        + _line({"type": "a-type-from-the-future", "uuid": "x"})
        + result("u2", "toolu_never_called", "orphan output")
        + call("a1", "t1", "make test") + result("u3", "t1", "1 failed", error=True)
        + prompt("u4", "fix it")[:-20])  # the last line cut short
    code, _, err = run_import(hive, transcript, capsys)
    assert code == 1
    assert f"{transcript}:2: not JSON" in err
    assert f"{transcript}:4: a tool_result without its tool_use" in err
    assert f"{transcript}:7: truncated last line" in err
    assert ":3:" not in err  # an unknown type is skipped silently
    assert [(e["type"], e.get("ok")) for e in entries(hive)] == [
        ("conversation", None), ("tool", False)]
    # The writer finishes the line: the next import takes it, and only it.
    transcript.write_bytes(transcript.read_bytes()[:-len(prompt("u4", "fix it")) + 20]
                           + prompt("u4", "fix it"))
    assert run_import(hive, transcript, capsys)[0] == 0  # skipped lines are not read again
    got = entries(hive)
    assert [e["question"] for e in got if e["type"] == "conversation"] == [
        "run the tests", "fix it"]


def test_a_huge_tool_output_is_kept_or_cut_to_fit_a_journal_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hive = make_hive(tmp_path)
    transcript = tmp_path / "s.jsonl"
    megabyte = "PASSED tests/test_x.py::test_a\n" * 33_000 + "1 failed: test_z"
    transcript.write_bytes(call("a1", "t1", "pytest") + result("u1", "t1", megabyte, True))
    assert run_import(hive, transcript, capsys)[0] == 0
    assert entries(hive)[0]["answer"] == megabyte
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"hives": [str(hive)], "max_line_bytes": 100_000}))
    transcript2 = tmp_path / "s2.jsonl"
    transcript2.write_bytes(call("a2", "t2", "pytest") + result("u2", "t2", megabyte, True))
    code, out, _ = run_import(hive, transcript2, capsys, "--config", str(config))
    assert code == 0 and "1 answers cut to fit a journal line" in out
    cut = entries(hive)[1]["answer"]
    assert cut.startswith("PASSED") and cut.endswith("1 failed: test_z")
    assert len(journal(hive).splitlines()[1]) < 100_000


def test_a_link_a_fifo_and_a_folder_are_refused_without_blocking(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hive = make_hive(tmp_path)
    real = tmp_path / "real.jsonl"
    real.write_bytes(prompt("u1", "hello"))
    (tmp_path / "link.jsonl").symlink_to(real)
    os.mkfifo(tmp_path / "fifo.jsonl")
    (tmp_path / "folder.jsonl").mkdir()
    for name, reason in (("link.jsonl", "a link"), ("fifo.jsonl", "a FIFO"),
                         ("folder.jsonl", "a folder"), ("gone.jsonl", "No such file")):
        code, _, err = run_import(hive, tmp_path / name, capsys)
        assert code == 1 and reason in err and "Traceback" not in err
    assert journal(hive) == b""


def test_another_file_under_the_imported_name_appends_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hive = make_hive(tmp_path)
    transcript = tmp_path / "s.jsonl"
    transcript.write_bytes(prompt("u1", "first") + prompt("u2", "second"))
    assert run_import(hive, transcript, capsys)[0] == 0
    transcript.write_bytes(prompt("v1", "another session") + prompt("v2", "entirely"))
    code, _, err = run_import(hive, transcript, capsys)
    assert code == 1 and "not a longer version" in err
    assert len(entries(hive)) == 2
    # The same start, rewritten past the last import (a longer version): only the rest.
    transcript.write_bytes(prompt("u1", "first") + prompt("u2", "second")
                           + prompt("u3", "third"))
    assert run_import(hive, transcript, capsys)[0] == 0
    assert [e["question"] for e in entries(hive)] == ["first", "second", "third"]


def test_a_broken_import_record_is_named_and_nothing_is_appended(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hive = make_hive(tmp_path)
    transcript = tmp_path / "s.jsonl"
    transcript.write_bytes(prompt("u1", "first"))
    (hive / "window" / import_record_name(BEE)).write_text('{"format": 1, "transcripts": 7}')
    code, _, err = run_import(hive, transcript, capsys)
    assert code == 1 and "not an import record" in err and import_record_name(BEE) in err
    assert journal(hive) == b""


def text(uuid: str, message: str, words: str) -> bytes:
    return _line({"type": "assistant", "uuid": uuid, "timestamp": "2026-02-12T14:00:03.000Z",
                  "cwd": "/w", "message": {"id": message, "role": "assistant",
                                           "content": [{"type": "text", "text": words}]}})


def test_a_hook_mid_turn_leaves_a_text_that_may_go_on_and_a_line_being_written(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Mid-turn, the transcript's last text may be continued by the same message's next
    line, and its last line may be half written: neither is taken yet, nor said to be
    wrong; the turn's end takes them whole."""
    hive = make_hive(tmp_path)
    transcript = tmp_path / "s.jsonl"
    second = text("a3", "m1", "Second part.")
    transcript.write_bytes(prompt("u1", "go") + text("a2", "m1", "First part.")
                           + second[:25])
    event = {"hook_event_name": "PostToolUse", "transcript_path": str(transcript),
             "cwd": "/w", "tool_name": "Bash", "tool_input": {}}
    code, _, err = run_hook(hive, event, monkeypatch, capsys)
    assert code == 0 and err == ""
    assert [e["type"] for e in entries(hive)] == ["conversation"]
    transcript.write_bytes(prompt("u1", "go") + text("a2", "m1", "First part.") + second)
    code, _, err = run_hook(hive, {**event, "hook_event_name": "Stop"}, monkeypatch, capsys)
    assert code == 0 and err == ""
    assert [e["answer"] for e in entries(hive)] == ["", "First part.\n\nSecond part."]


def test_an_import_stopped_by_sigterm_appends_nothing_twice_when_run_again(
        imported_whole: Path, real_lines: list[bytes], tmp_path: Path) -> None:
    """A hook's timeout ends it with SIGTERM: it records how far it got on its way out."""
    import signal
    import subprocess
    import time

    transcript = tmp_path / "long.jsonl"
    with transcript.open("wb") as out:
        for copy in range(5):  # the session told again, its ids its own each time
            out.write(b"".join(line.replace(b'"toolu_', f'"toolu_{copy}_'.encode()).replace(
                b'"uuid":"', f'"uuid":"{copy}-'.encode()) for line in real_lines))
    hive = make_hive(tmp_path)
    horizon = os.path.join(os.path.dirname(sys.executable), "horizon")
    argv = [horizon, "import", "claude-code", str(transcript), "--hive", str(hive),
            "--bee", BEE]
    running = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while not journal(hive) and running.poll() is None and time.monotonic() < deadline:
        time.sleep(0.005)
    running.send_signal(signal.SIGTERM)
    assert running.wait(timeout=60) == 1, "stopped before its end"
    assert running.stderr is not None and b"Traceback" not in running.stderr.read()
    part = len(journal(hive).splitlines())
    subprocess.run(argv, check=True, capture_output=True, timeout=120)
    at_once = make_hive(tmp_path / "at-once")
    subprocess.run([*argv[:-4], "--hive", str(at_once), "--bee", BEE], check=True,
                   capture_output=True, timeout=120)
    assert 0 < part < len(journal(at_once).splitlines())
    assert journal(hive) == journal(at_once), "stopped and run again: the same journal"


@pytest.mark.parametrize("at", [1, 7, 40])
def test_a_sigterm_just_after_an_entry_is_written_appends_it_once(
        imported_whole: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str], at: int) -> None:
    """The narrowest window a timeout can hit: the entry is in the journal, the import
    has not yet noted it. The stop waits until it has."""
    import signal

    import horizon.imports.follow as follow_module

    calls = 0
    real_append = follow_module.append

    def append_then_sigterm(*args: Any, **kwargs: Any) -> None:
        nonlocal calls
        real_append(*args, **kwargs)
        calls += 1
        if calls == at:
            os.kill(os.getpid(), signal.SIGTERM)  # delivered before the next line runs

    hive = make_hive(tmp_path)
    handler = signal.getsignal(signal.SIGTERM)
    monkeypatch.setattr(follow_module, "append", append_then_sigterm)
    try:
        with pytest.raises(SystemExit):
            run_import(hive, REAL, capsys)
    finally:
        signal.signal(signal.SIGTERM, handler)
    assert len(journal(hive).splitlines()) == at
    monkeypatch.setattr(follow_module, "append", real_append)
    assert run_import(hive, REAL, capsys)[0] == 0
    assert journal(hive) == journal(imported_whole)


def test_a_tampered_or_hard_linked_record_is_refused_in_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hive = make_hive(tmp_path)
    transcript = tmp_path / "s.jsonl"
    transcript.write_bytes(prompt("u1", "first"))
    record = hive / "window" / import_record_name(BEE)
    record.write_text(json.dumps({"format": 1, "transcripts": {"claude-code:s.jsonl": {
        "offset": -5, "line": 0, "imported_line": 0, "uuid": "u1", "check": "x"}}}))
    code, _, err = run_import(hive, transcript, capsys)
    assert code == 1 and "not an import record" in err and ">= 0" in err
    record.unlink()
    outside = tmp_path / "outside.txt"
    outside.write_text("")
    outside.chmod(0o600)
    os.link(outside, record)
    code, _, err = run_import(hive, transcript, capsys)
    assert code == 1 and "hard link" in err
    assert (outside.stat().st_mode & 0o777) == 0o600, "nothing outside the hive changed"
    assert journal(hive) == b""


def test_many_bad_lines_are_counted_and_the_first_named(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hive = make_hive(tmp_path)
    transcript = tmp_path / "s.jsonl"
    transcript.write_bytes(prompt("u1", "first") + b"x\n" * 5000 + prompt("u2", "second"))
    code, out, err = run_import(hive, transcript, capsys)
    assert code == 1 and "5000 lines skipped" in out
    assert len(err.splitlines()) == 101 and err.splitlines()[-1].endswith(
        "4900 more lines skipped")
    assert [e["question"] for e in entries(hive)] == ["first", "second"]


def test_a_transcript_not_written_yet_gives_its_prompt_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    hive = make_hive(tmp_path)
    transcript = tmp_path / "s.jsonl"
    event = {"transcript_path": str(transcript), "cwd": "/w"}
    code, _, err = run_hook(hive, {**event, "hook_event_name": "UserPromptSubmit",
                                   "prompt": "fix the flaky test"}, monkeypatch, capsys)
    assert (code, err, journal(hive)) == (0, "", b"")
    transcript.write_bytes(prompt("u1", "fix the flaky test"))
    assert run_hook(hive, {**event, "hook_event_name": "Stop"}, monkeypatch, capsys)[0] == 0
    assert [e["question"] for e in entries(hive)] == ["fix the flaky test"]


@pytest.mark.parametrize(("folder", "bee"), [
    ("/home/ana/été", "ete"), ("/srv/café-app", "cafe-app"), ("/x/my project.v2", "my-project-v2"),
])
def test_a_bee_is_named_after_its_folder_accents_folded(folder: str, bee: str) -> None:
    from horizon.cli.importing import bee_of_folder

    assert bee_of_folder(folder) == bee


def test_recording_progress_mid_reading_does_not_move_the_reading(
        imported_whole: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A long import records how far it got every SAVE_EVERY_S, while a message or a call
    may still be open: the record's check of the bytes before its restart point must not
    move the reading back there (lines read twice were appended twice)."""
    import horizon.imports.follow as follow_module

    monkeypatch.setattr(follow_module, "SAVE_EVERY_S", 0.0)  # a save after every entry
    hive = make_hive(tmp_path)
    code, _, err = run_import(hive, REAL, capsys)
    assert code == 0, err
    assert journal(hive) == journal(imported_whole)
