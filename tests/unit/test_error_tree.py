"""One exception tree: every error horizon raises on purpose derives from HorizonError,
through the family a caller acts on."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import horizon
from horizon.core.errors import (
    HiveError,
    HorizonError,
    JournalError,
    ModelError,
    SettingsError,
    UsageError,
    WriteError,
)

FAMILIES = (UsageError, SettingsError, HiveError, JournalError, ModelError, WriteError)
# The command line's one line, made from an error of any family: above the families.
ABOVE_FAMILIES = {"horizon.cli.exits.UserError"}
# Ways out of a loop on a signal, caught where they are raised: not errors.
NOT_ERRORS = {"horizon.cli.top.Stop", "horizon.cli.demo.StopDemo"}


def horizon_exceptions() -> list[type[BaseException]]:
    found = []
    for info in pkgutil.walk_packages(horizon.__path__, "horizon."):
        if info.name.endswith("__main__"):  # running it runs the command line
            continue
        try:
            module = importlib.import_module(info.name)
        except ImportError:  # an optional extra not installed
            continue
        for _, value in inspect.getmembers(module, inspect.isclass):
            if issubclass(value, BaseException) and value.__module__ == info.name:
                found.append(value)
    return found


def test_every_error_horizon_defines_is_in_one_family() -> None:
    errors = horizon_exceptions()
    assert len(errors) >= 25
    for error in errors:
        name = f"{error.__module__}.{error.__qualname__}"
        if name in NOT_ERRORS:
            continue
        assert issubclass(error, HorizonError), name
        if (error.__module__.startswith("horizon.client") or name in ABOVE_FAMILIES
                or error in (HorizonError, *FAMILIES)):
            continue
        assert any(issubclass(error, family) for family in FAMILIES), name
