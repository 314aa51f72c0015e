"""Which cluster a fencing round uses: the task producers' one, never the worker's as a fallback (no broker)."""

from __future__ import annotations

import traceback
from types import SimpleNamespace

import pytest

from connect_runtime.api.errors import ConnectException
from connect_runtime.cluster.fencing import FENCE_FAILED, fencing_producer_settings
from connect_runtime.composition import compose_worker
from connect_runtime.config.worker_config import WorkerConfig
from connect_runtime.config.worker_plugins import WorkerPlugins

WORKER = {"bootstrap.servers": "worker-cluster:9092", "group.id": "g", "config.storage.topic": "c",
          "offset.storage.topic": "o", "status.storage.topic": "s"}


def test_a_config_that_does_not_parse_fails_the_round_instead_of_using_the_worker_cluster() -> None:
    """tasks.max is not a number: the round must fail (naming the connector), not fence on the worker's
    cluster while the tasks' producers write to ``producer.override.bootstrap.servers``."""
    config = WorkerConfig.from_properties(WORKER)
    worker = SimpleNamespace(worker_plugins=WorkerPlugins.without_providers(config))
    props = {"name": "src", "connector.class": "VerifiableSource", "tasks.max": "many",
             "producer.override.bootstrap.servers": "task-cluster:9092"}
    with pytest.raises(ConnectException) as info:
        fencing_producer_settings(worker, props)  # type: ignore[arg-type]
    assert str(info.value).startswith(FENCE_FAILED.format("src") + ": ")
    assert "tasks.max" in str(info.value)


def test_the_failed_round_never_shows_a_value_a_provider_resolved(monkeypatch: pytest.MonkeyPatch) -> None:
    """A parse error quoting a resolved value (here tasks.max from an environment variable) shows the
    placeholder, in the error and in its cause."""
    monkeypatch.setenv("FENCE_TEST_SECRET", "hunter2secret")
    composed = compose_worker({**WORKER, "config.providers": "env",
                               "config.providers.env.class": "EnvVarConfigProvider"})
    worker = SimpleNamespace(worker_plugins=composed.plugins)
    props = {"name": "src", "connector.class": "VerifiableSource", "tasks.max": "${env:FENCE_TEST_SECRET}"}
    with pytest.raises(ConnectException) as info:
        fencing_producer_settings(worker, props)  # type: ignore[arg-type]
    shown = "".join(traceback.format_exception(info.value))  # what a log line with its trace would show
    assert "tasks.max" in shown and "hunter2secret" not in shown
    composed.close()
