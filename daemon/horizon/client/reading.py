"""`view`: a bee's view as it will be once every complete line appended so far is read,
so a runtime that appends and relaunches at once never injects a stale one."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from horizon.client.writer import BeeNotFound, ClientError, HiveNotFound, InvalidBee


class InvalidSettings(ClientError, ValueError):
    """A settings file of the bee's cascade (config.json, horizon.toml, its bee file) is
    one the daemon refuses."""


class ViewUnavailable(ClientError):
    """The files could not be read into a view: a derived state written by a newer
    horizon, an unreadable file, a journal that is not a regular file."""


@dataclass(frozen=True)
class View:
    """A view read fresh.

    `source` is "disk" when handoff.md already holds exactly this text (the daemon has
    caught up), "computed" when it exists only here so far. `behind` counts the complete
    lines read past the daemon's derived state. `replayed` says why the whole history was
    read instead (no derived state yet, one of another format, new settings or flags):
    that costs a read of every line, as a rebuild does.
    """

    text: str
    up_to: int
    source: Literal["disk", "computed"]
    behind: int = 0
    replayed: str | None = None


def view(hive: str | os.PathLike[str], bee: str, *,
         config: str | os.PathLike[str] | None = None, now: float | None = None) -> View:
    """The view `bee` will read once every complete line appended so far is read (a bee
    with no journal yet has the view of an empty history). Settings come from `config`
    (else $HORIZON_CONFIG, /etc/horizon/config.json, the built-in defaults) and the hive's
    cascade, as the daemon's do. Writes nothing, takes no lock."""
    # The engine is imported here, not with the module: a runtime that only appends
    # should not pay for it.
    from horizon.core.errors import HiveError, JournalError, SettingsError, os_reason
    from horizon.engine.fresh import fresh_view
    from horizon.hive.discovery import discover, require_hive
    from horizon.hive.durable import StoreError
    from horizon.hive.layout import is_bee_name
    from horizon.hive.settings_files import (
        config_path,
        config_source,
        effective_settings,
        load_global,
    )
    from horizon.hive.store import StateTooNew
    from horizon.summarize.cache import hive_cache

    if not is_bee_name(bee):
        raise InvalidBee(f"{bee!r} is not a bee name")
    try:
        hive_path = require_hive(os.fspath(hive))
        bees, problems = discover(hive_path)
    except HiveError as error:
        raise HiveNotFound(str(error)) from None
    if bee not in bees:
        refused = [problem for problem in problems if f"bee {bee!r}" in problem]
        if refused:
            raise InvalidBee(refused[0])  # a case twin, a journal that is no regular file
        twins = [other for other in bees if other.casefold() == bee.casefold()]
        if twins:
            raise InvalidBee(f"{bee!r} is the case twin of the hive's bee {twins[0]!r}")
        known = ", ".join(bees[:5]) + (", …" if len(bees) > 5 else "") if bees else "none"
        raise BeeNotFound(f"{os.fspath(hive)} has no bee {bee!r} (its bees: {known})")
    path = config_path(os.fspath(config) if config is not None else None)
    try:
        if path is not None and not path.exists():
            raise InvalidSettings(f"{path}: config file not found")
        global_config = load_global(path)
        effective = effective_settings(global_config, config_source(path), hive_path, bee)
    except SettingsError as error:
        raise InvalidSettings(str(error)) from None
    wall = time.time()
    cache = hive_cache(hive_path, create=False)
    try:
        fresh = fresh_view(Path(hive_path), bee, global_config, effective,
                           now if now is not None else wall, wall, cache=cache)
    except (StoreError, StateTooNew, JournalError) as error:
        raise ViewUnavailable(str(error)) from None
    except OSError as error:
        raise ViewUnavailable(os_reason(error)) from None
    finally:
        cache.close()  # a runtime calls view() at every launch: no connection left open
    return View(fresh.view.text, fresh.up_to, fresh.source, fresh.behind, fresh.replayed)
