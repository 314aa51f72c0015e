"""Multi-process cluster tests (tests/cluster) use the shipped ``connect_cluster`` fixture
(connect_runtime.testing.pytest_plugin): workers of one group on the session's real broker that fail
over within seconds, killed at the end of each test."""

from __future__ import annotations

import pytest

from connect_runtime.testing.cluster import WorkerGroup


@pytest.fixture
def cluster(connect_cluster: WorkerGroup) -> WorkerGroup:
    """The tests' short name for the shipped ``connect_cluster`` fixture."""
    return connect_cluster
