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

from connect_runtime.api import SourceRecord
from connect_runtime.testing.sequence_source import TASK_ID, TOPIC, SequenceSourceConnector, SequenceSourceTask


class FixedTaskSourceTask(SequenceSourceTask):
    """Sequence numbers as strings, resuming after the stored offset: about 50 records/s."""

    BATCH = 5
    POLL_INTERVAL_S = 0.1

    def record(self, seqno: int) -> SourceRecord:
        return SourceRecord(self.partition, {"seqno": seqno}, self.topic, None, self.task_id, str(seqno))


class FixedTaskSourceConnector(SequenceSourceConnector):
    """Task configs depend on ``topic`` and ``tasks.max`` only."""

    TASK_CLASS = FixedTaskSourceTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [{TOPIC: self.props[TOPIC], TASK_ID: str(i)} for i in range(max_tasks)]
