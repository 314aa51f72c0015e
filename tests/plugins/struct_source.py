"""A source connector whose records are Structs with schemas, and a transformation that changes both
the Struct and its schema: for the exactly-once test of schema'd records through a transform chain.

Loaded by worker subprocesses through ``plugin.path`` (this directory) as
``connector.class=struct_source.StructSourceConnector`` and
``transforms.<alias>.type=struct_source.AddDoubled``. Each task writes sequence numbers like
VerifiableSource (source partition ``{"id": <task>}``, offset ``{"seqno": n}``); the key is the task id
(INT32), the value a :data:`READING` Struct of the number.
"""

from __future__ import annotations

import dataclasses
import datetime
import decimal
from collections.abc import Mapping
from typing import Any

from connect_runtime.api import (
    ConfigDef,
    Decimal,
    Schema,
    SchemaBuilder,
    SourceRecord,
    Struct,
    Timestamp,
    Transformation,
)
from connect_runtime.testing.sequence_source import SequenceSourceConnector, SequenceSourceTask

READING = (
    SchemaBuilder.struct().name("struct_source.Reading").version(1)
    .field("task", Schema.INT32_SCHEMA)
    .field("seqno", Schema.INT64_SCHEMA)
    .field("label", Schema.OPTIONAL_STRING_SCHEMA)
    .field("amount", Decimal.schema(2))
    .field("at", Timestamp.SCHEMA)
    .build()
)


def _doubled() -> Schema:
    """What :class:`AddDoubled` makes of :data:`READING`: another name and version, one more field."""
    builder = SchemaBuilder.struct().name("struct_source.Doubled").version(2)
    for field in READING.fields:
        builder.field(field.name, field.schema)
    return builder.field("doubled", Schema.INT64_SCHEMA).build()


DOUBLED = _doubled()
_EPOCH = datetime.datetime(2024, 1, 1, tzinfo=datetime.UTC)


def reading(task: int, seqno: int) -> Struct:
    """The value of number ``seqno`` of task ``task``: every other one has no label."""
    return (Struct(READING).put("task", task).put("seqno", seqno)
            .put("label", f"reading {seqno}" if seqno % 2 else None)
            .put("amount", decimal.Decimal(seqno).scaleb(-2))
            .put("at", _EPOCH + datetime.timedelta(milliseconds=seqno)))


class StructSourceTask(SequenceSourceTask):
    """Sequence numbers as :data:`READING` Structs, keyed by the task id."""

    def record(self, seqno: int) -> SourceRecord:
        return SourceRecord(self.partition, {"seqno": seqno}, self.topic, None, self.task_id,
                            reading(self.task_id, seqno), key_schema=Schema.INT32_SCHEMA, value_schema=READING)


class StructSourceConnector(SequenceSourceConnector):
    """Sequence numbers as Structs with schemas."""

    TASK_CLASS = StructSourceTask


class AddDoubled(Transformation):
    """Turns a :data:`READING` value into a :data:`DOUBLED` one (``doubled`` = 2 x ``seqno``), schema too."""

    def config_def(self) -> ConfigDef:
        return ConfigDef()

    def configure(self, configs: Mapping[str, Any]) -> None:
        pass

    def apply(self, record: SourceRecord) -> SourceRecord | None:
        value = record.value
        if not isinstance(value, Struct) or record.value_schema != READING:
            raise ValueError(f"AddDoubled expects a {READING!r} value, not {record.value_schema!r}")
        doubled = Struct(DOUBLED)
        for field in READING.fields:
            doubled.put(field.name, value.get(field))
        seqno = value.get("seqno")
        assert isinstance(seqno, int)
        doubled.put("doubled", 2 * seqno)
        return dataclasses.replace(record, value=doubled, value_schema=DOUBLED)
