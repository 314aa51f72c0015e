"""A sequence source that defines its own transaction boundaries (``transaction.boundary=connector``).

Loaded by worker subprocesses through ``plugin.path`` (this directory) as
``connector.class=boundary_source.BoundarySourceConnector``. One task; source partition
``{"id": 0}``, offset ``{"seqno": n}``, key 0, value n (like VerifiableSource), resuming from the
stored seqno + 1.

- ``records.per.transaction`` N: after every N-th record the task asks for a record-level boundary;
  every ``abort.every``-th transaction (M) is aborted instead of committed (0 = never).
- ``batch.level``: ask with the batch-level calls after the poll instead (each poll returns N records).
- ``conflict.at``: ask for both commit and abort of the record with this seqno (fails the task).
- ``big.record.at``: the record with this seqno carries a value of ``big.record.bytes`` bytes.
- ``commit.log``: a file where ``commit_record`` appends ``<seqno> <committed|none>`` lines.
- ``idle.at``: the batch holding this seqno asks for no boundary, and the task then returns nothing for
  ``idle.ms``: it goes idle with an open transaction.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from typing import Any

from connect_runtime.api import (
    NO_DEFAULT,
    ConfigDef,
    ConfigType,
    ConnectorTransactionBoundaries,
    ExactlyOnceSupport,
    Importance,
    RecordMetadata,
    SourceConnector,
    SourceRecord,
    SourceTask,
)

VERSION = "0.0.1"

CONFIG_DEF = (
    ConfigDef()
    .define("topic", ConfigType.STRING, NO_DEFAULT, importance=Importance.HIGH, documentation="Target topic.")
    .define("records.per.transaction", ConfigType.INT, 10, importance=Importance.LOW, documentation="N.")
    .define("abort.every", ConfigType.INT, 0, importance=Importance.LOW, documentation="M.")
    .define("batch.level", ConfigType.BOOLEAN, False, importance=Importance.LOW, documentation="Batch calls.")
    .define("conflict.at", ConfigType.LONG, -1, importance=Importance.LOW, documentation="Conflicting seqno.")
    .define("big.record.at", ConfigType.LONG, -1, importance=Importance.LOW, documentation="Big record seqno.")
    .define("big.record.bytes", ConfigType.INT, 2_000_000, importance=Importance.LOW, documentation="Its size.")
    .define("commit.log", ConfigType.STRING, "", importance=Importance.LOW, documentation="commit_record log.")
    .define("poll.interval.ms", ConfigType.INT, 20, importance=Importance.LOW, documentation="Pause per poll.")
    .define("idle.at", ConfigType.LONG, -1, importance=Importance.LOW, documentation="Seqno to go idle after.")
    .define("idle.ms", ConfigType.INT, 0, importance=Importance.LOW, documentation="How long to stay idle.")
)


class BoundarySourceConnector(SourceConnector):
    def __init__(self) -> None:
        self._props: dict[str, str] = {}

    def version(self) -> str:
        return VERSION

    def config_def(self) -> ConfigDef:
        return CONFIG_DEF

    def start(self, props: Mapping[str, str]) -> None:
        self._props = dict(props)

    def task_class(self) -> type[SourceTask]:
        return BoundarySourceTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [dict(self._props)]

    def stop(self) -> None:
        pass

    def exactly_once_support(self, connector_config: Mapping[str, str]) -> ExactlyOnceSupport | None:
        return ExactlyOnceSupport.SUPPORTED

    def can_define_transaction_boundaries(self, connector_config: Mapping[str, str]) -> ConnectorTransactionBoundaries:
        return ConnectorTransactionBoundaries.SUPPORTED


class BoundarySourceTask(SourceTask):
    def __init__(self) -> None:
        self._stop = threading.Event()
        self._log: Any = None

    def version(self) -> str:
        return VERSION

    def start(self, props: Mapping[str, str]) -> None:
        cfg = CONFIG_DEF.parse(props)
        self._topic: str = cfg["topic"]
        self._n: int = cfg["records.per.transaction"]
        self._m: int = cfg["abort.every"]
        self._batch_level: bool = cfg["batch.level"]
        self._conflict: int = cfg["conflict.at"]
        self._big_at: int = cfg["big.record.at"]
        self._big_bytes: int = cfg["big.record.bytes"]
        self._pause_s = cfg["poll.interval.ms"] / 1000.0
        self._partition = {"id": 0}
        if cfg["commit.log"]:
            self._log = open(cfg["commit.log"], "a", buffering=1)  # noqa: SIM115 - closed in stop()
        stored = self.context.offset_storage_reader.offset(self._partition)
        self._seqno = int(stored["seqno"]) + 1 if stored else 0
        self._transactions = 0
        self._idle_at: int = cfg["idle.at"]
        self._idle_s = cfg["idle.ms"] / 1000.0
        self._idle_until = 0.0

    def _record(self, seqno: int) -> SourceRecord:
        value: Any = seqno
        if seqno == self._big_at:
            value = "x" * self._big_bytes
        return SourceRecord(self._partition, {"seqno": seqno}, self._topic, None, 0, value)

    def poll(self) -> list[SourceRecord] | None:
        if self._stop.wait(self._pause_s) or time.monotonic() < self._idle_until:
            return None
        ctx = self.context.transaction_context
        assert ctx is not None, "transaction.boundary=connector must give the task a TransactionContext"
        batch = [self._record(s) for s in range(self._seqno, self._seqno + self._n)]
        self._seqno += self._n
        for rec in batch:
            seqno = rec.source_offset["seqno"] if rec.source_offset else -1
            if seqno == self._conflict:
                ctx.commit_transaction(rec)
                ctx.abort_transaction(rec)
        if self._seqno - self._n <= self._idle_at < self._seqno:
            self._idle_until = time.monotonic() + self._idle_s
            return batch
        self._transactions += 1
        abort = self._m > 0 and self._transactions % self._m == 0
        if self._batch_level:
            if abort:
                ctx.abort_transaction()
            else:
                ctx.commit_transaction()
        elif abort:
            ctx.abort_transaction(batch[-1])
        else:
            ctx.commit_transaction(batch[-1])
        return batch

    def commit_record(self, record: SourceRecord, metadata: RecordMetadata | None) -> None:
        if self._log is not None and record.source_offset is not None:
            self._log.write(f"{record.source_offset['seqno']} {'none' if metadata is None else 'committed'}\n")

    def stop(self) -> None:
        # The log stays open: the runtime's final commit may still call commit_record.
        self._stop.set()
