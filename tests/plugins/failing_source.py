"""Source connectors that fail on purpose, to check how the runtime reports failures.

Loaded by worker subprocesses through ``plugin.path`` (this directory) as
``connector.class=failing_source.FailingSourceConnector`` or
``failing_source.FailingStartSourceConnector``.

- :class:`FailingSourceConnector`: its tasks write ``records.before.failure`` records (default 2),
  then raise ``RuntimeError("boom")`` from ``poll``; the connector itself keeps running.
- :class:`FailingStartSourceConnector`: ``start`` raises ``RuntimeError("connector start boom")``.
"""

from __future__ import annotations

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
RECORDS_BEFORE_FAILURE = "records.before.failure"
TASK_ERROR = "boom"
CONNECTOR_START_ERROR = "connector start boom"

CONFIG_DEF = (
    ConfigDef()
    .define(TOPIC, ConfigType.STRING, NO_DEFAULT, importance=Importance.HIGH,
            documentation="The topic to write to before failing.")
    .define(RECORDS_BEFORE_FAILURE, ConfigType.INT, 2, importance=Importance.LOW,
            documentation="How many records each task writes (one per poll) before poll raises.")
)


class FailingSourceConnector(SourceConnector):
    """A healthy connector whose tasks fail after a few records."""

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
        return FailingSourceTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [{**self._props, "task.id": str(i)} for i in range(max_tasks)]

    def stop(self) -> None:
        pass

    def exactly_once_support(self, connector_config: Mapping[str, str]) -> ExactlyOnceSupport | None:
        return ExactlyOnceSupport.SUPPORTED


class FailingStartSourceConnector(FailingSourceConnector):
    """A connector that cannot even start."""

    def start(self, props: Mapping[str, str]) -> None:
        raise RuntimeError(CONNECTOR_START_ERROR)


class FailingSourceTask(SourceTask):
    """Writes one record per poll, then raises ``RuntimeError("boom")``."""

    def __init__(self) -> None:
        self._sent = 0
        self._limit = 0
        self._topic = ""
        self._task_id = 0

    def version(self) -> str:
        return VERSION

    def start(self, props: Mapping[str, str]) -> None:
        cfg = CONFIG_DEF.parse(props)
        self._topic = cfg[TOPIC]
        self._limit = cfg[RECORDS_BEFORE_FAILURE]
        self._task_id = int(props.get("task.id", "0"))

    def poll(self) -> list[SourceRecord] | None:
        if self._sent >= self._limit:
            raise RuntimeError(TASK_ERROR)
        seqno = self._sent
        self._sent += 1
        partition = {"id": self._task_id}
        return [SourceRecord(partition, {"seqno": seqno}, self._topic, None, self._task_id, seqno)]

    def stop(self) -> None:
        pass


class UnbuildableTask(FailingSourceTask):
    """A task whose constructor raises: the runtime cannot even build it."""

    def __init__(self) -> None:
        raise RuntimeError("task constructor boom")


class UnbuildableTaskSourceConnector(FailingSourceConnector):
    """Starts fine, but its tasks cannot be constructed."""

    def task_class(self) -> type[SourceTask]:
        return UnbuildableTask
