"""The narrow interface the REST layer uses to talk to the herder, and the entities it returns.

REST handlers never touch worker state directly: every mutating call is a request the herder's own
thread executes; the returned ``Future`` completes (or fails with a ``HttpStatusError``) when done.
Reads (connectors, info, config, task configs, statuses) return futures too, but the herder completes
them at once from its latest config and status snapshots, without queueing them behind its thread;
only while the worker is still reading its internal topics at start-up do they wait.
"""

from __future__ import annotations

from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Protocol

from connect_runtime.metrics.connect_metrics import ConnectMetrics
from connect_runtime.types import ConnectorOffset, ConnectorOffsets, ConnectorTaskId, TargetState


@dataclass(slots=True)
class ConnectorInfo:
    """``GET /connectors/{c}``: name, config, task ids, type."""

    name: str
    config: dict[str, str]
    tasks: list[ConnectorTaskId]
    type: str  # "source" | "sink" | "unknown"


@dataclass(slots=True)
class TaskInfo:
    """``GET /connectors/{c}/tasks`` entry."""

    id: ConnectorTaskId
    config: dict[str, str]


@dataclass(slots=True)
class StateInfo:
    """State of a connector or task as read from the status topic."""

    state: str
    worker_id: str
    trace: str | None = None
    #: The version of the connector or task instance that wrote the state (Java 4.1); None if unknown.
    version: str | None = field(default=None, kw_only=True)


@dataclass(slots=True)
class TaskStateInfo(StateInfo):
    """State of one task."""

    id: int = 0


@dataclass(slots=True)
class ConnectorStateInfo:
    """``GET /connectors/{c}/status``."""

    name: str
    connector: StateInfo
    tasks: list[TaskStateInfo]
    type: str


@dataclass(slots=True)
class ExpandedConnector:
    """One connector of ``GET /connectors?expand=...``: its status and/or info, None when not asked for."""

    status: ConnectorStateInfo | None = None
    info: ConnectorInfo | None = None


@dataclass(slots=True)
class PluginDesc:
    """``GET /connector-plugins`` entry."""

    class_name: str
    type: str  # "source" | "sink" | "converter" | "header_converter" | "transformation" | "predicate"
    version: str


@dataclass(slots=True)
class ConfigKeyInfo:
    """The ``definition`` half of a ConfigInfo."""

    name: str
    type: str
    required: bool
    default_value: str | None
    importance: str
    documentation: str
    group: str | None
    order: int
    width: str
    display_name: str
    dependents: list[str] = field(default_factory=list)


@dataclass(slots=True)
class ConfigValueInfo:
    """The ``value`` half of a ConfigInfo."""

    name: str
    value: str | None
    recommended_values: list[str]
    errors: list[str]
    visible: bool


@dataclass(slots=True)
class ConfigInfo:
    """One key of a validation result."""

    definition: ConfigKeyInfo
    value: ConfigValueInfo


@dataclass(slots=True)
class ConfigInfos:
    """``PUT /connector-plugins/{p}/config/validate`` result."""

    name: str
    error_count: int
    groups: list[str]
    configs: list[ConfigInfo]


@dataclass(frozen=True, slots=True)
class LoggerLevelInfo:
    """``GET /admin/loggers/{logger}``: the logger's level (its effective one when not set on it) as a
    log4j level name, and when this worker last changed it (ms since the epoch; None if never)."""

    level: str
    last_modified: int | None


@dataclass(frozen=True, slots=True)
class SessionKeyInfo:
    """A KIP-507 signing key; ``key`` is secret: never log or return it."""

    key: bytes = field(repr=False)
    algorithm: str
    creation_timestamp: int


@dataclass(slots=True)
class Created:
    """Result of a config put: whether the connector was created (201) or updated (200)."""

    created: bool
    info: ConnectorInfo


class Herder(Protocol):
    """What the REST API may ask of a worker. Methods returning ``Future`` run on the herder thread,
    except the reads (see the module docstring)."""

    def worker_id(self) -> str:
        """This worker's id (advertised host:port)."""
        ...

    def kafka_cluster_id(self) -> str:
        """The Kafka cluster id the worker is connected to."""
        ...

    def metrics(self) -> ConnectMetrics:
        """This worker's live metric groups (``GET /metrics`` and the console read them)."""
        ...

    def is_ready(self) -> bool:
        """True once the worker can serve writes: it has read its internal topics and a live leader is
        known (``GET /health`` answers 200 from then on, 503 before)."""
        ...

    def health_check(self) -> Future[None]:
        """Completes once the herder thread has processed it: proof that the worker's brain is not
        stuck (Java's ``Herder.healthCheck``; ``GET /health`` waits for it at most 10 s)."""
        ...

    def connectors(self) -> Future[list[str]]:
        """Names of all connectors."""
        ...

    def connector_info(self, name: str) -> Future[ConnectorInfo]:
        """Config and task ids of a connector; NotFoundHttpError if unknown."""
        ...

    def connectors_expanded(self, status: bool, info: bool) -> Future[dict[str, ExpandedConnector]]:
        """Every connector, by name in name order, with its status (``status``) and/or its info (``info``),
        all from one config snapshot: ``GET /connectors?expand=...`` in one read rather than one or two
        per connector."""
        ...

    def connector_config(self, name: str) -> Future[dict[str, str]]:
        """The connector's config; NotFoundHttpError if unknown."""
        ...

    def put_connector_config(
        self, name: str, config: dict[str, str], allow_replace: bool, initial_state: TargetState | None
    ) -> Future[Created]:
        """Create or update; validates first (BadRequestHttpError with Connect's message if invalid)."""
        ...

    def patch_connector_config(self, name: str, patch: dict[str, str | None]) -> Future[Created]:
        """KIP-477 partial update (leader only): the current config with ``patch`` merged in (a None
        value removes the key), validated and written as a PUT would; NotFoundHttpError if unknown."""
        ...

    def delete_connector(self, name: str) -> Future[None]:
        """Delete a connector; NotFoundHttpError if unknown."""
        ...

    def task_configs(self, name: str) -> Future[list[TaskInfo]]:
        """Task configs of a connector."""
        ...

    def connector_status(self, name: str) -> Future[ConnectorStateInfo]:
        """Status of a connector and its tasks (from the status topic); NotFoundHttpError if unknown."""
        ...

    def pause_connector(self, name: str) -> None:
        """Write the PAUSED target state (any worker may)."""
        ...

    def resume_connector(self, name: str) -> None:
        """Write the STARTED target state."""
        ...

    def validate_connector_config(self, config: dict[str, str]) -> ConfigInfos:
        """Validate a connector config (may call into the plugin; run off the event loop)."""
        ...

    def connector_plugins(self, connectors_only: bool) -> list[PluginDesc]:
        """Installed plugins."""
        ...

    def plugin_config(self, plugin: str, version: str | None = None) -> list[ConfigKeyInfo]:
        """Config key definitions of a plugin; ``version`` (a range, see ``version_requirement``) must be
        met by the installed plugin's (400 otherwise)."""
        ...

    # -- cluster operations -----------------------------------------------------------------------------
    def leader_url(self) -> str | None:
        """The REST URL of the current leader, or None while unknown."""
        ...

    def session_key(self) -> SessionKeyInfo | None:
        """The current inter-worker key (KIP-507), None until one has been read."""
        ...

    def verification_algorithms(self) -> list[str]:
        """Signature algorithms accepted on internal requests (``inter.worker.verification.algorithms``)."""
        ...

    def signature_algorithm(self) -> str:
        """The algorithm this worker signs internal requests with."""
        ...

    def task_status(self, task: ConnectorTaskId) -> Future[TaskStateInfo]:
        """One task's state; NotFoundHttpError if unknown."""
        ...

    def put_task_configs(self, name: str, configs: list[dict[str, str]]) -> Future[None]:
        """Internal: the connector's owner hands its task configs to the leader (NotLeaderHttpError elsewhere)."""
        ...

    def fence_zombies(self, name: str) -> Future[None]:
        """Internal: zombie fencing of the previous task generation (leader only)."""
        ...

    def restart_connector(self, name: str, include_tasks: bool, only_failed: bool) -> Future[ConnectorStateInfo | None]:
        """Plain restart (both flags false) → None, done by the owner (NotAssignedHttpError elsewhere);
        otherwise the leader writes a restart request and the result lists RESTARTING states."""
        ...

    def restart_task(self, task: ConnectorTaskId) -> Future[None]:
        """Restart one task on its owner (NotAssignedHttpError elsewhere)."""
        ...

    def stop_connector(self, name: str) -> Future[None]:
        """Leader writes an empty task set, then the STOPPED target state."""
        ...

    # -- offsets (KIP-875) --------------------------------------------------------------------------
    def connector_offsets(self, name: str) -> Future[ConnectorOffsets]:
        """The connector's committed source offsets (any worker serves it); NotFoundHttpError if unknown."""
        ...

    def alter_connector_offsets(self, name: str, offsets: list[ConnectorOffset]) -> Future[str]:
        """Leader only, connector STOPPED: write ``offsets`` (None offsets reset their partition).

        The result is the success message the REST API returns.
        """
        ...

    def reset_connector_offsets(self, name: str) -> Future[str]:
        """Leader only, connector STOPPED: tombstone every partition the connector has an offset for."""
        ...

    # -- active topics (KIP-558) ---------------------------------------------------------------------
    def connector_active_topics(self, name: str) -> Future[list[str]]:
        """The topics the connector's tasks have produced to since the last reset (from the status topic).

        Like Java, an unknown connector has no topics (an empty list, not a 404)."""
        ...

    def reset_connector_active_topics(self, name: str) -> Future[None]:
        """Tombstone every ``status-topic-*`` record of the connector."""
        ...

    # -- logger levels (KIP-495, KIP-976) -----------------------------------------------------------
    def logger_level(self, logger_name: str) -> LoggerLevelInfo | None:
        """The level of an existing logger (``root`` is the root logger); None if no such logger."""
        ...

    def all_logger_levels(self) -> dict[str, LoggerLevelInfo]:
        """Every logger with a level set on it, and ``root``, sorted by name."""
        ...

    def set_worker_logger_level(self, namespace: str, level: str) -> list[str]:
        """Set ``level`` on this worker for the namespace's logger and every logger whose name starts with
        it; returns the names of those whose level it changed, sorted (an invalid level changes nothing
        and returns [])."""
        ...

    def set_cluster_logger_level(self, namespace: str, level: str) -> None:
        """Write a ``logger-cluster-<namespace>`` record: every running worker applies it."""
        ...
