"""Logger levels through the REST API (KIP-495, KIP-976): this worker's, read and set in process, and
the cluster's, written to the config topic by any worker and applied by every worker that reads it."""

from __future__ import annotations

import logging

from confluent_kafka import Producer

from connect_runtime.cluster.config_requests import write_unprivileged
from connect_runtime.cluster.herder_api import LoggerLevelInfo
from connect_runtime.loggers import Loggers
from connect_runtime.storage import formats
from connect_runtime.storage.config_store import KafkaConfigBackingStore

logger = logging.getLogger(__name__)


class LoggerLevels:
    """The logger levels of this worker, and its part in the cluster's."""

    def __init__(self, config_store: KafkaConfigBackingStore, plain_producer: Producer) -> None:
        self._config_store = config_store
        self._plain_producer = plain_producer
        self._loggers = Loggers()
        #: The config topic offset read at start-up; cluster logger levels after it are applied.
        self.startup_config_offset: int | None = None

    def level(self, logger_name: str) -> LoggerLevelInfo | None:
        found = self._loggers.level(logger_name)
        return None if found is None else LoggerLevelInfo(*found)

    def all_levels(self) -> dict[str, LoggerLevelInfo]:
        return {name: LoggerLevelInfo(*level) for name, level in self._loggers.all_levels().items()}

    def set_worker_level(self, namespace: str, level: str) -> list[str]:
        return self._loggers.set_level(namespace, level)

    def set_cluster_level(self, namespace: str, level: str) -> None:
        key, value = formats.logger_level_record(namespace, level)
        # Every worker applies it when it reads it back, this one included.
        write_unprivileged(self._plain_producer, self._config_store.topic, key, value, "logger level")

    def on_record(self, namespace: str, level: str, offset: int) -> None:
        """Config reader thread: a ``logger-cluster-*`` record. Only those written after this worker read
        its config topic at start-up are applied (Java's rule: a worker that starts later keeps its own
        levels)."""
        startup = self.startup_config_offset
        if startup is None or offset <= startup:
            logger.debug("Ignoring old logging level %s for namespace %s that was written to the config topic "
                         "before this worker completed startup", level, namespace)
            return
        self._loggers.set_level(namespace, level)
