"""Built-in plugins answer to the class names of their Apache Kafka counterparts."""

from __future__ import annotations

from connect_runtime.plugins.registry import JAVA_CLASS_NAMES, PluginRegistry, java_class_name
from connectors.verifiable.connector import VerifiableSourceConnector, VerifiableSourceTask


def test_java_names_resolve_to_our_classes() -> None:
    registry = PluginRegistry()
    assert registry.connector_class("org.apache.kafka.connect.tools.VerifiableSourceConnector") \
        is VerifiableSourceConnector
    assert registry.task_class("org.apache.kafka.connect.tools.VerifiableSourceTask") is VerifiableSourceTask
    assert java_class_name(VerifiableSourceTask) == "org.apache.kafka.connect.tools.VerifiableSourceTask"
    for java in JAVA_CLASS_NAMES:
        found = registry.task_class(java) if java.endswith("Task") else registry.resolve(java)
        assert java_class_name(found) == java


def test_verifiable_task_configs_follow_the_name_it_was_configured_by() -> None:
    connector = VerifiableSourceConnector()
    java = {"connector.class": "org.apache.kafka.connect.tools.VerifiableSourceConnector", "topic": "t"}
    connector.start(java)
    assert connector.task_configs(2) == [{**java, "id": "0"}, {**java, "id": "1"}]
    ours = {"connector.class": "VerifiableSource", "topic": "t"}
    connector.start(ours)
    assert connector.task_configs(1) == [{**ours, "task.id": "0"}]
