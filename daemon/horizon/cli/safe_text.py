"""Text from a hive made safe for a terminal. Settings errors, notes, paths and reasons
quote what a bee's files hold, and any of them may have been written by a hostile agent:
a raw ESC would let it clear the operator's screen, set its title or write its clipboard
(OSC 52), a newline would break a row in two, a bidi control would reorder what is shown."""

from __future__ import annotations

BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
# C0 (newline and tab included), DEL, C1 and the bidi controls, each shown as its escape.
_ESCAPES = {code: f"\\x{code:02x}" for code in [*range(0x20), *range(0x7F, 0xA0)]}
_ESCAPES.update({ord(char): f"\\u{ord(char):04x}" for char in BIDI})


def printable(text: str) -> str:
    """`text` with every control character written as its escape (`\\x1b`, `\\u202e`)."""
    return text.translate(_ESCAPES)
