"""A compacted Kafka topic read from the beginning into memory, with read-to-end barriers.

The config, offsets and status stores are all built on this. ``read_to_end()`` is the consistency
primitive of the whole runtime: it takes the log-end offsets *including open transactions*
(``READ_UNCOMMITTED`` list-offsets) and completes only when the ``read_committed`` consumer's position
has reached them, so it waits for in-flight transactions on the topic to finish (docs/architecture.md,
"One worker process").
"""

from __future__ import annotations

import functools
import logging
import threading
import time
import uuid
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from typing import Any, TypeVar, cast

from confluent_kafka import Consumer, IsolationLevel, KafkaError, KafkaException, Message, TopicPartition
from confluent_kafka.admin import AdminClient, OffsetSpec

from connect_runtime.api.kafka_clients import kafka_error
from connect_runtime.clients import ErrorKind, classify_error, client_config
from connect_runtime.logging_util import RateLimitedLogger

logger = logging.getLogger(__name__)

T = TypeVar("T")

#: Called on the reader thread for every record, in offset order per partition.
ConsumeCallback = Callable[[Message], None]
#: Called once, on the reader thread, when the reader stops on an error retrying cannot fix:
#: ``(topic, one-line reason)``. The worker shuts down (it can no longer see the cluster's state).
FatalCallback = Callable[[str, str], None]

_POLL_BATCH = 1000
#: How long the reader blocks when nothing is there to read; also how late, at worst, it starts
#: serving a new ``read_to_end()`` request (librdkafka gives no way to interrupt a blocked poll).
_POLL_TIMEOUT_S = 0.02
_SLOW_REPORT_S = 10.0
_BACKOFF_INITIAL_S = 0.1
_IDLE_PROBE_S = 30.0
_BACKOFF_MAX_S = 10.0
#: A list-offsets answer this late is asked for again (then after twice as long, ...), at most
#: ``_END_OFFSETS_MAX_SENDS`` requests in all: see ``_EndOffsetsRequest``.
_END_OFFSETS_RESEND_S = 2.0
_END_OFFSETS_MAX_SENDS = 4
#: The request timeout of the first request: the whole request fails then, and the reader asks anew.
_END_OFFSETS_DEADLINE_S = 30.0
#: How long reading must fail, and a broker that answers then say the topic does not exist, before
#: the reader gives up: a restarting broker or one still loading metadata may briefly not know it.
MISSING_TOPIC_GRACE_S = 30.0


def _fetch(consumer: Consumer) -> list[Message]:
    msgs: list[Message] = consumer.consume(_POLL_BATCH, 0)
    if not msgs:
        msg = consumer.poll(_POLL_TIMEOUT_S)
        msgs = [msg] if msg is not None else []
    return msgs


class _FatalReaderError(Exception):
    def __init__(self, step: str, error: BaseException | KafkaError) -> None:
        super().__init__(f"{step}: {error}")
        self.step = step
        self.error = error


class _EndOffsetsRequest:
    """The log-end offsets of a reader's partitions, asked again while an answer is late.

    librdkafka sends list-offsets to the leader it has cached and, when that broker was killed, waits
    the whole request timeout for it, while its successor is elected within seconds: a late partition
    is asked again (after a metadata refresh) at growing intervals, and the first answer for each
    partition counts. A partition fails once every request for it has failed, or when none has answered
    within ``_END_OFFSETS_DEADLINE_S`` of the first (the reader then starts over at once: its successor
    may be known by then, where waiting for the last request's own timeout would take longer).
    """

    def __init__(self, send: Callable[[list[TopicPartition]], Mapping[TopicPartition, Future[Any]]],
                 partitions: list[TopicPartition]) -> None:
        self._send = send
        self._answers: dict[TopicPartition, list[Future[Any]]] = {tp: [] for tp in partitions}
        self._sends = 0
        self._resend_at = 0.0
        self._deadline = time.monotonic() + _END_OFFSETS_DEADLINE_S
        self._ask(partitions)

    def _ask(self, partitions: list[TopicPartition]) -> None:
        # Counted before sending: a send that raises must not be retried at once, again and again.
        self._sends += 1
        self._resend_at = time.monotonic() + _END_OFFSETS_RESEND_S * 2 ** (self._sends - 1)
        for tp, future in self._send(partitions).items():
            self._answers[tp].append(future)

    def late(self) -> bool:
        """Whether some partition is still unanswered past its wait and may be asked again."""
        return self._sends < _END_OFFSETS_MAX_SENDS and time.monotonic() >= self._resend_at \
            and bool(self._pending())

    def resend(self) -> None:
        """Ask again for the partitions still unanswered."""
        self._ask(self._pending())

    def _pending(self) -> list[TopicPartition]:
        return [tp for tp, futures in self._answers.items() if not any(_answered(f) for f in futures)]

    def offsets(self) -> dict[int, int] | None:
        """The offsets once every partition is answered, None while some wait; raises the error of a
        partition whose every request failed."""
        offsets = {}
        for tp, futures in self._answers.items():
            # One look at each future: the client completes them on its own thread, so one that was
            # pending when asked for an answer may be done (answered) when asked whether it is done.
            done = [f for f in futures if f.done()]
            answer = next((f for f in done if f.exception() is None), None)
            if answer is not None:
                offsets[tp.partition] = answer.result().offset
            elif done and len(done) == len(futures):
                raise cast(BaseException, done[-1].exception())  # every request for it failed
            elif time.monotonic() >= self._deadline:
                raise TimeoutError(f"no end offset of {tp.topic}-{tp.partition} within {_END_OFFSETS_DEADLINE_S:g} s")
            else:
                return None
        return offsets


def _answered(future: Future[Any]) -> bool:
    return future.done() and future.exception() is None


def _describe(error: BaseException | KafkaError) -> str:
    if isinstance(error, KafkaError):
        return f"{error.name()}: {error.str()}"
    err = kafka_error(error)
    if err is not None:
        return _describe(err)
    return f"{type(error).__name__}: {error}" if str(error) else type(error).__name__


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
        on_fatal: FatalCallback | None = None,
        missing_topic_grace_s: float | None = None,
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
        self._on_fatal = on_fatal
        self._missing_topic_grace_s = MISSING_TOPIC_GRACE_S if missing_topic_grace_s is None else missing_topic_grace_s
        # Retry state of the reader thread (only it touches these).
        self._failures = 0
        self._retry_at = 0.0
        self._failing_since: float | None = None
        self._next_gone_check = 0.0
        self._log_retry = RateLimitedLogger(logger)

    def start(self, timeout_s: float = 60.0, read_to_end: bool = True) -> None:
        """Assign all partitions from the beginning and start reading; with ``read_to_end`` also wait
        until the current end is reached.

        Logs written transactionally pass ``read_to_end=False`` at worker start-up: a crashed writer's
        open transaction would block the read until it times out, and it is the writer's successor
        (``init_transactions``) that aborts it, so the successor must be allowed to start first.
        """
        consumer = Consumer(client_config(self._consumer_config))
        # A topic just created (by this worker or a peer starting with it) is known to the broker that
        # created it before every other broker's metadata cache has it, and this consumer may ask another
        # one: a missing topic is looked for again until the grace for a missing topic has passed.
        deadline = time.monotonic() + min(timeout_s, self._missing_topic_grace_s)
        try:
            while True:
                tmd = consumer.list_topics(self.topic, timeout=timeout_s).topics.get(self.topic)
                if tmd is not None and tmd.error is None and tmd.partitions:
                    break
                if time.monotonic() >= deadline:
                    raise KafkaException(f"Topic {self.topic} has no partitions or does not exist")
                if self._stopping.wait(0.2):
                    raise KafkaException(f"Log for topic {self.topic} stopped while it was looked for")
        except BaseException:
            consumer.close()
            raise
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

    def _request_end_offsets(self, partitions: list[TopicPartition]) -> dict[TopicPartition, Future[Any]]:
        """Ask for the log-end offsets without waiting: the reader keeps consuming meanwhile (a broker
        that is down makes the answer take up to the request timeout)."""
        request = {tp: OffsetSpec.latest() for tp in partitions}
        futures: dict[TopicPartition, Future[Any]] = self._admin.list_offsets(
            request, isolation_level=IsolationLevel.READ_UNCOMMITTED, request_timeout=30)
        return futures

    def _resend_end_offsets(self, request: _EndOffsetsRequest) -> None:
        self._refresh_metadata()
        request.resend()

    def _run(self) -> None:
        consumer = self._consumer
        assert consumer is not None
        waiting: list[Future[None]] = []
        targets: dict[int, int] | None = None
        request: _EndOffsetsRequest | None = None
        next_report = 0.0
        try:
            next_probe = time.monotonic() + _IDLE_PROBE_S
            while not self._stopping.is_set():
                if not waiting:
                    with self._lock:
                        waiting, self._pending = self._pending, []
                    if not waiting and time.monotonic() >= next_probe:
                        # Nobody asked for a while: read to the end anyway, so that a topic deleted
                        # under an idle reader (or one it cannot reach) is noticed, not waited on.
                        waiting = [Future()]
                    if waiting:
                        next_probe = time.monotonic() + _IDLE_PROBE_S
                if waiting and targets is None:
                    if request is None and time.monotonic() >= self._retry_at:
                        request = self._attempt("list its end offsets", functools.partial(
                            _EndOffsetsRequest, self._request_end_offsets, self._partitions))
                    if request is not None and request.late():
                        self._attempt("list its end offsets", functools.partial(self._resend_end_offsets, request))
                    if request is not None:
                        try:
                            targets = request.offsets()
                        except Exception as e:
                            request = None
                            self._on_error(e, "list its end offsets")
                            self._refresh_metadata()
                        if targets is not None:
                            request = None
                            next_report = time.monotonic() + _SLOW_REPORT_S
                # consume() waits its whole timeout to fill a batch even when records are there, which
                # made every read_to_end() take ~0.2 s; take what was fetched, else wait for one record.
                msgs = self._attempt("consume", functools.partial(_fetch, consumer))
                if msgs is None:
                    self._stopping.wait(min(_POLL_TIMEOUT_S, max(0.0, self._retry_at - time.monotonic())))
                    continue
                records = 0
                for msg in msgs:
                    err = msg.error()
                    if err is not None:
                        self._on_error(err, "consume")
                        continue
                    records += 1
                    self._on_record(msg)
                if records and self._failures:
                    self._succeeded()
                if waiting and targets is not None:
                    reached = self._attempt("check its position", functools.partial(self._reached, consumer, targets))
                    if reached:
                        self._succeeded()
                        for fut in waiting:
                            if not fut.done():
                                fut.set_result(None)
                        waiting, targets = [], None
                    elif reached is not None and time.monotonic() >= next_report:
                        next_report = time.monotonic() + _SLOW_REPORT_S
                        self._attempt("check its position", functools.partial(self._report_slow, consumer, targets))
        except BaseException as e:
            self._fail(e, waiting)
        finally:
            consumer.close()

    # -- errors ---------------------------------------------------------------------------------
    # Transient errors (a broker restarting or unreachable, leaders moving) are retried with a backoff
    # of 100 ms doubling to 10 s, for as long as they last: pending read_to_end futures stay pending
    # (their callers have their own timeouts) and complete once the broker is back, as the reference's
    # KafkaBasedLog retries. Only errors retrying cannot fix end the reader, and then the worker.

    def _attempt(self, step: str, fn: Callable[[], T]) -> T | None:
        """``fn()``, or None after a transient error (logged, backoff scheduled); fatal ones raise."""
        try:
            return fn()
        except Exception as e:
            self._on_error(e, step)
            return None

    def _on_error(self, error: BaseException | KafkaError, step: str) -> None:
        kind = classify_error(error)
        if kind is ErrorKind.FATAL:
            raise _FatalReaderError(step, error)
        now = time.monotonic()
        # A deleted topic looks like a restarting broker (UNKNOWN_TOPIC_OR_PART, or "No leaders found"
        # once the metadata says it has no partitions): only a broker that answers, for a while, that
        # the topic does not exist makes it final.
        if self._failing_since is None:
            self._failing_since = now
        if now - self._failing_since >= self._missing_topic_grace_s and now >= self._next_gone_check:
            self._next_gone_check = now + _BACKOFF_MAX_S
            gone = self._topic_is_gone()
            if gone is not None:
                raise _FatalReaderError("find its topic", gone)
        self._failures += 1
        delay = min(_BACKOFF_MAX_S, _BACKOFF_INITIAL_S * 2 ** min(self._failures - 1, 16))
        self._retry_at = max(self._retry_at, now + delay)
        self._log_retry.warning("Reader of topic %s could not %s, retrying (up to every %g s) until it "
                                "can: %s", self.topic, step, _BACKOFF_MAX_S, _describe(error),
                                key=("retry", step))

    def _succeeded(self) -> None:
        """A read to the end completed: the topic is reachable; errors from here on are news again."""
        if self._failures:
            logger.info("Reader of topic %s is reading again after %d failed attempt(s)", self.topic,
                        self._failures)
            for step in ("list its end offsets", "consume", "check its position"):
                self._log_retry.reset(logging.WARNING, "", key=("retry", step))
        self._failures = 0
        self._retry_at = 0.0
        self._failing_since = None

    def _refresh_metadata(self) -> None:
        """Re-read the topic's metadata into the admin client after list-offsets failed.

        The admin client sends the partition leader epochs it has cached; after a broker restart
        they are older than the broker's, every request is refused with FENCED_LEADER_EPOCH, and
        nothing else in the admin client refreshes them: without this a reader waits forever."""
        try:
            self._admin.list_topics(self.topic, timeout=2)
        except Exception as e:  # the broker is still away: the next attempt refreshes again
            logger.debug("Metadata refresh of %s failed: %s", self.topic, e)

    def _topic_is_gone(self) -> KafkaError | None:
        """The error of a broker answering that the topic does not exist (not merely: no broker
        answers), or None."""
        try:
            md = self._admin.list_topics(self.topic, timeout=5)
        except Exception:
            return None
        tmd = md.topics.get(self.topic)
        if tmd is None:
            return KafkaError(KafkaError.UNKNOWN_TOPIC_OR_PART)
        if tmd.error is not None and classify_error(tmd.error) is ErrorKind.MISSING:
            return tmd.error
        if tmd.error is None and not tmd.partitions:
            return KafkaError(KafkaError.UNKNOWN_TOPIC_OR_PART)
        return None

    def _fail(self, error: BaseException, waiting: list[Future[None]]) -> None:
        cause = error.error if isinstance(error, _FatalReaderError) else error
        step = error.step if isinstance(error, _FatalReaderError) else "read"
        reason = f"Reader of topic {self.topic} failed to {step}: {_describe(cause)}"
        exc = cause if isinstance(cause, BaseException) else KafkaException(cause)
        with self._lock:
            self._failure = exc
            waiting += self._pending
            self._pending = []
        for fut in waiting:
            if not fut.done():
                fut.set_exception(exc)
        if self._stopping.is_set():
            return
        if self._on_fatal is not None:
            self._on_fatal(self.topic, reason)
        elif isinstance(cause, KafkaError | KafkaException):
            logger.error("%s; the reader stopped", reason)
        else:
            logger.error("%s; the reader stopped", reason, exc_info=exc)

    def _report_slow(self, consumer: Consumer, targets: dict[int, int]) -> None:
        positions = consumer.position([TopicPartition(self.topic, p) for p in targets])
        behind = {tp.partition: (tp.offset, targets[tp.partition]) for tp in positions
                  if targets[tp.partition] > 0 and tp.offset < targets[tp.partition]}
        logger.warning("Reading %s to its end is taking long; (position, end) of the partitions behind: %s. "
                       "An open transaction on the topic holds read_committed readers back until it ends; one "
                       "still open after the brokers' transaction.max.timeout.ms is hanging (kafka-transactions.sh "
                       "find-hanging, then abort).",
                       self.topic, behind)

    def _reached(self, consumer: Consumer, targets: dict[int, int]) -> bool:
        positions = consumer.position([TopicPartition(self.topic, p) for p in targets])
        for tp in positions:
            end = targets[tp.partition]
            # A negative position means nothing was fetched yet; only fine for an empty partition.
            if end > 0 and tp.offset < end:
                return False
        return True
