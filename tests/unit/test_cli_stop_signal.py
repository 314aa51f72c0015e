"""``connect-distributed`` stops on SIGTERM without ever deadlocking on its stop event."""

from __future__ import annotations

import threading

from connect_runtime import cli


class _NoWaitEvent(threading.Event):
    """A stop event whose ``wait`` fails the test: ``Event.wait`` holds the lock ``Event.set`` takes, and
    the SIGTERM handler calls ``set`` on the main thread, so a signal arriving inside ``wait`` deadlocks."""

    def __init__(self) -> None:
        super().__init__()
        self.checks = 0

    def wait(self, timeout: float | None = None) -> bool:
        raise AssertionError("the main loop waits on the event its signal handler sets")

    def is_set(self) -> bool:
        self.checks += 1
        if self.checks == 2:
            self.set()  # as the handler would, between two checks
        return super().is_set()


class _Worker:
    failure = None
    herder = None

    def __init__(self) -> None:
        self.stopped = False

    def start(self) -> None: ...

    def stop(self) -> None:
        self.stopped = True


def test_the_main_loop_never_waits_on_the_event_the_signal_handler_sets() -> None:
    worker, stop = _Worker(), _NoWaitEvent()
    assert cli._run_worker(worker, stop) == 0  # type: ignore[arg-type]
    assert worker.stopped
