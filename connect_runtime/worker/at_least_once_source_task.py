"""The at-least-once source task: an idempotent producer, offsets flushed every
``offset.flush.interval.ms`` once every record sent before them has been acknowledged."""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping
from typing import Any

from confluent_kafka import KafkaError, Message

from connect_runtime.api.errors import ConnectException, RetriableException
from connect_runtime.config.connector_config import ToleranceType
from connect_runtime.storage import formats
from connect_runtime.worker.source_task_base import TaskSetup, WorkerSourceTask, monotonic_ms

logger = logging.getLogger(__name__)


class DeliveryErrors:
    """Counts failed deliveries; registered as the producer's default delivery callback together with
    ``delivery.report.only.error=true``, so it runs only for failures, never per successful record."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.first: KafkaError | None = None
        self.count = 0

    def take(self) -> tuple[int, KafkaError | None]:
        """The failures so far (count, first), and start counting again."""
        with self._lock:
            taken = (self.count, self.first)
            self.count, self.first = 0, None
        return taken

    def __call__(self, err: KafkaError | None, _msg: Message) -> None:
        if err is not None:
            with self._lock:
                self.count += 1
                if self.first is None:
                    self.first = err


def at_least_once_producer_config(base: Mapping[str, Any], errors: DeliveryErrors) -> dict[str, Any]:
    """Idempotent, acks=all producer whose delivery callback only sees failures."""
    conf = dict(base)
    conf.setdefault("enable.idempotence", True)
    conf.setdefault("acks", "all")
    conf.setdefault("linger.ms", 5)
    conf["delivery.report.only.error"] = True
    conf["on_delivery"] = errors
    return conf


class AtLeastOnceWorkerSourceTask(WorkerSourceTask):
    """Records may be re-sent after a crash (offsets lag the data), never lost."""

    def __init__(
        self,
        setup: TaskSetup,
        delivery_errors: DeliveryErrors,
        flush_interval_ms: int,
        flush_timeout_ms: int,
    ) -> None:
        super().__init__(setup)
        self._errors = delivery_errors
        self._flush_interval_ms = flush_interval_ms
        self._flush_timeout_s = flush_timeout_ms / 1000.0
        self._next_flush = monotonic_ms() + flush_interval_ms

    def prepare(self) -> None:
        self._offset_store.start()
        try:
            self._offset_store.read_to_end().result(60)
        except TimeoutError as e:
            raise RetriableException(f"Timed out reading the offsets of task {self.id} from "
                                     f"{self._offset_store.topic}") from e

    def batch_end(self, sent: int) -> None:
        if self._errors.count:
            self._delivery_failed()
        if monotonic_ms() >= self._next_flush:
            self._flush_offsets()

    def _delivery_failed(self) -> None:
        """Records the producer could not deliver fail the task, unless ``errors.tolerance=all``: then
        they are logged and skipped, and their offsets committed as the reference does."""
        if self._error_handler.tolerance is not ToleranceType.ALL:
            raise ConnectException(f"Failed to send a record of task {self.id}: {self._errors.first}")
        count, first = self._errors.take()
        self._error_handler.sends_failed(count)
        self.metrics.writes_failed(count)
        logger.error("Task %s failed to send %d record(s); skipped (errors.tolerance=all). First error: %s",
                     self.id, count, first)

    def before_pause(self) -> None:
        self._flush_offsets()

    def final_commit(self) -> None:
        self._flush_offsets()

    def _flush_offsets(self) -> None:
        started = monotonic_ms()
        try:
            committed = self._commit_offsets()
        except BaseException:
            self.metrics.commit_failed()
            raise
        if committed:
            self.metrics.commit_succeeded(monotonic_ms() - started)
        else:
            self.metrics.commit_failed()

    def _commit_offsets(self) -> bool:
        """Flush the producer, then write the offsets of what it acknowledged; False if the flush timed out."""
        self._next_flush = monotonic_ms() + self._flush_interval_ms
        snapshot = dict(self.pending_offsets)
        # Every record handed to the producer before the snapshot must be acknowledged first.
        remaining = self.producer.flush(self._flush_timeout_s)
        if self._errors.count:
            self._delivery_failed()
        if remaining:
            logger.warning("Task %s: timed out flushing %d records; offsets will be committed later",
                           self.id, remaining)
            return False
        if snapshot:
            entries = {k: formats.offset_value(v) for k, v in snapshot.items()}
            store = self._offset_store
            # A connector-specific offsets topic lives on the connector's cluster: the task's producer writes it.
            store.set(entries, producer=self.producer if store.has_connector_store else None)
            for k, v in snapshot.items():
                if self.pending_offsets.get(k) is v:
                    del self.pending_offsets[k]
        self.report_committed()
        return True

    def close_resources(self) -> None:
        self.producer.flush(self._flush_timeout_s)
