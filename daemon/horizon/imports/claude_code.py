"""A Claude Code session transcript (`~/.claude/projects/<project>/<session>.jsonl`) read
into horizon journal entries, line by line, reading no file (pure).

Claude Code writes one JSON object a line. Those of `type` "user" and "assistant" carry an
API message (`message.content`: a string or content blocks) with the line's `uuid`,
`timestamp` (RFC 3339) and `cwd`; an assistant message's blocks come one a line, all with
the same `message.id`; a tool's result comes later, in a user line, as a `tool_result`
block naming its `tool_use_id`. What each becomes:

- The operator's typed prompt (a user line whose content is a string or text blocks, not
  `isMeta`, not `isCompactSummary`, holding no `tool_result`): a `conversation` from
  `apicultrice` (`question` the prompt, `id` the line's uuid). `<system-reminder>` blocks
  are removed. Claude Code's wrappers of a local command (`<command-name>`,
  `<command-message>`, `<local-command-stdout>`, `<local-command-caveat>`, and the `!`
  shell mode's `<bash-input>`, `<bash-stdout>`, `<bash-stderr>`) are removed too: they
  are the terminal's bookkeeping, not words to the agent; so are an IDE extension's notes
  of the file open and the lines selected (`<ide_opened_file>`, `<ide_selection>`). A
  slash command's arguments are kept, after the command's name (`/compact and continue
  with the remaining tasks`): the operator typed them, and they say what the operator
  wants next; a command without arguments (`/clear`), or one that sets up the runtime
  (`/model sonnet`, `/config`, `/permissions`…), says nothing to the agent and is left
  out. A prompt left empty by the cleaning, and Claude Code's own "[Request
  interrupted by user]" notes, are skipped. Text blocks beside a `tool_result` in one
  line are Claude Code's additions to the result, not a prompt, and are left out.
- The assistant's text: an `assistant` entry (`answer` the text, `question` empty), never
  a `conversation` (a conversation from nobody is the operator's words to horizon). The
  text blocks of one message join with a blank line; its thinking blocks are skipped and
  do not split them, a tool call does. Its ts is the first block's.
- A tool call with its result: one `tool` entry, its ts the call's. `question` says what
  was called on: Bash's command (whole, its newlines kept: horizon reads its words to tell
  a rerun), a file tool's path (Read, Edit, Write, MultiEdit, NotebookEdit), Grep's and
  Glob's pattern ("PATTERN in PATH" when a path is given), WebFetch's url, WebSearch's
  query, Task's description, and else the input as compact JSON cut to 200 characters.
  `answer` is the result's text (a string, the text blocks joined, or the blocks a string
  holds as JSON; an image is "[image]"), whole but for the `<system-reminder>` blocks
  Claude Code appends at its end: horizon's own limits apply downstream.
  `ok` is `not is_error`. `files` is the path a file tool read or changed (Read's
  included: the view's Files section lists the files read or changed); the other tools
  give no `files`, so horizon reads the paths their command names.
- Paths, in `files` and in `question`, are made relative to the line's `cwd` when they lie
  inside it: the view shows a work tree's paths as its commands name them. Bash's command
  is kept as written.
- Sidechain lines (`isSidechain`: a subagent's own exchanges) are skipped: the subagent's
  answer reaches the session as its Task call's result, which is kept. Compaction
  summaries are skipped (`isCompactSummary`, and the user line right after a
  `compact_boundary` system line): they are a model's words standing in for the operator's
  turn, and horizon keeps its own memory of what they summarize.
- Every other line type (progress, system, file-history-snapshot, queue-operation,
  summary...) is skipped, silently.

Every `Converted` result carries the uuid and number of the last line it was made from: a
prompt's line, the assistant message's last text line, a tool call's result line. A line
that is not JSON, not an object, has no string `type`, or is a user or assistant line of a
shape not listed here gives a `Problem` and is skipped; so does a `tool_result` whose call
never came, and a last line without its newline that is not whole JSON (truncated).

Resuming. A result depends only on the lines before it, so a longer version of the same
transcript gives the same results first: an importer records the uuid of the last entry it
imported and, next time, converts the transcript again and imports the entries after that
one. The two results the end of the lines can change are marked: a tool call still waiting
for its result is an `Unfinished`, never an entry (its entry comes, once, with its result);
an assistant text the end cut is `Converted` with `settled=False` (the message's next line
may add to it), which an importer following a live transcript leaves for next time.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

import msgspec

from horizon.core.entries import parse_ts
from horizon.core.patterns import Pattern
from horizon.imports.claude_code_lines import (
    DECODING,
    Image,
    Text,
    ToolResult,
    ToolUse,
    assistant_line,
    encoder,
    kind_of,
    result_blocks,
    system_line,
    user_line,
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

SUMMARY_CHARS = 200  # of a tool's input as JSON, what its `question` keeps
FILE_TOOLS = frozenset(["Read", "Edit", "Write", "MultiEdit", "NotebookEdit"])
SEARCH_TOOLS = frozenset(["Grep", "Glob"])
_NAMED_INPUT = {"Bash": "command", "WebFetch": "url", "WebSearch": "query",
                "Task": "description", "Agent": "description"}
_REMINDER = Pattern(r"<system-reminder>.*?</system-reminder>", re.DOTALL)
_WRAPPED = Pattern(
    r"<(command-name|command-message|command-args|local-command-stdout|local-command-stderr"
    r"|local-command-caveat|bash-input|bash-stdout|bash-stderr|ide_opened_file|ide_selection)>"
    r".*?</\1>", re.DOTALL)
_COMMAND_NAME = Pattern(r"<command-name>(.*?)</command-name>", re.DOTALL)
_COMMAND_ARGS = Pattern(r"<command-args>(.*?)</command-args>", re.DOTALL)
_INTERRUPTED = Pattern(r"\[Request interrupted by user[^\]\n]*\]")
# Commands that set up the runtime itself (`/model sonnet`): their arguments are a setting,
# not words to the agent.
_SETTINGS_COMMANDS = frozenset([
    "model", "config", "permissions", "theme", "vim", "terminal-setup", "login", "logout",
    "cost", "usage", "status", "privacy-settings", "output-style", "statusline", "fast",
    "effort", "approvals", "ide", "mcp", "agents", "hooks", "doctor", "help",
    "release-notes", "upgrade", "add-dir", "exit", "quit", "clear", "resume", "export"])


# -- what a line says ---------------------------------------------------------------------------

def prompt_text(text: str) -> str:
    """The operator's words in a typed prompt: reminders and local-command wrappers removed,
    a slash command's arguments kept after its name; empty when nothing is left."""
    text = _REMINDER.sub("", text)
    name, args = _COMMAND_NAME.search(text), _COMMAND_ARGS.search(text)
    text = _WRAPPED.sub("", text).strip()
    if name is not None and args is not None and args.group(1).strip() and (
            name.group(1).strip().lstrip("/").lower() not in _SETTINGS_COMMANDS):
        command = f"{name.group(1).strip()} {args.group(1).strip()}"
        text = f"{command}\n{text}" if text else command
    return "" if _INTERRUPTED.fullmatch(text) else text


def relative(path: str, cwd: str) -> str:
    """`path` relative to `cwd` when it lies inside it, else as given."""
    if not cwd or not posixpath.isabs(path) or not posixpath.isabs(cwd):
        return path
    root, full = posixpath.normpath(cwd), posixpath.normpath(path)
    if full == root:
        return "."
    inside = root.rstrip("/") + "/"
    return full[len(inside):] if full.startswith(inside) else path


def _string(given: dict[str, object], key: str) -> str | None:
    value = given.get(key)
    return value if isinstance(value, str) and value else None


def call_summary(name: str, given: dict[str, object], cwd: str
                 ) -> tuple[str, tuple[str, ...] | msgspec.UnsetType]:
    """A tool call's `question` and `files`, from its name and input."""
    if name in FILE_TOOLS:
        path = _string(given, "file_path") or _string(given, "notebook_path")
        if path is not None:
            path = relative(path, cwd)
            return path, (path,)
    if name in SEARCH_TOOLS and (pattern := _string(given, "pattern")) is not None:
        where = _string(given, "path")
        return (pattern if where is None else f"{pattern} in {relative(where, cwd)}"), msgspec.UNSET
    key = _NAMED_INPUT.get(name)
    if key is not None and (named := _string(given, key)) is not None:
        return named, msgspec.UNSET
    compact = encoder.encode(given).decode()
    if len(compact) > SUMMARY_CHARS:
        compact = compact[:SUMMARY_CHARS - 1] + "…"
    return compact, msgspec.UNSET


def _joined(blocks: Iterable[Text | Image]) -> str:
    return "\n".join(block.text if isinstance(block, Text) else "[image]" for block in blocks)


def result_text(content: str | list[Text | Image] | None) -> str:
    """A tool result's text: the string, or its blocks' text (a string may hold the blocks
    as JSON), without the reminders Claude Code appends to it."""
    return _without_appended_reminders(_result_text(content))


def _result_text(content: str | list[Text | Image] | None) -> str:
    if content is None:
        return ""
    if isinstance(content, list):
        return _joined(content)
    if content.startswith('[{"type":'):
        try:
            blocks = result_blocks.decode(content)
        except DECODING:
            return content
        if blocks:
            return _joined(blocks)
    return content


def _without_appended_reminders(text: str) -> str:
    """Claude Code appends `<system-reminder>` blocks to a result (a file read gets one
    about malware): not the tool's output. Only blocks at the very end go, so a file that
    holds such a tag keeps it."""
    if "</system-reminder>" not in text[-_REMINDER_TAIL:]:
        return text
    while (found := _APPENDED_REMINDER.search(text)) is not None:
        text = text[:found.start()]
    return text


_REMINDER_TAIL = 64  # of a result's end, where an appended reminder closes
_APPENDED_REMINDER = Pattern(
    r"\s*<system-reminder>(?:(?!<system-reminder>).)*</system-reminder>\s*\Z", re.DOTALL)


# -- the conversion -----------------------------------------------------------------------------

@dataclass
class _Call:
    line_number: int
    uuid: str
    ts: str
    tool: str
    question: str
    files: tuple[str, ...] | msgspec.UnsetType


@dataclass
class _TextRun:
    message_id: str
    ts: str
    line_number: int
    uuid: str
    parts: list[str] = field(default_factory=list)


@dataclass
class _Conversion:
    """One transcript's reading: the calls waiting for their results, the assistant text
    not yet emitted, whether a compaction's summary comes next."""

    calls: dict[str, _Call] = field(default_factory=dict)
    text: _TextRun | None = None
    after_boundary: bool = False
    settled_through: int = 0

    def run(self, lines: Iterable[tuple[int, bytes | str]]) -> Iterator[Result]:
        for number, line in lines:
            raw = line.encode() if isinstance(line, str) else line
            body = raw.strip()
            if body:
                yield from self.line(number, body, complete=raw.endswith(b"\n"))
            if not self.calls and self.text is None and not self.after_boundary:
                self.settled_through = number
        yield from self.flushed(settled=False)
        for call in self.calls.values():
            yield Unfinished(call.line_number, call.uuid, call.tool, call.question)

    def line(self, number: int, body: bytes, complete: bool) -> Iterator[Result]:
        try:
            kind = kind_of.decode(body).type
        except msgspec.ValidationError as error:
            yield Problem(number, f"not an object with a string type: {error}")
            return
        except DECODING as error:
            yield Problem(number, f"not JSON: {error}" if complete
                          else "truncated last line: no newline, not whole JSON")
            return
        if kind == "user":
            yield from self.user(number, body)
        elif kind == "assistant":
            yield from self.assistant(number, body)
        elif kind == "system":
            yield from self.system(number, body)

    def system(self, number: int, body: bytes) -> Iterator[Result]:
        try:
            line = system_line.decode(body)
        except DECODING as error:
            yield Problem(number, f"a system line of unknown shape: {error}")
            return
        if line.is_sidechain is True:
            return
        yield from self.flushed()
        if line.subtype == "compact_boundary":
            self.after_boundary = True

    def user(self, number: int, body: bytes) -> Iterator[Result]:
        try:
            line = user_line.decode(body)
        except DECODING as error:
            yield Problem(number, f"a user line of unknown shape: {error}")
            return
        if line.is_sidechain:
            return
        if parse_ts(line.timestamp) is None:
            yield Problem(number, f"a user line whose timestamp is not RFC 3339: "
                                  f"{line.timestamp[:40]!r}")
            return
        yield from self.flushed()
        after_boundary, self.after_boundary = self.after_boundary, False
        content = line.message.content
        if isinstance(content, list) and any(isinstance(b, ToolResult) for b in content):
            for block in content:
                if isinstance(block, ToolResult):
                    yield self.paired(number, line.uuid, block)
            return
        if line.is_meta or line.is_compact_summary or after_boundary:
            return
        text = prompt_text(content if isinstance(content, str) else "\n\n".join(
            block.text for block in content if isinstance(block, Text)))
        if text:
            yield Converted(number, line.uuid, JournalEntry(
                ts=line.timestamp, type="conversation", sender=OPERATOR, question=text,
                answer="", id=line.uuid))

    def paired(self, number: int, uuid: str, block: ToolResult) -> Result:
        call = self.calls.pop(block.tool_use_id, None)
        if call is None:
            return Problem(number, f"a tool_result without its tool_use: {block.tool_use_id}")
        return Converted(number, uuid, JournalEntry(
            ts=call.ts, type="tool", tool=call.tool, question=call.question,
            answer=result_text(block.content), ok=not block.is_error, files=call.files))

    def assistant(self, number: int, body: bytes) -> Iterator[Result]:
        try:
            line = assistant_line.decode(body)
        except DECODING as error:
            yield Problem(number, f"an assistant line of unknown shape: {error}")
            return
        if line.is_sidechain:
            return
        if parse_ts(line.timestamp) is None:
            yield Problem(number, f"an assistant line whose timestamp is not RFC 3339: "
                                  f"{line.timestamp[:40]!r}")
            return
        message = line.message
        if self.text is not None and (not message.id or self.text.message_id != message.id):
            yield from self.flushed()
        content = message.content
        for block in [Text(content)] if isinstance(content, str) else content:
            if isinstance(block, Text) and block.text.strip():
                if self.text is None:
                    self.text = _TextRun(message.id, line.timestamp, number, line.uuid)
                self.text.parts.append(block.text.strip())
                self.text.line_number, self.text.uuid = number, line.uuid
            elif isinstance(block, ToolUse):
                yield from self.flushed()
                if block.id in self.calls:
                    yield Problem(number, f"a tool_use id given twice: {block.id}")
                    continue
                question, files = call_summary(block.name, block.input, line.cwd)
                self.calls[block.id] = _Call(number, line.uuid, line.timestamp, block.name,
                                             question, files)

    def flushed(self, settled: bool = True) -> Iterator[Result]:
        """The assistant text gathered so far, as one entry."""
        run, self.text = self.text, None
        if run is not None:
            yield Converted(run.line_number, run.uuid, JournalEntry(
                ts=run.ts, type="assistant", question="", answer="\n\n".join(run.parts)),
                settled=settled)


class ClaudeCodeReader(ConversionReader):
    """Claude Code's transcripts, as a `TranscriptReader`: one reading per instance."""

    name = "claude-code"

    def __init__(self) -> None:
        super().__init__(_Conversion())


def entries(lines: Iterable[tuple[int, bytes | str]]) -> Iterator[Result]:
    """A Claude Code transcript's numbered lines into results, in order."""
    return _Conversion().run(lines)
