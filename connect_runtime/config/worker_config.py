"""The distributed worker's configuration (``worker.properties``).

Keys, defaults and rules follow Apache Kafka Connect's ``WorkerConfig`` and ``DistributedConfig`` so
an operator's existing worker file works unchanged. Values arrive as strings from a properties file
and are parsed the way Java's ``ConfigDef`` parses them (ints, ``true``/``false``, comma-separated
lists, surrounding whitespace trimmed). Keys this model does not know are kept in
:attr:`WorkerConfig.originals`: many are Kafka client settings (``security.protocol``,
``producer.*`` ...) that :meth:`WorkerConfig.client_props` hands to the clients.
"""

from __future__ import annotations

import ipaddress
import logging
import os
import socket
import ssl
import threading
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import cached_property
from typing import Annotated, Any, Final, NoReturn
from urllib.parse import urlsplit

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    model_validator,
)

from connect_runtime.api.config_provider import ConfigProvider
from connect_runtime.api.config_values import InvalidValue, parse_bool, parse_integer, parse_list, parse_string
from connect_runtime.api.errors import ConfigException
from connect_runtime.api.override_policy import ClientType
from connect_runtime.api.override_policy import ConnectorClientConfigOverridePolicy as OverridePolicyPlugin
from connect_runtime.config.client_settings import (
    ClientSettingError,
    client_setting_problems,
    translate_client_settings,
)
from connect_runtime.config.config_providers import (
    CONFIG_PROVIDERS_CONFIG,
    ConfigTransformer,
    ResolvedConfig,
    has_placeholder,
    load_config_providers,
)
from connect_runtime.config.override_policies import BUILTIN_POLICIES, OverridePolicyName, builtin_policy_name
from connect_runtime.config.plugin_classes import PluginAllowlist, PluginSettingError
from connect_runtime.config.properties import PropertiesError, load_properties
from connect_runtime.config.response_headers import (
    ResponseHeaderConfigError,
    ResponseHeaderRule,
    parse_response_headers,
)
from connect_runtime.config.rest_tls import (
    ADMIN_LISTENERS_HTTPS_PREFIX,
    LISTENERS_HTTPS_PREFIX,
    PeerTls,
    TlsSettingError,
    client_context,
    server_context,
)
from connect_runtime.redaction import redactor

__all__ = [
    "DEFAULT_HEADER_CONVERTER",
    "DEFAULT_KEY_CONVERTER",
    "DEFAULT_VALUE_CONVERTER",
    "HMAC_ALGORITHMS",
    "ExactlyOnceSourceSupport",
    "OverridePolicyName",
    "RestListener",
    "WorkerConfig",
    "WorkerConfigError",
    "load_worker_config",
    "parse_listener",
]

log = logging.getLogger(__name__)

DEFAULT_KEY_CONVERTER: Final = "org.apache.kafka.connect.json.JsonConverter"
DEFAULT_VALUE_CONVERTER: Final = "org.apache.kafka.connect.json.JsonConverter"
DEFAULT_HEADER_CONVERTER: Final = "org.apache.kafka.connect.storage.SimpleHeaderConverter"

#: Java MAC algorithm names we can sign and verify internal requests with (KIP-507), mapped to the
#: :mod:`hashlib` digest that ``hmac.new(key, msg, digest)`` takes.
HMAC_ALGORITHMS: Final[Mapping[str, str]] = {
    "HmacMD5": "md5",
    "HmacSHA1": "sha1",
    "HmacSHA224": "sha224",
    "HmacSHA256": "sha256",
    "HmacSHA384": "sha384",
    "HmacSHA512": "sha512",
}
_HMAC_BY_FOLDED_NAME = {name.lower(): name for name in HMAC_ALGORITHMS}

# Java's HMAC key generators refuse keys shorter than this many bits.
_MIN_HMAC_KEY_BITS = 40

# Client settings every Kafka client of the worker inherits from the top level of the worker file: the
# connection and security settings Java's DistributedConfig defines for the worker's own clients.
_CLIENT_BASE_KEYS = frozenset({
    "bootstrap.servers", "security.protocol", "metadata.max.age.ms", "send.buffer.bytes", "receive.buffer.bytes",
    "reconnect.backoff.ms", "reconnect.backoff.max.ms", "socket.connection.setup.timeout.ms",
    "socket.connection.setup.timeout.max.ms", "retry.backoff.ms", "retry.backoff.max.ms", "request.timeout.ms",
    "connections.max.idle.ms", "client.dns.lookup", "metadata.recovery.strategy",
    "metadata.recovery.rebootstrap.trigger.ms",
})
_CLIENT_BASE_PREFIXES = ("sasl.", "ssl.")
# Worker keys that start like a client prefix but are not client settings.
#: ``rest.request.max.bytes``: 8 MiB.
DEFAULT_REST_REQUEST_MAX_BYTES = 8 * 1024 * 1024
#: ``tasks.max.limit``.
DEFAULT_TASKS_MAX_LIMIT = 1000
_NOT_CLIENT_PREFIXES = ("admin.listeners",)
# Top-level ssl.* keys only the REST server reads (Java's RestServerConfig), not the Kafka clients.
_REST_ONLY_SSL_KEYS = frozenset({"ssl.client.auth"})

_STORAGE_PREFIXES = ("config.storage.", "offset.storage.", "status.storage.")
_STORAGE_OWN_SUFFIXES = frozenset({"topic", "replication.factor", "partitions"})
_CONVERTER_KINDS = ("key", "value", "header")
# Families of keys the worker reads by prefix (clients, TLS, providers, internal topics, converters), or
# refuses: the keys of the worker file that are not unknown.
_KNOWN_PREFIXES = ("producer.", "consumer.", "admin.", "sasl.", "ssl.", "listeners.https.", "config.providers",
                   "config.storage.", "offset.storage.", "status.storage.", "key.converter.", "value.converter.",
                   "header.converter.", "internal.", "metric.reporters")
# Keys Apache Kafka Connect's worker reads that configure what this runtime does not have, with the value
# that asks for nothing (Java's default; None: no value is accepted) and why the setting is refused.
_NO_SYNC = ("this runtime has no resynchronisation step to time out: a worker reads the config topic "
            "continuously, and one that loses contact with the cluster for session.timeout.ms stops its tasks "
            "until it is back")
_NO_METRICS = "this runtime records no Kafka metrics to sample (no JMX, no metric reporters)"
_REFUSED_WORKER_KEYS: Final[Mapping[str, tuple[str | None, str]]] = {
    "connect.protocol": ("sessioned", "this runtime always uses the sessioned protocol (incremental "
                                      "rebalancing, signed internal requests)"),
    "worker.sync.timeout.ms": ("3000", _NO_SYNC),
    "worker.unsync.backoff.ms": ("300000", _NO_SYNC),
    "metrics.sample.window.ms": ("30000", _NO_METRICS),
    "metrics.num.samples": ("2", _NO_METRICS),
    "metrics.recording.level": ("INFO", _NO_METRICS),
    "rest.host.name": (None, "removed in Kafka Connect 3.0; set listeners (http://host:port) instead"),
    "rest.port": (None, "removed in Kafka Connect 3.0; set listeners (http://host:port) instead"),
    "producer.transactional.id": (None, "the runtime names its transactional producers itself "
                                        "(<group.id>-<connector>-<task>, connect-cluster-<group.id>)"),
}
# Removed in Kafka Connect 3.0 (a Java worker warns that they have no effect); with their ``.*`` settings.
_REMOVED_INTERNAL_CONVERTER_KEYS = ("internal.key.converter", "internal.value.converter")


@dataclass(frozen=True)
class RestListener:
    """One REST listener to serve: its URL as configured, where it binds, and which endpoints it serves."""

    url: str
    scheme: str
    host: str
    port: int
    #: Serves the regular endpoints (everything but ``/admin/*``).
    regular: bool
    #: Serves ``/admin/*``.
    admin: bool

    @property
    def https(self) -> bool:
        return self.scheme == "https"


class WorkerConfigError(ConfigException):
    """The worker configuration is missing a required key or has an invalid value.

    The message is one line that names the key, the value and what is allowed, so an operator
    can fix the file from the log line alone.
    """

    def __init__(self, message: str, key: str | None = None, value: object = None) -> None:
        super().__init__(message)
        self.key = key
        self.name = key if key is not None else message
        self.value = value


class ExactlyOnceSourceSupport(StrEnum):
    """``exactly.once.source.support``: the rolling-upgrade switch for exactly-once source (KIP-618).

    Existing clusters go ``disabled`` -> ``preparing`` -> ``enabled``, one rolling pass each.
    """

    DISABLED = "disabled"
    """No exactly-once source tasks. (Unlike Java's, this runtime's leader writes the config topic
    through its transactional producer in every mode: leadership itself rests on it.)"""
    PREPARING = "preparing"
    """Like ``disabled`` for tasks: the first pass of the rolling upgrade, taken by workers that will
    serve exactly-once tasks in the next pass (Java's leader starts writing transactionally here)."""
    ENABLED = "enabled"
    """Source tasks run exactly once (transactional producers, read_committed offsets)."""

    @property
    def enabled(self) -> bool:
        """Whether exactly-once source tasks are on (only under ``enabled``)."""
        return self is ExactlyOnceSourceSupport.ENABLED


class _Invalid(ValueError):
    """Raised inside validators; carries what the one-line error message needs.

    ``key``/``value`` are only given by checks that span several keys (the validated field's own key
    and value are known from the pydantic error otherwise).
    """

    def __init__(self, message: str, key: str | None = None, value: object = None) -> None:
        super().__init__(message)
        self.message = message
        self.key = key
        self.value = value


# --- value parsers: the shared grammar (api.config_values) plus the worker's own rules -------------


def _parse_non_empty_string(value: object) -> str:
    s = parse_string(value)
    if not s:
        raise _Invalid("must not be empty")
    return s


def _parse_optional_string(value: object) -> str | None:
    """An unset optional string: Java keeps ``""``; we map it to None so callers test one thing."""
    if value is None:
        return None
    s = parse_string(value)
    return s or None


def _integer_parser(type_name: str) -> Callable[[object], int]:
    def parse(value: object) -> int:
        return parse_integer(value, type_name)

    return parse


_parse_int = _integer_parser("INT")
_parse_long = _integer_parser("LONG")
_parse_short = _integer_parser("SHORT")


def _optional(parse: Callable[[object], int]) -> Callable[[object], int | None]:
    def parse_optional(value: object) -> int | None:
        if value is None or (isinstance(value, str) and not value.strip()):
            return None
        return parse(value)

    return parse_optional


def _at_least(parse: Callable[[object], int], minimum: int) -> Callable[[object], int]:
    def check(value: object) -> int:
        number = parse(value)
        if number < minimum:
            raise _Invalid(f"must be at least {minimum}")
        return number

    return check


def _broker_default_or_positive(parse: Callable[[object], int], what: str) -> Callable[[object], int]:
    def check(value: object) -> int:
        number = parse(value)
        if number != -1 and number < 1:
            raise _Invalid(f"{what} must be at least 1, or -1 to use the broker's default")
        return number

    return check


def _parse_optional_list(value: object) -> list[str] | None:
    return None if value is None else parse_list(value)


def _parse_eos_support(value: object) -> ExactlyOnceSourceSupport:
    if isinstance(value, ExactlyOnceSourceSupport):
        return value
    s = parse_string(value).lower()
    try:
        return ExactlyOnceSourceSupport(s)
    except ValueError:
        allowed = ", ".join(m.value for m in ExactlyOnceSourceSupport)
        raise _Invalid(f"must be one of {allowed}") from None


def _parse_override_policy(value: object) -> OverridePolicyName | str:
    """A built-in policy's name (any spelling), or the dotted path of a policy class."""
    if isinstance(value, OverridePolicyName):
        return value
    s = parse_string(value)
    policy = builtin_policy_name(s)
    if policy is not None:
        return policy
    return s  # a class: found (through the plugin allowlist) when the policy is created


_POLICY_REQUIREMENT = ("must be one of " + ", ".join(p.value for p in OverridePolicyName) + ", or the dotted path "
                       "of a connect_runtime.api.ConnectorClientConfigOverridePolicy subclass")


def _parse_plugin_discovery(value: object) -> str:
    # Java's modes choose how jars are searched; ours (entry points and plugin.path, both always) is its
    # default, hybrid_warn. The others would change what Java finds, so they are not accepted silently.
    s = parse_string(value).lower()
    if s != "hybrid_warn":
        raise _Invalid("only hybrid_warn (the default) is supported: plugins are found through entry points "
                       "and plugin.path, both always")
    return s


def _hmac_name(value: str) -> str:
    name = _HMAC_BY_FOLDED_NAME.get(value.strip().lower())
    if name is None:
        raise _Invalid("must be one of " + ", ".join(HMAC_ALGORITHMS))
    return name


def _parse_hmac(value: object) -> str:
    return _hmac_name(parse_string(value))


def _parse_hmac_list(value: object) -> list[str]:
    names = parse_list(value)
    if not names:
        raise _Invalid("must list at least one signature verification algorithm")
    return [_hmac_name(n) for n in names]


def _parse_key_size(value: object) -> int | None:
    size = _optional(_parse_int)(value)
    if size is not None and size < _MIN_HMAC_KEY_BITS:
        raise _Invalid(f"must be at least {_MIN_HMAC_KEY_BITS} (bits), or unset for the algorithm's default")
    return size


def parse_listener(url: str) -> tuple[str, str, int]:
    """Split a REST listener URL (``http://:8083``, ``https://[::1]:8443``) into scheme, host, port.

    The host is ``""`` when the URL leaves it out (bind on all interfaces); the port is required,
    as in Java. Raises ValueError when the URL is not a listener.
    """
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        raise ValueError(f"listener {url!r} must start with http:// or https://")
    try:
        port = parts.port
    except ValueError:
        raise ValueError(f"listener {url!r} has an invalid port") from None
    if port is None:
        raise ValueError(f"listener {url!r} must name a port, like http://:8083")
    if parts.path not in ("", "/") or parts.query or parts.fragment or parts.username is not None:
        raise ValueError(f"listener {url!r} must be just scheme://host:port")
    return scheme, parts.hostname or "", port


def _parse_listeners(value: object) -> list[str]:
    listeners = parse_list(value)
    if not listeners:
        raise _Invalid("must contain at least one listener, like http://:8083")
    for listener in listeners:
        try:
            parse_listener(listener)
        except ValueError as e:
            raise _Invalid(str(e)) from None
    return listeners


def _parse_admin_listeners(value: object) -> list[str] | None:
    """Unset: admin endpoints on the normal listeners; empty: admin endpoints disabled."""
    listeners = _parse_optional_list(value)
    for listener in listeners or ():
        try:
            parse_listener(listener)
        except ValueError as e:
            raise _Invalid(str(e)) from None
    return listeners


def _parse_response_headers(value: object) -> str:
    """The raw rules (Java's ``getString``), once they are known to parse."""
    rules = parse_string(value)
    try:
        parse_response_headers(rules)
    except ResponseHeaderConfigError as e:
        raise _Invalid(str(e)) from None
    return rules


def _parse_advertised_listener(value: object) -> str | None:
    s = _parse_optional_string(value)
    if s is None:
        return None
    if s.lower() not in ("http", "https"):
        raise _Invalid("must be one of http, https")
    return s.lower()


def _parse_port(value: object) -> int | None:
    port = _optional(_parse_int)(value)
    if port is not None and not 1 <= port <= 65535:
        raise _Invalid("must be a port number between 1 and 65535")
    return port


_Str = Annotated[str, BeforeValidator(parse_string)]
_NonEmptyStr = Annotated[str, BeforeValidator(_parse_non_empty_string)]
_OptStr = Annotated[str | None, BeforeValidator(_parse_optional_string)]
_Bool = Annotated[bool, BeforeValidator(parse_bool)]
_NonNegInt = Annotated[int, BeforeValidator(_at_least(_parse_int, 0))]
_NonNegLong = Annotated[int, BeforeValidator(_at_least(_parse_long, 0))]
_PositiveInt = Annotated[int, BeforeValidator(_at_least(_parse_int, 1))]
_ReplicationFactor = Annotated[
    int, BeforeValidator(_broker_default_or_positive(_parse_short, "replication factor"))]
_Partitions = Annotated[int, BeforeValidator(_broker_default_or_positive(_parse_int, "number of partitions"))]
_List = Annotated[list[str], BeforeValidator(parse_list)]
_OptList = Annotated[list[str] | None, BeforeValidator(_parse_optional_list)]


class WorkerConfig(BaseModel):
    """A distributed worker's configuration, parsed and validated.

    Build it with :meth:`from_properties` (or :func:`load_worker_config` for a file): that turns
    every validation problem into a one-line :class:`WorkerConfigError`. Attributes use Python
    names; each field's alias is the Kafka key (``group_id`` <- ``group.id``).
    """

    model_config = ConfigDict(frozen=True, extra="ignore")

    # --- cluster and internal topics -------------------------------------------------------------
    bootstrap_servers: _NonEmptyStr = Field(
        alias="bootstrap.servers",
        description="A list of host/port pairs used to establish the initial connection to the Kafka "
        "cluster, as host1:port1,host2:port2,...")
    group_id: _NonEmptyStr = Field(
        alias="group.id",
        description="A unique string that identifies the Connect cluster group this worker belongs to.")
    config_storage_topic: _NonEmptyStr = Field(
        alias="config.storage.topic",
        description="The name of the Kafka topic where connector configurations are stored. "
        "It always has exactly one partition.")
    config_storage_replication_factor: _ReplicationFactor = Field(
        3, alias="config.storage.replication.factor",
        description="Replication factor used when creating the configuration storage topic "
        "(-1 for the broker's default).")
    offset_storage_topic: _NonEmptyStr = Field(
        alias="offset.storage.topic",
        description="The name of the Kafka topic where source connector offsets are stored.")
    offset_storage_partitions: _Partitions = Field(
        25, alias="offset.storage.partitions",
        description="The number of partitions used when creating the offset storage topic "
        "(-1 for the broker's default).")
    offset_storage_replication_factor: _ReplicationFactor = Field(
        3, alias="offset.storage.replication.factor",
        description="Replication factor used when creating the offset storage topic "
        "(-1 for the broker's default).")
    status_storage_topic: _NonEmptyStr = Field(
        alias="status.storage.topic",
        description="The name of the Kafka topic where connector and task status are stored.")
    status_storage_partitions: _Partitions = Field(
        5, alias="status.storage.partitions",
        description="The number of partitions used when creating the status storage topic "
        "(-1 for the broker's default).")
    status_storage_replication_factor: _ReplicationFactor = Field(
        3, alias="status.storage.replication.factor",
        description="Replication factor used when creating the status storage topic "
        "(-1 for the broker's default).")
    default_api_timeout_ms: _NonNegInt = Field(
        60000, alias="default.api.timeout.ms",
        description="How long the worker waits at start-up for the Kafka cluster: for its cluster id and for "
        "creating or checking the internal topics. With no answer in that time the worker exits with one line "
        "saying so.")
    client_id: _OptStr = Field(
        None, alias="client.id",
        description="An id string passed to the brokers with requests, to track request sources: the worker's "
        "own clients are named <group.id>-<client.id>-<purpose> (offsets, statuses, configs, shared-admin, "
        "shared-producer).")

    # --- exactly-once source (KIP-618) -----------------------------------------------------------
    exactly_once_source_support: Annotated[
        ExactlyOnceSourceSupport, BeforeValidator(_parse_eos_support)] = Field(
        ExactlyOnceSourceSupport.DISABLED, alias="exactly.once.source.support",
        description="Whether to enable exactly-once support for source connectors: disabled, preparing or "
        "enabled (case-insensitive). Upgrade existing clusters in two rolling passes: preparing, then "
        "enabled.")

    # --- timing ------------------------------------------------------------------------------
    offset_flush_interval_ms: _NonNegLong = Field(
        60000, alias="offset.flush.interval.ms",
        description="Interval at which to try committing offsets for tasks. Under exactly-once it is only "
        "the default of transaction.boundary.interval.ms.")
    offset_flush_timeout_ms: _NonNegLong = Field(
        5000, alias="offset.flush.timeout.ms",
        description="Maximum number of milliseconds to wait for records to flush and offsets to be committed "
        "before cancelling the process. No effect under exactly-once.")
    task_shutdown_graceful_timeout_ms: _NonNegLong = Field(
        5000, alias="task.shutdown.graceful.timeout.ms",
        description="Amount of time to wait for tasks to shut down gracefully.")
    scheduled_rebalance_max_delay_ms: _NonNegInt = Field(
        300000, alias="scheduled.rebalance.max.delay.ms",
        description="How long the leader remembers the connectors and tasks of a departed worker (whose work "
                    "moves to the live workers at once): if it comes back within this time, what moves back to "
                    "it to restore balance is what it had; 0 = a returning worker is treated as new.")
    session_timeout_ms: _PositiveInt = Field(
        10000, alias="session.timeout.ms",
        description="A worker is considered dead when no heartbeat of it was seen for this long.")
    heartbeat_interval_ms: _PositiveInt = Field(
        3000, alias="heartbeat.interval.ms",
        description="How often a worker writes its heartbeat; must be lower than session.timeout.ms.")
    rebalance_timeout_ms: _PositiveInt = Field(
        60000, alias="rebalance.timeout.ms",
        description="The maximum time a worker may take to join a new assignment (stop revoked work).")

    # --- internal request signing (KIP-507) --------------------------------------------------
    inter_worker_key_generation_algorithm: Annotated[str, BeforeValidator(_parse_hmac)] = Field(
        "HmacSHA256", alias="inter.worker.key.generation.algorithm",
        description="The algorithm to use for generating internal request keys.")
    inter_worker_key_size: Annotated[int | None, BeforeValidator(_parse_key_size)] = Field(
        None, alias="inter.worker.key.size",
        description="The size of the key to use for signing internal requests, in bits. "
        "If unset, the default key size for the key generation algorithm is used.")
    inter_worker_key_ttl_ms: _NonNegLong = Field(
        3600000, alias="inter.worker.key.ttl.ms",
        description="The TTL of generated session keys used for internal request validation, "
        "in milliseconds.")
    inter_worker_signature_algorithm: Annotated[str, BeforeValidator(_parse_hmac)] = Field(
        "HmacSHA256", alias="inter.worker.signature.algorithm",
        description="The algorithm used to sign internal requests.")
    inter_worker_verification_algorithms: Annotated[list[str], BeforeValidator(_parse_hmac_list)] = Field(
        default_factory=lambda: ["HmacSHA256"], alias="inter.worker.verification.algorithms",
        description="A list of permitted algorithms for verifying internal requests; "
        "must include inter.worker.signature.algorithm.")

    # --- REST --------------------------------------------------------------------------------
    listeners: Annotated[list[str], BeforeValidator(_parse_listeners)] = Field(
        default_factory=lambda: ["http://:8083"], alias="listeners",
        description="Comma-separated URIs the REST API listens on, e.g. "
        "http://myhost:8083,https://myhost:8084. Leave the host empty to bind to all interfaces.")
    rest_advertised_host_name: _OptStr = Field(
        None, alias="rest.advertised.host.name",
        description="If set, this is the hostname given out to other workers to connect to.")
    rest_advertised_port: Annotated[int | None, BeforeValidator(_parse_port)] = Field(
        None, alias="rest.advertised.port",
        description="If set, this is the port given out to other workers to connect to.")
    rest_advertised_listener: Annotated[str | None, BeforeValidator(_parse_advertised_listener)] = Field(
        None, alias="rest.advertised.listener",
        description="Sets the advertised listener (http or https) given out to other workers.")
    admin_listeners: Annotated[list[str] | None, BeforeValidator(_parse_admin_listeners)] = Field(
        None, alias="admin.listeners",
        description="List of comma-separated URIs the admin REST API listens on. An empty value disables "
        "the admin endpoints; unset puts them on the normal listeners.")
    access_control_allow_origin: _Str = Field(
        "", alias="access.control.allow.origin",
        description="Value to set the Access-Control-Allow-Origin header to for REST API requests; "
        "empty disables CORS.")
    access_control_allow_methods: _Str = Field(
        "", alias="access.control.allow.methods",
        description="Sets the methods supported for cross origin requests in the "
        "Access-Control-Allow-Methods header. The default allows GET, POST and HEAD.")
    response_http_headers_config: Annotated[str, BeforeValidator(_parse_response_headers)] = Field(
        "", alias="response.http.headers.config",
        description="Rules for REST API HTTP response headers: a comma-separated list of "
        "'[action] [header name]:[header value]' (a rule in double quotes may contain commas), the action "
        "one of set, add, setDate, addDate; the date actions take milliseconds added to the current time and "
        "send an HTTP date. Applied to every response of the listeners in listeners (including the admin "
        "endpoints when they are served there), not to admin.listeners. A set header does not replace one "
        "the API sets itself (e.g. Content-Type).")
    rest_extension_classes: _List = Field(
        default_factory=list, alias="rest.extension.classes",
        description="Comma-separated names of connect_runtime.api.ConnectRestExtension classes, registered "
        "in the order specified (Kafka's BasicAuthSecurityRestExtension name gives the built-in Basic "
        "authentication).")
    # Our own keys (Java has no such bounds): one request must not be able to take the worker down.
    rest_request_max_bytes: _PositiveInt = Field(
        DEFAULT_REST_REQUEST_MAX_BYTES, alias="rest.request.max.bytes",
        description="The largest REST request body the worker reads, in bytes; a larger one is refused "
        "with 413 before it is read into memory. The default (8 MiB) is far above any real connector "
        "config (a config record must fit in one Kafka message, 1 MiB by default). It also bounds the task "
        "configs a worker hands to the leader in one request (all of a connector's tasks together).")
    tasks_max_limit: _PositiveInt = Field(
        DEFAULT_TASKS_MAX_LIMIT, alias="tasks.max.limit",
        description="The highest tasks.max a connector may be configured with on this worker; a higher "
        "one is a validation error (400 on create/update) and fails a connector stored with it, before "
        "the connector is asked for any task configs.")

    # --- converters and plugins --------------------------------------------------------------
    key_converter: _NonEmptyStr = Field(
        DEFAULT_KEY_CONVERTER, alias="key.converter",
        description="Converter class used to convert between Kafka Connect format and the serialized form "
        "that is written to Kafka. This controls the format of the keys in messages written to or read from "
        "Kafka.")
    value_converter: _NonEmptyStr = Field(
        DEFAULT_VALUE_CONVERTER, alias="value.converter",
        description="Converter class used to convert between Kafka Connect format and the serialized form "
        "that is written to Kafka. This controls the format of the values in messages written to or read "
        "from Kafka.")
    header_converter: _NonEmptyStr = Field(
        DEFAULT_HEADER_CONVERTER, alias="header.converter",
        description="HeaderConverter class used to convert between Kafka Connect format and the serialized "
        "form that is written to Kafka. This controls the format of the header values.")
    plugin_path: _OptList = Field(
        None, alias="plugin.path",
        description="Comma-separated Python plugin directories. Each directory's top-level modules (name.py) "
        "and packages (name/__init__.py) are imported when the worker starts and scanned for plugin classes "
        "(connectors, converters, header converters, transformations, predicates, config providers, override "
        "policies); the directory is appended to sys.path and dotted paths under those modules may be named. "
        "A path that is not a directory, or a module that fails to import, refuses start-up.")
    plugin_discovery: Annotated[str, BeforeValidator(_parse_plugin_discovery)] = Field(
        "hybrid_warn", alias="plugin.discovery",
        description="Kafka Connect's plugin discovery mode; only hybrid_warn (the default) is supported.")
    plugin_allowed_packages: _List = Field(
        default_factory=list, alias="plugin.allowed.packages",
        description="Comma-separated Python packages whose classes may be named by dotted path in connector "
        "configs, the worker file and REST requests (e.g. mycompany.connect allows mycompany.connect.* but not "
        "mycompany). Any other dotted name that is not a discovered plugin is not found, and nothing is "
        "imported for it.")
    config_providers: _List = Field(
        default_factory=list, alias="config.providers",
        description="Comma-separated names of ConfigProvider classes, loaded and used in the order "
        "specified.")
    connector_client_config_override_policy: Annotated[
        OverridePolicyName | str, BeforeValidator(_parse_override_policy)] = Field(
        OverridePolicyName.ALL, alias="connector.client.config.override.policy",
        description="Which client configurations connectors may override: All, None, Principal, or the "
        "dotted path of a connect_runtime.api.ConnectorClientConfigOverridePolicy subclass.")

    # --- topics ------------------------------------------------------------------------------
    topic_creation_enable: _Bool = Field(
        True, alias="topic.creation.enable",
        description="Whether to allow automatic creation of topics used by source connectors, when source "
        "connectors are configured with topic.creation. properties.")
    topic_tracking_enable: _Bool = Field(
        True, alias="topic.tracking.enable",
        description="Enable tracking the set of active topics per connector during runtime.")
    topic_tracking_allow_reset: _Bool = Field(
        True, alias="topic.tracking.allow.reset",
        description="If set to true, it allows user requests to reset the set of active topics per "
        "connector.")

    _originals: dict[str, str] = PrivateAttr(default_factory=dict)
    _transformer: ConfigTransformer | None = PrivateAttr(default=None)
    _redaction_owner: Hashable | None = PrivateAttr(default=None)
    _policy: OverridePolicyPlugin | None = PrivateAttr(default=None)
    _server_tls: dict[str, ssl.SSLContext] = PrivateAttr(default_factory=dict)
    _peer_tls: PeerTls | None = PrivateAttr(default=None)
    _tls_lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)
    _allowlist: PluginAllowlist | None = PrivateAttr(default=None)

    @model_validator(mode="after")
    def _check_across_keys(self) -> WorkerConfig:
        if self.inter_worker_signature_algorithm not in self.inter_worker_verification_algorithms:
            raise _Invalid(
                "must be one of the algorithms in inter.worker.verification.algorithms ("
                + ", ".join(self.inter_worker_verification_algorithms) + ")",
                key="inter.worker.signature.algorithm", value=self.inter_worker_signature_algorithm)
        if self.access_control_allow_methods.strip() and not self.access_control_allow_origin.strip():
            # Java ignores it then; a setting without effect is refused here rather than ignored.
            raise _Invalid("has no effect while access.control.allow.origin is empty (CORS is off)",
                           key="access.control.allow.methods", value=self.access_control_allow_methods)
        if self.heartbeat_interval_ms >= self.session_timeout_ms:
            raise _Invalid(
                f"must be lower than session.timeout.ms ({self.session_timeout_ms})",
                key="heartbeat.interval.ms", value=self.heartbeat_interval_ms)
        return self

    # --- construction --------------------------------------------------------------------------

    @classmethod
    def from_properties(cls, props: Mapping[str, str]) -> WorkerConfig:
        """Parse and validate raw worker properties; the first problem raises :class:`WorkerConfigError`.

        Unknown keys are allowed and kept in :attr:`originals`. The config providers named in
        ``config.providers`` are created first and resolve ``${provider:[path:]key}`` placeholders in
        the other values (as Kafka's ``AbstractConfig`` does); a provider that cannot be created, and
        a policy class that cannot be, raise :class:`WorkerConfigError` naming its key. Resolved values
        are redacted from the process's log until :meth:`close_plugins`, and an error never shows one
        (the key it names shows its placeholder).
        """
        allowlist = _plugin_allowlist(props)
        transformer = ConfigTransformer(_create_providers(props, allowlist))
        raw = {k: v for k, v in props.items() if not k.startswith(CONFIG_PROVIDERS_CONFIG)}
        resolution = ResolvedConfig(dict(raw))
        owner = ("worker config", object())
        try:
            resolution = transformer.transform(raw)
            # Redacted from the log for the life of the process (the worker's own settings never stop being used).
            redactor.register(owner, resolution)
            resolved = dict(resolution.data)
            resolved.update({k: v for k, v in props.items() if k.startswith(CONFIG_PROVIDERS_CONFIG)})
            try:
                config = cls.model_validate(resolved)
            except ValidationError as e:
                _raise_first(e)
            config._originals = resolved
            config._allowlist = allowlist
            config._transformer = transformer
            config._redaction_owner = owner
            config._policy = config._create_policy()
            config._refuse_ignored_settings()
            config._check_client_settings()
            config._check_rest_tls()
            config._warn_unknown_settings()
        except ConfigException as e:
            transformer.close()
            redactor.unregister(owner)
            raise _without_resolved_values(e, raw, resolution) from None
        return config

    def _warn_unknown_settings(self) -> None:
        """One warning naming the keys no part of the worker reads (a misspelt ``sesion.timeout.ms`` would
        otherwise pass in silence; Java's clients warn "supplied but isn't a known config" the same way).
        Plugins configured from the whole worker file may read keys of their own, hence a warning."""
        known = {field.alias for field in type(self).model_fields.values()} | _CLIENT_BASE_KEYS
        unknown = sorted(k for k in self._originals
                         if k not in known and k not in _REFUSED_WORKER_KEYS and not k.startswith(_KNOWN_PREFIXES))
        if unknown:
            log.warning("Worker settings this runtime does not know, without effect unless a REST extension, config "
                        "provider or override policy reads them (check their spelling): %s", ", ".join(unknown))

    def _check_client_settings(self) -> None:
        """Refuse, at start-up, a client setting librdkafka cannot be given (one line naming it)."""
        for kind in ClientType:
            prefix = f"{kind.value}."
            for problem in client_setting_problems(self.client_props(prefix), kind):
                key = prefix + problem.key if prefix + problem.key in self._originals else problem.key
                raise WorkerConfigError(f"Unsupported Kafka client setting {key}: {problem.message}", key=key)

    def _check_rest_tls(self) -> None:
        """Build the TLS contexts the REST server will need, so a setting that cannot be honoured (or an
        https listener without a keystore) refuses start-up with one line. Like Java (KAFKA-14816), a
        worker without https listeners does not read the TLS settings until it calls an https peer."""
        listeners = self.rest_listeners()
        for listener in listeners:
            if listener.https:
                self.rest_ssl_context(listener)
        if self.rest_advertised_listener == "https" and self.rest_advertised_port is None \
                and not any(listener.https and listener.regular for listener in listeners):
            raise WorkerConfigError("rest.advertised.listener is https but listeners has no https listener "
                                    "(add one, or set rest.advertised.port)", key="rest.advertised.listener",
                                    value="https")
        if self.rest_advertised_listener == "https" or any(listener.https for listener in listeners):
            self._peer_tls = PeerTls(client_context(self._originals))

    def _create_policy(self) -> OverridePolicyPlugin:
        name = self.connector_client_config_override_policy
        cls = BUILTIN_POLICIES[name] if isinstance(name, OverridePolicyName) else self.plugin_allowlist.load(name)
        if cls is None or not issubclass(cls, OverridePolicyPlugin):
            raise WorkerConfigError(
                f'Invalid value "{name}" for configuration connector.client.config.override.policy: '
                f"{_POLICY_REQUIREMENT}", key="connector.client.config.override.policy", value=name)
        try:
            policy = cls()
            policy.configure(dict(self._originals))
        except Exception as e:
            raise WorkerConfigError(f"connector.client.config.override.policy={name} failed to configure: {e}",
                                    key="connector.client.config.override.policy", value=name) from e
        return policy

    def _refuse_ignored_settings(self) -> None:
        """Refuse the settings the reference parses and then ignores (with a warning) or that name classes
        this runtime cannot run: a config topic ``partitions`` other than 1, an internal topic
        ``cleanup.policy`` other than compact (these topics are always created compacted, and an existing
        one that is not refuses start-up), the removed ``internal.key.converter`` /
        ``internal.value.converter`` (and their settings), ``metric.reporters`` (Java reporter classes), and
        the keys of ``_REFUSED_WORKER_KEYS`` unless set to the value that asks for nothing."""
        for key, value in self._originals.items():
            if key.startswith(_REMOVED_INTERNAL_CONVERTER_KEYS):
                raise WorkerConfigError(
                    f'Invalid value "{value}" for configuration {key}: the internal converter settings were removed '
                    "in Kafka Connect 3.0 and have no effect (internal topics always use JSON without schemas); "
                    "remove it", key=key, value=value)
        for key, (harmless, why) in _REFUSED_WORKER_KEYS.items():
            given = self._originals.get(key)
            if given is not None and (harmless is None or given.strip().lower() != harmless.lower()):
                raise WorkerConfigError(f'Invalid value "{given}" for configuration {key}: {why}; remove it',
                                        key=key, value=given)
        reporters = self._originals.get("metric.reporters")
        if reporters is not None and parse_list(reporters):
            raise WorkerConfigError(
                f'Invalid value "{reporters}" for configuration metric.reporters: Java metrics reporter classes '
                "cannot run in this runtime; remove it", key="metric.reporters", value=reporters)
        partitions = self._originals.get("config.storage.partitions")
        if partitions is not None and partitions.strip() != "1":
            raise WorkerConfigError(
                f'Invalid value "{partitions}" for configuration config.storage.partitions: the config topic '
                "always has exactly 1 partition; remove this setting",
                key="config.storage.partitions", value=partitions)
        for prefix in _STORAGE_PREFIXES:
            key = prefix + "cleanup.policy"
            policy = self._originals.get(key)
            if policy is not None and {p.strip().lower() for p in policy.split(",") if p.strip()} != {"compact"}:
                raise WorkerConfigError(
                    f'Invalid value "{policy}" for configuration {key}: internal topics are always created with '
                    "cleanup.policy=compact; remove this setting", key=key, value=policy)

    # --- derived views ---------------------------------------------------------------------------

    @property
    def plugin_allowlist(self) -> PluginAllowlist:
        """Which dotted class names this worker may import (``plugin.allowed.packages``, ``plugin.path``):
        the one rule for connector configs, REST requests and the worker file's own plugin classes."""
        if self._allowlist is None:  # built without from_properties (tests, embedding)
            try:
                self._allowlist = PluginAllowlist(self.plugin_allowed_packages, self.plugin_path or ())
            except PluginSettingError as e:
                raise _setting_error(e) from None
        return self._allowlist

    @property
    def config_transformer(self) -> ConfigTransformer:
        """Resolves ``${provider:[path:]key}`` placeholders with the worker's config providers."""
        if self._transformer is None:  # built without from_properties (tests, embedding)
            self._transformer = ConfigTransformer(_create_providers(self._originals, self.plugin_allowlist))
        return self._transformer

    @property
    def override_policy(self) -> OverridePolicyPlugin:
        """The ``connector.client.config.override.policy`` instance, configured."""
        if self._policy is None:
            self._policy = self._create_policy()
        return self._policy

    def close_plugins(self) -> None:
        """Close the config providers and the override policy (when the worker stops)."""
        if self._transformer is not None:
            self._transformer.close()
        if self._redaction_owner is not None:
            redactor.unregister(self._redaction_owner)
        if self._policy is not None:
            try:
                self._policy.close()
            except Exception:
                log.exception("The connector client config override policy failed to close")

    @property
    def originals(self) -> dict[str, str]:
        """Every raw property the worker was given, known or not (a copy; may contain secrets)."""
        return dict(self._originals)

    @property
    def exactly_once_source_enabled(self) -> bool:
        """Whether exactly-once source tasks run (``exactly.once.source.support=enabled``)."""
        return self.exactly_once_source_support.enabled

    @property
    def leader_transactional_id(self) -> str:
        """The transactional id of the leader's config-topic producer: ``connect-cluster-<group.id>``."""
        return f"connect-cluster-{self.group_id}"

    def task_transactional_id(self, connector: str, task: int) -> str:
        """The transactional id of an exactly-once task's producer: ``<group.id>-<connector>-<task>``."""
        return f"{self.group_id}-{connector}-{task}"

    def client_props(self, prefix: str) -> dict[str, str]:
        """Settings for one kind of the worker's Kafka clients: ``producer.``, ``consumer.``, ``admin.``.

        The base is what every client shares: ``bootstrap.servers``, ``security.protocol``, the
        ``sasl.*`` / ``ssl.*`` keys and the connection settings of Java's ``DistributedConfig``
        (``request.timeout.ms``, ``retry.backoff.ms``, ``reconnect.backoff.ms``, ...) of the worker
        file. Keys starting with ``prefix`` are laid over it with the prefix stripped
        (``producer.linger.ms=5`` -> ``linger.ms=5``). The names are as written (Java's or
        librdkafka's); :meth:`client_settings` translates them for librdkafka.
        """
        if not prefix.endswith("."):
            prefix += "."
        props = {
            k: v for k, v in self._originals.items()
            if (k in _CLIENT_BASE_KEYS or k.startswith(_CLIENT_BASE_PREFIXES)) and k not in _REST_ONLY_SSL_KEYS
        }
        props["bootstrap.servers"] = self.bootstrap_servers
        for key, value in self._originals.items():
            if key.startswith(prefix) and len(key) > len(prefix) and not key.startswith(_NOT_CLIENT_PREFIXES):
                props[key[len(prefix):]] = value
        return props

    @property
    def client_id_base(self) -> str:
        """The start of the ``client.id`` of the worker's own clients, as Java's: ``<group.id>-`` or
        ``<group.id>-<client.id>-``, followed by what the client is for (``offsets``, ``configs`` ...), so
        broker logs and quotas can tell them apart."""
        given = (self.client_id or "").strip()
        return f"{self.group_id}-{given}-" if given else f"{self.group_id}-"

    def internal_client_settings(self, kind: str, purpose: str) -> dict[str, Any]:
        """:meth:`client_settings` of one of the worker's own clients (of the internal topics), with
        ``client.id`` :attr:`client_id_base` + ``purpose``."""
        settings = self.client_settings(kind)
        settings["client.id"] = self.client_id_base + purpose
        return settings

    def client_settings(self, kind: str, overrides: Mapping[str, str] | None = None) -> dict[str, Any]:
        """The librdkafka settings of one kind of client (``"producer"``, ``"consumer"``, ``"admin"``).

        :meth:`client_props` with a connector's ``<kind>.override.*`` settings (prefix stripped) laid
        over them, translated from Java's names (see :mod:`connect_runtime.config.client_settings`).
        Raises :class:`~connect_runtime.config.client_settings.ClientSettingError` (a
        :class:`ConfigException`) naming a setting that cannot be honoured; the worker's own settings
        were checked at start-up, so that can only be an override.
        """
        kind = kind.rstrip(".")
        props: dict[str, Any] = dict(self.client_props(kind + "."))
        if overrides:
            props.update(overrides)
        try:
            return translate_client_settings(props, kind)
        except ClientSettingError as e:
            if overrides and e.problem.key in overrides:
                raise ClientSettingError(e.problem, f"{kind}.override.") from None
            raise

    def topic_settings(self, prefix: str) -> dict[str, str]:
        """Topic configs for an internal topic, from its ``<prefix><setting>`` keys.

        ``prefix`` is ``"config.storage."``, ``"offset.storage."`` or ``"status.storage."``. The
        topic's own keys (``topic``, ``replication.factor``, ``partitions``) are left out and
        ``cleanup.policy`` is always ``compact``: the stores depend on compaction keeping the latest
        value of every key.
        """
        if not prefix.endswith("."):
            prefix += "."
        if prefix not in _STORAGE_PREFIXES:
            raise ValueError(f"prefix must be one of {', '.join(_STORAGE_PREFIXES)}, not {prefix!r}")
        settings = {
            key[len(prefix):]: value for key, value in self._originals.items()
            if key.startswith(prefix) and key[len(prefix):] not in _STORAGE_OWN_SUFFIXES
        }
        settings["cleanup.policy"] = "compact"
        return settings

    def converter_settings(self, kind: str) -> tuple[str, dict[str, str]]:
        """The worker's default converter of ``kind`` (``"key"``, ``"value"``, ``"header"``).

        Returns the class name and the ``<kind>.converter.*`` settings with that prefix stripped
        (``value.converter.schemas.enable=false`` -> ``{"schemas.enable": "false"}``).
        """
        if kind not in _CONVERTER_KINDS:
            raise ValueError(f"converter kind must be one of {', '.join(_CONVERTER_KINDS)}, not {kind!r}")
        class_name: str = getattr(self, f"{kind}_converter")
        prefix = f"{kind}.converter."
        settings = {k[len(prefix):]: v for k, v in self._originals.items() if k.startswith(prefix)}
        return class_name, settings

    def rest_listener(self) -> tuple[str, int]:
        """Host and port of the first listener, to bind the REST server to (``""`` = all interfaces)."""
        _, host, port = parse_listener(self.listeners[0])
        return host, port

    @cached_property
    def response_header_rules(self) -> tuple[ResponseHeaderRule, ...]:
        """The parsed rules of ``response.http.headers.config`` (validated when the config was), for the
        REST server to apply to the responses of the regular listeners."""
        return parse_response_headers(self.response_http_headers_config)

    def rest_listeners(self) -> list[RestListener]:
        """Every REST listener to serve, as Java's ``RestServer`` does: each of ``listeners``, serving
        ``/admin/*`` too when ``admin.listeners`` is unset (none when it is empty), then each of
        ``admin.listeners``, serving ``/admin/*`` alone."""
        admin = self.admin_listeners
        result = [RestListener(url, *parse_listener(url), regular=True, admin=admin is None)
                  for url in self.listeners]
        result.extend(RestListener(url, *parse_listener(url), regular=False, admin=True) for url in admin or ())
        return result

    def rest_ssl_context(self, listener: RestListener) -> ssl.SSLContext:
        """The TLS context of an https listener: ``admin.listeners.https.ssl.*`` for an admin listener,
        ``listeners.https.ssl.*`` for the others, each falling back to the top-level ``ssl.*`` keys when
        no key with its prefix is set. Raises :class:`WorkerConfigError` on a setting it cannot honour."""
        prefix = LISTENERS_HTTPS_PREFIX if listener.regular else ADMIN_LISTENERS_HTTPS_PREFIX
        with self._tls_lock:
            context = self._server_tls.get(prefix)
            if context is None:
                try:
                    context = server_context(self._originals, prefix)
                except TlsSettingError as e:
                    raise WorkerConfigError(str(e), key=e.key) from None
                self._server_tls[prefix] = context
            return context

    def peer_tls(self) -> PeerTls:
        """How this worker calls other workers over https (Java's ``RestClient``): ``listeners.https.ssl.*``,
        else the top-level ``ssl.*``. Built at start-up when the worker serves https, otherwise on first
        use; a setting that cannot be honoured then fails those calls with its one-line reason."""
        with self._tls_lock:
            if self._peer_tls is None:
                try:
                    self._peer_tls = PeerTls(client_context(self._originals))
                except TlsSettingError as e:
                    log.error("Calls to other workers over https will fail: %s", e)
                    self._peer_tls = PeerTls(None, str(e))
            return self._peer_tls

    def advertised_url(self) -> str:
        """The URL other workers reach this worker's REST API at, e.g. ``http://worker1:8083``.

        Scheme: ``rest.advertised.listener``, else http if any listener is http, else https. Host:
        ``rest.advertised.host.name``, else the host of the first listener with that scheme, else
        this machine's host name. Port: ``rest.advertised.port``, else that listener's port.
        """
        scheme, host, port = self._advertised()
        return f"{scheme}://{_url_host(host)}:{port}"

    def worker_id(self) -> str:
        """This worker's id in status records and assignments: ``host:port`` of :meth:`advertised_url`."""
        _, host, port = self._advertised()
        return f"{_url_host(host)}:{port}"

    def _advertised(self) -> tuple[str, str, int]:
        parsed = [parse_listener(listener) for listener in self.listeners]
        scheme = self.rest_advertised_listener
        if scheme is None:
            scheme = "http" if any(s == "http" for s, _, _ in parsed) else "https"
        _, host, port = next((p for p in parsed if p[0] == scheme), parsed[0])
        if self.rest_advertised_host_name:
            host = self.rest_advertised_host_name
        elif not host:
            host = socket.gethostname()
        if self.rest_advertised_port is not None:
            port = self.rest_advertised_port
        return scheme, host, port


def _plugin_allowlist(props: Mapping[str, str]) -> PluginAllowlist:
    """The allowlist of raw worker properties (needed before the rest is parsed: config providers and the
    override policy are plugins too); a bad ``plugin.path`` or ``plugin.allowed.packages`` refuses."""
    try:
        return PluginAllowlist.from_properties(props)
    except PluginSettingError as e:
        raise _setting_error(e) from None


def _setting_error(e: PluginSettingError) -> WorkerConfigError:
    return WorkerConfigError(f'Invalid value "{e.value}" for configuration {e.name}: {e.requirement}', key=e.name,
                             value=e.value)


def _create_providers(props: Mapping[str, str], allowlist: PluginAllowlist) -> dict[str, ConfigProvider]:
    try:
        return dict(load_config_providers(props, allowlist.load))
    except WorkerConfigError:
        raise
    except ConfigException as e:
        raise WorkerConfigError(str(e)) from None


def _url_host(host: str) -> str:
    """Bracket IPv6 literals, as URLs (and Java's ``URI.getHost()``) write them."""
    try:
        if isinstance(ipaddress.ip_address(host), ipaddress.IPv6Address):
            return f"[{host}]"
    except ValueError:
        pass
    return host


def _without_resolved_values(error: ConfigException, raw: Mapping[str, str],
                             resolution: ResolvedConfig) -> WorkerConfigError:
    """``error`` as a one-line :class:`WorkerConfigError` showing no value a provider resolved: the key it
    names shows its value as written (the placeholder), and other resolved values in the message are put
    back as their placeholders."""
    message = str(error)
    key = getattr(error, "key", None)
    value = getattr(error, "value", None)
    shown = raw.get(key) if key is not None else None
    if isinstance(shown, str) and has_placeholder(shown):
        if value is not None and str(value):
            message = message.replace(f'"{value}"', f'"{shown}"', 1)
        value = shown
    return WorkerConfigError(resolution.redact(message), key=key, value=value)


def _raise_first(error: ValidationError) -> NoReturn:
    """Turn pydantic's report into one :class:`WorkerConfigError` about the first problem."""
    first = error.errors()[0]
    loc = ".".join(str(part) for part in first["loc"])
    if first["type"] == "missing":
        raise WorkerConfigError(
            f'Missing required configuration "{loc}" which has no default value.', key=loc)
    cause: Any = first.get("ctx", {}).get("error")
    if isinstance(cause, _Invalid):
        key = cause.key or loc
        value = cause.value if cause.key is not None else first["input"]
        message = cause.message
    elif isinstance(cause, InvalidValue):  # the shared value grammar, worded as "must be ..."
        key, value, message = loc, first["input"], cause.requirement
    else:  # pydantic's own checks (e.g. a wrong Python type passed programmatically)
        key, value, message = loc, first["input"], first["msg"]
    raise WorkerConfigError(
        f'Invalid value "{value}" for configuration {key}: {message}', key=key, value=value)


def load_worker_config(path: str | os.PathLike[str], overrides: Sequence[str] = ()) -> WorkerConfig:
    """Read a worker properties file, apply ``--override key=value`` strings, and validate.

    Overrides are applied after the file, in order (a later one wins). Problems with the file or an
    override raise :class:`WorkerConfigError` with a message fit for the operator.
    """
    try:
        props = load_properties(path)
    except FileNotFoundError:
        raise WorkerConfigError(f"Worker config file {os.fspath(path)} does not exist") from None
    except OSError as e:
        raise WorkerConfigError(
            f"Cannot read worker config file {os.fspath(path)}: {e.strerror or e}") from None
    except PropertiesError as e:
        raise WorkerConfigError(f"Worker config file {os.fspath(path)} is malformed: {e}") from None
    for override in overrides:
        key, sep, value = override.partition("=")
        key = key.strip()
        if not sep or not key:
            raise WorkerConfigError(f'Invalid override "{override}": expected key=value')
        props[key] = value
    return WorkerConfig.from_properties(props)
