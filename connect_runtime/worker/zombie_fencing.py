"""How a worker has zombies fenced before an exactly-once source task starts (start-up step 4)."""

from __future__ import annotations

import threading
from typing import Protocol


class ZombieFencing(Protocol):
    """Fences the producers of a connector's earlier task generations; the herder answers (locally on
    the leader, else through the leader). One instance serves every task of the worker."""

    def fence_zombies(self, connector: str, stopped: threading.Event | None = None) -> None:
        """Block until ``connector``'s zombies are fenced; raise when they could not be (a retriable
        error restarts the task with backoff). ``stopped`` is set when the task that asked is stopped:
        nothing more is asked then, since a fencing round after it could fence its successor."""
