"""The leader's only way to write the config topic: one transactional producer.

Its ``transactional.id`` is ``connect-cluster-<group.id>``: when another worker initialises a producer
with that id, this one is fenced by the broker, so a deposed (zombie) leader can never write again.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from confluent_kafka import KafkaError, KafkaException, Producer

from connect_runtime import clients
from connect_runtime.errors import ConnectRestError

logger = logging.getLogger(__name__)

FAILED_WRITE_MESSAGE = (
    "Failed to write to config topic; this may be due to a transient error and the request can be "
    "safely retried"
)


class ConfigWriteError(ConnectRestError):
    """A leader write failed; ``fenced`` is True when another leader took over the producer id."""

    status = 500

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
                 init_timeout_s: float = 60.0) -> None:
        conf = dict(producer_config)
        conf.update({"transactional.id": transactional_id, "enable.idempotence": True, "acks": "all"})
        conf.setdefault("transaction.timeout.ms", 60000)
        self._conf = conf
        self._topic = topic
        self._init_timeout_s = init_timeout_s
        self._producer: Producer | None = None

    def initialize(self) -> None:
        """(Re)create the producer and initialise transactions: fences every older holder of the id
        and aborts its open transaction at once."""
        self.close()
        producer = Producer(clients.producer_config(self._conf))
        producer.init_transactions(self._init_timeout_s)
        self._producer = producer

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
            producer.commit_transaction(timeout_s)
        except KafkaException as e:
            err = e.args[0] if e.args and isinstance(e.args[0], KafkaError) else None
            fenced = is_fenced(err)
            logger.warning("Config topic write failed (fenced=%s): %s", fenced, e)
            self._abandon(producer, abortable=err is not None and err.txn_requires_abort())
            raise ConfigWriteError(e, fenced) from e

    def _abandon(self, producer: Producer, abortable: bool) -> None:
        if abortable:
            try:
                producer.abort_transaction(10)
                return
            except KafkaException:
                pass
        # A fenced or fatally failed producer is useless: the next leader tick re-creates it.
        self._producer = None

    def close(self) -> None:
        """Drop the producer (a zombie's producer stays fenced; nothing to flush)."""
        producer, self._producer = self._producer, None
        if producer is not None:
            producer.flush(1)
