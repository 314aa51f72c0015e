"""The HTTP rules Jetty and Jersey apply before a Connect resource runs (rest/jersey_rules.py), on a fake
herder: HEAD and OPTIONS, routing errors without a Content-Type, 406 and 415, ambiguous URIs. The same
requests against Java Kafka Connect are in tests/integration/test_rest_diff_transport.py."""

from __future__ import annotations

import pytest
from fake_herder import SOURCE_CLASS, FakeConnector, FakeHerder, err
from fastapi.testclient import TestClient

JSON = {"Content-Type": "application/json"}


@pytest.fixture
def herder() -> FakeHerder:
    herder = FakeHerder()
    herder.connectors_by_name["c"] = FakeConnector(
        config={"name": "c", "connector.class": SOURCE_CLASS, "tasks.max": "1"}, tasks=1)
    return herder


def test_head_answers_as_get_without_the_body(client: TestClient) -> None:
    get, head = client.get("/connectors/c/config"), client.head("/connectors/c/config")
    assert (head.status_code, head.content) == (200, b"")
    assert head.headers["content-type"] == "application/json"
    assert head.headers["content-length"] == get.headers["content-length"] != "0"
    unknown = client.head("/connectors/nope")
    assert (unknown.status_code, unknown.headers["content-type"], unknown.content) == (404, "application/json", b"")
    put_only = client.head("/connectors/c/pause")
    assert (put_only.status_code, put_only.content) == (405, b"")
    assert "content-type" not in put_only.headers


#: What Jersey allows on each path, in its order (``Allow`` joins them with bare commas).
ALLOWED = {
    "/": "HEAD, GET, OPTIONS", "/connectors": "HEAD, POST, GET, OPTIONS",
    "/connectors/c": "HEAD, DELETE, GET, OPTIONS", "/connectors/c/config/": "HEAD, GET, OPTIONS, PUT, PATCH",
    "/connectors/c/offsets": "HEAD, DELETE, GET, OPTIONS, PATCH",
    "/connectors/c/restart": "POST, OPTIONS", "/connectors/nope/pause": "OPTIONS, PUT",
    "/connectors/c/tasks/x/status": "HEAD, GET, OPTIONS", "/admin/loggers/root": "HEAD, GET, OPTIONS, PUT",
}


@pytest.mark.parametrize(("path", "allowed"), ALLOWED.items())
def test_options_lists_the_allowed_methods_in_jerseys_order(client: TestClient, path: str, allowed: str) -> None:
    resp = client.options(path)
    assert (resp.status_code, resp.headers["content-type"], resp.text) == (200, "text/plain", allowed)
    assert resp.headers["allow"] == allowed.replace(", ", ",")


@pytest.mark.parametrize(("accept", "content_type", "body"), [
    ("text/plain", "text/plain", "HEAD, GET, OPTIONS"), ("*/*", "text/plain", "HEAD, GET, OPTIONS"),
    ("application/json", "application/json", ""), ("application/json, text/plain;q=0.5", "application/json", ""),
    ("text/html;q=0.9, text/plain;q=0.1", "text/html;q=0.9", ""),
])
def test_options_answers_in_the_preferred_type(client: TestClient, accept: str, content_type: str,
                                              body: str) -> None:
    resp = client.options("/connectors/c/status", headers={"Accept": accept})
    assert (resp.status_code, resp.headers["content-type"], resp.text) == (200, content_type, body)
    assert resp.headers["allow"] == "HEAD,GET,OPTIONS"


@pytest.mark.parametrize(("method", "path", "status"), [
    ("GET", "/nope", 404), ("OPTIONS", "/connectors/c/nope", 404), ("HEAD", "/connectors/c/tasks/0/nope", 404),
    ("DELETE", "/connectors", 405), ("GET", "/connectors/c/pause", 405),
])
def test_routing_errors_carry_the_error_body_without_a_content_type(client: TestClient, method: str, path: str,
                                                                   status: int) -> None:
    resp = client.request(method, path)
    assert resp.status_code == status
    assert "content-type" not in resp.headers
    if method != "HEAD":
        assert resp.json() == err(status, f"HTTP {status} {'Not Found' if status == 404 else 'Method Not Allowed'}")


def test_errors_of_a_matched_resource_keep_their_content_type(client: TestClient) -> None:
    for path in ("/connectors/nope", "/connectors/c/tasks/x/status"):
        resp = client.get(path)
        assert (resp.status_code, resp.headers["content-type"]) == (404, "application/json"), path


@pytest.mark.parametrize("headers", [{}, {"Content-Type": "*/*"}, {"Content-Type": "application/*"}])
def test_a_body_jersey_has_no_reader_for_is_415_where_a_resource_reads_one(client: TestClient, herder: FakeHerder,
                                                                         headers: dict[str, str]) -> None:
    body = b'{"name": "x", "config": {"connector.class": "' + SOURCE_CLASS.encode() + b'"}}'
    for method, path in (("POST", "/connectors"), ("PUT", "/connectors/x/config"), ("PATCH", "/connectors/c/config"),
                         ("PUT", "/admin/loggers/x")):
        resp = client.request(method, path, content=body, headers=headers)
        assert resp.status_code == 415, (method, path, resp.text)
        assert resp.headers["content-type"] == "application/json"
        assert resp.json() == err(415, "HTTP 415 Unsupported Media Type")
    assert "x" not in herder.connectors_by_name
    # A resource that reads no body serves the request.
    assert client.put("/connectors/c/pause", content=b"{}", headers=headers).status_code == 202


def test_a_body_of_a_type_not_consumed_is_415_on_every_method(client: TestClient) -> None:
    for method, path in (("GET", "/connectors/c/config"), ("DELETE", "/connectors/c"), ("PUT", "/connectors/c/pause")):
        resp = client.request(method, path, content=b"x", headers={"Content-Type": "text/plain"})
        assert resp.status_code == 415, (method, path)
        assert "content-type" not in resp.headers
        assert resp.json() == err(415, "HTTP 415 Unsupported Media Type")


@pytest.mark.parametrize("accept", ["text/html", "image/png, text/plain", "garbage"])
def test_a_client_that_takes_no_json_gets_406(client: TestClient, accept: str) -> None:
    for method, path in (("GET", "/connectors"), ("GET", "/connectors/nope"), ("PUT", "/connectors/c/pause")):
        resp = client.request(method, path, headers={"Accept": accept})
        assert resp.status_code == 406, (method, path)
        assert "content-type" not in resp.headers
        assert resp.json() == err(406, "HTTP 406 Not Acceptable")
    assert client.get("/nope", headers={"Accept": accept}).status_code == 404  # routing comes first


@pytest.mark.parametrize("accept", ["", "*/*", "application/*", "text/html, application/json;q=0.1",
                                    "application/json;q=0"])
def test_a_client_that_takes_json_is_served(client: TestClient, accept: str) -> None:
    assert client.get("/connectors", headers={"Accept": accept}).status_code == 200


def test_an_ambiguous_uri_is_400_not_another_path(client: TestClient) -> None:
    for path in ("/connectors//c", "/connectors/c/status//"):
        assert client.get(path).json() == err(400, "Ambiguous URI empty segment"), path
    for path in ("/connectors/%2F", "/connectors/a%2fb/status"):
        assert client.get(path).json() == err(400, "Ambiguous URI path separator"), path


def test_a_content_type_that_is_not_a_media_type_is_400_before_anything_else(client: TestClient) -> None:
    for content_type in ("garbage", "text/", "/json"):
        for method, path in (("POST", "/connectors"), ("GET", "/nope"), ("PUT", "/connectors/c/pause")):
            resp = client.request(method, path, content=b"{}", headers={"Content-Type": content_type})
            assert resp.json() == err(400, "HTTP 400 Bad Request"), (content_type, method, path)
    resp = client.put("/connectors/nope/pause", headers={"Content-Type": "application/json;;"})
    assert resp.status_code == 404  # empty parameters are fine
