"""`horizon hook claude-code` as Claude Code runs it: a new process per event, the event on
stdin, beside a real daemon or none; and the hooks block `horizon example claude-code`
prints, run as it is written."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.e2e.daemon_harness import Start, handoff, wait_for, write_config

HORIZON = shutil.which("horizon") or str(Path(sys.executable).parent / "horizon")
BEE = "app"


def hook(event: dict[str, Any] | bytes, *args: str, env: dict[str, str] | None = None,
         cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    data = event if isinstance(event, bytes) else json.dumps(event).encode()
    done = subprocess.run([HORIZON, "hook", "claude-code", *args], input=data,
                          capture_output=True, timeout=120, check=False, cwd=cwd,
                          env={**os.environ, **(env or {})})
    return subprocess.CompletedProcess(done.args, done.returncode, done.stdout.decode(),
                                       done.stderr.decode())


def transcript_line(kind: str, uuid: str, content: Any) -> str:
    return json.dumps({"type": kind, "uuid": uuid, "timestamp": "2026-12-06T10:00:00.000Z",
                       "cwd": "/work/app", "message": {"id": f"m{uuid}", "role": kind,
                                                       "content": content}}) + "\n"


def test_a_session_feeds_the_daemon_and_its_start_gets_the_view(
        tmp_path: Path, start: Start) -> None:
    hive = tmp_path / "hive"
    (hive / "window" / "archive").mkdir(parents=True)
    config = write_config(tmp_path, hive)
    start(config)
    transcript = tmp_path / "session.jsonl"
    transcript.write_text(
        transcript_line("user", "u1", "Add a --verbose flag to the CLI.")
        + transcript_line("assistant", "a1", [{"type": "tool_use", "id": "t1",
                                               "name": "Bash", "input": {"command": "make test"}}])
        + transcript_line("user", "u2", [{"type": "tool_result", "tool_use_id": "t1",
                                          "content": "1 failed", "is_error": True}])
        + transcript_line("assistant", "a2", [{"type": "text", "text": "The flag is in."}]))
    args = ("--hive", str(hive), "--bee", BEE)
    env = {"HORIZON_CONFIG": str(config)}
    base = {"transcript_path": str(transcript), "cwd": "/work/app", "session_id": "s"}
    stopped = hook({**base, "hook_event_name": "Stop"}, *args, env=env)
    assert (stopped.returncode, stopped.stdout, stopped.stderr) == (0, "", "")
    # The daemon takes the journal up; the next session's start sees it.
    wait_for(lambda: (text := handoff(hive, BEE)) and "make test" in text and text,
             "the daemon's view of the hooked session")
    started = hook({**base, "hook_event_name": "SessionStart", "source": "resume"}, *args,
                   env=env)
    assert started.returncode == 0 and started.stderr == ""
    context = json.loads(started.stdout)["hookSpecificOutput"]
    rendered = subprocess.run([HORIZON, "render", str(hive), BEE, "--fresh", "--config",
                               str(config)], capture_output=True, text=True, check=True)
    assert context == {"hookEventName": "SessionStart",
                       "additionalContext": rendered.stdout}
    assert "Add a --verbose flag" in context["additionalContext"]


def test_nothing_that_goes_wrong_blocks_the_agent(tmp_path: Path) -> None:
    hive = tmp_path / "hive"
    (hive / "window").mkdir(parents=True)
    transcript = tmp_path / "s.jsonl"
    transcript.write_text(transcript_line("user", "u1", "hello"))
    base = {"transcript_path": str(transcript), "cwd": "/work/app"}
    env = {"HORIZON_CONFIG": str(tmp_path / "none.json")}
    (tmp_path / "none.json").write_text(json.dumps({"hives": [str(hive)]}))
    cases = [
        # No daemon: said, and the view is printed all the same.
        (({**base, "hook_event_name": "SessionStart"}, "--hive", str(hive)), "no daemon beats"),
        (({**base, "hook_event_name": "Stop"}, "--hive", str(tmp_path / "gone")), "gone"),
        ((b"{not json", "--hive", str(hive)), "no hook event"),
        ((b'{"hook_event_name": 7}', "--hive", str(hive)), "no hook event"),
        (({**base, "hook_event_name": "Stop"}, "--hive", str(hive), "--bee", "../x"),
         "not a bee name"),
        (({**base, "hook_event_name": "Stop", "transcript_path": str(tmp_path)}, "--hive",
          str(hive)), "a folder"),
    ]
    for (event, *args), said in cases:
        done = hook(event, *args, env=env)
        assert done.returncode == 0, done
        assert said in done.stderr and len(done.stderr.splitlines()) == 1, done.stderr
        assert "Traceback" not in done.stderr
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    done = hook({**base, "hook_event_name": "Stop"}, "--hive", str(hive),
                env={"HORIZON_CONFIG": str(broken)})
    assert done.returncode == 0 and "broken.json" in done.stderr


def test_the_printed_hooks_block_wires_every_event_to_a_command_that_runs(
        tmp_path: Path) -> None:
    project = tmp_path / "my project.v2"
    project.mkdir()
    hive = tmp_path / "hive"
    (hive / "window").mkdir(parents=True)
    printed = subprocess.run([HORIZON, "example", "claude-code", "--hive", str(hive)],
                             capture_output=True, text=True, check=True, cwd=project,
                             env={**os.environ, "HORIZON_CONFIG": str(tmp_path / "no.json")})
    hooks = json.loads(printed.stdout)["hooks"]
    assert set(hooks) == {"SessionStart", "UserPromptSubmit", "PostToolUse",
                          "PostToolUseFailure", "Stop", "PreCompact"}
    [[command]] = {json.dumps(group["hooks"][0]["command"]) for groups in hooks.values()
                   for group in groups},
    words = shlex.split(json.loads(command))
    assert words[1:] == ["hook", "claude-code", "--hive", str(hive), "--bee", "my-project-v2"]
    done = subprocess.run(words, input=json.dumps({
        "hook_event_name": "UserPromptSubmit", "prompt": "Ship the release notes.",
        "cwd": str(project)}), capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0 and done.stderr == ""
    [line] = (hive / "window" / "my-project-v2-messages.jsonl").read_text().splitlines()
    assert json.loads(line)["question"] == "Ship the release notes."
