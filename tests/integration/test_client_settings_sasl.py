"""Java client settings in a worker file, on the real broker: a SASL/PLAIN ``sasl.jaas.config`` reaches
every client (the worker starts on the broker's SASL listener and runs an exactly-once connector), a
Java-only setting refuses start-up with one line naming it, wrong credentials fail start-up with a clear
line instead of hanging, and a connector override with no librdkafka equivalent is a validation error on
its key."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from connect_runtime.testing.cluster import ConnectClient, WorkerProcess, read_committed
from connect_runtime.testing.local_kafka import SASL_PASSWORD, SASL_USERNAME
from connect_runtime.testing.pytest_plugin import new_topic

pytestmark = pytest.mark.kafka


def _sasl(password: str = SASL_PASSWORD) -> dict[str, str]:
    """A worker file's SASL/PLAIN settings, as written for Apache Kafka Connect."""
    return {
        "security.protocol": "SASL_PLAINTEXT",
        "sasl.mechanism": "PLAIN",
        "sasl.jaas.config": "org.apache.kafka.common.security.plain.PlainLoginModule required "
                            f'username="{SASL_USERNAME}" password="{password}";',
    }


@pytest.fixture(scope="module")
def sasl_worker(kafka_sasl_bootstrap: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[WorkerProcess]:
    extra = {**_sasl(), "producer.buffer.memory": "8388608", "producer.max.request.size": "2097152",
             "consumer.fetch.max.wait.ms": "100"}
    worker = WorkerProcess(kafka_sasl_bootstrap, tmp_path_factory.mktemp("sasl-worker"),
                           f"sasl-{uuid.uuid4().hex[:8]}", extra=extra).start_ready(90)
    try:
        yield worker
    finally:
        worker.stop()


def test_sasl_plain_worker_runs_an_exactly_once_connector(
        sasl_worker: WorkerProcess, kafka_bootstrap: str, kafka_sasl_bootstrap: str) -> None:
    assert kafka_sasl_bootstrap != kafka_bootstrap
    topic = new_topic(kafka_bootstrap)
    client = ConnectClient(sasl_worker.url)
    try:
        client.create_connector("sasl-source", {"connector.class": "VerifiableSource", "topic": topic,
                                                "tasks.max": "1", "throughput": "50"})
        client.wait_running("sasl-source", 1)
        # Committed records on the topic: the task's transactional producer, the fencing producer and
        # the offsets reader all logged in through the SASL listener.
        records = read_committed(kafka_bootstrap, topic, timeout_s=60)
        assert records, "no committed records"
    finally:
        client.close()


def test_connector_override_without_equivalent_is_a_validation_error(sasl_worker: WorkerProcess) -> None:
    client = ConnectClient(sasl_worker.url)
    try:
        config = {"name": "bad-override", "connector.class": "VerifiableSource", "topic": "t", "tasks.max": "1",
                  "producer.override.max.block.ms": "1000", "producer.override.linger.ms": "20"}
        r = client.request("PUT", "/connector-plugins/VerifiableSource/config/validate", json=config)
        assert r.status_code == 200, r.text
        body = r.json()
        errors = {c["value"]["name"]: c["value"]["errors"] for c in body["configs"] if c["value"]["errors"]}
        assert list(errors) == ["producer.override.max.block.ms"], errors
        assert body["error_count"] == 1
        assert "delivery.timeout.ms" in errors["producer.override.max.block.ms"][0]
        r = client.request("POST", "/connectors", json={"name": "bad-override", "config": config})
        assert r.status_code == 400 and "producer.override.max.block.ms" in r.text, r.text
    finally:
        client.close()


def test_java_only_setting_refuses_start_with_one_named_line(kafka_bootstrap: str, tmp_path: Path) -> None:
    worker = WorkerProcess(kafka_bootstrap, tmp_path, f"java-only-{uuid.uuid4().hex[:8]}",
                           extra={"producer.interceptor.classes": "com.example.AuditInterceptor"})
    assert worker.start().wait_exit() == 1
    lines = [line for line in worker.log_tail().splitlines() if line.startswith("connect-distributed:")]
    assert len(lines) == 1 and lines[0].startswith(
        "connect-distributed: Unsupported Kafka client setting producer.interceptor.classes: "), worker.log_tail()


def test_wrong_sasl_password_fails_start_up_with_a_clear_line(kafka_sasl_bootstrap: str, tmp_path: Path) -> None:
    worker = WorkerProcess(kafka_sasl_bootstrap, tmp_path, f"sasl-bad-{uuid.uuid4().hex[:8]}",
                           extra=_sasl("not-the-password"))
    started = time.monotonic()
    assert worker.start().wait_exit() == 1, worker.log_tail()
    # At once, not after the 30 s the worker gives an unreachable cluster.
    assert time.monotonic() - started < 20, worker.log_tail()
    tail = worker.log_tail()
    assert "connect-distributed: failed to start: Kafka refused the worker's login: " in tail, tail
    assert "Authentication failed" in tail, tail
    assert "not-the-password" not in tail
