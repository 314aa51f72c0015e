"""The three-node local Kafka without a broker: its command line's refusals, the external cluster of the
``kafka_cluster`` fixture, and the transaction coordinator's partition as the broker computes it."""

from __future__ import annotations

from pathlib import Path

import pytest

from connect_runtime.testing.local_kafka import LocalKafkaError, cli
from connect_runtime.testing.local_kafka_cluster import KafkaCluster, LocalKafkaCluster, java_string_hash


def test_java_string_hash_is_javas() -> None:
    # Values of Java's String.hashCode(): negative ones, Integer.MIN_VALUE, a character outside the BMP.
    assert java_string_hash("") == 0
    assert java_string_hash("hello") == 99162322
    assert java_string_hash("tx-i27") == -861720155
    assert java_string_hash("polygenelubricants") == -(2**31)
    assert java_string_hash("transactional-id-1234567890") == 650335049
    assert java_string_hash("\U0001f600") == 1772899


def test_kill_and_restart_need_a_cluster(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(["kill", "1", "--data-dir", str(tmp_path / "single")]) == 1
    assert "holds no Kafka cluster" in capsys.readouterr().err
    assert cli(["restart", "1", "--data-dir", str(tmp_path / "single")]) == 1


def test_only_one_or_three_brokers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(["start", "--brokers", "2", "--data-dir", str(tmp_path / "two")]) == 1
    assert "1 or 3 brokers" in capsys.readouterr().err
    with pytest.raises(LocalKafkaError, match="nodes \\[1, 2, 3\\], not 4"):
        LocalKafkaCluster(tmp_path / "three").node(4)


def test_port_is_for_a_single_broker(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(["start", "--brokers", "3", "--port", "9092", "--data-dir", str(tmp_path / "three")]) == 1
    assert "--port applies to a single broker" in capsys.readouterr().err
    recorded = tmp_path / "recorded"
    recorded.mkdir()
    (recorded / "cluster.json").write_text('{"brokers": 3}')
    assert cli(["start", "--port", "9092", "--data-dir", str(recorded)]) == 1  # the dir says: a cluster
    assert "--port applies to a single broker" in capsys.readouterr().err


def test_a_single_brokers_dir_is_not_a_clusters(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    single = tmp_path / "single"
    single.mkdir()
    (single / "ports.json").write_text('{"port": 9092}')
    assert cli(["start", "--brokers", "3", "--data-dir", str(single)]) == 1
    assert "holds a single broker" in capsys.readouterr().err
    assert not (single / "cluster.json").exists()


def test_an_external_cluster_cannot_be_killed() -> None:
    external = KafkaCluster("127.0.0.1:1")
    with pytest.raises(RuntimeError, match="KAFKA_CLUSTER_BOOTSTRAP_SERVERS"):
        external.kill(1)
    with pytest.raises(RuntimeError, match="external"):
        external.restart(1)
    assert not LocalKafkaCluster.holds_cluster(Path("/nonexistent"))
