"""Read access to the offsets a source connector has committed."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Collection, Mapping
from typing import Any

from connect_runtime.api.record import SourceMap


class OffsetStorageReader(ABC):
    """Looks up the last committed source offset of source partitions.

    Under exactly-once support the offsets are read ``read_committed``: a task sees exactly the offsets
    whose records were committed, so it resumes with no duplicate and no gap.
    """

    def offset(self, partition: SourceMap) -> dict[str, Any] | None:
        """Return the committed offset of one source partition, or None when there is none."""
        return self.offsets([partition]).get(_freeze(partition))

    @abstractmethod
    def offsets(self, partitions: Collection[SourceMap]) -> Mapping[Any, dict[str, Any] | None]:
        """Return committed offsets for several partitions.

        The result is keyed by each partition frozen with :func:`freeze_partition` (a tuple of sorted
        items), since dicts cannot be dict keys.
        """


def _freeze(partition: SourceMap) -> tuple[tuple[str, Any], ...]:
    return tuple(sorted(partition.items()))


def freeze_partition(partition: SourceMap) -> tuple[tuple[str, Any], ...]:
    """The hashable form of a source partition used as key by :meth:`OffsetStorageReader.offsets`."""
    return _freeze(partition)
