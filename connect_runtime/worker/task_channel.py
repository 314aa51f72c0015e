"""The pipe between a worker and one of its task processes: notifications, and calls with their replies.

What crosses it is the task protocol (:mod:`connect_runtime.worker.task_protocol`); this module only
frames it. ``("note", message)`` is handed to this end's handler; ``("call", id, message)`` is answered
with ``("reply", id, ok, value)``. Calls are rare (a task's start-up steps, offsets flushes of
at-least-once tasks, tombstones): records never cross the pipe, so pickling costs nothing on the
per-record path.

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
from concurrent.futures import Executor, Future
from multiprocessing.connection import Connection
from typing import Any, TypeVar

from connect_runtime.api.errors import ConnectException
from connect_runtime.worker.task_protocol import (
    Call,
    Encoded,
    Message,
    Note,
    Side,
    TaskEnd,
    UnknownMessage,
    WorkerEnd,
    decode,
    dispatch,
    encode,
)

logger = logging.getLogger(__name__)

R = TypeVar("R")


class ChannelClosed(ConnectException):
    """The other side of the pipe is gone."""


class TaskChannel:
    """One end of the pipe. :meth:`serve` reads until the pipe closes (run it on a thread of its own).

    Made with :meth:`worker_end` or :meth:`task_end`: each end sends only its side's messages and hands
    the other side's to its handler, both through the protocol's one table.
    """

    def __init__(self, conn: Connection, side: Side, handler: WorkerEnd | TaskEnd,
                 call_executor: Executor | None = None) -> None:
        self._conn = conn
        self._side = side
        self._peer = Side.TASK if side is Side.WORKER else Side.WORKER
        self._executor = call_executor
        self._handler = handler
        self._send_lock = threading.Lock()
        self._ids = itertools.count()
        self._pending: dict[int, Future[Any]] = {}
        self._pending_lock = threading.Lock()
        self._closed = False
        self._serving = False

    @classmethod
    def worker_end(cls, conn: Connection, handler: WorkerEnd, call_executor: Executor) -> TaskChannel:
        """The worker's end. ``call_executor`` runs the task's calls, so that a long one (a fencing round)
        does not hold back the notifications behind it."""
        return cls(conn, Side.WORKER, handler, call_executor)

    @classmethod
    def task_end(cls, conn: Connection, handler: TaskEnd) -> TaskChannel:
        """The task process's end (the worker makes no calls: commands run on the :meth:`serve` thread)."""
        return cls(conn, Side.TASK, handler)

    def notify(self, message: Note) -> None:
        """Send a notification; raises :class:`ChannelClosed` when the other side is gone."""
        self._send(("note", encode(message, self._side)))

    def call_async(self, message: Call[R]) -> Future[R]:
        """Ask the other side to answer ``message``; the future completes with its result or error."""
        encoded = encode(message, self._side)
        future: Future[R] = Future()
        call_id = next(self._ids)
        with self._pending_lock:
            if self._closed:
                future.set_exception(ChannelClosed("The worker process is gone"))
                return future
            self._pending[call_id] = future
        try:
            self._send(("call", call_id, encoded))
        except Exception as e:  # gone, or a message that cannot be pickled: nothing was sent
            with self._pending_lock:
                self._pending.pop(call_id, None)
            future.set_exception(e)
        return future

    def call(self, message: Call[R]) -> R:
        """:meth:`call_async` and wait for the answer (the caller's own timeouts bound the wait)."""
        return self.call_async(message).result()

    def _send(self, message: tuple[Any, ...]) -> None:
        try:
            with self._send_lock:
                self._conn.send(message)
        except (OSError, EOFError, ValueError) as e:
            raise ChannelClosed(f"The other end of the task pipe is gone: {e}") from e

    def serve(self) -> None:
        """Read messages until the pipe closes; then fail every call still waiting for an answer."""
        with self._pending_lock:
            self._serving = True
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
                frame = message[0]
                if frame == "reply":
                    self._complete(message[1], message[2], message[3])
                elif frame == "call":
                    if self._executor is None:
                        self._answer(message[1], message[2])
                    else:
                        self._executor.submit(self._answer, message[1], message[2])
                else:
                    self._handle_note(message[1])
        finally:
            with self._pending_lock:
                self._closed = True
                pending, self._pending = self._pending, {}
            for future in pending.values():
                future.set_exception(ChannelClosed("The other end of the task pipe closed"))
            self._close_conn()
            with self._pending_lock:
                self._serving = False

    def _complete(self, call_id: int, ok: bool, value: Any) -> None:
        with self._pending_lock:
            future = self._pending.pop(call_id, None)
        if future is None:
            return
        if ok:
            future.set_result(value)
        else:
            future.set_exception(value)

    def _handle_note(self, encoded: Encoded) -> None:
        try:
            note = decode(encoded, self._peer)
            if not isinstance(note, Note):
                raise UnknownMessage(f"{type(note).__name__} is a call, sent as a notification")
            dispatch(self._handler, note, self._peer)
        except Exception:
            logger.exception("Failed to handle %r from the %s", encoded[:1], self._peer.value)

    def _answer(self, call_id: int, encoded: Encoded) -> None:
        try:
            call: Message = decode(encoded, self._peer)
            if not isinstance(call, Call):
                raise UnknownMessage(f"{type(call).__name__} is a notification, sent as a call")
            reply: tuple[Any, ...] = ("reply", call_id, True, dispatch(self._handler, call, self._peer))
        except BaseException as e:  # sent back: the caller raises it
            reply = ("reply", call_id, False, _portable(e))
        try:
            self._send(reply)
        except ChannelClosed:
            pass
        except Exception as e:  # an answer that cannot be pickled: the caller learns why instead of waiting
            with contextlib.suppress(ChannelClosed):
                self._send(("reply", call_id, False, _portable(e)))

    def close(self) -> None:
        """Close this end: the other side sees the end of the pipe, even while :meth:`serve` is reading."""
        # Closing the fd alone leaves the socket open under a recv() blocked on it (Linux), and the
        # other side would wait for an end that never comes: shut it down first (through a dup).
        with contextlib.suppress(OSError, ValueError), \
                socket.fromfd(self._conn.fileno(), socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.shutdown(socket.SHUT_RDWR)
        # The reader closes the descriptor itself once it has seen the end (serve's finally): closed
        # under a reader, the number could go to a new pipe and the old reader would read from that.
        with self._pending_lock:
            serving = self._serving
        if not serving:
            self._close_conn()

    def _close_conn(self) -> None:
        # Under the send lock: a reply being written finishes on this pipe, never on a descriptor the
        # system has since given to another pipe.
        with self._send_lock, contextlib.suppress(OSError):
            self._conn.close()


def _portable(error: BaseException) -> BaseException:
    """``error`` if it survives pickling unchanged in kind, else a ConnectException with its text."""
    try:
        pickle.loads(pickle.dumps(error))
        return error
    except Exception:
        return ConnectException(f"{type(error).__name__}: {error}")
