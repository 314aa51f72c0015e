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

from connect_runtime.api import ConfigType, Importance, SourceRecord, SourceTask
from connect_runtime.testing.sequence_source import SequenceSourceConnector, SequenceSourceTask, sequence_config_def

RECORDS_BEFORE_FAILURE = "records.before.failure"
TASK_ERROR = "boom"
CONNECTOR_START_ERROR = "connector start boom"

CONFIG_DEF = sequence_config_def().define(
    RECORDS_BEFORE_FAILURE, ConfigType.INT, 2, importance=Importance.LOW,
    documentation="How many records each task writes (one per poll) before poll raises.")


class FailingSourceTask(SequenceSourceTask):
    """Writes one record per poll, then raises ``RuntimeError("boom")``; every start begins at 0."""

    CONFIG_DEF = CONFIG_DEF
    BATCH = 1
    POLL_INTERVAL_S = 0.0

    def stored_seqno(self) -> int:
        return -1  # a restarted task writes its records again, then fails again

    def next_batch(self) -> list[SourceRecord]:
        if self.seqno >= self.config[RECORDS_BEFORE_FAILURE]:
            raise RuntimeError(TASK_ERROR)
        return super().next_batch()


class FailingSourceConnector(SequenceSourceConnector):
    """A healthy connector whose tasks fail after a few records."""

    CONFIG_DEF = CONFIG_DEF
    TASK_CLASS = FailingSourceTask


class FailingStartSourceConnector(FailingSourceConnector):
    """A connector that cannot even start."""

    def start(self, props: Mapping[str, str]) -> None:
        raise RuntimeError(CONNECTOR_START_ERROR)


class UnbuildableTask(FailingSourceTask):
    """A task whose constructor raises: the runtime cannot even build it."""

    def __init__(self) -> None:
        raise RuntimeError("task constructor boom")


class UnbuildableTaskSourceConnector(FailingSourceConnector):
    """Starts fine, but its tasks cannot be constructed."""

    def task_class(self) -> type[SourceTask]:
        return UnbuildableTask
