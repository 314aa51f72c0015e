"""Settings every Kafka client of the runtime shares."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

#: librdkafka's own log lines are routed here (instead of raw stderr), so ``/admin/loggers`` and the
#: worker's logging configuration govern them like every other runtime logger.
KAFKA_CLIENT_LOGGER = logging.getLogger("connect_runtime.kafka_client")


def client_config(conf: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of ``conf`` with the runtime's shared client settings added."""
    out = dict(conf)
    out.setdefault("logger", KAFKA_CLIENT_LOGGER)
    return out
