"""The launcher base: a small subclass gets the data dir, the pid and state files, stop and the command
line every local service has (what the Kafka, registry and Spark launchers are built on), and a
one-process service its start, readiness wait, recorded port and pid-reuse guard."""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from connect_runtime.api.processes import cmdline, pid_alive
from connect_runtime.testing import local_kafka, local_registry
from connect_runtime.testing.launcher import (
    LauncherError,
    LocalService,
    SingleProcessService,
    cmdline_matches,
    free_port,
    http_probe,
)
from connect_runtime.testing.local_kafka import LocalKafka
from connect_runtime.testing.local_registry import LocalRegistry
from connect_runtime.testing.waiting import wait_until


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


class FileServer(SingleProcessService):
    """A one-process service with a readiness probe: Python's ``http.server`` on the recorded port, or, with
    ``mode``, a process that exits at once (``"exit"``) or never answers (``"mute"``)."""

    command = "local-files"
    title = "Files"
    description = "Serve files."
    start_help = stop_help = status_help = timeout_help = data_dir_help = "files"
    default_data_dir = Path(".local-files")
    default_start_timeout = 20.0
    default_stop_timeout = 5.0
    state_file_name = "files.json"
    pid_file_name = "files.pid"
    address_key = "files.url"

    log_file_name = "files.log"

    def __init__(self, data_dir: Path | str, mode: str = "serve") -> None:
        super().__init__(data_dir)
        self.mode = mode
        self.www = self.data_dir / "www"

    def _address(self, port: int) -> str:
        return f"http://127.0.0.1:{port}"

    def _identifying_args(self) -> tuple[str, ...]:
        return ("--directory", str(self.www))

    def _launch(self, port: int | None) -> None:
        chosen = self._choose_port(port)
        self.www.mkdir(parents=True, exist_ok=True)
        code = {"exit": ["-c", "import sys; print('no luck'); sys.exit(3)"],
                "mute": ["-c", "import time; time.sleep(600)", "--directory", str(self.www)],
                "serve": ["-m", "http.server", str(chosen), "--bind", "127.0.0.1", "--directory", str(self.www)]}
        self._spawn([sys.executable, *code[self.mode]], self.main_log, self.pid_file)

    def _readiness(self) -> str:
        return "serve files"

    def _probe(self) -> Callable[[float], str | None]:
        url = f"{self.address}/hello.txt"
        return lambda remaining: http_probe(url, timeout_s=1.0)


def test_a_single_process_service_starts_once_waits_until_ready_and_keeps_its_port(tmp_path: Path) -> None:
    first = FileServer(tmp_path / "f")
    (first.www).mkdir(parents=True)
    (first.www / "hello.txt").write_text("hello")
    try:
        url = first.start()
        assert url == first.address and url.startswith("http://127.0.0.1:")
        assert http_probe(f"{url}/hello.txt") is None  # start returned once it answered
        status = first.status()
        assert status.running and status.pid is not None
        assert str(status) == f"running (pid {status.pid}) files.url={url} data dir {first.data_dir}"

        other = FileServer(tmp_path / "f")
        assert other.start() == url  # runs already: nothing new
        assert other.status().pid == status.pid
        assert other.stop() is True  # found through the data dir alone
        assert not pid_alive(status.pid)
        assert not first.status().running and not first.pid_file.exists()
        assert str(first.status()) == f"not running (data dir {first.data_dir})"

        assert first.start() == url  # the recorded port again
        assert http_probe(f"{url}/hello.txt") is None
    finally:
        first.stop()


def test_a_pid_file_naming_another_process_is_not_the_service(tmp_path: Path) -> None:
    service = FileServer(tmp_path / "f")
    service.data_dir.mkdir(parents=True)
    service.pid_file.write_text(f"{os.getpid()}\n")  # alive, but not the service: a reused pid
    assert not service.status().running
    assert service.stop() is False
    assert pid_alive(os.getpid())


@pytest.mark.parametrize("launcher", [FileServer, LocalKafka, LocalRegistry])
def test_a_port_in_use_is_refused_before_anything_starts(
    launcher: type[SingleProcessService], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    for module in (local_kafka, local_registry):  # the port is checked before anything is fetched or run
        monkeypatch.setattr(module, "find_java", lambda *args: "java")
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        service = launcher(tmp_path / "s")
        with pytest.raises(LauncherError) as info:
            service.start(port)
        assert isinstance(info.value, launcher.error)
        assert info.value.message == f"port {port} on 127.0.0.1 is already in use; choose another with --port"
        assert not service.status().running and not service.pid_file.exists()

        assert launcher.cli(["start", "--port", str(port), "--data-dir", str(tmp_path / "s")]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.strip().splitlines()[-1] == f"error: {info.value.message}"


def test_a_process_that_exits_during_startup_fails_the_start_with_its_log(tmp_path: Path) -> None:
    service = FileServer(tmp_path / "f", mode="exit")
    with pytest.raises(LauncherError) as info:
        service.start()
    assert info.value.message == f"Files exited during startup (exit code 3); see {service.main_log}"
    assert info.value.detail is not None and "no luck" in info.value.detail
    assert not service.status().running and not service.pid_file.exists()


def test_a_process_that_never_answers_is_stopped_at_the_deadline(tmp_path: Path) -> None:
    service = FileServer(tmp_path / "f", mode="mute")
    with pytest.raises(LauncherError) as info:
        service.start(timeout=1.0)
    assert info.value.message.startswith("Files did not serve files within 1 s (")
    assert info.value.message.endswith(f"); see {service.main_log}")
    assert not service.status().running and not service.pid_file.exists()


def test_cmdline_matches_needs_every_argument_of_a_live_process(tmp_path: Path) -> None:
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", "marker-a", str(tmp_path)])
    try:
        assert wait_until(lambda: "marker-a" in cmdline(proc.pid), timeout_s=10)
        assert cmdline_matches(proc.pid, "marker-a", str(tmp_path))
        assert not cmdline_matches(proc.pid, "marker-a", "marker-b")
        assert not cmdline_matches(proc.pid, "marker")  # whole arguments only
    finally:
        proc.kill()
        proc.wait()
    assert not cmdline_matches(proc.pid, "marker-a")
