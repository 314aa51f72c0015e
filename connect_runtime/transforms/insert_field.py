"""``InsertField``: adds fields from the record's metadata or a static value to the key or value
(Kafka's ``org.apache.kafka.connect.transforms.InsertField$Key`` / ``$Value``).

A null key/value passes unchanged. Schemaless, the operand must be a map and gets the fields as plain
values (the timestamp as epoch milliseconds). With a schema it must be a Struct: the updated STRUCT
schema keeps the original's name, version, doc, parameters and fields and appends the inserted ones as
Java types them: topic and static value STRING, partition INT32, offset INT64, timestamp the
``Timestamp`` logical type, each optional unless its name ends with ``!`` (a trailing ``?`` or nothing:
optional). One updated schema per distinct schema, cached as Java caches it. The original fields'
values are copied with their schema defaults for nulls unless ``replace.null.with.default`` is false;
a partition or timestamp the record lacks is left unset, as in Java.

Differences from Java: none (``offset.field`` is for sink records, which this runtime does not run:
a source record fails with Java's message).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from connect_runtime.api.config_def import ConfigDef, ConfigType, Importance
from connect_runtime.api.data import Schema, SchemaBuilder, Struct, Timestamp
from connect_runtime.api.errors import ConfigException, DataException
from connect_runtime.api.record import SourceRecord
from connect_runtime.transforms._util import (
    MapOrStructTransformation,
    copy_schema_basics,
    field_reader,
    schema_update_cache,
    with_operand,
    with_schema_and_operand,
)

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



_OPTIONAL_TIMESTAMP_SCHEMA = Timestamp.builder().optional().build()


class _InsertionSpec:
    """A field to insert: its name, and whether its schema is optional (a trailing ``!``: required)."""

    __slots__ = ("name", "optional")

    def __init__(self, spec: str) -> None:
        self.optional = not spec.endswith("!")
        self.name = spec[:-1] if spec.endswith(("?", "!")) else spec

    @staticmethod
    def parse(spec: str | None) -> _InsertionSpec | None:
        return None if spec is None else _InsertionSpec(spec)


class InsertField(MapOrStructTransformation):
    """Insert field(s) using attributes from the record metadata or a configured static value.

    Use the concrete transformation type designed for the record key (``InsertField$Key``, also
    :class:`InsertFieldKey`) or value (``InsertField$Value``, :class:`InsertFieldValue`).
    ``topic.field`` inserts the topic, ``partition.field`` the Kafka partition (when the record names
    one), ``timestamp.field`` the timestamp (when set), ``static.field`` with ``static.value`` a
    constant string. ``offset.field`` applies to sink
    records only: a source record fails with the reference's error.
    """

    PURPOSE = _PURPOSE

    def __init__(self) -> None:
        self._topic_field: _InsertionSpec | None = None
        self._partition_field: _InsertionSpec | None = None
        self._offset_field: _InsertionSpec | None = None
        self._timestamp_field: _InsertionSpec | None = None
        self._static_field: _InsertionSpec | None = None
        self._static_value: str | None = None
        self._replace_null_with_default = True
        self._updated_schema = schema_update_cache(self._make_updated_schema)

    def config_def(self) -> ConfigDef:
        return CONFIG_DEF

    def configure(self, configs: Mapping[str, Any]) -> None:
        values = CONFIG_DEF.parse(configs)
        self._topic_field = _InsertionSpec.parse(values[TOPIC_FIELD])
        self._partition_field = _InsertionSpec.parse(values[PARTITION_FIELD])
        self._offset_field = _InsertionSpec.parse(values[OFFSET_FIELD])
        self._timestamp_field = _InsertionSpec.parse(values[TIMESTAMP_FIELD])
        self._static_field = _InsertionSpec.parse(values[STATIC_FIELD])
        self._static_value = values[STATIC_VALUE]
        self._replace_null_with_default = values[REPLACE_NULL_WITH_DEFAULT]
        self._updated_schema = schema_update_cache(self._make_updated_schema)
        if all(values[k] is None for k in (TOPIC_FIELD, PARTITION_FIELD, OFFSET_FIELD, TIMESTAMP_FIELD,
                                           STATIC_FIELD)):
            raise ConfigException("No field insertion configured")
        if values[STATIC_FIELD] is not None and self._static_value is None:
            raise ConfigException(STATIC_VALUE, None,
                                  f"No value specified for static field: {values[STATIC_FIELD]}")

    def _apply_schemaless(self, record: SourceRecord, value: dict[str, Any]) -> SourceRecord:
        updated = dict(value)
        if self._topic_field is not None:
            updated[self._topic_field.name] = record.topic
        if self._partition_field is not None and record.kafka_partition is not None:
            updated[self._partition_field.name] = record.kafka_partition
        if self._offset_field is not None:
            raise _sink_record_required(record)
        if self._timestamp_field is not None and record.timestamp is not None:
            updated[self._timestamp_field.name] = record.timestamp
        if self._static_field is not None and self._static_value is not None:
            updated[self._static_field.name] = self._static_value
        return with_operand(record, self._key, updated)

    def _apply_with_schema(self, record: SourceRecord, value: Struct) -> SourceRecord:
        schema = self._updated_schema(value.schema)
        updated = Struct(schema)
        read = field_reader(value, self._replace_null_with_default)
        for field in value.schema.fields:
            updated.put(field.name, read(field))
        if self._topic_field is not None:
            updated.put(self._topic_field.name, record.topic)
        if self._partition_field is not None and record.kafka_partition is not None:
            updated.put(self._partition_field.name, record.kafka_partition)
        if self._offset_field is not None:
            raise _sink_record_required(record)
        if self._timestamp_field is not None and record.timestamp is not None:
            updated.put(self._timestamp_field.name, Timestamp.to_logical(Timestamp.SCHEMA, record.timestamp))
        if self._static_field is not None and self._static_value is not None:
            updated.put(self._static_field.name, self._static_value)
        return with_schema_and_operand(record, self._key, schema, updated)

    def _make_updated_schema(self, schema: Schema) -> Schema:
        builder = copy_schema_basics(schema, SchemaBuilder.struct())
        for field in schema.fields:
            builder.field(field.name, field.schema)
        for spec, optional, required in (
                (self._topic_field, Schema.OPTIONAL_STRING_SCHEMA, Schema.STRING_SCHEMA),
                (self._partition_field, Schema.OPTIONAL_INT32_SCHEMA, Schema.INT32_SCHEMA),
                (self._offset_field, Schema.OPTIONAL_INT64_SCHEMA, Schema.INT64_SCHEMA),
                (self._timestamp_field, _OPTIONAL_TIMESTAMP_SCHEMA, Timestamp.SCHEMA),
                (self._static_field, Schema.OPTIONAL_STRING_SCHEMA, Schema.STRING_SCHEMA)):
            if spec is not None:
                builder.field(spec.name, optional if spec.optional else required)
        return builder.build()


def _sink_record_required(record: SourceRecord) -> DataException:
    return DataException(f"Only SinkRecord supported for [{_PURPOSE}], found: "
                         f"org.apache.kafka.connect.source.{type(record).__name__}")


class InsertFieldKey(InsertField):
    """InsertField on the record key (``org.apache.kafka.connect.transforms.InsertField$Key``)."""

    _key = True


class InsertFieldValue(InsertField):
    """InsertField on the record value (``org.apache.kafka.connect.transforms.InsertField$Value``)."""

    _key = False
