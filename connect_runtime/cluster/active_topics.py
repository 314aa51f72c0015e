"""Connectors' active topics (KIP-558): read and reset through the REST API, and reset when a connector
is deleted, once its tasks on this worker have stopped (Java's ``onRevoked``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from concurrent.futures import Future

from connect_runtime.cluster.cluster_view import ClusterView
from connect_runtime.config.worker_config import WorkerConfig
from connect_runtime.errors import ForbiddenHttpError
from connect_runtime.storage.status_store import KafkaStatusBackingStore


class ActiveTopics:
    """The active topics records of the status topic, as the REST API and deletions see them."""

    def __init__(self, config: WorkerConfig, status_store: KafkaStatusBackingStore, view: ClusterView) -> None:
        self._config = config
        self._status_store = status_store
        self._view = view
        #: Deleted connectors whose active topics are reset once their tasks here have stopped.
        self._to_reset: set[str] = set()

    def of(self, name: str) -> Future[list[str]]:
        self._check_tracking(reset=False)
        return self._view.read(lambda: [t.topic for t in self._status_store.get_all_topics(name)])

    def reset_request(self, name: str) -> Future[None]:
        self._check_tracking(reset=True)
        # Any worker may: the tombstones go to the status topic through this worker's producer, as Java.
        return self._view.read(lambda: self.reset(name))

    def reset(self, name: str) -> None:
        for status in self._status_store.get_all_topics(name):
            self._status_store.delete_topic(name, status.topic)

    def reset_when_stopped(self, connectors: Iterable[str]) -> None:
        """Herder thread: ``connectors`` were deleted while tasks of theirs ran here."""
        self._to_reset.update(connectors)

    def reset_deleted(self, running: Callable[[], set[str]]) -> None:
        """Herder thread: reset the deleted connectors none of whose tasks still run here (``running``)."""
        if not self._to_reset:
            return
        still_running = running()
        for name in [n for n in self._to_reset if n not in still_running]:
            self._to_reset.discard(name)
            self.reset(name)

    def _check_tracking(self, reset: bool) -> None:
        """Java's REST resource answers 403 when tracking (or its reset) is switched off on the worker."""
        if not self._config.topic_tracking_enable:
            raise ForbiddenHttpError("Topic tracking is disabled.")
        if reset and not self._config.topic_tracking_allow_reset:
            raise ForbiddenHttpError("Topic tracking reset is disabled.")
