"""Finding the line of one seq without reading the history: the segment ranges a state
keeps and the manifest's late ranges say where to look (off the hot path: model upgrades
of entries condensed before a restart)."""

from __future__ import annotations

from pathlib import Path

from horizon.hive.journal import is_blank, read_lines
from horizon.hive.layout import segment_path
from horizon.hive.manifest import Manifest


def locate_line(window: Path, seq: int, segments: dict[str, list[int]], manifest: Manifest,
                max_line_bytes: int) -> bytes | None:
    """The raw line that was given `seq`, or None when it cannot be found (or is too long)."""
    for late in manifest.late:
        if late.first_seq <= seq <= late.last_seq:
            return _scan(segment_path(window, late.segment), late.start, late.end, late.first_seq,
                         seq, [], max_line_bytes, window.parent)
    for name, (first, last) in segments.items():
        if first <= seq <= last:
            rotated = manifest.rotated.get(name)
            reserved = sorted((late for late in manifest.late if late.first_seq > first),
                              key=lambda late: late.first_seq)
            skips = [(late.first_seq, late.last_seq) for late in reserved]
            return _scan(segment_path(window, name), 0, rotated.offset if rotated else None, first,
                         seq, skips, max_line_bytes, window.parent)
    return None


def _scan(path: Path, start: int, end: int | None, first: int, seq: int,
          skips: list[tuple[int, int]], max_line_bytes: int, hive: Path) -> bytes | None:
    counter = first - 1
    try:
        for raw, _ in read_lines(path, start, max_line_bytes, end, hive):
            if raw is not None and is_blank(raw):
                continue
            while skips and skips[0][0] == counter + 1:
                counter = skips.pop(0)[1]  # seqs given to lines read late elsewhere
            counter += 1
            if counter == seq:
                return raw
            if counter > seq:
                return None
    except OSError:
        return None
    return None
