"""A worker survives its broker going away and coming back.

The broker here is the test's own (``LocalKafka`` in a temporary directory), never the session's
shared one: it is stopped for 30 s and started again on the same data directory and port, as an
operator restarting Kafka would. The worker must recover by itself (no REST call but GETs), deliver
every sequence number exactly once, and not flood its log.
"""

from __future__ import annotations

import collections
import re
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from connect_runtime.storage import formats
from connect_runtime.testing.cluster import (
    FAST_FAILOVER,
    ConnectClient,
    WorkerProcess,
    check_sequences,
    end_offsets,
    read_committed,
    verifiable_pairs,
    wait_until,
)
from connect_runtime.testing.local_kafka import LocalKafka, free_port, session_kafka_version
from connect_runtime.testing.pytest_plugin import new_topic

pytestmark = [pytest.mark.kafka, pytest.mark.cluster]

OUTAGE_S = 30.0
#: The 30 s outage is far beyond FAST_FAILOVER's session timeout, so the worker also goes through
#: "lost contact, stop tasks, resume".
SETTINGS = FAST_FAILOVER
_ERROR_LINE = re.compile(r"^\[[^]]+\] ERROR ")
_LOGGER = re.compile(r"\((?P<logger>[\w.]+)\) \[[^]]*\]$")


@pytest.fixture
def own_kafka(tmp_path: Path) -> Iterator[tuple[LocalKafka, int, str]]:
    kafka = LocalKafka(tmp_path / "kafka", kafka_version=session_kafka_version())
    port = free_port()
    bootstrap = kafka.start(port=port)
    try:
        yield kafka, port, bootstrap
    finally:
        kafka.stop()


def error_lines(log: Path) -> list[str]:
    """The worker log's ERROR lines (one per logged event; traceback lines do not count)."""
    return [line for line in log.read_text(errors="replace").splitlines() if _ERROR_LINE.match(line)]


def _topic_task_states(bootstrap: str, status_topic: str) -> dict[int, str | None]:
    """The latest state of each task of ``vs`` in the status topic."""
    states: dict[int, str | None] = {}
    for key, value in read_committed(bootstrap, status_topic, timeout_s=30):
        if key is not None and key.startswith(b"status-task-vs-"):
            rec = formats.parse_status_record(key.decode(), value)
            assert isinstance(rec, formats.TaskStatusRecord)
            states[rec.task] = rec.state
    return states


def _committed_count(bootstrap: str, topic: str) -> int:
    return len(read_committed(bootstrap, topic, timeout_s=30))


def _outage(own_kafka: tuple[LocalKafka, int, str], topic: str) -> tuple[float, int]:
    """Stop the test's broker for OUTAGE_S and start it again on its port: when it was back, and how
    many records ``topic`` held then."""
    kafka, port, bootstrap = own_kafka
    assert kafka.stop(), "the test's broker was not running"
    time.sleep(OUTAGE_S)
    assert kafka.start(port=port) == bootstrap
    back = time.monotonic()
    # The test's own reads may meet the restarted broker's first transient errors too: retried.
    before = wait_until(lambda: _committed_count(bootstrap, topic), 30, message="the topic readable again")
    return back, before


def test_worker_recovers_from_a_broker_restart(own_kafka: tuple[LocalKafka, int, str], tmp_path: Path) -> None:
    bootstrap = own_kafka[2]
    topic = new_topic(bootstrap, partitions=2)
    worker = WorkerProcess(bootstrap, tmp_path / "worker", f"outage-{uuid.uuid4().hex[:8]}", extra=SETTINGS)
    worker.start()
    try:
        worker.wait_ready()
        client = ConnectClient(worker.url)
        client.create_connector("vs", {"connector.class": "VerifiableSource", "topic": topic, "tasks.max": "2",
                                       "throughput": "250"})
        client.wait_running("vs", 2)
        wait_until(lambda: _committed_count(bootstrap, topic) > 1000, 60, message="records committed")

        back, before = _outage(own_kafka, topic)

        # No REST call but reads: the worker must come back on its own.
        def recovered() -> bool:
            running = client.in_state("vs", "RUNNING", 2) is not None
            return running and _committed_count(bootstrap, topic) > before + 500

        wait_until(recovered, 60 - (time.monotonic() - back), interval_s=1.0,
                   message=f"both tasks RUNNING and new records committed; log:\n{worker.log_tail(60)}")
        assert worker.proc is not None and worker.proc.poll() is None, worker.log_tail()
        # What REST says is what the status topic says (statuses written during the outage got there).
        wait_until(lambda: _topic_task_states(bootstrap, worker.props["status.storage.topic"]) == {
            0: "RUNNING", 1: "RUNNING"}, 30, message="RUNNING in the status topic")
        assert worker.stop() == 0, worker.log_tail()
        client.close()
    finally:
        worker.kill()

    assert sum(end_offsets(bootstrap, topic).values()) > 0
    report = check_sequences(verifiable_pairs(read_committed(bootstrap, topic)))
    assert report.exactly_once, report.summary()
    assert set(report.counts) == {0, 1}, report.summary()

    errors = error_lines(worker.log_path)
    by_logger = collections.Counter(m.group("logger") if (m := _LOGGER.search(line)) else "?" for line in errors)
    print(f"ERROR lines in the worker log: {len(errors)} {dict(by_logger)}")
    assert len(errors) < 100, f"{len(errors)} ERROR lines: {dict(by_logger)}\n" + "\n".join(errors[:40])


def test_cluster_recovers_from_a_broker_restart_and_takes_a_config_change(
        own_kafka: tuple[LocalKafka, int, str], tmp_path: Path) -> None:
    """Three workers, the same 30 s outage, and a config change (3 -> 2 tasks) sent right after the broker
    is back. With one broker every worker's connection comes back at about the same time, so the order
    (the leader's first or last) is not arranged; the election and the change must work either way."""
    bootstrap = own_kafka[2]
    topic = new_topic(bootstrap, partitions=3)
    group = f"outage3-{uuid.uuid4().hex[:8]}"
    workers = [WorkerProcess(bootstrap, tmp_path / f"w{i}", group, extra=SETTINGS).start() for i in range(3)]
    clients: list[ConnectClient] = []
    try:
        for w in workers:
            w.wait_ready()
        clients = [ConnectClient(w.url) for w in workers]
        config = {"connector.class": "VerifiableSource", "topic": topic, "tasks.max": "3", "throughput": "100"}
        clients[0].create_connector("vs", config)
        clients[0].wait_running("vs", 3)
        wait_until(lambda: _committed_count(bootstrap, topic) > 600, 60, message="records committed")

        back, before = _outage(own_kafka, topic)

        # Right after the broker returns: a client retries what the API says may be retried (500 "can be
        # safely retried", 409 during a rebalance), through whichever worker it talks to.
        def changed() -> bool:
            r = clients[1].request("PUT", "/connectors/vs/config", json={**config, "tasks.max": "2"})
            return r.status_code == 200

        wait_until(changed, 60, interval_s=1.0, message="the config change accepted")

        def recovered() -> bool:
            running = clients[2].in_state("vs", "RUNNING", 2) is not None
            return running and _committed_count(bootstrap, topic) > before + 300

        wait_until(recovered, 90 - (time.monotonic() - back), interval_s=1.0,
                   message="2 tasks RUNNING and new records committed; logs:\n"
                           + "\n".join(w.log_tail(20) for w in workers))
        for w in workers:
            assert w.proc is not None and w.proc.poll() is None, w.log_tail()
            assert w.stop() == 0, w.log_tail()
    finally:
        for c in clients:
            c.close()
        for w in workers:
            w.kill()

    report = check_sequences(verifiable_pairs(read_committed(bootstrap, topic)))
    assert not any(report.duplicates.values()) and not any(report.gaps.values()), report.summary()
    assert set(report.counts) == {0, 1, 2}, report.summary()
    for w in workers:
        errors = error_lines(w.log_path)
        assert len(errors) < 100, f"{w.url}: {len(errors)} ERROR lines\n" + "\n".join(errors[:40])
