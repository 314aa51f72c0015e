"""Settings every Kafka client of the runtime shares."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

#: librdkafka's own log lines are routed here (instead of raw stderr), so ``/admin/loggers`` and the
#: worker's logging configuration govern them like every other runtime logger.
KAFKA_CLIENT_LOGGER = logging.getLogger("connect_runtime.kafka_client")


def client_config(conf: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of ``conf`` with the runtime's shared client settings added."""
    out = dict(conf)
    out.setdefault("logger", KAFKA_CLIENT_LOGGER)
    return out


#: librdkafka's name for the Java producer's default partitioner (murmur2 of the key; keyless records
#: spread at random). librdkafka's own default, ``consistent_random``, hashes with CRC32 instead.
JAVA_COMPATIBLE_PARTITIONER = "murmur2_random"


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
