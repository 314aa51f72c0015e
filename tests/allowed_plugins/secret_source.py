"""A source connector with a PASSWORD-typed key, ``secret.password``, that logs it when it starts (as a
careless plugin might): the runtime must show it as ``[hidden]`` in validation results and keep it out of
the log. A value starting with ``bad`` is refused by its validator, whose message quotes the value. The
task writes nothing."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from connect_runtime.api import (
    NO_DEFAULT,
    ConfigDef,
    ConfigException,
    ConfigType,
    Importance,
    SourceConnector,
    SourceRecord,
    SourceTask,
    Transformation,
)
from connect_runtime.testing.sequence_source import IdleSourceTask

logger = logging.getLogger(__name__)


def _not_bad(name: str, value: Any) -> None:
    if str(value).startswith("bad"):
        raise ConfigException(name, value, "must not start with bad")


CONFIG_DEF = ConfigDef().define("secret.password", ConfigType.PASSWORD, NO_DEFAULT, _not_bad,
                                importance=Importance.HIGH, documentation="The secret.")


class SecretSourceConnector(SourceConnector):
    """One idle task; logs its password when it starts."""

    def version(self) -> str:
        return "0.0.1"

    def config_def(self) -> ConfigDef:
        return CONFIG_DEF

    def start(self, props: Mapping[str, str]) -> None:
        self._props = dict(props)
        logger.info("Connecting with password %s", props["secret.password"])

    def task_class(self) -> type[SourceTask]:
        return IdleSourceTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [dict(self._props)]

    def stop(self) -> None:
        pass


class Passthrough(Transformation):
    """A transformation found by dotted path under the allowed package."""

    def apply(self, record: SourceRecord) -> SourceRecord | None:
        return record
