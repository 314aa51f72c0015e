"""A source connector whose task configs ignore most of the connector config, to check that a
connector config change still reaches running tasks.

Loaded by worker subprocesses through ``plugin.path`` (this directory) as
``connector.class=fixed_task_source.FixedTaskSourceConnector``. Task configs carry only ``topic``
and the task id, so changing e.g. ``value.converter`` generates identical task configs.

Each task writes sequence numbers like VerifiableSource (source partition ``{"id": <task>}``, offset
``{"seqno": n}``, resuming from the stored seqno + 1), but as *string* values: the schemaless
JsonConverter writes ``"5"`` (quoted), the StringConverter ``5``, so a record shows which converter
wrote it.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping

from connect_runtime.api import (
    NO_DEFAULT,
    ConfigDef,
    ConfigType,
    ExactlyOnceSupport,
    Importance,
    SourceConnector,
    SourceRecord,
    SourceTask,
)

VERSION = "0.0.1"
TOPIC = "topic"
TASK_ID = "task.id"
#: Records per poll and the pause between polls: about 50 records/s per task.
_BATCH = 5
_POLL_INTERVAL_S = 0.1

CONFIG_DEF = ConfigDef().define(TOPIC, ConfigType.STRING, NO_DEFAULT, importance=Importance.HIGH,
                                documentation="The topic to write the sequence numbers to.")


class FixedTaskSourceConnector(SourceConnector):
    """Task configs depend on ``topic`` and ``tasks.max`` only."""

    def __init__(self) -> None:
        self._topic = ""

    def version(self) -> str:
        return VERSION

    def config_def(self) -> ConfigDef:
        return CONFIG_DEF

    def start(self, props: Mapping[str, str]) -> None:
        self._topic = CONFIG_DEF.parse(props)[TOPIC]

    def task_class(self) -> type[SourceTask]:
        return FixedTaskSourceTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [{TOPIC: self._topic, TASK_ID: str(i)} for i in range(max_tasks)]

    def stop(self) -> None:
        pass

    def exactly_once_support(self, connector_config: Mapping[str, str]) -> ExactlyOnceSupport | None:
        return ExactlyOnceSupport.SUPPORTED


class FixedTaskSourceTask(SourceTask):
    """Sequence numbers as strings, resuming after the stored offset."""

    def __init__(self) -> None:
        self._stop = threading.Event()
        self._topic = ""
        self._task_id = 0
        self._seqno = 0

    def version(self) -> str:
        return VERSION

    def start(self, props: Mapping[str, str]) -> None:
        self._topic = props[TOPIC]
        self._task_id = int(props[TASK_ID])
        stored = self.context.offset_storage_reader.offset({"id": self._task_id})
        self._seqno = int(stored["seqno"]) + 1 if stored and stored.get("seqno") is not None else 0

    def poll(self) -> list[SourceRecord] | None:
        if self._stop.wait(_POLL_INTERVAL_S):
            return None
        start, self._seqno = self._seqno, self._seqno + _BATCH
        partition = {"id": self._task_id}
        return [SourceRecord(partition, {"seqno": s}, self._topic, None, self._task_id, str(s))
                for s in range(start, start + _BATCH)]

    def stop(self) -> None:
        self._stop.set()
