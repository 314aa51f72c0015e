"""The converter every registry format shares: Confluent's wire format, subjects, ids and caches.

A record's bytes are ``[0][schema id: 4 bytes, big-endian][payload]``; the format
(:class:`~connect_runtime.converters.schema_registry.format.SchemaFormat`) maps the Connect schema to its
registry schema and writes the payload, and this class does the rest, as Java's
``AvroConverter`` / ``JsonSchemaConverter`` / ``ProtobufConverter`` share ``AbstractKafkaSchemaSerDe``.

The per-record path is shaped by its caches, so that once a schema is known a record costs one dict
lookup, the format's encode and a bytes concatenation, with no registry call:

1. the writer cache: (topic, the Connect schema object) -> (5-byte header, format schema); schemas
   are immutable, so the object's identity is enough, and most sources reuse one schema object;
2. on a miss, Connect schema (by equality) -> format schema, then (subject, schema text) -> id,
   and only then the registry (register, or look up with ``auto.register.schemas=false``);
3. reading: (topic, id) -> format schema, from the registry once per id and topic (the schema's
   version, which the Connect schema carries, is the one under the topic's subject).

``use.latest.version`` (with ``auto.register.schemas=false``, as Java) writes with the subject's latest
version instead; confluent-kafka's client caches that version for ``latest.cache.ttl.sec``, so such
writes skip cache 1 but still make no call per record.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, ClassVar, Final

from connect_runtime.api.config_def import ConfigDef
from connect_runtime.api.converter import CONVERTER_TYPE_CONFIG, Converter
from connect_runtime.api.data.schema import Schema
from connect_runtime.api.data.schema_and_value import SchemaAndValue
from connect_runtime.api.errors import ConnectException, DataException, RetriableException
from connect_runtime.converters.json_schema_encoding import LruCache
from connect_runtime.converters.schema_registry.format import FormatSchema, SchemaFormat
from connect_runtime.converters.schema_registry.registry_client import RegistryClient
from connect_runtime.converters.schema_registry.registry_config import RegistrySettings, registry_config_def
from connect_runtime.converters.schema_registry.subject_names import subject_name
from connect_runtime.version import runtime_version

__all__ = ["MAGIC_BYTE", "SchemaRegistryConverter"]

logger = logging.getLogger(__name__)

#: The first byte of Confluent's wire format (Java's ``MAGIC_BYTE``).
MAGIC_BYTE: Final = 0
_HEADER_SIZE: Final = 5


class SchemaRegistryConverter(Converter):
    """A converter writing and reading Confluent's schema registry wire format in the format of
    :attr:`format_class`.

    Settings (prefix stripped) are Java's serde keys: ``schema.registry.url`` (required, a
    comma-separated list), ``basic.auth.credentials.source`` (``URL``: credentials in the URL;
    ``USER_INFO``: ``basic.auth.user.info``), ``schema.registry.ssl.*`` (PEM or PKCS12 stores),
    ``auto.register.schemas``, ``use.latest.version``, ``latest.compatibility.strict``,
    ``key.subject.name.strategy`` / ``value.subject.name.strategy`` (Topic, Record, TopicRecord),
    ``max.schemas.per.subject``, ``latest.cache.size`` / ``latest.cache.ttl.sec``,
    ``http.connect.timeout.ms`` / ``http.read.timeout.ms``, ``request.header.*``, plus the format's own
    keys. A key Java defines that this runtime cannot honour is refused (see ``registry_config``).

    ``configure`` makes one quick registry call, so credentials the registry refuses fail the task at
    start; a registry that is down then is only logged, and records retry it. A null value is a
    tombstone (no registry call); a null for a required schema is a ``DataException``, as in Java.
    """

    #: The schema format; a subclass sets it (``SchemaFormat()`` takes no argument).
    format_class: ClassVar[type[SchemaFormat]]

    def __init__(self) -> None:
        self._format = self.format_class()
        self._is_key = False
        self._settings: RegistrySettings | None = None
        self._client: RegistryClient | None = None
        self._writers: dict[tuple[str, int], tuple[Schema, bytes, FormatSchema]] = {}
        self._format_schemas: LruCache[Schema, FormatSchema] = LruCache(1000)
        self._ids: LruCache[tuple[str, str], int] = LruCache(1000)
        self._readers: LruCache[tuple[str, int], FormatSchema] = LruCache(1000)
        self._latest: LruCache[tuple[str, int], FormatSchema] = LruCache(1000)
        self._latest_verdicts: LruCache[tuple[int, str], bool | None] = LruCache(1000)
        self._cache_size = 1000

    def version(self) -> str:
        """The runtime's version (Java's converters report Confluent's)."""
        return runtime_version()

    def config_def(self) -> ConfigDef:
        """Java's serde keys, then the format's own."""
        return registry_config_def().merge(self._format.config_def())

    def check_settings(self, configs: Mapping[str, Any], is_key: bool = False) -> RegistrySettings:
        """Parse the settings as :meth:`configure` does, raising ``ConfigException`` naming a refused
        one, without calling the registry: the worker checks a task's converters this way on its herder
        thread before the task's process starts, where a registry that hangs must not stall it."""
        # The runtime names the role only for header converters (Java's Plugins adds it for all).
        configs = {CONVERTER_TYPE_CONFIG: "key" if is_key else "value", **configs}
        values = self.config_def().parse(configs)
        settings = RegistrySettings.parse(values, configs)
        self._format.configure(configs)
        return settings

    def configure(self, configs: Mapping[str, Any], is_key: bool = False) -> None:
        """Parse the settings (a refused one raises ``ConfigException`` naming it), make the registry
        client and check that the registry accepts the credentials."""
        settings = self.check_settings(configs, is_key)
        self._is_key = is_key
        self._settings = settings
        size = self._cache_size = settings.max_schemas_per_subject
        self._format_schemas, self._ids, self._readers = LruCache(size), LruCache(size), LruCache(size)
        self._latest, self._latest_verdicts = LruCache(settings.latest_cache_size), LruCache(settings.latest_cache_size)
        self._writers = {}
        if self._client is not None:
            self._client.close()
        self._client = RegistryClient(settings, self._format.schema_type)
        self._client.check_access()

    # -- writing ---------------------------------------------------------------------------------------

    def from_connect_data(self, topic: str, value: Any, *, schema: Schema | None = None) -> bytes | None:
        """``[0][id][payload]`` for ``value`` of ``schema``, registering the schema when new."""
        if value is None:
            if schema is not None and not schema.is_optional:
                raise DataException("Found null value for non-optional schema")
            return None
        if schema is None:
            raise DataException(f"{type(self).__name__} needs a schema: the {self._role} written to topic {topic} "
                                "has none (use a converter without a registry for schemaless data)")
        header, format_schema = self._cached_writer(topic, schema)
        try:
            return header + format_schema.encode(value)
        except DataException:
            raise
        except Exception as e:  # a codec's own error: the value does not fit its schema
            raise DataException(f"Failed to serialize {self._format.schema_type} data from topic {topic}: {e}") \
                from e

    def _cached_writer(self, topic: str, schema: Schema) -> tuple[bytes, FormatSchema]:
        """The header and format schema to write a value of ``schema`` to ``topic`` with (cache 1, then
        :meth:`_writer`)."""
        entry = self._writers.get((topic, id(schema)))
        if entry is None or entry[0] is not schema:  # the entry holds its schema, so its id() is not reused
            return self._writer(topic, schema)
        return entry[1], entry[2]

    def _writer(self, topic: str, schema: Schema) -> tuple[bytes, FormatSchema]:
        settings, client = self._configured()
        format_schema = self._format_schemas.get(schema)
        if format_schema is None:
            format_schema = self._format.from_connect(schema)
            self._format_schemas.put(schema, format_schema)
        subject = subject_name(settings.strategy(self._is_key), topic, self._is_key, format_schema.record_name)
        if settings.use_latest_version and not settings.auto_register:
            return self._latest_writer(subject, format_schema)
        schema_id = self._ids.get((subject, format_schema.text))
        if schema_id is None:
            schema_id = (client.register(subject, format_schema.text) if settings.auto_register
                         else client.lookup(subject, format_schema.text))
            self._ids.put((subject, format_schema.text), schema_id)
        header = _header(schema_id)
        if len(self._writers) >= self._cache_size:
            self._writers.clear()  # schemas made per record: keep the cache bounded, rebuilt from cache 2
        self._writers[(topic, id(schema))] = (schema, header, format_schema)
        return header, format_schema

    def _latest_writer(self, subject: str, format_schema: FormatSchema) -> tuple[bytes, FormatSchema]:
        settings, client = self._configured()
        latest = client.latest(subject)
        writer = self._latest.get((subject, latest.id))
        if writer is None:
            writer = self._format.from_registry(latest.text, latest.version)
            self._latest.put((subject, latest.id), writer)
        if settings.latest_compatibility_strict and writer.text != format_schema.text:
            # Checked once per (latest version, record schema), as Java caches it with the latest version:
            # a check parses and compares both schemas, far more than writing a record costs.
            verdict_key = (latest.id, format_schema.text)
            reads = self._latest_verdicts.get(verdict_key)
            if reads is None:
                reads = self.latest_reads(writer, format_schema)
                if reads is not None:
                    self._latest_verdicts.put(verdict_key, reads)
            if reads is None:
                raise DataException(
                    f"Cannot check {self._format.schema_type} schemas against the latest version of subject "
                    f"{subject}; set latest.compatibility.strict=false to write with it unchecked")
            if not reads:
                raise DataException(f"Incompatible schema of type '{self._format.schema_type}'. Set "
                                    "latest.compatibility.strict=false to disable this check.")
        return _header(latest.id), writer

    def latest_reads(self, latest: FormatSchema, written: FormatSchema) -> bool | None:
        """Whether the subject's ``latest`` schema reads what ``written`` writes (``latest.compatibility.strict``);
        the format's answer unless a converter knows better."""
        return latest.reads(written)

    # -- reading ---------------------------------------------------------------------------------------

    def to_connect_data(self, topic: str, data: bytes | None) -> SchemaAndValue:
        """The schema and value of bytes in Confluent's wire format (what this converter and Java's
        write); None is ``SchemaAndValue(None, None)``."""
        if data is None:
            return SchemaAndValue(None, None)
        if len(data) < _HEADER_SIZE or data[0] != MAGIC_BYTE:
            raise DataException(f"Failed to deserialize data for topic {topic} to {self._format.schema_type}: "
                                "Unknown magic byte!")
        schema_id = int.from_bytes(data[1:_HEADER_SIZE], "big")
        # Per topic: the Connect schema's version is the schema's version under the topic's subject.
        format_schema = self._readers.get((topic, schema_id))
        if format_schema is None:
            format_schema = self._reader(topic, schema_id)
        try:
            payload = memoryview(data)[_HEADER_SIZE:]
            format_schema = format_schema.for_payload(payload)
            value = format_schema.decode(payload)
        except ConnectException:
            raise
        except Exception as e:
            raise DataException(f"Failed to deserialize data for topic {topic} to {self._format.schema_type}: {e}") \
                from e
        return SchemaAndValue(format_schema.connect_schema, value)

    def _reader(self, topic: str, schema_id: int) -> FormatSchema:
        settings, client = self._configured()
        registered = client.by_id(schema_id)
        format_schema = self._format.from_registry(registered.text, None)
        # Java reads the schema's version under the subject the topic's strategy names (the Connect
        # schema's version when the schema names none).
        version: int | None = None
        try:
            subject = subject_name(settings.strategy(self._is_key), topic, self._is_key, format_schema.record_name)
            version = client.lookup_version(subject, registered.text)
        except RetriableException:
            raise
        except DataException as e:
            logger.debug("No version of schema id %s under the topic's subject: %s", schema_id, e)
        if version is not None:
            format_schema = self._format.from_registry(registered.text, version)
        self._readers.put((topic, schema_id), format_schema)
        return format_schema

    # -- helpers ---------------------------------------------------------------------------------------

    @property
    def _role(self) -> str:
        return "key" if self._is_key else "value"

    def _configured(self) -> tuple[RegistrySettings, RegistryClient]:
        if self._settings is None or self._client is None:
            raise DataException(f"{type(self).__name__} is not configured")
        return self._settings, self._client


def _header(schema_id: int) -> bytes:
    return bytes((MAGIC_BYTE,)) + schema_id.to_bytes(4, "big")
