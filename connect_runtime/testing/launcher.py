"""The base of the local service launchers: a Kafka broker, a Spark cluster, a schema registry, ...

A *local service* is one or more processes on 127.0.0.1 that run detached from the Python process
that started them (their own sessions: the command line starts a service and exits) and own a *data
dir*. Everything needed to find a running service again lives in that dir, so that any other
launcher object on it, in any process (``connect-runtime local-... stop``), can stop it:

``.lock``
    an ``flock``: one start or stop of the dir at a time;
the state file (:attr:`LocalService.state_file_name`, JSON)
    what was chosen on start and must be known later: ports, tokens, the shape of the service;
``<name>.pid``
    the pid of each process while it runs;
``logs/``
    the processes' output, appended to across restarts with a header line per start.

:class:`LocalService` holds these mechanics and the command line every launcher shares
(``start|stop|status`` with ``--data-dir``, ``start --timeout``; ``start`` prints one ``key=value``
line on stdout, progress goes to stderr; ``status`` exits 0 when running, 1 when not; an error is one
line ``error: ...`` and exit code 1). A launcher subclasses it with its processes' start, stop and
status, and names its command line's texts and extra ``start`` flags (and any subcommands beyond
``start|stop|status``: :meth:`LocalService._add_commands`).

Most services are one process on one port (a Kafka broker, a schema registry):
:class:`SingleProcessService` adds what they share (``<name>.pid``, the port recorded in the state file
and reused on restart, a probe polled until the service answers, ``start --port``), so that such a
launcher only says how its process starts and how to tell that it is ready.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import json
import logging
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, ClassVar

from connect_runtime.api.processes import cmdline, descendants, pid_alive

logger = logging.getLogger(__name__)

HOST = "127.0.0.1"
"""The address local services listen on."""

LOG_TAIL_LINES = 30
"""Lines of each log an error about a failed start carries."""

DIRECT_HTTP = urllib.request.build_opener(urllib.request.ProxyHandler({}))
"""A urllib opener that ignores ``$http_proxy``: a proxy must never intercept requests to 127.0.0.1."""


class LauncherError(RuntimeError):
    """A local service could not be fetched, started or stopped.

    ``message`` is one sentence meant for a user; ``detail`` optionally carries supporting text
    (typically the last lines of the service's logs) and is appended to ``str(error)``.
    """

    def __init__(self, message: str, detail: str | None = None) -> None:
        self.message = message
        self.detail = detail
        super().__init__(message if not detail else f"{message}\n{detail}")


def free_port() -> int:
    """Return a TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        port: int = sock.getsockname()[1]
        return port


def free_ports(count: int) -> list[int]:
    """``count`` distinct ports of :func:`free_port`."""
    ports: list[int] = []
    while len(ports) < count:
        port = free_port()
        if port not in ports:
            ports.append(port)
    return ports


def port_in_use(port: int) -> bool:
    """True when something is listening on (or otherwise holding) ``127.0.0.1:port``."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        # Same socket option as the JVM's server sockets: TIME_WAIT leftovers do not count.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((HOST, port))
        except OSError:
            return True
        return False


def accepts_connections(port: int) -> bool:
    """True when something accepts TCP connections on ``127.0.0.1:port``."""
    try:
        with socket.create_connection((HOST, port), timeout=1.0):
            return True
    except OSError:
        return False


def tail(path: Path, lines: int = LOG_TAIL_LINES) -> str:
    """The last ``lines`` lines of ``path`` ("" when it cannot be read)."""
    try:
        with path.open("rb") as fh:
            fh.seek(0, os.SEEK_END)
            fh.seek(max(0, fh.tell() - 64 * 1024))
            text = fh.read().decode("utf-8", errors="replace")
    except OSError:
        return ""
    return "\n".join(text.splitlines()[-lines:])


@contextlib.contextmanager
def file_lock(path: Path) -> Iterator[None]:
    """Hold an exclusive ``flock`` on ``path`` (created if missing) for the duration."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


def http_probe(url: str, timeout_s: float = 5.0) -> str | None:
    """GET ``url`` directly (:data:`DIRECT_HTTP`): None when it answers 2xx, otherwise what went wrong."""
    try:
        with DIRECT_HTTP.open(url, timeout=timeout_s) as resp:
            resp.read()
            return None
    except urllib.error.HTTPError as exc:
        return f"HTTP {exc.code} from {url}"
    except OSError as exc:  # URLError, refused, timed out
        return f"{url}: {getattr(exc, 'reason', exc)}"


def cmdline_matches(pid: int, *args: str) -> bool:
    """Guard against pid reuse: does live process ``pid`` have every one of ``args`` among its arguments?

    Without ``/proc`` there is no telling: a live pid is trusted.
    """
    if not pid_alive(pid):
        return False
    if not Path(f"/proc/{pid}").exists():
        return True
    argv = cmdline(pid)
    return all(arg in argv for arg in args)


def send_signal(pid: int, sig: signal.Signals, *, group: bool = False) -> None:
    """Send ``sig`` to ``pid`` (to its process group with ``group``); a process already gone is fine."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        if group:
            os.killpg(pid, sig)
        else:
            os.kill(pid, sig)


class LocalService(ABC):
    """Processes on 127.0.0.1 that own :attr:`data_dir` and outlive the Python process starting them.

    Subclasses set the class attributes naming their command line and implement :meth:`_stop_locked`
    (called under the dir's lock), :meth:`_cli_start` and :meth:`_cli_status`; they start their
    processes with :meth:`_spawn` under :meth:`_locked`.
    """

    command: ClassVar[str]
    """The subcommand of ``connect-runtime``, e.g. ``local-kafka``."""
    title: ClassVar[str]
    """What the service is called in messages: ``stopped <title> in <data dir>``."""
    description: ClassVar[str]
    """The command line's description."""
    start_help: ClassVar[str]
    stop_help: ClassVar[str]
    status_help: ClassVar[str]
    timeout_help: ClassVar[str]
    data_dir_help: ClassVar[str]
    """Help of ``--data-dir``, without its default."""
    default_data_dir: ClassVar[Path]
    """The command line's data dir, relative to the working directory."""
    default_start_timeout: ClassVar[float]
    default_stop_timeout: ClassVar[float]
    state_file_name: ClassVar[str]
    """The JSON file in the data dir that :meth:`_read_state` and :meth:`_write_state` use."""

    def __init__(self, data_dir: Path | str) -> None:
        self.data_dir = Path(data_dir).expanduser().resolve()
        self._procs: list[subprocess.Popen[bytes]] = []

    @property
    def logs_dir(self) -> Path:
        """Where the service's processes write their output."""
        return self.data_dir / "logs"

    # -- lifecycle --------------------------------------------------------------------------------
    def stop(self, timeout_s: float | None = None) -> bool:
        """Stop every process of the service: SIGTERM, then SIGKILL after ``timeout_s`` seconds (the
        launcher's default stop timeout without it). Returns True when something was running."""
        if not self.data_dir.exists():
            return False
        self._before_stop()
        with self._locked():
            return self._stop_locked(self.default_stop_timeout if timeout_s is None else timeout_s)

    def _before_stop(self) -> None:
        """What must happen before the processes are stopped, outside the lock."""

    @abstractmethod
    def _stop_locked(self, timeout_s: float) -> bool:
        """Stop what runs (the lock is held); True when something was running."""

    # -- the data dir -----------------------------------------------------------------------------
    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        """Hold the data dir's lock (creating the dir): one start or stop at a time, across processes."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        with file_lock(self.data_dir / ".lock"):
            yield

    def _read_state(self) -> dict[str, Any]:
        """The state file's object; {} when it is missing or unreadable."""
        try:
            data = json.loads((self.data_dir / self.state_file_name).read_text())
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def _write_state(self, state: Mapping[str, Any]) -> None:
        (self.data_dir / self.state_file_name).write_text(json.dumps(state, indent=1) + "\n")

    @staticmethod
    def _read_pid(pid_file: Path) -> int | None:
        try:
            return int(pid_file.read_text().strip())
        except (OSError, ValueError):
            return None

    # -- processes --------------------------------------------------------------------------------
    def _spawn(self, cmd: list[str], log: Path, pid_file: Path,
               env: Mapping[str, str] | None = None) -> subprocess.Popen[bytes]:
        """Start ``cmd`` in the data dir, in a session of its own (so that a signal to its process
        group reaches what it forks), output appended to ``log``, its pid written to ``pid_file``."""
        log.parent.mkdir(parents=True, exist_ok=True)
        out: IO[bytes]
        with log.open("ab") as out:
            out.write(f"\n==== {time.strftime('%Y-%m-%d %H:%M:%S')} starting: {' '.join(cmd)}\n".encode())
            out.flush()
            proc = subprocess.Popen(
                cmd,
                cwd=self.data_dir,
                env=None if env is None else dict(env),
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                close_fds=True,
            )
        self._procs.append(proc)
        pid_file.write_text(f"{proc.pid}\n")
        return proc

    def _exited_child(self) -> subprocess.Popen[bytes] | None:
        """A process this object started that has exited, if any."""
        return next((proc for proc in self._procs if proc.poll() is not None), None)

    def _alive(self, pid: int) -> bool:
        """Whether ``pid`` runs. For a child of this object, its exit status decides: a JVM's main
        thread shows as a zombie in ``/proc`` while the JVM shuts down."""
        own = next((proc for proc in self._procs if proc.pid == pid), None)
        return own.poll() is None if own is not None else pid_alive(pid)

    def _wait_gone(self, pids: Iterable[int], timeout_s: float) -> set[int]:
        """Wait until none of ``pids`` is alive; return those still alive at the deadline."""
        left = set(pids)
        deadline = time.monotonic() + timeout_s
        while True:
            left = {pid for pid in left if self._alive(pid)}
            if not left or time.monotonic() >= deadline:
                return left
            time.sleep(0.1)

    def _terminate(self, named: Mapping[str, int], timeout_s: float, *, groups: bool = False) -> set[int]:
        """SIGTERM the processes ``named`` (label: pid) and, with ``groups``, their process groups;
        wait until they (and, with ``groups``, every process below them) are gone; SIGKILL what is
        left after ``timeout_s``. Returns the pids that outlived even that."""
        roots = [pid for pid in named.values() if self._alive(pid)]
        watched = set(roots)
        if groups:
            for pid in roots:
                watched |= descendants(pid)
        for label, pid in named.items():
            logger.info("stopping %s (pid %d) in %s", label, pid, self.data_dir)
            send_signal(pid, signal.SIGTERM, group=groups)
        left = self._wait_gone(watched, timeout_s)
        if left:
            logger.warning("%s processes %s did not stop within %g s; killing them", self.title, sorted(left),
                           timeout_s)
            for pid in named.values():
                send_signal(pid, signal.SIGKILL, group=groups)
            for pid in left:
                send_signal(pid, signal.SIGKILL)
            left = self._wait_gone(left, 10.0)
        return left

    def _reap(self, timeout_s: float = 0.0) -> None:
        """Forget the children of this object that have exited (waiting for each up to ``timeout_s``)."""
        for proc in self._procs:
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=timeout_s)
        self._procs = [proc for proc in self._procs if proc.returncode is None]

    def _log_tails(self, paths: Iterable[Path]) -> str:
        """The last lines of each of ``paths``, headed by the path, for an error's detail."""
        parts = []
        for path in paths:
            text = tail(path)
            if text:
                parts.append(f"--- last lines of {path} ---\n{text}")
        return "\n".join(parts)

    # -- command line -----------------------------------------------------------------------------
    @classmethod
    def _add_start_arguments(cls, start: argparse.ArgumentParser) -> None:
        """The ``start`` flags of this launcher (they come before ``--data-dir`` and ``--timeout``)."""

    @classmethod
    def _from_start_args(cls, args: argparse.Namespace) -> LocalService:
        """The service ``start`` starts, from the parsed ``start`` flags."""
        return cls(args.data_dir)

    @abstractmethod
    def _cli_start(self, args: argparse.Namespace) -> str:
        """Start the service for ``start`` and return the one line it prints (``key=value``)."""

    @abstractmethod
    def _cli_status(self) -> bool:
        """Print the status lines of ``status``; True when the service runs."""

    @classmethod
    def parser(cls) -> argparse.ArgumentParser:
        """The command line ``connect-runtime <command> start|stop|status``."""
        parser = argparse.ArgumentParser(prog=f"connect-runtime {cls.command}", description=cls.description)
        sub = parser.add_subparsers(dest="command", required=True)
        data_dir_help = f"{cls.data_dir_help} (default: {cls.default_data_dir})"
        start = sub.add_parser("start", help=cls.start_help)
        cls._add_start_arguments(start)
        start.add_argument("--data-dir", type=Path, default=cls.default_data_dir, help=data_dir_help)
        start.add_argument("--timeout", type=float, default=cls.default_start_timeout, help=cls.timeout_help)
        stop = sub.add_parser("stop", help=cls.stop_help)
        stop.add_argument("--data-dir", type=Path, default=cls.default_data_dir, help=data_dir_help)
        status = sub.add_parser("status", help=cls.status_help)
        status.add_argument("--data-dir", type=Path, default=cls.default_data_dir, help=data_dir_help)
        cls._add_commands(sub, data_dir_help)
        return parser

    @classmethod
    def _add_commands(cls, sub: Any, data_dir_help: str) -> None:
        """Subcommands of this launcher beyond ``start|stop|status`` (``sub`` is the subparsers action);
        :meth:`_cli_command` runs them."""

    @classmethod
    def _for_data_dir(cls, data_dir: Path) -> LocalService:
        """The service ``stop``, ``status`` and further subcommands act on, for ``data_dir``."""
        return cls(data_dir)

    def _cli_command(self, args: argparse.Namespace) -> int:
        """Run a subcommand of :meth:`_add_commands`; returns the exit code."""
        raise ValueError(f"unknown command {args.command}")

    @classmethod
    def cli(cls, argv: list[str] | None = None) -> int:
        """Run the command line; returns the process exit code."""
        args = cls.parser().parse_args(argv)
        logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(message)s")
        try:
            if args.command == "start":
                print(cls._from_start_args(args)._cli_start(args), flush=True)
                return 0
            service = cls._for_data_dir(args.data_dir)
            if args.command == "stop":
                stopped = service.stop()
                print(f"stopped {service.title} in {service.data_dir}" if stopped
                      else f"no {service.title} running in {service.data_dir}")
                return 0
            if args.command == "status":
                return 0 if service._cli_status() else 1
            return service._cli_command(args)
        except (LauncherError, ValueError) as exc:
            print(f"error: {getattr(exc, 'message', exc)}", file=sys.stderr)
            return 1


@dataclass(frozen=True)
class ServiceStatus:
    """The state of the service of one data dir, as ``status`` prints it."""

    running: bool
    data_dir: Path
    pid: int | None = None
    address: str | None = None
    """What ``start`` prints after ``=`` (bootstrap servers, a URL), when running."""
    key: str = "address"
    """What ``start`` prints before ``=``."""

    def __str__(self) -> str:
        if self.running:
            return f"running (pid {self.pid}) {self.key}={self.address} data dir {self.data_dir}"
        return f"not running (data dir {self.data_dir})"


class SingleProcessService(LocalService):
    """A service of one process on one port of 127.0.0.1 (more ports may be recorded beside it).

    ``start`` reuses a running process of the data dir, otherwise starts one (:meth:`_launch`) and polls
    :meth:`_probe` until it answers; the process's pid is in :attr:`pid_file`, the port under ``"port"``
    in the state file. Subclasses name their process (:attr:`pid_file_name`, :meth:`_identifying_args`),
    their address (:attr:`address_key`, :meth:`_address`), launch it and probe it.
    """

    pid_file_name: ClassVar[str]
    """The pid file in the data dir, e.g. ``kafka.pid``."""
    log_file_name: ClassVar[str]
    """The service's own log in ``logs/``, the one a failed start points to (:attr:`main_log`)."""
    address_key: ClassVar[str]
    """The key ``start`` prints, e.g. ``bootstrap.servers``."""
    port_help: ClassVar[str] = "port (default: recorded or free)"
    error: ClassVar[type[LauncherError]] = LauncherError
    """The error class of the launcher."""
    status_type: ClassVar[type[ServiceStatus]] = ServiceStatus

    def __init__(self, data_dir: Path | str, *, cache_dir: Path | None = None) -> None:
        """Prepare (but do not start) the service of ``data_dir``; what it runs is fetched into ``cache_dir``
        (the launcher's own cache directory without it)."""
        super().__init__(data_dir)
        self.cache_dir = cache_dir

    @property
    def pid_file(self) -> Path:
        """The file holding the process's pid while it runs."""
        return self.data_dir / self.pid_file_name

    @property
    def main_log(self) -> Path:
        """The service's own log, the one a failed start points to."""
        return self.logs_dir / self.log_file_name

    @property
    def stdout_log(self) -> Path:
        """The process's stdout and stderr."""
        return self.logs_dir / "stdout.log"

    def _log_files(self) -> list[Path]:
        """The logs whose tails a failed start shows."""
        return [self.main_log, self.stdout_log]

    # -- what a subclass says ---------------------------------------------------------------------
    @abstractmethod
    def _address(self, port: int) -> str:
        """What ``start`` returns for the service on ``port``."""

    @abstractmethod
    def _identifying_args(self) -> tuple[str, ...]:
        """Arguments the process of this data dir (and no other) has on its command line."""

    @abstractmethod
    def _launch(self, port: int | None) -> None:
        """Choose the port(s) (``port`` when given), record them, and start the process with
        :meth:`_spawn` writing :attr:`pid_file` (the lock is held)."""

    @abstractmethod
    def _probe(self) -> Callable[[float], str | None]:
        """A readiness check of the process just launched: called with the seconds left, it returns
        None once the service answers, else what it is still waiting for."""

    @abstractmethod
    def _readiness(self) -> str:
        """What the service did not do in time: ``<title> did not <readiness> within ...``."""

    def _on_ready(self, port: int) -> None:
        """What to do once a freshly started process answers (the lock is held)."""

    # -- lifecycle --------------------------------------------------------------------------------
    def start(self, port: int | None = None, *, timeout: float | None = None) -> str:
        """Start the service (if it does not run yet) and return its address (:meth:`_address`).

        ``port``: without it, the port recorded in the data dir is reused, or a free one is chosen on
        the first start. Blocks until the service answers (at most ``timeout`` seconds, the launcher's
        default without it). Raises the launcher's :attr:`error` with a one-sentence message on any
        failure, after stopping what it started.
        """
        timeout = self.default_start_timeout if timeout is None else timeout
        with self._locked():
            running = self._running_pid()
            if running is not None:
                address = self.address
                if address is None:
                    raise self.error(f"{self.title} (pid {running}) is running for {self.data_dir} but its ports "
                                     "are unknown; stop it first")
                if port is not None and address != self._address(port):
                    logger.warning("%s is already running for %s on %s; ignoring --port %d",
                                   self.title, self.data_dir, address, port)
                return address
            self.pid_file.unlink(missing_ok=True)
            self._reap()  # a child stopped through another object must not read as a failed start
            self._launch(port)
            try:
                self._wait_ready(timeout)
                recorded = self._recorded_port()
                assert recorded is not None, "_launch records the port"
                self._on_ready(recorded)
            except BaseException:
                self._stop_locked(self.default_stop_timeout)
                raise
            return self._address(recorded)

    def status(self) -> ServiceStatus:
        """Whether the service of this data dir runs, with its pid and address."""
        pid = self._running_pid()
        if pid is None:
            return self.status_type(running=False, data_dir=self.data_dir, key=self.address_key)
        return self.status_type(running=True, data_dir=self.data_dir, pid=pid, address=self.address,
                                key=self.address_key)

    @property
    def address(self) -> str | None:
        """The address recorded for this data dir (running or not), if any."""
        port = self._recorded_port()
        return None if port is None else self._address(port)

    def _stop_locked(self, timeout_s: float) -> bool:
        pid = self._running_pid()
        if pid is not None and self._terminate({self.title: pid}, timeout_s):
            raise self.error(f"{self.title} (pid {pid}) in {self.data_dir} could not be killed")
        self.pid_file.unlink(missing_ok=True)
        self._reap()
        return pid is not None

    # -- internals --------------------------------------------------------------------------------
    def _recorded_port(self) -> int | None:
        port = self._read_state().get("port")
        return port if isinstance(port, int) else None

    def _running_pid(self) -> int | None:
        """The live process of this data dir: this object's child, else the pid file's (if it is ours)."""
        own = [proc.pid for proc in self._procs if proc.poll() is None]
        if own:
            return own[-1]
        pid = self._read_pid(self.pid_file)
        return pid if pid is not None and cmdline_matches(pid, *self._identifying_args()) else None

    def _check_port_free(self, port: int) -> None:
        if port_in_use(port):
            raise self.error(f"port {port} on {HOST} is already in use; choose another with --port")

    def _choose_port(self, requested: int | None) -> int:
        """``requested``, else the recorded port, else a free one; checked to be free and recorded."""
        port = requested if requested is not None else self._recorded_port()
        if port is not None:
            self._check_port_free(port)
        else:
            port = free_port()
        self._write_state({**self._read_state(), "port": port})
        return port

    def _wait_ready(self, timeout_s: float) -> None:
        """Poll the probe until the service answers; fail early, with the logs' tails, when the process exits."""
        probe = self._probe()
        deadline = time.monotonic() + timeout_s
        last = "no answer yet"
        while True:
            exited = self._exited_child()
            if exited is not None:
                raise self.error(f"{self.title} exited during startup (exit code {exited.returncode}); "
                                 f"see {self.main_log}", self._log_tails(self._log_files()))
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise self.error(f"{self.title} did not {self._readiness()} within {timeout_s:g} s ({last}); "
                                 f"see {self.main_log}", self._log_tails(self._log_files()))
            answer = probe(remaining)
            if answer is None:
                logger.info("%s is ready in %s", self.title, self.data_dir)
                return
            last = answer
            time.sleep(min(0.2, max(0.0, deadline - time.monotonic())))

    # -- command line -----------------------------------------------------------------------------
    @classmethod
    def _add_start_arguments(cls, start: argparse.ArgumentParser) -> None:
        start.add_argument("--port", type=int, default=None, help=cls.port_help)

    def _cli_start(self, args: argparse.Namespace) -> str:
        return f"{self.address_key}={self.start(args.port, timeout=args.timeout)}"

    def _cli_status(self) -> bool:
        state = self.status()
        print(state)
        return state.running
