"""``GET /connectors?expand=...`` at scale: one herder read per request, rendered without pydantic, and
still byte for byte what rendering each connector through the response models gave."""

from __future__ import annotations

import json
import logging
from concurrent.futures import Future
from typing import Any

import pytest
from fake_herder import SOURCE_CLASS, FakeConnector, FakeHerder
from fastapi.testclient import TestClient

from connect_runtime.cluster import herder_api
from connect_runtime.cluster.herder_api import ConnectorInfo, ConnectorStateInfo, StateInfo, TaskStateInfo
from connect_runtime.types import ConnectorTaskId, TargetState
from rest.models import (
    ConnectorExpansion,
    ConnectorInfoModel,
    ConnectorStateInfoModel,
    connector_info_json,
    connector_status_json,
)

#: Characters JSON encoders disagree on most: controls, DEL, quotes, backslash, line separators, non-ASCII.
TRICKY = "".join(chr(c) for c in range(0x20)) + '\x7f"\\/\u2028\u2029é€😀'


def _ordered(value: Any) -> str:
    """A rendering in which the order of keys counts."""
    return json.dumps(value, ensure_ascii=False)


def _states() -> list[StateInfo]:
    return [StateInfo("RUNNING", "w:1", trace, version=version)
            for trace in (None, "", "boom\n\tat x")
            for version in (None, "", "undefined", "3.9.1")]


def test_status_rendering_is_the_models() -> None:
    states = _states()
    tasks = [TaskStateInfo(s.state, s.worker_id, s.trace, i, version=s.version) for i, s in enumerate(states)]
    for conn in states:
        for task_list in ([], tasks[:1], tasks):
            status = ConnectorStateInfo(TRICKY, conn, task_list, "sink")
            assert _ordered(connector_status_json(status)) == _ordered(
                ConnectorStateInfoModel.from_entity(status).to_json())


def test_info_rendering_is_the_models() -> None:
    for config, tasks in (({}, []), ({"name": "a", TRICKY: TRICKY, "b": ""}, [ConnectorTaskId("a", 0),
                                                                              ConnectorTaskId("a", 7)])):
        info = ConnectorInfo("a", config, tasks, "unknown")
        rendered = connector_info_json(info)
        assert _ordered(rendered) == _ordered(ConnectorInfoModel.from_entity(info).to_json())
        assert rendered["config"] is not config  # a copy, as the model's


class _CountingHerder(FakeHerder):
    """Fails the per-connector reads: a list must read all connectors at once."""

    def __init__(self) -> None:
        super().__init__()
        self.expanded: list[tuple[bool, bool]] = []

    def connectors_expanded(self, status: bool, info: bool) -> Future[dict[str, herder_api.ExpandedConnector]]:
        self.expanded.append((status, info))
        return super().connectors_expanded(status, info)

    def connector_status(self, name: str) -> Future[herder_api.ConnectorStateInfo]:
        raise AssertionError(f"per-connector status read of {name}")

    def connector_info(self, name: str) -> Future[herder_api.ConnectorInfo]:
        raise AssertionError(f"per-connector info read of {name}")


@pytest.fixture
def herder() -> FakeHerder:
    herder = _CountingHerder()
    for i, name in enumerate(["c", "a", TRICKY, "b"]):
        herder.connectors_by_name[name] = FakeConnector(
            config={"name": name, "connector.class": SOURCE_CLASS, TRICKY: TRICKY, "k": str(i)},
            target=TargetState.PAUSED if i % 2 else TargetState.STARTED, tasks=i, failed=i == 3)
    return herder


def _as_models_rendered(herder: FakeHerder, expand: list[str]) -> bytes:
    """The body as JSONResponse wrote it when each connector went through the response models."""
    out: dict[str, Any] = {}
    for name in sorted(herder.connectors_by_name):
        values: dict[str, Any] = {}
        for expansion in expand:
            if expansion == "status":
                values["status"] = ConnectorStateInfoModel.from_entity(herder._status(name))
            elif expansion == "info":
                values["info"] = ConnectorInfoModel.from_entity(herder._info(name))
        out[name] = ConnectorExpansion(**values).model_dump(mode="json", by_alias=True, exclude_unset=True)
    return json.dumps(out, ensure_ascii=False, allow_nan=False, indent=None, separators=(",", ":")).encode()


@pytest.mark.parametrize(("expand", "reads"), [
    (["status"], (True, False)),
    (["info"], (False, True)),
    (["status", "info"], (True, True)),
    (["info", "status", "info"], (True, True)),
    (["bogus", "status"], (True, False)),
    (["bogus"], (False, False)),
    (["status,info"], (False, False)),  # as Java: one value is one expansion, this one unknown
    ([""], (False, False)),
])
def test_list_reads_once_and_answers_the_same_bytes(client: TestClient, herder: _CountingHerder,
                                                    expand: list[str], reads: tuple[bool, bool]) -> None:
    resp = client.get("/connectors", params=[("expand", e) for e in expand])

    assert resp.status_code == 200
    assert resp.headers["content-type"] == "application/json"
    assert resp.content == _as_models_rendered(herder, expand)
    assert herder.expanded == [reads]


def test_unknown_expansions_are_logged_once_per_request(client: TestClient, herder: FakeHerder,
                                                        caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="rest.routers.connectors"):
        client.get("/connectors", params=[("expand", "bogus"), ("expand", "status"), ("expand", "bogus"),
                                          ("expand", "status,info")])
    ignored = [r.getMessage() for r in caplog.records if r.getMessage().startswith("Ignoring")]
    assert ignored == ["Ignoring unknown expansion type bogus", "Ignoring unknown expansion type status,info"]


def test_list_without_expand_reads_names_only(client: TestClient, herder: _CountingHerder) -> None:
    assert client.get("/connectors").json() == sorted(herder.connectors_by_name)
    assert herder.expanded == []
