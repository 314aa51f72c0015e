"""A real, single-node Apache Kafka broker for development and tests.

The broker is an official Apache Kafka 4.x release (Scala 2.13; :data:`KAFKA_VERSION` unless another is
asked for), fetched once from Maven Central with ``mvn`` into a cache directory of that version outside
the repository, and started as a detached ``java`` process in KRaft mode (combined broker + controller,
``node.id=1``) listening on 127.0.0.1 only.

Everything about one broker lives in its *data dir*:

``server.properties``, ``log4j2.properties``
    written on every start;
``ports.json``
    the broker, SASL and controller ports, chosen once and reused so that a restart (without an
    explicit port) gives the same ``bootstrap.servers`` and the same controller quorum; and the Kafka
    release, so that a restart runs the one that formatted the data;
``log/``
    the Kafka log dirs (formatted on first start, reused afterwards: a restart keeps the data);
``logs/server.log``, ``logs/stdout.log``
    the broker's log4j output and the JVM's stdout/stderr;
``kafka.pid``
    the pid of the running broker.

Besides its PLAINTEXT listener (the ``bootstrap.servers`` :meth:`LocalKafka.start` returns) the broker
has a SASL_PLAINTEXT listener with the PLAIN mechanism on a port of its own
(:attr:`LocalKafka.sasl_bootstrap`), where :data:`SASL_USERNAME` / :data:`SASL_PASSWORD` log in: it lets
tests check that SASL client settings reach every client.

Library use::

    kafka = LocalKafka(Path("/tmp/my-kafka"))
    bootstrap = kafka.start()          # "127.0.0.1:PORT"
    ...
    kafka.stop()

Command line (wired as ``connect-runtime local-kafka``)::

    connect-runtime local-kafka start [--port P] [--brokers N] [--kafka-version V] [--data-dir D]
    connect-runtime local-kafka status [--data-dir D]
    connect-runtime local-kafka stop [--data-dir D]
    connect-runtime local-kafka kill|stop-node|restart NODE [--data-dir D]

``--kafka-version`` picks the release (4.0.0 or newer: the properties are KRaft-only) on the first
start of a data dir; later commands on it use the recorded one. ``--brokers 3`` runs a three-node
cluster instead
(:class:`~connect_runtime.testing.local_kafka_cluster.LocalKafkaCluster`); ``kill``, ``stop-node`` and ``restart``
act on one of its nodes.

The data dir, its lock and the command line are those of every local service
(:mod:`connect_runtime.testing.launcher`).
"""

from __future__ import annotations

import argparse
import base64
import dataclasses
import logging
import os
import re
import subprocess
import sys
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, cast

from connect_runtime.testing.java_service import MavenRun, cache_root, fetch_once, find_java
from connect_runtime.testing.launcher import (
    HOST,
    LOG_TAIL_LINES,
    LauncherError,
    LocalService,
    ServiceStatus,
    SingleProcessService,
    accepts_connections,
    tail,
)
from connect_runtime.testing.launcher import free_port as free_port  # re-exported: callers import it from here
from connect_runtime.testing.launcher import port_in_use as port_in_use
from connect_runtime.testing.topics import close_admin_clients

if TYPE_CHECKING:
    from connect_runtime.testing.local_kafka_cluster import LocalKafkaCluster

logger = logging.getLogger(__name__)

KAFKA_VERSION = "4.1.1"
"""The Apache Kafka release a new local broker runs unless another is asked for (``--kafka-version``,
:data:`KAFKA_VERSION_ENV`). Not the newest: 4.3.0 to 4.4.0 can leave a hanging transaction behind when a
partition has no leader as a transaction ends (KAFKA-20734; a single broker's restart does it), which the
suite's broker-restart tests meet (docs/operations.md)."""

KAFKA_VERSION_ENV = "CONNECT_RUNTIME_KAFKA_VERSION"
"""Environment variable naming the release the test fixtures' and the benchmarks' local brokers run
(default :data:`KAFKA_VERSION`): the suite runs on another release without a code change."""

MIN_KAFKA_VERSION = (4, 0)
"""The oldest release a local broker runs: its properties are KRaft-only (no ZooKeeper mode, 4.0's
defaults)."""

SCALA_VERSION = "2.13"
"""The Scala binary version of the pinned broker artifact."""

LOG4J_VERSION = "2.24.3"
"""The log4j2 version used as the broker's logging backend."""

MIN_JAVA_VERSION = 17
"""Kafka 4.x brokers need Java 17 or newer."""

DEFAULT_DATA_DIR = Path(".local-kafka")
"""Default data dir of the command line, relative to the working directory."""

SASL_USERNAME = "connect"
"""The user the SASL_PLAINTEXT listener (PLAIN mechanism) accepts."""

SASL_PASSWORD = "connect-secret"
""":data:`SASL_USERNAME`'s password."""

SASL_LISTENER = "SASL_PLAINTEXT"
"""The name (and security protocol) of the broker's SASL listener."""

DEFAULT_START_TIMEOUT = 90.0
"""Seconds to wait for a starting broker to serve metadata."""

DEFAULT_STOP_TIMEOUT = 30.0
"""Seconds to wait after SIGTERM before the broker is killed."""

NODE_ID = 1

_JVM_OPTS = ["-Xmx512m", "-Xms256m", "-XX:+UseG1GC", "-Djava.awt.headless=true"]
_MAIN_CLASS = "kafka.Kafka"
_PORTS_FILE = "ports.json"
_PID_FILE = "kafka.pid"


class LocalKafkaError(LauncherError):
    """A local broker could not be fetched, started or stopped (``detail``: the broker log's tail)."""


@dataclass(frozen=True)
class LocalKafkaStatus(ServiceStatus):
    """The state of the broker of one data dir."""

    key: str = "bootstrap.servers"
    kafka_version: str | None = None
    """The Kafka release of the data dir."""

    @property
    def bootstrap(self) -> str | None:
        """``bootstrap.servers`` of the running broker."""
        return self.address

    def __str__(self) -> str:
        return f"{super().__str__()}; Kafka {self.kafka_version}" if self.kafka_version else super().__str__()


# --------------------------------------------------------------------------------------------------
# versions


def check_kafka_version(version: str) -> str:
    """``version`` when a local broker can run it (a release ``X.Y.Z``, 4.0.0 or newer); otherwise
    :class:`LocalKafkaError` saying why. Whether Maven Central serves it shows when the jars are fetched."""
    match = re.fullmatch(r"(\d+)\.(\d+)\.(\d+)", version)
    if match is None:
        raise LocalKafkaError(f"{version!r} is not an Apache Kafka release version (like {KAFKA_VERSION})")
    if (int(match[1]), int(match[2])) < MIN_KAFKA_VERSION:
        oldest = ".".join(map(str, MIN_KAFKA_VERSION))
        raise LocalKafkaError(f"Kafka {version} is too old: a local Kafka writes KRaft-only broker settings "
                              f"and needs {oldest}.0 or newer")
    return version


def session_kafka_version() -> str:
    """The release of the brokers the test fixtures and the benchmarks start: ``$CONNECT_RUNTIME_KAFKA_VERSION``
    when set, else :data:`KAFKA_VERSION`."""
    return check_kafka_version(os.environ.get(KAFKA_VERSION_ENV, "").strip() or KAFKA_VERSION)


def resolve_kafka_version(requested: str | None, recorded: object, data_dir: Path) -> str:
    """The release a data dir runs: ``requested``, which must match the one ``recorded`` there (the data was
    formatted by it), else the recorded one, else :data:`KAFKA_VERSION`."""
    if requested is None:
        return recorded if isinstance(recorded, str) else KAFKA_VERSION
    check_kafka_version(requested)
    if isinstance(recorded, str) and recorded != requested:
        raise LocalKafkaError(f"{data_dir} holds Kafka {recorded}, not {requested}; "
                              "use that version or another data dir")
    return requested


# --------------------------------------------------------------------------------------------------
# jars


def default_cache_dir(version: str = KAFKA_VERSION) -> Path:
    """Where the jars of broker release ``version`` are cached: ``$CONNECT_RUNTIME_CACHE/kafka-<version>``.

    Without ``CONNECT_RUNTIME_CACHE`` the base is ``~/.cache/connect-runtime`` (honouring
    ``XDG_CACHE_HOME``). The version is part of the path so that releases never share or reuse jars.
    """
    return cache_root() / f"kafka-{version}"


def broker_dependencies(version: str = KAFKA_VERSION) -> tuple[tuple[str, str, str], ...]:
    """The Maven artifacts (group, artifact, version) whose runtime classpath is broker release ``version``'s."""
    return (
        ("org.apache.kafka", f"kafka_{SCALA_VERSION}", version),
        ("org.apache.logging.log4j", "log4j-slf4j-impl", LOG4J_VERSION),
    )


BROKER_DEPENDENCIES = broker_dependencies()
""":func:`broker_dependencies` of :data:`KAFKA_VERSION`."""


def _pom(dependencies: tuple[tuple[str, str, str], ...] = BROKER_DEPENDENCIES,
         artifact_id: str = "kafka-broker-classpath", version: str = KAFKA_VERSION) -> str:
    deps = "".join(f"""
    <dependency>
      <groupId>{group}</groupId>
      <artifactId>{artifact}</artifactId>
      <version>{version}</version>
    </dependency>""" for group, artifact, version in dependencies)
    return f"""<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local.connect-runtime</groupId>
  <artifactId>{artifact_id}</artifactId>
  <version>{version}</version>
  <packaging>pom</packaging>
  <dependencies>{deps}
  </dependencies>
</project>
"""


def ensure_jars(cache_dir: Path | None = None, *, version: str = KAFKA_VERSION) -> Path:
    """Make sure the jars of broker release ``version`` are in ``cache_dir`` (:func:`default_cache_dir`
    without it) and return the directory holding them.

    The jars are fetched from Maven Central with ``mvn`` (the dependencies of
    ``org.apache.kafka:kafka_2.13`` plus the log4j2 slf4j binding) only when the cache is not
    complete; completion is recorded in a marker file. Concurrent callers serialize on a lock
    file, so only one of them fetches. Raises :class:`LocalKafkaError` when ``mvn`` is needed but
    missing or fails, or when Maven Central does not serve ``version``.
    """
    cache_dir = (cache_dir or default_cache_dir(version)).expanduser().resolve()
    artifact = f"kafka_{SCALA_VERSION}"
    try:
        return ensure_maven_jars(cache_dir, broker_dependencies(version), f"{artifact}-", "kafka-broker-classpath",
                                 version=version)
    except LocalKafkaError as exc:
        # mvn's words for a release Maven Central does not have; anything else (no network) stays as it is
        coordinates = f"org.apache.kafka:{artifact}:jar:{version}"
        if any(coordinates in line and ("not found" in line or "Could not find artifact" in line)
               for line in tail(cache_dir / "mvn.log", LOG_TAIL_LINES).splitlines()):
            raise LocalKafkaError(f"Maven Central does not serve Apache Kafka {version} "
                                  f"(org.apache.kafka:{artifact}:{version}); see {cache_dir / 'mvn.log'}",
                                  exc.detail) from exc
        raise


def ensure_maven_jars(cache_dir: Path, dependencies: tuple[tuple[str, str, str], ...], required_prefix: str,
                      artifact_id: str, *, version: str) -> Path:
    """Make sure the runtime classpath of ``dependencies`` (group, artifact, version) is in
    ``cache_dir/libs`` and return that directory: :func:`ensure_jars`'s fetch-once mechanism (``mvn
    dependency:copy-dependencies`` into a marked, locked cache) for any set of artifacts, e.g. the
    Kafka Connect jars a benchmark compares against. ``version`` is what the cache's marker records
    (the Kafka release the classpath belongs to): a cache marked with another is fetched again. The
    fetch counts as failed when no jar's name starts with ``required_prefix``.
    """
    cache_dir = cache_dir.expanduser().resolve()

    def fetch(mvn: MavenRun, partial: Path) -> list[str]:
        pom = cache_dir / "pom.xml"
        pom.write_text(_pom(dependencies, artifact_id, version))
        mvn("-f", str(pom), "dependency:copy-dependencies", "-DincludeScope=runtime", f"-DoutputDirectory={partial}")
        jars = sorted(p.name for p in partial.glob("*.jar")) if partial.is_dir() else []
        return jars if mvn.returncode == 0 and any(j.startswith(required_prefix) for j in jars) else []

    return fetch_once(cache_dir, "libs", {"kafka_version": version}, fetch,
                      what=f"{artifact_id} (Kafka {version}) jars", error=LocalKafkaError)


# --------------------------------------------------------------------------------------------------
# helpers


def _random_cluster_id() -> str:
    """A KRaft cluster id, as ``kafka-storage random-uuid`` makes them.

    Kafka's ``Uuid.toString()`` is the URL-safe base64 of the 16 bytes without padding; like
    ``Uuid.randomUuid()`` we avoid ids starting with ``-`` (they look like options on a command line).
    Generated here to save a JVM start.
    """
    while True:
        text = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode("ascii").rstrip("=")
        if not text.startswith("-"):
            return text


# --------------------------------------------------------------------------------------------------
# the broker


class LocalKafka(SingleProcessService):
    """A single-node KRaft Kafka broker (broker + controller) on 127.0.0.1, owning ``data_dir``.

    The broker runs detached from the calling process: it survives the end of the Python process
    that started it (the CLI relies on this) until :meth:`stop` is called, from this object or
    from any other ``LocalKafka`` on the same data dir. :meth:`stop` keeps the data; :meth:`start`
    on the same data dir resumes it.
    """

    command = "local-kafka"
    title = "Kafka"
    description = (f"Run a local single-node Apache Kafka broker (KRaft) on {HOST}, or with --brokers 3 a "
                   f"three-node cluster; Kafka {KAFKA_VERSION} unless --kafka-version says otherwise.")
    start_help = "start the broker (no-op if running) and print bootstrap.servers"
    stop_help = "stop the broker (the data is kept)"
    status_help = "say whether the broker runs"
    timeout_help = "seconds to wait for readiness"
    data_dir_help = "broker state directory"
    default_data_dir = DEFAULT_DATA_DIR
    default_start_timeout = DEFAULT_START_TIMEOUT
    default_stop_timeout = DEFAULT_STOP_TIMEOUT
    state_file_name = _PORTS_FILE
    pid_file_name = _PID_FILE
    log_file_name = "server.log"
    address_key = "bootstrap.servers"
    port_help = "client port (default: recorded or free)"
    error = LocalKafkaError
    status_type = LocalKafkaStatus
    node_id: int = NODE_ID
    """The broker's ``node.id``."""
    jvm_opts: ClassVar[tuple[str, ...]] = tuple(_JVM_OPTS)

    def __init__(self, data_dir: Path | str = DEFAULT_DATA_DIR, *, cache_dir: Path | None = None,
                 kafka_version: str | None = None) -> None:
        """Prepare (but do not start) a broker for ``data_dir``; jars go to ``cache_dir``.

        ``kafka_version`` is the Apache Kafka release (4.0.0 or newer); without it, the one the data dir
        records, else :data:`KAFKA_VERSION`. Raises :class:`LocalKafkaError` when it is not a release a
        local broker runs, or not the one that formatted the data dir.
        """
        super().__init__(data_dir, cache_dir=cache_dir)
        self.kafka_version = resolve_kafka_version(kafka_version, self._read_state().get("kafka_version"),
                                                   self.data_dir)
        """The Apache Kafka release the broker runs."""

    # -- paths ------------------------------------------------------------------------------------
    @property
    def server_log(self) -> Path:
        """The broker's log4j log."""
        return self.main_log

    @property
    def log_dir(self) -> Path:
        """The Kafka ``log.dirs`` directory (the data)."""
        return self.data_dir / "log"

    # -- public API -------------------------------------------------------------------------------
    def start(self, port: int | None = None, *, timeout: float | None = DEFAULT_START_TIMEOUT) -> str:
        """Start the broker (if not already running) and return ``"127.0.0.1:PORT"``.

        ``port`` is the client listener port; without it the port recorded in the data dir is
        reused, or a free one is picked on first start. The controller port is picked once per data
        dir and kept. The storage is formatted only on first start; later starts reuse the data.
        Blocks until the broker serves metadata (at most ``timeout`` seconds). Raises
        :class:`LocalKafkaError` with a one-sentence message on any failure.
        """
        return super().start(port, timeout=timeout)

    def status(self) -> LocalKafkaStatus:
        """Report whether the broker of this data dir runs, with its pid, bootstrap servers and release."""
        return dataclasses.replace(cast(LocalKafkaStatus, super().status()), kafka_version=self.kafka_version)

    @property
    def bootstrap(self) -> str | None:
        """``"127.0.0.1:PORT"`` recorded for this data dir (running or not), if any."""
        return self.address

    @property
    def sasl_bootstrap(self) -> str | None:
        """``"127.0.0.1:PORT"`` of the SASL_PLAINTEXT (PLAIN) listener recorded for this data dir, if any."""
        port = self._read_ports().get("sasl_port")
        return None if port is None else f"{HOST}:{port}"

    # -- the process ------------------------------------------------------------------------------
    def _address(self, port: int) -> str:
        return f"{HOST}:{port}"

    def _identifying_args(self) -> tuple[str, ...]:
        return _MAIN_CLASS, str(self.data_dir / "server.properties")

    def _launch(self, port: int | None) -> None:
        java = find_java(MIN_JAVA_VERSION, f"Kafka {self.kafka_version}", LocalKafkaError)
        # Fetched before the ports (and the version beside them) are recorded: a release Maven Central
        # does not serve leaves the data dir free for another.
        libs = ensure_jars(self.cache_dir, version=self.kafka_version)
        broker_port, sasl_port, controller_port = self._choose_ports(port)
        classpath = str(libs / "*")
        self._write_configs(broker_port, sasl_port, controller_port)
        if not (self.log_dir / "meta.properties").exists():
            self._format(java, classpath)
        else:
            logger.info("reusing the formatted data in %s", self.log_dir)
        cmd = [*self._java_base(java, classpath), _MAIN_CLASS, str(self.data_dir / "server.properties")]
        logger.info("starting Kafka %s (node %d) in %s", self.kafka_version, self.node_id, self.data_dir)
        self._spawn(cmd, self.stdout_log, self.pid_file)

    def _readiness(self) -> str:
        return f"serve metadata on {self.bootstrap}"

    def _probe(self) -> Callable[[float], str | None]:
        from confluent_kafka.admin import AdminClient  # heavy import, only when needed

        port = self._recorded_port()
        bootstrap = f"{HOST}:{port}"
        admin: Any = None

        def probe(remaining: float) -> str | None:
            nonlocal admin
            # Probe the socket first: librdkafka logs every refused connection on stderr.
            if admin is None and port is not None and accepts_connections(port):
                admin = AdminClient({"bootstrap.servers": bootstrap, "log.connection.close": False})
            if admin is None:
                return "no answer yet"
            try:
                md = admin.list_topics(timeout=min(5.0, max(0.5, remaining)))
            except Exception as exc:  # KafkaException; keep polling until the deadline
                return str(exc)
            return None if self.node_id in md.brokers else f"metadata lists brokers {sorted(md.brokers)}"

        return probe

    # -- command line -----------------------------------------------------------------------------
    @classmethod
    def _add_start_arguments(cls, start: argparse.ArgumentParser) -> None:
        super()._add_start_arguments(start)
        start.add_argument("--brokers", type=int, default=None,
                           help="nodes: 1 (a single broker) or 3 (a cluster, replication factor 3) "
                                "(default: what the data dir holds, else 1)")
        start.add_argument("--kafka-version", default=None, metavar="VERSION",
                           help=f"the Apache Kafka release, 4.0.0 or newer, fetched from Maven Central "
                                f"(default: what the data dir holds, else {KAFKA_VERSION})")

    @classmethod
    def _add_commands(cls, sub: Any, data_dir_help: str) -> None:
        for name, text in (("kill", "SIGKILL one node of a cluster"),
                           ("stop-node", "stop one node of a cluster cleanly (SIGTERM, controlled shutdown)"),
                           ("restart", "start a node of a cluster again and wait until it has caught up")):
            command = sub.add_parser(name, help=text)
            command.add_argument("node", type=int, help="the node id (1, 2, 3)")
            command.add_argument("--data-dir", type=Path, default=cls.default_data_dir, help=data_dir_help)

    @classmethod
    def _from_start_args(cls, args: argparse.Namespace) -> LocalService:
        cluster = _cluster_class()
        if args.brokers is None and not cluster.holds_cluster(args.data_dir):
            return cls(args.data_dir, kafka_version=args.kafka_version)
        if args.brokers == 1:
            if cluster.holds_cluster(args.data_dir):
                raise LocalKafkaError(f"{args.data_dir} holds a Kafka cluster; use --brokers "
                                      f"{cluster.recorded_brokers(args.data_dir)} or another --data-dir")
            return cls(args.data_dir, kafka_version=args.kafka_version)
        if args.port is not None:
            raise LocalKafkaError("--port applies to a single broker; a cluster chooses its ports")
        if (Path(args.data_dir) / _PORTS_FILE).is_file():
            raise LocalKafkaError(f"{args.data_dir} holds a single broker; use --brokers 1 or another --data-dir")
        return cluster(args.data_dir, brokers=args.brokers, kafka_version=args.kafka_version)

    @classmethod
    def _for_data_dir(cls, data_dir: Path) -> LocalService:
        cluster = _cluster_class()
        return cluster(data_dir) if cluster.holds_cluster(data_dir) else cls(data_dir)

    def _cli_command(self, args: argparse.Namespace) -> int:
        raise LocalKafkaError(f"{self.data_dir} holds no Kafka cluster; {args.command} needs one "
                              "(start one with --brokers 3)")

    # -- internals --------------------------------------------------------------------------------
    def _before_stop(self) -> None:
        bootstrap = self.bootstrap
        if bootstrap is not None:
            # The toolkit's cached admin client of this broker would keep reconnecting to nothing.
            close_admin_clients(bootstrap)

    def _read_ports(self) -> dict[str, int]:
        return {k: v for k, v in self._read_state().items() if isinstance(v, int)}

    def _choose_ports(self, requested: int | None) -> tuple[int, int, int]:
        recorded = self._read_ports()
        controller_port = recorded.get("controller_port")
        sasl_port = recorded.get("sasl_port")
        broker_port = requested if requested is not None else recorded.get("port")
        if broker_port is not None:
            self._check_port_free(broker_port)
        if controller_port is not None:
            if broker_port == controller_port:
                raise LocalKafkaError(
                    f"port {broker_port} is the controller port of {self.data_dir}; "
                    "choose another with --port"
                )
            if port_in_use(controller_port):
                raise LocalKafkaError(
                    f"controller port {controller_port} on {HOST} (fixed for {self.data_dir}) is already "
                    "in use; free it or use another --data-dir"
                )
        if sasl_port is not None and (sasl_port in (broker_port, controller_port) or port_in_use(sasl_port)):
            sasl_port = None  # only tests use it: a fresh one is fine
        if broker_port is None:
            broker_port = free_port()
        while controller_port is None or controller_port == broker_port:
            controller_port = free_port()
        while sasl_port is None or sasl_port in (broker_port, controller_port):
            sasl_port = free_port()
        self._write_state({"port": broker_port, "controller_port": controller_port, "sasl_port": sasl_port,
                           "kafka_version": self.kafka_version})
        return broker_port, sasl_port, controller_port

    def _server_properties(self, broker_port: int, sasl_port: int, controller_port: int) -> dict[str, str]:
        """The broker's ``server.properties``."""
        sasl = SASL_LISTENER.lower()
        return {
            "process.roles": "broker,controller",
            "node.id": str(self.node_id),
            "controller.quorum.voters": f"{self.node_id}@{HOST}:{controller_port}",
            "listeners": f"PLAINTEXT://{HOST}:{broker_port},{SASL_LISTENER}://{HOST}:{sasl_port},"
                         f"CONTROLLER://{HOST}:{controller_port}",
            "advertised.listeners": f"PLAINTEXT://{HOST}:{broker_port},{SASL_LISTENER}://{HOST}:{sasl_port}",
            "inter.broker.listener.name": "PLAINTEXT",
            "controller.listener.names": "CONTROLLER",
            "listener.security.protocol.map":
                f"PLAINTEXT:PLAINTEXT,{SASL_LISTENER}:SASL_PLAINTEXT,CONTROLLER:PLAINTEXT",
            f"listener.name.{sasl}.sasl.enabled.mechanisms": "PLAIN",
            f"listener.name.{sasl}.plain.sasl.jaas.config":
                "org.apache.kafka.common.security.plain.PlainLoginModule required "
                f'user_{SASL_USERNAME}="{SASL_PASSWORD}";',
            "log.dirs": str(self.log_dir),
            "num.partitions": "1",
            "default.replication.factor": "1",
            "min.insync.replicas": "1",
            "offsets.topic.replication.factor": "1",
            "transaction.state.log.replication.factor": "1",
            "transaction.state.log.min.isr": "1",
            "share.coordinator.state.topic.replication.factor": "1",
            "share.coordinator.state.topic.min.isr": "1",
            "group.initial.rebalance.delay.ms": "0",
            "auto.create.topics.enable": "false",
        }

    def _write_configs(self, broker_port: int, sasl_port: int, controller_port: int) -> None:
        self.logs_dir.mkdir(parents=True, exist_ok=True)
        props = self._server_properties(broker_port, sasl_port, controller_port)
        text = "# written by connect_runtime.testing.local_kafka on every start\n"
        text += "".join(f"{k}={_escape_property(v)}\n" for k, v in props.items())
        (self.data_dir / "server.properties").write_text(text)

        log_file = _escape_property(str(self.server_log))
        (self.data_dir / "log4j2.properties").write_text(
            f"""# written by connect_runtime.testing.local_kafka on every start
status = warn
name = local-kafka
shutdownHook = disable
appender.file.type = RollingFile
appender.file.name = FILE
appender.file.fileName = {log_file}
appender.file.filePattern = {log_file}.%i
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = [%d] %p %m (%c)%n
appender.file.policies.type = Policies
appender.file.policies.size.type = SizeBasedTriggeringPolicy
appender.file.policies.size.size = 50MB
appender.file.strategy.type = DefaultRolloverStrategy
appender.file.strategy.max = 3
rootLogger.level = INFO
rootLogger.appenderRef.file.ref = FILE
logger.request.name = kafka.request.logger
logger.request.level = WARN
logger.statechange.name = state.change.logger
logger.statechange.level = WARN
"""
        )

    def _java_base(self, java: str, classpath: str) -> list[str]:
        return [
            java,
            *self.jvm_opts,
            f"-Dlog4j2.configurationFile={self.data_dir / 'log4j2.properties'}",
            "-cp",
            classpath,
        ]

    def _format_args(self) -> list[str]:
        """The arguments of ``StorageTool format`` beyond ``-c server.properties``."""
        return ["-t", _random_cluster_id()]

    def _format(self, java: str, classpath: str) -> None:
        args = self._format_args()
        logger.info("formatting %s (%s)", self.log_dir, " ".join(args))
        cmd = [
            *self._java_base(java, classpath),
            "kafka.tools.StorageTool",
            "format",
            *args,
            "-c",
            str(self.data_dir / "server.properties"),
        ]
        proc = subprocess.run(
            cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120, check=False
        )
        if proc.returncode != 0:
            raise LocalKafkaError(
                f"formatting the Kafka storage in {self.log_dir} failed (exit code {proc.returncode})",
                "\n".join((proc.stdout + proc.stderr).splitlines()[-LOG_TAIL_LINES:]),
            )


def _cluster_class() -> type[LocalKafkaCluster]:
    # The cluster is built from brokers of this module: imported when the command line needs it.
    from connect_runtime.testing.local_kafka_cluster import LocalKafkaCluster

    return LocalKafkaCluster


def _escape_property(value: str) -> str:
    """Escape a value for a Java ``.properties`` file."""
    return value.replace("\\", "\\\\").replace("\n", "\\n")


# --------------------------------------------------------------------------------------------------
# command line


def cli(argv: list[str] | None = None) -> int:
    """``connect-runtime local-kafka start|stop|status|kill|restart``; returns the process exit code.

    ``start`` prints exactly ``bootstrap.servers=HOST:PORT[,HOST:PORT...]`` on stdout; progress goes to stderr.
    ``status`` exits 0 when running and 1 when not. Errors are one line on stderr and exit code 1.
    """
    return LocalKafka.cli(argv)


if __name__ == "__main__":
    sys.exit(cli())
