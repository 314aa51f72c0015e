"""Task configs: the connector's owner asks its connector for them and hands them to the leader, which
writes them (docs/architecture.md, "Internal topic records"); Java's ``reconfigureConnector`` and
``writeTaskConfigs`` of ``DistributedHerder``.

Herder-thread steps (:meth:`TaskConfigs.reconfigure`, :meth:`TaskConfigs.hand`, :meth:`TaskConfigs.write`)
never wait on a plugin or another worker: the connector computes its configs on its own thread and the
result comes back as a herder request; a follower's call to the leader runs on the herder's pool, one
at a time per connector.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from concurrent.futures import Executor, Future
from typing import Any

from connect_runtime.cluster.internal_client import InternalClient
from connect_runtime.cluster.leadership import Leadership
from connect_runtime.errors import ConflictHttpError
from connect_runtime.storage import formats
from connect_runtime.storage.config_store import ClusterConfigState, KafkaConfigBackingStore
from connect_runtime.types import TargetState
from connect_runtime.worker.worker import TooManyTasksException, Worker
from connect_runtime.worker.worker_connector import WorkerConnector

logger = logging.getLogger(__name__)


class TaskConfigs:
    """The connector owner's and the leader's parts in getting a connector's task configs written."""

    def __init__(
        self,
        worker: Worker,
        config_store: KafkaConfigBackingStore,
        leadership: Leadership,
        internal: InternalClient,
        pool: Executor,
        submit: Callable[[Callable[[], None]], object],
        request_reconfiguration: Callable[[str], None],
        require: Callable[[ClusterConfigState, str], None],
        stopping: threading.Event,
    ) -> None:
        self._worker = worker
        self._config_store = config_store
        self._leadership = leadership
        self._internal = internal
        self._pool = pool
        self._submit = submit
        self._request_reconfiguration = request_reconfiguration
        self._require = require
        self._stopping = stopping
        self._sends_lock = threading.Lock()
        #: Per connector, the newest configs not yet sent to the leader (url, configs): a newer
        #: computation replaces an older one still waiting, so the leader never gets them out of order.
        self._to_send: dict[str, tuple[str, list[dict[str, str]]]] = {}
        #: Connectors whose configs are being sent by a pool thread.
        self._sending: set[str] = set()

    def reconfigure_after(self, name: str, transition: Future[Any]) -> None:
        """Ask for ``name``'s task configs once ``transition`` (a start or resume on the connector's
        thread) has completed: back on the herder thread, like every other request."""
        def done(_: Future[Any]) -> None:
            if not self._stopping.is_set():
                self._request_reconfiguration(name)

        transition.add_done_callback(done)

    def reconfigure(self, name: str, state: ClusterConfigState) -> None:
        """Herder thread: have the running connector ``name`` compute its task configs."""
        if not state.contains(name) or not self._worker.is_running(name):
            return
        if state.target_state(name) is not TargetState.STARTED:
            return
        instance = self._worker.connector_instance(name)
        if instance is None:
            return
        # The connector computes them on its own thread; the herder hands them on when they are ready.
        computed = self._worker.connector_task_configs(name)
        computed.add_done_callback(lambda f: self._submit(lambda: self.hand(name, instance, f)))

    def hand(self, name: str, instance: WorkerConnector, computed: Future[list[dict[str, str]]]) -> None:
        """Herder thread: write (leader) or send to the leader the task configs that ``instance`` of
        connector ``name`` computed, unless they are stale: the connector was re-created, or its config
        changed, while they were computed."""
        if self._stopping.is_set():
            return
        try:
            new_configs = computed.result()
        except TooManyTasksException:
            # The worker failed the connector; as in Java, no retry until it is reconfigured or restarted.
            logger.debug("Connector %s generated too many tasks; will not retry configuring connector", name)
            return
        except Exception:
            if self._worker.is_running(name):  # else it was stopped meanwhile: nothing to configure
                logger.exception("Failed to reconfigure tasks of connector %s", name)
            return
        state = self._config_store.snapshot()
        if not state.contains(name) or state.target_state(name) is not TargetState.STARTED:
            return  # deleted, paused or stopped while its configs were computed
        if self._worker.connector_instance(name) is not instance or instance.raw != state.connector_configs[name]:
            # The current instance, or the one the new config will start, asks for its own.
            logger.debug("Dropping task configs of connector %s computed under a previous config", name)
            return
        if _unchanged(state, name, new_configs):
            return
        if self._leadership.is_leader:
            try:
                self.write(name, new_configs)
            except Exception as e:
                self._not_handed(name, e)
            return
        url = self._leadership.leader_url()
        if url is None:
            self._not_handed(name, ConflictHttpError("Leader is unknown"))
            return
        # A request to another worker: on the pool, so a slow leader holds up nothing here.
        with self._sends_lock:
            self._to_send[name] = (url, new_configs)
            if name in self._sending:
                return  # the thread sending this connector's older configs sends these next
            self._sending.add(name)
        self._pool.submit(self._send, name)

    def _send(self, name: str) -> None:
        """Pool thread: send ``name``'s newest configs until none are waiting."""
        while True:
            with self._sends_lock:
                item = self._to_send.pop(name, None)
                if item is None:
                    self._sending.discard(name)
                    return
            url, configs = item
            try:
                self._internal.put_task_configs(url, name, configs)
            except Exception as e:
                self._not_handed(name, e)

    def _not_handed(self, name: str, error: Exception) -> None:
        logger.warning("Failed to hand task configurations of connector %s to the leader (will retry): %s",
                       name, error)
        self._retry_later(name)

    def _retry_later(self, name: str) -> None:
        def again() -> None:
            if not self._stopping.wait(1.0):
                self._request_reconfiguration(name)

        threading.Thread(target=again, daemon=True, name=f"reconfigure-{name}").start()

    def write(self, name: str, configs: list[dict[str, str]]) -> None:
        """Leader, herder thread: task records in one transaction, then the commit record in another
        (docs/architecture.md, "Internal topic records")."""
        self._leadership.require_leader()
        state = self._config_store.refresh()
        self._require(state, name)
        if name in state.task_counts and len(configs) == 0 == state.task_counts[name]:
            return
        # The same task configs are written again when the connector config changed since they were
        # committed (docs/architecture.md, "Internal topic records"): the new generation restarts the
        # tasks with the new config (converters, producer overrides) and, under exactly-once, forces a
        # new fencing round.
        if _unchanged(state, name, configs):
            return
        if configs:
            self._leadership.write([formats.task_config_record(name, i, c) for i, c in enumerate(configs)])
            self._config_store.refresh()
        self._leadership.write([formats.commit_record(name, len(configs))])
        self._config_store.refresh()


def _unchanged(state: ClusterConfigState, name: str, configs: list[dict[str, str]]) -> bool:
    """``configs`` are the committed ones, written after the connector's current config."""
    old = [state.task_config(t) for t in state.tasks(name)]
    return (name in state.task_counts and old == configs and name not in state.inconsistent
            and state.connector_config_applied(name))
