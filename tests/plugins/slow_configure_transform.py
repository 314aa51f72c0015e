"""A transformation whose ``configure()`` sleeps, to keep a worker's herder thread busy.

Loaded by worker subprocesses through ``plugin.path`` (this directory) as
``transforms.<alias>.type=slow_configure_transform.SlowConfigure``. When the worker starts a task it
builds the task's transformation chain once on its herder thread (so that a chain that cannot be built
fails the task before its process starts), so a connector with this transformation keeps that thread
busy for ``sleep.ms`` (default 5000) at each of its task starts: long enough to show what else has to
wait for the herder and what must not. A connector's own ``start()`` cannot serve: it runs on the
connector's thread. If task start-up stops building the chain on the herder thread, the tests that
use this need another way to keep it busy.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from connect_runtime.api import ConfigDef, ConfigType, Importance, SourceRecord, Transformation

SLEEP_MS = "sleep.ms"

CONFIG_DEF = ConfigDef().define(
    SLEEP_MS, ConfigType.INT, 5000, importance=Importance.LOW,
    documentation="How long configure() sleeps, in milliseconds.")


class SlowConfigure(Transformation):
    """``configure()`` sleeps ``sleep.ms``; records pass unchanged."""

    def config_def(self) -> ConfigDef:
        return CONFIG_DEF

    def configure(self, configs: Mapping[str, Any]) -> None:
        time.sleep(CONFIG_DEF.parse(configs)[SLEEP_MS] / 1000.0)

    def apply(self, record: SourceRecord) -> SourceRecord | None:
        return record
