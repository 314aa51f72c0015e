"""The worker's side of a task process: starts it, relays its statuses and calls, and watches it die.

Task processes are forked from a fork server the worker starts with the first task: a clean,
single-threaded interpreter that has imported the runtime once, so a task process starts in
milliseconds and shares those pages with its siblings, and the worker's own threads (the herder,
REST, librdkafka's) are never forked.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import pickle
import signal
import sys
import threading
import traceback
from collections.abc import Callable, Collection
from concurrent.futures import ThreadPoolExecutor
from multiprocessing.context import BaseContext
from typing import Any

from connect_runtime.api.errors import ConnectException
from connect_runtime.api.record import SourceMap
from connect_runtime.storage.offset_store import ConnectorOffsetBackingStore, ConnectorOffsetReader, OffsetEntries
from connect_runtime.types import TargetState
from connect_runtime.worker.task_channel import ChannelClosed, TaskChannel
from connect_runtime.worker.task_spec import TaskSpec
from connect_runtime.worker.task_status import TaskStatusListener

logger = logging.getLogger(__name__)

#: How long the worker waits on the offsets topic for a task's start-up read (the task waits as long).
_READ_TO_END_TIMEOUT_S = 60.0
#: After its pipe closed, how long a task process gets to exit before it is killed.
_EXIT_GRACE_S = 10.0

_context_lock = threading.Lock()
_context: BaseContext | None = None


def process_context() -> BaseContext:
    """The fork-server context every task process of this worker is started from."""
    global _context
    with _context_lock:
        if _context is None:
            ctx = multiprocessing.get_context("forkserver")
            # Imported once in the fork server; each task process inherits it (copy-on-write).
            ctx.set_forkserver_preload(["connect_runtime.worker.task_process"])
            _context = ctx
        return _context


def warm_up() -> None:
    """Start the fork server now (it imports the runtime once), so the first task starts without that wait."""
    from multiprocessing import forkserver

    process_context()
    try:
        forkserver.ensure_running()
    except Exception:
        logger.warning("Could not start the task processes' fork server ahead of the first task", exc_info=True)


class TaskProcess:
    """One task instance running in a process of its own (the worker's handle on it).

    The worker drives it as it drove a task thread: :meth:`start`, :meth:`transition_to`,
    :meth:`stop` (final commit in the process), :meth:`cancel` (the process is killed: no commit),
    :meth:`join`. A process that dies without having said goodbye is reported FAILED with how it died.
    """

    def __init__(self, spec: TaskSpec, status: TaskStatusListener, fence: Callable[[], None],
                 verify_generation: Callable[[], None], offsets: ConnectorOffsetBackingStore,
                 on_closed: Callable[[TaskProcess], None] | None = None) -> None:
        self.id = spec.task_id
        self._spec = spec
        self._status = status
        self._fence = fence
        self._verify_generation = verify_generation
        self._offsets = offsets
        self._reader = ConnectorOffsetReader(spec.task_id.connector, offsets)
        self._on_closed = on_closed
        #: Whether the task failed (its FAILED status is written).
        self.failed = False
        #: What the task's ``version()`` returned, once the process has built it.
        self.version: str | None = None
        self.pid: int | None = None
        self._stopping = False
        self._cancelled = False
        self._said_goodbye = False
        self._ended = threading.Event()
        self._calls = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"task-{spec.task_id}-calls")
        self._process: Any = None
        self._channel: TaskChannel | None = None
        self._state = spec.initial_state

    # -- driven by the worker -------------------------------------------------------------------
    def start(self) -> None:
        """Start the process (raises if it cannot be started: the worker fails the task)."""
        ctx = process_context()
        ours, theirs = ctx.Pipe(duplex=True)
        from connect_runtime.worker import task_process

        process = ctx.Process(target=task_process.main, args=(list(sys.path), pickle.dumps(self._spec), theirs),  # type: ignore[attr-defined]
                              name=f"task-{self.id}")
        try:
            process.start()
        except BaseException:
            ours.close()
            theirs.close()
            self._calls.shutdown(wait=False)
            raise
        theirs.close()  # only the task process holds that end: its end of file is ours too
        self._process = process
        self.pid = process.pid
        self._channel = TaskChannel(ours, self._on_call, self._on_note, self._calls)
        logger.info("Task %s runs in process %s", self.id, process.pid)
        threading.Thread(target=self._watch, name=f"task-{self.id}-pipe", daemon=True).start()
        if self._state is not self._spec.initial_state:
            self._notify("state", self._state.value)  # changed while the process was being started

    def stop(self) -> None:
        """Ask the task to stop: it makes its final commit and exits."""
        self._stopping = True
        self._notify("stop")

    def cancel(self) -> None:
        """The task did not stop in time: kill its process (no commit; a successor fences what is open)."""
        self._cancelled = True
        self._stopping = True
        process = self._process
        if process is not None and process.exitcode is None:
            logger.warning("Killing the process of task %s (pid %s)", self.id, process.pid)
            with contextlib.suppress(Exception):
                process.kill()

    def join(self, timeout_s: float) -> bool:
        """Wait until the process has ended and the worker has recorded how; True if it has."""
        return self._ended.wait(timeout_s)

    def is_alive(self) -> bool:
        return not self._ended.is_set()

    def transition_to(self, state: TargetState) -> None:
        """Move the task to ``state`` (the herder repeats its target states: only changes cross the pipe)."""
        if state is self._state:
            return
        self._state = state
        self._notify("state", state.value)

    def _notify(self, *message: Any) -> None:
        channel = self._channel
        if channel is not None:
            with contextlib.suppress(ChannelClosed):
                channel.notify(*message)

    # -- from the task process ------------------------------------------------------------------
    def _on_note(self, message: tuple[Any, ...]) -> None:
        kind = message[0]
        if kind == "status":
            method, task, *args = message[1:]
            if method == "on_failure":
                self.failed = True
            getattr(self._status, method)(task, *args)
        elif kind == "start_failed":
            # The process could not build the task (its plugins, converters or producer): FAILED, as a task
            # whose start() throws.
            logger.error("Failed to start task %s", self.id)
            self.failed = True
            self._said_goodbye = True
            self._status.on_failure(self.id, message[1], message[2])
        elif kind == "version":
            self.version = message[1]
        elif kind == "closed":
            self._said_goodbye = True
            self.failed = self.failed or bool(message[1])
        elif kind == "offsets_mirror":
            self._offsets.mirror(message[1])
        elif kind == "offsets_stop":
            pass  # stopped here once the process has ended
        else:
            logger.warning("Task %s sent an unknown message %r", self.id, kind)

    def _on_call(self, op: str, args: tuple[Any, ...]) -> Any:
        if op == "fence":
            self._fence()
            return None
        if op == "verify_generation":
            self._verify_generation()
            return None
        if op == "offsets_start":
            self._offsets.start()
            return None
        if op == "offsets_read_to_end":
            self._offsets.read_to_end().result(_READ_TO_END_TIMEOUT_S)
            return None
        if op == "offsets_get":
            partitions: Collection[SourceMap] = args[0]
            return self._reader.offsets(partitions)
        if op == "offsets_tombstones_first":
            entries: OffsetEntries = args[0]
            self._offsets.write_tombstones_first(entries, args[1])
            return None
        if op == "offsets_set":
            self._offsets.set(args[0], timeout_s=args[1])
            return None
        raise ConnectException(f"Unknown call {op!r} from the process of task {self.id}")

    def _watch(self) -> None:
        assert self._channel is not None
        self._channel.serve()
        process = self._process
        process.join(_EXIT_GRACE_S)
        if process.exitcode is None:
            logger.error("The process of task %s (pid %s) closed its pipe but did not exit; killing it",
                         self.id, process.pid)
            process.kill()
            process.join()
        try:
            self._ended_unexpectedly(process.exitcode)
        except Exception:
            logger.exception("Failed to record the end of task %s", self.id)
        finally:
            self._calls.shutdown(wait=False)
            self._channel.close()
            with contextlib.suppress(Exception):
                self._offsets.stop()
            if self._on_closed is not None:
                self._on_closed(self)
            self._ended.set()

    def _ended_unexpectedly(self, exitcode: int | None) -> None:
        if self._said_goodbye or self._cancelled or self.failed:
            return
        how = describe_exit(exitcode)
        error = ConnectException(f"The process running task {self.id} (pid {self.pid}) died unexpectedly: {how}")
        if self._stopping:
            # It was being stopped (revoked, deleted): no FAILED over a successor's status, only the log.
            logger.error("%s while stopping", error)
            self._status.on_shutdown(self.id)
            return
        logger.error("%s", error)
        self.failed = True
        self._status.on_failure(self.id, "".join(traceback.format_exception_only(error)))


def describe_exit(exitcode: int | None) -> str:
    """``exit code 1`` or ``killed by signal SIGSEGV``."""
    if exitcode is None:
        return "no exit status"
    if exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = str(-exitcode)
        return f"killed by signal {name}"
    return f"exit code {exitcode}"
