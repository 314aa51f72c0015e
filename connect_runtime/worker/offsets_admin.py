"""The worker half of the offsets REST API (KIP-875; reference ``Worker.connectorOffsets`` and
``Worker.modifySourceConnectorOffsets``): read a source connector's offsets, alter or reset them.

Why it is shaped this way:

- The herder thread decides *whether* a request may run (leader, connector STOPPED, a zombie-fencing
  round under exactly-once); the slow part (reading offsets topics to their end, the write) runs here
  on a small pool and comes back as a future, so the herder keeps ticking meanwhile, as the
  reference's worker executor does.
- Each request builds its own view of the connector's offsets (``ConnectorOffsetBackingStore``: the
  connector's own topic first, the worker's global topic as fallback) and reads it to the end, so it
  sees everything the stopped tasks committed.
- A write reaches every store the connector reads: tombstones go to the global topic first (a reset
  must not resurface through the fallback), then everything to the connector's primary topic, then
  the rest is mirrored to the global topic. Under exactly-once the primary write is one transaction of
  a producer with task 0's transactional id: its ``init_transactions`` fences a zombie task 0 as well,
  on top of the fencing round the leader did before.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

from confluent_kafka import KafkaException, Producer

from connect_runtime.api.connector import SourceConnector
from connect_runtime.api.errors import ConnectException, DataException
from connect_runtime.api.kafka_clients import commit_transaction, init_transactions
from connect_runtime.api.storage import freeze_partition
from connect_runtime.clients import producer_config
from connect_runtime.config.connector_config import SourceConnectorConfig
from connect_runtime.config.override_policies import check_client_overrides
from connect_runtime.config.worker_config import WorkerConfig
from connect_runtime.config.worker_plugins import WorkerPlugins
from connect_runtime.plugins.registry import PluginRegistry
from connect_runtime.redaction import redactor
from connect_runtime.storage import formats
from connect_runtime.storage.offset_backing_store import (
    ConnectorOffsetBackingStore,
    OffsetEntries,
    canonical_offset_key,
)
from connect_runtime.types import ConnectorOffset, ConnectorOffsets
from connect_runtime.worker.exactly_once_source_task import eos_producer_config
from connect_runtime.worker.offset_store_factory import OffsetStoreFactory

logger = logging.getLogger(__name__)

#: The reference bounds the whole request by the REST request timeout (90 s).
_TIMEOUT_S = 90.0

#: Validated offsets to write: canonical offsets-topic key -> partition and offset (None = reset).
NormalizedOffsets = dict[bytes, ConnectorOffset]


def completion_message(alter_offsets_result: bool, is_reset: bool) -> str:
    """The reference's success message (``Worker.completeModifyOffsetsCallback``).

    Only a connector that handles :meth:`SourceConnector.alter_offsets` itself gets the definite
    message; otherwise the operator is reminded that offsets kept elsewhere are untouched.
    """
    kind = "reset" if is_reset else "altered"
    if alter_offsets_result:
        return f"The offsets for this connector have been {kind} successfully"
    return (f"The Connect framework-managed offsets for this connector have been {kind} successfully. "
            f"However, if this connector manages offsets externally, they will need to be manually {kind} "
            "in the system that the connector uses.")


class InvalidOffsetsRequest(ConnectException):
    """Offsets a client asked for that cannot be read or written as given (the REST layer answers 400)."""


def normalize_offsets(connector: str, offsets: Iterable[ConnectorOffset]) -> NormalizedOffsets:
    """Validate requested offsets and give them the types the connector's tasks will read back.

    Partitions and offsets must be maps of string keys to primitive values (the offsets topic's
    format): anything else is a 400 with the reference's ``OffsetUtils.validateFormat`` message
    (the reference answers 500 there; a bad request body is the client's error). Values make a
    round trip through the offsets-topic JSON, as the reference's ``normalizeSourceConnectorOffsets``
    does, and a partition named twice keeps its last offset (the reference builds a map).
    """
    result: NormalizedOffsets = {}
    for entry in offsets:
        try:
            key = formats.offset_key(connector, entry.partition)
            value = formats.offset_value(entry.offset)
        except DataException as e:
            raise InvalidOffsetsRequest(str(e)) from None
        parsed = formats.parse_offset_key(key)
        if parsed is None:
            raise InvalidOffsetsRequest("The partition for a source connector offset cannot be null or missing")
        result[canonical_offset_key(key)] = ConnectorOffset(parsed[1], formats.parse_offset_value(value))
    return result


_T = TypeVar("_T")


class SourceConnectorOffsets:
    """Reads and modifies source connectors' offsets on a pool of its own (see the module docstring)."""

    def __init__(self, config: WorkerConfig, plugins: PluginRegistry, stores: OffsetStoreFactory,
                 worker_plugins: WorkerPlugins | None = None) -> None:
        self._config = config
        self._worker_plugins = worker_plugins or WorkerPlugins.without_providers(config)
        self._plugins = plugins
        self._stores = stores
        # Two threads: a slow read of one connector's topic should not hold up a request for another.
        self._pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="connector-offsets")

    def _submit(self, fn: Callable[..., _T], connector: str, props: Mapping[str, str], *args: Any) -> Future[_T]:
        """Run ``fn(connector, resolved props, *args)`` on the pool (the connector's overrides may name
        their cluster through a config provider). While it runs, the resolved values are redacted from
        the log; an error it raises never shows one."""
        resolved = self._worker_plugins.config_transformer.transform(props)

        def call() -> _T:
            owner = ("offsets", object())
            redactor.register(owner, resolved)
            try:
                return fn(connector, resolved.data, *args)
            except Exception as e:
                message = str(e)
                hidden = resolved.redact(message)
                if hidden == message:
                    raise
                kind = InvalidOffsetsRequest if isinstance(e, InvalidOffsetsRequest) else ConnectException
                raise kind(hidden) from None
            finally:
                redactor.unregister(owner)

        return self._pool.submit(call)

    def close(self) -> None:
        """Abandon queued requests; one in progress finishes on its own (bounded by its timeout)."""
        self._pool.shutdown(wait=False, cancel_futures=True)

    # -- GET ------------------------------------------------------------------------------------
    def read(self, connector: str, props: Mapping[str, str]) -> Future[ConnectorOffsets]:
        """Every partition with a committed offset, in the combined view, read to the end."""
        return self._submit(self._read, connector, props)

    def _read(self, connector: str, props: Mapping[str, str]) -> ConnectorOffsets:
        with _failures_reported("retrieve", connector):
            self._source_connector(connector, props)
            store = self._stores.for_connector(SourceConnectorConfig.parse(props))
            try:
                store.start()
                store.read_to_end().result(_TIMEOUT_S)
                raw = store.connector_offsets(connector)
            finally:
                store.stop()
            return ConnectorOffsets(_decode(raw))

    # -- PATCH / DELETE ---------------------------------------------------------------------------
    def modify(self, connector: str, props: Mapping[str, str], offsets: NormalizedOffsets | None) -> Future[str]:
        """Alter (``offsets``, from :func:`normalize_offsets`) or reset (None) the connector's offsets.

        The caller has made sure the connector is stopped and, under exactly-once, fenced.
        The result is the reference's success message.
        """
        return self._submit(self._modify, connector, props, offsets)

    def _modify(self, connector: str, props: Mapping[str, str], requested: NormalizedOffsets | None) -> str:
        deadline = time.monotonic() + _TIMEOUT_S
        with _failures_reported("modify", connector):
            plugin = self._source_connector(connector, props)
            cfg = SourceConnectorConfig.parse(props)
            store = self._stores.for_connector(cfg)
            try:
                store.start()
                try:
                    store.read_to_end().result(_remaining(deadline))
                except TimeoutError:
                    raise ConnectException(
                        "Timed out while trying to read to the end of the offsets topic prior to modifying "
                        f"offsets for source connector {connector}") from None
                is_reset = requested is None
                # A reset writes a tombstone for every partition the combined view knows.
                to_write = requested if requested is not None else {
                    key: ConnectorOffset(partition, None) for key, partition in _partitions(store, connector)}
                altered = self._alter_offsets(connector, plugin, props, to_write)
                if time.monotonic() >= deadline:
                    raise ConnectException(
                        f"Timed out while calling the 'alter_offsets' method for source connector {connector}")
                if not to_write:
                    logger.info("No offsets found for source connector %s - this can occur due to a prior attempt "
                                "to reset offsets or if the source connector hasn't committed any offsets yet",
                                connector)
                    return completion_message(altered, is_reset)
                # Under the key bytes the request uses, and any others the partition is stored under
                # (a Java worker's field order), so no old value survives compaction or a Java reader.
                entries = {key: formats.offset_value(o.offset)
                           for canonical, o in to_write.items()
                           for key in store.written_keys(canonical, formats.offset_key(connector, o.partition))}
                logger.debug("Committing the following offsets for source connector %s: %s", connector, entries)
                self._write(connector, cfg, store, entries, deadline)
                return completion_message(altered, is_reset)
            finally:
                store.stop()

    def _source_connector(self, connector: str, props: Mapping[str, str]) -> SourceConnector:
        cls = self._plugins.connector_class(props.get("connector.class", ""))
        if not issubclass(cls, SourceConnector):
            raise InvalidOffsetsRequest(f"Connector {connector} is not a source connector")
        # Its offsets are read and written with its client overrides: only those the policy allows.
        check_client_overrides(self._worker_plugins.override_policy, connector, cls, props)
        return cls()

    def _alter_offsets(self, connector: str, plugin: SourceConnector, props: Mapping[str, str],
                       offsets: NormalizedOffsets) -> bool:
        frozen = {freeze_partition(o.partition): o.offset for o in offsets.values()}
        try:
            return bool(plugin.alter_offsets(props, frozen))
        except NotImplementedError as e:
            logger.error("Failed to modify offsets for connector %s because it doesn't support external "
                         "modification of offsets", connector)
            raise ConnectException(f"Failed to modify offsets for connector {connector} because it doesn't "
                                   "support external modification of offsets") from e

    def _write(self, connector: str, cfg: SourceConnectorConfig, store: ConnectorOffsetBackingStore,
               entries: OffsetEntries, deadline: float) -> None:
        if not self._config.exactly_once_source_enabled:
            # The global store writes with the worker's own producer; a connector topic needs one aimed
            # at the connector's Kafka cluster.
            producer = Producer(producer_config(self._producer_settings(connector, cfg))) \
                if store.has_connector_store else None
            store.set(entries, producer=producer, timeout_s=_remaining(deadline))
            return
        conf = eos_producer_config(self._producer_settings(connector, cfg),
                                   self._config.task_transactional_id(connector, 0))
        producer = Producer(producer_config(conf))
        init_transactions(producer, _remaining(deadline))
        store.write_tombstones_first(entries, _remaining(deadline))
        producer.begin_transaction()
        try:
            for key, value in entries.items():
                producer.produce(store.topic, key=key, value=value)
            commit_transaction(producer, _remaining(deadline))
        except Exception:
            # Never leave an open transaction on the offsets topic: it would hold every reader back.
            with contextlib.suppress(KafkaException):
                producer.abort_transaction(5)
            raise
        finally:
            producer.flush(0)
        store.mirror(entries)

    def _producer_settings(self, connector: str, cfg: SourceConnectorConfig) -> dict[str, Any]:
        """The connector's producer settings, aimed at the cluster of its primary offsets topic."""
        conf = self._stores.client_settings(cfg, "producer")
        if not self._stores.uses_connector_store(cfg):
            conf["bootstrap.servers"] = self._config.bootstrap_servers  # the worker's global topic
        conf.setdefault("client.id", f"connector-offset-producer-{connector}")
        return conf


@contextlib.contextmanager
def _failures_reported(action: str, connector: str) -> Iterator[None]:
    """Log a failed request and answer it as the reference does: a ConnectException as it is,
    anything else wrapped in one that names the connector."""
    try:
        yield
    except ConnectException:
        logger.exception("Failed to %s offsets for source connector %s", action, connector)
        raise
    except Exception as e:
        logger.exception("Failed to %s offsets for source connector %s", action, connector)
        raise ConnectException(f"Failed to {action} offsets for source connector {connector}") from e


def _remaining(deadline: float) -> float:
    return max(deadline - time.monotonic(), 0.001)


def _partitions(store: ConnectorOffsetBackingStore, connector: str) -> list[tuple[bytes, dict[str, Any]]]:
    out = []
    for key in sorted(store.connector_offsets(connector)):
        parsed = formats.parse_offset_key(key)
        if parsed is not None:
            out.append((key, parsed[1]))
    return out


def _decode(raw: Mapping[bytes, bytes]) -> list[ConnectorOffset]:
    out = []
    for key in sorted(raw):
        parsed = formats.parse_offset_key(key)
        if parsed is None:
            continue
        try:
            offset = formats.parse_offset_value(raw[key])
        except DataException as e:
            # The reference's reader logs and skips an offset it cannot deserialize.
            logger.error("Skipping the stored offset of partition %s: %s", parsed[1], e)
            continue
        out.append(ConnectorOffset(parsed[1], offset))
    return out
