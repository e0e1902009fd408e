"""horizon.client: what an agent runtime calls (the one public module; the rest is private).

    from horizon.client import append
    append("/srv/hive", "mia", {"ts": time.time(), "type": "tool", "tool": "pytest",
                                "question": "pytest -q", "answer": out, "ok": False,
                                "files": ["tests/test_wind.py"]})

    text = view("/srv/hive", "mia").text  # at the top of the bee's next prompt

`append` writes one entry as the daemon will read it, or raises and writes nothing.
`view` gives the view as it will be once every line appended so far is read, computed in
memory, writing nothing. Every error either raises derives from ClientError.
"""

from horizon.client.reading import InvalidSettings, UnknownBee, View, ViewUnavailable, view
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
           "InvalidEntry", "InvalidSettings", "JournalRefused", "LineTooLong", "ShortWrite",
           "UnknownBee", "View", "ViewUnavailable", "append", "view"]
