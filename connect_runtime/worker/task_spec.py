"""What a task process needs to build and run one task: everything the worker decided for it.

The worker resolves config providers, parses and checks the connector's config, picks the producer
settings and converters, and hands the result to the task process as one picklable value. The
process then only instantiates plugins and runs the task loop; it never reads the worker's config.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from connect_runtime.api.delegated_delivery import DelegatedDelivery
from connect_runtime.api.task import SourceTask
from connect_runtime.config.connector_config import TransactionBoundary
from connect_runtime.metrics.stats import MetricConfig
from connect_runtime.plugins.registry import PluginRegistry
from connect_runtime.types import ConnectorTaskId, TargetState


@dataclass(frozen=True)
class TaskSpec:
    """One task instance, as its process builds it (classes travel by reference: module and name)."""

    task_id: ConnectorTaskId
    task_class: type[SourceTask]
    #: The task's config (placeholders resolved), as ``SourceTask.start`` gets it.
    task_config: Mapping[str, str]
    #: The connector's config, placeholders resolved: transforms, ``errors.*``, topic creation.
    connector_config: Mapping[str, str]
    #: Resolves converter, transformation and predicate names as the worker does.
    plugins: PluginRegistry
    key_converter: tuple[str, Mapping[str, str]]
    value_converter: tuple[str, Mapping[str, str]]
    header_converter: tuple[str, Mapping[str, str]]
    #: The task producer's settings: final for exactly-once, the base for at-least-once.
    producer_config: Mapping[str, Any]
    exactly_once: bool
    transaction_boundary: TransactionBoundary
    #: Commit interval of the ``interval`` boundary; the offsets flush interval at least once.
    commit_interval_ms: int
    offset_flush_timeout_ms: int
    topic_creation_enable: bool
    #: Admin client settings for topic checks and creation (the connector's overrides applied).
    admin_settings: Mapping[str, Any]
    #: The topic the task's offsets go to, and whether the worker's global topic is a second store.
    offsets_topic: str
    has_connector_store: bool
    delegated_delivery: DelegatedDelivery
    initial_state: TargetState
    #: The connector's active topics when the task started (KIP-558); None with topic tracking off.
    active_topics: Mapping[str, Any] | None
    #: Values to keep out of the process's log: resolved secrets and PASSWORD values -> replacement.
    secrets: Mapping[str, str] = field(default_factory=dict, repr=False)
    #: The worker's root log level and line format.
    log_level: int = 20
    log_format: str | None = None
    #: The worker's ``metrics.num.samples`` and ``metrics.sample.window.ms``: the task's stats use the same windows.
    metric_config: MetricConfig = field(default_factory=MetricConfig)
