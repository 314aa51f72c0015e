"""Strimzi's Kafka Connect dashboard and alert rules, unchanged, on a real Prometheus scraping a worker.

A Prometheus (Debian's ``prometheus`` package, which ``./dev`` installs) scrapes one exactly-once worker
with the scrape configuration of docs/operations.md ("Monitoring") and loads its alert rules. The worker
runs four connectors: one running (two tasks), one paused, one whose task fails, one whose connector
fails to start. Every query of Strimzi's "Strimzi Kafka Connect" dashboard (``strimzi-kafka-connect.json``)
that a Python worker can feed, and the expression of each of its two Kafka Connect alert rules, written
out below as the dashboard has them (the dashboard's variables substituted), must return data carrying the
labels its panel groups by. The CPU and JVM panels read cAdvisor's and the JVM's series and are left out.

A real Prometheus rather than ``promtool`` on a scraped file: it scrapes as in production (its own
``Accept`` header, so OpenMetrics, then relabelling and the static labels), starts in about a second, and
at a one-second scrape interval the ``rate()`` panels have their two samples within seconds.
"""

from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from doc_examples import Block, blocks

from connect_runtime.testing import ConnectClient, WorkerProcess, new_topic, plugin_path, wait_until
from connect_runtime.testing.launcher import free_port

PLUGINS_DIR = Path(__file__).resolve().parents[1] / "plugins"
pytestmark = [pytest.mark.kafka, pytest.mark.connect_worker(eos="enabled", extra=plugin_path(PLUGINS_DIR))]

SCRAPE_CONFIG = "prometheus scrape config"
SECURE_SCRAPE_CONFIG = "prometheus scrape config, https and Basic authentication"
ALERT_RULES = "prometheus alert rules"
#: The documented values of the dashboard's two variables (the static labels of the scrape config).
CLUSTER, NAMESPACE = "connect-cluster", "default"
DOCUMENTED_TARGET = '"localhost:8083"'
#: How long a query may take to show what the worker already reports (a scrape or two).
QUERY_TIMEOUT_S = 10.0

RUNNING, PAUSED, FAILING_TASK, FAILING_CONNECTOR = "dash-running", "dash-paused", "dash-failing-task", "dash-failing"

_SEL = 'strimzi_io_kind=~"KafkaConnect.*",strimzi_io_cluster="$strimzi_connect_cluster_name"'
_NS_SEL = f'namespace="$kubernetes_namespace",{_SEL}'


@dataclass(frozen=True)
class Query:
    """One query of the dashboard or the alert rules: where it is, its PromQL, what its panel groups by."""

    panel: str
    expr: str
    group_by: tuple[str, ...] = ()
    #: Its ``!= 0`` filter may rightly leave nothing (no task of this worker is in that state): then the
    #: query is checked without the filter.
    filter_may_empty: bool = False

    @property
    def promql(self) -> str:
        return self.expr.replace("$strimzi_connect_cluster_name", CLUSTER).replace("$kubernetes_namespace", NAMESPACE)


def _issues(state: str, ref: str) -> Query:
    return Query(f"Connector Tasks with Issues ({ref})",
                 f"sum(kafka_connect_worker_connector_{state}_task_count{{{_NS_SEL}}}) by (connector) != 0",
                 ("connector",), filter_may_empty=state in ("unassigned", "destroyed"))


def _task_state(state: str, ref: str) -> Query:
    return Query(f"Connector Task State ({ref})", f"sum(kafka_connect_worker_connector_{state}_task_count{{{_SEL}}})")


QUERIES = [
    Query("Number of Connectors", f"sum(kafka_connect_worker_connector_count{{{_SEL}}})"),
    Query("Number of Tasks", f"sum(kafka_connect_worker_task_count{{{_SEL}}})"),
    Query("Connection Count (A)", f"sum(kafka_consumer_connection_count{{{_SEL}}})"),
    Query("Connection Count (B)", f"sum(kafka_producer_connection_count{{{_SEL}}})"),
    Query("Connection Count (C)", f"sum(kafka_admin_client_connection_count{{{_SEL}}})"),
    Query("(Source/Producers) Outgoing Bytes per Second",
          f"sum(rate(kafka_producer_outgoing_byte_total{{{_SEL}}}[5m])) by (kubernetes_pod_name)",
          ("kubernetes_pod_name",)),
    Query("(Sink/Consumers) Incoming Bytes per Second",
          f"sum(rate(kafka_consumer_incoming_byte_total{{{_SEL}}}[5m])) by (kubernetes_pod_name)",
          ("kubernetes_pod_name",)),
    Query("Assigned Connectors by Worker",
          f"sum(kafka_connect_coordinator_assigned_connectors{{{_SEL}}}) by (kubernetes_pod_name)",
          ("kubernetes_pod_name",)),
    Query("Rebalancing", f"sum(kafka_connect_worker_rebalance_rebalancing{{{_SEL}}})"),
    Query("Assigned Tasks per Worker",
          f"sum(kafka_connect_coordinator_assigned_tasks{{{_SEL}}}) by (kubernetes_pod_name)",
          ("kubernetes_pod_name",)),
    _issues("paused", "A"), _issues("failed", "B"), _issues("unassigned", "C"), _issues("destroyed", "D"),
    _task_state("running", "A"), _task_state("paused", "B"), _task_state("failed", "D"),
    _task_state("unassigned", "C"), _task_state("destroyed", "E"),
    Query("Connector Status",
          f"sum(kafka_connect_connector_status{{{_SEL}}} * on(connector) group_left(connector_class) "
          "kafka_connect_connector_connector_class{} * on (connector) group_left(connector_version) "
          "kafka_connect_connector_connector_version{} * on (connector) group_left(connector_type) "
          "kafka_connect_connector_connector_type{}) "
          "by (connector, status, connector_class, kubernetes_pod_name, connector_version, connector_type)",
          ("connector", "status", "connector_class", "kubernetes_pod_name", "connector_version", "connector_type")),
    Query("Connector Task Status",
          f"sum(kafka_connect_task_error_total_record_failures{{{_SEL}}} * on(connector, task) group_left(status) "
          "kafka_connect_connector_task_status{}) by (connector, status, kubernetes_pod_name, task)",
          ("connector", "status", "kubernetes_pod_name", "task")),
    Query("alert ConnectFailedConnector",
          'sum(kafka_connect_connector_status{status="failed"}) by (namespace, pod) > 0', ("namespace", "pod")),
    Query("alert ConnectFailedTask",
          "sum(kafka_connect_worker_connector_failed_task_count) by (namespace, pod) > 0", ("namespace", "pod")),
    # The dashboard's variables: their options are read off these series' labels.
    Query("variable kubernetes_namespace",
          'kafka_connect_worker_connector_count{strimzi_io_kind=~"KafkaConnect.*"}', ("namespace",)),
    Query("variable strimzi_connect_cluster_name",
          'kafka_connect_worker_connector_count{namespace="$kubernetes_namespace", strimzi_io_kind=~"KafkaConnect.*"}',
          ("strimzi_io_cluster",)),
]


def documented(marker: str) -> Block:
    [block] = [b for b in blocks() if b.marker == marker and b.document.name == "operations.md"]
    assert block.language == "yaml", block.where
    return block


def _tool(name: str) -> str:
    path = shutil.which(name)
    assert path, f"{name} is not installed: ./dev setup installs Debian's prometheus package (which ships it)"
    return path


@dataclass
class Prometheus:
    url: str
    target: str
    log: Path

    def query(self, promql: str) -> list[dict[str, Any]]:
        """The instant vector ``promql`` evaluates to now (an error is a failure: a query that does not parse)."""
        body = httpx.get(f"{self.url}/api/v1/query", params={"query": promql}, timeout=10).json()
        assert body["status"] == "success", (promql, body)
        result: list[dict[str, Any]] = body["data"]["result"]
        return result

    def results(self, promql: str, group_by: tuple[str, ...]) -> list[dict[str, str]]:
        """The labels of every series ``promql`` returns, once it returns some carrying ``group_by``."""

        def found() -> list[dict[str, str]] | None:
            labels = [series["metric"] for series in self.query(promql)]
            return labels if labels and all(set(group_by) <= set(one) for one in labels) else None

        try:
            return wait_until(found, QUERY_TIMEOUT_S, interval_s=0.5, message=promql)
        except AssertionError:
            raise AssertionError(f"{promql}\nreturns {self.query(promql)}\ngroups by {group_by}; "
                                 f"the worker exports:\n{self.exported()}") from None

    def exported(self) -> str:
        names = sorted({s["metric"]["__name__"] for s in self.query('{job="kafka-connect"}')})
        return ", ".join(names) or "nothing"


@pytest.fixture(scope="module")
def connectors(client: ConnectClient, kafka_bootstrap: str) -> None:
    """The four connectors, each settled in its state."""

    def create(name: str, connector_class: str, tasks: int, **extra: str) -> None:
        client.create_connector(name, {"connector.class": connector_class, "topic": new_topic(kafka_bootstrap),
                                       "tasks.max": str(tasks), **extra})

    create(RUNNING, "VerifiableSource", 2, throughput="20")
    create(PAUSED, "VerifiableSource", 1, throughput="20")
    create(FAILING_TASK, "failing_source.FailingSourceConnector", 1)
    create(FAILING_CONNECTOR, "failing_source.FailingStartSourceConnector", 1)
    client.wait_running(RUNNING, 2)
    client.wait_running(PAUSED, 1)
    client.pause_connector(PAUSED)
    client.wait_state(PAUSED, "PAUSED", 1)
    client.wait_task_state(FAILING_TASK, 0, "FAILED")
    wait_until(lambda: client.status(FAILING_CONNECTOR)["connector"]["state"] == "FAILED", 60,
               message=f"{FAILING_CONNECTOR} to fail")


@pytest.fixture(scope="module")
def prometheus(worker: WorkerProcess, connectors: None,
               tmp_path_factory: pytest.TempPathFactory) -> Iterator[Prometheus]:
    """A Prometheus scraping ``worker`` every second with the documented configuration and alert rules,
    ready once it has scraped the settled connectors twice."""
    directory = tmp_path_factory.mktemp("prometheus")
    scrape = documented(SCRAPE_CONFIG).body
    assert DOCUMENTED_TARGET in scrape and f"strimzi_io_cluster: {CLUSTER}" in scrape
    assert f"namespace: {NAMESPACE}" in scrape
    target = worker.url.removeprefix("http://")
    rules = directory / "rules.yml"
    rules.write_text(documented(ALERT_RULES).body)
    config = directory / "prometheus.yml"
    config.write_text("global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
                      f"rule_files: [{rules}]\n" + scrape.replace(DOCUMENTED_TARGET, f'"{target}"'))
    url = f"http://127.0.0.1:{free_port()}"
    log = directory / "prometheus.log"
    with log.open("wb") as out:
        process = subprocess.Popen([_tool("prometheus"), f"--config.file={config}",
                                    f"--storage.tsdb.path={directory / 'data'}",
                                    f"--web.listen-address={url.removeprefix('http://')}"],
                                   stdout=out, stderr=subprocess.STDOUT)
    try:
        server = Prometheus(url, target, log)
        settled_at = time.time()
        wait_until(lambda: httpx.get(f"{url}/-/ready", timeout=2).status_code == 200, 30,
                   message=f"Prometheus to be ready ({log})")
        # Two scrapes after the connectors settled: rate() needs two samples.
        wait_until(lambda: [s for s in server.query('timestamp(up{job="kafka-connect"} == 1)')
                            if float(s["value"][1]) > settled_at + 1], 30,
                   message=f"two scrapes of the worker ({log})")
        yield server
    finally:
        process.terminate()
        process.wait(30)


@pytest.mark.parametrize("query", QUERIES, ids=lambda q: q.panel)
def test_every_dashboard_and_alert_query_returns_data_with_its_labels(prometheus: Prometheus, query: Query) -> None:
    if query.filter_may_empty:
        prometheus.query(query.promql)  # parses and evaluates
        labels = prometheus.results(query.promql.removesuffix(" != 0"), query.group_by)
    else:
        labels = prometheus.results(query.promql, query.group_by)
    for series in labels:
        assert series.get("kubernetes_pod_name", prometheus.target) == prometheus.target
        assert series.get("pod", prometheus.target) == prometheus.target
        assert series.get("namespace", NAMESPACE) == NAMESPACE


def _rows(prometheus: Prometheus, panel: str) -> list[dict[str, str]]:
    [query] = [q for q in QUERIES if q.panel == panel]
    return prometheus.results(query.promql, query.group_by)


def test_the_connector_status_table_shows_each_connector_in_its_state(prometheus: Prometheus) -> None:
    connectors = {row["connector"]: row for row in _rows(prometheus, "Connector Status")}
    assert {name: connectors[name]["status"] for name in (RUNNING, PAUSED, FAILING_CONNECTOR)} == {
        RUNNING: "running", PAUSED: "paused", FAILING_CONNECTOR: "failed"}
    assert connectors[RUNNING]["connector_type"] == "source"


def test_the_task_status_table_shows_each_task_in_its_state(prometheus: Prometheus) -> None:
    tasks = {(row["connector"], row["task"]): row["status"] for row in _rows(prometheus, "Connector Task Status")}
    assert tasks == {(RUNNING, "0"): "running", (RUNNING, "1"): "running", (PAUSED, "0"): "paused",
                     (FAILING_TASK, "0"): "failed"}


def test_the_tasks_with_issues_table_names_the_paused_and_the_failing_connector(prometheus: Prometheus) -> None:
    assert [row["connector"] for row in _rows(prometheus, "Connector Tasks with Issues (A)")] == [PAUSED]
    assert [row["connector"] for row in _rows(prometheus, "Connector Tasks with Issues (B)")] == [FAILING_TASK]


def test_the_documented_alert_rules_fire(prometheus: Prometheus) -> None:
    for alert in ("ConnectFailedConnector", "ConnectFailedTask"):
        # Pending: their "for: 5m" keeps them from firing within a test.
        [labels] = prometheus.results(f'ALERTS{{alertname="{alert}",alertstate="pending"}}', ("namespace", "pod"))
        assert (labels["namespace"], labels["pod"]) == (NAMESPACE, prometheus.target)


def test_the_documented_configurations_are_valid(tmp_path: Path) -> None:
    ca, password = tmp_path / "ca.pem", tmp_path / "password"
    ca.write_text("")
    password.write_text("secret\n")
    secure = documented(SECURE_SCRAPE_CONFIG).body
    for documented_path, path in (("/etc/prometheus/connect-ca.pem", ca),
                                  ("/etc/prometheus/connect.password", password)):
        assert documented_path in secure
        secure = secure.replace(documented_path, str(path))
    configs = {"scrape.yml": documented(SCRAPE_CONFIG).body, "secure.yml": secure}
    for name, text in configs.items():
        (tmp_path / name).write_text(text)
        checked = subprocess.run([_tool("promtool"), "check", "config", str(tmp_path / name)],
                                 capture_output=True, text=True)
        assert checked.returncode == 0, (name, checked.stdout, checked.stderr)
    (tmp_path / "rules.yml").write_text(documented(ALERT_RULES).body)
    checked = subprocess.run([_tool("promtool"), "check", "rules", str(tmp_path / "rules.yml")],
                             capture_output=True, text=True)
    assert checked.returncode == 0 and "2 rules found" in checked.stdout, (checked.stdout, checked.stderr)

