"""The VerifiableSource connector and task."""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from typing import Any

from connect_runtime.api import (
    NO_DEFAULT,
    ConfigDef,
    ConfigType,
    ExactlyOnceSupport,
    Importance,
    Schema,
    SchemaBuilder,
    SourceConnector,
    SourceRecord,
    SourceTask,
    Struct,
)

VERSION = "0.1.0"
TOPIC = "topic"
THROUGHPUT = "throughput"
COMPLETE_RECORD_DATA = "complete.record.data"
TASK_ID = "task.id"
#: The task id key of Apache Kafka's VerifiableSourceTask: task configs a Java cluster wrote carry it.
JAVA_TASK_ID = "id"
#: Apache Kafka's class name of this connector (its test-plugins' VerifiableSourceConnector).
JAVA_CONNECTOR_CLASS = "org.apache.kafka.connect.tools.VerifiableSourceConnector"
_MAX_BATCH = 1000

#: Java's key schema: the task id.
KEY_SCHEMA = Schema.INT32_SCHEMA
#: Java's value schema of simple records: the seqno.
SIMPLE_VALUE_SCHEMA = Schema.INT64_SCHEMA
#: Java's value schema with ``complete.record.data=true`` (unnamed, every field required).
COMPLETE_VALUE_SCHEMA = (
    SchemaBuilder.struct()
    .field("name", Schema.STRING_SCHEMA)
    .field("task", Schema.INT32_SCHEMA)
    .field("topic", Schema.STRING_SCHEMA)
    .field("time_ms", Schema.INT64_SCHEMA)
    .field("seqno", Schema.INT64_SCHEMA)
    .build()
)

CONFIG_DEF = (
    ConfigDef()
    .define(TOPIC, ConfigType.STRING, NO_DEFAULT, importance=Importance.HIGH,
            documentation="The topic to write the sequence numbers to.")
    .define(THROUGHPUT, ConfigType.LONG, -1, importance=Importance.MEDIUM,
            documentation="Records per second per task; negative means unlimited.")
    .define(COMPLETE_RECORD_DATA, ConfigType.BOOLEAN, False, importance=Importance.LOW,
            documentation="Write a struct {name, task, topic, time_ms, seqno} as the value instead of the "
                          "bare sequence number.")
)


class VerifiableSourceConnector(SourceConnector):
    """Emits per-task sequence numbers; declares exactly-once support."""

    def __init__(self) -> None:
        self._props: dict[str, str] = {}

    def version(self) -> str:
        return VERSION

    def config_def(self) -> ConfigDef:
        return CONFIG_DEF

    def start(self, props: Mapping[str, str]) -> None:
        CONFIG_DEF.parse(props)
        self._props = dict(props)

    def task_class(self) -> type[SourceTask]:
        return VerifiableSourceTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        if self._props.get("connector.class") == JAVA_CONNECTOR_CLASS:
            # Configured by Apache Kafka's name: the task configs its VerifiableSourceConnector writes.
            return [{**self._props, JAVA_TASK_ID: str(i)} for i in range(max_tasks)]
        return [{**self._props, TASK_ID: str(i)} for i in range(max_tasks)]

    def stop(self) -> None:
        pass

    def exactly_once_support(self, connector_config: Mapping[str, str]) -> ExactlyOnceSupport | None:
        return ExactlyOnceSupport.SUPPORTED


class VerifiableSourceTask(SourceTask):
    """One sequence per task; throttled to ``throughput`` records/s when positive.

    Records carry Java's schemas: the key (the task id) ``INT32``, the value ``INT64`` (the seqno) or,
    with ``complete.record.data=true``, a :class:`Struct` of :data:`COMPLETE_VALUE_SCHEMA`, so one
    connector config writes the same bytes here as on Java's worker (``time_ms`` aside).
    """

    def __init__(self) -> None:
        self._stop = threading.Event()
        self._partition: dict[str, Any] = {}
        self._seqno = 0
        self._interval_s = 0.0
        self._next_send = 0.0

    def version(self) -> str:
        return VERSION

    def start(self, props: Mapping[str, str]) -> None:
        cfg = CONFIG_DEF.parse(props)
        self._name = props.get("name", "")
        self._topic: str = cfg[TOPIC]
        self._task_id = int(props[TASK_ID] if TASK_ID in props else props[JAVA_TASK_ID])
        self._complete: bool = cfg[COMPLETE_RECORD_DATA]
        throughput: int = cfg[THROUGHPUT]
        self._interval_s = 1.0 / throughput if throughput > 0 else 0.0
        # One partition object reused by every record: the runtime serializes its key once.
        self._partition = {"id": self._task_id}
        stored = self.context.offset_storage_reader.offset(self._partition)
        self._seqno = int(stored["seqno"]) + 1 if stored and stored.get("seqno") is not None else 0
        self._next_send = time.monotonic()

    def poll(self) -> list[SourceRecord] | None:
        if self._stop.is_set():
            return None
        count = _MAX_BATCH
        if self._interval_s > 0:
            now = time.monotonic()
            if now < self._next_send:
                self._stop.wait(min(self._next_send - now, 0.5))
                return None
            count = min(_MAX_BATCH, 1 + int((now - self._next_send) / self._interval_s))
            self._next_send += count * self._interval_s
        start = self._seqno
        self._seqno += count
        partition, topic, key = self._partition, self._topic, self._task_id
        if self._complete:
            now_ms = int(time.time() * 1000)
            name = self._name
            return [SourceRecord(partition, {"seqno": s}, topic, None, key,
                                 Struct(COMPLETE_VALUE_SCHEMA).put("name", name).put("task", key).put("topic", topic)
                                 .put("time_ms", now_ms).put("seqno", s),
                                 key_schema=KEY_SCHEMA, value_schema=COMPLETE_VALUE_SCHEMA)
                    for s in range(start, start + count)]
        return [SourceRecord(partition, {"seqno": s}, topic, None, key, s,
                             key_schema=KEY_SCHEMA, value_schema=SIMPLE_VALUE_SCHEMA)
                for s in range(start, start + count)]

    def stop(self) -> None:
        self._stop.set()
