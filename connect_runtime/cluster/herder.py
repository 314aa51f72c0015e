"""The distributed herder: one thread that owns this worker's view of the cluster and decides what
runs here. REST calls become requests executed on that thread (see ``herder_api``).

This worker claims leadership of its group through the config topic: it initialises the
transactional producer ``connect-cluster-<group.id>`` (fencing any previous leader and aborting its
open transaction) and commits a ``leader`` record. Every privileged config-topic write then goes
through that producer, so a deposed leader can never write again.
"""

from __future__ import annotations

import functools
import logging
import queue
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

from confluent_kafka import KafkaException, Producer

from connect_runtime.api.connector import SourceConnector
from connect_runtime.api.errors import ConnectException
from connect_runtime.clients import client_config
from connect_runtime.cluster.herder_api import (
    ConfigInfos,
    ConfigKeyInfo,
    ConnectorInfo,
    ConnectorStateInfo,
    ConnectorTaskId,
    Created,
    PluginDesc,
    SessionKeyInfo,
    StateInfo,
    TargetState,
    TaskInfo,
    TaskStateInfo,
)
from connect_runtime.cluster.validation import ConnectorValidator
from connect_runtime.config.worker_config import ExactlyOnceSourceSupport, WorkerConfig
from connect_runtime.errors import AlreadyExistsError, BadRequestError, ConflictError, NotFoundError
from connect_runtime.plugins.registry import PluginRegistry
from connect_runtime.storage import formats
from connect_runtime.storage.config_store import ClusterConfigState, KafkaConfigBackingStore, LeaderRecord
from connect_runtime.storage.config_writer import ConfigTopicWriter, ConfigWriteError
from connect_runtime.storage.status_store import KafkaStatusBackingStore, State
from connect_runtime.worker.worker import Worker

logger = logging.getLogger(__name__)

T = TypeVar("T")

_TICK_S = 1.0
_FENCE_FAILED = "Failed to perform zombie fencing for connector {}"


class DistributedHerder:
    """Coordinates this worker with the cluster and runs its share of connectors and tasks."""

    def __init__(
        self,
        config: WorkerConfig,
        worker: Worker,
        worker_url: str,
        config_store: KafkaConfigBackingStore,
        status_store: KafkaStatusBackingStore,
        config_writer: ConfigTopicWriter,
        config_producer: Producer,
        plugins: PluginRegistry,
        kafka_cluster_id: str,
    ) -> None:
        self.config = config
        self.worker = worker
        self._worker_url = worker_url
        self.config_store = config_store
        self.status_store = status_store
        self._writer = config_writer
        self._plain_producer = config_producer
        self.plugins = plugins
        self._cluster_id = kafka_cluster_id
        self._validator = ConnectorValidator(config, plugins)
        self._requests: queue.Queue[Callable[[], None]] = queue.Queue()
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, name="herder", daemon=True)
        self._leader_epoch = 0
        self._is_leader = False
        # What this worker has applied: connector config and task-config generation it runs.
        self._applied_configs: dict[str, Mapping[str, str]] = {}
        self._applied_generations: dict[str, int] = {}
        self._applied_states: dict[str, TargetState] = {}
        self._needs_reconfig: set[str] = set()
        self._fence_pool = ThreadPoolExecutor(max_workers=8, thread_name_prefix="fence")

    # -- lifecycle ------------------------------------------------------------------------------
    def start(self) -> None:
        self._thread.start()

    def stop(self, timeout_s: float = 60.0) -> None:
        self._stopping.set()
        self._wake.set()
        self._thread.join(timeout_s)
        self._fence_pool.shutdown(wait=False)

    def on_config_record(self, key: str) -> None:
        """Config-store listener (reader thread): wake the herder to apply the change."""
        self._wake.set()

    def request_reconfiguration(self, connector: str) -> None:
        self._submit(lambda: self._needs_reconfig.add(connector))

    def _submit(self, fn: Callable[[], T]) -> Future[T]:
        fut: Future[T] = Future()

        def run() -> None:
            if not fut.set_running_or_notify_cancel():
                return
            try:
                fut.set_result(fn())
            except BaseException as e:
                fut.set_exception(e)

        self._requests.put(run)
        self._wake.set()
        return fut

    def _run(self) -> None:
        try:
            self._claim_leadership()
            self.config_store.refresh()
            self.status_store.refresh()
            self._ready.set()
            logger.info("Worker %s joined group %s as leader (epoch %d)", self.worker_id(),
                        self.config.group_id, self._leader_epoch)
            while not self._stopping.is_set():
                self._tick()
                self._wake.wait(_TICK_S)
                self._wake.clear()
        except Exception:
            logger.exception("Herder failed; the worker cannot continue")
            self._stopping.set()
            raise
        finally:
            self._drain_requests()
            self.worker.stop()
            self.status_store.flush()

    def _drain_requests(self) -> None:
        while True:
            try:
                self._requests.get_nowait()()
            except queue.Empty:
                return
            except Exception:
                logger.exception("Request failed during shutdown")

    @property
    def stopped(self) -> bool:
        return self._stopping.is_set()

    # -- leadership -----------------------------------------------------------------------------
    def _claim_leadership(self) -> None:
        self._writer.initialize()
        state = self.config_store.refresh()
        epoch = (state.leader.epoch if state.leader else 0) + 1
        self._writer.write([(
            "leader", LeaderRecord(self.worker_id(), self._worker_url, epoch).to_bytes())])
        self._leader_epoch = epoch
        self._is_leader = True
        self.worker.generation = epoch

    def _leader_write(self, records: list[tuple[str, bytes | None]]) -> None:
        if not self._is_leader:
            raise ConflictError("Cannot complete request because of a conflicting operation (e.g. worker rebalance)")
        try:
            if not self._writer.initialized:
                self._writer.initialize()
            self._writer.write(records)
        except ConfigWriteError as e:
            if e.fenced:
                logger.error("The config topic producer was fenced: another worker took over leadership")
            raise
        except KafkaException as e:
            raise ConfigWriteError(e, fenced=False) from e

    # -- the tick -------------------------------------------------------------------------------
    def _tick(self) -> None:
        while True:
            try:
                req = self._requests.get_nowait()
            except queue.Empty:
                break
            req()
        state = self.config_store.snapshot()
        self._apply(state)
        for name in list(self._needs_reconfig):
            self._needs_reconfig.discard(name)
            self._reconfigure_tasks(name, self.config_store.snapshot())

    def _apply(self, state: ClusterConfigState) -> None:
        # Connectors deleted.
        for name in [n for n in self._applied_configs if not state.contains(n)]:
            self._stop_connector_and_tasks(name)
            self.status_store.delete_connector(name)
        # Connectors new or reconfigured (any config change restarts the connector, as Java).
        for name in state.connectors():
            cfg = state.connector_configs[name]
            target = state.target_state(name)
            if self._applied_configs.get(name) != cfg:
                self._stop_connector_and_tasks(name)
                self._applied_configs[name] = cfg
                self._applied_states[name] = target
                if self.worker.start_connector(name, cfg, target):
                    self._needs_reconfig.add(name)
            elif self._applied_states.get(name) is not target:
                self._applied_states[name] = target
                self._transition(name, target, state)
            # Task configs committed since we started this connector's tasks: restart them.
            gen = state.task_config_generation(name)
            if self._applied_generations.get(name) != gen and self._applied_configs.get(name) is cfg:
                self._restart_tasks(name, state)

    def _transition(self, name: str, target: TargetState, state: ClusterConfigState) -> None:
        self.worker.set_connector_state(name, target)
        if target is TargetState.STOPPED:
            # A stopped connector has no tasks: the leader writes an empty task set (reference §7).
            self._write_task_configs(name, [], state)
        elif target is TargetState.STARTED:
            self._needs_reconfig.add(name)

    def _stop_connector_and_tasks(self, name: str) -> None:
        ids = [t for t in self.worker.task_ids() if t.connector == name]
        self.worker.stop_and_await_tasks(ids)
        self.worker.stop_connector(name)
        self._applied_configs.pop(name, None)
        self._applied_generations.pop(name, None)
        self._applied_states.pop(name, None)

    def _restart_tasks(self, name: str, state: ClusterConfigState) -> None:
        running = [t for t in self.worker.task_ids() if t.connector == name]
        self.worker.stop_and_await_tasks(running)
        gen = state.task_config_generation(name)
        self._applied_generations[name] = gen
        cfg = state.connector_configs[name]
        target = state.target_state(name)
        if target is TargetState.STOPPED:
            return
        for tid in state.tasks(name):
            task_cfg = state.task_config(tid)
            if task_cfg is None:
                continue
            self.worker.start_task(tid, cfg, task_cfg, target,
                                   fence=functools.partial(self._fence_and_wait, name),
                                   verify_generation=functools.partial(self._verify_task_generation, tid, gen))

    def _fence_and_wait(self, connector: str) -> None:
        """Start-up step 4, on the task's thread: have the leader fence the previous generation."""
        self.fence_zombies(connector).result(self.config.rebalance_timeout_ms / 1000)

    def _verify_task_generation(self, task: ConnectorTaskId, generation: int) -> None:
        """Start-up step 6: after the producer exists, re-read the config topic; abort if stale."""
        state = self.config_store.refresh()
        if state.task_config_generation(task.connector) != generation or task not in state.tasks(task.connector):
            raise ConnectException(
                f"Failing task {task} as its task configurations were changed or it was revoked while "
                "it was starting up")

    def _reconfigure_tasks(self, name: str, state: ClusterConfigState) -> None:
        if not state.contains(name) or not self.worker.is_running(name):
            return
        cfg = state.connector_configs[name]
        try:
            max_tasks = int(cfg.get("tasks.max", "1"))
            new_configs = self.worker.connector_task_configs(name, max_tasks)
        except Exception:
            logger.exception("Failed to reconfigure tasks of connector %s", name)
            return
        old = [state.task_config(t) for t in state.tasks(name)]
        if name in state.task_counts and old == new_configs and name not in state.inconsistent:
            return
        self._write_task_configs(name, new_configs, state)

    def _write_task_configs(self, name: str, configs: list[dict[str, str]], state: ClusterConfigState) -> None:
        if state.task_counts.get(name) == len(configs) == 0 and name in state.task_counts:
            return
        try:
            self.config_store.refresh()
            self._leader_write([formats.task_config_record(name, i, c) for i, c in enumerate(configs)])
            self.config_store.refresh()
            self._leader_write([formats.commit_record(name, len(configs))])
        except Exception:
            logger.exception("Failed to write task configurations of connector %s; will retry", name)
            self._needs_reconfig.add(name)

    # -- zombie fencing (leader-local for now; the signed REST endpoint routes here too) --------
    def fence_zombies(self, connector: str) -> Future[None]:
        """Fence the previous generation of ``connector``'s task producers and record the task count."""
        return self._submit(lambda: self._fence(connector))

    def _fence(self, connector: str) -> None:
        try:
            state = self.config_store.refresh()
        except Exception as e:
            raise ConnectException("Failed to read to end of config topic before performing zombie fencing") from e
        if not state.contains(connector):
            raise NotFoundError(f"Connector {connector} not found")
        if connector not in state.pending_fencing:
            return
        previous = state.task_count_records.get(connector)
        count = state.task_counts.get(connector, 0)
        generation = state.task_config_generation(connector)
        if previous is not None and not (previous == 1 and count == 1):
            ids = [ConnectorTaskId(connector, i) for i in range(previous)]
            futures = [self._fence_pool.submit(self._fence_producer, t) for t in ids]
            try:
                for f in futures:
                    f.result(60)
            except Exception as e:
                raise ConnectException(_FENCE_FAILED.format(connector) + f": {e}") from e
            state = self.config_store.refresh()
            if state.task_config_generation(connector) != generation:
                raise ConflictError(
                    "Fencing failed because new task configurations were generated for the connector")
        self._leader_write([formats.task_count_record(connector, count)])
        self.config_store.refresh()

    def _fence_producer(self, task: ConnectorTaskId) -> None:
        from connect_runtime.worker.exactly_once_source_task import task_transactional_id

        conf: dict[str, Any] = dict(self.config.client_props("producer."))
        conf["transactional.id"] = task_transactional_id(self.config.group_id, task)
        producer = Producer(client_config(conf))
        producer.init_transactions(60)
        producer.flush(0)

    # -- Herder protocol (REST) -----------------------------------------------------------------
    def worker_id(self) -> str:
        return self.worker.worker_id

    def kafka_cluster_id(self) -> str:
        return self._cluster_id

    def is_ready(self) -> bool:
        return self._ready.is_set() and not self._stopping.is_set()

    def _snapshot(self) -> ClusterConfigState:
        return self.config_store.snapshot()

    def connectors(self) -> Future[list[str]]:
        return self._submit(lambda: self._snapshot().connectors())

    def _require(self, state: ClusterConfigState, name: str) -> None:
        if not state.contains(name):
            raise NotFoundError(f"Connector {name} not found")

    def _info(self, state: ClusterConfigState, name: str) -> ConnectorInfo:
        self._require(state, name)
        cfg = dict(state.connector_configs[name])
        return ConnectorInfo(name, cfg, state.tasks(name), self._connector_type(cfg))

    def _connector_type(self, cfg: Mapping[str, str]) -> str:
        try:
            cls = self.plugins.connector_class(cfg.get("connector.class", ""))
        except Exception:
            return "unknown"
        return "source" if issubclass(cls, SourceConnector) else "sink"

    def connector_info(self, name: str) -> Future[ConnectorInfo]:
        return self._submit(lambda: self._info(self._snapshot(), name))

    def connector_config(self, name: str) -> Future[dict[str, str]]:
        return self._submit(lambda: self._info(self._snapshot(), name).config)

    def put_connector_config(self, name: str, config: dict[str, str], allow_replace: bool,
                             initial_state: TargetState | None) -> Future[Created]:
        def run() -> Created:
            result = self._validator.validate(config)
            self._validator.raise_if_invalid(result, config)
            state = self.config_store.refresh()
            exists = state.contains(name)
            if exists and not allow_replace:
                raise AlreadyExistsError(f"Connector {name} already exists")
            records: list[tuple[str, bytes | None]] = []
            if initial_state is not None and not exists:
                records.append(formats.target_state_record(name, initial_state.value))
            records.append(formats.connector_config_record(name, config))
            self._leader_write(records)
            state = self.config_store.refresh()
            return Created(not exists, self._info(state, name))

        return self._submit(run)

    def delete_connector(self, name: str) -> Future[None]:
        def run() -> None:
            state = self.config_store.refresh()
            self._require(state, name)
            self._leader_write([formats.connector_config_record(name, None),
                                formats.target_state_record(name, None)])
            self.config_store.refresh()

        return self._submit(run)

    def task_configs(self, name: str) -> Future[list[TaskInfo]]:
        def run() -> list[TaskInfo]:
            state = self._snapshot()
            self._require(state, name)
            return [TaskInfo(t, dict(state.task_config(t) or {})) for t in state.tasks(name)]

        return self._submit(run)

    def connector_status(self, name: str) -> ConnectorStateInfo:
        state = self._snapshot()
        status = self.status_store.get_connector(name)
        if status is None or not state.contains(name):
            if not state.contains(name):
                raise NotFoundError(f"No status found for connector {name}")
            conn = StateInfo(State.UNASSIGNED, self.worker_id(), None)
        else:
            conn = StateInfo(status.state, status.worker_id, status.trace)
        tasks = [TaskStateInfo(s.state, s.worker_id, s.trace, s.id.task)
                 for s in self.status_store.get_all_tasks(name) if s.id.task < len(state.tasks(name))]
        return ConnectorStateInfo(name, conn, tasks, self._connector_type(state.connector_configs[name]))

    def _write_target_state(self, name: str, state: TargetState) -> None:
        snap = self.config_store.refresh()
        self._require(snap, name)
        key, value = formats.target_state_record(name, state.value)
        # Pause/resume are written by any worker, outside the leader's transactions (reference §3).
        self._plain_producer.produce(self.config_store.topic, key=key.encode(), value=value)
        remaining = self._plain_producer.flush(30)
        if remaining:
            raise ConfigWriteError(TimeoutError("target state write timed out"), fenced=False)

    def pause_connector(self, name: str) -> None:
        self._write_target_state(name, TargetState.PAUSED)

    def resume_connector(self, name: str) -> None:
        self._write_target_state(name, TargetState.STARTED)

    def validate_connector_config(self, config: dict[str, str]) -> ConfigInfos:
        return self._validator.validate(config)

    def connector_plugins(self, connectors_only: bool) -> list[PluginDesc]:
        return self._validator.plugin_descs(connectors_only)

    def plugin_config(self, plugin: str) -> list[ConfigKeyInfo]:
        return self._validator.plugin_config(plugin)

    def eos_support(self) -> ExactlyOnceSourceSupport:
        return self.config.exactly_once_source_support

    def wait_ready(self, timeout_s: float) -> bool:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self._ready.wait(0.2):
                return True
            if self._stopping.is_set():
                return False
        return False

    # -- cluster operations (filled in by the cluster work) -------------------------------------
    def leader_url(self) -> str | None:
        return self._worker_url if self._is_leader else None

    def session_key(self) -> SessionKeyInfo | None:
        key = self._snapshot().session_key
        return None if key is None else SessionKeyInfo(key.key, key.algorithm, key.creation_timestamp)

    def verification_algorithms(self) -> list[str]:
        return list(self.config.inter_worker_verification_algorithms)

    def signature_algorithm(self) -> str:
        return self.config.inter_worker_signature_algorithm

    def task_status(self, task: ConnectorTaskId) -> TaskStateInfo:
        status = self.status_store.get_task(task)
        if status is None:
            raise NotFoundError(f"No status found for task {task}")
        return TaskStateInfo(status.state, status.worker_id, status.trace, task.task)

    def put_task_configs(self, name: str, configs: list[dict[str, str]]) -> Future[None]:
        return self._submit(lambda: self._write_task_configs(name, configs, self.config_store.refresh()))

    def restart_connector(self, name: str, include_tasks: bool, only_failed: bool
                          ) -> Future[ConnectorStateInfo | None]:
        raise ConflictError("Restarting connectors is not supported by this worker yet")

    def restart_task(self, task: ConnectorTaskId) -> Future[None]:
        raise ConflictError("Restarting tasks is not supported by this worker yet")

    def stop_connector(self, name: str) -> Future[None]:
        raise ConflictError("Stopping connectors is not supported by this worker yet")

    def __repr__(self) -> str:
        return f"DistributedHerder({self.worker_id()})"


def bad_request(message: str) -> BadRequestError:
    return BadRequestError(message)
