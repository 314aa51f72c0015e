"""The exactly-once source task (KIP-618): records and their source offsets commit in one Kafka
transaction of the task's producer ``<group.id>-<connector>-<task>``.

Start-up order matters (docs/architecture.md, "Exactly-once source tasks"): fence the previous task
generation, initialise transactions (this also fences an older instance of this very task id and
aborts its open transaction), re-check that the task configs did not change meanwhile, and only then
read offsets and start the plugin.

When a transaction ends is the ``transaction.boundary``: after every poll, once an interval has
passed, or when the connector says so (:class:`ConnectorBoundaryWorkerSourceTask`). A commit that
fails aborts what it can and purges the producer at once: an open transaction left behind on the
offsets topic would hold every other reader of that topic back until ``transaction.timeout.ms``.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable, Mapping
from typing import Any

from confluent_kafka import KafkaError, KafkaException

from connect_runtime.api.errors import ConnectException, RetriableException
from connect_runtime.api.kafka_clients import COMMIT_SLICE_S, commit_transaction, init_transactions, kafka_error
from connect_runtime.api.record import SourceRecord
from connect_runtime.api.transaction import TransactionContext
from connect_runtime.clients import LOST_SEQUENCE_CODES
from connect_runtime.config.connector_config import TransactionBoundary
from connect_runtime.storage import formats
from connect_runtime.worker.source_task_base import TaskCancelled, TaskRewind, TaskSetup, WorkerSourceTask
from connect_runtime.worker.task_metrics import timed_ns
from connect_runtime.worker.transaction_context import WorkerTransactionContext

logger = logging.getLogger(__name__)

_TIMEOUT_HINT = (
    " The task was unable to finish writing records to Kafka before its producer transaction expired. "
    "It may be necessary to reconfigure this connector in order for it to run healthily with exactly-once "
    "support. Options for this include: tune the connector's producer configuration for higher throughput, "
    "increase the transaction timeout for the connector's producers "
    "(producer.override.transaction.timeout.ms), decrease the offset commit interval "
    "(transaction.boundary.interval.ms, if using interval-based transaction boundaries), or use the 'poll' "
    "transaction boundary (if the connector is not already configured to use it)."
)
_SIZE_HINT = (
    " A record or transaction was larger than the broker accepts: raise the topic's max.message.bytes "
    "(and the producer's message.max.bytes through producer.override.message.max.bytes), or make the "
    "connector emit smaller records."
)
_TIMEOUT_CODES = frozenset({KafkaError.INVALID_PRODUCER_EPOCH, KafkaError._TIMED_OUT,
                            KafkaError.TRANSACTION_ABORTABLE, KafkaError.INVALID_TXN_STATE})
_SIZE_CODES = frozenset({KafkaError.MSG_SIZE_TOO_LARGE, KafkaError.RECORD_LIST_TOO_LARGE})
_REWIND_HINT = (
    " The broker lost track of the producer's sequence numbers, as happens when a partition leader moves "
    "(a broker restart) while batches are in flight"
)
_SEQUENCE_HINT = (_REWIND_HINT + ": the transaction is aborted, nothing of it is visible, and the task is "
                  "restarted with a new producer from its last committed offsets.")
#: What librdkafka reports both when a newer instance fenced the producer and when the broker aborted a
#: transaction open longer than ``transaction.timeout.ms`` (the broker bumps the producer's epoch either way).
_FENCED_CODES = frozenset({KafkaError._FENCED, KafkaError.PRODUCER_FENCED, KafkaError.INVALID_PRODUCER_EPOCH})
#: librdkafka's default, and Java's.
DEFAULT_TRANSACTION_TIMEOUT_MS = 60000


def transaction_timeout_ms(producer_config: Mapping[str, Any]) -> int:
    """The ``transaction.timeout.ms`` a task producer with these settings has."""
    return int(producer_config.get("transaction.timeout.ms", DEFAULT_TRANSACTION_TIMEOUT_MS))


class ExactlyOnceWorkerSourceTask(WorkerSourceTask):
    """``poll`` boundary: one transaction per poll (empty polls still call ``commit()``);
    ``interval`` boundary: commit at the end of the first batch after the interval has passed.
    Both also commit before a pause and on a clean stop (which includes a revocation)."""

    def __init__(
        self,
        setup: TaskSetup,
        fence: Callable[[], None],
        verify_generation: Callable[[], None],
        boundary: TransactionBoundary = TransactionBoundary.POLL,
        interval_ms: int = 60000,
        transaction_timeout_s: float = 60.0,
        producer_transaction_timeout_ms: int = DEFAULT_TRANSACTION_TIMEOUT_MS,
    ) -> None:
        super().__init__(setup)
        self._fence = fence
        self._verify_generation = verify_generation
        self._txn_open = False
        #: Records sent in the open transaction (the reference's transaction-size metric).
        self.txn_size = 0
        self._timeout_s = transaction_timeout_s
        #: The producer's transaction.timeout.ms: the broker aborts a transaction open longer than that.
        self._expiry_ms = producer_transaction_timeout_ms
        self._txn_began: float | None = None  # time.monotonic() when the open transaction began
        self._retrying_at_begin = 0.0  # the error handler's retrying_s then
        self._interval_s = interval_ms / 1000.0 if boundary is TransactionBoundary.INTERVAL else 0.0
        self._next_commit = 0.0
        self._producer_closed = False
        #: What the closing abort answered when it found the producer fenced: a successor runs, so the
        #: failure must not be taken as transient (a restart here would fence that successor).
        self._fenced_at_close: KafkaException | None = None

    def _read_offsets_to_end(self) -> None:
        try:
            self._offset_store.read_to_end().result(self._timeout_s)
        except TimeoutError as e:
            raise RetriableException(f"Timed out reading the offsets of task {self.id} from "
                                     f"{self._offset_store.topic}") from e

    def prepare(self) -> None:
        logger.info("Task %s: fencing the previous generation's producers", self.id)
        self._fence()
        if self._stopping:
            # Stopped while waiting for fencing: a replacement may already run; never fence it.
            raise TaskCancelled
        calling = timed_ns()
        try:
            init_transactions(self.producer, self._timeout_s)
        except KafkaException as e:
            raise ConnectException(f"Failed to initialize the transactional producer of task {self.id}: {e}") from e
        finally:
            self.metrics.producer_call("init", timed_ns() - calling)
        logger.info("Task %s: transactions initialised; re-checking its task configuration", self.id)
        self._verify_generation()
        logger.info("Task %s: reading committed offsets from %s", self.id, self._offset_store.topic)
        self._offset_store.start()
        self._read_offsets_to_end()
        self._next_commit = time.monotonic() + self._interval_s

    def forbidden_topic(self) -> str | None:
        return self._offset_store.topic

    def begin_batch(self) -> None:
        if not self._txn_open:
            self._begin_transaction()

    def _begin_transaction(self) -> None:
        calling = timed_ns()
        self.producer.begin_transaction()
        self.metrics.producer_call("begin", timed_ns() - calling)
        self._txn_open = True
        self._txn_began = time.monotonic()
        self._retrying_at_begin = self._error_handler.retrying_s
        self.metrics.transaction_began()

    def batch_end(self, sent: int) -> None:
        self.txn_size += sent
        if self._interval_s:
            now = time.monotonic()
            if now < self._next_commit:
                return
            self._next_commit = now + self._interval_s
        self.commit()

    def before_pause(self) -> None:
        self.commit()

    def final_commit(self) -> None:
        self.commit()

    def commit(self) -> None:
        """Write the pending offsets into the open transaction (opening one if needed) and commit it."""
        pending = self.pending_offsets
        started = time.monotonic()
        if not self._txn_open and not pending:
            # Java counts this "empty commit" as a successful one (not as a transaction).
            self.metrics.commit_succeeded((time.monotonic() - started) * 1000.0)
            self.report_committed()
            return
        producer = self.producer
        store = self._offset_store
        entries = {key: formats.offset_value(offset) for key, offset in pending.items()}
        try:
            # Tombstones reach the worker's global topic first, or a reset could resurface from there.
            store.write_tombstones_first(entries)
            if not self._txn_open:
                self._begin_transaction()  # e.g. the offsets-only transaction after an abort
            topic = store.topic
            for key, value in entries.items():
                producer.produce(topic, value, key)
            calling = timed_ns()
            try:
                commit_transaction(self.producer, self._timeout_s)
            finally:
                self.metrics.producer_call("commit", timed_ns() - calling)
        except Exception as e:
            self._txn_open = False
            self.metrics.commit_failed()
            failure = self._commit_failed(self._error_behind(e))
            raise failure from failure.__cause__
        self._txn_open = False
        self._txn_began = None
        # Only a transaction that committed ends a run of rewinds: an empty commit does not (a source that
        # polls nothing between two lost sequences would otherwise rewind forever).
        self._rewinds = 0
        self.metrics.transaction_committed(self.txn_size, (time.monotonic() - started) * 1000.0)
        self.txn_size = 0
        pending.clear()
        store.mirror(entries)
        self.report_committed()

    def abort(self) -> None:
        """Abort the open transaction: its records are never visible; their offsets stay pending, so
        the next commit (an offsets-only transaction if nothing else) still commits them."""
        if self.txn_size == 0:
            logger.warning("Task %s: ignoring request by task to abort transaction as the current transaction "
                           "is empty", self.id)
            return
        calling = timed_ns()
        try:
            self.producer.abort_transaction(self._timeout_s)
        except KafkaException as e:
            self._txn_open = False
            failure = self._commit_failed(e)
            raise failure from failure.__cause__
        finally:
            self.metrics.producer_call("abort", timed_ns() - calling)
        self._txn_open = False
        self._txn_began = None
        self.metrics.transaction_aborted()
        self.txn_size = 0
        self.abandon_uncommitted()

    def abort_open_transaction(self) -> None:
        self._close_producer()
        self._txn_open = False
        self._txn_began = None

    def send_failed(self, error: KafkaException) -> Exception:
        cause = self._error_behind(error)
        self._txn_open = False
        return self._commit_failed(cause, "Unrecoverable exception trying to send records of task")

    def _error_behind(self, error: BaseException) -> BaseException:
        """What failed the transaction when librdkafka refused a send (of a record, or of the offsets in a
        commit) with ``_STATE`` or ``_FATAL``: the transaction (or the producer) already failed, and a commit
        attempt, which cannot succeed in this state, reports why (a record the broker refused, a fenced
        producer, a sequence the broker lost). ``error`` itself otherwise."""
        err = kafka_error(error)
        if err is not None and err.code() in (KafkaError._STATE, KafkaError._FATAL):
            try:
                self.producer.commit_transaction(COMMIT_SLICE_S)
            except KafkaException as e:
                return e
        return error

    def _commit_failed(self, error: BaseException,
                       what: str = "Failed to flush offsets and/or records for task") -> Exception:
        """Abort what can be aborted and drop every queued record at once; the error for the task, caused
        by ``error``, or by the fence the abort found (which makes the failure final). A lost sequence whose
        abort succeeded is a :class:`TaskRewind` instead: the producer goes on."""
        rewind = self._rewind_after(error, what)
        if rewind is not None:
            return rewind
        failure = self._commit_failure(error, what)
        failure.__cause__ = self._fenced_at_close or error
        return failure

    def _rewind_after(self, error: BaseException, what: str) -> TaskRewind | None:
        """librdkafka makes a lost sequence an abortable error that "requires epoch bump": its abort bumps the
        producer's epoch (KIP-360), which the coordinator grants only to the current epoch, so a producer a
        successor has fenced can never rewind. Anything else (a fatal producer, an abort that fails) is a
        failure, and the worker restarts the task with a new producer."""
        err = kafka_error(error)
        if (err is None or err.code() not in LOST_SEQUENCE_CODES or err.fatal() or not err.txn_requires_abort()
                or self._stopping or self._producer_closed):
            return None
        calling = timed_ns()
        try:
            self.producer.abort_transaction(self._timeout_s)
        except KafkaException as e:
            logger.warning("Task %s: aborting the transaction that lost its sequence failed: %s", self.id, e)
            return None
        finally:
            self.metrics.producer_call("abort", timed_ns() - calling)
        self._txn_began = None
        self.metrics.transaction_aborted()
        rewind = TaskRewind(f"{what} {self.id}: {error}.{_REWIND_HINT}")
        rewind.__cause__ = error
        return rewind

    def rewound(self) -> None:
        self._txn_open = False
        self.txn_size = 0
        # The plugin reads the store's in-memory view, which a background reader fills: the transactions
        # committed just before the aborted one must be in it, or the new instance would send them again.
        self._read_offsets_to_end()
        self._next_commit = time.monotonic() + self._interval_s

    def _commit_failure(self, error: BaseException, what: str) -> ConnectException:
        err = kafka_error(error)
        self._close_producer()
        began, self._txn_began = self._txn_began, None
        # Only a transaction that was open when the error came can have timed out.
        if err is not None and err.code() in _FENCED_CODES and began is not None:
            open_s = time.monotonic() - began
            if open_s * 1000 >= self._expiry_ms:
                # Not a zombie: no newer instance started, the broker expired the transaction.
                return ConnectException(
                    f"{what} {self.id}: its transaction was open for {open_s:.1f} s, longer than the producer's "
                    f"transaction.timeout.ms ({self._expiry_ms} ms), so the broker aborted it and bumped the "
                    f"producer's epoch, which librdkafka reports as {err.name()}, 'fenced by a newer instance' "
                    f"(the cause below): the transaction timed out.{self._retry_hint(open_s)}{self._expiry_hint()}")
        hint = ""
        if err is not None:
            if err.code() in _SIZE_CODES:
                hint = _SIZE_HINT
            elif err.code() in LOST_SEQUENCE_CODES:
                hint = _SEQUENCE_HINT
            elif err.code() in _TIMEOUT_CODES or (err.txn_requires_abort() and err.code() != KafkaError._FENCED):
                hint = _TIMEOUT_HINT
        return ConnectException(f"{what} {self.id}: {error}.{hint}")

    def _expiry_hint(self) -> str:
        return _TIMEOUT_HINT

    def _retry_hint(self, open_s: float) -> str:
        """What to change when retrying a failed record held the transaction open past its expiry."""
        retried_s = self._error_handler.retrying_s - self._retrying_at_begin
        if retried_s * 1000 < self._expiry_ms / 2:
            return ""
        limit_ms = self._error_handler.retry_timeout_ms
        limit = "no limit" if limit_ms < 0 else f"{limit_ms} ms"
        return (f" {retried_s:.1f} s of the {open_s:.1f} s went on retrying a failed record within "
                f"errors.retry.timeout ({limit}; a converter waiting for its schema registry, say): "
                "keep errors.retry.timeout below transaction.timeout.ms, so that the record fails (or is skipped) "
                "before its transaction expires.")

    def _close_producer(self) -> None:
        if self._producer_closed:
            return
        self._producer_closed = True
        producer = self.producer
        self.metrics.transaction_ended()
        # Abort first: it writes the abort markers that let read_committed readers of the offsets
        # topic move past this transaction. A fenced producer cannot abort; its successor did already.
        calling = timed_ns()
        try:
            producer.abort_transaction(5)
        except KafkaException as e:
            err = kafka_error(e)
            if err is not None and err.code() in _FENCED_CODES:
                self._fenced_at_close = e
        if self._txn_began is not None:
            # Only a transaction that was open is an abort; a clean stop's call aborts nothing.
            self.metrics.producer_call("abort", timed_ns() - calling)
        with contextlib.suppress(KafkaException, RuntimeError):
            producer.purge()
        # A fenced (fatal) producer raises here too; the error that failed the task is the one to report.
        with contextlib.suppress(KafkaException):
            producer.flush(0)

    def close_resources(self) -> None:
        if self._txn_open or not self._producer_closed:
            self._close_producer()
        self._txn_open = False


class ConnectorBoundaryWorkerSourceTask(ExactlyOnceWorkerSourceTask):
    """``transaction.boundary=connector``: the task commits or aborts through its
    :class:`TransactionContext`, after a given record or after the current batch; record-level
    requests are acted on first. An abort still commits the aborted records' offsets (in a
    transaction of their own if need be), so the task does not see the same records again.
    Pausing or stopping commits only if the connector asked for it, as the reference does."""

    def __init__(self, setup: TaskSetup, fence: Callable[[], None], verify_generation: Callable[[], None],
                 transaction_timeout_s: float = 60.0,
                 producer_transaction_timeout_ms: int = DEFAULT_TRANSACTION_TIMEOUT_MS) -> None:
        super().__init__(setup, fence, verify_generation, TransactionBoundary.CONNECTOR, 0, transaction_timeout_s,
                         producer_transaction_timeout_ms)
        self._context = WorkerTransactionContext()

    def _expiry_hint(self) -> str:
        return (" With transaction.boundary=connector the task decides when a transaction ends: it must commit "
                "what it has sent (TransactionContext.commit_transaction()) before it goes idle, or the broker "
                "aborts the open transaction; raising producer.override.transaction.timeout.ms only makes the "
                "wait longer.")

    def transaction_context(self) -> TransactionContext | None:
        return self._context

    def rewound(self) -> None:
        super().rewound()
        self._context = WorkerTransactionContext()  # the stopped instance's requests die with it

    def on_record_sent(self, record: SourceRecord, dropped: bool) -> None:
        if not dropped:
            self.txn_size += 1
        ctx = self._context
        if not ctx.has_record_requests:
            return
        if ctx.should_abort_on(record):
            logger.info("Task %s: aborting transaction for record on topic %s as requested by connector",
                        self.id, record.topic)
            self.abort()
            self.commit()
        elif ctx.should_commit_on(record):
            self.commit()
        else:
            return
        # The rest of the batch goes into a new transaction.
        self.begin_batch()

    def batch_end(self, sent: int) -> None:
        self._maybe_commit_for_batch()

    def _maybe_commit_for_batch(self) -> None:
        ctx = self._context
        if ctx.should_abort_batch():
            logger.info("Task %s: aborting transaction for batch as requested by connector", self.id)
            self.abort()
            self.commit()
        elif ctx.should_commit_batch():
            self.commit()

    def before_pause(self) -> None:
        self._maybe_commit_for_batch()

    def final_commit(self) -> None:
        self._maybe_commit_for_batch()


def eos_producer_config(base: Mapping[str, Any], transactional_id: str) -> dict[str, Any]:
    """Task producer settings: idempotence and the transactional id are forced (user values that
    differ are ignored with a warning, as the reference does)."""
    conf = dict(base)
    for key, forced in (("enable.idempotence", True), ("transactional.id", transactional_id)):
        if key in conf and str(conf[key]).lower() != str(forced).lower():
            logger.warning("The value '%s' for the '%s' property will be ignored as it cannot be overridden "
                           "when exactly-once support is enabled. The value '%s' will be used instead.",
                           conf[key], key, forced)
        conf[key] = forced
    conf.setdefault("acks", "all")
    conf.setdefault("linger.ms", 5)
    return conf
