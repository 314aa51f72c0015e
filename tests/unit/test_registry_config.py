"""The registry converter's settings (converters/schema_registry/registry_config.py) and subject names:
Java's keys and defaults, the translation to confluent-kafka's client, and every refusal named on its
key, at validation (the ConfigDef) and at configure."""

from __future__ import annotations

from typing import Any

import pytest

from connect_runtime.api.errors import ConfigException, DataException
from connect_runtime.converters.schema_registry.registry_config import (
    REFUSED_KEYS,
    RegistrySettings,
    registry_config_def,
    without_credentials,
)
from connect_runtime.converters.schema_registry.subject_names import SubjectNameStrategy, subject_name

URL = "http://127.0.0.1:1/apis/ccompat/v7"
STRATEGIES = "io.confluent.kafka.serializers.subject."


def parse(props: dict[str, Any]) -> RegistrySettings:
    props = {"converter.type": "value", "schema.registry.url": URL, **props}
    return RegistrySettings.parse(registry_config_def().parse(props), props)


def test_defaults_are_javas_and_translate_to_the_client() -> None:
    s = parse({})
    assert s.urls == (URL,)
    assert (s.auto_register, s.use_latest_version, s.latest_compatibility_strict, s.normalize) == \
        (True, False, True, False)
    assert s.key_strategy is s.value_strategy is SubjectNameStrategy.TOPIC
    assert (s.max_schemas_per_subject, s.latest_cache_size, s.latest_cache_ttl_s) == (1000, 1000, None)
    assert (s.connect_timeout_s, s.read_timeout_s) == (60.0, 60.0)
    assert s.client_conf() == {"url": URL, "cache.capacity": 1000, "max.retries": 3, "retries.wait.ms": 1000,
                               "retries.max.wait.ms": 20000}
    keys = registry_config_def().keys
    assert keys["schema.registry.url"].required
    assert keys["basic.auth.credentials.source"].default == "URL"
    assert keys["value.subject.name.strategy"].default == STRATEGIES + "TopicNameStrategy"
    assert keys["schema.registry.ssl.truststore.type"].default == "JKS"
    # as Java defines them: no groups (so validation adds none), Kafka's importance for the TLS keys
    assert all(k.group is None for k in keys.values())
    assert keys["schema.registry.ssl.truststore.location"].importance.value == "HIGH"


def test_several_urls_credentials_in_the_url_sent_as_the_login_and_never_in_a_url() -> None:
    """The registry client's HTTP library logs each request's URL at INFO: a password in it would be
    in the task's log."""
    s = parse({"schema.registry.url": "http://u:p%40ss@a:1/x/, http://b:2"})
    assert s.urls == ("http://a:1/x", "http://b:2")
    assert s.client_conf()["url"] == "http://a:1/x,http://b:2"
    assert s.client_conf()["basic.auth.user.info"] == "u:p@ss"
    assert "p@ss" not in repr(s) and "p%40ss" not in repr(s)
    assert s.display_urls == "http://a:1/x,http://b:2"
    assert s.credentials_key == "schema.registry.url"
    same = parse({"schema.registry.url": "http://u:pw@a:1,http://u:pw@b:2"})
    assert (same.urls, same.user_info) == (("http://a:1", "http://b:2"), "u:pw")
    with pytest.raises(ConfigException, match="different credentials") as raised:
        parse({"schema.registry.url": "http://u:pw@a:1,http://v:other@b:2"})
    assert "pw" not in str(raised.value) and "other" not in str(raised.value)
    assert "basic.auth.user.info" not in parse({}).client_conf()


def test_user_info_source_takes_basic_auth_user_info_or_its_alias_and_drops_url_credentials() -> None:
    s = parse({"schema.registry.url": "http://x:y@a:1", "basic.auth.credentials.source": "USER_INFO",
               "basic.auth.user.info": "alice:secret"})
    assert s.client_conf()["basic.auth.user.info"] == "alice:secret"
    assert s.client_conf()["url"] == "http://a:1"
    assert s.credentials_key == "basic.auth.user.info"
    legacy = parse({"basic.auth.credentials.source": "USER_INFO",
                    "schema.registry.basic.auth.user.info": "bob:pw"})
    assert legacy.client_conf()["basic.auth.user.info"] == "bob:pw"
    assert legacy.credentials_key == "schema.registry.basic.auth.user.info"
    # URL source: user info is not used (as Java)
    assert "basic.auth.user.info" not in parse({"basic.auth.user.info": "alice:secret"}).client_conf()
    with pytest.raises(ConfigException, match=r"basic\.auth\.user\.info.*username"):
        parse({"basic.auth.credentials.source": "USER_INFO", "basic.auth.user.info": "nocolon"})


def test_honoured_settings_translate() -> None:
    s = parse({"auto.register.schemas": "false", "use.latest.version": "true",
               "latest.compatibility.strict": "false", "normalize.schemas": "true",
               "key.subject.name.strategy": STRATEGIES + "RecordNameStrategy",
               "value.subject.name.strategy": STRATEGIES + "TopicRecordNameStrategy",
               "max.schemas.per.subject": "7", "latest.cache.size": "5", "latest.cache.ttl.sec": "30",
               "http.connect.timeout.ms": "1500", "http.read.timeout.ms": "2500", "max.retries": "0",
               "proxy.host": "proxy", "proxy.port": "3128", "request.header.X-Tenant": "blue"})
    assert (s.auto_register, s.use_latest_version, s.latest_compatibility_strict, s.normalize) == \
        (False, True, False, True)
    assert s.strategy(True) is SubjectNameStrategy.RECORD
    assert s.strategy(False) is SubjectNameStrategy.TOPIC_RECORD
    assert (s.max_schemas_per_subject, s.connect_timeout_s, s.read_timeout_s) == (7, 1.5, 2.5)
    assert s.request_headers == {"X-Tenant": "blue"}
    conf = s.client_conf()
    assert (conf["cache.capacity"], conf["cache.latest.ttl.sec"], conf["max.retries"], conf["proxy"]) == \
        (5, 30, 0, "http://proxy:3128")


def test_url_randomize_shuffles_the_list(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("random.shuffle", lambda items: items.reverse())
    assert parse({"schema.registry.url": "http://a,http://b", "schema.registry.url.randomize": "true"}).urls == \
        ("http://b", "http://a")


REFUSED_VALUES: dict[str, str] = {
    "propagate.schema.tags": "true", "use.schema.id": "3", "use.schema.guid": "g",
    "use.latest.with.metadata": "app=v1", "schema.format": "x", "execution.environment": "CLIENT",
    "rule.executors": "cel", "rule.actions": "dlq", "bearer.auth.credentials.source": "OAUTHBEARER",
    "bearer.auth.token": "t", "bearer.auth.issuer.endpoint.url": "http://idp",
    "bearer.auth.client.id": "c", "bearer.auth.client.secret": "s", "bearer.auth.scope": "s",
    "bearer.auth.identity.pool.id": "p", "bearer.auth.logical.cluster": "lsrc",
    "bearer.auth.custom.provider.class": "x.Y", "context.name.strategy": "x.Ctx",
    "key.schema.id.serializer": "io.confluent.kafka.serializers.schema.id.HeaderSchemaIdSerializer",
    "value.schema.id.serializer": "io.confluent.kafka.serializers.schema.id.HeaderSchemaIdSerializer",
    "key.schema.id.deserializer": "x.D", "value.schema.id.deserializer": "x.D", "schema.reflection": "true",
}


def test_every_refused_key_has_a_refused_value_here() -> None:
    assert set(REFUSED_VALUES) == set(REFUSED_KEYS)


@pytest.mark.parametrize("key", sorted(REFUSED_VALUES))
def test_a_setting_not_honoured_is_refused_on_its_key(key: str) -> None:
    props = {"converter.type": "value", "schema.registry.url": URL, key: REFUSED_VALUES[key]}
    verdicts = {cv.name: cv for cv in registry_config_def().validate(props)}
    assert verdicts[key].errors and "not supported" in verdicts[key].errors[0], verdicts[key]
    assert not any(cv.errors for name, cv in verdicts.items() if name != key)
    with pytest.raises(ConfigException) as raised:
        parse({key: REFUSED_VALUES[key]})
    assert raised.value.name == key


@pytest.mark.parametrize(("key", "value", "why"), [
    ("basic.auth.credentials.source", "SASL_INHERIT", "SASL credentials"),
    ("basic.auth.credentials.source", "NOPE", "URL or USER_INFO"),
    ("value.subject.name.strategy", "io.confluent.kafka.serializers.subject.AssociatedNameStrategy", "associations"),
    ("key.subject.name.strategy", "com.example.Mine", "TopicNameStrategy"),
    ("schema.registry.url", "localhost:8081", "http"),
    ("schema.registry.ssl.truststore.location", "/nonexistent.jks", "JKS"),
])
def test_other_refusals_name_their_key(key: str, value: str, why: str) -> None:
    with pytest.raises(ConfigException, match=why) as raised:
        parse({key: value})
    named = "schema.registry.ssl.truststore.type" if key.endswith("location") else key
    assert named in str(raised.value)
    assert raised.value.name == named


def test_javas_defaults_of_refused_keys_are_accepted_explicitly() -> None:
    parse({"use.schema.id": "-1", "propagate.schema.tags": "false", "schema.reflection": "false",
           "value.schema.id.deserializer": "io.confluent.kafka.serializers.schema.id.PrefixSchemaIdDeserializer",
           "context.name.strategy": "io.confluent.kafka.serializers.context.NullContextNameStrategy",
           "rule.executors": ""})


def test_the_url_is_required() -> None:
    with pytest.raises(ConfigException, match=r"schema\.registry\.url"):
        RegistrySettings.parse(registry_config_def().parse({"converter.type": "key"}), {})


def test_without_credentials() -> None:
    assert without_credentials("https://u:p@[::1]:8081/x") == "https://[::1]:8081/x"
    assert without_credentials("http://h/x") == "http://h/x"


def test_subject_names() -> None:
    assert subject_name(SubjectNameStrategy.TOPIC, "t", False, "a.B") == "t-value"
    assert subject_name(SubjectNameStrategy.TOPIC, "t", True, None) == "t-key"
    assert subject_name(SubjectNameStrategy.RECORD, "t", False, "a.B") == "a.B"
    assert subject_name(SubjectNameStrategy.TOPIC_RECORD, "t", True, "a.B") == "t-a.B"
    with pytest.raises(DataException, match=r"no record name.*TopicNameStrategy"):
        subject_name(SubjectNameStrategy.RECORD, "t", False, None)
