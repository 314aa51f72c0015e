"""The offsets topic: source offsets keyed by ``["<connector>",{partition}]`` (byte-compatible with
Apache Kafka Connect, so offsets written by a Java cluster are read here and vice versa)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Collection, Mapping
from concurrent.futures import Future
from typing import Any

from confluent_kafka import KafkaError, Message, Producer
from confluent_kafka.admin import AdminClient

from connect_runtime.api.record import SourceMap
from connect_runtime.api.storage import OffsetStorageReader, freeze_partition
from connect_runtime.storage import formats
from connect_runtime.storage.kafka_log import KafkaBasedLog

logger = logging.getLogger(__name__)


class KafkaOffsetBackingStore:
    """All offsets of one offsets topic in memory, read ``read_committed`` from the beginning.

    EOS tasks write their offsets through their own transactional producer (see the source task);
    :meth:`set` is the non-transactional path used by at-least-once tasks.
    """

    def __init__(self, topic: str, consumer_config: Mapping[str, Any], admin: AdminClient,
                 producer: Producer | None = None) -> None:
        self.topic = topic
        self._producer = producer
        self._lock = threading.Lock()
        self._data: dict[bytes, bytes] = {}
        self._partitions: dict[str, set[bytes]] = {}
        self._log = KafkaBasedLog(topic, consumer_config, admin, self._on_record, name="offset-log-reader")

    def start(self, read_to_end: bool = True) -> None:
        """Start reading; see :meth:`KafkaBasedLog.start` for when not to wait for the end."""
        self._log.start(read_to_end=read_to_end)

    def stop(self) -> None:
        self._log.stop()

    def read_to_end(self) -> Future[None]:
        """Completes once every offset committed before the call is visible."""
        return self._log.read_to_end()

    def _on_record(self, msg: Message) -> None:
        key: bytes | None = msg.key()
        if key is None:
            return
        value: bytes | None = msg.value()
        parsed = formats.parse_offset_key(key)
        with self._lock:
            if value is None:
                self._data.pop(key, None)
                if parsed is not None:
                    self._partitions.get(parsed[0], set()).discard(key)
            else:
                self._data[key] = value
                if parsed is not None:
                    self._partitions.setdefault(parsed[0], set()).add(key)

    def get(self, keys: Collection[bytes]) -> dict[bytes, bytes | None]:
        """The stored values of ``keys`` as of the last read (call :meth:`read_to_end` first)."""
        with self._lock:
            return {k: self._data.get(k) for k in keys}

    def connector_partitions(self, connector: str) -> list[bytes]:
        """Offset keys currently stored for ``connector`` (for the offsets REST API)."""
        with self._lock:
            return list(self._partitions.get(connector, ()))

    def set(self, entries: Mapping[bytes, bytes | None], timeout_s: float = 30.0) -> None:
        """Write ``entries`` and wait until the broker acknowledged all of them (raises on failure)."""
        producer = self._producer
        if producer is None:
            raise RuntimeError("this offset store is read-only")
        errors: list[KafkaError] = []

        def on_delivery(err: KafkaError | None, _msg: Message) -> None:
            if err is not None:
                errors.append(err)

        for key, value in entries.items():
            producer.produce(self.topic, key=key, value=value, on_delivery=on_delivery)
        remaining = producer.flush(timeout_s)
        if remaining:
            raise TimeoutError(f"Timed out writing {remaining} offsets to {self.topic}")
        if errors:
            raise RuntimeError(f"Failed to write offsets to {self.topic}: {errors[0]}")


class ConnectorOffsetReader(OffsetStorageReader):
    """The offsets of one connector, as a task or connector sees them."""

    def __init__(self, connector: str, store: KafkaOffsetBackingStore) -> None:
        self._connector = connector
        self._store = store

    def offsets(self, partitions: Collection[SourceMap]) -> dict[Any, dict[str, Any] | None]:
        keys = {freeze_partition(p): formats.offset_key(self._connector, p) for p in partitions}
        raw = self._store.get(list(keys.values()))
        return {frozen: formats.parse_offset_value(raw[key]) for frozen, key in keys.items()}
