"""The distributed herder: one thread that owns this worker's view of the cluster and decides what
runs here. REST calls become requests executed on that thread (see ``herder_api``).

Coordination goes through Kafka only (docs/architecture.md, "The cluster protocol"):
- membership: heartbeats on the status topic (``membership.py``);
- leadership: the author of the last ``leader`` record in the config topic, while it is live. A
  claimant initialises the transactional producer ``connect-cluster-<group.id>`` (fencing the previous
  leader's producer and aborting its open transaction) and commits ``leader`` with epoch + 1. Every
  privileged config write goes through that producer, so a deposed leader can never write again;
- placement: the leader writes ``assignment`` records (``assignment.py``); each worker runs its share;
- task configs: the connector's owner computes them and hands them to the leader (internal REST);
- zombie fencing before an exactly-once task starts: by the leader (``PUT /connectors/{c}/fence``).

This module keeps the herder's state machine: its thread, its request queue, the tick, and applying
this worker's share of the assignment. The jobs it drives are in modules named after them, as Java's
``DistributedHerder`` hands work to ``HerderRequest``s and ``RestartPlan``: ``leader_duties`` (session
keys, placement), ``task_configs``, ``fencing`` (rounds, and the worker's ``ZombieFencing``),
``restarts``, ``config_requests``, ``offsets_requests``, ``active_topics``, ``logger_levels``, with
REST reads in ``cluster_view`` and validation in ``validation``.
"""

from __future__ import annotations

import functools
import logging
import os
import queue
import threading
import time
import uuid
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

from confluent_kafka import Producer

from connect_runtime.api.errors import ConnectException, RetriableException
from connect_runtime.clients import ErrorKind, classify_error
from connect_runtime.cluster.active_topics import ActiveTopics
from connect_runtime.cluster.assignment import Assignment, WorkerAssignment
from connect_runtime.cluster.cluster_view import ClusterView
from connect_runtime.cluster.config_requests import ConfigRequests
from connect_runtime.cluster.fencing import TaskFencing, ZombieFencer, fencing_producer_settings
from connect_runtime.cluster.heartbeats import HeartbeatWriter
from connect_runtime.cluster.herder_api import (
    ConfigInfos,
    ConfigKeyInfo,
    ConnectorInfo,
    ConnectorStateInfo,
    Created,
    ExpandedConnector,
    LoggerLevelInfo,
    PluginDesc,
    SessionKeyInfo,
    TaskInfo,
    TaskStateInfo,
)
from connect_runtime.cluster.internal_client import InternalClient
from connect_runtime.cluster.leader_duties import LeaderDuties
from connect_runtime.cluster.leadership import Leadership
from connect_runtime.cluster.logger_levels import LoggerLevels
from connect_runtime.cluster.membership import Membership
from connect_runtime.cluster.offsets_requests import OffsetsRequests
from connect_runtime.cluster.rebalance_metrics import RebalanceMetrics, coordinator_client_id
from connect_runtime.cluster.restarts import owner_url, plan_restart, restarting
from connect_runtime.cluster.task_configs import TaskConfigs
from connect_runtime.cluster.validation import ConnectorValidator
from connect_runtime.config.worker_config import WorkerConfig
from connect_runtime.errors import NotAssignedHttpError, NotFoundHttpError
from connect_runtime.futures import deferred
from connect_runtime.logging_util import RateLimitedLogger
from connect_runtime.metrics.connect_metrics import ConnectMetrics
from connect_runtime.plugins.registry import PluginRegistry
from connect_runtime.storage import formats
from connect_runtime.storage.config_store import ClusterConfigState, KafkaConfigBackingStore, LeaderRecord
from connect_runtime.storage.config_writer import ConfigTopicWriter, ConfigWriteError
from connect_runtime.storage.status_store import KafkaStatusBackingStore
from connect_runtime.types import ConnectorOffset, ConnectorOffsets, ConnectorTaskId, TargetState
from connect_runtime.worker.offsets_admin import SourceConnectorOffsets
from connect_runtime.worker.worker import Worker

logger = logging.getLogger(__name__)
_rate_limited = RateLimitedLogger(logger)

T = TypeVar("T")


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
        membership: Membership,
    ) -> None:
        self.config = config
        self.worker = worker
        self._worker_url = worker_url
        self.config_store = config_store
        self.status_store = status_store
        self.plugins = plugins
        self._cluster_id = kafka_cluster_id
        self.membership = membership
        # REST reads: answered from the snapshots on the caller's thread (``cluster_view.py``).
        self._view = ClusterView(config_store, status_store, plugins, worker.worker_id)
        self._validator = ConnectorValidator(config, plugins, worker.worker_plugins)
        self._internal = InternalClient(self.session_key, config.inter_worker_signature_algorithm,
                                        tls=worker.worker_plugins.peer_tls)
        self._requests: queue.Queue[Callable[[], None]] = queue.Queue()
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, name="herder", daemon=True)
        self._session = f"{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self._started_at = time.monotonic()
        self._heartbeat_s = config.heartbeat_interval_ms / 1000.0
        self._session_timeout_s = config.session_timeout_ms / 1000.0
        self._leadership = Leadership(worker.worker_id, worker_url, self._session, config.group_id, config_store,
                                      membership, config_writer, self._heartbeat_s, self._session_timeout_s,
                                      self._self_in_contact)
        self._heartbeats = HeartbeatWriter(
            worker.worker_id, worker_url, self._session, status_store, self._running_items,
            lambda: self._applied_generation, self._heartbeat_s)
        self._lost_contact = False
        #: The generation of the last assignment applied here (what heartbeats report).
        self._applied_generation = 0
        #: The generation of the assignment in the config topic when this worker started, if any.
        self._found_generation: int | None = None
        # What this worker applied.
        self._assignment: Assignment | None = None
        self._assignment_raw: bytes | None = None
        self._applied_configs: dict[str, Mapping[str, str]] = {}
        self._applied_states: dict[str, TargetState] = {}
        self._task_generations: dict[ConnectorTaskId, int] = {}
        self._needs_reconfig: set[str] = set()
        self._restarts_applied: int | None = None
        self._rebalance = RebalanceMetrics(worker.metrics, coordinator_client_id(config.client_id, worker.worker_id))
        # Slow work never runs on the herder thread, so one slow plugin or fencing round cannot stall every
        # request: fencing rounds on the fencer's pool, plugin validation and offsets changes on this
        # one (a request may wait for a fencing round, never the reverse: the pools cannot starve).
        self._fencer = ZombieFencer(config, config_store, self._leadership, self._is_source,
                                    lambda props: fencing_producer_settings(worker, props), self._on_herder,
                                    worker.metrics)
        #: The worker's ``ZombieFencing``: what its starting exactly-once tasks call.
        self.task_fencing = TaskFencing(config, self._leadership, self._fencer, self._internal, self._stopping)
        self._slow_pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="herder-work")
        # Tasks that failed on a transient error: when to restart them.
        self._task_retries: dict[ConnectorTaskId, float] = {}
        self._offsets = OffsetsRequests(config, config_store, self._leadership, self._view,
                                        SourceConnectorOffsets(worker.config, worker.plugins, worker.offset_stores,
                                                               worker.worker_plugins),
                                        self.fence_zombies, self._submit, self._slow_pool)
        self._task_configs = TaskConfigs(worker, config_store, self._leadership, self._internal, self._slow_pool,
                                         self._submit, self.request_reconfiguration, self._require, self._stopping)
        self._leader_duties = LeaderDuties(config, worker.worker_id, worker_url, self._session, config_store,
                                           membership, self._leadership, self._parsed_assignment,
                                           self._running_items)
        self._active_topics = ActiveTopics(config, status_store, self._view)
        self._config_requests = ConfigRequests(config_store, status_store, self._leadership, self._validator,
                                               self._view, config_producer, self._slow_pool, self._on_herder,
                                               self._submit, self._task_configs.write, self._active_topics.reset)
        self._logger_levels = LoggerLevels(config_store, config_producer)
        config_store.logger_listener = self._logger_levels.on_record

    # -- lifecycle ------------------------------------------------------------------------------
    def start(self) -> None:
        self._thread.start()

    def stop(self, timeout_s: float = 60.0) -> None:
        self._stopping.set()
        self._wake.set()
        self._thread.join(timeout_s)
        self._fencer.close()
        self._slow_pool.shutdown(wait=False, cancel_futures=True)
        self._offsets.close()
        self._internal.close()

    def on_config_record(self, key: str) -> None:
        """Config-store listener (reader thread): wake the herder to apply the change."""
        self._wake.set()

    def on_status_change(self) -> None:
        """Membership listener: a heartbeat changed; the leader may have to re-plan."""
        self._wake.set()

    def request_reconfiguration(self, connector: str) -> None:
        self._submit(lambda: self._needs_reconfig.add(connector))

    def schedule_task_retry(self, task: ConnectorTaskId, delay_s: float) -> None:
        """Worker callback (on the thread serving a task process's channel): ``task`` failed on a
        transient error; restart it after ``delay_s``."""
        due = time.monotonic() + delay_s
        self._submit(lambda: self._task_retries.__setitem__(task, due))

    def on_tasks_changed(self) -> None:
        """Worker callback: tasks finished stopping. Tell the leader (heartbeat) and start what waits."""
        self._heartbeat(force=True)
        self._wake.set()

    def _on_herder(self, fn: Callable[[], T], timeout_s: float = 90.0) -> T:
        """Run ``fn`` on the herder thread (the only one that changes herder state or writes as leader)."""
        if threading.current_thread() is self._thread:
            return fn()
        return self._submit(fn).result(timeout_s)

    def _submit(self, fn: Callable[[], T]) -> Future[T]:
        fut, run = deferred(fn)
        self._requests.put(run)
        self._wake.set()
        return fut

    def _run(self) -> None:
        try:
            self._logger_levels.startup_config_offset = self.config_store.refresh(120).offset
            self.status_store.refresh(120)
            self._restarts_applied = len(self.config_store.snapshot().restart_requests)
            found = self._parsed_assignment(self.config_store.snapshot())
            self._found_generation = found.generation if found is not None else None
            self._heartbeats.start()
            self._ready.set()
            self._open_reads()
            logger.info("Worker %s joined group %s", self.worker_id(), self.config.group_id)
            while not self._stopping.is_set():
                try:
                    self._tick()
                except Exception as e:
                    # A broker restart or outage makes reads to the end time out and writes fail for a
                    # while: wait and tick again (lost contact stops our tasks meanwhile). Anything
                    # else is a bug, and the worker stops.
                    if classify_error(e) is not ErrorKind.TRANSIENT and not isinstance(e, ConfigWriteError):
                        raise
                    _rate_limited.warning("Herder tick failed (Kafka unreachable?), retrying: %r", e)
                    self._stopping.wait(1.0)
                self._wake.wait(min(self._heartbeat_s / 2, 1.0))
                self._wake.clear()
        except Exception:
            logger.exception("Herder failed; the worker cannot continue")
            self._stopping.set()
        finally:
            self._stopping.set()
            self._open_reads()  # a worker that failed to start answers waiting reads rather than hang them
            self._drain_requests()
            self._leave()

    def _leave(self) -> None:
        """Planned departure: announce it, then stop everything here, each task on its own so the leader
        hands it over as soon as its final commit is made (the heartbeat after each stop says so), then
        the tombstone."""
        successor = None
        if self._is_leader:
            # The live worker every other one would rank first: it claims without waiting to rank itself.
            others = {w: b for w, b in self.membership.live().items() if w != self.worker_id()}
            successor = others[min(others)] if others else None
        self._heartbeats.announce_leaving(successor)
        names = self.worker.connector_names()
        for task in self.worker.task_ids():
            if not self.worker.is_stopping(task):
                self.worker.stop_tasks([task])
        for name in names:
            self._stop_connector(name)
        self._heartbeats.beat_now()
        # stop_tasks gives each task the graceful timeout, then cancels it: wait a little longer than that.
        # (on_tasks_changed sets _wake as each stop completes; the herder loop is over, nothing else does.)
        deadline = time.monotonic() + self.config.task_shutdown_graceful_timeout_ms / 1000.0 + 5.0
        while self.worker.task_ids() and time.monotonic() < deadline:
            self._wake.wait(max(deadline - time.monotonic(), 0.0))
            self._wake.clear()
        self.worker.stop()
        self._heartbeats.stop()
        self._heartbeats.leave()
        self.status_store.flush()
        self._rebalance.close()

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

    # -- membership -----------------------------------------------------------------------------
    def _running_items(self) -> tuple[frozenset[str], frozenset[ConnectorTaskId]]:
        return frozenset(self.worker.connector_names()), frozenset(self.worker.task_ids())

    def _heartbeat(self, force: bool = False) -> None:
        """Ask the heartbeat thread for a heartbeat now (after a change the leader should see)."""
        if force:
            self._heartbeats.beat_now()

    def _self_in_contact(self) -> bool:
        """Our own heartbeats come back through the status topic while we can reach Kafka."""
        return self.membership.is_live(self.worker_id()) or (
            time.monotonic() - self._started_at < self._session_timeout_s)

    # -- the tick -------------------------------------------------------------------------------
    def _tick(self) -> None:
        while True:
            try:
                req = self._requests.get_nowait()
            except queue.Empty:
                break
            req()
        state = self.config_store.snapshot()
        self._leadership.update(state)
        if self._is_leader and self._leadership.hears_itself():
            # Cut off from Kafka, a leader would see every other worker's heartbeat expire, reassign
            # their work, and block in that write until it times out, past its own lost-contact stop.
            self._leader_duties.run(self.config_store.snapshot())
        state = self.config_store.snapshot()
        self._retry_failed_tasks(state)
        self._apply_assignment(state)
        self._fencer.close_deleted(state.contains)
        self._active_topics.reset_deleted(lambda: {t.connector for t in self.worker.task_ids()})
        self._apply_restarts(state)
        for name in list(self._needs_reconfig):
            self._needs_reconfig.discard(name)
            self._task_configs.reconfigure(name, self.config_store.snapshot())

    # -- leadership (``leadership.py``) ------------------------------------------------------------
    @property
    def _is_leader(self) -> bool:
        return self._leadership.is_leader

    def _current_leader(self, state: ClusterConfigState) -> LeaderRecord | None:
        return self._leadership.current_leader(state)

    def leader_url(self) -> str | None:
        return self._leadership.leader_url()

    def _leader_write(self, records: list[tuple[str, bytes | None]]) -> None:
        self._leadership.write(records)

    def _require_leader(self) -> None:
        self._leadership.require_leader()

    def _parsed_assignment(self, state: ClusterConfigState) -> Assignment | None:
        if state.assignment is None:
            return None
        if state.assignment is not self._assignment_raw:
            try:
                self._assignment = Assignment.parse(state.assignment)
            except (ValueError, KeyError, TypeError):
                logger.exception("Skipping malformed assignment record")
                return self._assignment
            self._assignment_raw = state.assignment
        return self._assignment

    # -- applying this worker's share ------------------------------------------------------------
    def _apply_assignment(self, state: ClusterConfigState) -> None:
        assignment = self._parsed_assignment(state)
        if not self._self_in_contact():
            # Invariant 5: a worker cut off from the cluster stops its tasks rather than keep writing.
            if self.worker.task_ids() or self.worker.connector_names():
                # Tasks stop in the background: rate-limited, as this runs every tick until they are gone.
                _rate_limited.error("Worker %s lost contact with the cluster; stopping its connectors and tasks",
                                    self.worker_id())
                self._lost_contact = True
                self._stop_everything()
            return
        if self._lost_contact:
            self._lost_contact = False
            logger.info("Worker %s sees its heartbeats again; resuming its assignment", self.worker_id())
        if assignment is None:
            return
        leader = self._current_leader(state)
        if leader is None or assignment.leader != leader.worker_id:
            # Only the current leader's placement counts: a restarted worker must not start tasks from
            # an assignment of a leader that is gone (it could not even have them fenced).
            return
        mine = assignment.of(self.worker_id())
        if assignment.generation != self._applied_generation and not self._found_without_me(assignment, mine):
            self._rebalance.started(assignment.generation)
        self.worker.generation = assignment.generation
        changed = False
        # Revocations first (and reported at once), so the leader can hand them over.
        revoked = [n for n in self.worker.connector_names() if n not in mine.connectors or not state.contains(n)]
        for name in [n for n in revoked if not self.worker.is_connector_stopping(n)]:
            self._stop_connector(name)
            changed = True
        stale = [t for t in self.worker.task_ids()
                 if t not in mine.tasks or t not in state.tasks(t.connector)
                 or self._task_generations.get(t) != state.task_config_generation(t.connector)]
        # A deleted connector's active topics are reset once its tasks here are gone (Java's onRevoked).
        self._active_topics.reset_when_stopped(t.connector for t in stale if not state.contains(t.connector))
        if stale:
            self.worker.stop_tasks(stale)  # in the background; restarted once gone (on_tasks_changed)
            for t in stale:
                self._task_generations.pop(t, None)
            changed = True
        for name in sorted(mine.connectors):
            if not state.contains(name):
                continue
            cfg = state.connector_configs[name]
            target = state.target_state(name)
            if self._applied_configs.get(name) != cfg or name not in self.worker.connector_names():
                if name in self.worker.connector_names():
                    self._stop_connector(name)
                self._applied_configs[name] = cfg
                self._applied_states[name] = target
                # Started on the connector's own thread: its task configs are asked for once it is up.
                self._task_configs.reconfigure_after(name, self.worker.start_connector(name, cfg, target))
                changed = True
            elif self._applied_states.get(name) is not target:
                self._applied_states[name] = target
                resumed = self.worker.set_connector_state(name, target)
                if target is TargetState.STARTED:
                    self._task_configs.reconfigure_after(name, resumed)
        for task in sorted(mine.tasks):
            if task in self.worker.task_ids():
                continue  # running, failed, or its previous instance is still stopping
            task_cfg = state.task_config(task)
            if task_cfg is None or not state.contains(task.connector):
                continue
            target = state.target_state(task.connector)
            if target is TargetState.STOPPED:
                continue
            gen = state.task_config_generation(task.connector)
            self._task_generations[task] = gen
            self.worker.start_task(task, state.connector_configs[task.connector], task_cfg, target,
                                   verify_generation=functools.partial(self._verify_task_generation, task, gen),
                                   task_count=state.task_counts.get(task.connector))
            changed = True
        for task in self.worker.task_ids():
            target = state.target_state(task.connector)
            runner = self.worker.task(task)
            if runner is not None:
                runner.transition_to(target)
        if assignment.generation != self._applied_generation:
            self._applied_generation = assignment.generation
            changed = True
        if changed:
            self._heartbeat(force=True)
        self._rebalance.completed(assignment.generation, assignment.leader_url, mine)

    def _found_without_me(self, assignment: Assignment, mine: WorkerAssignment) -> bool:
        """Whether ``assignment`` is the one this worker found when it started, giving it nothing: decided
        before it joined, so applying it is not its join (the rebalance metrics wait for the leader's next
        generation, as Java's first ``onAssigned``)."""
        return (self._applied_generation == 0 and assignment.generation == self._found_generation
                and not mine.connectors and not mine.tasks)

    def _retry_failed_tasks(self, state: ClusterConfigState) -> None:
        """Restart tasks whose transient-failure backoff is over, if they are still ours and current (a
        changed generation or a revocation restarts or stops them through the assignment instead)."""
        if not self._task_retries:
            return
        now = time.monotonic()
        for task, due in list(self._task_retries.items()):
            if due > now:
                continue
            del self._task_retries[task]
            runner = self.worker.task(task)
            if runner is None or runner.is_alive() or not runner.failed:
                continue
            if self._task_generations.get(task) != state.task_config_generation(task.connector):
                continue
            logger.info("Restarting task %s after a transient failure", task)
            self.worker.stop_tasks([task])  # its thread has ended: gone at once, then started again
            self._task_generations.pop(task, None)

    def _stop_connector(self, name: str) -> None:
        self.worker.stop_connector(name)
        self._applied_configs.pop(name, None)
        self._applied_states.pop(name, None)

    def _stop_everything(self) -> None:
        self.worker.stop_tasks(self.worker.task_ids())
        self._task_generations.clear()
        for name in self.worker.connector_names():
            self._stop_connector(name)

    def _verify_task_generation(self, task: ConnectorTaskId, generation: int) -> None:
        """Start-up step 6: after the producer exists, re-read the config topic; abort if stale."""
        try:
            state = self.config_store.refresh()
        except TimeoutError as e:
            raise RetriableException(f"Timed out reading the config topic while starting task {task}") from e
        # Parsed here, not through the herder's cache: this runs on the thread serving the task process's call.
        try:
            assignment = Assignment.parse(state.assignment) if state.assignment is not None else None
        except (ValueError, KeyError, TypeError):
            assignment = None
        if (state.task_config_generation(task.connector) != generation or task not in state.tasks(task.connector)
                or assignment is None or task not in assignment.of(self.worker_id()).tasks):
            raise ConnectException(
                f"Failing task {task} as its task configurations were changed or it was revoked while "
                "it was starting up")

    # -- zombie fencing (leader) ----------------------------------------------------------------
    def fence_zombies(self, name: str) -> Future[None]:
        """Fence the previous generation of ``name``'s task producers and record the task count."""
        return self._fencer.fence_zombies(name)

    # -- restarts ---------------------------------------------------------------------------------
    def _apply_restarts(self, state: ClusterConfigState) -> None:
        requests = state.restart_requests
        if self._restarts_applied is None or len(requests) <= self._restarts_applied:
            return
        pending = requests[self._restarts_applied:]
        self._restarts_applied = len(requests)
        for req in pending:
            if not state.contains(req.connector):
                continue
            self._restart_locally(req.connector, req.include_tasks, req.only_failed, state)

    def _restart_locally(self, name: str, include_tasks: bool, only_failed: bool, state: ClusterConfigState) -> None:
        restart = plan_restart(name, include_tasks, only_failed, self.worker.connector_names(),
                               self.worker.task_ids(), self.status_store.get_connector(name),
                               self.status_store.get_task)
        if restart.connector:
            self._stop_connector(name)  # the next apply starts it again
        if include_tasks:
            self.worker.stop_tasks(restart.tasks)
            for t in restart.tasks:
                self._task_generations.pop(t, None)
        self._apply_assignment(state)

    def restart_connector(self, name: str, include_tasks: bool, only_failed: bool
                          ) -> Future[ConnectorStateInfo | None]:
        def run() -> ConnectorStateInfo | None:
            state = self.config_store.refresh()
            self._view.require(state, name, f"Unknown connector: {name}")
            if not include_tasks and not only_failed:
                if name not in self.worker.connector_names():
                    raise NotAssignedHttpError(f"Connector {name} is not owned by this worker", self._owner_url(name))
                self._stop_connector(name)
                self._apply_assignment(state)
                return None
            self._require_leader()
            key, value = formats.restart_request_record(name, include_tasks, only_failed)
            self._leader_write([(key, value)])
            info = restarting(self._view.status_now(name), include_tasks, only_failed)
            self.config_store.refresh()
            return info

        return self._submit(run)

    def restart_task(self, task: ConnectorTaskId) -> Future[None]:
        def run() -> None:
            state = self.config_store.refresh()
            self._view.require(state, task.connector, f"Unknown connector: {task.connector}")
            if task not in state.tasks(task.connector):
                raise NotFoundHttpError(f"Unknown task: {task}")
            if task not in self.worker.task_ids():
                raise NotAssignedHttpError(f"Task {task} is not owned by this worker", self._owner_url(task))
            self.worker.stop_tasks([task])
            self._task_generations.pop(task, None)
            self._apply_assignment(state)

        return self._submit(run)

    def _owner_url(self, item: str | ConnectorTaskId) -> str | None:
        return owner_url(self._assignment, self.membership, item)

    def stop_connector(self, name: str) -> Future[None]:
        return self._config_requests.stop(name)

    # -- offsets (KIP-875, ``offsets_requests.py``) ----------------------------------------------
    def connector_offsets(self, name: str) -> Future[ConnectorOffsets]:
        return self._offsets.read(name)

    def alter_connector_offsets(self, name: str, offsets: list[ConnectorOffset]) -> Future[str]:
        return self._offsets.alter(name, offsets)

    def reset_connector_offsets(self, name: str) -> Future[str]:
        return self._offsets.reset(name)

    # -- Herder protocol (REST) -----------------------------------------------------------------
    def worker_id(self) -> str:
        return self.worker.worker_id

    def kafka_cluster_id(self) -> str:
        return self._cluster_id

    def metrics(self) -> ConnectMetrics:
        return self.worker.metrics

    def is_ready(self) -> bool:
        """Started, and a leader is known (as Java's worker is ready once it has joined the group)."""
        return self._ready.is_set() and not self._stopping.is_set() and self.leader_url() is not None

    def health_check(self) -> Future[None]:
        return self._submit(lambda: None)

    def _snapshot(self) -> ClusterConfigState:
        return self.config_store.snapshot()

    def _open_reads(self) -> None:
        self._view.open()

    def connectors(self) -> Future[list[str]]:
        return self._view.connectors()

    def _require(self, state: ClusterConfigState, name: str) -> None:
        self._view.require(state, name)

    def _is_source(self, cfg: Mapping[str, str]) -> bool:
        return self._view.is_source(cfg)

    def connector_info(self, name: str) -> Future[ConnectorInfo]:
        return self._view.connector_info(name)

    def connectors_expanded(self, status: bool, info: bool) -> Future[dict[str, ExpandedConnector]]:
        return self._view.connectors_expanded(status, info)

    def connector_config(self, name: str) -> Future[dict[str, str]]:
        return self._view.connector_config(name)

    def put_connector_config(self, name: str, config: dict[str, str], allow_replace: bool,
                             initial_state: TargetState | None) -> Future[Created]:
        return self._config_requests.put(name, config, allow_replace, initial_state)

    def patch_connector_config(self, name: str, patch: dict[str, str | None]) -> Future[Created]:
        return self._config_requests.patch(name, patch)

    def delete_connector(self, name: str) -> Future[None]:
        return self._config_requests.delete(name)

    # -- active topics (KIP-558, ``active_topics.py``) and logger levels (``logger_levels.py``) -------
    def connector_active_topics(self, name: str) -> Future[list[str]]:
        return self._active_topics.of(name)

    def reset_connector_active_topics(self, name: str) -> Future[None]:
        return self._active_topics.reset_request(name)

    def logger_level(self, logger_name: str) -> LoggerLevelInfo | None:
        return self._logger_levels.level(logger_name)

    def all_logger_levels(self) -> dict[str, LoggerLevelInfo]:
        return self._logger_levels.all_levels()

    def set_worker_logger_level(self, namespace: str, level: str) -> list[str]:
        return self._logger_levels.set_worker_level(namespace, level)

    def set_cluster_logger_level(self, namespace: str, level: str) -> None:
        self._logger_levels.set_cluster_level(namespace, level)

    def task_configs(self, name: str) -> Future[list[TaskInfo]]:
        return self._view.task_configs(name)

    def connector_status(self, name: str) -> Future[ConnectorStateInfo]:
        return self._view.connector_status(name)

    def task_status(self, task: ConnectorTaskId) -> Future[TaskStateInfo]:
        return self._view.task_status(task)

    def pause_connector(self, name: str) -> None:
        self._config_requests.write_target_state(name, TargetState.PAUSED)

    def resume_connector(self, name: str) -> None:
        self._config_requests.write_target_state(name, TargetState.STARTED)

    def put_task_configs(self, name: str, configs: list[dict[str, str]]) -> Future[None]:
        return self._submit(lambda: self._task_configs.write(name, configs))

    def validate_connector_config(self, config: dict[str, str]) -> ConfigInfos:
        return self._validator.validate(config)

    def connector_plugins(self, connectors_only: bool) -> list[PluginDesc]:
        return self._validator.plugin_descs(connectors_only)

    def plugin_config(self, plugin: str, version: str | None = None) -> list[ConfigKeyInfo]:
        return self._validator.plugin_config(plugin, version)

    def session_key(self) -> SessionKeyInfo | None:
        key = self._snapshot().session_key
        return None if key is None else SessionKeyInfo(key.key, key.algorithm, key.creation_timestamp)

    def verification_algorithms(self) -> list[str]:
        return list(self.config.inter_worker_verification_algorithms)

    def signature_algorithm(self) -> str:
        return self.config.inter_worker_signature_algorithm

    def wait_ready(self, timeout_s: float) -> bool:
        """Wait until :meth:`is_ready` (started and a leader known); False on timeout or stop."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline and not self._stopping.is_set():
            if self.is_ready():
                return True
            self._stopping.wait(0.2)
        return False

    def __repr__(self) -> str:
        return f"DistributedHerder({self.worker_id()})"

