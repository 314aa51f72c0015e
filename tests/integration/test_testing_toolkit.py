"""The shipped test toolkit (connect_runtime.testing) against the real broker and real workers: the
transaction reader on what a transactional producer wrote, the source-offsets reader on any
connector's records, every ConnectClient helper on one worker, and the worker fixtures' clean-up
and failure reports (an inner pytest run on the same broker)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path

import pytest
from confluent_kafka import Producer

import connect_runtime
from connect_runtime.testing import (
    ConnectClient,
    ConnectRestError,
    TopicRecord,
    WorkerProcess,
    check_sequences,
    client_settings,
    end_offsets,
    new_topic,
    open_transactions,
    read_committed,
    read_records,
    read_source_offset,
    read_source_offsets,
    read_transactions,
    stable_offsets,
    verifiable_key,
    wait_for_records,
    wait_until,
)

pytestmark = pytest.mark.kafka


def _transactional(bootstrap: str) -> Producer:
    producer = Producer(client_settings(bootstrap, **{"transactional.id": f"toolkit-{uuid.uuid4().hex[:8]}"}))
    producer.init_transactions(30)
    return producer


def _transaction(producer: Producer, topic: str, records: list[tuple[int, str]], commit: bool | None) -> None:
    """Write ``(partition, value)`` records in one transaction; commit, abort, or leave it open (None)."""
    producer.begin_transaction()
    for partition, value in records:
        producer.produce(topic, value=value.encode(), partition=partition)
    producer.flush(30)
    if commit is True:
        producer.commit_transaction(30)
    elif commit is False:
        producer.abort_transaction(30)


def _values(records: list[TopicRecord]) -> list[tuple[int, str]]:
    return [(r.partition, (r.value or b"").decode()) for r in records]


def test_transaction_reader_reports_committed_aborted_and_open(kafka_bootstrap: str) -> None:
    topic = new_topic(kafka_bootstrap, partitions=2)
    producer = _transactional(kafka_bootstrap)
    _transaction(producer, topic, [(0, "c1"), (0, "c2"), (0, "c3")], commit=True)
    _transaction(producer, topic, [(0, "a1"), (0, "a2")], commit=False)
    _transaction(producer, topic, [(0, "c4"), (1, "c5"), (1, "c6")], commit=True)
    _transaction(producer, topic, [(1, "o1"), (1, "o2")], commit=None)

    # The open transaction holds the last stable offset of partition 1 back, and only there.
    assert open_transactions(kafka_bootstrap, topic) == {1: (3, 5)}
    assert stable_offsets(kafka_bootstrap, topic) == {0: 9, 1: 3}
    assert end_offsets(kafka_bootstrap, topic) == {0: 9, 1: 5}
    # The committed records are there to wait for even while a transaction is open.
    assert sorted(v for _, v in wait_for_records(kafka_bootstrap, topic, 6)) == [
        b"c1", b"c2", b"c3", b"c4", b"c5", b"c6"]
    with pytest.raises(AssertionError, match=f"{topic} had 6 committed records, not 7"):
        wait_for_records(kafka_bootstrap, topic, 7, timeout_s=2)
    # read_committed waits behind the open transaction only as long as told, and says why it waited.
    with pytest.raises(AssertionError, match=r"transaction is still open on partitions \[1\]"):
        read_committed(kafka_bootstrap, topic, timeout_s=2)

    report = read_transactions(kafka_bootstrap, topic, settle_s=1)
    assert _values(report.committed) == [(0, "c1"), (0, "c2"), (0, "c3"), (0, "c4"), (1, "c5"), (1, "c6")]
    assert _values(report.aborted) == [(0, "a1"), (0, "a2")]
    assert _values(report.open) == [(1, "o1"), (1, "o2")]
    # Offsets count the markers: c1-c3 at 0-2, commit marker 3, a1-a2 at 4-5, abort marker 6, c4 at 7.
    assert [(r.offset, r.outcome) for r in report.records if r.partition == 0] == [
        (0, "committed"), (1, "committed"), (2, "committed"), (4, "aborted"), (5, "aborted"), (7, "committed")]
    assert [(t.partition, t.outcome, [r.value for r in t.records]) for t in report.transactions] == [
        (0, "committed", [b"c1", b"c2", b"c3"]),
        (0, "aborted", [b"a1", b"a2"]),
        (0, "committed", [b"c4"]),
        (1, "committed", [b"c5", b"c6"]),
        (1, "open", [b"o1", b"o2"]),
    ]
    assert [len(t) for t in report.committed_transactions] == [3, 1, 2]
    assert [(t.first_offset, t.last_offset) for t in report.aborted_transactions] == [(4, 5)]
    assert report.summary() == ("6 committed records in 3 transactions, 2 aborted in 1, 2 open")

    producer.abort_transaction(30)
    wait_until(lambda: not open_transactions(kafka_bootstrap, topic), 30, message="the abort to land")
    decided = read_transactions(kafka_bootstrap, topic)
    assert _values(decided.aborted) == [(0, "a1"), (0, "a2"), (1, "o1"), (1, "o2")] and not decided.open
    # The plain readers see the committed records only, with their partition and offset.
    assert [(r.partition, r.offset) for r in read_records(kafka_bootstrap, topic)] == [
        (0, 0), (0, 1), (0, 2), (0, 7), (1, 0), (1, 1)]
    assert [v for _, v in read_committed(kafka_bootstrap, topic)] == [b"c1", b"c2", b"c3", b"c4", b"c5", b"c6"]


def test_source_offsets_reader_understands_any_connector(kafka_bootstrap: str) -> None:
    """Offsets-topic records as a worker writes them, for connectors with arbitrary partitions."""
    topic = new_topic(kafka_bootstrap, partitions=3)
    producer = Producer(client_settings(kafka_bootstrap))

    def write(key: object, value: object) -> None:
        raw_key = key if isinstance(key, bytes) else json.dumps(key).encode()
        producer.produce(topic, key=raw_key, value=None if value is None else json.dumps(value).encode())

    write(["files", {"filename": "/in/a.log"}], {"position": 10})
    write(["files", {"filename": "/in/b.log"}], {"position": 5})
    write(["other", {"filename": "/in/a.log"}], {"position": 99})  # another connector's
    write(["files", {"filename": "/in/a.log"}], {"position": 42})  # a later commit wins
    write(["files", {"table": "t", "shard": 2}], {"lsn": 7, "snapshot": False})
    write(["files", {"filename": "/in/b.log"}], None)  # reset
    write(b"not json", {"x": 1})  # skipped, not a source offset
    producer.flush(30)

    # One partition's records keep their order (a source partition's records share a key, so a
    # partition of the offsets topic); across partitions the order means nothing.
    assert sorted(read_source_offsets(kafka_bootstrap, topic, "files"), key=json.dumps) == [
        {"partition": {"filename": "/in/a.log"}, "offset": {"position": 42}},
        {"partition": {"table": "t", "shard": 2}, "offset": {"lsn": 7, "snapshot": False}},
    ]
    assert read_source_offset(kafka_bootstrap, topic, "files", {"filename": "/in/a.log"}) == {"position": 42}
    # Key order in a partition map does not matter; a reset partition has no offset.
    assert read_source_offset(kafka_bootstrap, topic, "files", {"shard": 2, "table": "t"}) == {
        "lsn": 7, "snapshot": False}
    assert read_source_offset(kafka_bootstrap, topic, "files", {"filename": "/in/b.log"}) is None
    assert read_source_offsets(kafka_bootstrap, topic, "nobody") == []


def test_connect_client_drives_every_endpoint(kafka_bootstrap: str, connect_worker: WorkerProcess,
                                              connect_client: ConnectClient) -> None:
    client, name = connect_client, "toolkit-verifiable"
    topic = new_topic(kafka_bootstrap)
    config = {"connector.class": "VerifiableSource", "topic": topic, "tasks.max": "2", "throughput": "200"}
    offsets_topic = connect_worker.props["offset.storage.topic"]

    assert client.server_info()["kafka_cluster_id"]
    assert client.validate({**config, "name": name})["error_count"] == 0
    assert list(client.validation_errors({**config, "name": name, "tasks.max": "two"})) == ["tasks.max"]
    info = client.create_connector(name, config)
    assert info["name"] == name and info["config"]["topic"] == topic
    client.wait_running(name, 2)
    assert client.connector_info(name)["tasks"] == [{"connector": name, "task": 0}, {"connector": name, "task": 1}]
    assert client.connector_config(name)["topic"] == topic
    assert [t["id"] for t in client.task_configs(name)] == [{"connector": name, "task": 0},
                                                             {"connector": name, "task": 1}]
    assert name in client.list_connectors()
    assert client.list_connectors(["status"])[name]["status"]["connector"]["state"] == "RUNNING"
    assert client.connector_plugins() and client.plugin_config("VerifiableSource")
    wait_for_records(kafka_bootstrap, topic, 50)
    wait_until(lambda: client.active_topics(name) == [topic], 30, message=f"{topic} among the active topics")

    client.pause_connector(name)
    client.wait_state(name, "PAUSED", 2)
    client.resume_connector(name)
    client.wait_running(name, 2)
    nothing_failed = client.restart_connector(name, include_tasks=True, only_failed=True)
    assert nothing_failed is not None and nothing_failed["connector"]["state"] == "RUNNING"
    assert {t["state"] for t in nothing_failed["tasks"]} == {"RUNNING"}
    assert client.restart_connector(name) is None
    restarting = client.restart_connector(name, include_tasks=True)
    assert restarting is not None and restarting["connector"]["state"] == "RESTARTING"
    assert {t["state"] for t in restarting["tasks"]} == {"RESTARTING"}
    client.restart_task(name, 1)
    # The restarts are asynchronous: a status read at once may still show the states before them.
    assert client.wait_task_state(name, 1, "RUNNING")["id"] == 1
    assert client.task_status(name, 0)["id"] == 0

    # Exactly once through pause, resume and restarts, checked with the key function.
    client.stop_connector(name)
    client.wait_state(name, "STOPPED")
    client.reset_active_topics(name)
    assert client.active_topics(name) == []
    report = check_sequences(read_committed(kafka_bootstrap, topic), key=verifiable_key)
    assert report.exactly_once and set(report.counts) == {0, 1}, report.summary()
    # What the REST API reports is what the offsets topic holds.
    by_task = sorted(client.offsets(name), key=lambda e: e["partition"]["id"])
    assert by_task == sorted(read_source_offsets(kafka_bootstrap, offsets_topic, name),
                             key=lambda e: e["partition"]["id"])
    assert by_task == [{"partition": {"id": t}, "offset": {"seqno": report.max_seqno[t]}} for t in (0, 1)]

    assert "altered successfully" in client.alter_offsets(name, [{"partition": {"id": 0},
                                                                  "offset": {"seqno": 100000}}])
    assert read_source_offset(kafka_bootstrap, offsets_topic, name, {"id": 0}) == {"seqno": 100000}
    assert "reset successfully" in client.reset_offsets(name)
    assert client.offsets(name) == [] and read_source_offsets(kafka_bootstrap, offsets_topic, name) == []

    changed = client.put_connector_config(name, {**config, "throughput": "100"})
    assert changed["config"]["throughput"] == "100"
    assert client.patch_connector_config(name, {"throughput": "50"})["config"]["throughput"] == "50"
    client.delete_connector(name)
    client.wait_deleted(name)
    with pytest.raises(ConnectRestError) as gone:
        client.status(name)
    assert gone.value.status_code == 404 and gone.value.error_code == 404
    assert gone.value.message == f"No status found for connector {name}"


INNER_TEST = '''
import os
from pathlib import Path

import pytest


@pytest.mark.kafka
def test_fails_with_workers_running(connect_worker, connect_client, connect_cluster, worker_factory):
    workers = connect_cluster.start(2)
    assert connect_cluster.client(workers[1]).server_info()["kafka_cluster_id"]
    assert worker_factory.group_id == connect_worker.props["group.id"]
    assert {w.props["group.id"] for w in workers} == {connect_cluster.group_id}
    assert workers[0].props["session.timeout.ms"] == "4000"  # FAST_FAILOVER
    Path(os.environ["PIDS_FILE"]).write_text(" ".join(str(w.proc.pid) for w in [connect_worker, *workers]))
    assert connect_client.status("no-such-connector")  # raises: the test fails
'''


def test_worker_fixtures_report_logs_on_failure_and_leave_no_process(kafka_bootstrap: str, tmp_path: Path) -> None:
    """An inner pytest session on the same broker: its failing test's report carries each worker's
    log, and once it is over none of its worker processes is left."""
    (tmp_path / "test_inner.py").write_text(textwrap.dedent(INNER_TEST))
    pids_file = tmp_path / "pids"
    root = Path(connect_runtime.__file__).resolve().parents[1]
    env = {**os.environ, "KAFKA_BOOTSTRAP_SERVERS": kafka_bootstrap, "PIDS_FILE": str(pids_file),
           "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")])}
    inner = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--basetemp={tmp_path / 'inner'}",
         str(tmp_path / "test_inner.py")],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    out = inner.stdout
    assert inner.returncode == 1 and "1 failed" in out, out[-3000:]
    assert "ConnectRestError" in out and "No status found for connector no-such-connector" in out, out[-3000:]
    sections = [line for line in out.splitlines() if "Captured worker http://127.0.0.1:" in line]
    assert len(sections) == 3, out[-3000:]  # connect_worker and the two of connect_cluster
    assert "Current thread" not in out, "the reported tails are the logs as they were at the failure"
    logs = sorted((tmp_path / "inner").rglob("worker-*.log"))
    assert len(logs) == 3 and all("Current thread" in log.read_text() for log in logs), "thread dumps in the logs"
    pids = [int(p) for p in pids_file.read_text().split()]

    def gone(pid: int) -> bool:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        return False

    assert all(gone(pid) for pid in pids), "a worker outlived its test"
