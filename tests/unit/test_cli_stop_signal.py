"""``connect-distributed`` stops on SIGTERM without ever deadlocking on what its handler touches."""

from __future__ import annotations

import queue
import signal

from connect_runtime import cli


class _Worker:
    failure = None
    herder = None

    def __init__(self) -> None:
        self.stopped = False

    def start(self) -> None: ...

    def stop(self) -> None:
        self.stopped = True


def test_the_main_loop_waits_on_a_queue_its_signal_handler_may_put_to_at_any_point() -> None:
    """The handler runs on the main thread, possibly inside the main loop's wait: only a reentrant put
    (SimpleQueue's) is safe there; Event.set would take the lock Event.wait holds."""
    stop: queue.SimpleQueue[int] = queue.SimpleQueue()
    stop.put(signal.SIGTERM)  # as the handler does
    worker = _Worker()
    assert cli._run_worker(worker, stop) == 0  # type: ignore[arg-type]
    assert worker.stopped
