"""The built-in single message transforms, registered under their Apache Kafka Connect class names.

``BUILTIN_TRANSFORMS`` maps each Java class name (``org.apache.kafka.connect.transforms.Cast$Value``)
to the class implementing it here, so connector configs written for a Java cluster work unchanged.
All work on schemaless data (keys and values are plain Python values); each module's docstring says
where behaviour differs from Java.
"""

from __future__ import annotations

from connect_runtime.api import Transformation
from connect_runtime.transforms.cast import CastKey, CastValue
from connect_runtime.transforms.drop_headers import DropHeaders
from connect_runtime.transforms.extract_field import ExtractFieldKey, ExtractFieldValue
from connect_runtime.transforms.flatten import FlattenKey, FlattenValue
from connect_runtime.transforms.header_from import HeaderFromKey, HeaderFromValue
from connect_runtime.transforms.hoist_field import HoistFieldKey, HoistFieldValue
from connect_runtime.transforms.insert_header import InsertHeader
from connect_runtime.transforms.mask_field import MaskFieldKey, MaskFieldValue
from connect_runtime.transforms.replace_field import ReplaceFieldKey, ReplaceFieldValue
from connect_runtime.transforms.set_schema_metadata import SetSchemaMetadataKey, SetSchemaMetadataValue
from connect_runtime.transforms.timestamp_converter import TimestampConverterKey, TimestampConverterValue
from connect_runtime.transforms.timestamp_router import TimestampRouter
from connect_runtime.transforms.value_to_key import ValueToKey

_JAVA = "org.apache.kafka.connect.transforms."

#: Java class name -> built-in transform class.
BUILTIN_TRANSFORMS: dict[str, type[Transformation]] = {
    _JAVA + "Cast$Key": CastKey,
    _JAVA + "Cast$Value": CastValue,
    _JAVA + "DropHeaders": DropHeaders,
    _JAVA + "ExtractField$Key": ExtractFieldKey,
    _JAVA + "ExtractField$Value": ExtractFieldValue,
    _JAVA + "Flatten$Key": FlattenKey,
    _JAVA + "Flatten$Value": FlattenValue,
    _JAVA + "HeaderFrom$Key": HeaderFromKey,
    _JAVA + "HeaderFrom$Value": HeaderFromValue,
    _JAVA + "HoistField$Key": HoistFieldKey,
    _JAVA + "HoistField$Value": HoistFieldValue,
    _JAVA + "InsertHeader": InsertHeader,
    _JAVA + "MaskField$Key": MaskFieldKey,
    _JAVA + "MaskField$Value": MaskFieldValue,
    _JAVA + "ReplaceField$Key": ReplaceFieldKey,
    _JAVA + "ReplaceField$Value": ReplaceFieldValue,
    _JAVA + "SetSchemaMetadata$Key": SetSchemaMetadataKey,
    _JAVA + "SetSchemaMetadata$Value": SetSchemaMetadataValue,
    _JAVA + "TimestampConverter$Key": TimestampConverterKey,
    _JAVA + "TimestampConverter$Value": TimestampConverterValue,
    _JAVA + "TimestampRouter": TimestampRouter,
    _JAVA + "ValueToKey": ValueToKey,
}

__all__ = ["BUILTIN_TRANSFORMS"]
