"""The test toolkit of connect-runtime: test connectors against a real Kafka and real workers.

The pytest plugin (:mod:`connect_runtime.testing.pytest_plugin`, registered on install) provides the
fixtures: ``kafka_bootstrap``, ``kafka_cluster``, ``schema_registry_url``, ``worker_factory``, ``connect_worker``,
``connect_client``, ``connect_cluster`` and more. The names below are the helpers tests call:

Workers and REST
    :class:`WorkerProcess` (one ``connect-distributed`` child process), :class:`WorkerGroup` (workers
    of one group, cleaned up together), :data:`FAST_FAILOVER`, :func:`plugin_path`, :func:`worker_properties`,
    :class:`ConnectClient` and :class:`ConnectRestError`.
Brokers
    :class:`KafkaCluster` (what ``kafka_cluster`` gives: three brokers, one of which a test can kill and
    restart, and who leads a partition or coordinates a transactional id).
Network faults
    :class:`NetworkFaults` (what ``network_faults`` gives: cut, black-hole or delay one worker's
    connections to the brokers while its REST port stays up), :class:`NetworkFaultsUnavailable`.
Topics
    :func:`new_topic`, :func:`read_committed`, :func:`read_records`, :func:`wait_for_records`,
    :func:`end_offsets`, :func:`stable_offsets`, :func:`open_transactions`,
    :func:`read_transactions` (committed and aborted records and transactions).
Connector offsets
    :func:`read_source_offsets`, :func:`read_source_offset` (any source connector, from the worker's
    or the connector's offsets topic).
Exactly once
    :func:`check_sequences` with a key function, :class:`SequenceReport`, :func:`verifiable_key`.
Waiting
    :func:`wait_until`, :func:`assert_settles`.
Unit tests of a plugin (no broker, no worker)
    :class:`FakeTaskContext`, :class:`FakeOffsetStorageReader`, :class:`FakeTransactionContext`;
    the runtime's own task-loop fakes are in :mod:`connect_runtime.testing.fakes`.
Test connectors
    :class:`SequenceSourceConnector` and :class:`SequenceSourceTask` (per-task sequence numbers, to
    subclass), :class:`IdleSourceTask` (writes nothing).
"""

from connect_runtime.testing.cluster import FAST_FAILOVER, WorkerGroup, WorkerProcess, plugin_path, worker_properties
from connect_runtime.testing.connect_client import ConnectClient, ConnectRestError
from connect_runtime.testing.fakes import FakeOffsetStorageReader, FakeTaskContext, FakeTransactionContext
from connect_runtime.testing.local_kafka_cluster import KafkaCluster
from connect_runtime.testing.network_faults import NetworkFaults, NetworkFaultsUnavailable
from connect_runtime.testing.sequence_source import IdleSourceTask, SequenceSourceConnector, SequenceSourceTask
from connect_runtime.testing.sequences import SequenceReport, check_sequences, verifiable_key, verifiable_pairs
from connect_runtime.testing.source_offsets import read_source_offset, read_source_offsets
from connect_runtime.testing.topics import (
    KAFKA_LOGGER,
    TopicRecord,
    Transaction,
    TransactionReport,
    admin_client,
    client_settings,
    close_admin_clients,
    end_offsets,
    new_topic,
    open_transactions,
    read_committed,
    read_records,
    read_transactions,
    stable_offsets,
    unique_topic_name,
    wait_for_records,
)
from connect_runtime.testing.waiting import assert_settles, wait_until

__all__ = [
    "FAST_FAILOVER",
    "KAFKA_LOGGER",
    "ConnectClient",
    "ConnectRestError",
    "FakeOffsetStorageReader",
    "FakeTaskContext",
    "FakeTransactionContext",
    "IdleSourceTask",
    "KafkaCluster",
    "NetworkFaults",
    "NetworkFaultsUnavailable",
    "SequenceReport",
    "SequenceSourceConnector",
    "SequenceSourceTask",
    "TopicRecord",
    "Transaction",
    "TransactionReport",
    "WorkerGroup",
    "WorkerProcess",
    "admin_client",
    "assert_settles",
    "check_sequences",
    "client_settings",
    "close_admin_clients",
    "end_offsets",
    "new_topic",
    "open_transactions",
    "plugin_path",
    "read_committed",
    "read_records",
    "read_source_offset",
    "read_source_offsets",
    "read_transactions",
    "stable_offsets",
    "unique_topic_name",
    "verifiable_key",
    "verifiable_pairs",
    "wait_for_records",
    "wait_until",
    "worker_properties",
]
