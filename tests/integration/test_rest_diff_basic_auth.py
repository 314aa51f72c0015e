"""HTTP Basic authentication (Kafka's ``BasicAuthSecurityRestExtension``) against Apache Kafka Connect's
(harness: rest_differential.py): a Java worker of its own with the extension on its classpath and ours,
both reading the same JAAS file and credentials, sent the same ``Authorization`` headers.
"""

from __future__ import annotations

import base64
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from rest_differential import Differential, Req

from connect_runtime.testing import WorkerProcess, wait_until
from connect_runtime.testing.java_connect import JavaConnectWorker, ensure_basic_auth_jar, ensure_connect_jars
from rest.basic_auth import JAAS_CONFIG_FILE_CONFIG, JAVA_CLASS_NAME

pytestmark = [pytest.mark.kafka]

USER, PASSWORD = "alice", "s3cret"


def basic(credentials: str) -> dict[str, str]:
    return {"Authorization": "Basic " + base64.b64encode(credentials.encode()).decode()}


GOOD = basic(f"{USER}:{PASSWORD}")


@pytest.fixture(scope="module")
def jaas_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A JAAS file whose ``KafkaConnect`` entry reads the credentials with Kafka's PropertyFileLoginModule."""
    directory = tmp_path_factory.mktemp("basic-auth")
    users = directory / "users.properties"
    users.write_text(f"{USER}={PASSWORD}\n")
    jaas = directory / "jaas.conf"
    jaas.write_text("KafkaConnect {\n  org.apache.kafka.connect.rest.basic.auth.extension.PropertyFileLoginModule "
                    f'required\n  file="{users}";\n}};\n')
    return jaas


@pytest.fixture(scope="module")
def auth_diff(kafka_bootstrap: str, tmp_path_factory: pytest.TempPathFactory,
              jaas_file: Path) -> Iterator[Differential]:
    """The harness on a Java worker and one of ours, each of a group of its own, both authenticating."""
    group = f"transport-auth-{uuid.uuid4().hex[:8]}"
    java = JavaConnectWorker(ensure_connect_jars(), kafka_bootstrap, tmp_path_factory.mktemp("java-auth"),
                             f"java-{group}", extra={"rest.extension.classes": JAVA_CLASS_NAME},
                             extra_classpath=[ensure_basic_auth_jar()],
                             jvm_opts=[f"-Djava.security.auth.login.config={jaas_file}"])
    ours = WorkerProcess(kafka_bootstrap, tmp_path_factory.mktemp("ours-auth"), group, extra={
        "rest.extension.classes": JAVA_CLASS_NAME, JAAS_CONFIG_FILE_CONFIG: str(jaas_file)})
    try:
        java.start()
        ours.start()
        java.wait_ready(headers=GOOD)
        wait_until(lambda: httpx.get(f"{ours.url}/connectors", headers=GOOD, timeout=2).status_code == 200, 60,
                   message="our authenticating worker to be ready")
        diff = Differential(java.url, ours.url)
        yield diff
        diff.close()
    finally:
        ours.stop()
        java.stop()


def test_basic_authentication(auth_diff: Differential) -> None:
    auth_diff.send_all([
        Req("transport-auth-good", "GET", "/connectors", headers=GOOD),
        Req("transport-auth-missing", "GET", "/connectors"),
        Req("transport-auth-wrong-password", "GET", "/connectors", headers=basic(f"{USER}:wrong")),
        Req("transport-auth-unknown-user", "GET", "/connectors", headers=basic(f"bob:{PASSWORD}")),
        Req("transport-auth-no-colon", "GET", "/connectors", headers=basic(USER)),
        Req("transport-auth-other-scheme", "GET", "/connectors", headers={"Authorization": f"Bearer {PASSWORD}"}),
        Req("transport-auth-not-base64", "GET", "/connectors", headers={"Authorization": "Basic !!not-base64!!"}),
        Req("transport-auth-health", "GET", "/health"),
        Req("transport-auth-root", "GET", "/"),
        Req("transport-auth-unknown-path", "GET", "/nope"),
        Req("transport-auth-options", "OPTIONS", "/connectors"),
        Req("transport-auth-options-json", "OPTIONS", "/connectors", headers={"Accept": "application/json"}),
        Req("transport-auth-method-not-served", "DELETE", "/connectors"),
        Req("transport-auth-head", "HEAD", "/connectors"),
        Req("transport-auth-good-unknown", "GET", "/connectors/transport-nope", headers=GOOD),
        # The internal endpoints are authenticated by their KIP-507 signatures instead.
        Req("transport-auth-internal-fence", "PUT", "/connectors/transport-nope/fence"),
    ])
    auth_diff.assert_same()
