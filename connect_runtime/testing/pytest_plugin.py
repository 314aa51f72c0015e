"""pytest plugin: test connectors against a real Apache Kafka broker (and Spark jobs on a real cluster).

Shipped with connect-runtime so that plugin authors can test their connectors the same way the
runtime is tested: against a real broker, never a mock. It is registered automatically (through
the ``pytest11`` entry point) when connect-runtime is installed; without the installed package, add
``pytest_plugins = ["connect_runtime.testing.pytest_plugin"]`` to your top-level ``conftest.py``.

Fixtures
    ``kafka_bootstrap`` (session)
        ``bootstrap.servers`` of a broker: ``$KAFKA_BOOTSTRAP_SERVERS`` when set, otherwise a
        single-node broker started for the test session (see
        :mod:`connect_runtime.testing.local_kafka`; needs Java 17+, and ``mvn`` the first time to
        fetch the jars into ``~/.cache/connect-runtime``) and stopped at its end. The broker runs
        Apache Kafka ``$CONNECT_RUNTIME_KAFKA_VERSION`` when set (4.0.0 or newer), else
        :data:`~connect_runtime.testing.local_kafka.KAFKA_VERSION`: the suite runs on another release
        without a code change.
    ``kafka_sasl_bootstrap`` (session)
        ``bootstrap.servers`` of the same local broker's SASL_PLAINTEXT listener (PLAIN mechanism; log
        in as :data:`~connect_runtime.testing.local_kafka.SASL_USERNAME` with
        :data:`~connect_runtime.testing.local_kafka.SASL_PASSWORD`). A cluster named by
        ``$KAFKA_BOOTSTRAP_SERVERS`` has no such listener that the plugin knows of: a test asking for
        this fixture then fails, saying so, rather than being skipped.
    ``kafka_cluster`` (session)
        a :class:`~connect_runtime.testing.local_kafka_cluster.KafkaCluster` of three brokers
        (replication factor 3, ``min.insync.replicas=2``): ``bootstrap``, ``node_ids``, ``kill(node)``,
        ``restart(node)``, ``partition_leader(topic, partition)`` and
        ``transaction_coordinator(transactional_id)``. ``$KAFKA_CLUSTER_BOOTSTRAP_SERVERS`` when set
        (then ``kill`` and ``restart`` fail the test, saying so), otherwise a
        :class:`~connect_runtime.testing.local_kafka_cluster.LocalKafkaCluster` (of the release
        ``kafka_bootstrap``'s broker runs) started the first time a test asks for it and stopped at the
        end of the session.
    ``schema_registry_url`` (session)
        ``schema.registry.url`` of a real schema registry (Confluent's API): ``$SCHEMA_REGISTRY_URL`` when
        set, otherwise a local Apicurio Registry started for the session (see
        :mod:`connect_runtime.testing.local_registry`; needs Java 17+, and ``mvn`` the first time to fetch
        it) and stopped at its end. Registries are shared: give each test subjects of its own (topics
        from :func:`unique_topic_name` do that).
    ``local_registry`` (function)
        a started :class:`~connect_runtime.testing.local_registry.LocalRegistry` of the test's own (own
        data dir, own port), for tests that stop and restart the registry: ``stop()``, then ``start()``
        serves the same schemas and ids on the same ``url``. Stopped at the end of the test.
    ``registry_basic_auth`` (function)
        a :class:`~connect_runtime.testing.registry_proxy.BasicAuthProxy` in front of
        ``schema_registry_url``: its ``url`` answers 401 unless the request logs in (HTTP Basic) with its
        ``user`` and ``password`` (``user_info`` is ``basic.auth.user.info``); ``delay_s`` slows it down.
    ``connect_group_id`` (function)
        a fresh ``group.id`` for this test's workers (``connect-<random>``).
    ``worker_factory`` (function)
        a :class:`~connect_runtime.testing.cluster.WorkerGroup` of ``connect_group_id`` on
        ``kafka_bootstrap``: ``worker_factory(eos=..., extra=..., env=..., port=..., ready=...)``
        starts one more worker of the group and returns its
        :class:`~connect_runtime.testing.cluster.WorkerProcess`; ``worker_factory.start(n)`` starts
        ``n`` ready ones.
    ``connect_worker`` (function)
        one ready worker of ``worker_factory``; settings come from the test's
        ``@pytest.mark.connect_worker(eos=..., extra=..., env=...)`` marker, e.g.
        ``extra=plugin_path(Path(__file__).parent / "plugins")`` for your plugins.
    ``connect_client`` (function)
        a :class:`~connect_runtime.testing.connect_client.ConnectClient` of ``connect_worker``.
    ``connect_cluster`` (function)
        a :class:`~connect_runtime.testing.cluster.WorkerGroup` of its own group whose workers detect a
        dead member within seconds (:data:`~connect_runtime.testing.cluster.FAST_FAILOVER`), for tests
        that kill workers: ``connect_cluster.start(3)``, or ``connect_cluster()`` for one more.
    ``network_faults`` (function)
        a :class:`~connect_runtime.testing.network_faults.NetworkFaults`: ``cage(worker)`` before the
        worker starts, then ``cut(cage)``, ``blackhole(cage)``, ``delay(cage, ms)`` and ``heal(cage)`` of
        its connections to the brokers (``peers=True``: to its peers' REST ports) while its process and
        REST port stay up. Needs root, ``iptables`` and cgroup v2: a machine without them fails the test,
        naming what is missing. Its rules and cgroups are removed at the end of the test, and what still
        runs in the cgroups is killed.
    ``spark_cluster`` (session)
        a :class:`~connect_runtime.testing.spark_cluster.LocalSparkCluster` (a Spark standalone
        master and 2 workers of 1 core and 1g each on 127.0.0.1 and, on Linux, 127.0.0.2: two hosts
        for Spark, so that speculative tasks can run; from the installed pyspark; needs
        Java 17+), started the first time a test asks for it and stopped, executors included, at the
        end of the session. Submit with its ``submit_command()`` and ``submit_env()``.

    A session cleans up even when it is killed: SIGTERM ends it like Ctrl-C (the fixtures' finalizers
    stop the broker, the cluster and the workers), and a watchdog process kills whatever the session
    started (children and their descendants, found by :data:`SESSION_ENV` in their environment) once
    the pytest process is gone, SIGKILL included.

    The worker fixtures clean up after themselves: at the end of the test every worker they started
    is killed together with every process it started; when the test fails, the tail of each
    worker's log (with the log's path) is added to the failure report, and each running worker then
    appends a dump of its threads to its log file.

Helpers
    :func:`new_topic` creates a topic and waits until it is usable; :func:`unique_topic_name` makes
    a fresh name. Reading topics, offsets and sequences: see :mod:`connect_runtime.testing`.

Example::

    import pytest
    from connect_runtime.testing.pytest_plugin import new_topic

    @pytest.mark.kafka
    def test_my_source(kafka_bootstrap: str) -> None:
        topic = new_topic(kafka_bootstrap, partitions=3)
        ...
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import uuid
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import Any, Protocol, TypeVar

import pytest

from connect_runtime.testing.cluster import FAST_FAILOVER, WorkerGroup, WorkerProcess
from connect_runtime.testing.connect_client import ConnectClient
from connect_runtime.testing.launcher import LauncherError
from connect_runtime.testing.local_kafka import KAFKA_VERSION_ENV, SASL_LISTENER, LocalKafka, session_kafka_version
from connect_runtime.testing.local_kafka_cluster import KafkaCluster, LocalKafkaCluster
from connect_runtime.testing.local_registry import LocalRegistry
from connect_runtime.testing.network_faults import NetworkFaults, NetworkFaultsUnavailable
from connect_runtime.testing.reaper import start_reaper
from connect_runtime.testing.registry_proxy import BasicAuthProxy
from connect_runtime.testing.spark_cluster import LocalSparkCluster
from connect_runtime.testing.topics import close_admin_clients, new_topic, unique_topic_name

__all__ = ["BOOTSTRAP_ENV", "KAFKA_VERSION_ENV", "new_topic", "unique_topic_name"]

BOOTSTRAP_ENV = "KAFKA_BOOTSTRAP_SERVERS"
"""Environment variable naming an existing cluster to use instead of a local broker."""

CLUSTER_BOOTSTRAP_ENV = "KAFKA_CLUSTER_BOOTSTRAP_SERVERS"
"""Environment variable naming an existing multi-broker cluster for the ``kafka_cluster`` fixture."""

SESSION_ENV = "CONNECT_RUNTIME_TEST_SESSION"
"""Environment variable marking every process a test session starts (a token of that session)."""

_LOCAL_KAFKA = pytest.StashKey[LocalKafka]()
_WORKER_GROUPS = pytest.StashKey[list[WorkerGroup]]()
#: Lines of each worker's log added to the report of a failed test.
LOG_TAIL_LINES = 80

_reaper: subprocess.Popen[bytes] | None = None
_terminating = False


def pytest_configure(config: pytest.Config) -> None:
    """Register the plugin's markers (so ``--strict-markers`` accepts them)."""
    config.addinivalue_line("markers", "kafka: needs a real Kafka broker (the kafka_bootstrap fixture)")
    config.addinivalue_line("markers", "registry: needs a real schema registry (a local one is started for it)")
    config.addinivalue_line("markers", "spark: runs real PySpark (e.g. on the spark_cluster fixture)")
    config.addinivalue_line("markers", "connect_worker(eos='enabled', extra=None, env=None): settings of the "
                                       "connect_worker fixture's worker")


def pytest_sessionstart(session: pytest.Session) -> None:
    """Make a killed session end the processes it started (see the module's docstring)."""
    global _reaper, _terminating
    if _reaper is None:  # once per process, also when sessions nest in it
        os.environ[SESSION_ENV] = uuid.uuid4().hex
        _reaper = start_reaper(SESSION_ENV, os.environ[SESSION_ENV])
    _terminating = False
    if threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
        signal.signal(signal.SIGTERM, _exit_on_sigterm)


def pytest_unconfigure(config: pytest.Config) -> None:
    """Give SIGTERM back its default (a session run inside a longer-lived process)."""
    if threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGTERM) is _exit_on_sigterm:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _exit_on_sigterm(signum: int, frame: object) -> None:
    global _terminating
    if _terminating:  # a second SIGTERM must not cut the finalizers of the first short
        return
    _terminating = True
    # KeyboardInterrupt, as Ctrl-C: pytest.exit() raises an Exception, which any `except Exception`
    # the signal lands in (a polling loop, a client library) would swallow, and the session would go on.
    raise KeyboardInterrupt("terminated by SIGTERM")


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    """A session ended by SIGTERM exits 143 (128 + SIGTERM), as a process killed by it would."""
    if _terminating:
        session.exitstatus = 128 + signal.SIGTERM


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """On a failed set-up or test, put the tails of the worker fixtures' logs into the report."""
    report = yield
    groups = item.stash.get(_WORKER_GROUPS, [])
    if report.failed and report.when in ("setup", "call") and groups:
        for group in groups:
            for title, text in group.failure_reports(LOG_TAIL_LINES):
                report.sections.append((f"Captured {title}", text))
    return report


@pytest.fixture(scope="session")
def kafka_bootstrap(tmp_path_factory: pytest.TempPathFactory, pytestconfig: pytest.Config) -> Iterator[str]:
    """``bootstrap.servers`` of a real Kafka broker for the whole test session.

    Uses ``$KAFKA_BOOTSTRAP_SERVERS`` when set (the cluster is left alone); otherwise starts a
    local single-node broker (of release ``$CONNECT_RUNTIME_KAFKA_VERSION``, else the default) on a free
    port in a temporary data dir and stops it when the session ends.
    """
    external = os.environ.get(BOOTSTRAP_ENV, "").strip()
    if external:
        try:
            yield external
        finally:
            close_admin_clients(external)
        return
    with _started(_local_kafka(tmp_path_factory), "a local Kafka broker") as kafka:
        bootstrap = kafka.bootstrap
        assert bootstrap is not None  # recorded by start()
        pytestconfig.stash[_LOCAL_KAFKA] = kafka
        try:
            yield bootstrap
        finally:
            del pytestconfig.stash[_LOCAL_KAFKA]
            close_admin_clients(bootstrap)


@pytest.fixture(scope="session")
def kafka_sasl_bootstrap(kafka_bootstrap: str, pytestconfig: pytest.Config) -> str:
    """``bootstrap.servers`` of the session broker's SASL_PLAINTEXT listener (PLAIN mechanism)."""
    kafka = pytestconfig.stash.get(_LOCAL_KAFKA, None)
    sasl = kafka.sasl_bootstrap if kafka is not None else None
    if sasl is None:
        pytest.fail(f"this test needs a {SASL_LISTENER} listener with the PLAIN mechanism, which only the "
                    f"broker the plugin starts has; unset {BOOTSTRAP_ENV} to run it", pytrace=False)
    return sasl


@pytest.fixture(scope="session")
def kafka_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KafkaCluster]:
    """A three-broker Kafka (replication factor 3, ``min.insync.replicas=2``) for the whole session.

    Uses ``$KAFKA_CLUSTER_BOOTSTRAP_SERVERS`` when set (the cluster is left alone; ``kill`` and ``restart``
    then raise); otherwise starts a local three-node cluster in a temporary data dir and stops it when
    the session ends.
    """
    external = os.environ.get(CLUSTER_BOOTSTRAP_ENV, "").strip()
    if external:
        try:
            yield KafkaCluster(external)
        finally:
            close_admin_clients(external)
        return
    local = _local_kafka_cluster(tmp_path_factory)
    with _started(local, "a local three-broker Kafka cluster") as cluster:
        bootstrap = cluster.bootstrap
        assert bootstrap is not None  # recorded by start()
        yield KafkaCluster(bootstrap, cluster)


def _local_kafka(tmp_path_factory: pytest.TempPathFactory) -> LocalKafka:
    return LocalKafka(tmp_path_factory.mktemp("local-kafka"), kafka_version=_session_kafka_version())


def _local_kafka_cluster(tmp_path_factory: pytest.TempPathFactory) -> LocalKafkaCluster:
    return LocalKafkaCluster(tmp_path_factory.mktemp("local-kafka-cluster"), kafka_version=_session_kafka_version())


def _session_kafka_version() -> str:
    """:func:`~connect_runtime.testing.local_kafka.session_kafka_version`; a bad value fails the tests
    that need a broker with its one-line reason rather than a traceback."""
    try:
        return session_kafka_version()
    except LauncherError as exc:
        pytest.fail(f"${KAFKA_VERSION_ENV}: {exc.message}", pytrace=False)


#: A schema registry's Confluent-compatible URL; the ``schema_registry_url`` fixture uses it when set.
REGISTRY_ENV = "SCHEMA_REGISTRY_URL"
_REGISTRY = "a local schema registry"


@pytest.fixture(scope="session")
def schema_registry_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``schema.registry.url`` of a real schema registry (its Confluent-compatible API) for the session.

    Uses ``$SCHEMA_REGISTRY_URL`` when set (the registry is left alone); otherwise starts a local
    registry on a free port in a temporary data dir and stops it when the session ends.
    """
    external = os.environ.get(REGISTRY_ENV, "").strip()
    if external:
        yield external
        return
    with _started(LocalRegistry(tmp_path_factory.mktemp("local-registry")), _REGISTRY) as registry:
        url = registry.url
        assert url is not None  # recorded by start()
        yield url


@pytest.fixture
def local_registry(tmp_path: Path) -> Iterator[LocalRegistry]:
    """A started local registry of this test's own, which the test may stop and start again (same port,
    same schemas and ids); stopped at the end of the test."""
    with _started(LocalRegistry(tmp_path / "local-registry"), _REGISTRY) as registry:
        yield registry


class _Service(Protocol):
    def start(self) -> str: ...
    def stop(self) -> bool: ...


_S = TypeVar("_S", bound=_Service)


@contextlib.contextmanager
def _started(service: _S, what: str) -> Iterator[_S]:
    """``service`` started (failing the test with the reason when it cannot), stopped on exit."""
    try:
        service.start()
    except LauncherError as exc:
        service.stop()
        pytest.fail(f"could not start {what}: {exc}", pytrace=False)
    try:
        yield service
    finally:
        service.stop()


@pytest.fixture
def registry_basic_auth(schema_registry_url: str) -> Iterator[BasicAuthProxy]:
    """``schema_registry_url`` behind HTTP Basic authentication: a proxy whose ``url`` demands its
    ``user`` and ``password`` (``user_info``), answering 401 otherwise. Closed at the end of the test."""
    with BasicAuthProxy(schema_registry_url) as proxy:
        yield proxy


@pytest.fixture(scope="session")
def spark_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalSparkCluster]:
    """A real Spark standalone cluster (master + 2 workers, 1 core and 1g each) for the session.

    Started lazily, only when a test asks for it (start-up takes 10-20 s), and stopped at the end of
    the session together with every executor and Python worker it launched. On Linux each worker is
    a host of its own (127.0.0.1, 127.0.0.2), so that speculative tasks can run.
    """
    cluster = LocalSparkCluster(tmp_path_factory.mktemp("local-spark"), workers=2, cores_per_worker=1,
                                worker_memory="1g", distinct_hosts=sys.platform.startswith("linux"))
    with _started(cluster, "a local Spark cluster"):
        yield cluster


def _worker_group(request: pytest.FixtureRequest, group: WorkerGroup) -> Iterator[WorkerGroup]:
    """Register ``group`` for failure reports, hand it to the test, close it afterwards."""
    request.node.stash.setdefault(_WORKER_GROUPS, []).append(group)
    try:
        yield group
    finally:
        group.close()


@pytest.fixture
def connect_group_id() -> str:
    """A fresh ``group.id`` for this test's Connect workers (their internal topics derive from it)."""
    return f"connect-{uuid.uuid4().hex[:8]}"


@pytest.fixture
def worker_factory(request: pytest.FixtureRequest, kafka_bootstrap: str, connect_group_id: str,
                   tmp_path: Path) -> Iterator[WorkerGroup]:
    """Start workers of one group (``connect_group_id``) on ``kafka_bootstrap``, files in ``tmp_path``.

    ``worker_factory(eos="enabled", extra=None, env=None, port=None, ready=False)`` starts one more and
    returns its :class:`~connect_runtime.testing.cluster.WorkerProcess`; ``worker_factory.start(n)``
    starts ``n`` and waits until they are ready. All are killed at the end of the test (with their
    logs in the report when it failed).
    """
    yield from _worker_group(request, WorkerGroup(kafka_bootstrap, tmp_path, connect_group_id))


@pytest.fixture
def connect_worker(request: pytest.FixtureRequest, worker_factory: WorkerGroup) -> WorkerProcess:
    """One ready worker of ``worker_factory``, configured by the test's ``connect_worker`` marker.

    ``@pytest.mark.connect_worker(eos="enabled", extra={...}, env={...})`` (all optional).
    """
    marker = request.node.get_closest_marker("connect_worker")
    settings: dict[str, Any] = dict(marker.kwargs) if marker is not None else {}
    return worker_factory(**settings, ready=True)


@pytest.fixture
def connect_client(connect_worker: WorkerProcess, worker_factory: WorkerGroup) -> ConnectClient:
    """A :class:`~connect_runtime.testing.connect_client.ConnectClient` of ``connect_worker``."""
    return worker_factory.client(connect_worker)


@pytest.fixture
def connect_cluster(request: pytest.FixtureRequest, kafka_bootstrap: str, tmp_path: Path) -> Iterator[WorkerGroup]:
    """Workers of one group of their own that fail over fast
    (:data:`~connect_runtime.testing.cluster.FAST_FAILOVER` under each worker's ``extra``).

    ``connect_cluster.start(3)`` starts three ready workers; ``connect_cluster(eos=..., extra=...,
    env=...)`` one more, not waited for. All are killed at the end of the test.
    """
    group = WorkerGroup(kafka_bootstrap, tmp_path, f"cluster-{uuid.uuid4().hex[:8]}", defaults=FAST_FAILOVER)
    yield from _worker_group(request, group)


@pytest.fixture
def network_faults() -> Iterator[NetworkFaults]:
    """Network faults for workers caged by the test (see :mod:`connect_runtime.testing.network_faults`);
    every rule, cgroup and process left in one is removed at the end of the test."""
    try:
        faults = NetworkFaults()
    except NetworkFaultsUnavailable as exc:
        pytest.fail(str(exc), pytrace=False)
    with faults:
        yield faults
