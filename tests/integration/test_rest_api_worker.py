"""The Kafka Connect REST API of a real worker process on the real broker: every endpoint, its
status codes and JSON shapes, bad input, and what the calls do to the data flowing into Kafka.

One EOS-enabled worker serves the whole module (each test uses its own connectors and topics); the
exactly-once preflight test starts a second, short-lived worker with exactly-once support disabled.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from confluent_kafka.admin import AdminClient

from connect_runtime.testing.cluster import (
    ConnectClient,
    WorkerProcess,
    assert_settles,
    plugin_path,
    read_committed,
    wait_until,
)
from connect_runtime.testing.pytest_plugin import new_topic
from connectors.verifiable.connector import VERSION as VERIFIABLE_VERSION

PLUGINS_DIR = Path(__file__).resolve().parents[1] / "plugins"
#: One EOS-enabled worker for the whole module.
pytestmark = [pytest.mark.kafka, pytest.mark.connect_worker(eos="enabled", extra=plugin_path(PLUGINS_DIR))]
VERIFIABLE_CLASS = "connectors.verifiable.connector.VerifiableSourceConnector"
VERIFIABLE_TASK_CLASS = "connectors.verifiable.connector.VerifiableSourceTask"
INVALID_CONFIG_PREFIX = "Connector configuration is invalid and contains the following"
VALIDATE_HINT = "You can also find the above list of errors at the endpoint"
NO_EOS_ERROR = "This worker does not have exactly-once source support enabled."
#: Records per second per task: enough to see data flow, light enough for a 2-core CI machine.
THROUGHPUT = "50"


# ---------------------------------------------------------------------------------------------
# Fixtures and helpers
# ---------------------------------------------------------------------------------------------




def _start_worker(bootstrap: str, workdir: Path, eos: str) -> WorkerProcess:
    return WorkerProcess(bootstrap, workdir, f"rest-api-{uuid.uuid4().hex[:8]}", eos=eos,
                         extra=plugin_path(PLUGINS_DIR)).start_ready()


def _name(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:6]}"


def _verifiable(topic: str, tasks: int = 1, extra: dict[str, str] | None = None) -> dict[str, str]:
    return {"connector.class": "VerifiableSource", "topic": topic, "tasks.max": str(tasks),
            "throughput": THROUGHPUT, **(extra or {})}


def _json(resp: httpx.Response, status: int) -> Any:
    request = f"{resp.request.method} {resp.request.url}"
    assert resp.status_code == status, f"{request}: {resp.status_code} {resp.text}"
    return resp.json()


def _empty(resp: httpx.Response, status: int) -> None:
    """Assert ``status`` with no body at all."""
    assert resp.status_code == status, f"{resp.request.method} {resp.request.url}: {resp.status_code} {resp.text}"
    assert resp.content == b""


def _error(resp: httpx.Response, status: int, *fragments: str) -> str:
    """Assert Connect's error body ``{"error_code": status, "message": ...}``; return the message."""
    body = _json(resp, status)
    assert list(body) == ["error_code", "message"], body
    assert body["error_code"] == status, body
    message = body["message"]
    assert isinstance(message, str) and message, body
    for fragment in fragments:
        assert fragment in message, f"{fragment!r} not in {message!r}"
    return message


def _create(client: ConnectClient, name: str, config: dict[str, Any], **body: Any) -> httpx.Response:
    return client.request("POST", "/connectors", json={"name": name, "config": config, **body})


def _status(client: ConnectClient, name: str) -> dict[str, Any]:
    result: dict[str, Any] = _json(client.request("GET", f"/connectors/{name}/status"), 200)
    return result


def _committed(bootstrap: str, topic: str) -> list[tuple[int, int]]:
    """(task id, seqno) of every committed VerifiableSource / FailingSource record in ``topic``."""
    out = []
    for key, value in read_committed(bootstrap, topic, timeout_s=30):
        assert key is not None and value is not None
        out.append((int(json.loads(key)), int(json.loads(value))))
    return out


def _wait_records(bootstrap: str, topic: str, more_than: int, task: int | None = None,
                  timeout_s: float = 30.0) -> list[tuple[int, int]]:
    """Wait until more than ``more_than`` records (of ``task``, if given) are committed in ``topic``."""

    def enough() -> list[tuple[int, int]] | None:
        records = [r for r in _committed(bootstrap, topic) if task is None or r[0] == task]
        return records if len(records) > more_than else None

    which = "" if task is None else f" of task {task}"
    return wait_until(enough, timeout_s, interval_s=0.5,
                      message=f"more than {more_than} records{which} in {topic}")


def _producing(client: ConnectClient, bootstrap: str, prefix: str, tasks: int, records: int) -> tuple[str, str]:
    """A VerifiableSource created through the API, running, with more than ``records`` records
    committed: its name and topic."""
    topic = new_topic(bootstrap)
    name = _name(prefix)
    _json(_create(client, name, _verifiable(topic, tasks=tasks)), 201)
    client.wait_running(name, tasks)
    _wait_records(bootstrap, topic, records)
    return name, topic


def _assert_no_new_records(bootstrap: str, topic: str, settle_s: float = 10.0, window_s: float = 2.5) -> int:
    """The committed record count settles (in-flight work may finish) and stays put; returns it."""
    return assert_settles(lambda: len(_committed(bootstrap, topic)), settle_s, window_s,
                          message=f"committed records of {topic}")


def _worker_id(worker: WorkerProcess) -> str:
    return worker.url.removeprefix("http://")


# ---------------------------------------------------------------------------------------------
# Root and plugins
# ---------------------------------------------------------------------------------------------


def test_root_and_health(client: ConnectClient, kafka_bootstrap: str) -> None:
    info = _json(client.request("GET", "/"), 200)
    assert list(info) == ["version", "commit", "kafka_cluster_id"]
    assert info["version"] and info["commit"]
    cluster_id = AdminClient({"bootstrap.servers": kafka_bootstrap}).list_topics(timeout=30).cluster_id
    assert info["kafka_cluster_id"] == cluster_id

    health = _json(client.request("GET", "/health"), 200)
    assert health == {"status": "healthy",
                      "message": "Worker has completed startup and is ready to handle requests."}


def test_connector_plugins(client: ConnectClient) -> None:
    plugins = _json(client.request("GET", "/connector-plugins"), 200)
    assert {"class": VERIFIABLE_CLASS, "type": "source", "version": VERIFIABLE_VERSION} in plugins
    assert all(set(p) <= {"class", "type", "version"} for p in plugins), plugins
    assert {p["type"] for p in plugins} <= {"source", "sink"}, plugins

    everything = _json(client.request("GET", "/connector-plugins", params={"connectorsOnly": "false"}), 200)
    converters = {p["class"] for p in everything if p["type"] == "converter"}
    assert any(c.endswith(".JsonConverter") for c in converters), everything
    assert any(c.endswith(".StringConverter") for c in converters), everything
    assert {"class": VERIFIABLE_CLASS, "type": "source", "version": VERIFIABLE_VERSION} in everything

    keys = _json(client.request("GET", "/connector-plugins/VerifiableSourceConnector/config"), 200)
    assert "topic" in {k["name"] for k in keys}


def _validate(client: ConnectClient, plugin: str, config: Any) -> httpx.Response:
    return client.request("PUT", f"/connector-plugins/{plugin}/config/validate", json=config)


def _config_by_name(infos: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["definition"]["name"]: c for c in infos["configs"]}


#: A body without a Content-Type is refused with 415 (as on Java); these test what a JSON one says.
_JSON_BODY = {"Content-Type": "application/json"}


def test_validate_config(client: ConnectClient) -> None:
    config = _verifiable("some-topic", extra={"name": "validated", "topics": "tolerated-unknown-key",
                                              "exactly.once.support": "required"})
    infos = _json(_validate(client, "VerifiableSourceConnector", config), 200)
    assert list(infos) == ["name", "error_count", "groups", "configs"]
    assert infos["name"] == "VerifiableSource"  # the body's connector.class as given, as Java
    assert infos["error_count"] == 0, [c["value"] for c in infos["configs"] if c["value"]["errors"]]
    assert "Common" in infos["groups"]
    by_name = _config_by_name(infos)
    for key in ("name", "connector.class", "tasks.max", "exactly.once.support", "transaction.boundary",
                "topic"):
        assert key in by_name, key
    entry = by_name["topic"]
    assert list(entry) == ["definition", "value"]
    assert set(entry["definition"]) == {"name", "type", "required", "default_value", "importance",
                                        "documentation", "group", "order", "width", "display_name",
                                        "dependents"}
    assert entry["definition"]["name"] == "topic" and entry["definition"]["required"] is True
    assert list(entry["value"]) == ["name", "value", "recommended_values", "errors", "visible"]
    assert entry["value"]["value"] == "some-topic"
    assert by_name["exactly.once.support"]["value"] == {
        "name": "exactly.once.support", "value": "required", "recommended_values": by_name[
            "exactly.once.support"]["value"]["recommended_values"], "errors": [], "visible": True}

    # Invalid: no topic, tasks.max=0. Each error is attached to its key and counted.
    bad = {"connector.class": "VerifiableSource", "tasks.max": "0"}
    infos = _json(_validate(client, "VerifiableSource", bad), 200)
    assert infos["error_count"] == 3
    by_name = _config_by_name(infos)
    # Unlike create, validate does not fill in the name from anywhere.
    assert by_name["name"]["value"]["errors"] == [
        'Missing required configuration "name" which has no default value.']
    assert by_name["topic"]["value"]["errors"] == [
        'Missing required configuration "topic" which has no default value.']
    assert len(by_name["tasks.max"]["value"]["errors"]) == 1
    assert "tasks.max" in by_name["tasks.max"]["value"]["errors"][0]

    # The plugin in the URL and the connector.class of the body must agree.
    _error(_validate(client, "FileStreamSource", config), 400, "does not match request type")
    validate_path = "/connector-plugins/VerifiableSource/config/validate"
    _error(client.request("PUT", validate_path, content=b"{nope", headers=_JSON_BODY), 400, "not valid JSON")
    _error(_validate(client, "VerifiableSource", {"connector.class": "VerifiableSource", "topic": ["a"]}),
           400, "topic")
    _error(_validate(client, "VerifiableSource", {"topic": "t"}), 400, "contains no connector type")


# ---------------------------------------------------------------------------------------------
# Connector lifecycle
# ---------------------------------------------------------------------------------------------


def test_create_inspect_and_list(client: ConnectClient, worker: WorkerProcess, kafka_bootstrap: str) -> None:
    topic = new_topic(kafka_bootstrap)
    name = _name("inspect")
    config = _verifiable(topic, tasks=2)
    resp = _create(client, name, config)
    created = _json(resp, 201)
    assert resp.headers["Location"] == f"{worker.url}/connectors/{name}"
    assert list(created) == ["name", "config", "tasks", "type"]
    assert created["name"] == name
    assert created["config"] == {**config, "name": name}
    assert created["type"] == "source"

    _error(_create(client, name, config), 409, f"Connector {name} already exists")

    assert name in _json(client.request("GET", "/connectors"), 200)
    expected_tasks = [{"connector": name, "task": 0}, {"connector": name, "task": 1}]

    def info_with_tasks() -> dict[str, Any] | None:
        info: dict[str, Any] = _json(client.request("GET", f"/connectors/{name}"), 200)
        return info if info["tasks"] else None

    # The task ids appear once the leader has written the task configs.
    info = wait_until(info_with_tasks, 30, message="task ids in the connector info")
    assert info == {"name": name, "config": {**config, "name": name}, "tasks": expected_tasks,
                    "type": "source"}

    assert _json(client.request("GET", f"/connectors/{name}/config"), 200) == {**config, "name": name}

    tasks = _json(client.request("GET", f"/connectors/{name}/tasks"), 200)
    assert [t["id"] for t in tasks] == expected_tasks
    for t in tasks:
        assert list(t) == ["id", "config"]
        assert t["config"]["task.class"] == VERIFIABLE_TASK_CLASS
        assert t["config"]["topic"] == topic
    assert sorted(t["config"]["task.id"] for t in tasks) == ["0", "1"]

    status = client.wait_running(name, 2)
    assert list(status) == ["name", "connector", "tasks", "type"]
    assert status["name"] == name and status["type"] == "source"
    # Java 4.1's key order: {"state","worker_id","version"} and {"id","state","worker_id","version"}; no
    # trace when there is none.
    assert status["connector"] == {"state": "RUNNING", "worker_id": _worker_id(worker), "version": VERIFIABLE_VERSION}
    assert list(status["connector"]) == ["state", "worker_id", "version"]
    assert [t["id"] for t in status["tasks"]] == [0, 1]
    for t in status["tasks"]:
        assert list(t) == ["id", "state", "worker_id", "version"]
        assert t["worker_id"] == _worker_id(worker)

    # Both tasks deliver.
    _wait_records(kafka_bootstrap, topic, 5, task=0)
    _wait_records(kafka_bootstrap, topic, 5, task=1)

    # ?expand=status, ?expand=info, both.
    by_status = _json(client.request("GET", "/connectors", params={"expand": "status"}), 200)
    assert list(by_status[name]) == ["status"]
    assert by_status[name]["status"]["name"] == name
    assert by_status[name]["status"]["connector"]["state"] == "RUNNING"
    assert len(by_status[name]["status"]["tasks"]) == 2
    by_info = _json(client.request("GET", "/connectors", params={"expand": "info"}), 200)
    assert by_info[name] == {"info": info}
    both = _json(client.request("GET", "/connectors", params=[("expand", "status"), ("expand", "info")]), 200)
    assert set(both[name]) == {"status", "info"}
    assert both[name]["info"] == info
    assert both[name]["status"]["connector"]["state"] == "RUNNING"

    assert client.request("DELETE", f"/connectors/{name}").status_code == 204


def test_put_config_creates_then_updates_and_tasks_restart(client: ConnectClient, worker: WorkerProcess,
                                                           kafka_bootstrap: str) -> None:
    topic = new_topic(kafka_bootstrap)
    name = _name("put")
    config = _verifiable(topic, tasks=1)
    resp = client.request("PUT", f"/connectors/{name}/config", json=config)
    created = _json(resp, 201)
    assert resp.headers["Location"] == f"{worker.url}/connectors/{name}"
    assert created["name"] == name and created["config"] == {**config, "name": name}
    client.wait_running(name, 1)
    _wait_records(kafka_bootstrap, topic, 5, task=0)

    # Update: two tasks and a new throughput. 200, the new config is served at once.
    updated_config = _verifiable(topic, tasks=2, extra={"throughput": "40"})
    resp = client.request("PUT", f"/connectors/{name}/config", json=updated_config)
    updated = _json(resp, 200)
    assert "Location" not in resp.headers
    assert updated["name"] == name and updated["config"] == {**updated_config, "name": name}
    assert _json(client.request("GET", f"/connectors/{name}/config"), 200) == {**updated_config, "name": name}

    def new_task_configs() -> list[dict[str, Any]] | None:
        tasks: list[dict[str, Any]] = _json(client.request("GET", f"/connectors/{name}/tasks"), 200)
        ok = len(tasks) == 2 and all(t["config"]["throughput"] == "40" and t["config"]["tasks.max"] == "2"
                                     for t in tasks)
        return tasks if ok else None

    tasks = wait_until(new_task_configs, 30, message="the new task configs")
    assert [t["id"]["task"] for t in tasks] == [0, 1]
    info = _json(client.request("GET", f"/connectors/{name}"), 200)
    assert info["tasks"] == [{"connector": name, "task": 0}, {"connector": name, "task": 1}]
    client.wait_running(name, 2)

    # Both tasks run again: task 0 continues its sequence, task 1 starts one.
    floor0 = max(s for t, s in _committed(kafka_bootstrap, topic) if t == 0)
    _wait_records(kafka_bootstrap, topic, 5, task=1)
    wait_until(lambda: max(s for t, s in _committed(kafka_bootstrap, topic) if t == 0) > floor0 + 5, 30,
               interval_s=0.5, message="task 0 producing again")

    # Name in the body must match the URL.
    _error(client.request("PUT", f"/connectors/{name}/config", json={**updated_config, "name": "other"}), 400,
           "doesn't match connector name in the URL")
    # An invalid update is refused and changes nothing.
    invalid = {**updated_config, "tasks.max": "0"}
    _error(client.request("PUT", f"/connectors/{name}/config", json=invalid), 400,
           f"{INVALID_CONFIG_PREFIX} 1 error(s):", "tasks.max")
    assert _json(client.request("GET", f"/connectors/{name}/config"), 200) == {**updated_config, "name": name}
    assert client.request("DELETE", f"/connectors/{name}").status_code == 204


def test_pause_and_resume(client: ConnectClient, kafka_bootstrap: str) -> None:
    name, topic = _producing(client, kafka_bootstrap, "pause", tasks=1, records=5)

    _empty(client.request("PUT", f"/connectors/{name}/pause"), 202)
    client.wait_state(name, "PAUSED", 1, timeout_s=30)
    # The paused task committed its last batch before reporting PAUSED: nothing at all is added now.
    paused_count = len(_committed(kafka_bootstrap, topic))
    assert _assert_no_new_records(kafka_bootstrap, topic, settle_s=3.0) == paused_count
    # Pausing again is harmless.
    assert client.request("PUT", f"/connectors/{name}/pause").status_code == 202

    resp = client.request("PUT", f"/connectors/{name}/resume")
    assert resp.status_code == 202, resp.text
    client.wait_state(name, "RUNNING", 1, timeout_s=30)
    _wait_records(kafka_bootstrap, topic, paused_count + 5)
    # The sequence resumed where it stopped: no gap, no duplicate.
    seqnos = sorted(s for _, s in _committed(kafka_bootstrap, topic))
    assert seqnos == list(range(len(seqnos)))
    assert client.request("DELETE", f"/connectors/{name}").status_code == 204


def test_delete_stops_tasks_and_forgets_the_connector(client: ConnectClient, kafka_bootstrap: str) -> None:
    name, topic = _producing(client, kafka_bootstrap, "delete", tasks=2, records=10)

    _empty(client.request("DELETE", f"/connectors/{name}"), 204)

    assert name not in _json(client.request("GET", "/connectors"), 200)
    assert name not in _json(client.request("GET", "/connectors", params={"expand": "status"}), 200)
    _assert_unknown_everywhere(client, name)
    # The tasks stop: once their last in-flight batch is committed, nothing more arrives.
    _assert_no_new_records(kafka_bootstrap, topic)
    # The name can be reused.
    other = new_topic(kafka_bootstrap)
    _json(_create(client, name, _verifiable(other, tasks=1)), 201)
    client.wait_running(name, 1)
    assert client.request("DELETE", f"/connectors/{name}").status_code == 204


def _assert_unknown_everywhere(client: ConnectClient, name: str) -> None:
    for method, path in [
        ("GET", f"/connectors/{name}"),
        ("GET", f"/connectors/{name}/config"),
        ("GET", f"/connectors/{name}/status"),
        ("GET", f"/connectors/{name}/tasks"),
        ("DELETE", f"/connectors/{name}"),
        ("PUT", f"/connectors/{name}/pause"),
        ("PUT", f"/connectors/{name}/resume"),
    ]:
        message = _error(client.request(method, path), 404)
        assert name in message, f"{method} {path}: {message}"


def test_unknown_connector_is_404_on_every_endpoint(client: ConnectClient) -> None:
    _assert_unknown_everywhere(client, _name("never-created"))


# ---------------------------------------------------------------------------------------------
# Bad input
# ---------------------------------------------------------------------------------------------


def test_create_rejects_bad_input(client: ConnectClient) -> None:
    name = _name("bad")

    # Invalid configs: Connect's message with the error count and one line per error.
    message = _error(_create(client, name, {"connector.class": "VerifiableSource", "tasks.max": "1"}), 400,
                     f"{INVALID_CONFIG_PREFIX} 1 error(s):",
                     'Missing required configuration "topic" which has no default value.', VALIDATE_HINT)
    assert message.splitlines()[0] == f"{INVALID_CONFIG_PREFIX} 1 error(s):"
    message = _error(_create(client, name, {"connector.class": "VerifiableSource", "tasks.max": "0"}), 400,
                     f"{INVALID_CONFIG_PREFIX} 2 error(s):", "Invalid value 0 for configuration tasks.max",
                     'Missing required configuration "topic"')
    _error(_create(client, name, _verifiable("t", extra={"exactly.once.support": "sometimes"})), 400,
           f"{INVALID_CONFIG_PREFIX} 1 error(s):", "exactly.once.support")

    # Unknown or missing connector class.
    _error(_create(client, name, {"connector.class": "no.such.Connector", "topic": "t"}), 400,
           "Failed to find any class that implements Connector and which name matches no.such.Connector")
    _error(_create(client, name, {"topic": "t"}), 400, "contains no connector type")

    # Missing or empty name.
    _error(client.request("POST", "/connectors", json={"config": _verifiable("t")}), 400)
    _error(_create(client, "", _verifiable("t")), 400, "String may not be empty")
    # Name mismatch between the body and the config.
    _error(_create(client, name, {**_verifiable("t"), "name": "something-else"}), 400, "doesn't match")

    # Malformed bodies.
    _error(client.request("POST", "/connectors", content=b'{"name": "x", "config": {', headers=_JSON_BODY), 400)
    _error(client.request("POST", "/connectors", content=b"", headers=_JSON_BODY), 400)
    _error(client.request("POST", "/connectors", content=b"[1, 2]", headers=_JSON_BODY), 400)
    _error(client.request("POST", "/connectors", json={"name": name}), 400, "config")

    # Wrong types.
    _error(client.request("POST", "/connectors", json={"name": name, "config": "not a map"}), 400)
    _error(client.request("POST", "/connectors", json={"name": name, "config": ["a", "b"]}), 400)
    _error(client.request("POST", "/connectors", json={"name": {"n": 1}, "config": _verifiable("t")}), 400)
    _error(_create(client, name, {**_verifiable("t"), "tasks.max": {"value": 1}}), 400, "tasks.max")
    _error(_create(client, name, {**_verifiable("t"), "topic": None}), 400, "topic")
    _error(_create(client, name, _verifiable("t"), initial_state="SLEEPING"), 400, "initial_state")
    _error(client.request("PUT", f"/connectors/{name}/config", json=[_verifiable("t")]), 400)
    _error(client.request("PUT", f"/connectors/{name}/config", content=b"not json", headers=_JSON_BODY), 400)

    # Nothing was created by any of these.
    assert name not in _json(client.request("GET", "/connectors"), 200)
    _error(client.request("GET", f"/connectors/{name}"), 404, name)


# ---------------------------------------------------------------------------------------------
# Failures are reported in the status
# ---------------------------------------------------------------------------------------------


def _create_failing(client: ConnectClient, bootstrap: str, prefix: str,
                    connector_class: str) -> tuple[str, str, dict[str, Any]]:
    """A one-task connector of the failing_source plugin ``connector_class``, created through the API:
    its name, its topic and the creation's answer."""
    topic = new_topic(bootstrap)
    name = _name(prefix)
    created = _json(_create(client, name, {"connector.class": f"failing_source.{connector_class}",
                                           "topic": topic, "tasks.max": "1"}), 201)
    return name, topic, created


def _wait_task_failed(client: ConnectClient, name: str) -> dict[str, Any]:
    """The status once task 0 of ``name`` is FAILED."""

    def task_failed() -> dict[str, Any] | None:
        st = _status(client, name)
        return st if st["tasks"] and st["tasks"][0]["state"] == "FAILED" else None

    result: dict[str, Any] = wait_until(task_failed, 60, message="the task to fail")
    return result


def test_failing_task_is_failed_with_trace(client: ConnectClient, worker: WorkerProcess,
                                           kafka_bootstrap: str) -> None:
    name, topic, created = _create_failing(client, kafka_bootstrap, "failing-task", "FailingSourceConnector")
    assert created["type"] == "source"
    status = _wait_task_failed(client, name)
    task = status["tasks"][0]
    assert list(task) == ["id", "state", "worker_id", "version", "trace"]
    assert task["id"] == 0 and task["worker_id"] == _worker_id(worker)
    assert "RuntimeError: boom" in task["trace"], task["trace"]
    assert "Traceback" in task["trace"]
    # The connector itself is fine.
    assert status["connector"] == {"state": "RUNNING", "worker_id": _worker_id(worker), "version": "0.0.1"}
    # The records it wrote before failing are committed, nothing else.
    assert sorted(_committed(kafka_bootstrap, topic)) == [(0, 0), (0, 1)]
    assert client.request("DELETE", f"/connectors/{name}").status_code == 204


def test_failing_connector_start_is_failed_with_trace(client: ConnectClient, kafka_bootstrap: str) -> None:
    name, _, _ = _create_failing(client, kafka_bootstrap, "failing-start", "FailingStartSourceConnector")

    def connector_failed() -> dict[str, Any] | None:
        st = _status(client, name)
        return st if st["connector"]["state"] == "FAILED" else None

    status = wait_until(connector_failed, 60, message="the connector to fail")
    assert list(status["connector"]) == ["state", "worker_id", "trace"]
    assert "RuntimeError: connector start boom" in status["connector"]["trace"]
    assert status["tasks"] == []
    assert _json(client.request("GET", f"/connectors/{name}"), 200)["tasks"] == []
    assert client.request("DELETE", f"/connectors/{name}").status_code == 204


def _stays(condition: Callable[[], bool], seconds: float) -> None:
    """Bounded observation: ``condition`` holds throughout ``seconds`` (for "nothing more happens")."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        assert condition()
        threading.Event().wait(0.25)


def test_task_that_cannot_be_built_is_failed_once_not_retried(client: ConnectClient, worker: WorkerProcess,
                                                               kafka_bootstrap: str) -> None:
    name, _, _ = _create_failing(client, kafka_bootstrap, "unbuildable", "UnbuildableTaskSourceConnector")
    status = _wait_task_failed(client, name)
    assert "task constructor boom" in status["tasks"][0]["trace"]

    def attempts() -> int:
        return worker.log_path.read_text(errors="replace").count(f"Failed to start task {name}-0")

    # FAILED until restarted: one attempt, not one per herder tick.
    _stays(lambda: attempts() == 1, 3.0)
    assert client.request("DELETE", f"/connectors/{name}").status_code == 204


# ---------------------------------------------------------------------------------------------
# Exactly-once preflight depends on the worker's exactly.once.source.support
# ---------------------------------------------------------------------------------------------


def test_exactly_once_required_preflight(client: ConnectClient, kafka_bootstrap: str,
                                         tmp_path: Path) -> None:
    config = _verifiable("preflight-topic", extra={"name": "preflight", "exactly.once.support": "required"})
    # EOS-enabled worker: passes.
    infos = _json(_validate(client, "VerifiableSource", config), 200)
    assert infos["error_count"] == 0
    assert _config_by_name(infos)["exactly.once.support"]["value"]["errors"] == []

    disabled = _start_worker(kafka_bootstrap, tmp_path, "disabled")
    other = ConnectClient(disabled.url)
    try:
        infos = _json(_validate(other, "VerifiableSource", config), 200)
        assert infos["error_count"] == 1
        assert _config_by_name(infos)["exactly.once.support"]["value"]["errors"] == [NO_EOS_ERROR]
        # "requested" is fine on any worker.
        requested = {**config, "exactly.once.support": "requested"}
        infos = _json(_validate(other, "VerifiableSource", requested), 200)
        assert infos["error_count"] == 0
        # Creating it is refused with the same error.
        name = _name("preflight")
        _error(_create(other, name, {**config, "name": name}), 400,
               f"{INVALID_CONFIG_PREFIX} 1 error(s):\n{NO_EOS_ERROR}")
        assert name not in _json(other.request("GET", "/connectors"), 200)
    finally:
        other.close()
        disabled.kill()
