"""``GET /metrics`` over the fake herder: formats by ``Accept``, where it is served, the OpenAPI entry."""

from __future__ import annotations

import pytest
from fake_herder import FakeHerder
from fastapi.testclient import TestClient
from prometheus_client.openmetrics.parser import text_string_to_metric_families as parse_openmetrics

from rest.app import create_app

# What Prometheus 2.x sends when it scrapes.
PROMETHEUS_ACCEPT = ("application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,"
                     "text/plain;version=0.0.4;q=0.5,*/*;q=0.1")


@pytest.fixture
def herder() -> FakeHerder:
    herder = FakeHerder()
    herder.connect_metrics.group("connect-worker-metrics").gauge("task-count", lambda: 3)
    return herder


def test_text_format_by_default_and_for_a_plain_text_accept(client: TestClient) -> None:
    for headers in ({}, {"Accept": "text/plain"}, {"Accept": "text/plain;version=0.0.4"}):
        response = client.get("/metrics", headers=headers)
        assert response.status_code == 200, headers
        assert response.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8"
        assert "kafka_connect_worker_task_count 3.0" in response.text.splitlines()
    assert client.head("/metrics").status_code == 200


def test_openmetrics_when_prometheus_asks_for_it(client: TestClient) -> None:
    response = client.get("/metrics", headers={"Accept": PROMETHEUS_ACCEPT})
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/openmetrics-text; version=1.0.0; charset=utf-8")
    [family] = parse_openmetrics(response.text)
    assert (family.name, family.samples[0].value) == ("kafka_connect_worker_task_count", 3.0)


@pytest.mark.parametrize("accept", ["text/plain;version=x", "application/openmetrics-text; version=abc"])
def test_a_malformed_accept_gets_the_text_format_not_an_error(client: TestClient, accept: str) -> None:
    response = client.get("/metrics", headers={"Accept": accept})
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8"
    assert "kafka_connect_worker_task_count 3.0" in response.text.splitlines()


def test_a_reader_that_raises_leaves_out_its_metric_only(herder: FakeHerder, client: TestClient,
                                                         caplog: pytest.LogCaptureFixture) -> None:
    def broken() -> float:
        raise ZeroDivisionError("division by zero")

    herder.connect_metrics.group("connect-worker-rebalance-metrics").gauge("epoch", broken)
    for _ in range(2):
        response = client.get("/metrics")
        assert response.status_code == 200
        assert "kafka_connect_worker_task_count 3.0" in response.text.splitlines()
        assert "kafka_connect_worker_rebalance_epoch" not in response.text
    assert len([r for r in caplog.records if "epoch" in r.getMessage()]) == 1


@pytest.mark.parametrize(("regular", "admin", "served"), [(True, True, True), (True, False, False),
                                                          (False, True, True)])
def test_served_where_the_admin_endpoints_are(herder: FakeHerder, regular: bool, admin: bool, served: bool) -> None:
    with TestClient(create_app(herder, regular=regular, admin=admin)) as client:
        assert client.get("/metrics").status_code == (200 if served else 404)
        assert ("/metrics" in client.get("/openapi.json").json()["paths"]) is served


def test_documented_as_text_with_connect_errors(client: TestClient) -> None:
    responses = client.get("/openapi.json").json()["paths"]["/metrics"]["get"]["responses"]
    assert set(responses["200"]["content"]) == {"text/plain", "application/openmetrics-text"}
    assert set(responses) == {"200", "4XX", "5XX"}
