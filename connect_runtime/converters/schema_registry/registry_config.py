"""The registry converter's settings: Confluent's serde keys (``AbstractKafkaSchemaSerDeConfig``: names,
defaults and documentation), parsed into one :class:`RegistrySettings` value.

Every key Java defines is declared, so ``GET /connector-plugins/{converter}/config`` lists what Java
lists and a Java connector config validates unchanged. A key whose value this runtime cannot honour
(bearer auth, ``SASL_INHERIT``, a context name strategy, a schema id serializer other than the
5-byte prefix, data contract rules, ...) has a validator that refuses any value but Java's default,
so connector validation reports it on that key and ``configure`` raises a ``ConfigException`` naming
it, instead of the setting being silently ignored.

confluent-kafka's ``SchemaRegistryClient`` knows fewer keys (no ``basic.auth.credentials.source``,
no Java TLS stores, no timeout by default); :meth:`RegistrySettings.client_conf` is the translation,
and the TLS context and extra request headers, which that client cannot take as settings, are kept
here for ``registry_client`` to apply.
"""

from __future__ import annotations

import random
import ssl
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final
from urllib.parse import unquote, urlsplit, urlunsplit

from connect_runtime.api.config_def import ConfigDef, ConfigType, Importance, Range
from connect_runtime.api.converter import converter_config_def
from connect_runtime.api.errors import ConfigException
from connect_runtime.config.rest_tls import TlsSettingError, prefixed_client_context
from connect_runtime.converters.schema_registry.subject_names import STRATEGY_CLASS_NAMES, SubjectNameStrategy

__all__ = [
    "REFUSED_KEYS",
    "REQUEST_HEADER_PREFIX",
    "RegistrySettings",
    "registry_config_def",
]

SCHEMA_REGISTRY_URL: Final = "schema.registry.url"
BASIC_AUTH_CREDENTIALS_SOURCE: Final = "basic.auth.credentials.source"
USER_INFO: Final = "basic.auth.user.info"
LEGACY_USER_INFO: Final = "schema.registry.basic.auth.user.info"
BEARER_AUTH_CREDENTIALS_SOURCE: Final = "bearer.auth.credentials.source"

_PREFIX_SERIALIZER: Final = "io.confluent.kafka.serializers.schema.id.PrefixSchemaIdSerializer"
_DUAL_DESERIALIZER: Final = "io.confluent.kafka.serializers.schema.id.DualSchemaIdDeserializer"
_PREFIX_DESERIALIZER: Final = "io.confluent.kafka.serializers.schema.id.PrefixSchemaIdDeserializer"
_NULL_CONTEXT: Final = "io.confluent.kafka.serializers.context.NullContextNameStrategy"
_ASSOCIATED: Final = "io.confluent.kafka.serializers.subject.AssociatedNameStrategy"

#: ``request.header.<name>=<value>``: an HTTP header sent with every registry request.
REQUEST_HEADER_PREFIX: Final = "request.header."
#: Java's ``SchemaRegistryClientConfig.CLIENT_NAMESPACE``, under which the client's ``ssl.*`` keys are.
SSL_PREFIX: Final = "schema.registry."


def _refuse_unless(accepted: tuple[Any, ...], why: str) -> Callable[[str, Any], None]:
    """A validator accepting only ``accepted`` (Java's default first): any other value is one this
    runtime would silently ignore, so it is refused with ``why``."""

    def validate(name: str, value: Any) -> None:
        if value not in accepted and not (value == "" and None in accepted):
            raise ConfigException(name, value, why)

    return validate


def _strategy(name: str, value: Any) -> None:
    if value not in STRATEGY_CLASS_NAMES:
        hint = (" (it reads subject associations, which this runtime does not; the subject it falls back to is "
                "TopicNameStrategy's)") if value == _ASSOCIATED else ""
        raise ConfigException(name, value, f"must be one of {', '.join(STRATEGY_CLASS_NAMES)}{hint}")


def _credentials_source(name: str, value: Any) -> None:
    if not isinstance(value, str) or value.upper() not in ("URL", "USER_INFO"):
        why = ("SASL_INHERIT takes the Kafka client's SASL credentials, which this runtime cannot hand to the "
               "registry client; use USER_INFO with basic.auth.user.info") if value == "SASL_INHERIT" else \
            "must be URL or USER_INFO"
        raise ConfigException(name, value, why)


def _urls(name: str, value: Any) -> None:
    if not value:
        raise ConfigException(name, value, "at least one registry URL is needed")
    for url in value:
        if urlsplit(url).scheme not in ("http", "https"):
            raise ConfigException(name, without_credentials(url), "a registry URL starts with http:// or https://")


_NOT_HONOURED: Final = "is not supported by this runtime; remove it"

#: Keys whose only accepted value is Java's default (or unset), with why: documented in one table.
REFUSED_KEYS: Final[dict[str, str]] = {
    "propagate.schema.tags": "schema tags are not propagated by this runtime",
    "use.schema.id": "a fixed schema id is not supported; use auto.register.schemas or use.latest.version",
    "use.schema.guid": "schema GUIDs are not supported",
    "use.latest.with.metadata": "selecting a version by metadata is not supported; use use.latest.version",
    "schema.format": "schema formats are not supported",
    "execution.environment": "data contract rules are not run by this runtime",
    "rule.executors": "data contract rules are not run by this runtime",
    "rule.actions": "data contract rules are not run by this runtime",
    BEARER_AUTH_CREDENTIALS_SOURCE: "bearer authentication is not supported; use basic authentication",
    "bearer.auth.token": "bearer authentication is not supported",
    "bearer.auth.issuer.endpoint.url": "bearer authentication is not supported",
    "bearer.auth.client.id": "bearer authentication is not supported",
    "bearer.auth.client.secret": "bearer authentication is not supported",
    "bearer.auth.scope": "bearer authentication is not supported",
    "bearer.auth.identity.pool.id": "bearer authentication is not supported",
    "bearer.auth.logical.cluster": "bearer authentication is not supported",
    "bearer.auth.custom.provider.class": "bearer authentication is not supported",
    "context.name.strategy": "schema contexts are not supported",
    "key.schema.id.serializer": "only the 5-byte prefix (magic byte 0, 4-byte id) is written",
    "value.schema.id.serializer": "only the 5-byte prefix (magic byte 0, 4-byte id) is written",
    "key.schema.id.deserializer": "only the 5-byte prefix (magic byte 0, 4-byte id) is read",
    "value.schema.id.deserializer": "only the 5-byte prefix (magic byte 0, 4-byte id) is read",
    "schema.reflection": "schema reflection is a Java serializer feature",
}


def registry_config_def() -> ConfigDef:
    """``converter.type`` plus Java's ``AbstractKafkaSchemaSerDeConfig.baseConfigDef()`` (and its
    ``schema.registry.ssl.*`` keys), each refused key validated to its default."""

    def refused(key: str, *accepted: Any) -> Callable[[str, Any], None]:
        return _refuse_unless(accepted, f"{REFUSED_KEYS[key]} ({_NOT_HONOURED})")

    d = (
        converter_config_def()
        .define(SCHEMA_REGISTRY_URL, ConfigType.LIST, validator=_urls, importance=Importance.HIGH,
                documentation="Comma-separated list of URLs for schema registry instances that can be used to "
                              "register or look up schemas.")
        .define("schema.registry.url.randomize", ConfigType.BOOLEAN, False, None, Importance.LOW,
                "Whether to randomize the starting index of the schema registry URL list. This can help with "
                "load balancing if many schema registry clients are using a shared configuration.")
        .define("max.schemas.per.subject", ConfigType.INT, 1000, Range.at_least(1), Importance.LOW,
                "Maximum number of schemas to create or cache locally.")
        .define("normalize.schemas", ConfigType.BOOLEAN, False, None, Importance.MEDIUM,
                "Whether to normalize schemas, which generally ignores ordering when it is not significant")
        .define("auto.register.schemas", ConfigType.BOOLEAN, True, None, Importance.MEDIUM,
                "Specify if the Serializer should attempt to register the Schema with Schema Registry")
        .define("propagate.schema.tags", ConfigType.BOOLEAN, False, refused("propagate.schema.tags", False),
                Importance.LOW,
                "Whether to propagate schema tags from a previous schema version during registration")
        .define("use.schema.id", ConfigType.INT, -1, refused("use.schema.id", -1), Importance.LOW,
                "Schema ID to use for serialization")
        .define("use.schema.guid", ConfigType.STRING, None, refused("use.schema.guid", None), Importance.LOW,
                "Schema GUID to use for serialization")
        .define("id.compatibility.strict", ConfigType.BOOLEAN, True, None, Importance.LOW,
                "Whether to check for backward compatibility between the schema with the given ID and  the "
                "schema of the object to be serialized")
        .define("use.latest.version", ConfigType.BOOLEAN, False, None, Importance.LOW,
                "Specify if the Serializer should use the latest subject version for serialization")
        .define("latest.compatibility.strict", ConfigType.BOOLEAN, True, None, Importance.LOW,
                "Whether to check for backward compatibility between the latest subject version and  the "
                "Schema of the object to be serialized")
        .define("latest.cache.size", ConfigType.INT, 1000, Range.at_least(1), Importance.LOW,
                "The maximum size for caches holding latest schemas")
        .define("latest.cache.ttl.sec", ConfigType.INT, -1, Range.at_least(-1), Importance.LOW,
                "The TTL for caches holding latest schemas, or -1 for no TTL")
        .define("use.latest.with.metadata", ConfigType.STRING, None, refused("use.latest.with.metadata", None),
                Importance.LOW, "Specify if the Serializer or Deserializer should use the latest subject version "
                "with the given metadata property and value, for example, 'application.version=v1'")
        .define("schema.format", ConfigType.STRING, None, refused("schema.format", None), Importance.LOW,
                "The schema format to use when registering or looking up schemas.")
        .define("execution.environment", ConfigType.STRING, None, refused("execution.environment", None),
                Importance.MEDIUM, "The execution environment, one of ALL, CLIENT, GATEWAY, SERVER, or NONE")
        .define("rule.executors", ConfigType.LIST, "", refused("rule.executors", []), Importance.LOW,
                "A comma-separated list of rule executor names.")
        .define("rule.actions", ConfigType.LIST, "", refused("rule.actions", []), Importance.LOW,
                "A comma-separated list of rule action names.")
        .define("rule.service.loader.enable", ConfigType.BOOLEAN, True, None, Importance.LOW,
                "Whether to enable the ServiceLoader for rule executors, defaults to true.")
        .define("rule.metrics.enable", ConfigType.BOOLEAN, True, None, Importance.LOW,
                "Whether to register and emit rule-execution metrics from the schema-registry "
                "serializer/deserializer.")
        .define("validation.rules.executor.class", ConfigType.STRING,
                "io.confluent.kafka.schemaregistry.rules.cel.CelValidator", None, Importance.LOW,
                "Fully-qualified class name of the ValidationRuleExecutor used to evaluate inline validation "
                "rules.")
        .define("validation.rules.fail.fast", ConfigType.BOOLEAN, False, None, Importance.LOW,
                "When true, validation stops at the first failed rule and reports only that violation.")
        .define(BASIC_AUTH_CREDENTIALS_SOURCE, ConfigType.STRING, "URL", _credentials_source, Importance.MEDIUM,
                "Specify how to pick the credentials for Basic Auth header. The supported values are URL, "
                "USER_INFO and SASL_INHERIT")
        .define(BEARER_AUTH_CREDENTIALS_SOURCE, ConfigType.STRING, "STATIC_TOKEN",
                refused(BEARER_AUTH_CREDENTIALS_SOURCE, "STATIC_TOKEN"), Importance.MEDIUM,
                "Specify how to pick the credentials for Bearer Auth header. ")
        .define(LEGACY_USER_INFO, ConfigType.PASSWORD, "", None, Importance.MEDIUM,
                "Specify the user info for Basic Auth in the form of {username}:{password}")
        .define(USER_INFO, ConfigType.PASSWORD, "", None, Importance.MEDIUM,
                "Specify the user info for Basic Auth in the form of {username}:{password}")
        .define("bearer.auth.token", ConfigType.PASSWORD, "", refused("bearer.auth.token", None),
                Importance.MEDIUM, "Specify the Bearer token to be used for authentication")
    )
    for key in ("bearer.auth.issuer.endpoint.url", "bearer.auth.client.id"):
        d.define(key, ConfigType.STRING, None, refused(key, None), Importance.MEDIUM,
                 "Bearer authentication (OAuth/OIDC client credentials).")
    d.define("bearer.auth.client.secret", ConfigType.PASSWORD, None, refused("bearer.auth.client.secret", None),
             Importance.MEDIUM, "Bearer authentication (OAuth/OIDC client credentials).")
    d.define("bearer.auth.scope", ConfigType.STRING, None, refused("bearer.auth.scope", None), Importance.MEDIUM,
             "Bearer authentication (OAuth/OIDC client credentials).")
    d.define("bearer.auth.scope.claim.name", ConfigType.STRING, "scope", None, Importance.LOW,
             "The OAuth claim for the scope (bearer authentication).")
    d.define("bearer.auth.sub.claim.name", ConfigType.STRING, "sub", None, Importance.LOW,
             "The OAuth claim for the subject (bearer authentication).")
    for key in ("bearer.auth.identity.pool.id", "bearer.auth.logical.cluster"):
        d.define(key, ConfigType.STRING, None, refused(key, None), Importance.MEDIUM,
                 "Additional property which can added in Request header to Schema Registry")
    d.define("bearer.auth.cache.expiry.buffer.seconds", ConfigType.SHORT, 300, Range.between(0, 3600),
             Importance.LOW, "The amount of buffer time between expiration times of the OAuth Token and "
             "corresponding cache which hold the token.")
    d.define("bearer.auth.custom.provider.class", ConfigType.STRING, None,
             refused("bearer.auth.custom.provider.class", None), Importance.MEDIUM,
             "Custom class which will provide the token credential.")
    d.define("context.name.strategy", ConfigType.CLASS, _NULL_CONTEXT, refused("context.name.strategy", _NULL_CONTEXT),
             Importance.MEDIUM, "A class used to determine the schema registry context.")
    for role in ("key", "value"):
        d.define(f"{role}.subject.name.strategy", ConfigType.CLASS, SubjectNameStrategy.TOPIC.class_name, _strategy,
                 Importance.MEDIUM, f"Determines how to construct the subject name under which the {role} schema "
                 f"is registered with the schema registry. By default, <topic>-{role} is used as subject.")
        d.define(f"{role}.schema.id.serializer", ConfigType.CLASS, _PREFIX_SERIALIZER,
                 refused(f"{role}.schema.id.serializer", _PREFIX_SERIALIZER), Importance.MEDIUM,
                 f"Determines how to serialize the ID for the {role} schema.")
        d.define(f"{role}.schema.id.deserializer", ConfigType.CLASS, _DUAL_DESERIALIZER,
                 refused(f"{role}.schema.id.deserializer", _DUAL_DESERIALIZER, _PREFIX_DESERIALIZER),
                 Importance.MEDIUM, f"Determines how to deserialize the ID for the {role} schema.")
    (d.define("schema.reflection", ConfigType.BOOLEAN, False, refused("schema.reflection", False), Importance.LOW,
              "If true, uses the reflection API when serializing/deserializing ")
     .define("proxy.host", ConfigType.STRING, "", None, Importance.LOW,
             "The hostname, or address, of the proxy server that will be used to connect to the schema "
             "registry instances.")
     .define("proxy.port", ConfigType.INT, -1, None, Importance.LOW,
             "The port number of the proxy server that will be used to connect to the schema registry instances.")
     .define("http.connect.timeout.ms", ConfigType.INT, 60000, Range.at_least(1), Importance.LOW,
             "Specify the http connection timeout in milliseconds for schema registry client")
     .define("http.read.timeout.ms", ConfigType.INT, 60000, Range.at_least(1), Importance.LOW,
             "Specify the http read timeout in milliseconds for schema registry client")
     .define("max.retries", ConfigType.INT, 3, Range.at_least(0), Importance.LOW,
             "The maximum number of retries for a request")
     .define("retries.wait.ms", ConfigType.INT, 1000, Range.at_least(0), Importance.LOW,
             "The maximum time to wait for the first retry. When jitter is applied, the actual wait may be less.")
     .define("retries.max.wait.ms", ConfigType.INT, 20000, Range.at_least(0), Importance.LOW,
             "The maximum time to wait for any retry."))
    _define_ssl(d)
    return d


def _define_ssl(d: ConfigDef) -> None:
    """Java's ``SchemaRegistryClientConfig.withClientSslSupport``: Kafka's client ``ssl.*`` keys (their
    defaults and importance) under ``schema.registry.``; read by the REST TLS code (PEM or PKCS12
    stores; JKS is refused there)."""
    high, medium, low = Importance.HIGH, Importance.MEDIUM, Importance.LOW
    for key, type_, default, importance, doc in (
        ("ssl.protocol", ConfigType.STRING, "TLSv1.3", medium, "The SSL protocol used to generate the SSLContext."),
        ("ssl.provider", ConfigType.STRING, None, medium,
         "The name of the security provider used for SSL connections."),
        ("ssl.cipher.suites", ConfigType.LIST, None, low, "A list of cipher suites."),
        ("ssl.enabled.protocols", ConfigType.LIST, "TLSv1.2,TLSv1.3", medium,
         "The list of protocols enabled for SSL connections."),
        ("ssl.keystore.type", ConfigType.STRING, "JKS", medium,
         "The file format of the key store file (PEM or PKCS12 here)."),
        ("ssl.keystore.key", ConfigType.PASSWORD, None, high,
         "Private key in the format specified by 'ssl.keystore.type'."),
        ("ssl.keystore.certificate.chain", ConfigType.PASSWORD, None, high,
         "Certificate chain in the format specified by 'ssl.keystore.type'."),
        ("ssl.truststore.certificates", ConfigType.PASSWORD, None, high,
         "Trusted certificates in the format specified by 'ssl.truststore.type'."),
        ("ssl.keystore.location", ConfigType.STRING, None, high, "The location of the key store file."),
        ("ssl.keystore.password", ConfigType.PASSWORD, None, high, "The store password for the key store file."),
        ("ssl.key.password", ConfigType.PASSWORD, None, high,
         "The password of the private key in the key store file."),
        ("ssl.truststore.type", ConfigType.STRING, "JKS", medium,
         "The file format of the trust store file (PEM or PKCS12 here)."),
        ("ssl.truststore.location", ConfigType.STRING, None, high, "The location of the trust store file."),
        ("ssl.truststore.password", ConfigType.PASSWORD, None, high, "The password for the trust store file."),
        ("ssl.keymanager.algorithm", ConfigType.STRING, "SunX509", low,
         "The algorithm used by key manager factory for SSL connections."),
        ("ssl.trustmanager.algorithm", ConfigType.STRING, "PKIX", low,
         "The algorithm used by trust manager factory for SSL connections."),
        ("ssl.endpoint.identification.algorithm", ConfigType.STRING, "https", low,
         "The endpoint identification algorithm to validate server hostname using server certificate."),
        ("ssl.secure.random.implementation", ConfigType.STRING, None, low,
         "The SecureRandom PRNG implementation to use for SSL cryptography operations."),
        ("ssl.engine.factory.class", ConfigType.CLASS, None, low,
         "The class of type org.apache.kafka.common.security.auth.SslEngineFactory."),
    ):
        d.define(SSL_PREFIX + key, type_, default, None, importance, doc)


@dataclass(frozen=True, slots=True)
class RegistrySettings:
    """What the converter does with the registry, parsed from its settings (prefix stripped)."""

    #: The registry URLs in the order they are tried, without credentials.
    urls: tuple[str, ...]
    #: ``user:password`` for Basic authentication (``basic.auth.user.info``, or the URLs' own), else None.
    user_info: str | None = field(repr=False)
    #: The key that holds the credentials, for the message when the registry refuses them.
    credentials_key: str | None
    auto_register: bool
    normalize: bool
    use_latest_version: bool
    latest_compatibility_strict: bool
    key_strategy: SubjectNameStrategy
    value_strategy: SubjectNameStrategy
    max_schemas_per_subject: int
    latest_cache_size: int
    latest_cache_ttl_s: int | None
    connect_timeout_s: float
    read_timeout_s: float
    max_retries: int
    retries_wait_ms: int
    retries_max_wait_ms: int
    proxy: str | None
    #: The TLS context for https registries, when any ``schema.registry.ssl.*`` key is set.
    tls: ssl.SSLContext | None = field(compare=False)
    #: ``request.header.<name>`` settings: extra HTTP headers on every registry request.
    request_headers: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def parse(cls, values: Mapping[str, Any], originals: Mapping[str, Any]) -> RegistrySettings:
        """Settings from ``values`` (a :func:`registry_config_def` parse of ``originals``).

        Raises ``ConfigException`` naming the key for a setting that cannot be honoured.
        """
        if BEARER_AUTH_CREDENTIALS_SOURCE in originals:  # setting it at all turns bearer auth on in Java
            raise ConfigException(BEARER_AUTH_CREDENTIALS_SOURCE, originals[BEARER_AUTH_CREDENTIALS_SOURCE],
                                  f"{REFUSED_KEYS[BEARER_AUTH_CREDENTIALS_SOURCE]} ({_NOT_HONOURED})")
        urls = [str(u).strip().rstrip("/") for u in values[SCHEMA_REGISTRY_URL]]
        if values["schema.registry.url.randomize"]:
            random.shuffle(urls)
        source = str(values[BASIC_AUTH_CREDENTIALS_SOURCE]).upper()
        user_info: str | None = None
        credentials_key: str | None = None
        if source == "USER_INFO":
            user_info = values[USER_INFO] or values[LEGACY_USER_INFO] or None
            credentials_key = USER_INFO if values[USER_INFO] else LEGACY_USER_INFO
            if user_info is not None and ":" not in user_info:
                raise ConfigException(credentials_key, "[hidden]", "must be in the form {username}:{password}")
            # Java's USER_INFO source ignores credentials in the URLs; the Python client would refuse both.
            urls = [without_credentials(u) for u in urls]
        else:
            user_info = _url_user_info(urls)
            if user_info is not None:
                credentials_key = SCHEMA_REGISTRY_URL
                # Sent as the client's Basic credentials, not in the URLs: its HTTP library logs every
                # request's URL at INFO.
                urls = [without_credentials(u) for u in urls]
        ttl = values["latest.cache.ttl.sec"]
        host, port = values["proxy.host"], values["proxy.port"]
        ssl_values = {k[len(SSL_PREFIX):]: str(v) for k, v in originals.items()
                      if k.startswith(SSL_PREFIX + "ssl.") and v is not None}
        tls = _tls_context(ssl_values) if ssl_values else None
        return cls(
            urls=tuple(urls), user_info=user_info, credentials_key=credentials_key,
            auto_register=values["auto.register.schemas"], normalize=values["normalize.schemas"],
            use_latest_version=values["use.latest.version"],
            latest_compatibility_strict=values["latest.compatibility.strict"],
            key_strategy=STRATEGY_CLASS_NAMES[values["key.subject.name.strategy"]],
            value_strategy=STRATEGY_CLASS_NAMES[values["value.subject.name.strategy"]],
            max_schemas_per_subject=values["max.schemas.per.subject"],
            latest_cache_size=values["latest.cache.size"], latest_cache_ttl_s=None if ttl < 0 else ttl,
            connect_timeout_s=values["http.connect.timeout.ms"] / 1000,
            read_timeout_s=values["http.read.timeout.ms"] / 1000,
            max_retries=values["max.retries"], retries_wait_ms=values["retries.wait.ms"],
            retries_max_wait_ms=values["retries.max.wait.ms"],
            proxy=f"http://{host}:{port}" if host and port > 0 else None, tls=tls,
            request_headers={k[len(REQUEST_HEADER_PREFIX):]: str(v) for k, v in originals.items()
                             if k.startswith(REQUEST_HEADER_PREFIX) and len(k) > len(REQUEST_HEADER_PREFIX)},
        )

    def strategy(self, is_key: bool) -> SubjectNameStrategy:
        """The subject name strategy for keys or values."""
        return self.key_strategy if is_key else self.value_strategy

    @property
    def display_urls(self) -> str:
        """The URLs for messages and logs: credentials left out."""
        return ",".join(without_credentials(u) for u in self.urls)

    def client_conf(self) -> dict[str, Any]:
        """confluent-kafka's ``SchemaRegistryClient`` settings for these (TLS and headers aside)."""
        conf: dict[str, Any] = {
            "url": ",".join(self.urls),
            "cache.capacity": self.latest_cache_size,
            "max.retries": self.max_retries,
            "retries.wait.ms": self.retries_wait_ms,
            "retries.max.wait.ms": self.retries_max_wait_ms,
        }
        if self.user_info is not None:
            conf["basic.auth.user.info"] = self.user_info
        if self.latest_cache_ttl_s is not None:
            conf["cache.latest.ttl.sec"] = self.latest_cache_ttl_s
        if self.proxy is not None:
            conf["proxy"] = self.proxy
        return conf


def _tls_context(values: Mapping[str, str]) -> ssl.SSLContext:
    try:
        return prefixed_client_context(values, SSL_PREFIX, "schema registry TLS")
    except TlsSettingError as e:
        e.name = e.key  # so validation puts the error on the key
        raise


def _url_user_info(urls: list[str]) -> str | None:
    """The ``user:password`` the URLs carry (``URL`` source), None when none does. The registry client
    sends one login to every URL, so URLs carrying different ones are refused."""
    logins = {(unquote(p.username or ""), unquote(p.password or "")) for p in map(urlsplit, urls)
              if p.username is not None or p.password is not None}
    if not logins:
        return None
    if len(logins) > 1:
        raise ConfigException(SCHEMA_REGISTRY_URL, ",".join(without_credentials(u) for u in urls),
                              "the URLs carry different credentials, but one login is sent to every registry "
                              "URL; give them all the same, or use basic.auth.credentials.source=USER_INFO")
    user, password = logins.pop()
    return f"{user}:{password}"


def without_credentials(url: str) -> str:
    """``url`` without a ``user:password@`` part."""
    parts = urlsplit(url)
    if parts.username is None and parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = f"[{host}]" if ":" in host else host
    if parts.port is not None:
        netloc += f":{parts.port}"
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))
