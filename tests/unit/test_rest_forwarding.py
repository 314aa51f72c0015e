"""Request forwarding between real REST servers (uvicorn on ephemeral ports), each with a fake herder.

A "follower" whose herder answers NotLeaderHttpError / NotAssignedHttpError must re-send the request to the
URL the herder names, with Java's ``forward`` semantics (at most two hops), relay the answer, and
re-sign internal requests with its own session key (KIP-507). No broker: pure HTTP behaviour.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import httpx
import pytest
from fake_herder import SOURCE_CLASS, TEST_SESSION_KEY, FakeConnector, FakeHerder
from fastapi.testclient import TestClient
from starlette.types import ASGIApp, Receive, Scope, Send

from connect_runtime.cluster.herder_api import SessionKeyInfo
from connect_runtime.cluster.request_signature import (
    SIGNATURE_ALGORITHM_HEADER,
    SIGNATURE_HEADER,
    generate_key,
    sign,
    verify,
)
from connect_runtime.types import ConnectorTaskId
from rest.app import create_app
from rest.routers import CONFLICTING_OPERATION, NO_KNOWN_LEADER
from rest.server import RestServer

CONFIG = {"connector.class": SOURCE_CLASS, "tasks.max": "1"}


@dataclass
class Seen:
    """One HTTP request a worker received."""

    method: str
    path: str
    query: list[tuple[str, str]]
    headers: dict[str, str]
    body: bytes


class Recorder:
    """ASGI wrapper that records every HTTP request (with its body) before the app handles it."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.seen: list[Seen] = []

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        more = True
        while more:
            message = await receive()
            chunks.append(message.get("body", b""))
            more = bool(message.get("more_body", False))
        body = b"".join(chunks)
        query = httpx.QueryParams(scope["query_string"].decode("latin-1")).multi_items()
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        self.seen.append(Seen(scope["method"], scope["raw_path"].decode("latin-1"), query, headers, body))
        delivered = False

        async def replay() -> dict[str, object]:
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


@dataclass
class Worker:
    herder: FakeHerder
    recorder: Recorder
    server: RestServer
    extra: dict[str, object] = field(default_factory=dict)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.port}"

    def http(self, method: str, path: str, **kwargs: object) -> httpx.Response:
        return httpx.request(method, self.url + path, timeout=10.0, **kwargs)  # type: ignore[arg-type]

    @property
    def last(self) -> Seen:
        return self.recorder.seen[-1]


@pytest.fixture
def start_worker() -> Iterator[Callable[[FakeHerder], Worker]]:
    started: list[RestServer] = []

    def start(herder: FakeHerder) -> Worker:
        recorder = Recorder(create_app(herder, request_timeout_s=5.0))
        server = RestServer(recorder, "127.0.0.1", 0, graceful_timeout_s=1.0)
        server.start()
        started.append(server)
        return Worker(herder, recorder, server)

    yield start
    for server in started:
        server.stop()


@pytest.fixture
def leader(start_worker: Callable[[FakeHerder], Worker]) -> Worker:
    return start_worker(FakeHerder())


@pytest.fixture
def follower(start_worker: Callable[[FakeHerder], Worker], leader: Worker) -> Worker:
    return start_worker(FakeHerder(is_leader=False, leader_address=leader.url))


def err(status: int, message: str) -> dict[str, object]:
    return {"error_code": status, "message": message}


def add(herder: FakeHerder, name: str, tasks: int = 1) -> None:
    herder.connectors_by_name[name] = FakeConnector(config={"name": name, **CONFIG}, tasks=tasks)


def signed(body: bytes, key: bytes = TEST_SESSION_KEY.key, algorithm: str = "HmacSHA256") -> dict[str, str]:
    return {"Content-Type": "application/json", **sign(key, algorithm, body)}


def closed_port_url() -> str:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}"


# ---------------------------------------------------------------------------------------------
# Leader-only public requests
# ---------------------------------------------------------------------------------------------


def test_create_on_follower_runs_on_leader(leader: Worker, follower: Worker) -> None:
    resp = follower.http("POST", "/connectors", json={"name": "a", "config": CONFIG})
    assert resp.status_code == 201
    assert resp.json() == {
        "name": "a",
        "config": {"name": "a", **CONFIG},
        "tasks": [{"connector": "a", "task": 0}],
        "type": "source",
    }
    # Java builds the Location on the worker the client called, not on the leader.
    assert resp.headers["location"] == f"{follower.url}/connectors/a"
    assert resp.headers["content-type"] == "application/json"
    assert "a" in leader.herder.connectors_by_name
    assert "a" not in follower.herder.connectors_by_name
    assert follower.herder.calls[-1][0] == "put_connector_config"  # tried locally first
    seen = leader.last
    assert (seen.method, seen.path, seen.query) == ("POST", "/connectors", [("forward", "true")])
    assert json.loads(seen.body) == {"name": "a", "config": CONFIG}
    assert seen.headers["content-type"] == "application/json"


def test_put_config_and_delete_relay_status_codes(leader: Worker, follower: Worker) -> None:
    resp = follower.http("PUT", "/connectors/my%20conn/config", json=CONFIG)
    assert resp.status_code == 201
    assert resp.headers["location"] == f"{follower.url}/connectors/my%20conn"
    assert leader.last.path == "/connectors/my%20conn/config"  # encoding kept on the way
    assert "my conn" in leader.herder.connectors_by_name
    resp = follower.http("PUT", "/connectors/my%20conn/config", json={**CONFIG, "tasks.max": "2"})
    assert resp.status_code == 200
    assert "location" not in resp.headers
    assert resp.json()["config"]["tasks.max"] == "2"
    resp = follower.http("DELETE", "/connectors/my%20conn")
    assert resp.status_code == 204
    assert resp.content == b""
    assert leader.herder.connectors_by_name == {}


def test_leader_errors_are_relayed(leader: Worker, follower: Worker) -> None:
    resp = follower.http("DELETE", "/connectors/nope")
    assert resp.status_code == 404
    assert resp.json() == err(404, "Connector nope not found")
    add(leader.herder, "a")
    resp = follower.http("POST", "/connectors", json={"name": "a", "config": CONFIG})
    assert resp.status_code == 409
    assert resp.json() == err(409, "Connector a already exists")
    resp = follower.http("PUT", "/connectors/b/config", json={"tasks.max": "1"})
    assert resp.status_code == 400
    assert resp.json()["error_code"] == 400


def test_forward_true_is_forwarded_with_forward_false(leader: Worker, follower: Worker) -> None:
    add(leader.herder, "a")
    resp = follower.http("PUT", "/connectors/a/stop", params={"forward": "true"})
    assert resp.status_code == 204
    assert leader.last.query == [("forward", "false")]
    assert leader.herder.calls[-1] == ("stop_connector", "a")


def test_forward_false_on_wrong_worker_is_409(leader: Worker, follower: Worker) -> None:
    resp = follower.http("POST", "/connectors", params={"forward": "false"}, json={"name": "a", "config": CONFIG})
    assert resp.status_code == 409
    assert resp.json() == err(409, CONFLICTING_OPERATION)
    assert leader.recorder.seen == []


def test_two_hops_reach_the_leader(
    start_worker: Callable[[FakeHerder], Worker], leader: Worker, follower: Worker
) -> None:
    # The client asks A, whose idea of the leader (follower) is stale; the follower forwards once more.
    stale = start_worker(FakeHerder(is_leader=False, leader_address=follower.url))
    resp = stale.http("POST", "/connectors", json={"name": "a", "config": CONFIG})
    assert resp.status_code == 201
    assert follower.last.query == [("forward", "true")]
    assert leader.last.query == [("forward", "false")]
    assert "a" in leader.herder.connectors_by_name


def test_no_third_hop(start_worker: Callable[[FakeHerder], Worker]) -> None:
    # A and B each believe the other is the leader: A → B (forward=true) → A (forward=false) → 409.
    a = start_worker(FakeHerder(is_leader=False))
    b = start_worker(FakeHerder(is_leader=False, leader_address=a.url))
    a.herder.leader_address = b.url
    resp = a.http("POST", "/connectors", json={"name": "x", "config": CONFIG})
    assert resp.status_code == 409
    assert resp.json() == err(409, CONFLICTING_OPERATION)
    assert [s.query for s in a.recorder.seen] == [[], [("forward", "false")]]
    assert [s.query for s in b.recorder.seen] == [[("forward", "true")]]


def test_unknown_leader_is_409(follower: Worker) -> None:
    follower.herder.leader_address = None
    resp = follower.http("DELETE", "/connectors/a")
    assert resp.status_code == 409
    assert resp.json() == err(409, NO_KNOWN_LEADER)


def test_unreachable_leader_is_500(follower: Worker) -> None:
    follower.herder.leader_address = closed_port_url()
    resp = follower.http("PUT", "/connectors/a/stop")
    assert resp.status_code == 500
    body = resp.json()
    assert body["error_code"] == 500
    assert body["message"].startswith("IO Error trying to forward REST request: ")


def test_forwarding_without_lifespan_uses_a_one_off_client(leader: Worker) -> None:
    # An app driven without startup events has no shared client; forwarding still works.
    herder = FakeHerder(is_leader=False, leader_address=leader.url)
    client = TestClient(create_app(herder, request_timeout_s=5.0))
    resp = client.put("/connectors/a/config", json=CONFIG)
    assert resp.status_code == 201
    assert "a" in leader.herder.connectors_by_name
    client.close()


# ---------------------------------------------------------------------------------------------
# Owner-only requests (NotAssignedHttpError) and restarts
# ---------------------------------------------------------------------------------------------


def test_task_restart_goes_to_the_owner(start_worker: Callable[[FakeHerder], Worker], leader: Worker) -> None:
    add(leader.herder, "a", tasks=2)
    other = start_worker(FakeHerder(assigned=False, owner_address=leader.url))
    add(other.herder, "a", tasks=2)
    resp = other.http("POST", "/connectors/a/tasks/1/restart")
    assert resp.status_code == 204
    assert leader.herder.calls[-1] == ("restart_task", ConnectorTaskId("a", 1))
    assert leader.last.query == [("forward", "true")]
    resp = other.http("POST", "/connectors/a/restart")
    assert resp.status_code == 204
    assert leader.herder.calls[-1] == ("restart_connector", ("a", False, False))
    other.herder.owner_address = None
    resp = other.http("POST", "/connectors/a/tasks/1/restart")
    assert resp.json() == err(409, NO_KNOWN_LEADER)


def test_restart_with_tasks_is_forwarded_with_its_parameters(leader: Worker, follower: Worker) -> None:
    add(leader.herder, "a", tasks=2)
    add(follower.herder, "a", tasks=2)
    resp = follower.http("POST", "/connectors/a/restart", params={"includeTasks": "true", "onlyFailed": "true"})
    assert resp.status_code == 202
    assert [t["state"] for t in resp.json()["tasks"]] == ["RUNNING", "RESTARTING"]
    assert leader.last.query == [("forward", "true"), ("includeTasks", "true"), ("onlyFailed", "true")]
    assert leader.herder.calls[-1] == ("restart_connector", ("a", True, True))


# ---------------------------------------------------------------------------------------------
# Internal requests: verified, forwarded, re-signed
# ---------------------------------------------------------------------------------------------


def test_task_configs_forwarded_and_re_signed(leader: Worker, follower: Worker) -> None:
    add(leader.herder, "a")
    # The follower accepts a SHA-512 signature but signs with SHA-256; the leader accepts SHA-256 only,
    # so a relayed (not re-signed) signature would be refused there.
    follower.herder.verification = ["HmacSHA256", "HmacSHA512"]
    body = json.dumps([{"task.class": "T", "topic": "t"}, {"task.class": "T", "topic": "u"}]).encode()
    resp = follower.http("POST", "/connectors/a/tasks", content=body, headers=signed(body, algorithm="HmacSHA512"))
    assert resp.status_code == 204
    assert leader.herder.calls[-1] == (
        "put_task_configs",
        ("a", [{"task.class": "T", "topic": "t"}, {"task.class": "T", "topic": "u"}]),
    )
    seen = leader.last
    assert seen.query == [("forward", "true")]
    assert seen.body == body
    assert seen.headers[SIGNATURE_ALGORITHM_HEADER.lower()] == "HmacSHA256"
    assert verify(TEST_SESSION_KEY.key, "HmacSHA256", body, seen.headers[SIGNATURE_HEADER.lower()])


def test_fence_forwarded_and_re_signed_with_current_key(leader: Worker, follower: Worker) -> None:
    add(leader.herder, "a")
    follower.herder.signing_algorithm = "HmacSHA512"
    leader.herder.verification = ["HmacSHA512"]
    follower.herder.verification = ["HmacSHA256"]
    resp = follower.http("PUT", "/connectors/a/fence", headers=signed(b""))
    assert resp.status_code == 204
    assert leader.herder.calls[-1] == ("fence_zombies", "a")
    seen = leader.last
    assert seen.body == b""
    assert seen.headers[SIGNATURE_ALGORITHM_HEADER.lower()] == "HmacSHA512"
    assert verify(TEST_SESSION_KEY.key, "HmacSHA512", b"", seen.headers[SIGNATURE_HEADER.lower()])


def test_leader_rejects_a_follower_with_another_key(leader: Worker, follower: Worker) -> None:
    add(leader.herder, "a")
    other_key = generate_key("HmacSHA256")
    follower.herder.key = SessionKeyInfo(key=other_key, algorithm="HmacSHA256", creation_timestamp=1)
    resp = follower.http("PUT", "/connectors/a/fence", headers=signed(b"", key=other_key))
    assert resp.status_code == 403
    assert resp.json() == err(403, "Internal request contained invalid signature.")
    assert not [c for c in leader.herder.calls if c[0] == "fence_zombies"]


def test_internal_request_is_verified_before_forwarding(leader: Worker, follower: Worker) -> None:
    resp = follower.http("PUT", "/connectors/a/fence", headers=signed(b"", key=generate_key("HmacSHA256")))
    assert resp.status_code == 403
    resp = follower.http("PUT", "/connectors/a/fence")
    assert resp.status_code == 400
    follower.herder.key = None
    resp = follower.http("PUT", "/connectors/a/fence", headers=signed(b""))
    assert resp.status_code == 503
    assert leader.recorder.seen == []


def test_internal_forward_false_is_409_and_errors_relay(leader: Worker, follower: Worker) -> None:
    resp = follower.http("PUT", "/connectors/a/fence", params={"forward": "false"}, headers=signed(b""))
    assert resp.json() == err(409, CONFLICTING_OPERATION)
    assert leader.recorder.seen == []
    resp = follower.http("PUT", "/connectors/nope/fence", headers=signed(b""))
    assert resp.status_code == 404
    assert resp.json() == err(404, "Connector nope not found")
