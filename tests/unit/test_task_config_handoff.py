"""The owner's hand-off of computed task configs (``cluster/task_configs.py``): stale results are dropped,
and a follower sends one connector's configs to the leader one at a time, newest last (pure logic: the
worker, config store, leadership and leader client are fakes; results and the leader are gated)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, cast

from worker_stubs import FixedConfigStore

from connect_runtime.cluster.task_configs import TaskConfigs
from connect_runtime.storage.config_store import ClusterConfigState

CONFIG_A = {"connector.class": "Stub", "topic": "a"}
CONFIG_B = {"connector.class": "Stub", "topic": "b"}


class _Instance:
    def __init__(self, raw: Mapping[str, str]) -> None:
        self.raw = dict(raw)


class _Worker:
    """One connector ``c``; each request for task configs is answered when the test says."""

    def __init__(self, raw: Mapping[str, str]) -> None:
        self.instance: _Instance | None = _Instance(raw)
        self.computations: list[Future[list[dict[str, str]]]] = []

    def is_running(self, name: str) -> bool:
        return self.instance is not None

    def connector_instance(self, name: str) -> _Instance | None:
        return self.instance

    def connector_task_configs(self, name: str) -> Future[list[dict[str, str]]]:
        self.computations.append(Future())
        return self.computations[-1]


def _store(config: Mapping[str, str]) -> FixedConfigStore:
    return FixedConfigStore(ClusterConfigState(connector_configs={"c": config}))


class _Leadership:
    def __init__(self, is_leader: bool) -> None:
        self.is_leader = is_leader
        self.written: list[list[tuple[str, bytes | None]]] = []

    def leader_url(self) -> str:
        return "http://leader"

    def require_leader(self) -> None:
        assert self.is_leader

    def write(self, records: list[tuple[str, bytes | None]]) -> None:
        self.written.append(records)


class _Leader:
    """The leader's endpoint: the first request waits at a gate; records the order and overlap of calls."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.gate = threading.Event()
        self.sent: list[list[dict[str, str]]] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()

    def put_task_configs(self, url: str, name: str, configs: list[dict[str, str]]) -> None:
        with self._lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        self.entered.set()
        assert self.gate.wait(10)
        with self._lock:
            self.in_flight -= 1
            self.sent.append(configs)


class _Herder:
    def __init__(self, worker: _Worker, store: FixedConfigStore, leadership: _Leadership, leader: _Leader | None = None,
                 pool: ThreadPoolExecutor | None = None) -> None:
        self.requests: list[Callable[[], None]] = []
        self.task_configs = TaskConfigs(
            cast(Any, worker), cast(Any, store), cast(Any, leadership), cast(Any, leader),
            cast(Any, pool), self.requests.append, lambda name: None, lambda state, name: None,
            threading.Event())

    def run_requests(self) -> None:
        while self.requests:
            self.requests.pop(0)()


def _configs(n: int) -> list[dict[str, str]]:
    return [{"task.class": "StubTask", "n": str(n)}]


def _commits(leadership: _Leadership) -> list[str]:
    return [key for records in leadership.written for key, _ in records if key.startswith("commit-")]


def test_configs_computed_under_the_current_config_are_written() -> None:
    worker, store, leadership = _Worker(CONFIG_A), _store(CONFIG_A), _Leadership(is_leader=True)
    herder = _Herder(worker, store, leadership)
    herder.task_configs.reconfigure("c", store.snapshot())
    worker.computations[0].set_result(_configs(1))
    herder.run_requests()
    assert _commits(leadership) == ["commit-c"]


def test_configs_computed_before_the_config_changed_are_dropped() -> None:
    worker, store, leadership = _Worker(CONFIG_A), _store(CONFIG_A), _Leadership(is_leader=True)
    herder = _Herder(worker, store, leadership)
    herder.task_configs.reconfigure("c", store.snapshot())
    # The user PUTs config B while A's task_configs() runs; the herder has not restarted the connector yet.
    store.state = ClusterConfigState(connector_configs={"c": CONFIG_B})
    worker.computations[0].set_result(_configs(1))
    herder.run_requests()
    assert leadership.written == []


def test_configs_computed_by_a_replaced_instance_are_dropped() -> None:
    worker, store, leadership = _Worker(CONFIG_A), _store(CONFIG_A), _Leadership(is_leader=True)
    herder = _Herder(worker, store, leadership)
    herder.task_configs.reconfigure("c", store.snapshot())
    # Deleted and re-created under the same name and config: a new instance runs it now.
    worker.instance = _Instance(CONFIG_A)
    worker.computations[0].set_result(_configs(1))
    herder.run_requests()
    assert leadership.written == []


def test_a_follower_sends_one_connectors_configs_one_at_a_time_and_only_the_newest_waiting() -> None:
    worker, store, leadership, leader = _Worker(CONFIG_A), _store(CONFIG_A), _Leadership(is_leader=False), _Leader()
    pool = ThreadPoolExecutor(max_workers=4)
    try:
        herder = _Herder(worker, store, leadership, leader, pool)
        for _ in range(3):
            herder.task_configs.reconfigure("c", store.snapshot())
        worker.computations[0].set_result(_configs(1))
        herder.run_requests()
        assert leader.entered.wait(10)  # the first send is at the leader, held there
        worker.computations[1].set_result(_configs(2))
        worker.computations[2].set_result(_configs(3))
        herder.run_requests()
        leader.gate.set()
    finally:
        pool.shutdown(wait=True)
    assert leader.sent == [_configs(1), _configs(3)]
    assert leader.max_in_flight == 1
