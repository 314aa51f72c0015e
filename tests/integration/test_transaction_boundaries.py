"""Exactly-once transaction boundaries on a real broker (as Apache Kafka's ExactlyOnceSourceIntegrationTest):
interval and connector-defined boundaries, aborted transactions, refused offsets-topic writes, and a
failed commit that leaves no open transaction behind."""

from __future__ import annotations

import json
import statistics
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from connect_runtime.testing.cluster import (
    ConnectClient,
    WorkerProcess,
    check_sequences,
    end_offsets,
    open_transactions,
    plugin_path,
    read_committed,
    read_transactions,
    verifiable_pairs,
    wait_until,
)
from connect_runtime.testing.pytest_plugin import new_topic

pytestmark = pytest.mark.kafka

PLUGINS_DIR = Path(__file__).resolve().parents[1] / "plugins"
BOUNDARY_SOURCE = "boundary_source.BoundarySourceConnector"


@pytest.fixture(scope="module")
def worker(kafka_bootstrap: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[WorkerProcess]:
    extra = plugin_path(PLUGINS_DIR)
    w = WorkerProcess(kafka_bootstrap, tmp_path_factory.mktemp("boundaries"), f"tb-{uuid.uuid4().hex[:8]}",
                      eos="enabled", extra=extra).start_ready()
    yield w
    w.kill()


@pytest.fixture
def client(worker: WorkerProcess) -> Iterator[ConnectClient]:
    c = ConnectClient(worker.url)
    yield c
    c.close()


def _trace(client: ConnectClient, name: str) -> str:
    def failed() -> str | None:
        tasks = client.status(name)["tasks"]
        return tasks[0].get("trace") if tasks and tasks[0]["state"] == "FAILED" else None

    return wait_until(failed, 60, message=f"task of {name} FAILED")


def test_interval_boundary_commits_many_records_per_transaction(kafka_bootstrap: str, client: ConnectClient) -> None:
    topic = new_topic(kafka_bootstrap)
    client.create_connector("interval", {
        "connector.class": "VerifiableSource", "topic": topic, "tasks.max": "1", "throughput": "500",
        "transaction.boundary": "interval", "transaction.boundary.interval.ms": "1000"})
    client.wait_running("interval", 1)
    wait_until(lambda: sum(end_offsets(kafka_bootstrap, topic).values()) > 2500, 60, message="records")
    client.request("DELETE", "/connectors/interval")
    transactions = read_transactions(kafka_bootstrap, topic)
    assert not transactions.open, transactions.summary()
    report = check_sequences(transactions.committed, key=lambda r: (r.partition, int(json.loads(r.value or b""))))
    assert report.exactly_once, report.summary()
    assert report.counts[0] == report.max_seqno[0] + 1  # nothing extra
    # A single producer on one partition: each commit marker ends one transaction.
    sizes = [len(t) for t in transactions.committed_transactions]
    # ~500 records per 1 s interval; a poll boundary would commit every poll (a handful of records).
    assert len(sizes) >= 3, sizes
    assert statistics.median(sizes[:-1]) >= 200, sizes


def test_connector_defined_boundaries_with_aborted_transactions(kafka_bootstrap: str, client: ConnectClient,
                                                                 worker: WorkerProcess, tmp_path: Path) -> None:
    n, m = 10, 3
    runs = {}
    for name, batch_level in (("record-level", "false"), ("batch-level", "true")):
        topic = new_topic(kafka_bootstrap)
        log = tmp_path / f"{name}.log"
        client.create_connector(name, {
            "connector.class": BOUNDARY_SOURCE, "topic": topic, "transaction.boundary": "connector",
            "exactly.once.support": "required", "records.per.transaction": str(n), "abort.every": str(m),
            "batch.level": batch_level, "commit.log": str(log)})
        runs[name] = (topic, log)
    for name in runs:
        client.wait_running(name, 1)
    for name, (topic, _) in runs.items():
        wait_until(lambda t=topic: sum(end_offsets(kafka_bootstrap, t).values()) > 300, 60, message="records")
        client.request("PUT", f"/connectors/{name}/pause")
    for name, (topic, log) in runs.items():
        wait_until(lambda nm=name: client.status(nm)["tasks"][0]["state"] == "PAUSED", 60, message="paused")
        transactions = read_transactions(kafka_bootstrap, topic)
        seqnos = [int(json.loads(r.value or b"")) for r in transactions.committed]
        assert len(seqnos) == len(set(seqnos)), f"{name}: duplicates"
        top = max(seqnos)

        def aborted(s: int) -> bool:
            return (s // n + 1) % m == 0

        expected = [s for s in range(top + 1) if not aborted(s)]
        assert seqnos == expected, f"{name}: visible records are exactly the committed transactions'"
        lines = [line.split() for line in log.read_text().splitlines()]
        reported = {int(s): how for s, how in lines}
        for s in range(top + 1):
            assert reported.get(s) == ("none" if aborted(s) else "committed"), (name, s, reported.get(s))
    # The offsets of aborted transactions were committed too (so the task never re-reads them).
    for name in runs:
        committed = _committed_seqnos(kafka_bootstrap, worker.props["offset.storage.topic"], name)
        last_aborted = [s for s in committed if (s // n + 1) % m == 0 and s % n == n - 1]
        assert last_aborted, f"{name}: no offset of an aborted transaction was committed: {committed[-20:]}"
        client.request("DELETE", f"/connectors/{name}")


def _committed_seqnos(bootstrap: str, offsets_topic: str, connector: str) -> list[int]:
    out = []
    for key, value in read_committed(bootstrap, offsets_topic):
        if key is not None and value is not None and json.loads(key)[0] == connector:
            out.append(int(json.loads(value)["seqno"]))
    return out


def test_conflicting_boundary_requests_fail_the_task(kafka_bootstrap: str, client: ConnectClient) -> None:
    topic = new_topic(kafka_bootstrap)
    client.create_connector("conflict", {
        "connector.class": BOUNDARY_SOURCE, "topic": topic, "transaction.boundary": "connector",
        "records.per.transaction": "10", "conflict.at": "15"})
    trace = _trace(client, "conflict")
    assert f"Connector requested both commit and abort of same record against topic/partition {topic}/null" in trace
    seqnos = [s for _, s in verifiable_pairs(read_committed(kafka_bootstrap, topic))]
    assert seqnos == list(range(10)), "only the transaction before the conflict is visible"
    client.request("DELETE", "/connectors/conflict")


def test_a_transaction_left_open_past_its_timeout_fails_the_task_naming_the_timeout(
        kafka_bootstrap: str, client: ConnectClient) -> None:
    """A connector-boundary task idle with an open transaction: the broker aborts it after
    transaction.timeout.ms and fences the producer, which librdkafka reports as a fence by a newer
    instance; the task's error says the transaction timed out instead, and what to do."""
    topic = new_topic(kafka_bootstrap)
    client.create_connector("idle-open", {
        "connector.class": BOUNDARY_SOURCE, "topic": topic, "transaction.boundary": "connector",
        "records.per.transaction": "10", "idle.at": "25", "idle.ms": "20000",
        "producer.override.transaction.timeout.ms": "2000"})
    trace = _trace(client, "idle-open")
    error = trace.rstrip().splitlines()[-1]  # the task's error; librdkafka's report is its cause, above
    assert "longer than the producer's transaction.timeout.ms (2000 ms), so the broker aborted it" in error, trace
    assert "the transaction timed out" in error, trace
    assert "must commit what it has sent (TransactionContext.commit_transaction()) before it goes idle" in error
    seqnos = [s for _, s in verifiable_pairs(read_committed(kafka_bootstrap, topic))]
    assert seqnos == list(range(20)), "the transaction left open is not visible"
    client.request("DELETE", "/connectors/idle-open")


@pytest.mark.parametrize("own_topic", [False, True], ids=["worker-offsets-topic", "connector-offsets-topic"])
def test_producing_to_own_offsets_topic_fails_the_task(kafka_bootstrap: str, client: ConnectClient,
                                                       worker: WorkerProcess, own_topic: bool) -> None:
    name = f"self-offsets-{int(own_topic)}"
    config = {"connector.class": "VerifiableSource", "tasks.max": "1", "throughput": "100"}
    if own_topic:
        target = f"{name}-offsets-{uuid.uuid4().hex[:6]}"
        config["offsets.storage.topic"] = target
    else:
        target = worker.props["offset.storage.topic"]
    client.create_connector(name, {**config, "topic": target})
    trace = _trace(client, name)
    assert ("Source tasks may not produce to their own offsets topics when exactly-once support is enabled"
            in trace)
    client.request("DELETE", f"/connectors/{name}")


def test_failed_commit_leaves_no_open_transaction(kafka_bootstrap: str, client: ConnectClient,
                                                   worker: WorkerProcess) -> None:
    topic = new_topic(kafka_bootstrap)
    client.create_connector("too-big", {
        "connector.class": BOUNDARY_SOURCE, "topic": topic, "transaction.boundary": "connector",
        "records.per.transaction": "10", "big.record.at": "15", "big.record.bytes": "2000000",
        # The producer would refuse it locally; the broker's 1 MiB limit is what must fail the commit.
        "producer.override.message.max.bytes": "5000000",
        # Without the abort, the open transaction would block readers for this long.
        "producer.override.transaction.timeout.ms": "600000"})
    trace = _trace(client, "too-big")
    # Refused at the commit or at the next send, depending on when the broker's answer arrives.
    assert ("Failed to flush offsets and/or records for task too-big-0" in trace
            or "Unrecoverable exception trying to send records of task too-big-0" in trace), trace
    assert "Message size too large" in trace, "the trace says what failed"
    assert "message.max.bytes" in trace, "the trace says what to tune"
    offsets_topic = worker.props["offset.storage.topic"]
    for t in (offsets_topic, topic):
        wait_until(lambda t=t: not open_transactions(kafka_bootstrap, t), 15,
                   message=f"no open transaction on {t}")
    # Another task's start-up reads the offsets topic to its end: it is not held back.
    other = new_topic(kafka_bootstrap)
    client.create_connector("after-too-big", {"connector.class": "VerifiableSource", "topic": other,
                                              "tasks.max": "1", "throughput": "100"})
    client.wait_running("after-too-big", 1, timeout_s=30)
    wait_until(lambda: verifiable_pairs(read_committed(kafka_bootstrap, other)), 30, message="records")
    for name in ("too-big", "after-too-big"):
        client.request("DELETE", f"/connectors/{name}")
