"""Helpers for plugins that run Kafka clients of their own, as a delegated deliverer does.

A :class:`~connect_runtime.api.DelegatedDelivery` deliverer opens its own transactional producer;
these are the runtime's own answers to what such a producer meets: the partitioner that places keys
where a Java producer puts them, ``init_transactions`` and ``commit_transaction`` as the runtime calls
them, and which Kafka errors mean "Kafka is unavailable or moving right now".
"""

from __future__ import annotations

import contextlib
import time

from confluent_kafka import KafkaError, KafkaException, Producer

__all__ = [
    "COMMIT_SLICE_S",
    "JAVA_COMPATIBLE_PARTITIONER",
    "commit_transaction",
    "init_transactions",
    "is_transient_code",
    "kafka_error",
]

#: librdkafka's name for the Java producer's default partitioner (murmur2 of the key; keyless records
#: spread at random). librdkafka's own default, ``consistent_random``, hashes with CRC32 instead.
JAVA_COMPATIBLE_PARTITIONER = "murmur2_random"


#: How long one ``commit_transaction`` call may take before it is called again (see below).
COMMIT_SLICE_S = 1.0


def init_transactions(producer: Producer, timeout_s: float) -> None:
    """``producer.init_transactions(timeout_s)``, once the producer has a broker connection.

    A new producer connects to no broker until it needs one. When ``init_transactions`` is called
    before a connection is up, librdkafka cannot look up the transaction coordinator and tries again
    only on its own timer, 500 ms later: one init in three took 0.5 s instead of 55 ms on a local
    broker, which is most of a planned handoff. A metadata request first brings a connection up (an
    error is left to ``init_transactions`` to report).
    """
    deadline = time.monotonic() + timeout_s
    with contextlib.suppress(KafkaException):
        # At most a second (or half the time given): a connection takes milliseconds, and the caller's
        # timeout is for the whole call.
        producer.list_topics(timeout=min(1.0, timeout_s / 2))
    producer.init_transactions(max(deadline - time.monotonic(), 0.1))


def commit_transaction(producer: Producer, timeout_s: float) -> None:
    """``producer.commit_transaction`` within ``timeout_s``, called in short slices.

    librdkafka flushes before it commits, and a transaction that already failed (a record the broker
    refused, say) keeps its queued records unsent, so one long call only times out, retriable, after
    the whole timeout, while its open transaction holds every ``read_committed`` reader back. A
    retry resumes the commit and reports the real, abortable error at once.
    """
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            producer.commit_transaction(min(COMMIT_SLICE_S, max(deadline - time.monotonic(), 0.1)))
            return
        except KafkaException as e:
            err = kafka_error(e)
            if err is None or not err.retriable() or time.monotonic() >= deadline:
                raise


#: Errors that mean "Kafka is unreachable or moving right now", not "this cannot work": a broker restart,
#: a leader election, a coordinator moving.
_TRANSIENT_CODES = frozenset({
    KafkaError._TRANSPORT, KafkaError._ALL_BROKERS_DOWN, KafkaError._TIMED_OUT, KafkaError._MSG_TIMED_OUT,
    KafkaError._TIMED_OUT_QUEUE, KafkaError._WAIT_COORD, KafkaError._NOENT, KafkaError._RESOLVE,
    KafkaError.REQUEST_TIMED_OUT, KafkaError.NETWORK_EXCEPTION, KafkaError.NOT_COORDINATOR,
    KafkaError.COORDINATOR_NOT_AVAILABLE, KafkaError.COORDINATOR_LOAD_IN_PROGRESS,
    KafkaError.LEADER_NOT_AVAILABLE, KafkaError.NOT_LEADER_FOR_PARTITION, KafkaError.CONCURRENT_TRANSACTIONS,
    KafkaError.NOT_ENOUGH_REPLICAS, KafkaError.NOT_ENOUGH_REPLICAS_AFTER_APPEND,
})
def is_transient_code(code: int) -> bool:
    """Whether a Kafka client error code means Kafka is unavailable or moving right now."""
    return code in _TRANSIENT_CODES


def kafka_error(exc: BaseException) -> KafkaError | None:
    """The :class:`KafkaError` an exception carries, if any."""
    if isinstance(exc, KafkaError):
        return exc
    if isinstance(exc, KafkaException) and exc.args and isinstance(exc.args[0], KafkaError):
        return exc.args[0]
    return None
