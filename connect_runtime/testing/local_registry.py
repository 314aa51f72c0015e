"""A real schema registry with Confluent's REST API, for development and tests.

The registry is Apicurio Registry (:data:`APICURIO_VERSION`), whose Confluent-compatible API
(``/apis/ccompat/v7``) is what Confluent's converters and confluent-kafka's serializers talk to. Its
distribution is fetched once from Maven Central with ``mvn`` into a cache directory outside the
repository (:func:`ensure_registry`) and started as a detached ``java`` process on 127.0.0.1. Why
Apicurio: Confluent's own registry is not on Maven Central, and this release still runs on Java 17.

Settings that make it behave like Confluent's registry:

- its storage is an H2 database *file* in the data dir, so subjects and schema ids survive a restart
  (and a SIGKILL): a client that cached id 3 still finds schema 3 after the registry comes back;
- schemas are compared by their canonical form (``registry.ccompat.use-canonical-hash``), so the same
  schema written with other spacing or field order gets the same id, as on Confluent;
- the global compatibility level is BACKWARD, Confluent's default, set once on the first start (a
  level changed later through the API is kept across restarts).

Everything about one registry lives in its *data dir*: the port in ``registry.json`` (chosen once and
reused, so that a restart gives the same URL), the H2 database in ``db/``, the registry's log and the
JVM's output in ``logs/``, and the running registry's pid in ``registry.pid``.

Library use::

    registry = LocalRegistry(Path("/tmp/my-registry"))
    url = registry.start()      # "http://127.0.0.1:PORT/apis/ccompat/v7"
    ...
    registry.stop()

Its command line (``connect-runtime local-registry start [--port P]``, ``stop``, ``status``, each with
``--data-dir D``) and its data dir's lock are those of every local service
(:mod:`connect_runtime.testing.launcher`).
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import sys
import tarfile
import urllib.request
from collections.abc import Callable
from pathlib import Path

from connect_runtime.testing.java_service import MavenRun, cache_root, fetch_once, find_java
from connect_runtime.testing.launcher import DIRECT_HTTP, HOST, LauncherError, SingleProcessService, http_probe

logger = logging.getLogger(__name__)

APICURIO_VERSION = "2.6.13.Final"
"""The pinned Apicurio Registry release (the 3.x line needs Java 21)."""

APICURIO_ARTIFACT = f"io.apicurio:apicurio-registry-app:{APICURIO_VERSION}:tar.gz:all"
"""Its distribution on Maven Central (group:artifact:version:type:classifier)."""

MIN_JAVA_VERSION = 17

CCOMPAT_PATH = "/apis/ccompat/v7"
"""The path of the Confluent-compatible API: ``schema.registry.url`` is ``http://HOST:PORT`` + this."""

DEFAULT_COMPATIBILITY = "BACKWARD"
"""The global compatibility level set on the first start (Confluent's default; Apicurio's is NONE)."""

DEFAULT_DATA_DIR = Path(".local-registry")
"""Default data dir of the command line, relative to the working directory."""

DEFAULT_START_TIMEOUT = 60.0
"""Seconds to wait for a starting registry to be ready (it takes about 3 s)."""

DEFAULT_STOP_TIMEOUT = 20.0
"""Seconds to wait after SIGTERM before the registry is killed (it takes about 1.5 s)."""

_RUNNER_JAR = f"apicurio-registry-app-{APICURIO_VERSION}-runner.jar"
_JVM_OPTS = ["-Xmx256m", "-XX:+UseG1GC", "-Djava.awt.headless=true"]


class LocalRegistryError(LauncherError):
    """A local registry could not be fetched, started or stopped (``detail``: its logs' tails)."""


def default_cache_dir() -> Path:
    """Where the registry's distribution is cached, named by its version."""
    return cache_root() / f"apicurio-registry-{APICURIO_VERSION}"


def ensure_registry(cache_dir: Path | None = None) -> Path:
    """The directory of the unpacked registry distribution (its runner jar and ``lib/``), fetched with
    ``mvn`` into ``cache_dir`` the first time (142 MB). Raises :class:`LocalRegistryError` when ``mvn``
    is needed but missing or fails."""
    cache_dir = (cache_dir or default_cache_dir()).expanduser().resolve()

    def fetch(mvn: MavenRun, partial: Path) -> list[str]:
        download = cache_dir / "download"
        shutil.rmtree(download, ignore_errors=True)
        if mvn("dependency:copy", f"-Dartifact={APICURIO_ARTIFACT}", f"-DoutputDirectory={download}") != 0:
            return []
        tarballs = list(download.glob("*.tar.gz"))
        if len(tarballs) != 1:
            return []
        with tarfile.open(tarballs[0]) as archive:
            archive.extractall(partial, filter="data")
        shutil.rmtree(download)  # mvn keeps its own copy in its local repository
        if not (partial / _RUNNER_JAR).is_file() or not (partial / "lib").is_dir():
            return []
        return sorted(str(p.relative_to(partial)) for p in partial.rglob("*.jar"))

    return fetch_once(cache_dir, "dist", {"apicurio_version": APICURIO_VERSION}, fetch,
                      what=f"Apicurio Registry {APICURIO_VERSION}", error=LocalRegistryError)


class LocalRegistry(SingleProcessService):
    """An Apicurio schema registry on 127.0.0.1 serving Confluent's API, owning ``data_dir``.

    The registry runs detached from the calling process until :meth:`stop` is called, from this object
    or from any other ``LocalRegistry`` on the same data dir. :meth:`stop` keeps the schemas;
    :meth:`start` on the same data dir serves them again, with the same ids, on the same port.
    """

    command = "local-registry"
    title = "Apicurio Registry"
    description = (f"Run a local Apicurio Registry {APICURIO_VERSION} on {HOST} serving Confluent's schema "
                   f"registry API at {CCOMPAT_PATH}.")
    start_help = "start the registry (no-op if running) and print schema.registry.url"
    stop_help = "stop the registry (the schemas are kept)"
    status_help = "say whether the registry runs"
    timeout_help = "seconds to wait for readiness"
    data_dir_help = "registry state directory"
    default_data_dir = DEFAULT_DATA_DIR
    default_start_timeout = DEFAULT_START_TIMEOUT
    default_stop_timeout = DEFAULT_STOP_TIMEOUT
    state_file_name = "registry.json"
    pid_file_name = "registry.pid"
    log_file_name = "registry.log"
    address_key = "schema.registry.url"
    error = LocalRegistryError

    def __init__(self, data_dir: Path | str = DEFAULT_DATA_DIR, *, cache_dir: Path | None = None) -> None:
        """Prepare (but do not start) a registry for ``data_dir``; its distribution goes to ``cache_dir``."""
        super().__init__(data_dir, cache_dir=cache_dir)

    @property
    def url(self) -> str | None:
        """``schema.registry.url`` recorded for this data dir (running or not), if any."""
        return self.address

    # -- the process ------------------------------------------------------------------------------
    def _address(self, port: int) -> str:
        return f"http://{HOST}:{port}{CCOMPAT_PATH}"

    def _identifying_args(self) -> tuple[str, ...]:
        return (f"-Dquarkus.log.file.path={self.main_log}",)

    def _launch(self, port: int | None) -> None:
        java = find_java(MIN_JAVA_VERSION, f"Apicurio Registry {APICURIO_VERSION}", LocalRegistryError)
        chosen = self._choose_port(port)
        dist = ensure_registry(self.cache_dir)
        db = self.data_dir / "db"
        db.mkdir(parents=True, exist_ok=True)
        cmd = [
            java,
            *_JVM_OPTS,
            f"-Dquarkus.http.host={HOST}",
            f"-Dquarkus.http.port={chosen}",
            "-Dregistry.ccompat.use-canonical-hash=true",
            "-Dquarkus.log.file.enable=true",
            f"-Dquarkus.log.file.path={self.main_log}",
            # Its file log has everything; the console would only repeat it into stdout.log.
            "-Dquarkus.log.console.enable=false",
            # One INFO line per request otherwise.
            '-Dquarkus.log.category."io.apicurio.common.apps.logging.audit".level=WARN',
            "-jar",
            str(dist / _RUNNER_JAR),
        ]
        # The H2 URL goes through the environment: Apicurio reads its datasource URL from there.
        env = {**os.environ, "REGISTRY_DATASOURCE_URL": f"jdbc:h2:file:{db / 'registry'}"}
        logger.info("starting Apicurio Registry %s in %s", APICURIO_VERSION, self.data_dir)
        self._spawn(cmd, self.stdout_log, self.pid_file, env)

    def _readiness(self) -> str:
        return f"answer http://{HOST}:{self._recorded_port()}/health/ready"

    def _probe(self) -> Callable[[float], str | None]:
        url = f"http://{HOST}:{self._recorded_port()}/health/ready"
        return lambda remaining: http_probe(url, timeout_s=min(5.0, max(0.5, remaining)))

    def _on_ready(self, port: int) -> None:
        state = self._read_state()
        if state.get("compatibility_set"):
            return
        request = urllib.request.Request(
            f"{self._address(port)}/config", method="PUT",
            data=json.dumps({"compatibility": DEFAULT_COMPATIBILITY}).encode(),
            headers={"Content-Type": "application/vnd.schemaregistry.v1+json"})
        try:
            with DIRECT_HTTP.open(request, timeout=30) as resp:
                resp.read()
        except OSError as exc:
            raise LocalRegistryError(f"could not set the registry's global compatibility to "
                                     f"{DEFAULT_COMPATIBILITY}: {exc}") from exc
        self._write_state({**state, "compatibility_set": True})


def cli(argv: list[str] | None = None) -> int:
    """``connect-runtime local-registry start|stop|status``; returns the process exit code.

    ``start`` prints exactly ``schema.registry.url=http://127.0.0.1:PORT/apis/ccompat/v7`` on stdout;
    progress goes to stderr. ``status`` exits 0 when running and 1 when not. Errors are one line on
    stderr and exit code 1.
    """
    return LocalRegistry.cli(argv)


if __name__ == "__main__":
    sys.exit(cli())
