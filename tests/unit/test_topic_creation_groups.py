"""Which topic creation group a topic falls in (first match, exclusions win, the default group last)."""

from __future__ import annotations

import pytest

from connect_runtime.api.errors import ConnectException
from connect_runtime.config.connector_config import SourceConnectorConfig
from connect_runtime.worker.topic_creation import TaskTopics

PROPS = {
    "name": "c", "connector.class": "VerifiableSource",
    "topic.creation.groups": "compacted,logs",
    "topic.creation.default.replication.factor": "1", "topic.creation.default.partitions": "1",
    "topic.creation.compacted.include": "state-.*,.*-changelog",
    "topic.creation.compacted.exclude": "state-tmp.*",
    "topic.creation.logs.include": "state-.*,logs",
}


def _topics(props: dict[str, str]) -> TaskTopics:
    config = SourceConnectorConfig.parse(props, topic_creation_enabled=True)
    return TaskTopics("c", config.topic_creation, dict, True)


def test_first_matching_group_wins_and_the_default_takes_the_rest() -> None:
    topics = _topics(PROPS)
    assert topics.group_for("state-a").name == "compacted"
    assert topics.group_for("app-changelog").name == "compacted"
    # Excluded from the first group, included by the next one.
    assert topics.group_for("state-tmp1").name == "logs"
    assert topics.group_for("logs").name == "logs"
    # Patterns match the whole name, as Java's matches().
    assert topics.group_for("logs2").name == "default"
    assert topics.group_for("xstate-a").name == "default"


def test_a_group_without_include_matches_nothing() -> None:
    props = {**PROPS, "topic.creation.groups": "bare",
             "topic.creation.bare.partitions": "5"}
    props = {k: v for k, v in props.items() if not k.startswith(("topic.creation.compacted", "topic.creation.logs"))}
    assert _topics(props).group_for("anything").name == "default"


def test_admin_settings_that_cannot_build_a_client_fail_naming_the_topic() -> None:
    """librdkafka refuses the admin client's settings: a ConnectException naming the topic (not a
    KafkaException, which the task would report as a failure to send records)."""
    config = SourceConnectorConfig.parse(PROPS, topic_creation_enabled=True)
    topics = TaskTopics("c", config.topic_creation,
                        lambda: {"bootstrap.servers": "localhost:1", "no.such.librdkafka.setting": "1"}, True)
    with pytest.raises(ConnectException) as info:
        topics.ensure("logs", None)  # type: ignore[arg-type]
    assert "Task failed to create new topic logs" in str(info.value)


def test_include_and_exclude_are_java_regexes_with_named_groups() -> None:
    """Kafka Connect configs use java.util.regex: ``(?<name>...)`` is accepted at validation and matches."""
    props = {**PROPS, "topic.creation.compacted.include": "(?<kind>state)-.*",
             "topic.creation.compacted.exclude": "(?<tmp>state-tmp).*"}
    topics = _topics(props)
    assert topics.group_for("state-a").name == "compacted"
    assert topics.group_for("state-tmp1").name == "logs"
