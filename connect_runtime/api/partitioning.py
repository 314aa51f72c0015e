"""Kafka's Java default partitioning of keyed records, in pure Python.

A Java producer puts a record with a key into partition ``toPositive(murmur2(key)) % partitions``.
Internal topics written by Java and by this runtime must agree on that placement: compaction only
keeps the latest value of a key within one partition, and a reader that looks a key up in "its"
partition must find it there. Our producers therefore run librdkafka's ``murmur2_random``
partitioner (see :func:`connect_runtime.clients.producer_config`); this module computes the same
placement without a producer, e.g. to assign files to delivery slots or to check a topic's layout.
Plugins use it for the same reasons (Java plugins call ``Utils.murmur2``).
"""

from __future__ import annotations

__all__ = ["java_partition", "murmur2", "to_positive"]

_MASK32 = 0xFFFFFFFF
_SEED = 0x9747B28C
_M = 0x5BD1E995
_R = 24


def murmur2(data: bytes) -> int:
    """Java's ``org.apache.kafka.common.utils.Utils.murmur2``: a signed 32-bit hash of ``data``."""
    length = len(data)
    h = (_SEED ^ length) & _MASK32
    tail = length & ~3
    for i in range(0, tail, 4):
        k = int.from_bytes(data[i:i + 4], "little")
        k = (k * _M) & _MASK32
        k ^= k >> _R
        k = (k * _M) & _MASK32
        h = (h * _M) & _MASK32
        h ^= k
    rest = length & 3
    # The Java switch falls through: 3 mixes bytes 2, 1 and 0; 2 mixes bytes 1 and 0.
    if rest == 3:
        h ^= data[tail + 2] << 16
    if rest >= 2:
        h ^= data[tail + 1] << 8
    if rest >= 1:
        h ^= data[tail]
        h = (h * _M) & _MASK32
    h ^= h >> 13
    h = (h * _M) & _MASK32
    h ^= h >> 15
    return h - (1 << 32) if h & 0x80000000 else h


def to_positive(number: int) -> int:
    """Java's ``Utils.toPositive``: clears the sign bit (not ``abs``: ``Integer.MIN_VALUE`` maps to 0)."""
    return number & 0x7FFFFFFF


def java_partition(key: bytes, num_partitions: int) -> int:
    """The partition a Java producer's default partitioner picks for ``key`` among ``num_partitions``."""
    if num_partitions < 1:
        raise ValueError(f"num_partitions must be at least 1, not {num_partitions}")
    return to_positive(murmur2(key)) % num_partitions
