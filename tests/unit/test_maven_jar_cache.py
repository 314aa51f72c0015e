"""local_kafka's fetch-once Maven jar cache for any set of artifacts (used for the broker and for the
Java Connect benchmark): the pom it writes and the cache hit that needs no mvn."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from connect_runtime.testing import local_kafka
from connect_runtime.testing.local_kafka import KAFKA_VERSION, LocalKafkaError, ensure_maven_jars

_NS = {"m": "http://maven.apache.org/POM/4.0.0"}


def _deps(pom: str) -> list[tuple[str, str, str]]:
    root = ET.fromstring(pom)
    return [(d.findtext("m:groupId", namespaces=_NS) or "", d.findtext("m:artifactId", namespaces=_NS) or "",
             d.findtext("m:version", namespaces=_NS) or "")
            for d in root.findall("m:dependencies/m:dependency", _NS)]


def test_pom_lists_the_given_dependencies() -> None:
    assert _deps(local_kafka._pom()) == list(local_kafka.BROKER_DEPENDENCIES)
    deps = (("org.apache.kafka", "connect-runtime", KAFKA_VERSION), ("g", "a", "1.0"))
    pom = local_kafka._pom(deps, "kafka-connect-classpath")
    assert _deps(pom) == list(deps)
    assert ET.fromstring(pom).findtext("m:artifactId", namespaces=_NS) == "kafka-connect-classpath"


def test_a_complete_cache_needs_no_mvn(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    cache = tmp_path / "cache"
    (cache / "libs").mkdir(parents=True)
    (cache / "libs" / "connect-runtime-x.jar").write_bytes(b"")
    (cache / ".complete").write_text(json.dumps({"kafka_version": KAFKA_VERSION, "jars": ["connect-runtime-x.jar"]}))
    deps = (("org.apache.kafka", "connect-runtime", KAFKA_VERSION),)
    assert ensure_maven_jars(cache, deps, "connect-runtime-", "c", version=KAFKA_VERSION) == (cache / "libs").resolve()
    (cache / "libs" / "connect-runtime-x.jar").unlink()  # incomplete: a fetch is needed, and mvn is missing
    with pytest.raises(LocalKafkaError) as info:
        ensure_maven_jars(cache, deps, "connect-runtime-", "c", version=KAFKA_VERSION)
    assert info.value.message.startswith("mvn was not found on PATH;")
