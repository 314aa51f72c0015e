"""An in-memory implementation of the ``Herder`` protocol for REST unit tests (shapes and codes only).

Everything completes at once except what a test asks for: ``hang`` makes future-returning calls
never complete (request timeouts), ``fail_next`` makes the next call raise the given exception.

Cluster roles: with ``is_leader=False`` every leader-only operation fails with
``NotLeaderHttpError(leader_address)``; with ``assigned=False`` owner-only operations (plain connector
restart, task restart) fail with ``NotAssignedHttpError(owner_address)``, as the real herder's futures do.
"""

from __future__ import annotations

import threading
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, TypeVar

from connect_runtime.cluster import herder_api
from connect_runtime.errors import (
    AlreadyExistsHttpError,
    BadRequestHttpError,
    ForbiddenHttpError,
    NotAssignedHttpError,
    NotFoundHttpError,
    NotLeaderHttpError,
)
from connect_runtime.loggers import Loggers
from connect_runtime.metrics.connect_metrics import ConnectMetrics
from connect_runtime.types import ConnectorOffset, ConnectorOffsets, ConnectorTaskId, TargetState
from connect_runtime.worker.offsets_admin import completion_message, normalize_offsets

T = TypeVar("T")

SOURCE_CLASS = "connectors.verifiable.VerifiableSourceConnector"
#: The session key fakes share unless a test says otherwise (never a real secret).
TEST_SESSION_KEY = herder_api.SessionKeyInfo(key=b"0123456789abcdef0123456789abcdef", algorithm="HmacSHA256",
                                             creation_timestamp=0)


@dataclass
class FakeConnector:
    """What the fake remembers about one connector."""

    config: dict[str, str]
    target: TargetState = TargetState.STARTED
    tasks: int = 1
    task_configs: list[dict[str, str]] | None = None
    failed: bool = False
    #: Committed offsets, canonical offsets-topic key -> partition and offset.
    offsets: dict[bytes, ConnectorOffset] = field(default_factory=dict)
    #: What the plugin's ``alter_offsets`` returns (True: it handles offsets kept elsewhere).
    alter_offsets_result: bool = False


@dataclass
class FakeHerder:
    """Implements ``connect_runtime.cluster.herder_api.Herder`` in memory."""

    ready: bool = True
    cluster_id: str = "fake-cluster-id"
    connectors_by_name: dict[str, FakeConnector] = field(default_factory=dict)
    hang: bool = False
    #: The herder thread is stuck: ``health_check`` never completes (reads still answer).
    herder_stuck: bool = False
    block_sync: threading.Event | None = None
    fail_next: BaseException | None = None
    calls: list[tuple[str, Any]] = field(default_factory=list)
    # -- cluster role ---------------------------------------------------------------------------
    is_leader: bool = True
    leader_address: str | None = None
    assigned: bool = True
    owner_address: str | None = None
    key: herder_api.SessionKeyInfo | None = TEST_SESSION_KEY
    verification: list[str] = field(default_factory=lambda: ["HmacSHA256"])
    signing_algorithm: str = "HmacSHA256"
    #: Active topics per connector (KIP-558) and the worker's topic.tracking.* settings.
    active_topics: dict[str, list[str]] = field(default_factory=dict)
    topic_tracking: bool = True
    topic_tracking_reset: bool = True
    loggers: Loggers = field(default_factory=Loggers)
    connect_metrics: ConnectMetrics = field(default_factory=ConnectMetrics)
    cluster_levels: list[tuple[str, str]] = field(default_factory=list)

    # -- helpers -------------------------------------------------------------------------------

    def _check_fail(self) -> None:
        if self.fail_next is not None:
            exc, self.fail_next = self.fail_next, None
            raise exc

    def _future(self, fn: Any) -> Future[Any]:
        fut: Future[Any] = Future()
        if self.hang:
            return fut
        try:
            self._check_fail()
            fut.set_result(fn())
        except BaseException as exc:
            fut.set_exception(exc)
        return fut

    def _sync(self) -> None:
        if self.block_sync is not None:
            self.block_sync.wait(10)
        self._check_fail()

    def _check_leader(self, what: str) -> None:
        if not self.is_leader:
            raise NotLeaderHttpError(f"Only the leader may {what}.", self.leader_address)

    def _check_assigned(self, what: str) -> None:
        if not self.assigned:
            raise NotAssignedHttpError(f"Cannot restart {what} since it is not assigned to this member",
                                       self.owner_address)

    def _get(self, name: str, message: str | None = None) -> FakeConnector:
        conn = self.connectors_by_name.get(name)
        if conn is None:
            raise NotFoundHttpError(message or f"Connector {name} not found")
        return conn

    def _info(self, name: str) -> herder_api.ConnectorInfo:
        conn = self._get(name)
        tasks = [ConnectorTaskId(name, i) for i in range(conn.tasks)]
        return herder_api.ConnectorInfo(name=name, config=dict(conn.config), tasks=tasks, type="source")

    # -- Herder protocol -----------------------------------------------------------------------

    def worker_id(self) -> str:
        return "fake-worker:8083"

    def kafka_cluster_id(self) -> str:
        self._sync()
        return self.cluster_id

    def metrics(self) -> ConnectMetrics:
        return self.connect_metrics

    def is_ready(self) -> bool:
        # Not _sync(): fail_next is meant for the request under test, not for the REST layer's
        # readiness check before a leader-only request.
        if self.block_sync is not None:
            self.block_sync.wait(10)
        return self.ready

    def health_check(self) -> Future[None]:
        fut: Future[None] = Future()
        if self.herder_stuck:
            return fut  # the herder thread never gets to it
        fut.set_result(None)
        return fut

    def connectors(self) -> Future[list[str]]:
        return self._future(lambda: sorted(self.connectors_by_name))

    def connector_info(self, name: str) -> Future[herder_api.ConnectorInfo]:
        return self._future(lambda: self._info(name))

    def connectors_expanded(self, status: bool, info: bool) -> Future[dict[str, herder_api.ExpandedConnector]]:
        return self._future(lambda: {
            name: herder_api.ExpandedConnector(self._status(name) if status else None,
                                               self._info(name) if info else None)
            for name in sorted(self.connectors_by_name)})

    def connector_config(self, name: str) -> Future[dict[str, str]]:
        return self._future(lambda: dict(self._get(name).config))

    def put_connector_config(
        self, name: str, config: dict[str, str], allow_replace: bool, initial_state: TargetState | None
    ) -> Future[herder_api.Created]:
        self.calls.append(("put_connector_config", (name, dict(config), allow_replace, initial_state)))

        def put() -> herder_api.Created:
            self._check_leader("write connector configurations")
            if "connector.class" not in config:
                raise BadRequestHttpError(f"Connector config {config} contains no connector type")
            exists = name in self.connectors_by_name
            if exists and not allow_replace:
                raise AlreadyExistsHttpError(f"Connector {name} already exists")
            if exists:
                self.connectors_by_name[name].config = dict(config)
            else:
                self.connectors_by_name[name] = FakeConnector(
                    config=dict(config), target=initial_state or TargetState.STARTED
                )
            return herder_api.Created(created=not exists, info=self._info(name))

        return self._future(put)

    def patch_connector_config(self, name: str, patch: dict[str, str | None]) -> Future[herder_api.Created]:
        self.calls.append(("patch_connector_config", (name, dict(patch))))

        def run() -> herder_api.Created:
            self._check_leader("write connector configurations")
            conn = self._get(name)
            merged = dict(conn.config)
            for k, v in patch.items():
                if v is None:
                    merged.pop(k, None)
                else:
                    merged[k] = v
            conn.config = merged
            return herder_api.Created(created=False, info=self._info(name))

        return self._future(run)

    def connector_active_topics(self, name: str) -> Future[list[str]]:
        if not self.topic_tracking:
            raise ForbiddenHttpError("Topic tracking is disabled.")
        return self._future(lambda: list(self.active_topics.get(name, [])))

    def reset_connector_active_topics(self, name: str) -> Future[None]:
        if not self.topic_tracking:
            raise ForbiddenHttpError("Topic tracking is disabled.")
        if not self.topic_tracking_reset:
            raise ForbiddenHttpError("Topic tracking reset is disabled.")
        return self._future(lambda: self.active_topics.pop(name, None) and None)

    def logger_level(self, logger_name: str) -> herder_api.LoggerLevelInfo | None:
        found = self.loggers.level(logger_name)
        return None if found is None else herder_api.LoggerLevelInfo(*found)

    def all_logger_levels(self) -> dict[str, herder_api.LoggerLevelInfo]:
        return {n: herder_api.LoggerLevelInfo(*lv) for n, lv in self.loggers.all_levels().items()}

    def set_worker_logger_level(self, namespace: str, level: str) -> list[str]:
        return self.loggers.set_level(namespace, level)

    def set_cluster_logger_level(self, namespace: str, level: str) -> None:
        self.cluster_levels.append((namespace, level))

    def delete_connector(self, name: str) -> Future[None]:
        def delete() -> None:
            self._check_leader("delete connectors")
            self._get(name)
            del self.connectors_by_name[name]

        return self._future(delete)

    def task_configs(self, name: str) -> Future[list[herder_api.TaskInfo]]:
        def tasks() -> list[herder_api.TaskInfo]:
            conn = self._get(name)
            return [
                herder_api.TaskInfo(
                    id=ConnectorTaskId(name, i),
                    config={**conn.config, "task.class": "connectors.verifiable.VerifiableSourceTask"},
                )
                for i in range(conn.tasks)
            ]

        return self._future(tasks)

    def connector_status(self, name: str) -> Future[herder_api.ConnectorStateInfo]:
        return self._future(lambda: self._status(name))

    def _status(self, name: str) -> herder_api.ConnectorStateInfo:
        conn = self.connectors_by_name.get(name)
        if conn is None:
            raise NotFoundHttpError(f"No status found for connector {name}")
        state = "RUNNING" if conn.target is TargetState.STARTED else conn.target.value
        if conn.failed:
            state = "FAILED"
        tasks = [herder_api.TaskStateInfo(state=state, worker_id="fake-worker:8083", id=i) for i in range(conn.tasks)]
        if conn.tasks > 1:
            tasks[1] = herder_api.TaskStateInfo(state="FAILED", worker_id="fake-worker:8083", trace="boom\n\tat x",
                                                id=1)
        return herder_api.ConnectorStateInfo(
            name=name,
            connector=herder_api.StateInfo(state=state, worker_id="fake-worker:8083", trace=""),
            tasks=tasks,
            type="source",
        )

    def pause_connector(self, name: str) -> None:
        self._sync()
        self._get(name, f"Unknown connector {name}").target = TargetState.PAUSED

    def resume_connector(self, name: str) -> None:
        self._sync()
        self._get(name, f"Unknown connector {name}").target = TargetState.STARTED

    def validate_connector_config(self, config: dict[str, str]) -> herder_api.ConfigInfos:
        self._sync()
        self.calls.append(("validate_connector_config", dict(config)))
        tasks_max = config.get("tasks.max")
        errors = (
            []
            if tasks_max is None or tasks_max.isdigit()
            else [f"Invalid value {tasks_max} for configuration tasks.max: Not a number of type INT"]
        )
        key = herder_api.ConfigKeyInfo(
            name="tasks.max",
            type="INT",
            required=False,
            default_value="1",
            importance="HIGH",
            documentation="Maximum number of tasks to use for this connector.",
            group="Common",
            order=3,
            width="SHORT",
            display_name="Tasks max",
            dependents=[],
        )
        value = herder_api.ConfigValueInfo(
            name="tasks.max", value=tasks_max, recommended_values=[], errors=errors, visible=True
        )
        return herder_api.ConfigInfos(
            name=config.get("connector.class", ""),
            error_count=len(errors),
            groups=["Common"],
            configs=[herder_api.ConfigInfo(definition=key, value=value)],
        )

    def connector_plugins(self, connectors_only: bool) -> list[herder_api.PluginDesc]:
        self._sync()
        plugins = [
            herder_api.PluginDesc(class_name=SOURCE_CLASS, type="source", version="0.1.0"),
            herder_api.PluginDesc(
                class_name="connectors.file.FileStreamSourceConnector", type="source", version="undefined"
            ),
        ]
        if not connectors_only:
            converter = "connect_runtime.converters.JsonConverter"
            plugins.append(herder_api.PluginDesc(class_name=converter, type="converter", version="0.1.0"))
        return plugins

    def plugin_config(self, plugin: str, version: str | None = None) -> list[herder_api.ConfigKeyInfo]:
        self._sync()
        if plugin not in (SOURCE_CLASS, "VerifiableSourceConnector", "VerifiableSource"):
            raise NotFoundHttpError(f"Unknown plugin {plugin}.")
        return [
            herder_api.ConfigKeyInfo(
                name="topic",
                type="STRING",
                required=True,
                default_value=None,
                importance="HIGH",
                documentation="Topic to write to.",
                group=None,
                order=-1,
                width="NONE",
                display_name="topic",
                dependents=[],
            )
        ]

    # -- cluster operations --------------------------------------------------------------------

    def leader_url(self) -> str | None:
        return None if not self.is_leader else "http://fake-worker:8083"

    def session_key(self) -> herder_api.SessionKeyInfo | None:
        return self.key

    def verification_algorithms(self) -> list[str]:
        return list(self.verification)

    def signature_algorithm(self) -> str:
        return self.signing_algorithm

    def task_status(self, task: ConnectorTaskId) -> Future[herder_api.TaskStateInfo]:
        def status() -> herder_api.TaskStateInfo:
            for state in self._status(task.connector).tasks:
                if state.id == task.task:
                    return state
            raise NotFoundHttpError(f"No status found for task {task}")

        return self._future(status)

    def put_task_configs(self, name: str, configs: list[dict[str, str]]) -> Future[None]:
        self.calls.append(("put_task_configs", (name, [dict(c) for c in configs])))

        def put() -> None:
            self._check_leader("write task configurations")
            conn = self._get(name)
            conn.task_configs = [dict(c) for c in configs]
            conn.tasks = len(configs)

        return self._future(put)

    def fence_zombies(self, name: str) -> Future[None]:
        self.calls.append(("fence_zombies", name))

        def fence() -> None:
            self._check_leader("perform zombie fencing")
            self._get(name)

        return self._future(fence)

    def restart_connector(self, name: str, include_tasks: bool,
                          only_failed: bool) -> Future[herder_api.ConnectorStateInfo | None]:
        self.calls.append(("restart_connector", (name, include_tasks, only_failed)))

        def restart() -> herder_api.ConnectorStateInfo | None:
            if not include_tasks and not only_failed:
                self._get(name, f"Unknown connector: {name}")
                self._check_assigned("connector")
                return None
            self._check_leader("process restart requests")
            self._get(name, f"Unknown connector: {name}")
            status = self._status(name)
            # Java's RestartPlan: what will restart is reported RESTARTING, the rest keeps its state.
            if not only_failed or status.connector.state == "FAILED":
                connector = status.connector
                status.connector = herder_api.StateInfo("RESTARTING", connector.worker_id, connector.trace)
            if include_tasks:
                status.tasks = [
                    herder_api.TaskStateInfo("RESTARTING", t.worker_id, t.trace, t.id)
                    if not only_failed or t.state == "FAILED"
                    else t
                    for t in status.tasks
                ]
            return status

        return self._future(restart)

    def restart_task(self, task: ConnectorTaskId) -> Future[None]:
        self.calls.append(("restart_task", task))

        def restart() -> None:
            conn = self._get(task.connector, f"Unknown connector: {task.connector}")
            if not 0 <= task.task < conn.tasks:
                raise NotFoundHttpError(f"Unknown task: {task}")
            self._check_assigned("task")

        return self._future(restart)

    def stop_connector(self, name: str) -> Future[None]:
        self.calls.append(("stop_connector", name))

        def stop() -> None:
            self._check_leader("stop connectors")
            conn = self._get(name, f"Unknown connector {name}")
            conn.tasks = 0
            conn.target = TargetState.STOPPED

        return self._future(stop)

    # -- offsets --------------------------------------------------------------------------------

    def connector_offsets(self, name: str) -> Future[ConnectorOffsets]:
        return self._future(lambda: ConnectorOffsets([self._get(name).offsets[k]
                                                      for k in sorted(self._get(name).offsets)]))

    def _modify_offsets(self, name: str, offsets: list[ConnectorOffset] | None) -> str:
        # The real herder's checks, in its order: leader, exists, STOPPED, then the offsets' values.
        if not self.is_leader:
            raise NotLeaderHttpError("Only the leader can process external offsets modification requests",
                                 self.leader_address)
        conn = self._get(name)
        if conn.target is not TargetState.STOPPED or conn.tasks != 0:
            raise BadRequestHttpError(
                "Connectors must be in the STOPPED state before their offsets can be modified. This can be done "
                f"for the specified connector by issuing a 'PUT' request to the '/connectors/{name}/stop' endpoint")
        if offsets is None:
            conn.offsets.clear()
            return completion_message(conn.alter_offsets_result, True)
        for key, entry in normalize_offsets(name, offsets).items():
            if entry.offset is None:
                conn.offsets.pop(key, None)
            else:
                conn.offsets[key] = entry
        return completion_message(conn.alter_offsets_result, False)

    def alter_connector_offsets(self, name: str, offsets: list[ConnectorOffset]) -> Future[str]:
        self.calls.append(("alter_connector_offsets", (name, list(offsets))))
        return self._future(lambda: self._modify_offsets(name, offsets))

    def reset_connector_offsets(self, name: str) -> Future[str]:
        self.calls.append(("reset_connector_offsets", name))
        return self._future(lambda: self._modify_offsets(name, None))


def err(status: int, message: str) -> dict[str, object]:
    """The body of a REST error response, as Kafka Connect writes it."""
    return {"error_code": status, "message": message}
