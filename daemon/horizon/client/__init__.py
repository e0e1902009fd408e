"""horizon.client: what an agent runtime calls (the one public module; the rest is private).

    from horizon.client import append
    append("/srv/hive", "mia", {"ts": time.time(), "type": "tool", "tool": "pytest",
                                "question": "pytest -q", "answer": out, "ok": False,
                                "files": ["tests/test_wind.py"]})

`append` writes one entry as the daemon will read it, or raises and writes nothing.
"""

from horizon.client.writer import (
    DEFAULT_MAX_LINE_BYTES,
    ClientError,
    InvalidBee,
    InvalidEntry,
    JournalRefused,
    LineTooLong,
    ShortWrite,
    append,
)
from horizon.core.errors import HorizonError

__all__ = ["DEFAULT_MAX_LINE_BYTES", "ClientError", "HorizonError", "InvalidBee",
           "InvalidEntry", "JournalRefused", "LineTooLong", "ShortWrite", "append"]
