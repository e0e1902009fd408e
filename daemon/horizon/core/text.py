"""Text hygiene for everything that reaches a view: nothing in an entry can forge structure.

Journal text and model output are untrusted. Every renderer goes through these few
functions, so the text-safety rules live in one place.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

ELLIPSIS = "…"
METADATA_MAX = 64

_BIDI_CONTROLS = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
# Unicode category Cc is exactly U+0000-U+001F and U+007F-U+009F; TAB stays, and \n is
# the one line break left once lines are unified.
_CONTROLS = [chr(code) for code in (*range(0x20), *range(0x7F, 0xA0)) if chr(code) not in "\t\n"]
_DROP = str.maketrans(dict.fromkeys(_CONTROLS + list(_BIDI_CONTROLS)))
_METADATA_ESCAPED = frozenset("\\`*_#[]<>|·")  # · separates heading fields


def clean(text: str) -> str:
    """Unify line breaks to `\\n` and drop control and bidi characters (TAB kept)."""
    if text.isprintable():
        return text  # no break, no control, no format character: nothing to do
    # splitlines() knows every break Python recognises (\r\n, \r, \v, \f, \x1c-\x1e,
    # \x85, \u2028, \u2029); a trailing break must survive as an empty last line.
    lines = text.splitlines()
    if text and text[-1] in "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029":
        lines.append("")
    return "\n".join(lines).translate(_DROP)


def flatten(text: str) -> str:
    """One line: breaks and runs of whitespace become single spaces."""
    if text.isprintable() and "  " not in text:
        # The only whitespace a printable text holds is the plain space.
        return text.strip(" ")
    return " ".join(clean(text).split())


def cut(text: str, limit: int) -> str:
    """`text` at most `limit` characters long, the ellipsis included when cut."""
    if len(text) <= limit:
        return text
    if limit <= 0:
        return ""
    return text[: limit - 1] + ELLIPSIS


def flat_cut(text: str, limit: int) -> str:
    """cut(flatten(text), limit), reading only the head of a long text when it suffices."""
    head = text[: limit * 4 + 64]
    flat = flatten(head)
    if len(head) == len(text) or len(flat) > limit:
        return cut(flat, limit)
    return cut(flatten(text), limit)


def ends_cut(text: str, limit: int, verdicts: Sequence[str] = ()) -> str:
    """A flattened text within `limit` keeping both ends: its head and its tail, where a
    tool's verdict is (the exit status, the count of failures), and between them the first
    of `verdicts` that fit: the lines naming what failed, printed above the tail."""
    if len(text) <= limit * 8:
        flat = flatten(text)
        if len(flat) <= limit:
            return flat
    flat_end = flatten(text[-limit * 8:])
    middle: list[str] = []
    left = limit * 2 // 5
    for verdict in verdicts:
        line = flatten(verdict)
        if not line or line in middle or line in flat_end[-(limit // 3):]:
            continue  # the tail shows it
        if len(line) + len(VERDICT_JOINT) > left:
            if left >= VERDICT_MIN:
                middle.append(cut(line, left - len(VERDICT_JOINT)))
            break
        middle.append(line)
        left -= len(line) + len(VERDICT_JOINT)
    head = cut(flatten(text[: limit * 4 + 64]), limit // (4 if middle else 3))
    if head.endswith(ELLIPSIS):
        head = head[: -len(ELLIPSIS)].rstrip()
    between = VERDICT_JOINT.join(middle) + ENDS_JOINT if middle else ""
    room = limit - len(head) - len(ENDS_JOINT) - len(between)
    tail = flat_end[-room:]
    if " " in tail[: room // 2]:  # start the tail at a word
        tail = tail[tail.index(" ") + 1:]
    return head + ENDS_JOINT + between + tail


ENDS_JOINT = f" {ELLIPSIS} "
VERDICT_JOINT = " · "
VERDICT_MIN = 24  # shorter, a cut verdict line names nothing


@functools.lru_cache(maxsize=1024)
def metadata(text: str) -> str:
    """A header-safe rendering of runtime metadata (`from`, `type`, `tool`, `id`)."""
    flat = cut(flatten(text), METADATA_MAX)
    return "".join("\\" + char if char in _METADATA_ESCAPED else char for char in flat)


def quoted_lines(text: str) -> list[str]:
    """The content lines of a multi-line text, each behind the `> ` quote prefix."""
    return ["> " + line if line else ">" for line in clean(text).split("\n")]


_PATH_PATTERN = re.compile(
    r"(?<![\w/.~-])((?:~|\.{1,2})?/?(?:[\w.@+-]+/)+[\w.@+-]+|[\w@+-]+\.[A-Za-z][\w]{0,7})(?![\w/])"
)


# Besides `/`, what a word needs for _PATH_PATTERN to match in it.
_DOT_LETTER = re.compile(r"\.[A-Za-z]")


def named_paths(text: str) -> list[str]:
    """File paths named in a text, in order of first appearance, without duplicates."""
    seen: dict[str, None] = {}
    # A path holds no whitespace and needs a `/` or a `.` before a letter, and the
    # pattern's look-arounds treat whitespace like the ends of the text: matching only in
    # the words that could hold a path finds the same paths as matching the whole text,
    # at a third of the cost on ordinary prose.
    for word in text.split():
        if "/" not in word and ("." not in word or not _DOT_LETTER.search(word)):
            continue
        for match in _PATH_PATTERN.finditer(word):
            path = match.group(1).rstrip(".")
            if "/" in path or "." in path:
                seen.setdefault(path, None)
    return list(seen)


def counted(count: int, singular: str, plural: str | None = None) -> str:
    """`count` and its noun, in the singular for exactly one ("1 entry", "2 entries")."""
    return f"{count} {singular if count == 1 else plural or singular + 's'}"
