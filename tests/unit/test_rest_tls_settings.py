"""TLS contexts of the REST API from Kafka's ``ssl.*`` settings (connect_runtime.config.rest_tls), the
listener plan of WorkerConfig, and RestServers serving several listeners in-process.

Handshakes are real (an in-process socket pair); certificates are made by ``trustme``. The proof on
real worker processes and a broker is tests/cluster/test_rest_tls.py.
"""

from __future__ import annotations

import socket
import ssl
import threading
from pathlib import Path

import httpx
import pytest
import trustme
from cryptography.hazmat.primitives.serialization import (
    BestAvailableEncryption,
    Encoding,
    PrivateFormat,
    load_pem_private_key,
    pkcs12,
)
from cryptography.x509 import load_pem_x509_certificate
from fake_herder import FakeHerder
from worker_stubs import MINIMAL_WORKER

from connect_runtime.cluster.peer_http import peer_client
from connect_runtime.composition import ComposedWorker, compose_worker
from connect_runtime.config.rest_tls import PeerTls, TlsSettingError, client_context, server_context, tls_settings
from connect_runtime.config.worker_config import WorkerConfigError
from connect_runtime.testing.local_kafka import free_port
from rest.app import create_app
from rest.server import RestServer, RestServerError, RestServers


class Files:
    def __init__(self, d: Path) -> None:
        self.ca = trustme.CA()
        self.server = self.ca.issue_cert("127.0.0.1", "localhost")
        self.client = self.ca.issue_cert("client")
        self.ca_pem = d / "ca.pem"
        self.keystore = d / "keystore.pem"
        self.ca.cert_pem.write_to_path(str(self.ca_pem))
        self.server.private_key_and_cert_chain_pem.write_to_path(str(self.keystore))
        self.key = load_pem_private_key(self.server.private_key_pem.bytes(), None)
        self.cert = load_pem_x509_certificate(self.server.cert_chain_pems[0].bytes())
        self.d = d

    def pem(self, prefix: str = "listeners.https.") -> dict[str, str]:
        return {f"{prefix}ssl.keystore.type": "PEM", f"{prefix}ssl.keystore.location": str(self.keystore)}

    def trusting_client(self, with_cert: bool = False) -> ssl.SSLContext:
        ctx = ssl.create_default_context(cafile=str(self.ca_pem))
        if with_cert:
            self.client.configure_cert(ctx)
        return ctx


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Files:
    return Files(tmp_path_factory.mktemp("tls"))


def handshake(server: ssl.SSLContext, client: ssl.SSLContext, hostname: str = "127.0.0.1") -> None:
    """A full TLS handshake plus one byte each way over a socket pair; raises the client's error."""
    a, b = socket.socketpair()
    a.settimeout(5)
    b.settimeout(5)
    errors: list[BaseException] = []

    def serve() -> None:
        try:
            with server.wrap_socket(a, server_side=True) as s:
                s.sendall(s.recv(1))
        except (OSError, ssl.SSLError) as e:
            errors.append(e)

    thread = threading.Thread(target=serve)
    thread.start()
    try:
        with client.wrap_socket(b, server_hostname=hostname) as c:
            c.sendall(b"x")
            if c.recv(1) != b"x":
                raise ssl.SSLError("no echo")
    finally:
        b.close()
        thread.join(5)
        a.close()


def refusal(call: object, *args: object) -> str:
    with pytest.raises((TlsSettingError, WorkerConfigError)) as info:
        call(*args)  # type: ignore[operator]
    message = str(info.value)
    assert "\n" not in message
    return message


def test_prefixed_settings_are_all_or_nothing() -> None:
    top = {"ssl.keystore.location": "top.pem", "ssl.client.auth": "required", "bootstrap.servers": "x"}
    assert tls_settings(top, "listeners.https.") == ({"ssl.keystore.location": "top.pem",
                                                      "ssl.client.auth": "required"}, "")
    both = {**top, "listeners.https.ssl.keystore.location": "mine.pem"}
    # One prefixed key is enough to ignore every top-level one (Java's valuesWithPrefixAllOrNothing).
    assert tls_settings(both, "listeners.https.") == ({"ssl.keystore.location": "mine.pem"}, "listeners.https.")
    assert tls_settings(both, "admin.listeners.https.")[1] == ""
    assert "listeners.https.ssl.keystore.locaton" in refusal(
        tls_settings, {"listeners.https.ssl.keystore.locaton": "x"}, "listeners.https.")


def test_pem_keystore_and_truststore(files: Files) -> None:
    server = server_context({**files.pem(), "listeners.https.ssl.truststore.type": "PEM",
                             "listeners.https.ssl.truststore.location": str(files.ca_pem)})
    assert server.verify_mode == ssl.CERT_NONE
    handshake(server, files.trusting_client())
    with pytest.raises(ssl.SSLCertVerificationError):
        handshake(server, ssl.create_default_context())


def test_inline_pem_keystore_with_an_encrypted_key(files: Files) -> None:
    encrypted = files.key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, BestAvailableEncryption(b"k3y"))
    chain = "".join(b.bytes().decode() for b in files.server.cert_chain_pems)
    settings = {"ssl.keystore.certificate.chain": chain, "ssl.keystore.key": encrypted.decode(),
                "ssl.key.password": "k3y"}
    handshake(server_context(settings), files.trusting_client())
    assert "ssl.keystore.key" in refusal(server_context, {**settings, "ssl.key.password": "wrong"})
    assert "both" in refusal(server_context, {"ssl.keystore.key": encrypted.decode()})


def test_pkcs12_keystore_and_truststore(files: Files) -> None:
    keystore = files.d / "ks.p12"
    keystore.write_bytes(pkcs12.serialize_key_and_certificates(
        b"k", files.key, files.cert, None, BestAvailableEncryption(b"store")))  # type: ignore[arg-type]
    truststore = files.d / "ts.p12"
    ca_cert = load_pem_x509_certificate(files.ca.cert_pem.bytes())
    truststore.write_bytes(pkcs12.serialize_java_truststore(
        [pkcs12.PKCS12Certificate(ca_cert, b"ca")], BestAvailableEncryption(b"trust")))
    p12 = {"ssl.keystore.type": "PKCS12", "ssl.keystore.location": str(keystore), "ssl.keystore.password": "store"}
    handshake(server_context(p12), files.trusting_client())
    client = client_context({"ssl.truststore.type": "PKCS12", "ssl.truststore.location": str(truststore),
                             "ssl.truststore.password": "trust"})
    handshake(server_context(p12), client)
    assert "ssl.keystore.location" in refusal(server_context, {**p12, "ssl.keystore.password": "nope"})


def test_client_auth(files: Files) -> None:
    trust = {"ssl.truststore.type": "PEM", "ssl.truststore.location": str(files.ca_pem)}
    required = server_context({**files.pem(""), **trust, "ssl.client.auth": "required"})
    requested = server_context({**files.pem(""), **trust, "ssl.client.auth": "requested"})
    assert (required.verify_mode, requested.verify_mode) == (ssl.CERT_REQUIRED, ssl.CERT_OPTIONAL)
    handshake(required, files.trusting_client(with_cert=True))
    with pytest.raises((ssl.SSLError, OSError)):
        handshake(required, files.trusting_client())
    handshake(requested, files.trusting_client())
    assert "ssl.client.auth" in refusal(server_context, {**files.pem(""), "ssl.client.auth": "always"})


def test_client_context_verifies_the_peer_and_presents_the_keystore(files: Files) -> None:
    trust = {"listeners.https.ssl.truststore.type": "PEM", "listeners.https.ssl.truststore.location": str(files.ca_pem)}
    server = server_context({**files.pem(), **trust, "listeners.https.ssl.client.auth": "required"})
    client = client_context({**files.pem(), **trust})
    assert client.check_hostname
    handshake(server, client)  # the worker's own certificate is its client certificate
    with pytest.raises(ssl.SSLCertVerificationError):
        handshake(server, client, hostname="elsewhere.example")
    lenient = client_context({**files.pem(), **trust, "listeners.https.ssl.endpoint.identification.algorithm": ""})
    handshake(server, lenient, hostname="elsewhere.example")


@pytest.mark.parametrize(("settings", "key", "hint"), [
    ({"ssl.keystore.location": "ks.jks"}, "ssl.keystore.type", "JKS (the default)"),
    ({"ssl.keystore.type": "JKS", "ssl.keystore.location": "ks.jks"}, "ssl.keystore.type", "PKCS12"),
    ({"ssl.truststore.location": "ts.jks"}, "ssl.truststore.type", "JKS"),
    ({"ssl.provider": "SunJSSE"}, "ssl.provider", "OpenSSL"),
    ({"ssl.keymanager.algorithm": "NewSunX509"}, "ssl.keymanager.algorithm", "SunX509"),
    ({"ssl.protocol": "SSLv3"}, "ssl.protocol", "TLSv1.2"),
    ({"ssl.enabled.protocols": "TLSv1.1,TLSv1.3"}, "ssl.enabled.protocols", "between"),
    ({"ssl.enabled.protocols": "SSLv3"}, "ssl.enabled.protocols", "SSLv3"),
    ({"ssl.cipher.suites": "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"}, "ssl.cipher.suites", "IANA"),
    ({"ssl.cipher.suites": "TLS_AES_128_GCM_SHA256"}, "ssl.cipher.suites", "TLS 1.3"),
    ({"ssl.keystore.type": "PEM", "ssl.keystore.location": "/nonexistent/ks.pem"}, "ssl.keystore.location",
     "does not exist"),
])
def test_settings_that_cannot_be_honoured_are_refused(files: Files, settings: dict[str, str], key: str,
                                                      hint: str) -> None:
    base = files.pem("") if "ssl.keystore.location" not in settings else {}
    message = refusal(server_context, {**base, **settings})
    assert f"listeners.https.{key}" not in message  # top-level keys are named as written
    assert key in message and hint in message


def test_protocols_and_cipher_suites_are_applied(files: Files) -> None:
    only12 = server_context({**files.pem(""), "ssl.enabled.protocols": "TLSv1.2"})
    assert only12.maximum_version == ssl.TLSVersion.TLSv1_2
    suites = server_context({**files.pem(""), "ssl.cipher.suites": "ECDHE-ECDSA-AES128-GCM-SHA256"})
    # No TLS 1.3 suite named: TLS 1.3 is off, as in Java; the TLS 1.2 suites are the ones named.
    assert suites.maximum_version == ssl.TLSVersion.TLSv1_2
    assert [c["name"] for c in suites.get_ciphers() if c["protocol"] == "TLSv1.2"] == \
        ["ECDHE-ECDSA-AES128-GCM-SHA256"]
    handshake(suites, files.trusting_client())


def make(**props: str) -> ComposedWorker:
    """The worker's parts: its TLS contexts are built (and refused) by the composition root."""
    return compose_worker({**MINIMAL_WORKER, **props})


def test_worker_config_refuses_an_https_listener_without_keystore() -> None:
    message = refusal(lambda: make(listeners="https://:8443"))
    assert message.startswith("An https listener needs a keystore: set listeners.https.ssl.keystore.type=PEM")
    assert "rest.advertised.listener" in refusal(lambda: make(**{"rest.advertised.listener": "https"}))


def test_worker_config_listener_plan(files: Files) -> None:
    tls = {**files.pem(), **files.pem("admin.listeners.https.")}
    unset = make(listeners="http://:8083,https://:8443", **tls).config.rest_listeners()
    assert [(x.scheme, x.port, x.regular, x.admin) for x in unset] == [("http", 8083, True, True),
                                                                       ("https", 8443, True, True)]
    empty = make(listeners="http://:8083", **{"admin.listeners": ""}).config.rest_listeners()
    assert [(x.regular, x.admin) for x in empty] == [(True, False)]
    separate = make(listeners="http://:8083", **{"admin.listeners": "https://127.0.0.1:9443"},
                    **tls).config.rest_listeners()
    assert [(x.scheme, x.host, x.regular, x.admin) for x in separate] == [("http", "", True, False),
                                                                          ("https", "127.0.0.1", False, True)]


def test_rest_only_ssl_keys_are_not_kafka_client_settings(files: Files) -> None:
    composed = make(listeners="https://:8443", **files.pem(""), **{"ssl.client.auth": "required"})
    assert "ssl.client.auth" not in composed.config.client_props("producer.")
    assert composed.rest_ssl_context(composed.config.rest_listeners()[0]).verify_mode == ssl.CERT_REQUIRED


def test_http_only_worker_reads_tls_settings_only_for_https_peers(files: Files) -> None:
    broken = {"ssl.truststore.type": "PEM", "ssl.truststore.location": "/nonexistent/ca.pem"}
    tls = make(**broken).plugins.peer_tls  # no https listener: start-up does not refuse them (KAFKA-14816)
    assert tls is not None and tls.context is None and tls.error is not None and "ssl.truststore.location" in tls.error
    assert "ssl.truststore.location" in refusal(lambda: make(listeners="https://:8443", **files.pem(""), **broken))


def test_rest_servers_serve_http_https_and_admin_listeners(files: Files) -> None:
    composed = make(listeners="http://127.0.0.1:0,https://127.0.0.1:0", **{"admin.listeners": "https://127.0.0.1:0"},
                    **files.pem(), **files.pem("admin.listeners.https."))
    herder = FakeHerder()
    servers = RestServers([
        RestServer(create_app(herder, regular=x.regular, admin=x.admin), x.host, x.port,
                   ssl_context=composed.rest_ssl_context(x) if x.https else None)
        for x in composed.config.rest_listeners()
    ])
    with servers:
        http, https, admin = (server.url for server in servers.servers)
        assert (http.split(":")[0], https.split(":")[0], admin.split(":")[0]) == ("http", "https", "https")
        trusting = files.trusting_client()
        assert httpx.get(f"{http}/connectors", timeout=5).status_code == 200
        assert httpx.get(f"{https}/connectors", verify=trusting, timeout=5).status_code == 200
        assert httpx.get(f"{https}/admin/loggers", verify=trusting, timeout=5).status_code == 404
        assert httpx.get(f"{admin}/admin/loggers", verify=trusting, timeout=5).status_code == 200
        assert httpx.get(f"{admin}/connectors", verify=trusting, timeout=5).status_code == 404
        with pytest.raises(httpx.TransportError):
            httpx.get(https.replace("https:", "http:") + "/", timeout=5)


def test_rest_servers_start_all_or_none() -> None:
    port = free_port()
    blocker = socket.socket()
    blocker.bind(("127.0.0.1", port))
    blocker.listen()
    first = RestServer(create_app(FakeHerder()), "127.0.0.1", 0)
    try:
        with pytest.raises(RestServerError, match=f"port {port} on 127.0.0.1 is already in use"):
            RestServers([first, RestServer(create_app(FakeHerder()), "127.0.0.1", port)]).start()
        assert not first.is_running
    finally:
        blocker.close()


def test_peer_clients_refuse_https_when_the_tls_settings_were_refused(files: Files) -> None:
    refused = PeerTls(None, "Unsupported REST TLS setting ssl.truststore.location: cannot be read")
    composed = make(listeners="https://127.0.0.1:0", **files.pem())
    with RestServer(create_app(FakeHerder()), "127.0.0.1", 0,
                    ssl_context=composed.rest_ssl_context(composed.config.rest_listeners()[0])) as server:
        with peer_client(refused, 5) as client, pytest.raises(httpx.ConnectError, match=r"ssl\.truststore\.location"):
            client.get(f"{server.url}/")
        trusting = PeerTls(client_context({"ssl.truststore.type": "PEM", "ssl.truststore.location": str(files.ca_pem)}))
        with peer_client(trusting, 5) as client:
            assert client.get(f"{server.url}/").status_code == 200
