"""Topic creation (KIP-158) on a real worker and broker (broker auto-creation off): topics are created
before the first record to them with the first matching group's settings, existing topics are left
alone; without topic creation a task writing to a missing topic fails at once, naming the topic and
the ways out, and a sibling task of the connector still starts within seconds."""

from __future__ import annotations

import time
import uuid
from pathlib import Path

import pytest
from confluent_kafka.admin import AdminClient, ConfigResource, ConfigSource, ResourceType

from connect_runtime.testing.cluster import ConnectClient, WorkerProcess, end_offsets, plugin_path, wait_until
from connect_runtime.testing.pytest_plugin import new_topic

PLUGINS_DIR = Path(__file__).resolve().parents[1] / "plugins"
pytestmark = [pytest.mark.kafka, pytest.mark.connect_worker(eos="enabled", extra=plugin_path(PLUGINS_DIR))]
CONNECTOR_CLASS = "topic_per_task_source.TopicPerTaskSourceConnector"


def _fresh_name(label: str) -> str:
    return f"tc-{label}-{uuid.uuid4().hex[:8]}"


def _topic(admin: AdminClient, name: str) -> tuple[int, int, dict[str, str]] | None:
    """(partitions, replication factor, configs set on the topic) or None when it does not exist."""
    md = admin.list_topics(name, timeout=10).topics.get(name)
    if md is None or md.error is not None:
        return None
    resource = ConfigResource(ResourceType.TOPIC, name)
    entries = admin.describe_configs([resource])[resource].result(10)
    configs = {k: e.value for k, e in entries.items() if e.source == ConfigSource.DYNAMIC_TOPIC_CONFIG.value}
    first = next(iter(md.partitions.values()))
    return len(md.partitions), len(first.replicas), configs


def _has_records(bootstrap: str, topic: str) -> bool:
    return sum(end_offsets(bootstrap, topic).values()) > 0


def test_topics_are_created_with_the_first_matching_group(kafka_bootstrap: str, worker: WorkerProcess) -> None:
    plain, compacted = _fresh_name("plain"), _fresh_name("compacted")
    existing = new_topic(kafka_bootstrap, partitions=1)
    admin = AdminClient({"bootstrap.servers": kafka_bootstrap, "allow.auto.create.topics": False})
    assert _topic(admin, plain) is None and _topic(admin, compacted) is None
    client = ConnectClient(worker.url)
    client.create_connector("creator", {
        "connector.class": CONNECTOR_CLASS, "tasks.max": "3", "topics": f"{plain},{compacted},{existing}",
        "topic.creation.groups": "compacted",
        "topic.creation.compacted.include": "tc-compacted-.*",
        "topic.creation.compacted.partitions": "2",
        "topic.creation.compacted.cleanup.policy": "compact",
        "topic.creation.default.replication.factor": "-1",  # the broker's default (1 on the test broker)
        "topic.creation.default.partitions": "3",
        "topic.creation.default.retention.ms": "3600000",
    })
    client.wait_running("creator", 3)
    for topic in (plain, compacted, existing):
        wait_until(lambda t=topic: _has_records(kafka_bootstrap, t), 30, message=f"records in {topic}")
    # The default group: its partitions and topic configs.
    assert _topic(admin, plain) == (3, 1, {"retention.ms": "3600000"})
    # The first matching group: its own partitions and configs, the default group's replication factor;
    # the default group's topic configs are not inherited.
    assert _topic(admin, compacted) == (2, 1, {"cleanup.policy": "compact"})
    # An existing topic is left as it is.
    assert _topic(admin, existing) == (1, 1, {})
    client.close()


def test_missing_topic_without_creation_fails_at_once(kafka_bootstrap: str, worker: WorkerProcess) -> None:
    missing = _fresh_name("missing")
    existing, other = new_topic(kafka_bootstrap), new_topic(kafka_bootstrap)
    client = ConnectClient(worker.url)
    started = time.monotonic()
    client.create_connector("writer", {"connector.class": CONNECTOR_CLASS, "tasks.max": "2",
                                       "topics": f"{missing},{existing},{other}"})

    def task_states() -> dict[int, dict[str, str]]:
        return {t["id"]: t for t in client.status("writer")["tasks"]}

    failed = wait_until(lambda: (t := task_states().get(0)) and t["state"] == "FAILED" and t, 20,
                        message="task 0 FAILED")
    # At once, not after a delivery timeout: the task looks the topic up before its first record.
    assert time.monotonic() - started < 20
    trace = failed["trace"]
    assert f"Topic '{missing}' does not exist" in trace
    assert "create the topic" in trace and "topic.creation.default.partitions" in trace
    # The sibling task writes on; the missing topic was not created by anyone.
    wait_until(lambda: task_states().get(1, {}).get("state") == "RUNNING", 20, message="task 1 RUNNING")
    wait_until(lambda: _has_records(kafka_bootstrap, existing), 20, message="records of task 1")
    admin = AdminClient({"bootstrap.servers": kafka_bootstrap, "allow.auto.create.topics": False})
    assert _topic(admin, missing) is None

    # A new sibling (a new task generation: the connector's transactional ids are fenced, task 0's
    # included) starts within seconds: the failed task left no transaction open.
    resized = time.monotonic()
    r = client.request("PUT", "/connectors/writer/config",
                       json={"connector.class": CONNECTOR_CLASS, "tasks.max": "3",
                             "topics": f"{missing},{existing},{other}"})
    assert r.status_code == 200, r.text
    wait_until(lambda: task_states().get(2, {}).get("state") == "RUNNING", 20, message="task 2 RUNNING")
    assert time.monotonic() - resized < 20
    wait_until(lambda: _has_records(kafka_bootstrap, other), 20, message="records of task 2")
    client.close()


def test_validation_requires_the_default_group(worker: WorkerProcess) -> None:
    client = ConnectClient(worker.url)
    r = client.request("PUT", f"/connector-plugins/{CONNECTOR_CLASS}/config/validate",
                       json={"connector.class": CONNECTOR_CLASS, "name": "v", "topics": "a",
                             "topic.creation.groups": "big", "topic.creation.big.partitions": "5",
                             "topic.creation.other.partitions": "5"})
    assert r.status_code == 200, r.text
    errors = {c["value"]["name"]: c["value"]["errors"] for c in r.json()["configs"] if c["value"]["errors"]}
    assert errors["topic.creation.default.replication.factor"] == [
        'Missing required configuration "topic.creation.default.replication.factor" which has no default value.']
    assert errors["topic.creation.default.partitions"] == [
        'Missing required configuration "topic.creation.default.partitions" which has no default value.']
    assert "topic.creation.other.partitions" in errors["topic.creation.groups"][0]
    assert r.json()["error_count"] == 3
    client.close()
