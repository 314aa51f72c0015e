"""The offsets a connector sees: lookups whatever the partition's field order, and the combined view of a
connector-specific topic (primary) over the worker's global topic (fallback and mirror)."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any, cast

from connect_runtime.storage import formats
from connect_runtime.storage.offset_backing_store import (
    ConnectorOffsetBackingStore,
    KafkaOffsetBackingStore,
    canonical_offset_key,
)


def test_canonical_key_sorts_partition_fields_and_keeps_sorted_keys_as_they_are() -> None:
    ab = formats.offset_key("c", {"a": 1, "b": "x"})
    ba = formats.offset_key("c", {"b": "x", "a": 1})
    assert ab != ba
    assert canonical_offset_key(ba) == ab
    assert canonical_offset_key(ab) is ab
    assert canonical_offset_key(b"not json") == b"not json"


class _FakeStore:
    """Pure-logic stand-in for one offsets topic (the real one is tested against a broker)."""

    def __init__(self, topic: str, data: dict[bytes, bytes] | None = None) -> None:
        self.topic = topic
        self.data = dict(data or {})
        self.writes: list[tuple[str, dict[bytes, bytes | None]]] = []

    def get(self, keys: Collection[bytes]) -> dict[bytes, bytes | None]:
        return {k: self.data.get(canonical_offset_key(k)) for k in keys}

    def set(self, entries: Mapping[bytes, bytes | None], timeout_s: float = 30.0, producer: Any = None) -> None:
        self.writes.append(("sync", dict(entries)))

    def set_async(self, entries: Mapping[bytes, bytes | None]) -> None:
        self.writes.append(("async", dict(entries)))


def _combined(primary: _FakeStore, secondary: _FakeStore) -> ConnectorOffsetBackingStore:
    return ConnectorOffsetBackingStore(cast(KafkaOffsetBackingStore, primary),
                                       cast(KafkaOffsetBackingStore, secondary))


K0, K1 = formats.offset_key("c", {"id": 0}), formats.offset_key("c", {"id": 1})


def test_connector_store_wins_and_the_global_store_is_the_fallback() -> None:
    primary = _FakeStore("own", {K0: b'{"seqno":5}'})
    secondary = _FakeStore("global", {K0: b'{"seqno":1}', K1: b'{"seqno":9}'})
    combined = _combined(primary, secondary)
    assert combined.topic == "own"
    assert combined.get([K0, K1]) == {K0: b'{"seqno":5}', K1: b'{"seqno":9}'}


def test_writes_tombstones_to_the_global_topic_first_and_mirror_the_rest_afterwards() -> None:
    primary, secondary = _FakeStore("own"), _FakeStore("global")
    combined = _combined(primary, secondary)
    combined.set({K0: None, K1: b'{"seqno":2}'})
    assert secondary.writes == [("sync", {K0: None}), ("async", {K1: b'{"seqno":2}'})]
    assert primary.writes == [("sync", {K0: None, K1: b'{"seqno":2}'})]


def test_worker_store_alone_writes_once() -> None:
    store = _FakeStore("global")
    combined = ConnectorOffsetBackingStore(cast(KafkaOffsetBackingStore, store))
    combined.set({K0: None})
    assert store.writes == [("sync", {K0: None})]
    assert not combined.has_connector_store
