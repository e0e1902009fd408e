"""Text from a hive made safe for a terminal. Settings errors, notes, paths and reasons
quote what a bee's files hold, and any of them may have been written by a hostile agent:
a raw ESC would let it clear the operator's screen, set its title or write its clipboard
(OSC 52), a newline would break a row in two, a bidi control would reorder what is shown."""

from __future__ import annotations

import json

BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
# C0 (newline and tab included), DEL, C1 and the bidi controls, each shown as its escape.
_ESCAPES = {code: f"\\x{code:02x}" for code in [*range(0x20), *range(0x7F, 0xA0)]}
_ESCAPES.update({ord(char): f"\\u{ord(char):04x}" for char in BIDI})


# In JSON, what json.dumps leaves raw (DEL, C1, the bidi controls and the line and
# paragraph separators) written as \u escapes: the same strings once decoded.
_JSON_ESCAPES = {code: f"\\u{code:04x}" for code in
                 [0x7F, *range(0x80, 0xA0), *map(ord, BIDI), 0x2028, 0x2029]}


def json_text(value: object, indent: int | None = 2) -> str:
    """`value` as JSON for a terminal: UTF-8 words as they are, nothing that could drive
    the terminal or reorder what it shows."""
    return json.dumps(value, ensure_ascii=False, indent=indent).translate(_JSON_ESCAPES)


def printable(text: str) -> str:
    """`text` with every control character written as its escape (`\\x1b`, `\\u202e`)."""
    return text.translate(_ESCAPES)
