"""The topics a source task writes: made sure of before its first record to each (KIP-158).

With topic creation (the worker's ``topic.creation.enable`` and the connector's ``topic.creation.*``
settings) a missing topic is created with the settings of the first group that matches it, as the
reference's ``AbstractWorkerSourceTask.maybeCreateTopic`` does; an existing topic is left alone.
Without it, a missing topic fails the task at once, naming the topic and the ways out, instead of
leaving its records queued in the producer until the delivery timeout (and, under exactly-once, a
transaction open until then). Each topic is looked at once per task.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from confluent_kafka import KafkaError, KafkaException, Producer
from confluent_kafka.admin import AdminClient

from connect_runtime.api.errors import ConnectException
from connect_runtime.clients import client_config
from connect_runtime.config.connector_config import TopicCreationGroupConfig
from connect_runtime.config.java_regex import compile_java
from connect_runtime.storage.topics import ensure_topic

logger = logging.getLogger(__name__)

#: How long one metadata lookup or topic creation may take.
_TIMEOUT_S = 30.0


class TopicGroup:
    """A topic creation group with its patterns compiled (full match, as Java's ``matches()``)."""

    def __init__(self, config: TopicCreationGroupConfig) -> None:
        self.config = config
        # Java patterns (e.g. ``(?<name>...)``), joined into one as Kafka's TopicCreationGroup does.
        self._include = compile_java("|".join(config.include)) if config.include else None
        self._exclude = compile_java("|".join(config.exclude)) if config.exclude else None

    def matches(self, topic: str) -> bool:
        if self._exclude is not None and self._exclude.fullmatch(topic):
            return False
        return self._include is not None and self._include.fullmatch(topic) is not None


class TaskTopics:
    """Per task: :meth:`ensure` makes sure a topic exists before the task's first record to it.

    ``groups`` are the connector's topic creation groups (the default group last), empty when the
    worker does not create topics for it; ``admin_settings`` gives the admin client settings (the
    worker's ``admin.*`` with the connector's ``admin.override.*``), asked for only when a topic has to
    be looked up for creation.
    """

    def __init__(self, connector: str, groups: Sequence[TopicCreationGroupConfig],
                 admin_settings: Callable[[], Mapping[str, Any]], worker_enabled: bool) -> None:
        self._connector = connector
        self._groups = [TopicGroup(g) for g in groups]
        self._admin_settings = admin_settings
        self._admin: AdminClient | None = None
        self._worker_enabled = worker_enabled

    def group_for(self, topic: str) -> TopicCreationGroupConfig:
        """The first group that matches ``topic``; the default group (last) takes every other topic."""
        for group in self._groups[:-1]:
            if group.matches(topic):
                return group.config
        return self._groups[-1].config

    def ensure(self, topic: str, producer: Producer) -> None:
        """Return once ``topic`` exists (creating it when the connector asks for topic creation);
        raise ConnectException naming the topic when it does not and may not be created."""
        if self._groups:
            self._create_if_missing(topic)
        elif not self._exists(topic, producer):
            raise ConnectException(self._missing_message(topic))

    def _exists(self, topic: str, producer: Producer) -> bool:
        # The task's own producer asks, as its first send would: a broker with auto.create.topics.enable
        # creates the topic on this request, exactly as it would for the send.
        try:
            md = producer.list_topics(topic, timeout=_TIMEOUT_S).topics.get(topic)
        except KafkaException as e:
            raise ConnectException(f"Could not look up topic '{topic}': {e}") from e
        if md is None:
            return False
        # Any other error (e.g. no leader yet right after an automatic creation) is for the producer.
        return md.error is None or md.error.code() != KafkaError.UNKNOWN_TOPIC_OR_PART

    def _missing_message(self, topic: str) -> str:
        if self._worker_enabled:
            way = ("let the connector create it by configuring topic creation "
                   "(topic.creation.default.replication.factor and topic.creation.default.partitions, "
                   "see topic.creation.* in the connector's configuration)")
        else:
            way = ("enable topic creation on the workers (topic.creation.enable=true) and configure it on the "
                   "connector (topic.creation.default.replication.factor and topic.creation.default.partitions)")
        return (f"Topic '{topic}' does not exist and the connector {self._connector} is not configured to create "
                f"it, so its task cannot write to it. Either create the topic, or {way}, then restart the task.")

    def _create_if_missing(self, topic: str) -> None:
        group = self.group_for(topic)
        logger.info("The task will send records to topic '%s' for the first time. Checking whether topic exists",
                    topic)
        try:
            if self._admin is None:
                # Inside the try: an admin client the settings cannot build fails naming the topic, not
                # as a failure to send records.
                conf = dict(self._admin_settings())
                # Looking a topic up must never create it with the broker's defaults instead of the group's.
                conf["allow.auto.create.topics"] = False
                self._admin = AdminClient(client_config(conf))
            ensure_topic(self._admin, topic, group.partitions, group.replication_factor, group.topic_configs,
                         _TIMEOUT_S)
        except (ConnectException, KafkaException) as e:
            raise ConnectException(
                f"Task failed to create new topic {topic} (topic creation group {group.name}: partitions="
                f"{group.partitions}, replication factor={group.replication_factor}, configs="
                f"{dict(group.topic_configs)}): {e}. Ensure that the task is authorized to create topics or that "
                "the topic exists and restart the task") from e
