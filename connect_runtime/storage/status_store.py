"""The status topic: the last known state of every connector and task, written by the worker that
runs it and read by every worker (so ``GET /connectors/{c}/status`` works on any of them)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from confluent_kafka import TIMESTAMP_NOT_AVAILABLE, KafkaError, KafkaException, Message, Producer
from confluent_kafka.admin import AdminClient

from connect_runtime.clients import ErrorKind, classify_error
from connect_runtime.logging_util import RateLimitedLogger
from connect_runtime.storage import formats
from connect_runtime.storage.kafka_log import FatalCallback, KafkaBasedLog
from connect_runtime.types import ConnectorTaskId

logger = logging.getLogger(__name__)
_rate_limited = RateLimitedLogger(logger)

#: ``(key, value, record timestamp in ms or None)`` of a ``status-worker-*`` record.
WorkerListener = Callable[[str, bytes | None, int | None], None]

WORKER_KEY_PREFIX = "status-worker-"


class State:
    """State names as the reference writes them."""

    UNASSIGNED = "UNASSIGNED"
    RUNNING = "RUNNING"
    PAUSED = "PAUSED"
    FAILED = "FAILED"
    RESTARTING = "RESTARTING"
    STOPPED = "STOPPED"


@dataclass(frozen=True, slots=True)
class ConnectorStatus:
    """State of a connector as last written to the status topic."""

    connector: str
    state: str
    trace: str | None
    worker_id: str
    generation: int
    version: str | None = None


@dataclass(frozen=True, slots=True)
class TaskStatus:
    """State of a task as last written to the status topic."""

    id: ConnectorTaskId
    state: str
    trace: str | None
    worker_id: str
    generation: int
    version: str | None = None


@dataclass(frozen=True, slots=True)
class TopicStatus:
    """A topic a connector's task produced to (KIP-558 active topics), as written to the status topic."""

    topic: str
    connector: str
    task: int
    discover_timestamp: int


class KafkaStatusBackingStore:
    """Cache of the status topic plus writes through the worker's (non-transactional) producer.

    A write the producer could not deliver (the broker was unreachable longer than the producer's
    ``delivery.timeout.ms``, or its local queue was full) is sent again, as the reference's store
    re-sends on retriable errors, unless a newer write of the same key superseded it: statuses
    written during a broker outage still reach the topic once it is back, so every worker's REST
    answers end up truthful.
    """

    def __init__(self, topic: str, consumer_config: Mapping[str, Any], admin: AdminClient,
                 producer: Producer, *, on_fatal: FatalCallback | None = None) -> None:
        self.topic = topic
        self._producer = producer
        self._lock = threading.Lock()
        self._connectors: dict[str, ConnectorStatus] = {}
        self._tasks: dict[ConnectorTaskId, TaskStatus] = {}
        # connector -> topic -> status. Each connector's dict is created once and never replaced: tasks
        # hold it (``active_topics``) and test membership in it without a lock, once per record.
        self._topics: dict[str, dict[str, TopicStatus]] = {}
        # Per key: the sequence number of its latest write, and the writes waiting to be re-sent.
        self._sequences: dict[str, int] = {}
        self._unsent: dict[str, tuple[int, bytes | None]] = {}
        self._log = KafkaBasedLog(topic, consumer_config, admin, self._on_record, name="status-log-reader",
                                  on_fatal=on_fatal)
        #: Receives records with keys starting with ``status-worker-`` (our membership heartbeats,
        #: which a Java worker skips as unknown keys), with the record's timestamp.
        self.worker_listener: WorkerListener | None = None

    def start(self) -> None:
        self._log.start()

    def stop(self) -> None:
        self._resend_unsent()
        self._producer.flush(5)
        self._log.stop()

    def refresh(self, timeout_s: float = 30.0) -> None:
        self._log.read_to_end().result(timeout_s)

    def _on_record(self, msg: Message) -> None:
        key: bytes | None = msg.key()
        if key is None:
            return
        text = key.decode("utf-8", "replace")
        if text.startswith(WORKER_KEY_PREFIX):
            if self.worker_listener is not None:
                ts_type, ts = msg.timestamp()
                self.worker_listener(text, msg.value(), None if ts_type == TIMESTAMP_NOT_AVAILABLE else ts)
            return
        try:
            rec = formats.parse_status_record(text, msg.value())
        except Exception:
            logger.exception("Skipping malformed status record %r", key)
            return
        with self._lock:
            if isinstance(rec, formats.ConnectorStatusRecord):
                if rec.state is None:
                    self._connectors.pop(rec.connector, None)
                else:
                    status = ConnectorStatus(rec.connector, rec.state, rec.trace, rec.worker_id or "",
                                             rec.generation or 0, rec.version)
                    if not _stale(self._connectors.get(rec.connector), status):
                        self._connectors[rec.connector] = status
            elif isinstance(rec, formats.TopicStatusRecord):
                topics = self._topics_of(rec.connector)
                if rec.task is None or rec.discover_timestamp is None:
                    topics.pop(rec.topic, None)
                else:
                    topics[rec.topic] = TopicStatus(rec.topic, rec.connector, rec.task, rec.discover_timestamp)
            elif isinstance(rec, formats.TaskStatusRecord):
                tid = ConnectorTaskId(rec.connector, rec.task)
                if rec.state is None:
                    self._tasks.pop(tid, None)
                else:
                    task_status = TaskStatus(tid, rec.state, rec.trace, rec.worker_id or "", rec.generation or 0,
                                             rec.version)
                    if not _stale(self._tasks.get(tid), task_status):
                        self._tasks[tid] = task_status

    # -- writes ---------------------------------------------------------------------------------
    def _send(self, key: str, value: bytes | None) -> None:
        with self._lock:
            seq = self._sequences[key] = self._sequences.get(key, 0) + 1
            self._unsent.pop(key, None)
        self._resend_unsent()
        self._produce(key, value, seq)
        self._producer.poll(0)

    def _produce(self, key: str, value: bytes | None, seq: int) -> None:
        def on_delivery(err: KafkaError | None, _msg: Message) -> None:
            if err is None:
                return
            self._failed(key, value, seq, err)

        try:
            self._producer.produce(self.topic, key=key.encode(), value=value, on_delivery=on_delivery)
        except BufferError as e:  # the local queue is full (a long outage): keep it for later
            self._failed(key, value, seq, e)
        except KafkaException as e:
            self._failed(key, value, seq, e)

    def _failed(self, key: str, value: bytes | None, seq: int, error: BaseException | KafkaError) -> None:
        with self._lock:
            if self._sequences.get(key) != seq:
                return  # a newer write of this key is on its way: this one no longer matters
        if not isinstance(error, BufferError) and classify_error(error) is ErrorKind.FATAL:
            logger.error("Failed to write status record %s: %s", key, error)
            return
        _rate_limited.warning("Could not write status record %s (will send it again): %s", key, error)
        with self._lock:
            self._unsent[key] = (seq, value)

    def _resend_unsent(self) -> None:
        """Send again what failed; called on every write (heartbeats write every few seconds)."""
        with self._lock:
            if not self._unsent:
                return
            unsent, self._unsent = self._unsent, {}
            unsent = {k: v for k, v in unsent.items() if self._sequences.get(k) == v[0]}
        for key, (seq, value) in unsent.items():
            self._produce(key, value, seq)

    def put_connector(self, status: ConnectorStatus, safe: bool = False) -> None:
        """Write a connector state; with ``safe`` only if no newer generation of another worker wrote it."""
        if safe:
            with self._lock:
                prev = self._connectors.get(status.connector)
            if _stale(prev, status):
                return
        with self._lock:
            self._connectors[status.connector] = status
        key, value = formats.connector_status_record(status.connector, status.state, status.worker_id,
                                                     status.generation, status.trace, status.version)
        self._send(key, value)

    def put_task(self, status: TaskStatus, safe: bool = False) -> None:
        """Write a task state (see :meth:`put_connector` for ``safe``)."""
        if safe:
            with self._lock:
                prev = self._tasks.get(status.id)
            if _stale(prev, status):
                logger.debug("Not overwriting a newer status of task %s written by another worker", status.id)
                return
        with self._lock:
            self._tasks[status.id] = status
        key, value = formats.task_status_record(status.id.connector, status.id.task, status.state,
                                                status.worker_id, status.generation, status.trace, status.version)
        self._send(key, value)

    def delete_connector(self, connector: str) -> None:
        """Tombstone the connector's status and its tasks' statuses (connector deleted)."""
        with self._lock:
            self._connectors.pop(connector, None)
            tasks = [t for t in self._tasks if t.connector == connector]
            for t in tasks:
                del self._tasks[t]
        self._send(formats.connector_status_key(connector), None)
        for t in tasks:
            self._send(formats.task_status_key(t.connector, t.task), None)

    def _topics_of(self, connector: str) -> dict[str, TopicStatus]:
        """The connector's live topic map (call with the lock held)."""
        topics = self._topics.get(connector)
        if topics is None:
            topics = self._topics[connector] = {}
        return topics

    def active_topics(self, connector: str) -> Mapping[str, TopicStatus]:
        """The connector's active topics as a live mapping that this store keeps current (records read,
        written and reset): a task checks ``topic in`` it per record and calls :meth:`put_topic` only for
        a topic that is not there."""
        with self._lock:
            return self._topics_of(connector)

    def put_topic(self, connector: str, topic: str, task: int, timestamp_ms: int) -> None:
        """Record that ``topic`` is in use by ``connector`` (once: a topic already recorded is left as it is,
        with its first discovery time, as Java does)."""
        status = TopicStatus(topic, connector, task, timestamp_ms)
        with self._lock:
            topics = self._topics_of(connector)
            if topic in topics:
                return
            topics[topic] = status
        key, value = formats.topic_status_record(topic, connector, task, timestamp_ms)
        self._send(key, value)

    def get_all_topics(self, connector: str) -> list[TopicStatus]:
        """The connector's active topics, by topic name."""
        with self._lock:
            topics = self._topics.get(connector)
            return sorted(topics.values(), key=lambda t: t.topic) if topics else []

    def delete_topic(self, connector: str, topic: str) -> None:
        """Tombstone one active-topic record (it leaves the local view at once)."""
        with self._lock:
            topics = self._topics.get(connector)
            if topics is not None:
                topics.pop(topic, None)
        self._send(formats.topic_status_key(topic, connector), None)

    def put_raw(self, key: str, value: bytes | None) -> None:
        """Write a record of our own (heartbeats) to the status topic."""
        self._send(key, value)

    def flush(self, timeout_s: float = 10.0) -> None:
        self._resend_unsent()
        self._producer.flush(timeout_s)

    # -- reads ----------------------------------------------------------------------------------
    def get_connector(self, connector: str) -> ConnectorStatus | None:
        with self._lock:
            return self._connectors.get(connector)

    def get_task(self, task: ConnectorTaskId) -> TaskStatus | None:
        with self._lock:
            return self._tasks.get(task)

    def statuses(self) -> tuple[dict[str, ConnectorStatus], dict[ConnectorTaskId, TaskStatus]]:
        """Every connector's and every task's status, copied together under the lock: reading many
        connectors' statuses takes one pass, not a lock and a scan of all tasks per connector."""
        with self._lock:
            return dict(self._connectors), dict(self._tasks)

    def get_all_tasks(self, connector: str) -> list[TaskStatus]:
        with self._lock:
            return sorted((s for t, s in self._tasks.items() if t.connector == connector), key=lambda s: s.id.task)


def _stale(current: ConnectorStatus | TaskStatus | None, incoming: ConnectorStatus | TaskStatus) -> bool:
    """An incoming status from another worker with an older generation is a zombie's late write: every
    reader ignores it, so all workers agree on the newest owner's state whatever order writes raced in."""
    return (current is not None and current.worker_id != incoming.worker_id
            and current.generation > incoming.generation)
