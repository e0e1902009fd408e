"""An OpenAI Codex CLI session rollout (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`) read
into horizon journal entries, line by line, reading no file (pure).

Codex writes one JSON object a line: `timestamp` (RFC 3339), `type`, and a `payload` whose
own `type` says what it holds. The first line is a `session_meta` (the session's `id` and
`cwd`); a resumed session appends to the same file. What each line becomes:

- `session_meta`, `turn_context`: nothing; their `cwd` is the one paths are made relative
  to.
- `event_msg` `user_message` (to codex-cli 0.1xx), and `event_msg` `item_completed` whose
  item is a `UserMessage` (0.171 writes only this one): the operator's typed prompt, a
  `conversation` from `apicultrice` (`question` the prompt, `id` its uuid). The prompt
  Codex also records as a `response_item` user message is skipped there, as are the
  messages it injects (AGENTS.md, `<environment_context>`, the developer's and the
  system's): they are not the operator's words. A `user_message` of a `kind` other than
  "plain", or whose text is one of those injected blocks, is skipped; a `UserMessage` item
  that only repeats the `user_message` just read (a writer of both) is skipped too.
  The prompt's uuid (and `id`) is the item's id, else "line N".
- `response_item` `message` of role `assistant`: an `assistant` entry (`answer` its
  `output_text` parts joined with a blank line, `question` empty). Codex writes a message
  whole on one line, so it is never cut (always settled). Its uuid is the message's id,
  else "line N". `event_msg` `agent_message` and the `AgentMessage` item repeat it and
  are skipped.
- `response_item` `function_call`, `custom_tool_call`, `local_shell_call`, with the
  `function_call_output` / `custom_tool_call_output` naming the same `call_id`: one `tool`
  entry, its ts the call's, its uuid the `call_id`. `tool` is the call's name (`local_shell` for a
  `local_shell_call`). `question` is what was run: a shell's argv joined as a shell would
  show it (`shlex.join`), the script alone for `bash -lc SCRIPT` (and `sh`, `zsh`, `-c`);
  `exec_command`'s `cmd`, `shell_command`'s `command`; for apply_patch (the tool, or a shell
  call of `apply_patch PATCH`) the paths the patch touches, joined with ", "; else the
  arguments as compact JSON cut to 200 characters. `answer` is the output's text: the
  `output` inside the JSON Codex wrapped it in (`{"output", "metadata"}`), or the text after
  the `Output:` line of the headed form ("Exit code: N" / "Process exited with code N",
  "Wall time: ...", "Output:"), else the output whole. `ok` is `exit_code == 0` when the
  output says the code (`metadata.exit_code`, "Exit code: N", "Process exited with code
  N"), else when an `exec_command_end` event or a `CommandExecution` item for the call
  gave one; otherwise unset (a rejected or still running command says none). `files` is
  the paths an apply_patch touched (added, updated, deleted, moved to); no other tool gives
  `files`.
- Paths, in `files` and in an apply_patch's `question`, are made relative to the session's
  `cwd` when they lie inside it; a relative path is taken from the call's `workdir`.
- Every other line type (`compacted`, `world_state`, `token_usage_record`...), payload type
  (`reasoning`, `web_search_call`, other events) and message role is skipped, silently.

Every `Converted` result carries the number of the line it was made from (a prompt's or a
message's line, a tool's output line) and its uuid, as said above. (Not the session's id
with the line's number: a reading resumed past the `session_meta` line could not know it.)
A line that is not
JSON, not an object with a string `type`, a `response_item` or `event_msg` whose payload is
not an object with a string `type`, or a payload of a type listed here but of another shape
gives a `Problem` and is skipped; so does an output whose call never came, a `call_id`
given twice, and a last line without its newline that is not whole JSON (truncated).

Resuming. A result depends only on the lines before it, so a longer version of the same
rollout gives the same results first. `settled_through` is the last line after which no
call was waiting for its output and no prompt for its possible repeat, and from which a
new reading knows the same `cwd`: before any line gave one, or just before a line that
gives it again (Codex writes a `turn_context` at each turn, 0.50 before each request to
the model). Reading again from the line after it gives the results still to come, the
same ones. A call still waiting for its output when the lines end is an `Unfinished`,
never an entry.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

import msgspec

from horizon.core.entries import parse_ts
from horizon.imports.codex_calls import (
    Part,
    call_summary,
    injected,
    output_text,
    user_item_text,
)
from horizon.imports.runtime import (
    OPERATOR,
    ConversionReader,
    Converted,
    JournalEntry,
    Problem,
    Result,
    Unfinished,
)

# -- the rollout's lines, as msgspec reads them ------------------------------------------------

class _Line(msgspec.Struct):
    type: str
    timestamp: object = None
    payload: msgspec.Raw = msgspec.field(default_factory=lambda: msgspec.Raw(b"null"))


class _Kind(msgspec.Struct):
    type: str


class _Where(msgspec.Struct):
    # session_meta and turn_context, typed loosely: only their cwd is looked at.
    cwd: object = None


class _Message(msgspec.Struct):
    role: str
    content: list[Part]
    id: str | None = None


class _FunctionCall(msgspec.Struct):
    name: str
    arguments: str
    call_id: str


class _CustomCall(msgspec.Struct):
    name: str
    input: str
    call_id: str


class _ShellAction(msgspec.Struct):
    command: list[str]
    working_directory: str | None = None


class _LocalShellCall(msgspec.Struct):
    action: _ShellAction
    call_id: str | None = None
    id: str | None = None


class _Output(msgspec.Struct):
    call_id: str
    output: str | list[Part] | dict[str, object]


class _UserMessageEvent(msgspec.Struct):
    message: str
    kind: str | None = None


class _ExecEnd(msgspec.Struct):
    call_id: str
    exit_code: int


class _Item(msgspec.Struct):
    # item_completed's item, typed loosely: a UserMessage's text or a command's exit code.
    type: str
    id: object = None
    content: object = None
    exit_code: object = None


class _ItemCompleted(msgspec.Struct):
    item: _Item


_line = msgspec.json.Decoder(_Line)
_kind = msgspec.json.Decoder(_Kind)
_where = msgspec.json.Decoder(_Where)
_message = msgspec.json.Decoder(_Message)
_function_call = msgspec.json.Decoder(_FunctionCall)
_custom_call = msgspec.json.Decoder(_CustomCall)
_local_shell_call = msgspec.json.Decoder(_LocalShellCall)
_output = msgspec.json.Decoder(_Output)
_user_message = msgspec.json.Decoder(_UserMessageEvent)
_exec_end = msgspec.json.Decoder(_ExecEnd)
_item_completed = msgspec.json.Decoder(_ItemCompleted)
_object = msgspec.json.Decoder(dict[str, object])
_parts = msgspec.json.Decoder(list[Part])
_encoder = msgspec.json.Encoder()
_DECODING = (msgspec.MsgspecError, RecursionError, ValueError, OverflowError)
_CALLS = frozenset(["function_call", "custom_tool_call", "local_shell_call"])
_OUTPUTS = frozenset(["function_call_output", "custom_tool_call_output"])


# -- the conversion -----------------------------------------------------------------------------

@dataclass
class _Call:
    line_number: int
    ts: str
    tool: str
    question: str
    files: tuple[str, ...] | msgspec.UnsetType
    exit_code: int | None = None


@dataclass
class _Conversion:
    """One rollout's reading: the session's cwd, the calls waiting for their outputs, the
    prompt a `UserMessage` item may repeat."""

    cwd: str = ""
    calls: dict[str, _Call] = field(default_factory=dict)
    echo: str | None = None
    cwd_given: bool = False  # by the line just read
    settled_through: int = 0

    def run(self, lines: Iterable[tuple[int, bytes | str]]) -> Iterator[Result]:
        for number, line in lines:
            raw = line.encode() if isinstance(line, str) else line
            body = raw.strip()
            open_before = bool(self.calls) or self.echo is not None
            self.cwd_given = False
            if body:
                yield from self.line(number, body, complete=raw.endswith(b"\n"))
            if self.cwd_given and not open_before:
                self.settled_through = number - 1
            if not self.calls and self.echo is None and not self.cwd:
                self.settled_through = number
        for call_id, call in self.calls.items():
            yield Unfinished(call.line_number, call_id, call.tool, call.question)

    @staticmethod
    def uuid(number: int, given: object = None) -> str:
        return given if isinstance(given, str) and given else f"line {number}"

    def line(self, number: int, body: bytes, complete: bool) -> Iterator[Result]:
        try:
            line = _line.decode(body)
        except msgspec.ValidationError as error:
            yield Problem(number, f"not an object with a string type: {error}")
            return
        except _DECODING as error:
            yield Problem(number, f"not JSON: {error}" if complete
                          else "truncated last line: no newline, not whole JSON")
            return
        if line.type in ("session_meta", "turn_context"):
            yield from self.where(number, line)
        elif line.type in ("response_item", "event_msg"):
            try:
                kind = _kind.decode(line.payload).type
            except _DECODING as error:
                yield Problem(number, f"a {line.type} whose payload is not an object with a "
                                      f"string type: {error}")
                return
            if line.type == "response_item":
                yield from self.response_item(number, line, kind)
            else:
                yield from self.event(number, line, kind)

    def timestamp(self, number: int, line: _Line) -> str | Problem:
        ts = line.timestamp
        if isinstance(ts, str) and parse_ts(ts) is not None:
            return ts
        return Problem(number, f"a {line.type} line whose timestamp is not RFC 3339: "
                               f"{str(ts)[:40]!r}")

    def where(self, number: int, line: _Line) -> Iterator[Result]:
        try:
            where = _where.decode(line.payload)
        except _DECODING as error:
            yield Problem(number, f"a {line.type} of unknown shape: {error}")
            return
        if isinstance(where.cwd, str) and where.cwd:
            self.cwd, self.cwd_given = where.cwd, True

    def response_item(self, number: int, line: _Line, kind: str) -> Iterator[Result]:
        if kind != "message" and kind not in _CALLS and kind not in _OUTPUTS:
            return
        ts = self.timestamp(number, line)
        if isinstance(ts, Problem):
            yield ts
            return
        try:
            if kind == "message":
                yield from self.message(number, ts, _message.decode(line.payload))
            elif kind in _OUTPUTS:
                yield self.paired(number, _output.decode(line.payload))
            else:
                yield from self.called(number, ts, kind, line.payload)
        except _DECODING as error:
            yield Problem(number, f"a {kind} of unknown shape: {error}")

    def message(self, number: int, ts: str, message: _Message) -> Iterator[Result]:
        if message.role != "assistant":
            return  # the prompt comes from its event; the rest is Codex's own context
        text = "\n\n".join(part.text.strip() for part in message.content
                           if part.type in ("output_text", "text") and part.text.strip())
        if text:
            self.echo = None
            yield Converted(number, self.uuid(number, message.id), JournalEntry(
                ts=ts, type="assistant", question="", answer=text))

    def called(self, number: int, ts: str, kind: str, payload: msgspec.Raw) -> Iterator[Result]:
        if kind == "function_call":
            call = _function_call.decode(payload)
            try:
                given = _object.decode(call.arguments)
            except _DECODING:
                given = {"arguments": call.arguments}
            call_id, tool = call.call_id, call.name
            question, files = call_summary(tool, given, self.cwd)
        elif kind == "custom_tool_call":
            custom = _custom_call.decode(payload)
            call_id, tool = custom.call_id, custom.name
            question, files = call_summary(tool, {"input": custom.input}, self.cwd)
        else:
            local = _local_shell_call.decode(payload)
            call_id, tool = local.call_id or local.id or "", "local_shell"
            if not call_id:
                yield Problem(number, "a local_shell_call without a call_id")
                return
            question, files = call_summary(tool, {"command": local.action.command,
                                                  "workdir": local.action.working_directory},
                                           self.cwd)
        if call_id in self.calls:
            yield Problem(number, f"a call_id given twice: {call_id}")
            return
        self.echo = None
        self.calls[call_id] = _Call(number, ts, tool, question, files)

    def paired(self, number: int, output: _Output) -> Result:
        call = self.calls.pop(output.call_id, None)
        if call is None:
            return Problem(number, f"an output without its call: {output.call_id}")
        answer, ok = output_text(output.output)
        if ok is msgspec.UNSET and call.exit_code is not None:
            ok = call.exit_code == 0
        return Converted(number, output.call_id, JournalEntry(
            ts=call.ts, type="tool", tool=call.tool, question=call.question, answer=answer,
            ok=ok, files=call.files))

    def event(self, number: int, line: _Line, kind: str) -> Iterator[Result]:
        try:
            if kind == "user_message":
                event = _user_message.decode(line.payload)
                if event.kind in (None, "plain"):
                    yield from self.prompt(number, line, event.message, repeat=False)
            elif kind == "exec_command_end":
                end = _exec_end.decode(line.payload)
                self.exit_code(end.call_id, end.exit_code)
            elif kind == "item_completed":
                item = _item_completed.decode(line.payload).item
                if item.type == "UserMessage":
                    text = user_item_text(item.content)
                    if text is None:
                        yield Problem(number, "a UserMessage item of unknown shape")
                        return
                    yield from self.prompt(number, line, text, repeat=True,
                                           item_id=item.id)
                elif (item.type == "CommandExecution" and isinstance(item.id, str)
                      and isinstance(item.exit_code, int)):
                    self.exit_code(item.id, item.exit_code)
        except _DECODING as error:
            yield Problem(number, f"a {kind} event of unknown shape: {error}")

    def exit_code(self, call_id: str, code: int) -> None:
        call = self.calls.get(call_id)
        if call is not None:
            call.exit_code = code

    def prompt(self, number: int, line: _Line, text: str, *, repeat: bool,
               item_id: object = None) -> Iterator[Result]:
        """The operator's prompt; a `UserMessage` item's (`repeat`) is skipped when it
        repeats the `user_message` just read."""
        text = text.strip()
        echo, self.echo = self.echo, None
        if not text or injected(text) or (repeat and echo == text):
            return
        ts = self.timestamp(number, line)
        if isinstance(ts, Problem):
            yield ts
            return
        if not repeat:
            self.echo = text
        uuid = self.uuid(number, item_id)
        yield Converted(number, uuid, JournalEntry(
            ts=ts, type="conversation", sender=OPERATOR, question=text, answer="", id=uuid))


class CodexReader(ConversionReader):
    """Codex CLI's rollouts, as a `TranscriptReader`: one reading per instance."""

    name = "codex"

    def __init__(self) -> None:
        super().__init__(_Conversion())


def entries(lines: Iterable[tuple[int, bytes | str]]) -> Iterator[Result]:
    """A Codex rollout's numbered lines into results, in order."""
    return _Conversion().run(lines)
