"""A real three-node Apache Kafka cluster on 127.0.0.1, shaped like production: replication factor 3,
``min.insync.replicas=2``.

Each node is a :class:`~connect_runtime.testing.local_kafka.LocalKafka` broker of its own (combined
broker + controller, its own ports, ``log/`` and ``logs/``) in ``node-<id>/`` under the cluster's data
dir, so one node can be killed and started again while the others run. Combined nodes rather than
three brokers beside a three-controller quorum: half the JVMs (three, about 1.3 GiB, ready in 5-9 s
on a small machine), and a 3-voter quorum survives one node down either way; the price is that killing
the node that is also the active controller adds a controller election (about 3 s) to the failover.

The quorum is dynamic (KIP-853): every node is formatted with the same cluster id and the same
``--initial-controllers`` (each voter's id, controller port and directory id), and finds the others
through ``controller.quorum.bootstrap.servers``. ``broker.session.timeout.ms=3000`` (with 500 ms
heartbeats) fences a killed node within 3 s instead of 9 s, which moves its partition leaders and
transaction coordinators that much sooner.

``cluster.json`` in the data dir records what a restart needs: the cluster id, the node count, the Kafka
release and each node's directory id; the ports are in each node's own ``ports.json``.

Stopping SIGTERMs all nodes together: stopped one after another, the last node has no quorum left to
approve its controlled shutdown and hangs for minutes before giving up.

Library use::

    cluster = LocalKafkaCluster(Path("/tmp/kafka3"), brokers=3)
    bootstrap = cluster.start()        # "127.0.0.1:P1,127.0.0.1:P2,127.0.0.1:P3"
    cluster.kill(2)                    # SIGKILL node 2
    cluster.restart(2)                 # start it again; returns once every partition is fully in sync
    cluster.stop_node(2)               # SIGTERM node 2: a controlled shutdown, its leaderships handed over
    cluster.restart(2)
    cluster.stop()

Command line: ``connect-runtime local-kafka start --brokers 3``, then ``status``, ``stop``,
``kill NODE``, ``stop-node NODE`` and ``restart NODE`` (see :mod:`connect_runtime.testing.local_kafka`).
"""

from __future__ import annotations

import argparse
import logging
import signal
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

from connect_runtime.testing.java_service import find_java
from connect_runtime.testing.launcher import HOST, LocalService, free_ports, send_signal
from connect_runtime.testing.local_kafka import (
    DEFAULT_START_TIMEOUT,
    DEFAULT_STOP_TIMEOUT,
    KAFKA_VERSION,
    MIN_JAVA_VERSION,
    LocalKafka,
    LocalKafkaError,
    LocalKafkaStatus,
    _random_cluster_id,
    ensure_jars,
    resolve_kafka_version,
)
from connect_runtime.testing.topics import admin_client, close_admin_clients
from connect_runtime.testing.waiting import wait_until

logger = logging.getLogger(__name__)

CLUSTER_BROKERS = 3
"""The number of nodes a cluster has (the replication factor of its topics)."""

MIN_INSYNC_REPLICAS = 2
"""The cluster's ``min.insync.replicas``: one node may be down and ``acks=all`` writes still succeed."""

TRANSACTION_STATE_TOPIC = "__transaction_state"

_STATE_FILE = "cluster.json"

T = TypeVar("T")


class _ClusterNode(LocalKafka):
    """One node of a :class:`LocalKafkaCluster`: a combined broker + controller voting in the quorum."""

    # Three JVMs share the machine; 256 MiB holds the log cleaner's default 128 MiB dedupe buffer.
    jvm_opts = ("-Xmx256m", "-Xms64m", "-XX:+UseG1GC", "-Djava.awt.headless=true")

    def __init__(self, data_dir: Path, node_id: int, cluster: LocalKafkaCluster) -> None:
        super().__init__(data_dir, cache_dir=cluster.cache_dir, kafka_version=cluster.kafka_version)
        self.node_id = node_id
        self._cluster = cluster

    def _server_properties(self, broker_port: int, sasl_port: int, controller_port: int) -> dict[str, str]:
        props = super()._server_properties(broker_port, sasl_port, controller_port)
        del props["controller.quorum.voters"]
        rf, isr = str(CLUSTER_BROKERS), str(MIN_INSYNC_REPLICAS)
        props.update({
            "controller.quorum.bootstrap.servers": self._cluster.quorum_bootstrap(),
            "advertised.listeners": f"{props['advertised.listeners']},CONTROLLER://{HOST}:{controller_port}",
            "default.replication.factor": rf,
            "min.insync.replicas": isr,
            "offsets.topic.replication.factor": rf,
            "transaction.state.log.replication.factor": rf,
            "transaction.state.log.min.isr": isr,
            "share.coordinator.state.topic.replication.factor": rf,
            "share.coordinator.state.topic.min.isr": isr,
            "broker.session.timeout.ms": "3000",
            "broker.heartbeat.interval.ms": "500",
        })
        return props

    def _format_args(self) -> list[str]:
        return ["-t", self._cluster.cluster_id, "--initial-controllers", self._cluster.initial_controllers()]


class LocalKafkaCluster(LocalService):
    """Three KRaft nodes on 127.0.0.1 owning ``data_dir`` (see the module docstring).

    Like :class:`~connect_runtime.testing.local_kafka.LocalKafka` the nodes run detached and keep
    their data across :meth:`stop` and :meth:`start`; any other object on the same data dir can
    stop them, kill a node or restart it.
    """

    command = "local-kafka"
    title = "Kafka cluster"
    description = f"Run a local three-node Apache Kafka cluster (KRaft) on {HOST} (default Kafka {KAFKA_VERSION})."
    default_data_dir = Path(".local-kafka")
    default_start_timeout = DEFAULT_START_TIMEOUT
    default_stop_timeout = DEFAULT_STOP_TIMEOUT
    state_file_name = _STATE_FILE

    def __init__(self, data_dir: Path | str, brokers: int | None = None, *, cache_dir: Path | None = None,
                 kafka_version: str | None = None) -> None:
        """Prepare (but do not start) the cluster of ``data_dir``: ``brokers`` nodes (only 3 is supported;
        without it, what the data dir records, else 3) of Apache Kafka ``kafka_version`` (without it, what
        the data dir records, else :data:`~connect_runtime.testing.local_kafka.KAFKA_VERSION`); jars go to
        ``cache_dir``."""
        super().__init__(data_dir)
        self.cache_dir = cache_dir
        self.kafka_version = resolve_kafka_version(kafka_version, self._read_state().get("kafka_version"),
                                                   self.data_dir)
        """The Apache Kafka release the nodes run."""
        recorded = self._read_state().get("brokers")
        count = brokers if brokers is not None else recorded if isinstance(recorded, int) else CLUSTER_BROKERS
        if count != CLUSTER_BROKERS:
            raise LocalKafkaError(f"a local Kafka has 1 or {CLUSTER_BROKERS} brokers, not {count}")
        if isinstance(recorded, int) and recorded != count:
            raise LocalKafkaError(f"{self.data_dir} holds a cluster of {recorded} brokers, not {count}")
        self.node_ids: tuple[int, ...] = tuple(range(1, count + 1))
        """The nodes' ids (``node.id``): 1, 2, 3."""
        self._controller_ports: dict[int, int] = {}
        self._nodes = {node_id: _ClusterNode(self.data_dir / f"node-{node_id}", node_id, self)
                       for node_id in self.node_ids}

    @classmethod
    def holds_cluster(cls, data_dir: Path | str) -> bool:
        """Whether ``data_dir`` is (or was) the data dir of a cluster."""
        return (Path(data_dir).expanduser() / _STATE_FILE).is_file()

    @classmethod
    def recorded_brokers(cls, data_dir: Path | str) -> int | None:
        """The node count the cluster of ``data_dir`` records, if any."""
        return cls(data_dir)._read_state().get("brokers")

    # -- addresses --------------------------------------------------------------------------------
    def node(self, node_id: int) -> LocalKafka:
        """The broker of node ``node_id``; raises :class:`LocalKafkaError` for an unknown id."""
        try:
            return self._nodes[node_id]
        except KeyError:
            raise LocalKafkaError(f"the cluster in {self.data_dir} has nodes {list(self.node_ids)}, "
                                  f"not {node_id}") from None

    @property
    def bootstrap(self) -> str | None:
        """``bootstrap.servers`` naming every node (running or not), once ports are recorded."""
        addresses = [node.bootstrap for node in self._nodes.values()]
        return None if None in addresses else ",".join(str(a) for a in addresses)

    @property
    def cluster_id(self) -> str:
        return str(self._read_state()["cluster_id"])

    def quorum_bootstrap(self) -> str:
        """``controller.quorum.bootstrap.servers``: every node's controller listener."""
        return ",".join(f"{HOST}:{self._controller_port(n)}" for n in self.node_ids)

    def initial_controllers(self) -> str:
        """``StorageTool format --initial-controllers``: ``id@host:port:directory-id`` of every voter."""
        dirs = self._read_state()["directory_ids"]
        return ",".join(f"{n}@{HOST}:{self._controller_port(n)}:{dirs[str(n)]}" for n in self.node_ids)

    def _controller_port(self, node_id: int) -> int:
        # Read once: the nodes rewrite their ports.json while they start, concurrently.
        if node_id not in self._controller_ports:
            self._controller_ports[node_id] = int(self._nodes[node_id]._read_ports()["controller_port"])
        return self._controller_ports[node_id]

    # -- lifecycle --------------------------------------------------------------------------------
    def start(self, *, timeout: float | None = None) -> str:
        """Start the nodes that do not run yet and return ``bootstrap.servers`` of all of them.

        The first start chooses the ports and formats every node; later starts reuse both. Blocks
        until every node is registered with the quorum (at most ``timeout`` seconds). On failure the
        nodes are stopped and :class:`LocalKafkaError` is raised.
        """
        timeout = self.default_start_timeout if timeout is None else timeout
        with self._locked():
            self._prepare()
            # Each node waits for a quorum of the others: they must start together.
            try:
                self._on_all(lambda node: node.start(timeout=timeout))
                self._wait_registered(self.node_ids, timeout)
            except BaseException:
                self._stop_locked(self.default_stop_timeout)
                raise
            bootstrap = self.bootstrap
            assert bootstrap is not None, "_prepare records the ports"
            return bootstrap

    def kill(self, node_id: int) -> bool:
        """SIGKILL node ``node_id`` (a crash: no controlled shutdown); True when it was running."""
        node = self.node(node_id)
        with self._locked():
            pid = node._running_pid()
            if pid is None:
                return False
            logger.info("killing node %d (pid %d) in %s", node_id, pid, self.data_dir)
            send_signal(pid, signal.SIGKILL)
            if node._wait_gone([pid], 30.0):
                raise LocalKafkaError(f"node {node_id} (pid {pid}) in {self.data_dir} survived SIGKILL")
            node.pid_file.unlink(missing_ok=True)
            node._reap()
            return True

    def stop_node(self, node_id: int, *, timeout: float | None = None) -> bool:
        """Stop node ``node_id`` cleanly, as a rolling restart does: SIGTERM, and wait until it has exited
        (SIGKILL after ``timeout`` seconds). True when it was running.

        The node's controlled shutdown moves its partition leaderships to the others first, which needs
        the controller quorum of the other nodes: with none of them running it would hang for minutes,
        so this refuses (stop the whole cluster with :meth:`stop`).
        """
        timeout = self.default_stop_timeout if timeout is None else timeout
        node = self.node(node_id)
        with self._locked():
            if node._running_pid() is None:
                return False
            if not any(other._running_pid() is not None for n, other in self._nodes.items() if n != node_id):
                raise LocalKafkaError(f"node {node_id} is the last running node of the cluster in {self.data_dir}; "
                                      "stop the cluster instead")
            logger.info("stopping node %d in %s", node_id, self.data_dir)
            return node.stop(timeout)

    def restart(self, node_id: int, *, timeout: float | None = None) -> str:
        """Start node ``node_id`` again (a no-op when it runs) on its ports and data, and wait until it has
        rejoined: registered with the controller and every partition's in-sync replicas complete again.
        Returns the node's address."""
        timeout = self.default_start_timeout if timeout is None else timeout
        node = self.node(node_id)
        with self._locked():
            if not (self.data_dir / _STATE_FILE).is_file():
                raise LocalKafkaError(f"no Kafka cluster was started in {self.data_dir}")
            if node._running_pid() is None:
                self._wait_fenced(node_id, timeout)
            address = node.start(timeout=timeout)
            self._wait_registered(self.node_ids, timeout)
            bootstrap = self.bootstrap
            assert bootstrap is not None
            self._wait(lambda: not under_replicated(bootstrap), timeout,
                       f"bring every partition's replicas back in sync after node {node_id} restarted")
            return address

    def status(self) -> dict[int, LocalKafkaStatus]:
        """Each node's status, by node id."""
        return {node_id: node.status() for node_id, node in self._nodes.items()}

    def _before_stop(self) -> None:
        bootstrap = self.bootstrap
        if bootstrap is not None:
            close_admin_clients(bootstrap)

    def _stop_locked(self, timeout_s: float) -> bool:
        return any(self._on_all(lambda node: node.stop(timeout_s)))

    # -- internals --------------------------------------------------------------------------------
    def _prepare(self) -> None:
        """On the first start: the cluster id, each node's directory id and ports, recorded."""
        # Fetched once here rather than by three nodes at once, and before the version is recorded: a
        # release Maven Central does not serve leaves the data dir free for another.
        find_java(MIN_JAVA_VERSION, f"Kafka {self.kafka_version}", LocalKafkaError)
        ensure_jars(self.cache_dir, version=self.kafka_version)
        state = self._read_state()
        if "cluster_id" not in state:
            state = {"brokers": len(self.node_ids), "cluster_id": _random_cluster_id(),
                     "kafka_version": self.kafka_version,
                     "directory_ids": {str(n): _random_cluster_id() for n in self.node_ids}}
            ports = free_ports(3 * len(self.node_ids))
            for i, node in enumerate(self._nodes.values()):
                node.data_dir.mkdir(parents=True, exist_ok=True)
                node._write_state(dict(zip(("port", "sasl_port", "controller_port"), ports[3 * i:3 * i + 3],
                                           strict=True)))
            self._write_state(state)
        elif "kafka_version" not in state:  # recorded for the restarts and status to come
            self._write_state({**state, "kafka_version": self.kafka_version})
        self.initial_controllers()  # reads every recorded port before the nodes start rewriting them

    def _on_all(self, action: Callable[[_ClusterNode], T]) -> list[T]:
        """``action`` on every node at once; the first failure is raised after all have finished."""
        with ThreadPoolExecutor(max_workers=len(self._nodes), thread_name_prefix="kafka-node") as pool:
            futures = [pool.submit(action, node) for node in self._nodes.values()]
        return [future.result() for future in futures]

    def _wait_fenced(self, node_id: int, timeout_s: float) -> None:
        """Wait until the controller has fenced a dead node: a node started again before that would be
        reported as registered, in sync, by the metadata of its previous life."""
        if not any(node._running_pid() is not None for n, node in self._nodes.items() if n != node_id):
            raise LocalKafkaError(f"no other node of the cluster in {self.data_dir} runs; start the cluster")
        bootstrap = self.bootstrap
        assert bootstrap is not None
        self._wait(lambda: node_id not in admin_client(bootstrap).list_topics(timeout=5).brokers, timeout_s,
                   f"fence the dead node {node_id}")

    def _wait_registered(self, node_ids: tuple[int, ...], timeout_s: float) -> None:
        bootstrap = self.bootstrap
        assert bootstrap is not None

        self._wait(lambda: set(node_ids) <= set(admin_client(bootstrap).list_topics(timeout=5).brokers),
                   timeout_s, f"list nodes {list(node_ids)} in its metadata")

    def _wait(self, condition: Callable[[], bool], timeout_s: float, what: str) -> None:
        """Poll ``condition``; :class:`LocalKafkaError` "the cluster did not <what> within ..." at the deadline."""
        try:
            wait_until(condition, timeout_s, interval_s=0.5, message=what)
        except AssertionError as exc:
            raise LocalKafkaError(f"the Kafka cluster in {self.data_dir} did not {what} within {timeout_s:g} s",
                                  str(exc)) from exc

    # -- command line -----------------------------------------------------------------------------
    def _cli_start(self, args: argparse.Namespace) -> str:
        return f"bootstrap.servers={self.start(timeout=args.timeout)}"

    def _cli_status(self) -> bool:
        """One line per node; True (exit 0) only when every node runs."""
        states = self.status()
        print(f"cluster of {len(states)} nodes (Kafka {self.kafka_version}) bootstrap.servers={self.bootstrap} "
              f"data dir {self.data_dir}")
        for node_id, state in states.items():
            print(f"node {node_id}: {state}")
        return all(state.running for state in states.values())

    def _cli_command(self, args: argparse.Namespace) -> int:
        if args.command == "kill":
            killed = self.kill(args.node)
            print(f"killed node {args.node}" if killed else f"node {args.node} was not running")
            return 0
        if args.command == "stop-node":
            stopped = self.stop_node(args.node)
            print(f"stopped node {args.node}" if stopped else f"node {args.node} was not running")
            return 0
        if args.command == "restart":
            print(f"node {args.node} rejoined on {self.restart(args.node)}")
            return 0
        return super()._cli_command(args)


# --------------------------------------------------------------------------------------------------
# who leads what


def under_replicated(bootstrap: str) -> list[tuple[str, int]]:
    """The partitions of ``bootstrap`` (internal topics included) whose in-sync replicas are fewer than
    their replicas."""
    metadata = admin_client(bootstrap).list_topics(timeout=10)
    return [(name, p.id) for name, topic in metadata.topics.items() for p in topic.partitions.values()
            if len(p.isrs) < len(p.replicas)]


def partition_leader(bootstrap: str, topic: str, partition: int = 0) -> int:
    """The node id leading ``topic``'s ``partition`` (-1 while it has no leader), from the metadata."""
    metadata = admin_client(bootstrap).list_topics(topic, timeout=10)
    found = metadata.topics.get(topic)
    if found is None or found.error is not None or partition not in found.partitions:
        raise LookupError(f"{bootstrap} has no partition {topic}-{partition}")
    leader: int = found.partitions[partition].leader
    return leader


def java_string_hash(text: str) -> int:
    """Java's ``String.hashCode()`` of ``text`` (UTF-16 code units, 32-bit wrap-around)."""
    h = 0
    data = text.encode("utf-16-be")
    for i in range(0, len(data), 2):
        h = (31 * h + int.from_bytes(data[i:i + 2], "big")) & 0xFFFFFFFF
    return h - (1 << 32) if h >= 1 << 31 else h


def transaction_coordinator(bootstrap: str, transactional_id: str) -> int:
    """The node id coordinating ``transactional_id``: the leader of its ``__transaction_state`` partition.

    confluent-kafka's admin client has no FindCoordinator for transactional ids, so this computes the
    partition as the broker does (``Utils.abs(transactionalId.hashCode()) % partitionCount``) and reads its
    leader from the metadata. The topic exists once a transactional producer has initialised.
    """
    metadata = admin_client(bootstrap).list_topics(TRANSACTION_STATE_TOPIC, timeout=10)
    topic = metadata.topics.get(TRANSACTION_STATE_TOPIC)
    if topic is None or topic.error is not None or not topic.partitions:
        raise LookupError(f"{bootstrap} has no {TRANSACTION_STATE_TOPIC} yet")
    h = java_string_hash(transactional_id)
    partition = 0 if h == -(1 << 31) else abs(h) % len(topic.partitions)
    leader: int = topic.partitions[partition].leader
    return leader


class KafkaCluster:
    """A multi-broker Kafka for a test (the ``kafka_cluster`` fixture): its ``bootstrap``, its
    ``node_ids``, and, on a cluster the toolkit started, :meth:`kill`, :meth:`stop_node` and :meth:`restart`
    of one node.

    On a cluster named by ``$KAFKA_CLUSTER_BOOTSTRAP_SERVERS`` the nodes are not ours to kill:
    :meth:`kill`, :meth:`stop_node` and :meth:`restart` raise :class:`RuntimeError` saying so.
    """

    def __init__(self, bootstrap: str, local: LocalKafkaCluster | None = None) -> None:
        self.bootstrap = bootstrap
        """``bootstrap.servers`` naming every node."""
        self.local = local
        """The cluster the toolkit started, None for an external one."""

    @property
    def node_ids(self) -> tuple[int, ...]:
        """The ids of the cluster's nodes (for an external cluster: those the metadata lists now)."""
        if self.local is not None:
            return self.local.node_ids
        return tuple(sorted(admin_client(self.bootstrap).list_topics(timeout=10).brokers))

    def kill(self, node_id: int) -> None:
        """SIGKILL node ``node_id``."""
        self._local("kill").kill(node_id)

    def stop_node(self, node_id: int, timeout_s: float = DEFAULT_STOP_TIMEOUT) -> None:
        """Stop node ``node_id`` cleanly (SIGTERM: it hands its leaderships over) and wait until it has exited."""
        self._local("stop_node").stop_node(node_id, timeout=timeout_s)

    def restart(self, node_id: int, timeout_s: float = DEFAULT_START_TIMEOUT) -> None:
        """Start node ``node_id`` again and wait until every partition's replicas are in sync again."""
        self._local("restart").restart(node_id, timeout=timeout_s)

    def partition_leader(self, topic: str, partition: int = 0) -> int:
        """The node leading ``topic``'s ``partition`` (-1 while none does)."""
        return partition_leader(self.bootstrap, topic, partition)

    def transaction_coordinator(self, transactional_id: str) -> int:
        """The node coordinating ``transactional_id`` (see :func:`transaction_coordinator`)."""
        return transaction_coordinator(self.bootstrap, transactional_id)

    def under_replicated(self) -> list[tuple[str, int]]:
        """The partitions whose in-sync replicas are not all their replicas."""
        return under_replicated(self.bootstrap)

    def _local(self, what: str) -> LocalKafkaCluster:
        if self.local is None:
            raise RuntimeError(f"{what} needs a cluster the test toolkit started; this one is external "
                               f"({self.bootstrap}): unset KAFKA_CLUSTER_BOOTSTRAP_SERVERS to run this test")
        return self.local
