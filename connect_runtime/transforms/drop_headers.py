"""DropHeaders: remove every header whose key is listed in ``headers``.

Java's ``org.apache.kafka.connect.transforms.DropHeaders``. No differences from Java.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from connect_runtime.api import ConfigDef, ConfigType, Importance, SourceRecord
from connect_runtime.api.config_def import NO_DEFAULT
from connect_runtime.transforms._util import BuiltinTransformation, new_record, non_empty_list

HEADERS = "headers"


class DropHeaders(BuiltinTransformation):
    """Removes one or more headers from each record."""

    CONFIG_DEF = ConfigDef().define(HEADERS, ConfigType.LIST, NO_DEFAULT, non_empty_list, Importance.HIGH,
                                    "The name of the headers to be removed.")

    def __init__(self) -> None:
        self._headers: frozenset[str] = frozenset()

    def configure(self, configs: Mapping[str, Any]) -> None:
        self._headers = frozenset(self.CONFIG_DEF.parse(configs)[HEADERS])

    def apply(self, record: SourceRecord) -> SourceRecord | None:
        if not record.headers:
            return record
        drop = self._headers
        return new_record(record, headers=[h for h in record.headers if h[0] not in drop])
