"""A starting task's zombie-fencing request to the leader: what is repeated before the task fails.

While a killed broker's leaderships move, the leader's config-topic read can time out and it answers the
fence request 500: the task must not show FAILED for a routine broker failover.
"""

from __future__ import annotations

import threading
from types import SimpleNamespace

import pytest

from connect_runtime.api.errors import ConfigException, RetriableException
from connect_runtime.cluster.fencing import FENCE_CONFLICT, TaskFencing
from connect_runtime.errors import HttpStatusError
from connect_runtime.testing import wait_until
from rest.routers import NO_KNOWN_LEADER


class _Leader:
    """The internal client: fails the first ``failures`` fence requests with ``error``."""

    def __init__(self, error: Exception, failures: int) -> None:
        self.error, self.failures, self.calls = error, failures, 0

    def fence_zombies(self, leader_url: str, connector: str) -> None:
        self.calls += 1
        if self.calls <= self.failures:
            raise self.error


def _fencing(leader: _Leader, stopping: threading.Event | None = None, timeout_ms: int = 10_000) -> TaskFencing:
    config = SimpleNamespace(rebalance_timeout_ms=timeout_ms)
    leadership = SimpleNamespace(is_leader=False, leader_url=lambda: "http://leader:8083")
    return TaskFencing(config, leadership, None, leader, stopping or threading.Event())  # type: ignore[arg-type]


def test_a_leader_answering_500_is_asked_again_and_the_task_starts() -> None:
    leader = _Leader(HttpStatusError("Request timed out", status=500), failures=2)
    _fencing(leader).fence_zombies("src")
    assert leader.calls == 3


def test_a_worker_that_no_longer_leads_or_knows_no_leader_is_asked_again() -> None:
    leader = _Leader(HttpStatusError(NO_KNOWN_LEADER, status=409), failures=1)
    _fencing(leader).fence_zombies("src")
    assert leader.calls == 2


def test_an_unreachable_leader_is_asked_again() -> None:
    leader = _Leader(HttpStatusError("Internal request PUT failed: connection refused"), failures=1)
    _fencing(leader).fence_zombies("src")
    assert leader.calls == 2


@pytest.mark.parametrize("error", [HttpStatusError(FENCE_CONFLICT, status=409),
                                   HttpStatusError("unknown connector", status=404),
                                   ConfigException("refused by the override policy")])
def test_an_answer_repeating_cannot_change_fails_the_task_at_once(error: Exception) -> None:
    leader = _Leader(error, failures=1)
    with pytest.raises(RetriableException):
        _fencing(leader).fence_zombies("src")
    assert leader.calls == 1


def test_a_stopping_worker_stops_asking() -> None:
    stopping = threading.Event()
    stopping.set()
    leader = _Leader(HttpStatusError("Request timed out", status=500), failures=5)
    with pytest.raises(RetriableException):
        _fencing(leader, stopping).fence_zombies("src")
    assert leader.calls == 1


def test_a_task_stopped_while_its_request_is_repeated_stops_asking() -> None:
    # Its successor may start meanwhile: a fencing round asked for after the stop would fence that one.
    leader = _Leader(HttpStatusError("Request timed out", status=500), failures=1000)
    stopped = threading.Event()
    errors: list[Exception] = []

    def fence() -> None:
        try:
            _fencing(leader).fence_zombies("src", stopped)
        except Exception as e:
            errors.append(e)

    asking = threading.Thread(target=fence, daemon=True)
    asking.start()
    wait_until(lambda: leader.calls >= 1, 10, message="the first request")
    stopped.set()
    wait_until(lambda: not asking.is_alive(), 5, message="the request to be given up")
    assert leader.calls == 1
    assert len(errors) == 1 and isinstance(errors[0], RetriableException)


def test_a_stopped_task_asks_nothing() -> None:
    leader = _Leader(HttpStatusError("Request timed out", status=500), failures=0)
    stopped = threading.Event()
    stopped.set()
    with pytest.raises(RetriableException, match="stopped before the zombies of connector src were fenced"):
        _fencing(leader).fence_zombies("src", stopped)
    assert leader.calls == 0


def test_a_request_given_up_after_the_rebalance_timeout_says_how_long_it_was_asked() -> None:
    leader = _Leader(HttpStatusError("Request timed out", status=500), failures=1000)
    with pytest.raises(RetriableException, match=r"Zombie fencing for connector src failed: Request timed out "
                                                  r"\(asked 2 times in 0\.\d s\)"):
        _fencing(leader, timeout_ms=1_200).fence_zombies("src")
    assert leader.calls == 2
