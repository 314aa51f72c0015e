"""A source connector that takes a while to start.

Loaded by worker subprocesses through ``plugin.path`` (this directory) as
``connector.class=slow_start_source.SlowStartSourceConnector``. ``start()`` sleeps ``start.sleep.ms``
(default 5000) or, with ``start.gate.dir``, creates ``entered`` in that directory and blocks until the
test creates ``release`` there (at most 60 s), then creates ``returned``: a test sees exactly when the
worker is inside ``start()`` without guessing from timings. Its tasks write nothing.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from pathlib import Path

from connect_runtime.api import (
    ConfigDef,
    ConfigType,
    ExactlyOnceSupport,
    Importance,
    SourceConnector,
    SourceRecord,
    SourceTask,
)

VERSION = "0.0.1"
START_SLEEP_MS = "start.sleep.ms"
START_GATE_DIR = "start.gate.dir"
GATE_TIMEOUT_S = 60.0

CONFIG_DEF = ConfigDef().define(
    START_SLEEP_MS, ConfigType.INT, 5000, importance=Importance.LOW,
    documentation="How long start() sleeps, in milliseconds.",
).define(
    START_GATE_DIR, ConfigType.STRING, "", importance=Importance.LOW,
    documentation="If set, start() blocks until a file named 'release' appears in this directory.")


class SlowStartSourceConnector(SourceConnector):
    """``start()`` sleeps ``start.sleep.ms``; one idle task per ``tasks.max``."""

    def version(self) -> str:
        return VERSION

    def config_def(self) -> ConfigDef:
        return CONFIG_DEF

    def start(self, props: Mapping[str, str]) -> None:
        config = CONFIG_DEF.parse(props)
        if not config[START_GATE_DIR]:
            time.sleep(config[START_SLEEP_MS] / 1000.0)
            return
        gate = Path(config[START_GATE_DIR])
        (gate / "entered").touch()
        deadline = time.monotonic() + GATE_TIMEOUT_S
        while not (gate / "release").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        (gate / "returned").touch()

    def task_class(self) -> type[SourceTask]:
        return IdleSourceTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [{} for _ in range(max_tasks)]

    def stop(self) -> None:
        pass

    def exactly_once_support(self, connector_config: Mapping[str, str]) -> ExactlyOnceSupport | None:
        return ExactlyOnceSupport.SUPPORTED


class IdleSourceTask(SourceTask):
    """Polls and returns nothing."""

    def __init__(self) -> None:
        self._stop = threading.Event()

    def version(self) -> str:
        return VERSION

    def start(self, props: Mapping[str, str]) -> None:
        pass

    def poll(self) -> list[SourceRecord] | None:
        self._stop.wait(0.5)
        return None

    def stop(self) -> None:
        self._stop.set()
