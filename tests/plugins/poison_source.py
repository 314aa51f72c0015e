"""A source connector whose every ``poison.every``-th record has a value the JSON converter rejects
(a Python set), to check ``errors.tolerance``.

Loaded by worker subprocesses through ``plugin.path`` (this directory) as
``connector.class=poison_source.PoisonSourceConnector``. Each task writes sequence numbers like
VerifiableSource (key: the task id, source partition ``{"id": <task>}``, offset ``{"seqno": n}``); the
value of seqno ``n`` is ``n``, or ``{n}`` when ``n % poison.every == poison.every - 1``. With
``boom.every`` set, other records with ``n % boom.every == boom.every - 1`` carry a ``boom`` header (for
a transform applied through ``HasHeaderKey`` that fails on them). With ``big.every`` set, other records
with ``n % big.every == big.every - 1`` have a 4 KiB string value (more than a topic with a small
``max.message.bytes`` accepts: the broker refuses it).
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

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
EVERY = "poison.every"
BOOM_EVERY = "boom.every"
BIG_EVERY = "big.every"
TASK_ID = "task.id"
_BATCH = 10
_POLL_INTERVAL_S = 0.05

CONFIG_DEF = (
    ConfigDef()
    .define(TOPIC, ConfigType.STRING, NO_DEFAULT, importance=Importance.HIGH, documentation="The topic to write to.")
    .define(EVERY, ConfigType.INT, 10, importance=Importance.MEDIUM,
            documentation="Every how many records one has a value the converter rejects.")
    .define(BOOM_EVERY, ConfigType.INT, 0, importance=Importance.MEDIUM,
            documentation="Every how many records one has a 'boom' header (0: none).")
    .define(BIG_EVERY, ConfigType.INT, 0, importance=Importance.MEDIUM,
            documentation="Every how many records one has a 4 KiB value (0: none).")
)


class PoisonSourceConnector(SourceConnector):
    """Sequence numbers with a poisoned value now and then."""

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
        return PoisonSourceTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [{**self._props, TASK_ID: str(i)} for i in range(max_tasks)]

    def stop(self) -> None:
        pass

    def exactly_once_support(self, connector_config: Mapping[str, str]) -> ExactlyOnceSupport | None:
        return ExactlyOnceSupport.SUPPORTED


class PoisonSourceTask(SourceTask):
    """Sequence numbers, resuming after the stored offset."""

    def __init__(self) -> None:
        self._stop = threading.Event()
        self._topic = ""
        self._every = 10
        self._boom = 0
        self._big = 0
        self._task_id = 0
        self._seqno = 0

    def version(self) -> str:
        return VERSION

    def start(self, props: Mapping[str, str]) -> None:
        values = CONFIG_DEF.parse(props)
        self._topic, self._every, self._boom = values[TOPIC], values[EVERY], values[BOOM_EVERY]
        self._big = values[BIG_EVERY]
        self._task_id = int(props[TASK_ID])
        stored = self.context.offset_storage_reader.offset({"id": self._task_id})
        self._seqno = int(stored["seqno"]) + 1 if stored and stored.get("seqno") is not None else 0

    def poll(self) -> list[SourceRecord] | None:
        if self._stop.wait(_POLL_INTERVAL_S):
            return None
        start, self._seqno = self._seqno, self._seqno + _BATCH
        partition = {"id": self._task_id}
        every, boom, big = self._every, self._boom, self._big
        out = []
        for s in range(start, start + _BATCH):
            if s % every == every - 1:
                out.append(SourceRecord(partition, {"seqno": s}, self._topic, None, self._task_id, {s}))
            elif big and s % big == big - 1:
                out.append(SourceRecord(partition, {"seqno": s}, self._topic, None, self._task_id, "x" * 4096))
            else:
                headers: Any = [("boom", b"1")] if boom and s % boom == boom - 1 else None
                out.append(SourceRecord(partition, {"seqno": s}, self._topic, None, self._task_id, s, headers))
        return out

    def stop(self) -> None:
        self._stop.set()
