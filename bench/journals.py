"""The synthetic journals every item reads, and the floor they are measured against."""

from __future__ import annotations

import json
import time
from pathlib import Path

import msgspec

from horizon.hive.layout import archive_name
from horizon.hive.manifest import read_manifest
from horizon.hive.rotation import adopt

BEE = "mia"


def line(number: int, now: float) -> bytes:
    record = {"ts": now - 3600 + number * 0.001, "type": "tool" if number % 3 else "task",
              "tool": "bash",
              "question": f"étape {number} : lance les tests de src/mod{number % 50}.py",
              "answer": f"Les tests passent ({number % 7} avertissements). " * (1 + number % 9)}
    if number % 17 == 0:
        record.update(type="conversation", **{"from": "apicultrice"})
    return json.dumps(record, ensure_ascii=False).encode() + b"\n"


def write_history(window: Path, count: int, segment: int, now: float) -> None:
    """`count` lines: full archive segments of `segment` lines, the rest live."""
    (window / "archive").mkdir(parents=True, exist_ok=True)
    number = 0
    segments = count // segment if count > segment else 0
    for index in range(1, segments + 1):
        with (window / "archive" / archive_name(BEE, index)).open("wb") as out:
            out.write(b"".join(line(number + i, now) for i in range(segment)))
        number += segment
    with (window / f"{BEE}-messages.jsonl").open("wb") as out:
        out.write(b"".join(line(i, now) for i in range(number, count)))
    # Segments written by hand are part of a history only once taken in, as an operator
    # does with `horizon adopt`.
    adopt(window, BEE, read_manifest(window, BEE))


def floor_rate(paths: list[Path], count: int, passes: int = 5) -> float:
    """Lines read and decoded with msgspec, nothing else: the physical floor. One pass
    over 100,000 lines takes a tenth of a second, too short to time steadily alone."""
    decode = msgspec.json.decode
    start = time.perf_counter()
    for _ in range(passes):
        for path in paths:
            with path.open("rb") as stream:
                for raw in stream:
                    decode(raw)
    return count * passes / (time.perf_counter() - start)
