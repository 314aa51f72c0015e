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

from typing import Any

from connect_runtime.api import ConfigType, Importance, SourceRecord
from connect_runtime.testing.sequence_source import SequenceSourceConnector, SequenceSourceTask, sequence_config_def

EVERY = "poison.every"
BOOM_EVERY = "boom.every"
BIG_EVERY = "big.every"

CONFIG_DEF = (
    sequence_config_def()
    .define(EVERY, ConfigType.INT, 10, importance=Importance.MEDIUM,
            documentation="Every how many records one has a value the converter rejects.")
    .define(BOOM_EVERY, ConfigType.INT, 0, importance=Importance.MEDIUM,
            documentation="Every how many records one has a 'boom' header (0: none).")
    .define(BIG_EVERY, ConfigType.INT, 0, importance=Importance.MEDIUM,
            documentation="Every how many records one has a 4 KiB value (0: none).")
)


class PoisonSourceTask(SequenceSourceTask):
    """Sequence numbers, resuming after the stored offset, with a poisoned value now and then."""

    CONFIG_DEF = CONFIG_DEF

    def record(self, seqno: int) -> SourceRecord:
        every, boom, big = self.config[EVERY], self.config[BOOM_EVERY], self.config[BIG_EVERY]
        value: Any = seqno
        headers: Any = None
        if seqno % every == every - 1:
            value = {seqno}
        elif big and seqno % big == big - 1:
            value = "x" * 4096
        elif boom and seqno % boom == boom - 1:
            headers = [("boom", b"1")]
        return SourceRecord(self.partition, {"seqno": seqno}, self.topic, None, self.task_id, value, headers)


class PoisonSourceConnector(SequenceSourceConnector):
    """Sequence numbers with a poisoned value now and then."""

    CONFIG_DEF = CONFIG_DEF
    TASK_CLASS = PoisonSourceTask
