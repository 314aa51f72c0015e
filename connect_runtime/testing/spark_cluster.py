"""A real Spark standalone cluster (one master, N workers) on 127.0.0.1 for tests and for trying out.

Why a real cluster: ``local[*]`` runs the driver and its tasks in one JVM, so it never exercises
what breaks in production: serialising closures to other processes, executors that die mid-job,
task retries (``spark.task.maxFailures`` is 1 in local mode, 4 on a cluster), Python workers
running in another process tree. This module starts the standalone master and workers that ship
inside the installed ``pyspark`` (``<pyspark>/bin/spark-class``), so no separate Spark download is
needed; Java 17+ must be on ``PATH`` (or ``JAVA_HOME`` set).

Everything of one cluster lives in its *work dir*:

``cluster.json``
    the ports, the worker shape and the cluster's *token* (see below), written on start;
``master.pid``, ``worker-<i>.pid``
    the pids of the daemons while they run;
``logs/master.log``, ``logs/worker-<i>.log``
    the daemons' output (log4j at INFO on stderr);
``worker-<i>/``
    a worker's work dir: one ``<app-id>/<executor-id>/`` directory (with the executor's ``stdout``
    and ``stderr``) per executor it launched;
``local/``
    ``SPARK_LOCAL_DIRS`` of the workers and their executors (shuffle and block files);
``conf/``
    an empty ``SPARK_CONF_DIR``, so a ``spark-defaults.conf`` or ``spark-env.sh`` of the machine does
    not leak into the cluster.

Finding every process: the master and each worker run in their own session (so a signal to the
process group reaches the daemon and the executor JVMs it forks), but PySpark's Python daemon moves
itself into a new process group, and processes whose parent died are re-parented. So every process
is started with the environment variable :data:`TOKEN_ENV` set to the cluster's token; the variable
is inherited by executors and their Python workers, and ``/proc/<pid>/environ`` tells which live
processes belong to the cluster, even from another Python process (``connect-runtime local-spark
stop``). Process discovery therefore needs Linux's ``/proc``.

Python: the workers run with ``PYSPARK_PYTHON`` set to the caller's interpreter (``sys.executable``)
and with its directory first on ``PATH``. The driver decides which Python the executors start (its
own ``PYSPARK_PYTHON``, default ``python3``), so submit with :meth:`LocalSparkCluster.submit_env`
(``PYSPARK_PYTHON`` and ``PYSPARK_DRIVER_PYTHON`` = ``sys.executable``); a driver without it still
gets this interpreter through the workers' ``PATH``. That only works because driver and workers
share this machine: on a remote cluster, ship the Python environment with the application
(``spark.archives`` with a packed virtualenv, e.g. ``venv-pack``, and ``PYSPARK_PYTHON`` pointing into
the unpacked archive) or pre-install the same environment on every node.

Hosts: by default every daemon binds to 127.0.0.1, so Spark sees one host. With ``distinct_hosts=True``
worker ``i`` binds to ``127.0.0.<i>`` instead (Linux routes all of 127.0.0.0/8 to the loopback device;
other systems usually have only 127.0.0.1), so that Spark sees a host per worker as on a real cluster:
it never launches a speculative copy of a task on a host where the task already runs, so speculation
(``spark.speculation``) only ever happens with distinct hosts.

Memory: an executor asks for ``spark.executor.memory`` (default ``1g``) and is only launched on a
worker offering at least that much, so with ``worker_memory="512m"`` an application with default
settings waits forever for resources. Each daemon JVM gets ``SPARK_DAEMON_MEMORY`` (default here
``512m``) of heap.

Library use::

    with LocalSparkCluster(Path("/tmp/spark"), workers=2) as cluster:
        subprocess.run(cluster.submit_command(Path("app.py")), env=cluster.submit_env(), check=True)

Command line (wired as ``connect-runtime local-spark``)::

    connect-runtime local-spark start [--workers N] [--cores C] [--memory M] [--data-dir D]
    connect-runtime local-spark status [--data-dir D]
    connect-runtime local-spark stop [--data-dir D]

The work dir, its lock and the command line are those of every local service
(:mod:`connect_runtime.testing.launcher`).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import logging
import os
import shutil
import signal
import sys
import time
import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

from connect_runtime.api.processes import cmdline, env_value, parent_pid, pid_alive, proc_pids
from connect_runtime.testing.launcher import DIRECT_HTTP, HOST, LauncherError, LocalService, free_ports, send_signal

logger = logging.getLogger(__name__)

MASTER_CLASS = "org.apache.spark.deploy.master.Master"
WORKER_CLASS = "org.apache.spark.deploy.worker.Worker"
EXECUTOR_CLASS = "org.apache.spark.executor.CoarseGrainedExecutorBackend"

TOKEN_ENV = "CONNECT_RUNTIME_SPARK_CLUSTER"
"""Environment variable carrying the cluster's token into every process it starts."""

DEFAULT_DATA_DIR = Path(".local-spark")
"""Default work dir of the command line, relative to the working directory."""

DEFAULT_START_TIMEOUT = 90.0
"""Seconds to wait for the master to list every worker as ALIVE."""

DEFAULT_STOP_TIMEOUT = 20.0
"""Seconds to wait after SIGTERM before a process group is killed."""

DEFAULT_DAEMON_MEMORY = "512m"
"""Heap of the master and worker JVMs (``SPARK_DAEMON_MEMORY``) unless the environment sets it."""

_STATE_FILE = "cluster.json"


class LocalSparkError(LauncherError):
    """The cluster could not be started or stopped (``detail``: the tails of the daemons' logs)."""


@dataclass(frozen=True)
class SparkApplication:
    """One application as the master lists it (``state``: RUNNING, WAITING, FINISHED, KILLED, ...)."""

    id: str
    name: str
    state: str


def spark_home() -> Path:
    """The installed ``pyspark`` package directory, which is a complete ``SPARK_HOME`` (jars, bin).

    Located without importing ``pyspark`` (which would pull in py4j). Raises :class:`LocalSparkError`
    when pyspark is not installed.
    """
    spec = importlib.util.find_spec("pyspark")
    if spec is None or spec.origin is None:
        raise LocalSparkError("pyspark is not installed (pip install 'connect-runtime[spark]')")
    return Path(spec.origin).resolve().parent


# --------------------------------------------------------------------------------------------------
# /proc helpers


def _has_token(pid: int, token: str) -> bool:
    return env_value(pid, TOKEN_ENV) == token


def _descendants(roots: Iterable[int]) -> set[int]:
    """``roots`` (those alive) and every live process below them, from one scan of ``/proc``."""
    children: dict[int, list[int]] = {}
    for pid in proc_pids():
        parent = parent_pid(pid)
        if parent is not None:
            children.setdefault(parent, []).append(pid)
    found: set[int] = set()
    todo = [pid for pid in roots if pid_alive(pid)]
    while todo:
        pid = todo.pop()
        if pid not in found:
            found.add(pid)
            todo.extend(children.get(pid, ()))
    return {pid for pid in found if pid_alive(pid)}


def _app_id_of(cmdline: list[str]) -> str | None:
    with contextlib.suppress(ValueError, IndexError):
        return cmdline[cmdline.index("--app-id") + 1]
    return None


# --------------------------------------------------------------------------------------------------
# the cluster


class LocalSparkCluster(LocalService):
    """A Spark standalone master and ``workers`` workers on 127.0.0.1, owning ``work_dir``.

    The daemons run detached from the calling process (their own sessions): they outlive it until
    :meth:`stop` is called, from this object or from any other ``LocalSparkCluster`` on the same work
    dir (the command line relies on this). Use it as a context manager to stop it on exit.

    :meth:`stop` stops the workers, then the master, then anything else of the cluster, and is
    idempotent: each daemon's process group (the daemon and the executor JVMs it forked) gets SIGTERM,
    then SIGKILL after ``timeout_s``; finally every remaining process carrying the cluster's token
    (PySpark daemons and workers, orphans) is killed. It returns True when something was running.
    """

    command = "local-spark"
    title = "Spark"
    description = f"Run a local Spark standalone cluster (master + workers) on {HOST} from the installed pyspark."
    start_help = "start the cluster (no-op if running) and print spark.master"
    stop_help = "stop the cluster and everything it started, executors included"
    status_help = "say whether the cluster runs"
    timeout_help = "seconds to wait for the workers"
    data_dir_help = "cluster work dir: pid files, logs, executor dirs"
    default_data_dir = DEFAULT_DATA_DIR
    default_start_timeout = DEFAULT_START_TIMEOUT
    default_stop_timeout = DEFAULT_STOP_TIMEOUT
    state_file_name = _STATE_FILE

    def __init__(
        self, work_dir: Path | str, workers: int = 2, cores_per_worker: int = 1, worker_memory: str = "1g",
        distinct_hosts: bool = False,
    ) -> None:
        """Prepare (but do not start) a cluster; each worker offers ``cores_per_worker`` cores and
        ``worker_memory`` (a JVM size such as ``"1g"`` or ``"512m"``) to executors. ``distinct_hosts``:
        worker ``i`` binds to ``127.0.0.<i>`` (Linux), a host of its own for Spark."""
        if workers < 1 or cores_per_worker < 1:
            raise ValueError("a cluster needs at least one worker with at least one core")
        if distinct_hosts and workers > 254:
            raise ValueError("distinct_hosts allows at most 254 workers")
        super().__init__(work_dir)
        self.workers = workers
        self.cores_per_worker = cores_per_worker
        self.worker_memory = worker_memory
        self.distinct_hosts = distinct_hosts
        self._state: dict[str, Any] | None = None

    # -- paths and addresses ----------------------------------------------------------------------
    @property
    def work_dir(self) -> Path:
        """The cluster's data dir."""
        return self.data_dir

    @property
    def log_dir(self) -> Path:
        """Where the master's and the workers' logs are written."""
        return self.logs_dir

    @property
    def master_url(self) -> str:
        """``spark://127.0.0.1:PORT``, the ``--master`` of applications."""
        return f"spark://{HOST}:{self._recorded('master_port')}"

    @property
    def web_ui_url(self) -> str:
        """The master's web UI; ``<web_ui_url>/json/`` is its machine-readable status."""
        return f"http://{HOST}:{self._recorded('webui_port')}"

    def worker_host(self, index: int) -> str:
        """The address worker ``index`` (1-based) binds to and Spark knows it by."""
        return f"127.0.0.{index}" if self.distinct_hosts else HOST

    # -- lifecycle --------------------------------------------------------------------------------
    def start(self, timeout_s: float = DEFAULT_START_TIMEOUT) -> str:
        """Start the master and the workers and return :attr:`master_url`.

        Blocks until the master lists all workers as ALIVE (at most ``timeout_s`` seconds). When
        this cluster's work dir already has a running master, nothing is started and its URL is
        returned. On failure everything started is stopped and :class:`LocalSparkError` is raised
        with the tails of the logs.
        """
        with self._locked():
            self._state = None  # another LocalSparkCluster may have (re)started this work dir
            if "master" in self.daemon_pids():
                logger.info("a Spark cluster already runs in %s", self.work_dir)
                return self.master_url
            self._stop_locked(DEFAULT_STOP_TIMEOUT)  # leftovers of a crashed run
            if not os.environ.get("JAVA_HOME") and shutil.which("java") is None:
                raise LocalSparkError("java was not found on PATH (and JAVA_HOME is not set); Spark needs Java 17+")
            home = spark_home()
            spark_class = home / "bin" / "spark-class"
            if not os.access(spark_class, os.X_OK):
                raise LocalSparkError(f"{spark_class} is missing or not executable")
            ports = free_ports(2 + self.workers)
            self._state = {
                "token": uuid.uuid4().hex,
                "master_port": ports[0],
                "webui_port": ports[1],
                "worker_webui_ports": ports[2:],
                "workers": self.workers,
                "cores_per_worker": self.cores_per_worker,
                "worker_memory": self.worker_memory,
                "worker_hosts": [self.worker_host(i) for i in range(1, self.workers + 1)],
            }
            self._write_state(self._state)
            env = self._daemon_env(home)
            logger.info("starting Spark master and %d worker(s) in %s", self.workers, self.work_dir)
            try:
                self._launch(
                    "master",
                    [str(spark_class), MASTER_CLASS, "--host", HOST, "--port", str(ports[0]),
                     "--webui-port", str(ports[1])],
                    env,
                )
                # A worker that registers before the master is elected leader is ignored and retries
                # only 5-15 s later: starting the workers once the master is ALIVE is faster.
                deadline = time.monotonic() + timeout_s
                self._wait_until(lambda: self.status().get("status") == "ALIVE", deadline, timeout_s, "the master")
                for i, webui in enumerate(ports[2:], start=1):
                    worker_dir = self.work_dir / f"worker-{i}"
                    worker_dir.mkdir(exist_ok=True)
                    self._launch(
                        f"worker-{i}",
                        [str(spark_class), WORKER_CLASS, "--host", self.worker_host(i), "--webui-port", str(webui),
                         "--cores", str(self.cores_per_worker), "--memory", self.worker_memory,
                         "--work-dir", str(worker_dir), self.master_url],
                        # Its executors inherit the address too.
                        {**env, "SPARK_LOCAL_IP": self.worker_host(i), "SPARK_LOCAL_HOSTNAME": self.worker_host(i)},
                    )
                expected = {f"http://{self.worker_host(i)}:{port}" for i, port in enumerate(ports[2:], start=1)}
                self._wait_until(
                    lambda: expected <= {w.get("webuiaddress") for w in self.status().get("workers", [])
                                         if w.get("state") == "ALIVE"},
                    deadline,
                    timeout_s,
                    f"{self.workers} worker(s)",
                )
            except BaseException:
                self._stop_locked(DEFAULT_STOP_TIMEOUT)
                raise
            logger.info("Spark master %s with %d worker(s) is up (web UI %s)",
                        self.master_url, self.workers, self.web_ui_url)
            return self.master_url

    def __enter__(self) -> LocalSparkCluster:
        self.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    # -- inspection -------------------------------------------------------------------------------
    def status(self) -> dict[str, Any]:
        """The master's JSON status (``/json/``): workers, ``activeapps``, ``completedapps``, ..."""
        url = f"{self.web_ui_url}/json/"
        try:
            with DIRECT_HTTP.open(url, timeout=5) as resp:
                data = json.load(resp)
        except (OSError, ValueError) as exc:
            raise LocalSparkError(f"the Spark master status at {url} is not available: {exc}") from exc
        if not isinstance(data, dict):
            raise LocalSparkError(f"unexpected answer from {url}: {data!r}")
        return data

    def applications(self) -> list[SparkApplication]:
        """The active and the completed applications the master knows, oldest first."""
        data = self.status()
        apps = [*data.get("activeapps", []), *data.get("completedapps", [])]
        apps.sort(key=lambda app: app.get("starttime", 0))
        return [SparkApplication(str(a.get("id")), str(a.get("name")), str(a.get("state"))) for a in apps]

    def alive_pids(self) -> list[int]:
        """Every live process of this cluster: daemons, executors, Python daemons and workers."""
        token = self._recorded_token()
        if token is None:
            return []
        roots = [*self.daemon_pids().values(), *(p.pid for p in self._procs)]
        marked = [pid for pid in proc_pids() if _has_token(pid, token)]
        return sorted(_descendants([*roots, *marked]))

    def executor_pids(self, app_id: str | None = None) -> list[int]:
        """PIDs of the live executor JVMs of this cluster, of application ``app_id`` when given.

        An executor is a process whose command line runs :data:`EXECUTOR_CLASS` and that either
        carries the cluster's token in its environment, descends from one of the workers, or runs in
        a worker's work dir.
        """
        token = self._recorded_token()
        below_workers = _descendants(pid for name, pid in self.daemon_pids().items() if name != "master")
        found = []
        for pid in proc_pids():
            args = cmdline(pid)
            if EXECUTOR_CLASS not in args or (app_id is not None and _app_id_of(args) != app_id):
                continue
            if (token is not None and _has_token(pid, token)) or pid in below_workers or self._runs_in_work_dir(pid):
                found.append(pid)
        return sorted(pid for pid in found if pid_alive(pid))

    def kill_executor(self, pid: int) -> None:
        """SIGKILL one executor JVM of this cluster (its tasks are lost and Spark must retry them)."""
        if pid not in self.executor_pids():
            raise LocalSparkError(f"pid {pid} is not a live executor of the Spark cluster in {self.work_dir}")
        logger.info("killing Spark executor pid %d", pid)
        send_signal(pid, signal.SIGKILL)

    # -- for drivers ------------------------------------------------------------------------------
    def submit_env(self, base: Mapping[str, str] | None = None) -> dict[str, str]:
        """Environment for a driver (``spark-submit``, or ``pyspark`` in a subprocess) of this cluster.

        ``base`` (default ``os.environ``) plus ``PYSPARK_PYTHON`` and ``PYSPARK_DRIVER_PYTHON`` =
        ``sys.executable``, so the driver and the executors run the caller's interpreter, and
        ``SPARK_LOCAL_IP`` so the driver binds to 127.0.0.1 like the cluster.
        """
        env = dict(os.environ if base is None else base)
        env.pop(TOKEN_ENV, None)
        env.update(PYSPARK_PYTHON=sys.executable, PYSPARK_DRIVER_PYTHON=sys.executable, SPARK_LOCAL_IP=HOST)
        return env

    def submit_command(self, app: Path | str, *app_args: str, conf: Mapping[str, str] | None = None) -> list[str]:
        """``<pyspark>/bin/spark-submit --master <master_url> [--conf k=v]... app [app_args]`` to run
        with :meth:`submit_env`. The driver's web UI is off unless ``conf`` turns it on."""
        settings = {"spark.ui.enabled": "false", "spark.driver.host": HOST, **(conf or {})}
        cmd = [str(spark_home() / "bin" / "spark-submit"), "--master", self.master_url]
        for key, value in settings.items():
            cmd += ["--conf", f"{key}={value}"]
        return [*cmd, str(app), *app_args]

    # -- internals --------------------------------------------------------------------------------
    def _daemon_env(self, home: Path) -> dict[str, str]:
        conf_dir = self.work_dir / "conf"
        local_dir = self.work_dir / "local"
        conf_dir.mkdir(exist_ok=True)
        local_dir.mkdir(exist_ok=True)
        env = dict(os.environ)
        python_bin = str(Path(sys.executable).parent)
        env.update(
            {
                TOKEN_ENV: self._recorded_token() or "",
                "SPARK_HOME": str(home),
                "SPARK_CONF_DIR": str(conf_dir),
                "SPARK_LOCAL_DIRS": str(local_dir),
                "SPARK_LOCAL_IP": HOST,
                "SPARK_LOCAL_HOSTNAME": HOST,
                "SPARK_DAEMON_MEMORY": os.environ.get("SPARK_DAEMON_MEMORY", DEFAULT_DAEMON_MEMORY),
                # Off by default in recent Spark; pinned so that it never grabs the fixed port 6066.
                "SPARK_MASTER_OPTS": "-Dspark.master.rest.enabled=false",
                "PYSPARK_PYTHON": sys.executable,
                "PATH": os.pathsep.join([python_bin, env.get("PATH", "")]),
            }
        )
        for var in ("PYSPARK_DRIVER_PYTHON", "SPARK_MASTER_HOST", "SPARK_MASTER_PORT", "SPARK_WORKER_DIR",
                    "SPARK_WORKER_CORES", "SPARK_WORKER_MEMORY", "SPARK_WORKER_OPTS"):
            env.pop(var, None)
        return env

    def _launch(self, name: str, cmd: list[str], env: dict[str, str]) -> None:
        # spark-class execs the JVM, so the pid written becomes the daemon's.
        self._spawn(cmd, self.log_dir / f"{name}.log", self.work_dir / f"{name}.pid", env)

    def _wait_until(self, condition: Callable[[], bool], deadline: float, timeout_s: float, what: str) -> None:
        """Poll the master until ``condition`` holds; fail early when a daemon exits, with log tails."""
        last = "no answer yet"
        while True:
            exited = self._exited_child()
            if exited is not None:
                raise LocalSparkError(
                    f"a Spark daemon (pid {exited.pid}) exited during startup with code {exited.returncode}; "
                    f"see {self.log_dir}",
                    self._log_tails(sorted(self.log_dir.glob("*.log"))),
                )
            try:
                if condition():
                    return
                last = "not yet"
            except LocalSparkError as exc:
                last = exc.message
            if time.monotonic() >= deadline:
                raise LocalSparkError(
                    f"the master in {self.work_dir} did not list {what} as ALIVE within {timeout_s:g} s ({last})",
                    self._log_tails(sorted(self.log_dir.glob("*.log"))),
                )
            time.sleep(0.2)

    def _stop_locked(self, timeout_s: float) -> bool:
        self._state = None  # another LocalSparkCluster may have (re)started this work dir
        token = self._recorded_token()
        daemons = self.daemon_pids()
        was_running = bool(self.alive_pids())
        # Workers first (their executors are in their process groups), then the master.
        self._terminate({f"Spark {n}": pid for n, pid in daemons.items() if n != "master"}, timeout_s, groups=True)
        self._terminate({f"Spark {n}": pid for n, pid in daemons.items() if n == "master"}, timeout_s, groups=True)
        # What escaped the process groups (PySpark daemons call setpgid) or was re-parented.
        deadline = time.monotonic() + timeout_s
        while token is not None:
            rest = self.alive_pids()
            if not rest:
                break
            if time.monotonic() >= deadline:
                raise LocalSparkError(f"Spark processes {rest} of {self.work_dir} could not be killed")
            logger.info("killing leftover Spark processes %s", rest)
            for pid in rest:
                send_signal(pid, signal.SIGKILL)
            self._wait_gone(rest, 5.0)
        self._reap(5.0)
        for pid_file in self.work_dir.glob("*.pid"):
            pid_file.unlink(missing_ok=True)
        return was_running

    def daemon_pids(self) -> dict[str, int]:
        """The pids of the master and the workers that run now, by name (``master``, ``worker-1``, ...).

        Read from the pid files; a pid only counts when that process carries the cluster's token (so a
        reused pid is never mistaken for a daemon).
        """
        token = self._recorded_token()
        pids: dict[str, int] = {}
        for pid_file in sorted(self.work_dir.glob("*.pid")):
            pid = self._read_pid(pid_file)
            if pid is not None and token is not None and pid_alive(pid) and _has_token(pid, token):
                pids[pid_file.stem] = pid
        return pids

    def _runs_in_work_dir(self, pid: int) -> bool:
        try:
            cwd = Path(os.readlink(f"/proc/{pid}/cwd"))
        except OSError:
            return False
        return cwd.is_relative_to(self.work_dir)

    def _load_state(self) -> dict[str, Any]:
        if self._state is None:
            data = self._read_state()
            if not data:
                return {}
            self._state = data
        return self._state

    def _recorded(self, key: str) -> Any:
        value = self._load_state().get(key)
        if value is None:
            raise LocalSparkError(f"no Spark cluster was started in {self.work_dir}")
        return value

    def _recorded_token(self) -> str | None:
        token = self._load_state().get("token")
        return token if isinstance(token, str) and token else None

    # -- command line -----------------------------------------------------------------------------
    @classmethod
    def _add_start_arguments(cls, start: argparse.ArgumentParser) -> None:
        start.add_argument("--workers", type=int, default=2, help="number of workers (default: 2)")
        start.add_argument("--cores", type=int, default=1, help="cores per worker (default: 1)")
        start.add_argument("--memory", default="1g", help="memory per worker for executors (default: 1g)")

    @classmethod
    def _from_start_args(cls, args: argparse.Namespace) -> LocalSparkCluster:
        return cls(args.data_dir, args.workers, args.cores, args.memory)

    def _cli_start(self, args: argparse.Namespace) -> str:
        return f"spark.master={self.start(args.timeout)}"

    def _cli_status(self) -> bool:
        daemons = self.daemon_pids()
        if "master" not in daemons:
            print(f"not running (data dir {self.work_dir})")
            return False
        try:
            workers = [w for w in self.status().get("workers", []) if w.get("state") == "ALIVE"]
            apps = [a for a in self.applications() if a.state not in ("FINISHED", "KILLED", "FAILED")]
        except LocalSparkError:
            workers, apps = [], []
        print(f"running (master pid {daemons['master']}) spark.master={self.master_url} "
              f"web UI {self.web_ui_url} data dir {self.work_dir}")
        print(f"workers: {len(workers)} ALIVE, pids {sorted(pid for n, pid in daemons.items() if n != 'master')}")
        for app in apps:
            print(f"application {app.id} {app.name!r} {app.state}, executor pids {self.executor_pids(app.id)}")
        return True


# --------------------------------------------------------------------------------------------------
# command line


def cli(argv: list[str] | None = None) -> int:
    """``connect-runtime local-spark start|stop|status``; returns the process exit code.

    ``start`` prints exactly ``spark.master=spark://127.0.0.1:PORT`` on stdout; progress goes to
    stderr. ``status`` exits 0 when running and 1 when not. Errors are one line on stderr and exit
    code 1.
    """
    return LocalSparkCluster.cli(argv)


if __name__ == "__main__":
    sys.exit(cli())
