"""The Java client metrics dashboards read, fed from librdkafka's statistics.

A Java Kafka client measures its connections and bytes itself; librdkafka reports them as a JSON
document every ``statistics.interval.ms``, handed to the client's ``stats_cb`` when the application
polls the client. :func:`with_statistics` adds both settings to a client's config; the
:class:`ClientStatsCollector` it is given keeps the few numbers needed (the top-level ``tx_bytes`` and
``rx_bytes``, and how many brokers are ``UP``) and :func:`open_client_metrics` shows them as Java's
``producer-metrics`` / ``consumer-metrics`` / ``admin-client-metrics`` of one ``client-id``.

The interval (:func:`statistics_interval_ms`) is modest because the callback parses a document that grows
with the number of brokers and partitions the client knows, and a dashboard scrapes every 15 to 60 s
anyway: 15 s, or half of ``metrics.sample.window.ms`` when that is shorter, so that the client metrics are
never staler than the windowed ones beside them, but never below 1 s: a window of a few milliseconds (0
is allowed) would otherwise have every client build, and the worker parse, a document many times a second.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from connect_runtime.metrics.connect_metrics import ConnectMetrics, MetricGroup
from connect_runtime.metrics.registry import group_metrics
from connect_runtime.metrics.stats import MetricConfig

logger = logging.getLogger(__name__)

#: How often librdkafka reports at most: the resolution of the client metrics.
STATISTICS_INTERVAL_MS = 15_000
#: How often librdkafka reports at least: the floor under a tiny ``metrics.sample.window.ms``.
_MIN_INTERVAL_MS = 1_000


def statistics_interval_ms(config: MetricConfig) -> int:
    """How often the worker's clients report: every 15 s, or every half sample window if that is shorter,
    but at most once a second."""
    return max(_MIN_INTERVAL_MS, min(STATISTICS_INTERVAL_MS, config.window_ms // 2))


@dataclass(frozen=True, slots=True)
class ClientStatistics:
    """What one statistics document of one librdkafka client says, of what the metrics need."""

    #: The ``client.id`` the client was configured with.
    client_id: str
    #: librdkafka's name of this client instance (``rdkafka#producer-3``): a client re-created with the same
    #: ``client.id`` starts its byte counts again under another name.
    instance: str
    #: Brokers the client is connected to (state ``UP``).
    connection_count: int
    #: Bytes sent to and received from every broker since the instance was created.
    tx_bytes: int
    rx_bytes: int


def parse_statistics(raw: str | bytes) -> ClientStatistics:
    """Read one ``stats_cb`` document; ``ValueError`` if it is not librdkafka's statistics JSON."""
    try:
        doc = orjson.loads(raw)
        brokers = doc.get("brokers") or {}
        return ClientStatistics(
            client_id=str(doc.get("client_id", "")),
            instance=str(doc["name"]),
            connection_count=sum(1 for b in brokers.values() if b.get("state") == "UP"),
            tx_bytes=int(doc.get("tx_bytes", 0)),
            rx_bytes=int(doc.get("rx_bytes", 0)),
        )
    except (orjson.JSONDecodeError, KeyError, TypeError, AttributeError, ValueError) as e:
        raise ValueError(f"not librdkafka statistics: {e}") from e


class ClientStatsCollector:
    """A ``stats_cb``: keeps the latest statistics of a client, across re-creations of it.

    Byte totals add up every instance that reported (a client closed and made again with the same
    ``client.id`` keeps counting up, as a counter must); the connection count is the latest instance's,
    and 0 once :meth:`closed` says that instance is gone, whatever document of it arrives afterwards
    (a flush or a last poll of a dropped client still serves those queued). Called on whatever thread
    polls the client, read by an exporter on another: thread-safe, and never raises into librdkafka's
    callback.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._bytes: dict[str, tuple[int, int]] = {}
        self._latest: ClientStatistics | None = None
        # Instances said to be closed: their late documents still add bytes, never connections.
        self._closed: set[str] = set()
        self._warned = False

    def __call__(self, raw: str) -> None:
        try:
            stats = parse_statistics(raw)
        except ValueError:
            if not self._warned:
                self._warned = True
                logger.warning("Ignoring client statistics librdkafka reported in an unexpected shape",
                               exc_info=True)
            return
        self.record(stats)

    def record(self, stats: ClientStatistics) -> None:
        """Take one instance's statistics (what :meth:`__call__` does once parsed)."""
        with self._lock:
            self._bytes[stats.instance] = (stats.tx_bytes, stats.rx_bytes)
            if stats.instance not in self._closed:
                self._latest = stats

    def closed(self) -> None:
        """The client's current instance was closed: it has no connections any more. Call it once the
        client is flushed, so that the instance is known even if its only document came with the flush."""
        with self._lock:
            if self._latest is not None:
                self._closed.add(self._latest.instance)
            self._latest = None

    @property
    def reported(self) -> bool:
        """Whether any statistics arrived yet (before that, the metrics are left out)."""
        with self._lock:
            return bool(self._bytes)

    def connection_count(self) -> int:
        with self._lock:
            return self._latest.connection_count if self._latest is not None else 0

    def outgoing_bytes(self) -> int:
        with self._lock:
            return sum(tx for tx, _ in self._bytes.values())

    def incoming_bytes(self) -> int:
        with self._lock:
            return sum(rx for _, rx in self._bytes.values())


def with_statistics(conf: Mapping[str, Any], collector: ClientStatsCollector,
                    interval_ms: int = STATISTICS_INTERVAL_MS) -> dict[str, Any]:
    """``conf`` with ``stats_cb`` feeding ``collector`` every ``interval_ms`` (an interval the operator
    configured, ``statistics.interval.ms`` among the client settings, is kept; 0 turns them off)."""
    out = dict(conf)
    out.setdefault("statistics.interval.ms", interval_ms)
    out["stats_cb"] = collector
    return out


def open_client_metrics(metrics: ConnectMetrics, group: str, client_id: str,
                        collector: ClientStatsCollector) -> MetricGroup:
    """Open ``group`` (one of the client groups) for ``client_id``, its metrics read from ``collector``:
    every metric the table names for that group that librdkafka's statistics can feed."""
    opened = metrics.group(group, (("client-id", client_id),))
    readers = {
        "connection-count": collector.connection_count,
        "outgoing-byte-total": collector.outgoing_bytes,
        "incoming-byte-total": collector.incoming_bytes,
    }
    for spec in group_metrics(group):
        read = readers.get(spec.name)
        if read is not None:
            opened.gauge(spec.name, _when_reported(collector, read))
    return opened


def _when_reported(collector: ClientStatsCollector, read: Callable[[], int]) -> Callable[[], float | None]:
    def reading() -> float | None:
        return float(read()) if collector.reported else None
    return reading


class StatisticsPoller:
    """Polls clients that nothing else polls regularly (an admin client, an idle producer), so that their
    statistics reach their collectors, and do not pile up in librdkafka's queue meanwhile.

    One daemon thread; a poll that raises is logged (rate-limited by its repetition: once per client) and
    tried again next round.
    """

    def __init__(self, polls: Sequence[Callable[[], object]], interval_ms: int = STATISTICS_INTERVAL_MS) -> None:
        self._polls = tuple(polls)
        self._interval_s = interval_ms / 1000.0
        self._stopping = threading.Event()
        self._failed: set[int] = set()
        self._thread = threading.Thread(target=self._run, name="client-statistics", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stopping.set()
        if self._thread.is_alive():
            self._thread.join(5.0)

    def _run(self) -> None:
        while not self._stopping.wait(self._interval_s):
            self.poll_once()

    def poll_once(self) -> None:
        """One round: every client polled once, whatever the others do."""
        for i, poll in enumerate(self._polls):
            try:
                poll()
            except Exception:
                if i not in self._failed:
                    self._failed.add(i)
                    logger.warning("Polling a client for its statistics failed; trying again every round",
                                   exc_info=True)


class ClientMetrics:
    """A worker's own Kafka clients in its metrics: one collector per client group and ``client.id``, all
    reporting every :func:`statistics_interval_ms` of the worker's metric config, until :meth:`stop`."""

    def __init__(self, metrics: ConnectMetrics) -> None:
        self._metrics = metrics
        self.interval_ms = statistics_interval_ms(metrics.config)
        self._groups: list[MetricGroup] = []

    def collector(self, group: str, client_id: str) -> ClientStatsCollector:
        """A collector whose statistics show as ``group`` of ``client_id``."""
        collector = ClientStatsCollector()
        self._groups.append(open_client_metrics(self._metrics, group, client_id, collector))
        return collector

    def watch(self, group: str, conf: Mapping[str, Any]) -> dict[str, Any]:
        """``conf`` (with its ``client.id``) reporting its statistics into ``group``."""
        return with_statistics(conf, self.collector(group, str(conf["client.id"])), self.interval_ms)

    def poll(self, polls: Sequence[Callable[[], object]]) -> StatisticsPoller:
        """Start polling clients nothing else polls regularly; stop the returned poller with the worker."""
        poller = StatisticsPoller(polls, self.interval_ms)
        poller.start()
        return poller

    def stop(self) -> None:
        """The worker stopped: its clients are closed, so their series go (as Java's client metrics do)."""
        groups, self._groups = self._groups, []
        for group in groups:
            group.close()
