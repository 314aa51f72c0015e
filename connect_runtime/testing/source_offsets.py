"""Read the source offsets a connector committed, straight from an offsets topic.

Works for any source connector: the worker's offsets topic (``offset.storage.topic``) and a
connector's own one (the connector's ``offsets.storage.topic``) hold the same records, keyed by
``["<connector>", {<source partition>}]`` with the source offset as the value (JSON, schemaless) and a
null value (tombstone) for a reset partition.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from connect_runtime.testing.topics import read_committed


def _partition_key(partition: Mapping[str, Any]) -> str:
    return json.dumps(partition, sort_keys=True, separators=(",", ":"))


def read_source_offsets(bootstrap: str, offsets_topic: str, connector: str,
                        timeout_s: float = 120.0) -> list[dict[str, Any]]:
    """The latest committed offset of every source partition of ``connector`` in ``offsets_topic``.

    Returns ``[{"partition": {...}, "offset": {...}}, ...]``, the shape of ``GET
    /connectors/{name}/offsets`` (its ``offsets`` array), in the order the source partitions first
    appear in the topic (by topic partition, then offset); a source partition whose latest record is
    a tombstone (reset) is left out. Records of other connectors
    and records that are not source offsets are skipped.
    """
    latest: dict[str, dict[str, Any]] = {}
    for key, value in read_committed(bootstrap, offsets_topic, timeout_s):
        if key is None:
            continue
        try:
            name, partition = json.loads(key)
        except (ValueError, TypeError):
            continue  # not a source-offset key
        if name != connector or not isinstance(partition, dict):
            continue
        pkey = _partition_key(partition)
        if value is None:
            latest.pop(pkey, None)
        else:
            latest[pkey] = {"partition": partition, "offset": json.loads(value)}
    return list(latest.values())


def read_source_offset(bootstrap: str, offsets_topic: str, connector: str, partition: Mapping[str, Any],
                       timeout_s: float = 120.0) -> dict[str, Any] | None:
    """The latest committed offset of one source ``partition`` of ``connector``, or ``None``.

    E.g. ``read_source_offset(bootstrap, topic, "files", {"filename": "/data/in.log"})`` →
    ``{"position": 1234}``.
    """
    wanted = _partition_key(partition)
    for entry in read_source_offsets(bootstrap, offsets_topic, connector, timeout_s):
        if _partition_key(entry["partition"]) == wanted:
            offset: dict[str, Any] = entry["offset"]
            return offset
    return None
