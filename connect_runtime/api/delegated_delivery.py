"""Delegated delivery: a task whose records are written by processes outside the worker.

Some sources are best read where the data is processed: the Spark connector's tasks launch a Spark
application whose executors write the rows into Kafka. Those processes cannot use the task's own
producer, so the runtime hands the task a :class:`DelegatedDelivery`: the connector's producer
settings, a transactional-id prefix that belongs to the connector, and the topic its source offsets
live in. A deliverer that writes its records and the matching offsets records (built with
:meth:`DelegatedDelivery.offset_record`) in one Kafka transaction keeps the runtime's exactly-once
guarantee, and the runtime, ``GET /connectors/{c}/offsets`` and Java workers read its progress as
ordinary source offsets.

The description is plain data (:meth:`to_json` / :meth:`from_json`) so that it can be shipped to
another process.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from connect_runtime.api.offsets_topic import (
    RecordFormatError,
    offset_key,
    offset_value,
    parse_offset_key,
    parse_offset_value,
)


@dataclass(frozen=True)
class DelegatedDelivery:
    """How processes outside the worker may deliver a connector's records exactly once."""

    #: The connector's name (the first element of every offsets-topic key).
    connector: str
    #: ``<group.id>-<connector>``: deliverers append their own suffix. Any two deliverers of the same
    #: input must use the same full id, so that ``init_transactions()`` fences the older one.
    transactional_id_prefix: str
    #: librdkafka settings of the connector's producer (worker ``producer.*`` with the connector's
    #: ``producer.override.*``, translated from Java's names), without ``transactional.id``.
    producer_config: Mapping[str, str]
    #: The topic the deliverers write source offsets to, on the producer's cluster.
    offsets_topic: str
    #: librdkafka consumer settings for reading ``offsets_topic``.
    offsets_consumer_config: Mapping[str, str]
    #: The worker's offsets topic when the connector has its own: read it for offsets missing from
    #: ``offsets_topic`` (as the runtime does).
    fallback_offsets_topic: str | None = None
    fallback_consumer_config: Mapping[str, str] | None = None
    #: The connector's effective key and value converters: class name and settings.
    key_converter: tuple[str, Mapping[str, str]] = ("org.apache.kafka.connect.json.JsonConverter", {})
    value_converter: tuple[str, Mapping[str, str]] = ("org.apache.kafka.connect.json.JsonConverter", {})

    def offset_record(self, partition: Mapping[str, Any],
                      offset: Mapping[str, Any] | None) -> tuple[bytes, bytes | None]:
        """The offsets-topic key and value for ``partition`` at ``offset`` (None: a tombstone), byte
        for byte as the runtime and Apache Kafka Connect write them."""
        return offset_key(self.connector, partition), offset_value(offset)

    def parse_offset_record(self, key: bytes | None,
                            value: bytes | None) -> tuple[dict[str, Any], dict[str, Any] | None] | None:
        """The (partition, offset) an offsets-topic record holds for this connector; None for records
        of other connectors and keys the runtime ignores."""
        try:
            parsed = parse_offset_key(key)
        except RecordFormatError:
            return None
        if parsed is None or parsed[0] != self.connector:
            return None
        try:
            return parsed[1], parse_offset_value(value)
        except (RecordFormatError, ValueError):
            return None

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> DelegatedDelivery:
        data = json.loads(text)
        for name in ("key_converter", "value_converter"):
            data[name] = tuple(data[name])
        return cls(**data)
