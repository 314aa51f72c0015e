"""The built-in single message transforms and predicates, under the Java class names of their Apache
Kafka counterparts.

``BUILTIN_TRANSFORMS`` and ``BUILTIN_PREDICATES`` map the Java class name
(``org.apache.kafka.connect.transforms.Cast$Value``) to the class implementing it here, so connector
configs written for a Java cluster work unchanged; the plugin registry also makes each answer to its
simple name (``RegexRouter``, ``InsertField$Value``) and its Python qualified name. All work on
schemaless data (keys and values are plain Python values); ``ReplaceField``, ``InsertField``,
``MaskField``, ``ValueToKey``, ``ExtractField``, ``HoistField``, ``Cast``, ``Flatten``,
``TimestampConverter`` and ``SetSchemaMetadata`` also on records with schemas (Structs, and for
``Cast`` and ``TimestampConverter`` whole primitive and logical values), as Java's do. Each module's
docstring says where behaviour differs from Java.

``HeaderFrom`` takes Structs with their schemas too, and gives each header its field's schema;
``InsertHeader`` gives its literal the schema ``Values.parse_string`` infers.
"""

from __future__ import annotations

from typing import Final

from connect_runtime.api.transformation import Predicate, Transformation
from connect_runtime.transforms.cast import CastKey, CastValue
from connect_runtime.transforms.drop_headers import DropHeaders
from connect_runtime.transforms.extract_field import ExtractFieldKey, ExtractFieldValue
from connect_runtime.transforms.filter import Filter
from connect_runtime.transforms.flatten import FlattenKey, FlattenValue
from connect_runtime.transforms.header_from import HeaderFromKey, HeaderFromValue
from connect_runtime.transforms.hoist_field import HoistFieldKey, HoistFieldValue
from connect_runtime.transforms.insert_field import InsertField, InsertFieldKey, InsertFieldValue
from connect_runtime.transforms.insert_header import InsertHeader
from connect_runtime.transforms.mask_field import MaskFieldKey, MaskFieldValue
from connect_runtime.transforms.predicates import HasHeaderKey, RecordIsTombstone, TopicNameMatches
from connect_runtime.transforms.regex_router import RegexRouter
from connect_runtime.transforms.replace_field import ReplaceFieldKey, ReplaceFieldValue
from connect_runtime.transforms.set_schema_metadata import SetSchemaMetadataKey, SetSchemaMetadataValue
from connect_runtime.transforms.timestamp_converter import TimestampConverterKey, TimestampConverterValue
from connect_runtime.transforms.timestamp_router import TimestampRouter
from connect_runtime.transforms.value_to_key import ValueToKey

__all__ = [
    "BUILTIN_PREDICATES",
    "BUILTIN_TRANSFORMS",
    "JAVA_TRANSFORMS_PACKAGE",
]

JAVA_TRANSFORMS_PACKAGE: Final = "org.apache.kafka.connect.transforms."
_J = JAVA_TRANSFORMS_PACKAGE

#: Java class name -> built-in transformation. Abstract bases (``InsertField``) are listed so that
#: naming one gets the reference's "abstract ... Did you mean ...$Key, ...$Value?" error.
BUILTIN_TRANSFORMS: Final[dict[str, type[Transformation]]] = {
    _J + "Cast$Key": CastKey,
    _J + "Cast$Value": CastValue,
    _J + "DropHeaders": DropHeaders,
    _J + "ExtractField$Key": ExtractFieldKey,
    _J + "ExtractField$Value": ExtractFieldValue,
    _J + "Filter": Filter,
    _J + "Flatten$Key": FlattenKey,
    _J + "Flatten$Value": FlattenValue,
    _J + "HeaderFrom$Key": HeaderFromKey,
    _J + "HeaderFrom$Value": HeaderFromValue,
    _J + "HoistField$Key": HoistFieldKey,
    _J + "HoistField$Value": HoistFieldValue,
    _J + "InsertField": InsertField,  # type: ignore[type-abstract]
    _J + "InsertField$Key": InsertFieldKey,
    _J + "InsertField$Value": InsertFieldValue,
    _J + "InsertHeader": InsertHeader,
    _J + "MaskField$Key": MaskFieldKey,
    _J + "MaskField$Value": MaskFieldValue,
    _J + "RegexRouter": RegexRouter,
    _J + "ReplaceField$Key": ReplaceFieldKey,
    _J + "ReplaceField$Value": ReplaceFieldValue,
    _J + "SetSchemaMetadata$Key": SetSchemaMetadataKey,
    _J + "SetSchemaMetadata$Value": SetSchemaMetadataValue,
    _J + "TimestampConverter$Key": TimestampConverterKey,
    _J + "TimestampConverter$Value": TimestampConverterValue,
    _J + "TimestampRouter": TimestampRouter,
    _J + "ValueToKey": ValueToKey,
}

#: Java class name -> built-in predicate.
BUILTIN_PREDICATES: Final[dict[str, type[Predicate]]] = {
    _J + "predicates.HasHeaderKey": HasHeaderKey,
    _J + "predicates.RecordIsTombstone": RecordIsTombstone,
    _J + "predicates.TopicNameMatches": TopicNameMatches,
}
