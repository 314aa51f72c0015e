"""What a task loop needs of its connector's offsets store (the worker's store, or a proxy to it)."""

from __future__ import annotations

from concurrent.futures import Future
from typing import Protocol

from confluent_kafka import Producer

from connect_runtime.storage.offset_backing_store import OffsetEntries


class TaskOffsetStore(Protocol):
    """The subset of :class:`~connect_runtime.storage.offset_backing_store.ConnectorOffsetBackingStore` a task uses."""

    @property
    def topic(self) -> str:
        """The topic the task's offsets are written to."""

    @property
    def has_connector_store(self) -> bool:
        """Whether the worker's global offsets topic is a second store behind the connector's own."""

    def start(self) -> None: ...

    def stop(self) -> None: ...

    def read_to_end(self) -> Future[None]: ...

    def write_tombstones_first(self, entries: OffsetEntries, timeout_s: float = 30.0) -> None: ...

    def mirror(self, entries: OffsetEntries) -> None: ...

    def set(self, entries: OffsetEntries, producer: Producer | None = None, timeout_s: float = 30.0) -> None: ...
