"""Value types shared by every layer: storage, worker, cluster and REST all speak of connectors' tasks,
target states and offsets. They live here, below all of them, so that no lower layer imports from the
herder's REST-facing interface."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any


class TargetState(Enum):
    """The state a connector is asked to be in."""

    STARTED = "STARTED"
    PAUSED = "PAUSED"
    STOPPED = "STOPPED"


@dataclass(frozen=True, slots=True, order=True)
class ConnectorTaskId:
    """Identifies one task of one connector."""

    connector: str
    task: int

    def __str__(self) -> str:
        return f"{self.connector}-{self.task}"


@dataclass(slots=True)
class ConnectorOffset:
    """One source partition and its offset (``None`` when the offset is to be reset)."""

    partition: dict[str, Any]
    offset: dict[str, Any] | None


@dataclass(slots=True)
class ConnectorOffsets:
    """``GET /connectors/{c}/offsets``: every partition the connector has an offset for."""

    offsets: list[ConnectorOffset]
