"""The subject a schema is registered under: Confluent's three subject name strategies.

Java picks one with ``key.subject.name.strategy`` / ``value.subject.name.strategy`` (a class name);
here each class name maps to a member of :class:`SubjectNameStrategy`, and the name is one pure
function of the topic, the role and the schema's record name.
"""

from __future__ import annotations

from enum import Enum
from typing import Final

from connect_runtime.api.errors import DataException

__all__ = ["STRATEGY_CLASS_NAMES", "SubjectNameStrategy", "subject_name"]

_PACKAGE: Final = "io.confluent.kafka.serializers.subject."


class SubjectNameStrategy(Enum):
    """How a subject is named (Confluent's ``SubjectNameStrategy`` implementations)."""

    #: ``<topic>-key`` / ``<topic>-value``: one schema history per topic (Connect's usual choice).
    TOPIC = _PACKAGE + "TopicNameStrategy"
    #: The record's full name: one history per record type, shared by every topic carrying it.
    RECORD = _PACKAGE + "RecordNameStrategy"
    #: ``<topic>-<record full name>``: several record types per topic, each with its own history.
    TOPIC_RECORD = _PACKAGE + "TopicRecordNameStrategy"

    @property
    def class_name(self) -> str:
        """The Java class name a config sets."""
        return self.value


#: Java class name -> strategy.
STRATEGY_CLASS_NAMES: Final[dict[str, SubjectNameStrategy]] = {s.class_name: s for s in SubjectNameStrategy}


def subject_name(strategy: SubjectNameStrategy, topic: str, is_key: bool, record_name: str | None) -> str:
    """The subject of a key (``is_key``) or value schema written to ``topic``.

    ``record_name`` is the schema's fully qualified record / message name, None for a schema without
    one (a primitive), which the Record strategies cannot name (Java raises there too).
    """
    if strategy is SubjectNameStrategy.TOPIC:
        return f"{topic}-key" if is_key else f"{topic}-value"
    if record_name is None:
        role = "key" if is_key else "value"
        raise DataException(
            f"The {role} schema for topic {topic} has no record name, which {strategy.class_name} needs to "
            f"name its subject; use {SubjectNameStrategy.TOPIC.class_name} for primitive {role}s")
    if strategy is SubjectNameStrategy.RECORD:
        return record_name
    return f"{topic}-{record_name}"
