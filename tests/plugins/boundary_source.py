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

import time
from collections.abc import Mapping
from typing import Any

from connect_runtime.api import (
    ConfigType,
    ConnectorTransactionBoundaries,
    Importance,
    RecordMetadata,
    SourceRecord,
)
from connect_runtime.testing.sequence_source import SequenceSourceConnector, SequenceSourceTask, sequence_config_def

CONFIG_DEF = (
    sequence_config_def()
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


class BoundarySourceTask(SequenceSourceTask):
    """N records a poll, each poll one transaction, with the boundary asked for as configured."""

    CONFIG_DEF = CONFIG_DEF

    def __init__(self) -> None:
        super().__init__()
        # Never closed by stop(): the runtime's final commit may still call commit_record.
        self._log: Any = None
        self._transactions = 0
        self._idle_until = 0.0

    def start(self, props: Mapping[str, str]) -> None:
        super().start(props)
        self.batch = self.config["records.per.transaction"]
        self.poll_interval_s = self.config["poll.interval.ms"] / 1000.0
        if self.config["commit.log"]:
            self._log = open(self.config["commit.log"], "a", buffering=1)  # noqa: SIM115 - closed in stop()

    def record(self, seqno: int) -> SourceRecord:
        value: Any = "x" * self.config["big.record.bytes"] if seqno == self.config["big.record.at"] else seqno
        return SourceRecord(self.partition, {"seqno": seqno}, self.topic, None, self.task_id, value)

    def poll(self) -> list[SourceRecord] | None:
        if time.monotonic() < self._idle_until:
            self.stopping.wait(self.poll_interval_s)
            return None
        return super().poll()

    def next_batch(self) -> list[SourceRecord]:
        ctx = self.context.transaction_context
        assert ctx is not None, "transaction.boundary=connector must give the task a TransactionContext"
        batch = super().next_batch()
        for rec in batch:
            seqno = rec.source_offset["seqno"] if rec.source_offset else -1
            if seqno == self.config["conflict.at"]:
                ctx.commit_transaction(rec)
                ctx.abort_transaction(rec)
        if self.seqno - self.batch <= self.config["idle.at"] < self.seqno:
            self._idle_until = time.monotonic() + self.config["idle.ms"] / 1000.0
            return batch
        self._transactions += 1
        every = self.config["abort.every"]
        abort = every > 0 and self._transactions % every == 0
        if self.config["batch.level"]:
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


class BoundarySourceConnector(SequenceSourceConnector):
    """One task that defines its own transaction boundaries."""

    CONFIG_DEF = CONFIG_DEF
    TASK_CLASS = BoundarySourceTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [dict(self.props)]

    def can_define_transaction_boundaries(self, connector_config: Mapping[str, str]) -> ConnectorTransactionBoundaries:
        return ConnectorTransactionBoundaries.SUPPORTED
