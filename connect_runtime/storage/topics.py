"""Creating the internal topics at start-up and checking the ones that exist."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Mapping

from confluent_kafka import KafkaError, KafkaException
from confluent_kafka.admin import AdminClient, ConfigResource, NewTopic, ResourceType

from connect_runtime.api.errors import ConfigException, ConnectException

logger = logging.getLogger(__name__)

#: The worker settings naming the internal topics (quoted by the messages about them).
CONFIG_TOPIC_KEY = "config.storage.topic"
OFFSET_TOPIC_KEY = "offset.storage.topic"
STATUS_TOPIC_KEY = "status.storage.topic"


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
    return _ensure(admin, name, partitions, replication_factor, configs, timeout_s)[0]


def _ensure(admin: AdminClient, name: str, partitions: int, replication_factor: int, configs: Mapping[str, str],
            timeout_s: float) -> tuple[int, bool]:
    """:func:`ensure_topic`, also saying whether this call created the topic."""
    existing = _partition_count(admin, name, timeout_s)
    if existing is not None:
        return existing, False
    topic = NewTopic(name, num_partitions=partitions, replication_factor=replication_factor,
                     config=dict(configs))
    created = True
    try:
        admin.create_topics([topic], request_timeout=timeout_s)[name].result(timeout_s)
        logger.info("Created topic %s (partitions=%s, replication factor=%s, %s)", name, partitions,
                    replication_factor, dict(configs))
    except KafkaException as e:
        err = e.args[0] if e.args else None
        if not (isinstance(err, KafkaError) and err.code() == KafkaError.TOPIC_ALREADY_EXISTS):
            raise ConnectException(f"Unable to create topic {name}: {e}") from e
        created = False  # another worker created it first: it is checked like any existing topic
    # Creation is acknowledged before every broker's metadata cache has the topic: poll briefly.
    deadline = time.monotonic() + timeout_s
    pause = threading.Event()
    count = _partition_count(admin, name, timeout_s)
    while not count and time.monotonic() < deadline:
        pause.wait(0.1)
        count = _partition_count(admin, name, timeout_s)
    if not count:
        raise ConnectException(f"Topic {name} was created but its metadata did not appear")
    return count, created


def ensure_internal_topic(admin: AdminClient, name: str, partitions: int, replication_factor: int,
                          configs: Mapping[str, str], worker_key: str, purpose: str,
                          timeout_s: float = 30.0) -> int:
    """Create an internal topic (offsets, status, config) if missing, else check that it is compacted
    and only compacted (the reference's ``TopicAdmin.verifyTopicCleanupPolicyOnlyCompact``); return
    its partition count.

    ``worker_key`` is the setting that named the topic and ``purpose`` what the topic keeps (both for
    the message). An existing topic whose ``cleanup.policy`` is not exactly ``compact`` raises a
    :class:`ConfigException` with the reference's message: deleting old records of these topics
    loses connector configs, offsets or statuses. A policy the worker may not read (no
    DescribeConfigs permission) is logged and passes, as in the reference.
    """
    count, created = _ensure(admin, name, partitions, replication_factor, configs, timeout_s)
    if not created:
        _verify_only_compact(admin, name, worker_key, purpose, timeout_s)
    return count


def _verify_only_compact(admin: AdminClient, name: str, worker_key: str, purpose: str, timeout_s: float) -> None:
    policies = _cleanup_policies(admin, name, timeout_s)
    if policies is None:
        logger.info("Unable to use admin client to verify the cleanup policy of '%s' topic is 'compact', either "
                    "because the broker is an older version or because the Kafka principal used for Connect "
                    "internal topics does not have the required permission to describe topic configurations.",
                    name)
        return
    if policies != ["compact"]:
        found = ",".join(policies)
        raise ConfigException(
            f"Topic '{name}' supplied via the '{worker_key}' property is required to have 'cleanup.policy=compact' "
            f"to guarantee consistency and durability of {purpose}, but found the topic currently has "
            f"'cleanup.policy={found}'. Continuing would likely result in eventually losing {purpose} and problems "
            f"restarting this Connect cluster in the future. Change the '{worker_key}' property in the Connect "
            "worker configurations to use a topic with 'cleanup.policy=compact'.")


def _cleanup_policies(admin: AdminClient, name: str, timeout_s: float) -> list[str] | None:
    """The topic's cleanup policies (sorted, lower case), None when they cannot be read."""
    resource = ConfigResource(ResourceType.TOPIC, name)
    try:
        configs = admin.describe_configs([resource], request_timeout=timeout_s)[resource].result(timeout_s)
    except KafkaException as e:  # e.g. not authorized to describe configs
        logger.debug("Could not describe the configs of topic %s: %s", name, e)
        return None
    except TimeoutError:
        raise ConnectException(f"Timed out after {timeout_s:g} s reading the configs of topic {name}") from None
    entry = configs.get("cleanup.policy")
    if entry is None or entry.value is None:
        return None
    policies = {p.strip().lower() for p in entry.value.split(",") if p.strip()}
    return sorted(policies) or None


def _partition_count(admin: AdminClient, name: str, timeout_s: float) -> int | None:
    md = admin.list_topics(name, timeout=timeout_s)
    tmd = md.topics.get(name)
    if tmd is None or tmd.error is not None:
        return None
    return len(tmd.partitions) or None


def ensure_config_topic(admin: AdminClient, name: str, replication_factor: int, configs: Mapping[str, str],
                        timeout_s: float = 30.0) -> None:
    """The config topic must be compacted (see :func:`ensure_internal_topic`) and have exactly one
    partition: records are totally ordered through it. Either problem raises :class:`ConfigException`
    with the reference's message."""
    count = ensure_internal_topic(admin, name, 1, replication_factor, configs, CONFIG_TOPIC_KEY,
                                  "connector configurations", timeout_s)
    if count > 1:
        raise ConfigException(
            f"Topic '{name}' supplied via the '{CONFIG_TOPIC_KEY}' property is required to have a single partition "
            f"in order to guarantee consistency of connector configurations, but found {count} partitions.")


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
