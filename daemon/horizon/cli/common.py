"""What every command shares: loading settings and turning the core's failures into one
clear line each."""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Iterator
from pathlib import Path

from horizon.cli.demo import DemoError
from horizon.cli.exits import UserError
from horizon.core.settings import Effective, GlobalConfig, SettingsError
from horizon.hive.discovery import HiveError
from horizon.hive.durable import JournalError, StoreError
from horizon.hive.lock import HiveLocked
from horizon.hive.settings_files import config_path, config_source, effective_settings, load_global
from horizon.hive.store import StateTooNew


@contextlib.contextmanager
def reported() -> Iterator[None]:
    """Turn the operator-facing failures of the core into one clear line each."""
    try:
        yield
    except (HiveError, SettingsError, StoreError, HiveLocked, StateTooNew,
            JournalError, DemoError) as error:
        raise UserError(str(error)) from None
    except OSError as error:
        where = f"{error.filename}: " if error.filename else ""
        raise UserError(f"{where}{error.strerror or error}") from None


def load_config(args: argparse.Namespace) -> tuple[GlobalConfig, str]:
    path = config_path(args.config)
    with reported():
        if path is not None and not path.exists():
            raise UserError(f"{path}: config file not found")
        return load_global(path), config_source(path)


def bee_settings(config: GlobalConfig, source: str, hive: Path, bee: str) -> Effective:
    with reported():
        return effective_settings(config, source, hive, bee)
