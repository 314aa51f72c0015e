"""Where each input file stands: its slot, its offsets record, and reading committed positions.

A file is the source partition ``{"file": <uri>}``; its offset says how many of its rows (counted
after ``transform.sql``) are in Kafka, and what the file looked like when the delivery that wrote it
listed it::

    {"rows": 1200, "eof": true, "size": 48211, "modified": 1763900000000, "slots": 8}

``eof`` marks the record the driver writes once Spark reported that the task that read the whole file
succeeded (executors write positions without it); ``slots`` is
``spark.delivery.slots``, which must never change (the slot of a file names its deliverers'
transactional id).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, unquote, urlparse

from confluent_kafka import Consumer, TopicPartition

from connect_runtime.api import DelegatedDelivery
from connect_runtime.api.partitioning import java_partition, murmur2, to_positive

FILE = "file"


def canonical_uri(path: str) -> str:
    """One spelling per file, whatever produced it: Spark's ``input_file_name()`` (``file:///a%20b``),
    Hadoop's ``Path.toUri()`` (``file:/a%20b``) or a plain local path."""
    parsed = urlparse(path)
    if not parsed.scheme or len(parsed.scheme) == 1:
        return "file://" + quote(path)
    return f"{parsed.scheme}://{parsed.netloc}{quote(unquote(parsed.path))}"


def slot_of(uri: str, slots: int) -> int:
    """The delivery slot of a file: murmur2 of its canonical URI modulo ``slots`` (as Kafka's
    partitioner, so the spread is as even as a topic's)."""
    return to_positive(murmur2(uri.encode())) % slots


def transactional_id(delivery: DelegatedDelivery, slot: int) -> str:
    """The transactional id every deliverer of ``slot`` shares: whoever starts last fences the others."""
    return f"{delivery.transactional_id_prefix}-spark-{slot}"


@dataclass(frozen=True)
class FilePosition:
    rows: int
    eof: bool
    size: int
    modified: int
    slots: int

    def as_offset(self) -> dict[str, Any]:
        return {"rows": self.rows, "eof": self.eof, "size": self.size, "modified": self.modified,
                "slots": self.slots}

    @classmethod
    def from_offset(cls, offset: Mapping[str, Any]) -> FilePosition:
        return cls(int(offset.get("rows", 0)), bool(offset.get("eof", False)), int(offset.get("size", -1)),
                   int(offset.get("modified", -1)), int(offset.get("slots", 0)))


class PositionReader:
    """Reads the connector's committed file positions (``read_committed``) from its offsets topic(s),
    incrementally: each :meth:`read` continues where the previous one stopped, to the current end."""

    def __init__(self, delivery: DelegatedDelivery, topics: Iterable[tuple[str, Mapping[str, str]]]) -> None:
        self._delivery = delivery
        self._readers = [_TopicReader(topic, conf) for topic, conf in topics]

    @classmethod
    def for_driver(cls, delivery: DelegatedDelivery) -> PositionReader:
        """Primary topic first; the worker's topic (if the connector has its own) fills in missing files."""
        topics: list[tuple[str, Mapping[str, str]]] = [(delivery.offsets_topic, delivery.offsets_consumer_config)]
        if delivery.fallback_offsets_topic and delivery.fallback_consumer_config is not None:
            topics.append((delivery.fallback_offsets_topic, delivery.fallback_consumer_config))
        return cls(delivery, topics)

    def read(self, timeout_s: float = 60.0, partitions: set[int] | None = None,
             start: Mapping[int, int] | None = None) -> dict[str, FilePosition | None]:
        """Positions committed since the previous read (all of them the first time): file -> position,
        None for a reset file. The primary topic wins over the fallback."""
        merged: dict[str, FilePosition | None] = {}
        for i, reader in enumerate(self._readers):
            for key, value in reader.read(timeout_s, partitions if i == 0 else None, start if i == 0 else None):
                parsed = self._delivery.parse_offset_record(key, value)
                if parsed is None:
                    continue
                partition, offset = parsed
                uri = partition.get(FILE)
                if not isinstance(uri, str) or (i > 0 and uri in merged):
                    continue
                merged[uri] = FilePosition.from_offset(offset) if offset is not None else None
        return merged

    def check_topic(self, topic: str) -> None:
        """Fail clearly when the output topic is missing (brokers often do not create topics)."""
        meta = self._readers[0].consumer.list_topics(topic, timeout=30)
        found = meta.topics.get(topic)
        if found is None or found.error is not None or not found.partitions:
            raise ValueError(f"Topic {topic} does not exist: create it before the connector delivers to it")

    def end_offsets(self) -> dict[int, int]:
        """Where the primary topic's reader stands, per partition (what an executor starts from)."""
        return dict(self._readers[0].positions)

    def partition_of(self, uri: str) -> int:
        key, _ = self._delivery.offset_record({FILE: uri}, None)
        return java_partition(key, self._readers[0].partition_count())

    def close(self) -> None:
        for reader in self._readers:
            reader.close()


class _TopicReader:
    def __init__(self, topic: str, conf: Mapping[str, str]) -> None:
        self.topic = topic
        settings: dict[str, Any] = {k: v for k, v in conf.items() if not k.startswith("group.")}
        settings.update({"group.id": "connect-spark-positions", "enable.auto.commit": False,
                         "isolation.level": "read_committed", "auto.offset.reset": "earliest",
                         "enable.partition.eof": False})
        self.consumer = Consumer(settings)
        self.positions: dict[int, int] = {}
        self._partitions: int | None = None

    def partition_count(self) -> int:
        if self._partitions is None:
            meta = self.consumer.list_topics(self.topic, timeout=30)
            topic = meta.topics.get(self.topic)
            if topic is None or topic.error is not None or not topic.partitions:
                raise RuntimeError(f"Offsets topic {self.topic} not found: {topic.error if topic else 'missing'}")
            self._partitions = len(topic.partitions)
        return self._partitions

    def read(self, timeout_s: float, partitions: set[int] | None,
             start: Mapping[int, int] | None) -> list[tuple[bytes | None, bytes | None]]:
        wanted = sorted(partitions) if partitions is not None else list(range(self.partition_count()))
        if start is not None:
            for p in wanted:
                self.positions.setdefault(p, start.get(p, 0))
        ends: dict[int, int] = {}
        for p in wanted:
            low, high = self.consumer.get_watermark_offsets(TopicPartition(self.topic, p), timeout=30)
            ends[p] = high
            if self.positions.get(p, 0) < low:
                self.positions[p] = low
        behind = [p for p in wanted if self.positions.get(p, 0) < ends[p]]
        out: list[tuple[bytes | None, bytes | None]] = []
        if not behind:
            return out
        self.consumer.assign([TopicPartition(self.topic, p, self.positions.get(p, 0)) for p in behind])
        deadline = time.monotonic() + timeout_s
        try:
            while behind:
                for msg in self.consumer.consume(10000, 0.2):
                    if msg.error() is None:
                        out.append((msg.key(), msg.value()))
                for tp in self.consumer.position([TopicPartition(self.topic, p) for p in behind]):
                    if tp.offset >= 0:
                        self.positions[tp.partition] = tp.offset
                behind = [p for p in behind if self.positions.get(p, 0) < ends[p]]
                if behind and time.monotonic() > deadline:
                    raise TimeoutError(f"Reading offsets topic {self.topic} to its end took over {timeout_s:.0f} s "
                                       f"(partitions behind: {behind})")
        finally:
            self.consumer.unassign()
        return out

    def close(self) -> None:
        self.consumer.close()
