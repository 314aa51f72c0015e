"""The exactly-once source task (KIP-618): records and their source offsets commit in one Kafka
transaction of the task's producer ``<group.id>-<connector>-<task>``.

Start-up order matters (reference §6): fence the previous task generation, initialise transactions
(this also fences an older instance of this very task id and aborts its open transaction), re-check
that the task configs did not change meanwhile, and only then read offsets and start the plugin.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Mapping
from typing import Any

from confluent_kafka import KafkaError, KafkaException

from connect_runtime.api.errors import ConnectException
from connect_runtime.cluster.herder_api import TargetState
from connect_runtime.storage import formats
from connect_runtime.worker.source_task_base import TaskCancelled, TaskSetup, WorkerSourceTask

logger = logging.getLogger(__name__)

_TIMEOUT_HINT = (
    " This may be caused by transactions that take too long: consider reducing the connector's "
    "throughput per transaction, increasing the producer's transaction.timeout.ms "
    "(producer.override.transaction.timeout.ms), lowering transaction.boundary.interval.ms, or using "
    "the 'poll' transaction boundary."
)


class ExactlyOnceWorkerSourceTask(WorkerSourceTask):
    """Poll boundary: one transaction per poll (empty polls still call ``commit()``)."""

    def __init__(
        self,
        setup: TaskSetup,
        fence: Callable[[], None],
        verify_generation: Callable[[], None],
        transaction_timeout_s: float = 60.0,
    ) -> None:
        super().__init__(setup)
        self._fence = fence
        self._verify_generation = verify_generation
        self._txn_open = False
        self._timeout_s = transaction_timeout_s

    def prepare(self) -> None:
        with self._state_cv:
            while self._target_state is TargetState.PAUSED and not self._stopping:
                self._state_cv.wait(1.0)
        if self._stopping:
            raise TaskCancelled
        logger.info("Task %s: fencing the previous generation's producers", self.id)
        self._fence()
        if self._stopping:
            # Stopped while waiting for fencing: a replacement may already run; never fence it.
            raise TaskCancelled
        try:
            self.producer.init_transactions(self._timeout_s)
        except KafkaException as e:
            raise ConnectException(f"Failed to initialize the transactional producer of task {self.id}: {e}") from e
        logger.info("Task %s: transactions initialised; re-checking its task configuration", self.id)
        self._verify_generation()
        logger.info("Task %s: reading committed offsets", self.id)
        self._offset_store.read_to_end().result(self._timeout_s)

    def forbidden_topic(self) -> str | None:
        return self._offset_store.topic

    def begin_batch(self) -> None:
        if not self._txn_open:
            self.producer.begin_transaction()
            self._txn_open = True

    def batch_end(self, had_records: bool) -> None:
        self._commit()

    def before_pause(self) -> None:
        self._commit()

    def final_commit(self) -> None:
        self._commit()

    def _commit(self) -> None:
        pending = self.pending_offsets
        if not self._txn_open and not pending:
            self.report_committed()
            return
        producer = self.producer
        try:
            if not self._txn_open:
                producer.begin_transaction()
                self._txn_open = True
            topic = self._offset_store.topic
            for key, offset in pending.items():
                producer.produce(topic, formats.offset_value(offset), key)
            producer.commit_transaction(self._timeout_s)
        except KafkaException as e:
            self._txn_open = False
            err = e.args[0] if e.args and isinstance(e.args[0], KafkaError) else None
            hint = ""
            if err is not None and err.code() in (KafkaError._FENCED, KafkaError.PRODUCER_FENCED,
                                                  KafkaError.INVALID_PRODUCER_EPOCH,
                                                  KafkaError._TIMED_OUT, KafkaError.TRANSACTION_ABORTABLE,
                                                  KafkaError.INVALID_TXN_STATE):
                hint = _TIMEOUT_HINT if err.code() != KafkaError._FENCED else ""
            raise ConnectException(f"Failed to commit transaction for task {self.id}: {e}.{hint}") from e
        self._txn_open = False
        pending.clear()
        self.report_committed()

    def close_resources(self) -> None:
        if self._txn_open:
            with contextlib.suppress(KafkaException):
                self.producer.abort_transaction(5)
        # A transactional producer has nothing to flush after commit/abort; close it promptly.
        self.producer.flush(0)


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
