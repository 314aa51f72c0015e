"""Which offsets store a connector and its tasks use (reference ``Worker.offsetStoreFor*``).

Without ``offsets.storage.topic``, or when it names the worker's own offsets topic on the worker's own
Kafka cluster, a connector uses the worker's global store alone. Otherwise it gets a connector-specific
store on the Kafka cluster its producer targets (``producer.override.bootstrap.servers`` may point at
another cluster), created when missing with the worker's offsets-topic settings, and the global store
becomes the secondary (see :class:`ConnectorOffsetBackingStore`).
"""

from __future__ import annotations

import logging
from typing import Any

from confluent_kafka.admin import AdminClient

from connect_runtime.clients import client_config
from connect_runtime.config.connector_config import SourceConnectorConfig
from connect_runtime.config.worker_config import WorkerConfig
from connect_runtime.storage.offset_backing_store import ConnectorOffsetBackingStore, KafkaOffsetBackingStore
from connect_runtime.storage.topics import OFFSET_TOPIC_KEY, ensure_internal_topic

logger = logging.getLogger(__name__)


class OffsetStoreFactory:
    """Builds connector and task offset stores from the worker's and the connector's settings."""

    def __init__(self, config: WorkerConfig, global_store: KafkaOffsetBackingStore) -> None:
        self._config = config
        self.global_store = global_store

    def producer_bootstrap(self, connector: SourceConnectorConfig) -> str:
        """The Kafka cluster the connector's records (and so its offsets) go to."""
        overrides = connector.client_overrides("producer")
        return overrides.get("bootstrap.servers") or self._config.client_props("producer.").get(
            "bootstrap.servers", self._config.bootstrap_servers)

    def connector_topic(self, connector: SourceConnectorConfig) -> str | None:
        """The offsets topic the connector's tasks write, on its producer's cluster; None: the worker's store.

        Under exactly-once a task writes its offsets in its own transaction, so on its producer's
        cluster: without ``offsets.storage.topic`` that is a topic named like the worker's (the
        reference's ``offsetStoreForExactlyOnceSourceTask``), which is the worker's own topic unless
        ``producer.override.bootstrap.servers`` names another cluster. At-least-once tasks write
        through the worker unless the connector names a topic.
        """
        topic = connector.offsets_storage_topic
        if topic is None and self._config.exactly_once_source_enabled:
            topic = self._config.offset_storage_topic
        return topic

    def uses_connector_store(self, connector: SourceConnectorConfig) -> bool:
        """Whether the connector has offsets of its own beside the worker's global topic."""
        topic = self.connector_topic(connector)
        if topic is None:
            return False
        same_cluster = _servers(self.producer_bootstrap(connector)) == _servers(self._config.bootstrap_servers)
        return not (topic == self._config.offset_storage_topic and same_cluster)

    def client_settings(self, connector: SourceConnectorConfig, kind: str) -> dict[str, Any]:
        """Worker ``<kind>.*`` settings with the connector's ``<kind>.override.*`` over them, translated for
        librdkafka and aimed at the connector's producer cluster (its offsets topic lives there)."""
        conf = self._config.client_settings(kind, connector.client_overrides(kind))
        conf["bootstrap.servers"] = self.producer_bootstrap(connector)
        return conf

    def for_connector(self, connector: SourceConnectorConfig) -> ConnectorOffsetBackingStore:
        """The combined store a connector (or the offsets REST API) reads; call ``start()`` / ``stop()``."""
        if not self.uses_connector_store(connector):
            return ConnectorOffsetBackingStore(self.global_store)
        topic = self.connector_topic(connector)
        assert topic is not None
        admin = AdminClient(client_config(self.client_settings(connector, "admin")))
        self._ensure_topic(admin, topic, connector)
        store = KafkaOffsetBackingStore(topic, self.client_settings(connector, "consumer"), admin)
        return ConnectorOffsetBackingStore(store, self.global_store, owns_primary=True)

    def _ensure_topic(self, admin: AdminClient, topic: str, connector: SourceConnectorConfig) -> None:
        """Create a connector's offsets topic, when missing, as the worker's offsets topic is created
        (checked at every start, as the reference does: an operator may have deleted it); an existing
        one must be compacted only, as the worker's must (:func:`ensure_internal_topic`). The message
        names the key that chose the topic: the connector's ``offsets.storage.topic``, or the worker's
        ``offset.storage.topic`` (the reference always names the worker's)."""
        cfg = self._config
        key = "offsets.storage.topic" if connector.offsets_storage_topic is not None else OFFSET_TOPIC_KEY
        ensure_internal_topic(admin, topic, cfg.offset_storage_partitions, cfg.offset_storage_replication_factor,
                              cfg.topic_settings("offset.storage."), key, "source connector offsets",
                              cfg.default_api_timeout_ms / 1000)


def _servers(bootstrap: str) -> frozenset[str]:
    return frozenset(s.strip() for s in bootstrap.split(",") if s.strip())
