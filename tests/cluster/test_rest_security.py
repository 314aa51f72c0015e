"""REST extensions, Basic authentication and CORS on real worker processes.

One two-worker cluster serves the whole module: both workers run Kafka's ``BasicAuthSecurityRestExtension``
(worker A reads ``rest.basic.auth.credentials.file``, worker B a JAAS file written for a Java worker
that points at the same credentials), the third-party ``header_rest_extension.HeaderRestExtension``
from tests/plugins, and CORS for one origin. The credentials hold a plain password (alice) and an
scrypt hash (bob). Exactly-once source is on, so starting tasks also sends the internal, signed
``PUT /connectors/{c}/fence`` to the leader; a connector running on the follower posts its task configs
to the leader through the internal ``POST /connectors/{c}/tasks``. Neither carries credentials.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from connect_runtime.testing.cluster import WorkerProcess, current_leader, plugin_path, wait_until
from rest.basic_auth import JAVA_CLASS_NAME, PROPERTY_FILE_LOGIN_MODULE
from rest.credentials import hash_password

pytestmark = [pytest.mark.kafka, pytest.mark.cluster]

PLUGINS = Path(__file__).resolve().parent.parent / "plugins"
ALICE = ("alice", "alice-plain-secret")
BOB = ("bob", "bob's hashed secret")
ORIGIN = "https://ui.example.com"
STAMP = "stamped-by-extension"
FAST = {"session.timeout.ms": "4000", "heartbeat.interval.ms": "1000", "scheduled.rebalance.max.delay.ms": "0"}


@dataclass
class Cluster:
    bootstrap: str
    group: str
    workers: list[WorkerProcess]
    closed_file: Path


def _wait_ready(worker: WorkerProcess, timeout_s: float = 60.0) -> None:
    def ready() -> bool:
        if worker.proc is not None and worker.proc.poll() is not None:
            raise RuntimeError(f"worker exited with {worker.proc.returncode}; log: {worker.log_tail()}")
        return httpx.get(f"{worker.url}/health", auth=ALICE, timeout=2).status_code == 200

    wait_until(ready, timeout_s, message=f"worker {worker.url} to be ready")


@pytest.fixture(scope="module")
def secured(kafka_bootstrap: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    tmp = tmp_path_factory.mktemp("rest-security")
    credentials = tmp / "credentials.properties"
    credentials.write_text(f"# REST users\n{ALICE[0]}: {ALICE[1]}\n{BOB[0]}={hash_password(BOB[1])}\n")
    jaas = tmp / "connect.jaas"
    jaas.write_text(f'KafkaConnect {{\n  {PROPERTY_FILE_LOGIN_MODULE} required\n  file="{credentials}";\n}};\n')
    common = {**FAST, "rest.extension.classes": f"{JAVA_CLASS_NAME}, header_rest_extension.HeaderRestExtension",
              "test.extension.stamp": STAMP, "access.control.allow.origin": ORIGIN, **plugin_path(PLUGINS)}
    group = f"secured-{uuid.uuid4().hex[:8]}"
    closed_file = tmp / "extension-closed.txt"
    workers = [
        WorkerProcess(kafka_bootstrap, tmp, group,
                      extra={**common, "rest.basic.auth.credentials.file": str(credentials)}),
        WorkerProcess(kafka_bootstrap, tmp, group,
                      extra={**common, "rest.basic.auth.jaas.config.file": str(jaas),
                             "test.extension.closed.file": str(closed_file)}),
    ]
    try:
        for w in workers:
            w.start()
        for w in workers:
            _wait_ready(w)
        yield Cluster(kafka_bootstrap, group, workers, closed_file)
    finally:
        for w in workers:
            w.kill()


def test_basic_auth_answers_401_without_or_with_wrong_credentials_and_200_with_right_ones(secured: Cluster) -> None:
    for w in secured.workers:  # credentials file and JAAS file alike
        url = f"{w.url}/connectors"
        missing = httpx.get(url)
        assert missing.status_code == 401
        assert missing.text == "User cannot access the resource."
        assert "www-authenticate" not in missing.headers  # Java's filter sends no challenge
        assert httpx.get(url, auth=(ALICE[0], "wrong")).status_code == 401
        assert httpx.get(url, auth=("mallory", ALICE[1])).status_code == 401
        assert httpx.get(url, headers={"Authorization": "Basic !!not-base64"}).status_code == 401
        assert httpx.get(url, headers={"Authorization": f"Bearer {ALICE[1]}"}).status_code == 401
        assert httpx.get(url, auth=ALICE).status_code == 200  # plain password
        assert httpx.get(url, auth=BOB).status_code == 200  # scrypt-hashed password
        assert httpx.get(url, auth=(BOB[0], BOB[1] + "x")).status_code == 401


def test_connector_created_through_the_follower_runs_with_auth_on(secured: Cluster) -> None:
    leader = current_leader(secured.bootstrap, f"{secured.group}-configs")
    assert leader is not None
    follower = next(w for w in secured.workers if w.url.rstrip("/") != leader["url"].rstrip("/"))
    topic = f"secured-{uuid.uuid4().hex[:6]}"
    names = ["sec-a", "sec-b"]
    with httpx.Client(base_url=follower.url, auth=ALICE, timeout=30) as client:
        for name in names:  # forwarded to the leader with the client's Authorization header
            r = client.post("/connectors", json={"name": name, "config": {
                "connector.class": "VerifiableSource", "topic": topic, "tasks.max": "2", "throughput": "10",
                "topic.creation.default.replication.factor": "1", "topic.creation.default.partitions": "1"}})
            assert r.status_code == 201, r.text

        def running() -> list[dict[str, Any]] | None:
            statuses = [client.get(f"/connectors/{n}/status").json() for n in names]
            assert "FAILED" not in str(statuses), statuses
            ok = all(s["connector"]["state"] == "RUNNING" and len(s["tasks"]) == 2
                     and all(t["state"] == "RUNNING" for t in s["tasks"]) for s in statuses)
            return statuses if ok else None

        statuses = wait_until(running, 90, message="both connectors and their tasks RUNNING")
    # Work ran on the follower: its task configs and fencing went leader-ward as signed internal
    # requests without credentials, which the auth filter let through.
    follower_id = follower.url.removeprefix("http://")
    placed = [s["connector"]["worker_id"] for s in statuses] + [t["worker_id"] for s in statuses for t in s["tasks"]]
    assert follower_id in placed, placed


def test_third_party_extension_adds_middleware_and_a_route_reading_cluster_state(secured: Cluster) -> None:
    w = secured.workers[0]
    refused = httpx.get(f"{w.url}/connectors")
    assert refused.headers.get("x-test-extension") == STAMP  # both extensions wrap the API
    r = httpx.get(f"{w.url}/test-extension/health", auth=ALICE)
    assert r.status_code == 200
    assert r.headers["x-test-extension"] == STAMP
    body = r.json()
    assert body.pop("kafka_cluster_id") == httpx.get(f"{w.url}/", auth=ALICE).json()["kafka_cluster_id"]
    assert set(body) == set(httpx.get(f"{w.url}/connectors", auth=ALICE).json())
    for name, health in body.items():  # the extension read each connector's health and config
        assert health["type"] == "source" and health["config"]["name"] == name, health
    assert httpx.get(f"{w.url}/test-extension/health").status_code == 401  # behind Basic auth too
    # The extension is not a connector plugin: Java does not list REST extensions either.
    plugins = httpx.get(f"{w.url}/connector-plugins", params={"connectorsOnly": "false"}, auth=ALICE).json()
    assert not [p for p in plugins if "Extension" in p["class"]], plugins


def test_cors_allowed_origin_gets_headers_and_another_does_not(secured: Cluster) -> None:
    url = f"{secured.workers[0].url}/connectors"
    simple = httpx.get(url, auth=ALICE, headers={"Origin": ORIGIN})
    assert simple.status_code == 200
    assert simple.headers["access-control-allow-origin"] == ORIGIN
    assert simple.headers["access-control-allow-credentials"] == "true"
    assert "Origin" in simple.headers.get_list("vary")
    other = httpx.get(url, auth=ALICE, headers={"Origin": "https://evil.example.com"})
    assert other.status_code == 200
    assert not [h for h in other.headers if h.startswith("access-control-")]

    # A preflight carries no credentials: answered before the authentication filter.
    preflight = httpx.options(url, headers={"Origin": ORIGIN, "Access-Control-Request-Method": "POST",
                                            "Access-Control-Request-Headers": "content-type"})
    assert preflight.status_code == 200
    assert preflight.headers["access-control-allow-origin"] == ORIGIN
    assert preflight.headers["access-control-allow-methods"] == "GET,POST,HEAD"
    assert preflight.headers["access-control-allow-headers"] == "X-Requested-With,Content-Type,Accept,Origin"
    assert preflight.headers["access-control-max-age"] == "1800"
    for headers in ({"Origin": "https://evil.example.com", "Access-Control-Request-Method": "POST"},
                    {"Origin": ORIGIN, "Access-Control-Request-Method": "DELETE"}):  # not in GET,POST,HEAD
        refused = httpx.options(url, headers=headers)
        assert not [h for h in refused.headers if h.startswith("access-control-")], headers


def test_extensions_are_closed_when_the_worker_stops(secured: Cluster) -> None:
    # Last test on this cluster: stops worker B gracefully.
    assert not secured.closed_file.exists()
    assert secured.workers[1].stop() == 0
    assert secured.closed_file.read_text() == "closed\n"


def test_missing_extension_class_refuses_start_up_in_one_line(kafka_bootstrap: str, tmp_path: Path) -> None:
    w = WorkerProcess(kafka_bootstrap, tmp_path, f"noext-{uuid.uuid4().hex[:8]}",
                      extra={"rest.extension.classes": "no_such_module.NoSuchExtension"})
    assert w.start().wait_exit() == 1
    log = w.log_path.read_text()
    assert "connect-distributed: rest.extension.classes: class no_such_module.NoSuchExtension could not be found" \
        in log.splitlines(), log
    assert "Traceback" not in log
