"""A test session that is killed (a CI timeout's SIGTERM, or SIGKILL) leaves none of its processes behind.

Runs a real pytest session in a subprocess: a tiny test file that takes the session broker and a
worker process, then waits to be killed. SIGTERM ends the session through its finalizers; after
SIGKILL only the plugin's watchdog is left to do it.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from pathlib import Path

import psutil
import pytest

from connect_runtime.testing import wait_until

INNER_TEST = '''
import os
import time
from pathlib import Path


def test_hold(kafka_bootstrap, worker_factory):
    worker_factory(ready=True)
    Path(os.environ["SESSION_READY_FILE"]).write_text("up")
    while True:  # until the session is ended from outside
        try:
            time.sleep(60)
        except Exception:  # as a polling loop treats errors as "not yet": SIGTERM must get through it
            pass
'''


def _alive(proc: psutil.Process) -> bool:
    try:
        return proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


@pytest.mark.kafka
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
def test_killed_session_leaves_no_process(tmp_path: Path, sig: signal.Signals) -> None:
    (tmp_path / "test_hold.py").write_text(INNER_TEST)
    ready = tmp_path / "ready"
    env = {k: v for k, v in os.environ.items() if k != "KAFKA_BOOTSTRAP_SERVERS"}
    env["SESSION_READY_FILE"] = str(ready)
    with (tmp_path / "pytest.log").open("wb") as log:
        session = subprocess.Popen(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--basetemp={tmp_path / 'tmp'}",
             "test_hold.py"],
            cwd=tmp_path, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    started: list[psutil.Process] = []
    try:
        def up() -> bool:
            if session.poll() is not None:
                raise AssertionError(f"the inner session ended early: {(tmp_path / 'pytest.log').read_text()}")
            return ready.exists()

        wait_until(up, 120, message="the inner session's broker and worker")
        started = psutil.Process(session.pid).children(recursive=True)
        names = {" ".join(p.cmdline()) for p in started}
        assert any("kafka.Kafka" in n for n in names), names
        assert len(started) >= 2, names

        session.send_signal(sig)
        session.wait(60)
        if sig == signal.SIGTERM:  # ended by pytest itself, its finalizers run, not by the signal
            assert session.returncode == 128 + signal.SIGTERM, (tmp_path / "pytest.log").read_text()
        wait_until(lambda: not [p for p in started if _alive(p)], 60,
                   message="every process of the killed session to end")
    finally:
        if session.poll() is None:
            session.kill()
            session.wait(10)
        for proc in started:
            with contextlib.suppress(psutil.Error):
                proc.kill()
