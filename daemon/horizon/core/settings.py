"""The settings model: defaults, per-layer validation, key-by-key cascade with provenance.

Pure: files are read in `settings_files`; here a layer is already a Python mapping.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping
from typing import Annotated, Literal, get_args, get_origin, get_type_hints
from urllib.parse import urlsplit

import msgspec

from horizon.core.errors import SettingsError
from horizon.core.labels import Labels, labels_for

PROVIDERS = ("ollama", "openai")
BUILTIN = "défaut intégré"
CAP_MIN = 1000

Budget = Annotated[int, msgspec.Meta(ge=1, le=1_000_000)]
Floor = Literal["net", "condense", "recit"]
Language = Literal["fr", "en"]
_MODEL_PATTERN = re.compile(r"^(ollama|openai)/\S+$")


class HorizonSettings(msgspec.Struct, frozen=True, kw_only=True):
    """Effective `[horizon]` settings of one bee."""

    actif: bool = False
    budget_net: int = 12000
    budget_condense: int = 6000
    budget_recit: int = 3000
    age_net_heures: float = 24
    resumeur: str = "abeille"
    phares: tuple[str, ...] = ("apicultrice",)
    plancher_phare: Floor = "condense"
    ligne_max: int = 240
    handoff_max: int = 4096
    debounce_s: float = 2
    max_wait_s: float = 10
    langue: Language = "fr"

    @property
    def labels(self) -> Labels:
        """The view's words in the bee's language."""
        return labels_for(self.langue)

    @property
    def budgets(self) -> dict[str, int]:
        """Each zone's budget, by the zone's name."""
        return {"net": self.budget_net, "condense": self.budget_condense,
                "recit": self.budget_recit}

    @property
    def cap(self) -> int:
        """The hard cap of handoff.md in the current mode."""
        if self.actif:
            return self.budget_net + self.budget_condense + self.budget_recit
        return self.handoff_max


class _HorizonLayer(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """One file's `[horizon]` table: every key optional, each checked on its own."""

    actif: bool | msgspec.UnsetType = msgspec.UNSET
    budget_net: Budget | msgspec.UnsetType = msgspec.UNSET
    budget_condense: Budget | msgspec.UnsetType = msgspec.UNSET
    budget_recit: Budget | msgspec.UnsetType = msgspec.UNSET
    age_net_heures: Annotated[float, msgspec.Meta(gt=0, le=100_000)] | msgspec.UnsetType = (
        msgspec.UNSET
    )
    resumeur: str | msgspec.UnsetType = msgspec.UNSET
    phares: list[Annotated[str, msgspec.Meta(min_length=1)]] | msgspec.UnsetType = msgspec.UNSET
    plancher_phare: Floor | msgspec.UnsetType = msgspec.UNSET
    ligne_max: Annotated[int, msgspec.Meta(ge=16, le=1_000_000)] | msgspec.UnsetType = (
        msgspec.UNSET
    )
    handoff_max: Annotated[int, msgspec.Meta(ge=CAP_MIN, le=3_000_000)] | msgspec.UnsetType = (
        msgspec.UNSET
    )
    debounce_s: Annotated[float, msgspec.Meta(ge=0.05, le=3600)] | msgspec.UnsetType = (
        msgspec.UNSET
    )
    max_wait_s: Annotated[float, msgspec.Meta(ge=0.05, le=86400)] | msgspec.UnsetType = (
        msgspec.UNSET
    )
    langue: Language | msgspec.UnsetType = msgspec.UNSET


HORIZON_KEYS = tuple(_HorizonLayer.__struct_fields__)


class ProviderConfig(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    url: str
    timeout_s: Annotated[float, msgspec.Meta(gt=0, le=3600)] = 30.0
    api_key_env: str | None = None
    allow_remote: bool = False
    actif: bool = True
    options: dict[str, object] = msgspec.field(default_factory=dict)


class LogConfig(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    dir: str = "logs"
    level: Literal["debug", "info", "warning", "error"] = "info"
    format: Literal["json", "console", "auto"] = "auto"


class GlobalConfig(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """`config.json`: global-only keys plus the global `horizon` defaults layer."""

    hives: tuple[str, ...] = ()
    rotation_entries: Annotated[int, msgspec.Meta(ge=2, le=10_000_000)] = 500
    rotate_wait_s: Annotated[float, msgspec.Meta(ge=0, le=3600)] = 2
    sweep_s: Annotated[float, msgspec.Meta(ge=0.1, le=86400)] = 60
    watch: Literal["auto", "poll"] = "auto"
    poll_s: Annotated[float, msgspec.Meta(ge=0.05, le=3600)] = 2
    max_line_bytes: Annotated[int, msgspec.Meta(ge=1024, le=64 << 20)] = 4 * 1024 * 1024
    providers: dict[Literal["ollama", "openai"], ProviderConfig] = msgspec.field(
        default_factory=dict
    )
    log: LogConfig = msgspec.field(default_factory=LogConfig)
    horizon: dict[str, object] = msgspec.field(default_factory=dict)
    # "host:port" of the Prometheus /metrics and /healthz listener; off when None.
    metrics: str | None = None
    metrics_allow_remote: bool = False

    def metrics_address(self) -> tuple[str, int] | None:
        """The listener's (host, port), validated at load (`validate_global`)."""
        return None if self.metrics is None else parse_listen(self.metrics)


def _choices() -> dict[str, tuple[str, ...]]:
    """The values each key with a fixed set of them accepts, by key path."""
    hints = {**get_type_hints(GlobalConfig),
             **{f"log.{key}": value for key, value in get_type_hints(LogConfig).items()},
             "plancher_phare": Floor, "langue": Language}
    return {key: get_args(hint) for key, hint in hints.items() if get_origin(hint) is Literal}


def _reason(error: msgspec.ValidationError) -> tuple[str, str]:
    """(key path, reason) out of a msgspec validation message; for a key with a fixed set
    of values, the reason lists them."""
    key, reason = _located(error)
    if reason.startswith("Invalid enum value") and key in _choices():
        reason += "; expected one of " + ", ".join(f'"{choice}"' for choice in _choices()[key])
    return key, reason


def _located(error: msgspec.ValidationError) -> tuple[str, str]:
    message = str(error)
    if " - at `key` in `$" in message:  # a bad key of a mapping, e.g. an unknown provider
        reason, _, where = message.rpartition(" - at `key` in `$")
        return where.rstrip("`").lstrip(".") or "(top)", reason
    if " - at `$" in message:
        reason, _, where = message.rpartition(" - at `$")
        return where.rstrip("`").lstrip(".") or "(top)", reason
    if message.startswith("Object contains unknown field"):
        key = message.split("`")[1]
        return key, "unknown key"
    return "(top)", message


def validate_layer(raw: Mapping[str, object], source: str, prefix: str = "horizon"
                   ) -> dict[str, object]:
    """The keys of one `[horizon]` layer, validated; raises SettingsError naming the key."""
    try:
        layer = msgspec.convert(dict(raw), _HorizonLayer)
    except msgspec.ValidationError as error:
        key, reason = _reason(error)
        raise SettingsError(source, f"{prefix}.{key}", reason) from None
    values = {
        key: getattr(layer, key)
        for key in HORIZON_KEYS
        if not isinstance(getattr(layer, key), msgspec.UnsetType)
    }
    resumeur = layer.resumeur
    if (isinstance(resumeur, str) and resumeur not in ("abeille", "troncature")
            and not _MODEL_PATTERN.match(resumeur)):
        raise SettingsError(
            source,
            f"{prefix}.resumeur",
            f"unknown summarizer {resumeur!r}: use \"abeille\", \"troncature\" or "
            f"\"<provider>/<model>\" with provider in {', '.join(PROVIDERS)}",
        )
    return values


def validate_model(value: object, source: str, key: str) -> str:
    if not isinstance(value, str) or not _MODEL_PATTERN.match(value):
        raise SettingsError(
            source, key, f"expected \"<provider>/<model>\" with provider in {', '.join(PROVIDERS)}"
        )
    return value


def validate_global(raw: Mapping[str, object], source: str) -> GlobalConfig:
    try:
        config = msgspec.convert(dict(raw), GlobalConfig)
    except msgspec.ValidationError as error:
        key, reason = _reason(error)
        if key.startswith("providers") and "Invalid enum value" in reason:
            reason = f"unknown provider ({reason}); known: {', '.join(PROVIDERS)}"
        raise SettingsError(source, key, reason) from None
    validate_layer(config.horizon, source)
    for name, provider in config.providers.items():
        _check_provider_url(name, provider, source)
    if config.metrics is not None:
        try:
            host, _ = parse_listen(config.metrics)
        except ValueError as error:
            raise SettingsError(source, "metrics", str(error)) from None
        if not is_loopback(host) and not config.metrics_allow_remote:
            raise SettingsError(source, "metrics", f"{host} is not on the loopback: set "
                                "\"metrics_allow_remote\": true to serve metrics there")
    return config


def parse_listen(value: str) -> tuple[str, int]:
    """`host:port` (`[::1]:9464` for IPv6) as (host, port); ValueError naming the fault."""
    host, colon, port = value.rpartition(":")
    if (not colon or not host or not port.isdigit() or not 0 < int(port) < 65536
            or not host.isprintable() or " " in host):
        raise ValueError(f"{value!r}: expected \"host:port\", e.g. \"127.0.0.1:9464\"")
    return host.removeprefix("[").removesuffix("]"), int(port)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _check_provider_url(name: str, provider: ProviderConfig, source: str) -> None:
    """Journals hold secrets: a provider off the loopback must be allowed explicitly."""
    key = f"providers.{name}.url"
    try:
        parts = urlsplit(provider.url)
        parts.port  # noqa: B018 (reading it validates it)
    except ValueError as error:
        raise SettingsError(source, key, f"not a valid URL ({error})") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise SettingsError(source, key, "expected an http:// or https:// URL with a host")
    host = parts.hostname
    if not is_loopback(host) and not provider.allow_remote:
        raise SettingsError(source, key, f"{host} is not on the loopback; journals hold "
                            "secrets: set \"allow_remote\": true to send them there")


class Layer(msgspec.Struct, frozen=True):
    """Validated `[horizon]` values of one file, with the file's name for provenance."""

    source: str
    values: dict[str, object]


class Effective(msgspec.Struct, frozen=True):
    """A bee's effective settings and, for every key, the file it came from."""

    horizon: HorizonSettings
    provenance: dict[str, str]
    mission: str | None = None
    modele: str | None = None
    # The model levels above truncation, computed with the settings: see `level_names`.
    levels: tuple[str, ...] = ()


def cascade(layers: list[Layer], source_of_bee: str, mission: str | None,
            modele: str | None) -> Effective:
    """Merge layers key by key, most specific last; check the keys that depend on each other."""
    merged: dict[str, object] = {}
    provenance = dict.fromkeys(HORIZON_KEYS, BUILTIN)
    for layer in layers:
        for key, value in layer.values.items():
            merged[key] = value
            provenance[key] = layer.source
    horizon = msgspec.convert(merged, HorizonSettings)
    order = [BUILTIN, *(layer.source for layer in layers)]

    def blame(*keys: str) -> str:
        """Of keys that only fail together, the one set by the most specific file."""
        return max(keys, key=lambda key: order.index(provenance[key]))

    if horizon.actif and horizon.cap < CAP_MIN:
        key = blame("budget_net", "budget_condense", "budget_recit")
        raise SettingsError(
            provenance[key], f"horizon.{key}",
            f"the cap budget_net + budget_condense + budget_recit = {horizon.cap} is under "
            f"{CAP_MIN}",
        )
    if horizon.max_wait_s < horizon.debounce_s:
        key = blame("max_wait_s", "debounce_s")
        raise SettingsError(
            provenance[key], f"horizon.{key}",
            f"max_wait_s ({horizon.max_wait_s}) is shorter than debounce_s "
            f"({horizon.debounce_s})",
        )
    provenance["mission"] = source_of_bee if mission is not None else BUILTIN
    provenance["modele"] = source_of_bee if modele is not None else BUILTIN
    return Effective(horizon, provenance, mission, modele)


def asked_levels(effective: Effective) -> list[str]:
    """The model levels the settings ask for, above truncation: the dedicated model, then
    the bee's own."""
    resumeur = effective.horizon.resumeur
    if resumeur == "troncature":
        return []
    names = [] if resumeur == "abeille" else [resumeur]
    if effective.modele and effective.modele not in names:
        names.append(effective.modele)
    return names


def unavailable_levels(config: GlobalConfig, effective: Effective) -> dict[str, str]:
    """Each asked level that cannot run, with why: a setting that cannot work is said, not
    silently replaced by truncation."""
    unusable = {}
    for name in asked_levels(effective):
        provider_name = name.partition("/")[0]
        provider = config.providers.get(provider_name)  # type: ignore[call-overload]
        if provider is None:
            unusable[name] = (f"no provider {provider_name!r} in config.json's \"providers\"")
        elif not provider.actif:
            unusable[name] = f"provider {provider_name!r} is switched off (\"actif\": false)"
    return unusable


def level_names(config: GlobalConfig, effective: Effective) -> tuple[str, ...]:
    """The cascade above truncation that can run: the dedicated model, then the bee's own;
    a provider that is not configured or is switched off is never called."""
    unusable = unavailable_levels(config, effective)
    return tuple(name for name in asked_levels(effective) if name not in unusable)
