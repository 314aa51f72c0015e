"""The pure parts of the shipped test toolkit: the sequence checker with a key function, the REST
error it raises, and where its Kafka clients log (librdkafka, against a port nothing listens on)."""

from __future__ import annotations

import json
import logging
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from confluent_kafka import Consumer

from connect_runtime.testing import (
    KAFKA_LOGGER,
    ConnectClient,
    ConnectRestError,
    WorkerProcess,
    admin_client,
    check_sequences,
    client_settings,
    close_admin_clients,
    verifiable_key,
    verifiable_pairs,
    wait_until,
)
from connect_runtime.testing.cluster import terminate
from connect_runtime.testing.local_kafka import free_port


def test_key_function_groups_any_records_into_streams() -> None:
    lines = ["a-0", "b-0", "a-1", "a-1", "b-2", "a-2"]
    report = check_sequences(lines, key=lambda line: (line[0], int(line[2:])))
    assert not report.exactly_once
    assert report.counts == {"a": 4, "b": 2} and report.max_seqno == {"a": 2, "b": 2}
    assert report.duplicates == {"a": [1], "b": []} and report.gaps == {"a": [], "b": [1]}
    assert "duplicated={'a': 1}" in report.summary() and "missing={'b': 1}" in report.summary()


def test_first_number_and_pairs_without_key() -> None:
    assert check_sequences([("x", 5), ("x", 6)], first=5).exactly_once
    assert check_sequences([("x", 5), ("x", 6)]).gaps == {"x": [0, 1, 2, 3, 4]}
    assert not check_sequences([]).exactly_once, "no record at all is no proof"
    # first=None: each stream starts at its lowest number; later gaps still count.
    detected = check_sequences([("x", 5), ("x", 6), ("y", 9), ("y", 11)], first=None)
    assert detected.gaps == {"x": [], "y": [10]} and not detected.exactly_once
    assert check_sequences([("x", 5), ("x", 6)], first=None).exactly_once
    # Streams of mixed types still get one report each.
    assert set(check_sequences([(1, 0), ("1", 0)]).counts) == {1, "1"}


def test_verifiable_key_reads_both_value_shapes() -> None:
    records = [(b"0", b"7"), (b"1", json.dumps({"seqno": 3, "task": 1}).encode())]
    assert [verifiable_key(r) for r in records] == verifiable_pairs(records) == [(0, 7), (1, 3)]
    report = check_sequences([(b"0", b"0"), (b"0", b"1")], key=verifiable_key)
    assert report.exactly_once and report.max_seqno == {0: 1}


def test_rest_error_carries_kafka_connects_error_body() -> None:
    request = httpx.Request("GET", "http://worker/connectors/x/status")
    error = ConnectRestError(httpx.Response(404, json={"error_code": 404, "message": "No status found for connector x"},
                                            request=request))
    assert (error.status_code, error.error_code, error.message) == (404, 404, "No status found for connector x")
    assert str(error) == "GET /connectors/x/status answered 404: No status found for connector x"
    plain = ConnectRestError(httpx.Response(502, text="bad gateway", request=request))
    assert (plain.status_code, plain.error_code, plain.message) == (502, None, "bad gateway")


def _status(connector: str, *tasks: str) -> dict[str, object]:
    return {"name": "c", "connector": {"state": connector, "worker_id": "w"}, "type": "source",
            "tasks": [{"id": i, "state": state, "worker_id": "w"} for i, state in enumerate(tasks)]}


@pytest.mark.parametrize(("status", "state", "tasks", "holds"), [
    (_status("RUNNING", "RUNNING", "RUNNING"), "RUNNING", 2, True),
    (_status("RUNNING", "RUNNING", "RUNNING"), "RUNNING", None, True),
    (_status("RUNNING", "RUNNING", "RUNNING"), "RUNNING", 3, False),  # a task not there yet
    (_status("RUNNING", "RUNNING", "FAILED"), "RUNNING", 2, False),
    (_status("PAUSED", "RUNNING"), "RUNNING", 1, False),
    (_status("STOPPED"), "STOPPED", None, True),
    (_status("STOPPED", "STOPPED"), "STOPPED", None, False),  # STOPPED means no task at all
])
def test_in_state_is_one_look_at_the_connector_and_every_task(
        monkeypatch: pytest.MonkeyPatch, status: dict[str, object], state: str, tasks: int | None,
        holds: bool) -> None:
    with ConnectClient("http://127.0.0.1:1") as client:
        monkeypatch.setattr(client, "status", lambda name: status)
        assert client.in_state("c", state, tasks) == (status if holds else None)


def test_kafka_clients_log_to_the_toolkit_logger_not_stderr(caplog: pytest.LogCaptureFixture,
                                                            capfd: pytest.CaptureFixture[str]) -> None:
    nowhere = f"127.0.0.1:{free_port()}"
    caplog.set_level(logging.DEBUG, logger=KAFKA_LOGGER.name)
    consumer = Consumer(client_settings(nowhere, **{"group.id": "g", "reconnect.backoff.ms": 10}))
    try:
        def refused() -> bool:
            consumer.poll(0.1)  # serves queued log lines to the logger
            return any(r.name == KAFKA_LOGGER.name and "Connection refused" in r.getMessage() for r in caplog.records)

        wait_until(refused, 15, interval_s=0, message="librdkafka's connection error in the log")
    finally:
        consumer.close()
    admin = admin_client(nowhere)
    assert admin_client(nowhere) is admin, "one admin client per broker for the session"
    with pytest.raises(Exception):  # noqa: B017 - KafkaException: nothing listens there
        admin.list_topics(timeout=0.5)
    close_admin_clients(nowhere)
    assert admin_client(nowhere) is not admin
    close_admin_clients(nowhere)
    err = capfd.readouterr().err
    assert "|FAIL|" not in err and "rdkafka#" not in err, err


def test_a_worker_process_used_as_a_context_manager_is_killed_at_the_end(tmp_path: Path) -> None:
    worker = WorkerProcess("127.0.0.1:1", tmp_path, "g")
    worker.proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    with worker as entered:
        assert entered is worker and worker.alive
    assert worker.proc.returncode == -signal.SIGKILL


def test_terminate_stops_a_child_and_kills_one_that_ignores_sigterm() -> None:
    polite = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    assert terminate(polite, 30) == -signal.SIGTERM
    # It says when it is ready to ignore SIGTERM, so the signal never comes before the handler is set.
    stubborn = subprocess.Popen([sys.executable, "-c", "import signal, time; signal.signal(signal.SIGTERM, "
                                 "signal.SIG_IGN); print('ready', flush=True); time.sleep(60)"],
                                stdout=subprocess.PIPE)
    assert stubborn.stdout is not None and stubborn.stdout.readline() == b"ready\n"
    with pytest.raises(subprocess.TimeoutExpired):
        terminate(stubborn, 0.5)
    assert stubborn.returncode == -signal.SIGKILL
    stubborn.stdout.close()


def test_wait_exit_returns_the_exit_code_and_fails_on_a_worker_that_runs_on(tmp_path: Path) -> None:
    worker = WorkerProcess("127.0.0.1:1", tmp_path, "g")
    with pytest.raises(RuntimeError, match="never started"):
        worker.wait_exit()
    worker.proc = subprocess.Popen([sys.executable, "-c", "import sys; sys.exit(3)"])
    assert worker.wait_exit() == 3
    worker.proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    with worker, pytest.raises(AssertionError, match="still runs after"):
        worker.wait_exit(0.2)
