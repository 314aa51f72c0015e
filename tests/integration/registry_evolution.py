"""The schema-evolution scenario every registry converter's end-to-end test runs, in one place: an
exactly-once every_type_source connector writes version 1 of its value schema, the subject is set to
BACKWARD, an optional field added registers version 2, and a required field added is refused by the
registry (409), which fails the task. Each test then decodes the topic in its format's terms and
hands what it read to :func:`check_evolved`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from confluent_kafka.schema_registry import SchemaRegistryClient

from connect_runtime.testing import ConnectClient, WorkerProcess, check_sequences
from connect_runtime.testing.cluster import end_offsets, plugin_path, stored_offsets, wait_until

PLUGINS_DIR = Path(__file__).resolve().parents[1] / "plugins"


def records_in(bootstrap: str, topic: str) -> int:
    """How many records ``topic`` holds (its end offsets summed)."""
    return sum(end_offsets(bootstrap, topic).values())


def one_schema_under(registry: SchemaRegistryClient, subject: str) -> str:
    """The one schema every version of ``subject`` holds; fails if two versions differ.

    Our converters register a schema once per task and restart (and reuse its id afterwards); two tasks
    registering a subject's first schema at the same moment can make Apicurio record it twice, as two
    versions with one id and one text, where Confluent's registry keeps one. Either way the subject
    holds one schema."""
    ids = {registry.get_version(subject, v).schema_id for v in registry.get_versions(subject)}
    assert len(ids) == 1, f"{subject} holds schemas {sorted(ids)}"
    return str(registry.get_latest_version(subject).schema.schema_str)


def evolve_then_break(kafka_bootstrap: str, registry_url: str, worker_factory: Callable[..., WorkerProcess],
                      connector: str, topic: str, config: Callable[[str], dict[str, str]],
                      expected_version_2: str) -> WorkerProcess:
    """Run the scenario on an exactly-once worker that loads tests/plugins; ``config(shape)`` is the
    connector's config writing ``topic`` with every_type_source's ``shape``. Returns the worker, stopped."""
    worker = worker_factory(eos="enabled", extra=plugin_path(PLUGINS_DIR))
    worker.wait_ready()
    subject = f"{topic}-value"
    registry = SchemaRegistryClient({"url": registry_url})
    with ConnectClient(worker.url) as client:
        client.create_connector(connector, config("order"))
        client.wait_running(connector, 1)
        wait_until(lambda: records_in(kafka_bootstrap, topic) > 50, 60, message="version 1 records")
        registry.set_compatibility(subject, "BACKWARD")

        client.put_connector_config(connector, config("with_note"))
        wait_until(lambda: registry.get_versions(subject) == [1, 2], 60, message="version 2 registered")
        assert registry.get_version(subject, 2).schema.schema_str == expected_version_2
        written = records_in(kafka_bootstrap, topic)
        wait_until(lambda: records_in(kafka_bootstrap, topic) > written + 50, 60, message="version 2 records")

        client.put_connector_config(connector, config("breaking"))
        failed = client.wait_task_state(connector, 0, "FAILED")
        assert "HTTP 409" in failed["trace"] and "Incompatible" in failed["trace"], failed["trace"]
        assert f"registering a schema under subject {subject}" in failed["trace"]
        assert registry.get_versions(subject) == [1, 2]
        assert worker.stop() == 0, worker.log_tail()
    return worker


def check_evolved(kafka_bootstrap: str, worker: WorkerProcess, connector: str,
                  records: list[tuple[int, int, bool]]) -> None:
    """``records`` (task, seqno, whether the value has version 2's field) read back in order: version 1
    values, then version 2 ones, exactly once, with the stored offsets at the last one."""
    shapes = [noted for _, _, noted in records]
    assert shapes == sorted(shapes) and shapes[0] is False and shapes[-1] is True  # v1 records, then v2
    report = check_sequences((task, seqno) for task, seqno, _ in records)
    assert report.exactly_once, report.summary()
    assert stored_offsets(kafka_bootstrap, worker.props["offset.storage.topic"], connector) == report.max_seqno
