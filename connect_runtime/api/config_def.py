"""Declaring a plugin's configuration: keys, types, defaults, validators and documentation.

Mirrors Kafka's ``ConfigDef`` so the REST ``/connector-plugins/{p}/config`` and ``.../validate``
endpoints return the same shapes as Apache Kafka Connect.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Final

from connect_runtime.api.config_values import (
    INTEGER_TYPES,
    InvalidValue,
    parse_bool,
    parse_double,
    parse_integer,
    parse_list,
    parse_string,
)
from connect_runtime.api.errors import ConfigException


class ConfigType(Enum):
    """The type of a config value, named as in Kafka's ConfigDef.Type."""

    BOOLEAN = "BOOLEAN"
    STRING = "STRING"
    INT = "INT"
    SHORT = "SHORT"
    LONG = "LONG"
    DOUBLE = "DOUBLE"
    LIST = "LIST"
    CLASS = "CLASS"
    PASSWORD = "PASSWORD"


class Importance(Enum):
    """How important a key is to set, for documentation and UIs."""

    HIGH = "HIGH"
    MEDIUM = "MEDIUM"
    LOW = "LOW"


class Width(Enum):
    """Display width hint for UIs."""

    NONE = "NONE"
    SHORT = "SHORT"
    MEDIUM = "MEDIUM"
    LONG = "LONG"


class _NoDefault:
    def __repr__(self) -> str:
        return "NO_DEFAULT"


#: Marks a key as required: it has no default value.
NO_DEFAULT: Any = _NoDefault()

#: A validator raises :class:`ConfigException` when ``value`` is not allowed for key ``name``.
Validator = Callable[[str, Any], None]


@dataclass(slots=True)
class ConfigKey:
    """The definition of one config key."""

    name: str
    type: ConfigType
    default: Any
    validator: Validator | None
    importance: Importance
    documentation: str
    group: str | None = None
    order_in_group: int = -1
    width: Width = Width.NONE
    display_name: str | None = None
    dependents: Sequence[str] = ()
    recommended_values: Callable[[Mapping[str, Any]], list[Any]] | None = None

    @property
    def required(self) -> bool:
        return self.default is NO_DEFAULT


@dataclass(slots=True)
class ConfigValue:
    """The validation result of one key: what ``PUT .../config/validate`` reports as ``value``."""

    name: str
    value: Any = None
    recommended_values: list[Any] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    visible: bool = True


def parse_value(key: ConfigKey, raw: Any) -> Any:
    """Parse ``raw`` (usually a string from a properties file or JSON) to ``key``'s type."""
    name, t = key.name, key.type
    if raw is None:
        return None
    try:
        if t is ConfigType.CLASS and isinstance(raw, type):
            return f"{raw.__module__}.{raw.__qualname__}"
        if t in (ConfigType.STRING, ConfigType.CLASS, ConfigType.PASSWORD):
            return parse_string(raw, strip=t is not ConfigType.PASSWORD)
        if t is ConfigType.BOOLEAN:
            return parse_bool(raw)
        if t.value in INTEGER_TYPES:
            return parse_integer(raw, t.value)
        if t is ConfigType.DOUBLE:
            return parse_double(raw)
        if t is ConfigType.LIST:
            return parse_list(raw)
    except InvalidValue as e:
        raise ConfigException(name, raw, e.message) from None
    raise ConfigException(name, raw, f"Unknown type {t}")  # pragma: no cover


class ConfigDef:
    """A set of config keys. Build it with chained :meth:`define` calls::

        CONFIG = (ConfigDef()
                  .define("topic", ConfigType.STRING, NO_DEFAULT, importance=Importance.HIGH,
                          documentation="The topic to write to.")
                  .define("batch.size", ConfigType.INT, 100, Range.at_least(1)))
    """

    def __init__(self, keys: Iterable[ConfigKey] = ()) -> None:
        self._keys: dict[str, ConfigKey] = {k.name: k for k in keys}

    @property
    def keys(self) -> Mapping[str, ConfigKey]:
        """The keys in definition order."""
        return self._keys

    def define(
        self,
        name: str,
        type: ConfigType,
        default: Any = NO_DEFAULT,
        validator: Validator | None = None,
        importance: Importance = Importance.MEDIUM,
        documentation: str = "",
        group: str | None = None,
        order_in_group: int = -1,
        width: Width = Width.NONE,
        display_name: str | None = None,
        dependents: Sequence[str] = (),
        recommended_values: Callable[[Mapping[str, Any]], list[Any]] | None = None,
    ) -> ConfigDef:
        """Add a key; returns self so definitions chain. A duplicate name is an error."""
        if name in self._keys:
            raise ConfigException(f"Configuration {name} is defined twice.")
        parsed_default = default if default is NO_DEFAULT else parse_value(
            ConfigKey(name, type, None, None, importance, documentation), default)
        self._keys[name] = ConfigKey(
            name, type, parsed_default, validator, importance, documentation, group, order_in_group,
            width, display_name or name, tuple(dependents), recommended_values)
        return self

    def merge(self, other: ConfigDef) -> ConfigDef:
        """A new ConfigDef with this def's keys, then ``other``'s keys that this one does not define."""
        merged = ConfigDef(self._keys.values())
        for k in other.keys.values():
            merged._keys.setdefault(k.name, k)
        return merged

    def parse(self, props: Mapping[str, Any]) -> dict[str, Any]:
        """Parse and validate ``props``; the first missing or invalid key raises ConfigException."""
        values: dict[str, Any] = {}
        for key in self._keys.values():
            values[key.name] = self._parse_one(key, props)
        return values

    def _parse_one(self, key: ConfigKey, props: Mapping[str, Any]) -> Any:
        try:
            return self._parse_checked(key, props)
        except ConfigException as e:
            if key.type is ConfigType.PASSWORD:
                raise _without_password(e, props.get(key.name)) from None
            raise

    def _parse_checked(self, key: ConfigKey, props: Mapping[str, Any]) -> Any:
        if key.name in props:
            value = parse_value(key, props[key.name])
        elif key.required:
            raise ConfigException(f'Missing required configuration "{key.name}" which has no default value.')
        else:
            value = key.default
        if key.validator is not None and not (value is None and key.name not in props):
            key.validator(key.name, value)
        return value

    def validate(self, props: Mapping[str, Any]) -> list[ConfigValue]:
        """Validate every key, collecting all errors instead of stopping at the first."""
        results: list[ConfigValue] = []
        for key in self._keys.values():
            cv = ConfigValue(key.name, props.get(key.name, None if key.required else key.default))
            try:
                cv.value = self._parse_one(key, props)
            except ConfigException as e:
                cv.errors.append(str(e))
                if key.name in props and not _parses(key, props[key.name]):
                    cv.value = None  # as Kafka's validation: a value that does not parse shows as none
            if key.recommended_values is not None:
                try:
                    cv.recommended_values = list(key.recommended_values(props))
                except Exception:  # a recommender bug must not break validation
                    cv.recommended_values = []
            results.append(cv)
        return results


def _parses(key: ConfigKey, value: Any) -> bool:
    try:
        parse_value(key, value)
    except ConfigException:
        return False
    return True


#: How a PASSWORD value is shown in messages and validation results (Kafka's ``Password.HIDDEN``).
HIDDEN: Final = "[hidden]"
# The log redaction's threshold too (config_providers.MIN_REDACTED_LENGTH): "1" or "true" would garble text.
_MIN_HIDDEN_ELSEWHERE: Final = 6


def _without_password(error: ConfigException, raw: Any) -> ConfigException:
    """``error`` with a PASSWORD key's value shown as ``[hidden]`` (Java's Password prints so)."""
    secret = "" if raw is None else str(raw)
    text = str(error)
    if not secret or secret not in text:
        return error
    # Where a ConfigException names the value; elsewhere only values long enough not to garble the text.
    text = text.replace(f"Invalid value {secret} for configuration", f"Invalid value {HIDDEN} for configuration")
    if len(secret) >= _MIN_HIDDEN_ELSEWHERE:
        text = text.replace(secret, HIDDEN)
    hidden = ConfigException(text)
    hidden.name, hidden.value = error.name, HIDDEN
    return hidden


class Range:
    """Numeric range validators."""

    @staticmethod
    def at_least(minimum: float) -> Validator:
        """Value must be >= ``minimum`` (None is allowed: it means 'not set')."""

        def check(name: str, value: Any) -> None:
            if value is not None and value < minimum:
                raise ConfigException(name, value, f"Value must be at least {minimum}")

        return check

    @staticmethod
    def between(minimum: float, maximum: float) -> Validator:
        """Value must be within [minimum, maximum]."""

        def check(name: str, value: Any) -> None:
            if value is not None and not minimum <= value <= maximum:
                raise ConfigException(name, value, f"Value must be no less than {minimum} and no more than {maximum}")

        return check


class ValidString:
    """String-choice validators."""

    @staticmethod
    def one_of(*allowed: str, case_sensitive: bool = True) -> Validator:
        """Value must be one of ``allowed`` (optionally ignoring case)."""
        folded = set(allowed) if case_sensitive else {a.lower() for a in allowed}

        def check(name: str, value: Any) -> None:
            if value is None:
                return
            v = value if case_sensitive else str(value).lower()
            if v not in folded:
                raise ConfigException(name, value, "String must be one of: " + ", ".join(allowed))

        return check


def non_empty_string(name: str, value: Any) -> None:
    """Validator: the value must not be an empty string (Kafka's ``ConfigDef.NonEmptyString``)."""
    if value is not None and str(value) == "":
        raise ConfigException(name, value, "String must be non-empty")
