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
from collections.abc import Mapping

from connect_runtime.api import ConfigType, Importance, Range, SourceRecord, ValidString
from connect_runtime.testing.sequence_source import SequenceSourceConnector, SequenceSourceTask, sequence_config_def

CRASH_MODE = "crash.mode"
CRASH_AFTER_POLLS = "crash.after.polls"
RECORDS_PER_POLL = "records.per.poll"
POLL_INTERVAL_MS = "poll.interval.ms"
EXIT = "exit"
SEGFAULT = "segfault"

CONFIG_DEF = (
    sequence_config_def()
    .define(CRASH_MODE, ConfigType.STRING, EXIT, ValidString.one_of(EXIT, SEGFAULT), importance=Importance.HIGH,
            documentation="How a task dies: 'exit' calls os._exit(1); 'segfault' reads address 0 (SIGSEGV).")
    .define(CRASH_AFTER_POLLS, ConfigType.INT, 3, Range.at_least(0), importance=Importance.MEDIUM,
            documentation="How many polls return records before the next one crashes (per task process).")
    .define(RECORDS_PER_POLL, ConfigType.INT, 5, Range.at_least(1), importance=Importance.LOW,
            documentation="Records each poll returns.")
    .define(POLL_INTERVAL_MS, ConfigType.INT, 50, Range.at_least(0), importance=Importance.LOW,
            documentation="Milliseconds each poll waits before returning its records.")
)


class CrashingSourceTask(SequenceSourceTask):
    """Writes ``records.per.poll`` seqnos per poll, then crashes its process as ``crash.mode`` says."""

    CONFIG_DEF = CONFIG_DEF

    def __init__(self) -> None:
        super().__init__()
        self._polls = 0

    def start(self, props: Mapping[str, str]) -> None:
        super().start(props)
        self.batch = self.config[RECORDS_PER_POLL]
        self.poll_interval_s = self.config[POLL_INTERVAL_MS] / 1000.0

    def next_batch(self) -> list[SourceRecord]:
        if self._polls >= self.config[CRASH_AFTER_POLLS]:
            crash(self.config[CRASH_MODE])
        self._polls += 1
        return super().next_batch()


class CrashingSourceConnector(SequenceSourceConnector):
    """A healthy connector whose tasks crash their process after a few polls."""

    CONFIG_DEF = CONFIG_DEF
    TASK_CLASS = CrashingSourceTask


def crash(mode: str) -> None:
    """End this process at once: ``exit`` with code 1, ``segfault`` by SIGSEGV."""
    if mode == SEGFAULT:
        ctypes.string_at(0)  # reads address 0: SIGSEGV
    os._exit(1)
