"""Apache Kafka Connect itself, the reference, as a child process: for tests and benchmarks that compare
our worker with Java's on the same broker.

:class:`JavaConnectWorker` runs ``java -cp ... org.apache.kafka.connect.cli.ConnectDistributed
worker.properties`` with the settings :func:`~connect_runtime.testing.cluster.worker_properties` gives
our test workers, so that the two are compared on equal terms. Its classpath is
:data:`CONNECT_DEPENDENCIES`, fetched once from Maven Central with ``mvn`` into a cache next to the
broker's jars (:func:`ensure_connect_jars`; the broker's own classpath has no Connect jars): the
runtime (with its transforms, api and clients), the JSON converter, the file connectors
(``FileStreamSource``, which ours also has) and Kafka's test connectors (``VerifiableSource``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

import httpx

from connect_runtime.testing.cluster import terminate, wait_until, worker_properties
from connect_runtime.testing.java_service import cache_root
from connect_runtime.testing.launcher import LauncherError, free_port
from connect_runtime.testing.local_kafka import (
    LOG4J_VERSION,
    MIN_JAVA_VERSION,
    ensure_maven_jars,
)

CONNECT_REFERENCE_VERSION = "4.1.1"
"""The Apache Kafka Connect release whose behaviour this runtime follows, and the one compared against: its
jars stay at this version whichever release the broker runs."""

TEST_PLUGINS_VERSION = "4.0.0"
"""connect-test-plugins (Kafka's VerifiableSourceConnector): Maven Central has no 4.1.x; the newest
published release before :data:`CONNECT_REFERENCE_VERSION` (it needs only the public Connect API)."""

CONNECT_DEPENDENCIES: tuple[tuple[str, str, str], ...] = (
    ("org.apache.kafka", "connect-runtime", CONNECT_REFERENCE_VERSION),
    ("org.apache.kafka", "connect-json", CONNECT_REFERENCE_VERSION),
    ("org.apache.kafka", "connect-file", CONNECT_REFERENCE_VERSION),
    ("org.apache.kafka", "connect-test-plugins", TEST_PLUGINS_VERSION),
    ("org.apache.logging.log4j", "log4j-slf4j-impl", LOG4J_VERSION),
)
"""The Java worker's classpath (group, artifact, version): the Connect runtime, the JSON converter, the
file and test connectors, and log4j2 behind slf4j."""

BASIC_AUTH_DEPENDENCIES: tuple[tuple[str, str, str], ...] = (
    ("org.apache.kafka", "connect-basic-auth-extension", CONNECT_REFERENCE_VERSION),
)
"""Kafka's HTTP Basic authentication REST extension (``BasicAuthSecurityRestExtension``), for a worker
that adds it to its classpath (``extra_classpath``); kept apart so that the common classpath and its
cache stay as they are."""

MAIN_CLASS = "org.apache.kafka.connect.cli.ConnectDistributed"
JVM_OPTS = ("-Xms256m", "-Xmx1g", "-XX:+UseG1GC", "-Djava.awt.headless=true")

LOG4J2_PROPERTIES = """status = warn
appender.file.type = File
appender.file.name = file
appender.file.fileName = {log}
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = INFO
rootLogger.appenderRef.file.ref = file
"""


def connect_cache_dir() -> Path:
    """Where the Java worker's jars are cached: next to the broker's, named by the pinned versions."""
    return cache_root() / f"kafka-connect-{CONNECT_REFERENCE_VERSION}-file-test-plugins-{TEST_PLUGINS_VERSION}"


def ensure_connect_jars() -> Path:
    """The directory holding the Java worker's jars (fetched with ``mvn`` the first time)."""
    return ensure_maven_jars(connect_cache_dir(), CONNECT_DEPENDENCIES, "connect-runtime-",
                             "kafka-connect-classpath", version=CONNECT_REFERENCE_VERSION)


def ensure_basic_auth_jar() -> Path:
    """The jar of Kafka's Basic authentication extension (fetched with ``mvn`` the first time; what it
    needs is on :data:`CONNECT_DEPENDENCIES`' classpath already)."""
    libs = ensure_maven_jars(cache_root() / f"kafka-connect-basic-auth-{CONNECT_REFERENCE_VERSION}",
                             BASIC_AUTH_DEPENDENCIES, "connect-basic-auth-extension-",
                             "kafka-connect-basic-auth-classpath", version=CONNECT_REFERENCE_VERSION)
    return libs / f"connect-basic-auth-extension-{CONNECT_REFERENCE_VERSION}.jar"


class JavaConnectWorker:
    """A Java ``connect-distributed`` worker child process of group ``group_id`` (internal topics
    ``<group_id>-configs``, ``-offsets``, ``-status``), listening on a free port of 127.0.0.1.

    ``extra`` settings override the defaults in :attr:`props`; its files (properties, log4j2
    settings, ``connect.log``, ``stderr.log``) are in ``workdir``. ``extra_classpath`` entries (jars,
    e.g. :func:`ensure_basic_auth_jar`) follow ``libs`` on the classpath, and ``jvm_opts`` are more JVM
    options (e.g. ``-Djava.security.auth.login.config=...``).
    """

    def __init__(self, libs: Path, bootstrap: str, workdir: Path, group_id: str, *,
                 eos: str = "enabled", extra: dict[str, str] | None = None,
                 extra_classpath: Sequence[Path] = (), jvm_opts: Sequence[str] = ()) -> None:
        java = shutil.which("java")
        if java is None:
            raise LauncherError(f"java was not found on PATH; Kafka Connect {CONNECT_REFERENCE_VERSION} needs Java "
                                f"{MIN_JAVA_VERSION}+")
        self.java = java
        self.libs = libs
        self.extra_classpath = tuple(extra_classpath)
        self.jvm_opts = tuple(jvm_opts)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        workdir.mkdir(parents=True, exist_ok=True)
        self.workdir = workdir
        self.config_path = workdir / "worker.properties"
        self.log_path = workdir / "connect.log"
        self.log4j_path = workdir / "log4j2.properties"
        self.props = {**worker_properties(bootstrap, group_id, self.url, eos), **(extra or {})}
        self.proc: subprocess.Popen[bytes] | None = None

    def command(self) -> list[str]:
        """The java command line that runs the worker."""
        classpath = os.pathsep.join([f"{self.libs}/*", *map(str, self.extra_classpath)])
        return [self.java, *JVM_OPTS, *self.jvm_opts, f"-Dlog4j2.configurationFile={self.log4j_path}",
                "-cp", classpath, MAIN_CLASS, str(self.config_path)]

    def start(self) -> JavaConnectWorker:
        """Write the worker's files and start it (without waiting: see :meth:`wait_ready`)."""
        self.config_path.write_text("".join(f"{k}={v}\n" for k, v in self.props.items()))
        self.log4j_path.write_text(LOG4J2_PROPERTIES.format(log=self.log_path))
        with (self.workdir / "stderr.log").open("ab") as stderr:
            # VerifiableSourceTask prints every record to stdout: discard it, as a quiet deployment would.
            self.proc = subprocess.Popen(self.command(), stdout=subprocess.DEVNULL, stderr=stderr)
        return self

    def wait_ready(self, timeout_s: float = 90.0, headers: Mapping[str, str] | None = None) -> None:
        """Wait until the worker answers ``GET /connectors`` with 200 (it has joined its group and read
        its config topic); an exit on the way raises with its log's tail. ``headers`` go with each try
        (credentials, for a worker that requires them)."""
        def exited() -> bool:
            return self.proc is not None and self.proc.poll() is not None

        def ready() -> bool:
            try:
                return exited() or httpx.get(f"{self.url}/connectors", timeout=2, headers=headers).status_code == 200
            except httpx.HTTPError:
                return False

        wait_until(ready, timeout_s, message=f"Java Connect worker {self.url} to be ready")
        if exited():
            assert self.proc is not None
            raise LauncherError(f"the Java Connect worker exited with {self.proc.returncode}", self.log_tail())

    def stop(self, timeout_s: float = 60.0) -> int | None:
        """SIGTERM the worker and wait for it: its exit code (None if it was never started)."""
        return None if self.proc is None else terminate(self.proc, timeout_s)

    def log_tail(self, lines: int = 40) -> str:
        """The last ``lines`` lines of the worker's log."""
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""
