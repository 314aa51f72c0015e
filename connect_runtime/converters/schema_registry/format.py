"""What a schema format gives the registry converter: Connect schemas mapped to registry schemas, and
values encoded and decoded with them.

The converter (``registry_converter``) owns everything about the registry (subjects, ids, caches,
retries, the 5-byte header); a format owns only the mapping, so Avro, JSON Schema and Protobuf share
one tested path to the registry.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from connect_runtime.api.config_def import ConfigDef
from connect_runtime.api.data.schema import Field, Schema
from connect_runtime.api.data.struct import Struct
from connect_runtime.api.errors import ConfigException


class FormatSchema(ABC):
    """One schema in a format: its registry text, its Connect schema and its compiled codec.

    Instances are immutable and cached by the converter (per Connect schema when writing, per
    registry id when reading), so whatever compiling a codec costs is paid once per schema.
    """

    #: The schema as registered: the exact text the format writes (registries compare text).
    text: str
    #: The Connect schema values are encoded from and decoded to.
    connect_schema: Schema
    #: The fully qualified record / message name the Record and TopicRecord subject name strategies
    #: use, or None when the schema has none (a primitive), which those strategies refuse.
    record_name: str | None

    @abstractmethod
    def encode(self, value: Any) -> bytes:
        """The payload after the 5-byte header for a Connect ``value`` of :attr:`connect_schema`.

        Raises ``DataException`` when the value does not fit the schema.
        """

    @abstractmethod
    def decode(self, payload: bytes | memoryview) -> Any:
        """The Connect value of :attr:`connect_schema` for a payload (the bytes after the header)."""

    def for_payload(self, payload: bytes | memoryview) -> FormatSchema:
        """The schema of the message a payload holds, when a registry schema holds several (Protobuf's
        message indexes name one message of the file); this schema itself for the other formats."""
        return self

    def reads(self, writer: FormatSchema) -> bool | None:
        """Whether data written with ``writer`` can be read with this schema (Java's
        ``isBackwardCompatible``), which ``latest.compatibility.strict`` checks before writing with the
        subject's latest version; None when the format cannot tell (then the converter refuses to write
        with the latest version unless ``latest.compatibility.strict=false``)."""
        return None


class SchemaFormat(ABC):
    """A schema language the registry stores (Avro, JSON Schema, Protobuf) and its data config."""

    #: The registry's name for the format: ``AVRO``, ``JSON`` or ``PROTOBUF``.
    schema_type: ClassVar[str]

    @abstractmethod
    def config_def(self) -> ConfigDef:
        """The format's own settings (its ``*DataConfig`` keys: ``connect.meta.data``,
        ``enhanced.avro.schema.support``, ``schemas.cache.config``, ...), added to the converter's."""

    @abstractmethod
    def configure(self, configs: Mapping[str, Any]) -> None:
        """Apply the format's settings (raising ``ConfigException`` naming a key it does not honour)."""

    @abstractmethod
    def from_connect(self, schema: Schema) -> FormatSchema:
        """The registry schema Confluent's converter would register for a Connect ``schema``."""

    @abstractmethod
    def from_registry(self, text: str, version: int | None) -> FormatSchema:
        """A schema read from the registry (by id, or the subject's latest with ``use.latest.version``),
        mapped to Connect as Confluent's converter maps it; ``version`` is the registry's version of it
        when known (the Connect schema's version when the schema itself names none)."""


class StructFiller:
    """Fills Structs of one schema on a format's per-record read path: a value of exactly its field's
    plain class (and range) is stored as it is, as ``Struct.put`` would store it after its own check;
    any other value goes through ``Struct.put`` and its validation."""

    __slots__ = ("_checks",)

    def __init__(self, schema: Schema) -> None:
        self._checks: list[tuple[Field, int, type | None, tuple[int, int] | None]] = [
            (field, field.index, field.schema._plain_class, field.schema._plain_range) for field in schema.fields]

    def fill(self, struct: Struct, values: Sequence[Any]) -> Struct:
        """Put ``values`` (one per field, in field order; None leaves a field as it is) into ``struct``."""
        stored = struct._values
        for check, value in zip(self._checks, values):  # noqa: B905 - one value per field, by construction
            if value is not None:
                if value.__class__ is check[2] and (check[3] is None or check[3][0] <= value <= check[3][1]):  # type: ignore[operator]
                    stored[check[1]] = value
                else:
                    struct.put(check[0], value)
        return struct


def parse_data_settings(definition: ConfigDef, configs: Mapping[str, Any],
                        unsupported: Mapping[str, str]) -> dict[str, Any]:
    """A format's data settings from a converter's ``configs`` (keys ``definition`` does not define are
    the converter's, and ignored), refusing with ``ConfigException`` naming the key each boolean
    setting of ``unsupported`` (key -> why) that is set to true."""
    values = definition.parse({key: value for key, value in configs.items() if key in definition.keys})
    for key, why in unsupported.items():
        if values[key]:
            raise ConfigException(key, configs.get(key), why)
    return values
