"""HeaderFrom: move or copy fields of a schemaless map key or value into headers.

Java's ``HeaderFrom$Key`` / ``$Value`` on schemaless data: the i-th name in ``fields`` goes to a
header named by the i-th name in ``headers``; ``operation=move`` also removes the field, ``copy``
keeps it. A missing field gives a null header. The operand must be a map (DataException otherwise,
null included).

The header carries the field value itself (a str, number, boolean, bytes, map, list or None); the
connector's header converter turns it into bytes, as in Java (``SimpleHeaderConverter`` by default:
``2`` becomes ``2``, ``{"a": True}`` becomes ``{"a":true}``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from connect_runtime.api import (
    ConfigDef,
    ConfigException,
    ConfigType,
    Importance,
    SourceRecord,
    ValidString,
)
from connect_runtime.api.config_def import NO_DEFAULT
from connect_runtime.transforms._util import (
    BuiltinTransformation,
    define_replace_null_with_default,
    non_empty_list,
    operand,
    require_map,
)

FIELDS = "fields"
HEADERS = "headers"
OPERATION = "operation"
MOVE = "move"
COPY = "copy"


class HeaderFrom(BuiltinTransformation):
    """Move or copy fields of the key (:class:`HeaderFromKey`) or value (:class:`HeaderFromValue`) to headers."""

    _KEY = False

    CONFIG_DEF = define_replace_null_with_default(
        ConfigDef()
        .define(FIELDS, ConfigType.LIST, NO_DEFAULT, non_empty_list, Importance.HIGH,
                "Field names in the record whose values are to be copied or moved to headers.")
        .define(HEADERS, ConfigType.LIST, NO_DEFAULT, non_empty_list, Importance.HIGH,
                "Header names, in the same order as the field names listed in the fields configuration property.")
        .define(OPERATION, ConfigType.STRING, NO_DEFAULT, ValidString.one_of(MOVE, COPY), Importance.HIGH,
                "Either <code>move</code> if the fields are to be moved to the headers (removed from the key/value), "
                "or <code>copy</code> if the fields are to be copied to the headers (retained in the key/value)."))

    def __init__(self) -> None:
        self._pairs: tuple[tuple[str, str], ...] = ()
        self._move = False

    def configure(self, configs: Mapping[str, Any]) -> None:
        values = self.CONFIG_DEF.parse(configs)
        fields, headers = values[FIELDS], values[HEADERS]
        if len(fields) != len(headers):
            raise ConfigException(f"'{FIELDS}' config must have the same number of elements as '{HEADERS}' config.")
        self._pairs = tuple(zip(fields, headers, strict=True))
        self._move = values[OPERATION] == MOVE

    def apply(self, record: SourceRecord) -> SourceRecord | None:
        value = require_map(operand(record, self._KEY), f"header {MOVE if self._move else COPY}")
        updated = dict(value)
        headers = list(record.headers or ())
        for field, header in self._pairs:
            if self._move:
                updated.pop(field, None)
            headers.append((header, value.get(field)))
        if self._KEY:
            return dataclasses.replace(record, key=updated, headers=headers)
        return dataclasses.replace(record, value=updated, headers=headers)


class HeaderFromKey(HeaderFrom):
    """HeaderFrom on the record key (``HeaderFrom$Key``)."""

    _KEY = True


class HeaderFromValue(HeaderFrom):
    """HeaderFrom on the record value (``HeaderFrom$Value``)."""
