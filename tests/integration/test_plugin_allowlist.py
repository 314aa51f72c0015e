"""Plugin loading by allowlist and hidden secrets, against one real worker: a class name outside
``plugin.allowed.packages`` and the ``plugin.path`` modules is "not found" through every REST door
without being imported (a sentinel module writes a file when imported); ``builtins.int`` is never a
plugin; a ``plugin.path`` plugin and a dotted plugin under an allowed package are found and run; a
PASSWORD value is ``[hidden]`` in validation results and in no log line."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from connect_runtime.testing.cluster import ConnectClient, WorkerProcess, plugin_path, wait_until

pytestmark = pytest.mark.kafka

TESTS_DIR = Path(__file__).resolve().parents[1]
SECRET_SOURCE = "allowed_plugins.secret_source.SecretSourceConnector"
PLUGIN_PATH_SOURCE = "header_source.HeaderSourceConnector"
SECRET = "s3cr3t-Pa55word-9f1c"
#: Importable by the worker (tests/ is on its PYTHONPATH, the worker runs in the project root), allowed nowhere.
SENTINELS = ("sentinel_import.Zen", "tests.sentinel_import.Zen")


@pytest.fixture(scope="module")
def worker(kafka_bootstrap: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[WorkerProcess]:
    workdir = tmp_path_factory.mktemp("allowlist")
    env = {"PYTHONPATH": os.pathsep.join(p for p in (str(TESTS_DIR), os.environ.get("PYTHONPATH", "")) if p),
           "CONNECT_RUNTIME_SENTINEL_FILE": str(workdir / "sentinel-imported")}
    w = WorkerProcess(kafka_bootstrap, workdir, f"allowlist-{workdir.name}", eos="disabled", env=env,
                      extra={**plugin_path(TESTS_DIR / "plugins"), "plugin.allowed.packages": "allowed_plugins"})
    with w.start_ready():
        yield w


def _sentinel_imported(worker: WorkerProcess) -> bool:
    return (worker.workdir / "sentinel-imported").exists()


def _errors(body: dict[str, Any]) -> dict[str, list[str]]:
    return {c["value"]["name"]: c["value"]["errors"] for c in body["configs"] if c["value"]["errors"]}


def test_names_outside_the_allowlist_are_not_found_and_never_imported(worker: WorkerProcess) -> None:
    client = ConnectClient(worker.url)
    for name in ("this.Zen", "builtins.int", "unittest.__main__.Main", *SENTINELS):
        r = client.request("GET", f"/connector-plugins/{name}/config")
        assert (r.status_code, r.json()["message"]) == (404, f"Unknown plugin {name}."), r.text
    for name in SENTINELS:
        r = client.request("PUT", f"/connector-plugins/{name}/config/validate",
                           json={"connector.class": name, "name": "v"})
        assert r.status_code == 400, r.text
        assert client.request("POST", "/connectors", json={"name": "s", "config": {"connector.class": name}}
                              ).status_code == 400
        # A valid connector naming the sentinel as its converter and as a transformation.
        config = {"connector.class": PLUGIN_PATH_SOURCE, "name": "v", "topic": "t", "value.converter": name,
                  "transforms": "z", "transforms.z.type": name}
        r = client.request("PUT", f"/connector-plugins/{PLUGIN_PATH_SOURCE}/config/validate", json=config)
        assert r.status_code == 200, r.text
        assert _errors(r.json())["value.converter"] == [
            f"Invalid value {name} for configuration value.converter: Class {name} could not be found."]
        assert "transforms.z.type" in _errors(r.json())
        r = client.request("POST", "/connectors", json={"name": "z", "config": config})
        assert r.status_code == 400, r.text
    listed = {p["class"] for p in client.request("GET", "/connector-plugins?connectorsOnly=false").json()}
    assert PLUGIN_PATH_SOURCE in listed  # discovered in the plugin.path directory at start-up
    assert not {"builtins.int", *SENTINELS} & listed
    assert not _sentinel_imported(worker)
    assert "Beautiful is better than ugly" not in worker.log_path.read_text()  # `this` was never imported


def test_a_plugin_path_plugin_and_an_allowed_dotted_plugin_run(worker: WorkerProcess) -> None:
    client = ConnectClient(worker.url)
    client.create_connector("from-plugin-path", {
        "connector.class": PLUGIN_PATH_SOURCE, "topic": "allowlist-t", "count": "1",
        "topic.creation.default.replication.factor": "1", "topic.creation.default.partitions": "1"})
    client.create_connector("from-allowed-package", {
        "connector.class": SECRET_SOURCE, "secret.password": "x" * 8, "transforms": "p",
        "transforms.p.type": "allowed_plugins.secret_source.Passthrough"})
    client.wait_running("from-plugin-path", 1)
    client.wait_running("from-allowed-package", 1)


def test_password_values_are_hidden_and_never_logged(worker: WorkerProcess) -> None:
    client = ConnectClient(worker.url)
    url = f"/connector-plugins/{SECRET_SOURCE}/config/validate"
    body = client.request("PUT", url, json={"connector.class": SECRET_SOURCE, "secret.password": SECRET}).json()
    (value,) = [c["value"] for c in body["configs"] if c["value"]["name"] == "secret.password"]
    assert value == {"name": "secret.password", "value": "[hidden]", "recommended_values": [], "errors": [],
                     "visible": True}
    body = client.request("PUT", url, json={"connector.class": SECRET_SOURCE, "secret.password": "bad" + SECRET}
                          ).json()
    assert _errors(body)["secret.password"] == [
        "Invalid value [hidden] for configuration secret.password: must not start with bad"]
    assert SECRET not in str(body)
    config = {"connector.class": SECRET_SOURCE, "secret.password": SECRET}
    client.create_connector("secret", config)
    client.wait_running("secret", 1)
    # As Java: the config reads back as submitted.
    assert client.request("GET", "/connectors/secret/config").json()["secret.password"] == SECRET
    wait_until(lambda: "Connecting with password [hidden]" in worker.log_path.read_text(), 30,
               message="the connector's log line, redacted")
    assert [line for line in worker.log_path.read_text().splitlines() if SECRET in line] == []
