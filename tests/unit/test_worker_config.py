"""WorkerConfig: defaults, parsing of string values, one-line errors, and the derived views."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

import pydantic
import pytest
import trustme

from connect_runtime.api.errors import ConfigException
from connect_runtime.composition import compose_worker
from connect_runtime.config import worker_config as wc
from connect_runtime.config.worker_config import (
    ExactlyOnceSourceSupport,
    OverridePolicyName,
    WorkerConfig,
    WorkerConfigError,
    parse_listener,
    read_worker_properties,
)

REQUIRED = {
    "bootstrap.servers": "broker1:9092,broker2:9092",
    "group.id": "connect-cluster",
    "config.storage.topic": "connect-configs",
    "offset.storage.topic": "connect-offsets",
    "status.storage.topic": "connect-status",
}


@pytest.fixture(scope="module")
def tls(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """A PEM keystore for https listeners (an https listener without one is refused)."""
    keystore = tmp_path_factory.mktemp("tls") / "keystore.pem"
    trustme.CA().issue_cert("localhost").private_key_and_cert_chain_pem.write_to_path(str(keystore))
    return {"listeners.https.ssl.keystore.type": "PEM", "listeners.https.ssl.keystore.location": str(keystore)}


def make(**overrides: str) -> WorkerConfig:
    """A config from the required keys plus ``overrides`` (``group_id`` stands for ``group.id``)."""
    props = dict(REQUIRED)
    props.update({k.replace("_", "."): v for k, v in overrides.items()})
    return WorkerConfig.from_properties(props)


def error_for(props: dict[str, str]) -> str:
    """The one line a worker with these settings refuses to start with (parsing, or making its plugins)."""
    with pytest.raises(WorkerConfigError) as info:
        compose_worker({**REQUIRED, **props})
    message = str(info.value)
    assert "\n" not in message
    return message


def test_defaults() -> None:
    c = WorkerConfig.from_properties(REQUIRED)
    assert c.bootstrap_servers == "broker1:9092,broker2:9092"
    assert c.group_id == "connect-cluster"
    assert (c.config_storage_topic, c.offset_storage_topic, c.status_storage_topic) == (
        "connect-configs", "connect-offsets", "connect-status")
    assert c.config_storage_replication_factor == 3
    assert c.offset_storage_replication_factor == 3
    assert c.status_storage_replication_factor == 3
    assert c.offset_storage_partitions == 25
    assert c.status_storage_partitions == 5
    assert c.exactly_once_source_support is ExactlyOnceSourceSupport.DISABLED
    assert c.offset_flush_interval_ms == 60000
    assert c.offset_flush_timeout_ms == 5000
    assert c.task_shutdown_graceful_timeout_ms == 5000
    assert c.scheduled_rebalance_max_delay_ms == 300000
    assert c.session_timeout_ms == 10000
    assert c.heartbeat_interval_ms == 3000
    assert c.rebalance_timeout_ms == 60000
    assert c.inter_worker_key_generation_algorithm == "HmacSHA256"
    assert c.inter_worker_key_size is None
    assert c.inter_worker_key_ttl_ms == 3600000
    assert c.inter_worker_signature_algorithm == "HmacSHA256"
    assert c.inter_worker_verification_algorithms == ["HmacSHA256"]
    assert c.listeners == ["http://:8083"]
    assert c.rest_advertised_host_name is None
    assert c.rest_advertised_port is None
    assert c.rest_advertised_listener is None
    assert c.admin_listeners is None
    assert c.key_converter == "org.apache.kafka.connect.json.JsonConverter"
    assert c.value_converter == "org.apache.kafka.connect.json.JsonConverter"
    assert c.header_converter == "org.apache.kafka.connect.storage.SimpleHeaderConverter"
    assert c.connector_client_config_override_policy is OverridePolicyName.ALL
    assert c.config_providers == []
    assert c.topic_creation_enable is True
    assert c.topic_tracking_enable is True
    assert c.topic_tracking_allow_reset is True
    assert c.plugin_path is None
    assert c.client_id is None


def test_values_are_parsed_from_strings(tls: dict[str, str], tmp_path: Path) -> None:
    for d in "abc":
        (tmp_path / d).mkdir()
    c = WorkerConfig.from_properties({
        **REQUIRED,
        "offset.flush.interval.ms": " 1000 ",
        "session.timeout.ms": "30000",
        "heartbeat.interval.ms": "1000",
        "offset.storage.partitions": "-1",
        "status.storage.replication.factor": "-1",
        "config.storage.replication.factor": "1",
        "topic.creation.enable": "FALSE",
        "topic.tracking.enable": " false ",
        "topic.tracking.allow.reset": "True",
        "plugin.path": f" {tmp_path}/a , {tmp_path}/b,{tmp_path}/c ",
        "config.providers": "file, env",
        "config.providers.file.class": "FileConfigProvider",
        "config.providers.env.class": "org.apache.kafka.common.config.provider.EnvVarConfigProvider",
        "listeners": "http://localhost:8084, https://0.0.0.0:8443",
        **tls,
        "inter.worker.key.size": "256",
        "rest.advertised.port": "9000",
        "group.id": "  padded  ",
    })
    assert c.offset_flush_interval_ms == 1000
    assert c.session_timeout_ms == 30000
    assert c.heartbeat_interval_ms == 1000
    assert c.offset_storage_partitions == -1
    assert c.status_storage_replication_factor == -1
    assert c.config_storage_replication_factor == 1
    assert c.topic_creation_enable is False
    assert c.topic_tracking_enable is False
    assert c.topic_tracking_allow_reset is True
    assert c.plugin_path == [f"{tmp_path}/a", f"{tmp_path}/b", f"{tmp_path}/c"]
    assert c.config_providers == ["file", "env"]
    assert c.listeners == ["http://localhost:8084", "https://0.0.0.0:8443"]
    assert c.inter_worker_key_size == 256
    assert c.rest_advertised_port == 9000
    assert c.group_id == "padded"


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("disabled", ExactlyOnceSourceSupport.DISABLED),
        ("preparing", ExactlyOnceSourceSupport.PREPARING),
        ("enabled", ExactlyOnceSourceSupport.ENABLED),
        ("ENABLED", ExactlyOnceSourceSupport.ENABLED),
        (" Preparing ", ExactlyOnceSourceSupport.PREPARING),
    ],
)
def test_exactly_once_source_support_is_case_insensitive(
    raw: str, expected: ExactlyOnceSourceSupport,
) -> None:
    c = make(exactly_once_source_support=raw)
    assert c.exactly_once_source_support is expected
    assert c.exactly_once_source_support == expected.value  # a StrEnum compares equal to its value


def test_exactly_once_modes() -> None:
    disabled = make(exactly_once_source_support="disabled")
    preparing = make(exactly_once_source_support="preparing")
    enabled = make(exactly_once_source_support="enabled")
    assert [c.exactly_once_source_enabled for c in (disabled, preparing, enabled)] == [False, False, True]


def test_invalid_exactly_once_source_support_message() -> None:
    assert error_for({"exactly.once.source.support": "maybe"}) == (
        'Invalid value "maybe" for configuration exactly.once.source.support: '
        "must be one of disabled, preparing, enabled")


@pytest.mark.parametrize("key", sorted(REQUIRED))
def test_required_keys(key: str) -> None:
    props = {k: v for k, v in REQUIRED.items() if k != key}
    with pytest.raises(WorkerConfigError) as info:
        WorkerConfig.from_properties(props)
    assert str(info.value) == f'Missing required configuration "{key}" which has no default value.'
    assert info.value.key == key
    assert isinstance(info.value, ConfigException)


@pytest.mark.parametrize("key", ["group.id", "config.storage.topic", "bootstrap.servers"])
def test_required_keys_must_not_be_empty(key: str) -> None:
    assert error_for({key: "  "}) == f'Invalid value "  " for configuration {key}: must not be empty'


@pytest.mark.parametrize(
    ("key", "value", "expected"),
    [
        ("offset.flush.interval.ms", "abc", "must be a number of type LONG"),
        ("offset.flush.interval.ms", "1.5", "must be a number of type LONG"),
        ("offset.flush.interval.ms", "-1", "must be at least 0"),
        ("session.timeout.ms", "99999999999", "must be a number of type INT"),
        ("session.timeout.ms", "0", "must be at least 1"),
        ("scheduled.rebalance.max.delay.ms", "-5", "must be at least 0"),
        ("topic.creation.enable", "yes", "must be true or false"),
        ("topic.tracking.enable", "1", "must be true or false"),
        ("config.storage.replication.factor", "0", "replication factor must be at least 1, or -1"),
        ("offset.storage.replication.factor", "-2", "replication factor must be at least 1, or -1"),
        ("status.storage.replication.factor", "40000", "must be a number of type SHORT"),
        ("offset.storage.partitions", "0", "number of partitions must be at least 1, or -1"),
        ("status.storage.partitions", "-3", "number of partitions must be at least 1, or -1"),
        ("inter.worker.key.generation.algorithm", "Rot13", "must be one of HmacMD5, HmacSHA1"),
        ("inter.worker.key.size", "32", "must be at least 40"),
        ("inter.worker.verification.algorithms", "", "at least one signature verification algorithm"),
        ("inter.worker.verification.algorithms", "HmacSHA256,Nope", "must be one of"),
        ("listeners", "", "at least one listener"),
        ("listeners", "ftp://host:21", "must start with http:// or https://"),
        ("listeners", "http://host", "must name a port"),
        ("listeners", "http://host:notaport", "invalid port"),
        ("listeners", "http://host:8083/path", "must be just scheme://host:port"),
        ("admin.listeners", "http://host", "must name a port"),
        ("rest.advertised.listener", "ftp", "must be one of http, https"),
        ("rest.advertised.port", "0", "between 1 and 65535"),
        ("rest.advertised.port", "x", "must be a number of type INT"),
        ("connector.client.config.override.policy", "Some", "must be one of All, None, Principal"),
    ],
)
def test_invalid_values(key: str, value: str, expected: str) -> None:
    message = error_for({key: value})
    assert message.startswith(f'Invalid value "{value}" for configuration {key}: ')
    assert expected in message


def test_heartbeat_must_be_below_session_timeout() -> None:
    assert error_for({"heartbeat.interval.ms": "10000"}) == (
        'Invalid value "10000" for configuration heartbeat.interval.ms: '
        "must be lower than session.timeout.ms (10000)")
    assert make(heartbeat_interval_ms="9999").heartbeat_interval_ms == 9999


def test_signature_algorithm_must_be_a_verification_algorithm() -> None:
    assert error_for({"inter.worker.signature.algorithm": "HmacSHA512"}) == (
        'Invalid value "HmacSHA512" for configuration inter.worker.signature.algorithm: '
        "must be one of the algorithms in inter.worker.verification.algorithms (HmacSHA256)")
    c = WorkerConfig.from_properties({
        **REQUIRED,
        "inter.worker.signature.algorithm": "hmacsha512",
        "inter.worker.verification.algorithms": "HmacSHA256, HMACSHA512",
        "inter.worker.key.generation.algorithm": "HmacSHA384",
    })
    assert c.inter_worker_signature_algorithm == "HmacSHA512"  # normalised to the Java name
    assert c.inter_worker_verification_algorithms == ["HmacSHA256", "HmacSHA512"]
    assert c.inter_worker_key_generation_algorithm == "HmacSHA384"
    assert wc.HMAC_ALGORITHMS[c.inter_worker_signature_algorithm] == "sha512"


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("All", OverridePolicyName.ALL),
        ("none", OverridePolicyName.NONE),
        ("Principal", OverridePolicyName.PRINCIPAL),
        ("PrincipalConnectorClientConfigOverridePolicy", OverridePolicyName.PRINCIPAL),
        ("org.apache.kafka.connect.connector.policy.NoneConnectorClientConfigOverridePolicy",
         OverridePolicyName.NONE),
    ],
)
def test_override_policy_spellings(raw: str, expected: OverridePolicyName) -> None:
    c = make(connector_client_config_override_policy=raw)
    assert c.connector_client_config_override_policy is expected


def test_empty_optional_values_mean_unset() -> None:
    c = WorkerConfig.from_properties({
        **REQUIRED, "rest.advertised.host.name": "", "rest.advertised.port": " ",
        "rest.advertised.listener": "", "client.id": "", "inter.worker.key.size": "",
    })
    assert c.rest_advertised_host_name is None
    assert c.rest_advertised_port is None
    assert c.rest_advertised_listener is None
    assert c.client_id is None
    assert c.inter_worker_key_size is None


def test_admin_listeners_empty_disables_them() -> None:
    assert make(admin_listeners="").admin_listeners == []
    assert make(admin_listeners="http://localhost:9093").admin_listeners == ["http://localhost:9093"]


def test_unknown_keys_are_kept_in_originals() -> None:
    props = {**REQUIRED, "security.protocol": "SASL_SSL", "my.custom.key": "x"}
    c = WorkerConfig.from_properties(props)
    assert c.originals == props
    c.originals["group.id"] = "changed"  # a copy: the config does not change
    assert c.originals["group.id"] == "connect-cluster"


def test_config_is_frozen() -> None:
    c = WorkerConfig.from_properties(REQUIRED)
    with pytest.raises(pydantic.ValidationError):
        c.group_id = "other"  # type: ignore[misc]


def test_error_is_a_config_exception_with_key_and_value() -> None:
    with pytest.raises(ConfigException) as info:
        WorkerConfig.from_properties({**REQUIRED, "offset.storage.partitions": "many"})
    assert isinstance(info.value, WorkerConfigError)
    assert info.value.key == "offset.storage.partitions"
    assert info.value.value == "many"


def test_first_error_in_definition_order_is_reported() -> None:
    message = error_for({"group.id": "", "offset.flush.interval.ms": "x"})
    assert "group.id" in message
    assert "offset.flush.interval.ms" not in message


def test_transactional_ids() -> None:
    c = WorkerConfig.from_properties(REQUIRED)
    assert c.leader_transactional_id == "connect-cluster-connect-cluster"
    assert c.task_transactional_id("orders", 3) == "connect-cluster-orders-3"


# --- derived views -------------------------------------------------------------------------------


def test_client_props() -> None:
    c = WorkerConfig.from_properties({
        **REQUIRED,
        "security.protocol": "SASL_SSL",
        "sasl.mechanism": "PLAIN",
        "ssl.ca.location": "/etc/ca.pem",
        "producer.linger.ms": "5",
        "producer.sasl.mechanism": "SCRAM-SHA-512",
        "consumer.fetch.min.bytes": "10",
        "admin.request.timeout.ms": "1000",
        "admin.listeners": "http://localhost:9093",
        "admin.listeners.https.ssl.keystore.location": "/etc/ks",
        "offset.flush.interval.ms": "1000",
        "unrelated.key": "x",
    })
    base = {
        "bootstrap.servers": "broker1:9092,broker2:9092",
        "security.protocol": "SASL_SSL",
        "sasl.mechanism": "PLAIN",
        "ssl.ca.location": "/etc/ca.pem",
    }
    assert c.client_props("producer.") == {**base, "linger.ms": "5", "sasl.mechanism": "SCRAM-SHA-512"}
    assert c.client_props("consumer.") == {**base, "fetch.min.bytes": "10"}
    assert c.client_props("admin.") == {**base, "request.timeout.ms": "1000"}
    assert c.client_props("admin") == c.client_props("admin.")


def test_the_worker_s_connection_settings_reach_every_client() -> None:
    """As Java's DistributedConfig / WorkerConfig: DNS and metadata recovery settings of the worker file
    configure the worker's clients (they were dropped)."""
    c = WorkerConfig.from_properties({**REQUIRED, "client.dns.lookup": "resolve_canonical_bootstrap_servers_only",
                                      "metadata.recovery.strategy": "rebootstrap",
                                      "metadata.recovery.rebootstrap.trigger.ms": "60000"})
    for kind in ("producer", "consumer", "admin"):
        settings = c.client_settings(kind)
        assert settings["client.dns.lookup"] == "resolve_canonical_bootstrap_servers_only"
        assert settings["metadata.recovery.strategy"] == "rebootstrap"
        assert str(settings["metadata.recovery.rebootstrap.trigger.ms"]) == "60000"


@pytest.mark.parametrize(("client_id", "base"), [
    (None, "connect-cluster-"), ("", "connect-cluster-"), (" w1 ", "connect-cluster-w1-")])
def test_the_worker_s_own_clients_are_named_as_java_names_them(client_id: str | None, base: str) -> None:
    """``client.id`` names the worker's own clients, as Java's ConnectUtils.clientIdBase."""
    c = WorkerConfig.from_properties({**REQUIRED, **({"client.id": client_id} if client_id is not None else {}),
                                      "consumer.fetch.min.bytes": "10"})
    assert c.client_id_base == base
    settings = c.internal_client_settings("consumer", "offsets")
    assert settings["client.id"] == base + "offsets"
    assert settings["fetch.min.bytes"] == c.client_settings("consumer")["fetch.min.bytes"]
    # Tasks' clients are named by the worker after the connector, as Java's: the base is not theirs.
    assert "client.id" not in c.client_settings("producer")


def test_client_props_prefixed_bootstrap_servers_wins() -> None:
    c = make(producer_bootstrap_servers="other:9092")
    assert c.client_props("producer.")["bootstrap.servers"] == "other:9092"
    assert c.client_props("consumer.")["bootstrap.servers"] == "broker1:9092,broker2:9092"


def test_topic_settings() -> None:
    c = WorkerConfig.from_properties({
        **REQUIRED,
        "config.storage.replication.factor": "1",
        "config.storage.min.insync.replicas": "2",
        "offset.storage.partitions": "10",
        "offset.storage.segment.ms": "1000",
        "offset.storage.cleanup.policy": "compact",
        "status.storage.retention.ms": "-1",
    })
    assert c.topic_settings("config.storage.") == {"min.insync.replicas": "2", "cleanup.policy": "compact"}
    assert c.topic_settings("offset.storage.") == {"segment.ms": "1000", "cleanup.policy": "compact"}
    assert c.topic_settings("status.storage") == {"retention.ms": "-1", "cleanup.policy": "compact"}
    with pytest.raises(ValueError, match="prefix"):
        c.topic_settings("producer.")


@pytest.mark.parametrize(("key", "value", "reason"), [
    ("config.storage.partitions", "3", "the config topic always has exactly 1 partition"),
    ("config.storage.cleanup.policy", "delete", "internal topics are always created with cleanup.policy=compact"),
    ("offset.storage.cleanup.policy", "compact,delete", "cleanup.policy=compact"),
    ("status.storage.cleanup.policy", "delete", "cleanup.policy=compact"),
    ("internal.key.converter", "org.apache.kafka.connect.json.JsonConverter", "removed in Kafka Connect 3.0"),
    ("internal.value.converter.schemas.enable", "false", "have no effect"),
    ("metric.reporters", "org.apache.kafka.common.metrics.JmxReporter", "reporter classes cannot run"),
    ("connect.protocol", "eager", "always uses the sessioned protocol"),
    ("connect.protocol", "compatible", "always uses the sessioned protocol"),
    ("worker.sync.timeout.ms", "10000", "no resynchronisation step"),
    ("worker.unsync.backoff.ms", "1000", "no resynchronisation step"),
    ("metrics.recording.level", "DEBUG", "every Kafka Connect metric is recorded at INFO"),
    ("rest.host.name", "localhost", "set listeners"),
    ("rest.port", "8083", "set listeners"),
    ("producer.transactional.id", "mine", "names its transactional producers itself"),
])
def test_settings_the_worker_would_ignore_are_refused(key: str, value: str, reason: str) -> None:
    """The reference ignores these (with a warning), or reads them for what this runtime does not have;
    we refuse them at start-up, in one line (a setting is honoured or refused)."""
    with pytest.raises(WorkerConfigError) as raised:
        WorkerConfig.from_properties({**REQUIRED, key: value})
    line = str(raised.value)
    assert line.startswith(f'Invalid value "{value}" for configuration {key}: ') and reason in line, line
    assert raised.value.key == key and "\n" not in str(raised.value)


def test_worker_settings_that_ask_for_nothing_are_accepted() -> None:
    """Java's defaults ask for nothing this runtime lacks: an existing worker file that spells them out starts."""
    WorkerConfig.from_properties({**REQUIRED, "connect.protocol": "Sessioned", "worker.sync.timeout.ms": "3000",
                                  "worker.unsync.backoff.ms": "300000", "metrics.sample.window.ms": "30000",
                                  "metrics.num.samples": "2", "metrics.recording.level": "info"})


def test_metric_windows_are_honoured_and_bounded_as_javas() -> None:
    """metrics.num.samples (at least 1) and metrics.sample.window.ms (at least 0) shape every windowed stat."""
    config = WorkerConfig.from_properties({**REQUIRED, "metrics.num.samples": "3", "metrics.sample.window.ms": "5000"})
    assert (config.metric_config.samples, config.metric_config.window_ms) == (3, 5000)
    defaults = WorkerConfig.from_properties(REQUIRED).metric_config
    assert (defaults.samples, defaults.window_ms) == (2, 30000)
    for key, value in (("metrics.num.samples", "0"), ("metrics.sample.window.ms", "-1")):
        with pytest.raises(WorkerConfigError) as raised:
            WorkerConfig.from_properties({**REQUIRED, key: value})
        assert raised.value.key == key


def test_unknown_settings_are_named_in_one_warning(caplog: pytest.LogCaptureFixture) -> None:
    """A misspelt key would otherwise do nothing in silence (Java's clients warn about it too)."""
    with caplog.at_level(logging.WARNING, logger="connect_runtime.composition"):
        compose_worker({**REQUIRED, "sesion.timeout.ms": "30000", "my.extension.realm": "x"}).close()
    (record,) = caplog.records
    assert record.getMessage().endswith("(check their spelling): my.extension.realm, sesion.timeout.ms")


def test_a_full_worker_file_raises_no_unknown_settings_warning(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="connect_runtime.composition"):
        compose_worker({
            **REQUIRED, "session.timeout.ms": "30000", "security.protocol": "PLAINTEXT", "client.id": "w",
            "request.timeout.ms": "20000", "sasl.mechanism": "PLAIN", "ssl.client.auth": "none",
            "producer.linger.ms": "5", "consumer.fetch.min.bytes": "1", "admin.request.timeout.ms": "3000",
            "admin.listeners": "http://127.0.0.1:9093", "listeners.https.ssl.keystore.type": "PEM",
            "offset.storage.partitions": "5", "status.storage.retention.ms": "-1", "config.storage.partitions": "1",
            "key.converter.schemas.enable": "false", "value.converter.schemas.enable": "false",
            "connect.protocol": "sessioned", "metric.reporters": "", "plugin.discovery": "hybrid_warn"}).close()
    assert caplog.records == []


def test_internal_topic_settings_the_worker_honours_pass_silently(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="connect_runtime.config.worker_config"):
        c = WorkerConfig.from_properties({**REQUIRED, "offset.storage.cleanup.policy": "compact",
                                          "config.storage.cleanup.policy": " Compact ",
                                          "config.storage.partitions": "1", "metric.reporters": ""})
    assert caplog.records == []
    assert "partitions" not in c.topic_settings("config.storage.")
    assert c.topic_settings("config.storage.")["cleanup.policy"] == "compact"


def test_default_api_timeout_bounds_start_up() -> None:
    assert WorkerConfig.from_properties(REQUIRED).default_api_timeout_ms == 60000
    assert WorkerConfig.from_properties({**REQUIRED, "default.api.timeout.ms": "2500"}).default_api_timeout_ms == 2500
    with pytest.raises(WorkerConfigError, match=r"default\.api\.timeout\.ms"):
        WorkerConfig.from_properties({**REQUIRED, "default.api.timeout.ms": "-1"})


def test_converter_settings() -> None:
    c = WorkerConfig.from_properties({
        **REQUIRED,
        "value.converter": "org.apache.kafka.connect.storage.StringConverter",
        "value.converter.schemas.enable": "false",
        "key.converter.schemas.enable": "true",
        "key.converter.extra": "1",
    })
    assert c.converter_settings("key") == (
        "org.apache.kafka.connect.json.JsonConverter", {"schemas.enable": "true", "extra": "1"})
    assert c.converter_settings("value") == (
        "org.apache.kafka.connect.storage.StringConverter", {"schemas.enable": "false"})
    assert c.converter_settings("header") == ("org.apache.kafka.connect.storage.SimpleHeaderConverter", {})
    with pytest.raises(ValueError, match="kind"):
        c.converter_settings("body")


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("http://:8083", ("http", "", 8083)),
        ("http://localhost:8084", ("http", "localhost", 8084)),
        ("HTTPS://Host.Example:443/", ("https", "host.example", 443)),
        ("http://[::1]:8083", ("http", "::1", 8083)),
        ("http://0.0.0.0:0", ("http", "0.0.0.0", 0)),
    ],
)
def test_parse_listener(url: str, expected: tuple[str, str, int]) -> None:
    assert parse_listener(url) == expected



def test_advertised_url_defaults_to_the_machine_host_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(wc.socket, "gethostname", lambda: "worker7")
    c = WorkerConfig.from_properties(REQUIRED)
    assert c.advertised_url() == "http://worker7:8083"
    assert c.worker_id() == "worker7:8083"


def test_advertised_url_uses_the_listener_host() -> None:
    c = make(listeners="http://10.0.0.5:8084")
    assert c.advertised_url() == "http://10.0.0.5:8084"
    assert c.worker_id() == "10.0.0.5:8084"


def test_advertised_overrides() -> None:
    c = make(listeners="http://:8083", rest_advertised_host_name="public.example", rest_advertised_port="80")
    assert c.advertised_url() == "http://public.example:80"
    assert c.worker_id() == "public.example:80"


def test_advertised_listener_picks_the_matching_listener(tls: dict[str, str]) -> None:
    both = "http://a:8083,https://b:8443"
    assert make(listeners=both, **tls).advertised_url() == "http://a:8083"  # http wins when present
    assert make(listeners=both, rest_advertised_listener="HTTPS", **tls).advertised_url() == "https://b:8443"
    assert make(listeners="https://c:8443", **tls).advertised_url() == "https://c:8443"


def test_advertised_ipv6_host_is_bracketed() -> None:
    c = make(listeners="http://[::1]:8083")
    assert c.advertised_url() == "http://[::1]:8083"
    assert c.worker_id() == "[::1]:8083"


# --- loading a file --------------------------------------------------------------------------------


def write_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "worker.properties"
    path.write_text(text, encoding="utf-8")
    return path


WORKER_FILE = """\
# sample
bootstrap.servers=localhost:9092
group.id=connect-cluster
config.storage.topic=connect-configs
offset.storage.topic=connect-offsets
status.storage.topic=connect-status
exactly.once.source.support=preparing
value.converter.schemas.enable=false
"""


def _load(path: str | Path, overrides: Sequence[str] = ()) -> WorkerConfig:
    return WorkerConfig.from_properties(read_worker_properties(path, overrides))


def test_a_worker_file_is_read_and_parsed(tmp_path: Path) -> None:
    c = _load(write_file(tmp_path, WORKER_FILE))
    assert c.group_id == "connect-cluster"
    assert c.exactly_once_source_support is ExactlyOnceSourceSupport.PREPARING
    assert c.originals["value.converter.schemas.enable"] == "false"


def test_overrides_apply_after_the_file_in_order(tmp_path: Path) -> None:
    c = _load(
        write_file(tmp_path, WORKER_FILE),
        ["exactly.once.source.support=enabled", "listeners=http://:9000", " group.id =a=b",
         "listeners=http://:9001"],
    )
    assert c.exactly_once_source_support is ExactlyOnceSourceSupport.ENABLED
    assert c.listeners == ["http://:9001"]
    assert c.group_id == "a=b"  # split at the first '='; the key is trimmed


def test_override_can_supply_a_required_key(tmp_path: Path) -> None:
    path = write_file(tmp_path, WORKER_FILE.replace("group.id=connect-cluster\n", ""))
    with pytest.raises(WorkerConfigError, match=r'"group\.id"'):
        _load(path)
    assert _load(path, ["group.id=g2"]).group_id == "g2"


@pytest.mark.parametrize("override", ["no-equals-sign", "=value", "  =x"])
def test_override_without_key_value_is_an_error(tmp_path: Path, override: str) -> None:
    with pytest.raises(WorkerConfigError, match="expected key=value"):
        _load(write_file(tmp_path, WORKER_FILE), [override])


def test_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "nope.properties"
    with pytest.raises(WorkerConfigError) as info:
        _load(path)
    assert str(info.value) == f"Worker config file {path} does not exist"


def test_unreadable_file(tmp_path: Path) -> None:
    with pytest.raises(WorkerConfigError, match="Cannot read worker config file"):
        _load(tmp_path)  # a directory


def test_malformed_file(tmp_path: Path) -> None:
    with pytest.raises(WorkerConfigError, match="is malformed: Malformed"):
        _load(write_file(tmp_path, WORKER_FILE + "client.id=\\uXYZW\n"))


def test_invalid_value_in_file(tmp_path: Path) -> None:
    with pytest.raises(WorkerConfigError) as info:
        _load(write_file(tmp_path, WORKER_FILE), ["exactly.once.source.support=maybe"])
    assert str(info.value).startswith('Invalid value "maybe" for configuration exactly.once.source.support')
