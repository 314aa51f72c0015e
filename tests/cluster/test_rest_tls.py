"""REST listeners as Kafka Connect configures them, on real worker processes and the session's broker:
https listeners with certificates made here by ``trustme``, http and https at once, ``ssl.client.auth``,
``admin.listeners`` (separate, or empty = disabled), and two https workers forming a cluster whose
follower forwards to the leader (and sends task configs to it) over TLS, presenting its keystore as a
client certificate because the leader requires one.

Worker A: ``https`` (client certificate required) + ``http`` listeners, advertised over https, and an
https admin listener with its own settings (a PKCS12 keystore, no client certificate).
Worker B: one https listener (client certificate required), admin endpoints disabled.
"""

from __future__ import annotations

import signal
import ssl
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
import trustme
from cryptography.hazmat.primitives.serialization import BestAvailableEncryption, load_pem_private_key, pkcs12
from cryptography.x509 import load_pem_x509_certificate

from connect_runtime.testing.cluster import ConnectClient, WorkerProcess, current_leader, wait_until
from connect_runtime.testing.local_kafka import free_port

pytestmark = [pytest.mark.kafka, pytest.mark.cluster]

FAST = {"session.timeout.ms": "4000", "heartbeat.interval.ms": "1000", "scheduled.rebalance.max.delay.ms": "0"}


@dataclass
class Certs:
    ca_pem: Path
    keystore_pem: Path
    keystore_p12: Path
    #: Trusts the test CA and presents a client certificate it issued.
    client: ssl.SSLContext
    #: Trusts the test CA, presents no certificate.
    no_cert: ssl.SSLContext
    #: Trusts another CA only.
    untrusting: ssl.SSLContext


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> Certs:
    d = tmp_path_factory.mktemp("certs")
    ca = trustme.CA()
    server = ca.issue_cert("127.0.0.1", "localhost")
    ca.cert_pem.write_to_path(str(d / "ca.pem"))
    server.private_key_and_cert_chain_pem.write_to_path(str(d / "keystore.pem"))
    key = load_pem_private_key(server.private_key_pem.bytes(), None)
    cert = load_pem_x509_certificate(server.cert_chain_pems[0].bytes())
    p12 = pkcs12.serialize_key_and_certificates(b"admin", key, cert, None,  # type: ignore[arg-type]
                                                BestAvailableEncryption(b"store-secret"))
    (d / "keystore.p12").write_bytes(p12)
    client = ssl.create_default_context(cafile=str(d / "ca.pem"))
    ca.issue_cert("test-client").configure_cert(client)
    untrusting = ssl.create_default_context()
    trustme.CA().configure_trust(untrusting)
    return Certs(d / "ca.pem", d / "keystore.pem", d / "keystore.p12", client,
                 ssl.create_default_context(cafile=str(d / "ca.pem")), untrusting)


def _https_settings(prefix: str, certs: Certs) -> dict[str, str]:
    return {
        f"{prefix}ssl.keystore.type": "PEM",
        f"{prefix}ssl.keystore.location": str(certs.keystore_pem),
        f"{prefix}ssl.truststore.type": "PEM",
        f"{prefix}ssl.truststore.location": str(certs.ca_pem),
        f"{prefix}ssl.client.auth": "required",
    }


@dataclass
class Cluster:
    a: WorkerProcess
    b: WorkerProcess
    a_http: str
    a_admin: str


@pytest.fixture(scope="module")
def cluster(kafka_bootstrap: str, tmp_path_factory: pytest.TempPathFactory, certs: Certs) -> Iterator[Cluster]:
    workdir = tmp_path_factory.mktemp("rest-tls")
    group = f"tls-{uuid.uuid4().hex[:8]}"
    a_https, a_http, a_admin, b_https = (free_port() for _ in range(4))
    a = WorkerProcess(kafka_bootstrap, workdir, group, verify=certs.client, extra={
        **FAST,
        "listeners": f"https://127.0.0.1:{a_https},http://127.0.0.1:{a_http}",
        "rest.advertised.listener": "https",
        **_https_settings("listeners.https.", certs),
        "admin.listeners": f"https://127.0.0.1:{a_admin}",
        "admin.listeners.https.ssl.keystore.type": "PKCS12",
        "admin.listeners.https.ssl.keystore.location": str(certs.keystore_p12),
        "admin.listeners.https.ssl.keystore.password": "store-secret",
    })
    b = WorkerProcess(kafka_bootstrap, workdir, group, verify=certs.client, extra={
        **FAST,
        "listeners": f"https://127.0.0.1:{b_https}",
        "admin.listeners": "",
        **_https_settings("listeners.https.", certs),
    })
    try:
        a.start()
        b.start()
        a.wait_ready(90)
        b.wait_ready(90)
        yield Cluster(a, b, f"http://127.0.0.1:{a_http}", f"https://127.0.0.1:{a_admin}")
    finally:
        for w in (a, b):
            w.signal(signal.SIGUSR1)  # thread dump into its log, for post-mortems
            w.kill()


def test_https_listener_needs_a_trusting_client_with_a_certificate(cluster: Cluster, certs: Certs) -> None:
    url = cluster.a.url
    assert url.startswith("https://")
    assert httpx.get(f"{url}/", verify=certs.client, timeout=10).status_code == 200
    with pytest.raises(httpx.ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
        httpx.get(f"{url}/", verify=certs.untrusting, timeout=10)
    # ssl.client.auth=required: the handshake (TLS 1.3: the first read) fails without a certificate.
    with pytest.raises(httpx.TransportError):
        httpx.get(f"{url}/", verify=certs.no_cert, timeout=10)
    # Plain HTTP to the https port gets no HTTP answer.
    with pytest.raises(httpx.TransportError):
        httpx.get(url.replace("https://", "http://") + "/", timeout=10)


def test_http_and_https_listeners_serve_at_once(cluster: Cluster, certs: Certs) -> None:
    plain = httpx.get(f"{cluster.a_http}/connectors", timeout=10)
    secure = httpx.get(f"{cluster.a.url}/connectors", verify=certs.client, timeout=10)
    assert (plain.status_code, secure.status_code) == (200, 200)
    # The worker advertises its https listener (rest.advertised.listener=https) to the cluster.
    leader = wait_until(lambda: current_leader(cluster.a.props["bootstrap.servers"],
                                               cluster.a.props["config.storage.topic"]),
                        30, message="a leader record")
    assert str(leader["url"]).startswith("https://127.0.0.1:")


def test_admin_listener_serves_admin_endpoints_alone(cluster: Cluster, certs: Certs) -> None:
    # Its own settings (admin.listeners.https.ssl.*: PKCS12 keystore, no client certificate needed).
    admin = httpx.get(f"{cluster.a_admin}/admin/loggers", verify=certs.no_cert, timeout=10)
    assert admin.status_code == 200 and "root" in admin.json()
    assert httpx.get(f"{cluster.a_admin}/connectors", verify=certs.no_cert, timeout=10).status_code == 404
    assert httpx.get(f"{cluster.a.url}/admin/loggers", verify=certs.client, timeout=10).status_code == 404
    assert httpx.get(f"{cluster.a_http}/admin/loggers", timeout=10).status_code == 404


def test_empty_admin_listeners_disable_admin_endpoints(cluster: Cluster, certs: Certs) -> None:
    b = ConnectClient(cluster.b.url, verify=certs.client)
    try:
        assert b.request("GET", "/admin/loggers").status_code == 404
        assert b.request("PUT", "/admin/loggers/root", json={"level": "DEBUG"}).status_code == 404
        assert b.request("GET", "/connectors").status_code == 200
    finally:
        b.close()


def test_https_workers_form_a_cluster_and_forward_to_the_leader(cluster: Cluster, certs: Certs,
                                                              kafka_bootstrap: str) -> None:
    leader = wait_until(lambda: current_leader(kafka_bootstrap, cluster.a.props["config.storage.topic"]),
                        30, message="a leader record")
    follower = cluster.b if str(leader["url"]) == cluster.a.url else cluster.a
    assert str(leader["url"]) in (cluster.a.url, cluster.b.url)
    client = ConnectClient(follower.url, verify=certs.client)
    try:
        names = [f"tls-{i}-{uuid.uuid4().hex[:6]}" for i in range(2)]
        for name in names:
            # Leader-only: the follower forwards it over https, presenting its keystore.
            created = client.request("POST", "/connectors", json={"name": name, "config": {
                "connector.class": "VerifiableSource", "topic": f"{name}-out", "tasks.max": "1",
                "throughput": "5", "topic.creation.default.replication.factor": "1",
                "topic.creation.default.partitions": "1"}})
            assert created.status_code == 201, created.text
            assert created.headers["location"].startswith(follower.url)
        # Each connector's worker sends its task configs to the leader (signed, over https); with two
        # connectors on two workers one of them is the follower's.
        statuses = [client.wait_running(name, 1, timeout_s=60) for name in names]
        owners = {s["connector"]["worker_id"] for s in statuses}
        assert len(owners) == 2, owners
        for name in names:
            assert client.request("DELETE", f"/connectors/{name}").status_code == 204
    finally:
        client.close()


@pytest.mark.parametrize(("extra", "key", "hint"), [
    ({"listeners.https.ssl.keystore.type": "JKS", "listeners.https.ssl.keystore.location": "ks.jks"},
     "listeners.https.ssl.keystore.type", "PKCS12"),
    ({}, "listeners.https.ssl.keystore.location", "needs a keystore"),
])
def test_refused_tls_settings_stop_start_up_with_one_line(kafka_bootstrap: str, tmp_path: Path,
                                                          extra: dict[str, str], key: str, hint: str) -> None:
    w = WorkerProcess(kafka_bootstrap, tmp_path, f"tls-bad-{uuid.uuid4().hex[:6]}", scheme="https", extra=extra)
    assert w.start().wait_exit() == 1
    log = w.log_path.read_text()
    assert "Traceback" not in log
    lines = [line for line in log.splitlines() if line.startswith("connect-distributed:")]
    assert len(lines) == 1 and key in lines[0] and hint in lines[0], log
