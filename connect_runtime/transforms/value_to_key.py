"""ValueToKey: replace the record key with a map of the named fields of the schemaless map value.

Java's ``org.apache.kafka.connect.transforms.ValueToKey`` on schemaless data: the new key holds each
field in ``fields`` (a field missing from the value maps to null); a value that is not a map (null
included) is a DataException. No differences from Java for schemaless data.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from connect_runtime.api import ConfigDef, ConfigType, Importance, SourceRecord
from connect_runtime.api.config_def import NO_DEFAULT
from connect_runtime.transforms._util import (
    BuiltinTransformation,
    define_replace_null_with_default,
    non_empty_list,
    require_map,
)

FIELDS = "fields"
_PURPOSE = "copying fields from value to key"


class ValueToKey(BuiltinTransformation):
    """Replace the record key with a new key formed from a subset of fields in the record value."""

    CONFIG_DEF = define_replace_null_with_default(
        ConfigDef().define(FIELDS, ConfigType.LIST, NO_DEFAULT, non_empty_list, Importance.HIGH,
                           "Field names on the record value to extract as the record key."))

    def __init__(self) -> None:
        self._fields: tuple[str, ...] = ()

    def configure(self, configs: Mapping[str, Any]) -> None:
        self._fields = tuple(self.CONFIG_DEF.parse(configs)[FIELDS])

    def apply(self, record: SourceRecord) -> SourceRecord | None:
        value = require_map(record.value, _PURPOSE)
        return dataclasses.replace(record, key={name: value.get(name) for name in self._fields})
