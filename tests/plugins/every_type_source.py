"""A source connector whose values are Structs using every Connect type: for the registry converters'
end-to-end tests (the schema is the one whose Avro form Confluent's AvroData output is known for).

Loaded by worker subprocesses through ``plugin.path`` (this directory) as
``connector.class=every_type_source.EveryTypeSourceConnector``. Each task writes sequence numbers as
VerifiableSource does (partition ``{"id": <task>}``, offset ``{"seqno": n}``); the key is the task id
(INT32), the value an :data:`ORDER` Struct whose ``i32`` is the task and ``i64`` the number.

``shape`` picks the value schema, for schema evolution: ``order`` (:data:`ORDER`), ``with_note``
(:data:`WITH_NOTE`: one more optional field, a BACKWARD-compatible change) or ``breaking``
(:data:`BREAKING`: one more required field without a default, which BACKWARD refuses).
"""

from __future__ import annotations

import datetime
import decimal
from typing import Any

from connect_runtime.api import (
    Date,
    Decimal,
    Schema,
    SchemaBuilder,
    SourceRecord,
    Struct,
    Time,
    Timestamp,
)
from connect_runtime.api.config_def import ConfigType, Importance, ValidString
from connect_runtime.testing.sequence_source import SequenceSourceConnector, SequenceSourceTask, sequence_config_def

ADDRESS = (SchemaBuilder.struct().optional().field("street", Schema.STRING_SCHEMA)
           .field("zip", Schema.OPTIONAL_INT32_SCHEMA).build())


def _order(extra: tuple[str, Schema] | None = None) -> Schema:
    builder = (
        SchemaBuilder.struct().name("com.example.Order").version(3).doc("an order").parameter("owner", "team-a")
        .field("i8", Schema.INT8_SCHEMA).field("i16", Schema.INT16_SCHEMA)
        .field("i32", Schema.INT32_SCHEMA).field("i64", Schema.INT64_SCHEMA)
        .field("f32", Schema.FLOAT32_SCHEMA).field("f64", Schema.FLOAT64_SCHEMA)
        .field("flag", Schema.BOOLEAN_SCHEMA).field("s", Schema.STRING_SCHEMA).field("b", Schema.BYTES_SCHEMA)
        .field("opt_s", Schema.OPTIONAL_STRING_SCHEMA)
        .field("def_s", SchemaBuilder.string().default_value("x").build())
        .field("opt_def_i", SchemaBuilder.int32().optional().default_value(5).build())
        .field("doc_s", SchemaBuilder.string().doc("field doc").build())
        .field("amount", Decimal.schema(2)).field("day", Date.SCHEMA).field("tod", Time.SCHEMA)
        .field("ts", Timestamp.builder().optional().build())
        .field("tags", SchemaBuilder.array(Schema.STRING_SCHEMA).build())
        .field("counts", SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT32_SCHEMA).build())
        .field("by_id", SchemaBuilder.map(Schema.INT32_SCHEMA, Schema.STRING_SCHEMA).optional().build())
        .field("addr", ADDRESS)
    )
    if extra is not None:
        builder.field(*extra)
    return builder.build()


ORDER = _order()
WITH_NOTE = _order(("note", Schema.OPTIONAL_STRING_SCHEMA))
BREAKING = _order(("required_extra", Schema.INT32_SCHEMA))
SHAPES = {"order": ORDER, "with_note": WITH_NOTE, "breaking": BREAKING}

_EPOCH = datetime.datetime(2024, 1, 1, tzinfo=datetime.UTC)


def order(task: int, seqno: int, schema: Schema = ORDER) -> Struct:
    """Value number ``seqno`` of task ``task``: optional parts absent on every other number."""
    odd = seqno % 2 == 1
    struct = (
        Struct(schema).put("i8", seqno % 100 - 50).put("i16", seqno % 30000).put("i32", task).put("i64", seqno)
        .put("f32", 0.5 * (seqno % 64)).put("f64", seqno / 8).put("flag", odd).put("s", f"order {seqno}")
        .put("b", seqno.to_bytes(4, "big")).put("opt_s", f"note {seqno}" if odd else None).put("def_s", "y")
        .put("opt_def_i", seqno % 7 if odd else None).put("doc_s", "documented")
        .put("amount", decimal.Decimal(seqno).scaleb(-2))
        .put("day", (_EPOCH + datetime.timedelta(days=seqno % 1000)).date())
        .put("tod", datetime.time(seqno % 24, seqno % 60, 0, (seqno % 1000) * 1000, tzinfo=datetime.UTC))
        .put("ts", _EPOCH + datetime.timedelta(milliseconds=seqno) if odd else None)
        .put("tags", [f"t{seqno % 3}", "all"]).put("counts", {"n": seqno % 1000})
        .put("by_id", {task: f"task {task}"} if odd else None)
        .put("addr", Struct(ADDRESS).put("street", f"{seqno} Main St").put("zip", None if odd else seqno % 99999)
             if seqno % 3 else None)
    )
    if schema is WITH_NOTE:
        struct.put("note", f"with note {seqno}")
    elif schema is BREAKING:
        struct.put("required_extra", seqno)
    return struct


class EveryTypeSourceTask(SequenceSourceTask):
    """Sequence numbers as Structs of the configured shape, keyed by the task id."""

    CONFIG_DEF = sequence_config_def().define(
        "shape", ConfigType.STRING, "order", ValidString.one_of(*SHAPES), importance=Importance.LOW,
        documentation="The value schema: order, with_note or breaking.")

    def start(self, props: Any) -> None:
        super().start(props)
        self.schema = SHAPES[self.config["shape"]]

    def record(self, seqno: int) -> SourceRecord:
        return SourceRecord(self.partition, {"seqno": seqno}, self.topic, None, self.task_id,
                            order(self.task_id, seqno, self.schema), key_schema=Schema.INT32_SCHEMA,
                            value_schema=self.schema)


class EveryTypeSourceConnector(SequenceSourceConnector):
    """Sequence numbers as Structs of every Connect type."""

    CONFIG_DEF = EveryTypeSourceTask.CONFIG_DEF
    TASK_CLASS = EveryTypeSourceTask
