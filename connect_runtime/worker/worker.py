"""The worker: instantiates and runs the connectors and tasks the herder assigns to this process."""

from __future__ import annotations

import functools
import logging
import threading
import time
import traceback
from collections.abc import Callable, Hashable, Mapping
from concurrent.futures import Future
from typing import Any, TypeVar

from connect_runtime.api.config_def import ConfigDef
from connect_runtime.api.config_values import parse_bool
from connect_runtime.api.connector import SourceConnectorContext
from connect_runtime.api.converter import CONVERTER_TYPE_CONFIG, HeaderConverter
from connect_runtime.api.delegated_delivery import DelegatedDelivery
from connect_runtime.api.errors import ConnectException
from connect_runtime.api.storage import OffsetStorageReader
from connect_runtime.config.config_providers import ResolvedConfig, reverse_transform
from connect_runtime.config.connector_config import (
    TASKS_MAX_ENFORCE,
    SourceConnectorConfig,
    tasks_max_limit_problem,
)
from connect_runtime.config.override_policies import check_client_overrides
from connect_runtime.config.transformation_config import enrich
from connect_runtime.config.worker_config import ExactlyOnceSourceSupport, WorkerConfig
from connect_runtime.config.worker_plugins import WorkerPlugins
from connect_runtime.converters.schema_registry.registry_converter import SchemaRegistryConverter
from connect_runtime.futures import completed, failed
from connect_runtime.metrics.connect_metrics import ConnectMetrics
from connect_runtime.plugins.registry import JAVA_CLASS_NAMES, PluginRegistry, java_class_name, qualified_name
from connect_runtime.plugins.versions import check_requested_versions, converter_versions
from connect_runtime.redaction import password_values, redactor
from connect_runtime.storage.offset_backing_store import (
    ConnectorOffsetBackingStore,
    ConnectorOffsetReader,
    KafkaOffsetBackingStore,
)
from connect_runtime.storage.status_store import ConnectorStatus, KafkaStatusBackingStore, State, TaskStatus
from connect_runtime.types import ConnectorTaskId, TargetState
from connect_runtime.version import plugin_version
from connect_runtime.worker.exactly_once_source_task import eos_producer_config
from connect_runtime.worker.offset_store_factory import OffsetStoreFactory
from connect_runtime.worker.task_metrics import TaskMetricsMirror
from connect_runtime.worker.task_process import TaskProcess
from connect_runtime.worker.task_spec import TaskSpec
from connect_runtime.worker.task_status import TaskStatusListener
from connect_runtime.worker.transformation_chain import build_transformation_chain, close_quietly
from connect_runtime.worker.worker_connector import WorkerConnector
from connect_runtime.worker.worker_metrics import ConnectorMetricsGroup, WorkerMetrics
from connect_runtime.worker.zombie_fencing import ZombieFencing

logger = logging.getLogger(__name__)

TASK_CLASS_CONFIG = "task.class"
_RETRY_BACKOFF_S = 1.0
_RETRY_BACKOFF_MAX_S = 10.0

T = TypeVar("T")

TaskRunnerFactory = Callable[
    [TaskSpec, TaskStatusListener, ZombieFencing, Callable[[], None], ConnectorOffsetBackingStore,
     Callable[[TaskProcess], None], TaskMetricsMirror],
    TaskProcess]
"""Makes the runner of one task: ``(spec, status listener, fencing, verify_generation, offsets, on_closed, metrics)``;
:class:`TaskProcess` unless a test hands :class:`Worker` another."""


class TooManyTasksException(ConnectException):
    """A connector generated more task configs than its ``tasks.max`` (Java's ``TooManyTasksException``,
    KIP-1004): the connector fails, and so does a task of a connector with more stored task configs than
    ``tasks.max``, unless ``tasks.max.enforce`` is false."""

    def __init__(self, name: str, num_tasks: int, max_tasks: int) -> None:
        super().__init__(
            f"The connector {name} has generated {num_tasks} tasks, which is greater than {max_tasks}, the "
            "maximum number of tasks it is configured to create. This behaviour should be considered a bug and "
            "is disallowed. If necessary, it can be permitted by reconfiguring the connector with "
            f"'{TASKS_MAX_ENFORCE}' set to false; however, this option will be removed in a future release of "
            "Kafka Connect.")


def check_tasks_max(name: str, num_tasks: int, max_tasks: int, enforce: bool) -> None:
    """Java's ``Worker.checkTasksMax``: more tasks than ``tasks.max`` raise, or only warn when not enforced."""
    if num_tasks <= max_tasks:
        return
    if enforce:
        raise TooManyTasksException(name, num_tasks, max_tasks)
    # tasks.max.enforce=false (deprecated, KIP-1004): the excess tasks run, with Java's warning.
    logger.warning("The connector %s has generated %d tasks, which is greater than %d, the maximum number of tasks "
                   "it is configured to create. This behavior should be considered a bug and will be disallowed "
                   "in future releases of Kafka Connect. Please report this to the maintainers of the connector "
                   "and request that they adjust their connector's taskConfigs() method to respect the maxTasks "
                   "parameter.", name, num_tasks, max_tasks)


class _NoFencing:
    """A worker made without a herder (tests, tools): an exactly-once task cannot start."""

    def fence_zombies(self, connector: str, stopped: threading.Event | None = None) -> None:
        raise ConnectException(f"This worker cannot fence zombies of connector {connector}")


class _ConnectorContext(SourceConnectorContext):
    def __init__(self, name: str, reader: OffsetStorageReader, on_reconfigure: Callable[[str], None],
                 on_error: Callable[[BaseException], None]) -> None:
        self._name = name
        self._reader = reader
        self._on_reconfigure = on_reconfigure
        self._on_error = on_error

    def request_task_reconfiguration(self) -> None:
        self._on_reconfigure(self._name)

    def raise_error(self, error: Exception) -> None:
        self._on_error(error)

    @property
    def offset_storage_reader(self) -> OffsetStorageReader:
        return self._reader


class Worker:
    """Runs connectors and tasks; reports their states to the status topic."""

    def __init__(
        self,
        config: WorkerConfig,
        worker_id: str,
        plugins: PluginRegistry,
        offset_store: KafkaOffsetBackingStore,
        status_store: KafkaStatusBackingStore,
        request_reconfiguration: Callable[[str], None],
        on_tasks_changed: Callable[[], None] | None = None,
        retry_task: Callable[[ConnectorTaskId, float], None] | None = None,
        task_runner: TaskRunnerFactory = TaskProcess,
        worker_plugins: WorkerPlugins | None = None,
        fencing: ZombieFencing | None = None,
        metrics: ConnectMetrics | None = None,
    ) -> None:
        self.config = config
        #: This worker's live metric groups (``GET /metrics`` reads them).
        self.metrics = metrics or ConnectMetrics(config.metric_config)
        #: The config providers, override policy and peer TLS the composition root made from ``config``.
        self.worker_plugins = worker_plugins or WorkerPlugins.without_providers(config)
        self.worker_id = worker_id
        self.plugins = plugins
        self.offset_store = offset_store
        self.offset_stores = OffsetStoreFactory(config, offset_store)
        self.status_store = status_store
        self._request_reconfiguration = request_reconfiguration
        # The current instance of each connector of this worker (starting, running, paused or FAILED),
        # and instances whose stop() is still running on their thread (several after quick restarts),
        # until they finish or task.shutdown.graceful.timeout.ms passes.
        self._connectors: dict[str, WorkerConnector] = {}
        self._stopping_connectors: dict[str, list[WorkerConnector]] = {}
        self._task_runner = task_runner
        self._fencing = fencing or _NoFencing()
        self._tasks: dict[ConnectorTaskId, TaskProcess] = {}
        # The metric groups of each task built here, until it leaves this worker (a FAILED one keeps them).
        self._task_metrics: dict[ConnectorTaskId, TaskMetricsMirror] = {}
        self._lock = threading.Lock()
        self.generation = 0
        self._task_generations: dict[ConnectorTaskId, int] = {}
        self._failed_tasks: set[ConnectorTaskId] = set()
        # Tasks asked to stop whose threads have not finished yet: still ours (heartbeats list them, so
        # the leader does not hand them over) and never started again until they are gone.
        self._stopping: dict[ConnectorTaskId, TaskProcess] = {}
        self._on_tasks_changed = on_tasks_changed or (lambda: None)
        self._retry_task = retry_task
        # Consecutive failures of a task on transient (Kafka unavailable) errors: the retry backoff.
        self._transient_failures: dict[ConnectorTaskId, int] = {}
        # What the providers resolved for each running connector and task (to redact it from traces).
        self._resolved: dict[str | ConnectorTaskId, ResolvedConfig] = {}
        self._worker_metrics = WorkerMetrics(self.metrics, self._connector_count, self._task_state)

    @property
    def eos_enabled(self) -> bool:
        return self.config.exactly_once_source_support is ExactlyOnceSourceSupport.ENABLED

    # -- connectors -----------------------------------------------------------------------------
    def start_connector(self, name: str, props: Mapping[str, str], state: TargetState) -> Future[bool]:
        """Start a connector on its own thread: instantiate it and (unless paused/stopped) start it.

        Returns at once; the future says whether the connector came up (False: it is FAILED, status
        written). ``props`` is the connector's config as stored; an invalid one fails the connector.
        Previous instances that are still stopping finish their ``stop()`` first (for up to
        ``task.shutdown.graceful.timeout.ms``).
        """
        if name in self._connectors:
            self.stop_connector(name)
        wc = WorkerConnector(name, state, self.generation)
        wc.startup = self._worker_metrics.connector_startup()
        with self._lock:
            previous = list(self._stopping_connectors.get(name, ()))
            self._connectors[name] = wc
        return wc.submit(lambda: self._start_on_thread(wc, props, previous))

    def _start_on_thread(self, wc: WorkerConnector, props: Mapping[str, str],
                         previous: list[WorkerConnector]) -> bool:
        name = wc.name
        deadline = time.monotonic() + self.config.task_shutdown_graceful_timeout_ms / 1000.0
        if not all([p.join(max(deadline - time.monotonic(), 0.0)) for p in previous]):
            logger.warning("Connector %s: the previous instance is still stopping; starting anyway", name)
        try:
            resolved = self._resolve(name, props)
            wc.resolved = self._resolved.get(name)
            config = self._parse_connector_config(resolved)
            cls = self.plugins.connector_class(config.connector_class)
            check_client_overrides(self.worker_plugins.override_policy, name, cls, config.originals)
            connector = cls()
            wc.connector = connector
            wc.metrics = ConnectorMetricsGroup(self.metrics, name, connector,
                                               java_class_name(cls) or qualified_name(cls), plugin_version(connector))
            self._hide_passwords(wc, enrich(connector.config_def(), config.originals, self.plugins.resolve),
                                 config.originals)
            check_requested_versions(config.originals, config.connector_class, connector, _refuse_version,
                                     converter_versions(self.plugins, config.originals, self.config))
            wc.config, wc.raw = config, dict(props)
            wc.offsets = self.offset_stores.for_connector(config)
            wc.offsets.start()
            reader = ConnectorOffsetReader(name, wc.offsets, read_to_end=True)
            connector.initialize(_ConnectorContext(name, reader, self._request_reconfiguration,
                                                   functools.partial(self._connector_failed, wc)))
            if wc.state is TargetState.STARTED:
                connector.start(config.originals)
                if wc.failed:
                    return False  # it raised an error through its context while starting
                wc.started = True
            self._put_connector_status(wc, _state_name(wc.state))
            if wc.started and self._is_current(wc) and wc.startup is not None:
                wc.startup.succeeded()  # a first start; resuming a connector created paused is not one
            return True
        except Exception as e:
            logger.exception("Failed to start connector %s", name)
            if wc.offsets is not None:
                wc.offsets.stop()
                wc.offsets = None
            # Owned and FAILED until it is restarted or revoked (not retried on every herder tick); the
            # instance that failed to start is dropped (so its status names no version).
            wc.fail()
            wc.connector = None
            self._put_connector_status(wc, State.FAILED, _trace(e))
            return False

    def _connector_failed(self, wc: WorkerConnector, error: BaseException) -> None:
        """The connector is FAILED (any thread): not started again, and its ``stop()`` is not called.
        Only its first error is reported, and none of an instance stopped or replaced."""
        if not self._is_current(wc):
            logger.debug("Connector %s raised an error after it was asked to stop", wc.name, exc_info=error)
            return
        if not wc.fail():
            logger.debug("Connector %s raised another error after it failed", wc.name, exc_info=error)
            return
        logger.error("Connector %s raised an error", wc.name, exc_info=error)
        self._put_connector_status(wc, State.FAILED, _trace(error))

    def _is_current(self, wc: WorkerConnector) -> bool:
        return not wc.stopping and self._connectors.get(wc.name) is wc

    def _resolve(self, owner: str | ConnectorTaskId, props: Mapping[str, str]) -> dict[str, str]:
        """``props`` with provider placeholders resolved; the values are redacted from logs and traces
        for as long as ``owner`` runs."""
        resolved = self.worker_plugins.config_transformer.transform(props)
        self._register_resolved(owner, resolved)
        return resolved.data

    def _register_resolved(self, owner: str | ConnectorTaskId, resolved: ResolvedConfig) -> None:
        previous = self._resolved.get(owner)
        if previous is not None and previous.resolved_any:
            # A task resolves its connector's and its own config: keep both sets of values hidden.
            resolved = previous.then(resolved)
        self._resolved[owner] = resolved
        redactor.register((id(self), owner), resolved)

    def _forget_resolved(self, owner: str | ConnectorTaskId) -> None:
        self._resolved.pop(owner, None)
        redactor.unregister((id(self), owner))
        redactor.unregister((id(self), owner, "passwords"))

    def _hide_passwords(self, owner: Hashable, definition: ConfigDef, *configs: Mapping[str, str]) -> dict[str, str]:
        """Keep the values ``definition`` (the connector's keys and its transforms' and predicates') types
        PASSWORD out of the log while ``owner`` runs (a task's id; a connector's instance, as an old one
        may end after its successor started)."""
        secrets: dict[str, str] = {}
        for config in configs:
            secrets.update(password_values(definition, config).secrets)
        redactor.register((id(self), owner, "passwords"), ResolvedConfig({}, secrets))
        return secrets

    def _task_closed(self, task_id: ConnectorTaskId) -> Callable[[TaskProcess], None]:
        """What a task's runner calls when it ends: forget the values it resolved, unless a new instance of
        the task has resolved its own since (a cancelled task can outlive its stop)."""
        mine = self._resolved.get(task_id)

        def closed(_: TaskProcess) -> None:
            if mine is not None and self._resolved.get(task_id) is mine:
                self._forget_resolved(task_id)

        return closed

    def _redact(self, owner: str | ConnectorTaskId, text: str | None) -> str | None:
        if text is None:
            return None
        resolved = self._resolved.get(owner)
        # The process-wide redactor too: it also hides the PASSWORD values of what runs.
        return redactor.redact(text if resolved is None else resolved.redact(text))

    def _parse_connector_config(self, props: Mapping[str, str]) -> SourceConnectorConfig:
        config = SourceConnectorConfig.parse(props, topic_creation_enabled=self.config.topic_creation_enable)
        # A config stored with a tasks.max above this worker's limit (written by a worker with a higher one)
        # fails its connector and tasks here, before the connector is asked for task configs.
        _check_tasks_max_limit(config.tasks_max, self.config.tasks_max_limit)
        # The transforms' and predicates' settings too, as Kafka's ConnectorConfig does: a connector
        # whose chain could never be built fails itself, not only its tasks.
        enrich(ConfigDef(), props, self.plugins.resolve).parse(props)
        return config

    def is_running(self, name: str) -> bool:
        wc = self._connectors.get(name)
        return wc is not None and wc.running

    def connector_instance(self, name: str) -> WorkerConnector | None:
        """The current instance of connector ``name`` on this worker, if any: what it computed is stale
        once another instance replaced it (its ``raw`` is the config it was started with)."""
        return self._connectors.get(name)

    def connector_config(self, name: str) -> SourceConnectorConfig:
        """The parsed config a connector of this worker was started with."""
        wc = self._connectors.get(name)
        if wc is None or wc.config is None:
            raise ConnectException(f"Connector {name} is not running")
        return wc.config

    def connector_task_configs(self, name: str, max_tasks: int | None = None) -> Future[list[dict[str, str]]]:
        """Ask a started connector for its task configs (``task.class`` added, as Java does), on the
        connector's thread; ``max_tasks`` defaults to its ``tasks.max``."""
        wc = self._connectors.get(name)
        if wc is None:
            return failed(ConnectException(f"Connector {name} is not running"))
        return wc.submit(lambda: self._task_configs_on_thread(wc, max_tasks))

    def _task_configs_on_thread(self, wc: WorkerConnector, max_tasks: int | None) -> list[dict[str, str]]:
        name, connector, config = wc.name, wc.connector, wc.config
        if not wc.running or connector is None or config is None:
            raise ConnectException(f"Connector {name} is not running")
        if max_tasks is None:
            max_tasks = config.tasks_max
        task_cls = connector.task_class()
        # Never ask a connector to size anything by a tasks.max above this worker's limit.
        _check_tasks_max_limit(max_tasks, self.config.tasks_max_limit)
        configs = connector.task_configs(max_tasks)
        try:
            check_tasks_max(name, len(configs), max_tasks, _enforce_tasks_max(config))
        except TooManyTasksException as e:
            self._connector_failed(wc, e)  # as Java's WorkerConnector.fail: the connector is FAILED
            raise
        qualified = f"{task_cls.__module__}.{task_cls.__qualname__}"
        if config.connector_class in JAVA_CLASS_NAMES:
            # Configured by its Apache Kafka name: task configs name the Java task class, as a Java worker
            # writes them (the same configs whichever runtime generated them: no rewrite when switching).
            qualified = java_class_name(task_cls) or qualified
        out = [{**{k: str(v) for k, v in c.items()}, TASK_CLASS_CONFIG: qualified} for c in configs]
        # Resolved values a connector copied into its task configs must not reach the config topic.
        return reverse_transform(wc.raw, out) if wc.raw is not None else out

    def stop_connector(self, name: str) -> Future[None]:
        """Stop a connector on its thread, after what it was asked before (a ``start()`` under way
        included); returns at once. From now on the instance writes no status. Until its ``stop()``
        returned (or ``task.shutdown.graceful.timeout.ms`` passed) it stays in :meth:`connector_names`,
        and ``on_tasks_changed`` is called when it is gone."""
        with self._lock:
            wc = self._connectors.pop(name, None)
            if wc is None:
                return completed(None)
            self._stopping_connectors.setdefault(name, []).append(wc)
        wc.mark_stopping()
        stopped = wc.submit(lambda: self._shutdown_on_thread(wc))
        wc.close()
        # As Java: a connector whose start() or stop() does not return is given up on after the graceful
        # timeout, or it would stay this worker's (listed in every heartbeat) and never be handed over.
        give_up = threading.Timer(self.config.task_shutdown_graceful_timeout_ms / 1000.0,
                                  self._connector_gone, (wc, True))
        give_up.daemon = True
        give_up.start()

        def gone(_: Future[None]) -> None:
            give_up.cancel()
            self._connector_gone(wc, False)

        stopped.add_done_callback(gone)
        return stopped

    def _connector_gone(self, wc: WorkerConnector, gave_up: bool) -> None:
        with self._lock:
            instances = self._stopping_connectors.get(wc.name, [])
            if wc not in instances:
                return
            instances.remove(wc)
            if not instances:
                del self._stopping_connectors[wc.name]
        if gave_up:
            logger.error("Connector %s did not stop within %d ms; leaving its thread behind", wc.name,
                         self.config.task_shutdown_graceful_timeout_ms)
            # No longer this worker's: its metrics go with it, not when (if ever) its thread ends.
            self._close_connector_metrics(wc)
        self._on_tasks_changed()

    def _shutdown_on_thread(self, wc: WorkerConnector) -> None:
        try:
            if wc.running and wc.connector is not None:
                wc.started = False
                try:
                    wc.connector.stop()
                except Exception:
                    logger.exception("Connector %s threw while stopping", wc.name)
            if wc.offsets is not None:
                wc.offsets.stop()
        finally:
            # Only now: the plugin's stop() may still log or fail with what it resolved. Not what a newer
            # instance registered (one that gave up waiting for this one).
            if wc.resolved is not None and self._resolved.get(wc.name) is wc.resolved:
                self._forget_resolved(wc.name)
            redactor.unregister((id(self), wc, "passwords"))
            self._close_connector_metrics(wc)

    @staticmethod
    def _close_connector_metrics(wc: WorkerConnector) -> None:
        group, wc.metrics = wc.metrics, None
        if group is not None:
            group.close()

    def _connector_count(self) -> int:
        """Connector instances here, as Java's worker counts them: from instantiation until shut down
        (a connector that could not be instantiated does not count, one that failed to start does)."""
        with self._lock:
            instances = [*self._connectors.values(), *(wc for ws in self._stopping_connectors.values() for wc in ws)]
        return sum(1 for wc in instances if wc.metrics is not None)

    def is_connector_stopping(self, name: str) -> bool:
        """Whether only a stopping instance of ``name`` is left here (nothing to stop again)."""
        with self._lock:
            return name in self._stopping_connectors and name not in self._connectors

    def set_connector_state(self, name: str, state: TargetState) -> Future[None]:
        """Move a connector to ``state`` on its thread (stop/start the plugin as needed), and its tasks."""
        wc = self._connectors.get(name)
        if wc is None:
            return completed(None)
        done = wc.submit(lambda: self._transition_on_thread(wc, state))
        for tid, task in list(self._tasks.items()):
            if tid.connector == name:
                task.transition_to(state)
        return done

    def _transition_on_thread(self, wc: WorkerConnector, state: TargetState) -> None:
        name, connector, config = wc.name, wc.connector, wc.config
        if wc.failed or connector is None or config is None:
            logger.warning("Cannot transition connector %s to %s since it has failed", name, state.value)
            return
        failure: str | None = None
        if state is TargetState.STARTED and not wc.started:
            try:
                connector.start(config.originals)
            except Exception as e:
                wc.fail()
                self._put_connector_status(wc, State.FAILED, _trace(e))
                return
            if wc.failed:
                return  # it raised an error through its context while starting
            wc.started = True
        elif state is not TargetState.STARTED and wc.started:
            wc.started = False  # stop() once per start(), whatever it does
            try:
                connector.stop()
            except Exception as e:
                logger.exception("Connector %s threw while stopping", name)
                # As Java: a connector that fails to pause is FAILED; one that fails to stop is STOPPED.
                if state is TargetState.PAUSED:
                    failure = _trace(e)
                    wc.fail()
        wc.state = state
        if failure is None:
            self._put_connector_status(wc, _state_name(state))
        else:
            self._put_connector_status(wc, State.FAILED, failure)

    def connector_names(self) -> list[str]:
        """Connectors this worker owns: starting, running, paused, stopped, FAILED, or still stopping."""
        with self._lock:
            return [*self._connectors, *(n for n in self._stopping_connectors if n not in self._connectors)]

    # -- tasks ----------------------------------------------------------------------------------
    def start_task(
        self,
        task_id: ConnectorTaskId,
        connector_props: Mapping[str, str],
        task_props: Mapping[str, str],
        state: TargetState,
        verify_generation: Callable[[], None],
        task_count: int | None = None,
    ) -> bool:
        """Create and start a task's runner (its process); False (and FAILED status) if it cannot be built.

        ``connector_props`` is the connector's config as stored; an invalid one fails the task, and so
        does ``task_count`` (the connector's stored task configs) above its ``tasks.max`` (Java 4.x).
        """
        if task_id in self._tasks or self.is_stopping(task_id):
            raise ConnectException(f"Task already exists in this worker: {task_id}")
        self._worker_metrics.task_added(task_id)
        # This instance's own listener: its start-up is counted by what it reports, not by its task id.
        status = self._worker_metrics.task_startup_listener(self)
        self._failed_tasks.discard(task_id)
        self._forget_resolved(task_id)
        offsets: ConnectorOffsetBackingStore | None = None
        try:
            spec, offsets = self._task_spec(task_id, connector_props, task_props, state, task_count)
            metrics = self._open_task_metrics(spec)
            runner = self._task_runner(spec, status, self._fencing, verify_generation, offsets,
                                       self._task_closed(task_id), metrics)
            self._task_generations[task_id] = self.generation
            runner.start()
        except Exception as e:
            logger.exception("Failed to start task %s", task_id)
            self._close_task_metrics(task_id)
            if offsets is not None:
                offsets.stop()
            self._worker_metrics.task_removed(task_id)  # as Java's: no runner, so not among its tasks
            self._failed_tasks.add(task_id)  # owned and FAILED until restarted or revoked
            status.on_failure(task_id, _trace(e))
            return False
        self._tasks[task_id] = runner
        return True

    def _task_spec(self, task_id: ConnectorTaskId, connector_props: Mapping[str, str], task_props: Mapping[str, str],
                   state: TargetState, task_count: int | None) -> tuple[TaskSpec, ConnectorOffsetBackingStore]:
        """Everything the task's process needs, decided here (configs resolved, parsed and checked), and
        the connector's offsets store the worker keeps for it."""
        connector_props = self._resolve(task_id, connector_props)
        task_props = self._resolve(task_id, task_props)
        task_cls = self.plugins.task_class(task_props[TASK_CLASS_CONFIG])
        connector_config = self._parse_connector_config(connector_props)
        if task_count is not None:
            check_tasks_max(task_id.connector, task_count, connector_config.tasks_max,
                            _enforce_tasks_max(connector_config))
        connector_cls = self.plugins.connector_class(connector_config.connector_class)
        passwords = self._hide_passwords(task_id, enrich(connector_cls().config_def(), connector_props,
                                                         self.plugins.resolve), connector_props, task_props)
        check_client_overrides(self.worker_plugins.override_policy, task_id.connector, connector_cls,
                               connector_config.originals)
        # Built here once to check them (a chain or converter that cannot be built fails the task before
        # its process starts); the process builds its own.
        for built in build_transformation_chain(connector_props, self.plugins):
            close_quietly(built)
        self._check_converter(connector_config, "key")
        self._check_converter(connector_config, "value")
        self._header_converter(connector_config)
        base = self._producer_base(connector_config, task_id)
        eos = self.eos_enabled
        producer = (eos_producer_config(base, self.config.task_transactional_id(task_id.connector, task_id.task))
                    if eos else base)
        interval_ms = connector_config.transaction_boundary_interval_ms
        resolved = self._resolved.get(task_id)
        root = logging.getLogger()
        formatter = root.handlers[0].formatter if root.handlers else None
        # Each task reads a connector-specific offsets topic itself (started in its start-up steps).
        offsets = self.offset_stores.for_connector(connector_config)
        spec = TaskSpec(
            task_id=task_id, task_class=task_cls, task_config=dict(task_props),
            connector_config=dict(connector_props), plugins=self.plugins,
            key_converter=self._converter_spec(connector_config, "key"),
            value_converter=self._converter_spec(connector_config, "value"),
            header_converter=self._converter_spec(connector_config, "header"),
            producer_config=producer, exactly_once=eos,
            transaction_boundary=connector_config.transaction_boundary,
            commit_interval_ms=(self.config.offset_flush_interval_ms if not eos or interval_ms is None
                                else interval_ms),
            offset_flush_timeout_ms=self.config.offset_flush_timeout_ms,
            topic_creation_enable=self.config.topic_creation_enable,
            admin_settings=self.offset_stores.client_settings(connector_config, "admin"),
            offsets_topic=self.offset_stores.connector_topic(connector_config) or self.config.offset_storage_topic,
            has_connector_store=self.offset_stores.uses_connector_store(connector_config),
            delegated_delivery=self._delegated_delivery(connector_config, base), initial_state=state,
            active_topics=self._active_topics_snapshot(task_id.connector),
            secrets={**(resolved.secrets if resolved is not None else {}), **passwords},
            log_level=root.getEffectiveLevel(),
            log_format=formatter._fmt if formatter is not None else None,
            metric_config=self.config.metric_config)
        return spec, offsets

    def _open_task_metrics(self, spec: TaskSpec) -> TaskMetricsMirror:
        """The task's metric groups, open from now (all empty) until the task leaves this worker."""
        self._close_task_metrics(spec.task_id)
        mirror = TaskMetricsMirror.of(self.metrics, spec)
        with self._lock:
            self._task_metrics[spec.task_id] = mirror
        return mirror

    def _close_task_metrics(self, task_id: ConnectorTaskId) -> None:
        with self._lock:
            mirror = self._task_metrics.pop(task_id, None)
        if mirror is not None:
            mirror.close()

    def _active_topics_snapshot(self, connector: str) -> dict[str, Any] | None:
        view = self.active_topics(connector)
        return None if view is None else dict(view)

    def _producer_base(self, connector_config: SourceConnectorConfig, task_id: ConnectorTaskId) -> dict[str, Any]:
        conf = self.config.client_settings("producer", connector_config.client_overrides("producer"))
        conf.setdefault("client.id", f"connector-producer-{task_id}")  # Java's name
        return conf

    def _delegated_delivery(self, connector_config: SourceConnectorConfig,
                            producer_base: Mapping[str, Any]) -> DelegatedDelivery:
        """The connector's producer, offsets topic and converters, for tasks whose records other
        processes deliver (see :class:`~connect_runtime.api.DelegatedDelivery`)."""
        stores, cfg = self.offset_stores, self.config
        producer = {k: str(v) for k, v in producer_base.items() if k != "transactional.id"}
        worker_consumer = {k: str(v) for k, v in cfg.client_settings("consumer").items()}
        worker_consumer.setdefault("bootstrap.servers", cfg.bootstrap_servers)
        own = stores.uses_connector_store(connector_config)
        topic = stores.connector_topic(connector_config) if own else None
        return DelegatedDelivery(
            connector=connector_config.name,
            transactional_id_prefix=f"{cfg.group_id}-{connector_config.name}",
            producer_config=producer,
            offsets_topic=topic or cfg.offset_storage_topic,
            offsets_consumer_config=(
                {k: str(v) for k, v in stores.client_settings(connector_config, "consumer").items()}
                if own else worker_consumer),
            fallback_offsets_topic=cfg.offset_storage_topic if own else None,
            fallback_consumer_config=worker_consumer if own else None,
            key_converter=self._converter_spec(connector_config, "key"),
            value_converter=self._converter_spec(connector_config, "value"),
        )

    def _converter_spec(self, connector_config: SourceConnectorConfig, kind: str) -> tuple[str, dict[str, str]]:
        own = connector_config.converter_settings(kind)
        return own if own is not None else self.config.converter_settings(kind)

    def _check_converter(self, connector_config: SourceConnectorConfig, kind: str) -> None:
        """Build and configure the connector's key or value converter to check its settings (the task's
        process builds its own). A registry converter's settings are only parsed: its ``configure`` calls
        the registry, which must not hold up the herder thread this runs on."""
        name, settings = self._converter_spec(connector_config, kind)
        conv = self.plugins.converter(name)()
        if isinstance(conv, SchemaRegistryConverter):
            conv.check_settings(settings, kind == "key")
        else:
            conv.configure(settings, kind == "key")

    def _header_converter(self, connector_config: SourceConnectorConfig) -> HeaderConverter:
        """The connector's ``header.converter`` if it sets one, else the worker's, configured with its
        ``header.converter.*`` settings plus ``converter.type=header`` (as Java's ``Plugins`` does)."""
        name, settings = self._converter_spec(connector_config, "header")
        conv = self.plugins.header_converter(name)()
        conv.configure({**settings, CONVERTER_TYPE_CONFIG: "header"})
        return conv

    def stop_and_await_tasks(self, ids: list[ConnectorTaskId], timeout_s: float | None = None) -> None:
        """Stop tasks (final commit) and wait up to ``task.shutdown.graceful.timeout.ms``; cancel stragglers."""
        runners = self._take_for_stop(ids)
        self._await_stop(runners, timeout_s)
        self._tasks_gone(runners)

    def stop_tasks(self, ids: list[ConnectorTaskId]) -> None:
        """Stop tasks without waiting: they stop in parallel on a thread of their own, with one graceful
        deadline for all. Until each is gone it stays in :meth:`task_ids` (and cannot be started again);
        ``on_tasks_changed`` is called when they are."""
        runners = self._take_for_stop(ids)
        if not runners:
            return
        with self._lock:
            for r in runners:
                self._stopping[r.id] = r

        def await_them() -> None:
            try:
                self._await_stop(runners, None)
            finally:
                # Before they leave _stopping: until then no new instance of them can start.
                self._tasks_gone(runners)
                with self._lock:
                    for r in runners:
                        if self._stopping.get(r.id) is r:
                            del self._stopping[r.id]
                self._on_tasks_changed()

        threading.Thread(target=await_them, name="task-stopper", daemon=True).start()

    def _take_for_stop(self, ids: list[ConnectorTaskId]) -> list[TaskProcess]:
        self._failed_tasks.difference_update(ids)
        runners = [r for r in (self._tasks.pop(i, None) for i in ids) if r is not None]
        with self._lock:
            stopping = set(self._stopping)
        for i in set(ids) - {r.id for r in runners} - stopping:
            # Failed to start: no process to wait for. (One already stopping keeps its secrets redacted
            # until it is gone: its final commit may still fail and report a trace.)
            self._forget_resolved(i)
        for task_id in ids:
            # Leaving this worker: its series go now, so that its next owner's are the only ones.
            self._close_task_metrics(task_id)
        for r in runners:
            r.stop()
        return runners

    def _await_stop(self, runners: list[TaskProcess], timeout_s: float | None) -> None:
        timeout = self.config.task_shutdown_graceful_timeout_ms / 1000.0 if timeout_s is None else timeout_s
        deadline = time.monotonic() + timeout
        for r in runners:
            if not r.join(max(deadline - time.monotonic(), 0.0)):
                logger.error("Graceful stop of task %s failed; cancelling it", r.id)
                r.cancel()
        for r in runners:
            # A cancelled thread that is still running keeps its secrets redacted: it forgets them itself
            # when it ends (see _task_closed).
            if r.join(1.0):
                self._forget_resolved(r.id)

    def _tasks_gone(self, runners: list[TaskProcess]) -> None:
        for r in runners:
            self._worker_metrics.task_removed(r.id)

    def _task_state(self, task: ConnectorTaskId) -> str | None:
        status = self.status_store.get_task(task)
        return status.state if status is not None else None

    def is_stopping(self, task: ConnectorTaskId) -> bool:
        """Whether an instance of ``task`` is still stopping (a new one must not start yet)."""
        with self._lock:
            return task in self._stopping

    def task_ids(self) -> list[ConnectorTaskId]:
        """Tasks this worker owns: running, stopping, or FAILED to start."""
        with self._lock:
            stopping = [t for t in self._stopping if t not in self._tasks]
        return [*self._tasks, *self._failed_tasks, *stopping]

    def task(self, task_id: ConnectorTaskId) -> TaskProcess | None:
        return self._tasks.get(task_id)

    def stop(self) -> None:
        """Stop every task (final commits) and connector; their metrics go with them."""
        self.stop_and_await_tasks([*self._tasks, *self._failed_tasks])
        with self._lock:
            stopping = list(self._stopping.values())
        for r in stopping:
            if r.join(self.config.task_shutdown_graceful_timeout_ms / 1000.0):
                self._forget_resolved(r.id)
        for name in list(self._connectors):
            self.stop_connector(name)
        with self._lock:
            connectors = [wc for instances in self._stopping_connectors.values() for wc in instances]
        deadline = time.monotonic() + self.config.task_shutdown_graceful_timeout_ms / 1000.0
        for wc in connectors:
            if not wc.join(max(deadline - time.monotonic(), 0.0)):
                logger.error("Connector %s did not stop in time; leaving its thread behind", wc.name)
                self._close_connector_metrics(wc)
        self._worker_metrics.close()

    # -- status (TaskStatusListener) ------------------------------------------------------------
    def _put_connector_status(self, wc: WorkerConnector, state: str, trace: str | None = None) -> None:
        """Written only by the current instance, stamped with the generation it started in, and never over
        a newer generation's record of another worker (Java's putSafe)."""
        if wc.metrics is not None:
            wc.metrics.set_status(state)  # the instance's own state, current or not (as Java's)
        if not self._is_current(wc):
            return
        if state == State.FAILED and wc.startup is not None:
            wc.startup.failed()  # counted only if it never started
        trace = self._redact(wc.name, trace)
        version = plugin_version(wc.connector) if wc.connector is not None else None
        status = ConnectorStatus(wc.name, state, trace, self.worker_id, wc.generation, version)
        wc.report(functools.partial(self.status_store.put_connector, status, safe=True))

    def _put_task_status(self, task: ConnectorTaskId, state: str, trace: str | None = None,
                         safe: bool = False, versioned: bool = True) -> None:
        # Stamped with the generation the task instance started in, not the worker's current one: a
        # zombie instance that wakes up after newer assignments must not look newer than its successor.
        generation = self._task_generations.get(task, self.generation)
        trace = self._redact(task, trace)
        runner = (self._tasks.get(task) or self._stopping.get(task)) if versioned else None
        version = runner.version if runner is not None else None
        self.status_store.put_task(TaskStatus(task, state, trace, self.worker_id, generation, version), safe=safe)

    def on_startup(self, task: ConnectorTaskId) -> None:
        self._transient_failures.pop(task, None)
        self._put_task_status(task, State.RUNNING)

    def on_pause(self, task: ConnectorTaskId) -> None:
        self._put_task_status(task, State.PAUSED)

    def on_resume(self, task: ConnectorTaskId) -> None:
        self._put_task_status(task, State.RUNNING)

    # Failure and shutdown are written "safely" (as Java's putSafe): never over a status that another
    # worker wrote in a newer generation, i.e. the task's successor elsewhere.
    def on_failure(self, task: ConnectorTaskId, trace: str, transient: bool = False) -> None:
        self._put_task_status(task, State.FAILED, trace, safe=True)
        if transient and self._retry_task is not None:
            # Kafka was unreachable (a broker restart, a leader election): the task is FAILED, truthfully,
            # and restarted with backoff until it runs again or is revoked, with no operator involved.
            failures = self._transient_failures.get(task, 0) + 1
            self._transient_failures[task] = failures
            delay = min(_RETRY_BACKOFF_MAX_S, _RETRY_BACKOFF_S * 2 ** (failures - 1))
            logger.warning("Task %s failed on a transient error; restarting it in %.1f s (attempt %d)",
                           task, delay, failures)
            self._retry_task(task, delay)

    def active_topics(self, connector: str) -> Mapping[str, Any] | None:
        """The status store's live view of the connector's active topics; None with tracking off."""
        if not self.config.topic_tracking_enable:
            return None
        return self.status_store.active_topics(connector)

    def on_topic_used(self, task: ConnectorTaskId, topic: str) -> None:
        """Write the ``status-topic-<topic>:connector-<c>`` record (once per connector and topic)."""
        self.status_store.put_topic(task.connector, topic, task.task, int(time.time() * 1000))

    def on_shutdown(self, task: ConnectorTaskId) -> None:
        # As Java's: no version (the instance is gone), whether the task stopped alone or with its worker.
        self._put_task_status(task, State.UNASSIGNED, safe=True, versioned=False)


def _check_tasks_max_limit(tasks_max: int, limit: int) -> None:
    problem = tasks_max_limit_problem(tasks_max, limit)
    if problem is not None:
        raise ConnectException(f"Invalid value {tasks_max} for configuration tasks.max: {problem}")


def _enforce_tasks_max(config: SourceConnectorConfig) -> bool:
    return parse_bool(config.originals.get(TASKS_MAX_ENFORCE, "true"))


def _refuse_version(key: str, error: str) -> None:
    raise ConnectException(f"Invalid {key}: {error}")


def _state_name(state: TargetState) -> str:
    return {TargetState.STARTED: State.RUNNING, TargetState.PAUSED: State.PAUSED,
            TargetState.STOPPED: State.STOPPED}[state]


def _trace(e: BaseException) -> str:
    return "".join(traceback.format_exception(e))

