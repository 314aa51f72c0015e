"""The local schema registry: its command line, schemas and ids that survive a restart, and the
Basic-auth proxy of the test toolkit. (A port in use: tests/unit/test_launcher.py, for every launcher.)"""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import httpx
import pytest
from confluent_kafka.schema_registry import Schema, SchemaRegistryClient
from confluent_kafka.schema_registry.error import SchemaRegistryError

from connect_runtime.testing.local_registry import LocalRegistry, cli
from connect_runtime.testing.registry_proxy import BasicAuthProxy

pytestmark = pytest.mark.registry

CONTENT_TYPE = {"Content-Type": "application/vnd.schemaregistry.v1+json"}


def _record(name: str, *fields: str) -> str:
    """An Avro record of ``long`` fields, the first required, the others optional (BACKWARD compatible)."""
    first, *rest = fields
    optional = [{"name": f, "type": ["null", "long"], "default": None} for f in rest]
    return json.dumps({"type": "record", "name": name, "fields": [{"name": first, "type": "long"}, *optional]})


def _register(url: str, subject: str, schema: str) -> int:
    resp = httpx.post(f"{url}/subjects/{subject}/versions", json={"schema": schema}, headers=CONTENT_TYPE)
    resp.raise_for_status()
    schema_id = resp.json()["id"]
    assert isinstance(schema_id, int)
    return schema_id


def test_the_command_line_starts_reuses_and_stops_a_registry(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data_dir = str(tmp_path / "registry")
    try:
        assert cli(["start", "--data-dir", data_dir]) == 0
        line = capsys.readouterr().out
        assert line.startswith("schema.registry.url=http://127.0.0.1:") and line.endswith("/apis/ccompat/v7\n")
        url = line.strip().split("=", 1)[1]
        assert httpx.get(f"{url}/config").json() == {"compatibilityLevel": "BACKWARD"}  # Confluent's default
        assert httpx.get(f"{url}/subjects").json() == []

        assert cli(["status", "--data-dir", data_dir]) == 0
        status = capsys.readouterr().out
        assert status.startswith("running (pid ") and f"schema.registry.url={url} " in status
        pid = LocalRegistry(data_dir).status().pid

        # a second start finds the running registry and prints its URL
        assert cli(["start", "--data-dir", data_dir]) == 0
        assert capsys.readouterr().out == line
        assert LocalRegistry(data_dir).status().pid == pid
    finally:
        assert cli(["stop", "--data-dir", data_dir]) == 0
    assert capsys.readouterr().out == f"stopped Apicurio Registry in {tmp_path / 'registry'}\n"
    assert cli(["status", "--data-dir", data_dir]) == 1
    assert capsys.readouterr().out == f"not running (data dir {tmp_path / 'registry'})\n"
    assert (tmp_path / "registry" / "logs" / "registry.log").stat().st_size > 0


def test_schemas_and_ids_survive_a_restart_on_the_same_url(local_registry: LocalRegistry) -> None:
    url = local_registry.url
    assert url is not None
    subject = f"orders-{uuid.uuid4().hex[:8]}-value"
    first = _register(url, subject, _record("Order", "id"))
    second = _register(url, subject, _record("Order", "id", "amount"))

    assert local_registry.stop() is True
    assert not local_registry.status().running
    assert local_registry.start() == url

    assert httpx.get(f"{url}/subjects/{subject}/versions").json() == [1, 2]
    assert json.loads(httpx.get(f"{url}/schemas/ids/{first}").json()["schema"]) == json.loads(_record("Order", "id"))
    # the same schema keeps its id, a new one gets a new id: nothing is handed out twice
    assert _register(url, subject, _record("Order", "id")) == first
    third = _register(url, f"other-{subject}", _record("Other", "x"))
    assert third not in (first, second)
    # the canonical form decides: other spacing is the same schema
    assert _register(url, subject, json.dumps(json.loads(_record("Order", "id")), indent=2)) == first


def test_the_basic_auth_proxy_demands_the_password(registry_basic_auth: BasicAuthProxy,
                                                   schema_registry_url: str) -> None:
    proxy = registry_basic_auth
    assert proxy.url.endswith("/apis/ccompat/v7") and proxy.url != schema_registry_url

    anonymous = httpx.get(f"{proxy.url}/subjects")
    assert anonymous.status_code == 401
    assert anonymous.headers["WWW-Authenticate"] == 'Basic realm="registry"'
    assert httpx.get(f"{proxy.url}/subjects", auth=(proxy.user, "wrong")).status_code == 401
    assert httpx.get(f"{proxy.url}/subjects", auth=(proxy.user, proxy.password)).status_code == 200

    # what a converter sees: confluent-kafka's client, refused without the password, served with it
    subject = f"auth-{uuid.uuid4().hex[:8]}-value"
    with pytest.raises(SchemaRegistryError) as refused:
        SchemaRegistryClient({"url": proxy.url, "basic.auth.user.info": f"{proxy.user}:wrong"}).get_subjects()
    assert refused.value.http_status_code == 401
    client = SchemaRegistryClient({"url": proxy.url, "basic.auth.user.info": proxy.user_info})
    schema_id = client.register_schema(subject, Schema(_record("Auth", "id"), "AVRO"))
    assert client.get_schema(schema_id).schema_str == _record("Auth", "id")
    assert subject in httpx.get(f"{schema_registry_url}/subjects").json()  # it reached the registry itself


def test_the_proxy_counts_requests_and_can_be_slow(registry_basic_auth: BasicAuthProxy) -> None:
    proxy = registry_basic_auth
    auth = (proxy.user, proxy.password)
    before = proxy.requests
    assert httpx.get(f"{proxy.url}/subjects", auth=auth).status_code == 200
    assert httpx.get(f"{proxy.url}/subjects").status_code == 401
    assert proxy.requests == before + 2  # refused ones count too

    proxy.delay_s = 5.0
    with pytest.raises(httpx.ReadTimeout):
        httpx.get(f"{proxy.url}/subjects", auth=auth, timeout=0.2)
    proxy.delay_s = 0.0
    assert httpx.get(f"{proxy.url}/subjects", auth=auth).status_code == 200
