"""The local Kafka launcher: a real broker, transactions, restart keeps data, clear errors."""

from __future__ import annotations

import shutil
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer, KafkaError, Producer, TopicPartition

from connect_runtime.testing.local_kafka import (
    KAFKA_VERSION,
    LocalKafka,
    LocalKafkaError,
    cli,
    ensure_jars,
    port_in_use,
    session_kafka_version,
)
from connect_runtime.testing.pytest_plugin import new_topic

COMMITTED = 50
ABORTED = 7

OTHER_RELEASE = "4.4.0" if KAFKA_VERSION != "4.4.0" else "4.1.1"
"""A release that is not the default, for ``--kafka-version``."""


def _read_committed(bootstrap: str, topic: str, timeout: float = 30.0) -> list[str]:
    """All read_committed values of partition 0 of ``topic``, read until the partition's end."""
    consumer: Any = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"reader-{uuid.uuid4().hex}",
            "isolation.level": "read_committed",
            "enable.auto.commit": False,
            "enable.partition.eof": True,
            "auto.offset.reset": "earliest",
        }
    )
    values: list[str] = []
    try:
        consumer.assign([TopicPartition(topic, 0, 0)])
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            msg = consumer.poll(0.5)
            if msg is None:
                continue
            if msg.error():
                if msg.error().code() == KafkaError._PARTITION_EOF:
                    return values
                raise AssertionError(f"consumer error: {msg.error()}")
            values.append(msg.value().decode())
        raise AssertionError(f"did not reach the end of {topic} within {timeout} s (read {len(values)})")
    finally:
        consumer.close()


def _produce_transactions(bootstrap: str, topic: str) -> None:
    producer: Any = Producer(
        {"bootstrap.servers": bootstrap, "transactional.id": f"txn-{topic}", "enable.idempotence": True}
    )
    producer.init_transactions(30)
    producer.begin_transaction()
    for i in range(COMMITTED):
        producer.produce(topic, key=str(i).encode(), value=f"committed-{i}".encode())
    producer.commit_transaction(30)

    producer.begin_transaction()
    for i in range(ABORTED):
        producer.produce(topic, value=f"aborted-{i}".encode())
    producer.flush(30)  # the aborted records really reach the log
    producer.abort_transaction(30)


@pytest.fixture
def own_kafka(tmp_path: Path) -> Iterator[LocalKafka]:
    """A broker owned by one test (not the session fixture), always stopped afterwards."""
    kafka = LocalKafka(tmp_path / "kafka", kafka_version=session_kafka_version())
    try:
        yield kafka
    finally:
        kafka.stop()


@pytest.mark.kafka
def test_transactions_and_restart_keep_data(
    own_kafka: LocalKafka, capsys: pytest.CaptureFixture[str]
) -> None:
    started = time.monotonic()
    bootstrap = own_kafka.start()
    first_start = time.monotonic() - started
    host, port = bootstrap.split(":")
    assert host == "127.0.0.1"
    status = own_kafka.status()
    assert status.running and status.bootstrap == bootstrap and status.pid is not None

    # the CLI sees the running broker and just prints its bootstrap line
    assert cli(["start", "--data-dir", str(own_kafka.data_dir)]) == 0
    assert capsys.readouterr().out == f"bootstrap.servers={bootstrap}\n"

    topic = new_topic(bootstrap)
    _produce_transactions(bootstrap, topic)
    expected = [f"committed-{i}" for i in range(COMMITTED)]
    assert _read_committed(bootstrap, topic) == expected

    assert own_kafka.stop() is True
    assert not own_kafka.status().running
    assert not own_kafka.pid_file.exists()
    assert not port_in_use(int(port))
    assert own_kafka.stop() is False

    started = time.monotonic()
    assert own_kafka.start() == bootstrap  # same ports, same formatted data
    restart = time.monotonic() - started
    assert _read_committed(bootstrap, topic) == expected

    # the transaction state survived too: the same transactional.id can be fenced and reused
    _produce_transactions(bootstrap, topic)
    assert _read_committed(bootstrap, topic) == expected + expected

    assert cli(["stop", "--data-dir", str(own_kafka.data_dir)]) == 0
    assert cli(["status", "--data-dir", str(own_kafka.data_dir)]) == 1
    print(f"first start {first_start:.1f} s, restart {restart:.1f} s")


@pytest.mark.kafka
def test_another_release_through_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data_dir = tmp_path / "kafka"
    try:
        assert cli(["start", "--kafka-version", OTHER_RELEASE, "--data-dir", str(data_dir)]) == 0
        bootstrap = capsys.readouterr().out.strip().removeprefix("bootstrap.servers=")
        assert cli(["status", "--data-dir", str(data_dir)]) == 0
        assert capsys.readouterr().out.strip().endswith(f"; Kafka {OTHER_RELEASE}")
        assert f"Kafka version: {OTHER_RELEASE}" in LocalKafka(data_dir).server_log.read_text()  # the broker's own word

        topic = new_topic(bootstrap)
        _produce_transactions(bootstrap, topic)
        assert _read_committed(bootstrap, topic) == [f"committed-{i}" for i in range(COMMITTED)]
    finally:
        assert cli(["stop", "--data-dir", str(data_dir)]) == 0


def test_java_missing_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    real_which = shutil.which
    monkeypatch.setattr(
        shutil, "which", lambda cmd, *a, **k: None if cmd == "java" else real_which(cmd, *a, **k)
    )
    with pytest.raises(LocalKafkaError) as info:
        LocalKafka(tmp_path / "kafka").start()
    assert info.value.message == (
        f"java was not found on PATH; Kafka {KAFKA_VERSION} needs Java 17+ "
        "(e.g. apt-get install openjdk-17-jre-headless)"
    )

    monkeypatch.setattr(shutil, "which", real_which)
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    assert cli(["start", "--data-dir", str(tmp_path / "kafka")]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1] == f"error: {info.value.message}"


def test_mvn_missing_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    with pytest.raises(LocalKafkaError) as info:
        ensure_jars(tmp_path / "cache")  # empty cache: a fetch is needed
    assert info.value.message.startswith("mvn was not found on PATH;")
