"""The task process's entry point: one source task, its converters, transforms and producer, in a process
of its own (the worker's handle on it is :class:`~connect_runtime.worker.task_process.TaskProcess`).

Each task runs in a child process of its worker, so tasks do not share an interpreter lock (a worker
with N tasks uses up to N cores) and a plugin that crashes the interpreter or leaks memory takes only
its own task down. The worker keeps the herder, the REST API, the stores and the statuses; the task
process reaches them through its :class:`~connect_runtime.worker.task_channel.TaskChannel`, with the
messages of :mod:`~connect_runtime.worker.task_protocol`:

- statuses (RUNNING, PAUSED, FAILED with its trace, UNASSIGNED) and topics first written go to the
  worker as notifications, in the order the task loop produces them;
- the start-up steps that need the cluster (fencing, re-checking the task's generation) and the
  offsets (reads, at-least-once flushes, tombstones) are calls answered by the worker.

The process lives only as long as its worker: it watches the pipe, and when the worker is gone (a
SIGKILL, a crash) it exits at once, with no final commit (the worker's successor for the task fences
and aborts whatever it left open). It ignores SIGINT and SIGTERM: a signal to the whole process group
(Ctrl-C, a service manager's stop) reaches the worker, which stops its tasks in order.
"""

from __future__ import annotations

import contextlib
import ctypes
import faulthandler
import logging
import os
import pickle
import signal
import sys
import threading
import traceback
from collections.abc import Collection, Mapping
from concurrent.futures import Future
from multiprocessing.connection import Connection
from typing import Any

import setproctitle
from confluent_kafka import Producer

from connect_runtime.api.converter import CONVERTER_TYPE_CONFIG, Converter, HeaderConverter
from connect_runtime.api.record import SourceMap
from connect_runtime.api.storage import OffsetStorageReader
from connect_runtime.clients import is_transient, producer_config
from connect_runtime.config.config_providers import ResolvedConfig
from connect_runtime.config.connector_config import SourceConnectorConfig, TransactionBoundary
from connect_runtime.logging_util import RateLimitedLogger
from connect_runtime.metrics.client_stats import ClientStatsCollector, statistics_interval_ms, with_statistics
from connect_runtime.redaction import redactor
from connect_runtime.storage.offset_backing_store import OffsetEntries, produce_offsets
from connect_runtime.types import ConnectorTaskId
from connect_runtime.version import plugin_version
from connect_runtime.worker import task_protocol as protocol
from connect_runtime.worker.at_least_once_source_task import (
    AtLeastOnceWorkerSourceTask,
    DeliveryErrors,
    at_least_once_producer_config,
)
from connect_runtime.worker.exactly_once_source_task import (
    ConnectorBoundaryWorkerSourceTask,
    ExactlyOnceWorkerSourceTask,
    transaction_timeout_ms,
)
from connect_runtime.worker.retry_with_tolerance import RetryWithToleranceOperator
from connect_runtime.worker.source_task_base import TaskSetup, WorkerSourceTask
from connect_runtime.worker.task_channel import ChannelClosed, TaskChannel
from connect_runtime.worker.task_metrics import REPORT_INTERVAL_S, NullTaskMetrics, TaskMetrics
from connect_runtime.worker.task_protocol import Lifecycle
from connect_runtime.worker.task_spec import TaskSpec
from connect_runtime.worker.topic_creation import TaskTopics
from connect_runtime.worker.transformation_chain import build_transformation_chain, close_quietly

logger = logging.getLogger(__name__)

#: Exit status of a task process whose worker is gone.
ORPHANED_EXIT = 70
#: Benchmarks only (bench/README.md): set to ``off`` in a worker's environment, its tasks record no metrics,
#: so one run can compare throughput with and without them. Not a setting of the runtime.
BENCH_METRICS_SWITCH = "CONNECT_RUNTIME_BENCH_TASK_METRICS"
_PR_SET_PDEATHSIG = 1


class _RemoteStatus:
    """The task loop's :class:`~connect_runtime.worker.task_status.TaskStatusListener`: the worker writes."""

    def __init__(self, channel: TaskChannel, active_topics: Mapping[str, Any] | None) -> None:
        self._channel = channel
        # A copy: the worker's live view does not cross the pipe. A topic another task of the connector
        # recorded since is recorded again by this one (the same record, harmless).
        self._active_topics: dict[str, Any] | None = None if active_topics is None else dict(active_topics)

    def on_startup(self, task: ConnectorTaskId) -> None:
        self._channel.notify(protocol.StatusChanged(task, Lifecycle.STARTED))

    def on_pause(self, task: ConnectorTaskId) -> None:
        self._channel.notify(protocol.StatusChanged(task, Lifecycle.PAUSED))

    def on_resume(self, task: ConnectorTaskId) -> None:
        self._channel.notify(protocol.StatusChanged(task, Lifecycle.RESUMED))

    def on_failure(self, task: ConnectorTaskId, trace: str, transient: bool = False) -> None:
        self._channel.notify(protocol.TaskFailed(task, trace, transient))

    def on_shutdown(self, task: ConnectorTaskId) -> None:
        self._channel.notify(protocol.StatusChanged(task, Lifecycle.SHUT_DOWN))

    def active_topics(self, connector: str) -> Mapping[str, Any] | None:
        return self._active_topics

    def on_topic_used(self, task: ConnectorTaskId, topic: str) -> None:
        self._channel.notify(protocol.TopicUsed(task, topic))
        if self._active_topics is not None:
            # The view the send loop tests: without it, each commit would report the topic again.
            self._active_topics[topic] = None


class _RemoteOffsetStore:
    """The connector's offsets store, kept by the worker (its readers serve every task of the worker)."""

    def __init__(self, channel: TaskChannel, topic: str, has_connector_store: bool) -> None:
        self._channel = channel
        self._topic = topic
        self._has_connector_store = has_connector_store

    @property
    def topic(self) -> str:
        return self._topic

    @property
    def has_connector_store(self) -> bool:
        return self._has_connector_store

    def start(self) -> None:
        self._channel.call(protocol.StartOffsets())

    def stop(self) -> None:
        """Nothing to do: the worker stops the store once the process has ended."""

    def read_to_end(self) -> Future[None]:
        return self._channel.call_async(protocol.ReadOffsetsToEnd())

    def write_tombstones_first(self, entries: OffsetEntries, timeout_s: float = 30.0) -> None:
        # Decided here: most commits have no tombstone, or no second store, and cost no round trip.
        if self._has_connector_store and any(v is None for v in entries.values()):
            self._channel.call(protocol.WriteTombstonesFirst(dict(entries), timeout_s))

    def mirror(self, entries: OffsetEntries) -> None:
        if self._has_connector_store:
            self._channel.notify(protocol.OffsetsMirrored(dict(entries)))

    def set(self, entries: OffsetEntries, producer: Producer | None = None, timeout_s: float = 30.0) -> None:
        if producer is None:
            self._channel.call(protocol.SetOffsets(dict(entries), timeout_s))
            return
        # The connector's own topic is on its producer's cluster: the task's producer writes it.
        self.write_tombstones_first(entries, timeout_s)
        produce_offsets(producer, self._topic, entries, timeout_s)
        self.mirror(entries)


class _WorkerCalls:
    """The exactly-once start-up steps the worker answers (it asks the herder)."""

    def __init__(self, channel: TaskChannel) -> None:
        self._channel = channel

    def fence_zombies(self) -> None:
        self._channel.call(protocol.FenceZombies())

    def verify_generation(self) -> None:
        self._channel.call(protocol.VerifyGeneration())


class _RemoteOffsetReader(OffsetStorageReader):
    def __init__(self, channel: TaskChannel) -> None:
        self._channel = channel

    def offsets(self, partitions: Collection[SourceMap]) -> Mapping[Any, dict[str, Any] | None]:
        return self._channel.call(protocol.GetOffsets(tuple(partitions)))


def _converter(spec: TaskSpec, which: tuple[str, Mapping[str, str]], is_key: bool) -> Converter:
    name, settings = which
    conv = spec.plugins.converter(name)()
    conv.configure(dict(settings), is_key)
    return conv


def _header_converter(spec: TaskSpec) -> HeaderConverter:
    name, settings = spec.header_converter
    conv = spec.plugins.header_converter(name)()
    conv.configure({**settings, CONVERTER_TYPE_CONFIG: "header"})
    return conv


def build_runner(spec: TaskSpec, channel: TaskChannel) -> WorkerSourceTask:
    """Instantiate the task's plugins and producer and wrap them in the loop its guarantee needs."""
    task_id = spec.task_id
    config = SourceConnectorConfig.parse(spec.connector_config, topic_creation_enabled=spec.topic_creation_enable)
    transformations = build_transformation_chain(spec.connector_config, spec.plugins)
    try:
        error_handler = RetryWithToleranceOperator(
            task_id, retry_timeout_ms=config.errors_retry_timeout,
            retry_max_delay_ms=config.errors_retry_delay_max_ms, tolerance=config.errors_tolerance,
            log_errors=config.errors_log_enable, log_messages=config.errors_log_include_messages)
        stats = None if _metrics_off() else ClientStatsCollector()
        metrics = task_metrics(spec, error_handler, stats)
        task = spec.task_class()
        key_conv = _converter(spec, spec.key_converter, True)
        value_conv = _converter(spec, spec.value_converter, False)
        header_conv = _header_converter(spec)
        admin_settings = dict(spec.admin_settings)
        setup_args: dict[str, Any] = dict(
            task_id=task_id, task=task, task_config=spec.task_config, key_converter=key_conv,
            value_converter=value_conv, transformations=transformations,
            offset_reader=_RemoteOffsetReader(channel),
            offset_store=_RemoteOffsetStore(channel, spec.offsets_topic, spec.has_connector_store),
            status=_RemoteStatus(channel, spec.active_topics), initial_state=spec.initial_state,
            delegated_delivery=spec.delegated_delivery,
            error_handler=error_handler, metrics=metrics,
            topics=TaskTopics(config.name, config.topic_creation, lambda: admin_settings, spec.topic_creation_enable),
            header_converter=header_conv)

        if spec.exactly_once:
            worker = _WorkerCalls(channel)
            producer = Producer(producer_config(_reporting(spec, dict(spec.producer_config), stats)))
            setup = TaskSetup(producer=producer, **setup_args)
            expiry_ms = transaction_timeout_ms(spec.producer_config)
            if spec.transaction_boundary is TransactionBoundary.CONNECTOR:
                return ConnectorBoundaryWorkerSourceTask(setup, worker.fence_zombies, worker.verify_generation,
                                                         producer_transaction_timeout_ms=expiry_ms)
            return ExactlyOnceWorkerSourceTask(setup, worker.fence_zombies, worker.verify_generation,
                                               spec.transaction_boundary, spec.commit_interval_ms,
                                               producer_transaction_timeout_ms=expiry_ms)
        errors = DeliveryErrors()
        producer = Producer(producer_config(
            _reporting(spec, at_least_once_producer_config(spec.producer_config, errors), stats)))
        return AtLeastOnceWorkerSourceTask(TaskSetup(producer=producer, **setup_args), errors,
                                           spec.commit_interval_ms, spec.offset_flush_timeout_ms)
    except BaseException:
        for built in transformations:
            close_quietly(built)
        raise


def _metrics_off() -> bool:
    return os.environ.get(BENCH_METRICS_SWITCH) == "off"


def task_metrics(spec: TaskSpec, errors: RetryWithToleranceOperator,
                 stats: ClientStatsCollector | None) -> TaskMetrics:
    """What the task's loop records into (nothing in a benchmark's metrics-off run); ``stats`` are its
    producer's statistics."""
    if _metrics_off():
        return NullTaskMetrics()
    client_id = spec.producer_config.get("client.id")
    return TaskMetrics(spec.task_id, spec.metric_config, exactly_once=spec.exactly_once,
                       client_id=None if client_id is None else str(client_id), errors=errors, client_stats=stats)


def _reporting(spec: TaskSpec, conf: dict[str, Any], stats: ClientStatsCollector | None) -> dict[str, Any]:
    """The producer's settings, with its statistics going to ``stats`` (at the worker's client interval)."""
    return conf if stats is None else with_statistics(conf, stats, statistics_interval_ms(spec.metric_config))


class MetricsReporter:
    """Sends the worker what the task's metrics read: once every ``interval_s`` from a thread of its own, and
    a last time when the task has ended (:meth:`close`)."""

    def __init__(self, channel: TaskChannel, metrics: TaskMetrics, interval_s: float = REPORT_INTERVAL_S) -> None:
        self._channel = channel
        self._metrics = metrics
        self._interval_s = interval_s
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, name="task-metrics", daemon=True)
        # A report that fails once fails every second after: the log gets it once a minute.
        self._failures = RateLimitedLogger(logger, 60.0)

    def start(self) -> None:
        self._thread.start()

    def _run(self) -> None:
        while not self._done.wait(self._interval_s):
            try:
                self._channel.notify(protocol.MetricsReported(self._metrics.report()))
            except ChannelClosed:
                return
            except Exception:
                self._failures.error("Failed to report the metrics of the task", exc_info=True)

    def close(self) -> None:
        """Send the last report, once no periodic one can follow it (it would overwrite the last word)."""
        self._done.set()
        if self._thread.is_alive():
            self._thread.join()
        self._channel.notify(protocol.MetricsReported(self._metrics.report()))


def _die_with_parent() -> None:
    """Linux: be killed when the process that forked this one (the worker's fork server) exits. The
    pipe watch covers every platform; this also covers a task that holds the interpreter lock forever."""
    if not sys.platform.startswith("linux"):
        return
    with contextlib.suppress(Exception):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def _configure_logging(spec: TaskSpec) -> None:
    root = logging.getLogger()
    for handler in list(root.handlers):
        root.removeHandler(handler)
    handler = logging.StreamHandler(sys.stderr)
    if spec.log_format is not None:
        handler.setFormatter(logging.Formatter(spec.log_format))
    root.addHandler(handler)
    root.setLevel(spec.log_level)
    if spec.secrets:
        redactor.register(("task", spec.task_id), ResolvedConfig({}, dict(spec.secrets)))


class _Commands:
    """The worker's commands (:class:`~connect_runtime.worker.task_protocol.TaskEnd`), run on the pipe's
    thread once the task is built; a task that failed to build has nothing to stop."""

    def __init__(self) -> None:
        self._runner: WorkerSourceTask | None = None
        self._ready = threading.Event()

    def built(self, runner: WorkerSourceTask | None) -> None:
        self._runner = runner
        self._ready.set()

    def stop_task(self, message: protocol.StopTask) -> None:
        self._ready.wait()
        if self._runner is not None:
            self._runner.stop()

    def change_target_state(self, message: protocol.ChangeTargetState) -> None:
        self._ready.wait()
        if self._runner is not None:
            self._runner.transition_to(message.state)


def main(sys_path: list[str], payload: bytes, conn: Connection) -> None:
    """The task process's entry point (run by the worker's process launcher).

    ``payload`` is the pickled :class:`TaskSpec`, unpickled only once ``sys_path`` (the worker's, with its
    ``plugin.path`` directories) is in place: its classes travel by module and name.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    _die_with_parent()
    faulthandler.enable()  # a crash in native code leaves its Python stack in the worker's log
    faulthandler.register(signal.SIGUSR1, all_threads=True)  # `kill -USR1 <task pid>`, as for the worker
    sys.path.extend(p for p in sys_path if p not in sys.path)
    commands = _Commands()
    channel = TaskChannel.task_end(conn, commands)

    def watch() -> None:
        channel.serve()
        # The worker is gone (or closed the pipe): nothing may be committed from here on.
        os._exit(ORPHANED_EXIT)

    threading.Thread(target=watch, name="task-pipe", daemon=True).start()
    try:
        spec: TaskSpec = pickle.loads(payload)
        # What `ps` and `top` show: which task this process runs.
        setproctitle.setproctitle(f"connect-runtime task {spec.task_id}")
        _configure_logging(spec)
        built = build_runner(spec, channel)
    except BaseException as e:
        logger.error("Failed to start the task", exc_info=True)
        channel.notify(protocol.TaskBuildFailed("".join(traceback.format_exception(e)), is_transient(e)))
        commands.built(None)
        return
    channel.notify(protocol.TaskBuilt(plugin_version(built.task)))
    commands.built(built)
    reporter = MetricsReporter(channel, built.metrics)
    reporter.start()
    built.start()
    while not built.join(3600.0):
        pass
    reporter.close()  # the last word on the task's metrics
    logging.shutdown()
    channel.notify(protocol.TaskClosed(built.failed))
