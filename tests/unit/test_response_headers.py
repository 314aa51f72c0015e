"""``response.http.headers.config`` without a broker: the rule grammar (Java's RestServerConfig and Jetty's
HeaderFilter), the worker's start-up refusal, and the headers on an app over the fake herder."""

from __future__ import annotations

import re
from email.utils import parsedate_to_datetime
from time import time

import httpx
import pytest
from fake_herder import FakeHerder
from fastapi.testclient import TestClient
from worker_stubs import MINIMAL_WORKER

from connect_runtime.composition import compose_worker, rest_server_factory
from connect_runtime.config.response_headers import (
    HeaderAction,
    ResponseHeaderConfigError,
    ResponseHeaderRule,
    csv_split,
    parse_response_headers,
)
from connect_runtime.config.worker_config import WorkerConfig, WorkerConfigError
from rest.app import create_app
from rest.extensions import ServiceWithExtensions
from rest.response_headers import http_date, replaced_server_headers
from rest.server import RestServer, RestServers

# --- the grammar ------------------------------------------------------------------------------------


def test_csv_split_as_jetty() -> None:
    assert csv_split(' set A: 1 ,"add B: x, y" , setDate C: 5') == ["set A: 1", "add B: x, y", "setDate C: 5"]
    assert csv_split('"a \\" b" trailing, c,') == ['a " b', "c"]  # escape; text after the quotes dropped
    assert csv_split("a,,b") == ["a", "", "b"]
    assert csv_split("") == []


def test_valid_rules() -> None:
    rules = parse_response_headers(
        'set X-Frame-Options: DENY, "add Cache-Control: no-cache, no-store, must-revalidate", '
        "setDate Expires: 31540000000, addDate Last-Modified: -1000")
    assert rules == (
        ResponseHeaderRule(HeaderAction.SET, "X-Frame-Options", "DENY"),
        ResponseHeaderRule(HeaderAction.ADD, "Cache-Control", "no-cache, no-store, must-revalidate"),
        ResponseHeaderRule(HeaderAction.SET_DATE, "Expires", "31540000000", 31540000000),
        ResponseHeaderRule(HeaderAction.ADD_DATE, "Last-Modified", "-1000", -1000),
    )
    assert parse_response_headers("  ") == ()


# Java's RestServerConfigTest's valid configs: any whitespace, any case.
@pytest.mark.parametrize("config", [
    "add \t Cache-Control: no-cache, no-store, must-revalidate",
    "\n add Strict-Transport-Security: max-age=31536000; includeSubDomains",
    "AdD \t Strict-Transport-Security : \n   max-age=31536000;  includeSubDomains",
    "Set \t X-Frame-Options: \t Deny\n ",
    "seTDate \t Expires: \r 31540000000",
    "adDdate \n Last-Modified: \t 0",
])
def test_java_valid_configs(config: str) -> None:
    (rule,) = parse_response_headers(f'"{config}"')
    assert rule.action.value.lower() == config.split()[0].lower()


@pytest.mark.parametrize(("config", "message"), [
    ("set \t", "Invalid format of header config 'set'. Expected: '[action] [header name]:[header value]'"),
    ("addX-XSS-Protection", "Invalid format of header config 'addX-XSS-Protection'. "
                            "Expected: '[action] [header name]:[header value]'"),
    ("badaction \t X-Frame-Options:DENY",
     "Invalid header config action: 'badaction'. Expected one of [set, add, setDate, addDate]"),
    ("set add X-XSS-Protection:1", "Invalid header name 'add X-XSS-Protection'. "
                                   "The '[header name]' cannot contain whitespace"),
    ("add X-XSS-Protection", "Invalid format of header name and header value pair 'X-XSS-Protection'. "
                             "Expected: '[header name]:[header value]'"),
    ("add X-XSS-Protection:1 X-XSS-Protection:1 ",
     "Invalid format of header name and header value pair 'X-XSS-Protection:1 X-XSS-Protection:1'. "
     "Expected: '[header name]:[header value]'"),
    ("set X-Frame-Options:DENY, add  :no-cache, no-store, must-revalidate ",
     "Invalid header name ''. The '[header name]' cannot contain whitespace"),
    # Where Jetty would fail at start-up or send a broken header.
    ("setDate Expires: soon", "Invalid header value 'soon' of header config 'setDate Expires: soon'. "
                              "The '[header value]' of setDate must be a number of milliseconds"),
    ("set X(1): y", "Invalid header name 'X(1)'. The '[header name]' must be an HTTP token"),
    ("set X-A: caf\u00e9", "Invalid header value 'caf\u00e9' of header config 'set X-A: caf\u00e9'. "
                           "The '[header value]' must be printable ASCII"),
])
def test_java_error_messages(config: str, message: str) -> None:
    with pytest.raises(ResponseHeaderConfigError) as e:
        parse_response_headers(config)
    assert str(e.value).startswith(message)


def test_a_bad_rule_refuses_start_up_naming_the_key() -> None:
    with pytest.raises(WorkerConfigError) as e:
        WorkerConfig.from_properties({**MINIMAL_WORKER, "response.http.headers.config": "set X-A: 1, badaction X-B: 2"})
    assert e.value.key == "response.http.headers.config"
    assert str(e.value) == (
        'Invalid value "set X-A: 1, badaction X-B: 2" for configuration response.http.headers.config: '
        "Invalid header config action: 'badaction'. Expected one of [set, add, setDate, addDate]")
    assert "\n" not in str(e.value)


def test_worker_setting_default_and_rules() -> None:
    assert WorkerConfig.from_properties(MINIMAL_WORKER).response_header_rules == ()
    config = WorkerConfig.from_properties({**MINIMAL_WORKER, "response.http.headers.config": "add X-A: 1"})
    assert config.response_http_headers_config == "add X-A: 1"
    assert config.response_header_rules == (ResponseHeaderRule(HeaderAction.ADD, "X-A", "1"),)


# --- on responses -----------------------------------------------------------------------------------


def _client(config: str) -> TestClient:
    return TestClient(create_app(FakeHerder(), response_headers=parse_response_headers(config)))


_RULES = ('set X-Frame-Options: DENY, "add Cache-Control: no-cache, no-store", setDate Expires: 3600000, '
          "set Content-Type: text/plain")


@pytest.mark.parametrize(("method", "path", "status"), [
    ("GET", "/", 200),
    ("GET", "/connectors", 200),
    ("GET", "/no-such-path", 404),
    ("GET", "/connectors/missing", 404),
    ("DELETE", "/", 405),
    ("POST", "/connectors", 400),
])
def test_headers_on_answers_and_errors(method: str, path: str, status: int) -> None:
    before = time()
    r = _client(_RULES).request(method, path, content=b"{not json" if method == "POST" else None,
                                headers={"Content-Type": "application/json"} if method == "POST" else None)
    assert r.status_code == status
    assert r.headers["x-frame-options"] == "DENY"
    assert r.headers.get_list("cache-control") == ["no-cache, no-store"]
    expires = parsedate_to_datetime(r.headers["expires"]).timestamp()
    assert before + 3600 - 1 <= expires <= time() + 3600 + 1
    assert re.fullmatch(r"\w{3}, \d\d \w{3} \d{4} \d\d:\d\d:\d\d GMT", r.headers["expires"])
    # A set header never replaces one the application sets (Jetty's filter runs before the resource);
    # a routing error (unknown path, method not served) has no Content-Type of its own, as on Java.
    routing_error = path == "/no-such-path" or status == 405
    assert r.headers.get_list("content-type") == ["text/plain" if routing_error else "application/json"]


def test_headers_on_an_internal_error() -> None:
    herder = FakeHerder()

    def broken() -> None:
        raise RuntimeError("broken")

    herder.connectors = broken  # type: ignore[method-assign,assignment]
    app = create_app(herder, response_headers=parse_response_headers("set X-A: 1"))
    r = TestClient(app, raise_server_exceptions=False).get("/connectors")
    assert r.status_code == 500 and r.headers["x-a"] == "1"


def test_add_keeps_the_applications_header_and_later_set_replaces_earlier_rules() -> None:
    r = _client("add Content-Type: text/x-extra, set X-A: 1, add X-A: 2, set X-B: 1, set X-B: 2").get("/")
    assert r.headers.get_list("content-type") == ["application/json", "text/x-extra"]
    assert r.headers.get_list("x-a") == ["1", "2"]
    assert r.headers.get_list("x-b") == ["2"]


def test_no_rules_no_headers() -> None:
    r = TestClient(create_app(FakeHerder())).get("/")
    assert "x-frame-options" not in r.headers and "expires" not in r.headers


def test_http_date_format_and_bounds() -> None:
    assert http_date(0) == "Thu, 01 Jan 1970 00:00:00 GMT"
    assert http_date(784111777000) == "Sun, 06 Nov 1994 08:49:37 GMT"
    assert http_date(2**63 - 1).endswith(" 9999 23:59:59 GMT")


@pytest.mark.parametrize(("admin_listeners", "admin_has_headers"), [(None, True), ("http://127.0.0.1:18084", False)])
def test_worker_applies_them_to_the_regular_listeners_only(admin_listeners: str | None,
                                                           admin_has_headers: bool) -> None:
    """As Java (the filter is on the regular context): ``/admin/*`` gets the headers where the regular
    listeners serve it, not on ``admin.listeners``."""
    props = {**MINIMAL_WORKER, "listeners": "http://127.0.0.1:18083",
             "response.http.headers.config": "set X-A: 1, set Server: connect"}
    if admin_listeners is not None:
        props["admin.listeners"] = admin_listeners
    herder = FakeHerder()
    herder.plugins = None  # type: ignore[attr-defined]  # no extensions configured: never consulted
    service = rest_server_factory(compose_worker(props))(herder)  # type: ignore[arg-type]
    assert isinstance(service, ServiceWithExtensions) and isinstance(service.server, RestServers)
    apps = [server._app for server in service.server.servers]  # built, never started
    assert service.server.servers[0]._replaced_headers == {"server"}
    assert service.server.servers[-1]._replaced_headers == ({"server"} if admin_has_headers else set())
    regular = TestClient(apps[0])
    assert regular.get("/").headers["x-a"] == "1"
    admin = TestClient(apps[-1]).get("/admin/loggers")
    assert admin.status_code == 200
    assert ("x-a" in admin.headers) is admin_has_headers


def test_set_rules_replace_the_http_servers_own_date_and_server_headers() -> None:
    rules = parse_response_headers("set Server: connect, setDate Date: 0, add X-A: 1")
    assert replaced_server_headers(rules) == {"server", "date"}
    assert replaced_server_headers(parse_response_headers("add Server: x, set X-A: 1")) == set()
    with RestServer(create_app(FakeHerder(), response_headers=rules), "127.0.0.1", 0,
                    replaced_headers=replaced_server_headers(rules)) as server:
        r = httpx.get(f"{server.url}/", timeout=5)
    assert r.headers.get_list("server") == ["connect"]
    (date,) = r.headers.get_list("date")
    assert abs(parsedate_to_datetime(date).timestamp() - time()) < 5
    assert r.headers["x-a"] == "1"
    # Without such rules the server sends its own.
    with RestServer(create_app(FakeHerder()), "127.0.0.1", 0) as server:
        r = httpx.get(f"{server.url}/", timeout=5)
    assert len(r.headers.get_list("server")) == 1 and len(r.headers.get_list("date")) == 1
