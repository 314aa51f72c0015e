"""The metric table against Java's own source: ``ConnectMetricsRegistry.java`` and ``WorkerCoordinator.java``
read from the ``connect-runtime`` sources jar of the broker's Kafka release (fetched once with ``mvn`` into
a cache next to the broker's jars), so names, tags and descriptions are compared with Java's, not with a copy.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

from connect_runtime.metrics import registry
from connect_runtime.metrics.registry import METRICS
from connect_runtime.testing.java_connect import CONNECT_REFERENCE_VERSION
from connect_runtime.testing.java_service import cache_root
from connect_runtime.testing.launcher import file_lock

_RUNTIME = "org/apache/kafka/connect/runtime/"
# Java's groups this runtime leaves out: it runs source connectors only
_LEFT_OUT = {"sink-task-metrics", "connector-transform-metrics", "connector-predicate-metrics"}

Row = tuple[str, str, tuple[str, ...], str]


def _sources_jar() -> Path:
    cache = cache_root() / f"connect-runtime-sources-{CONNECT_REFERENCE_VERSION}"
    jar = cache / f"connect-runtime-{CONNECT_REFERENCE_VERSION}-sources.jar"
    with file_lock(cache / ".lock"):
        if not jar.exists():
            mvn = shutil.which("mvn")
            if mvn is None:
                pytest.fail("mvn is needed to fetch Java's sources (./dev setup installs it)")
            subprocess.run(
                [mvn, "-q", "-B", "dependency:copy",
                 f"-Dartifact=org.apache.kafka:connect-runtime:{CONNECT_REFERENCE_VERSION}:jar:sources",
                 f"-DoutputDirectory={cache}"],
                cwd=cache, stdin=subprocess.DEVNULL, capture_output=True, check=True,
            )
    return jar


@pytest.fixture(scope="module")
def java_sources() -> dict[str, str]:
    with zipfile.ZipFile(_sources_jar()) as jar:
        return {name: jar.read(_RUNTIME + name).decode("utf-8")
                for name in ("ConnectMetricsRegistry.java", "distributed/WorkerCoordinator.java")}


def _java_strings(expression: str) -> str:
    """The concatenation of the Java string literals in ``expression``."""
    return "".join(bytes(s, "utf-8").decode("unicode_escape") for s in re.findall(r'"((?:[^"\\]|\\.)*)"', expression))


def _registry_rows(source: str) -> set[Row]:
    constants = dict(re.findall(r'public static final String (\w+) = "([^"]*)";', source))
    tag_sets: dict[str, list[str]] = {}
    for name in re.findall(r"Set<String> (\w+) = new LinkedHashSet<>\(tags\);", source):
        tag_sets[name] = []
    for target, op, arg in re.findall(r"(\w+)\.(add|addAll)\((\w+)\);", source):
        if target in tag_sets:
            tag_sets[target] += tag_sets[arg] if op == "addAll" else [constants[arg]]
    rows = set()
    for m in re.finditer(r'createTemplate\(\s*"([^"]+)",\s*(\w+),\s*((?:"(?:[^"\\]|\\.)*"\s*\+?\s*)+),\s*(\w+)\)',
                         source):
        rows.add((constants[m.group(2)], m.group(1), tuple(tag_sets[m.group(4)]), _java_strings(m.group(3)).strip()))
    return rows


def test_the_table_is_javas_registry(java_sources: dict[str, str]) -> None:
    java = {row for row in _registry_rows(java_sources["ConnectMetricsRegistry.java"]) if row[0] not in _LEFT_OUT}
    assert len(java) > 60  # the parser found Java's templates
    ours = {(m.group, m.name, m.tags, m.description) for m in METRICS if m.group != registry.COORDINATOR_GROUP}
    assert ours == java


def test_the_coordinator_metrics_are_javas(java_sources: dict[str, str]) -> None:
    source = java_sources["distributed/WorkerCoordinator.java"]
    java = {(name, _java_strings(doc)) for name, doc in
            re.findall(r'metricName\("([^"]+)",\s*[\w.]+,\s*((?:"(?:[^"\\]|\\.)*"\s*\+?\s*)+)\)', source)}
    ours = {(m.name, m.description) for m in registry.group_metrics(registry.COORDINATOR_GROUP)}
    assert ours == java
