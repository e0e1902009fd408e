"""Keys of the model output cache: what a text depends on, hashed (pure)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import Protocol

from horizon.summarize.prompts import PROMPT_VERSION


class CacheReader(Protocol):
    def get(self, key: str) -> str | None: ...


def cache_key(kind: str, level: str, parts: Iterable[str]) -> str:
    digest = hashlib.blake2b(digest_size=20)
    for part in (kind, level, PROMPT_VERSION, *parts):
        digest.update(part.encode("utf-8", "surrogatepass"))
        digest.update(b"\0")
    return digest.hexdigest()
