"""The launcher base: a small subclass gets the data dir, the pid and state files, stop and the command
line every local service has (what the Kafka and Spark launchers are built on)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pytest

from connect_runtime.api.processes import pid_alive
from connect_runtime.testing.launcher import LauncherError, LocalService, free_port


class Sleeper(LocalService):
    """A service of one process that does nothing, on a port it records."""

    command = "local-sleeper"
    title = "Sleeper"
    description = "Run a sleeper."
    start_help = "start the sleeper"
    stop_help = "stop the sleeper"
    status_help = "say whether the sleeper runs"
    timeout_help = "seconds to wait"
    data_dir_help = "sleeper state directory"
    default_data_dir = Path(".local-sleeper")
    default_start_timeout = 5.0
    default_stop_timeout = 5.0
    state_file_name = "state.json"

    @property
    def pid_file(self) -> Path:
        return self.data_dir / "sleeper.pid"

    def running_pid(self) -> int | None:
        pid = self._read_pid(self.pid_file)
        return pid if pid is not None and pid_alive(pid) else None

    def start(self, port: int | None = None) -> int:
        with self._locked():
            if self.running_pid() is None:
                if port == 0:
                    raise LauncherError("port 0 is not a port")
                self._write_state({"port": port or self._read_state().get("port") or free_port()})
                self._spawn([sys.executable, "-c", "import time; time.sleep(600)"],
                            self.logs_dir / "sleeper.log", self.pid_file)
            port = self._read_state()["port"]
            assert isinstance(port, int)
            return port

    def _stop_locked(self, timeout_s: float) -> bool:
        pid = self.running_pid()
        if pid is not None:
            assert not self._terminate({"sleeper": pid}, timeout_s)
        self.pid_file.unlink(missing_ok=True)
        return pid is not None

    @classmethod
    def _add_start_arguments(cls, start: argparse.ArgumentParser) -> None:
        start.add_argument("--port", type=int, default=None)

    def _cli_start(self, args: argparse.Namespace) -> str:
        return f"sleeper.port={self.start(args.port)}"

    def _cli_status(self) -> bool:
        pid = self.running_pid()
        print(f"running (pid {pid})" if pid is not None else "not running")
        return pid is not None


def test_a_small_subclass_is_a_service_another_object_can_stop(tmp_path: Path) -> None:
    first = Sleeper(tmp_path / "s")
    try:
        port = first.start()
        pid = first.running_pid()
        assert pid is not None and pid_alive(pid)
        assert first.start() == port  # running: nothing new
        assert first.running_pid() == pid
        assert "starting: " in (tmp_path / "s" / "logs" / "sleeper.log").read_text()
        assert Sleeper(tmp_path / "s").stop() is True  # found through the data dir alone
        assert not pid_alive(pid)
        assert Sleeper(tmp_path / "s").stop() is False
        assert first.start() == port  # the recorded state is reused
    finally:
        first.stop()
    assert Sleeper(tmp_path / "nothing").stop() is False
    assert not (tmp_path / "nothing").exists()


def test_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data_dir = str(tmp_path / "s")
    port = free_port()
    try:
        assert Sleeper.cli(["start", "--port", str(port), "--data-dir", data_dir, "--timeout", "3"]) == 0
        assert capsys.readouterr().out == f"sleeper.port={port}\n"
        assert Sleeper.cli(["status", "--data-dir", data_dir]) == 0
        assert capsys.readouterr().out.startswith("running (pid ")
    finally:
        assert Sleeper.cli(["stop", "--data-dir", data_dir]) == 0
    assert capsys.readouterr().out == f"stopped Sleeper in {tmp_path / 's'}\n"
    assert Sleeper.cli(["stop", "--data-dir", data_dir]) == 0
    assert capsys.readouterr().out == f"no Sleeper running in {tmp_path / 's'}\n"
    assert Sleeper.cli(["status", "--data-dir", data_dir]) == 1
    assert capsys.readouterr().out == "not running\n"
    assert Sleeper.cli(["start", "--port", "0", "--data-dir", data_dir]) == 1
    assert capsys.readouterr().err.splitlines()[-1] == "error: port 0 is not a port"


def test_every_subcommand_takes_the_data_dir() -> None:
    parser = Sleeper.parser()
    assert parser.prog == "connect-runtime local-sleeper"
    args = parser.parse_args(["start", "--port", "1"])
    assert (args.port, args.data_dir, args.timeout) == (1, Path(".local-sleeper"), 5.0)
    for command in ("stop", "status"):
        assert parser.parse_args([command, "--data-dir", "d"]).data_dir == Path("d")
