"""Reading a bee's journal: segments in order, complete lines only, from a checkpoint.

Cost grows with the new bytes only: reading starts at the checkpoint's byte offset and
never holds more than one chunk plus one line (bounded by max_line_bytes) in memory.
"""

from __future__ import annotations

import functools
import hashlib
import os
from collections.abc import Iterator
from pathlib import Path

import msgspec

from horizon.hive.durable import open_regular
from horizon.hive.layout import (
    archive_dir,
    live_path,
    parse_journal_name,
)

CHUNK = 1 << 20
TAIL_BYTES = 64


class Checkpoint(msgspec.Struct, frozen=True):
    """Where reading stopped: the end of the last complete line read, and its seq.

    `dev`, `ino` and `tail` (a hash of the bytes just before `offset`) let a restart
    tell that the file it resumes is the one it left.
    """

    segment: str = ""
    offset: int = 0
    seq: int = 0
    dev: int = 0
    ino: int = 0
    tail: str = ""
    lines: int = 0  # lines read in this segment: what rotation counts


def archive_numbers(window: Path, bee: str) -> list[int]:
    try:
        names = os.listdir(archive_dir(window))
    except FileNotFoundError:
        return []
    numbers = []
    for name in names:
        parsed = parse_journal_name(name)
        if parsed is not None and parsed.bee == bee and parsed.number is not None:
            numbers.append(parsed.number)
    return sorted(numbers)


@functools.lru_cache(maxsize=8192)
def _child(folder: Path, name: str) -> Path:
    # A catch-up lists every segment at each of its slices: building 400 paths each time
    # cost more than reading the slice's lines.
    return folder / name


def segment_paths(window: Path, bee: str, recorded: list[str]) -> list[Path]:
    """The `recorded` archive segments present, in order, then the live file (when
    present). A segment no record names is never part of a history."""
    archive = archive_dir(window)
    try:
        present = set(os.listdir(archive))  # one listing, not a stat per segment
    except (FileNotFoundError, NotADirectoryError):
        present = set()
    paths = [_child(archive, name) for name in recorded if name in present]
    live = live_path(window, bee)
    if live.exists() or live.is_symlink():
        paths.append(live)
    return paths


def read_blocks(path: Path, offset: int, max_line_bytes: int, limit: int | None = None,
                under: Path | None = None, opened: int | None = None
                ) -> Iterator[tuple[bytes | None, int]]:
    """Complete lines from `offset`, a block at a time: (bytes of whole lines, each ending
    with `\n`, or None for one line too long to hold; the offset the block ends at).

    A trailing line without `\n` is left for a later read; nothing at or past `limit`
    (a line boundary) is read. A block may still hold a line longer than
    `max_line_bytes` when it fits in the chunk: the reader of its lines checks. A line too
    long to hold that is nothing but blanks comes as an empty line (`b"\n"`): a blank line
    takes no seq, whatever its length, so raising `max_line_bytes` changes no seq.
    `opened`: a descriptor on `path` the caller already holds (and closes).
    """
    fd = open_regular(path, under) if opened is None else opened
    try:
        position = offset
        pending = b""
        skipping = False  # inside a line already known to be too long
        blank = False  # and nothing but blanks in it so far
        while True:
            at = position if skipping else position + len(pending)
            size = CHUNK if limit is None else min(CHUNK, limit - at)
            chunk = os.pread(fd, size, at) if size > 0 else b""
            if not chunk:
                return
            if skipping:
                newline = chunk.find(b"\n")
                blank = blank and not chunk[:newline if newline >= 0 else len(chunk)].strip()
                if newline < 0:
                    position += len(chunk)
                    continue
                position += newline + 1
                skipping = False
                yield (b"\n" if blank else None), position
                pending = b""
                continue
            buffer = pending + chunk
            cut = buffer.rfind(b"\n") + 1
            if cut:
                position += cut
                yield buffer[:cut], position
            pending = buffer[cut:]
            if len(pending) > max_line_bytes:
                # Never hold a whole over-long line: skip to its end, then report it.
                position += len(pending)
                blank = not pending.strip()
                pending = b""
                skipping = True
    finally:
        if opened is None:
            os.close(fd)


def read_lines(path: Path, offset: int, max_line_bytes: int, limit: int | None = None,
               under: Path | None = None) -> Iterator[tuple[bytes | None, int]]:
    """Complete lines from `offset`: (bytes without `\n`, or None when too long; end offset)."""
    for block, end in read_blocks(path, offset, max_line_bytes, limit, under):
        if block is None:
            yield None, end
            continue
        base = end - len(block)
        start = 0
        while (newline := block.find(b"\n", start)) >= 0:
            line = block[start:newline]
            too_long = len(line) > max_line_bytes and not is_blank(line)
            yield (None if too_long else line), base + newline + 1
            start = newline + 1


def is_blank(line: bytes) -> bool:
    return not line.strip()


def tail_hash(path: Path, offset: int, under: Path | None = None) -> str:
    """A hash of the bytes just before `offset`: the fingerprint a checkpoint keeps."""
    if offset == 0:
        return ""
    fd = open_regular(path, under)
    try:
        return tail_hash_at(fd, offset)
    finally:
        os.close(fd)


def tail_hash_at(fd: int, offset: int) -> str:
    """`tail_hash` of the file open at `fd`."""
    if offset == 0:
        return ""
    start = max(0, offset - TAIL_BYTES)
    return hash_tail(os.pread(fd, offset - start, start))


def hash_tail(data: bytes) -> str:
    """`tail_hash` of the bytes that end at the offset (only the last TAIL_BYTES count):
    a reader that just read a long enough line needs no second look at the file."""
    return hashlib.blake2b(data[-TAIL_BYTES:], digest_size=12).hexdigest()


def line_hash(line: bytes) -> str:
    """The fingerprint of one journal line, as flag records keep it."""
    return hashlib.blake2b(line, digest_size=16).hexdigest()
