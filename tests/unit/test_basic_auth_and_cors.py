"""REST extensions, Basic authentication and CORS without a broker: credentials, header parsing, JAAS
files, extension loading and its one-line refusals, and the filters on an app over the fake herder.
Real workers: tests/cluster/test_rest_security.py."""

from __future__ import annotations

import base64
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest
from fake_herder import TEST_SESSION_KEY, FakeHerder
from fastapi.testclient import TestClient

from connect_runtime.api import (
    ConfigException,
    ConnectClusterState,
    ConnectRestExtension,
    ConnectRestExtensionContext,
)
from connect_runtime.cli import main as runtime_main
from connect_runtime.cluster.request_signature import sign
from connect_runtime.config.worker_config import WorkerConfig, WorkerConfigError
from connect_runtime.plugins.registry import PluginRegistry
from rest.app import create_app
from rest.basic_auth import (
    JAVA_CLASS_NAME,
    PROPERTY_FILE_LOGIN_MODULE,
    BasicAuthSecurityRestExtension,
    is_internal_request,
    parse_basic_credentials,
)
from rest.credentials import CredentialsError, CredentialStore, hash_password
from rest.extensions import ServiceWithExtensions, load_rest_extensions

# Cheap hashes for unit tests; the cluster test uses the default cost.
FAST_HASH = {"log_n": 4, "r": 8, "p": 1}


def basic(user: str, password: str) -> dict[str, str]:
    return {"Authorization": "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()}


# --- credentials --------------------------------------------------------------------------------------


def test_hashed_and_plain_passwords_are_checked() -> None:
    hashed = hash_password("s3cret", **FAST_HASH)
    assert hashed.startswith("$scrypt$ln=4,r=8,p=1$")
    assert hash_password("s3cret", **FAST_HASH) != hashed  # salted
    store = CredentialStore({"bob": hashed, "alice": "plain pw"})
    assert store.quick_check("bob", "s3cret") is None  # needs the KDF
    assert store.check("bob", "s3cret")
    assert store.quick_check("bob", "s3cret") is True  # remembered success
    assert store.quick_check("bob", "other") is None
    assert store.quick_check("alice", "plain pw") is True
    assert store.quick_check("alice", "nope") is False
    assert store.quick_check("nobody", "x") is None  # costs what a hashed user costs
    assert CredentialStore({"alice": "pw"}).quick_check("nobody", "x") is False
    assert not store.check("bob", "s3cret ")
    assert not store.check("bob", hashed)  # the hash is not the password
    assert store.check("alice", "plain pw")
    assert not store.check("alice", "plain")
    assert not store.check("nobody", "s3cret")
    assert len(store) == 2


@pytest.mark.parametrize("stored", [
    "$scrypt$ln=4,r=8,p=1$c2FsdA",  # no hash part
    "$scrypt$ln=40,r=8,p=1$c2FsdA$" + "A" * 43,  # cost beyond the bound
    "$scrypt$ln=4,r=8,p=1$c2FsdA$short",
])
def test_malformed_hash_is_refused_naming_the_user_not_the_value(stored: str) -> None:
    with pytest.raises(CredentialsError) as e:
        CredentialStore({"bob": stored})
    assert "'bob'" in str(e.value) and stored not in str(e.value)


def test_hash_password_subcommand_prints_a_usable_hash(monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "stdin", _Stdin("pa:ss word\n"))
    assert runtime_main(["hash-password", "--user", "carol"]) == 0
    user, _, hashed = capsys.readouterr().out.strip().partition(": ")
    assert user == "carol"
    assert CredentialStore({"carol": hashed}).check("carol", "pa:ss word")


class _Stdin:
    def __init__(self, text: str) -> None:
        self.text = text

    def isatty(self) -> bool:
        return False

    def readline(self) -> str:
        return self.text


# --- the filter's rules ----------------------------------------------------------------------------


def test_basic_credentials_are_parsed_as_java_parses_them() -> None:
    def header(raw: str) -> str:
        return "Basic " + base64.b64encode(raw.encode()).decode()

    assert parse_basic_credentials(header("u:p:w")) == ("u", "p:w")
    assert parse_basic_credentials("bAsIc " + header("u:").split()[1]) == ("u", "")
    assert parse_basic_credentials(None) is None
    assert parse_basic_credentials(header(":p")) is None  # empty user
    assert parse_basic_credentials(header("nocolon")) is None
    assert parse_basic_credentials("Basic") is None
    assert parse_basic_credentials("Bearer abc") is None
    assert parse_basic_credentials("Basic ###") is None  # Java: 500; here refused


def test_only_the_signed_internal_endpoints_are_exempt() -> None:
    assert is_internal_request("POST", "/connectors/c/tasks")
    assert is_internal_request("POST", "/connectors/c/tasks/")
    assert is_internal_request("PUT", "/connectors/c/fence")
    assert not is_internal_request("GET", "/connectors/c/tasks")
    assert not is_internal_request("POST", "/connectors/c/tasks/0/restart")
    assert not is_internal_request("POST", "/connectors")
    assert not is_internal_request("PUT", "/connectors/c/config")


# --- loading extensions ----------------------------------------------------------------------------


def _credentials(tmp_path: Path, text: str) -> str:
    path = tmp_path / "creds.properties"
    path.write_text(text)
    return str(path)


def test_java_class_name_gives_the_builtin_basic_auth(tmp_path: Path) -> None:
    configs = {"rest.basic.auth.credentials.file": _credentials(tmp_path, "alice=pw\n")}
    loaded = load_rest_extensions([JAVA_CLASS_NAME], configs, PluginRegistry())
    assert [type(e) for e in loaded.extensions] == [BasicAuthSecurityRestExtension]


def test_jaas_file_of_a_java_worker_names_the_credentials(tmp_path: Path) -> None:
    creds = _credentials(tmp_path, "alice: pw\n")
    jaas = tmp_path / "connect.jaas"
    jaas.write_text(f'/* Java worker */\nKafkaServer {{ x.Y required; }};\n'
                    f'KafkaConnect {{\n  {PROPERTY_FILE_LOGIN_MODULE} required\n  file="{creds}"; // users\n}};\n')
    ext = BasicAuthSecurityRestExtension()
    ext.configure({"rest.basic.auth.jaas.config.file": str(jaas)})
    jaas.write_text('KafkaConnect { com.example.LdapLoginModule required url="ldap://x"; };')
    with pytest.raises(ConfigException, match="must name exactly one login module"):
        BasicAuthSecurityRestExtension().configure({"rest.basic.auth.jaas.config.file": str(jaas)})


@pytest.mark.parametrize(("names", "configs", "message"), [
    (["no_such_module.NoSuchExtension"], {},
     "rest.extension.classes: class no_such_module.NoSuchExtension could not be found"),
    # a plugin of another kind (a transformation, found by its Kafka name)
    (["org.apache.kafka.connect.transforms.RegexRouter"], {},
     "rest.extension.classes: org.apache.kafka.connect.transforms.RegexRouter is not a concrete "
     "connect_runtime.api.ConnectRestExtension"),
    ([JAVA_CLASS_NAME], {},
     f"rest.extension.classes: {JAVA_CLASS_NAME} failed to configure: Basic authentication needs "
     "rest.basic.auth.credentials.file (or rest.basic.auth.jaas.config.file) in the worker config"),
    ([JAVA_CLASS_NAME], {"rest.basic.auth.credentials.file": "/nonexistent/creds"},
     f"rest.extension.classes: {JAVA_CLASS_NAME} failed to configure: rest.basic.auth.credentials.file: "
     "cannot read the credentials file /nonexistent/creds: No such file or directory"),
    ([], {"rest.basic.auth.credentials.file": "creds"},
     f"rest.basic.auth.credentials.file is set but rest.extension.classes does not list {JAVA_CLASS_NAME}"),
])
def test_extensions_that_cannot_be_used_refuse_start_up_in_one_line(
        names: list[str], configs: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigException) as e:
        load_rest_extensions(names, configs, PluginRegistry())
    assert str(e.value) == message


def test_empty_credentials_file_is_refused_not_open_to_all(tmp_path: Path) -> None:
    # Java lets every request in when the file lists no users; we refuse to start.
    configs = {"rest.basic.auth.credentials.file": _credentials(tmp_path, "# nobody\n")}
    with pytest.raises(ConfigException, match="lists no users"):
        load_rest_extensions([JAVA_CLASS_NAME], configs, PluginRegistry())


class Recording(ConnectRestExtension):
    closed: list[str] = []

    def configure(self, configs: Mapping[str, str]) -> None:
        self.tag = configs["tag"]

    def register(self, context: ConnectRestExtensionContext) -> None:
        state: ConnectClusterState = context.cluster_state

        async def endpoint() -> dict[str, object]:
            return {"tag": self.tag, "connectors": state.connectors(),
                    "cluster": state.cluster_details().kafka_cluster_id}

        context.add_route("/recording", endpoint)

    def close(self) -> None:
        Recording.closed.append(self.tag)


class _Server:
    def start(self) -> None:
        pass

    def stop(self) -> None:
        pass


def test_third_party_extension_is_configured_registered_and_closed_with_the_server() -> None:
    registry = PluginRegistry()
    registry.register(Recording)
    loaded = load_rest_extensions([f"{__name__}.Recording"], {"tag": "t1"}, registry)
    with TestClient(create_app(FakeHerder(), extensions=loaded.extensions)) as client:
        body = client.get("/recording").json()
    assert body["tag"] == "t1" and body["connectors"] == []
    assert "/recording" not in str(create_app(FakeHerder(), extensions=loaded.extensions).openapi())
    service = ServiceWithExtensions(_Server(), loaded)
    service.stop()
    service.stop()
    assert Recording.closed == ["t1"]


# --- the filters on an app -----------------------------------------------------------------------


@pytest.fixture
def secured(tmp_path: Path) -> TestClient:
    creds = _credentials(tmp_path, f"alice: pw\nbob: {hash_password('hashed pw', **FAST_HASH)}\n")
    loaded = load_rest_extensions([JAVA_CLASS_NAME], {"rest.basic.auth.credentials.file": creds}, PluginRegistry())
    app = create_app(FakeHerder(), request_timeout_s=5.0, extensions=loaded.extensions,
                     allowed_origins="https://*.example.com, http://localhost:3000", allowed_methods="GET,PUT")
    return TestClient(app)


def test_a_request_no_resource_serves_gets_its_404_or_405_before_authentication(secured: TestClient) -> None:
    assert secured.get("/nope").status_code == 404
    assert secured.delete("/connectors").status_code == 405
    assert secured.get("/connectors/").status_code == 401  # a trailing slash still reaches the resource
    assert secured.head("/connectors").status_code == 401
    refused = secured.options("/connectors")
    assert (refused.status_code, refused.headers["content-type"]) == (401, "text/plain")


def test_metrics_need_credentials_as_every_resource(secured: TestClient) -> None:
    assert secured.get("/metrics").status_code == 401
    assert secured.get("/metrics", headers=basic("alice", "pw")).status_code == 200


def test_requests_need_credentials_but_internal_ones_only_their_signature(secured: TestClient) -> None:
    refused = secured.get("/connectors")
    assert (refused.status_code, refused.text, refused.headers["content-type"]) == (
        401, "User cannot access the resource.", "application/json")
    assert secured.get("/connectors", headers=basic("alice", "pw")).status_code == 200
    assert secured.get("/connectors", headers=basic("bob", "hashed pw")).status_code == 200
    assert secured.get("/connectors", headers=basic("bob", "pw")).status_code == 401
    # Unsigned and forged internal requests are refused by the signature check (not by auth) ...
    body = b"[]"
    assert secured.post("/connectors/c/tasks", content=body).status_code == 400
    forged = sign(b"not-the-session-key-at-all", "HmacSHA256", body)
    assert secured.post("/connectors/c/tasks", content=body, headers=forged).status_code == 403
    assert secured.put("/connectors/c/fence", headers=sign(b"wrong-key-bytes", "HmacSHA256", b"")).status_code == 403
    # ... and a correctly signed one gets through without credentials.
    good = secured.post("/connectors/c/tasks", content=body, headers=sign(TEST_SESSION_KEY.key, "HmacSHA256", body))
    assert (good.status_code, good.json()["message"]) == (404, "Connector c not found")  # reached the herder


def test_cors_follows_jettys_cross_origin_filter(secured: TestClient) -> None:
    auth = basic("alice", "pw")
    for origin in ("https://ui.example.com", "https://a.b.example.com", "http://localhost:3000"):
        r = secured.delete("/connectors/missing", headers={**auth, "Origin": origin})  # any method, as Jetty
        assert r.headers["access-control-allow-origin"] == origin
        assert r.headers["access-control-allow-credentials"] == "true"
        assert "Origin" in r.headers.get_list("vary")
    for origin in ("https://example.com", "http://ui.example.com", "http://localhost:3001"):
        r = secured.get("/connectors", headers={**auth, "Origin": origin})
        assert "access-control-allow-origin" not in r.headers, origin
    preflight = secured.options("/connectors/c/config", headers={
        "Origin": "https://ui.example.com", "Access-Control-Request-Method": "PUT",
        "Access-Control-Request-Headers": "Content-Type, accept"})
    assert preflight.status_code == 200
    assert preflight.headers["access-control-allow-methods"] == "GET,PUT"
    for headers in ({"Access-Control-Request-Method": "POST"},  # not in GET,PUT
                    {"Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "X-Custom"}):
        refused = secured.options("/connectors", headers={"Origin": "https://ui.example.com", **headers})
        assert "access-control-allow-origin" not in refused.headers


def test_any_origin_echoes_the_origin_without_vary() -> None:
    client = TestClient(create_app(FakeHerder(), allowed_origins="*"))
    r = client.get("/connectors", headers={"Origin": "https://anywhere.test"})
    assert r.headers["access-control-allow-origin"] == "https://anywhere.test"
    assert "vary" not in r.headers
    assert "access-control-allow-origin" not in client.get("/connectors").headers


def test_cors_off_by_default() -> None:
    client = TestClient(create_app(FakeHerder()))
    r = client.get("/connectors", headers={"Origin": "https://ui.example.com"})
    assert not [h for h in r.headers if h.startswith("access-control-")]


# --- worker settings --------------------------------------------------------------------------------

_WORKER = {"bootstrap.servers": "localhost:9092", "group.id": "g", "config.storage.topic": "c",
           "offset.storage.topic": "o", "status.storage.topic": "s"}


def test_worker_settings_of_extensions_and_cors() -> None:
    config = WorkerConfig.from_properties({**_WORKER, "rest.extension.classes": f" {JAVA_CLASS_NAME} , a.B ",
                                           "access.control.allow.origin": "*"})
    assert config.rest_extension_classes == [JAVA_CLASS_NAME, "a.B"]
    assert WorkerConfig.from_properties(_WORKER).rest_extension_classes == []
    # CORS methods without origins would do nothing: refused rather than ignored.
    with pytest.raises(WorkerConfigError) as e:
        WorkerConfig.from_properties({**_WORKER, "access.control.allow.methods": "GET,PUT"})
    assert str(e.value) == ('Invalid value "GET,PUT" for configuration access.control.allow.methods: '
                            "has no effect while access.control.allow.origin is empty (CORS is off)")
