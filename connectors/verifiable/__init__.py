"""VerifiableSource: a sequence-number source for testing delivery guarantees (as Kafka's own
``VerifiableSourceConnector``). Each task emits seqno 0, 1, 2, ... with source partition
``{"id": <task>}`` and offset ``{"seqno": n}`` and resumes at the stored seqno + 1."""

from connectors.verifiable.connector import VerifiableSourceConnector, VerifiableSourceTask

__all__ = ["VerifiableSourceConnector", "VerifiableSourceTask"]
