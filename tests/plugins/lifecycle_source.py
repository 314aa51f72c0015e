"""A source connector that writes down its lifecycle, to check which thread calls what, and when.

Loaded by worker subprocesses through ``plugin.path`` (this directory) as
``connector.class=lifecycle_source.LifecycleSourceConnector``. Every call of the connector's and its
tasks' ``start``/``stop`` appends one JSON line to ``events.file``: what was called, by whom (``task``:
the task's ``task.id``, or ``connector``), on which thread (process id and thread ident), and for a
task's ``stop``, whether a ``poll`` of that task was running at that moment and the thread of its polls.
Each ``poll`` takes ``poll.ms`` (default 300) and returns nothing, so a ``stop`` called from another
thread almost always lands inside one. With ``fail.task.start=true`` the tasks' ``start`` raises.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Mapping
from typing import Any

from connect_runtime.api import NO_DEFAULT, ConfigDef, ConfigType, Importance, SourceRecord, SourceTask
from connect_runtime.testing.sequence_source import SequenceSourceConnector

VERSION = "0.0.1"
EVENTS_FILE = "events.file"
POLL_MS = "poll.ms"
FAIL_TASK_START = "fail.task.start"

CONFIG_DEF = (
    ConfigDef()
    .define(EVENTS_FILE, ConfigType.STRING, NO_DEFAULT, importance=Importance.HIGH,
            documentation="The file the lifecycle events are appended to, one JSON object a line.")
    .define(POLL_MS, ConfigType.INT, 300, importance=Importance.LOW,
            documentation="How long each poll takes, in milliseconds.")
    .define(FAIL_TASK_START, ConfigType.BOOLEAN, False, importance=Importance.LOW,
            documentation="Whether the tasks' start() raises.")
)

_write_lock = threading.Lock()


def _record(path: str, **event: Any) -> None:
    event.update(pid=os.getpid(), thread=threading.get_ident())
    with _write_lock, open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps(event) + "\n")


class LifecycleSourceTask(SourceTask):
    """Polls slowly and returns nothing; records start and stop."""

    def __init__(self) -> None:
        self._path = ""
        self._who = ""
        self._poll_s = 0.0
        self._polling = False
        self._poll_threads: set[int] = set()

    def version(self) -> str:
        return VERSION

    def start(self, props: Mapping[str, str]) -> None:
        cfg = CONFIG_DEF.parse(props)
        self._path = cfg[EVENTS_FILE]
        self._who = f"task-{props.get('task.id', '0')}"
        self._poll_s = cfg[POLL_MS] / 1000.0
        _record(self._path, who=self._who, call="start")
        if cfg[FAIL_TASK_START]:
            raise RuntimeError("task start boom")

    def poll(self) -> list[SourceRecord] | None:
        self._polling = True
        try:
            self._poll_threads.add(threading.get_ident())
            time.sleep(self._poll_s)  # deliberately not woken by stop(): the runtime must wait for it
            return None
        finally:
            self._polling = False

    def stop(self) -> None:
        _record(self._path, who=self._who, call="stop", polling=self._polling,
                poll_threads=sorted(self._poll_threads))


class LifecycleSourceConnector(SequenceSourceConnector):
    """Records its own start and stop; hands its config to ``tasks.max`` tasks."""

    CONFIG_DEF = CONFIG_DEF
    TASK_CLASS = LifecycleSourceTask

    def start(self, props: Mapping[str, str]) -> None:
        super().start(props)
        _record(self.props[EVENTS_FILE], who="connector", call="start")

    def stop(self) -> None:
        _record(self.props[EVENTS_FILE], who="connector", call="stop")
