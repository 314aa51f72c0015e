"""A source connector whose tasks take down the interpreter they run in, to check that a task process
dying is reported as the task's failure and harms nothing else.

Loaded by worker subprocesses through ``plugin.path`` (this directory) as
``connector.class=crashing_source.CrashingSourceConnector``. Each task writes sequence numbers like
VerifiableSource (key: the task id, source partition ``{"id": <task>}``, offset ``{"seqno": n}``, value
``n``; a restarted task resumes after its committed offset), ``records.per.poll`` (default 5) per poll,
a poll every ``poll.interval.ms`` (default 50). Its ``crash.after.polls + 1``-th poll (default: the 4th)
in a process does not return:

- ``crash.mode=exit``: ``os._exit(1)``, an exit with no clean-up at all;
- ``crash.mode=segfault``: reads address 0 through ctypes, so the interpreter dies of SIGSEGV.

The connector instance itself is harmless; only its tasks crash.
"""

from __future__ import annotations

import ctypes
import os
import threading
from collections.abc import Mapping

from connect_runtime.api import (
    NO_DEFAULT,
    ConfigDef,
    ConfigType,
    ExactlyOnceSupport,
    Importance,
    Range,
    SourceConnector,
    SourceRecord,
    SourceTask,
    ValidString,
)

VERSION = "0.0.1"
TOPIC = "topic"
CRASH_MODE = "crash.mode"
CRASH_AFTER_POLLS = "crash.after.polls"
RECORDS_PER_POLL = "records.per.poll"
POLL_INTERVAL_MS = "poll.interval.ms"
TASK_ID = "task.id"
EXIT = "exit"
SEGFAULT = "segfault"

CONFIG_DEF = (
    ConfigDef()
    .define(TOPIC, ConfigType.STRING, NO_DEFAULT, importance=Importance.HIGH,
            documentation="The topic the tasks write to.")
    .define(CRASH_MODE, ConfigType.STRING, EXIT, ValidString.one_of(EXIT, SEGFAULT), importance=Importance.HIGH,
            documentation="How a task dies: 'exit' calls os._exit(1); 'segfault' reads address 0 (SIGSEGV).")
    .define(CRASH_AFTER_POLLS, ConfigType.INT, 3, Range.at_least(0), importance=Importance.MEDIUM,
            documentation="How many polls return records before the next one crashes (per task process).")
    .define(RECORDS_PER_POLL, ConfigType.INT, 5, Range.at_least(1), importance=Importance.LOW,
            documentation="Records each poll returns.")
    .define(POLL_INTERVAL_MS, ConfigType.INT, 50, Range.at_least(0), importance=Importance.LOW,
            documentation="Milliseconds each poll waits before returning its records.")
)


class CrashingSourceConnector(SourceConnector):
    """A healthy connector whose tasks crash their process after a few polls."""

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
        return CrashingSourceTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [{**self._props, TASK_ID: str(i)} for i in range(max_tasks)]

    def stop(self) -> None:
        pass

    def exactly_once_support(self, connector_config: Mapping[str, str]) -> ExactlyOnceSupport | None:
        return ExactlyOnceSupport.SUPPORTED


class CrashingSourceTask(SourceTask):
    """Writes ``records.per.poll`` seqnos per poll, then crashes its process as ``crash.mode`` says."""

    def __init__(self) -> None:
        self._stop = threading.Event()
        self._polls = 0

    def version(self) -> str:
        return VERSION

    def start(self, props: Mapping[str, str]) -> None:
        cfg = CONFIG_DEF.parse(props)
        self._topic: str = cfg[TOPIC]
        self._mode: str = cfg[CRASH_MODE]
        self._crash_after: int = cfg[CRASH_AFTER_POLLS]
        self._per_poll: int = cfg[RECORDS_PER_POLL]
        self._interval_s = cfg[POLL_INTERVAL_MS] / 1000.0
        self._task = int(props.get(TASK_ID, "0"))
        stored = self.context.offset_storage_reader.offset({"id": self._task})
        self._seqno = int(stored["seqno"]) + 1 if stored else 0

    def poll(self) -> list[SourceRecord] | None:
        if self._stop.wait(self._interval_s):
            return None
        if self._polls >= self._crash_after:
            crash(self._mode)
        self._polls += 1
        first, self._seqno = self._seqno, self._seqno + self._per_poll
        return [SourceRecord({"id": self._task}, {"seqno": s}, self._topic, None, self._task, s)
                for s in range(first, self._seqno)]

    def stop(self) -> None:
        self._stop.set()


def crash(mode: str) -> None:
    """End this process at once: ``exit`` with code 1, ``segfault`` by SIGSEGV."""
    if mode == SEGFAULT:
        ctypes.string_at(0)  # reads address 0: SIGSEGV
    os._exit(1)
