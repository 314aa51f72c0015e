"""A source connector whose records carry one header of each kind of value a plugin may give (for the
header converter tests).

Loaded by worker subprocesses through ``plugin.path`` (this directory) as
``connector.class=header_source.HeaderSourceConnector``. The one task writes ``count`` records (value:
the sequence number) to ``topic``, each with the headers in :data:`HEADERS`, then idles.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

from connect_runtime.api import (
    NO_DEFAULT,
    ConfigDef,
    ConfigType,
    ExactlyOnceSupport,
    Importance,
    SourceConnector,
    SourceRecord,
    SourceTask,
)

VERSION = "0.0.1"
#: Every record's headers: one of each kind of schemaless value.
HEADERS: list[tuple[str, Any]] = [
    ("text", "h\u00e9llo"), ("int", 42), ("float", 1.5), ("bool", True), ("bytes", b"\x00\xff"),
    ("map", {"a": [1, "x"]}), ("null", None),
]

CONFIG_DEF = (
    ConfigDef()
    .define("topic", ConfigType.STRING, NO_DEFAULT, importance=Importance.HIGH, documentation="The topic to write to.")
    .define("count", ConfigType.INT, 5, importance=Importance.MEDIUM, documentation="How many records to write.")
)


class HeaderSourceConnector(SourceConnector):
    """``count`` records with :data:`HEADERS`."""

    def __init__(self) -> None:
        self._props: dict[str, str] = {}

    def version(self) -> str:
        return VERSION

    def config_def(self) -> ConfigDef:
        return CONFIG_DEF

    def start(self, props: Mapping[str, str]) -> None:
        CONFIG_DEF.parse(props)
        self._props = dict(props)

    def task_class(self) -> type[SourceTask]:
        return HeaderSourceTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [dict(self._props)]

    def stop(self) -> None:
        pass

    def exactly_once_support(self, connector_config: Mapping[str, str]) -> ExactlyOnceSupport | None:
        return ExactlyOnceSupport.SUPPORTED


class HeaderSourceTask(SourceTask):
    """Writes the records once (resuming after the stored offset), then idles."""

    def __init__(self) -> None:
        self._stop = threading.Event()
        self._topic = ""
        self._next = 0
        self._count = 0

    def version(self) -> str:
        return VERSION

    def start(self, props: Mapping[str, str]) -> None:
        values = CONFIG_DEF.parse(props)
        self._topic, self._count = values["topic"], values["count"]
        stored = self.context.offset_storage_reader.offset({"source": "headers"})
        self._next = int(stored["seqno"]) + 1 if stored else 0

    def poll(self) -> list[SourceRecord] | None:
        if self._next >= self._count:
            self._stop.wait(0.2)
            return None
        start, self._next = self._next, self._count
        return [SourceRecord({"source": "headers"}, {"seqno": s}, self._topic, None, None, s, HEADERS)
                for s in range(start, self._count)]

    def stop(self) -> None:
        self._stop.set()
