"""The distributed worker's configuration (``worker.properties``).

Keys, defaults and rules follow Apache Kafka Connect's ``WorkerConfig`` and ``DistributedConfig`` so
an operator's existing worker file works unchanged. Values arrive as strings from a properties file
and are parsed the way Java's ``ConfigDef`` parses them (ints, ``true``/``false``, comma-separated
lists, surrounding whitespace trimmed). Keys this model does not know are kept in
:attr:`WorkerConfig.originals`: many are Kafka client settings (``security.protocol``,
``producer.*`` ...) that :meth:`WorkerConfig.client_props` hands to the clients.

The config is data: parsing it creates no plugin and builds no TLS context. The config providers, the
override policy and the TLS contexts it names are made and closed by the composition root
(:mod:`connect_runtime.composition`).
"""

from __future__ import annotations

import ipaddress
import logging
import os
import socket
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Annotated, Any, Final, NoReturn

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, PrivateAttr, ValidationError, model_validator

from connect_runtime.api.config_values import InvalidValue, parse_list
from connect_runtime.api.errors import ConfigException
from connect_runtime.api.override_policy import ClientType
from connect_runtime.config.client_settings import (
    ClientSettingError,
    client_setting_problems,
    translate_client_settings,
)
from connect_runtime.config.override_policies import OverridePolicyName
from connect_runtime.config.plugin_classes import PluginAllowlist, PluginSettingError
from connect_runtime.config.properties import PropertiesError, load_properties
from connect_runtime.config.response_headers import ResponseHeaderRule, parse_response_headers
from connect_runtime.config.worker_values import (
    HMAC_ALGORITHMS,
    Bool,
    ExactlyOnceSourceSupport,
    NonEmptyStr,
    NonNegInt,
    NonNegLong,
    OptStr,
    OptStrList,
    Partitions,
    PositiveInt,
    ReplicationFactor,
    SettingInvalid,
    Str,
    StrList,
    parse_admin_listeners,
    parse_advertised_listener,
    parse_eos_support,
    parse_hmac,
    parse_hmac_list,
    parse_key_size,
    parse_listener,
    parse_listeners,
    parse_override_policy,
    parse_plugin_discovery,
    parse_port,
    parse_response_headers_setting,
)
from connect_runtime.metrics.stats import MetricConfig

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
    "parse_listener",
    "plugin_allowlist",
    "read_worker_properties",
]

log = logging.getLogger(__name__)

DEFAULT_KEY_CONVERTER: Final = "org.apache.kafka.connect.json.JsonConverter"
DEFAULT_VALUE_CONVERTER: Final = "org.apache.kafka.connect.json.JsonConverter"
DEFAULT_HEADER_CONVERTER: Final = "org.apache.kafka.connect.storage.SimpleHeaderConverter"

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
# Keys Apache Kafka Connect's worker reads that configure what this runtime does not have or cannot run.
_NO_SYNC = ("this runtime has no resynchronisation step to time out: a worker reads the config topic "
            "continuously, and one that loses contact with the cluster for session.timeout.ms stops its tasks "
            "until it is back; remove it")
_INFO_METRICS = ("every Kafka Connect metric is recorded at INFO; the Java client metrics DEBUG and TRACE add do not "
                 "exist in librdkafka; remove it")
_NO_REST_PORT = "removed in Kafka Connect 3.0; set listeners (http://host:port) instead; remove it"


def _never(value: str) -> bool:
    return False


def _is(harmless: str) -> Callable[[str], bool]:
    """The value that asks for nothing (Java's default), in any case."""
    return lambda value: value.strip().lower() == harmless.lower()


def _only_compact(value: str) -> bool:
    return {p.strip().lower() for p in value.split(",") if p.strip()} == {"compact"}


_COMPACT_ONLY = "internal topics are always created with cleanup.policy=compact; remove this setting"
#: The settings refused at start-up: a key (or a prefix ending in ``*``), whether a value asks for nothing
#: (and is accepted), and why any other value is refused. The reference parses and then ignores these (with
#: a warning), or they name Java classes; a setting without effect is refused rather than ignored.
_REFUSED: Final[tuple[tuple[str, Callable[[str], bool], str], ...]] = (
    # Removed in Kafka Connect 3.0 (a Java worker warns that they have no effect); with their ``.*`` settings.
    *((f"internal.{kind}.converter*", _never,
       "the internal converter settings were removed in Kafka Connect 3.0 and have no effect (internal topics "
       "always use JSON without schemas); remove it") for kind in ("key", "value")),
    ("connect.protocol", _is("sessioned"), "this runtime always uses the sessioned protocol (incremental "
                                           "rebalancing, signed internal requests); remove it"),
    ("worker.sync.timeout.ms", _is("3000"), _NO_SYNC),
    ("worker.unsync.backoff.ms", _is("300000"), _NO_SYNC),
    ("metrics.recording.level", _is("INFO"), _INFO_METRICS),
    ("rest.host.name", _never, _NO_REST_PORT),
    ("rest.port", _never, _NO_REST_PORT),
    ("producer.transactional.id", _never, "the runtime names its transactional producers itself "
                                          "(<group.id>-<connector>-<task>, connect-cluster-<group.id>); remove it"),
    ("metric.reporters", lambda value: not parse_list(value),
     "Java metrics reporter classes cannot run in this runtime; remove it"),
    ("config.storage.partitions", lambda value: value.strip() == "1",
     "the config topic always has exactly 1 partition; remove this setting"),
    *((f"{prefix}cleanup.policy", _only_compact, _COMPACT_ONLY) for prefix in _STORAGE_PREFIXES),
)
_REFUSED_KEYS = frozenset(key for key, _, _ in _REFUSED if not key.endswith("*"))


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


class WorkerConfig(BaseModel):
    """A distributed worker's configuration, parsed and validated.

    Build it with :meth:`from_properties` (a file's with :func:`read_worker_properties`): that turns
    every validation problem into a one-line :class:`WorkerConfigError`. Attributes use Python
    names; each field's alias is the Kafka key (``group_id`` <- ``group.id``).
    """

    model_config = ConfigDict(frozen=True, extra="ignore")

    # --- cluster and internal topics -------------------------------------------------------------
    bootstrap_servers: NonEmptyStr = Field(
        alias="bootstrap.servers",
        description="A list of host/port pairs used to establish the initial connection to the Kafka "
        "cluster, as host1:port1,host2:port2,...")
    group_id: NonEmptyStr = Field(
        alias="group.id",
        description="A unique string that identifies the Connect cluster group this worker belongs to.")
    config_storage_topic: NonEmptyStr = Field(
        alias="config.storage.topic",
        description="The name of the Kafka topic where connector configurations are stored. "
        "It always has exactly one partition.")
    config_storage_replication_factor: ReplicationFactor = Field(
        3, alias="config.storage.replication.factor",
        description="Replication factor used when creating the configuration storage topic "
        "(-1 for the broker's default).")
    offset_storage_topic: NonEmptyStr = Field(
        alias="offset.storage.topic",
        description="The name of the Kafka topic where source connector offsets are stored.")
    offset_storage_partitions: Partitions = Field(
        25, alias="offset.storage.partitions",
        description="The number of partitions used when creating the offset storage topic "
        "(-1 for the broker's default).")
    offset_storage_replication_factor: ReplicationFactor = Field(
        3, alias="offset.storage.replication.factor",
        description="Replication factor used when creating the offset storage topic "
        "(-1 for the broker's default).")
    status_storage_topic: NonEmptyStr = Field(
        alias="status.storage.topic",
        description="The name of the Kafka topic where connector and task status are stored.")
    status_storage_partitions: Partitions = Field(
        5, alias="status.storage.partitions",
        description="The number of partitions used when creating the status storage topic "
        "(-1 for the broker's default).")
    status_storage_replication_factor: ReplicationFactor = Field(
        3, alias="status.storage.replication.factor",
        description="Replication factor used when creating the status storage topic "
        "(-1 for the broker's default).")
    default_api_timeout_ms: NonNegInt = Field(
        60000, alias="default.api.timeout.ms",
        description="How long the worker waits at start-up for the Kafka cluster: for its cluster id and for "
        "creating or checking the internal topics. With no answer in that time the worker exits with one line "
        "saying so.")
    client_id: OptStr = Field(
        None, alias="client.id",
        description="An id string passed to the brokers with requests, to track request sources: the worker's "
        "own clients are named <group.id>-<client.id>-<purpose> (offsets, statuses, configs, shared-admin, "
        "shared-producer).")

    # --- exactly-once source (KIP-618) -----------------------------------------------------------
    exactly_once_source_support: Annotated[
        ExactlyOnceSourceSupport, BeforeValidator(parse_eos_support)] = Field(
        ExactlyOnceSourceSupport.DISABLED, alias="exactly.once.source.support",
        description="Whether to enable exactly-once support for source connectors: disabled, preparing or "
        "enabled (case-insensitive). Upgrade existing clusters in two rolling passes: preparing, then "
        "enabled.")

    # --- timing ------------------------------------------------------------------------------
    offset_flush_interval_ms: NonNegLong = Field(
        60000, alias="offset.flush.interval.ms",
        description="Interval at which to try committing offsets for tasks. Under exactly-once it is only "
        "the default of transaction.boundary.interval.ms.")
    offset_flush_timeout_ms: NonNegLong = Field(
        5000, alias="offset.flush.timeout.ms",
        description="Maximum number of milliseconds to wait for records to flush and offsets to be committed "
        "before cancelling the process. No effect under exactly-once.")
    task_shutdown_graceful_timeout_ms: NonNegLong = Field(
        5000, alias="task.shutdown.graceful.timeout.ms",
        description="Amount of time to wait for tasks to shut down gracefully.")
    scheduled_rebalance_max_delay_ms: NonNegInt = Field(
        300000, alias="scheduled.rebalance.max.delay.ms",
        description="How long the leader remembers the connectors and tasks of a departed worker (whose work "
                    "moves to the live workers at once): if it comes back within this time, what moves back to "
                    "it to restore balance is what it had; 0 = a returning worker is treated as new.")
    session_timeout_ms: PositiveInt = Field(
        10000, alias="session.timeout.ms",
        description="A worker is considered dead when no heartbeat of it was seen for this long.")
    heartbeat_interval_ms: PositiveInt = Field(
        3000, alias="heartbeat.interval.ms",
        description="How often a worker writes its heartbeat; must be lower than session.timeout.ms.")
    rebalance_timeout_ms: PositiveInt = Field(
        60000, alias="rebalance.timeout.ms",
        description="The maximum time a worker may take to join a new assignment (stop revoked work).")

    # --- internal request signing (KIP-507) --------------------------------------------------
    inter_worker_key_generation_algorithm: Annotated[str, BeforeValidator(parse_hmac)] = Field(
        "HmacSHA256", alias="inter.worker.key.generation.algorithm",
        description="The algorithm to use for generating internal request keys.")
    inter_worker_key_size: Annotated[int | None, BeforeValidator(parse_key_size)] = Field(
        None, alias="inter.worker.key.size",
        description="The size of the key to use for signing internal requests, in bits. "
        "If unset, the default key size for the key generation algorithm is used.")
    inter_worker_key_ttl_ms: NonNegLong = Field(
        3600000, alias="inter.worker.key.ttl.ms",
        description="The TTL of generated session keys used for internal request validation, "
        "in milliseconds.")
    inter_worker_signature_algorithm: Annotated[str, BeforeValidator(parse_hmac)] = Field(
        "HmacSHA256", alias="inter.worker.signature.algorithm",
        description="The algorithm used to sign internal requests.")
    inter_worker_verification_algorithms: Annotated[list[str], BeforeValidator(parse_hmac_list)] = Field(
        default_factory=lambda: ["HmacSHA256"], alias="inter.worker.verification.algorithms",
        description="A list of permitted algorithms for verifying internal requests; "
        "must include inter.worker.signature.algorithm.")

    # --- REST --------------------------------------------------------------------------------
    listeners: Annotated[list[str], BeforeValidator(parse_listeners)] = Field(
        default_factory=lambda: ["http://:8083"], alias="listeners",
        description="Comma-separated URIs the REST API listens on, e.g. "
        "http://myhost:8083,https://myhost:8084. Leave the host empty to bind to all interfaces.")
    rest_advertised_host_name: OptStr = Field(
        None, alias="rest.advertised.host.name",
        description="If set, this is the hostname given out to other workers to connect to.")
    rest_advertised_port: Annotated[int | None, BeforeValidator(parse_port)] = Field(
        None, alias="rest.advertised.port",
        description="If set, this is the port given out to other workers to connect to.")
    rest_advertised_listener: Annotated[str | None, BeforeValidator(parse_advertised_listener)] = Field(
        None, alias="rest.advertised.listener",
        description="Sets the advertised listener (http or https) given out to other workers.")
    admin_listeners: Annotated[list[str] | None, BeforeValidator(parse_admin_listeners)] = Field(
        None, alias="admin.listeners",
        description="List of comma-separated URIs the admin REST API listens on. An empty value disables "
        "the admin endpoints; unset puts them on the normal listeners.")
    access_control_allow_origin: Str = Field(
        "", alias="access.control.allow.origin",
        description="Value to set the Access-Control-Allow-Origin header to for REST API requests; "
        "empty disables CORS.")
    access_control_allow_methods: Str = Field(
        "", alias="access.control.allow.methods",
        description="Sets the methods supported for cross origin requests in the "
        "Access-Control-Allow-Methods header. The default allows GET, POST and HEAD.")
    response_http_headers_config: Annotated[str, BeforeValidator(parse_response_headers_setting)] = Field(
        "", alias="response.http.headers.config",
        description="Rules for REST API HTTP response headers: a comma-separated list of "
        "'[action] [header name]:[header value]' (a rule in double quotes may contain commas), the action "
        "one of set, add, setDate, addDate; the date actions take milliseconds added to the current time and "
        "send an HTTP date. Applied to every response of the listeners in listeners (including the admin "
        "endpoints when they are served there), not to admin.listeners. A set header does not replace one "
        "the API sets itself (e.g. Content-Type).")
    rest_extension_classes: StrList = Field(
        default_factory=list, alias="rest.extension.classes",
        description="Comma-separated names of connect_runtime.api.ConnectRestExtension classes, registered "
        "in the order specified (Kafka's BasicAuthSecurityRestExtension name gives the built-in Basic "
        "authentication).")
    rest_ui_enable: Bool = Field(
        True, alias="rest.ui.enable",
        description="Serve the operator console at /ui/ on the regular listeners (its files hold no data "
        "and are served without authentication; everything it shows comes from this REST API with the "
        "user's credentials). false: /ui/ answers 404.")
    # Our own keys (Java has no such bounds): one request must not be able to take the worker down.
    rest_request_max_bytes: PositiveInt = Field(
        DEFAULT_REST_REQUEST_MAX_BYTES, alias="rest.request.max.bytes",
        description="The largest REST request body the worker reads, in bytes; a larger one is refused "
        "with 413 before it is read into memory. The default (8 MiB) is far above any real connector "
        "config (a config record must fit in one Kafka message, 1 MiB by default). It also bounds the task "
        "configs a worker hands to the leader in one request (all of a connector's tasks together).")
    tasks_max_limit: PositiveInt = Field(
        DEFAULT_TASKS_MAX_LIMIT, alias="tasks.max.limit",
        description="The highest tasks.max a connector may be configured with on this worker; a higher "
        "one is a validation error (400 on create/update) and fails a connector stored with it, before "
        "the connector is asked for any task configs.")

    # --- metrics ------------------------------------------------------------------------------
    metrics_num_samples: PositiveInt = Field(
        2, alias="metrics.num.samples",
        description="The number of samples maintained to compute metrics.")
    metrics_sample_window_ms: NonNegInt = Field(
        30000, alias="metrics.sample.window.ms",
        description="The window of time a metrics sample is computed over.")

    # --- converters and plugins --------------------------------------------------------------
    key_converter: NonEmptyStr = Field(
        DEFAULT_KEY_CONVERTER, alias="key.converter",
        description="Converter class used to convert between Kafka Connect format and the serialized form "
        "that is written to Kafka. This controls the format of the keys in messages written to or read from "
        "Kafka.")
    value_converter: NonEmptyStr = Field(
        DEFAULT_VALUE_CONVERTER, alias="value.converter",
        description="Converter class used to convert between Kafka Connect format and the serialized form "
        "that is written to Kafka. This controls the format of the values in messages written to or read "
        "from Kafka.")
    header_converter: NonEmptyStr = Field(
        DEFAULT_HEADER_CONVERTER, alias="header.converter",
        description="HeaderConverter class used to convert between Kafka Connect format and the serialized "
        "form that is written to Kafka. This controls the format of the header values.")
    plugin_path: OptStrList = Field(
        None, alias="plugin.path",
        description="Comma-separated Python plugin directories. Each directory's top-level modules (name.py) "
        "and packages (name/__init__.py) are imported when the worker starts and scanned for plugin classes "
        "(connectors, converters, header converters, transformations, predicates, config providers, override "
        "policies); the directory is appended to sys.path and dotted paths under those modules may be named. "
        "A path that is not a directory, or a module that fails to import, refuses start-up.")
    plugin_discovery: Annotated[str, BeforeValidator(parse_plugin_discovery)] = Field(
        "hybrid_warn", alias="plugin.discovery",
        description="Kafka Connect's plugin discovery mode; only hybrid_warn (the default) is supported.")
    plugin_allowed_packages: StrList = Field(
        default_factory=list, alias="plugin.allowed.packages",
        description="Comma-separated Python packages whose classes may be named by dotted path in connector "
        "configs, the worker file and REST requests (e.g. mycompany.connect allows mycompany.connect.* but not "
        "mycompany). Any other dotted name that is not a discovered plugin is not found, and nothing is "
        "imported for it.")
    config_providers: StrList = Field(
        default_factory=list, alias="config.providers",
        description="Comma-separated names of ConfigProvider classes, loaded and used in the order "
        "specified.")
    connector_client_config_override_policy: Annotated[
        OverridePolicyName | str, BeforeValidator(parse_override_policy)] = Field(
        OverridePolicyName.ALL, alias="connector.client.config.override.policy",
        description="Which client configurations connectors may override: All, None, Principal, or the "
        "dotted path of a connect_runtime.api.ConnectorClientConfigOverridePolicy subclass.")

    # --- topics ------------------------------------------------------------------------------
    topic_creation_enable: Bool = Field(
        True, alias="topic.creation.enable",
        description="Whether to allow automatic creation of topics used by source connectors, when source "
        "connectors are configured with topic.creation. properties.")
    topic_tracking_enable: Bool = Field(
        True, alias="topic.tracking.enable",
        description="Enable tracking the set of active topics per connector during runtime.")
    topic_tracking_allow_reset: Bool = Field(
        True, alias="topic.tracking.allow.reset",
        description="If set to true, it allows user requests to reset the set of active topics per "
        "connector.")

    _originals: dict[str, str] = PrivateAttr(default_factory=dict)
    _allowlist: PluginAllowlist | None = PrivateAttr(default=None)

    @model_validator(mode="after")
    def _check_across_keys(self) -> WorkerConfig:
        if self.inter_worker_signature_algorithm not in self.inter_worker_verification_algorithms:
            raise SettingInvalid(
                "must be one of the algorithms in inter.worker.verification.algorithms ("
                + ", ".join(self.inter_worker_verification_algorithms) + ")",
                key="inter.worker.signature.algorithm", value=self.inter_worker_signature_algorithm)
        if self.access_control_allow_methods.strip() and not self.access_control_allow_origin.strip():
            # Java ignores it then; a setting without effect is refused here rather than ignored.
            raise SettingInvalid("has no effect while access.control.allow.origin is empty (CORS is off)",
                                 key="access.control.allow.methods", value=self.access_control_allow_methods)
        if self.heartbeat_interval_ms >= self.session_timeout_ms:
            raise SettingInvalid(
                f"must be lower than session.timeout.ms ({self.session_timeout_ms})",
                key="heartbeat.interval.ms", value=self.heartbeat_interval_ms)
        return self

    # --- construction --------------------------------------------------------------------------

    @classmethod
    def from_properties(cls, props: Mapping[str, str], allowlist: PluginAllowlist | None = None) -> WorkerConfig:
        """Parse and validate worker properties; the first problem raises :class:`WorkerConfigError`.

        Pure: no plugin is created and no process-wide state is touched, so ``${provider:[path:]key}``
        placeholders stay as written (the composition root, :mod:`connect_runtime.composition`, resolves
        them before it calls this). Unknown keys are allowed and kept in :attr:`originals`.
        ``allowlist`` is the :func:`plugin_allowlist` of these properties when the caller built it already.
        """
        if allowlist is None:
            allowlist = plugin_allowlist(props)
        try:
            config = cls.model_validate(props)
        except ValidationError as e:
            _raise_first(e)
        config._originals = dict(props)
        config._allowlist = allowlist
        config._refuse_unsupported_settings()
        config._check_client_settings()
        config._check_advertised_listener()
        return config

    def unknown_settings(self) -> list[str]:
        """The keys no part of the worker reads, sorted (a misspelt ``sesion.timeout.ms`` would otherwise
        pass in silence; Java's clients warn "supplied but isn't a known config" the same way). Plugins
        configured from the whole worker file may read keys of their own, so these warrant a warning only."""
        known = {field.alias for field in type(self).model_fields.values()} | _CLIENT_BASE_KEYS
        return sorted(k for k in self._originals
                      if k not in known and k not in _REFUSED_KEYS and not k.startswith(_KNOWN_PREFIXES))

    def _check_client_settings(self) -> None:
        """Refuse, at start-up, a client setting librdkafka cannot be given (one line naming it)."""
        for kind in ClientType:
            prefix = f"{kind.value}."
            for problem in client_setting_problems(self.client_props(prefix), kind):
                key = prefix + problem.key if prefix + problem.key in self._originals else problem.key
                raise WorkerConfigError(f"Unsupported Kafka client setting {key}: {problem.message}", key=key)

    def _check_advertised_listener(self) -> None:
        if self.rest_advertised_listener == "https" and self.rest_advertised_port is None \
                and not any(listener.https and listener.regular for listener in self.rest_listeners()):
            raise WorkerConfigError("rest.advertised.listener is https but listeners has no https listener "
                                    "(add one, or set rest.advertised.port)", key="rest.advertised.listener",
                                    value="https")

    def _refuse_unsupported_settings(self) -> None:
        """Refuse the settings the reference parses and then ignores (with a warning) or that name classes
        this runtime cannot run (see :data:`_REFUSED`), unless set to the value that asks for nothing."""
        for key_or_prefix, asks_for_nothing, why in _REFUSED:
            if key_or_prefix.endswith("*"):
                found = [(k, v) for k, v in self._originals.items() if k.startswith(key_or_prefix[:-1])]
            else:
                given = self._originals.get(key_or_prefix)
                found = [] if given is None else [(key_or_prefix, given)]
            for key, value in found:
                if not asks_for_nothing(value):
                    raise WorkerConfigError(f'Invalid value "{value}" for configuration {key}: {why}', key=key,
                                            value=value)

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
    def originals(self) -> dict[str, str]:
        """Every raw property the worker was given, known or not (a copy; may contain secrets)."""
        return dict(self._originals)

    @property
    def metric_config(self) -> MetricConfig:
        """The windows of every windowed metric (``metrics.num.samples`` times ``metrics.sample.window.ms``)."""
        return MetricConfig(samples=self.metrics_num_samples, window_ms=self.metrics_sample_window_ms)

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


def plugin_allowlist(props: Mapping[str, str]) -> PluginAllowlist:
    """The allowlist of raw worker properties (needed before the rest is parsed: config providers and the
    override policy are plugins too); a bad ``plugin.path`` or ``plugin.allowed.packages`` refuses."""
    try:
        return PluginAllowlist.from_properties(props)
    except PluginSettingError as e:
        raise _setting_error(e) from None


def _setting_error(e: PluginSettingError) -> WorkerConfigError:
    return WorkerConfigError(f'Invalid value "{e.value}" for configuration {e.name}: {e.requirement}', key=e.name,
                             value=e.value)


def _url_host(host: str) -> str:
    """Bracket IPv6 literals, as URLs (and Java's ``URI.getHost()``) write them."""
    try:
        if isinstance(ipaddress.ip_address(host), ipaddress.IPv6Address):
            return f"[{host}]"
    except ValueError:
        pass
    return host


def _raise_first(error: ValidationError) -> NoReturn:
    """Turn pydantic's report into one :class:`WorkerConfigError` about the first problem."""
    first = error.errors()[0]
    loc = ".".join(str(part) for part in first["loc"])
    if first["type"] == "missing":
        raise WorkerConfigError(
            f'Missing required configuration "{loc}" which has no default value.', key=loc)
    cause: Any = first.get("ctx", {}).get("error")
    if isinstance(cause, SettingInvalid):
        key = cause.key or loc
        value = cause.value if cause.key is not None else first["input"]
        message = cause.message
    elif isinstance(cause, InvalidValue):  # the shared value grammar, worded as "must be ..."
        key, value, message = loc, first["input"], cause.requirement
    else:  # pydantic's own checks (e.g. a wrong Python type passed programmatically)
        key, value, message = loc, first["input"], first["msg"]
    raise WorkerConfigError(
        f'Invalid value "{value}" for configuration {key}: {message}', key=key, value=value)


def read_worker_properties(path: str | os.PathLike[str], overrides: Sequence[str] = ()) -> dict[str, str]:
    """Read a worker properties file and apply ``--override key=value`` strings, as written.

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
    return props
