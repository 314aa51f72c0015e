"""Creating the internal topics at start-up and checking the ones that exist."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Mapping

from confluent_kafka import KafkaError, KafkaException
from confluent_kafka.admin import AdminClient, ConfigResource, NewTopic, ResourceType

from connect_runtime.api.errors import ConnectException

logger = logging.getLogger(__name__)


def ensure_topic(
    admin: AdminClient,
    name: str,
    partitions: int,
    replication_factor: int,
    configs: Mapping[str, str],
    timeout_s: float = 30.0,
) -> int:
    """Create ``name`` if missing; return its partition count (existing topics are left as they are).

    ``partitions``/``replication_factor`` of -1 take the broker defaults.
    """
    existing = _partition_count(admin, name, timeout_s)
    if existing is not None:
        return existing
    topic = NewTopic(name, num_partitions=partitions, replication_factor=replication_factor,
                     config=dict(configs))
    try:
        admin.create_topics([topic], request_timeout=timeout_s)[name].result(timeout_s)
        logger.info("Created topic %s (partitions=%s, replication factor=%s, %s)", name, partitions,
                    replication_factor, dict(configs))
    except KafkaException as e:
        err = e.args[0] if e.args else None
        if not (isinstance(err, KafkaError) and err.code() == KafkaError.TOPIC_ALREADY_EXISTS):
            raise ConnectException(f"Unable to create topic {name}: {e}") from e
    # Creation is acknowledged before every broker's metadata cache has the topic: poll briefly.
    deadline = time.monotonic() + timeout_s
    pause = threading.Event()
    count = _partition_count(admin, name, timeout_s)
    while not count and time.monotonic() < deadline:
        pause.wait(0.1)
        count = _partition_count(admin, name, timeout_s)
    if not count:
        raise ConnectException(f"Topic {name} was created but its metadata did not appear")
    return count


def _partition_count(admin: AdminClient, name: str, timeout_s: float) -> int | None:
    md = admin.list_topics(name, timeout=timeout_s)
    tmd = md.topics.get(name)
    if tmd is None or tmd.error is not None:
        return None
    return len(tmd.partitions) or None


def ensure_config_topic(admin: AdminClient, name: str, replication_factor: int, configs: Mapping[str, str],
                        timeout_s: float = 30.0) -> None:
    """The config topic must have exactly one partition: records are totally ordered through it."""
    count = ensure_topic(admin, name, 1, replication_factor, configs, timeout_s)
    if count != 1:
        raise ConnectException(
            f"Topic '{name}' supplied via the 'config.storage.topic' property is required to have a single "
            f"partition in order to guarantee consistency of connector configurations, but it has {count} "
            "partitions. Delete it and let the worker recreate it, or choose another topic.")


def max_message_bytes(admin: AdminClient, name: str, timeout_s: float = 30.0) -> int | None:
    """The topic's ``max.message.bytes`` (the largest record batch it accepts), None if unknown."""
    resource = ConfigResource(ResourceType.TOPIC, name)
    try:
        configs = admin.describe_configs([resource], request_timeout=timeout_s)[resource].result(timeout_s)
        entry = configs.get("max.message.bytes")
        return int(entry.value) if entry is not None and entry.value is not None else None
    except Exception as e:  # only a pre-flight check depends on it; the broker enforces it anyway
        logger.warning("Could not read max.message.bytes of topic %s: %s", name, e)
        return None
