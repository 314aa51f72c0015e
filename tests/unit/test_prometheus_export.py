"""The Prometheus exporter: every metric of the three tables under the name, type and labels Strimzi's
JMX-exporter rules give Java's (the table below is written out from those rules), in both formats."""

from __future__ import annotations

import logging
import math
from collections import defaultdict
from pathlib import Path

import pytest
from prometheus_client.openmetrics.parser import text_string_to_metric_families as parse_openmetrics
from prometheus_client.parser import text_string_to_metric_families as parse_text

from connect_runtime.metrics.connect_metrics import ConnectMetrics
from connect_runtime.metrics.prometheus import exposition, family_of
from connect_runtime.metrics.registry import (
    CLIENT_METRICS,
    METRICS,
    RUNTIME_GROUP_PREFIX,
    RUNTIME_METRICS,
    MetricSpec,
    StatKind,
)
from connect_runtime.metrics.stats import CumulativeSum, Histogram, Max

OPENMETRICS = "application/openmetrics-text; version=1.0.0"

# Family as the text format 0.0.4 names it, type, labels (- for none). Connect's from Strimzi's rules
# for Kafka Connect (kafka-connect-metrics.yaml) applied to Java's MBeans; the metrics those rules drop or fold
# together (the task offset-commit percentages and plugin strings, transaction-size-min, the -max and
# -avg of source-record-active-count) under the same convention; then the runtime's and the clients'.
EXPECTED_TABLE = """
kafka_connect_connector_status                                    gauge     connector status
kafka_connect_connector_connector_type                            gauge     connector connector_type
kafka_connect_connector_connector_class                           gauge     connector connector_class
kafka_connect_connector_connector_version                         gauge     connector connector_version
kafka_connect_connector_task_status                               gauge     connector task status
kafka_connect_connector_task_running_ratio                        gauge     connector task
kafka_connect_connector_task_pause_ratio                          gauge     connector task
kafka_connect_connector_task_offset_commit_max_time_ms            gauge     connector task
kafka_connect_connector_task_offset_commit_avg_time_ms            gauge     connector task
kafka_connect_connector_task_batch_size_max                       gauge     connector task
kafka_connect_connector_task_batch_size_avg                       gauge     connector task
kafka_connect_connector_task_offset_commit_failure_percentage     gauge     connector task
kafka_connect_connector_task_offset_commit_success_percentage     gauge     connector task
kafka_connect_connector_task_connector_class                      gauge     connector task connector_class
kafka_connect_connector_task_connector_version                    gauge     connector task connector_version
kafka_connect_connector_task_connector_type                       gauge     connector task connector_type
kafka_connect_connector_task_task_class                           gauge     connector task task_class
kafka_connect_connector_task_task_version                         gauge     connector task task_version
kafka_connect_connector_task_key_converter_class                  gauge     connector task key_converter_class
kafka_connect_connector_task_value_converter_class                gauge     connector task value_converter_class
kafka_connect_connector_task_key_converter_version                gauge     connector task key_converter_version
kafka_connect_connector_task_value_converter_version              gauge     connector task value_converter_version
kafka_connect_connector_task_header_converter_class               gauge     connector task header_converter_class
kafka_connect_connector_task_header_converter_version             gauge     connector task header_converter_version
kafka_connect_source_task_source_record_poll_rate                 gauge     connector task
kafka_connect_source_task_source_record_poll_total                counter   connector task
kafka_connect_source_task_source_record_write_rate                gauge     connector task
kafka_connect_source_task_source_record_write_total               counter   connector task
kafka_connect_source_task_poll_batch_max_time_ms                  gauge     connector task
kafka_connect_source_task_poll_batch_avg_time_ms                  gauge     connector task
kafka_connect_source_task_source_record_active_count              gauge     connector task
kafka_connect_source_task_source_record_active_count_max          gauge     connector task
kafka_connect_source_task_source_record_active_count_avg          gauge     connector task
kafka_connect_source_task_transaction_size_min                    gauge     connector task
kafka_connect_source_task_transaction_size_max                    gauge     connector task
kafka_connect_source_task_transaction_size_avg                    gauge     connector task
kafka_connect_worker_connector_count                              gauge     -
kafka_connect_worker_task_count                                   gauge     -
kafka_connect_worker_connector_startup_attempts_total             counter   -
kafka_connect_worker_connector_startup_success_total              counter   -
kafka_connect_worker_connector_startup_success_percentage         gauge     -
kafka_connect_worker_connector_startup_failure_total              counter   -
kafka_connect_worker_connector_startup_failure_percentage         gauge     -
kafka_connect_worker_task_startup_attempts_total                  counter   -
kafka_connect_worker_task_startup_success_total                   counter   -
kafka_connect_worker_task_startup_success_percentage              gauge     -
kafka_connect_worker_task_startup_failure_total                   counter   -
kafka_connect_worker_task_startup_failure_percentage              gauge     -
kafka_connect_worker_connector_total_task_count                   gauge     connector
kafka_connect_worker_connector_running_task_count                 gauge     connector
kafka_connect_worker_connector_paused_task_count                  gauge     connector
kafka_connect_worker_connector_failed_task_count                  gauge     connector
kafka_connect_worker_connector_unassigned_task_count              gauge     connector
kafka_connect_worker_connector_destroyed_task_count               gauge     connector
kafka_connect_worker_connector_restarting_task_count              gauge     connector
kafka_connect_worker_rebalance_connect_protocol                   untyped   connect_protocol
kafka_connect_worker_rebalance_leader_name                        untyped   leader_name
kafka_connect_worker_rebalance_epoch                              gauge     -
kafka_connect_worker_rebalance_completed_rebalances_total         counter   -
kafka_connect_worker_rebalance_rebalancing                        gauge     -
kafka_connect_worker_rebalance_rebalance_max_time_ms              gauge     -
kafka_connect_worker_rebalance_rebalance_avg_time_ms              gauge     -
kafka_connect_worker_rebalance_time_since_last_rebalance_ms       gauge     -
# Gauges, as Strimzi's rules match them: the names start with total-, none ends with -total.
kafka_connect_task_error_total_record_failures                    gauge     connector task
kafka_connect_task_error_total_record_errors                      gauge     connector task
kafka_connect_task_error_total_records_skipped                    gauge     connector task
kafka_connect_task_error_total_retries                            gauge     connector task
kafka_connect_task_error_total_errors_logged                      gauge     connector task
kafka_connect_task_error_deadletterqueue_produce_requests         gauge     connector task
kafka_connect_task_error_deadletterqueue_produce_failures         gauge     connector task
kafka_connect_task_error_last_error_timestamp                     gauge     connector task
# Java's MBean carries client-id, so the generic client rule names it (the dedicated one never matches).
kafka_connect_coordinator_assigned_connectors                     gauge     clientid
kafka_connect_coordinator_assigned_tasks                          gauge     clientid
connect_runtime_source_task_transactions_committed_total          counter   connector task
connect_runtime_source_task_transactions_aborted_total            counter   connector task
connect_runtime_source_task_transaction_open_age_seconds          gauge     connector task
connect_runtime_source_task_transaction_commit_latency_seconds    histogram connector task
connect_runtime_connector_fencing_rounds_total                    counter   connector
connect_runtime_connector_fencing_duration_seconds                histogram connector
kafka_producer_connection_count                                   gauge     clientid
kafka_producer_outgoing_byte_total                                counter   clientid
kafka_producer_txn_init_time_ns_total                             counter   clientid
kafka_producer_txn_begin_time_ns_total                            counter   clientid
kafka_producer_txn_send_offsets_time_ns_total                     counter   clientid
kafka_producer_txn_commit_time_ns_total                           counter   clientid
kafka_producer_txn_abort_time_ns_total                            counter   clientid
kafka_consumer_connection_count                                   gauge     clientid
kafka_consumer_incoming_byte_total                                counter   clientid
kafka_admin_client_connection_count                               gauge     clientid
"""
EXPECTED: list[tuple[str, str, tuple[str, ...]]] = [
    (name, kind, tuple(labels) if labels != ["-"] else ())
    for line in EXPECTED_TABLE.splitlines() if line and not line.startswith("#")
    for name, kind, *labels in [line.split()]
]

ALL_SPECS = (*METRICS, *RUNTIME_METRICS, *CLIENT_METRICS)
_TAG_VALUES = {"connector": "c", "task": "0", "client-id": "connect-worker-1"}


def every_metric() -> ConnectMetrics:
    """A ConnectMetrics holding every metric of the three tables, each with a value of its kind."""
    metrics = ConnectMetrics()
    specs_by_group: dict[tuple[str, tuple[str, ...]], list[MetricSpec]] = defaultdict(list)
    for spec in ALL_SPECS:
        specs_by_group[(spec.group, spec.tags)].append(spec)
    for (group_name, tags), specs in specs_by_group.items():
        group = metrics.group(group_name, [(tag, _TAG_VALUES[tag]) for tag in tags])
        for spec in specs:
            if spec.kind is StatKind.STRING:
                group.gauge(spec.name, lambda spec=spec: f"text-of-{spec.name}")
            elif spec.kind is StatKind.HISTOGRAM:
                group.sensor({spec.name: Histogram([0.1, 1.0])}).record(0.5)
            else:
                group.gauge(spec.name, lambda: 2.0)
    return metrics


def _types_in_text(text: str) -> dict[str, str]:
    return {name: kind for line in text.splitlines() if line.startswith("# TYPE ")
            for name, kind in [line.removeprefix("# TYPE ").split(" ")]}


def test_the_table_names_every_metric_of_the_three_tables_once() -> None:
    assert len(EXPECTED) == len(ALL_SPECS) == len({name for name, _, _ in EXPECTED})
    exported = [(family_of(spec).name, family_of(spec).type.replace("unknown", "untyped"), family_of(spec).labels)
                for spec in ALL_SPECS]
    assert exported == EXPECTED


def test_every_metric_is_scraped_under_its_name_type_and_labels_in_the_text_format() -> None:
    body, content_type = exposition(every_metric(), None)
    assert content_type == "text/plain; version=0.0.4; charset=utf-8"
    text = body.decode()
    # Only the tables' families: no _created series, no process_* or python_* collectors.
    assert _types_in_text(text) == {name: kind for name, kind, _ in EXPECTED}
    labels_seen: dict[str, set[frozenset[str]]] = defaultdict(set)
    for family in parse_text(text):
        for sample in family.samples:
            labels_seen[family.name].add(frozenset(sample.labels) - {"le"})
    assert labels_seen == {name.removesuffix("_total") if kind == "counter" else name: {frozenset(labels)}
                           for name, kind, labels in EXPECTED}


def test_openmetrics_when_accept_asks_for_it_with_the_same_families() -> None:
    body, content_type = exposition(every_metric(), f"{OPENMETRICS},text/plain;version=0.0.4;q=0.5,*/*;q=0.1")
    assert content_type.startswith("application/openmetrics-text; version=1.0.0")
    families = {family.name: family.type for family in parse_openmetrics(body.decode())}  # also checks its syntax
    assert families == {name.removesuffix("_total") if kind == "counter" else name:
                        "unknown" if kind == "untyped" else kind for name, kind, _ in EXPECTED}
    assert body.decode().endswith("# EOF\n")
    assert "_created" not in body.decode()


def test_values_strings_nan_infinity_and_histograms_are_written_as_they_are() -> None:
    metrics = ConnectMetrics()
    connector = metrics.group("connector-metrics", [("connector", "c")])
    connector.gauge("status", lambda: "running")
    rebalance = metrics.group("connect-worker-rebalance-metrics")
    rebalance.gauge("connect-protocol", lambda: "SESSIONED")
    rebalance.gauge("time-since-last-rebalance-ms", lambda: math.inf)
    rebalance.sensor({"rebalance-max-time-ms": Max(metrics.config)})  # no event: NaN, as Java's empty window
    rebalance.sensor({"completed-rebalances-total": CumulativeSum()}).record(3)
    fencing = metrics.group("connect-runtime-connector-metrics", [("connector", "c")]).sensor(
        {"fencing-duration-seconds": Histogram([0.01, 0.1])})
    fencing.record(0.05)
    fencing.record(5.0)
    text = exposition(metrics, None)[0].decode()
    for line in [
        'kafka_connect_connector_status{connector="c",status="running"} 1.0',
        'kafka_connect_worker_rebalance_connect_protocol{connect_protocol="SESSIONED"} 1.0',
        "kafka_connect_worker_rebalance_time_since_last_rebalance_ms +Inf",
        "kafka_connect_worker_rebalance_rebalance_max_time_ms NaN",
        "kafka_connect_worker_rebalance_completed_rebalances_total 3.0",
        'connect_runtime_connector_fencing_duration_seconds_bucket{connector="c",le="0.01"} 0.0',
        'connect_runtime_connector_fencing_duration_seconds_bucket{connector="c",le="0.1"} 1.0',
        'connect_runtime_connector_fencing_duration_seconds_bucket{connector="c",le="+Inf"} 2.0',
        'connect_runtime_connector_fencing_duration_seconds_count{connector="c"} 2.0',
        'connect_runtime_connector_fencing_duration_seconds_sum{connector="c"} 5.05',
    ]:
        assert line in text.splitlines(), line


def test_connector_names_are_escaped_label_values_and_a_closed_group_leaves_no_series() -> None:
    metrics = ConnectMetrics()
    odd = '<script>alert("1")</script>\n../../etc/passwd\\'
    group = metrics.group("connector-task-metrics", [("connector", odd), ("task", "0")])
    group.gauge("status", lambda: "failed")
    [family] = parse_text(exposition(metrics, None)[0].decode())
    assert [(s.name, s.labels) for s in family.samples] == [
        ("kafka_connect_connector_task_status", {"connector": odd, "task": "0", "status": "failed"})]
    group.close()
    assert exposition(metrics, None)[0] == b""


def test_a_metric_reading_the_wrong_kind_of_value_is_left_out_and_logged_not_the_scrape(
        caplog: pytest.LogCaptureFixture) -> None:
    metrics = ConnectMetrics()
    worker = metrics.group("connect-worker-metrics")
    worker.gauge("task-count", lambda: "three")
    worker.gauge("connector-count", lambda: 1)
    with caplog.at_level(logging.ERROR, logger="connect_runtime.metrics.prometheus"):
        text = exposition(metrics, None)[0].decode()
        assert "kafka_connect_worker_connector_count 1.0" in text.splitlines()
        assert "kafka_connect_worker_task_count" not in text
        assert "kafka_connect_worker_task_count" in caplog.text
        caplog.clear()
        exposition(metrics, None)
        assert not caplog.records  # once, not at every scrape


OPERATIONS_GUIDE = Path(__file__).resolve().parents[2] / "docs" / "operations.md"
TABLE_START, TABLE_END = "<!-- metrics-table: start -->\n", "<!-- metrics-table: end -->"


def metrics_table() -> str:
    """The Monitoring section's table of every exported family, generated from the metric tables."""
    rows = ["| family | type | labels | Java metric (group, name) | meaning |", "|---|---|---|---|---|"]
    for spec in ALL_SPECS:
        family = family_of(spec)
        java = "none: this runtime's" if spec.group.startswith(RUNTIME_GROUP_PREFIX) else \
            f"`{spec.group}` `{spec.name}`"
        labels = ", ".join(f"`{label}`" for label in family.labels) or "none"
        kind = "untyped" if family.type == "unknown" else family.type
        meaning = spec.description.replace("|", r"\|")
        rows.append(f"| `{family.name}` | {kind} | {labels} | {java} | {meaning} |")
    return "\n".join(rows) + "\n"


def test_the_operations_guide_lists_every_exported_family() -> None:
    text = OPERATIONS_GUIDE.read_text("utf-8")
    documented = text[text.index(TABLE_START) + len(TABLE_START):text.index(TABLE_END)]
    assert documented == metrics_table(), (
        f"docs/operations.md's metric table is out of date; put this between its markers:\n{metrics_table()}")
