"""The :class:`TransactionContext` handed to tasks of connectors with ``transaction.boundary=connector``.

The task may call it from any thread; the task loop consults it after every record and every batch.
Records are matched by identity (the reference uses an identity set), so two equal records are
still two boundary requests. A request for both commit and abort at the same point fails the task:
the alternative may lose data, and a task could swallow an exception raised at the call site, so the
check happens when the runtime consults the context.
"""

from __future__ import annotations

import threading

from connect_runtime.api.record import SourceRecord
from connect_runtime.api.transaction import TransactionContext


class WorkerTransactionContext(TransactionContext):
    """Collects a task's commit/abort requests until the task loop acts on them."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._commit_batch = False
        self._abort_batch = False
        # id(record) -> record: identity semantics, and the record is kept alive so its id stays unique.
        self._commit_records: dict[int, SourceRecord] = {}
        self._abort_records: dict[int, SourceRecord] = {}

    def commit_transaction(self, record: SourceRecord | None = None) -> None:
        with self._lock:
            if record is None:
                self._commit_batch = True
            else:
                self._commit_records[id(record)] = record

    def abort_transaction(self, record: SourceRecord | None = None) -> None:
        with self._lock:
            if record is None:
                self._abort_batch = True
            else:
                self._abort_records[id(record)] = record

    @property
    def has_record_requests(self) -> bool:
        """Cheap check before the per-record consultation (no lock: a stale answer is harmless here,
        since requests for a record are made before the record is returned from ``poll``)."""
        return bool(self._commit_records or self._abort_records)

    def should_abort_batch(self) -> bool:
        """Whether the batch's transaction is to be aborted (consumes the request)."""
        with self._lock:
            self._check_batch()
            result, self._abort_batch = self._abort_batch, False
            return result

    def should_commit_batch(self) -> bool:
        """Whether the batch's transaction is to be committed (consumes the request)."""
        with self._lock:
            self._check_batch()
            result, self._commit_batch = self._commit_batch, False
            return result

    def should_abort_on(self, record: SourceRecord) -> bool:
        """Whether to abort right after ``record`` (consumes the request)."""
        with self._lock:
            self._check_record(record)
            return self._abort_records.pop(id(record), None) is not None

    def should_commit_on(self, record: SourceRecord) -> bool:
        """Whether to commit right after ``record`` (consumes the request)."""
        with self._lock:
            self._check_record(record)
            return self._commit_records.pop(id(record), None) is not None

    def _check_batch(self) -> None:
        if self._commit_batch and self._abort_batch:
            raise IllegalTransactionRequest("Connector requested both commit and abort of next transaction")

    def _check_record(self, record: SourceRecord) -> None:
        key = id(record)
        if key in self._commit_records and key in self._abort_records:
            partition = "null" if record.kafka_partition is None else record.kafka_partition
            raise IllegalTransactionRequest(
                f"Connector requested both commit and abort of same record against topic/partition "
                f"{record.topic}/{partition}")


class IllegalTransactionRequest(RuntimeError):
    """The connector asked for contradictory transaction boundaries (fails the task)."""
