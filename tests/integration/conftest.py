"""One worker for all the tests of a module: the ``worker`` and ``client`` fixtures.

The toolkit's ``connect_worker`` starts a worker per test; a module whose tests can share one (each
test names its own connectors and topics) configures it with the same marker at module level::

    pytestmark = [pytest.mark.kafka, pytest.mark.connect_worker(eos="disabled", extra={...})]

A module that defines its own ``worker`` or ``client`` fixture uses that one instead.

``java_connect`` is Apache Kafka Connect itself (the reference, a Java ``connect-distributed`` worker of
a group of its own on the same broker), started once per session for the tests that compare with it.
``java_data`` is its data classes, JSON converter and transforms in one JVM (java_data_harness.py), for
the differential tests of the data model, converters and transforms; it needs no broker.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from java_data_harness import JavaDataHarness
from rest_differential import Differential, delete_all_connectors

from connect_runtime.testing import ConnectClient, WorkerProcess
from connect_runtime.testing.java_connect import JavaConnectWorker, ensure_connect_jars


@pytest.fixture(scope="module")
def worker(request: pytest.FixtureRequest, kafka_bootstrap: str,
           tmp_path_factory: pytest.TempPathFactory) -> Iterator[WorkerProcess]:
    """A ready worker of a group of its own, configured by the module's ``connect_worker`` marker."""
    marker = request.node.get_closest_marker("connect_worker")
    settings: dict[str, Any] = dict(marker.kwargs) if marker is not None else {}
    name = Path(str(request.node.path)).stem.removeprefix("test_").replace("_", "-")
    with WorkerProcess(kafka_bootstrap, tmp_path_factory.mktemp(name), f"{name}-{uuid.uuid4().hex[:8]}",
                       **settings).start_ready() as w:
        yield w


@pytest.fixture(scope="module")
def client(worker: WorkerProcess) -> Iterator[ConnectClient]:
    """A :class:`ConnectClient` of ``worker``."""
    with ConnectClient(worker.url) as c:
        yield c


@pytest.fixture(scope="session")
def java_connect(kafka_bootstrap: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[JavaConnectWorker]:
    """A ready Java Kafka Connect worker (exactly-once source support enabled, as our test workers)."""
    worker = JavaConnectWorker(ensure_connect_jars(), kafka_bootstrap, tmp_path_factory.mktemp("java-connect"),
                               f"java-connect-{uuid.uuid4().hex[:8]}")
    try:
        worker.start().wait_ready()
        yield worker
    finally:
        # Java's shutdown may wait for a task still blocked sending to a missing topic (a test's
        # divergence) for its producer's max.block.ms, 60 s.
        worker.stop(timeout_s=120)


@pytest.fixture(scope="module")
def rest_diff(java_connect: JavaConnectWorker, worker: WorkerProcess) -> Iterator[Differential]:
    """The differential REST harness (rest_differential.py) on ``java_connect`` and the module's
    ``worker``, both emptied of connectors first."""
    diff = Differential(java_connect.url, worker.url)
    for client in diff.http.values():
        delete_all_connectors(client)
    yield diff
    diff.close()


@pytest.fixture(scope="session")
def java_data(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JavaDataHarness]:
    """Kafka Connect's data classes in one JVM (java_data_harness.py), for the differential tests of the
    data model, converters and transforms."""
    harness = JavaDataHarness(tmp_path_factory.mktemp("java-data-harness"))
    yield harness
    harness.close()


#: More rounds of the transforms' generated corpora (other seeds), run under the ``slow`` marker.
SLOW_CORPUS_ROUNDS = (1, 2, 3, 4)


@pytest.fixture(params=[0, *(pytest.param(n, marks=pytest.mark.slow) for n in SLOW_CORPUS_ROUNDS)],
                ids=lambda n: f"round{n}")
def corpus_round(request: pytest.FixtureRequest) -> int:
    """Which round of a generated differential corpus a test runs: round 0 (its own seed) always, and
    rounds 1-4 (seed + 1000 x round) under the ``slow`` marker, which ``./dev test`` still runs."""
    return int(request.param)
