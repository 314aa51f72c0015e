"""A source connector whose task ``i`` writes sequence numbers to the ``i``-th topic of ``topics``, so
tasks of one connector can write to topics that exist and to topics that do not.

Loaded by worker subprocesses through ``plugin.path`` (this directory) as
``connector.class=topic_per_task_source.TopicPerTaskSourceConnector``. Source partition
``{"id": <task>}``, offset ``{"seqno": n}``, resuming at the stored seqno + 1; key = task id.
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
TOPICS = "topics"
TASK_ID = "task.id"
_BATCH = 10
_POLL_INTERVAL_S = 0.05

CONFIG_DEF = ConfigDef().define(TOPICS, ConfigType.LIST, NO_DEFAULT, importance=Importance.HIGH,
                                documentation="Task i writes to the i-th topic (modulo the list's length).")


class TopicPerTaskSourceConnector(SourceConnector):
    """One topic per task."""

    def __init__(self) -> None:
        self._topics: list[str] = []

    def version(self) -> str:
        return VERSION

    def config_def(self) -> ConfigDef:
        return CONFIG_DEF

    def start(self, props: Mapping[str, str]) -> None:
        self._topics = CONFIG_DEF.parse(props)[TOPICS]

    def task_class(self) -> type[SourceTask]:
        return TopicPerTaskSourceTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [{"topic": self._topics[i % len(self._topics)], TASK_ID: str(i)} for i in range(max_tasks)]

    def stop(self) -> None:
        pass

    def exactly_once_support(self, connector_config: Mapping[str, str]) -> ExactlyOnceSupport | None:
        return ExactlyOnceSupport.SUPPORTED


class TopicPerTaskSourceTask(SourceTask):
    """About 200 records/s to its one topic."""

    def __init__(self) -> None:
        self._stop = threading.Event()
        self._seqno = 0

    def version(self) -> str:
        return VERSION

    def start(self, props: Mapping[str, str]) -> None:
        self._topic = props["topic"]
        self._task_id = int(props[TASK_ID])
        self._partition = {"id": self._task_id}
        stored = self.context.offset_storage_reader.offset(self._partition)
        self._seqno = int(stored["seqno"]) + 1 if stored else 0

    def poll(self) -> list[SourceRecord] | None:
        if self._stop.wait(_POLL_INTERVAL_S):
            return None
        start, self._seqno = self._seqno, self._seqno + _BATCH
        return [SourceRecord(self._partition, {"seqno": s}, self._topic, None, self._task_id, s)
                for s in range(start, start + _BATCH)]

    def stop(self) -> None:
        self._stop.set()
