"""Task metrics on a real broker: a worker in this process (so the test reads its ``worker.metrics``) runs
its tasks in their processes, which report what they measure once a second. An exactly-once task's write
totals, transaction sizes and commit times move; a task made to fail shows status ``failed`` and its error
totals; a paused task's pause-ratio grows; an at-least-once task has no transaction series."""

from __future__ import annotations

import contextlib
import math
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from in_process_worker import InProcessWorker

from connect_runtime.distributed import DistributedWorker
from connect_runtime.metrics.connect_metrics import ConnectMetrics
from connect_runtime.metrics.stats import HistogramValue
from connect_runtime.testing.cluster import ConnectClient, wait_until
from connect_runtime.testing.pytest_plugin import new_topic

pytestmark = pytest.mark.kafka

POISON = "poison_source.PoisonSourceConnector"

Read = dict[tuple[str, str], Any]


@contextlib.contextmanager
def _in_process_worker(bootstrap: str, eos: str) -> Iterator[DistributedWorker]:
    extra = {"exactly.once.source.support": eos, "metrics.sample.window.ms": "10000"}
    with InProcessWorker(bootstrap, f"task-metrics-{eos}-{uuid.uuid4().hex[:8]}", extra) as worker:
        assert worker.start().worker is not None
        yield worker.worker


@pytest.fixture(scope="module")
def eos_worker(kafka_bootstrap: str) -> Iterator[DistributedWorker]:
    with _in_process_worker(kafka_bootstrap, "enabled") as worker:
        yield worker


@pytest.fixture(scope="module")
def client(eos_worker: DistributedWorker) -> Iterator[ConnectClient]:
    with ConnectClient(eos_worker.url) as c:
        yield c


def _metrics(worker: DistributedWorker) -> ConnectMetrics:
    assert worker.herder is not None
    return worker.herder.worker.metrics


def _task(metrics: ConnectMetrics, connector: str, task: int = 0) -> Read:
    """What the worker's metrics read now for one task (every group keyed by its tags)."""
    tags = (("connector", connector), ("task", str(task)))
    return {(r.spec.group, r.spec.name): r.value for r in metrics.read() if r.tags == tags}


def _producer(metrics: ConnectMetrics, client_id: str) -> Read:
    tags = (("client-id", client_id),)
    return {(r.spec.group, r.spec.name): r.value for r in metrics.read() if r.tags == tags}


def _moved(value: Any) -> bool:
    return isinstance(value, float) and not math.isnan(value) and value > 0


def _run_verifiable(client: ConnectClient, bootstrap: str, prefix: str, throughput: int) -> str:
    """A running one-task VerifiableSource connector named ``<prefix>-<random>``: its name."""
    name = f"{prefix}-{uuid.uuid4().hex[:6]}"
    client.create_connector(name, {"connector.class": "VerifiableSource", "topic": new_topic(bootstrap),
                                   "throughput": str(throughput), "tasks.max": "1"})
    client.wait_running(name, 1)
    return name


def test_an_exactly_once_tasks_writes_transactions_and_commits_move(
        kafka_bootstrap: str, eos_worker: DistributedWorker, client: ConnectClient) -> None:
    metrics = _metrics(eos_worker)
    name = _run_verifiable(client, kafka_bootstrap, "eos", 200)
    first: Read = wait_until(lambda: (r := _task(metrics, name)) and _moved(
        r[("source-task-metrics", "source-record-write-total")]) and r, 60, message="records written")
    assert first[("connector-task-metrics", "status")] == "running"
    assert first[("task-error-metrics", "total-record-failures")] == 0

    def moved_again() -> Read | None:
        read = _task(metrics, name)
        written = read[("source-task-metrics", "source-record-write-total")]
        committed = read[("connect-runtime-source-task-metrics", "transactions-committed-total")]
        before = first[("connect-runtime-source-task-metrics", "transactions-committed-total")]
        return read if written > first[("source-task-metrics", "source-record-write-total")] and committed > before \
            else None

    read = wait_until(moved_again, 60, message="the write and transaction totals moving")
    for metric in ("transaction-size-avg", "transaction-size-max", "transaction-size-min",
                   "source-record-poll-total", "source-record-write-rate"):
        assert _moved(read[("source-task-metrics", metric)]), metric
    assert not math.isnan(read[("source-task-metrics", "poll-batch-avg-time-ms")])  # whole ms: often 0
    assert not math.isnan(read[("connector-task-metrics", "offset-commit-avg-time-ms")])
    assert read[("connector-task-metrics", "offset-commit-success-percentage")] == 1
    assert read[("connector-task-metrics", "connector-class")] == (
        "org.apache.kafka.connect.tools.VerifiableSourceConnector")
    assert read[("connector-task-metrics", "task-version")]
    latency = read[("connect-runtime-source-task-metrics", "transaction-commit-latency-seconds")]
    assert isinstance(latency, HistogramValue) and latency.count > 0 and latency.sum > 0
    producer = _producer(metrics, f"connector-producer-{name}-0")
    assert producer[("producer-metrics", "txn-init-time-ns-total")] > 0
    assert producer[("producer-metrics", "txn-commit-time-ns-total")] > 0
    # librdkafka's statistics (every 5 s here: half the sample window) reach the worker with a report.
    producer = wait_until(lambda: (p := _producer(metrics, f"connector-producer-{name}-0")) and _moved(
        p[("producer-metrics", "outgoing-byte-total")]) and p, 30, message="the task producer's statistics")
    assert producer[("producer-metrics", "connection-count")] >= 1

    # Deleted: the task leaves the worker, and so do its series.
    assert client.request("DELETE", f"/connectors/{name}").status_code == 204
    wait_until(lambda: not _task(metrics, name) and not _producer(metrics, f"connector-producer-{name}-0"), 60,
               message="the deleted task's series gone")


def test_a_failed_task_shows_failed_and_its_error_totals(
        kafka_bootstrap: str, eos_worker: DistributedWorker, client: ConnectClient) -> None:
    metrics = _metrics(eos_worker)
    name = f"poison-{uuid.uuid4().hex[:6]}"
    # Every 5th record holds a value the converter rejects; errors.tolerance=none fails the task.
    client.create_connector(name, {"connector.class": POISON, "topic": new_topic(kafka_bootstrap),
                                   "poison.every": "5"})

    def failed() -> Read | None:
        read = _task(metrics, name)
        return read if read and read[("connector-task-metrics", "status")] == "failed" else None

    read = wait_until(failed, 60, message="the task's status failed")
    assert client.status(name)["tasks"][0]["state"] == "FAILED"  # as the REST API says
    read = wait_until(lambda: (r := _task(metrics, name)) and r[("task-error-metrics", "total-record-errors")] and r,
                      30, message="the final report of the failed task")
    assert read[("task-error-metrics", "total-record-failures")] == 1
    assert read[("task-error-metrics", "total-record-errors")] == 1
    assert read[("task-error-metrics", "total-records-skipped")] == 0
    assert read[("task-error-metrics", "last-error-timestamp")] > 0
    assert client.request("DELETE", f"/connectors/{name}").status_code == 204


def test_a_paused_tasks_pause_ratio_grows(
        kafka_bootstrap: str, eos_worker: DistributedWorker, client: ConnectClient) -> None:
    metrics = _metrics(eos_worker)
    name = _run_verifiable(client, kafka_bootstrap, "paused", 50)
    assert client.request("PUT", f"/connectors/{name}/pause").status_code == 202

    def paused() -> float | None:
        read = _task(metrics, name)
        if read.get(("connector-task-metrics", "status")) != "paused":
            return None
        ratio = read[("connector-task-metrics", "pause-ratio")]
        return ratio if ratio > 0 else None

    first = wait_until(paused, 60, message="the task paused")
    wait_until(lambda: (r := paused()) is not None and r > first, 30, message="the pause ratio growing")
    assert _task(metrics, name)[("connector-task-metrics", "running-ratio")] < 1
    assert client.request("DELETE", f"/connectors/{name}").status_code == 204


def test_an_at_least_once_task_has_no_transaction_series(kafka_bootstrap: str) -> None:
    with _in_process_worker(kafka_bootstrap, "disabled") as worker:
        metrics = _metrics(worker)
        with ConnectClient(worker.url) as alos:
            name = _run_verifiable(alos, kafka_bootstrap, "alos", 200)
            read = wait_until(lambda: (r := _task(metrics, name)) and _moved(
                r[("source-task-metrics", "source-record-write-total")]) and _moved(
                r[("connector-task-metrics", "offset-commit-success-percentage")]) and r, 60,
                message="records written and offsets flushed")
        assert not [key for key in read if key[1].startswith("transaction")]
        producer = _producer(metrics, f"connector-producer-{name}-0")
        assert ("producer-metrics", "connection-count") in producer
        assert not [key for key in producer if key[1].startswith("txn-")]
