"""Hostile and careless requests against one real worker process (bounded requests): each is a
4xx with Kafka Connect's error body, the worker stays up and its memory stays flat.

Also: a connector generating more task configs than ``tasks.max`` fails as in Java 4.x, and
``GET /openapi.json`` documents every public endpoint.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from worker_memory import rss_kb

from connect_runtime.testing.cluster import WorkerProcess, plugin_path, wait_until

PLUGINS_DIR = Path(__file__).resolve().parents[1] / "plugins"
#: The worker's rest.request.max.bytes here (small, so the test sends little).
BODY_LIMIT = 256 * 1024
pytestmark = [pytest.mark.kafka, pytest.mark.connect_worker(
    eos="disabled", extra={"rest.request.max.bytes": str(BODY_LIMIT), **plugin_path(PLUGINS_DIR)})]
TOO_LARGE = f"Request body is larger than the limit of {BODY_LIMIT} bytes (rest.request.max.bytes)"
INT_MAX = 2147483647
#: More than the worker allocating a list of tasks.max task configs could stay under (it used ~23 GB).
RSS_GROWTH_LIMIT_KB = 64 * 1024


@pytest.fixture(scope="module")
def http(worker: WorkerProcess) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=worker.url, timeout=30) as client:
        yield client


def assert_error(response: httpx.Response, status: int, contains: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    body: dict[str, Any] = response.json()
    assert set(body) == {"error_code", "message"} and body["error_code"] == status, body
    assert contains in body["message"], body
    return body


def assert_alive(worker: WorkerProcess, http: httpx.Client) -> None:
    assert worker.proc is not None and worker.proc.poll() is None, worker.log_tail()
    assert http.get("/health").status_code == 200


def verifiable(name: str, **extra: str) -> dict[str, str]:
    return {"name": name, "connector.class": "VerifiableSource", "topic": f"{name}-t", "throughput": "1", **extra}


def test_body_over_the_limit_is_413_without_being_read(worker: WorkerProcess, http: httpx.Client) -> None:
    under = verifiable("big-ok", **{"padding": "x" * (BODY_LIMIT - 1024)})
    assert http.put("/connector-plugins/VerifiableSource/config/validate", json=under).status_code == 200
    over = verifiable("big", **{"padding": "x" * BODY_LIMIT})
    before = rss_kb(worker)
    # Declared by Content-Length: refused before the body is read.
    assert_error(http.post("/connectors", json={"name": "big", "config": over}), 413, TOO_LARGE)
    assert_error(http.put("/connectors/big/config", json=over), 413, TOO_LARGE)

    # Chunked (no Content-Length): counted as it arrives; 16 MiB are offered, the worker stops reading early.
    def chunks() -> Iterator[bytes]:
        yield b'{"name": "big", "config": {"padding": "'
        for _ in range(256):
            yield b"y" * 65536
        yield b'"}}'

    response = http.post("/connectors", content=chunks(), headers={"Content-Type": "application/json"})
    assert_error(response, 413, TOO_LARGE)
    assert response.headers["connection"] == "close"
    assert rss_kb(worker) - before < RSS_GROWTH_LIMIT_KB
    assert http.get("/connectors").json() == []
    assert_alive(worker, http)


def test_deeply_nested_json_is_400(worker: WorkerProcess, http: httpx.Client) -> None:
    deep = '{"name": "deep", "config": {"a": ' + "[" * 50_000 + "]" * 50_000 + "}}"
    headers = {"Content-Type": "application/json"}
    assert_error(http.post("/connectors", content=deep, headers=headers), 400, "deeper than 64 levels")
    offsets = '{"offsets": [{"partition": {"p": ' + "{" * 5000 + "}" * 5000 + "}}]}"
    assert_error(http.patch("/connectors/deep/offsets", content=offsets, headers=headers), 400, "deeper than 64")
    assert_error(http.put("/admin/loggers/root", content="[" * 100_000, headers=headers), 400, "deeper than 64")
    assert "Uncaught exception in REST call" not in worker.log_path.read_text(errors="replace")
    assert_alive(worker, http)


def test_lone_surrogate_is_400(worker: WorkerProcess, http: httpx.Client) -> None:
    headers = {"Content-Type": "application/json"}
    body = '{"name": "surrogate\\ud800", "config": {"connector.class": "VerifiableSource", "topic": "t"}}'
    assert_error(http.post("/connectors", content=body, headers=headers), 400, "unpaired surrogate \\ud800")
    validate = '{"connector.class": "VerifiableSource", "topic": "t\\udfff"}'
    assert_error(http.put("/connector-plugins/VerifiableSource/config/validate", content=validate, headers=headers),
                 400, "unpaired surrogate \\udfff")
    # A surrogate *pair* is an ordinary astral character.
    pair = '{"connector.class": "VerifiableSource", "topic": "t\\ud83d\\ude00"}'
    response = http.put("/connector-plugins/VerifiableSource/config/validate", content=pair, headers=headers)
    assert response.status_code == 200, response.text
    assert "Uncaught exception in REST call" not in worker.log_path.read_text(errors="replace")
    assert_alive(worker, http)


def test_tasks_max_above_the_limit_is_400_and_memory_stays_flat(worker: WorkerProcess, http: httpx.Client) -> None:
    before = rss_kb(worker)
    config = verifiable("huge", **{"tasks.max": str(INT_MAX)})
    expected = (f"Invalid value {INT_MAX} for configuration tasks.max: Value must be no more than 1000 "
                "(this worker's tasks.max.limit)")
    assert_error(http.post("/connectors", json={"name": "huge", "config": config}), 400, expected)
    assert_error(http.put("/connectors/huge/config", json=config), 400, expected)
    infos = http.put("/connector-plugins/VerifiableSource/config/validate", json=config).json()
    assert infos["error_count"] == 1
    (tasks_max,) = [c["value"] for c in infos["configs"] if c["value"]["name"] == "tasks.max"]
    assert tasks_max["errors"] == [expected]
    assert http.get("/connectors").json() == []
    assert rss_kb(worker) - before < RSS_GROWTH_LIMIT_KB
    assert_alive(worker, http)


def test_a_connector_generating_more_tasks_than_tasks_max_fails_as_in_java(http: httpx.Client) -> None:
    config = {"connector.class": "too_many_tasks_source.TooManyTasksSourceConnector", "tasks.max": "2"}
    assert http.post("/connectors", json={"name": "greedy", "config": config}).status_code == 201

    def failed() -> dict[str, Any] | None:
        status: dict[str, Any] = http.get("/connectors/greedy/status").json()
        return status if status.get("connector", {}).get("state") == "FAILED" else None

    status = wait_until(failed, 60, message="connector greedy FAILED")
    assert ("TooManyTasksException: The connector greedy has generated 3 tasks, which is greater than 2, the maximum "
            "number of tasks it is configured to create. This behaviour should be considered a bug and is "
            "disallowed. If necessary, it can be permitted by reconfiguring the connector with 'tasks.max.enforce' "
            "set to false; however, this option will be removed in a future release of Kafka Connect."
            ) in status["connector"]["trace"]
    assert status["tasks"] == [] and http.get("/connectors/greedy/tasks").json() == []
    # With tasks.max.enforce=false the excess task runs (deprecated, with a warning).
    lax = {**config, "tasks.max.enforce": "false"}
    assert http.put("/connectors/greedy/config", json=lax).status_code == 200
    wait_until(lambda: len(http.get("/connectors/greedy/tasks").json()) == 3, 60, message="3 task configs")
    assert http.delete("/connectors/greedy").status_code == 204


#: Every public endpoint of Kafka Connect's REST API (Java's RootResource, ConnectorsResource,
#: ConnectorPluginsResource, LoggingResource), as OpenAPI paths.
PUBLIC_OPERATIONS = {
    "/": {"get"}, "/health": {"get"},
    "/connectors": {"get", "post"},
    "/connectors/{connector}": {"get", "delete"},
    "/connectors/{connector}/config": {"get", "put", "patch"},
    "/connectors/{connector}/status": {"get"},
    "/connectors/{connector}/tasks": {"get"},
    "/connectors/{connector}/topics": {"get"},
    "/connectors/{connector}/topics/reset": {"put"},
    "/connectors/{connector}/pause": {"put"},
    "/connectors/{connector}/resume": {"put"},
    "/connectors/{connector}/stop": {"put"},
    "/connectors/{connector}/restart": {"post"},
    "/connectors/{connector}/offsets": {"get", "patch", "delete"},
    "/connectors/{connector}/tasks/{task}/status": {"get"},
    "/connectors/{connector}/tasks/{task}/restart": {"post"},
    "/connector-plugins": {"get"},
    "/connector-plugins/{plugin}/config": {"get"},
    "/connector-plugins/{plugin}/config/validate": {"put"},
    "/admin/loggers": {"get"},
    "/admin/loggers/{logger_name}": {"get", "put"},
    "/metrics": {"get"},
}
#: Operations answering something other than JSON when they succeed (Prometheus' text formats).
TEXT_OPERATIONS = frozenset({"GET /metrics"})


def test_openapi_documents_every_public_endpoint(http: httpx.Client) -> None:
    spec = http.get("/openapi.json").json()
    paths: dict[str, dict[str, Any]] = spec["paths"]
    assert {path: set(ops) for path, ops in paths.items()} == PUBLIC_OPERATIONS
    schemas = spec["components"]["schemas"]
    for path, operations in paths.items():
        for method, operation in operations.items():
            where = f"{method.upper()} {path}"
            responses = operation["responses"]
            assert "4XX" in responses and "5XX" in responses, where
            for code, response in responses.items():
                if code not in ("202", "204") and not (code == "200" and where in TEXT_OPERATIONS):
                    assert "application/json" in response.get("content", {}), f"{where} {code}"
            if method in ("post", "put", "patch") and path in (
                    "/connectors", "/connectors/{connector}/config", "/connectors/{connector}/offsets",
                    "/connector-plugins/{plugin}/config/validate", "/admin/loggers/{logger_name}"):
                assert operation["requestBody"]["content"]["application/json"]["schema"], where
    assert {"ConnectorInfoModel", "ConnectorStateInfoModel", "ConfigInfosModel", "ErrorMessage"} <= set(schemas)



def test_a_client_leaving_mid_body_is_no_error(worker: WorkerProcess, http: httpx.Client) -> None:
    """A client that closes its connection half-way through a declared body is not an error of the
    worker's: a debug line at most, no traceback, and the worker carries on."""
    before = worker.log_path.stat().st_size

    def logged() -> str:
        with worker.log_path.open("rb") as log:
            log.seek(before)
            return log.read().decode(errors="replace")

    # At DEBUG, the worker's line about the disconnect says when it has dealt with it.
    assert http.put("/admin/loggers/rest.errors", json={"level": "DEBUG"}).status_code == 200
    try:
        with socket.create_connection(("127.0.0.1", worker.port)) as raw:
            raw.sendall(b"POST /connectors HTTP/1.1\r\nHost: worker\r\nContent-Type: application/json\r\n"
                        b'Content-Length: 100\r\n\r\n{"name": "half')
        wait_until(lambda: "Client disconnected while sending" in logged(), 30,
                   message="the worker to notice the client leaving")
    finally:
        http.put("/admin/loggers/rest.errors", json={"level": "INFO"})
    assert_alive(worker, http)
    text = logged()
    assert "Uncaught exception" not in text and "Traceback" not in text and "ERROR" not in text, text
