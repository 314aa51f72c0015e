"""A real, single-node Apache Kafka broker for development and tests.

The broker is the official Apache Kafka release (:data:`KAFKA_VERSION`, Scala 2.13), fetched once
from Maven Central with ``mvn`` into a cache directory outside the repository, and started as a
detached ``java`` process in KRaft mode (combined broker + controller, ``node.id=1``) listening on
127.0.0.1 only.

Everything about one broker lives in its *data dir*:

``server.properties``, ``log4j2.properties``
    written on every start;
``ports.json``
    the broker, SASL and controller ports, chosen once and reused so that a restart (without an
    explicit port) gives the same ``bootstrap.servers`` and the same controller quorum;
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

    connect-runtime local-kafka start [--port P] [--data-dir D]
    connect-runtime local-kafka status [--data-dir D]
    connect-runtime local-kafka stop [--data-dir D]

The data dir, its lock and the command line are those of every local service
(:mod:`connect_runtime.testing.launcher`).
"""

from __future__ import annotations

import argparse
import base64
import json
import logging
import os
import re
import shutil
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from connect_runtime.api.processes import pid_alive
from connect_runtime.testing.launcher import (
    HOST,
    LOG_TAIL_LINES,
    LauncherError,
    LocalService,
    accepts_connections,
    file_lock,
    tail,
)
from connect_runtime.testing.launcher import free_port as free_port  # re-exported: callers import it from here
from connect_runtime.testing.launcher import port_in_use as port_in_use
from connect_runtime.testing.topics import close_admin_clients

logger = logging.getLogger(__name__)

KAFKA_VERSION = "4.1.1"
"""The pinned Apache Kafka release."""

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
_MARKER = ".complete"
_PORTS_FILE = "ports.json"
_PID_FILE = "kafka.pid"

_JAVA_MISSING = (
    f"java was not found on PATH; Kafka {KAFKA_VERSION} needs Java {MIN_JAVA_VERSION}+ "
    "(e.g. apt-get install openjdk-17-jre-headless)"
)
_MVN_MISSING = (
    f"mvn was not found on PATH; it is needed once to fetch the Kafka {KAFKA_VERSION} jars "
    "from Maven Central (e.g. apt-get install maven)"
)


class LocalKafkaError(LauncherError):
    """A local broker could not be fetched, started or stopped (``detail``: the broker log's tail)."""


@dataclass(frozen=True)
class LocalKafkaStatus:
    """The state of the broker of one data dir."""

    running: bool
    data_dir: Path
    pid: int | None = None
    bootstrap: str | None = None

    def __str__(self) -> str:
        if self.running:
            return f"running (pid {self.pid}) bootstrap.servers={self.bootstrap} data dir {self.data_dir}"
        return f"not running (data dir {self.data_dir})"


# --------------------------------------------------------------------------------------------------
# jars


def default_cache_dir() -> Path:
    """Where the broker jars are cached: ``$CONNECT_RUNTIME_CACHE/kafka-<version>``.

    Without ``CONNECT_RUNTIME_CACHE`` the base is ``~/.cache/connect-runtime`` (honouring
    ``XDG_CACHE_HOME``). The version is part of the path so that bumping :data:`KAFKA_VERSION`
    never reuses stale jars.
    """
    base = os.environ.get("CONNECT_RUNTIME_CACHE")
    if base:
        root = Path(base).expanduser()
    else:
        xdg = os.environ.get("XDG_CACHE_HOME")
        root = (Path(xdg).expanduser() if xdg else Path.home() / ".cache") / "connect-runtime"
    return root / f"kafka-{KAFKA_VERSION}"


BROKER_DEPENDENCIES: tuple[tuple[str, str, str], ...] = (
    ("org.apache.kafka", f"kafka_{SCALA_VERSION}", KAFKA_VERSION),
    ("org.apache.logging.log4j", "log4j-slf4j-impl", LOG4J_VERSION),
)
"""The Maven artifacts (group, artifact, version) whose runtime classpath is the broker's."""


def _pom(dependencies: tuple[tuple[str, str, str], ...] = BROKER_DEPENDENCIES,
         artifact_id: str = "kafka-broker-classpath") -> str:
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
  <version>{KAFKA_VERSION}</version>
  <packaging>pom</packaging>
  <dependencies>{deps}
  </dependencies>
</project>
"""


def _jars_complete(cache_dir: Path) -> bool:
    marker = cache_dir / _MARKER
    libs = cache_dir / "libs"
    try:
        info = json.loads(marker.read_text())
    except (OSError, ValueError):
        return False
    if not isinstance(info, dict) or info.get("kafka_version") != KAFKA_VERSION:
        return False
    jars = info.get("jars")
    if not isinstance(jars, list) or not jars:
        return False
    return all((libs / str(name)).is_file() for name in jars)


def ensure_jars(cache_dir: Path | None = None) -> Path:
    """Make sure the broker jars are in ``cache_dir`` and return the directory holding them.

    The jars are fetched from Maven Central with ``mvn`` (the dependencies of
    ``org.apache.kafka:kafka_2.13`` plus the log4j2 slf4j binding) only when the cache is not
    complete; completion is recorded in a marker file. Concurrent callers serialize on a lock
    file, so only one of them fetches. Raises :class:`LocalKafkaError` when ``mvn`` is needed but
    missing or fails.
    """
    return ensure_maven_jars(cache_dir or default_cache_dir(), BROKER_DEPENDENCIES,
                             f"kafka_{SCALA_VERSION}-", "kafka-broker-classpath")


def ensure_maven_jars(cache_dir: Path, dependencies: tuple[tuple[str, str, str], ...], required_prefix: str,
                      artifact_id: str) -> Path:
    """Make sure the runtime classpath of ``dependencies`` (group, artifact, version) is in
    ``cache_dir/libs`` and return that directory: :func:`ensure_jars`'s fetch-once mechanism (``mvn
    dependency:copy-dependencies`` into a marked, locked cache) for any set of artifacts, e.g. the
    Kafka Connect jars a benchmark compares against. The fetch counts as failed when no jar's name
    starts with ``required_prefix``.
    """
    cache_dir = cache_dir.expanduser().resolve()
    libs = cache_dir / "libs"
    if _jars_complete(cache_dir):
        return libs
    with file_lock(cache_dir / ".lock"):
        if _jars_complete(cache_dir):
            return libs
        mvn = shutil.which("mvn")
        if mvn is None:
            raise LocalKafkaError(_MVN_MISSING)
        logger.info("fetching %s from Maven Central into %s",
                    ", ".join(":".join(d) for d in dependencies), cache_dir)
        pom = cache_dir / "pom.xml"
        pom.write_text(_pom(dependencies, artifact_id))
        partial = cache_dir / "libs.partial"
        shutil.rmtree(partial, ignore_errors=True)
        mvn_log = cache_dir / "mvn.log"
        with mvn_log.open("w") as out:
            proc = subprocess.run(
                [
                    mvn,
                    "-q",
                    "-B",
                    "-f",
                    str(pom),
                    "dependency:copy-dependencies",
                    "-DincludeScope=runtime",
                    f"-DoutputDirectory={partial}",
                ],
                cwd=cache_dir,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                check=False,
            )
        jars = sorted(p.name for p in partial.glob("*.jar")) if partial.is_dir() else []
        if proc.returncode != 0 or not any(j.startswith(required_prefix) for j in jars):
            raise LocalKafkaError(
                f"mvn could not fetch {artifact_id} (Kafka {KAFKA_VERSION}) jars (exit code {proc.returncode}); "
                f"see {mvn_log}",
                tail(mvn_log),
            )
        (cache_dir / _MARKER).unlink(missing_ok=True)
        shutil.rmtree(libs, ignore_errors=True)
        partial.rename(libs)
        (cache_dir / _MARKER).write_text(json.dumps({"kafka_version": KAFKA_VERSION, "jars": jars}, indent=1))
        logger.info("fetched %d jars into %s", len(jars), libs)
        return libs


# --------------------------------------------------------------------------------------------------
# helpers


def _find_java() -> str:
    """Return the ``java`` executable on PATH, checking it is recent enough."""
    java = shutil.which("java")
    if java is None:
        raise LocalKafkaError(_JAVA_MISSING)
    try:
        out = subprocess.run(
            [java, "-version"], capture_output=True, text=True, timeout=30, check=False
        ).stderr
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise LocalKafkaError(f"could not run {java} -version: {exc}") from exc
    match = re.search(r'version "(\d+)(?:\.(\d+))?', out)
    if match:
        major = int(match.group(1))
        if major == 1 and match.group(2):
            major = int(match.group(2))
        if major < MIN_JAVA_VERSION:
            raise LocalKafkaError(
                f"{java} is Java {major}; Kafka {KAFKA_VERSION} needs Java {MIN_JAVA_VERSION}+ "
                "(e.g. apt-get install openjdk-17-jre-headless)"
            )
    return java


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


def _is_our_broker(pid: int, data_dir: Path) -> bool:
    """Guard against pid reuse: is ``pid`` a Kafka broker of ``data_dir`` (best effort)?"""
    if not pid_alive(pid):
        return False
    cmdline = Path(f"/proc/{pid}/cmdline")
    if not cmdline.exists():  # no procfs: trust the pid file
        return True
    try:
        args = cmdline.read_bytes().split(b"\0")
    except OSError:
        return False
    return _MAIN_CLASS.encode() in args and str(data_dir / "server.properties").encode() in args


# --------------------------------------------------------------------------------------------------
# the broker


class LocalKafka(LocalService):
    """A single-node KRaft Kafka broker (broker + controller) on 127.0.0.1, owning ``data_dir``.

    The broker runs detached from the calling process: it survives the end of the Python process
    that started it (the CLI relies on this) until :meth:`stop` is called, from this object or
    from any other ``LocalKafka`` on the same data dir. :meth:`stop` keeps the data; :meth:`start`
    on the same data dir resumes it.
    """

    command = "local-kafka"
    title = "Kafka"
    description = f"Run a local single-node Apache Kafka {KAFKA_VERSION} broker (KRaft) on {HOST}."
    start_help = "start the broker (no-op if running) and print bootstrap.servers"
    stop_help = "stop the broker (the data is kept)"
    status_help = "say whether the broker runs"
    timeout_help = "seconds to wait for readiness"
    data_dir_help = "broker state directory"
    default_data_dir = DEFAULT_DATA_DIR
    default_start_timeout = DEFAULT_START_TIMEOUT
    default_stop_timeout = DEFAULT_STOP_TIMEOUT
    state_file_name = _PORTS_FILE

    def __init__(self, data_dir: Path | str = DEFAULT_DATA_DIR, *, cache_dir: Path | None = None) -> None:
        """Prepare (but do not start) a broker for ``data_dir``; jars go to ``cache_dir``."""
        super().__init__(data_dir)
        self.cache_dir = cache_dir

    # -- paths ------------------------------------------------------------------------------------
    @property
    def pid_file(self) -> Path:
        """The file holding the broker's pid while it runs."""
        return self.data_dir / _PID_FILE

    @property
    def server_log(self) -> Path:
        """The broker's log4j log."""
        return self.logs_dir / "server.log"

    @property
    def stdout_log(self) -> Path:
        """The JVM's stdout and stderr."""
        return self.logs_dir / "stdout.log"

    @property
    def log_dir(self) -> Path:
        """The Kafka ``log.dirs`` directory (the data)."""
        return self.data_dir / "log"

    # -- public API -------------------------------------------------------------------------------
    def start(self, port: int | None = None, *, timeout: float = DEFAULT_START_TIMEOUT) -> str:
        """Start the broker (if not already running) and return ``"127.0.0.1:PORT"``.

        ``port`` is the client listener port; without it the port recorded in the data dir is
        reused, or a free one is picked on first start. The controller port is picked once per data
        dir and kept. The storage is formatted only on first start; later starts reuse the data.
        Blocks until the broker serves metadata (at most ``timeout`` seconds). Raises
        :class:`LocalKafkaError` with a one-sentence message on any failure.
        """
        with self._locked():
            running = self._running_pid()
            if running is not None:
                bootstrap = self._recorded_bootstrap()
                if bootstrap is not None:
                    if port is not None and bootstrap != f"{HOST}:{port}":
                        logger.warning(
                            "a broker is already running for %s on %s; ignoring --port %d",
                            self.data_dir,
                            bootstrap,
                            port,
                        )
                    return bootstrap
                raise LocalKafkaError(
                    f"a broker (pid {running}) is running for {self.data_dir} but its ports are unknown; "
                    "stop it first"
                )
            self.pid_file.unlink(missing_ok=True)
            java = _find_java()
            broker_port, sasl_port, controller_port = self._choose_ports(port)
            libs = ensure_jars(self.cache_dir)
            classpath = str(libs / "*")
            self._write_configs(broker_port, sasl_port, controller_port)
            if not (self.log_dir / "meta.properties").exists():
                self._format(java, classpath)
            else:
                logger.info("reusing the formatted data in %s", self.log_dir)
            bootstrap = f"{HOST}:{broker_port}"
            self._launch(java, classpath)
            try:
                self._wait_ready(broker_port, timeout)
            except BaseException:
                self._stop_locked(DEFAULT_STOP_TIMEOUT)
                raise
            return bootstrap

    def status(self) -> LocalKafkaStatus:
        """Report whether the broker of this data dir runs, with its pid and bootstrap servers."""
        pid = self._running_pid()
        if pid is None:
            return LocalKafkaStatus(running=False, data_dir=self.data_dir)
        return LocalKafkaStatus(
            running=True, data_dir=self.data_dir, pid=pid, bootstrap=self._recorded_bootstrap()
        )

    @property
    def bootstrap(self) -> str | None:
        """``"127.0.0.1:PORT"`` recorded for this data dir (running or not), if any."""
        return self._recorded_bootstrap()

    @property
    def sasl_bootstrap(self) -> str | None:
        """``"127.0.0.1:PORT"`` of the SASL_PLAINTEXT (PLAIN) listener recorded for this data dir, if any."""
        port = self._read_ports().get("sasl_port")
        return None if port is None else f"{HOST}:{port}"

    # -- command line -----------------------------------------------------------------------------
    @classmethod
    def _add_start_arguments(cls, start: argparse.ArgumentParser) -> None:
        start.add_argument("--port", type=int, default=None, help="client port (default: recorded or free)")

    def _cli_start(self, args: argparse.Namespace) -> str:
        return f"bootstrap.servers={self.start(args.port, timeout=args.timeout)}"

    def _cli_status(self) -> bool:
        state = self.status()
        print(state)
        return state.running

    # -- internals --------------------------------------------------------------------------------
    def _before_stop(self) -> None:
        bootstrap = self.bootstrap
        if bootstrap is not None:
            # The toolkit's cached admin client of this broker would keep reconnecting to nothing.
            close_admin_clients(bootstrap)

    def _stop_locked(self, timeout_s: float) -> bool:
        pid = self._running_pid()
        if pid is not None and self._terminate({"Kafka": pid}, timeout_s):
            raise LocalKafkaError(f"Kafka (pid {pid}) in {self.data_dir} could not be killed")
        self.pid_file.unlink(missing_ok=True)
        self._reap()
        return pid is not None

    def _read_ports(self) -> dict[str, int]:
        return {k: v for k, v in self._read_state().items() if isinstance(v, int)}

    def _recorded_bootstrap(self) -> str | None:
        port = self._read_ports().get("port")
        return None if port is None else f"{HOST}:{port}"

    def _running_pid(self) -> int | None:
        own = [proc.pid for proc in self._procs if proc.poll() is None]
        if own:
            return own[-1]
        pid = self._read_pid(self.pid_file)
        return pid if pid is not None and _is_our_broker(pid, self.data_dir) else None

    def _choose_ports(self, requested: int | None) -> tuple[int, int, int]:
        recorded = self._read_ports()
        controller_port = recorded.get("controller_port")
        sasl_port = recorded.get("sasl_port")
        broker_port = requested if requested is not None else recorded.get("port")
        if broker_port is not None and port_in_use(broker_port):
            raise LocalKafkaError(
                f"port {broker_port} on {HOST} is already in use; choose another with --port"
            )
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
        self._write_state({"port": broker_port, "controller_port": controller_port, "sasl_port": sasl_port})
        return broker_port, sasl_port, controller_port

    def _write_configs(self, broker_port: int, sasl_port: int, controller_port: int) -> None:
        self.logs_dir.mkdir(parents=True, exist_ok=True)
        sasl = SASL_LISTENER.lower()
        props = {
            "process.roles": "broker,controller",
            "node.id": str(NODE_ID),
            "controller.quorum.voters": f"{NODE_ID}@{HOST}:{controller_port}",
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
            *_JVM_OPTS,
            f"-Dlog4j2.configurationFile={self.data_dir / 'log4j2.properties'}",
            "-cp",
            classpath,
        ]

    def _format(self, java: str, classpath: str) -> None:
        cluster_id = _random_cluster_id()
        logger.info("formatting %s (cluster id %s)", self.log_dir, cluster_id)
        cmd = [
            *self._java_base(java, classpath),
            "kafka.tools.StorageTool",
            "format",
            "-t",
            cluster_id,
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

    def _launch(self, java: str, classpath: str) -> None:
        cmd = [*self._java_base(java, classpath), _MAIN_CLASS, str(self.data_dir / "server.properties")]
        logger.info("starting Kafka %s in %s", KAFKA_VERSION, self.data_dir)
        self._spawn(cmd, self.stdout_log, self.pid_file)

    def _wait_ready(self, port: int, timeout: float) -> None:
        from confluent_kafka.admin import AdminClient  # heavy import, only when needed

        deadline = time.monotonic() + timeout
        bootstrap = f"{HOST}:{port}"
        admin: Any = None
        last_error = "no answer yet"
        while True:
            exited = self._exited_child()
            if exited is not None:
                raise LocalKafkaError(
                    f"Kafka exited during startup (exit code {exited.returncode}); see {self.server_log}",
                    self._log_tails([self.server_log, self.stdout_log]),
                )
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise LocalKafkaError(
                    f"Kafka did not serve metadata on {bootstrap} within {timeout:g} s ({last_error}); "
                    f"see {self.server_log}",
                    self._log_tails([self.server_log, self.stdout_log]),
                )
            # Probe the socket first: librdkafka logs every refused connection on stderr.
            if admin is None and accepts_connections(port):
                admin = AdminClient({"bootstrap.servers": bootstrap, "log.connection.close": False})
            if admin is not None:
                try:
                    md = admin.list_topics(timeout=min(5.0, max(0.5, remaining)))
                    if NODE_ID in md.brokers:
                        logger.info("Kafka is ready on %s", bootstrap)
                        return
                    last_error = f"metadata lists brokers {sorted(md.brokers)}"
                except Exception as exc:  # KafkaException; keep polling until the deadline
                    last_error = str(exc)
            time.sleep(min(0.2, max(0.0, deadline - time.monotonic())))



def _escape_property(value: str) -> str:
    """Escape a value for a Java ``.properties`` file."""
    return value.replace("\\", "\\\\").replace("\n", "\\n")


# --------------------------------------------------------------------------------------------------
# command line


def cli(argv: list[str] | None = None) -> int:
    """``connect-runtime local-kafka start|stop|status``; returns the process exit code.

    ``start`` prints exactly ``bootstrap.servers=HOST:PORT`` on stdout; progress goes to stderr.
    ``status`` exits 0 when running and 1 when not. Errors are one line on stderr and exit code 1.
    """
    return LocalKafka.cli(argv)


if __name__ == "__main__":
    sys.exit(cli())
