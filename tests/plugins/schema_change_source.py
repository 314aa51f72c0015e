"""A source connector whose value schema changes as it goes, so a converter that writes through a schema
registry needs the registry in the middle of a stream, not only for the first record: for the registry
fault tests.

Loaded by worker subprocesses through ``plugin.path`` (this directory) as
``connector.class=schema_change_source.SchemaChangeSourceConnector``. Each task writes sequence numbers
like VerifiableSource (source partition ``{"id": <task>}``, offset ``{"seqno": n}``, key the task id as
INT32); the value is a ``schema_change_source.Reading`` Struct of the task and the number.

- ``version.every`` (0: never): the value schema's Connect version is ``seqno // version.every + 1``, so
  every ``version.every`` records the converter meets a schema it has not registered yet (a compatible
  one: only the version changes).
- ``break.at`` (-1: never): from this number on, the value schema has one more required field without a
  default, which a registry refuses under BACKWARD compatibility (HTTP 409).
- ``batch``: numbers per poll (one transaction each under ``transaction.boundary=poll``).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache

from connect_runtime.api import ConfigType, Importance, Schema, SchemaBuilder, SourceRecord, Struct
from connect_runtime.testing.sequence_source import SequenceSourceConnector, SequenceSourceTask, sequence_config_def

VERSION_EVERY = "version.every"
BREAK_AT = "break.at"
BATCH = "batch"
NAME = "schema_change_source.Reading"

CONFIG_DEF = (
    sequence_config_def()
    .define(VERSION_EVERY, ConfigType.INT, 0, importance=Importance.MEDIUM,
            documentation="Every how many records the value schema's version goes up (0: never).")
    .define(BREAK_AT, ConfigType.INT, -1, importance=Importance.MEDIUM,
            documentation="The first number whose value schema has a new required field (-1: none).")
    .define(BATCH, ConfigType.INT, 10, importance=Importance.LOW, documentation="Numbers per poll.")
)


@cache
def reading_schema(version: int, broken: bool) -> Schema:
    """The value schema of version ``version``; ``broken`` adds the required field ``note``."""
    builder = (SchemaBuilder.struct().name(NAME).version(version)
               .field("task", Schema.INT32_SCHEMA).field("seqno", Schema.INT64_SCHEMA))
    if broken:
        builder.field("note", Schema.STRING_SCHEMA)
    return builder.build()


class SchemaChangeSourceTask(SequenceSourceTask):
    """Sequence numbers as ``Reading`` Structs whose schema changes as configured."""

    CONFIG_DEF = CONFIG_DEF

    def start(self, props: Mapping[str, str]) -> None:
        super().start(props)
        self.batch = self.config[BATCH]

    def record(self, seqno: int) -> SourceRecord:
        every, break_at = self.config[VERSION_EVERY], self.config[BREAK_AT]
        broken = 0 <= break_at <= seqno
        schema = reading_schema(seqno // every + 1 if every else 1, broken)
        value = Struct(schema).put("task", self.task_id).put("seqno", seqno)
        if broken:
            value.put("note", "new")
        return SourceRecord(self.partition, {"seqno": seqno}, self.topic, None, self.task_id, value,
                            key_schema=Schema.INT32_SCHEMA, value_schema=schema)


class SchemaChangeSourceConnector(SequenceSourceConnector):
    """Sequence numbers as Structs whose schema changes mid-stream."""

    CONFIG_DEF = CONFIG_DEF
    TASK_CLASS = SchemaChangeSourceTask
