"""HoistField: wrap the key or value in a map with a single field.

Java's ``HoistField$Key`` / ``$Value`` on schemaless data: the operand, whatever it is (null
included), becomes ``{field: operand}``. No differences from Java for schemaless data.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from connect_runtime.api import ConfigDef, ConfigType, Importance, SourceRecord
from connect_runtime.api.config_def import NO_DEFAULT
from connect_runtime.transforms._util import BuiltinTransformation, operand, with_operand

FIELD = "field"


class HoistField(BuiltinTransformation):
    """Wrap the key (:class:`HoistFieldKey`) or value (:class:`HoistFieldValue`) in a one-field map."""

    _KEY = False

    CONFIG_DEF = ConfigDef().define(
        FIELD, ConfigType.STRING, NO_DEFAULT, None, Importance.MEDIUM,
        "Field name for the single field that will be created in the resulting Struct or Map.")

    def __init__(self) -> None:
        self._field = ""

    def configure(self, configs: Mapping[str, Any]) -> None:
        self._field = self.CONFIG_DEF.parse(configs)[FIELD]

    def apply(self, record: SourceRecord) -> SourceRecord | None:
        return with_operand(record, self._KEY, {self._field: operand(record, self._KEY)})


class HoistFieldKey(HoistField):
    """HoistField on the record key (``HoistField$Key``)."""

    _KEY = True


class HoistFieldValue(HoistField):
    """HoistField on the record value (``HoistField$Value``)."""
