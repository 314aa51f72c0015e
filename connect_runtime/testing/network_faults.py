"""Network faults for one worker: cut, black-hole or delay its traffic to the brokers (and to its peers'
REST ports) while its process and its own REST port stay up.

Kafka clients connect to the addresses the brokers *advertise*, not to the bootstrap address, so a proxy in
front of the bootstrap port would not see the worker's real connections. Instead each caged worker runs in
a cgroup (v2) of its own, which its task processes inherit, and a packet filter rule (``iptables -t nat
... -m cgroup --path <cage> -j REDIRECT``) sends every connection that cgroup opens to a broker (or a
peer's REST port) to a transparent proxy in this process, which reads the address meant from the socket
(``SO_ORIGINAL_DST``) and carries the bytes there. Only connections the worker *opens* match: requests to
its REST port come from outside the cgroup and are untouched, and the brokers and their advertised
listeners stay as they are. The proxy, not the kernel, delays (many kernels have no ``netem``) and
black-holes; a cut aborts the proxied connections and a filter rule refuses new ones.

Needs Linux, root, ``iptables`` and a cgroup v2 hierarchy (on hybrid systems its ``unified`` mount);
where one is missing :class:`NetworkFaults` raises :class:`NetworkFaultsUnavailable` naming it.

::

    with NetworkFaults() as faults:
        worker = WorkerProcess(bootstrap, workdir, group_id)
        cage = faults.cage(worker)            # before it starts: it starts inside the cage
        worker.start_ready()
        faults.cut(cage)                      # or faults.blackhole(cage), faults.delay(cage, 200)
        ...
        faults.heal(cage)

Every instance names its iptables chains and cgroups ``crnf-<pid>-<n>...`` (``CRNF-`` for chains) after
the process that made them; :meth:`NetworkFaults.close` (also run at exit) removes them and kills what
is left in its cgroups, and a new instance first removes those of processes no longer running.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import functools
import itertools
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, TypeVar

from connect_runtime.api.processes import pid_alive

if TYPE_CHECKING:
    from connect_runtime.testing.cluster import WorkerProcess

__all__ = ["Cage", "NetworkFaults", "NetworkFaultsUnavailable"]

_T = TypeVar("_T")

#: Prefix of every cgroup this toolkit makes; its chains use it upper-cased.
PREFIX = "crnf"
_NAME = re.compile(rf"^{PREFIX}-(\d+)-\d+(?:-\d+)?$", re.IGNORECASE)
_SO_ORIGINAL_DST = 80  # linux/netfilter_ipv4.h
_CHUNK = 65536
PASS, DELAY, BLACKHOLE, CUT = "pass", "delay", "blackhole", "cut"


class NetworkFaultsUnavailable(RuntimeError):
    """This machine cannot inject network faults; the message names what is missing."""


# ---- pure parts: names, rules, decisions ----------------------------------------------------------

def chain_name(pid: int, instance: int) -> str:
    """The iptables chain (one per table) of instance ``instance`` of process ``pid``."""
    return f"{PREFIX.upper()}-{pid}-{instance}"


def cgroup_name(pid: int, instance: int, cage: int) -> str:
    """The cgroup of cage ``cage`` of instance ``instance`` of process ``pid``."""
    return f"{PREFIX}-{pid}-{instance}-{cage}"


def owner_pid(name: str) -> int | None:
    """The pid a chain or cgroup name of this toolkit was made by; None for any other name."""
    m = _NAME.match(name)
    return int(m.group(1)) if m else None


def stale(names: Iterable[str], alive: Callable[[int], bool]) -> list[str]:
    """Those of ``names`` that this toolkit made in a process no longer ``alive``: leftovers to remove."""
    return [n for n in names if (pid := owner_pid(n)) is not None and not alive(pid)]


def chains_in(listing: str) -> list[str]:
    """The user chains ``iptables -S`` declares (``-N NAME`` lines)."""
    return [line.split()[1] for line in listing.splitlines() if line.startswith("-N ")]


def cgroup2_mount(mounts: str) -> Path | None:
    """Where the cgroup v2 hierarchy is mounted, from ``/proc/mounts`` text (``/sys/fs/cgroup`` on a
    pure v2 system, ``/sys/fs/cgroup/unified`` on a hybrid one); None without one."""
    for line in mounts.splitlines():
        parts = line.split()
        if len(parts) >= 3 and parts[2] == "cgroup2":
            return Path(parts[1])
    return None


def parse_addresses(bootstrap: str) -> list[tuple[str, int]]:
    """``(IPv4 address, port)`` of each ``host:port`` of a ``bootstrap.servers`` list (a listener
    prefix such as ``PLAINTEXT://`` is allowed; host names are resolved)."""
    out = []
    for entry in bootstrap.split(","):
        entry = entry.strip().rpartition("://")[2]
        if not entry:
            continue
        host, _, port = entry.rpartition(":")
        out.append((socket.gethostbyname(host.strip("[]") or "127.0.0.1"), int(port)))
    return out


def redirect_rule(chain: str, cgroup: str, dest: tuple[str, int], to_port: int) -> list[str]:
    """The ``nat`` rule sending ``cgroup``'s new TCP connections to ``dest`` to the local ``to_port``."""
    return ["-A", chain, "-p", "tcp", "-d", dest[0], "--dport", str(dest[1]), "-m", "cgroup", "--path", cgroup,
            "-j", "REDIRECT", "--to-ports", str(to_port)]


def refuse_rule(chain: str, cgroup: str, proxy_port: int) -> list[str]:
    """The ``filter`` rule refusing (RST to the SYN) ``cgroup``'s new connections to the proxy port
    its redirected connections reach (the filter table sees them after the nat rewrite)."""
    return ["-A", chain, "-p", "tcp", "-d", "127.0.0.1", "--dport", str(proxy_port), "--syn", "-m", "cgroup",
            "--path", cgroup, "-j", "REJECT", "--reject-with", "tcp-reset"]


def release_time(arrival: float, delay_s: float, previous: float) -> float:
    """When a chunk that arrived at ``arrival`` leaves under ``delay_s``: ``arrival + delay_s``, but
    never before the chunk ahead of it (``previous``), since a stream keeps its order. Delays do not add
    up: chunks arriving together leave together."""
    return max(arrival + delay_s, previous)


def missing_requirements(euid: int, iptables: str | None, mount: Path | None) -> list[str]:
    """What of root, ``iptables`` and a cgroup v2 mount is missing, in words."""
    missing = []
    if euid != 0:
        missing.append("root (packet filter rules and cgroups need it)")
    if iptables is None:
        missing.append("the iptables command (e.g. apt-get install iptables)")
    if mount is None:
        missing.append("a cgroup v2 hierarchy (no cgroup2 mount in /proc/mounts)")
    return missing


# ---- the proxy -------------------------------------------------------------------------------------

def _opened() -> asyncio.Event:
    # An Event binds to the loop that first waits on it (the proxy's), not to the thread making it.
    event = asyncio.Event()
    event.set()
    return event


@dataclass(eq=False)
class _Route:
    """One listener of the proxy: the connections one cage opens to one kind of destination. Changed
    only on the proxy's loop. ``open`` is clear while black-holed."""
    mode: str = PASS
    delay_s: float = 0.0
    open: asyncio.Event = field(default_factory=_opened)
    links: set[_Link] = field(default_factory=set)


class _Link:
    """A proxied connection: two directions, each a queue of stamped chunks released in order."""

    def __init__(self, route: _Route, down: asyncio.StreamWriter, up: asyncio.StreamWriter) -> None:
        self.route, self.down, self.up = route, down, up

    def abort(self) -> None:
        for w in (self.down, self.up):
            w.transport.abort()

    async def carry(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Copy ``reader`` to ``writer`` until end of stream, each chunk stamped when it arrives and
        written at its release time; any error aborts both connections."""
        queue: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue()
        releaser = asyncio.ensure_future(self._release(queue, writer))
        previous = 0.0
        try:
            while True:
                await self.route.open.wait()  # a black hole stops reading: the sender's buffers fill
                data = await reader.read(_CHUNK)
                previous = release_time(time.monotonic(), self.route.delay_s, previous)
                queue.put_nowait((previous, data))
                if not data:
                    break
            await releaser
        except (ConnectionError, OSError):
            self.abort()
        finally:
            releaser.cancel()

    async def _release(self, queue: asyncio.Queue[tuple[float, bytes]], writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                at, data = await queue.get()
                await asyncio.sleep(max(0.0, at - time.monotonic()))
                await self.route.open.wait()  # a black hole holds what is in flight too
                if not data:
                    if writer.can_write_eof():
                        writer.write_eof()
                    return
                writer.write(data)
                await writer.drain()
        except (ConnectionError, OSError):
            self.abort()


def set_mode(route: _Route, mode: str, delay_s: float) -> None:
    """On the proxy's loop: switch ``route`` to ``mode``."""
    route.mode, route.delay_s = mode, delay_s
    if mode == BLACKHOLE:
        route.open.clear()
    else:
        route.open.set()
    if mode == CUT:
        for link in list(route.links):
            link.abort()


class _Proxy:
    """A transparent TCP proxy on an event loop of its own thread; routes are changed from other threads
    through :meth:`call`."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name="network-faults-proxy", daemon=True)
        self._thread.start()
        self._servers: list[asyncio.Server] = []
        self._routes: list[_Route] = []

    def call(self, fn: Callable[[], _T]) -> _T:
        """Run ``fn`` on the proxy's loop and return its result."""
        async def run() -> _T:
            return fn()
        return asyncio.run_coroutine_threadsafe(run(), self.loop).result(30)

    def listen(self, route: _Route) -> int:
        """Serve ``route`` on a new port of 127.0.0.1: that port."""
        self._routes.append(route)

        async def start() -> int:
            server = await asyncio.start_server(lambda r, w: self._accept(route, r, w), "127.0.0.1", 0)
            self._servers.append(server)
            return int(server.sockets[0].getsockname()[1])
        return asyncio.run_coroutine_threadsafe(start(), self.loop).result(30)

    async def _accept(self, route: _Route, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if route.mode == CUT:
            writer.transport.abort()
            return
        raw = writer.get_extra_info("socket").getsockopt(socket.SOL_IP, _SO_ORIGINAL_DST, 16)
        port, ip = struct.unpack("!2xH4s8x", raw)
        await route.open.wait()  # a black-holed connection is accepted but goes nowhere until healed
        try:
            up_reader, up_writer = await asyncio.open_connection(socket.inet_ntoa(ip), port)
        except OSError:
            writer.transport.abort()
            return
        link = _Link(route, writer, up_writer)
        if route.mode == CUT:  # cut while connecting
            link.abort()
            return
        route.links.add(link)
        try:
            await asyncio.gather(link.carry(reader, up_writer), link.carry(up_reader, writer))
        finally:
            route.links.discard(link)
            link.abort()

    def close(self) -> None:
        async def stop() -> None:
            for server in self._servers:
                server.close()
            for route in self._routes:  # every connection ends by itself, so none is cancelled mid-read
                set_mode(route, CUT, 0.0)
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            if tasks:
                _, pending = await asyncio.wait(tasks, timeout=5)
                for t in pending:
                    t.cancel()
        with contextlib.suppress(Exception):
            asyncio.run_coroutine_threadsafe(stop(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(10)
        if not self._thread.is_alive():  # a loop still running cannot be closed; the thread is a daemon
            self.loop.close()


# ---- the toolkit -----------------------------------------------------------------------------------

@dataclass
class Cage:
    """One caged worker's cgroup and routes: start the worker with ``cgroup=cage.cgroup`` (done for you by
    :meth:`NetworkFaults.cage` when given the worker), then hand the cage to the fault methods."""

    #: The cgroup directory the worker must be started in.
    cgroup: Path
    #: The cgroup's path as the packet filter matches it (relative to the cgroup v2 root).
    path: str
    #: The broker addresses whose connections are routed through the proxy.
    brokers: list[tuple[str, int]]
    #: The peer REST addresses whose connections are routed through the proxy.
    peers: list[tuple[str, int]]
    broker_route: _Route = field(default_factory=_Route, repr=False)
    peer_route: _Route = field(default_factory=_Route, repr=False)
    broker_port: int = 0
    peer_port: int = 0

    def pids(self) -> list[int]:
        """The processes in the cage now (the worker and its task processes)."""
        try:
            return [int(p) for p in (self.cgroup / "cgroup.procs").read_text().split()]
        except FileNotFoundError:
            return []


class NetworkFaults:
    """Cut, black-hole or delay caged workers' connections to the brokers (and to peers' REST ports).

    :meth:`cage` a worker before it starts; then :meth:`cut` (connections reset, new ones refused),
    :meth:`blackhole` (accepted, never answered; open connections stall), :meth:`delay` (each chunk
    released its delay after it arrived, in each direction) and :meth:`heal`, each for the cage's
    broker traffic, its peer traffic, or both. :meth:`close` (a context manager's exit, the
    ``network_faults`` fixture's teardown, or the interpreter's exit) removes every rule and cgroup,
    killing what still runs in them. Raises :class:`NetworkFaultsUnavailable` where the machine cannot
    (not root, no ``iptables``, no cgroup v2).
    """

    _instances = itertools.count()

    def __init__(self) -> None:
        mount = cgroup2_mount(Path("/proc/mounts").read_text() if Path("/proc/mounts").exists() else "")
        iptables = shutil.which("iptables")
        missing = missing_requirements(os.geteuid(), iptables, mount)
        if missing:
            raise NetworkFaultsUnavailable("network faults need " + "; ".join(missing))
        assert mount is not None and iptables is not None
        self._iptables = iptables
        self._root = mount
        self._pid = os.getpid()
        self._instance = next(self._instances)
        self.chain = chain_name(self._pid, self._instance)
        self._cages: list[Cage] = []
        self._closed = False
        self._lock = threading.Lock()
        sweep(self._iptables, self._root)
        try:
            for table in ("nat", "filter"):
                self._ipt(table, "-N", self.chain)
                self._ipt(table, "-I", "OUTPUT", "-j", self.chain)
            self._proxy = _Proxy()
        except BaseException:
            # No close() will run for an instance never made, and this process's sweep spares it: undo now.
            for table in ("filter", "nat"):
                _drop_chain(self._iptables, table, self.chain)
            raise
        atexit.register(self.close)

    def _ipt(self, table: str, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return _iptables(self._iptables, table, *args, check=check)

    def cage(self, target: WorkerProcess | str, *, peers: Iterable[WorkerProcess | int] = ()) -> Cage:
        """A new cage for one worker.

        ``target`` is a :class:`~connect_runtime.testing.cluster.WorkerProcess` not started yet (it is
        then started inside the cage, and its ``bootstrap.servers`` are the brokers), or a
        ``bootstrap.servers`` string (start the worker with ``cgroup=cage.cgroup`` yourself, before it
        opens any socket). ``peers`` are other workers (or their REST ports on 127.0.0.1) whose REST
        traffic from this worker the ``peers=True`` faults reach.
        """
        if not isinstance(target, str) and target.alive:
            raise RuntimeError(f"worker {target.url} already runs: sockets keep the cgroup they were opened in, "
                               "so cage a worker before starting it")
        bootstrap = target if isinstance(target, str) else target.props["bootstrap.servers"]
        with self._lock:
            if self._closed:  # nothing would remove its cgroup
                raise RuntimeError("these network faults are closed")
            n = len(self._cages)
            name = cgroup_name(self._pid, self._instance, n)
            cage = Cage(cgroup=self._root / name, path=name, brokers=parse_addresses(bootstrap),
                        peers=[("127.0.0.1", p if isinstance(p, int) else p.port) for p in peers])
            cage.cgroup.mkdir()
            self._cages.append(cage)
        cage.broker_port = self._proxy.listen(cage.broker_route)
        cage.peer_port = self._proxy.listen(cage.peer_route)
        for dest in cage.brokers:
            self._ipt("nat", *redirect_rule(self.chain, name, dest, cage.broker_port))
        for dest in cage.peers:
            self._ipt("nat", *redirect_rule(self.chain, name, dest, cage.peer_port))
        if not isinstance(target, str):
            target.cgroup = cage.cgroup
        return cage

    def cut(self, cage: Cage, *, brokers: bool = True, peers: bool = False) -> None:
        """Reset the cage's open connections and refuse new ones (to the brokers; ``peers``: to the peers)."""
        for route, port in self._routes(cage, brokers, peers):
            rule = refuse_rule(self.chain, cage.path, port)
            if self._ipt("filter", "-C", *rule[1:], check=False).returncode != 0:
                self._ipt("filter", *rule)
            self._proxy.call(functools.partial(set_mode, route, CUT, 0.0))

    def blackhole(self, cage: Cage, *, brokers: bool = True, peers: bool = False) -> None:
        """Accept the cage's connections but never answer: new and open ones stall until healed."""
        self._change(cage, brokers, peers, BLACKHOLE, 0.0)

    def delay(self, cage: Cage, ms: float, *, brokers: bool = True, peers: bool = False) -> None:
        """Release every chunk of the cage's connections ``ms`` after it arrived, in each direction (a
        round trip takes ``2 * ms`` more); chunks in flight together leave together."""
        self._change(cage, brokers, peers, DELAY, ms / 1000)

    def heal(self, cage: Cage, *, brokers: bool = True, peers: bool = True) -> None:
        """End the cage's faults (both kinds of traffic unless told otherwise): connections flow again."""
        self._change(cage, brokers, peers, PASS, 0.0)

    def _change(self, cage: Cage, brokers: bool, peers: bool, mode: str, delay_s: float) -> None:
        for route, port in self._routes(cage, brokers, peers):
            self._ipt("filter", "-D", *refuse_rule(self.chain, cage.path, port)[1:], check=False)
            self._proxy.call(functools.partial(set_mode, route, mode, delay_s))

    @staticmethod
    def _routes(cage: Cage, brokers: bool, peers: bool) -> list[tuple[_Route, int]]:
        return ([(cage.broker_route, cage.broker_port)] if brokers else []) + \
               ([(cage.peer_route, cage.peer_port)] if peers else [])

    def close(self) -> None:
        """Remove this instance's rules and chains, kill what is left in its cgroups and remove them."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        atexit.unregister(self.close)
        errors: list[OSError] = []
        try:
            for table in ("filter", "nat"):
                _drop_chain(self._iptables, table, self.chain)
            for cage in self._cages:  # one that cannot be emptied must not leave the others behind
                try:
                    _remove_cgroup(cage.cgroup)
                except OSError as e:
                    errors.append(e)
        finally:
            self._proxy.close()
        if errors:
            raise errors[0]

    def __enter__(self) -> NetworkFaults:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


def _iptables(iptables: str, table: str, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    # -w: wait for the xtables lock rather than fail when another process changes rules at the same time
    done = subprocess.run([iptables, "-w", "-t", table, *args], capture_output=True, text=True)
    if check and done.returncode != 0:
        raise RuntimeError(f"iptables -t {table} {' '.join(args)}: {done.stderr.strip()}")
    return done


def _drop_chain(iptables: str, table: str, chain: str) -> None:
    """Unhook ``chain`` from OUTPUT (every hook), flush and delete it; quiet when it is gone."""
    while _iptables(iptables, table, "-D", "OUTPUT", "-j", chain, check=False).returncode == 0:
        pass
    _iptables(iptables, table, "-F", chain, check=False)
    _iptables(iptables, table, "-X", chain, check=False)


def _remove_cgroup(cgroup: Path, timeout_s: float = 10.0) -> None:
    """SIGKILL what runs in ``cgroup`` and remove it (a cgroup with members cannot be removed)."""
    deadline = time.monotonic() + timeout_s
    while cgroup.exists():
        try:
            pids = [int(p) for p in (cgroup / "cgroup.procs").read_text().split()]
        except FileNotFoundError:
            return
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        try:
            cgroup.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def sweep(iptables: str, root: Path) -> list[str]:
    """Remove the chains and cgroups of this toolkit whose making process is gone (a run that was
    killed before it could clean up): the names removed."""
    removed = []
    for table in ("filter", "nat"):
        listing = _iptables(iptables, table, "-S", check=False).stdout
        for chain in stale(chains_in(listing), pid_alive):
            _drop_chain(iptables, table, chain)
            removed.append(chain)
    groups: Sequence[str] = [p.name for p in root.iterdir() if p.is_dir()] if root.is_dir() else []
    for name in stale(groups, pid_alive):
        _remove_cgroup(root / name)
        removed.append(name)
    return removed

