"""The worker's client metrics from librdkafka's statistics: parsing, totals across re-created clients,
the groups and names of Java's client metrics, and the poller of clients nobody else polls."""

from __future__ import annotations

import json
import threading

import pytest
from confluent_kafka import KafkaError, KafkaException

from connect_runtime.metrics.client_stats import (
    ClientMetrics,
    ClientStatsCollector,
    StatisticsPoller,
    open_client_metrics,
    parse_statistics,
    statistics_interval_ms,
    with_statistics,
)
from connect_runtime.metrics.connect_metrics import ConnectMetrics
from connect_runtime.metrics.registry import ADMIN_GROUP, CONSUMER_GROUP, PRODUCER_GROUP
from connect_runtime.metrics.stats import MetricConfig
from connect_runtime.storage import config_writer
from connect_runtime.storage.config_writer import ConfigTopicWriter, ConfigWriteError


def _stats(name: str = "rdkafka#producer-1", tx: int = 100, rx: int = 50, states: tuple[str, ...] = ("UP",)) -> str:
    """A statistics document shaped as librdkafka's (fields the metrics do not read included)."""
    brokers = {f"127.0.0.1:9092/{i}": {"name": f"127.0.0.1:9092/{i}", "nodeid": i, "state": state, "tx": 3}
               for i, state in enumerate(states)}
    return json.dumps({"name": name, "client_id": "c1", "type": "producer", "ts": 1, "time": 2, "tx": 7,
                       "tx_bytes": tx, "rx": 5, "rx_bytes": rx, "brokers": brokers, "topics": {}})


def test_a_statistics_document_gives_bytes_and_the_brokers_that_are_up() -> None:
    stats = parse_statistics(_stats(tx=1234, rx=567, states=("UP", "INIT", "UP", "DOWN")))
    assert (stats.client_id, stats.instance) == ("c1", "rdkafka#producer-1")
    assert (stats.tx_bytes, stats.rx_bytes, stats.connection_count) == (1234, 567, 2)


@pytest.mark.parametrize("raw", ["not json", "[]", json.dumps({"tx_bytes": 1})])
def test_a_document_of_another_shape_is_refused(raw: str) -> None:
    with pytest.raises(ValueError, match="not librdkafka statistics"):
        parse_statistics(raw)


def test_the_collector_never_raises_into_librdkafka() -> None:
    collector = ClientStatsCollector()
    collector("garbage")
    assert not collector.reported


def test_byte_totals_add_up_every_instance_of_a_client_and_connections_are_the_latest() -> None:
    collector = ClientStatsCollector()
    collector(_stats("rdkafka#producer-1", tx=100, rx=10, states=("UP", "UP")))
    collector(_stats("rdkafka#producer-1", tx=150, rx=20, states=("UP", "UP")))
    assert (collector.outgoing_bytes(), collector.incoming_bytes(), collector.connection_count()) == (150, 20, 2)
    collector.closed()  # e.g. the leader's producer dropped after a failed write
    assert (collector.outgoing_bytes(), collector.connection_count()) == (150, 0)
    collector(_stats("rdkafka#producer-2", tx=30, rx=5, states=("UP",)))  # made again: counting goes on
    assert (collector.outgoing_bytes(), collector.incoming_bytes(), collector.connection_count()) == (180, 25, 1)


def test_a_closed_instance_s_late_statistics_bring_no_connections_back() -> None:
    collector = ClientStatsCollector()
    collector(_stats("rdkafka#producer-1", tx=100, states=("UP", "UP")))
    collector.closed()
    collector(_stats("rdkafka#producer-1", tx=120, states=("UP", "UP")))  # queued before it was closed
    assert (collector.connection_count(), collector.outgoing_bytes()) == (0, 120)  # its bytes were sent
    collector(_stats("rdkafka#producer-2", tx=5, states=("UP",)))
    assert (collector.connection_count(), collector.outgoing_bytes()) == (1, 125)


def test_statistics_are_asked_for_unless_the_operator_chose_an_interval() -> None:
    collector = ClientStatsCollector()
    conf = with_statistics({"client.id": "x"}, collector, 5000)
    assert conf["statistics.interval.ms"] == 5000 and conf["stats_cb"] is collector
    assert with_statistics({"statistics.interval.ms": 0}, collector, 5000)["statistics.interval.ms"] == 0


def test_the_interval_is_15_s_or_half_a_sample_window_but_at_least_a_second() -> None:
    assert statistics_interval_ms(MetricConfig()) == 15_000  # Java's default window: 30 s
    assert statistics_interval_ms(MetricConfig(window_ms=4000)) == 2000
    assert statistics_interval_ms(MetricConfig(window_ms=1500)) == 1000
    assert statistics_interval_ms(MetricConfig(window_ms=0)) == 1000  # allowed, as in Java


def test_each_client_group_shows_what_librdkafka_can_feed_of_java_s_metrics() -> None:
    metrics = ConnectMetrics()
    collectors = {group: ClientStatsCollector() for group in (PRODUCER_GROUP, CONSUMER_GROUP, ADMIN_GROUP)}
    for group, collector in collectors.items():
        open_client_metrics(metrics, group, f"g-{group}", collector)
    assert metrics.read() == []  # nothing reported yet: left out rather than read as zero
    for collector in collectors.values():
        collector(_stats(tx=10, rx=20, states=("UP",)))
    values = {(r.spec.group, r.spec.name, r.tags): r.value for r in metrics.read()}
    assert values == {
        (PRODUCER_GROUP, "connection-count", (("client-id", f"g-{PRODUCER_GROUP}"),)): 1.0,
        (PRODUCER_GROUP, "outgoing-byte-total", (("client-id", f"g-{PRODUCER_GROUP}"),)): 10.0,
        (CONSUMER_GROUP, "connection-count", (("client-id", f"g-{CONSUMER_GROUP}"),)): 1.0,
        (CONSUMER_GROUP, "incoming-byte-total", (("client-id", f"g-{CONSUMER_GROUP}"),)): 20.0,
        (ADMIN_GROUP, "connection-count", (("client-id", f"g-{ADMIN_GROUP}"),)): 1.0,
    }


def test_the_poller_polls_every_client_each_round_whatever_one_of_them_raises() -> None:
    polled: list[str] = []
    done = threading.Event()

    def broken() -> None:
        polled.append("broken")
        raise RuntimeError("boom")

    def fine() -> None:
        polled.append("fine")
        if polled.count("fine") == 2:
            done.set()

    poller = StatisticsPoller([broken, fine], interval_ms=10)
    poller.start()
    try:
        assert done.wait(10)
    finally:
        poller.stop()
    assert polled[:4] == ["broken", "fine", "broken", "fine"]


def test_a_watched_client_reports_into_its_group_at_the_worker_s_interval() -> None:
    metrics = ConnectMetrics(MetricConfig(window_ms=4000))
    clients = ClientMetrics(metrics)
    conf = clients.watch(CONSUMER_GROUP, {"client.id": "g-offsets", "group.id": "x"})
    assert conf["statistics.interval.ms"] == 2000 and conf["group.id"] == "x"
    conf["stats_cb"](_stats(rx=42))
    [reading] = [r for r in metrics.read() if r.spec.name == "incoming-byte-total"]
    assert (reading.spec.group, reading.tags, reading.value) == (CONSUMER_GROUP, (("client-id", "g-offsets"),), 42.0)


def test_the_worker_s_client_groups_go_when_it_stops() -> None:
    metrics = ConnectMetrics()
    clients = ClientMetrics(metrics)
    clients.watch(ADMIN_GROUP, {"client.id": "g-shared-admin"})["stats_cb"](_stats())
    clients.collector(PRODUCER_GROUP, "g-configs")(_stats())
    assert {r.spec.group for r in metrics.read()} == {ADMIN_GROUP, PRODUCER_GROUP}
    clients.stop()
    assert metrics.read() == []


def test_the_leader_s_producer_reads_no_connections_once_dropped() -> None:
    collector = ClientStatsCollector()
    writer = ConfigTopicWriter({"client.id": "g-configs"}, "configs", "connect-cluster-g", statistics=collector,
                               statistics_interval_ms=1000)
    collector(_stats(tx=70, states=("UP",)))
    writer.poll()  # no producer yet (not leading): nothing to poll
    writer.close()  # stepped down
    assert (collector.connection_count(), collector.outgoing_bytes()) == (0, 70)


class _QueuingProducer:
    """A leader producer whose writes fail and whose flush serves one more statistics document of its own
    instance, as librdkafka's flush polls what it queued."""

    made: list[_QueuingProducer] = []
    report_at_init = True

    def __init__(self, conf: dict[str, object]) -> None:
        _QueuingProducer.made.append(self)
        self._name = f"rdkafka#producer-{len(_QueuingProducer.made)}"
        self._stats_cb = conf["stats_cb"]

    def report(self) -> None:
        self._stats_cb(_stats(self._name, states=("UP", "UP")))  # type: ignore[operator]

    def list_topics(self, timeout: float) -> None:
        pass

    def init_transactions(self, timeout: float) -> None:
        if self.report_at_init:
            self.report()

    def begin_transaction(self) -> None:
        raise KafkaException(KafkaError(KafkaError._TRANSPORT))

    def abort_transaction(self, timeout: float) -> None:
        pass

    def purge(self) -> None:
        pass

    def flush(self, timeout: float) -> int:
        self.report()
        return 0


@pytest.mark.parametrize("drop", ["failed write", "close"])
@pytest.mark.parametrize("reported_before", [True, False])
def test_the_leader_s_dropped_producer_stays_without_connections_through_its_flush(
        monkeypatch: pytest.MonkeyPatch, drop: str, reported_before: bool) -> None:
    monkeypatch.setattr(config_writer, "Producer", _QueuingProducer)
    monkeypatch.setattr(_QueuingProducer, "report_at_init", reported_before)
    collector = ClientStatsCollector()
    writer = ConfigTopicWriter({"client.id": "g-configs"}, "configs", "connect-cluster-g", statistics=collector)
    writer.initialize()
    producer = _QueuingProducer.made[-1]
    assert collector.connection_count() == (2 if reported_before else 0)
    if drop == "close":
        writer.close()
    else:
        with pytest.raises(ConfigWriteError):
            writer.write([("k", b"v")])
    assert not writer.initialized and collector.connection_count() == 0
    producer.report()  # a poll of the statistics poller, which took the producer just before it was dropped
    assert collector.connection_count() == 0 and collector.outgoing_bytes() > 0
