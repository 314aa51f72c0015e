"""The registry converter's own logic (converters/schema_registry/registry_converter.py and
registry_client.py), with a toy format and a counting in-memory registry: the wire format, tombstones,
the caches (no registry call per record once a schema is known), subjects, ``use.latest.version``,
and the registry's failures mapped to the exceptions the task loop acts on, naming the registry.

The real format and registry are in tests/integration/test_avro_converter.py."""

from __future__ import annotations

import base64
import json
import logging
import ssl
import threading
from collections import Counter
from collections.abc import Iterator, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest
import trustme
from confluent_kafka.schema_registry import SchemaRegistryError

from connect_runtime.api.config_def import ConfigDef
from connect_runtime.api.data.schema import Schema, SchemaType
from connect_runtime.api.data.schema_builder import SchemaBuilder
from connect_runtime.api.data.struct import Struct
from connect_runtime.api.errors import ConfigException, DataException, RetriableException
from connect_runtime.cluster.validation import ConnectorValidator
from connect_runtime.config.worker_config import WorkerConfig
from connect_runtime.converters.schema_registry import registry_client, registry_converter
from connect_runtime.converters.schema_registry.avro_converter import AvroConverter
from connect_runtime.converters.schema_registry.avro_format import AvroFormat
from connect_runtime.converters.schema_registry.format import FormatSchema, SchemaFormat
from connect_runtime.converters.schema_registry.json_schema_converter import JsonSchemaConverter
from connect_runtime.converters.schema_registry.registry_client import RegistryClient, RegistrySchema
from connect_runtime.converters.schema_registry.registry_config import RegistrySettings, registry_config_def
from connect_runtime.converters.schema_registry.registry_converter import SchemaRegistryConverter
from connect_runtime.plugins.registry import PluginRegistry

URL = "http://127.0.0.1:1/apis/ccompat/v7"


class ToyFormatSchema(FormatSchema):
    """JSON text ``{"name":..,"fields":[..]}`` for a struct of INT64/STRING fields; the payload is JSON."""

    def __init__(self, connect_schema: Schema) -> None:
        self.connect_schema = connect_schema
        self.record_name = connect_schema.name
        fields = [[f.name, f.schema.type.name] for f in connect_schema.fields] \
            if connect_schema.type is SchemaType.STRUCT else []
        self.text = json.dumps({"name": connect_schema.name, "type": connect_schema.type.name, "fields": fields})

    def encode(self, value: Any) -> bytes:
        if isinstance(value, Struct):
            return json.dumps({f.name: value.get(f.name) for f in self.connect_schema.fields
                               if value.schema.field(f.name) is not None}).encode()
        if value == "boom":
            raise ValueError("the codec refused it")
        return json.dumps(value).encode()

    def decode(self, payload: bytes | memoryview) -> Any:
        node = json.loads(bytes(payload))
        if self.connect_schema.type is not SchemaType.STRUCT:
            return node
        struct = Struct(self.connect_schema)
        for name, v in node.items():
            struct.put(name, v)
        return struct

    def reads(self, writer: FormatSchema) -> bool | None:
        mine = {f.name for f in self.connect_schema.fields}
        return {f.name for f in writer.connect_schema.fields} >= mine


class ToyFormat(SchemaFormat):
    schema_type: ClassVar[str] = "TOY"
    made: ClassVar[Counter[str]] = Counter()

    def config_def(self) -> ConfigDef:
        return ConfigDef()

    def configure(self, configs: Mapping[str, Any]) -> None:
        pass

    def from_connect(self, schema: Schema) -> FormatSchema:
        ToyFormat.made["from_connect"] += 1
        return ToyFormatSchema(schema)

    def from_registry(self, text: str, version: int | None) -> FormatSchema:
        ToyFormat.made["from_registry"] += 1
        node = json.loads(text)
        builder = SchemaBuilder.struct().name(node["name"])
        if version is not None:
            builder = builder.version(version)
        for name, kind in node["fields"]:
            builder.field(name, Schema.OPTIONAL_INT64_SCHEMA if kind == "INT64" else Schema.OPTIONAL_STRING_SCHEMA)
        return ToyFormatSchema(builder.build())


class ToyConverter(SchemaRegistryConverter):
    format_class = ToyFormat


class FakeRegistry:
    """An in-memory registry standing in for RegistryClient, counting its calls."""

    def __init__(self, settings: RegistrySettings, schema_type: str) -> None:
        self.calls: Counter[str] = Counter()
        self.ids: dict[str, int] = {}
        self.subjects: dict[str, list[str]] = {}
        self.fail: Exception | None = None
        REGISTRIES.append(self)

    def _count(self, name: str) -> None:
        self.calls[name] += 1
        if self.fail is not None:
            raise self.fail

    def check_access(self) -> None:
        self._count("check_access")

    def close(self) -> None:
        pass

    def register(self, subject: str, text: str) -> int:
        self._count("register")
        schema_id = self.ids.setdefault(text, len(self.ids) + 1)
        versions = self.subjects.setdefault(subject, [])
        if text not in versions:
            versions.append(text)
        return schema_id

    def lookup(self, subject: str, text: str) -> int:
        self._count("lookup")
        if text not in self.subjects.get(subject, []):
            raise DataException("not registered")
        return self.ids[text]

    def lookup_version(self, subject: str, text: str) -> int | None:
        self._count("lookup_version")
        versions = self.subjects.get(subject, [])
        if text not in versions:
            raise DataException("not registered under the subject")
        return versions.index(text) + 1

    def latest(self, subject: str) -> RegistrySchema:
        self._count("latest")
        versions = self.subjects[subject]
        return RegistrySchema(self.ids[versions[-1]], versions[-1], len(versions))

    def by_id(self, schema_id: int) -> RegistrySchema:
        self._count("by_id")
        text = next(t for t, i in self.ids.items() if i == schema_id)
        return RegistrySchema(schema_id, text)


REGISTRIES: list[FakeRegistry] = []

READING = (SchemaBuilder.struct().name("toy.Reading").field("seqno", Schema.INT64_SCHEMA)
           .field("label", Schema.OPTIONAL_STRING_SCHEMA).build())


@pytest.fixture(autouse=True)
def fake_registry(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(registry_converter, "RegistryClient", FakeRegistry)
    REGISTRIES.clear()
    ToyFormat.made.clear()
    yield


def converter(is_key: bool = False, **settings: str) -> tuple[ToyConverter, FakeRegistry]:
    conv = ToyConverter()
    conv.configure({"schema.registry.url": URL, **settings}, is_key)
    return conv, REGISTRIES[-1]


def reading(seqno: int) -> Struct:
    return Struct(READING).put("seqno", seqno).put("label", None)


def test_wire_format_and_one_registration_for_many_records() -> None:
    conv, registry = converter()
    assert registry.calls == {"check_access": 1}
    first = conv.from_connect_data("t", reading(1), schema=READING)
    assert first is not None and first[:5] == b"\x00\x00\x00\x00\x01"
    assert json.loads(first[5:]) == {"seqno": 1, "label": None}
    for n in range(100):
        conv.from_connect_data("t", reading(n), schema=READING)
    assert registry.calls["register"] == 1
    assert registry.subjects == {"t-value": [ToyFormatSchema(READING).text]}
    assert ToyFormat.made["from_connect"] == 1


def test_an_equal_schema_object_costs_no_registry_call_and_no_mapping() -> None:
    conv, registry = converter()
    conv.from_connect_data("t", reading(1), schema=READING)
    twin = (SchemaBuilder.struct().name("toy.Reading").field("seqno", Schema.INT64_SCHEMA)
            .field("label", Schema.OPTIONAL_STRING_SCHEMA).build())
    assert twin is not READING and twin == READING
    value = Struct(twin).put("seqno", 2)
    assert conv.from_connect_data("t", value, schema=twin) == conv.from_connect_data("t", reading(2), schema=READING)
    assert (registry.calls["register"], ToyFormat.made["from_connect"]) == (1, 1)
    # another topic is another subject: one more registration, the mapping is reused
    conv.from_connect_data("u", reading(3), schema=READING)
    assert registry.calls["register"] == 2 and ToyFormat.made["from_connect"] == 1


def test_the_writer_cache_stays_bounded_when_schemas_are_made_per_record() -> None:
    conv, registry = converter(**{"max.schemas.per.subject": "3"})
    for n in range(10):
        schema = SchemaBuilder.struct().name("toy.Reading").field("seqno", Schema.INT64_SCHEMA).build()
        conv.from_connect_data("t", Struct(schema).put("seqno", n), schema=schema)
    assert len(conv._writers) <= 3
    assert registry.calls["register"] == 1


def test_tombstones_make_no_registry_call_and_null_for_a_required_schema_is_refused() -> None:
    conv, registry = converter()
    assert conv.from_connect_data("t", None) is None
    assert conv.from_connect_data("t", None, schema=Schema.OPTIONAL_STRING_SCHEMA) is None
    with pytest.raises(DataException, match="Found null value for non-optional schema"):
        conv.from_connect_data("t", None, schema=READING)
    with pytest.raises(DataException, match="needs a schema"):
        conv.from_connect_data("t", {"a": 1})
    assert registry.calls == {"check_access": 1}
    assert conv.to_connect_data("t", None).schema is None and conv.to_connect_data("t", None).value is None


def test_json_schema_nulls_written_with_a_schema_id_take_the_writer_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    """JsonSchemaConverter writes an optional schema's null as JSON null with the schema's id: after the
    first, such records cost what any other record costs."""
    misses: Counter[str] = Counter()
    writer = SchemaRegistryConverter._writer

    def counted(self: SchemaRegistryConverter, topic: str, schema: Schema) -> tuple[bytes, FormatSchema]:
        misses[topic] += 1
        return writer(self, topic, schema)

    monkeypatch.setattr(SchemaRegistryConverter, "_writer", counted)
    conv = JsonSchemaConverter()
    conv.configure({"schema.registry.url": URL}, False)
    optional = SchemaBuilder.string().optional().build()
    assert [conv.from_connect_data("t", None, schema=optional) for _ in range(3)] == [b"\x00\x00\x00\x00\x01null"] * 3
    assert misses == {"t": 1}


def test_a_codec_error_is_a_data_exception_naming_the_topic() -> None:
    conv, _ = converter()
    with pytest.raises(DataException, match="Failed to serialize TOY data from topic t: the codec refused it"):
        conv.from_connect_data("t", "boom", schema=Schema.STRING_SCHEMA)


def test_key_subjects_and_record_strategies() -> None:
    conv, registry = converter(is_key=True)
    conv.from_connect_data("t", 5, schema=Schema.INT64_SCHEMA)
    assert list(registry.subjects) == ["t-key"]
    strategies = "io.confluent.kafka.serializers.subject."
    conv, registry = converter(**{"value.subject.name.strategy": strategies + "TopicRecordNameStrategy"})
    conv.from_connect_data("t", reading(1), schema=READING)
    assert list(registry.subjects) == ["t-toy.Reading"]
    with pytest.raises(DataException, match="no record name"):
        conv.from_connect_data("t", 5, schema=Schema.INT64_SCHEMA)


def test_reading_back_caches_by_id_and_topic_and_takes_the_version_under_the_topic_subject() -> None:
    writer, _ = converter()
    data = writer.from_connect_data("t", reading(7), schema=READING)
    reader = ToyConverter()
    reader.configure({"schema.registry.url": URL}, False)
    registry = REGISTRIES[-1]
    registry.ids, registry.subjects = REGISTRIES[0].ids, REGISTRIES[0].subjects
    for _ in range(3):
        got = reader.to_connect_data("t", data)
        assert got.schema is not None and (got.schema.name, got.schema.version) == ("toy.Reading", 1)
        assert isinstance(got.value, Struct) and got.value.get("seqno") == 7
    assert (registry.calls["by_id"], registry.calls["lookup_version"]) == (1, 1)
    # a topic whose subject does not hold the schema: no version (not the other topic's), still read
    elsewhere = reader.to_connect_data("elsewhere", data).schema
    assert elsewhere is not None and elsewhere.version is None
    # a topic whose subject holds it as its second version
    registry.register("later-value", ToyFormatSchema(SchemaBuilder.struct().name("toy.Other").build()).text)
    registry.register("later-value", ToyFormatSchema(READING).text)
    later = reader.to_connect_data("later", data).schema
    assert later is not None and later.version == 2
    assert reader.to_connect_data("t", data).schema.version == 1  # type: ignore[union-attr]


def test_reading_refuses_bytes_without_the_magic_byte() -> None:
    conv, _ = converter()
    for data in (b"\x01\x00\x00\x00\x01{}", b"\x00\x00"):
        with pytest.raises(DataException, match="Unknown magic byte!"):
            conv.to_connect_data("t", data)


def test_lookup_instead_of_register_when_auto_register_is_off() -> None:
    conv, registry = converter(**{"auto.register.schemas": "false"})
    with pytest.raises(DataException, match="not registered"):
        conv.from_connect_data("t", reading(1), schema=READING)
    registry.subjects["t-value"] = [ToyFormatSchema(READING).text]
    registry.ids[ToyFormatSchema(READING).text] = 42
    data = conv.from_connect_data("t", reading(1), schema=READING)
    assert data is not None and data[:5] == b"\x00\x00\x00\x00\x2a"
    conv.from_connect_data("t", reading(2), schema=READING)
    assert registry.calls["lookup"] == 2 and registry.calls["register"] == 0


def test_use_latest_version_writes_with_the_latest_and_checks_it_can_read_the_record() -> None:
    wider = (SchemaBuilder.struct().name("toy.Reading").field("seqno", Schema.INT64_SCHEMA)
             .field("label", Schema.OPTIONAL_STRING_SCHEMA).field("extra", Schema.OPTIONAL_STRING_SCHEMA).build())
    conv, registry = converter(**{"auto.register.schemas": "false", "use.latest.version": "true"})
    registry.register("t-value", ToyFormatSchema(READING).text)
    registry.register("t-value", ToyFormatSchema(wider).text)
    with pytest.raises(DataException, match="Incompatible schema of type 'TOY'"):
        conv.from_connect_data("t", reading(1), schema=READING)  # the latest needs "extra"
    narrow = SchemaBuilder.struct().name("toy.Reading").field("seqno", Schema.INT64_SCHEMA).build()
    registry.register("t-value", ToyFormatSchema(narrow).text)
    data = conv.from_connect_data("t", reading(1), schema=READING)
    assert data is not None and data[:5] == b"\x00\x00\x00\x00\x03"
    assert json.loads(data[5:]) == {"seqno": 1}  # written with the latest's fields
    loose, registry = converter(**{"auto.register.schemas": "false", "use.latest.version": "true",
                                   "latest.compatibility.strict": "false"})
    registry.register("t-value", ToyFormatSchema(wider).text)
    assert loose.from_connect_data("t", reading(1), schema=READING) is not None


def test_use_latest_version_checks_the_latest_once_per_record_schema(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check parses and compares both schemas: done per record it costs far more than the record."""
    checks: Counter[str] = Counter()
    reads = ToyFormatSchema.reads

    def counted(self: ToyFormatSchema, writer: FormatSchema) -> bool | None:
        checks[writer.text] += 1
        return reads(self, writer)

    monkeypatch.setattr(ToyFormatSchema, "reads", counted)
    narrow = SchemaBuilder.struct().name("toy.Reading").field("seqno", Schema.INT64_SCHEMA).build()
    conv, registry = converter(**{"auto.register.schemas": "false", "use.latest.version": "true"})
    registry.register("t-value", ToyFormatSchema(narrow).text)
    for seqno in range(5):
        assert conv.from_connect_data("t", reading(seqno), schema=READING) is not None
    assert checks == {ToyFormatSchema(READING).text: 1}


def test_refused_settings_fail_configure_on_their_key() -> None:
    with pytest.raises(ConfigException) as raised:
        ToyConverter().configure({"schema.registry.url": URL, "bearer.auth.credentials.source": "STATIC_TOKEN"},
                                 False)
    assert raised.value.name == "bearer.auth.credentials.source"
    with pytest.raises(ConfigException, match=r"schema\.registry\.url"):
        ToyConverter().configure({}, False)


# -- the client: errors mapped, messages naming the registry ------------------------------------------------


def real_client(**settings: str) -> RegistryClient:
    props = {"converter.type": "value", "schema.registry.url": URL, "max.retries": "0", **settings}
    return RegistryClient(RegistrySettings.parse(registry_config_def().parse(props), props), "AVRO")


def failing(client: RegistryClient, error: Exception) -> RegistryClient:
    def fail(*args: Any, **kwargs: Any) -> Any:
        raise error
    for name in ("register_schema", "lookup_schema", "get_schema", "get_latest_version", "get_schema_types"):
        setattr(client._client, name, fail)
    return client


def test_an_unreachable_registry_is_retriable_and_named() -> None:
    client = real_client(**{"schema.registry.url": "http://alice:secret@127.0.0.1:1/apis/ccompat/v7"})
    with pytest.raises(RetriableException) as raised:
        client.register("t-value", '"long"')
    text = str(raised.value)
    assert "http://127.0.0.1:1/apis/ccompat/v7" in text and "registering a schema under subject t-value" in text
    assert "secret" not in text
    client.check_access()  # down at start-up is not an error


@pytest.mark.parametrize(("status", "kind"), [(500, RetriableException), (503, RetriableException),
                                              (429, RetriableException), (409, DataException),
                                              (422, DataException), (404, DataException)])
def test_registry_answers_are_mapped(status: int, kind: type[Exception]) -> None:
    client = failing(real_client(), SchemaRegistryError(status, status, "Incompatible artifact: t-value"))
    with pytest.raises(kind) as raised:
        client.register("t-value", '"long"')
    assert type(raised.value) is kind
    assert str(raised.value) == (f"The schema registry at {URL} answered HTTP {status} while registering a schema "
                                 "under subject t-value: Incompatible artifact: t-value")


def test_refused_credentials_fail_configure_with_one_clear_line() -> None:
    client = failing(real_client(**{"basic.auth.credentials.source": "USER_INFO",
                                    "basic.auth.user.info": "alice:wrong"}),
                     SchemaRegistryError(401, 401, "Unauthorized"))
    with pytest.raises(DataException, match=r"refused the credentials of basic.auth.user.info \(HTTP 401\)"):
        client.by_id(1)
    probe = failing(real_client(**{"basic.auth.credentials.source": "USER_INFO",
                                   "basic.auth.user.info": "alice:wrong"}),
                    SchemaRegistryError(401, 401, "Unauthorized"))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(registry_client, "_new_client", lambda *args: probe._client)
        with pytest.raises(ConfigException) as raised:
            probe.check_access()
    assert raised.value.name == "basic.auth.user.info"
    assert str(raised.value).endswith(f"The schema registry at {URL} refused the credentials of basic.auth.user.info "
                                      "(HTTP 401) while checking access")
    assert "wrong" not in str(raised.value)


class _Registry(BaseHTTPRequestHandler):
    seen: ClassVar[list[dict[str, str]]] = []

    def do_GET(self) -> None:
        _Registry.seen.append(dict(self.headers))
        body = json.dumps(["AVRO"] if self.path.endswith("/schemas/types") else {"schema": '"long"'}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/vnd.schemaregistry.v1+json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


def test_tls_from_a_pem_truststore_and_request_headers(tmp_path: Path) -> None:
    ca = trustme.CA()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Registry)
    ssl_context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ca.issue_cert("127.0.0.1").configure_cert(ssl_context)
    server.socket = ssl_context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        ca.cert_pem.write_to_path(str(tmp_path / "ca.pem"))
        url = f"https://127.0.0.1:{server.server_port}/apis/ccompat/v7"
        client = real_client(**{"schema.registry.url": url, "schema.registry.ssl.truststore.type": "PEM",
                                "schema.registry.ssl.truststore.location": str(tmp_path / "ca.pem"),
                                "request.header.X-Tenant": "blue"})
        assert client.by_id(1) == RegistrySchema(1, '"long"')
        assert _Registry.seen[-1].get("X-Tenant") == "blue"
        untrusted = real_client(**{"schema.registry.url": url})
        # Not retriable: waiting does not make the certificate trusted; and refused at start.
        with pytest.raises(DataException, match="presented a certificate that is not trusted"):
            untrusted.by_id(2)
        with pytest.raises(ConfigException) as raised:
            untrusted.check_access()
        assert raised.value.name == "schema.registry.ssl.truststore.location"
        assert f"The schema registry at {url} presented a certificate that is not trusted" in str(raised.value)
    finally:
        server.shutdown()
        server.server_close()


def test_a_password_in_the_url_is_sent_as_basic_auth_and_logged_nowhere(caplog: pytest.LogCaptureFixture) -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Registry)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        caplog.set_level(logging.DEBUG)
        client = real_client(**{"schema.registry.url": f"http://alice:s3cret@127.0.0.1:{server.server_port}/v7"})
        assert client.by_id(1) == RegistrySchema(1, '"long"')
        assert _Registry.seen[-1].get("Authorization") == "Basic " + base64.b64encode(b"alice:s3cret").decode()
        assert f"127.0.0.1:{server.server_port}/v7/schemas/ids/1" in caplog.text  # the request was logged
        assert "s3cret" not in caplog.text
    finally:
        server.shutdown()
        server.server_close()


# -- connector validation: refusals on their keys, and no registry call -------------------------------------


def connector_validator() -> ConnectorValidator:
    return ConnectorValidator(WorkerConfig.from_properties({
        "bootstrap.servers": "b:9092", "group.id": "g", "config.storage.topic": "c", "offset.storage.topic": "o",
        "status.storage.topic": "s", "key.converter": "org.apache.kafka.connect.storage.StringConverter",
        "value.converter": "org.apache.kafka.connect.json.JsonConverter"}), PluginRegistry())


def test_validation_reports_refusals_on_the_prefixed_keys_without_calling_the_registry(
        monkeypatch: pytest.MonkeyPatch) -> None:
    def no_registry(*args: Any) -> None:
        raise AssertionError("validation must not reach the registry")

    monkeypatch.setattr(registry_converter, "RegistryClient", no_registry)
    validator = connector_validator()
    base = {"connector.class": "VerifiableSource", "name": "v", "topic": "t",
            "value.converter": "io.confluent.connect.avro.AvroConverter", "value.converter.schema.registry.url": URL}
    infos = validator.validate({**base, "value.converter.use.schema.id": "7",
                                "value.converter.context.name.strategy": "x.Ctx"})
    errors = {c.value.name: c.value.errors for c in infos.configs if c.value.errors}
    assert set(errors) == {"value.converter.use.schema.id", "value.converter.context.name.strategy"}
    assert infos.error_count == 2
    assert "not supported" in errors["value.converter.use.schema.id"][0]
    clean = validator.validate(base)
    assert clean.error_count == 0
    listed = {c.definition.name for c in clean.configs}
    assert {"value.converter.schema.registry.url", "value.converter.auto.register.schemas",
            "value.converter.connect.meta.data"} <= listed


def test_validation_reports_what_only_parsing_the_settings_refuses(monkeypatch: pytest.MonkeyPatch) -> None:
    """Refusals no single key's validator makes (bearer auth named at all, the credentials' form, a TLS
    store Python cannot read) are errors on their keys, as configure would raise them; a URL's
    password is never echoed."""
    monkeypatch.setattr(registry_converter, "RegistryClient", lambda *args: pytest.fail("called the registry"))
    validator = connector_validator()
    base = {"connector.class": "VerifiableSource", "name": "v", "topic": "t",
            "key.converter": "io.confluent.connect.avro.AvroConverter", "key.converter.schema.registry.url": URL}
    p = "key.converter."
    for settings, key in (
            ({p + "bearer.auth.credentials.source": "STATIC_TOKEN"}, "bearer.auth.credentials.source"),
            ({p + "basic.auth.credentials.source": "USER_INFO", p + "basic.auth.user.info": "alice"},
             "basic.auth.user.info"),
            ({p + "schema.registry.ssl.truststore.type": "JKS",
              p + "schema.registry.ssl.truststore.location": "/no/such/store.jks"},
             "schema.registry.ssl.truststore.type"),
            ({p + "schema.registry.url": "ftp://alice:s3cret@registry:8081"}, "schema.registry.url")):
        infos = validator.validate({**base, **settings})
        errors = {c.value.name: c.value.errors for c in infos.configs if c.value.errors}
        assert list(errors) == [p + key] and infos.error_count == 1, errors
        assert "s3cret" not in str(errors) and "alice" not in str(errors)


def test_avro_checks_the_latest_version_with_avros_resolution_rules() -> None:
    fmt = AvroFormat()
    written = fmt.from_connect(READING)
    with_optional = fmt.from_connect(SchemaBuilder.struct().name("toy.Reading").field("seqno", Schema.INT64_SCHEMA)
                                     .field("label", Schema.OPTIONAL_STRING_SCHEMA)
                                     .field("extra", Schema.OPTIONAL_STRING_SCHEMA).build())
    with_required = fmt.from_connect(SchemaBuilder.struct().name("toy.Reading").field("seqno", Schema.INT64_SCHEMA)
                                     .field("extra", Schema.STRING_SCHEMA).build())
    converter = AvroConverter()
    assert converter.latest_reads(with_optional, written) is True  # the new field has a default
    assert converter.latest_reads(with_required, written) is False
    assert converter.latest_reads(written, with_required) is True  # a field the reader lacks is skipped


def test_an_answer_that_is_not_the_registrys_json_is_a_data_exception_naming_it() -> None:
    client = failing(real_client(), ValueError("Expecting value: line 1 column 1 (char 0)"))
    with pytest.raises(DataException, match=r"at http://127\.0\.0\.1:1/apis/ccompat/v7 answered something that is not"):
        client.by_id(3)


def test_the_worker_checks_a_registry_converter_without_calling_the_registry(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The worker checks a task's converters on its herder thread: a registry converter's settings are
    parsed there (a refused one still fails the task early), but the registry is not called."""
    from connect_runtime.worker.worker import Worker

    def no_client(*args: object) -> None:
        raise AssertionError("a registry client was made on the herder thread")

    monkeypatch.setattr(registry_converter, "RegistryClient", no_client)

    class Plugins:
        def converter(self, name: str) -> type[AvroConverter]:
            return AvroConverter

    class Config:
        def __init__(self, settings: dict[str, str]) -> None:
            self.settings = settings

        def converter_settings(self, kind: str) -> tuple[str, dict[str, str]]:
            return "io.confluent.connect.avro.AvroConverter", self.settings

    worker: Any = object.__new__(Worker)
    worker.plugins = Plugins()
    worker.config = Config({"schema.registry.url": "http://127.0.0.1:9/apis/ccompat/v7"})
    connector: Any = Config({})
    connector.converter_settings = lambda kind: None  # the worker's converter, as a connector without its own
    worker._check_converter(connector, "value")
    worker.config = Config({"schema.registry.url": "http://127.0.0.1:9",
                            "basic.auth.credentials.source": "SASL_INHERIT"})
    with pytest.raises(ConfigException, match=r"basic\.auth\.credentials\.source"):
        worker._check_converter(connector, "value")
    with pytest.raises(AssertionError, match="herder thread"):
        AvroConverter().configure({"schema.registry.url": "http://127.0.0.1:9"}, False)


def test_a_subject_created_meanwhile_is_registered_again() -> None:
    """Apicurio answers the loser of two concurrent first registrations 409 "already exists"."""
    client = real_client()
    answers: list[Exception | int] = [
        SchemaRegistryError(409, 409, "An artifact with ID 't-value' in group 'null' already exists."), 7]

    def register_schema(subject: str, schema: object, normalize: bool = False) -> int:
        answer = answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    client._client.register_schema = register_schema  # type: ignore[method-assign]
    assert client.register("t-value", '"long"') == 7
    incompatible = failing(real_client(), SchemaRegistryError(409, 409, "Incompatible artifact: t-value"))
    with pytest.raises(DataException, match="Incompatible artifact"):
        incompatible.register("t-value", '"long"')
