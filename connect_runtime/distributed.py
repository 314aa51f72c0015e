"""Assembles one distributed worker process: Kafka clients, internal topics, stores, worker, herder
and REST server, from a config and the plugin instances the composition root
(:mod:`connect_runtime.composition`) made from it."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

from confluent_kafka import KafkaError, KafkaException, Producer
from confluent_kafka.admin import AdminClient

from connect_runtime.api.errors import ConnectException
from connect_runtime.clients import client_config, producer_config
from connect_runtime.cluster.framework_config import check_worker_converters
from connect_runtime.cluster.herder import DistributedHerder
from connect_runtime.cluster.membership import Membership
from connect_runtime.config.worker_config import WorkerConfig
from connect_runtime.config.worker_plugins import WorkerPlugins
from connect_runtime.metrics.client_stats import ClientMetrics
from connect_runtime.metrics.connect_metrics import ConnectMetrics
from connect_runtime.metrics.registry import ADMIN_GROUP, CONSUMER_GROUP, PRODUCER_GROUP
from connect_runtime.plugins.registry import PluginRegistry
from connect_runtime.storage.config_store import KafkaConfigBackingStore
from connect_runtime.storage.config_writer import ConfigTopicWriter
from connect_runtime.storage.offset_backing_store import KafkaOffsetBackingStore
from connect_runtime.storage.status_store import KafkaStatusBackingStore
from connect_runtime.storage.topics import (
    OFFSET_TOPIC_KEY,
    STATUS_TOPIC_KEY,
    ensure_config_topic,
    ensure_internal_topic,
    max_message_bytes,
)
from connect_runtime.worker.task_process import warm_up
from connect_runtime.worker.worker import Worker

logger = logging.getLogger(__name__)


class Service(Protocol):
    """Something the worker starts and stops (its REST server)."""

    def start(self) -> None: ...

    def stop(self) -> None: ...


#: Builds the REST server that serves a herder (the composition root, ``cli``, supplies it: this module
#: knows nothing of HTTP).
RestServerFactory = Callable[[DistributedHerder], Service]


class DistributedWorker:
    """One worker process's runtime. ``start()`` returns once REST is serving; ``stop()`` is graceful:
    tasks make their final commit, producers close, REST closes."""

    def __init__(self, config: WorkerConfig, rest_server: RestServerFactory,
                 plugins: PluginRegistry | None = None, worker_plugins: WorkerPlugins | None = None) -> None:
        """``worker_plugins`` are made and closed by the composition root (:mod:`connect_runtime.composition`);
        without them the worker has no config providers."""
        self.config = config
        self._worker_plugins = worker_plugins
        # Discovered when the worker starts (a plugin.path problem is then one line, not a traceback).
        self._given_plugins = plugins
        self.plugins: PluginRegistry
        self._rest_server = rest_server
        self._closers: list[Any] = []
        self.herder: DistributedHerder | None = None
        self.rest: Service | None = None
        self._stopped = threading.Event()
        self._failure: str | None = None
        self._failed = threading.Event()

    @property
    def url(self) -> str:
        return self.config.advertised_url()

    def start(self) -> None:
        """Connect, read the internal topics, join the group and serve REST.

        Discovers the plugins first. Raises :class:`ConfigException` before touching Kafka if a
        ``plugin.path`` module cannot be imported or a worker converter key names a class that cannot
        serve it, and when an existing internal topic is not compacted or the config topic has several
        partitions; :class:`ConnectException` when Kafka does not answer within ``default.api.timeout.ms``.
        """
        cfg = self.config
        self.plugins = self._given_plugins or PluginRegistry(cfg.plugin_allowlist)
        check_worker_converters(cfg, self.plugins)
        errors = _ClientErrors()
        metrics = ConnectMetrics(cfg.metric_config)
        client_metrics = ClientMetrics(metrics)
        self._closers.append(client_metrics)  # stopped last: after the clients it shows are closed
        admin = AdminClient(client_config({**client_metrics.watch(ADMIN_GROUP, cfg.internal_client_settings(
            "admin", "shared-admin")), "error_cb": errors}))
        cluster_id = _cluster_id(admin, errors, cfg.default_api_timeout_ms / 1000)
        self._create_topics(admin)
        producer_conf: dict[str, Any] = cfg.internal_client_settings("producer", "shared-producer")
        producer_conf.update({"enable.idempotence": True, "acks": "all"})
        shared_producer = Producer(producer_config(client_metrics.watch(PRODUCER_GROUP, producer_conf)))
        worker_id = cfg.worker_id()

        def consumer(purpose: str) -> dict[str, Any]:
            return client_metrics.watch(CONSUMER_GROUP, cfg.internal_client_settings("consumer", purpose))

        offset_store = KafkaOffsetBackingStore(cfg.offset_storage_topic, consumer("offsets"), admin,
                                               shared_producer, on_fatal=self._reader_failed)
        status_store = KafkaStatusBackingStore(cfg.status_storage_topic, consumer("statuses"), admin,
                                               shared_producer, on_fatal=self._reader_failed)
        config_store = KafkaConfigBackingStore(cfg.config_storage_topic, consumer("configs"), admin,
                                               on_fatal=self._reader_failed)
        writer_id = cfg.client_id_base + "configs"
        writer = ConfigTopicWriter({**producer_conf, "client.id": writer_id},
                                   cfg.config_storage_topic, cfg.leader_transactional_id,
                                   statistics=client_metrics.collector(PRODUCER_GROUP, writer_id),
                                   statistics_interval_ms=client_metrics.interval_ms)
        # The admin client and the leader's producer are polled only now and then by their users.
        self._closers.append(client_metrics.poll([lambda: admin.poll(0), writer.poll]))
        topic_limit = max_message_bytes(admin, cfg.config_storage_topic)
        if topic_limit is not None:
            writer.limit_to(topic_limit)

        herder_ref: list[DistributedHerder] = []
        worker = Worker(cfg, worker_id, self.plugins, offset_store, status_store,
                        lambda c: herder_ref[0].request_reconfiguration(c),
                        on_tasks_changed=lambda: herder_ref[0].on_tasks_changed(),
                        retry_task=lambda t, delay: herder_ref[0].schedule_task_retry(t, delay),
                        worker_plugins=self._worker_plugins, fencing=_HerderFencing(herder_ref), metrics=metrics)
        # Tasks run in processes forked from a fork server: start it while the worker joins.
        threading.Thread(target=warm_up, name="task-process-warm-up", daemon=True).start()
        membership = Membership(cfg.session_timeout_ms)
        herder = DistributedHerder(cfg, worker, self.url, config_store, status_store, writer, shared_producer,
                                   self.plugins, cluster_id, membership)
        herder_ref.append(herder)
        config_store._listener = herder.on_config_record

        def on_worker_record(key: str, value: bytes | None, timestamp_ms: int | None) -> None:
            membership.on_record(key, value, timestamp_ms)
            herder.on_status_change()

        # Set before the status log starts: heartbeats replayed at start-up must reach membership.
        status_store.worker_listener = on_worker_record

        # Neither transactional log is read to the end here: a crashed task's or leader's open
        # transaction would block that read until the transaction times out. Task start-up and the
        # leader claim initialise their producers (aborting such transactions) before they read.
        offset_store.start(read_to_end=False)
        self._closers.append(offset_store)
        status_store.start()
        # Heartbeats read so far were replayed history: from here on they say who is alive.
        membership.caught_up()
        self._closers.append(status_store)
        config_store.start(read_to_end=False)
        self._closers.append(config_store)

        self.rest = self._rest_server(herder)
        self.rest.start()
        self.herder = herder
        herder.start()
        logger.info("Worker %s started; REST at %s", worker_id, self.url)

    def _create_topics(self, admin: AdminClient) -> None:
        """Create the internal topics that are missing; refuse existing ones that are not compacted, and
        a config topic with more than one partition (:class:`ConfigException`, the reference's messages)."""
        cfg = self.config
        timeout_s = cfg.default_api_timeout_ms / 1000
        ensure_config_topic(admin, cfg.config_storage_topic, cfg.config_storage_replication_factor,
                            cfg.topic_settings("config.storage."), timeout_s)
        ensure_internal_topic(admin, cfg.offset_storage_topic, cfg.offset_storage_partitions,
                              cfg.offset_storage_replication_factor, cfg.topic_settings("offset.storage."),
                              OFFSET_TOPIC_KEY, "source connector offsets", timeout_s)
        ensure_internal_topic(admin, cfg.status_storage_topic, cfg.status_storage_partitions,
                              cfg.status_storage_replication_factor, cfg.topic_settings("status.storage."),
                              STATUS_TOPIC_KEY, "connector and task statuses", timeout_s)

    def _reader_failed(self, topic: str, reason: str) -> None:
        """A reader of an internal topic stopped for good: without it this worker cannot see the
        cluster's state, so it shuts down (``connect-distributed`` exits non-zero) rather than
        carry on blind. One ERROR line says why."""
        if self._failed.is_set():
            return
        self._failure = reason
        logger.error("%s; the worker cannot continue and is shutting down", reason)
        self._failed.set()

    @property
    def failure(self) -> str | None:
        """Why the worker must stop (a fatal error of an internal topic's reader), or None."""
        return self._failure if self._failed.is_set() else None

    def wait_ready(self, timeout_s: float = 60.0) -> bool:
        return self.herder is not None and self.herder.wait_ready(timeout_s)

    def stop(self) -> None:
        """Graceful shutdown: stop the herder (tasks commit and close), then REST, then the stores."""
        if self._stopped.is_set():
            return
        self._stopped.set()
        if self.herder is not None:
            self.herder.stop()
        if self.rest is not None:
            self.rest.stop()
        for c in reversed(self._closers):
            try:
                c.stop()
            except Exception:
                logger.exception("Failed to stop %s", c)


_AUTH_CODES = frozenset({KafkaError._AUTHENTICATION, KafkaError.SASL_AUTHENTICATION_FAILED})


class _ClientErrors:
    """What the start-up admin client's ``error_cb`` reported: refused logins, and the latest error of
    any kind (why the cluster did not answer, for the one-line message)."""

    def __init__(self) -> None:
        self.auth: list[KafkaError] = []
        self.last: KafkaError | None = None

    def __call__(self, err: KafkaError) -> None:
        self.last = err
        if err.code() in _AUTH_CODES:
            self.auth.append(err)


def _cluster_id(admin: AdminClient, errors: _ClientErrors, timeout_s: float) -> str:
    """The cluster's id, asked in short slices for at most ``timeout_s`` (the worker's
    ``default.api.timeout.ms``, which bounds the reference's cluster-id lookup too).

    librdkafka retries a refused login for ever and the metadata request then only times out as a
    transport failure, so a login the broker refused ends start-up at once, with the broker's reason.
    No answer within the bound raises :class:`ConnectException` with the reference's message.
    """
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            md = admin.list_topics(timeout=max(0.1, min(1.0, deadline - time.monotonic())))
            return str(md.cluster_id or "")
        except KafkaException as e:
            admin.poll(0.1)  # serves error_cb
            if errors.auth:
                raise ConnectException(
                    f"Kafka refused the worker's login: {errors.auth[0].str()}; check security.protocol, "
                    "sasl.mechanism and sasl.jaas.config (or the ssl.* settings)") from None
            if time.monotonic() >= deadline:
                err = errors.last or (e.args[0] if e.args and isinstance(e.args[0], KafkaError) else None)
                reason = err.str() if err is not None else str(e)
                raise ConnectException(
                    "Failed to connect to and describe Kafka cluster. Check worker's broker connection and security "
                    f"properties. (No answer from bootstrap.servers within default.api.timeout.ms="
                    f"{timeout_s * 1000:.0f}: {reason})") from None


class _HerderFencing:
    """The worker's ``ZombieFencing``: the herder's, which is made after the worker it drives."""

    def __init__(self, herder_ref: list[DistributedHerder]) -> None:
        self._herder_ref = herder_ref

    def fence_zombies(self, connector: str, stopped: threading.Event | None = None) -> None:
        self._herder_ref[0].task_fencing.fence_zombies(connector, stopped)
