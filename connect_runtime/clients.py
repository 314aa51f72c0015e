"""Settings every Kafka client of the runtime shares."""

from __future__ import annotations

import concurrent.futures
import enum
import logging
from collections.abc import Mapping
from typing import Any

from confluent_kafka import KafkaError

from connect_runtime.api.errors import RetriableException
from connect_runtime.api.kafka_clients import JAVA_COMPATIBLE_PARTITIONER, is_transient_code, kafka_error
from connect_runtime.logging_util import RateLimitFilter, kafka_client_key

#: librdkafka's own log lines are routed here (instead of raw stderr), so ``/admin/loggers`` and the
#: worker's logging configuration govern them like every other runtime logger. While a broker is
#: unreachable every client of the worker reports the same failure over and over: repeats are
#: rate-limited (first occurrence, then one line per 30 s with a count).
KAFKA_CLIENT_LOGGER = logging.getLogger("connect_runtime.kafka_client")
KAFKA_CLIENT_LOGGER.addFilter(RateLimitFilter(key=kafka_client_key))


def client_config(conf: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of ``conf`` with the runtime's shared client settings added."""
    out = dict(conf)
    out.setdefault("logger", KAFKA_CLIENT_LOGGER)
    return out


def producer_config(conf: Mapping[str, Any]) -> dict[str, Any]:
    """:func:`client_config` for a producer: keyed records land where a Java producer puts them.

    The offsets, status and config topics are shared with Java workers and tools, and compaction and
    per-partition reads rely on every writer putting a key in the same partition; data topics keyed
    by a connector should too, so that Java consumers and Streams apps co-partition with them. A
    ``partitioner`` the operator configured (``producer.*`` worker keys, ``producer.override.*``
    connector keys) is kept.
    """
    out = client_config(conf)
    out.setdefault("partitioner", JAVA_COMPATIBLE_PARTITIONER)
    return out


_FATAL_CODES = frozenset({KafkaError._FENCED, KafkaError.PRODUCER_FENCED, KafkaError.INVALID_PRODUCER_EPOCH,
                          KafkaError.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, KafkaError.TOPIC_AUTHORIZATION_FAILED,
                          KafkaError.CLUSTER_AUTHORIZATION_FAILED})


#: The broker lost track of a producer's sequence numbers (a partition leader moved, in a broker
#: restart, while batches were in flight): librdkafka fails the transaction, or the producer instance.
#: A new instance of the task starts clean: a new producer, whose ``init_transactions`` aborts what
#: the old one left open, and the records again from the last committed offsets.
LOST_SEQUENCE_CODES = frozenset({KafkaError.OUT_OF_ORDER_SEQUENCE_NUMBER, KafkaError.UNKNOWN_PRODUCER_ID})


def is_transient(error: BaseException) -> bool:
    """Whether ``error`` (or what caused it) says Kafka was unavailable, so trying again later may work:
    a Kafka client error of that kind, a producer whose sequence the broker lost in a leader move, or a
    :class:`RetriableException` (which the runtime raises when, say, reading a topic to its end timed
    out, and a plugin may raise from ``start``).

    A fenced producer, an authorization failure or any other exception is not transient; nor is any
    other fatal client error, unless the chain holds a lost sequence (librdkafka makes a producer
    instance fatal for that, and reports ``_FATAL`` on its sends).
    """
    seen: set[int] = set()
    current: BaseException | None = error
    transient = lost_sequence = fatal = False
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        err = kafka_error(current)
        if err is not None:
            if err.code() in _FATAL_CODES:
                return False
            if err.code() in LOST_SEQUENCE_CODES:
                lost_sequence = True
            elif err.fatal() or err.code() == KafkaError._FATAL:
                fatal = True
            elif err.retriable() or is_transient_code(err.code()):
                transient = True
        elif isinstance(current, RetriableException):
            transient = True
        current = current.__cause__ or current.__context__
    return lost_sequence or (transient and not fatal)


class ErrorKind(enum.Enum):
    """How a background loop reacts to a Kafka client error."""

    #: Retry with backoff: the broker is restarting, unreachable, electing leaders, loading state.
    TRANSIENT = "transient"
    #: The topic does not exist (any more). Transient while a broker restarts or metadata propagates,
    #: fatal when it lasts.
    MISSING = "missing"
    #: Retrying cannot help (authorization, authentication, a fatal client error, a bug).
    FATAL = "fatal"


_LOOP_FATAL_CODES = frozenset({
    KafkaError.TOPIC_AUTHORIZATION_FAILED, KafkaError.GROUP_AUTHORIZATION_FAILED,
    KafkaError.CLUSTER_AUTHORIZATION_FAILED, KafkaError.TRANSACTIONAL_ID_AUTHORIZATION_FAILED,
    KafkaError.SASL_AUTHENTICATION_FAILED, KafkaError._AUTHENTICATION, KafkaError._FATAL,
    KafkaError._INVALID_ARG, KafkaError._UNSUPPORTED_FEATURE, KafkaError.UNSUPPORTED_VERSION,
    KafkaError.INVALID_CONFIG,
})
_MISSING_CODES = frozenset({
    KafkaError.UNKNOWN_TOPIC_OR_PART, KafkaError._UNKNOWN_TOPIC, KafkaError._UNKNOWN_PARTITION,
    KafkaError.UNKNOWN_TOPIC_ID,
})


def classify_error(exc: BaseException | KafkaError) -> ErrorKind:
    """Transient, missing topic, or fatal.

    librdkafka marks few errors ``retriable()``; the local ones a broker restart produces (``_NOENT``
    "No leaders found", ``_TRANSPORT``, ``_ALL_BROKERS_DOWN``, ``_TIMED_OUT``) and the broker's
    NOT_LEADER/COORDINATOR_* answers are not among them. So every Kafka error is transient unless it
    is known not to be: an unclassified error retried with backoff costs a log line per 30 s, a
    transient one taken as fatal stops the whole worker. Exceptions that are not Kafka
    errors (other than timeouts) are bugs, and fatal.

    This is the policy of the worker's own background loops, which must outlive any outage; whether
    a *task* that failed is restarted is :func:`is_transient`'s stricter decision.
    """
    if isinstance(exc, concurrent.futures.TimeoutError | TimeoutError):
        return ErrorKind.TRANSIENT
    err = exc if isinstance(exc, KafkaError) else kafka_error(exc)
    if err is None:
        return ErrorKind.FATAL
    if err.fatal() or err.code() in _LOOP_FATAL_CODES:
        return ErrorKind.FATAL
    if err.code() in _MISSING_CODES:
        return ErrorKind.MISSING
    return ErrorKind.TRANSIENT
