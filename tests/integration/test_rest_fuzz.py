"""Property-based fuzzing of the REST API from its own OpenAPI spec (schemathesis), against a real worker
process on the real broker: ``GET /openapi.json`` is the contract.

Every documented operation gets generated requests, valid ones and invalid ones (wrong types, missing
fields, odd path parameters, bodies that break the schema); each response must not be a 5xx, must
have a documented status code and content type, and its body must match the documented schema. After
the run the worker must still be alive and healthy, with its memory not blown up.

The budget is fixed (:data:`EXAMPLES` per operation and mode, derandomized so that every run sends the
same requests and a failure reproduces) so the run stays within about a minute on a loaded 2-core machine.
``FUZZ_EXAMPLES=150 FUZZ_RANDOM=1`` explores further (about 3 minutes).
"""

from __future__ import annotations

import os
import time
import uuid
from typing import Any

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)
from worker_memory import rss_kb

from connect_runtime.testing.cluster import ConnectClient, WorkerProcess

pytestmark = [pytest.mark.kafka, pytest.mark.fuzz, pytest.mark.connect_worker(eos="disabled")]

#: Generated requests per operation and generation mode (positive, negative).
EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "20"))
#: Set ``FUZZ_RANDOM`` to draw new requests each run (a longer exploration, with ``FUZZ_EXAMPLES`` raised).
FRESH_EXAMPLES = os.environ.get("FUZZ_RANDOM") is not None
#: A running connector every ``{connector}`` operation is also fuzzed against (random names are all 404s).
CONNECTOR = "fuzzed"
#: How much the worker's resident memory may grow over the run.
RSS_GROWTH_LIMIT_KB = 128 * 1024
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]


def test_fuzzing_the_openapi_contract_finds_no_server_error(worker: WorkerProcess) -> None:
    ConnectClient(worker.url).create_connector(CONNECTOR, {
        "connector.class": "VerifiableSource", "topic": f"fuzz-{uuid.uuid4().hex[:6]}", "throughput": "1",
        "topic.creation.default.replication.factor": "1", "topic.creation.default.partitions": "1"})
    schema = schemathesis.openapi.from_url(f"{worker.url}/openapi.json")
    before = rss_kb(worker)
    started = time.monotonic()
    failures: list[str] = []
    operations = 0
    for result in schema.get_all_operations():
        operation = result.ok()
        operations += 1
        runs: list[tuple[str, dict[str, Any]]] = [
            (mode.value, {"generation_mode": mode}) for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE)]
        if "{connector}" in operation.path and operation.label != "DELETE /connectors/{connector}":
            runs.append(("existing connector", {"path_parameters": {"connector": CONNECTOR}}))
        for label, options in runs:

            @settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=not FRESH_EXAMPLES,
                      phases=[Phase.explicit, Phase.generate], suppress_health_check=list(HealthCheck))
            @given(case=operation.as_strategy(**options))
            def fuzz(case: schemathesis.Case) -> None:
                case.call_and_validate(base_url=worker.url, checks=CHECKS, timeout=30)

            try:
                fuzz()
            except Unsatisfiable:
                # Nothing of this operation can break its schema (string path parameters, no body).
                assert options.get("generation_mode") is GenerationMode.NEGATIVE, operation.label
            except (KeyboardInterrupt, SystemExit):
                raise
            except BaseException as e:  # schemathesis raises a group; collected: one run reports every break
                failures.append(f"{operation.label} [{label}]: {e}")
    elapsed = time.monotonic() - started
    assert operations >= 28, f"only {operations} operations in the spec"
    assert not failures, "\n\n".join(failures)
    assert worker.proc is not None and worker.proc.poll() is None, worker.log_tail()
    assert httpx.get(f"{worker.url}/health", timeout=10).status_code == 200
    assert "Uncaught exception in REST call" not in worker.log_path.read_text(errors="replace")
    growth = rss_kb(worker) - before
    assert growth < RSS_GROWTH_LIMIT_KB, f"the worker's RSS grew by {growth} kB over the run"
    assert elapsed < 240, f"the fuzz run took {elapsed:.0f} s"
