"""The schema registry converters when the registry fails, in a worker on a real broker with a real
registry: down from the start, stopped mid-stream (and restarted), slow, refusing credentials, and
refusing an incompatible schema under exactly-once.

A registry that cannot be reached or does not answer in time is retried within ``errors.retry.timeout``
(then the task fails naming the registry, or skips the record under ``errors.tolerance=all``); refused
credentials fail the task at once; a 409 fails it with the registry's message. Whatever happens, what
``read_committed`` sees is exactly the records that were serialised and committed, with their offsets.
The value converter is configured by Java's class name and keys, as an existing connector config is.
"""

from __future__ import annotations

import time
import uuid
from pathlib import Path

import pytest
from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroDeserializer
from confluent_kafka.serialization import MessageField, SerializationContext
from prometheus_client.parser import text_string_to_metric_families

from connect_runtime.testing.cluster import (
    ConnectClient,
    WorkerGroup,
    WorkerProcess,
    check_sequences,
    end_offsets,
    plugin_path,
    read_committed,
    stored_offsets,
    wait_until,
)
from connect_runtime.testing.launcher import free_port
from connect_runtime.testing.local_registry import LocalRegistry
from connect_runtime.testing.pytest_plugin import new_topic
from connect_runtime.testing.registry_proxy import BasicAuthProxy
from connect_runtime.testing.topics import open_transactions

pytestmark = [pytest.mark.kafka, pytest.mark.slow]

#: Java's class name, as existing connector configs name it.
AVRO = "io.confluent.connect.avro.AvroConverter"
SOURCE = "schema_change_source.SchemaChangeSourceConnector"
PLUGINS_DIR = Path(__file__).resolve().parents[1] / "plugins"
TOLERANCE_EXCEEDED = "Tolerance exceeded in error handler"
#: The client's own retries (3 by default, as Java's) only slow a test down: the task loop retries.
NO_CLIENT_RETRIES = {"value.converter.max.retries": "0"}


@pytest.fixture
def worker(worker_factory: WorkerGroup) -> WorkerProcess:
    return worker_factory(eos="enabled", extra=plugin_path(PLUGINS_DIR), ready=True)


def _config(topic: str, registry: str, **settings: str) -> dict[str, str]:
    """A one-task SchemaChangeSource writing Avro values through ``registry``; ``settings`` use dots
    for underscores (``errors_retry_timeout`` is ``errors.retry.timeout``)."""
    return {"connector.class": SOURCE, "topic": topic, "tasks.max": "1",
            "value.converter": AVRO, "value.converter.schema.registry.url": registry,
            **{k.replace("_", "."): v for k, v in settings.items()}}


def _failed_trace(client: ConnectClient, name: str, timeout_s: float = 60.0) -> str:
    status = client.wait_task_state(name, 0, "FAILED", timeout_s)
    return str(status.get("trace", ""))


def _count(bootstrap: str, topic: str) -> int:
    return sum(end_offsets(bootstrap, topic).values())


def _pairs(bootstrap: str, registry: str, topic: str) -> list[tuple[int, int]]:
    """``(task, seqno)`` of every committed record, decoded by confluent-kafka's AvroDeserializer."""
    deserializer = AvroDeserializer(SchemaRegistryClient({"url": registry}))
    context = SerializationContext(topic, MessageField.VALUE)
    pairs = []
    for _, value in read_committed(bootstrap, topic):
        decoded = deserializer(value, context)
        assert isinstance(decoded, dict), decoded
        pairs.append((int(decoded["task"]), int(decoded["seqno"])))
    return pairs


def _task_metric(worker: WorkerProcess, family: str, connector: str) -> float | None:
    """Task 0 of ``connector``'s sample of Prometheus ``family`` on the worker's ``/metrics``."""
    with ConnectClient(worker.url) as client:
        text = client.request("GET", "/metrics").text
    for metrics in text_string_to_metric_families(text):
        for sample in metrics.samples:
            if sample.name == family and sample.labels.get("connector") == connector:
                return float(sample.value)
    return None


def _assert_exact(bootstrap: str, registry: str, topic: str, worker: WorkerProcess, connector: str) -> int:
    """Every committed number once, from 0, and the committed offset is the last of them: nothing was
    committed for a record that was not written. Returns the highest number."""
    report = check_sequences(_pairs(bootstrap, registry, topic))
    assert report.exactly_once, report.summary()
    assert stored_offsets(bootstrap, worker.props["offset.storage.topic"], connector) == report.max_seqno
    return report.max_seqno[0]


def test_registry_down_from_the_start(kafka_bootstrap: str, worker: WorkerProcess) -> None:
    """Nothing answers at the registry's address: records are retried, then the task fails naming the
    registry; under ``errors.tolerance=all`` they are skipped (and logged) and the task keeps running."""
    down = f"http://127.0.0.1:{free_port()}/apis/ccompat/v7"
    fail_topic, skip_topic = new_topic(kafka_bootstrap), new_topic(kafka_bootstrap)
    with ConnectClient(worker.url) as client:
        started = time.monotonic()
        client.create_connector("intolerant", _config(fail_topic, down, errors_retry_timeout="3000",
                                                      errors_retry_delay_max_ms="1000", **NO_CLIENT_RETRIES))
        client.create_connector("tolerant", _config(skip_topic, down, errors_tolerance="all",
                                                    errors_log_enable="true", **NO_CLIENT_RETRIES))
        trace = _failed_trace(client, "intolerant")
        # Not before the retries (300, 600, 1200 ms, then what is left of the 3 s) were spent.
        assert time.monotonic() - started >= 3.0
        assert TOLERANCE_EXCEEDED in trace and down in trace, trace
        wait_until(lambda: (_task_metric(worker, "kafka_connect_task_error_total_records_skipped", "tolerant")
                            or 0) >= 10, 30, message="records skipped")
        assert client.status("tolerant")["tasks"][0]["state"] == "RUNNING"
    assert worker.stop() == 0
    log = worker.log_path.read_text()
    assert ("Error encountered in task tolerant-0. Executing stage 'VALUE_CONVERTER' with class "
            "'connect_runtime.converters.schema_registry.avro_converter.AvroConverter'") in log
    # Nothing was serialised, so nothing was written nor committed.
    assert _count(kafka_bootstrap, fail_topic) == 0 and _count(kafka_bootstrap, skip_topic) == 0
    offsets = worker.props["offset.storage.topic"]
    assert stored_offsets(kafka_bootstrap, offsets, "intolerant") == {}
    assert stored_offsets(kafka_bootstrap, offsets, "tolerant") == {}


def test_registry_stopped_mid_stream(kafka_bootstrap: str, worker: WorkerProcess,
                                    local_registry: LocalRegistry) -> None:
    """The registry stops while tasks need it (each meets a new schema every 50 records): the one with
    a short ``errors.retry.timeout`` fails naming the registry; the one with a long one waits, and
    resumes by itself once the registry is back (same port, same data), exactly once."""
    registry = local_registry.url
    assert registry is not None
    fail_topic, resume_topic = new_topic(kafka_bootstrap), new_topic(kafka_bootstrap)
    pace = {"version_every": "50", "batch": "5"}
    with ConnectClient(worker.url) as client:
        client.create_connector("fails", _config(fail_topic, registry, errors_retry_timeout="1000", **pace,
                                                 **NO_CLIENT_RETRIES))
        client.create_connector("resumes", _config(resume_topic, registry, errors_retry_timeout="120000", **pace,
                                                   **NO_CLIENT_RETRIES))
        wait_until(lambda: _count(kafka_bootstrap, fail_topic) > 100 and _count(kafka_bootstrap, resume_topic) > 100,
                   60, message="records flowing")
        local_registry.stop()
        trace = _failed_trace(client, "fails")
        assert TOLERANCE_EXCEEDED in trace and registry in trace, trace
        local_registry.start()
        floor = _count(kafka_bootstrap, resume_topic)
        wait_until(lambda: _count(kafka_bootstrap, resume_topic) > floor + 200, 60, message="records after the restart")
        assert client.status("resumes")["tasks"][0]["state"] == "RUNNING"
        retries = _task_metric(worker, "kafka_connect_task_error_total_retries", "resumes")
        assert retries, "the resumed task retried"
        errors = _task_metric(worker, "kafka_connect_task_error_total_record_errors", "resumes")
        assert errors == 0
    # Each failed attempt said which registry the task was waiting for.
    waiting = f"The schema registry at {registry} could not be reached while registering a schema"
    assert any(waiting in line and "[task-resumes-0]" in line for line in worker.log_path.read_text().splitlines())
    assert worker.stop() == 0
    _assert_exact(kafka_bootstrap, registry, fail_topic, worker, "fails")
    _assert_exact(kafka_bootstrap, registry, resume_topic, worker, "resumes")


def test_an_outage_longer_than_the_transaction_timeout_fails_the_task_saying_so(
        kafka_bootstrap: str, worker: WorkerProcess, local_registry: LocalRegistry) -> None:
    """Under exactly-once a record retried while the registry is down holds its transaction open (records
    before it in the batch were sent): past transaction.timeout.ms the broker aborts it. Once the registry
    is back the task fails with one line that says the retry held the transaction past its timeout and
    what to change; nothing of the aborted transaction is visible."""
    registry = local_registry.url
    assert registry is not None
    topic = new_topic(kafka_bootstrap)
    with ConnectClient(worker.url) as client:
        # A new schema every 50 records, 7 records a poll: the new schema comes mid-transaction.
        client.create_connector("expires", _config(
            topic, registry, errors_retry_timeout="300000", errors_retry_delay_max_ms="500", version_every="50",
            batch="7", producer_override_transaction_timeout_ms="3000", **NO_CLIENT_RETRIES))
        wait_until(lambda: _count(kafka_bootstrap, topic) > 100, 60, message="records flowing")
        local_registry.stop()
        wait_until(lambda: any("could not be reached" in line and "[task-expires-0]" in line
                               for line in worker.log_path.read_text().splitlines()), 60, message="the task retrying")
        # The outage outlasts the timeout: the broker aborts the open transaction (it checks every 10 s).
        wait_until(lambda: open_transactions(kafka_bootstrap, topic) != {}, 30, message="the retry's open transaction")
        wait_until(lambda: open_transactions(kafka_bootstrap, topic) == {}, 60,
                   message="the broker aborting the expired transaction")
        local_registry.start()
        trace = _failed_trace(client, "expires")
    error = trace.rstrip().splitlines()[-1]
    assert "longer than the producer's transaction.timeout.ms (3000 ms)" in error, trace
    assert "went on retrying a failed record within errors.retry.timeout (300000 ms" in error, trace
    assert "keep errors.retry.timeout below transaction.timeout.ms" in error, trace
    assert worker.stop() == 0
    _assert_exact(kafka_bootstrap, registry, topic, worker, "expires")


def test_incompatible_schema_aborts_its_transaction(kafka_bootstrap: str, worker: WorkerProcess,
                                                   schema_registry_url: str) -> None:
    """A 409 (a new required field under BACKWARD) fails the task with the registry's message, and the
    transaction it happened in is aborted: the records converted before it in the same poll are not
    visible, and the committed offset is the last number of the previous transaction."""
    topic = new_topic(kafka_bootstrap, f"faults-{uuid.uuid4().hex[:8]}")
    with ConnectClient(worker.url) as client:
        # Transactions of 10 records; the 406th (number 405) is the first that breaks compatibility.
        client.create_connector("breaks", _config(topic, schema_registry_url, transaction_boundary="poll",
                                                  batch="10", break_at="405"))
        trace = _failed_trace(client, "breaks")
    assert "409" in trace and "Incompatible" in trace and schema_registry_url in trace, trace
    # 400..404 were converted and sent in the failed transaction; none of them is visible.
    assert _assert_exact(kafka_bootstrap, schema_registry_url, topic, worker, "breaks") == 399


def test_slow_registry_is_treated_as_down(kafka_bootstrap: str, worker: WorkerProcess,
                                          registry_basic_auth: BasicAuthProxy, schema_registry_url: str) -> None:
    """A registry that answers after the client's HTTP timeout is retried as one that is down: with a
    short ``errors.retry.timeout`` the task fails naming it; with a long one it resumes once answers
    come in time again, exactly once."""
    proxy = registry_basic_auth
    proxy.delay_s = 3.0
    fail_topic, resume_topic = new_topic(kafka_bootstrap), new_topic(kafka_bootstrap)
    slow = {"value.converter.http.read.timeout.ms": "1000", **NO_CLIENT_RETRIES,
            "value.converter.basic.auth.credentials.source": "USER_INFO",
            "value.converter.basic.auth.user.info": proxy.user_info}
    with ConnectClient(worker.url) as client:
        client.create_connector("fails", _config(fail_topic, proxy.url, errors_retry_timeout="2000", **slow))
        client.create_connector("resumes", _config(resume_topic, proxy.url, errors_retry_timeout="120000", **slow))
        trace = _failed_trace(client, "fails")
        assert TOLERANCE_EXCEEDED in trace and f"The schema registry at {proxy.url} did not answer in time" in trace, \
            trace
        assert _count(kafka_bootstrap, resume_topic) == 0
        proxy.delay_s = 0.0
        wait_until(lambda: _count(kafka_bootstrap, resume_topic) > 100, 60, message="records once the registry is fast")
        assert client.status("resumes")["tasks"][0]["state"] == "RUNNING"
    assert worker.stop() == 0
    assert _count(kafka_bootstrap, fail_topic) == 0
    _assert_exact(kafka_bootstrap, schema_registry_url, resume_topic, worker, "resumes")


def test_basic_auth(kafka_bootstrap: str, worker: WorkerProcess, registry_basic_auth: BasicAuthProxy,
                    schema_registry_url: str) -> None:
    """Credentials from ``basic.auth.user.info`` or from the URL reach the registry; a wrong password
    fails the task at its start, before any record and without retries, with one line that names the
    registry and says the credentials were refused (the password itself not shown)."""
    proxy = registry_basic_auth
    user_info_topic, url_topic, wrong_topic = (new_topic(kafka_bootstrap) for _ in range(3))
    user_info = {"value.converter.basic.auth.credentials.source": "USER_INFO",
                 "value.converter.basic.auth.user.info": proxy.user_info}
    in_url = proxy.url.replace("http://", f"http://{proxy.user_info}@")
    wrong = {"value.converter.basic.auth.credentials.source": "USER_INFO",
             "value.converter.basic.auth.user.info": f"{proxy.user}:not-the-password"}
    with ConnectClient(worker.url) as client:
        client.create_connector("user-info", _config(user_info_topic, proxy.url, **user_info))
        client.create_connector("in-url", _config(url_topic, in_url, **{
            "value.converter.basic.auth.credentials.source": "URL"}))
        # Retries would take ten minutes: the task fails long before, as the check at start fails it.
        client.create_connector("wrong", _config(wrong_topic, proxy.url, errors_retry_timeout="600000", **wrong))
        trace = _failed_trace(client, "wrong")
        last = trace.strip().splitlines()[-1]
        assert proxy.url in last and "refused the credentials of basic.auth.user.info (HTTP 401)" in last, trace
        assert "not-the-password" not in trace
        wait_until(lambda: _count(kafka_bootstrap, user_info_topic) > 100 and _count(kafka_bootstrap, url_topic) > 100,
                   60, message="records through the proxy")
    assert worker.stop() == 0
    assert _count(kafka_bootstrap, wrong_topic) == 0
    _assert_exact(kafka_bootstrap, schema_registry_url, user_info_topic, worker, "user-info")
    _assert_exact(kafka_bootstrap, schema_registry_url, url_topic, worker, "in-url")
