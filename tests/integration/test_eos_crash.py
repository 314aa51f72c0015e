"""Exactly-once delivery survives SIGKILL of the worker; the same checker catches at-least-once
duplicates (proof that the check has teeth)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from connect_runtime.testing.cluster import (
    ConnectClient,
    WorkerProcess,
    check_sequences,
    read_committed,
    stored_offsets,
    verifiable_pairs,
    wait_until,
)
from connect_runtime.testing.pytest_plugin import new_topic

pytestmark = pytest.mark.kafka

CONNECTOR = "verifiable"


def _records_in(bootstrap: str, topic: str) -> int:
    from connect_runtime.testing.cluster import end_offsets

    return sum(end_offsets(bootstrap, topic).values())


def _run_crash_scenario(kafka_bootstrap: str, make: Callable[..., WorkerProcess], eos: str,
                        kills: int = 3) -> tuple[str, WorkerProcess]:
    topic = new_topic(kafka_bootstrap, partitions=2)
    worker = make(eos=eos)
    worker.wait_ready()
    client = ConnectClient(worker.url)
    client.create_connector(CONNECTOR, {"connector.class": "VerifiableSource", "topic": topic,
                                        "tasks.max": "2", "throughput": "-1"})
    client.wait_running(CONNECTOR, 2)
    for _ in range(kills):
        floor = _records_in(kafka_bootstrap, topic)
        # Kill mid-stream: only once more data has been written since the (re)start.
        wait_until(lambda f=floor: _records_in(kafka_bootstrap, topic) > f + 20000, 60,
                   message="records flowing")
        worker.kill()
        worker.start()
        worker.wait_ready()
        client.wait_running(CONNECTOR, 2)
    floor = _records_in(kafka_bootstrap, topic)
    wait_until(lambda: _records_in(kafka_bootstrap, topic) > floor + 5000, 60, message="records after restart")
    assert worker.stop() == 0, worker.log_tail()
    client.close()
    return topic, worker


def test_exactly_once_survives_sigkill(kafka_bootstrap: str, worker_factory: Callable[..., WorkerProcess]) -> None:
    topic, worker = _run_crash_scenario(kafka_bootstrap, worker_factory, "enabled")
    report = check_sequences(verifiable_pairs(read_committed(kafka_bootstrap, topic)))
    assert report.exactly_once, report.summary()
    assert set(report.counts) == {0, 1}
    # The committed offset is exactly the last committed record's seqno.
    offsets = stored_offsets(kafka_bootstrap, worker.props["offset.storage.topic"], CONNECTOR)
    assert offsets == report.max_seqno


def test_at_least_once_duplicates_are_detected(kafka_bootstrap: str,
                                               worker_factory: Callable[..., WorkerProcess]) -> None:
    topic, _ = _run_crash_scenario(kafka_bootstrap, worker_factory, "disabled", kills=2)
    report = check_sequences(verifiable_pairs(read_committed(kafka_bootstrap, topic)))
    assert not report.exactly_once
    assert any(report.duplicates.values()), report.summary()
    assert not any(report.gaps.values()), report.summary()


def test_checker_catches_crafted_duplicate_and_gap() -> None:
    clean = [(0, s) for s in range(5)] + [(1, s) for s in range(3)]
    assert check_sequences(clean).exactly_once
    dup = check_sequences([*clean, (0, 2)])
    assert not dup.exactly_once and dup.duplicates[0] == [2]
    gap = check_sequences([p for p in clean if p != (1, 1)])
    assert not gap.exactly_once and gap.gaps[1] == [1]
