"""ReplaceField: keep, drop and rename the top-level fields of a schemaless map key or value.

Java's ``org.apache.kafka.connect.transforms.ReplaceField$Key`` / ``$Value`` on schemaless data:
``exclude`` wins over ``include``; an empty ``include`` keeps every field; ``renames`` is a list of
``old:new`` pairs. A null operand passes through; anything but a map is a DataException.

Differences from Java: none for schemaless data. The keys ``whitelist`` and ``blacklist`` (removed in
Kafka 4.0, which ignores them) are refused with a ConfigException naming their replacement, since a
filter silently not applied would leak the fields it was meant to drop.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from connect_runtime.api import ConfigDef, ConfigException, ConfigType, Importance, SourceRecord
from connect_runtime.transforms._util import (
    BuiltinTransformation,
    define_replace_null_with_default,
    java_list,
    java_split,
    operand,
    require_map,
    with_operand,
)

EXCLUDE = "exclude"
INCLUDE = "include"
RENAMES = "renames"
_REMOVED = {"blacklist": EXCLUDE, "whitelist": INCLUDE}
_PURPOSE = "field replacement"


def parse_rename_mappings(mappings: list[str]) -> dict[str, str]:
    """``old:new`` pairs to a dict; anything else is the reference's ConfigException."""
    result: dict[str, str] = {}
    for mapping in mappings:
        parts = java_split(mapping, ":")
        if len(parts) != 2:
            raise ConfigException(RENAMES, java_list(mappings), f"Invalid rename mapping: {mapping}")
        result[parts[0]] = parts[1]
    return result


def _validate_renames(name: str, value: Any) -> None:
    parse_rename_mappings(list(value or []))


class ReplaceField(BuiltinTransformation):
    """Filter or rename fields of the key (:class:`ReplaceFieldKey`) or value (:class:`ReplaceFieldValue`)."""

    _KEY = False

    CONFIG_DEF = define_replace_null_with_default(
        ConfigDef()
        .define(EXCLUDE, ConfigType.LIST, "", None, Importance.MEDIUM,
                "Fields to exclude. This takes precedence over the fields to include.")
        .define(INCLUDE, ConfigType.LIST, "", None, Importance.MEDIUM,
                "Fields to include. If specified, only these fields will be used.")
        .define(RENAMES, ConfigType.LIST, "", _validate_renames, Importance.MEDIUM, "Field rename mappings."))

    def __init__(self) -> None:
        self._exclude: frozenset[str] = frozenset()
        self._include: frozenset[str] = frozenset()
        self._renames: dict[str, str] = {}

    def configure(self, configs: Mapping[str, Any]) -> None:
        for old, new in _REMOVED.items():
            if old in configs:
                raise ConfigException(f"ReplaceField no longer supports '{old}' (removed in Kafka 4.0); use '{new}'")
        values = self.CONFIG_DEF.parse(configs)
        self._exclude = frozenset(values[EXCLUDE])
        self._include = frozenset(values[INCLUDE])
        self._renames = parse_rename_mappings(values[RENAMES])

    def _keep(self, name: str) -> bool:
        return name not in self._exclude and (not self._include or name in self._include)

    def apply(self, record: SourceRecord) -> SourceRecord | None:
        value = operand(record, self._KEY)
        if value is None:
            return record
        fields = require_map(value, _PURPOSE)
        renames = self._renames
        updated = {renames.get(k, k): v for k, v in fields.items() if self._keep(k)}
        return with_operand(record, self._KEY, updated)


class ReplaceFieldKey(ReplaceField):
    """ReplaceField on the record key (``ReplaceField$Key``)."""

    _KEY = True


class ReplaceFieldValue(ReplaceField):
    """ReplaceField on the record value (``ReplaceField$Value``)."""
