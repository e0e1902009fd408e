"""Reading the settings files of the cascade: config.json, horizon.toml, bees/<bee>.toml."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import msgspec

from horizon.core.errors import JournalError, SettingsError
from horizon.core.settings import (
    BUILTIN,
    HORIZON_KEYS,
    Effective,
    GlobalConfig,
    Layer,
    cascade,
    level_names,
    validate_global,
    validate_layer,
    validate_model,
)
from horizon.hive.durable import read_regular, require_real_dir
from horizon.hive.layout import bee_settings_path, hive_settings_path

MAX_SETTINGS_BYTES = 1 << 20
SYSTEM_CONFIG = Path("/etc/horizon/config.json")


def config_path(explicit: str | None) -> Path | None:
    """`--config`, then `$HORIZON_CONFIG`, then /etc/horizon/config.json, else built-ins."""
    if explicit:
        return Path(explicit)
    from_env = os.environ.get("HORIZON_CONFIG")
    if from_env:
        return Path(from_env)
    if SYSTEM_CONFIG.is_file():
        return SYSTEM_CONFIG
    return None


def config_source(path: Path | None) -> str:
    """How settings name the global layer: its file, or the built-in defaults."""
    return str(path) if path is not None else BUILTIN


def _read_bytes(path: Path, *, hive: Path | None) -> bytes:
    """A settings file's bytes. Inside a `hive` a link is refused, like any file there
    (reached through folder descriptors); config.json itself may be a link
    (configuration managers make them)."""
    source = str(path)
    try:
        if hive is None and not path.is_file():
            raise SettingsError(source, "(file)", "not a regular file")
        data = (read_regular(path, MAX_SETTINGS_BYTES + 1, under=hive) if hive is not None
                else path.read_bytes()[: MAX_SETTINGS_BYTES + 1])
    except JournalError as error:
        raise SettingsError(source, "(file)", str(error).removeprefix(f"{path}: ")) from None
    except OSError as error:
        raise SettingsError(source, "(file)", error.strerror or str(error)) from None
    if data is None:
        raise SettingsError(source, "(file)", "not found")
    if len(data) > MAX_SETTINGS_BYTES:
        raise SettingsError(source, "(file)", "over the 1 MiB limit")
    return data


def _read_toml(path: Path, hive: Path) -> dict[str, Any]:  # tomllib's own type
    import tomllib  # here: commands that read only config.json start without it

    raw = _read_bytes(path, hive=hive)
    try:
        return tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise SettingsError(str(path), "(file)", "not valid UTF-8") from None
    except tomllib.TOMLDecodeError as error:
        raise SettingsError(str(path), "(syntax)", str(error)) from None
    except RecursionError:
        raise SettingsError(str(path), "(syntax)", "nested too deeply") from None


def load_global(path: Path | None) -> GlobalConfig:
    """The global config; built-in defaults when there is no file."""
    if path is None:
        return GlobalConfig()
    raw = _read_bytes(path, hive=None)
    try:
        document = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise SettingsError(str(path), "(file)", "not valid UTF-8") from None
    except json.JSONDecodeError as error:
        raise SettingsError(
            str(path), "(syntax)", f"{error.msg} at line {error.lineno} column {error.colno}"
        ) from None
    except RecursionError:
        raise SettingsError(str(path), "(syntax)", "nested too deeply") from None
    if not isinstance(document, dict):
        raise SettingsError(str(path), "(top)", "expected a JSON object")
    return anchored(validate_global(document, str(path)), path.parent)


def anchored(config: GlobalConfig, base: Path) -> GlobalConfig:
    """Relative `hives` and `log.dir` mean beside config.json: a service's current folder
    is nobody's choice, and the same file must mean the same paths from any shell."""
    def anchor(value: str) -> str:
        return value if os.path.isabs(value) else os.path.normpath(base.absolute() / value)

    return msgspec.structs.replace(
        config, hives=tuple(anchor(hive) for hive in config.hives),
        log=msgspec.structs.replace(config.log, dir=anchor(config.log.dir)))


def hive_file(hive: Path) -> Path:
    return hive_settings_path(hive)


def bee_file(hive: Path, bee: str) -> Path:
    return bee_settings_path(hive, bee)


def load_hive_layer(hive: Path) -> Layer | None:
    path = hive_file(hive)
    if not path.exists():
        return None
    document = _read_toml(path, hive)
    for key in document:
        if key != "horizon":
            hint = " (it belongs in the [horizon] table)" if key in HORIZON_KEYS else ""
            raise SettingsError(str(path), key, f"unknown key{hint}")
    table = document.get("horizon", {})
    if not isinstance(table, dict):
        raise SettingsError(str(path), "horizon", "expected a table")
    return Layer(str(path), validate_layer(table, str(path)))


class BeeFile(msgspec.Struct, frozen=True):
    layer: Layer | None
    mission: str | None
    modele: str | None


def load_bee_file(hive: Path, bee: str) -> BeeFile:
    path = bee_file(hive, bee)
    if os.path.lexists(path.parent):
        try:
            require_real_dir(path.parent, JournalError)
        except JournalError as error:
            raise SettingsError(str(path), "(file)", str(error)) from None
    if not path.exists():
        return BeeFile(None, None, None)
    source = str(path)
    document = _read_toml(path, hive)
    for key in document:
        if key in HORIZON_KEYS:
            raise SettingsError(source, key, "this key belongs in the [horizon] table")
    mission = document.get("mission")
    if mission is not None and not isinstance(mission, str):
        raise SettingsError(source, "mission", "expected a string")
    modele = document.get("modele")
    if modele is not None:
        modele = validate_model(modele, source, "modele")
    table = document.get("horizon")
    if table is None:
        return BeeFile(None, mission, modele)
    if not isinstance(table, dict):
        raise SettingsError(source, "horizon", "expected a table")
    return BeeFile(Layer(source, validate_layer(table, source)), mission, modele)


def effective_settings(config: GlobalConfig, config_source: str, hive: Path,
                       bee: str) -> Effective:
    """The cascade for one bee; raises SettingsError on any bad file."""
    layers = [Layer(config_source, validate_layer(config.horizon, config_source))]
    hive_layer = load_hive_layer(hive)
    if hive_layer is not None:
        layers.append(hive_layer)
    bee_settings = load_bee_file(hive, bee)
    if bee_settings.layer is not None:
        layers.append(bee_settings.layer)
    effective = cascade(layers, str(bee_file(hive, bee)), bee_settings.mission,
                        bee_settings.modele)
    return msgspec.structs.replace(effective, levels=level_names(config, effective))
