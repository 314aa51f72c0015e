"""A source connector that takes a while to start, to keep the herder thread busy.

Loaded by worker subprocesses through ``plugin.path`` (this directory) as
``connector.class=slow_start_source.SlowStartSourceConnector``. The worker that is assigned the
connector starts it on its herder thread, so ``start()`` blocks that thread for ``start.sleep.ms``
(default 5000): long enough to show what else has to wait for it and what must not. Its tasks write
nothing.
"""

from __future__ import annotations

import time
from collections.abc import Mapping

from connect_runtime.api import ConfigDef, ConfigType, Importance
from connect_runtime.testing.sequence_source import IdleSourceTask, SequenceSourceConnector

START_SLEEP_MS = "start.sleep.ms"

CONFIG_DEF = ConfigDef().define(START_SLEEP_MS, ConfigType.INT, 5000, importance=Importance.LOW,
                                documentation="How long start() sleeps, in milliseconds.")


class SlowStartSourceConnector(SequenceSourceConnector):
    """``start()`` sleeps ``start.sleep.ms``; one idle task per ``tasks.max``."""

    CONFIG_DEF = CONFIG_DEF
    TASK_CLASS = IdleSourceTask

    def start(self, props: Mapping[str, str]) -> None:
        time.sleep(CONFIG_DEF.parse(props)[START_SLEEP_MS] / 1000.0)

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [{} for _ in range(max_tasks)]
