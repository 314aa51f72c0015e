"""A source connector that takes a while to start, to keep the herder thread busy.

Loaded by worker subprocesses through ``plugin.path`` (this directory) as
``connector.class=slow_start_source.SlowStartSourceConnector``. The worker that is assigned the
connector starts it on its herder thread, so ``start()`` blocks that thread for ``start.sleep.ms``
(default 5000): long enough to show what else has to wait for it and what must not. Its tasks write
nothing.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping

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

CONFIG_DEF = ConfigDef().define(
    START_SLEEP_MS, ConfigType.INT, 5000, importance=Importance.LOW,
    documentation="How long start() sleeps, in milliseconds.")


class SlowStartSourceConnector(SourceConnector):
    """``start()`` sleeps ``start.sleep.ms``; one idle task per ``tasks.max``."""

    def version(self) -> str:
        return VERSION

    def config_def(self) -> ConfigDef:
        return CONFIG_DEF

    def start(self, props: Mapping[str, str]) -> None:
        time.sleep(CONFIG_DEF.parse(props)[START_SLEEP_MS] / 1000.0)

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
