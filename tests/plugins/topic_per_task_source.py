"""A source connector whose task ``i`` writes sequence numbers to the ``i``-th topic of ``topics``, so
tasks of one connector can write to topics that exist and to topics that do not.

Loaded by worker subprocesses through ``plugin.path`` (this directory) as
``connector.class=topic_per_task_source.TopicPerTaskSourceConnector``. Source partition
``{"id": <task>}``, offset ``{"seqno": n}``, resuming at the stored seqno + 1; key = task id.
"""

from __future__ import annotations

from connect_runtime.api import NO_DEFAULT, ConfigDef, ConfigType, Importance
from connect_runtime.testing.sequence_source import TASK_ID, TOPIC, SequenceSourceConnector

TOPICS = "topics"

CONFIG_DEF = ConfigDef().define(TOPICS, ConfigType.LIST, NO_DEFAULT, importance=Importance.HIGH,
                                documentation="Task i writes to the i-th topic (modulo the list's length).")


class TopicPerTaskSourceConnector(SequenceSourceConnector):
    """One topic per task; each task writes about 200 records/s (the plain sequence task)."""

    CONFIG_DEF = CONFIG_DEF

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        topics: list[str] = CONFIG_DEF.parse(self.props)[TOPICS]
        return [{TOPIC: topics[i % len(topics)], TASK_ID: str(i)} for i in range(max_tasks)]
