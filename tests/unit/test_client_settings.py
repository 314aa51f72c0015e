"""Java client settings translated for librdkafka; those without an equivalent refused by name."""

from __future__ import annotations

import pytest

from connect_runtime.config.client_settings import (
    ClientSettingError,
    client_setting_problems,
    parse_jaas_config,
    translate_client_settings,
)
from connect_runtime.config.worker_config import WorkerConfig, WorkerConfigError

PLAIN_JAAS = ('org.apache.kafka.common.security.plain.PlainLoginModule required '
              'username="connect" password="s3cr\\"et";')


def _problem_keys(settings: dict[str, str], kind: str) -> list[str]:
    return [p.key for p in client_setting_problems(settings, kind)]


def test_sasl_plain_jaas_becomes_username_and_password() -> None:
    out = translate_client_settings({"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN",
                                     "sasl.jaas.config": PLAIN_JAAS}, "producer")
    assert out == {"security.protocol": "SASL_PLAINTEXT", "sasl.mechanisms": "PLAIN",
                   "sasl.username": "connect", "sasl.password": 's3cr"et'}


def test_scram_jaas_unquoted_words_and_other_flags() -> None:
    jaas = "org.apache.kafka.common.security.scram.ScramLoginModule requisite username=alice password=pw ;"
    out = translate_client_settings({"sasl.mechanism": "SCRAM-SHA-512", "sasl.jaas.config": jaas}, "consumer")
    assert out == {"sasl.mechanisms": "SCRAM-SHA-512", "sasl.username": "alice", "sasl.password": "pw"}


@pytest.mark.parametrize(("jaas", "needle"), [
    ('com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true keyTab="/k" principal="p";',
     "sasl.kerberos.keytab"),
    ("org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required;", "sasl.oauthbearer.method"),
    ('org.apache.kafka.common.security.plain.PlainLoginModule required username="u";', "username and password"),
    ('org.apache.kafka.common.security.scram.ScramLoginModule required username="u" password="p" '
     'tokenauth="true";', "tokenauth"),
    ('org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="p"', "end with ';'"),
    ('org.apache.kafka.common.security.plain.PlainLoginModule required username="u password=p;', "quotes"),
    ('a.B required; c.D required;', "exactly one login module"),
])
def test_other_jaas_configs_are_refused_with_a_hint(jaas: str, needle: str) -> None:
    problems = client_setting_problems({"sasl.jaas.config": jaas}, "producer")
    assert [p.key for p in problems] == ["sasl.jaas.config"]
    assert needle in problems[0].message
    assert "password=" not in problems[0].message  # never the value: it holds a secret


def test_jaas_parser() -> None:
    assert parse_jaas_config('x.Y optional a="1 2" b=c;') == ("x.Y", {"a": "1 2", "b": "c"})


def test_pem_truststore_and_keystore() -> None:
    out = translate_client_settings({
        "security.protocol": "SSL", "ssl.truststore.type": "PEM", "ssl.truststore.location": "/ca.pem",
        "ssl.keystore.type": "PEM", "ssl.keystore.location": "/client.pem", "ssl.key.password": "kp",
        "ssl.endpoint.identification.algorithm": ""}, "admin")
    assert out == {"security.protocol": "SSL", "ssl.ca.location": "/ca.pem",
                   "ssl.certificate.location": "/client.pem", "ssl.key.location": "/client.pem",
                   "ssl.key.password": "kp", "ssl.endpoint.identification.algorithm": "none"}
    out = translate_client_settings({
        "ssl.truststore.type": "PEM", "ssl.truststore.certificates": "-----BEGIN CERTIFICATE-----",
        "ssl.keystore.type": "PEM", "ssl.keystore.certificate.chain": "CHAIN", "ssl.keystore.key": "KEY"},
        "producer")
    assert out == {"ssl.ca.pem": "-----BEGIN CERTIFICATE-----", "ssl.certificate.pem": "CHAIN",
                   "ssl.key.pem": "KEY"}


def test_pkcs12_keystore_passes_with_its_password() -> None:
    out = translate_client_settings({"ssl.keystore.type": "PKCS12", "ssl.keystore.location": "/k.p12",
                                     "ssl.keystore.password": "pw", "ssl.key.password": "pw"}, "producer")
    assert out == {"ssl.keystore.location": "/k.p12", "ssl.keystore.password": "pw"}
    assert _problem_keys({"ssl.keystore.type": "PKCS12", "ssl.keystore.location": "/k.p12",
                          "ssl.keystore.password": "pw", "ssl.key.password": "other"}, "producer") == [
        "ssl.key.password"]


@pytest.mark.parametrize(("settings", "key", "needle"), [
    ({"ssl.truststore.location": "/t.jks", "ssl.truststore.password": "x"}, "ssl.truststore.location", "PEM"),
    ({"ssl.truststore.type": "PKCS12", "ssl.truststore.location": "/t.p12"}, "ssl.truststore.location", "PEM"),
    ({"ssl.keystore.location": "/k.jks", "ssl.keystore.password": "x"}, "ssl.keystore.location", "PKCS12"),
    ({"ssl.truststore.type": "PEM", "ssl.truststore.location": "/t.pem", "ssl.truststore.password": "x"},
     "ssl.truststore.password", "no password"),
])
def test_java_stores_are_refused_with_how_to_convert(settings: dict[str, str], key: str, needle: str) -> None:
    problems = client_setting_problems(settings, "consumer")
    assert [p.key for p in problems] == [key] and needle in problems[0].message


def test_producer_settings() -> None:
    out = translate_client_settings({
        "buffer.memory": "33554432", "max.request.size": "2097152", "linger.ms": "10", "batch.size": "16384",
        "compression.type": "zstd", "compression.zstd.level": "5", "compression.gzip.level": "9",
        "retries": "5", "retry.backoff.ms": "200", "acks": "all", "enable.idempotence": "true",
        "max.in.flight.requests.per.connection": "5", "delivery.timeout.ms": "120000",
        "request.timeout.ms": "30000", "send.buffer.bytes": "-1", "receive.buffer.bytes": "65536",
        "client.id": "c", "metadata.max.age.ms": "1000", "reconnect.backoff.ms": "50",
        "connections.max.idle.ms": "9", "max.block.ms": str(2**63 - 1),
        "key.serializer": "org.apache.kafka.common.serialization.ByteArraySerializer",
        "value.serializer": "org.apache.kafka.common.serialization.ByteArraySerializer",
    }, "producer")
    assert out == {
        "queue.buffering.max.kbytes": "32768", "message.max.bytes": "2097152", "linger.ms": "10",
        "batch.size": "16384", "compression.type": "zstd", "compression.level": "5", "retries": "5",
        "retry.backoff.ms": "200", "acks": "all", "enable.idempotence": "true",
        "max.in.flight.requests.per.connection": "5", "delivery.timeout.ms": "120000",
        "request.timeout.ms": "30000", "socket.send.buffer.bytes": "0", "socket.receive.buffer.bytes": "65536",
        "client.id": "c", "metadata.max.age.ms": "1000", "reconnect.backoff.ms": "50",
        "connections.max.idle.ms": "9"}


def test_consumer_settings() -> None:
    out = translate_client_settings({
        "fetch.min.bytes": "1", "fetch.max.bytes": "5000", "fetch.max.wait.ms": "100",
        "max.partition.fetch.bytes": "1000", "session.timeout.ms": "45000", "heartbeat.interval.ms": "3000",
        "isolation.level": "read_committed", "auto.offset.reset": "none", "enable.auto.commit": "false",
        "max.poll.interval.ms": "300000", "request.timeout.ms": "40000",
        "partition.assignment.strategy": "org.apache.kafka.clients.consumer.CooperativeStickyAssignor",
        "key.deserializer": "org.apache.kafka.common.serialization.ByteArrayDeserializer",
    }, "consumer")
    assert out == {
        "fetch.min.bytes": "1", "fetch.max.bytes": "5000", "fetch.wait.max.ms": "100",
        "max.partition.fetch.bytes": "1000", "session.timeout.ms": "45000", "heartbeat.interval.ms": "3000",
        "isolation.level": "read_committed", "auto.offset.reset": "error", "enable.auto.commit": "false",
        "max.poll.interval.ms": "300000", "socket.timeout.ms": "40000",
        "partition.assignment.strategy": "cooperative-sticky"}


def test_librdkafka_names_pass_and_aliases_fold_onto_the_runtimes_spelling() -> None:
    out = translate_client_settings({"queue.buffering.max.ms": "7", "partitioner": "murmur2_random",
                                     "message.timeout.ms": "1000", "debug": "broker"}, "producer")
    assert out == {"linger.ms": "7", "partitioner": "murmur2_random", "delivery.timeout.ms": "1000",
                   "debug": "broker"}
    assert _problem_keys({"linger.ms": "5", "queue.buffering.max.ms": "7"}, "producer") == [
        "queue.buffering.max.ms"]


@pytest.mark.parametrize(("key", "value", "kind", "needle"), [
    ("interceptor.classes", "com.example.I", "producer", "interceptors"),
    ("max.block.ms", "60000", "producer", "delivery.timeout.ms"),
    ("key.serializer", "org.apache.kafka.common.serialization.StringSerializer", "producer", "key.converter"),
    ("value.deserializer", "org.apache.kafka.common.serialization.StringDeserializer", "consumer", "raw bytes"),
    ("sasl.login.refresh.window.factor", "0.8", "producer", "sasl.oauthbearer"),
    ("default.api.timeout.ms", "60000", "admin", "socket.timeout.ms"),
    ("max.poll.records", "10", "consumer", "fetch.max.bytes"),
    ("ssl.enabled.protocols", "TLSv1.3", "producer", "TLS 1.2 or 1.3"),
    ("ssl.cipher.suites", "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384", "producer", "OpenSSL names"),
    ("auto.offset.reset", "by_duration:P1D", "consumer", "earliest or latest"),
    ("no.such.setting", "1", "producer", "neither"),
    ("buffer.memory", "lots", "producer", "integer"),
    # a setting for another kind of client has no effect: refused rather than ignored
    ("fetch.min.bytes", "1", "producer", "consumers only"),
    ("buffer.memory", "1", "consumer", "producers only"),
    ("linger.ms", "1", "admin", "producers only"),
])
def test_settings_without_equivalent_are_refused(key: str, value: str, kind: str, needle: str) -> None:
    problems = client_setting_problems({key: value}, kind)
    assert [p.key for p in problems] == [key] and needle in problems[0].message, problems
    with pytest.raises(ClientSettingError, match=f"Unsupported Kafka client setting producer.{key}: "):
        translate_client_settings({key: value}, kind, prefix="producer.")


BASE = {"bootstrap.servers": "127.0.0.1:9092", "group.id": "g", "config.storage.topic": "c",
        "offset.storage.topic": "o", "status.storage.topic": "s"}


def test_worker_refuses_a_java_only_setting_by_its_full_name() -> None:
    with pytest.raises(WorkerConfigError) as e:
        WorkerConfig.from_properties({**BASE, "producer.interceptor.classes": "com.example.I"})
    assert str(e.value).startswith("Unsupported Kafka client setting producer.interceptor.classes: ")
    assert e.value.key == "producer.interceptor.classes"
    with pytest.raises(WorkerConfigError, match=r"^Unsupported Kafka client setting sasl\.login\.class: "):
        WorkerConfig.from_properties({**BASE, "sasl.login.class": "com.example.L"})


def test_worker_client_settings_translate_top_level_and_prefixed_keys_and_overrides() -> None:
    cfg = WorkerConfig.from_properties({
        **BASE, "security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN", "sasl.jaas.config": PLAIN_JAAS,
        "producer.buffer.memory": "2048", "consumer.fetch.max.wait.ms": "10", "admin.request.timeout.ms": "5"})
    assert cfg.client_settings("producer") == {
        "bootstrap.servers": "127.0.0.1:9092", "security.protocol": "SASL_PLAINTEXT", "sasl.mechanisms": "PLAIN",
        "sasl.username": "connect", "sasl.password": 's3cr"et', "queue.buffering.max.kbytes": "2"}
    assert cfg.client_settings("consumer")["fetch.wait.max.ms"] == "10"
    assert cfg.client_settings("admin")["socket.timeout.ms"] == "5"
    assert cfg.client_settings("producer", {"max.request.size": "10"})["message.max.bytes"] == "10"
    with pytest.raises(ClientSettingError, match=r"producer\.override\.max\.block\.ms: "):
        cfg.client_settings("producer", {"max.block.ms": "1"})


def test_connector_clients_and_delegated_delivery_get_translated_settings() -> None:
    """The task producer, the connector's offsets readers and the settings a DelegatedDelivery hands to
    other processes (the Spark connector's producer and readers) are all librdkafka settings."""
    from typing import cast

    from connect_runtime.config.connector_config import SourceConnectorConfig
    from connect_runtime.plugins.registry import PluginRegistry
    from connect_runtime.storage.offset_backing_store import KafkaOffsetBackingStore
    from connect_runtime.storage.status_store import KafkaStatusBackingStore
    from connect_runtime.types import ConnectorTaskId
    from connect_runtime.worker.worker import Worker

    cfg = WorkerConfig.from_properties({
        **BASE, "security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN", "sasl.jaas.config": PLAIN_JAAS,
        "producer.buffer.memory": "4096", "consumer.fetch.max.wait.ms": "10"})
    worker = Worker(cfg, "w", PluginRegistry(), cast(KafkaOffsetBackingStore, object()),
                    cast(KafkaStatusBackingStore, object()), lambda c: None)
    connector = SourceConnectorConfig.parse({
        "name": "c", "connector.class": "VerifiableSource", "topic": "t", "offsets.storage.topic": "mine",
        "producer.override.max.request.size": "2048", "consumer.override.fetch.max.wait.ms": "20"})
    base = worker._producer_base(connector, ConnectorTaskId("c", 0))
    delivery = worker._delegated_delivery(connector, base)
    login = {"sasl.mechanisms": "PLAIN", "sasl.username": "connect", "sasl.password": 's3cr"et'}
    assert login.items() <= base.items() and "sasl.jaas.config" not in base
    assert base["queue.buffering.max.kbytes"] == "4" and base["message.max.bytes"] == "2048"
    assert login.items() <= delivery.producer_config.items()
    assert delivery.producer_config["message.max.bytes"] == "2048"
    assert delivery.offsets_consumer_config["fetch.wait.max.ms"] == "20"
    assert delivery.fallback_consumer_config is not None
    assert delivery.fallback_consumer_config["fetch.wait.max.ms"] == "10"
    assert login.items() <= delivery.offsets_consumer_config.items()
    assert worker.offset_stores.client_settings(connector, "admin")["sasl.username"] == "connect"


def test_top_level_connection_settings_reach_every_client() -> None:
    cfg = WorkerConfig.from_properties({**BASE, "request.timeout.ms": "40000", "retry.backoff.ms": "500",
                                        "send.buffer.bytes": "-1", "producer.retry.backoff.ms": "50"})
    assert cfg.client_settings("producer")["request.timeout.ms"] == "40000"
    assert cfg.client_settings("producer")["retry.backoff.ms"] == "50"
    assert cfg.client_settings("consumer")["socket.timeout.ms"] == "40000"
    assert cfg.client_settings("admin")["retry.backoff.ms"] == "500"
    assert cfg.client_settings("admin")["socket.send.buffer.bytes"] == "0"
    with pytest.raises(WorkerConfigError, match=r"^Unsupported Kafka client setting socket\.connection\.setup"):
        WorkerConfig.from_properties({**BASE, "socket.connection.setup.timeout.max.ms": "30000"})
