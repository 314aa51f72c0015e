"""A sequence source connector to subclass: the skeleton of a test connector, written once.

Each task writes numbers ``0, 1, 2, ...`` like VerifiableSource (source partition ``{"id": <task>}``,
offset ``{"seqno": n}``, key the task id, value ``n``) and resumes after its committed offset, so
:func:`~connect_runtime.testing.check_sequences` with
:func:`~connect_runtime.testing.verifiable_key` proves exactly-once delivery from the topic alone.
A test connector changes only what it is about: more settings (``CONFIG_DEF``), the records
(``record``), a hook in ``start`` or ``poll``, and names its own classes::

    CONFIG_DEF = sequence_config_def().define("boom.at", ConfigType.INT, -1, importance=Importance.LOW)

    class BoomTask(SequenceSourceTask):
        CONFIG_DEF = CONFIG_DEF

        def record(self, seqno: int) -> SourceRecord:
            if seqno == self.config["boom.at"]:
                raise RuntimeError("boom")
            return super().record(seqno)

    class BoomConnector(SequenceSourceConnector):
        CONFIG_DEF = CONFIG_DEF
        TASK_CLASS = BoomTask

Put the module in a directory named by ``plugin.path`` (see :func:`~connect_runtime.testing.plugin_path`)
and configure ``connector.class=<module>.BoomConnector``.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any, ClassVar

from connect_runtime.api import ExactlyOnceSupport, SourceConnector, SourceRecord, SourceTask
from connect_runtime.api.config_def import ConfigDef, ConfigType, Importance

#: The one setting every sequence source has: the topic its tasks write to.
TOPIC = "topic"
#: The task number, in each task's config.
TASK_ID = "task.id"


def sequence_config_def() -> ConfigDef:
    """A new ``ConfigDef`` with ``topic`` defined: extend it with a connector's own settings."""
    return ConfigDef().define(TOPIC, ConfigType.STRING, importance=Importance.HIGH,
                              documentation="The topic to write the sequence numbers to.")


class SequenceSourceTask(SourceTask):
    """Writes ``batch`` numbers a poll, a poll every ``poll_interval_s``, resuming after the stored seqno.

    After ``start``: ``config`` holds the parsed settings, ``topic``, ``task_id``, ``partition`` and
    ``seqno`` (the next number) are set; a subclass may set ``batch`` and ``poll_interval_s`` from its
    settings there. ``stop`` wakes a waiting ``poll``.
    """

    CONFIG_DEF: ClassVar[ConfigDef] = sequence_config_def()
    VERSION: ClassVar[str] = "0.0.1"
    #: Numbers per poll, unless ``start`` sets ``batch``.
    BATCH: ClassVar[int] = 10
    #: How long each poll waits before it returns its batch (the tasks' pace), unless ``start`` sets
    #: ``poll_interval_s``.
    POLL_INTERVAL_S: ClassVar[float] = 0.05

    def __init__(self) -> None:
        self.stopping = threading.Event()
        self.config: dict[str, Any] = {}
        self.topic = ""
        self.task_id = 0
        self.partition: dict[str, Any] = {}
        self.seqno = 0
        self.batch = self.BATCH
        self.poll_interval_s = self.POLL_INTERVAL_S

    def version(self) -> str:
        return self.VERSION

    def start(self, props: Mapping[str, str]) -> None:
        self.config = dict(self.CONFIG_DEF.parse(props))
        self.topic = self.config[TOPIC]
        self.task_id = int(props.get(TASK_ID, "0"))
        self.partition = self.source_partition()
        self.seqno = self.stored_seqno() + 1

    def source_partition(self) -> dict[str, Any]:
        """The one source partition of this task: ``{"id": <task>}``, as VerifiableSource's."""
        return {"id": self.task_id}

    def stored_seqno(self) -> int:
        """The last committed number of this task's partition; -1 when nothing was committed."""
        stored = self.context.offset_storage_reader.offset(self.partition)
        return int(stored["seqno"]) if stored and stored.get("seqno") is not None else -1

    def poll(self) -> list[SourceRecord] | None:
        if self.stopping.wait(self.poll_interval_s):
            return None
        return self.next_batch()

    def next_batch(self) -> list[SourceRecord]:
        """The records of the next ``batch`` numbers (``poll``'s answer once its pause is over)."""
        first, self.seqno = self.seqno, self.seqno + self.batch
        return [self.record(s) for s in range(first, self.seqno)]

    def record(self, seqno: int) -> SourceRecord:
        """The record of number ``seqno``: VerifiableSource's shape (key the task id, value the number)."""
        return SourceRecord(self.partition, {"seqno": seqno}, self.topic, None, self.task_id, seqno)

    def stop(self) -> None:
        self.stopping.set()


class IdleSourceTask(SourceTask):
    """A task that writes nothing: for connectors whose test is about the connector, not the records.

    Each ``poll`` waits up to 0.2 s (less when stopped) and returns nothing.
    """

    VERSION: ClassVar[str] = "0.0.1"

    def __init__(self) -> None:
        self.stopping = threading.Event()

    def version(self) -> str:
        return self.VERSION

    def start(self, props: Mapping[str, str]) -> None:
        pass

    def poll(self) -> list[SourceRecord] | None:
        self.stopping.wait(0.2)
        return None

    def stop(self) -> None:
        self.stopping.set()


class SequenceSourceConnector(SourceConnector):
    """Validates its config and hands it, with ``task.id``, to ``tasks.max`` tasks of ``TASK_CLASS``;
    declares exactly-once support."""

    CONFIG_DEF: ClassVar[ConfigDef] = SequenceSourceTask.CONFIG_DEF
    TASK_CLASS: ClassVar[type[SourceTask]] = SequenceSourceTask
    VERSION: ClassVar[str] = "0.0.1"

    def __init__(self) -> None:
        self.props: dict[str, str] = {}

    def version(self) -> str:
        return self.VERSION

    def config_def(self) -> ConfigDef:
        return self.CONFIG_DEF

    def start(self, props: Mapping[str, str]) -> None:
        self.CONFIG_DEF.parse(props)
        self.props = dict(props)

    def task_class(self) -> type[SourceTask]:
        return self.TASK_CLASS

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [{**self.props, TASK_ID: str(i)} for i in range(max_tasks)]

    def stop(self) -> None:
        pass

    def exactly_once_support(self, connector_config: Mapping[str, str]) -> ExactlyOnceSupport | None:
        return ExactlyOnceSupport.SUPPORTED
