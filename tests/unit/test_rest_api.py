"""REST API shapes and status codes against an in-memory herder (no broker: pure request/response logic).

The real-broker REST tests live in tests/integration; these pin the JSON bodies, status codes and
error mapping the Java reference produces (ConnectorsResource, ConnectorPluginsResource,
RootResource, ConnectExceptionMapper).
"""

from __future__ import annotations

import json
import socket
import threading

import httpx
import pytest
from fake_herder import SOURCE_CLASS, TEST_SESSION_KEY, FakeConnector, FakeHerder, err
from fastapi.testclient import TestClient

from connect_runtime.cluster.request_signature import (
    SIGNATURE_ALGORITHM_HEADER,
    SIGNATURE_HEADER,
    generate_key,
    sign,
)
from connect_runtime.errors import BadRequestHttpError, NotLeaderHttpError
from connect_runtime.types import ConnectorTaskId, TargetState
from rest.app import create_app
from rest.routers import CONFLICTING_OPERATION, NO_KNOWN_LEADER
from rest.routers.root import runtime_version
from rest.server import RestServer, RestServerError

INVALID_SIGNATURE = "Internal request contained invalid signature."
MISSING_SIGNATURE = "Internal request missing required signature"
NO_SESSION_KEY = (
    "This worker is still starting up and has not been able to read a session key from the config topic yet"
)
NAME_MISMATCH = "Connector name configuration (b) doesn't match connector name in the URL (a)"
VALIDATE_HINT = (
    "You can also find the above list of errors at the endpoint "
    "`/connector-plugins/{connectorType}/config/validate`"
)


def add(herder: FakeHerder, name: str, tasks: int = 1) -> None:
    herder.connectors_by_name[name] = FakeConnector(
        config={"name": name, "connector.class": SOURCE_CLASS, "tasks.max": str(tasks)}, tasks=tasks
    )


# ---------------------------------------------------------------------------------------------
# Root
# ---------------------------------------------------------------------------------------------


def test_server_info(client: TestClient) -> None:
    resp = client.get("/")
    assert resp.status_code == 200
    assert resp.json() == {
        "version": runtime_version(),
        "commit": "unknown",
        "kafka_cluster_id": "fake-cluster-id",
    }


def test_health_ready(client: TestClient) -> None:
    resp = client.get("/health")
    assert resp.status_code == 200
    assert resp.json() == {
        "status": "healthy",
        "message": "Worker has completed startup and is ready to handle requests.",
    }


def test_health_starting(client: TestClient, herder: FakeHerder) -> None:
    herder.ready = False
    resp = client.get("/health")
    assert resp.status_code == 503
    assert resp.json() == {"status": "starting", "message": "Worker is still starting up."}


def test_health_unresponsive_worker_is_unhealthy(impatient_client: TestClient, herder: FakeHerder) -> None:
    herder.block_sync = threading.Event()
    try:
        resp = impatient_client.get("/health")
    finally:
        herder.block_sync.set()
    assert resp.status_code == 500
    assert resp.json() == {
        "status": "unhealthy",
        "message": "Worker was unable to handle this request and may be unable to handle other requests.",
    }


def test_health_stuck_herder_thread_is_unhealthy(herder: FakeHerder, monkeypatch: pytest.MonkeyPatch) -> None:
    # Java's check goes through the herder's queue: a herder thread stuck on something is unhealthy
    # even though the worker started and its reads still answer from the snapshots.
    monkeypatch.setattr("rest.routers.root.HEALTH_CHECK_TIMEOUT_S", 0.3)
    herder.herder_stuck = True
    with TestClient(create_app(herder)) as c:
        resp = c.get("/health")
    assert resp.status_code == 500
    assert resp.json()["status"] == "unhealthy"
    herder.ready = False
    with TestClient(create_app(herder)) as c:
        assert c.get("/health").status_code == 503  # not started yet: starting, not unhealthy


def test_server_info_answers_while_the_worker_is_still_joining(client: TestClient, herder: FakeHerder) -> None:
    # As in Java, the REST resources come up before the herder has joined: GET / answers at once.
    herder.ready = False
    assert client.get("/").status_code == 200
    assert client.get("/health").status_code == 503


def test_create_while_joining_waits_for_the_leader_instead_of_409(herder: FakeHerder) -> None:
    herder.ready = False
    with TestClient(create_app(herder, request_timeout_s=10.0)) as c:
        threading.Timer(0.3, lambda: setattr(herder, "ready", True)).start()
        resp = c.post("/connectors", json={"name": "a", "config": {"connector.class": SOURCE_CLASS}})
    assert resp.status_code == 201, resp.text
    assert resp.json()["name"] == "a"


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("POST", "/connectors", {"name": "b", "config": {"connector.class": SOURCE_CLASS}}),
        ("PUT", "/connectors/a/config", {"connector.class": SOURCE_CLASS}),
        ("DELETE", "/connectors/a", None),
        ("PUT", "/connectors/a/stop", None),
        ("POST", "/connectors/a/restart", None),
        ("POST", "/connectors/a/tasks/0/restart", None),
        ("DELETE", "/connectors/a/offsets", None),
    ],
)
def test_leader_requests_while_joining_wait_until_the_request_timeout(
    impatient_client: TestClient, herder: FakeHerder, method: str, path: str, body: dict[str, object] | None
) -> None:
    add(herder, "a")
    herder.ready = False
    resp = impatient_client.request(method, path, json=body)
    assert resp.json() == err(500, "Request timed out")
    assert herder.calls == []  # nothing reached the herder while no leader was known


def test_no_known_leader_after_joining_is_409_at_once(herder: FakeHerder) -> None:
    # Only the first join is waited for: a leader lost later is a rebalance, answered 409 as Java does.
    with TestClient(create_app(herder, request_timeout_s=30.0)) as c:
        assert c.get("/connectors").status_code == 200
        add(herder, "a")
        assert c.put("/connectors/a/stop").status_code == 204
        herder.ready = False
        herder.fail_next = NotLeaderHttpError("not the leader", None)
        resp = c.put("/connectors/a/config", json={"connector.class": SOURCE_CLASS})
    assert resp.json() == err(409, NO_KNOWN_LEADER)


def test_reads_do_not_wait_for_a_leader(client: TestClient, herder: FakeHerder) -> None:
    add(herder, "a")
    herder.ready = False
    assert client.get("/connectors").json() == ["a"]
    assert client.get("/connectors/a/status").status_code == 200
    assert client.get("/connectors/a/tasks/0/status").status_code == 200
    assert client.get("/connectors/a/config").status_code == 200


# ---------------------------------------------------------------------------------------------
# GET /connectors
# ---------------------------------------------------------------------------------------------


def test_list_connectors(client: TestClient, herder: FakeHerder) -> None:
    assert client.get("/connectors").json() == []
    add(herder, "a")
    add(herder, "b")
    resp = client.get("/connectors")
    assert resp.status_code == 200
    assert resp.json() == ["a", "b"]
    assert client.get("/connectors/").json() == ["a", "b"]


def test_list_connectors_expand_status(client: TestClient, herder: FakeHerder) -> None:
    add(herder, "a")
    resp = client.get("/connectors?expand=status")
    assert resp.status_code == 200
    assert resp.json() == {
        "a": {
            "status": {
                "name": "a",
                "connector": {"state": "RUNNING", "worker_id": "fake-worker:8083"},
                "tasks": [{"id": 0, "state": "RUNNING", "worker_id": "fake-worker:8083"}],
                "type": "source",
            }
        }
    }


def test_list_connectors_expand_info_and_status(client: TestClient, herder: FakeHerder) -> None:
    add(herder, "a")
    body = client.get("/connectors", params=[("expand", "info"), ("expand", "status")]).json()
    assert set(body["a"]) == {"info", "status"}
    assert body["a"]["info"] == {
        "name": "a",
        "config": {"name": "a", "connector.class": SOURCE_CLASS, "tasks.max": "1"},
        "tasks": [{"connector": "a", "task": 0}],
        "type": "source",
    }


def test_list_connectors_unknown_expansion_is_ignored(client: TestClient, herder: FakeHerder) -> None:
    add(herder, "a")
    assert client.get("/connectors?expand=bogus").json() == {"a": {}}


# ---------------------------------------------------------------------------------------------
# POST /connectors
# ---------------------------------------------------------------------------------------------


def test_create_connector(client: TestClient, herder: FakeHerder) -> None:
    resp = client.post("/connectors", json={"name": "src", "config": {"connector.class": SOURCE_CLASS}})
    assert resp.status_code == 201
    assert resp.headers["location"] == "http://testserver/connectors/src"
    assert resp.json() == {
        "name": "src",
        "config": {"connector.class": SOURCE_CLASS, "name": "src"},
        "tasks": [{"connector": "src", "task": 0}],
        "type": "source",
    }
    assert herder.calls[-1] == (
        "put_connector_config",
        ("src", {"connector.class": SOURCE_CLASS, "name": "src"}, False, None),
    )


def test_create_connector_trims_name_and_encodes_location(client: TestClient, herder: FakeHerder) -> None:
    body = {"name": "  my conn ", "config": {"connector.class": SOURCE_CLASS}}
    resp = client.post("/connectors", json=body)
    assert resp.status_code == 201
    assert resp.headers["location"] == "http://testserver/connectors/my%20conn"
    assert "my conn" in herder.connectors_by_name


@pytest.mark.parametrize(
    ("initial", "expected"),
    [
        ("RUNNING", TargetState.STARTED),
        ("PAUSED", TargetState.PAUSED),
        ("stopped", TargetState.STOPPED),
        (None, None),
    ],
)
def test_create_connector_initial_state(
    client: TestClient, herder: FakeHerder, initial: str | None, expected: TargetState | None
) -> None:
    body = {"name": "c", "config": {"connector.class": SOURCE_CLASS}, "initial_state": initial}
    assert client.post("/connectors", json=body).status_code == 201
    assert herder.calls[-1][1][3] == expected


def test_create_connector_invalid_initial_state(client: TestClient, herder: FakeHerder) -> None:
    body = {"name": "c", "config": {"connector.class": SOURCE_CLASS}, "initial_state": "STARTED"}
    resp = client.post("/connectors", json=body)
    assert resp.status_code == 400
    assert resp.json() == err(
        400, "Invalid request body: initial_state: 'STARTED' is not one of RUNNING, PAUSED, STOPPED"
    )
    assert herder.calls == []


@pytest.mark.parametrize(
    "body", [{"config": {"connector.class": SOURCE_CLASS}}, {"name": "  ", "config": {}}]
)
def test_create_connector_without_name(
    client: TestClient, herder: FakeHerder, body: dict[str, object]
) -> None:
    resp = client.post("/connectors", json=body)
    assert resp.status_code == 400
    assert resp.json() == err(
        400,
        "Connector configuration is invalid and contains the following 1 error(s):\n"
        "Invalid value  for configuration name: String may not be empty\n" + VALIDATE_HINT,
    )
    assert herder.calls == []


def test_create_connector_name_is_trimmed_as_java_trims(client: TestClient, herder: FakeHerder) -> None:
    # String.trim() strips every character up to the space, control characters included.
    resp = client.post("/connectors", json={"name": "\u0007 a\tb\u0000\n", "config": {"connector.class": SOURCE_CLASS}})
    assert resp.status_code == 400  # the tab inside stays, and is refused
    resp = client.post("/connectors", json={"name": "\u0007a\u001f", "config": {"connector.class": SOURCE_CLASS}})
    assert resp.status_code == 201, resp.text
    assert resp.json()["name"] == "a" and resp.json()["config"]["name"] == "a"


def test_create_connector_name_with_control_chars(client: TestClient) -> None:
    resp = client.post("/connectors", json={"name": "a\tb", "config": {}})
    assert resp.status_code == 400
    assert resp.json() == err(
        400,
        "Connector configuration is invalid and contains the following 1 error(s):\n"
        "Invalid value a\tb for configuration name: String may not contain control sequences but had "
        "the following ASCII chars: 9\n" + VALIDATE_HINT,
    )


def test_create_connector_name_mismatch(client: TestClient, herder: FakeHerder) -> None:
    resp = client.post("/connectors", json={"name": "a", "config": {"name": "b", "connector.class": "X"}})
    assert resp.status_code == 400
    assert resp.json() == err(400, NAME_MISMATCH)
    assert herder.calls == []


def test_create_connector_without_config(client: TestClient) -> None:
    resp = client.post("/connectors", json={"name": "a"})
    assert resp.status_code == 400
    assert resp.json() == err(400, 'Connector configuration ("config") is missing from the request')


def test_create_connector_refuses_unknown_fields_as_jackson_does(client: TestClient, herder: FakeHerder) -> None:
    resp = client.post("/connectors", json={"name": "a", "config": {"connector.class": SOURCE_CLASS},
                                            "initial-state": "PAUSED"})
    assert resp.status_code == 400
    assert resp.json() == err(400, 'Unrecognized field "initial-state" (class org.apache.kafka.connect.runtime.rest.'
                                   'entities.CreateConnectorRequest), not marked as ignorable (3 known properties: '
                                   '"config", "name", "initial_state"])')
    assert herder.calls == []


def test_create_connector_coerces_scalars_like_jackson(client: TestClient, herder: FakeHerder) -> None:
    raw = (
        b'{"name": 42, "config": {"connector.class": "' + SOURCE_CLASS.encode() + b'", '
        b'"tasks.max": 3, "ratio": 1.50, "big": 1e3, "flag": true, "off": false}}'
    )
    resp = client.post("/connectors", content=raw, headers={"Content-Type": "application/json"})
    assert resp.status_code == 201, resp.text
    assert resp.json()["config"] == {
        "connector.class": SOURCE_CLASS,
        "tasks.max": "3",
        "ratio": "1.50",
        "big": "1e3",
        "flag": "true",
        "off": "false",
        "name": "42",
    }


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (
            b'{"name": "a", "config": {"k": {"x": 1}}}',
            "Invalid request body: config -> k: value must be a string, number or boolean, not a JSON object",
        ),
        (
            b'{"name": "a", "config": {"k": [1]}}',
            "Invalid request body: config -> k: value must be a string, number or boolean, not a JSON array",
        ),
        (b'{"name": "a", "config": {"k": null}}', "Invalid request body: config -> k: value may not be null"),
        (
            b'{"name": {"x": 1}, "config": {}}',
            "Invalid request body: name: value must be a string, number or boolean, not a JSON object",
        ),
        (b'{"name": "a", "config": "x"}', "Invalid request body: config: Input should be a valid dictionary"),
        (b"[1, 2]", "Request body must be a JSON object, not a JSON array"),
        (b'"text"', "Request body must be a JSON object, not str"),
        (b"", "Request body is empty; a JSON object is required"),
    ],
)
def test_create_connector_bad_bodies(
    client: TestClient, herder: FakeHerder, raw: bytes, message: str
) -> None:
    resp = client.post("/connectors", content=raw, headers={"Content-Type": "application/json"})
    assert resp.status_code == 400
    assert resp.json() == err(400, message)
    assert herder.calls == []


@pytest.mark.parametrize("raw", [b'{"name": "a", ', b"{'name': 'a'}", b'{"name": NaN}', b"\xff\xfe"])
def test_create_connector_malformed_json(client: TestClient, raw: bytes) -> None:
    resp = client.post("/connectors", content=raw, headers={"Content-Type": "application/json"})
    assert resp.status_code == 400
    body = resp.json()
    assert body["error_code"] == 400
    assert body["message"].startswith("Request body is not valid")


def test_create_existing_connector_conflicts(client: TestClient, herder: FakeHerder) -> None:
    add(herder, "a")
    resp = client.post("/connectors", json={"name": "a", "config": {"connector.class": SOURCE_CLASS}})
    assert resp.status_code == 409
    assert resp.json() == err(409, "Connector a already exists")


def test_create_invalid_config_passes_herder_message(client: TestClient) -> None:
    resp = client.post("/connectors", json={"name": "a", "config": {}})
    assert resp.status_code == 400
    assert resp.json() == err(400, "Connector config {'name': 'a'} contains no connector type")


# ---------------------------------------------------------------------------------------------
# /connectors/{c}
# ---------------------------------------------------------------------------------------------


def test_get_connector(client: TestClient, herder: FakeHerder) -> None:
    add(herder, "a", tasks=2)
    resp = client.get("/connectors/a")
    assert resp.status_code == 200
    assert resp.json() == {
        "name": "a",
        "config": {"name": "a", "connector.class": SOURCE_CLASS, "tasks.max": "2"},
        "tasks": [{"connector": "a", "task": 0}, {"connector": "a", "task": 1}],
        "type": "source",
    }
    assert "location" not in resp.headers


@pytest.mark.parametrize(
    ("method", "path", "message"),
    [
        ("GET", "/connectors/nope", "Connector nope not found"),
        ("GET", "/connectors/nope/config", "Connector nope not found"),
        # Java's AbstractHerder.connectorStatus wording.
        ("GET", "/connectors/nope/status", "No status found for connector nope"),
        ("GET", "/connectors/nope/tasks", "Connector nope not found"),
        ("DELETE", "/connectors/nope", "Connector nope not found"),
        # Java's herders word these requests otherwise.
        ("PUT", "/connectors/nope/pause", "Unknown connector nope"),
        ("PUT", "/connectors/nope/resume", "Unknown connector nope"),
        ("PUT", "/connectors/nope/stop", "Unknown connector nope"),
        ("POST", "/connectors/nope/restart", "Unknown connector: nope"),
        ("POST", "/connectors/nope/restart?includeTasks=true", "Unknown connector: nope"),
        ("POST", "/connectors/nope/tasks/0/restart", "Unknown connector: nope"),
    ],
)
def test_unknown_connector_is_404(client: TestClient, method: str, path: str, message: str) -> None:
    resp = client.request(method, path)
    assert resp.status_code == 404
    assert resp.json() == err(404, message)


def test_get_connector_config(client: TestClient, herder: FakeHerder) -> None:
    add(herder, "a")
    resp = client.get("/connectors/a/config", params={"forward": "true"})
    assert resp.status_code == 200
    assert resp.json() == {"name": "a", "connector.class": SOURCE_CLASS, "tasks.max": "1"}


def test_put_connector_config_creates_then_updates(client: TestClient, herder: FakeHerder) -> None:
    resp = client.put("/connectors/a/config", json={"connector.class": SOURCE_CLASS, "tasks.max": 2})
    assert resp.status_code == 201
    assert resp.headers["location"] == "http://testserver/connectors/a"
    assert resp.json() == {
        "name": "a",
        "config": {"connector.class": SOURCE_CLASS, "tasks.max": "2", "name": "a"},
        "tasks": [{"connector": "a", "task": 0}],
        "type": "source",
    }
    assert herder.calls[-1] == (
        "put_connector_config",
        ("a", {"connector.class": SOURCE_CLASS, "tasks.max": "2", "name": "a"}, True, None),
    )
    resp = client.put("/connectors/a/config", json={"name": "a", "connector.class": SOURCE_CLASS})
    assert resp.status_code == 200
    assert "location" not in resp.headers
    assert resp.json()["config"] == {"name": "a", "connector.class": SOURCE_CLASS}


def test_put_connector_config_name_mismatch(client: TestClient, herder: FakeHerder) -> None:
    resp = client.put("/connectors/a/config", json={"name": "b", "connector.class": SOURCE_CLASS})
    assert resp.status_code == 400
    assert resp.json() == err(400, NAME_MISMATCH)
    assert herder.calls == []


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b'["a"]', "Request body must be a JSON object, not a JSON array"),
        (
            b'{"k": {"x": "y"}}',
            "Invalid request body: k: value must be a string, number or boolean, not a JSON object",
        ),
        (b"{", None),
    ],
)
def test_put_connector_config_bad_bodies(client: TestClient, raw: bytes, message: str | None) -> None:
    resp = client.put("/connectors/a/config", content=raw, headers={"Content-Type": "application/json"})
    assert resp.status_code == 400
    assert resp.json()["error_code"] == 400
    if message is not None:
        assert resp.json()["message"] == message


def test_connector_status_omits_empty_trace(client: TestClient, herder: FakeHerder) -> None:
    add(herder, "a", tasks=2)
    resp = client.get("/connectors/a/status")
    assert resp.status_code == 200
    assert resp.json() == {
        "name": "a",
        "connector": {"state": "RUNNING", "worker_id": "fake-worker:8083"},
        "tasks": [
            {"id": 0, "state": "RUNNING", "worker_id": "fake-worker:8083"},
            {"id": 1, "state": "FAILED", "worker_id": "fake-worker:8083", "trace": "boom\n\tat x"},
        ],
        "type": "source",
    }


def test_connector_status_key_order_matches_jackson(client: TestClient, herder: FakeHerder) -> None:
    # Jackson writes creator properties first, in constructor order: id first for tasks; trace last.
    add(herder, "a", tasks=2)
    body = client.get("/connectors/a/status").json()
    assert list(body) == ["name", "connector", "tasks", "type"]
    assert list(body["connector"]) == ["state", "worker_id"]
    assert [list(t) for t in body["tasks"]] == [
        ["id", "state", "worker_id"],
        ["id", "state", "worker_id", "trace"],
    ]


def test_task_configs(client: TestClient, herder: FakeHerder) -> None:
    add(herder, "a")
    resp = client.get("/connectors/a/tasks")
    assert resp.status_code == 200
    assert resp.json() == [
        {
            "id": {"connector": "a", "task": 0},
            "config": {
                "name": "a",
                "connector.class": SOURCE_CLASS,
                "tasks.max": "1",
                "task.class": "connectors.verifiable.VerifiableSourceTask",
            },
        }
    ]


def test_delete_connector(client: TestClient, herder: FakeHerder) -> None:
    add(herder, "a")
    resp = client.delete("/connectors/a")
    assert resp.status_code == 204
    assert resp.content == b""
    assert client.delete("/connectors/a").status_code == 404


def test_pause_and_resume(client: TestClient, herder: FakeHerder) -> None:
    add(herder, "a")
    resp = client.put("/connectors/a/pause")
    assert resp.status_code == 202
    assert resp.content == b""
    assert herder.connectors_by_name["a"].target is TargetState.PAUSED
    resp = client.put("/connectors/a/resume")
    assert resp.status_code == 202
    assert resp.content == b""
    assert herder.connectors_by_name["a"].target is TargetState.STARTED


# ---------------------------------------------------------------------------------------------
# Restart, stop, task status
# ---------------------------------------------------------------------------------------------


def test_restart_connector_plain_is_204(client: TestClient, herder: FakeHerder) -> None:
    add(herder, "a")
    resp = client.post("/connectors/a/restart")
    assert resp.status_code == 204
    assert resp.content == b""
    assert herder.calls[-1] == ("restart_connector", ("a", False, False))
    # Jersey's Boolean binding: anything but "true" (any case) is false.
    resp = client.post("/connectors/a/restart", params={"includeTasks": "yes", "onlyFailed": "0"})
    assert resp.status_code == 204
    assert herder.calls[-1] == ("restart_connector", ("a", False, False))


def test_restart_connector_with_tasks_is_202_with_restarting_states(
    client: TestClient, herder: FakeHerder
) -> None:
    add(herder, "a", tasks=2)
    resp = client.post("/connectors/a/restart", params={"includeTasks": "TRUE"})
    assert resp.status_code == 202
    assert herder.calls[-1] == ("restart_connector", ("a", True, False))
    assert resp.json() == {
        "name": "a",
        "connector": {"state": "RESTARTING", "worker_id": "fake-worker:8083"},
        "tasks": [
            {"id": 0, "state": "RESTARTING", "worker_id": "fake-worker:8083"},
            {"id": 1, "state": "RESTARTING", "worker_id": "fake-worker:8083", "trace": "boom\n\tat x"},
        ],
        "type": "source",
    }


def test_restart_connector_only_failed(client: TestClient, herder: FakeHerder) -> None:
    add(herder, "a", tasks=2)
    resp = client.post("/connectors/a/restart", params={"includeTasks": "true", "onlyFailed": "true"})
    assert resp.status_code == 202
    body = resp.json()
    assert body["connector"]["state"] == "RUNNING"
    assert [t["state"] for t in body["tasks"]] == ["RUNNING", "RESTARTING"]


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("POST", "/connectors/nope/restart"),
        ("POST", "/connectors/nope/restart?includeTasks=true"),
        ("POST", "/connectors/nope/tasks/0/restart"),
        ("PUT", "/connectors/nope/stop"),
        ("GET", "/connectors/nope/tasks/0/status"),
    ],
)
def test_restart_stop_status_unknown_connector_is_404(client: TestClient, method: str, path: str) -> None:
    resp = client.request(method, path)
    assert resp.status_code == 404
    assert resp.json()["error_code"] == 404


def test_restart_task(client: TestClient, herder: FakeHerder) -> None:
    add(herder, "a", tasks=2)
    resp = client.post("/connectors/a/tasks/1/restart")
    assert resp.status_code == 204
    assert resp.content == b""
    assert herder.calls[-1] == ("restart_task", ConnectorTaskId("a", 1))
    resp = client.post("/connectors/a/tasks/+1/restart")  # Integer.valueOf accepts a sign
    assert resp.status_code == 204
    resp = client.post("/connectors/a/tasks/7/restart")
    assert resp.json() == err(404, "Unknown task: a-7")


@pytest.mark.parametrize("task", ["x", "1.0", "1e3", "2147483648", "٣", "-"])
def test_non_integer_task_id_is_404_like_jersey(client: TestClient, herder: FakeHerder, task: str) -> None:
    add(herder, "a")
    paths = [("POST", f"/connectors/a/tasks/{task}/restart"), ("GET", f"/connectors/a/tasks/{task}/status")]
    for method, path in paths:
        resp = client.request(method, path)
        assert resp.status_code == 404
        assert resp.json() == err(404, "HTTP 404 Not Found")
    assert not [c for c in herder.calls if c[0] == "restart_task"]


def test_stop_connector(client: TestClient, herder: FakeHerder) -> None:
    add(herder, "a", tasks=2)
    resp = client.put("/connectors/a/stop")
    assert resp.status_code == 204
    assert resp.content == b""
    assert herder.connectors_by_name["a"].target is TargetState.STOPPED
    assert client.get("/connectors/a/status").json()["connector"]["state"] == "STOPPED"


def test_task_status(client: TestClient, herder: FakeHerder) -> None:
    add(herder, "a", tasks=2)
    resp = client.get("/connectors/a/tasks/0/status")
    assert resp.status_code == 200
    assert resp.json() == {"id": 0, "state": "RUNNING", "worker_id": "fake-worker:8083"}
    body = client.get("/connectors/a/tasks/1/status").json()
    assert list(body) == ["id", "state", "worker_id", "trace"]
    assert body["state"] == "FAILED"
    resp = client.get("/connectors/a/tasks/5/status")
    assert resp.json() == err(404, "No status found for task a-5")


def test_stop_and_restart_time_out(impatient_client: TestClient, herder: FakeHerder) -> None:
    add(herder, "a")
    herder.hang = True
    for method, path in [("PUT", "/connectors/a/stop"), ("POST", "/connectors/a/restart"),
                         ("POST", "/connectors/a/tasks/0/restart")]:
        resp = impatient_client.request(method, path)
        assert resp.json() == err(500, "Request timed out")


# ---------------------------------------------------------------------------------------------
# Internal endpoints (KIP-507 signed)
# ---------------------------------------------------------------------------------------------


def signed(body: bytes, key: bytes = TEST_SESSION_KEY.key, algorithm: str = "HmacSHA256") -> dict[str, str]:
    return {"Content-Type": "application/json", **sign(key, algorithm, body)}


TASK_CONFIGS = [{"task.class": "T", "topic": "t", "n": 1, "flag": True}, {"task.class": "T", "gone": None}]
TASK_CONFIGS_BODY = json.dumps(TASK_CONFIGS).encode()


def test_put_task_configs_signed(client: TestClient, herder: FakeHerder) -> None:
    add(herder, "a")
    resp = client.post("/connectors/a/tasks", content=TASK_CONFIGS_BODY, headers=signed(TASK_CONFIGS_BODY))
    assert resp.status_code == 204
    assert resp.content == b""
    # Jackson binding: scalars become their text; null values are dropped.
    expected = [{"task.class": "T", "topic": "t", "n": "1", "flag": "true"}, {"task.class": "T"}]
    assert herder.calls[-1] == ("put_task_configs", ("a", expected))
    assert herder.connectors_by_name["a"].tasks == 2


def test_fence_zombies_signed(client: TestClient, herder: FakeHerder) -> None:
    add(herder, "a")
    resp = client.put("/connectors/a/fence", headers=signed(b""))
    assert resp.status_code == 204
    assert resp.content == b""
    assert herder.calls[-1] == ("fence_zombies", "a")


@pytest.mark.parametrize(("method", "path", "body"), [
    ("POST", "/connectors/a/tasks", TASK_CONFIGS_BODY),
    ("PUT", "/connectors/a/fence", b""),
])
def test_internal_signature_errors(
    client: TestClient, herder: FakeHerder, method: str, path: str, body: bytes
) -> None:
    add(herder, "a")

    def call(headers: dict[str, str]) -> tuple[int, object]:
        resp = client.request(method, path, content=body, headers=headers)
        return resp.status_code, resp.json()

    good = signed(body)
    # Missing either header: 400.
    assert call({}) == (400, err(400, MISSING_SIGNATURE))
    assert call({SIGNATURE_HEADER: good[SIGNATURE_HEADER]}) == (400, err(400, MISSING_SIGNATURE))
    assert call({SIGNATURE_ALGORITHM_HEADER: "HmacSHA256"}) == (400, err(400, MISSING_SIGNATURE))
    # An algorithm no MAC exists for: Java's NoSuchAlgorithmException message.
    assert call({**good, SIGNATURE_ALGORITHM_HEADER: "HmacFoo"}) == (400, err(400, "Algorithm HmacFoo not available"))
    # A real algorithm this worker does not accept (the list check is by exact name, as in Java).
    not_allowed = (
        "This worker does not support the '{}' key signing algorithm used by other workers. "
        "This worker is currently configured to use: [HmacSHA256]. "
        "Check that all workers' configuration files permit the same set of signature algorithms, "
        "and correct any misconfigured worker and restart it."
    )
    assert call(signed(body, algorithm="HmacSHA512")) == (400, err(400, not_allowed.format("HmacSHA512")))
    assert call(signed(body, algorithm="hmacsha256")) == (400, err(400, not_allowed.format("hmacsha256")))
    # A wrong key, a tampered body, garbage: 403.
    assert call(signed(body, key=generate_key("HmacSHA256"))) == (403, err(403, INVALID_SIGNATURE))
    assert call(signed(body + b" ")) == (403, err(403, INVALID_SIGNATURE))
    assert call({**good, SIGNATURE_HEADER: "not base64!"}) == (403, err(403, INVALID_SIGNATURE))
    # No session key read yet: 503 (checked after the algorithm, as in Java).
    herder.key = None
    assert call(good) == (503, err(503, NO_SESSION_KEY))
    assert call({}) == (400, err(400, MISSING_SIGNATURE))
    assert not [c for c in herder.calls if c[0] in ("put_task_configs", "fence_zombies")]


def test_internal_signature_with_other_accepted_algorithm(client: TestClient, herder: FakeHerder) -> None:
    add(herder, "a")
    herder.verification = ["HmacSHA256", "HmacSHA512"]
    resp = client.put("/connectors/a/fence", headers=signed(b"", algorithm="HmacSHA512"))
    assert resp.status_code == 204


def test_internal_signature_checked_before_body_is_parsed(client: TestClient, herder: FakeHerder) -> None:
    add(herder, "a")
    resp = client.post("/connectors/a/tasks", content=b"{not json")
    assert resp.json() == err(400, MISSING_SIGNATURE)
    resp = client.post("/connectors/a/tasks", content=b"{not json", headers=signed(b"other"))
    assert resp.json() == err(403, INVALID_SIGNATURE)


@pytest.mark.parametrize(
    "raw",
    [b"{not json", b'{"task.class": "T"}', b'[{"a": {"nested": 1}}]', b'[["x"]]', b"", b'"x"'],
)
def test_put_task_configs_bad_body_is_400(client: TestClient, herder: FakeHerder, raw: bytes) -> None:
    add(herder, "a")
    resp = client.post("/connectors/a/tasks", content=raw, headers=signed(raw))
    assert resp.status_code == 400
    assert resp.json()["error_code"] == 400
    assert not [c for c in herder.calls if c[0] == "put_task_configs"]


def test_internal_endpoints_unknown_connector_is_404(client: TestClient, herder: FakeHerder) -> None:
    resp = client.post("/connectors/nope/tasks", content=b"[]", headers=signed(b"[]"))
    assert resp.json() == err(404, "Connector nope not found")
    resp = client.put("/connectors/nope/fence", headers=signed(b""))
    assert resp.json() == err(404, "Connector nope not found")


def test_internal_endpoints_time_out(impatient_client: TestClient, herder: FakeHerder) -> None:
    herder.hang = True
    resp = impatient_client.put("/connectors/a/fence", headers=signed(b""))
    assert resp.json() == err(500, "Request timed out")


def test_internal_not_leader_with_forward_false_is_409(client: TestClient, herder: FakeHerder) -> None:
    add(herder, "a")
    herder.is_leader = False
    herder.leader_address = "http://127.0.0.1:1"
    resp = client.put("/connectors/a/fence", params={"forward": "false"}, headers=signed(b""))
    assert resp.json() == err(409, CONFLICTING_OPERATION)
    herder.leader_address = None
    resp = client.put("/connectors/a/fence", headers=signed(b""))
    assert resp.json() == err(409, NO_KNOWN_LEADER)


def test_get_task_configs_still_served_beside_internal_post(client: TestClient, herder: FakeHerder) -> None:
    add(herder, "a")
    assert client.get("/connectors/a/tasks").status_code == 200
    resp = client.delete("/connectors/a/tasks")
    assert resp.status_code == 405
    assert resp.headers["allow"] == "HEAD, POST, GET, OPTIONS"
    resp = client.post("/connectors/a/fence", headers=signed(b""))
    assert resp.status_code == 405


# ---------------------------------------------------------------------------------------------
# Errors, timeouts, leader seam
# ---------------------------------------------------------------------------------------------


def test_unknown_path_is_404_with_error_body(client: TestClient) -> None:
    resp = client.get("/no/such/path")
    assert resp.status_code == 404
    assert resp.json() == err(404, "HTTP 404 Not Found")


def test_wrong_method_is_405_with_error_body(client: TestClient) -> None:
    resp = client.post("/connectors/a/config", json={})
    assert resp.status_code == 405
    assert resp.json() == err(405, "HTTP 405 Method Not Allowed")
    assert "PUT" in resp.headers["allow"]
    resp = client.delete("/connectors")
    assert resp.status_code == 405
    assert resp.json() == err(405, "HTTP 405 Method Not Allowed")


def test_herder_future_timeout_is_500_request_timed_out(impatient_client: TestClient, herder: FakeHerder) -> None:
    herder.hang = True
    for method, path in [("GET", "/connectors"), ("GET", "/connectors/a"), ("DELETE", "/connectors/a")]:
        resp = impatient_client.request(method, path)
        assert resp.status_code == 500
        assert resp.json() == err(500, "Request timed out")


def test_blocking_herder_call_timeout(impatient_client: TestClient, herder: FakeHerder) -> None:
    add(herder, "a")
    herder.block_sync = threading.Event()
    try:
        resp = impatient_client.put("/connectors/a/pause")
    finally:
        herder.block_sync.set()
    assert resp.status_code == 500
    assert resp.json() == err(500, "Request timed out")


def test_status_reads_time_out_when_the_herder_never_answers(impatient_client: TestClient, herder: FakeHerder) -> None:
    add(herder, "a")
    herder.hang = True
    for path in ["/connectors/a/status", "/connectors/a/tasks/0/status", "/connectors/a/config",
                 "/connectors/a/tasks"]:
        resp = impatient_client.get(path)
        assert resp.json() == err(500, "Request timed out"), path


def test_unexpected_exception_is_500_with_error_body(client: TestClient, herder: FakeHerder) -> None:
    herder.fail_next = RuntimeError("kaboom")
    resp = client.get("/connectors")
    assert resp.status_code == 500
    assert resp.json() == err(500, "kaboom")
    add(herder, "a")
    herder.fail_next = ValueError("sync kaboom")
    resp = client.get("/connectors/a/status")
    assert resp.status_code == 500
    assert resp.json() == err(500, "sync kaboom")


def test_unexpected_exception_without_test_client_reraise(herder: FakeHerder) -> None:
    herder.fail_next = KeyError("x")
    with TestClient(create_app(herder), raise_server_exceptions=True) as c:
        resp = c.get("/connectors")
    assert resp.status_code == 500
    assert resp.json() == err(500, "'x'")


@pytest.mark.parametrize(
    ("forward", "leader_url", "fragment"),
    [
        ("false", "http://leader:8083", "Cannot complete request because of a conflicting operation"),
        (None, None, "no known leader URL"),
        ("true", None, "no known leader URL"),
    ],
)
def test_not_leader_goes_through_forwarding_seam(
    client: TestClient, herder: FakeHerder, forward: str | None, leader_url: str | None, fragment: str
) -> None:
    # The forwarding itself is tested against real servers in test_rest_forwarding.py.
    herder.fail_next = NotLeaderHttpError("not the leader", leader_url)
    params = {"forward": forward} if forward is not None else {}
    resp = client.put("/connectors/a/config", params=params, json={"connector.class": SOURCE_CLASS})
    assert resp.status_code == 409
    assert resp.json()["error_code"] == 409
    assert fragment in resp.json()["message"]


def test_not_assigned_goes_through_forwarding_seam(client: TestClient, herder: FakeHerder) -> None:
    add(herder, "a")
    herder.assigned = False
    resp = client.post("/connectors/a/tasks/0/restart", params={"forward": "false"})
    assert resp.json() == err(409, CONFLICTING_OPERATION)
    resp = client.post("/connectors/a/restart")
    assert resp.json() == err(409, NO_KNOWN_LEADER)


def test_openapi_document_builds(client: TestClient) -> None:
    resp = client.get("/openapi.json")
    assert resp.status_code == 200
    paths = resp.json()["paths"]
    assert "/connectors/{connector}/config" in paths
    assert set(paths["/connectors/{connector}/tasks"]) == {"get"}  # internal POST hidden
    assert "/connectors/{connector}/fence" not in paths
    assert set(paths["/connectors/{connector}/restart"]) == {"post"}
    assert set(paths["/connectors/{connector}/stop"]) == {"put"}
    assert "/connectors/{connector}/tasks/{task}/status" in paths
    assert "/connectors/{connector}/tasks/{task}/restart" in paths
    assert "forward" not in json.dumps(paths)


# ---------------------------------------------------------------------------------------------
# /connector-plugins
# ---------------------------------------------------------------------------------------------


def test_list_connector_plugins(client: TestClient) -> None:
    resp = client.get("/connector-plugins")
    assert resp.status_code == 200
    assert resp.json() == [
        {"class": SOURCE_CLASS, "type": "source", "version": "0.1.0"},
        {"class": "connectors.file.FileStreamSourceConnector", "type": "source"},
    ]
    assert client.get("/connector-plugins?connectorsOnly=TRUE").json() == resp.json()
    all_plugins = client.get("/connector-plugins", params={"connectorsOnly": "false"}).json()
    assert all_plugins[-1] == {
        "class": "connect_runtime.converters.JsonConverter",
        "type": "converter",
        "version": "0.1.0",
    }


def test_plugin_config(client: TestClient) -> None:
    resp = client.get("/connector-plugins/VerifiableSourceConnector/config")
    assert resp.status_code == 200
    assert resp.json() == [
        {
            "name": "topic",
            "type": "STRING",
            "required": True,
            "default_value": None,
            "importance": "HIGH",
            "documentation": "Topic to write to.",
            "group": None,
            "order": -1,
            "width": "NONE",
            "display_name": "topic",
            "dependents": [],
        }
    ]
    # Jackson's order of Java's ConfigKeyInfo: "order" comes last.
    assert list(resp.json()[0]) == ["name", "type", "required", "default_value", "importance", "documentation",
                                    "group", "width", "display_name", "dependents", "order"]
    # ?version= as Java's ConnectorPluginsResource reads it: "latest" is no requirement.
    assert client.get("/connector-plugins/VerifiableSource/config?version=latest").json() == resp.json()
    bad = client.get("/connector-plugins/VerifiableSource/config", params={"version": "[bad"})
    assert bad.status_code == 400 and bad.json() == err(400, "Invalid version specification: [bad")
    resp = client.get("/connector-plugins/Nope/config")
    assert resp.status_code == 404
    assert resp.json() == err(404, "Unknown plugin Nope.")


def test_validate_config(client: TestClient, herder: FakeHerder) -> None:
    body = {"connector.class": SOURCE_CLASS, "tasks.max": "x", "topics": "t1", "batch": 5}
    resp = client.put("/connector-plugins/VerifiableSourceConnector/config/validate", json=body)
    assert resp.status_code == 200
    assert resp.json() == {
        "name": SOURCE_CLASS,
        "error_count": 1,
        "groups": ["Common"],
        "configs": [
            {
                "definition": {
                    "name": "tasks.max",
                    "type": "INT",
                    "required": False,
                    "default_value": "1",
                    "importance": "HIGH",
                    "documentation": "Maximum number of tasks to use for this connector.",
                    "group": "Common",
                    "order": 3,
                    "width": "SHORT",
                    "display_name": "Tasks max",
                    "dependents": [],
                },
                "value": {
                    "name": "tasks.max",
                    "value": "x",
                    "recommended_values": [],
                    "errors": ["Invalid value x for configuration tasks.max: Not a number of type INT"],
                    "visible": True,
                },
            }
        ],
    }
    # Passed through unchanged: unknown keys tolerated, scalars as strings, no name added.
    assert herder.calls[-1] == (
        "validate_connector_config",
        {"connector.class": SOURCE_CLASS, "tasks.max": "x", "topics": "t1", "batch": "5"},
    )


@pytest.mark.parametrize(
    ("plugin", "connector_class"),
    [
        ("VerifiableSource", SOURCE_CLASS),
        ("VerifiableSourceConnector", "VerifiableSource"),
        (SOURCE_CLASS, SOURCE_CLASS),
        ("Anything", None),
    ],
)
def test_validate_accepts_matching_plugin_names(
    client: TestClient, plugin: str, connector_class: str | None
) -> None:
    body = {"tasks.max": "1"} if connector_class is None else {"connector.class": connector_class}
    resp = client.put(f"/connector-plugins/{plugin}/config/validate", json=body)
    assert resp.status_code == 200, resp.text


def test_validate_rejects_mismatched_connector_class(client: TestClient, herder: FakeHerder) -> None:
    resp = client.put(
        "/connector-plugins/FileStreamSink/config/validate", json={"connector.class": SOURCE_CLASS}
    )
    assert resp.status_code == 400
    assert resp.json() == err(
        400, f"Included connector type {SOURCE_CLASS} does not match request type FileStreamSink"
    )
    assert herder.calls == []


def test_validate_bad_body(client: TestClient) -> None:
    resp = client.put("/connector-plugins/X/config/validate", content=b"[]",
                      headers={"Content-Type": "application/json"})
    assert resp.status_code == 400
    assert resp.json() == err(400, "Request body must be a JSON object, not a JSON array")


def test_validate_herder_error(client: TestClient, herder: FakeHerder) -> None:
    herder.fail_next = BadRequestHttpError("Connector config {} contains no connector type")
    resp = client.put("/connector-plugins/X/config/validate", json={})
    assert resp.status_code == 400
    assert resp.json() == err(400, "Connector config {} contains no connector type")


# ---------------------------------------------------------------------------------------------
# RestServer
# ---------------------------------------------------------------------------------------------


def test_rest_server_serves_on_ephemeral_port_and_stops(herder: FakeHerder) -> None:
    server = RestServer(create_app(herder), "127.0.0.1", 0, graceful_timeout_s=2.0)
    server.start()
    try:
        assert server.port > 0
        assert server.is_running
        resp = httpx.get(f"http://127.0.0.1:{server.port}/", timeout=5.0)
        assert resp.status_code == 200
        assert resp.json()["kafka_cluster_id"] == "fake-cluster-id"
        resp = httpx.get(f"http://127.0.0.1:{server.port}/nope", timeout=5.0)
        assert resp.json() == err(404, "HTTP 404 Not Found")
    finally:
        server.stop()
    assert not server.is_running
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"http://127.0.0.1:{server.port}/", timeout=2.0)
    server.stop()  # idempotent


def test_rest_server_listening_socket_is_tcp_so_responses_are_not_delayed(herder: FakeHerder) -> None:
    """asyncio turns Nagle's algorithm off (TCP_NODELAY) on accepted connections only when the
    listening socket's ``proto`` is IPPROTO_TCP; with proto 0 every response waited ~40 ms for the
    client's delayed ACK."""
    server = RestServer(create_app(herder), "127.0.0.1", 0, graceful_timeout_s=2.0)
    server.start()
    try:
        assert server._socket is not None
        assert server._socket.proto == socket.IPPROTO_TCP
    finally:
        server.stop()


def test_rest_server_port_in_use(herder: FakeHerder) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        server = RestServer(create_app(herder), "127.0.0.1", port)
        with pytest.raises(RestServerError, match=f"port {port} on 127.0.0.1 is already in use"):
            server.start()
        assert not server.is_running
