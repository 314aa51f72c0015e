"""The leader's only way to write the config topic: one transactional producer.

Its ``transactional.id`` is ``connect-cluster-<group.id>``: when another worker initialises a producer
with that id, this one is fenced by the broker, so a deposed (zombie) leader can never write again.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Mapping, Sequence
from typing import Any

from confluent_kafka import KafkaError, KafkaException, Producer

from connect_runtime import clients
from connect_runtime.api import kafka_clients
from connect_runtime.api.errors import ConnectException
from connect_runtime.metrics.client_stats import STATISTICS_INTERVAL_MS, ClientStatsCollector, with_statistics

logger = logging.getLogger(__name__)

_LIBRDKAFKA_MESSAGE_MAX_BYTES = 1_000_000
# Kafka's record batch header is 61 bytes; a record adds at most ~21 bytes of varints and attributes.
_BATCH_OVERHEAD = 61
_RECORD_OVERHEAD = 21

FAILED_WRITE_MESSAGE = (
    "Failed to write to config topic; this may be due to a transient error and the request can be "
    "safely retried"
)


class ConfigWriteError(ConnectException):
    """A leader write failed; ``fenced`` is True when another leader took over the producer id.

    Not an HTTP error (storage knows nothing of REST): the REST layer answers 500 with the message,
    as it does for any ``ConnectException``, which is the reference's answer too.
    """

    def __init__(self, cause: BaseException, fenced: bool) -> None:
        super().__init__(FAILED_WRITE_MESSAGE)
        self.__cause__ = cause
        self.fenced = fenced


def is_fenced(err: KafkaError | None) -> bool:
    """True for the errors that mean a newer producer with the same transactional id exists."""
    if err is None:
        return False
    return err.code() in (KafkaError._FENCED, KafkaError.PRODUCER_FENCED,
                          KafkaError.INVALID_PRODUCER_EPOCH, KafkaError.INVALID_PRODUCER_ID_MAPPING,
                          KafkaError.TRANSACTIONAL_ID_AUTHORIZATION_FAILED) or err.fatal()


class ConfigTopicWriter:
    """Writes batches of config records, each batch in its own transaction."""

    def __init__(self, producer_config: Mapping[str, Any], topic: str, transactional_id: str,
                 init_timeout_s: float = 60.0, statistics: ClientStatsCollector | None = None,
                 statistics_interval_ms: int = STATISTICS_INTERVAL_MS) -> None:
        """``statistics`` collects each of its producers' librdkafka statistics (see :meth:`poll`)."""
        conf = (with_statistics(producer_config, statistics, statistics_interval_ms) if statistics is not None
                else dict(producer_config))
        conf.update({"transactional.id": transactional_id, "enable.idempotence": True, "acks": "all"})
        conf.setdefault("transaction.timeout.ms", 60000)
        self._conf = conf
        self._topic = topic
        #: The largest batch of records one write may carry: the producer's message.max.bytes, lowered
        #: to the config topic's max.message.bytes once known (:meth:`limit_to`).
        self.max_batch_bytes = int(conf.get("message.max.bytes", _LIBRDKAFKA_MESSAGE_MAX_BYTES))
        self.limit_source = "the leader producer's message.max.bytes"
        self._init_timeout_s = init_timeout_s
        self._producer: Producer | None = None
        self._statistics = statistics

    def initialize(self, timeout_s: float | None = None) -> None:
        """(Re)create the producer and initialise transactions: fences every older holder of the id
        and aborts its open transaction at once."""
        self.close()
        producer = Producer(clients.producer_config(self._conf))
        kafka_clients.init_transactions(producer, self._init_timeout_s if timeout_s is None else timeout_s)
        self._producer = producer

    def limit_to(self, topic_max_message_bytes: int) -> None:
        """Take the config topic's own limit into account (its ``max.message.bytes``)."""
        topic_limit = f"the max.message.bytes of config topic {self._topic} ({topic_max_message_bytes})"
        if topic_max_message_bytes < self.max_batch_bytes:
            self.max_batch_bytes = topic_max_message_bytes
            self.limit_source = topic_limit
        else:
            self.limit_source += f", below {topic_limit}"

    @staticmethod
    def batch_bytes(records: Sequence[tuple[str, bytes | None]]) -> int:
        """An upper bound of the size of ``records`` as one record batch on the wire."""
        return _BATCH_OVERHEAD + sum(_RECORD_OVERHEAD + len(k.encode()) + len(v or b"") for k, v in records)

    def poll(self) -> None:
        """Serve the producer's callbacks (its statistics): it is otherwise polled only while it writes."""
        producer = self._producer
        if producer is not None:
            producer.poll(0)

    @property
    def initialized(self) -> bool:
        return self._producer is not None

    def write(self, records: Sequence[tuple[str, bytes | None]], timeout_s: float = 30.0) -> None:
        """Commit ``records`` (key, value) atomically; raises ConfigWriteError on any failure."""
        producer = self._producer
        if producer is None:
            raise ConfigWriteError(RuntimeError("leader producer not initialised"), fenced=False)
        try:
            producer.begin_transaction()
            for key, value in records:
                producer.produce(self._topic, key=key.encode(), value=value)
            kafka_clients.commit_transaction(producer, timeout_s)
        except (KafkaException, BufferError) as e:
            err = kafka_clients.kafka_error(e)
            fenced = is_fenced(err)
            logger.warning("Config topic write failed (fenced=%s): %s", fenced, e)
            self._abandon(producer, fenced)
            raise ConfigWriteError(e, fenced) from e

    def _abandon(self, producer: Producer, fenced: bool) -> None:
        """Leave nothing behind a failed write: abort its transaction (an open one would hold every
        config-topic reader back until it times out) and drop the producer, whose state after a
        failure is unreliable (e.g. "Operation not valid in state InTransaction"). The next write
        re-creates it; its ``init_transactions`` also aborts the transaction if the abort failed. A
        fenced producer is only dropped: its successor already aborted what it had open."""
        self._producer = None
        if not fenced:
            with contextlib.suppress(KafkaException):
                producer.abort_transaction(5)
        with contextlib.suppress(KafkaException, RuntimeError):
            producer.purge()
        producer.flush(0)
        self._statistics_closed()

    def close(self) -> None:
        """Drop the producer (a zombie's producer stays fenced; nothing to flush)."""
        producer, self._producer = self._producer, None
        if producer is not None:
            producer.flush(1)
        self._statistics_closed()

    def _statistics_closed(self) -> None:
        # Only after the flush: it serves the statistics librdkafka queued, and the last of them must not
        # count the dropped producer's connections again.
        if self._statistics is not None:
            self._statistics.closed()
