"""A source whose tasks fail to start on a transient error a given number of times, then run.

Loaded by worker subprocesses through ``plugin.path`` (this directory) as
``connector.class=flaky_source.FlakySourceConnector``. ``failures`` (default 2) is how many starts of
each task raise :class:`RetriableException` (counted in files under ``state.dir``); ``transient=false``
raises a plain ``RuntimeError`` instead. Once running, a task writes its seqnos like VerifiableSource.
``flaky_source.SlowValidationConnector`` also takes ``validate.sleep.ms`` to validate a configuration.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from pathlib import Path

from connect_runtime.api import (
    NO_DEFAULT,
    ConfigDef,
    ConfigType,
    ConfigValue,
    ExactlyOnceSupport,
    Importance,
    RetriableException,
    SourceConnector,
    SourceRecord,
    SourceTask,
)

VERSION = "0.0.1"
CONFIG_DEF = (
    ConfigDef()
    .define("topic", ConfigType.STRING, NO_DEFAULT, importance=Importance.HIGH, documentation="Target topic.")
    .define("state.dir", ConfigType.STRING, NO_DEFAULT, importance=Importance.HIGH, documentation="Counters.")
    .define("failures", ConfigType.INT, 2, importance=Importance.LOW, documentation="Failed starts per task.")
    .define("transient", ConfigType.BOOLEAN, True, importance=Importance.LOW, documentation="Retriable?")
)


class FlakySourceConnector(SourceConnector):
    def __init__(self) -> None:
        self._props: dict[str, str] = {}

    def version(self) -> str:
        return VERSION

    def config_def(self) -> ConfigDef:
        return CONFIG_DEF

    def start(self, props: Mapping[str, str]) -> None:
        self._props = dict(props)

    def task_class(self) -> type[SourceTask]:
        return FlakySourceTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [{**self._props, "task.id": str(i)} for i in range(max_tasks)]

    def stop(self) -> None:
        pass

    def exactly_once_support(self, connector_config: Mapping[str, str]) -> ExactlyOnceSupport | None:
        return ExactlyOnceSupport.SUPPORTED


class FlakySourceTask(SourceTask):
    def __init__(self) -> None:
        self._stop = threading.Event()

    def version(self) -> str:
        return VERSION

    def start(self, props: Mapping[str, str]) -> None:
        cfg = CONFIG_DEF.parse(props)
        task = int(props["task.id"])
        counter = Path(cfg["state.dir"]) / f"starts-{task}"
        starts = int(counter.read_text()) if counter.exists() else 0
        counter.write_text(str(starts + 1))
        if starts < cfg["failures"]:
            if cfg["transient"]:
                raise RetriableException(f"upstream unavailable (start {starts + 1})")
            raise RuntimeError(f"broken (start {starts + 1})")
        self._topic = cfg["topic"]
        self._task = task
        stored = self.context.offset_storage_reader.offset({"id": task})
        self._seqno = int(stored["seqno"]) + 1 if stored else 0

    def poll(self) -> list[SourceRecord] | None:
        if self._stop.wait(0.05):
            return None
        batch = [SourceRecord({"id": self._task}, {"seqno": s}, self._topic, None, self._task, s)
                 for s in range(self._seqno, self._seqno + 10)]
        self._seqno += 10
        return batch

    def stop(self) -> None:
        self._stop.set()


class SlowValidationConnector(FlakySourceConnector):
    """Takes ``validate.sleep.ms`` (default 5000) to validate a configuration."""

    def validate(self, connector_configs: Mapping[str, str]) -> list[ConfigValue]:
        time.sleep(int(connector_configs.get("validate.sleep.ms", "5000")) / 1000.0)
        return super().validate(connector_configs)
