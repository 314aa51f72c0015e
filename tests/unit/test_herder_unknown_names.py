"""The herder's 404s for an unknown connector or task, worded as Java's ``DistributedHerder`` and
``AbstractHerder`` word them (the words differ from request to request; clients match on them).

No broker: the herder and its config requests are built without ``__init__``, with a config snapshot
that has connector ``c`` and its task 0, and requests run on the caller's thread.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from types import SimpleNamespace
from typing import Any, TypeVar

import pytest

from connect_runtime.cluster.cluster_view import ClusterView
from connect_runtime.cluster.config_requests import ConfigRequests
from connect_runtime.cluster.herder import DistributedHerder
from connect_runtime.errors import NotFoundHttpError
from connect_runtime.storage.config_store import ClusterConfigState
from connect_runtime.types import ConnectorTaskId

T = TypeVar("T")


def _state() -> ClusterConfigState:
    return ClusterConfigState(offset=3, connector_configs={"c": {"name": "c"}},
                              task_configs={ConnectorTaskId("c", 0): {"task.class": "T"}}, task_counts={"c": 1})


def _inline(fn: Callable[[], T]) -> Future[T]:
    fut: Future[T] = Future()
    try:
        fut.set_result(fn())
    except Exception as e:
        fut.set_exception(e)
    return fut


@pytest.fixture
def herder() -> DistributedHerder:
    store = SimpleNamespace(refresh=_state, snapshot=_state)
    view = ClusterView(store, SimpleNamespace(), SimpleNamespace(), "w1:8083")  # type: ignore[arg-type]
    requests = object.__new__(ConfigRequests)
    requests._config_store, requests._view, requests._submit = store, view, _inline  # type: ignore[assignment]
    herder = object.__new__(DistributedHerder)
    herder.config_store, herder._view, herder._config_requests = store, view, requests  # type: ignore[assignment]
    herder._submit = _inline  # type: ignore[method-assign]
    return herder


def _raised(call: Callable[[], Any]) -> str:
    with pytest.raises(NotFoundHttpError) as info:
        result = call()
        if isinstance(result, Future):
            result.result(0)
    return info.value.message


@pytest.mark.parametrize(
    ("request_", "message"),
    [
        (lambda h: h.pause_connector("x"), "Unknown connector x"),
        (lambda h: h.resume_connector("x"), "Unknown connector x"),
        (lambda h: h.stop_connector("x"), "Unknown connector x"),
        (lambda h: h.restart_connector("x", False, False), "Unknown connector: x"),
        (lambda h: h.restart_connector("x", True, True), "Unknown connector: x"),
        (lambda h: h.restart_task(ConnectorTaskId("x", 0)), "Unknown connector: x"),
        (lambda h: h.restart_task(ConnectorTaskId("c", 7)), "Unknown task: c-7"),
    ],
)
def test_unknown_names_are_404_with_javas_words(herder: DistributedHerder, request_: Any, message: str) -> None:
    assert _raised(lambda: request_(herder)) == message
