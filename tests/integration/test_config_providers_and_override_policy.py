"""Config providers and the client config override policy on real workers.

One worker allows every override (``All``) and has a file provider limited to one directory; another
allows none (``None``). A placeholder in VerifiableSource's ``topic`` and in a producer override
resolves when the task starts (the records land in the topic the secret file names, through the
cluster the secret file names), while the REST API, the config topic, status traces and the worker's
log keep the placeholder.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from connect_runtime.testing.cluster import (
    ConnectClient,
    WorkerProcess,
    config_records,
    read_committed,
    wait_until,
)
from connect_runtime.testing.pytest_plugin import new_topic

pytestmark = pytest.mark.kafka

VALIDATE = "/connector-plugins/VerifiableSource/config/validate"
NONE_MESSAGE = ("The 'None' policy does not allow 'bootstrap.servers' to be overridden in the connector "
                "configuration.")


@pytest.fixture
def secrets(tmp_path: Path) -> Path:
    directory = tmp_path / "secrets"
    directory.mkdir()
    return directory


def _worker(kafka_bootstrap: str, workdir: Path, extra: dict[str, str]) -> Iterator[WorkerProcess]:
    with WorkerProcess(kafka_bootstrap, workdir, f"providers-{uuid.uuid4().hex[:8]}", eos="enabled",
                       extra=extra).start_ready() as w:
        yield w


@pytest.fixture
def all_worker(kafka_bootstrap: str, tmp_path: Path, secrets: Path) -> Iterator[WorkerProcess]:
    yield from _worker(kafka_bootstrap, tmp_path / "all", {
        "connector.client.config.override.policy": "All",
        "config.providers": "file",
        "config.providers.file.class": "org.apache.kafka.common.config.provider.FileConfigProvider",
        "config.providers.file.param.allowed.paths": str(secrets),
    })


@pytest.fixture
def none_worker(kafka_bootstrap: str, tmp_path: Path) -> Iterator[WorkerProcess]:
    yield from _worker(kafka_bootstrap, tmp_path / "none", {"connector.client.config.override.policy": "None"})


def _verifiable(topic: str, **extra: str) -> dict[str, str]:
    return {"connector.class": "VerifiableSource", "tasks.max": "1", "topic": topic, "throughput": "50", **extra}


def _values_by_name(body: dict[str, object]) -> dict[str, dict[str, object]]:
    return {c["value"]["name"]: c["value"] for c in body["configs"]}  # type: ignore[index, union-attr]


def test_policy_none_refuses_an_override_and_all_accepts_it(
    kafka_bootstrap: str, none_worker: WorkerProcess, all_worker: WorkerProcess
) -> None:
    config = _verifiable("t", **{"name": "overrides", "producer.override.bootstrap.servers": kafka_bootstrap})
    refusing = ConnectClient(none_worker.url)
    try:
        r = refusing.request("PUT", VALIDATE, json=config)
        assert r.status_code == 200, r.text
        body = r.json()
        assert body["error_count"] == 1
        assert _values_by_name(body)["producer.override.bootstrap.servers"]["errors"] == [NONE_MESSAGE]
        r = refusing.request("POST", "/connectors", json={"name": "overrides", "config": config})
        assert r.status_code == 400, r.text
        assert NONE_MESSAGE in r.json()["message"]
        assert refusing.request("GET", "/connectors").json() == []
    finally:
        refusing.close()

    accepting = ConnectClient(all_worker.url)
    try:
        r = accepting.request("PUT", VALIDATE, json=config)
        assert r.status_code == 200 and r.json()["error_count"] == 0, r.text
        assert _values_by_name(r.json())["producer.override.bootstrap.servers"]["errors"] == []
        assert accepting.request("POST", "/connectors", json={"name": "overrides", "config": config}).status_code == 201
    finally:
        accepting.close()


def test_file_placeholders_resolve_at_task_start_and_stay_hidden(
    kafka_bootstrap: str, all_worker: WorkerProcess, secrets: Path, tmp_path: Path
) -> None:
    topic = new_topic(kafka_bootstrap, f"secret-topic-{uuid.uuid4().hex[:8]}")
    secret_file = secrets / "connector.properties"
    secret_file.write_text(f"topic={topic}\nservers={kafka_bootstrap}\n")
    topic_ref, servers_ref = f"${{file:{secret_file}:topic}}", f"${{file:{secret_file}:servers}}"
    client = ConnectClient(all_worker.url)
    try:
        name = f"hidden-{uuid.uuid4().hex[:6]}"
        config = _verifiable(topic_ref, **{"producer.override.bootstrap.servers": servers_ref})
        client.create_connector(name, config)
        client.wait_running(name, 1)
        # Resolved at task start: the records land in the topic the secret file names.
        records = wait_until(lambda: read_committed(kafka_bootstrap, topic, timeout_s=30) or None, 60,
                             message="records in the topic named by the secret file")
        assert [json.loads(v) for _, v in records[:3]] == [0, 1, 2]  # VerifiableSource's seqnos

        # Kept raw everywhere the config is shown or stored.
        assert client.request("GET", f"/connectors/{name}/config").json() == {**config, "name": name}
        (task,) = client.request("GET", f"/connectors/{name}/tasks").json()
        assert task["config"]["topic"] == topic_ref
        assert client.request("GET", f"/connectors/{name}").json()["config"]["topic"] == topic_ref
        config_topic = all_worker.props["config.storage.topic"]
        stored = b"".join(v or b"" for _, v in config_records(kafka_bootstrap, config_topic))
        assert topic_ref.encode() in stored and topic.encode() not in stored
        r = client.request("PUT", VALIDATE, json={**config, "name": name})
        assert r.json()["error_count"] == 0 and _values_by_name(r.json())["topic"]["value"] == topic_ref

        # A value that fails the connector at start: the trace and the log show the placeholder only.
        tasks_file = secrets / "tasks.properties"
        tasks_file.write_text("tasks=1\n")
        failing = f"failing-{uuid.uuid4().hex[:6]}"
        client.create_connector(failing, _verifiable(topic, **{"tasks.max": f"${{file:{tasks_file}:tasks}}"}))
        client.wait_running(failing, 1)
        secret = f"not-a-number-{uuid.uuid4().hex}"
        tasks_file.write_text(f"tasks={secret}\n")
        assert client.request("POST", f"/connectors/{failing}/restart").status_code in (200, 202, 204)

        def failed_trace() -> str | None:
            connector = client.status(failing)["connector"]
            return connector.get("trace") if connector["state"] == "FAILED" else None

        trace = wait_until(failed_trace, 60, message="the restarted connector FAILED")
        assert "tasks.max" in trace and f"${{file:{tasks_file}:tasks}}" in trace and secret not in trace
        log = all_worker.log_path.read_text(errors="replace")
        assert f"${{file:{tasks_file}:tasks}}" in log  # the failure was logged ...
        assert secret not in log and topic not in log  # ... without the values

        # A path outside allowed.paths is refused, with Kafka's message, at validation and creation.
        outside = tmp_path / "outside.properties"
        outside.write_text(f"topic={topic}\n")
        r = client.request("POST", "/connectors", json={
            "name": "outside", "config": _verifiable(f"${{file:{outside}:topic}}")})
        assert r.status_code == 400, r.text
        assert f"The path {outside} is not allowed to be accessed" in r.json()["message"]
    finally:
        client.close()


def test_validation_never_shows_a_resolved_value(all_worker: WorkerProcess, secrets: Path) -> None:
    secret = f"hunter2secret{uuid.uuid4().hex[:6]}"
    secret_file = secrets / "aliases.properties"
    secret_file.write_text(f"alias={secret}\npassword={secret}\n")
    alias_ref, password_ref = f"${{file:{secret_file}:alias}}", f"${{file:{secret_file}:password}}"
    client = ConnectClient(all_worker.url)
    try:
        # A placeholder in a key that shapes the config would turn into key names and groups: refused.
        config = _verifiable("t", **{"transforms": alias_ref, "predicates": alias_ref,
                                     "transforms.a.type": alias_ref, "password": password_ref})
        r = client.request("PUT", VALIDATE, json=config)
        assert r.status_code == 200, r.text
        assert secret not in r.text
        values = _values_by_name(r.json())
        for key in ("transforms", "predicates", "transforms.a.type"):
            assert values[key]["value"] == alias_ref and values[key]["errors"], key
        # No connector.class: the 400 shows the config as given.
        r = client.request("PUT", VALIDATE, json={"password": password_ref})
        assert r.status_code == 400 and "contains no connector type" in r.text, r.text
        assert secret not in r.text and password_ref in r.json()["message"]
        r = client.request("POST", "/connectors", json={"name": "shaped", "config": config})
        assert r.status_code == 400 and secret not in r.text, r.text
    finally:
        client.close()
    assert secret not in all_worker.log_path.read_text(errors="replace")
