"""The pipe between a worker and one of its task processes: notifications and blocking calls both ways.

A message is a tuple. ``("call", id, op, args)`` asks the other side to run ``op`` and answer with
``("reply", id, ok, value)``; anything else is a notification handed to the side's handler. Calls are
rare (a task's start-up steps, offsets flushes of at-least-once tasks, tombstones): records never
cross the pipe, so pickling costs nothing on the per-record path.

Written by hand because the standard library's managers and pools either start their own processes
or serve one caller at a time; this needs a duplex link between two known processes, calls in both
directions, and the end of the link as the signal that the other side is gone.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import pickle
import socket
import threading
from collections.abc import Callable
from concurrent.futures import Executor, Future
from multiprocessing.connection import Connection
from typing import Any

from connect_runtime.api.errors import ConnectException

logger = logging.getLogger(__name__)

#: Runs a call: (op, args) -> result; raising sends the error back to the caller.
CallHandler = Callable[[str, tuple[Any, ...]], Any]
#: Receives a notification message.
NoteHandler = Callable[[tuple[Any, ...]], None]


class ChannelClosed(ConnectException):
    """The other side of the pipe is gone."""


class TaskChannel:
    """One end of the pipe. :meth:`serve` reads until the pipe closes (run it on a thread of its own)."""

    def __init__(self, conn: Connection, on_call: CallHandler, on_note: NoteHandler,
                 call_executor: Executor | None = None) -> None:
        """``call_executor`` runs the other side's calls, so that a long one (a fencing round) does not
        hold back the notifications behind it; without it they run on the :meth:`serve` thread."""
        self._conn = conn
        self._executor = call_executor
        self._on_call = on_call
        self._on_note = on_note
        self._send_lock = threading.Lock()
        self._ids = itertools.count()
        self._pending: dict[int, Future[Any]] = {}
        self._pending_lock = threading.Lock()
        self._closed = False

    def notify(self, *message: Any) -> None:
        """Send a notification; raises :class:`ChannelClosed` when the other side is gone."""
        self._send(message)

    def call_async(self, op: str, *args: Any) -> Future[Any]:
        """Ask the other side to run ``op``; the future completes with its result or error."""
        future: Future[Any] = Future()
        call_id = next(self._ids)
        with self._pending_lock:
            if self._closed:
                future.set_exception(ChannelClosed("The worker process is gone"))
                return future
            self._pending[call_id] = future
        try:
            self._send(("call", call_id, op, args))
        except ChannelClosed as e:
            with self._pending_lock:
                self._pending.pop(call_id, None)
            future.set_exception(e)
        return future

    def call(self, op: str, *args: Any) -> Any:
        """:meth:`call_async` and wait for the answer (the caller's own timeouts bound the wait)."""
        return self.call_async(op, *args).result()

    def _send(self, message: tuple[Any, ...]) -> None:
        try:
            with self._send_lock:
                self._conn.send(message)
        except (OSError, EOFError, ValueError) as e:
            raise ChannelClosed(f"The other end of the task pipe is gone: {e}") from e

    def serve(self) -> None:
        """Read messages until the pipe closes; then fail every call still waiting for an answer."""
        try:
            while True:
                try:
                    message = self._conn.recv()
                except (EOFError, OSError):
                    return
                except Exception:
                    # Closed under the reader (TypeError from a dropped handle), or a message that cannot
                    # be unpickled: either way the pipe can no longer be trusted; end as at its end.
                    if not self._conn.closed:
                        logger.exception("The task pipe failed; closing it")
                    return
                kind = message[0]
                if kind == "reply":
                    self._complete(message[1], message[2], message[3])
                elif kind == "call":
                    if self._executor is None:
                        self._answer(message[1], message[2], message[3])
                    else:
                        self._executor.submit(self._answer, message[1], message[2], message[3])
                else:
                    try:
                        self._on_note(message)
                    except Exception:
                        logger.exception("Failed to handle %s from the task pipe", kind)
        finally:
            with self._pending_lock:
                self._closed = True
                pending, self._pending = self._pending, {}
            for future in pending.values():
                future.set_exception(ChannelClosed("The other end of the task pipe closed"))

    def _complete(self, call_id: int, ok: bool, value: Any) -> None:
        with self._pending_lock:
            future = self._pending.pop(call_id, None)
        if future is None:
            return
        if ok:
            future.set_result(value)
        else:
            future.set_exception(value)

    def _answer(self, call_id: int, op: str, args: tuple[Any, ...]) -> None:
        try:
            reply: tuple[Any, ...] = ("reply", call_id, True, self._on_call(op, args))
        except BaseException as e:  # sent back: the caller raises it
            reply = ("reply", call_id, False, _portable(e))
        with contextlib.suppress(ChannelClosed):
            self._send(reply)

    def close(self) -> None:
        """Close this end: the other side sees the end of the pipe, even while :meth:`serve` is reading."""
        # Closing the fd alone leaves the socket open under a recv() blocked on it (Linux), and the
        # other side would wait for an end that never comes: shut it down first (through a dup).
        with contextlib.suppress(OSError, ValueError), \
                socket.fromfd(self._conn.fileno(), socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.shutdown(socket.SHUT_RDWR)
        with contextlib.suppress(OSError):
            self._conn.close()


def _portable(error: BaseException) -> BaseException:
    """``error`` if it survives pickling unchanged in kind, else a ConnectException with its text."""
    try:
        pickle.loads(pickle.dumps(error))
        return error
    except Exception:
        return ConnectException(f"{type(error).__name__}: {error}")
