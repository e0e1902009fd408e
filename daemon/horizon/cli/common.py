"""What every command shares: loading settings and turning the core's failures into one
clear line each."""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path

from horizon.cli.exits import UserError
from horizon.cli.safe_text import printable
from horizon.core.errors import HorizonError, SettingsError, os_reason
from horizon.core.settings import Effective, GlobalConfig
from horizon.hive.settings_files import (
    anchored,
    config_path,
    config_source,
    effective_settings,
    load_global,
)
from horizon.hive.store import load_state


@contextlib.contextmanager
def reported() -> Iterator[None]:
    """Turn every failure horizon raises on purpose, and the system's, into one clear line
    (a UserError, which `main` prints and exits 1 for)."""
    try:
        yield
    except UserError:
        raise
    except OSError as error:  # a RotationRefused too: an OSError first, and said as one
        raise UserError(os_reason(error)) from None
    except HorizonError as error:
        raise UserError(str(error)) from None


def load_config(args: argparse.Namespace) -> tuple[GlobalConfig, str]:
    path = config_path(args.config)
    with reported():
        if path is not None and not path.exists():
            raise UserError(f"{path}: config file not found")
        return load_global(path), config_source(path)


def load_config_for_view(args: argparse.Namespace, *, quiet: bool = False
                         ) -> tuple[GlobalConfig, str, str | None]:
    """The global settings for a command that reads what the daemon derived: a broken
    config.json is named on stderr (unless `quiet`: the caller shows it) and the built-in
    defaults stand in (with its error, so the bees' settings come from their derived
    states)."""
    path = config_path(args.config)
    try:
        config, source = load_config(args)
    except UserError as error:
        if path is None or not path.exists():
            raise
        if not quiet:
            warn(f"{error}; going on without it (the daemon keeps its last good settings)")
        # Built-in defaults, their relative paths (the log folder) beside config.json.
        return anchored(GlobalConfig(), path.parent), config_source(path), str(error)
    return config, source, None


def warn(message: str) -> None:
    print(printable(f"horizon: warning: {message}"), file=sys.stderr)


def derived_settings(config: GlobalConfig, source: str, hive: Path, bee: str,
                     broken_config: str | None = None) -> tuple[Effective, str | None]:
    """A bee's settings for a command that reads the derived view: while one of its
    settings files is broken, the ones its derived state was made with (the daemon's last
    good), and the broken file's error."""
    broken = broken_config
    if broken is None:
        try:
            return effective_settings(config, source, hive, bee), None
        except SettingsError as error:
            broken = str(error)
    with reported():
        state = load_state(hive, bee)
    if state is None or state.settings is None:
        raise UserError(f"{broken} (and no derived view of {bee} to show meanwhile)")
    return state.settings, broken


def bee_settings(config: GlobalConfig, source: str, hive: Path, bee: str) -> Effective:
    with reported():
        return effective_settings(config, source, hive, bee)
