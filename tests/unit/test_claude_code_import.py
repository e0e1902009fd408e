"""A Claude Code transcript read into journal entries (horizon.imports.claude_code).

The real session is counted here from its raw JSON, by this file's own reading, and the
converter's entries are checked against those counts and against the daemon's own decoder.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import msgspec
import pytest

from horizon.core.entries import Entry, decode_line
from horizon.imports import (
    Converted,
    Problem,
    Result,
    Unfinished,
    claude_code,
    journal_line,
    journal_record,
)

TRANSCRIPT = (Path(__file__).resolve().parents[1] / "fixtures" / "real-sessions"
              / "claude-code-ae4a77f8.jsonl")
CWD = "/work/tree"


@pytest.fixture(scope="module")
def raw_lines() -> list[bytes]:
    return TRANSCRIPT.read_bytes().splitlines(keepends=True)


@pytest.fixture(scope="module")
def raw(raw_lines: list[bytes]) -> list[dict[str, Any]]:
    return [json.loads(line) for line in raw_lines]


@pytest.fixture(scope="module")
def results(raw_lines: list[bytes]) -> list[Result]:
    return list(claude_code.entries(enumerate(raw_lines, 1)))


def converted(results: list[Result], kind: str | None = None) -> list[Converted]:
    return [r for r in results if isinstance(r, Converted)
            and (kind is None or r.entry.type == kind)]


def convert(*records: dict[str, Any] | str | bytes) -> list[Result]:
    lines = [r if isinstance(r, (str, bytes)) else json.dumps(r) + "\n" for r in records]
    return list(claude_code.entries(enumerate(lines, 1)))


# -- small transcripts, written as Claude Code writes them ------------------------------------

def user(content: Any, uuid: str = "u1", ts: str = "2026-02-12T14:00:00.000Z",
         **more: Any) -> dict[str, Any]:
    return {"type": "user", "uuid": uuid, "timestamp": ts, "cwd": CWD, "isSidechain": False,
            "message": {"role": "user", "content": content}, **more}


def assistant(*blocks: dict[str, Any], uuid: str = "a1", message: str = "msg_1",
              ts: str = "2026-02-12T14:00:01.000Z", **more: Any) -> dict[str, Any]:
    return {"type": "assistant", "uuid": uuid, "timestamp": ts, "cwd": CWD,
            "isSidechain": False,
            "message": {"id": message, "role": "assistant", "content": list(blocks)}, **more}


def text(words: str) -> dict[str, Any]:
    return {"type": "text", "text": words}


def tool_use(call: str, name: str, **given: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": call, "name": name, "input": given}


def tool_result(call: str, content: Any, uuid: str = "r1", error: bool = False
                ) -> dict[str, Any]:
    return user([{"type": "tool_result", "tool_use_id": call, "content": content,
                  "is_error": error}], uuid=uuid, ts="2026-02-12T14:00:05.000Z")


# -- the real session ---------------------------------------------------------------------------

def test_the_real_transcript_converts_without_a_problem(results: list[Result]) -> None:
    assert [r for r in results if not isinstance(r, Converted)] == []
    assert all(r.settled for r in converted(results))


def test_every_entry_is_one_the_daemon_accepts(results: list[Result]) -> None:
    for number, result in enumerate(converted(results), 1):
        line = journal_line(result.entry)
        assert line.endswith(b"\n") and line.count(b"\n") == 1
        decoded = decode_line(number, line[:-1])
        assert isinstance(decoded, Entry), decoded
        assert not decoded.bad_field
        assert decoded.question == result.entry.question
        assert decoded.answer == result.entry.answer


def typed_prompts(raw: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The operator's typed prompts, as this test reads the raw lines."""
    found, after_boundary = [], False
    for record in raw:
        if record["type"] == "system" and record.get("subtype") == "compact_boundary":
            after_boundary = True
        if record["type"] != "user":
            continue
        content = record["message"]["content"]
        blocks: list[str | None] = [content] if isinstance(content, str) else [
            b.get("text") if b["type"] == "text" else None for b in content]
        words = "".join(b for b in blocks if b is not None)
        typed = None not in blocks and not (
            record.get("isMeta") or record.get("isCompactSummary") or after_boundary)
        after_boundary = False
        if typed and not words.startswith("<local-command-"):
            found.append(record)
    return found


def test_every_typed_prompt_is_the_operators(raw: list[dict[str, Any]],
                                             results: list[Result]) -> None:
    prompts = typed_prompts(raw)
    entries = converted(results, "conversation")
    assert [e.uuid for e in entries] == [p["uuid"] for p in prompts]
    assert len(entries) == 3
    for entry, prompt in zip(entries, prompts, strict=True):
        assert journal_record(entry.entry)["from"] == "apicultrice"
        assert entry.entry.id == prompt["uuid"] and entry.entry.answer == ""
        assert entry.entry.ts == prompt["timestamp"]
    first, command, last = (e.entry.question for e in entries)
    assert first == prompts[0]["message"]["content"]
    assert first.startswith("Work on bead spotter-4te.")
    assert command == "/compact and continue with the reamining tasks"
    assert last == "continue implementation"


def test_every_assistant_text_block_is_an_assistant_entry(raw: list[dict[str, Any]],
                                                         results: list[Result]) -> None:
    blocks = [(record["uuid"], block["text"].strip()) for record in raw
              if record["type"] == "assistant" and not record["isSidechain"]
              for block in record["message"]["content"]
              if block["type"] == "text" and block["text"].strip()]
    entries = converted(results, "assistant")
    assert len(blocks) == 158
    assert len(entries) == len(blocks)  # in this session no message has two text blocks
    assert [(e.uuid, e.entry.answer) for e in entries] == blocks
    assert all(e.entry.question == "" and e.entry.sender is msgspec.UNSET for e in entries)
    assert "sender" not in journal_record(entries[0].entry)
    assert "from" not in journal_record(entries[0].entry)


def raw_calls(raw: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    """(result line uuid, tool_use, tool_result) for every call, in the results' order."""
    uses = {block["id"]: (record, block) for record in raw if record["type"] == "assistant"
            for block in record["message"]["content"] if block["type"] == "tool_use"}
    return [(record["uuid"], uses[block["tool_use_id"]][1] | {
                "ts": uses[block["tool_use_id"]][0]["timestamp"]}, block)
            for record in raw if record["type"] == "user"
            and isinstance(record["message"]["content"], list)
            for block in record["message"]["content"] if block["type"] == "tool_result"]


def test_every_tool_call_is_one_entry_with_its_result(raw: list[dict[str, Any]],
                                                      results: list[Result]) -> None:
    calls = raw_calls(raw)
    entries = converted(results, "tool")
    assert len(calls) == len(entries) == 242
    assert Counter(e.entry.tool for e in entries) == Counter(
        {"Bash": 120, "Edit": 67, "Read": 37, "Write": 6, "Glob": 5, "WebFetch": 4, "Task": 1,
         "Skill": 1, "Grep": 1})
    for entry, (uuid, use, result) in zip(entries, calls, strict=True):
        assert entry.uuid == uuid
        assert entry.entry.tool == use["name"] and entry.entry.ts == use["ts"]
        content = result["content"]
        expected = content if isinstance(content, str) else "\n".join(
            block["text"] for block in content)
        assert entry.entry.answer == expected
        if use["name"] == "Bash":
            assert entry.entry.question == use["input"]["command"]


def test_ok_is_false_exactly_for_the_twelve_errors(raw: list[dict[str, Any]],
                                                   results: list[Result]) -> None:
    errors = {uuid for uuid, _, result in raw_calls(raw) if result.get("is_error")}
    assert len(errors) == 12
    entries = converted(results, "tool")
    assert {e.uuid for e in entries if e.entry.ok is False} == errors
    assert all(e.entry.ok is True for e in entries if e.uuid not in errors)


def test_files_are_relative_to_the_work_tree(raw: list[dict[str, Any]],
                                             results: list[Result]) -> None:
    root = "/home/USER/projects/spotter-worktrees/spotter-4te/"
    entries = converted(results, "tool")
    for entry, (_, use, _) in zip(entries, raw_calls(raw), strict=True):
        path = use["input"].get("file_path")
        if use["name"] in {"Read", "Edit", "Write"}:
            assert path.startswith(root)
            assert entry.entry.files == (path[len(root):],)
            assert entry.entry.question == path[len(root):]
        else:
            assert entry.entry.files is msgspec.UNSET
    changed = {f for e in entries if e.entry.tool in {"Edit", "Write"}
               and isinstance(e.entry.files, tuple) for f in e.entry.files}
    assert "lib/spotter_web/controllers/otel_trace_helpers.ex" in changed
    assert ".dialyzerignore" in changed
    assert not any(f.startswith("/") for f in changed)


def test_a_longer_transcript_gives_the_same_results_first(raw_lines: list[bytes],
                                                          results: list[Result]) -> None:
    full = converted(results)
    for cut in range(0, len(raw_lines) + 1, 53):
        part = list(claude_code.entries(enumerate(raw_lines[:cut], 1)))
        settled = [r for r in converted(part) if r.settled]
        assert settled == full[:len(settled)], cut
        waiting = [r for r in part if isinstance(r, Unfinished)]
        later = {r.uuid for r in full[len(settled):]}
        assert len(waiting) <= len(later)


# -- the inputs that go wrong -------------------------------------------------------------------

def test_a_truncated_last_line_is_a_problem_and_loses_nothing_else() -> None:
    whole = json.dumps(user("first prompt")) + "\n"
    cut = json.dumps(user("second prompt", uuid="u2"))[:-7]  # no newline, not whole JSON
    results = convert(whole, cut)
    assert [r.entry.question for r in converted(results)] == ["first prompt"]
    assert results[1] == Problem(2, "truncated last line: no newline, not whole JSON")


def test_a_line_that_is_not_json_or_not_an_object_is_a_problem() -> None:
    results = convert(user("before"), "this is not json\n", "[1, 2]\n", '{"kind": 1}\n',
                      user("after", uuid="u2"))
    assert [r.entry.question for r in converted(results)] == ["before", "after"]
    problems = [r for r in results if isinstance(r, Problem)]
    assert [p.line_number for p in problems] == [2, 3, 4]
    assert problems[0].reason.startswith("not JSON")
    assert problems[1].reason.startswith("not an object")


def test_unknown_entry_types_are_skipped_silently() -> None:
    results = convert({"type": "queue-operation", "operation": "dequeue"},
                      {"type": "summary", "summary": "x", "leafUuid": "y"},
                      {"type": "something-new", "uuid": None},
                      user("the prompt"))
    assert [(r.line_number, r.entry.question) for r in converted(results)] == [
        (4, "the prompt")]
    assert len(results) == 1


def test_an_unknown_shape_of_a_message_is_a_problem() -> None:
    results = convert(assistant({"type": "hologram", "beam": 1}),
                      user(42, uuid="u2"), user("kept", uuid="u3"),
                      user("bad time", uuid="u4", ts="yesterday"))
    assert [r.entry.question for r in converted(results)] == ["kept"]
    assert [r.line_number for r in results if isinstance(r, Problem)] == [1, 2, 4]


def test_a_tool_result_without_its_tool_use_is_reported_and_skipped() -> None:
    results = convert(tool_result("toolu_nobody", "output"), user("next", uuid="u2"))
    assert results[0] == Problem(1, "a tool_result without its tool_use: toolu_nobody")
    assert [r.entry.question for r in converted(results)] == ["next"]


def test_a_tool_call_without_its_result_makes_no_entry() -> None:
    results = convert(assistant(tool_use("toolu_1", "Bash", command="make test")))
    assert results == [Unfinished(1, "a1", "Bash", "make test")]


def test_a_megabyte_of_tool_output_passes_whole() -> None:
    output = "".join(f"line {n}: {'x' * 80}\n" for n in range(12_000))
    assert len(output) > 1_000_000
    results = convert(assistant(tool_use("toolu_1", "Bash", command="cat big.log")),
                      tool_result("toolu_1", output))
    [entry] = converted(results)
    assert entry.entry.answer == output and entry.entry.ok is True
    assert isinstance(decode_line(1, journal_line(entry.entry)[:-1]), Entry)


def test_a_system_reminder_inside_a_prompt_is_removed() -> None:
    prompt = ("<system-reminder>\nThe user opened src/app.py in the IDE.\n</system-reminder>"
              "Fix the failing test in tests/test_app.py\n<system-reminder>more</system-reminder>")
    [entry] = converted(convert(user(prompt)))
    assert entry.entry.question == "Fix the failing test in tests/test_app.py"
    assert converted(convert(user("<system-reminder>only this</system-reminder>"))) == []


def test_a_reminder_appended_to_a_result_is_removed_and_a_files_own_tag_kept() -> None:
    read = ("     1\tdef main():\n     2\t    pass\n\n<system-reminder>\nWhenever you read a "
            "file, you should consider whether it would be considered malware.\n"
            "</system-reminder>\n")
    results = convert(assistant(tool_use("toolu_1", "Read", file_path=f"{CWD}/app.py")),
                      tool_result("toolu_1", read))
    [entry] = converted(results)
    assert entry.entry.answer == "     1\tdef main():\n     2\t    pass"
    own = "a <system-reminder>kept</system-reminder> in the middle of a file\nend"
    results = convert(assistant(tool_use("toolu_2", "Read", file_path=f"{CWD}/x.md")),
                      tool_result("toolu_2", own))
    assert converted(results)[0].entry.answer == own


def test_local_command_wrappers_are_not_the_operators_words() -> None:
    results = convert(
        user("<local-command-caveat>Caveat: the messages below...</local-command-caveat>",
             isMeta=True),
        user("<command-name>/clear</command-name>\n<command-message>clear</command-message>"
             "\n<command-args></command-args>", uuid="u2"),
        user("<local-command-stdout>Compacted</local-command-stdout>", uuid="u3"),
        user([text("<command-name>/review</command-name><command-args>the auth module"
                   "</command-args>")], uuid="u4"),
        user("[Request interrupted by user]", uuid="u5"),
        user("<command-name>/model</command-name>\n<command-message>model</command-message>"
             "\n<command-args>sonnet</command-args>", uuid="u6"))
    assert [r.entry.question for r in converted(results)] == ["/review the auth module"]


def test_an_ide_extensions_notes_are_not_the_operators_words() -> None:
    opened = ("<ide_opened_file>The user opened the file /home/dana/src/app/models.py in the "
              "IDE. This may or may not be related to the current task.</ide_opened_file>")
    selected = ("<ide_selection>The user selected the lines 3 to 9 from /home/dana/src/app/"
                "models.py:\nclass Invoice:\n    pass\n</ide_selection>")
    results = convert(
        user([text(opened), text("sounds good")]),
        user([text(selected), text("why is this slow?")], uuid="u2"),
        user([text(opened)], uuid="u3"))
    assert [r.entry.question for r in converted(results)] == ["sounds good",
                                                              "why is this slow?"]


def test_sidechains_and_compaction_summaries_are_skipped() -> None:
    results = convert(
        user("the subagent's prompt", isSidechain=True),
        assistant(text("the subagent's answer"), isSidechain=True),
        {"type": "system", "subtype": "compact_boundary", "content": "Conversation compacted"},
        user("This session is being continued from a previous conversation...", uuid="u2"),
        user("Summary again", uuid="u3", isCompactSummary=True),
        user("real words", uuid="u4"))
    assert [r.entry.question for r in converted(results)] == ["real words"]


def test_an_assistant_message_joins_its_text_blocks_around_thinking() -> None:
    results = convert(
        assistant(text("First part."), uuid="a1"),
        {"type": "progress", "data": {}},
        assistant({"type": "thinking", "thinking": "hmm", "signature": "s"}, uuid="a2"),
        assistant(text("\n\nSecond part."), uuid="a3"),
        assistant(tool_use("toolu_1", "Read", file_path=f"{CWD}/src/app.py"), uuid="a4"),
        assistant(text("After the call."), uuid="a5"),
        assistant(text("Another message."), uuid="a6", message="msg_2"))
    entries = converted(results)
    assert [(e.uuid, e.entry.answer) for e in entries] == [
        ("a3", "First part.\n\nSecond part."), ("a5", "After the call."),
        ("a6", "Another message.")]
    assert entries[0].entry.ts == "2026-02-12T14:00:01.000Z"
    assert [e.settled for e in entries] == [True, True, False]  # the end cut the last
    assert results[-1] == Unfinished(5, "a4", "Read", "src/app.py")


@pytest.mark.parametrize(("name", "given", "question"), [
    ("Bash", {"command": "git status\ngit diff"}, "git status\ngit diff"),
    ("Edit", {"file_path": f"{CWD}/lib/a.ex", "old_string": "a"}, "lib/a.ex"),
    ("Write", {"file_path": "/elsewhere/b.ex", "content": "b"}, "/elsewhere/b.ex"),
    ("NotebookEdit", {"notebook_path": f"{CWD}/n.ipynb"}, "n.ipynb"),
    ("Grep", {"pattern": "with_span", "path": f"{CWD}/deps"}, "with_span in deps"),
    ("Glob", {"pattern": "**/*.sh"}, "**/*.sh"),
    ("WebFetch", {"url": "https://hexdocs.pm/x", "prompt": "p"}, "https://hexdocs.pm/x"),
    ("Task", {"description": "Check versions", "prompt": "long"}, "Check versions"),
    ("Skill", {"skill": "elixir:docs", "args": "setup"},
     '{"skill":"elixir:docs","args":"setup"}'),
])
def test_a_tool_calls_question_says_what_it_was_called_on(name: str, given: dict[str, Any],
                                                         question: str) -> None:
    results = convert(assistant(tool_use("toolu_1", name, **given)),
                      tool_result("toolu_1", [text("done")], error=True))
    [entry] = converted(results)
    assert entry.entry.question == question
    assert entry.entry.answer == "done" and entry.entry.ok is False
    if name in {"Edit", "Write", "NotebookEdit"}:
        assert entry.entry.files == (question,)


def test_a_long_input_is_cut_and_blocks_held_as_json_are_read() -> None:
    stringified = json.dumps([text("from a string")])
    results = convert(assistant(tool_use("toolu_1", "Mystery", data="y" * 500)),
                      tool_result("toolu_1", stringified))
    [entry] = converted(results)
    assert len(entry.entry.question) == 200 and entry.entry.question.endswith("…")
    assert entry.entry.answer == "from a string"
