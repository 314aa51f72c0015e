"""The three-node local Kafka: the command line round trip, a transactional producer that keeps
committing exactly once while the leader of its partition is killed and restarted, and a topic reader
that reads to the end again soon after its partitions' leader is killed."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer, KafkaException, Message, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, ConfigResource

from connect_runtime.storage.kafka_log import KafkaBasedLog
from connect_runtime.testing import wait_until
from connect_runtime.testing.local_kafka import cli, session_kafka_version
from connect_runtime.testing.local_kafka_cluster import KafkaCluster
from connect_runtime.testing.pytest_plugin import new_topic
from connect_runtime.testing.topics import admin_client, client_settings, read_committed

pytestmark = pytest.mark.kafka

FAILOVER_S = 30.0
"""The issue's goal: transactions commit again within this long after a broker is killed."""


def test_cli_round_trip(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data_dir = str(tmp_path / "kafka3")
    try:
        assert cli(["start", "--brokers", "3", "--kafka-version", session_kafka_version(), "--data-dir", data_dir]) == 0
        line = capsys.readouterr().out.strip()
        assert line.startswith("bootstrap.servers=")
        assert len(line.removeprefix("bootstrap.servers=").split(",")) == 3

        assert cli(["status", "--data-dir", data_dir]) == 0
        assert capsys.readouterr().out.count(": running (pid") == 3
        # A cluster's dir is not a single broker's.
        assert cli(["start", "--brokers", "1", "--data-dir", data_dir]) == 1

        assert cli(["kill", "2", "--data-dir", data_dir]) == 0
        assert cli(["status", "--data-dir", data_dir]) == 1
        assert "node 2: not running" in capsys.readouterr().out

        assert cli(["restart", "2", "--data-dir", data_dir]) == 0
        assert cli(["status", "--data-dir", data_dir]) == 0
        capsys.readouterr()

        assert cli(["stop-node", "3", "--data-dir", data_dir]) == 0
        assert cli(["stop-node", "3", "--data-dir", data_dir]) == 0
        assert capsys.readouterr().out.splitlines() == ["stopped node 3", "node 3 was not running"]
        assert cli(["status", "--data-dir", data_dir]) == 1
        assert "node 3: not running" in capsys.readouterr().out
        assert cli(["restart", "3", "--data-dir", data_dir]) == 0
        assert cli(["status", "--data-dir", data_dir]) == 0
    finally:
        assert cli(["stop", "--data-dir", data_dir]) == 0
    assert cli(["status", "--data-dir", data_dir]) == 1
    assert capsys.readouterr().out.count(": not running") == 3


def test_internal_topics_are_replicated_three_times(kafka_cluster: KafkaCluster) -> None:
    bootstrap = kafka_cluster.bootstrap
    topic = new_topic(bootstrap)
    _transactional_producer(bootstrap, f"tx-{topic}")  # creates __transaction_state
    consumer: Any = Consumer(client_settings(bootstrap, **{"group.id": f"group-{topic}", "enable.auto.commit": False}))
    try:
        # Creates __consumer_offsets; its partitions' coordinators load (NOT_COORDINATOR) for a moment.
        wait_until(lambda: all(tp.error is None for tp in consumer.commit(
            offsets=[TopicPartition(topic, 0, 0)], asynchronous=False)), 30, message="an offset commit")
    finally:
        consumer.close()
    admin: Any = admin_client(bootstrap)
    for name in (topic, "__transaction_state", "__consumer_offsets"):
        partitions = admin.list_topics(name, timeout=10).topics[name].partitions.values()
        assert {len(p.replicas) for p in partitions} == {3}, name
        configs = admin.describe_configs([ConfigResource("topic", name)])
        assert next(iter(configs.values())).result()["min.insync.replicas"].value == "2", name


def test_transactions_survive_the_partition_leader_killed(kafka_cluster: KafkaCluster) -> None:
    bootstrap = kafka_cluster.bootstrap
    topic = new_topic(bootstrap, replication_factor=3)
    assert kafka_cluster.node_ids == (1, 2, 3)
    loop = _CommitLoop(bootstrap, topic, f"tx-{topic}")
    loop.start()
    try:
        loop.wait_for(20, 60, "the first commits")
        leader = kafka_cluster.partition_leader(topic)
        coordinator = kafka_cluster.transaction_coordinator(loop.transactional_id)
        assert leader in kafka_cluster.node_ids and coordinator in kafka_cluster.node_ids

        kafka_cluster.kill(leader)
        loop.note(f"killed node {leader} (the coordinator is node {coordinator})")
        try:
            killed_at = len(loop.committed)
            loop.wait_for(killed_at + 20, FAILOVER_S, f"commits to go on after node {leader} was killed")
            assert kafka_cluster.partition_leader(topic) not in (leader, -1)
        finally:
            # Whatever happened: the session's other three-broker tests need every node back.
            kafka_cluster.restart(leader)
        isr = admin_client(bootstrap).list_topics(topic, timeout=10).topics[topic].partitions[0].isrs
        assert sorted(isr) == [1, 2, 3]
        assert kafka_cluster.under_replicated() == []
        restarted_at = len(loop.committed)
        loop.wait_for(restarted_at + 5, FAILOVER_S, "commits after the restart")
    finally:
        loop.stop()
    assert loop.failure is None, loop.failure
    values = [int(value or b"") for _, value in read_committed(bootstrap, topic, timeout_s=30)]
    assert values == loop.committed  # every committed record once, in order; nothing aborted shows


READ_AFTER_KILL_S = 15.0
"""Well inside the 30 s list-offsets request timeout that a killed leader made every read to the end
wait (the cluster fences a killed node within 3 s)."""


def test_a_reader_reads_to_the_end_soon_after_its_leader_is_killed(kafka_cluster: KafkaCluster) -> None:
    """The config, status and offsets readers' read_to_end (behind every REST write and every fencing)
    must not wait for a dead leader: its successor answers."""
    bootstrap = kafka_cluster.bootstrap
    topic = new_topic(bootstrap, partitions=2, replication_factor=3)
    producer = Producer(client_settings(bootstrap, acks="all"))
    seen: list[bytes | None] = []

    def on_record(msg: Message) -> None:
        seen.append(msg.value())

    log = KafkaBasedLog(topic, client_settings(bootstrap), AdminClient(client_settings(bootstrap)), on_record)
    log.start()
    leader = kafka_cluster.partition_leader(topic)
    try:
        producer.produce(topic, value=b"before", partition=0)
        assert producer.flush(30) == 0
        log.read_to_end().result(30)  # the reader's admin client now has the leader cached
        assert seen == [b"before"]

        kafka_cluster.kill(leader)
        producer.produce(topic, value=b"after", partition=0)
        assert producer.flush(60) == 0  # acknowledged by the new leader
        log.read_to_end().result(READ_AFTER_KILL_S)
        assert seen == [b"before", b"after"]
    finally:
        log.stop()
        kafka_cluster.restart(leader)


def _transactional_producer(bootstrap: str, transactional_id: str) -> Any:
    # The default (60 s), as task producers have it. Killing the node that leads the partition, the
    # transaction coordinator and the controller quorum at once can hold a record back for more than
    # 10 s; with a 10 s timeout it then times out, and the abort that follows fails for good when the
    # coordinator never saw the transaction begin (librdkafka issue 4849: INVALID_TXN_STATE, fatal).
    producer: Any = Producer(client_settings(bootstrap, **{"transactional.id": transactional_id,
                                                           "transaction.timeout.ms": 60000}))
    producer.init_transactions(60)
    return producer


class _CommitLoop(threading.Thread):
    """One record per transaction, its value the attempt's number; ``committed`` lists the values of
    the transactions whose commit succeeded. Abortable errors abort (their value never shows)."""

    def __init__(self, bootstrap: str, topic: str, transactional_id: str) -> None:
        super().__init__(name="commit-loop", daemon=True)
        self.bootstrap, self.topic, self.transactional_id = bootstrap, topic, transactional_id
        self.committed: list[int] = []
        self.failure: BaseException | None = None
        self.events: list[str] = []  # what the producer reported and the test did, with the seconds since start
        self._t0 = time.monotonic()
        self._stopping = threading.Event()

    def wait_for(self, commits: int, timeout_s: float, what: str) -> None:
        """Wait until ``commits`` transactions committed; a failed loop fails at once, and a timeout
        lists the producer's errors and the test's steps."""
        def enough() -> bool:
            assert self.failure is None, repr(self.failure)
            return len(self.committed) >= commits
        try:
            wait_until(enough, timeout_s, message=what)
        except AssertionError as exc:
            raise AssertionError(f"{exc}; {len(self.committed)} committed; events: {self.events[-20:]}") from None

    def note(self, event: object) -> None:
        self.events.append(f"{time.monotonic() - self._t0:.1f}s {event}")

    def stop(self) -> None:
        self._stopping.set()
        self.join(60)

    def run(self) -> None:
        try:
            producer = _transactional_producer(self.bootstrap, self.transactional_id)
            attempt = 0
            while not self._stopping.is_set():
                attempt += 1
                if self._commit_one(producer, attempt):
                    self.committed.append(attempt)
        except BaseException as exc:  # reported by the test
            self.failure = exc

    def _commit_one(self, producer: Any, value: int) -> bool:
        began = time.monotonic()
        try:
            producer.begin_transaction()
            producer.produce(self.topic, value=str(value).encode())
            while True:
                try:
                    producer.commit_transaction(30)
                    if (took := time.monotonic() - began) > 1:
                        self.note(f"transaction {value} took {took:.1f}s")
                    return True
                except KafkaException as exc:
                    self.note(exc.args[0])
                    if not exc.args[0].retriable():
                        raise
                    time.sleep(0.1)  # a retriable commit is retried as is: its outcome is still open
        except KafkaException as exc:
            self.note(exc.args[0])
            if not exc.args[0].txn_requires_abort():
                raise
            producer.abort_transaction(30)
            return False
