"""The built-in single message transforms and predicates, under the Java class names of their Apache
Kafka counterparts.

``BUILTIN_TRANSFORMS`` and ``BUILTIN_PREDICATES`` map the Java class name to the class; the plugin
registry also makes each answer to its simple name (``RegexRouter``, ``InsertField$Value``) and its
Python qualified name.
"""

from __future__ import annotations

from typing import Final

from connect_runtime.api.transformation import Predicate, Transformation
from connect_runtime.transforms.filter import Filter
from connect_runtime.transforms.insert_field import InsertField, InsertFieldKey, InsertFieldValue
from connect_runtime.transforms.predicates import HasHeaderKey, RecordIsTombstone, TopicNameMatches
from connect_runtime.transforms.regex_router import RegexRouter

__all__ = [
    "BUILTIN_PREDICATES",
    "BUILTIN_TRANSFORMS",
    "JAVA_TRANSFORMS_PACKAGE",
    "Filter",
    "HasHeaderKey",
    "InsertField",
    "InsertFieldKey",
    "InsertFieldValue",
    "RecordIsTombstone",
    "RegexRouter",
    "TopicNameMatches",
]

JAVA_TRANSFORMS_PACKAGE: Final = "org.apache.kafka.connect.transforms."
_J = JAVA_TRANSFORMS_PACKAGE

#: Java class name -> built-in transformation. Abstract bases (``InsertField``) are listed so that
#: naming one gets the reference's "abstract ... Did you mean ...$Key, ...$Value?" error.
BUILTIN_TRANSFORMS: Final[dict[str, type[Transformation]]] = {
    _J + "Filter": Filter,
    _J + "InsertField": InsertField,  # type: ignore[type-abstract]
    _J + "InsertField$Key": InsertFieldKey,
    _J + "InsertField$Value": InsertFieldValue,
    _J + "RegexRouter": RegexRouter,
}

#: Java class name -> built-in predicate.
BUILTIN_PREDICATES: Final[dict[str, type[Predicate]]] = {
    _J + "predicates.HasHeaderKey": HasHeaderKey,
    _J + "predicates.RecordIsTombstone": RecordIsTombstone,
    _J + "predicates.TopicNameMatches": TopicNameMatches,
}
