"""A task's Spark application: a child process running spark-submit of :mod:`connectors.spark.job`.

The worker never hosts a JVM: spark-submit runs in its own process group, so stopping the task stops
the driver, the local executors and their Python workers together. If the worker dies without stopping
it (SIGKILL), the kernel kills spark-submit (``PR_SET_PDEATHSIG``) and the driver's own watch on the
worker's pid ends the Python side; a zombie deliverer that is still running is fenced by the next
deliverer of its slot.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import logging
import os
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import deque
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from connect_runtime.api import ConnectException
from connect_runtime.api.processes import pids_with_env
from connectors.spark import job

logger = logging.getLogger(__name__)

_PR_SET_PDEATHSIG = 1
#: Set in every local process of an application, to find them all when it stops.
TOKEN_ENV = "CONNECT_SPARK_SOURCE_APP"
_STDERR_TAIL = 60


def spark_home() -> Path:
    """The installed pyspark's own Spark distribution (bin/spark-submit, jars)."""
    import pyspark  # the spark extra's: the worker imports this connector whether or not it is installed

    return Path(pyspark.__file__).parent


def _die_with_parent() -> None:
    """Runs in the child before exec: SIGKILL it when the thread that started it (the task's) ends."""
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    except OSError:  # not Linux: the driver's watch on the worker's pid still ends the application
        pass


class SparkApplication:
    """One run of the job module; events from the driver arrive on :attr:`events`."""

    def __init__(self, name: str, master: str, spark_conf: Mapping[str, str], spec: Mapping[str, Any]) -> None:
        self.name = name
        self.master = master
        self.spark_conf = dict(spark_conf)
        self.spec = dict(spec)
        self.events: queue.Queue[dict[str, Any]] = queue.Queue()
        self.app_id: str | None = None
        self.ui: str | None = None
        self._process: subprocess.Popen[str] | None = None
        self._dir = Path(tempfile.mkdtemp(prefix="spark-source-"))
        self._stderr: deque[str] = deque(maxlen=_STDERR_TAIL)
        self._readers: list[threading.Thread] = []
        self._token = uuid.uuid4().hex

    def command(self) -> list[str]:
        conf = {
            "spark.app.name": self.name,
            "spark.pyspark.python": sys.executable,
            "spark.pyspark.driver.python": sys.executable,
            "spark.ui.showConsoleProgress": "false",
            "spark.sql.files.maxPartitionBytes": job.NO_SPLIT,
            "spark.sql.files.openCostInBytes": job.NO_SPLIT,
            "spark.sql.adaptive.enabled": "false",
            # One partition per slot: a union of single-partition slot frames must not be zipped into one.
            "spark.sql.unionOutputPartitioning": "false",
            # A row is malformed whatever columns transform.sql keeps (and positions never depend on it).
            "spark.sql.csv.parser.columnPruning.enabled": "false",
        }
        for key in ("spark.sql.files.maxPartitionBytes", "spark.sql.files.openCostInBytes",
                    "spark.sql.unionOutputPartitioning"):
            if key in self.spark_conf:
                raise ConnectException(f"spark.conf.{key} cannot be set: SparkSource reads every file whole, "
                                       "one delivery slot per partition, so that row positions stay exact")
        conf.update(self.spark_conf)
        cmd = [str(spark_home() / "bin" / "spark-submit"), "--master", self.master]
        for key, value in conf.items():
            cmd += ["--conf", f"{key}={value}"]
        spec_path = self._dir / "spec.json"
        spec_path.write_text(json.dumps(self.spec), encoding="utf-8")
        return [*cmd, job.__file__, str(spec_path)]

    def start(self) -> None:
        env = dict(os.environ)
        env.pop("SPARK_HOME", None)  # the installed pyspark's own, found by its scripts
        env["PYSPARK_PYTHON"] = sys.executable
        env["PYSPARK_DRIVER_PYTHON"] = sys.executable
        env["PYTHONPATH"] = os.pathsep.join(p for p in [_package_root(), env.get("PYTHONPATH", "")] if p)
        # Inherited by every local process of the application, including PySpark's daemon, which leaves
        # the process group: stop() finds them all by it.
        env[TOKEN_ENV] = self._token
        cmd = self.command()
        logger.info("Launching Spark application %s on %s", self.name, self.master)
        self._process = subprocess.Popen(
            cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env=env, cwd=self._dir, start_new_session=True, preexec_fn=_die_with_parent)
        self._readers = [threading.Thread(target=self._read_events, name=f"{self.name}-events", daemon=True),
                         threading.Thread(target=self._read_stderr, name=f"{self.name}-stderr", daemon=True)]
        for t in self._readers:
            t.start()

    def _read_events(self) -> None:
        assert self._process is not None and self._process.stdout is not None
        for line in self._process.stdout:
            if line.startswith(job.EVENT_PREFIX):
                try:
                    event = json.loads(line[len(job.EVENT_PREFIX):])
                except ValueError:
                    continue
                if event.get("event") == "started":
                    self.app_id, self.ui = event.get("app_id"), event.get("ui")
                self.events.put(event)
            elif line.strip():
                logger.info("[%s] %s", self.name, line.rstrip())

    def _read_stderr(self) -> None:
        assert self._process is not None and self._process.stderr is not None
        for line in self._process.stderr:
            self._stderr.append(line.rstrip())
            if " ERROR " in line or "Exception" in line:
                logger.debug("[%s] %s", self.name, line.rstrip())

    def exit_code(self) -> int | None:
        return None if self._process is None else self._process.poll()

    def stderr_tail(self) -> str:
        return "\n".join(self._stderr)

    @property
    def pid(self) -> int | None:
        return None if self._process is None else self._process.pid

    def stop(self, timeout_s: float = 15.0) -> None:
        """Stop the whole application: SIGTERM to its process group and to PySpark's daemon and workers
        (which left the group; deliverers abort their open transaction on it), then SIGKILL whatever
        is left after ``timeout_s``."""
        process = self._process
        if process is None:
            return
        deadline = time.monotonic() + timeout_s
        if process.poll() is None:
            _signal_group(process.pid, signal.SIGTERM)
            self._signal_marked(signal.SIGTERM)
            try:
                process.wait(timeout_s)
            except subprocess.TimeoutExpired:
                logger.warning("Spark application %s did not stop in %.0f s; killing it", self.name, timeout_s)
        _signal_group(process.pid, signal.SIGKILL)
        while pids_with_env(TOKEN_ENV, self._token) and time.monotonic() < deadline:
            time.sleep(0.1)  # deliverers aborting their transaction
        self._signal_marked(signal.SIGKILL)
        try:
            process.wait(5)
        except subprocess.TimeoutExpired:
            logger.error("Spark application %s (pid %d) survived SIGKILL", self.name, process.pid)
        for t in self._readers:
            t.join(2)
        shutil.rmtree(self._dir, ignore_errors=True)

    def _signal_marked(self, sig: int) -> None:
        for pid in pids_with_env(TOKEN_ENV, self._token):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, sig)

    def wait_started(self, timeout_s: float, stopping: threading.Event) -> dict[str, Any] | None:
        """The first event (``started`` or ``error``), or None if the process ended first or we stopped."""
        deadline = time.monotonic() + timeout_s
        while not stopping.is_set():
            try:
                return self.events.get(timeout=0.2)
            except queue.Empty:
                pass
            if self.exit_code() is not None and self.events.empty():
                return None
            if time.monotonic() > deadline:
                raise ConnectException(
                    f"Spark application {self.name} did not start within {timeout_s * 1000:.0f} ms "
                    f"(spark.submit.timeout.ms) on {self.master}. Last lines of spark-submit:\n"
                    + self.stderr_tail())
        return None


def _signal_group(pid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, sig)


def _package_root() -> str:
    """The directory holding the ``connectors`` and ``connect_runtime`` packages (for the driver and
    local executors; a remote cluster needs them installed or shipped, see docs/spark.md)."""
    return str(Path(job.__file__).resolve().parents[2])
