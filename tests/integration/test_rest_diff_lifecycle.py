"""Connector lifecycle, status, offsets, topics and loggers against Apache Kafka Connect's REST API,
request by request (harness: rest_differential.py).

Both workers run the same ``FileStreamSource`` connectors (each on a topic of its own that exists, so
that Java's tasks run), are driven through pause, resume, stop and restarts, and are asked the same
questions once both have settled (:meth:`Differential.wait_both`, :func:`settle`); the answers must be
the same but for the deliberate divergences in ``rest_differential.DELIBERATE_DIVERGENCES``.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from rest_differential import Differential, Req

from connect_runtime.testing import wait_until
from connect_runtime.testing.pytest_plugin import new_topic, unique_topic_name

pytestmark = [pytest.mark.kafka, pytest.mark.connect_worker(eos="enabled")]

#: The allowlist entry of bodies of the wrong shape (400 on ours, Java's 500).
INVALID_BODY = "transport-invalid-body"

LINES = "a\nb\nc\n"
#: The FileStreamSource offset after reading :data:`LINES` (a byte position).
END_POSITION = len(LINES.encode())


@pytest.fixture(scope="module")
def source_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("lifecycle") / "lines.txt"
    path.write_text(LINES)
    return path


def file_source(file: Path | str, topic: str) -> dict[str, str]:
    return {"connector.class": "FileStreamSource", "tasks.max": "1", "file": str(file), "topic": topic}


def fresh_name(kind: str) -> str:
    return f"lifecycle-{kind}-{uuid.uuid4().hex[:6]}"


def create(rest_diff: Differential, name: str, config: dict[str, str]) -> None:
    rest_diff.both("POST", "/connectors", 201, json={"name": name, "config": config})


def status_is(name: str, connector: str, tasks: list[str]) -> Callable[[httpx.Client], bool]:
    """The condition: connector ``name`` is ``connector`` and its tasks are in ``tasks`` states."""

    def check(client: httpx.Client) -> bool:
        resp = client.get(f"/connectors/{name}/status")
        if resp.status_code != 200:
            return False
        body = resp.json()
        return body["connector"]["state"] == connector and [t["state"] for t in body["tasks"]] == tasks

    return check


def settle(rest_diff: Differential, name: str, connector: str, tasks: list[str], hold_s: float = 2.0) -> None:
    """Wait until both workers have shown the states of :func:`status_is` for ``hold_s`` (polled on
    both at once): restarts just answered may not have begun, and what a restart answers next depends
    on the status it starts from."""
    since: dict[str, float] = {}

    def holds(side: str, client: httpx.Client) -> bool:
        if not status_is(name, connector, tasks)(client):
            since.pop(side, None)
            return False
        return time.monotonic() - since.setdefault(side, time.monotonic()) >= hold_s

    wait_until(lambda: all([holds(side, client) for side, client in rest_diff.http.items()]), 60,
               message=f"{name}: {connector} {tasks} on both workers")


def settled_restart(body: Any) -> Any:
    """A restart's answer without the trace and version of what it shows RESTARTING: both are copied
    from the status at that moment, which the restarts sent just before are still changing on each
    worker (the first restart of each state compares them in full)."""
    if not isinstance(body, dict) or "connector" not in body:
        return body

    def strip(entry: dict[str, Any]) -> dict[str, Any]:
        if entry.get("state") != "RESTARTING":
            return entry
        return {k: v for k, v in entry.items() if k not in ("trace", "version")}

    return {**body, "connector": strip(body["connector"]), "tasks": [strip(t) for t in body["tasks"]]}


def offsets_are(name: str, expected: list[dict[str, Any]]) -> Callable[[httpx.Client], bool]:
    """The condition: connector ``name``'s committed offsets are ``expected``."""

    def check(client: httpx.Client) -> bool:
        resp = client.get(f"/connectors/{name}/offsets")
        return resp.status_code == 200 and resp.json() == {"offsets": expected}

    return check


def test_status_and_tasks(rest_diff: Differential, source_file: Path, kafka_bootstrap: str) -> None:
    name = fresh_name("status")
    topic = new_topic(kafka_bootstrap, unique_topic_name("lifecycle"))
    create(rest_diff, name, file_source(source_file, topic))
    rest_diff.wait_both(status_is(name, "RUNNING", ["RUNNING"]), "task running")
    rest_diff.send_all([
        Req("lifecycle-root", "GET", "/"),
        Req("lifecycle-health", "GET", "/health"),
        Req("lifecycle-status", "GET", f"/connectors/{name}/status"),
        Req("lifecycle-status-unknown", "GET", "/connectors/lifecycle-nope/status"),
        Req("lifecycle-task-status", "GET", f"/connectors/{name}/tasks/0/status"),
        Req("lifecycle-task-status-unknown-task", "GET", f"/connectors/{name}/tasks/7/status"),
        Req("lifecycle-task-status-nonnumeric", "GET", f"/connectors/{name}/tasks/zero/status"),
        Req("lifecycle-task-status-negative", "GET", f"/connectors/{name}/tasks/-1/status"),
        Req("lifecycle-task-status-beyond-int", "GET", f"/connectors/{name}/tasks/2147483648/status"),
        Req("lifecycle-task-status-unknown-connector", "GET", "/connectors/lifecycle-nope/tasks/0/status"),
        Req("lifecycle-task-restart", "POST", f"/connectors/{name}/tasks/0/restart"),
        Req("lifecycle-task-restart-unknown-task", "POST", f"/connectors/{name}/tasks/7/restart"),
        Req("lifecycle-task-restart-unknown-connector", "POST", "/connectors/lifecycle-nope/tasks/0/restart"),
    ])
    rest_diff.wait_both(status_is(name, "RUNNING", ["RUNNING"]), "task running again")
    expected = [{"partition": {"filename": str(source_file)}, "offset": {"position": END_POSITION}}]
    rest_diff.wait_both(offsets_are(name, expected), "offsets committed")
    rest_diff.wait_both(lambda c: c.get(f"/connectors/{name}/topics").json()[name]["topics"] == [topic],
                        "topic tracked")
    rest_diff.send_all([
        Req("lifecycle-topics", "GET", f"/connectors/{name}/topics"),
        Req("lifecycle-topics-unknown", "GET", "/connectors/lifecycle-nope/topics"),
        Req("lifecycle-topics-reset-running", "PUT", f"/connectors/{name}/topics/reset"),
        Req("lifecycle-topics-reset-unknown", "PUT", "/connectors/lifecycle-nope/topics/reset"),
        Req("lifecycle-offsets-running", "GET", f"/connectors/{name}/offsets"),
        Req("lifecycle-offsets-unknown", "GET", "/connectors/lifecycle-nope/offsets"),
        Req("lifecycle-offsets-patch-running", "PATCH", f"/connectors/{name}/offsets",
            json_body={"offsets": [{"partition": {"filename": str(source_file)}, "offset": {"position": 2}}]}),
        Req("lifecycle-offsets-delete-running", "DELETE", f"/connectors/{name}/offsets"),
        Req("lifecycle-offsets-patch-unknown", "PATCH", "/connectors/lifecycle-nope/offsets",
            json_body={"offsets": [{"partition": {"filename": str(source_file)}, "offset": {"position": 2}}]}),
        Req("lifecycle-offsets-delete-unknown", "DELETE", "/connectors/lifecycle-nope/offsets"),
    ])
    # Java forgets the topics once it has read back the tombstones it wrote: a moment later.
    rest_diff.wait_both(lambda c: c.get(f"/connectors/{name}/topics").json()[name]["topics"] == [],
                        "active topics reset")
    rest_diff.send(Req("lifecycle-topics-after-reset", "GET", f"/connectors/{name}/topics"))
    rest_diff.assert_same()


def transition(verb: str, name: str) -> list[Req]:
    """``PUT /connectors/{name}/{verb}`` twice (the second changes nothing) and on an unknown connector."""
    return [Req(f"lifecycle-{verb}", "PUT", f"/connectors/{name}/{verb}"),
            Req(f"lifecycle-{verb}-again", "PUT", f"/connectors/{name}/{verb}"),
            Req(f"lifecycle-{verb}-unknown", "PUT", f"/connectors/lifecycle-nope/{verb}")]


def test_pause_resume_stop(rest_diff: Differential, source_file: Path, kafka_bootstrap: str) -> None:
    name = fresh_name("states")
    topic = new_topic(kafka_bootstrap, unique_topic_name("lifecycle"))
    create(rest_diff, name, file_source(source_file, topic))
    rest_diff.wait_both(status_is(name, "RUNNING", ["RUNNING"]), "task running")
    rest_diff.send_all(transition("pause", name))
    rest_diff.wait_both(status_is(name, "PAUSED", ["PAUSED"]), "paused")
    rest_diff.send_all([
        Req("lifecycle-status-paused", "GET", f"/connectors/{name}/status"),
        *restarts("paused", name),
    ])
    settle(rest_diff, name, "PAUSED", ["PAUSED"])
    rest_diff.send_all(transition("resume", name))
    rest_diff.wait_both(status_is(name, "RUNNING", ["RUNNING"]), "resumed")
    rest_diff.send_all([
        Req("lifecycle-status-resumed", "GET", f"/connectors/{name}/status"),
        *restarts("running", name, every_combination=True),
        Req("lifecycle-restart-unknown", "POST", "/connectors/lifecycle-nope/restart"),
        Req("lifecycle-restart-unknown-tasks", "POST", "/connectors/lifecycle-nope/restart?includeTasks=true"),
    ])
    settle(rest_diff, name, "RUNNING", ["RUNNING"])
    rest_diff.send_all(transition("stop", name))
    rest_diff.wait_both(status_is(name, "STOPPED", []), "stopped")
    rest_diff.send_all([
        Req("lifecycle-status-stopped", "GET", f"/connectors/{name}/status"),
        Req("lifecycle-task-status-stopped", "GET", f"/connectors/{name}/tasks/0/status"),
        Req("lifecycle-tasks-stopped", "GET", f"/connectors/{name}/tasks"),
        *restarts("stopped", name),
    ])
    settle(rest_diff, name, "STOPPED", [])
    rest_diff.send_all([
        Req("lifecycle-pause-stopped", "PUT", f"/connectors/{name}/pause"),
    ])
    settle(rest_diff, name, "PAUSED", [])
    rest_diff.send_all([
        Req("lifecycle-status-paused-from-stopped", "GET", f"/connectors/{name}/status"),
        Req("lifecycle-delete", "DELETE", f"/connectors/{name}"),
    ])
    rest_diff.assert_same()


#: The ``includeTasks``/``onlyFailed`` values a restart is tried with (absent, true, false, not a boolean:
#: Java takes anything but ``true`` as false).
FLAG_VALUES = (None, "true", "false", "yes")
#: The four cases, each spelled one way, for the states that do not get every combination.
_CASES = [(None, None), ("yes", "false"), (None, "true"), ("true", "true"), ("true", None)]


def restarts(state: str, name: str, every_combination: bool = False) -> list[Req]:
    """``POST /connectors/{name}/restart`` with the flags' four cases (or every combination of their
    values), in an order that keeps the answers comparable: first those that restart only what failed
    (their body shows the states the test waited for; the one that restarts failed tasks comes last),
    then those answered with no body, then those that restart everything (compared through
    :func:`settled_restart`)."""
    combos = ([(t, f) for t in FLAG_VALUES for f in FLAG_VALUES] if every_combination else _CASES)
    restarts_all = [c for c in combos if c[0] == "true" and c[1] != "true"]
    no_body = [c for c in combos if c[0] != "true" and c[1] != "true"]
    only_failed = sorted((c for c in combos if c[1] == "true"), key=lambda c: c[0] == "true")

    def req(tasks: str | None, failed: str | None, view: Callable[[Any], Any] | None = None) -> Req:
        query = "&".join(f"{key}={value}" for key, value in (("includeTasks", tasks), ("onlyFailed", failed))
                         if value is not None)
        return Req(f"lifecycle-restart-{state}-tasks-{tasks}-failed-{failed}", "POST",
                   f"/connectors/{name}/restart" + (f"?{query}" if query else ""), view=view)

    return ([req(t, f) for t, f in only_failed + no_body]
            + [req(t, f, settled_restart) for t, f in restarts_all])


def test_failed_task(rest_diff: Differential, source_file: Path, kafka_bootstrap: str) -> None:
    # A path under a regular file cannot be opened (ENOTDIR, whoever runs the test): both tasks fail.
    name = fresh_name("failed")
    topic = new_topic(kafka_bootstrap, unique_topic_name("lifecycle"))
    create(rest_diff, name, file_source(source_file / "x", topic))
    rest_diff.wait_both(status_is(name, "RUNNING", ["FAILED"]), "task failed")
    rest_diff.send_all([
        Req("lifecycle-status-failed", "GET", f"/connectors/{name}/status"),
        Req("lifecycle-task-status-failed", "GET", f"/connectors/{name}/tasks/0/status"),
        *restarts("failed", name),
    ])
    settle(rest_diff, name, "RUNNING", ["FAILED"])
    rest_diff.send_all([
        Req("lifecycle-task-restart-failed", "POST", f"/connectors/{name}/tasks/0/restart"),
        Req("lifecycle-delete-failed", "DELETE", f"/connectors/{name}"),
    ])
    rest_diff.assert_same()


def test_offsets_when_stopped(rest_diff: Differential, source_file: Path, kafka_bootstrap: str) -> None:
    name = fresh_name("offsets")
    topic = new_topic(kafka_bootstrap, unique_topic_name("lifecycle"))
    create(rest_diff, name, file_source(source_file, topic))
    partition = {"filename": str(source_file)}
    rest_diff.wait_both(offsets_are(name, [{"partition": partition, "offset": {"position": END_POSITION}}]),
                        "offsets committed")
    rest_diff.both("PUT", f"/connectors/{name}/stop", 204)
    rest_diff.wait_both(status_is(name, "STOPPED", []), "stopped")

    def patch(label: str, body: Any, divergence: str | None = None) -> Req:
        return Req(f"lifecycle-offsets-patch-{label}", "PATCH", f"/connectors/{name}/offsets", json_body=body,
                   divergence=divergence)

    rest_diff.send_all([
        Req("lifecycle-offsets-stopped", "GET", f"/connectors/{name}/offsets"),
        patch("valid", {"offsets": [{"partition": partition, "offset": {"position": 2}}]}),
        Req("lifecycle-offsets-after-patch", "GET", f"/connectors/{name}/offsets"),
        patch("missing-offsets", {}),
        patch("null-offsets", {"offsets": None}),
        patch("empty-offsets", {"offsets": []}),
        patch("partition-not-map", {"offsets": [{"partition": "lines.txt", "offset": {"position": 2}}]},
              INVALID_BODY),
        patch("missing-partition", {"offsets": [{"offset": {"position": 2}}]}),
        patch("nested-offset", {"offsets": [{"partition": partition, "offset": {"position": {"at": 2}}}]},
              INVALID_BODY),
        patch("string-position", {"offsets": [{"partition": partition, "offset": {"position": "2"}}]}),
        patch("negative-position", {"offsets": [{"partition": partition, "offset": {"position": -2}}]}),
        patch("no-filename", {"offsets": [{"partition": {"file": "x"}, "offset": {"position": 2}}]}),
        patch("null-offset", {"offsets": [{"partition": {"filename": "/elsewhere"}, "offset": None}]}),
        Req("lifecycle-offsets-delete", "DELETE", f"/connectors/{name}/offsets"),
        Req("lifecycle-offsets-after-delete", "GET", f"/connectors/{name}/offsets"),
        Req("lifecycle-offsets-delete-again", "DELETE", f"/connectors/{name}/offsets"),
        Req("lifecycle-offsets-delete-connector", "DELETE", f"/connectors/{name}"),
    ])
    rest_diff.assert_same()


def test_loggers(rest_diff: Differential) -> None:
    # The two workers' loggers are not the same (log4j's names vs Python's): only fresh names are set
    # and read, and the list is compared on those alone.
    base = f"lifecycle.loggers{uuid.uuid4().hex[:6]}"
    child, parent, cluster = f"{base}.child", base, f"{base}cluster"

    def fresh_only(body: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in body.items() if k.startswith(base)}

    def put(label: str, logger: str, body: Any, query: str = "") -> Req:
        return Req(f"lifecycle-loggers-put-{label}", "PUT", f"/admin/loggers/{logger}{query}", json_body=body)

    rest_diff.send_all([
        Req("lifecycle-loggers-get-unknown", "GET", f"/admin/loggers/{child}"),
        put("child", child, {"level": "DEBUG"}),
        Req("lifecycle-loggers-get-child", "GET", f"/admin/loggers/{child}"),
        put("child-same", child, {"level": "DEBUG"}),
        put("parent", parent, {"level": "WARN"}),
        put("lower-case", child, {"level": "info"}),
        put("invalid-level", child, {"level": "LOUD"}),
        put("empty-level", child, {"level": ""}),
        put("missing-level", child, {}),
        put("null-level", child, {"level": None}),
        put("worker-scope", child, {"level": "ERROR"}, "?scope=worker"),
        put("bad-scope", child, {"level": "TRACE"}, "?scope=galaxy"),
        put("cluster-scope", cluster, {"level": "DEBUG"}, "?scope=cluster"),
    ])
    rest_diff.wait_both(lambda c: c.get(f"/admin/loggers/{cluster}").status_code == 200, "cluster level applied")
    rest_diff.send_all([
        Req("lifecycle-loggers-get-cluster", "GET", f"/admin/loggers/{cluster}"),
        Req("lifecycle-loggers-get-parent", "GET", f"/admin/loggers/{parent}"),
        Req("lifecycle-loggers-list", "GET", "/admin/loggers", view=fresh_only),
    ])
    rest_diff.assert_same()


def test_missing_topic(rest_diff: Differential, source_file: Path) -> None:
    # The one deliberate divergence here: without topic creation, ours fails a task whose topic does
    # not exist at once, saying so; Java's task stays RUNNING and its records wait for the topic.
    name = fresh_name("missing-topic")
    create(rest_diff, name, file_source(source_file, unique_topic_name("lifecycle-missing")))
    rest_diff.wait_both(lambda c: status_is(name, "RUNNING", ["RUNNING"])(c) or
                        status_is(name, "RUNNING", ["FAILED"])(c), "task started")
    java, _ = rest_diff.send(Req("lifecycle-missing-topic-status", "GET", f"/connectors/{name}/status"))
    assert java.body["tasks"][0]["state"] == "RUNNING"
    trace = rest_diff.http["ours"].get(f"/connectors/{name}/status").json()["tasks"][0]["trace"]
    assert "does not exist and the connector" in trace, trace
    rest_diff.both("DELETE", f"/connectors/{name}", 204)
    rest_diff.assert_same()
