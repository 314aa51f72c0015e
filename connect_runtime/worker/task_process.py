"""The worker's handle on a task process: starts it, answers its messages, and watches it die.

The process runs :mod:`~connect_runtime.worker.task_process_main`; what they say to each other is the
task protocol (:mod:`~connect_runtime.worker.task_protocol`), whose :class:`WorkerEnd` this handle is.

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
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from multiprocessing import forkserver
from multiprocessing.context import BaseContext
from typing import Any

from connect_runtime.api.errors import ConnectException
from connect_runtime.metrics.stats import TrackedState
from connect_runtime.storage.offset_backing_store import ConnectorOffsetBackingStore, ConnectorOffsetReader
from connect_runtime.types import TargetState
from connect_runtime.worker import task_process_main
from connect_runtime.worker import task_protocol as protocol
from connect_runtime.worker.task_channel import ChannelClosed, TaskChannel
from connect_runtime.worker.task_metrics import TaskMetricsMirror
from connect_runtime.worker.task_protocol import Lifecycle
from connect_runtime.worker.task_spec import TaskSpec
from connect_runtime.worker.task_status import TaskStatusListener
from connect_runtime.worker.zombie_fencing import ZombieFencing

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
            ctx.set_forkserver_preload(["connect_runtime.worker.task_process_main"])
            _context = ctx
        return _context


def warm_up() -> None:
    """Start the fork server now (it imports the runtime once), so the first task starts without that wait."""
    process_context()
    try:
        forkserver.ensure_running()
    except Exception:
        logger.warning("Could not start the task processes' fork server ahead of the first task", exc_info=True)


class TaskProcess:
    """One task instance running in a process of its own (the worker's handle on it).

    The worker drives it with :meth:`start`, :meth:`transition_to`,
    :meth:`stop` (final commit in the process), :meth:`cancel` (the process is killed: no commit),
    :meth:`join`. A process that dies without having said goodbye is reported FAILED with how it died.
    """

    def __init__(self, spec: TaskSpec, status: TaskStatusListener, fencing: ZombieFencing,
                 verify_generation: Callable[[], None], offsets: ConnectorOffsetBackingStore,
                 on_closed: Callable[[TaskProcess], None] | None = None,
                 metrics: TaskMetricsMirror | None = None) -> None:
        self.id = spec.task_id
        self._spec = spec
        self._status = status
        self._fencing = fencing
        self._verify_generation = verify_generation
        self._offsets = offsets
        self._reader = ConnectorOffsetReader(spec.task_id.connector, offsets)
        self._on_closed = on_closed
        self._metrics = metrics
        #: Whether the task failed (its FAILED status is written).
        self.failed = False
        #: What the task's ``version()`` returned, once the process has built it.
        self.version: str | None = None
        self.pid: int | None = None
        self._stopping = False
        #: Set with :attr:`_stopping`, for a fencing request this task is waiting on: it stops asking.
        self._stop_asked = threading.Event()
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
        process = ctx.Process(target=task_process_main.main, args=(list(sys.path), pickle.dumps(self._spec), theirs),  # type: ignore[attr-defined]
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
        self._channel = TaskChannel.worker_end(ours, self, self._calls)
        logger.info("Task %s runs in process %s", self.id, process.pid)
        threading.Thread(target=self._watch, name=f"task-{self.id}-pipe", daemon=True).start()
        if self._state is not self._spec.initial_state:
            self._notify(protocol.ChangeTargetState(self._state))  # changed while the process was being started

    def stop(self) -> None:
        """Ask the task to stop: it makes its final commit and exits."""
        self._stopping = True
        self._stop_asked.set()
        self._notify(protocol.StopTask())

    def cancel(self) -> None:
        """The task did not stop in time: kill its process (no commit; a successor fences what is open)."""
        self._cancelled = True
        self._stopping = True
        self._stop_asked.set()
        process = self._process
        if process is None or self._ended.is_set():
            return
        with contextlib.suppress(ValueError):  # closed by the watcher meanwhile: it has ended
            if process.exitcode is None:
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
        self._notify(protocol.ChangeTargetState(state))

    def _notify(self, message: protocol.Note) -> None:
        channel = self._channel
        if channel is not None:
            with contextlib.suppress(ChannelClosed):
                channel.notify(message)

    # -- from the task process (task_protocol.WorkerEnd) ------------------------------------------
    def status_changed(self, message: protocol.StatusChanged) -> None:
        status = self._status
        record = {Lifecycle.STARTED: status.on_startup, Lifecycle.PAUSED: status.on_pause,
                  Lifecycle.RESUMED: status.on_resume, Lifecycle.SHUT_DOWN: status.on_shutdown}[message.change]
        record(message.task)
        self._state_changed(_TRACKED[message.change])

    def _state_changed(self, state: TrackedState) -> None:
        if self._metrics is not None:
            self._metrics.change_state(state)

    def task_failed(self, message: protocol.TaskFailed) -> None:
        self.failed = True
        self._status.on_failure(message.task, message.trace, message.transient)
        self._state_changed(TrackedState.FAILED)

    def topic_used(self, message: protocol.TopicUsed) -> None:
        self._status.on_topic_used(message.task, message.topic)

    def task_built(self, message: protocol.TaskBuilt) -> None:
        self.version = message.version
        if self._metrics is not None:
            self._metrics.built(message.version)

    def task_build_failed(self, message: protocol.TaskBuildFailed) -> None:
        # FAILED, as a task whose start() throws.
        logger.error("Failed to start task %s", self.id)
        self.failed = True
        self._said_goodbye = True
        self._status.on_failure(self.id, message.trace, message.transient)
        self._state_changed(TrackedState.FAILED)

    def task_closed(self, message: protocol.TaskClosed) -> None:
        self._said_goodbye = True
        self.failed = self.failed or message.failed
        self._metrics_ended()

    def _metrics_ended(self) -> None:
        if self._metrics is not None:
            self._metrics.ended()

    def offsets_mirrored(self, message: protocol.OffsetsMirrored) -> None:
        self._offsets.mirror(message.entries)

    def metrics_reported(self, message: protocol.MetricsReported) -> None:
        if self._metrics is not None:
            self._metrics.reported(message.report)

    def fence_zombies(self, message: protocol.FenceZombies) -> None:
        self._fencing.fence_zombies(self.id.connector, self._stop_asked)

    def verify_generation(self, message: protocol.VerifyGeneration) -> None:
        self._verify_generation()

    def start_offsets(self, message: protocol.StartOffsets) -> None:
        self._offsets.start()

    def read_offsets_to_end(self, message: protocol.ReadOffsetsToEnd) -> None:
        self._offsets.read_to_end().result(_READ_TO_END_TIMEOUT_S)

    def get_offsets(self, message: protocol.GetOffsets) -> Mapping[Any, dict[str, Any] | None]:
        return self._reader.offsets(message.partitions)

    def write_tombstones_first(self, message: protocol.WriteTombstonesFirst) -> None:
        self._offsets.write_tombstones_first(message.entries, message.timeout_s)

    def set_offsets(self, message: protocol.SetOffsets) -> None:
        self._offsets.set(message.entries, timeout_s=message.timeout_s)

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
        self._metrics_ended()  # a process that died said no goodbye
        try:
            self._ended_unexpectedly(process.exitcode)
        except Exception:
            logger.exception("Failed to record the end of task %s", self.id)
        finally:
            self._calls.shutdown(wait=False)
            self._channel.close()
            # The fork server's Popen holds two pipe fds (the exit-status sentinel and a copy of the data
            # pipe) that only close() or a garbage collection releases; waiting for the collector leaks
            # them across task restarts.
            with contextlib.suppress(Exception):
                process.close()
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
            self._state_changed(TrackedState.UNASSIGNED)
            return
        logger.error("%s", error)
        self.failed = True
        self._status.on_failure(self.id, "".join(traceback.format_exception_only(error)))
        self._state_changed(TrackedState.FAILED)


_TRACKED = {Lifecycle.STARTED: TrackedState.RUNNING, Lifecycle.PAUSED: TrackedState.PAUSED,
            Lifecycle.RESUMED: TrackedState.RUNNING, Lifecycle.SHUT_DOWN: TrackedState.UNASSIGNED}


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
