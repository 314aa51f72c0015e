"""The HTTP layer of our REST API against Apache Kafka Connect's (harness: rest_differential.py), generated
over the table of public endpoints: the verbs each does not serve, HEAD and OPTIONS, trailing slashes
and ambiguous URIs, unknown paths, every body-taking endpoint under each Content-Type with and without
a body, malformed and hostile bodies, odd query parameters and Accept headers.

Requests that would change something ask for what fails before any change (an unknown connector, a
config whose name disagrees with the path, an invalid log level), so the module's connector stays as
it was and every request can go to both workers in any order.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from rest_differential import Differential, Req

from connect_runtime.testing.pytest_plugin import new_topic

pytestmark = [pytest.mark.kafka, pytest.mark.connect_worker(eos="enabled")]

C = "transport-c"
"""The module's connector (a FileStreamSource with one task) on both workers."""

#: Java's public resources (ConnectorsResource, ConnectorPluginsResource, LoggingResource, RootResource)
#: and the internal ones sharing their paths (InternalClusterResource: POST tasks, PUT fence), each
#: path with the methods served there, on a connector and task that exist.
ENDPOINTS: dict[str, tuple[str, ...]] = {
    "/": ("GET",),
    "/health": ("GET",),
    "/connectors": ("GET", "POST"),
    f"/connectors/{C}": ("GET", "DELETE"),
    f"/connectors/{C}/config": ("GET", "PUT", "PATCH"),
    f"/connectors/{C}/status": ("GET",),
    f"/connectors/{C}/topics": ("GET",),
    f"/connectors/{C}/topics/reset": ("PUT",),
    f"/connectors/{C}/restart": ("POST",),
    f"/connectors/{C}/stop": ("PUT",),
    f"/connectors/{C}/pause": ("PUT",),
    f"/connectors/{C}/resume": ("PUT",),
    f"/connectors/{C}/tasks": ("GET", "POST"),
    f"/connectors/{C}/tasks/0/status": ("GET",),
    f"/connectors/{C}/tasks/0/restart": ("POST",),
    f"/connectors/{C}/offsets": ("GET", "PATCH", "DELETE"),
    f"/connectors/{C}/fence": ("PUT",),
    "/connector-plugins": ("GET",),
    "/connector-plugins/FileStreamSource/config": ("GET",),
    "/connector-plugins/FileStreamSource/config/validate": ("PUT",),
    "/admin/loggers": ("GET",),
    "/admin/loggers/root": ("GET", "PUT"),
}
VERBS = ("GET", "POST", "PUT", "PATCH", "DELETE")

#: The body-taking endpoints, each with a body that fails before anything changes.
BODY_ENDPOINTS: dict[str, tuple[str, str, Any]] = {
    "create": ("POST", "/connectors", {"name": C, "config": {"connector.class": "FileStreamSource", "topic": "t"}}),
    "put-config": ("PUT", f"/connectors/{C}/config", {"name": "another"}),
    "patch-config": ("PATCH", "/connectors/transport-nope/config", {"tasks.max": "1"}),
    "validate": ("PUT", "/connector-plugins/FileStreamSource/config/validate", {"connector.class": "FileStreamSink"}),
    "alter-offsets": ("PATCH", "/connectors/transport-nope/offsets",
                      {"offsets": [{"partition": {"filename": "f"}, "offset": {"position": 1}}]}),
    "logger": ("PUT", "/admin/loggers/transport.x", {"level": "NOPE"}),
}
#: Endpoints that read no body, sent one anyway.
BODILESS_ENDPOINTS: dict[str, tuple[str, str]] = {
    "reset-topics": ("PUT", "/connectors/transport-nope/topics/reset"),
    "reset-offsets": ("DELETE", "/connectors/transport-nope/offsets"),
    "task-restart": ("POST", f"/connectors/{C}/tasks/x/restart"),
}
CONTENT_TYPES: dict[str, str | None] = {
    "none": None, "json": "application/json", "json-utf8": "application/json; charset=UTF-8",
    "form": "application/x-www-form-urlencoded", "text": "text/plain", "xml": "application/xml", "any": "*/*",
}
#: Bodies that are not JSON, or not a JSON object: 400 here, 500 on Java (Jackson's or a null's message).
NOT_AN_OBJECT: dict[str, bytes] = {
    "truncated": b'{"level": "INFO"', "trailing-garbage": b'{"level": "INFO"} x', "single-quotes": b"{'level': 'INFO'}",
    "empty": b"", "blank": b"  \n", "null": b"null", "array": b'["INFO"]', "string": b'"INFO"', "number": b"5",
    "nested-10000": b"[" * 10_000 + b"]" * 10_000, "invalid-utf8": b'{"level": "\xff\xfe"}', "nan": b'{"level": NaN}',
    "comment": b'{"level": "INFO" /* why */}',
}
#: Objects of the wrong shape for a string map: 400 here, 500 on Java.
WRONG_SHAPE: dict[str, bytes] = {
    "value-array": b'{"level": ["INFO"]}', "value-object": b'{"level": {"name": "INFO"}}',
    "nested-100": b'{"level": "INFO", "x": ' + b"[" * 100 + b"]" * 100 + b"}",
}
#: Bodies both read the same way: a leading byte order mark is skipped, a number read as its text.
SAME_READING: dict[str, bytes] = {"byte-order-mark": b'\xef\xbb\xbf{"level": "NOPE"}', "value-number": b'{"level": 5}'}


@pytest.fixture(scope="module", autouse=True)
def connector(rest_diff: Differential, kafka_bootstrap: str,
              tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """``C`` on both workers, its task running (so that ``/tasks/0`` paths resolve)."""
    source = tmp_path_factory.mktemp("transport") / "lines.txt"
    source.write_text("a\nb\n")
    config = {"connector.class": "FileStreamSource", "tasks.max": "1", "file": str(source),
              "topic": new_topic(kafka_bootstrap)}
    rest_diff.both("PUT", f"/connectors/{C}/config", 201, json=config)
    rest_diff.wait_both(lambda c: c.get(f"/connectors/{C}/status").json().get("tasks", [{}])[0].get("state")
                        == "RUNNING", "the transport connector's task to run")
    yield
    rest_diff.both("DELETE", f"/connectors/{C}", 204)


def test_verbs_not_served_head_options_and_unknown_paths(rest_diff: Differential) -> None:
    for path, served in ENDPOINTS.items():
        rest_diff.send_all(Req(f"transport-{verb}-{path}", verb, path) for verb in VERBS if verb not in served)
        rest_diff.send(Req(f"transport-HEAD-{path}", "HEAD", path))
        rest_diff.send(Req(f"transport-OPTIONS-{path}", "OPTIONS", path))
    for accept in ("application/json", "text/*", "application/json, text/plain;q=0.5", "text/html;q=0.9"):
        rest_diff.send(Req(f"transport-OPTIONS-accept-{accept}", "OPTIONS", "/connectors", headers={"Accept": accept}))
    for verb, path in (("GET", "/nope"), ("POST", "/nope"), ("HEAD", "/nope"), ("OPTIONS", "/nope"),
                       ("GET", f"/connectors/{C}/nope"), ("GET", f"/connectors/{C}/tasks/0"),
                       ("GET", f"/connectors/{C}/tasks/0/nope"), ("OPTIONS", "/connectors/transport-nope/config"),
                       ("HEAD", "/connectors/transport-nope"), ("HEAD", f"/connectors/{C}/tasks/x/status")):
        rest_diff.send(Req(f"transport-unknown-{verb}-{path}", verb, path))
    rest_diff.assert_same()


def _plugin_view(body: list[dict[str, str]]) -> list[dict[str, str]]:
    # Plugin class names are Python's here: compare the FileStreamSource entry both have, by its alias.
    return [{k: v for k, v in p.items() if k != "class"} for p in body
            if p["class"].endswith(".FileStreamSourceConnector")]


def _task_configs_view(body: list[dict[str, Any]]) -> list[dict[str, Any]]:
    # task.class is the plugin's class name, Python's here.
    return [{**t, "config": {k: v for k, v in t["config"].items() if k != "task.class"}} for t in body]


def _plugin_kinds(body: list[dict[str, str]]) -> list[str]:
    # Whether converters, transforms... are listed too; the installed plugins differ (ours has no sink).
    return sorted({p["type"] for p in body} - {"sink"})


def test_trailing_slashes_and_ambiguous_uris(rest_diff: Differential) -> None:
    views = {"/connector-plugins": _plugin_view, f"/connectors/{C}/tasks": _task_configs_view,
             "/admin/loggers": lambda body: body.get("root"),  # the two runtimes' own loggers differ
             # What a plugin's config keys say is compared where plugins are; here only that they answer.
             "/connector-plugins/FileStreamSource/config": lambda body: isinstance(body, list) and len(body) > 5}
    for path, served in ENDPOINTS.items():
        if "GET" in served and path != "/":
            rest_diff.send(Req(f"transport-slash-{path}", "GET", path + "/", view=views.get(path)))
            rest_diff.send(Req(f"transport-slashes-{path}", "GET", path + "//", divergence="transport-jetty-400"))
    for label, (method, path, body) in BODY_ENDPOINTS.items():
        rest_diff.send(Req(f"transport-slash-{label}", method, path + "/", json_body=body))
    for label, (method, path) in BODILESS_ENDPOINTS.items():
        rest_diff.send(Req(f"transport-slash-{label}", method, path + "/"))
    for path in ("/connectors//transport-c", f"/connectors/{C}%2Fx", f"/connectors/{C}%2fx/status", "/connectors/%2F"):
        rest_diff.send(Req(f"transport-ambiguous-{path}", "GET", path, divergence="transport-jetty-400"))
    rest_diff.assert_same()


def _bodiless_divergence(endpoint: str, content_type: str | None) -> str | None:
    """The allowlist entry of a request without a body to ``endpoint``, labelled ``content_type``."""
    reads_body = endpoint in BODY_ENDPOINTS
    if content_type is None or content_type.startswith("application/json"):
        # Java reads no body as null: a NullPointerException's 500 (or the herder's 404).
        return "transport-invalid-body" if reads_body else None
    # Java refuses a type it does not consume, and */* where it would need a reader.
    return "pause-form" if reads_body or content_type != "*/*" else None


def test_content_types_with_and_without_a_body(rest_diff: Differential) -> None:
    targets = {**BODY_ENDPOINTS, **{k: (m, p, {}) for k, (m, p) in BODILESS_ENDPOINTS.items()}}
    for label, (method, path, body) in targets.items():
        for ct_label, content_type in CONTENT_TYPES.items():
            headers = {"Content-Type": content_type} if content_type else {}
            rest_diff.send(Req(f"transport-ct-{label}-{ct_label}-body", method, path, body=json.dumps(body),
                               headers=headers))
            rest_diff.send(Req(f"transport-ct-{label}-{ct_label}-nobody", method, path, headers=headers,
                               divergence=_bodiless_divergence(label, content_type)))
    for method, path in (("POST", "/connectors"), ("PUT", "/connectors/transport-nope/pause"), ("GET", "/nope")):
        for label, content_type in (("garbage", "garbage"), ("no-subtype", "text/")):
            rest_diff.send(Req(f"transport-ct-{method}-{path}-{label}", method, path, body="{}",
                               headers={"Content-Type": content_type}, divergence="transport-jetty-400"))
    rest_diff.send(Req("transport-ct-empty-parameters", "PUT", "/connectors/transport-nope/topics/reset",
                       headers={"Content-Type": "application/json;;"}))
    # Jersey checks @Consumes on every method, GET and DELETE included.
    for method, path in (("GET", f"/connectors/{C}/config"), ("DELETE", "/connectors/transport-nope")):
        rest_diff.send(Req(f"transport-ct-{method}-text-body", method, path, body="x",
                           headers={"Content-Type": "text/plain"}))
        rest_diff.send(Req(f"transport-ct-{method}-text-nobody", method, path, headers={"Content-Type": "text/plain"},
                           divergence="pause-form"))
    rest_diff.assert_same()


def test_malformed_hostile_and_huge_bodies(rest_diff: Differential) -> None:
    json_header = {"Content-Type": "application/json"}
    for endpoint in ("logger", "put-config", "validate"):
        method, path, _ = BODY_ENDPOINTS[endpoint]
        rest_diff.send_all(Req(f"transport-bad-{endpoint}-{label}", method, path, body=body, headers=json_header,
                               divergence="transport-invalid-body") for label, body in NOT_AN_OBJECT.items())
    method, path, _ = BODY_ENDPOINTS["logger"]
    rest_diff.send_all(Req(f"transport-bad-logger-{label}", method, path, body=body, headers=json_header,
                           divergence="transport-invalid-body") for label, body in WRONG_SHAPE.items())
    rest_diff.send_all(Req(f"transport-read-logger-{label}", method, path, body=body, headers=json_header)
                       for label, body in SAME_READING.items())
    rest_diff.send(Req("transport-lone-surrogate", method, path, body=b'{"level": "\\ud800"}', headers=json_header))
    huge = json.dumps({"level": "NOPE", "padding": "x" * (10 * 1024 * 1024)})
    rest_diff.send(Req("transport-huge-body", method, path, body=huge, headers=json_header))
    rest_diff.assert_same()


def test_query_parameters_and_accept_headers(rest_diff: Differential) -> None:
    rest_diff.send_all([
        Req("transport-query-unknown", "GET", "/connectors?nope=1"),
        Req("transport-query-expand-unknown", "GET", "/connectors?expand=nope"),
        Req("transport-query-expand-empty", "GET", "/connectors?expand="),
        Req("transport-query-expand-bare", "GET", "/connectors?expand"),
        Req("transport-query-expand-upper", "GET", "/connectors?expand=STATUS"),
        Req("transport-query-expand-comma", "GET", "/connectors?expand=status,info"),
        Req("transport-query-connectors-only-maybe", "GET", "/connector-plugins?connectorsOnly=maybe",
            view=_plugin_kinds),
        Req("transport-query-connectors-only-upper", "GET", "/connector-plugins?connectorsOnly=FALSE",
            view=_plugin_kinds),
        Req("transport-query-forward-odd", "GET", f"/connectors/{C}/status?forward=maybe"),
        Req("transport-query-unknown-on-put", "PUT", "/connectors/transport-nope/topics/reset?x=1"),
        Req("transport-query-include-tasks-notabool", "POST", f"/connectors/{C}/restart?includeTasks=notabool"),
        Req("transport-query-only-failed-maybe", "POST", f"/connectors/{C}/restart?onlyFailed=maybe"),
    ])
    for label, accept in (("html", "text/html"), ("png-text", "image/png, text/plain"), ("garbage", "garbage"),
                          ("empty", ""), ("json-q0", "application/json;q=0"), ("app-any", "application/*"),
                          ("browser", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8")):
        rest_diff.send(Req(f"transport-accept-{label}", "GET", "/connectors", headers={"Accept": accept}))
        rest_diff.send(Req(f"transport-accept-{label}-unknown", "GET", "/connectors/transport-nope",
                           headers={"Accept": accept}))
    rest_diff.send(Req("transport-accept-html-unknown-path", "GET", "/nope", headers={"Accept": "text/html"}))
    rest_diff.assert_same()
