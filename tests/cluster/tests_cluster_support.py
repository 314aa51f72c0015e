"""Reading the config topic to see what the cluster's leader wrote."""

from __future__ import annotations

import json
from typing import Any

from connect_runtime.testing.cluster import read_committed


def config_records(bootstrap: str, config_topic: str) -> list[tuple[str, bytes | None]]:
    return [(k.decode(), v) for k, v in read_committed(bootstrap, config_topic) if k is not None]


def leader_record(bootstrap: str, config_topic: str) -> dict[str, Any] | None:
    """The latest committed ``leader`` record."""
    latest = None
    for key, value in config_records(bootstrap, config_topic):
        if key == "leader" and value is not None:
            latest = json.loads(value)
    return latest
