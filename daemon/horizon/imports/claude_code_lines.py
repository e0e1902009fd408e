"""The lines of a Claude Code transcript as msgspec reads them: only the fields horizon
uses, typed so a line of another shape is a problem named, never a crash."""

from __future__ import annotations

import msgspec


class Kind(msgspec.Struct):
    type: str


class Text(msgspec.Struct, tag="text"):
    text: str


class Image(msgspec.Struct, tag="image"):
    pass


class Thinking(msgspec.Struct, tag="thinking"):
    pass


class RedactedThinking(msgspec.Struct, tag="redacted_thinking"):
    pass


class ToolUse(msgspec.Struct, tag="tool_use"):
    id: str
    name: str
    input: dict[str, object]


class ToolResult(msgspec.Struct, tag="tool_result"):
    tool_use_id: str
    content: str | list[Text | Image] | None = None
    is_error: bool | None = None


class UserMessage(msgspec.Struct):
    content: str | list[Text | Image | ToolResult]


class AssistantMessage(msgspec.Struct):
    content: str | list[Text | Thinking | RedactedThinking | ToolUse]
    id: str = ""


class UserLine(msgspec.Struct, kw_only=True, rename="camel"):
    uuid: str
    timestamp: str
    message: UserMessage
    cwd: str = ""
    is_sidechain: bool | None = None
    is_meta: bool | None = None
    is_compact_summary: bool | None = None


class AssistantLine(msgspec.Struct, kw_only=True, rename="camel"):
    uuid: str
    timestamp: str
    message: AssistantMessage
    cwd: str = ""
    is_sidechain: bool | None = None


class SystemLine(msgspec.Struct, rename="camel"):
    # Typed loosely: a system line is only looked at for its compaction marker.
    subtype: object = None
    is_sidechain: object = None


kind_of = msgspec.json.Decoder(Kind)
user_line = msgspec.json.Decoder(UserLine)
assistant_line = msgspec.json.Decoder(AssistantLine)
system_line = msgspec.json.Decoder(SystemLine)
result_blocks = msgspec.json.Decoder(list[Text | Image])
encoder = msgspec.json.Encoder()
DECODING = (msgspec.MsgspecError, RecursionError, ValueError, OverflowError)
