"""The LS5 bound: pure, idempotent, never rejects.

It keeps the pinned lines (header, mission, notice) and the most recent suffix of the
other lines, drops the oldest at line boundaries and hard-truncates an over-long line
without breaking its prefix. It bounds the handoff mode and guards the horizon mode.
"""

from __future__ import annotations

import re

from horizon.core.labels import LANGUAGES
from horizon.core.text import ELLIPSIS, cut

MISSION_PREFIXES = tuple(labels.mission_prefix for labels in LANGUAGES.values())
_PINNED = ("<!-- horizon ", *MISSION_PREFIXES,
           *(labels.notice_template.split("{")[0][:10] for labels in LANGUAGES.values()))
_TURN_PREFIX = re.compile(r"^- \*\*(?:\\.|[^*\\])*:\*\* ")


def is_pinned(line: str) -> bool:
    return line.startswith(_PINNED)


def _prefix_of(line: str) -> str:
    for prefix in MISSION_PREFIXES:
        if line.startswith(prefix):
            return prefix
    match = _TURN_PREFIX.match(line)
    return match.group(0) if match else ""


def _truncate_line(line: str, room: int) -> str | None:
    """`line` cut to `room` characters at its end, its prefix whole; None if it cannot be."""
    prefix = _prefix_of(line)
    if room < len(prefix) + len(ELLIPSIS) + 1:
        return None
    return prefix + cut(line[len(prefix):], room - len(prefix))


def bound_text(text: str, limit: int) -> str:
    """`text` (newline-terminated lines) within `limit` characters, as the README says."""
    if len(text) <= limit:
        return text
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    pinned = [index for index, line in enumerate(lines) if is_pinned(line)]
    room = limit - sum(len(lines[index]) + 1 for index in pinned)
    kept = set(pinned)
    replaced: dict[int, str] = {}
    if room < 0:
        # The pinned lines alone are too long: the mission (or else the last pinned line)
        # is cut at its end; nothing else can be shown.
        target = next((i for i in pinned if lines[i].startswith(MISSION_PREFIXES)), pinned[-1]
                      if pinned else None)
        if target is None:
            return ""
        allowed = len(lines[target]) + room
        truncated = _truncate_line(lines[target], allowed) if allowed > 0 else None
        if truncated is None:
            kept.discard(target)
        else:
            replaced[target] = truncated
    else:
        for index in range(len(lines) - 1, -1, -1):
            if index in kept:
                continue
            cost = len(lines[index]) + 1
            if cost <= room:
                kept.add(index)
                room -= cost
                continue
            if not any(i not in pinned for i in kept):
                truncated = _truncate_line(lines[index], room - 1)
                if truncated is not None:
                    kept.add(index)
                    replaced[index] = truncated
            break
    out = [replaced.get(index, lines[index]) for index in sorted(kept)]
    return "".join(line + "\n" for line in out)
