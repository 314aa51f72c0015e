"""The differential REST test's harness: the same requests to Apache Kafka Connect and to our worker,
the answers compared after normalising what must differ.

A test module takes the ``rest_diff`` fixture (tests/integration/conftest.py): a :class:`Differential`
on the session's ``java_connect`` worker and the module's ``worker`` of ours (each with its own group
and internal topics, on the same broker; both emptied of connectors first). A test sends requests
with :meth:`Differential.send` (one :class:`Req` to both) and finally calls
:meth:`Differential.assert_same`, which fails with every difference of its requests at once unless it
is in :data:`DELIBERATE_DIVERGENCES`. An entry of that list that no longer differs fails too, so the
list stays true. Labels are unique in the whole suite (prefix them with the module's subject). Several
requests that show one divergence (e.g. every malformed body) name its entry as their ``divergence``;
the entry is stale when none of them differs any more.

What is compared: the status code, the media type of ``Content-Type`` (with its charset, if any), the
headers of :data:`COMPARED_HEADERS` when Java sends them (ours may add one Java omits: ``Allow`` on a
405, which RFC 9110 requires and Jersey drops), and the body: parsed JSON (shape and values, error
messages included) after :func:`normalise`, else the text. What is normalised (it must differ between
two workers): each worker's own URL and ``host:port`` (``<worker>``), ``worker_id`` values, the versions
and commit ids of the runtime and its plugins (``<version>``), stack traces (``<trace>``: Java's and
Python's) and timestamps (``<timestamp>``).
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

import httpx

from connect_runtime.testing import wait_until

# Reasons several entries share.
_INVALID_BODY = ("a body that is missing, empty, not JSON, or not of the endpoint's shape (not an object, a nested "
                 "value, an unknown field, an unknown initial_state, no config) is the client's error: 400 with a "
                 "message saying what is wrong; Java answers 500 with Jackson's parser message or a "
                 "NullPointerException's (or reads no body as null)")
_WRAPPED_BAD_REQUEST = ("Java's validation runs on another thread and a BadRequestException it raises there (no "
                        "connector.class, an unknown connector class) reaches the client as a 500 with the exception's "
                        "class name in front; ours answers the 400 that exception stands for")
_NULL_CONFIG_VALUE = ("a null config value is refused (400) when a config is created or validated: Java stores a JSON "
                      "null, which the connector's config parsing meets only when it starts (PATCH's null still "
                      "removes a key, as on Java)")
_TOPIC_CREATION_UP_FRONT = ("the topic.creation.* groups are validated and shown with the other keys (a bad "
                            "replication factor or partition count is an error at once); Java checks them only when "
                            "the task starts creating topics")
_JAVA_GARBLED_MESSAGE = ("a transform's invalid setting gets one clear error; Java adds its own NullPointerException's "
                         "text as a second error for a missing RegexRouter regex, and puts an exception's text where "
                         "the key's name goes for a bad Cast spec")

DELIBERATE_DIVERGENCES: dict[str, str] = {
    # Each entry: the request's label, and why ours answers differently on purpose; each is also in
    # docs/operations.md, "Differences from Apache Kafka Connect".
    "pause-form": "a request without a body is served whatever its Content-Type says: Java answers 415 "
                  "when a bodiless request is labelled with a non-JSON type, which axios, the usual "
                  "JavaScript HTTP library, does for every PUT and POST",
    "transport-invalid-body": _INVALID_BODY,
    "transport-lone-surrogate": "a string holding an unpaired UTF-16 surrogate cannot be written as UTF-8 (to "
                                "Kafka, or back in a response): refused with 400 when read; Java takes it in",
    "transport-huge-body": "a body larger than rest.request.max.bytes is refused with 413 before it is read, "
                           "so no client can make the worker hold it; Java reads any size",
    "transport-auth-not-base64": "Basic credentials that are not base64 fail authentication like any wrong "
                                 "ones (401); Java answers 500 with its decoder's message",
    "transport-jetty-400": "a request Jetty refuses before Connect sees it (an empty path segment, an encoded "
                           "slash, a Content-Type that is not a media type) gets 400 as on Java, but with "
                           "Connect's JSON error body where Jetty answers an HTML page (or no body)",
    "connectors-create-array": _INVALID_BODY,
    "connectors-create-object-value": _INVALID_BODY,
    "connectors-create-extra-field": _INVALID_BODY,
    "connectors-create-initial-bad": _INVALID_BODY,
    "connectors-create-no-config": _INVALID_BODY,
    "connectors-validate-array": _INVALID_BODY,
    "connectors-put-array": _INVALID_BODY,
    "connectors-validate-no-class": _WRAPPED_BAD_REQUEST,
    "connectors-validate-empty-object": _WRAPPED_BAD_REQUEST,
    "connectors-validate-unknown-plugin": _WRAPPED_BAD_REQUEST,
    "connectors-validate-null-value": _NULL_CONFIG_VALUE,
    "connectors-create-null-value": _NULL_CONFIG_VALUE,
    "connectors-validate-topic-creation": _TOPIC_CREATION_UP_FRONT,
    "connectors-validate-topic-creation-bad": _TOPIC_CREATION_UP_FRONT,
    "connectors-validate-transform-missing-setting": _JAVA_GARBLED_MESSAGE,
    "connectors-validate-transform-bad-setting": _JAVA_GARBLED_MESSAGE,
    "connectors-validate-predicate-bad-pattern": "a regular expression that does not compile is described in the "
                                                 "words of Python's engine, which runs it; Java's describes its own",
    "connectors-validate-client-overrides": "a client override key (producer.override.* ...) is defined as a string "
                                            "setting without documentation: the clients here are librdkafka's, whose "
                                            "settings are not Java's ProducerConfig keys with their types and docs",
    "connectors-validate-tasks-max-above-limit": "tasks.max above the worker's tasks.max.limit (1000 by default) is "
                                                 "an error, so that no request can make a connector size that many "
                                                 "task configs; Java has no limit",
    "connectors-validate-negative-batch-size": "FileStreamSource's batch.size must be at least 1: with 0 or less "
                                               "its task would never read a line while reporting RUNNING; Java's "
                                               "accepts any number",
    "lifecycle-missing-topic-status": "a source task whose topic does not exist (and may not be created) fails "
                                      "at once saying so; Java's task stays RUNNING while its records wait "
                                      "for a topic that will not come",
    "lifecycle-offsets-patch-missing-partition": "an offset without a partition is refused for every connector "
                                                 "(400), not left to the plugin: Java hands it a null partition, "
                                                 "and one that does not check writes a key naming nothing",
    "lifecycle-loggers-put-empty-level": "an empty level is an invalid level like any other: 404 'invalid log "
                                         "level' (Java: 500, log4j throws on the empty name)",
}
"""The differences the suite accepts, by request label (or a request's ``divergence``): each one
deliberate, with its reason."""

#: Response headers compared (lower case) when Java's answer has them.
COMPARED_HEADERS = ("allow", "location")

#: Keys whose values are each worker's own (ids, versions, traces, times): compared as placeholders.
_WORKER_ID_KEYS = frozenset({"worker_id"})
_VERSION_KEYS = frozenset({"version", "commit"})
_TRACE_KEYS = frozenset({"trace"})
_TIMESTAMP_KEYS = frozenset({"last_modified"})


@dataclass(frozen=True)
class Req:
    """One request, sent the same to both workers.

    ``label`` names it in a difference report and in :data:`DELIBERATE_DIVERGENCES` (unique within a
    module). ``body`` is sent as is (bytes or text); ``json_body`` is serialised with ``json.dumps``
    (and ``Content-Type: application/json`` unless ``headers`` say otherwise). ``view`` maps each
    side's parsed JSON body before comparing (e.g. keep only the plugins both workers have).
    ``divergence`` names the entry of :data:`DELIBERATE_DIVERGENCES` a difference of this request
    belongs to (default: its label).
    """

    label: str
    method: str
    path: str
    json_body: Any = None
    body: bytes | str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    view: Callable[[Any], Any] | None = None
    divergence: str | None = None

    @property
    def allowlist_key(self) -> str:
        """The key of :data:`DELIBERATE_DIVERGENCES` that accepts a difference of this request."""
        return self.divergence or self.label


@dataclass
class Answer:
    """One worker's answer, normalised."""

    status: int
    media_type: str | None
    body: Any
    headers: dict[str, str] = field(default_factory=dict)



def explain(java: Answer, ours: Answer, limit: int = 12) -> list[str]:
    """Lines saying how two answers differ: status, media type, then the first ``limit`` JSON paths
    whose values differ (or both bodies, when one is not JSON)."""
    lines = []
    if java.status != ours.status:
        lines.append(f"status: java {java.status}, ours {ours.status}")
    if java.media_type != ours.media_type:
        lines.append(f"Content-Type: java {java.media_type}, ours {ours.media_type}")
    for name, value in java.headers.items():
        if ours.headers.get(name) != value:
            lines.append(f"{name}: java {value!r}, ours {ours.headers.get(name)!r}")
    paths: list[str] = []
    _diff_paths(java.body, ours.body, "$", paths)
    lines += paths[:limit]
    if len(paths) > limit:
        lines.append(f"... and {len(paths) - limit} more")
    return lines


def _diff_paths(java: Any, ours: Any, at: str, out: list[str]) -> None:
    if isinstance(java, dict) and isinstance(ours, dict):
        if list(java) != list(ours) and set(java) == set(ours):
            out.append(f"{at}: keys in another order: java {list(java)}, ours {list(ours)}")
        for key in java.keys() | ours.keys():
            if key not in ours:
                out.append(f"{at}.{key}: only java has it: {_short(java[key])}")
            elif key not in java:
                out.append(f"{at}.{key}: only ours has it: {_short(ours[key])}")
            else:
                _diff_paths(java[key], ours[key], f"{at}.{key}", out)
    elif isinstance(java, list) and isinstance(ours, list) and len(java) == len(ours):
        for i, (j, o) in enumerate(zip(java, ours, strict=True)):
            _diff_paths(j, o, f"{at}[{i}]", out)
    elif java != ours or type(java) is not type(ours):
        out.append(f"{at}: java {_short(java)}, ours {_short(ours)}")


def _short(value: Any, width: int = 300) -> str:
    text = json.dumps(value, sort_keys=True) if not isinstance(value, str) else repr(value)
    return text if len(text) <= width else text[:width] + "..."


def normalise(value: Any, urls: Iterable[str]) -> Any:
    """``value`` (parsed JSON or text) with each worker's own parts replaced by placeholders."""
    hosts = [u.split("://", 1)[-1] for u in urls]
    return _normalise(value, [*urls, *hosts], None)


def _normalise(value: Any, own: list[str], key: str | None) -> Any:
    if isinstance(value, dict):
        return {k: _normalise(v, own, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_normalise(v, own, key) for v in value]
    if value is None:
        return None
    if key in _WORKER_ID_KEYS:
        return "<worker>"
    if key in _VERSION_KEYS and isinstance(value, str):
        return "<version>"
    if key in _TRACE_KEYS:
        return "<trace>"
    if key in _TIMESTAMP_KEYS and isinstance(value, int):
        return "<timestamp>"
    if isinstance(value, str):
        for part in own:
            value = value.replace(part, "<worker>")
    return value


def _media_type(resp: httpx.Response) -> str | None:
    content_type = resp.headers.get("content-type")
    if content_type is None:
        return None
    return re.sub(r"\s*;\s*", ";", content_type.strip().lower())


class Differential:
    """Sends each :class:`Req` to ``java`` and ``ours`` (base URLs) and keeps the differences."""

    def __init__(self, java: str, ours: str, timeout_s: float = 30.0) -> None:
        self.urls = {"java": java.rstrip("/"), "ours": ours.rstrip("/")}
        self.http = {side: httpx.Client(base_url=url, timeout=timeout_s) for side, url in self.urls.items()}
        self.differences: dict[str, str] = {}
        #: The allowlist keys of the requests sent since the last :meth:`assert_same`, and of those
        #: whose answers differed.
        self.keys: set[str] = set()
        self.differing_keys: set[str] = set()
        self.sent: set[str] = set()

    def close(self) -> None:
        """Close both HTTP clients."""
        for client in self.http.values():
            client.close()

    def answer(self, side: str, req: Req) -> Answer:
        """Send ``req`` to one side: its normalised answer."""
        headers = dict(req.headers)
        content: bytes | str | None = req.body
        if req.json_body is not None:
            content = json.dumps(req.json_body)
            headers.setdefault("Content-Type", "application/json")
        try:
            resp = self.http[side].request(req.method, req.path, content=content, headers=headers)
        except httpx.RemoteProtocolError:
            # Jetty closes a kept-alive connection after refusing a request whose body it did not read;
            # the client finds out only on its next request, which a new connection answers.
            resp = self.http[side].request(req.method, req.path, content=content, headers=headers)
        body: Any = resp.text
        if resp.content:
            with contextlib.suppress(ValueError):
                body = resp.json()
        if req.view is not None and not isinstance(body, str):
            body = req.view(body)
        compared = {name: normalise(resp.headers[name], self.urls.values())
                    for name in COMPARED_HEADERS if name in resp.headers}
        return Answer(resp.status_code, _media_type(resp), normalise(body, self.urls.values()), compared)

    def send(self, req: Req) -> tuple[Answer, Answer]:
        """Send ``req`` to Java then to ours; record a difference; both answers."""
        assert req.label not in self.sent, f"two requests are labelled {req.label!r}"
        self.sent.add(req.label)
        self.keys.add(req.allowlist_key)
        java, ours = self.answer("java", req), self.answer("ours", req)
        ours.headers = {name: value for name, value in ours.headers.items() if name in java.headers}
        if java != ours:
            self.differing_keys.add(req.allowlist_key)
            if req.allowlist_key in DELIBERATE_DIVERGENCES:
                return java, ours
            self.differences[req.label] = f"{req.method} {req.path} {dict(req.headers) or ''}\n" + "\n".join(
                f"    {line}" for line in explain(java, ours))
        return java, ours

    def send_all(self, reqs: Iterable[Req]) -> None:
        """:meth:`send` each request in turn."""
        for req in reqs:
            self.send(req)

    def both(self, method: str, path: str, expect: int, **kwargs: Any) -> None:
        """Set-up on both sides, not compared: ``method path`` must answer ``expect`` on each."""
        for side, client in self.http.items():
            resp = client.request(method, path, **kwargs)
            assert resp.status_code == expect, f"{side}: {method} {path}: {resp.status_code} {resp.text}"

    def wait_both(self, condition: Callable[[httpx.Client], bool], message: str, timeout_s: float = 60.0) -> None:
        """Wait until ``condition(client)`` holds on both sides."""
        for side, client in self.http.items():
            wait_until(lambda client=client: condition(client), timeout_s, message=f"{side}: {message}")

    def assert_same(self) -> None:
        """Fail with every difference not in :data:`DELIBERATE_DIVERGENCES`, and with every entry of it
        that no longer differs, among the requests sent since the last call."""
        unexpected = self.differences
        stale = sorted(k for k in DELIBERATE_DIVERGENCES if k in self.keys and k not in self.differing_keys)
        self.differences, self.keys, self.differing_keys = {}, set(), set()
        problems = [f"{label}: {text}" for label, text in sorted(unexpected.items())]
        problems += [f"{label}: listed in DELIBERATE_DIVERGENCES but answered the same" for label in stale]
        assert not problems, f"{len(problems)} difference(s) from Apache Kafka Connect:\n" + "\n".join(problems)


def delete_all_connectors(client: httpx.Client, timeout_s: float = 60.0) -> None:
    """Delete every connector of the worker at ``client`` and wait until its list is empty (a module
    starts from an empty cluster on both sides, whatever earlier modules left on the session's Java
    worker)."""
    names = client.get("/connectors").json()
    for name in names:
        client.delete(f"/connectors/{quote(name, safe='')}")
    wait_until(lambda: client.get("/connectors").json() == [], timeout_s, message="no connectors")
