"""horizon.client: what an agent runtime calls (the one public module; the rest is private).

    from horizon.client import append
    append("/srv/hive", "mia", {"ts": time.time(), "type": "tool", "tool": "pytest",
                                "question": "pytest -q", "answer": out, "ok": False,
                                "files": ["tests/test_wind.py"]})

    text = view("/srv/hive", "mia").text  # at the top of the bee's next prompt

`append` writes one entry as the daemon will read it, or raises and writes nothing; a bee
the hive does not have yet is started with `create=True`. `view` gives the view as it
will be once every line appended so far is read, computed in memory, writing nothing.
Every error either raises derives from ClientError:

    ClientError
    ├── UnknownBee        (also LookupError)
    │   ├── HiveNotFound  no hive there
    │   └── BeeNotFound   the hive has no such bee
    ├── InvalidBee        not a bee name, or a case twin
    ├── InvalidEntry      the daemon would reject it (LineTooLong: over max_line_bytes)
    ├── InvalidSettings   a settings file of the bee's cascade is refused
    ├── ViewUnavailable   the files could not be read into a view
    ├── JournalRefused    the journal or its folder is not a regular file and folder
    └── ShortWrite        the system wrote part of the line
"""

from horizon.client.reading import InvalidSettings, View, ViewUnavailable, view
from horizon.client.writer import (
    DEFAULT_MAX_LINE_BYTES,
    BeeNotFound,
    ClientError,
    HiveNotFound,
    InvalidBee,
    InvalidEntry,
    JournalRefused,
    LineTooLong,
    ShortWrite,
    UnknownBee,
    append,
)
from horizon.core.errors import HorizonError

__all__ = ["DEFAULT_MAX_LINE_BYTES", "BeeNotFound", "ClientError", "HiveNotFound",
           "HorizonError", "InvalidBee", "InvalidEntry", "InvalidSettings", "JournalRefused",
           "LineTooLong", "ShortWrite", "UnknownBee", "View", "ViewUnavailable", "append",
           "view"]
