"""`horizon hook claude-code`: one Claude Code hook event on stdin. The bee's journal is
brought up to date with the session's transcript (as `horizon import` does: the same
entries, the same record), and at a session's start the bee's view is printed for Claude
Code to add to the context.

It never stands in the agent's way: whatever goes wrong (no hive, a broken setting, an
unreadable transcript, a malformed event) is one line on stderr, and the exit is 0.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import msgspec

from horizon.cli.importing import (
    bee_of_folder,
    global_config,
    hive_of,
    reader,
    stop_cleanly_on_sigterm,
)
from horizon.cli.safe_text import printable
from horizon.client import ClientError, append
from horizon.core.errors import HorizonError
from horizon.imports.claude_code import call_summary, prompt_text
from horizon.imports.follow import follow
from horizon.imports.runtime import OPERATOR

MAX_EVENT_BYTES = 16 << 20
LOCK_WAIT_S = 3.0  # hooks of one turn wait for each other this long at most
STALE_BEATS = 3
# The turn, or the session, is over: a text the transcript ends on is whole.
FINISHING = frozenset(["Stop", "SubagentStop", "PreCompact", "SessionStart", "SessionEnd"])


class HookEvent(msgspec.Struct):
    """The fields of Claude Code's hook input that horizon reads; the others are left."""

    hook_event_name: str
    transcript_path: str = ""
    cwd: str = ""
    prompt: str | None = None
    tool_name: str | None = None
    tool_input: dict[str, object] | None = None
    tool_response: object = None
    error: str | None = None
    last_assistant_message: str | None = None


_event = msgspec.json.Decoder(HookEvent)


def command(args: argparse.Namespace) -> int:
    stop_cleanly_on_sigterm(0)  # killed at its timeout: the import records how far it got
    try:
        _run(args)
    except (HorizonError, OSError) as error:
        _warn(str(error))
    except Exception as error:  # a bug of ours must not stop the agent's turn either
        _warn(f"internal error, please report it: {type(error).__name__}: {error}")
    return 0


def _run(args: argparse.Namespace) -> None:
    raw = sys.stdin.buffer.read(MAX_EVENT_BYTES + 1)
    if len(raw) > MAX_EVENT_BYTES:
        _warn(f"the event on stdin is over {MAX_EVENT_BYTES >> 20} MiB; ignored")
        return
    try:
        event = _event.decode(raw)
    except msgspec.DecodeError as error:
        _warn(f"stdin holds no hook event ({error}); ignored")
        return
    config = global_config(args)
    hive = hive_of(args.hive, config)
    bee = args.bee or bee_of_folder(event.cwd or os.getcwd())
    if not event.transcript_path:
        _append_from_event(hive, bee, event)
    elif Path(event.transcript_path).exists():
        transcript = Path(event.transcript_path)
        report = follow(hive, bee, transcript, reader(args.runtime),
                        final=event.hook_event_name in FINISHING,
                        max_line_bytes=config.max_line_bytes, lock_wait_s=LOCK_WAIT_S)
        for problem in report.problems[:3]:
            _warn(f"{transcript}:{problem.line_number}: {problem.reason}; skipped")
        if report.problems_count > 3:
            _warn(f"{transcript}: {report.problems_count - 3} more lines skipped")
    # A transcript named but not written yet: its lines come with a later event (taken
    # from the event now, they would be there twice).
    if event.hook_event_name == "SessionStart":
        _print_view(hive, bee, args.config)


def _append_from_event(hive: Path, bee: str, event: HookEvent) -> None:
    """Without a transcript to read, the event's own fields make its entry (its time is
    now: the event carries none)."""
    ts = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    name = event.hook_event_name
    entry: dict[str, object] | None = None
    if name == "UserPromptSubmit" and event.prompt and (text := prompt_text(event.prompt)):
        entry = {"ts": ts, "type": "conversation", "from": OPERATOR, "question": text,
                 "answer": ""}
    elif name in ("PostToolUse", "PostToolUseFailure") and event.tool_name:
        question, files = call_summary(event.tool_name, event.tool_input or {}, event.cwd)
        failed = name == "PostToolUseFailure"
        entry = {"ts": ts, "type": "tool", "tool": event.tool_name, "question": question,
                 "answer": event.error or "" if failed else _response_text(event),
                 "ok": not failed}
        if isinstance(files, tuple):
            entry["files"] = list(files)
    elif name == "Stop" and event.last_assistant_message:
        entry = {"ts": ts, "type": "assistant", "question": "",
                 "answer": event.last_assistant_message}
    if entry is not None:
        append(hive, bee, entry, create=True)


def _response_text(event: HookEvent) -> str:
    """A tool's structured response as text: Bash's output, a read file's content, else
    the response as JSON."""
    response = event.tool_response
    if isinstance(response, str):
        return response
    if isinstance(response, dict):
        stdout, stderr = response.get("stdout"), response.get("stderr")
        if isinstance(stdout, str):
            return stdout + (f"\n{stderr}" if isinstance(stderr, str) and stderr else "")
        read = response.get("file")
        if isinstance(read, dict) and isinstance(read.get("content"), str):
            return str(read["content"])
    return json.dumps(response, ensure_ascii=False)


def _print_view(hive: Path, bee: str, config: str | None) -> None:
    # Only a session's start needs these: the other events do not load them.
    from horizon.client import BeeNotFound, view
    from horizon.hive.heartbeat import BEAT_S, read_heartbeat

    beat = read_heartbeat(hive)
    if beat is None or time.time() - beat.beat_epoch > STALE_BEATS * BEAT_S:
        _warn(f"no daemon beats for {hive}: the view is computed here, and handoff.md "
              "is not kept up to date")
    try:
        text = view(hive, bee, config=config).text
    except BeeNotFound:
        return  # a bee's first session, its transcript still empty: nothing to give yet
    except ClientError as error:
        _warn(f"no view for {bee}: {error}")
        return
    json.dump({"hookSpecificOutput": {"hookEventName": "SessionStart",
                                      "additionalContext": text}}, sys.stdout)
    sys.stdout.write("\n")


def _warn(message: str) -> None:
    print(printable(f"horizon hook: {message}"), file=sys.stderr)
