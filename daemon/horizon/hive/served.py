"""`served-<hash>.json` in the daemon's runtime folder: the hives a running daemon serves,
so that `status` and `top` still know them when config.json is broken.

The runtime folder is `$HORIZON_RUNTIME_DIR`, else `/run/horizon` (the unit's
`RuntimeDirectory=`, made by root when missing), else `$XDG_RUNTIME_DIR/horizon`; readers
look in the same order.
The hash names the config file, so daemons started on different configs keep apart.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from pathlib import Path

import msgspec

from horizon.core.errors import JournalError
from horizon.hive.durable import StoreError, read_regular, write_atomic

SERVED_FORMAT = 1
SYSTEM_RUNTIME = Path("/run/horizon")
SERVED_MODE = 0o644
MAX_BYTES = 1 << 20  # far more than any hive list: a larger file is not ours


class Served(msgspec.Struct, kw_only=True):
    format: int = SERVED_FORMAT
    pid: int
    config: str  # the config file the daemon loaded
    hives: list[str]


def runtime_dirs() -> list[Path]:
    """Where the file may be, in the order readers look."""
    found = []
    if os.environ.get("HORIZON_RUNTIME_DIR"):
        found.append(Path(os.environ["HORIZON_RUNTIME_DIR"]))
    found.append(SYSTEM_RUNTIME)
    if os.environ.get("XDG_RUNTIME_DIR"):
        found.append(Path(os.environ["XDG_RUNTIME_DIR"]) / "horizon")
    return found


def served_name(config: Path) -> str:
    digest = hashlib.blake2b(str(config.absolute()).encode("utf-8", "surrogateescape"),
                             digest_size=8).hexdigest()
    return f"served-{digest}.json"


def publish(config: Path, hives: list[str]) -> Path:
    """Written atomically in the first runtime folder that can take it; where. The system
    one is made when missing only by root (systemd makes it for the unit; root outside
    systemd, often without $XDG_RUNTIME_DIR, has nowhere else). StoreError when none
    can take it."""
    document = msgspec.json.encode(Served(pid=os.getpid(), config=str(config.absolute()),
                                          hives=hives))
    errors = []
    for folder in runtime_dirs():
        try:
            if folder != SYSTEM_RUNTIME or os.geteuid() == 0:
                folder.mkdir(mode=0o755, parents=True, exist_ok=True)
            path = folder / served_name(config)
            write_atomic(path, document, mode=SERVED_MODE)
            return path
        except StoreError as error:  # it names the file already
            errors.append(str(error))
        except OSError as error:
            errors.append(f"{folder}: {error.strerror or error}")
    raise StoreError("no runtime folder for served hives: " + "; ".join(errors))


def withdraw(path: Path) -> None:
    with contextlib.suppress(OSError):
        path.unlink()


def read_served(config: Path) -> Served | None:
    """What a running daemon on `config` published: the first file found whose daemon
    is alive and loaded this config."""
    for folder in runtime_dirs():
        path = folder / served_name(config)
        try:
            data = read_regular(path, limit=MAX_BYTES)
            served = msgspec.json.decode(data, type=Served) if data is not None else None
        except (OSError, StoreError, JournalError, msgspec.MsgspecError, RecursionError):
            continue
        if (served is not None and served.config == str(config.absolute())
                and _alive(served.pid)):
            return served
    return None


def _alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # alive, another user's
    return True
