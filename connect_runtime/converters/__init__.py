"""The built-in converters: Kafka Connect's JSON, string and byte-array converters (each also a header
converter) and its ``SimpleHeaderConverter`` (a header converter only), and Confluent's schema
registry converters under their Java names (``schema_registry``).

``BUILTIN_CONVERTERS`` maps every name a worker or connector config may use for them (the Java
class name, the short alias and the Python qualified names) to the class.
"""

from __future__ import annotations

from typing import Final

from connect_runtime.api.converter import Converter, HeaderConverter
from connect_runtime.converters.bytearray_converter import ByteArrayConverter
from connect_runtime.converters.json_converter import JsonConverter
from connect_runtime.converters.schema_registry.avro_converter import AvroConverter
from connect_runtime.converters.schema_registry.json_schema_converter import JsonSchemaConverter
from connect_runtime.converters.schema_registry.protobuf_converter import ProtobufConverter
from connect_runtime.converters.simple_header_converter import SimpleHeaderConverter
from connect_runtime.converters.string_converter import StringConverter

__all__ = [
    "BUILTIN_CONVERTERS",
    "AvroConverter",
    "ByteArrayConverter",
    "JsonConverter",
    "JsonSchemaConverter",
    "ProtobufConverter",
    "SimpleHeaderConverter",
    "StringConverter",
]


def _names(cls: type[Converter | HeaderConverter], java_name: str) -> dict[str, type[Converter | HeaderConverter]]:
    return {
        java_name: cls,
        cls.__name__: cls,
        f"connect_runtime.converters.{cls.__name__}": cls,
        f"{cls.__module__}.{cls.__qualname__}": cls,
    }


#: Accepted converter names (Java class, short alias, Python qualified names) -> class.
BUILTIN_CONVERTERS: Final[dict[str, type[Converter | HeaderConverter]]] = {
    **_names(JsonConverter, "org.apache.kafka.connect.json.JsonConverter"),
    **_names(StringConverter, "org.apache.kafka.connect.storage.StringConverter"),
    **_names(ByteArrayConverter, "org.apache.kafka.connect.converters.ByteArrayConverter"),
    **_names(SimpleHeaderConverter, "org.apache.kafka.connect.storage.SimpleHeaderConverter"),
    **_names(AvroConverter, "io.confluent.connect.avro.AvroConverter"),
    **_names(JsonSchemaConverter, "io.confluent.connect.json.JsonSchemaConverter"),
    **_names(ProtobufConverter, "io.confluent.connect.protobuf.ProtobufConverter"),
}
