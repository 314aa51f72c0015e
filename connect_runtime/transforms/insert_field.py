"""``InsertField``: adds fields from the record's metadata or a static value to the key or value map
(Kafka's ``org.apache.kafka.connect.transforms.InsertField$Key`` / ``$Value``).

Records here carry schemaless data, so only maps can be changed; a null key/value passes unchanged.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Mapping
from typing import Any

from connect_runtime.api.config_def import ConfigDef, ConfigType, Importance
from connect_runtime.api.errors import ConfigException, DataException
from connect_runtime.api.record import SourceRecord
from connect_runtime.transforms._util import BuiltinTransformation, require_map

TOPIC_FIELD = "topic.field"
PARTITION_FIELD = "partition.field"
OFFSET_FIELD = "offset.field"
TIMESTAMP_FIELD = "timestamp.field"
STATIC_FIELD = "static.field"
STATIC_VALUE = "static.value"
REPLACE_NULL_WITH_DEFAULT = "replace.null.with.default"

_OPTIONALITY_DOC = ("Suffix with <code>!</code> to make this a required field, or <code>?</code> to keep it "
                    "optional (the default).")
_PURPOSE = "field insertion"

CONFIG_DEF = (
    ConfigDef()
    .define(TOPIC_FIELD, ConfigType.STRING, None, None, Importance.MEDIUM,
            "Field name for Kafka topic. " + _OPTIONALITY_DOC)
    .define(PARTITION_FIELD, ConfigType.STRING, None, None, Importance.MEDIUM,
            "Field name for Kafka partition. " + _OPTIONALITY_DOC)
    .define(OFFSET_FIELD, ConfigType.STRING, None, None, Importance.MEDIUM,
            "Field name for Kafka offset - only applicable to sink connectors.<br/>" + _OPTIONALITY_DOC)
    .define(TIMESTAMP_FIELD, ConfigType.STRING, None, None, Importance.MEDIUM,
            "Field name for record timestamp. " + _OPTIONALITY_DOC)
    .define(STATIC_FIELD, ConfigType.STRING, None, None, Importance.MEDIUM,
            "Field name for static data field. " + _OPTIONALITY_DOC)
    .define(STATIC_VALUE, ConfigType.STRING, None, None, Importance.MEDIUM,
            "Static field value, if field name configured.")
    .define(REPLACE_NULL_WITH_DEFAULT, ConfigType.BOOLEAN, True, None, Importance.MEDIUM,
            "Whether to replace fields that have a default value and that are null to the default value. "
            "When set to true, the default value is used, otherwise null is used.")
)


def _field_name(spec: str | None) -> str | None:
    """The field name of an insertion spec: a trailing ``?`` (optional) or ``!`` (required) is
    dropped; optionality only matters for schemas, which schemaless data does not have."""
    if spec is None:
        return None
    return spec[:-1] if spec.endswith(("?", "!")) else spec


class InsertField(BuiltinTransformation):
    """Insert field(s) using attributes from the record metadata or a configured static value.

    Use the concrete transformation type designed for the record key (``InsertField$Key``, also
    :class:`InsertFieldKey`) or value (``InsertField$Value``, :class:`InsertFieldValue`).
    ``topic.field`` inserts the topic, ``partition.field`` the Kafka partition (when the record names
    one), ``timestamp.field`` the timestamp (when set), ``static.field`` with ``static.value`` a
    constant string. ``offset.field`` applies to sink
    records only: a source record fails with the reference's error.
    """

    def __init__(self) -> None:
        self._topic_field: str | None = None
        self._partition_field: str | None = None
        self._offset_field: str | None = None
        self._timestamp_field: str | None = None
        self._static_field: str | None = None
        self._static_value: str | None = None

    def config_def(self) -> ConfigDef:
        return CONFIG_DEF

    def configure(self, configs: Mapping[str, Any]) -> None:
        values = CONFIG_DEF.parse(configs)
        self._topic_field = _field_name(values[TOPIC_FIELD])
        self._partition_field = _field_name(values[PARTITION_FIELD])
        self._offset_field = _field_name(values[OFFSET_FIELD])
        self._timestamp_field = _field_name(values[TIMESTAMP_FIELD])
        self._static_field = _field_name(values[STATIC_FIELD])
        self._static_value = values[STATIC_VALUE]
        if all(values[k] is None for k in (TOPIC_FIELD, PARTITION_FIELD, OFFSET_FIELD, TIMESTAMP_FIELD,
                                           STATIC_FIELD)):
            raise ConfigException("No field insertion configured")
        if values[STATIC_FIELD] is not None and self._static_value is None:
            raise ConfigException(STATIC_VALUE, None,
                                  f"No value specified for static field: {values[STATIC_FIELD]}")

    def apply(self, record: SourceRecord) -> SourceRecord | None:
        operating = self._operating_value(record)
        if operating is None:
            return record
        updated = dict(require_map(operating, _PURPOSE))
        if self._topic_field is not None:
            updated[self._topic_field] = record.topic
        if self._partition_field is not None and record.kafka_partition is not None:
            updated[self._partition_field] = record.kafka_partition
        if self._offset_field is not None:
            raise DataException(f"Only SinkRecord supported for [{_PURPOSE}], found: {type(record).__name__}")
        if self._timestamp_field is not None and record.timestamp is not None:
            updated[self._timestamp_field] = record.timestamp
        if self._static_field is not None and self._static_value is not None:
            updated[self._static_field] = self._static_value
        return self._new_record(record, updated)

    @abstractmethod
    def _operating_value(self, record: SourceRecord) -> Any:
        """The key or the value."""

    @abstractmethod
    def _new_record(self, record: SourceRecord, updated: Any) -> SourceRecord:
        """``record`` with its key or value replaced by ``updated``."""


class InsertFieldKey(InsertField):
    """InsertField on the record key (``org.apache.kafka.connect.transforms.InsertField$Key``)."""

    def _operating_value(self, record: SourceRecord) -> Any:
        return record.key

    def _new_record(self, record: SourceRecord, updated: Any) -> SourceRecord:
        return SourceRecord(record.source_partition, record.source_offset, record.topic, record.kafka_partition,
                            updated, record.value, record.headers, record.timestamp)


class InsertFieldValue(InsertField):
    """InsertField on the record value (``org.apache.kafka.connect.transforms.InsertField$Value``)."""

    def _operating_value(self, record: SourceRecord) -> Any:
        return record.value

    def _new_record(self, record: SourceRecord, updated: Any) -> SourceRecord:
        return SourceRecord(record.source_partition, record.source_offset, record.topic, record.kafka_partition,
                            record.key, updated, record.headers, record.timestamp)
