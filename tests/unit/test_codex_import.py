"""A Codex CLI rollout read into journal entries (horizon.imports.codex).

The fixtures are real rollouts, written by the Codex CLI itself (0.171.0 and 0.50.0)
driven by a scripted model (bench/codex_rollout/make_rollout.py). What they hold is counted
here from their raw JSON, by this file's own reading, and the reader's entries are checked
against those counts and against the daemon's own decoder.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest

from horizon.core.entries import Entry, decode_line
from horizon.imports import OPERATOR, Converted, Problem, Result, Unfinished, journal_line
from horizon.imports.codex import CodexReader, entries

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "codex"
UNIFIED = next(FIXTURES.glob("rollout-*-unified.jsonl"))  # codex-cli 0.171.0, two turns
SHELL = next(FIXTURES.glob("rollout-*-shell.jsonl"))  # codex-cli 0.50.0, the shell tool
ROLLOUTS = [UNIFIED, SHELL]
CWD = "/tmp/codex-fixture/tree"


def lines_of(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines(keepends=True)


def read(path: Path) -> list[Result]:
    return list(entries(enumerate(lines_of(path), 1)))


def converted(results: list[Result], kind: str | None = None) -> list[Converted]:
    return [r for r in results if isinstance(r, Converted)
            and (kind is None or r.entry.type == kind)]


def tools(results: list[Result]) -> dict[str, Converted]:
    return {r.uuid: r for r in converted(results, "tool")}


# -- what the real rollouts hold, by this file's own reading ------------------------------------

def payloads(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in lines_of(path)]


def typed_prompts(path: Path) -> list[str]:
    prompts = []
    for line in payloads(path):
        payload = line["payload"]
        if line["type"] == "event_msg" and payload["type"] == "user_message":
            prompts.append(payload["message"])
        elif (line["type"] == "event_msg" and payload["type"] == "item_completed"
              and payload["item"]["type"] == "UserMessage"):
            prompts.append("".join(part["text"] for part in payload["item"]["content"]))
    return prompts


def assistant_texts(path: Path) -> list[str]:
    return ["".join(part["text"] for part in line["payload"]["content"])
            for line in payloads(path)
            if line["type"] == "response_item" and line["payload"]["type"] == "message"
            and line["payload"]["role"] == "assistant"]


def call_ids(path: Path) -> list[str]:
    return [line["payload"]["call_id"] for line in payloads(path)
            if line["type"] == "response_item"
            and line["payload"]["type"] in ("function_call", "custom_tool_call")]


@pytest.mark.parametrize("path", ROLLOUTS, ids=lambda p: p.name.rsplit("-", 1)[-1])
def test_a_real_rollout_is_read_whole(path: Path) -> None:
    results = read(path)
    assert [r for r in results if not isinstance(r, Converted)] == []
    prompts = converted(results, "conversation")
    assert [p.entry.question for p in prompts] == typed_prompts(path)
    assert all(p.entry.sender == OPERATOR and p.entry.answer == "" for p in prompts)
    assert [a.entry.answer for a in converted(results, "assistant")] == assistant_texts(path)
    assert all(a.entry.question == "" for a in converted(results, "assistant"))
    assert list(tools(results)) == call_ids(path)
    # In order, each entry once, each a line the daemon's own decoder takes.
    numbers = [r.line_number for r in converted(results)]
    assert numbers == sorted(numbers) and len(set(numbers)) == len(numbers)
    assert len({r.uuid for r in converted(results)}) == len(numbers)
    for result in converted(results):
        assert isinstance(decode_line(1, journal_line(result.entry)[:-1]), Entry)
        assert result.entry.ts == json.loads(lines_of(path)[result.line_number - 1])[
            "timestamp"] or result.entry.type == "tool"


def test_the_injected_context_is_no_prompt() -> None:
    for path in ROLLOUTS:
        for prompt in converted(read(path), "conversation"):
            assert "<environment_context>" not in prompt.entry.question
            assert "AGENTS.md" not in prompt.entry.question
            assert "<skills_instructions>" not in prompt.entry.question


def test_unified_exec_calls_and_their_exit_codes() -> None:
    calls = tools(read(UNIFIED))
    summary = {uuid: (r.entry.tool, r.entry.question, r.entry.ok, r.entry.files)
               for uuid, r in calls.items()}
    unset = msgspec.UNSET
    assert summary == {
        "call_ls": ("exec_command", "ls -a", True, unset),
        "call_cat": ("exec_command", "cat missing.txt", False, unset),
        "call_add": ("apply_patch", "hello.py", True, ("hello.py",)),
        "call_edit": ("apply_patch", "hello.py", True, ("hello.py",)),
        "call_run": ("exec_command", "python3 hello.py", True, unset),
        "call_exit3": ("exec_command", "python3 -c 'import sys; sys.exit(3)'", False, unset),
    }
    # The answer is what the command printed, Codex's header (chunk, wall time, code) cut.
    assert calls["call_ls"].entry.answer == ".\n..\n.git\nREADME.md\n"
    assert calls["call_cat"].entry.answer == "cat: missing.txt: No such file or directory\n"
    assert calls["call_run"].entry.answer == "hello, world\n"
    assert "Success. Updated the following files" in calls["call_add"].entry.answer
    # A tool's ts is its call's line's, its line number its output's.
    raw = lines_of(UNIFIED)
    output_line = json.loads(raw[calls["call_ls"].line_number - 1])
    assert output_line["payload"] == {**output_line["payload"], "type": "function_call_output",
                                      "call_id": "call_ls"}
    call_line = next(json.loads(line) for line in raw if b'"call_id": "call_ls"' in line
                     or b'"call_id":"call_ls"' in line)
    assert calls["call_ls"].entry.ts == call_line["timestamp"]


def test_the_shell_tool_of_codex_0_50() -> None:
    calls = tools(read(SHELL))
    summary = {uuid: (r.entry.tool, r.entry.question, r.entry.ok, r.entry.files)
               for uuid, r in calls.items()}
    assert summary == {
        "call_sh_ls": ("shell", "ls -la", True, msgspec.UNSET),  # bash -lc "ls -la"
        "call_sh_cat": ("shell", "cat missing.txt", False, msgspec.UNSET),
        "call_sh_add": ("shell", "NOTES.md", True, ("NOTES.md",)),  # ["apply_patch", PATCH]
    }
    # The output inside Codex's JSON wrapping, not the JSON.
    assert calls["call_sh_cat"].entry.answer == "cat: missing.txt: No such file or directory\n"
    assert calls["call_sh_ls"].entry.answer.startswith("total ")


# -- small rollouts, written as Codex writes them -----------------------------------------------

TS = "2026-12-06T03:00:00.000Z"


def line(kind: str, payload: dict[str, Any], ts: str = TS) -> dict[str, Any]:
    return {"timestamp": ts, "type": kind, "payload": payload}


def meta(cwd: str = CWD) -> dict[str, Any]:
    return line("session_meta", {"id": "s-1", "timestamp": TS, "cwd": cwd,
                                 "originator": "codex_cli_rs", "cli_version": "0.50.0"})


def prompt(text: str, kind: str | None = None) -> dict[str, Any]:
    payload: dict[str, Any] = {"type": "user_message", "message": text, "images": []}
    if kind is not None:
        payload["kind"] = kind
    return line("event_msg", payload)


def user_item(text: str, item_id: str = "item-1") -> dict[str, Any]:
    return line("event_msg", {"type": "item_completed", "thread_id": "s-1", "turn_id": "t",
                              "item": {"type": "UserMessage", "id": item_id,
                                       "content": [{"type": "text", "text": text,
                                                    "text_elements": []}]}})


def said(text: str, role: str = "assistant", **more: Any) -> dict[str, Any]:
    part = "output_text" if role == "assistant" else "input_text"
    return line("response_item", {"type": "message", "role": role,
                                  "content": [{"type": part, "text": text}], **more})


def function_call(call_id: str, name: str, **arguments: Any) -> dict[str, Any]:
    return line("response_item", {"type": "function_call", "name": name, "call_id": call_id,
                                  "arguments": json.dumps(arguments)})


def custom_call(call_id: str, name: str, given: str) -> dict[str, Any]:
    return line("response_item", {"type": "custom_tool_call", "name": name,
                                  "call_id": call_id, "input": given})


def output(call_id: str, text: Any, kind: str = "function_call_output") -> dict[str, Any]:
    return line("response_item", {"type": kind, "call_id": call_id, "output": text})


def convert(*records: dict[str, Any] | str | bytes) -> list[Result]:
    lines = [r if isinstance(r, (str, bytes)) else json.dumps(r) + "\n" for r in records]
    return list(entries(enumerate(lines, 1)))


def only(results: list[Result]) -> Converted:
    assert len(results) == 1 and isinstance(results[0], Converted), results
    return results[0]


def test_a_prompt_and_an_answer() -> None:
    results = convert(meta(), said("<environment_context>…</environment_context>", "user"),
                      said("be brief", "developer"), said("fix it", "user"), prompt("fix it"),
                      said("Done."))
    first, second = converted(results)
    assert first.entry.type == "conversation" and first.entry.question == "fix it"
    assert first.entry.sender == OPERATOR and first.entry.id == first.uuid == "line 5"
    assert first.line_number == 5 and first.entry.ts == TS
    assert second.entry.type == "assistant" and second.entry.answer == "Done."
    assert second.uuid == "line 6"
    assert only(convert(said("Done.", id="msg_9"))).uuid == "msg_9"


def test_injected_prompts_and_repeats_are_skipped() -> None:
    assert converted(convert(prompt("<environment_context>x</environment_context>"))) == []
    assert converted(convert(prompt("AGENTS.md says", kind="user_instructions"))) == []
    assert converted(convert(prompt("   "))) == []
    # A writer of both the event and the item: the prompt once, from the event.
    twice = converted(convert(prompt("go"), user_item("go")))
    assert [(r.line_number, r.entry.question) for r in twice] == [(1, "go")]
    # The item alone (codex-cli 0.171), its id the uuid; the same words typed again later
    # are a new prompt.
    again = converted(convert(user_item("go"), said("ok"), user_item("go", "item-2")))
    assert [(r.uuid, r.entry.type) for r in again] == [
        ("item-1", "conversation"), ("line 2", "assistant"), ("item-2", "conversation")]


def test_shell_commands_as_a_shell_shows_them() -> None:
    def question(**arguments: Any) -> str:
        return only(convert(function_call("c", "shell", **arguments),
                            output("c", "done"))).entry.question

    assert question(command=["bash", "-lc", "ls -la | head"]) == "ls -la | head"
    assert question(command=["/bin/zsh", "-c", "echo hi"]) == "echo hi"
    assert question(command=["cat", "my file.txt"]) == "cat 'my file.txt'"
    assert question(command=["bash", "-lc", "a", "b"]) == "bash -lc a b"
    assert only(convert(function_call("c", "shell_command", command="git status"),
                        output("c", "x"))).entry.question == "git status"
    assert only(convert(function_call("c", "update_plan", plan=[{"step": "a"}]),
                        output("c", "x"))).entry.question == '{"plan":[{"step":"a"}]}'
    local = only(convert(
        line("response_item", {"type": "local_shell_call", "call_id": "c", "status": "completed",
                               "action": {"type": "exec", "command": ["ls", "-a"]}}),
        output("c", "x")))
    assert (local.entry.tool, local.entry.question) == ("local_shell", "ls -a")


@pytest.mark.parametrize(("text", "ok", "answer"), [
    ('{"output":"boom\\n","metadata":{"exit_code":2,"duration_seconds":0.1}}', False, "boom\n"),
    ('{"output":"fine","metadata":{"exit_code":0}}', True, "fine"),
    ("Exit code: 0\nWall time: 0.2 seconds\nOutput:\nfine\n", True, "fine\n"),
    ("Exit code: 1\nWall time: 0.2 seconds\nTotal output lines: 1\nOutput:\nno\n", False, "no\n"),
    ("Chunk ID: ab\nWall time: 0.1 seconds\nProcess exited with code 7\nOriginal token count: 1"
     "\nOutput:\nx\n", False, "x\n"),
    ("Chunk ID: ab\nWall time: 1 seconds\nProcess running with session ID 3\nOutput:\n", None,
     "Chunk ID: ab\nWall time: 1 seconds\nProcess running with session ID 3\nOutput:\n"),
    ("execution error: sandbox denied", None, "execution error: sandbox denied"),
    ([{"type": "input_text", "text": "from parts"}], None, "from parts"),
])
def test_ok_from_the_exit_code_the_output_says(text: Any, ok: bool | None,
                                               answer: str) -> None:
    entry = only(convert(function_call("c", "shell", command=["true"]), output("c", text))).entry
    assert entry.ok == (msgspec.UNSET if ok is None else ok)
    assert entry.answer == answer


def test_ok_from_the_exec_end_event_when_the_output_says_none() -> None:
    end = line("event_msg", {"type": "exec_command_end", "call_id": "c", "exit_code": 4,
                             "stdout": "", "stderr": "", "aggregated_output": ""})
    entry = only(convert(function_call("c", "shell", command=["false"]), end,
                         output("c", "it failed"))).entry
    assert entry.ok is False and entry.answer == "it failed"


def test_apply_patch_files_relative_to_the_cwd() -> None:
    patch = ("*** Begin Patch\n*** Add File: /tmp/codex-fixture/tree/src/new.py\n+x\n"
             "*** Update File: README.md\n*** Move to: docs/README.md\n@@\n-a\n+b\n"
             "*** Delete File: /elsewhere/old.txt\n*** End Patch\n")
    entry = only(convert(meta(), custom_call("p", "apply_patch", patch),
                         output("p", "Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess.\n",
                                "custom_tool_call_output"))).entry
    assert entry.files == ("src/new.py", "README.md", "docs/README.md", "/elsewhere/old.txt")
    assert entry.question == "src/new.py, README.md, docs/README.md, /elsewhere/old.txt"
    assert entry.ok is True and entry.answer == "Success.\n"
    # As a function call, and through the shell with a workdir.
    as_function = only(convert(meta(), function_call("p", "apply_patch", input=patch),
                               output("p", "done"))).entry
    assert as_function.files == entry.files
    heredoc = f"apply_patch <<'EOF'\n{patch}EOF\n"
    through_shell = only(convert(meta(), function_call(
        "p", "shell", command=["bash", "-lc", heredoc], workdir=f"{CWD}/sub"),
        output("p", "done"))).entry
    assert through_shell.files == ("src/new.py", "sub/README.md", "sub/docs/README.md",
                                   "/elsewhere/old.txt")


# -- what cannot be read ------------------------------------------------------------------------

def problems(results: list[Result]) -> list[tuple[int, str]]:
    return [(r.line_number, r.reason) for r in results if isinstance(r, Problem)]


def test_bad_lines_are_problems_and_the_rest_is_kept() -> None:
    results = convert(prompt("one"), "not json\n", "[1, 2]\n", '{"type": 3}\n', prompt("two"))
    assert [r.entry.question for r in converted(results)] == ["one", "two"]
    found = problems(results)
    assert [n for n, _ in found] == [2, 3, 4]
    assert found[0][1].startswith("not JSON")
    assert found[1][1].startswith("not an object with a string type")


def test_a_truncated_last_line() -> None:
    whole = json.dumps(said("the end")) + "\n"
    results = convert(prompt("go"), whole[:30])
    assert problems(results) == [(2, "truncated last line: no newline, not whole JSON")]
    # A last line whole but without its newline is read.
    assert converted(convert(whole[:-1]))[0].entry.answer == "the end"


def test_unknown_types_are_skipped_silently() -> None:
    results = convert(
        line("world_state", {"full": True}), line("compacted", {"message": "sum"}),
        line("token_usage_record", {"usage": {}}), {"type": "someday", "payload": 1},
        line("response_item", {"type": "reasoning", "summary": []}),
        line("response_item", {"type": "web_search_call", "status": "completed"}),
        line("event_msg", {"type": "token_count", "info": None}),
        line("event_msg", {"type": "agent_message", "message": "dup"}),
        line("event_msg", {"type": "item_completed", "item": {"type": "AgentMessage"}}))
    assert results == []


def test_a_known_type_of_another_shape_is_a_problem() -> None:
    results = convert(
        line("response_item", {"type": "function_call", "name": "shell"}),  # no call_id
        line("response_item", {"type": "message", "role": "assistant", "content": "str"}),
        line("response_item", "not an object"),
        line("event_msg", {"type": "user_message", "message": 42}),
        line("event_msg", {"type": "item_completed", "item": {"type": "UserMessage",
                                                              "content": "x"}}),
        line("session_meta", []),
        {**said("late"), "timestamp": "yesterday"})
    found = problems(results)
    assert [n for n, _ in found] == [1, 2, 3, 4, 5, 6, 7]
    assert "function_call of unknown shape" in found[0][1]
    assert "payload is not an object" in found[2][1]
    assert "not RFC 3339" in found[6][1]


def test_an_output_without_its_call_and_a_call_id_twice() -> None:
    results = convert(output("ghost", "x"), function_call("c", "shell", command=["a"]),
                      function_call("c", "shell", command=["b"]), output("c", "y"))
    assert problems(results) == [(1, "an output without its call: ghost"),
                                 (3, "a call_id given twice: c")]
    assert only([r for r in results if isinstance(r, Converted)]).entry.question == "a"


def test_a_call_still_waiting_is_unfinished() -> None:
    reader = CodexReader()
    lines = [json.dumps(r) + "\n" for r in (prompt("go"), function_call("c", "shell",
                                                                         command=["sleep", "9"]))]
    results = list(reader.entries(enumerate(lines, 1)))
    assert results[-1] == Unfinished(2, "c", "shell", "sleep 9")
    # The prompt from its event might yet be repeated by its item; then the call is open.
    assert reader.settled_through == 0
    assert reader.name == "codex"


# -- resuming -----------------------------------------------------------------------------------

def entries_of(results: list[Result]) -> list[tuple[int, str, bytes]]:
    return [(r.line_number, r.uuid, journal_line(r.entry)) for r in converted(results)]


@pytest.mark.parametrize("path", ROLLOUTS, ids=lambda p: p.name.rsplit("-", 1)[-1])
def test_resuming_from_settled_through_gives_the_same_entries(path: Path) -> None:
    lines = lines_of(path)
    whole = entries_of(list(CodexReader().entries(enumerate(lines, 1))))
    for k in range(len(lines) + 1):
        first = CodexReader()
        head = list(first.entries(enumerate(lines[:k], 1)))
        # What the first k lines give is what the whole rollout gives first.
        assert entries_of(head) == whole[:len(entries_of(head))]
        settled = first.settled_through
        assert 0 <= settled <= k
        rest = list(CodexReader().entries(enumerate(lines[settled:], settled + 1)))
        kept = [e for e in entries_of(head) if e[0] <= settled]
        assert kept + entries_of(rest) == whole, k


def test_resuming_a_rollout_without_cwd_settles_after_each_closed_call() -> None:
    records = [user_item("go"), function_call("c", "shell", command=["ls"]),
               output("c", "Exit code: 0\nOutput:\nx\n"), said("done")]
    lines = [json.dumps(r) + "\n" for r in records]
    settled = []
    for k in range(len(lines) + 1):
        reader = CodexReader()
        list(reader.entries(enumerate(lines[:k], 1)))
        settled.append(reader.settled_through)
    assert settled == [0, 1, 1, 3, 4]
