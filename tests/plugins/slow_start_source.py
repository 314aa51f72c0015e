"""A source connector that takes a while to start.

Loaded by worker subprocesses through ``plugin.path`` (this directory) as
``connector.class=slow_start_source.SlowStartSourceConnector``. ``start()`` sleeps ``start.sleep.ms``
(default 5000) or, with ``start.gate.dir``, creates ``entered`` in that directory and blocks until the
test creates ``release`` there (at most 60 s), then creates ``returned``: a test sees exactly when the
worker is inside ``start()`` without guessing from timings. Its tasks write nothing.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path

from connect_runtime.api import ConfigDef, ConfigType, Importance
from connect_runtime.testing.sequence_source import IdleSourceTask, SequenceSourceConnector

START_SLEEP_MS = "start.sleep.ms"
START_GATE_DIR = "start.gate.dir"
GATE_TIMEOUT_S = 60.0

CONFIG_DEF = ConfigDef().define(
    START_SLEEP_MS, ConfigType.INT, 5000, importance=Importance.LOW,
    documentation="How long start() sleeps, in milliseconds.",
).define(
    START_GATE_DIR, ConfigType.STRING, "", importance=Importance.LOW,
    documentation="If set, start() blocks until a file named 'release' appears in this directory.")


class SlowStartSourceConnector(SequenceSourceConnector):
    """``start()`` sleeps ``start.sleep.ms``; one idle task per ``tasks.max``."""

    CONFIG_DEF = CONFIG_DEF
    TASK_CLASS = IdleSourceTask

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

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [{} for _ in range(max_tasks)]
