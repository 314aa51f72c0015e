"""A source connector whose records carry one header of each kind of value a plugin may give (for the
header converter tests).

Loaded by worker subprocesses through ``plugin.path`` (this directory) as
``connector.class=header_source.HeaderSourceConnector``. The one task writes ``count`` records (value:
the sequence number) to ``topic``, each with the headers in :data:`HEADERS`, then idles.
"""

from __future__ import annotations

from typing import Any

from connect_runtime.api import ConfigType, Header, Importance, Schema, SourceRecord
from connect_runtime.testing.sequence_source import SequenceSourceConnector, SequenceSourceTask, sequence_config_def

#: Every record's headers: one of each kind of schemaless value, and one with a schema.
HEADERS: list[tuple[str, Any] | tuple[str, Any, Schema | None]] = [
    ("text", "h\u00e9llo"), ("int", 42), ("float", 1.5), ("bool", True), ("bytes", b"\x00\xff"),
    ("map", {"a": [1, "x"]}), ("null", None), Header("float32", 1 / 3, Schema.FLOAT32_SCHEMA),
]

CONFIG_DEF = sequence_config_def().define("count", ConfigType.INT, 5, importance=Importance.MEDIUM,
                                          documentation="How many records to write.")


class HeaderSourceTask(SequenceSourceTask):
    """Writes the records once (resuming after the stored offset), then idles."""

    CONFIG_DEF = CONFIG_DEF

    def source_partition(self) -> dict[str, Any]:
        return {"source": "headers"}

    def poll(self) -> list[SourceRecord] | None:
        left = self.config["count"] - self.seqno
        if left <= 0:
            self.stopping.wait(0.2)
            return None
        self.batch = left
        return self.next_batch()

    def record(self, seqno: int) -> SourceRecord:
        return SourceRecord(self.partition, {"seqno": seqno}, self.topic, None, None, seqno, HEADERS)


class HeaderSourceConnector(SequenceSourceConnector):
    """``count`` records with :data:`HEADERS`, from one task."""

    CONFIG_DEF = CONFIG_DEF
    TASK_CLASS = HeaderSourceTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [dict(self.props)]
