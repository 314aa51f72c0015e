"""The REST endpoints third-party Kafka Connect clients call, on real workers and the real broker:
``PATCH /connectors/{c}/config`` (KIP-477), active topics (KIP-558) and ``/admin/loggers`` (KIP-495,
KIP-976).

Third-party clients, unmodified: PyPI ``kafka-connect-py`` for the topics calls, PyPI
``kafka-connect-api`` for the loggers calls. No client we found (those two, PyPI ``kafkaconnect``, Maven
``org.sourcelab:kafka-connect-client``) has a PATCH config call, so that one (and the error cases) are
plain requests with JSON bodies sent with ``requests``, the HTTP library those clients use.
"""

from __future__ import annotations

import json
import re
import uuid
from contextlib import closing
from pathlib import Path
from typing import Any

import httpx
import pytest
import requests
from confluent_kafka import Producer
from kafka_connect import KafkaConnect
from kafka_connect_api.kafka_connect_api import Api, Cluster

from connect_runtime.storage import formats
from connect_runtime.testing.cluster import (
    ConnectClient,
    WorkerProcess,
    config_records,
    current_leader,
    read_committed,
    wait_until,
)
from connect_runtime.testing.pytest_plugin import new_topic
from connectors.verifiable.connector import VERSION as VERIFIABLE_VERSION

#: One worker for the module (exactly-once off: these endpoints do not depend on it).
pytestmark = [pytest.mark.kafka, pytest.mark.connect_worker(eos="disabled")]


def _group() -> str:
    return f"rest-clients-{uuid.uuid4().hex[:8]}"


def _name(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:6]}"


def _verifiable(topic: str) -> dict[str, str]:
    return {"connector.class": "VerifiableSource", "topic": topic, "tasks.max": "1", "throughput": "20"}


def _json(resp: httpx.Response | requests.Response, status: int) -> Any:
    assert resp.status_code == status, f"{resp.request.method} {resp.request.url}: {resp.status_code} {resp.text}"
    return resp.json()


def _error(resp: httpx.Response | requests.Response, status: int, message: str) -> None:
    assert _json(resp, status) == {"error_code": status, "message": message}


def _status_records(bootstrap: str, worker: WorkerProcess, prefix: str) -> list[tuple[str, bytes | None]]:
    topic = worker.props["status.storage.topic"]
    return [(k.decode(), v) for k, v in read_committed(bootstrap, topic) if k is not None
            and k.decode().startswith(prefix)]


# ---------------------------------------------------------------------------------------------
# PATCH /connectors/{c}/config (KIP-477)
# ---------------------------------------------------------------------------------------------


def test_patch_config_merges_removes_validates(client: ConnectClient, worker: WorkerProcess,
                                                kafka_bootstrap: str) -> None:
    name = _name("patch")
    config = {**_verifiable(new_topic(kafka_bootstrap)), "max.records": "1000000"}
    client.create_connector(name, config)
    url = f"{worker.url}/connectors/{name}/config"

    # A client's PATCH: a JSON map; a null value removes the key.
    resp = requests.patch(url, json={"throughput": "7", "max.records": None}, timeout=30)
    body = _json(resp, 200)
    assert list(body) == ["name", "config", "tasks", "type"]
    assert body["name"] == name and body["type"] == "source"
    expected = {k: v for k, v in config.items() if k != "max.records"} | {"throughput": "7", "name": name}
    assert body["config"] == expected
    assert _json(client.request("GET", f"/connectors/{name}/config"), 200) == expected

    # The patched config reaches the task (the connector is reconfigured as after a PUT).
    def task_has_it() -> bool:
        tasks = _json(client.request("GET", f"/connectors/{name}/tasks"), 200)
        return bool(tasks) and tasks[0]["config"].get("throughput") == "7"

    wait_until(task_has_it, 60, message="the patched throughput in the task config")

    # Validated as a PUT is: an invalid merged config is refused and nothing changes.
    resp = requests.patch(url, json={"tasks.max": "many"}, timeout=30)
    assert resp.status_code == 400, resp.text
    assert resp.json()["message"].startswith("Connector configuration is invalid and contains the following 1 error(s)")
    assert "tasks.max" in resp.json()["message"]
    assert _json(client.request("GET", f"/connectors/{name}/config"), 200) == expected

    # Unknown connector: 404 with Java's message.
    _error(requests.patch(f"{worker.url}/connectors/nope-{name}/config", json={"a": "b"}, timeout=30),
           404, f"Connector nope-{name} not found")
    client.request("DELETE", f"/connectors/{name}")


# ---------------------------------------------------------------------------------------------
# Active topics (KIP-558)
# ---------------------------------------------------------------------------------------------

_TOPIC_STATUS_VALUE = re.compile(
    rb'\{"topic":\{"name":"(?P<topic>[^"]+)","connector":"(?P<connector>[^"]+)","task":(?P<task>\d+),'
    rb'"discoverTimestamp":(?P<ts>\d+)\}\}')


def test_active_topics_through_a_third_party_client(client: ConnectClient, worker: WorkerProcess,
                                                    kafka_bootstrap: str) -> None:
    name = _name("topics")
    topic = new_topic(kafka_bootstrap)
    kc = KafkaConnect(url=worker.url)
    assert kc.list_connector_topics(name) == {name: {"topics": []}}  # unknown connector: none, as Java

    client.create_connector(name, _verifiable(topic))
    client.wait_running(name, 1)
    found = wait_until(lambda: kc.list_connector_topics(name) if kc.list_connector_topics(name)[name]["topics"]
                       else None, 30, message="an active topic")
    assert found == {name: {"topics": [topic]}}

    # The record Java writes, byte for byte, once (not once per record).
    key = f"status-topic-{topic}:connector-{name}"
    records = _status_records(kafka_bootstrap, worker, key)
    assert len(records) == 1, records
    match = _TOPIC_STATUS_VALUE.fullmatch(records[0][1] or b"")
    assert match is not None, records[0][1]
    assert (match["topic"].decode(), match["connector"].decode(), int(match["task"])) == (topic, name, 0)

    # Reset (Java allows it at any time; stop first so the running task does not re-add it at once).
    assert client.request("PUT", f"/connectors/{name}/stop").status_code == 204
    wait_until(lambda: client.status(name)["connector"]["state"] == "STOPPED", 30, message="STOPPED")
    kc.reset_connector_topics(name)
    assert kc.list_connector_topics(name) == {name: {"topics": []}}
    assert _status_records(kafka_bootstrap, worker, key)[-1] == (key, None)  # a tombstone

    # Running again, the task records the topic again.
    assert client.request("PUT", f"/connectors/{name}/resume").status_code == 202
    wait_until(lambda: kc.list_connector_topics(name)[name]["topics"] == [topic], 60,
               message="the topic active again after resume")

    # Deleting the connector resets its topics (Java does so when the connector is revoked).
    assert client.request("DELETE", f"/connectors/{name}").status_code == 204
    wait_until(lambda: _status_records(kafka_bootstrap, worker, key)[-1] == (key, None), 30,
               message="a tombstone for the deleted connector's topic")


def test_topic_tracking_settings(kafka_bootstrap: str, tmp_path: Path) -> None:
    off = WorkerProcess(kafka_bootstrap, tmp_path / "off", _group(), eos="disabled",
                        extra={"topic.tracking.enable": "false"})
    no_reset = WorkerProcess(kafka_bootstrap, tmp_path / "no-reset", _group(), eos="disabled",
                             extra={"topic.tracking.allow.reset": "false"})
    off.start()
    no_reset.start()
    try:
        off.wait_ready()
        no_reset.wait_ready()
        name = _name("untracked")
        topic = new_topic(kafka_bootstrap)
        with closing(ConnectClient(off.url)) as c:
            _error(c.request("GET", f"/connectors/{name}/topics"), 403, "Topic tracking is disabled.")
            _error(c.request("PUT", f"/connectors/{name}/topics/reset"), 403, "Topic tracking is disabled.")
            c.create_connector(name, _verifiable(topic))
            c.wait_running(name, 1)
            wait_until(lambda: len(read_committed(kafka_bootstrap, topic)) > 5, 30, message="records")
        assert _status_records(kafka_bootstrap, off, "status-topic-") == []  # nothing tracked
        with closing(ConnectClient(no_reset.url)) as c:
            assert _json(c.request("GET", f"/connectors/{name}/topics"), 200) == {name: {"topics": []}}
            _error(c.request("PUT", f"/connectors/{name}/topics/reset"), 403, "Topic tracking reset is disabled.")
    finally:
        off.kill()
        no_reset.kill()


# ---------------------------------------------------------------------------------------------
# /admin/loggers (KIP-495, KIP-976)
# ---------------------------------------------------------------------------------------------


def test_worker_scope_logger_levels(worker: WorkerProcess) -> None:
    base = f"{worker.url}/admin/loggers"
    listing = _json(requests.get(base, timeout=30), 200)
    assert "root" in listing and set(listing["root"]) == {"level", "last_modified"}

    herder = "connect_runtime.cluster.herder"
    before = _json(requests.get(f"{base}/{herder}", timeout=30), 200)
    assert before["last_modified"] is None and before["level"] in {"INFO", "WARN", "DEBUG", "TRACE", "ERROR"}

    resp = requests.put(f"{base}/connect_runtime.cluster", json={"level": "trace"}, timeout=30)
    affected = _json(resp, 200)
    assert affected == sorted(affected) and {"connect_runtime.cluster", herder} <= set(affected)
    after = _json(requests.get(f"{base}/{herder}", timeout=30), 200)
    assert after["level"] == "TRACE" and isinstance(after["last_modified"], int)
    listing = _json(requests.get(base, timeout=30), 200)
    assert listing[herder] == after and list(listing) == sorted(listing)

    # Back to INFO; an unknown scope is the worker scope, as in Java.
    _json(requests.put(f"{base}/connect_runtime.cluster?scope=galaxy", json={"level": "INFO"}, timeout=30), 200)
    assert _json(requests.get(f"{base}/{herder}", timeout=30), 200)["level"] == "INFO"

    missing = f"missing.{uuid.uuid4().hex}"
    _error(requests.get(f"{base}/{missing}", timeout=30), 404, f"Logger {missing} not found.")
    _error(requests.put(f"{base}/{herder}", json={"level": "LOUD"}, timeout=30), 404, "invalid log level 'LOUD'.")
    _error(requests.put(f"{base}/{herder}", json={"lvl": "INFO"}, timeout=30), 400,
           "Desired 'level' parameter was not specified in request.")


def test_loggers_through_a_third_party_client(worker: WorkerProcess) -> None:
    namespace = "connect_runtime.storage"
    base = f"{worker.url}/admin/loggers"
    # The client only changes loggers the worker lists (those with a level set): set one first.
    _json(requests.put(f"{base}/{namespace}", json={"level": "WARN"}, timeout=30), 200)
    cluster = Cluster(Api(url=worker.url))
    try:
        loggers = cluster.loggers
        assert loggers[namespace]["level"] == "WARN" and "root" in loggers
        assert set(cluster.root_logger) == {"level", "last_modified"}
        affected = cluster.set_logger_log_level(namespace, "DEBUG")
        assert namespace in affected and affected == sorted(affected)
        assert cluster.loggers[namespace]["level"] == "DEBUG"
        assert requests.get(f"{base}/connect_runtime.storage.status_store", timeout=30).json()["level"] == "DEBUG"
    finally:
        requests.put(f"{base}/{namespace}", json={"level": "INFO"}, timeout=30)


def test_cluster_scope_logger_levels(worker: WorkerProcess, kafka_bootstrap: str, tmp_path: Path) -> None:
    base_a = f"{worker.url}/admin/loggers"
    namespace = "connect_runtime.worker"
    probe = "connect_runtime.worker.worker"

    resp = requests.put(f"{base_a}/{namespace}?scope=cluster", json={"level": "ERROR"}, timeout=30)
    assert resp.status_code == 204 and resp.content == b""
    records = [(k, v) for k, v in config_records(kafka_bootstrap, worker.props["config.storage.topic"])
               if k == f"logger-cluster-{namespace}"]
    assert records == [(f"logger-cluster-{namespace}", b'{"level":"ERROR"}')]
    wait_until(lambda: requests.get(f"{base_a}/{probe}", timeout=30).json()["level"] == "ERROR", 30,
               message="the cluster level applied by the worker that wrote it")

    # A worker that starts later keeps its own levels (Java ignores records written before it started) ...
    b = WorkerProcess(kafka_bootstrap, tmp_path / "b", worker.props["group.id"], eos="disabled").start_ready()
    try:
        base_b = f"{b.url}/admin/loggers"
        assert requests.get(f"{base_b}/{probe}", timeout=30).json()["level"] != "ERROR"
        # ... and applies every later one, as every running worker does, whichever worker wrote it.
        resp = requests.put(f"{base_b}/{namespace}?scope=cluster", json={"level": "DEBUG"}, timeout=30)
        assert resp.status_code == 204
        for base in (base_a, base_b):
            wait_until(lambda base=base: requests.get(f"{base}/{probe}", timeout=30).json()["level"] == "DEBUG",
                       30, message=f"DEBUG applied at {base}")

        # With two workers: a PATCH sent to the follower is forwarded to the leader.
        leader = current_leader(kafka_bootstrap, worker.props["config.storage.topic"])
        assert leader is not None and leader["url"].rstrip("/") == worker.url, leader
        name = _name("patch-forwarded")
        requests.post(f"{worker.url}/connectors", json={"name": name, "config": _verifiable("t-forwarded")},
                      timeout=30).raise_for_status()
        resp = requests.patch(f"{b.url}/connectors/{name}/config", json={"throughput": "3"}, timeout=30)
        assert _json(resp, 200)["config"]["throughput"] == "3"
        assert requests.get(f"{worker.url}/connectors/{name}/config", timeout=30).json()["throughput"] == "3"
        requests.delete(f"{worker.url}/connectors/{name}", timeout=30)
    finally:
        # A clean leave: a killed worker would keep its share of the module's later connectors for
        # scheduled.rebalance.max.delay.ms (5 minutes by default).
        b.stop()
        requests.put(f"{base_a}/{namespace}", json={"level": "INFO"}, timeout=30)


# ---------------------------------------------------------------------------------------------
# Apache Kafka's class names
# ---------------------------------------------------------------------------------------------

JAVA_CONNECTOR = "org.apache.kafka.connect.tools.VerifiableSourceConnector"
JAVA_TASK = "org.apache.kafka.connect.tools.VerifiableSourceTask"


def test_configs_written_by_a_java_cluster_start_as_they_are(client: ConnectClient, worker: WorkerProcess,
                                                              kafka_bootstrap: str) -> None:
    """The records a Java cluster writes for its VerifiableSourceConnector (connector, task with the Java
    task class and its ``id`` key, commit) start here, and are not rewritten."""
    name = _name("java-written")
    topic = new_topic(kafka_bootstrap)
    config = {"connector.class": JAVA_CONNECTOR, "name": name, "topic": topic, "tasks.max": "1",
              "throughput": "20"}
    task = {**config, "id": "0", "task.class": JAVA_TASK}
    config_topic = worker.props["config.storage.topic"]
    producer = Producer({"bootstrap.servers": kafka_bootstrap})
    for key, value in (formats.connector_config_record(name, config), formats.task_config_record(name, 0, task),
                       formats.commit_record(name, 1)):
        producer.produce(config_topic, key=key.encode(), value=value)
    assert producer.flush(30) == 0

    client.wait_running(name, 1)
    wait_until(lambda: len(read_committed(kafka_bootstrap, topic)) > 5, 30, message="records from the task")
    assert _json(client.request("GET", f"/connectors/{name}/tasks"), 200) == [
        {"id": {"connector": name, "task": 0}, "config": task}]
    # Our connector generates the same task configs under its Java name: nothing was rewritten.
    written = [k for k, _ in config_records(kafka_bootstrap, config_topic)
               if k in (f"task-{name}-0", f"commit-{name}")]
    assert written == [f"task-{name}-0", f"commit-{name}"]
    assert _json(client.request("GET", f"/connector-plugins/{JAVA_CONNECTOR}/config"), 200)
    client.request("DELETE", f"/connectors/{name}")


# ---------------------------------------------------------------------------------------------
# Java 4.1 details: status versions, plugin config, trailing slash, media type
# ---------------------------------------------------------------------------------------------


def test_status_carries_versions_and_java_details(client: ConnectClient, worker: WorkerProcess,
                                                  kafka_bootstrap: str) -> None:
    name = _name("details")
    topic = new_topic(kafka_bootstrap)
    client.create_connector(name, _verifiable(topic))
    client.wait_running(name, 1)
    status = client.status(name)
    assert status["connector"] == {"state": "RUNNING", "worker_id": worker.url.removeprefix("http://"),
                                   "version": VERIFIABLE_VERSION}
    assert list(status["tasks"][0]) == ["id", "state", "worker_id", "version"]
    assert status["tasks"][0]["version"] == VERIFIABLE_VERSION
    task_status = _json(client.request("GET", f"/connectors/{name}/tasks/0/status/"), 200)  # trailing slash
    assert task_status == status["tasks"][0]
    records = dict(_status_records(kafka_bootstrap, worker, f"status-connector-{name}"))
    assert records[f"status-connector-{name}"] == (
        b'{"state":"RUNNING","trace":null,"worker_id":"' + worker.url.removeprefix("http://").encode()
        + b'","generation":' + str(json_generation(records[f"status-connector-{name}"])).encode()
        + b',"version":"' + VERIFIABLE_VERSION.encode() + b'"}')

    # The trailing slash answers directly (no redirect); a body that is not JSON is 415.
    resp = client.request("GET", f"/connectors/{name}/", follow_redirects=False)
    assert resp.status_code == 200 and resp.json()["name"] == name
    resp = client.request("PUT", f"/connectors/{name}/config", content=b"{}",
                          headers={"Content-Type": "text/plain"})
    _error(resp, 415, "HTTP 415 Unsupported Media Type")

    # Plugin config: the connector's keys then the 24 framework keys; a converter's own keys; 404.
    keys = [k["name"] for k in _json(client.request("GET", "/connector-plugins/VerifiableSource/config"), 200)]
    assert keys[:3] == ["topic", "throughput", "complete.record.data"] and len(keys) == 3 + 24
    assert {"tasks.max.enforce", "connector.plugin.version", "value.converter.plugin.version"} <= set(keys)
    json_keys = _json(client.request("GET", "/connector-plugins/org.apache.kafka.connect.json.JsonConverter/config"),
                      200)
    assert [k["name"] for k in json_keys][:2] == ["converter.type", "schemas.enable"]
    _error(client.request("GET", "/connector-plugins/NoSuchPlugin/config"), 404, "Unknown plugin NoSuchPlugin.")
    client.request("DELETE", f"/connectors/{name}")


def json_generation(value: bytes | None) -> int:
    generation = json.loads(value or b"{}")["generation"]
    assert isinstance(generation, int)
    return generation


def test_a_plugin_version_the_worker_lacks_fails_the_connector(client: ConnectClient, worker: WorkerProcess,
                                                               kafka_bootstrap: str) -> None:
    """Validation refuses it; a config that reaches the worker anyway (written by another cluster, or the plugin
    was downgraded since) fails the connector with the reason instead of running another version."""
    name = _name("wrong-version")
    config = {**_verifiable(new_topic(kafka_bootstrap)), "name": name, "connector.plugin.version": "[9.0,)"}
    resp = client.request("POST", "/connectors", json={"name": name, "config": config})
    assert resp.status_code == 400, resp.text
    assert "Version [9.0,) of plugin VerifiableSource is not installed" in resp.json()["message"]
    producer = Producer({"bootstrap.servers": kafka_bootstrap})
    key, value = formats.connector_config_record(name, config)
    producer.produce(worker.props["config.storage.topic"], key=key.encode(), value=value)
    assert producer.flush(30) == 0
    failed = wait_until(lambda: client.status(name) if client.status(name)["connector"]["state"] == "FAILED"
                        else None, 30, message="the connector FAILED")
    assert "Invalid connector.plugin.version: Version [9.0,) of plugin VerifiableSource is not installed" \
        in failed["connector"]["trace"]
    client.request("DELETE", f"/connectors/{name}")
