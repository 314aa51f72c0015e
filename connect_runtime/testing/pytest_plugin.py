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
        fetch the jars into ``~/.cache/connect-runtime``) and stopped at its end.
    ``kafka_sasl_bootstrap`` (session)
        ``bootstrap.servers`` of the same local broker's SASL_PLAINTEXT listener (PLAIN mechanism; log
        in as :data:`~connect_runtime.testing.local_kafka.SASL_USERNAME` with
        :data:`~connect_runtime.testing.local_kafka.SASL_PASSWORD`). A cluster named by
        ``$KAFKA_BOOTSTRAP_SERVERS`` has no such listener that the plugin knows of: a test asking for
        this fixture then fails, saying so, rather than being skipped.
    ``topic_name`` (function)
        a unique, valid topic name derived from the test's name; nothing is created.
    ``spark_cluster`` (session)
        a :class:`~connect_runtime.testing.spark_cluster.LocalSparkCluster` (a Spark standalone
        master and 2 workers of 1 core and 1g each on 127.0.0.1 and, on Linux, 127.0.0.2: two hosts
        for Spark, so that speculative tasks can run; from the installed pyspark; needs
        Java 17+), started the first time a test asks for it and stopped, executors included, at the
        end of the session. Submit with its ``submit_command()`` and ``submit_env()``.

Helpers
    :func:`new_topic` creates a topic and waits until it is usable.

Example::

    import pytest
    from connect_runtime.testing.pytest_plugin import new_topic

    @pytest.mark.kafka
    def test_my_source(kafka_bootstrap: str) -> None:
        topic = new_topic(kafka_bootstrap, partitions=3)
        ...
"""

from __future__ import annotations

import os
import re
import sys
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from connect_runtime.testing.local_kafka import SASL_LISTENER, LocalKafka, LocalKafkaError
from connect_runtime.testing.spark_cluster import LocalSparkCluster, LocalSparkError

BOOTSTRAP_ENV = "KAFKA_BOOTSTRAP_SERVERS"
"""Environment variable naming an existing cluster to use instead of a local broker."""

_MAX_TOPIC_LEN = 249
_LOCAL_KAFKA = pytest.StashKey[LocalKafka]()
_INVALID_TOPIC_CHARS = re.compile(r"[^a-zA-Z0-9._-]+")


def pytest_configure(config: pytest.Config) -> None:
    """Register the ``kafka`` and ``spark`` markers (so ``--strict-markers`` accepts it)."""
    config.addinivalue_line("markers", "kafka: needs a real Kafka broker (the kafka_bootstrap fixture)")
    config.addinivalue_line("markers", "spark: runs real PySpark (e.g. on the spark_cluster fixture)")


def unique_topic_name(prefix: str = "test") -> str:
    """A fresh topic name: ``prefix`` (sanitized) plus a random suffix, at most 249 characters."""
    base = _INVALID_TOPIC_CHARS.sub("-", prefix).strip("-.") or "test"
    suffix = uuid.uuid4().hex[:12]
    return f"{base[: _MAX_TOPIC_LEN - len(suffix) - 1]}-{suffix}"


def new_topic(
    bootstrap: str,
    name: str | None = None,
    partitions: int = 1,
    *,
    replication_factor: int = -1,
    config: dict[str, str] | None = None,
    timeout: float = 30.0,
) -> str:
    """Create a topic and wait until every partition has a leader; return its name.

    ``name`` defaults to a fresh unique name. ``replication_factor=-1`` uses the broker default;
    ``config`` holds topic-level configs (e.g. ``{"cleanup.policy": "compact"}``). Raises
    ``RuntimeError`` when the topic cannot be created or does not become ready in ``timeout`` s.
    """
    from confluent_kafka.admin import AdminClient
    from confluent_kafka.cimpl import NewTopic

    topic = name or unique_topic_name()
    admin: Any = AdminClient({"bootstrap.servers": bootstrap})
    futures = admin.create_topics(
        [
            NewTopic(
                topic, num_partitions=partitions, replication_factor=replication_factor, config=config or {}
            )
        ],
        operation_timeout=timeout,
        request_timeout=timeout,
    )
    try:
        futures[topic].result(timeout=timeout)
    except Exception as exc:
        raise RuntimeError(f"could not create topic {topic!r} on {bootstrap}: {exc}") from exc
    deadline = time.monotonic() + timeout
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise RuntimeError(
                f"topic {topic!r} on {bootstrap} had no leader for all partitions in {timeout:g} s"
            )
        try:
            md = admin.list_topics(topic=topic, timeout=min(5.0, remaining))
            tmd = md.topics.get(topic)
            if (
                tmd is not None
                and tmd.error is None
                and len(tmd.partitions) == partitions
                and all(p.leader >= 0 and p.error is None for p in tmd.partitions.values())
            ):
                return topic
        except Exception:  # KafkaException while metadata propagates; retry until the deadline
            pass
        time.sleep(0.1)


@pytest.fixture(scope="session")
def kafka_bootstrap(tmp_path_factory: pytest.TempPathFactory, pytestconfig: pytest.Config) -> Iterator[str]:
    """``bootstrap.servers`` of a real Kafka broker for the whole test session.

    Uses ``$KAFKA_BOOTSTRAP_SERVERS`` when set (the cluster is left alone); otherwise starts a
    local single-node broker on a free port in a temporary data dir and stops it when the session
    ends.
    """
    external = os.environ.get(BOOTSTRAP_ENV, "").strip()
    if external:
        yield external
        return
    kafka = LocalKafka(tmp_path_factory.mktemp("local-kafka"))
    try:
        bootstrap = kafka.start()
    except LocalKafkaError as exc:
        kafka.stop()
        pytest.fail(f"could not start a local Kafka broker: {exc}", pytrace=False)
    pytestconfig.stash[_LOCAL_KAFKA] = kafka
    try:
        yield bootstrap
    finally:
        del pytestconfig.stash[_LOCAL_KAFKA]
        kafka.stop()


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
def spark_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalSparkCluster]:
    """A real Spark standalone cluster (master + 2 workers, 1 core and 1g each) for the session.

    Started lazily, only when a test asks for it (start-up takes 10-20 s), and stopped at the end of
    the session together with every executor and Python worker it launched. On Linux each worker is
    a host of its own (127.0.0.1, 127.0.0.2), so that speculative tasks can run.
    """
    cluster = LocalSparkCluster(tmp_path_factory.mktemp("local-spark"), workers=2, cores_per_worker=1,
                                worker_memory="1g", distinct_hosts=sys.platform.startswith("linux"))
    try:
        cluster.start()
    except LocalSparkError as exc:
        cluster.stop()
        pytest.fail(f"could not start a local Spark cluster: {exc}", pytrace=False)
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture
def topic_name(request: pytest.FixtureRequest) -> str:
    """A unique topic name for this test (derived from the test name); the topic is not created."""
    return unique_topic_name(request.node.name)
