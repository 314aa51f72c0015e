"""The offsets topic: source offsets keyed by ``["<connector>",{partition}]`` (byte-compatible with
Apache Kafka Connect, so offsets written by a Java cluster are read here and vice versa).

Keys are held in memory under a *canonical* form (the partition map's fields sorted), so a lookup
finds a stored offset whatever field order the writer used: Java's ``HashMap`` partitions serialize in
hash order, a Python plugin's dicts in insertion order, and both must name the same partition.
Writes keep the writer's own bytes, as Java does.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Collection, Mapping
from concurrent.futures import Future
from typing import Any

from confluent_kafka import KafkaError, Message, Producer
from confluent_kafka.admin import AdminClient

from connect_runtime.api.java_json import json_dumps_compact
from connect_runtime.api.record import SourceMap
from connect_runtime.api.storage import OffsetStorageReader, freeze_partition
from connect_runtime.storage import formats
from connect_runtime.storage.kafka_log import FatalCallback, KafkaBasedLog

logger = logging.getLogger(__name__)

#: Serialized offsets-topic key -> serialized offset (None = tombstone), as written to the topic.
OffsetEntries = Mapping[bytes, bytes | None]


def canonical_offset_key(key: bytes) -> bytes:
    """``key`` with its partition map's fields sorted; keys that do not parse are their own canonical form."""
    parsed = formats.parse_offset_key(key)
    if parsed is None:
        return key
    connector, partition = parsed
    fields = list(partition)
    if fields == sorted(fields):
        return key
    return json_dumps_compact([connector, {f: partition[f] for f in sorted(fields)}])


def produce_offsets(producer: Producer, topic: str, entries: OffsetEntries, timeout_s: float) -> None:
    """Write ``entries`` to ``topic`` with ``producer`` and wait for every acknowledgement (raises on failure)."""
    errors: list[KafkaError] = []

    def on_delivery(err: KafkaError | None, _msg: Message) -> None:
        if err is not None:
            errors.append(err)

    for key, value in entries.items():
        producer.produce(topic, key=key, value=value, on_delivery=on_delivery)
    remaining = producer.flush(timeout_s)
    if remaining:
        raise TimeoutError(f"Timed out writing {remaining} offsets to {topic}")
    if errors:
        raise RuntimeError(f"Failed to write offsets to {topic}: {errors[0]}")


class KafkaOffsetBackingStore:
    """All offsets of one offsets topic in memory, read ``read_committed`` from the beginning.

    EOS tasks write their offsets through their own transactional producer (see the source task);
    :meth:`set` is the non-transactional path (at-least-once tasks, the offsets REST API, the
    global-topic mirror of a connector-specific topic).
    """

    def __init__(self, topic: str, consumer_config: Mapping[str, Any], admin: AdminClient,
                 producer: Producer | None = None, *, on_fatal: FatalCallback | None = None) -> None:
        self.topic = topic
        self._producer = producer
        self._lock = threading.Lock()
        self._data: dict[bytes, bytes] = {}
        # Canonical key -> the key bytes writers actually used, when they differ (rare): a reset or an
        # alter must write those very bytes, or compaction (and a Java reader) keeps the old value.
        self._variants: dict[bytes, set[bytes]] = {}
        self._partitions: dict[str, set[bytes]] = {}
        self._log = KafkaBasedLog(topic, consumer_config, admin, self._on_record, name=f"offset-log-reader-{topic}",
                                  on_fatal=on_fatal)

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
        canonical = canonical_offset_key(key) if parsed is not None else key
        with self._lock:
            if value is None:
                self._data.pop(canonical, None)
                self._variants.pop(canonical, None)
                if parsed is not None:
                    self._partitions.get(parsed[0], set()).discard(canonical)
            else:
                self._data[canonical] = value
                if canonical is not key:
                    self._variants.setdefault(canonical, set()).add(key)
                if parsed is not None:
                    self._partitions.setdefault(parsed[0], set()).add(canonical)

    def get(self, keys: Collection[bytes]) -> dict[bytes, bytes | None]:
        """The stored values of ``keys`` as of the last read (call :meth:`read_to_end` first).

        Result keys are the keys asked for; absent ones map to None.
        """
        canonical = {k: canonical_offset_key(k) for k in keys}
        with self._lock:
            return {k: self._data.get(c) for k, c in canonical.items()}

    def connector_offsets(self, connector: str) -> dict[bytes, bytes]:
        """Every stored (canonical key, offset) of ``connector``, tombstoned ones excluded."""
        with self._lock:
            return {k: self._data[k] for k in self._partitions.get(connector, ()) if k in self._data}

    def key_variants(self, canonical: bytes) -> set[bytes]:
        """The key bytes a stored offset was written under when they are not the canonical ones."""
        with self._lock:
            return set(self._variants.get(canonical, ()))

    def set(self, entries: OffsetEntries, timeout_s: float = 30.0, producer: Producer | None = None) -> None:
        """Write ``entries`` and wait until the broker acknowledged all of them (raises on failure).

        ``producer`` defaults to the store's own; a connector-specific store is written by the
        task's producer (it targets the connector's Kafka cluster).
        """
        producer = producer or self._producer
        if producer is None:
            raise RuntimeError("this offset store is read-only")
        produce_offsets(producer, self.topic, entries, timeout_s)

    def set_async(self, entries: OffsetEntries) -> None:
        """Write ``entries`` without waiting; failures are logged (the global-topic mirror)."""
        producer = self._producer
        if producer is None:
            raise RuntimeError("this offset store is read-only")
        topic = self.topic

        def on_delivery(err: KafkaError | None, _msg: Message) -> None:
            if err is not None:
                logger.warning("Failed to write offsets to secondary offsets topic %s: %s", topic, err)

        for key, value in entries.items():
            producer.produce(topic, key=key, value=value, on_delivery=on_delivery)
        producer.poll(0)


class ConnectorOffsetBackingStore:
    """The offsets one connector reads and writes (reference ``ConnectorOffsetBackingStore``).

    Either the worker's global store alone, or a connector-specific store (``offsets.storage.topic``,
    possibly on another Kafka cluster) as *primary* with the global store as *secondary*:

    - reads consult both; the connector store wins, the global store is the fallback for partitions
      the connector store has never seen (so a connector that moves to its own topic resumes from the
      global one);
    - writes go to the primary; non-tombstone offsets are then mirrored to the global topic without
      waiting (failures logged); a batch with tombstones writes them to the global topic *first* and
      fails if that fails (KAFKA-15018: otherwise a reset could resurface through the fallback).
    """

    def __init__(self, primary: KafkaOffsetBackingStore, secondary: KafkaOffsetBackingStore | None = None,
                 owns_primary: bool = False) -> None:
        self.primary = primary
        self.secondary = secondary
        self._owns_primary = owns_primary
        self._started = False

    @property
    def topic(self) -> str:
        """The topic the connector's offsets are written to (its tasks may never produce to it)."""
        return self.primary.topic

    @property
    def has_connector_store(self) -> bool:
        return self.secondary is not None

    def start(self) -> None:
        """Start reading the connector-specific topic (the global store runs for the worker's lifetime).

        Not read to the end here: an open transaction of a crashed task would block until it times out,
        and a task aborts it by initialising its producer first (see the exactly-once task).
        """
        if self._owns_primary and not self._started:
            self.primary.start(read_to_end=False)
        self._started = True

    def stop(self) -> None:
        if self._owns_primary and self._started:
            self.primary.stop()
        self._started = False

    def read_to_end(self) -> Future[None]:
        """Completes once both stores have read everything committed before the call."""
        futures = [self.primary.read_to_end()]
        if self.secondary is not None:
            futures.append(self.secondary.read_to_end())
        if len(futures) == 1:
            return futures[0]
        combined: Future[None] = Future()
        remaining = [len(futures)]
        lock = threading.Lock()

        def done(f: Future[None]) -> None:
            with lock:
                if combined.done():
                    return
                exc = f.exception()
                if exc is not None:
                    combined.set_exception(exc)
                    return
                remaining[0] -= 1
                if remaining[0] == 0:
                    combined.set_result(None)

        for f in futures:
            f.add_done_callback(done)
        return combined

    def get(self, keys: Collection[bytes]) -> dict[bytes, bytes | None]:
        result = self.primary.get(keys)
        if self.secondary is not None:
            missing = [k for k, v in result.items() if v is None]
            if missing:
                result.update(self.secondary.get(missing))
        return result

    def connector_offsets(self, connector: str) -> dict[bytes, bytes]:
        """The connector's stored offsets, canonical key -> value, in the combined view."""
        merged = self.secondary.connector_offsets(connector) if self.secondary is not None else {}
        merged.update(self.primary.connector_offsets(connector))
        return merged

    def written_keys(self, canonical: bytes, default: bytes) -> set[bytes]:
        """``default`` plus every other key bytes the partition ``canonical`` is stored under: a write
        meant to replace its offset must use all of them."""
        variants = self.primary.key_variants(canonical)
        if self.secondary is not None:
            variants |= self.secondary.key_variants(canonical)
        return variants | {default}

    def write_tombstones_first(self, entries: OffsetEntries, timeout_s: float = 30.0) -> None:
        """Before the primary write of ``entries``: their tombstones to the global topic (raises on failure)."""
        if self.secondary is None:
            return
        tombstones = {k: v for k, v in entries.items() if v is None}
        if tombstones:
            self.secondary.set(tombstones, timeout_s)

    def mirror(self, entries: OffsetEntries) -> None:
        """After the primary write succeeded: non-tombstone offsets to the global topic, not waited for."""
        if self.secondary is None:
            return
        regular = {k: v for k, v in entries.items() if v is not None}
        if regular:
            try:
                self.secondary.set_async(regular)
            except Exception as e:  # the mirror is best effort, as in the reference
                logger.warning("Failed to write offsets to the worker's offsets topic %s: %s",
                               self.secondary.topic, e)

    def set(self, entries: OffsetEntries, producer: Producer | None = None, timeout_s: float = 30.0) -> None:
        """The non-transactional write: tombstones to the global topic, all to the primary, then the mirror."""
        self.write_tombstones_first(entries, timeout_s)
        self.primary.set(entries, timeout_s, producer)
        self.mirror(entries)


class ConnectorOffsetReader(OffsetStorageReader):
    """The offsets of one connector, as a task or connector sees them.

    With ``read_to_end`` every lookup first waits until the stores caught up (connectors; the REST
    API). Tasks read to the end once at start-up instead: under exactly-once a read-to-end while the
    task's own transaction is open would wait for that very transaction.
    """

    def __init__(self, connector: str, store: ConnectorOffsetBackingStore | KafkaOffsetBackingStore,
                 read_to_end: bool = False, timeout_s: float = 60.0) -> None:
        self._connector = connector
        self._store = store
        self._read_to_end = read_to_end
        self._timeout_s = timeout_s

    def offsets(self, partitions: Collection[SourceMap]) -> dict[Any, dict[str, Any] | None]:
        keys = {freeze_partition(p): formats.offset_key(self._connector, p) for p in partitions}
        if self._read_to_end:
            self._store.read_to_end().result(self._timeout_s)
        raw = self._store.get(list(keys.values()))
        return {frozen: formats.parse_offset_value(raw[key]) for frozen, key in keys.items()}
