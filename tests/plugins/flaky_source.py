"""A source whose tasks fail to start on a transient error a given number of times, then run.

Loaded by worker subprocesses through ``plugin.path`` (this directory) as
``connector.class=flaky_source.FlakySourceConnector``. ``failures`` (default 2) is how many starts of
each task raise :class:`RetriableException` (counted in files under ``state.dir``); ``transient=false``
raises a plain ``RuntimeError`` instead. Once running, a task writes its seqnos like VerifiableSource.
``flaky_source.SlowValidationConnector`` also takes ``validate.sleep.ms`` to validate a configuration.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path

from connect_runtime.api import NO_DEFAULT, ConfigType, ConfigValue, Importance, RetriableException
from connect_runtime.testing.sequence_source import SequenceSourceConnector, SequenceSourceTask, sequence_config_def

CONFIG_DEF = (
    sequence_config_def()
    .define("state.dir", ConfigType.STRING, NO_DEFAULT, importance=Importance.HIGH, documentation="Counters.")
    .define("failures", ConfigType.INT, 2, importance=Importance.LOW, documentation="Failed starts per task.")
    .define("transient", ConfigType.BOOLEAN, True, importance=Importance.LOW, documentation="Retriable?")
)


class FlakySourceTask(SequenceSourceTask):
    """Fails its first ``failures`` starts, then writes sequence numbers."""

    CONFIG_DEF = CONFIG_DEF

    def start(self, props: Mapping[str, str]) -> None:
        cfg = CONFIG_DEF.parse(props)
        counter = Path(cfg["state.dir"]) / f"starts-{int(props['task.id'])}"
        starts = int(counter.read_text()) if counter.exists() else 0
        counter.write_text(str(starts + 1))
        if starts < cfg["failures"]:
            if cfg["transient"]:
                raise RetriableException(f"upstream unavailable (start {starts + 1})")
            raise RuntimeError(f"broken (start {starts + 1})")
        super().start(props)


class FlakySourceConnector(SequenceSourceConnector):
    """Sequence numbers from tasks that fail to start a few times first."""

    CONFIG_DEF = CONFIG_DEF
    TASK_CLASS = FlakySourceTask


class SlowValidationConnector(FlakySourceConnector):
    """Takes ``validate.sleep.ms`` (default 5000) to validate a configuration."""

    def validate(self, connector_configs: Mapping[str, str]) -> list[ConfigValue]:
        time.sleep(int(connector_configs.get("validate.sleep.ms", "5000")) / 1000.0)
        return super().validate(connector_configs)
