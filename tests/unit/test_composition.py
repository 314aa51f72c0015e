"""The composition root: parsing a worker config makes nothing; composing a worker makes its config
providers, override policy, TLS contexts and log redaction, and closing it ends each of them."""

from __future__ import annotations

import logging
import ssl
from collections.abc import Iterator, Mapping, Set
from pathlib import Path
from typing import Any

import pytest
import trustme

from connect_runtime.api.config_provider import ConfigProvider
from connect_runtime.api.override_policy import ConnectorClientConfigOverridePolicy, ConnectorClientConfigRequest
from connect_runtime.composition import compose_worker
from connect_runtime.config.worker_config import WorkerConfig, WorkerConfigError
from connect_runtime.redaction import redactor

SECRET = "hunter2-resolved-secret"


class Provider(ConfigProvider):
    """Resolves every key to :data:`SECRET`; remembers its instances and whether each was closed."""

    instances: list[Provider] = []

    def __init__(self) -> None:
        self.closed = False
        Provider.instances.append(self)

    def configure(self, configs: Mapping[str, str]) -> None:
        pass

    def get(self, path: str, keys: Set[str]) -> Mapping[str, str]:
        return dict.fromkeys(keys, SECRET)

    def close(self) -> None:
        self.closed = True


class Policy(ConnectorClientConfigOverridePolicy):
    """Allows everything; remembers its instances and whether each was closed."""

    policy_name = "Recording"
    instances: list[Policy] = []

    def __init__(self) -> None:
        self.closed = False
        Policy.instances.append(self)

    def is_allowed(self, name: str, value: str, request: ConnectorClientConfigRequest) -> bool:
        return True

    def close(self) -> None:
        self.closed = True


class _Contexts:
    """Counts the TLS contexts built in the process."""

    built = 0


@pytest.fixture
def contexts(monkeypatch: pytest.MonkeyPatch) -> _Contexts:
    counting = _Contexts()
    real_new = ssl.SSLContext.__new__

    def counting_new(cls: type[ssl.SSLContext], *args: Any, **kwargs: Any) -> ssl.SSLContext:
        counting.built += 1
        return real_new(cls, *args, **kwargs)

    monkeypatch.setattr(ssl.SSLContext, "__new__", staticmethod(counting_new))
    return counting


@pytest.fixture
def registrations(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """The owners registered with the process's log redactor while the test runs."""
    owners: list[object] = []
    register = redactor.register

    def recording(owner: Any, resolved: Any) -> None:
        owners.append(owner)
        register(owner, resolved)

    monkeypatch.setattr(redactor, "register", recording)
    return owners


@pytest.fixture(autouse=True)
def _fresh() -> Iterator[None]:
    Provider.instances.clear()
    Policy.instances.clear()
    yield


@pytest.fixture(scope="module")
def keystore(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("tls") / "keystore.pem"
    trustme.CA().issue_cert("localhost").private_key_and_cert_chain_pem.write_to_path(str(path))
    return path


def _props(keystore: Path, **extra: str) -> dict[str, str]:
    """A worker file with a provider placeholder, a policy class and an https listener."""
    return {
        "bootstrap.servers": "b:9092", "group.id": "g", "config.storage.topic": "c", "offset.storage.topic": "o",
        "status.storage.topic": "s", "plugin.allowed.packages": __name__,
        "config.providers": "p", "config.providers.p.class": f"{__name__}.Provider",
        "consumer.client.id": "${p:vault:id}",
        "connector.client.config.override.policy": f"{__name__}.Policy",
        "listeners": "https://127.0.0.1:0", "listeners.https.ssl.keystore.type": "PEM",
        "listeners.https.ssl.keystore.location": str(keystore), **extra,
    }


def test_parsing_the_config_makes_nothing(keystore: Path, contexts: _Contexts, registrations: list[object]) -> None:
    config = WorkerConfig.from_properties(_props(keystore))
    assert config.originals["consumer.client.id"] == "${p:vault:id}"  # left for the root to resolve
    assert Provider.instances == [] and Policy.instances == []
    assert registrations == []
    assert contexts.built == 0


def test_the_root_makes_the_parts_and_closes_what_it_made(
    keystore: Path, contexts: _Contexts, registrations: list[object], caplog: pytest.LogCaptureFixture
) -> None:
    composed = compose_worker(_props(keystore))
    (provider,), (policy,) = Provider.instances, Policy.instances
    assert composed.config.originals["consumer.client.id"] == SECRET
    assert composed.plugins.config_transformer.transform({"x": "${p:a:b}"}).data == {"x": SECRET}
    assert composed.plugins.override_policy is policy
    assert contexts.built >= 2  # the https listener's and the peer client's
    assert composed.rest_ssl_context(composed.config.rest_listeners()[0]) is not None
    assert len(registrations) == 1
    with caplog.at_level(logging.INFO):
        logging.getLogger("test.composition").info("using %s", SECRET)
    assert SECRET not in caplog.text

    composed.close()
    assert provider.closed and policy.closed
    caplog.clear()
    with caplog.at_level(logging.INFO):
        logging.getLogger("test.composition").info("using %s", SECRET)
    assert SECRET in caplog.text  # no longer redacted: the worker's registration ended with it
    composed.close()  # a second close does nothing


def test_a_refused_worker_closes_what_was_made_before_the_refusal(keystore: Path,
                                                                 caplog: pytest.LogCaptureFixture) -> None:
    # The policy is made after the config parses; the https listener without a keystore is refused after it.
    props = _props(keystore, **{"admin.listeners": "https://127.0.0.1:0"})
    with pytest.raises(WorkerConfigError, match="An https listener needs a keystore"):
        compose_worker(props)
    (provider,), (policy,) = Provider.instances, Policy.instances
    assert provider.closed and policy.closed
    with caplog.at_level(logging.INFO):
        logging.getLogger("test.composition").info("using %s", SECRET)
    assert SECRET in caplog.text
