"""What a source connector declares about exactly-once delivery (KIP-618)."""

from enum import Enum


class ExactlyOnceSupport(Enum):
    """Whether a connector can deliver exactly once with a given configuration."""

    SUPPORTED = "SUPPORTED"
    UNSUPPORTED = "UNSUPPORTED"


class ConnectorTransactionBoundaries(Enum):
    """Whether a connector can define its own transaction boundaries (``transaction.boundary=connector``)."""

    SUPPORTED = "SUPPORTED"
    UNSUPPORTED = "UNSUPPORTED"
