"""A compacted Kafka topic read from the beginning into memory, with read-to-end barriers.

The config, offsets and status stores are all built on this. ``read_to_end()`` is the consistency
primitive of the whole runtime: it takes the log-end offsets *including open transactions*
(``READ_UNCOMMITTED`` list-offsets) and completes only when the ``read_committed`` consumer's position
has reached them, so it waits for in-flight transactions on the topic to finish (reference §4).
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from typing import Any

from confluent_kafka import Consumer, IsolationLevel, KafkaException, Message, TopicPartition
from confluent_kafka.admin import AdminClient, OffsetSpec

from connect_runtime.clients import client_config

logger = logging.getLogger(__name__)

#: Called on the reader thread for every record, in offset order per partition.
ConsumeCallback = Callable[[Message], None]

_POLL_BATCH = 1000
#: How long the reader blocks when nothing is there to read; also how late, at worst, it starts
#: serving a new ``read_to_end()`` request (librdkafka gives no way to interrupt a blocked poll).
_POLL_TIMEOUT_S = 0.02
_SLOW_REPORT_S = 10.0


class KafkaBasedLog:
    """Reads every partition of ``topic`` from offset 0 on a background thread.

    Records are handed to ``on_record`` on that thread. Writes go through whatever producer the owner
    chooses (a store may write transactionally), so this class only reads.
    """

    def __init__(
        self,
        topic: str,
        consumer_config: Mapping[str, Any],
        admin: AdminClient,
        on_record: ConsumeCallback,
        *,
        name: str | None = None,
    ) -> None:
        self.topic = topic
        self._admin = admin
        self._on_record = on_record
        conf: dict[str, Any] = dict(consumer_config)
        conf.setdefault("group.id", f"connect-log-reader-{uuid.uuid4()}")
        conf["enable.auto.commit"] = False
        conf["enable.auto.offset.store"] = False
        conf["isolation.level"] = "read_committed"
        conf["auto.offset.reset"] = "earliest"
        self._consumer_config = conf
        self._consumer: Consumer | None = None
        self._partitions: list[TopicPartition] = []
        self._lock = threading.Lock()
        self._pending: list[Future[None]] = []
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name=name or f"kafka-log-{topic}", daemon=True)
        self._failure: BaseException | None = None

    def start(self, timeout_s: float = 60.0, read_to_end: bool = True) -> None:
        """Assign all partitions from the beginning and start reading; with ``read_to_end`` also wait
        until the current end is reached.

        Logs written transactionally pass ``read_to_end=False`` at worker start-up: a crashed writer's
        open transaction would block the read until it times out, and it is the writer's successor
        (``init_transactions``) that aborts it, so the successor must be allowed to start first.
        """
        consumer = Consumer(client_config(self._consumer_config))
        md = consumer.list_topics(self.topic, timeout=timeout_s)
        tmd = md.topics.get(self.topic)
        if tmd is None or tmd.error is not None or not tmd.partitions:
            consumer.close()
            raise KafkaException(f"Topic {self.topic} has no partitions or does not exist")
        self._partitions = [TopicPartition(self.topic, p) for p in sorted(tmd.partitions)]
        consumer.assign([TopicPartition(self.topic, p, 0) for p in sorted(tmd.partitions)])
        self._consumer = consumer
        self._thread.start()
        if read_to_end:
            self.read_to_end().result(timeout=timeout_s)

    def read_to_end(self) -> Future[None]:
        """A future that completes once every record written before this call has been consumed."""
        fut: Future[None] = Future()
        with self._lock:
            if self._failure is not None:
                fut.set_exception(self._failure)
                return fut
            self._pending.append(fut)
        return fut

    def stop(self, timeout_s: float = 10.0) -> None:
        """Stop the reader thread and close the consumer."""
        self._stopping.set()
        if self._thread.is_alive():
            self._thread.join(timeout_s)
        with self._lock:
            pending, self._pending = self._pending, []
        for fut in pending:
            if not fut.done():
                fut.set_exception(RuntimeError(f"Log for topic {self.topic} stopped"))

    def _end_offsets(self) -> dict[int, int]:
        request = {tp: OffsetSpec.latest() for tp in self._partitions}
        futures = self._admin.list_offsets(request, isolation_level=IsolationLevel.READ_UNCOMMITTED,
                                           request_timeout=30)
        return {tp.partition: f.result().offset for tp, f in futures.items()}

    def _run(self) -> None:
        consumer = self._consumer
        assert consumer is not None
        waiting: list[Future[None]] = []
        targets: dict[int, int] | None = None
        next_report = 0.0
        try:
            while not self._stopping.is_set():
                if not waiting:
                    with self._lock:
                        waiting, self._pending = self._pending, []
                    if waiting:
                        targets = self._end_offsets()
                        next_report = time.monotonic() + _SLOW_REPORT_S
                # consume() waits its whole timeout to fill a batch even when records are there, which
                # made every read_to_end() take ~0.2 s; take what was fetched, else wait for one record.
                msgs = consumer.consume(_POLL_BATCH, 0)
                if not msgs:
                    msg = consumer.poll(_POLL_TIMEOUT_S)
                    msgs = [msg] if msg is not None else []
                for msg in msgs:
                    err = msg.error()
                    if err is not None:
                        if err.fatal():
                            raise KafkaException(err)
                        continue
                    self._on_record(msg)
                if waiting and targets is not None:
                    if self._reached(consumer, targets):
                        for fut in waiting:
                            if not fut.done():
                                fut.set_result(None)
                        waiting, targets = [], None
                    elif time.monotonic() >= next_report:
                        next_report = time.monotonic() + _SLOW_REPORT_S
                        self._report_slow(consumer, targets)
        except BaseException as e:
            logger.exception("Reader of topic %s failed", self.topic)
            with self._lock:
                self._failure = e
                waiting += self._pending
                self._pending = []
            for fut in waiting:
                if not fut.done():
                    fut.set_exception(e)
        finally:
            consumer.close()

    def _report_slow(self, consumer: Consumer, targets: dict[int, int]) -> None:
        positions = consumer.position([TopicPartition(self.topic, p) for p in targets])
        behind = {tp.partition: (tp.offset, targets[tp.partition]) for tp in positions
                  if targets[tp.partition] > 0 and tp.offset < targets[tp.partition]}
        logger.warning("Reading %s to its end is taking long; (position, end) of the partitions behind: %s. "
                       "An open transaction on the topic holds read_committed readers back until it ends.",
                       self.topic, behind)

    def _reached(self, consumer: Consumer, targets: dict[int, int]) -> bool:
        positions = consumer.position([TopicPartition(self.topic, p) for p in targets])
        for tp in positions:
            end = targets[tp.partition]
            # A negative position means nothing was fetched yet; only fine for an empty partition.
            if end > 0 and tp.offset < end:
                return False
        return True
