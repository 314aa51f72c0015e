"""Shapes and codes of PATCH config, active topics and ``/admin/loggers`` (fake herder; the real-worker
tests are in tests/integration/test_rest_client_endpoints.py)."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterator

import pytest
from fake_herder import SOURCE_CLASS, FakeConnector, FakeHerder, err
from fastapi.testclient import TestClient


def add(herder: FakeHerder, name: str) -> None:
    herder.connectors_by_name[name] = FakeConnector(
        config={"name": name, "connector.class": SOURCE_CLASS, "tasks.max": "1", "a": "1"})


def test_patch_merges_and_null_removes(client: TestClient, herder: FakeHerder) -> None:
    add(herder, "c")
    resp = client.patch("/connectors/c/config", json={"a": None, "b": 2, "tasks.max": "3"})
    assert resp.status_code == 200
    body = resp.json()
    assert list(body) == ["name", "config", "tasks", "type"]
    assert body["config"] == {"name": "c", "connector.class": SOURCE_CLASS, "tasks.max": "3", "b": "2"}
    assert herder.calls[-1] == ("patch_connector_config", ("c", {"a": None, "b": "2", "tasks.max": "3"}))


def test_patch_errors(client: TestClient, herder: FakeHerder) -> None:
    assert client.patch("/connectors/nope/config", json={"a": "b"}).json() == err(404, "Connector nope not found")
    add(herder, "c")
    assert client.patch("/connectors/c/config", json={"a": {"x": 1}}).status_code == 400
    assert client.patch("/connectors/c/config", content=b"[1]",
                        headers={"Content-Type": "application/json"}).status_code == 400


def test_active_topics_shape_and_reset(client: TestClient, herder: FakeHerder) -> None:
    herder.active_topics["c"] = ["t1", "t2"]
    assert client.get("/connectors/c/topics").json() == {"c": {"topics": ["t1", "t2"]}}
    resp = client.put("/connectors/c/topics/reset")
    assert resp.status_code == 202 and resp.content == b""
    assert client.get("/connectors/c/topics").json() == {"c": {"topics": []}}


def test_topic_tracking_disabled_is_403(client: TestClient, herder: FakeHerder) -> None:
    herder.topic_tracking_reset = False
    assert client.put("/connectors/c/topics/reset").json() == err(403, "Topic tracking reset is disabled.")
    herder.topic_tracking = False
    assert client.get("/connectors/c/topics").json() == err(403, "Topic tracking is disabled.")
    assert client.put("/connectors/c/topics/reset").json() == err(403, "Topic tracking is disabled.")


def test_loggers_endpoints(client: TestClient, herder: FakeHerder) -> None:
    name = f"rest_loggers_{uuid.uuid4().hex[:8]}"
    try:
        assert client.get(f"/admin/loggers/{name}").json() == err(404, f"Logger {name} not found.")
        resp = client.put(f"/admin/loggers/{name}", json={"level": "debug"})
        assert resp.status_code == 200 and resp.json() == [name]
        got = client.get(f"/admin/loggers/{name}").json()
        assert list(got) == ["level", "last_modified"] and got["level"] == "DEBUG"
        assert isinstance(got["last_modified"], int)
        assert client.get("/admin/loggers").json()[name] == got
        assert client.get("/admin/loggers/").status_code == 200  # trailing slash answers directly
        assert client.put(f"/admin/loggers/{name}", json={"level": "LOUD"}).json() == err(
            404, "invalid log level 'LOUD'.")
        assert client.put(f"/admin/loggers/{name}", json={}).json() == err(
            400, "Desired 'level' parameter was not specified in request.")
        resp = client.put(f"/admin/loggers/{name}?scope=cluster", json={"level": "ERROR"})
        assert resp.status_code == 204 and resp.content == b""
        assert herder.cluster_levels == [(name, "ERROR")]
        assert client.put(f"/admin/loggers/{name}?scope=elsewhere", json={"level": "INFO"}).json() == [name]
    finally:
        logging.getLogger(name).setLevel(logging.NOTSET)


def test_trailing_slash_answers_directly(client: TestClient, herder: FakeHerder) -> None:
    add(herder, "c")
    for path in ("/connectors/c/", "/connectors/c/config/", "/connectors/", "/connector-plugins/", "/admin/loggers/"):
        resp = client.get(path, follow_redirects=False)
        assert resp.status_code == 200, (path, resp.status_code, resp.text)
    assert client.get("/connectors/c/config/").json() == herder.connectors_by_name["c"].config
    assert client.get("/nowhere/", follow_redirects=False).status_code == 404


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded", "application/xml"])
def test_a_body_that_is_not_json_is_415(client: TestClient, herder: FakeHerder, content_type: str) -> None:
    body = b'{"name":"x","config":{"connector.class":"VerifiableSource"}}'
    resp = client.post("/connectors", content=body, headers={"Content-Type": content_type})
    assert resp.json() == err(415, "HTTP 415 Unsupported Media Type")
    add(herder, "c")
    for method, path in (("PUT", "/connectors/c/config"), ("PATCH", "/connectors/c/config"),
                         ("PUT", "/admin/loggers/x"), ("PUT", "/connector-plugins/VerifiableSource/config/validate")):
        resp = client.request(method, path, content=b"{}", headers={"Content-Type": content_type})
        assert resp.status_code == 415, (method, path, resp.text)
    assert not any(c[0] == "put_connector_config" for c in herder.calls)
    # 404 before 415, as Jersey matches the resource first.
    assert client.post("/nowhere", content=b"{}", headers={"Content-Type": content_type}).status_code == 404


def test_json_with_charset_and_no_content_type_are_accepted(client: TestClient, herder: FakeHerder) -> None:
    body = b'{"name":"x","config":{"connector.class":"' + SOURCE_CLASS.encode() + b'"}}'
    resp = client.post("/connectors", content=body, headers={"Content-Type": "application/json; charset=UTF-8"})
    assert resp.status_code == 201, resp.text
    herder.active_topics["x"] = ["t"]
    assert client.put("/connectors/x/topics/reset").status_code == 202  # bodiless, no Content-Type


def test_status_json_carries_versions_in_java_order() -> None:
    from connect_runtime.cluster.herder_api import ConnectorStateInfo, StateInfo, TaskStateInfo
    from rest.models import ConnectorStateInfoModel

    info = ConnectorStateInfo("c", StateInfo("RUNNING", "w:1", None, version="1.2"), [
        TaskStateInfo("FAILED", "w:1", "boom", 0, version="1.2"), TaskStateInfo("UNASSIGNED", "w:1", None, 1)],
        "source")
    body = ConnectorStateInfoModel.from_entity(info).to_json()
    assert body["connector"] == {"state": "RUNNING", "worker_id": "w:1", "version": "1.2"}
    assert list(body["tasks"][0].items()) == [("id", 0), ("state", "FAILED"), ("worker_id", "w:1"),
                                              ("version", "1.2"), ("trace", "boom")]
    assert body["tasks"][1] == {"id": 1, "state": "UNASSIGNED", "worker_id": "w:1"}  # no version: none shown


@pytest.mark.parametrize("content_type", ["application/x-www-form-urlencoded", "text/plain"])
def test_a_request_without_a_body_is_served_whatever_its_content_type(client: TestClient, herder: FakeHerder,
                                                                    content_type: str) -> None:
    # axios labels every bodiless PUT/POST as a form: served (Java answers 415, a deliberate divergence).
    add(herder, "c")
    herder.active_topics["c"] = ["t"]
    headers = {"Content-Type": content_type}
    for method, path, status in (("PUT", "/connectors/c/pause", 202), ("PUT", "/connectors/c/resume", 202),
                                 ("PUT", "/connectors/c/stop", 204), ("PUT", "/connectors/c/topics/reset", 202),
                                 ("POST", "/connectors/c/restart", 204)):
        resp = client.request(method, path, headers=headers)
        assert resp.status_code == status, (method, path, resp.text)
        resp = client.request(method, path, headers={**headers, "Content-Length": "0"})
        assert resp.status_code == status, (method, path, resp.text)

    def empty_chunks() -> Iterator[bytes]:
        yield b""

    resp = client.put("/connectors/c/pause", content=empty_chunks(), headers=headers)
    assert resp.status_code == 202, resp.text

    def one_chunk() -> Iterator[bytes]:
        yield b"{}"

    resp = client.put("/connectors/c/config", content=one_chunk(), headers=headers)
    assert resp.json() == err(415, "HTTP 415 Unsupported Media Type")
