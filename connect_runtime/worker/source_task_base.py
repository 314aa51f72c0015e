"""What every source task loop shares: lifecycle, pause/stop, poll, convert and send.

One loop thread in the task's process, and every call into the plugin's task happens on it (Java's lifecycle since
KAFKA-10792): ``initialize`` and ``start``, then ``poll`` in a loop (with ``commit``, ``commit_record``,
``on_pause`` and ``on_resume`` between polls), then ``stop`` exactly once, after the last ``poll``
returned, and only if ``start`` returned. A stop request from the worker only sets a flag the loop
checks between polls. An exactly-once task whose transaction was aborted under it (a lost sequence, see
:class:`TaskRewind`) stops its plugin instance the same way and starts a new one from the committed offsets.
A ``poll`` that never returns is ended by the worker killing the task's process
once ``task.shutdown.graceful.timeout.ms`` has passed (no final commit, no status).

The per-record path (``_send_batch``) is kept tight: no per-record logging, no per-record closures
unless the plugin overrides ``commit_record``, and what repeats from record to record is decided once
per run: the source-partition key once per partition object, the topic checks once per topic object,
a JsonConverter key once per (immutable) key object.
"""

from __future__ import annotations

import inspect
import logging
import threading
import time
import traceback
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from confluent_kafka import KafkaError, KafkaException, Message, Producer

from connect_runtime.api.converter import Converter, HeaderConverter
from connect_runtime.api.delegated_delivery import DelegatedDelivery
from connect_runtime.api.errors import ConnectException, DataException, RetriableException
from connect_runtime.api.record import Header, Headers, RecordMetadata, SourceRecord
from connect_runtime.api.storage import OffsetStorageReader
from connect_runtime.api.task import SourceTask, SourceTaskContext
from connect_runtime.api.transaction import TransactionContext
from connect_runtime.api.transformation import Transformation
from connect_runtime.clients import is_transient
from connect_runtime.converters.json_converter import JsonConverter
from connect_runtime.converters.simple_header_converter import SimpleHeaderConverter
from connect_runtime.storage import formats
from connect_runtime.types import ConnectorTaskId, TargetState
from connect_runtime.worker.retry_with_tolerance import SKIP, RetryWithToleranceOperator, Stage, ToleranceExceeded
from connect_runtime.worker.task_metrics import NullTaskMetrics, TaskMetrics
from connect_runtime.worker.task_offset_store import TaskOffsetStore
from connect_runtime.worker.task_status import TaskStatusListener
from connect_runtime.worker.topic_creation import TaskTopics

logger = logging.getLogger(__name__)

#: Key types whose JsonConverter bytes depend only on the (immutable) object: cached per key object.
_IMMUTABLE_KEYS = frozenset((int, str, bool, float, bytes, type(None)))
_NO_KEY: Any = object()

#: Offsets waiting to be committed: serialized offsets-topic key -> offset map (None = tombstone).
PendingOffsets = dict[bytes, Mapping[str, Any] | None]


class _TaskContext(SourceTaskContext):
    def __init__(self, configs: Mapping[str, str], reader: OffsetStorageReader,
                 transaction_context: TransactionContext | None, delegated: DelegatedDelivery | None) -> None:
        self._configs = configs
        self._reader = reader
        self._txn = transaction_context
        self._delegated = delegated

    @property
    def configs(self) -> Mapping[str, str]:
        return self._configs

    @property
    def offset_storage_reader(self) -> OffsetStorageReader:
        return self._reader

    @property
    def transaction_context(self) -> TransactionContext | None:
        return self._txn

    @property
    def delegated_delivery(self) -> DelegatedDelivery | None:
        return self._delegated


class TaskCancelled(Exception):
    """The task was stopped while starting up."""


class TaskRewind(Exception):
    """The open transaction was aborted, but the producer can go on (a lost sequence, whose abort bumped the
    producer's epoch): the loop restarts the plugin, as a new instance, from the last committed offsets,
    instead of failing the task. Its ``__cause__`` is the Kafka error."""


#: Rewinds in a row with no commit in between before the task fails (transient: the worker restarts it).
MAX_REWINDS = 3


def takes_schema(convert: Callable[..., Any]) -> bool:
    """Whether a converter method accepts the ``schema`` keyword (or any keyword); True when its
    signature cannot be read, as the converter API says it does."""
    try:
        parameters = inspect.signature(convert).parameters.values()
    except (TypeError, ValueError):
        return True
    for parameter in parameters:
        if parameter.kind is inspect.Parameter.VAR_KEYWORD:
            return True
        if parameter.name == "schema":
            return parameter.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    return False


@dataclass(frozen=True)
class TaskSetup:
    """Everything a task loop needs whatever its delivery guarantee (built by the worker)."""

    task_id: ConnectorTaskId
    task: SourceTask
    task_config: Mapping[str, str]
    key_converter: Converter
    value_converter: Converter
    transformations: Sequence[Transformation]
    producer: Producer
    offset_reader: OffsetStorageReader
    #: The connector's offsets (its own topic and/or the worker's); started and stopped by the task.
    offset_store: TaskOffsetStore
    status: TaskStatusListener
    initial_state: TargetState
    #: What the task may hand to processes that deliver its records outside the worker.
    delegated_delivery: DelegatedDelivery | None = None
    #: Makes sure each topic exists (or is created) before the task's first record to it; None: no check.
    topics: TaskTopics | None = None
    #: The connector's ``errors.*`` handling of failed transforms and conversions (None: fail the task).
    error_handler: RetryWithToleranceOperator | None = None
    #: Converts record header values (None: Kafka's default, ``SimpleHeaderConverter``).
    header_converter: HeaderConverter | None = None
    #: Called last on the task's thread, once the task's code is done (the worker stops redacting its secrets).
    on_closed: Callable[[WorkerSourceTask], None] | None = None
    #: Where the loop records its polls, batches and commits (None: nowhere).
    metrics: TaskMetrics | None = None


class WorkerSourceTask(ABC):
    """Runs one :class:`SourceTask` on its own thread until stopped or failed."""

    def __init__(self, setup: TaskSetup) -> None:
        task_id, task = setup.task_id, setup.task
        self.id = task_id
        self.task = task
        self.task_config = setup.task_config
        self._key_converter = setup.key_converter
        self._value_converter = setup.value_converter
        self._header_converter = setup.header_converter or SimpleHeaderConverter()
        # Converters written before records had schemas take no ``schema`` argument: they get none.
        self._key_takes_schema = takes_schema(self._key_converter.from_connect_data)
        self._value_takes_schema = takes_schema(self._value_converter.from_connect_data)
        self._header_takes_schema = takes_schema(self._header_converter.from_connect_header)
        for kind, converter, takes in (("key", self._key_converter, self._key_takes_schema),
                                       ("value", self._value_converter, self._value_takes_schema),
                                       ("header", self._header_converter, self._header_takes_schema)):
            if not takes:
                logger.info("Task %s: its %s converter %s takes no schema argument, so records' schemas are not "
                            "passed to it", self.id, kind, type(converter).__name__)
        self._transformations = tuple(setup.transformations)
        self._applies = tuple(t.apply for t in self._transformations)  # bound once, called per record
        self._error_handler = setup.error_handler or RetryWithToleranceOperator(setup.task_id)
        self._on_closed = setup.on_closed
        self.metrics = setup.metrics or NullTaskMetrics()
        self.producer = setup.producer
        self._offset_reader = setup.offset_reader
        self._offset_store = setup.offset_store
        self._status = setup.status
        self._delegated = setup.delegated_delivery
        self._target_state = setup.initial_state
        self._state_cv = threading.Condition()
        self._stopping = False
        # The plugin's start() returned: it gets stop() once, on this task's thread (see _stop_plugin).
        self._started = False
        self._rewinds = 0  # since the last transaction that committed
        self.failed = False
        self._thread = threading.Thread(target=self._run, name=f"task-{task_id}", daemon=True)
        self.pending_offsets: PendingOffsets = {}
        self._wants_metadata = type(task).commit_record is not SourceTask.commit_record
        # Records awaiting commit_record: (record, metadata slot) pairs, only when the plugin cares.
        self._uncommitted: list[tuple[SourceRecord, list[RecordMetadata | None]]] = []
        # Records of aborted transactions, with no metadata (a late delivery report must not give them
        # any): commit_record(record, None) at the next successful commit.
        self._aborted: list[tuple[SourceRecord, list[RecordMetadata | None]]] = []
        self._last_partition: Any = None
        self._last_partition_key = b""
        self._topics = setup.topics
        # Topics this task has written to (or checked): the only per-record cost of topic checks.
        self._known_topics: set[str] = set()
        # Active topics (KIP-558): the hot path only tests membership; a topic not in the view is
        # recorded once (the store adds it to the view). With tracking off, a private dict does the same.
        topics_view = setup.status.active_topics(task_id.connector)
        self._own_topics: dict[str, None] | None = None
        if topics_view is None:
            topics_view = self._own_topics = {}
        self._active_topics: Mapping[str, Any] = topics_view
        # Topics first written since the last commit: recorded as active only once a commit (or flush)
        # covering their records succeeded, as the reference records them on delivery.
        self._pending_topics: set[str] = set()

    # -- lifecycle driven by the worker ---------------------------------------------------------
    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        """Ask the task to stop; returns at once. The loop sees the request when the current ``poll``
        returns, makes its final commit and calls the plugin's ``stop`` on the task's thread: this
        method never calls into the plugin (a plugin's ``stop`` must not race with its ``poll``)."""
        with self._state_cv:
            self._stopping = True
            self._state_cv.notify_all()
        self._error_handler.trigger_stop()

    def join(self, timeout_s: float) -> bool:
        self._thread.join(timeout_s)
        return not self._thread.is_alive()

    def is_alive(self) -> bool:
        return self._thread.is_alive()

    def transition_to(self, state: TargetState) -> None:
        with self._state_cv:
            self._target_state = state
            self._state_cv.notify_all()

    def _paused(self) -> bool:
        return self._target_state is not TargetState.STARTED

    # -- the loop -------------------------------------------------------------------------------
    def _run(self) -> None:
        try:
            if not self._await_start():
                return
            self.prepare()
            if self._stopping:
                return
            self._start_plugin()
            self._status.on_startup(self.id)
            while True:
                try:
                    self._execute()
                    break
                except TaskRewind as rewind:
                    self._rewind(rewind)
            if not self.failed:
                self.final_commit()
        except TaskCancelled:
            pass
        except BaseException as e:
            if self._stopping:
                logger.warning("Task %s threw while stopping: %r", self.id, e)
                return
            self.failed = True
            transient = is_transient(e) and not isinstance(e, ToleranceExceeded)
            if transient:
                logger.error("Task %s failed on a transient error; it is being killed, and the worker restarts "
                             "it", self.id, exc_info=True)
            else:
                logger.error("Task %s threw an uncaught and unrecoverable exception; it is being killed "
                             "and will not recover until manually restarted", self.id, exc_info=True)
            # Fail with nothing left open, before FAILED is visible: an open transaction would hold back
            # the fencing and the offsets reads of the connector's other tasks until it timed out.
            try:
                self.abort_open_transaction()
            except Exception:
                logger.exception("Task %s failed to abort its open transaction", self.id)
            self._stop_plugin()  # as Java: the plugin is stopped before FAILED is reported
            self._status.on_failure(self.id, "".join(traceback.format_exception(e)), transient)
        finally:
            self._close()

    def _start_plugin(self) -> None:
        self.task.initialize(_TaskContext(self.task_config, self._offset_reader, self.transaction_context(),
                                          self._delegated))
        self.task.start(self.task_config)
        self._started = True

    def _rewind(self, rewind: TaskRewind) -> None:
        """Start over from the last committed offsets: the plugin instance that polled the aborted records is
        stopped and a new one started (its position is the committed offsets, as on any restart). Nothing
        since the last commit is reported to either instance: the new one polls those records again. The task
        stays RUNNING; after :data:`MAX_REWINDS` in a row with no commit, it fails instead."""
        self._rewinds += 1
        if self._stopping:
            # Stopped while aborting: no new instance to start only to stop it (no FAILED either, see _run).
            raise ConnectException(str(rewind)) from rewind.__cause__
        if self._rewinds > MAX_REWINDS:
            raise ConnectException(f"{rewind} ({MAX_REWINDS} times in a row)") from rewind.__cause__
        logger.warning("Task %s: %s. Its transaction was aborted; the task goes on from its last committed "
                       "offsets, with a new instance of %s", self.id, rewind, type(self.task).__name__)
        self._stop_plugin()
        self.pending_offsets.clear()
        self._pending_topics.clear()
        self._uncommitted, self._aborted = [], []
        self.rewound()
        self.task = type(self.task)()
        self._start_plugin()

    def _await_start(self) -> bool:
        """A task started paused (its connector was paused, then restarted) reports PAUSED and waits,
        as Java's does: nothing of the plugin or of the delivery guarantee (EOS fencing included) runs
        until it is resumed. False when it was stopped first."""
        with self._state_cv:
            if self._stopping or not self._paused():
                return not self._stopping
        self._status.on_pause(self.id)
        with self._state_cv:
            while self._paused() and not self._stopping:
                self._state_cv.wait(1.0)
            return not self._stopping

    def _execute(self) -> None:
        while True:
            if self._stopping:
                return
            if self._paused():
                self.before_pause()
                self.task.on_pause()
                self._status.on_pause(self.id)
                with self._state_cv:
                    while self._paused() and not self._stopping:
                        self._state_cv.wait(1.0)
                if self._stopping:
                    return
                self.task.on_resume()
                self._status.on_resume(self.id)
            polling = time.monotonic()
            try:
                records = self.task.poll()
            except RetriableException as e:
                logger.warning("Task %s failed to poll records (will retry): %s", self.id, e)
                continue
            sent = 0
            # As Java: a None poll records nothing, an empty batch is a batch of 0.
            batch = -1 if records is None else len(records)
            if batch >= 0:
                self.metrics.polled(batch, (time.monotonic() - polling) * 1000.0)
            if records:
                try:
                    sent = self._send_batch(records)
                except KafkaException as e:
                    failure = self.send_failed(e)
                    # Chained to what send_failed found behind ``e`` (why a failed producer refuses sends).
                    raise failure from failure.__cause__ or e
            # Free the batch before the next poll: the next batch then reuses its memory while it is still in
            # the CPU caches, rather than needing a second batch-sized working set (bench/README.md).
            records = None
            if batch >= 0:
                self.metrics.batch_done(batch, sent)
            self.batch_end(sent)

    def _send_batch(self, records: Sequence[SourceRecord]) -> int:
        """Convert and send ``records``; returns how many were sent (not dropped by a transform).

        Per-record decisions that repeat within a batch are made once per run of equal inputs: the
        topic checks once per topic object, the offsets key once per partition, and the key bytes
        once per key object when the key converter is a JsonConverter (a pure function of an
        immutable key). The connector-boundary hook may commit or abort between records, so after
        each call of it the topic checks are made again."""
        producer = self.producer
        produce = producer.produce
        key_conv = self._key_converter.from_connect_data
        value_conv = self._value_converter.from_connect_data
        key_takes_schema = self._key_takes_schema
        value_takes_schema = self._value_takes_schema
        pending = self.pending_offsets
        transforms = self._transformations
        wants_metadata = self._wants_metadata
        forbidden_topic = self.forbidden_topic()
        known_topics = self._known_topics
        active_topics = self._active_topics
        pending_topics = self._pending_topics
        # Record-level hook only when a subclass defines it (connector-defined boundaries).
        record_sent = self.on_record_sent if type(self).on_record_sent is not WorkerSourceTask.on_record_sent else None
        cache_keys = type(self._key_converter) is JsonConverter
        checked_topic: str | None = None  # the last topic object that passed the forbidden-topic test
        ready_topic: str | None = None  # the last topic object known to exist and be active or pending
        last_key: Any = _NO_KEY  # the last key object whose bytes are cached (only immutable ones)
        last_key_schema: Any = None  # and the schema it was converted with (schemas are immutable)
        last_key_bytes: bytes | None = None
        last_partition = self._last_partition
        last_partition_key = self._last_partition_key
        dropped = 0
        self.begin_batch()
        try:
            for rec in records:
                if transforms:
                    transformed = self._transform(rec)
                    if transformed is None:
                        # Dropped (or skipped after a tolerated error): its offset is not recorded, but it
                        # may still carry a transaction boundary request.
                        dropped += 1
                        self._dropped(rec, wants_metadata, record_sent)
                        ready_topic = None
                        continue
                else:
                    transformed = rec
                topic = transformed.topic
                if topic is not checked_topic:
                    if topic == forbidden_topic:
                        raise ConnectException(
                            "Source tasks may not produce to their own offsets topics when exactly-once support "
                            "is enabled")
                    checked_topic = topic
                # Headers first, as Java converts them (only records that carry some pay for it).
                rec_headers = transformed.headers
                if rec_headers:
                    try:
                        headers: list[tuple[str, str | bytes | None]] | None = self._convert_headers(
                            topic, rec_headers)
                    except Exception as e:
                        headers = self._error_handler.failed(
                            Stage.HEADER_CONVERTER, self._header_converter, self._convert_headers,
                            (topic, rec_headers), rec, e)
                        if headers is SKIP:
                            dropped += 1
                            self._dropped(rec, wants_metadata, record_sent)
                            ready_topic = None
                            continue
                else:
                    headers = None
                # Failures go to the error handler from the except clause only: no cost per good record.
                rec_key = transformed.key
                # A schema is passed only when there is one: converters without a schema argument keep working.
                key_schema = transformed.key_schema if key_takes_schema else None
                if rec_key is last_key and key_schema is last_key_schema:
                    key = last_key_bytes
                else:
                    try:
                        key = (key_conv(topic, rec_key) if key_schema is None
                               else key_conv(topic, rec_key, schema=key_schema))
                    except Exception as e:
                        key = self._error_handler.failed(
                            Stage.KEY_CONVERTER, self._key_converter,
                            key_conv if key_schema is None else partial(key_conv, schema=key_schema),
                            (topic, rec_key), rec, e)
                        if key is SKIP:
                            dropped += 1
                            self._dropped(rec, wants_metadata, record_sent)
                            ready_topic = None
                            continue
                    else:
                        if cache_keys and type(rec_key) in _IMMUTABLE_KEYS:
                            last_key, last_key_schema, last_key_bytes = rec_key, key_schema, key
                value_schema = transformed.value_schema if value_takes_schema else None
                try:
                    value = (value_conv(topic, transformed.value) if value_schema is None
                             else value_conv(topic, transformed.value, schema=value_schema))
                except Exception as e:
                    value = self._error_handler.failed(
                        Stage.VALUE_CONVERTER, self._value_converter,
                        value_conv if value_schema is None else partial(value_conv, schema=value_schema),
                        (topic, transformed.value), rec, e)
                    if value is SKIP:
                        dropped += 1
                        self._dropped(rec, wants_metadata, record_sent)
                        ready_topic = None
                        continue
                if topic is not ready_topic:
                    if topic not in known_topics:
                        self._first_record_to(topic)
                    if topic not in active_topics:
                        pending_topics.add(topic)
                    ready_topic = topic
                partition = transformed.kafka_partition
                if partition is None:
                    partition = -1
                timestamp = transformed.timestamp or 0
                try:
                    if wants_metadata:
                        slot: list[RecordMetadata | None] = [None]
                        self._uncommitted.append((rec, slot))
                        cb = _metadata_callback(slot)
                        produce(topic, value, key, partition, on_delivery=cb, timestamp=timestamp, headers=headers)
                    elif headers:
                        produce(topic, value, key, partition, timestamp=timestamp, headers=headers)
                    elif timestamp:
                        produce(topic, value, key, partition, timestamp=timestamp)
                    else:
                        produce(topic, value, key, partition)
                except BufferError:
                    self._produce_when_room(topic, value, key, partition, cb if wants_metadata else None,
                                            timestamp, headers)
                sp = rec.source_partition
                if sp is not None:
                    if sp is not last_partition and sp != last_partition:
                        last_partition = sp
                        last_partition_key = formats.offset_key(self.id.connector, sp)
                    pending[last_partition_key] = rec.source_offset
                if record_sent is not None:
                    record_sent(rec, False)
                    ready_topic = None
        finally:
            # Always a matching pair: the key was computed for that partition.
            self._last_partition = last_partition
            self._last_partition_key = last_partition_key
        producer.poll(0)
        return len(records) - dropped

    def _produce_when_room(self, topic: str, value: bytes | None, key: bytes | None, partition: int,
                           cb: Callable[[KafkaError | None, Message], None] | None, timestamp: int,
                           headers: list[tuple[str, str | bytes | None]] | None) -> None:
        """The producer's local queue is full: serve delivery reports and retry, as Java blocks on send."""
        while True:
            self.producer.poll(0.05)
            try:
                if cb is not None:
                    self.producer.produce(topic, value, key, partition, on_delivery=cb, timestamp=timestamp,
                                          headers=headers)
                elif headers:
                    self.producer.produce(topic, value, key, partition, timestamp=timestamp, headers=headers)
                elif timestamp:
                    self.producer.produce(topic, value, key, partition, timestamp=timestamp)
                else:
                    self.producer.produce(topic, value, key, partition)
                return
            except BufferError:
                continue

    def _convert_headers(self, topic: str, headers: Headers) -> list[tuple[str, str | bytes | None]]:
        """The record's headers with their values converted by the header converter."""
        convert = self._header_converter.from_connect_header
        converted: list[tuple[str, str | bytes | None]] = []
        takes_schema = self._header_takes_schema
        for header in headers:
            try:
                key, value = header
            except ValueError:
                raise DataException(f"A header is a (key, value) pair (Header(key, value, schema) gives it a schema), "
                                    f"not {header!r}") from None
            # A schema is passed only when there is one, and only to converters that take it.
            schema = header.schema if takes_schema and isinstance(header, Header) else None
            converted.append((key, convert(topic, key, value) if schema is None
                              else convert(topic, key, value, schema=schema)))
        return converted

    def _first_record_to(self, topic: str) -> None:
        """The task's first record to ``topic``: make sure the topic exists (KIP-158), once per task."""
        if self._topics is not None:
            self._topics.ensure(topic, self.producer)  # a failure aborts the transaction in _run
        self._known_topics.add(topic)

    def _dropped(self, rec: SourceRecord, wants_metadata: bool,
                 record_sent: Callable[[SourceRecord, bool], None] | None) -> None:
        """A record that is not sent: ``commit_record`` gets None metadata; boundaries still count it."""
        if wants_metadata:
            self._uncommitted.append((rec, [None]))
        if record_sent is not None:
            record_sent(rec, True)

    def _record_active_topics(self) -> None:
        """After a successful commit or flush: the topics first written since the previous one are
        active (once per topic; the store adds them to the view the send loop tests)."""
        own = self._own_topics
        for topic in self._pending_topics:
            if own is None:
                self._status.on_topic_used(self.id, topic)
            else:
                own[topic] = None
        self._pending_topics.clear()

    def _transform(self, rec: SourceRecord) -> SourceRecord | None:
        current = rec
        for i, apply in enumerate(self._applies):
            try:
                result = apply(current)
            except Exception as e:
                stage = self._transformations[i]
                plugin = getattr(stage, "transformation", stage)  # the transform inside a predicated one
                result = self._error_handler.failed(Stage.TRANSFORMATION, plugin, apply, (current,), rec, e)
                if result is SKIP:
                    return None
            if result is None:
                return None
            current = result
        return current

    def report_committed(self) -> None:
        """After a successful commit: ``commit_record`` for every buffered record, then ``commit``."""
        if self._pending_topics:
            self._record_active_topics()
        if self._aborted or self._uncommitted:
            done = self._aborted + self._uncommitted
            self._aborted, self._uncommitted = [], []
            for rec, slot in done:
                try:
                    self.task.commit_record(rec, slot[0])
                except Exception:
                    logger.exception("Task %s threw in commit_record", self.id)
        try:
            self.task.commit()
        except Exception:
            logger.exception("Task %s threw in commit", self.id)

    def _stop_plugin(self) -> None:
        """The plugin's ``stop``: once, on this thread, and only if its ``start`` returned (a task that
        failed in ``start`` releases what it took itself)."""
        if not self._started:
            return
        self._started = False
        try:
            self.task.stop()
        except Exception:
            logger.exception("Task %s threw while being stopped", self.id)

    def _close(self) -> None:
        self._stop_plugin()  # first, as Java does: while the producer and offset store are still open
        try:
            self.close_resources()
        except Exception:
            logger.exception("Task %s failed to release its resources", self.id)
        for transformation in self._transformations:
            try:
                transformation.close()  # a predicated one closes its predicate too
            except Exception:
                logger.exception("Task %s failed to close transformation %r", self.id, transformation)
        try:
            self._offset_store.stop()
        except Exception:
            logger.exception("Task %s failed to stop its offset store", self.id)
        if not self.failed:
            self._status.on_shutdown(self.id)
        if self._on_closed is not None:
            self._on_closed(self)

    # -- hooks for the delivery guarantee -------------------------------------------------------
    def prepare(self) -> None:
        """Start-up work before the plugin's ``start`` (EOS: fencing, init transactions, re-checks)."""

    def transaction_context(self) -> TransactionContext | None:
        return None

    def forbidden_topic(self) -> str | None:
        return None

    def begin_batch(self) -> None:
        """Called before the records of a poll are sent."""

    def abort_open_transaction(self) -> None:
        """The task is about to fail: abort its open transaction, if it has one, so it fails clean."""

    def send_failed(self, error: KafkaException) -> Exception:
        """The producer refused a record: the error that fails the task."""
        return ConnectException(f"Unrecoverable exception trying to send records of task {self.id}: {error}")

    def on_record_sent(self, record: SourceRecord, dropped: bool) -> None:
        """Called after each record was handed to the producer, or dropped by a transform (record-level
        boundaries); only called at all when a subclass overrides it."""

    def rewound(self) -> None:
        """The loop is about to start a new plugin instance after a :class:`TaskRewind`: forget the aborted
        transaction's state, and have the committed offsets ready for the new instance to read."""

    def abandon_uncommitted(self) -> None:
        """The records sent so far will never be committed (aborted transaction): their
        ``commit_record`` gets None metadata, and the topics only they wrote to are not active."""
        self._pending_topics.clear()
        if self._uncommitted:
            self._aborted.extend((rec, [None]) for rec, _ in self._uncommitted)
            self._uncommitted = []

    @abstractmethod
    def batch_end(self, sent: int) -> None:
        """Called after every poll: commit if the delivery policy says so."""

    @abstractmethod
    def before_pause(self) -> None:
        """Commit what is pending before pausing."""

    @abstractmethod
    def final_commit(self) -> None:
        """The last commit of a task that stops cleanly."""

    @abstractmethod
    def close_resources(self) -> None:
        """Close producers etc."""


def _metadata_callback(slot: list[RecordMetadata | None]) -> Callable[[KafkaError | None, Message], None]:
    def on_delivery(err: KafkaError | None, msg: Message) -> None:
        if err is None:
            ts = msg.timestamp()
            slot[0] = RecordMetadata(msg.topic() or "", msg.partition() or 0, msg.offset() or 0,
                                     ts[1] if ts[0] else None)

    return on_delivery


def monotonic_ms() -> float:
    return time.monotonic() * 1000.0
