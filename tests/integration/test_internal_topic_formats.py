"""The bytes a running worker writes to its internal topics are Kafka Connect's formats
(docs/architecture.md, "Internal topic records"), so a Java Connect cluster can read them and vice
versa."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable

import pytest
from confluent_kafka import Consumer, TopicPartition

from connect_runtime.testing.cluster import ConnectClient, WorkerProcess, end_offsets, wait_until
from connect_runtime.testing.pytest_plugin import new_topic

pytestmark = pytest.mark.kafka


def _raw(bootstrap: str, topic: str) -> list[tuple[bytes, bytes | None]]:
    ends = end_offsets(bootstrap, topic)
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": f"raw-{uuid.uuid4()}",
                  "isolation.level": "read_committed", "enable.auto.commit": False})
    c.assign([TopicPartition(topic, p, 0) for p in ends])
    out: list[tuple[bytes, bytes | None]] = []
    try:
        def done() -> bool:
            for m in c.consume(1000, 0.3):
                key = m.key()
                if m.error() is None and key is not None:
                    out.append((key, m.value()))
            return all(tp.offset >= ends[tp.partition] or ends[tp.partition] == 0
                       for tp in c.position([TopicPartition(topic, p) for p in ends]))

        wait_until(done, 60, interval_s=0, message=f"reading {topic}")
    finally:
        c.close()
    return out


def test_config_offset_and_status_records(kafka_bootstrap: str,
                                          worker_factory: Callable[..., WorkerProcess]) -> None:
    topic = new_topic(kafka_bootstrap)
    worker = worker_factory()
    worker.wait_ready()
    client = ConnectClient(worker.url)
    name = "fmt-check"
    client.create_connector(name, {"connector.class": "VerifiableSource", "topic": topic, "tasks.max": "2",
                                   "throughput": "50"})
    client.wait_running(name, 2)
    assert client.request("PUT", f"/connectors/{name}/pause").status_code == 202
    wait_until(lambda: client.status(name)["connector"]["state"] == "PAUSED", 30, message="paused")
    assert worker.stop() == 0

    config = dict(_raw(kafka_bootstrap, worker.props["config.storage.topic"]))
    assert config[f"connector-{name}".encode()] == (
        b'{"properties":{"connector.class":"VerifiableSource","topic":"' + topic.encode()
        + b'","tasks.max":"2","throughput":"50","name":"fmt-check"}}')
    task0 = json.loads(config[f"task-{name}-0".encode()] or b"null")
    assert list(task0) == ["properties"] and task0["properties"]["task.id"] == "0"
    assert config[f"commit-{name}".encode()] == b'{"tasks":2}'
    assert config[f"tasks-fencing-{name}".encode()] == b'{"task-count":2}'
    assert config[f"target-state-{name}".encode()] == b'{"state":"PAUSED","state.v2":"PAUSED"}'

    offsets = dict(_raw(kafka_bootstrap, worker.props["offset.storage.topic"]))
    for task in (0, 1):
        key = f'["{name}",{{"id":{task}}}]'.encode()
        assert key in offsets
        value = offsets[key]
        assert value is not None and value.startswith(b'{"seqno":') and value.endswith(b"}")

    status = dict(_raw(kafka_bootstrap, worker.props["status.storage.topic"]))
    task_status = json.loads(status[f"status-task-{name}-0".encode()] or b"null")
    assert list(task_status) == ["state", "trace", "worker_id", "generation", "version"]  # Kafka 4.1's layout
    # The stopped worker's last word is UNASSIGNED, written after the task instance is gone: no version.
    assert task_status["state"] == "UNASSIGNED" and task_status["version"] is None
    assert task_status["worker_id"] == f"127.0.0.1:{worker.port}"
    connector_status = status[f"status-connector-{name}".encode()]
    assert connector_status is not None and connector_status.startswith(b'{"state":"PAUSED","trace":null,')
