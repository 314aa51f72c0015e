"""Pydantic models of the Kafka Connect REST JSON: request bodies and responses.

Field names, nesting and omitted fields follow the Java entities in
``org.apache.kafka.connect.runtime.rest.entities`` so that existing Connect tools (connect CLIs,
UIs, Terraform/Strimzi operators) can parse our answers unchanged. Response models are built from
the herder's dataclasses (``connect_runtime.cluster.herder_api``) with ``from_entity`` and rendered
with :meth:`ConnectModel.to_json`.

Request bodies mirror how Jackson binds ``Map<String, String>`` and ``CreateConnectorRequest``: JSON
scalars (numbers, booleans) become strings, numbers keep their literal text (``1.50`` stays
``"1.50"``), nested objects/arrays and ``null`` values are rejected. :func:`parse_json_body` and
:func:`parse_request` turn every malformed body into a :class:`BadRequestHttpError` (400), never a 500.
"""

from __future__ import annotations

import logging
from enum import Enum
from typing import Annotated, Any, Self, TypeVar

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    RootModel,
    SerializerFunctionWrapHandler,
    ValidationError,
    field_validator,
    model_serializer,
)
from pydantic_core import PydanticCustomError

from connect_runtime.cluster.herder_api import ConnectorInfo, ConnectorStateInfo, ExpandedConnector, StateInfo
from connect_runtime.errors import BadRequestHttpError
from connect_runtime.types import ConnectorOffset, TargetState
from rest.json_input import decode_json

logger = logging.getLogger(__name__)

#: Plugin version Java reports for plugins that declare none; such versions are left out of the JSON.
UNDEFINED_VERSION = "undefined"

_M = TypeVar("_M", bound=BaseModel)


# ---------------------------------------------------------------------------------------------
# Request parsing
# ---------------------------------------------------------------------------------------------


def parse_json_body(raw: bytes) -> Any:
    """Parse a request body as JSON, keeping numbers as their literal text.

    Every field Connect binds from a body is a string, and Jackson's string deserializer takes a
    number's *text* (``1e3`` stays ``"1e3"``), so numbers are never converted to ``int``/``float``.
    Nesting and Unicode are bounded by :func:`rest.json_input.decode_json`.
    """
    if not raw.strip():
        raise BadRequestHttpError("Request body is empty; a JSON object is required")
    return decode_json(raw, numbers_as_text=True)


def _describe_json(value: object) -> str:
    if isinstance(value, dict):
        return "a JSON object"
    if isinstance(value, list):
        return "a JSON array"
    if value is None:
        return "null"
    return type(value).__name__


def format_validation_error(exc: ValidationError) -> str:
    """A one-line, human-readable summary of a pydantic error (the 400 ``message``)."""
    parts: list[str] = []
    for err in exc.errors(include_url=False):
        loc = " -> ".join(str(p) for p in err["loc"])
        parts.append(f"{loc}: {err['msg']}" if loc else str(err["msg"]))
    return "Invalid request body: " + "; ".join(parts)


def parse_request(model: type[_M], data: Any) -> _M:
    """Validate parsed JSON against a request model; any problem becomes a 400."""
    if not isinstance(data, dict):
        raise BadRequestHttpError(f"Request body must be a JSON object, not {_describe_json(data)}")
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise BadRequestHttpError(format_validation_error(exc)) from None


def _coerce_config_string(value: object) -> object:
    """Jackson's ``String`` binding: scalars become their text; structures and null are refused."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    if value is None:
        raise PydanticCustomError("null_value", "value may not be null")
    if isinstance(value, dict | list):
        raise PydanticCustomError(
            "not_a_scalar",
            "value must be a string, number or boolean, not {kind}",
            {"kind": _describe_json(value)},
        )
    return value


def _coerce_optional_string(value: object) -> object:
    return None if value is None else _coerce_config_string(value)


#: OpenAPI schema of a config map body (``Map<String, String>``).
STRING_MAP_JSON_SCHEMA: dict[str, Any] = {"type": "object", "additionalProperties": {"type": "string"}}

#: OpenAPI schema of the ``POST /connectors`` body (hand-written: no dangling ``$defs`` references).
CREATE_CONNECTOR_JSON_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["name", "config"],
    "properties": {
        "name": {"type": "string"},
        "config": STRING_MAP_JSON_SCHEMA,
        "initial_state": {"type": "string", "enum": ["RUNNING", "PAUSED", "STOPPED"]},
    },
}

#: A connector config value as received over REST (always a string after binding).
ConfigString = Annotated[str, BeforeValidator(_coerce_config_string)]
#: An optional string field (``null`` allowed) with the same scalar coercion.
OptionalString = Annotated[str | None, BeforeValidator(_coerce_optional_string)]


class InitialState(Enum):
    """``initial_state`` of ``POST /connectors`` (KIP-980); parsed case-insensitively like Java."""

    RUNNING = "RUNNING"
    PAUSED = "PAUSED"
    STOPPED = "STOPPED"

    def to_target_state(self) -> TargetState:
        """RUNNING is the STARTED target state; the others share their name."""
        if self is InitialState.RUNNING:
            return TargetState.STARTED
        return TargetState(self.value)


class ConnectorConfigBody(RootModel[dict[str, ConfigString]]):
    """Body of ``PUT /connectors/{c}/config`` and ``PUT /connector-plugins/{p}/config/validate``."""


class ConnectorConfigPatchBody(RootModel[dict[str, OptionalString]]):
    """Body of ``PATCH /connectors/{c}/config`` (KIP-477): a null value removes the key."""


class CreateConnectorRequest(BaseModel):
    """Body of ``POST /connectors`` (parsed by :func:`parse_create_connector`, which refuses unknown fields)."""

    model_config = ConfigDict(extra="ignore")

    name: OptionalString = None
    config: dict[str, ConfigString] | None = None
    initial_state: InitialState | None = None

    @field_validator("initial_state", mode="before")
    @classmethod
    def _parse_initial_state(cls, value: object) -> object:
        if value is None or isinstance(value, InitialState):
            return value
        text = _coerce_config_string(value)
        if isinstance(text, str):
            try:
                return InitialState(text.upper())
            except ValueError:
                pass
        allowed = ", ".join(s.value for s in InitialState)
        raise PydanticCustomError(
            "initial_state", "'{value}' is not one of {allowed}", {"value": str(text), "allowed": allowed}
        )


_CREATE_CONNECTOR_CLASS = "org.apache.kafka.connect.runtime.rest.entities.CreateConnectorRequest"
#: Its properties in the order Jackson's message lists them.
_CREATE_CONNECTOR_FIELDS = ["config", "name", "initial_state"]


def parse_create_connector(data: Any) -> CreateConnectorRequest:
    """The body of ``POST /connectors``. An unknown field is refused with Jackson's wording, as Connect's
    mapper fails on one (a misspelt ``initial_state`` would otherwise start the connector unnoticed)."""
    if isinstance(data, dict):
        for name in data:
            if name not in _CREATE_CONNECTOR_FIELDS:
                raise _unrecognized(name, _CREATE_CONNECTOR_CLASS, _CREATE_CONNECTOR_FIELDS)
    return parse_request(CreateConnectorRequest, data)


# ---------------------------------------------------------------------------------------------
# PATCH /connectors/{c}/offsets
# ---------------------------------------------------------------------------------------------

#: ``ConnectorsResource``'s 400 for a body without offsets.
NO_OFFSETS_PROVIDED = "Partitions / offsets need to be provided for an alter offsets request"
#: A source partition must name something (the reference would write a ``["<c>",null]`` key).
NULL_PARTITION = "The partition for a source connector offset cannot be null or missing"
_OFFSETS_CLASS = "org.apache.kafka.connect.runtime.rest.entities.ConnectorOffsets"
_OFFSET_CLASS = "org.apache.kafka.connect.runtime.rest.entities.ConnectorOffset"
_OFFSET_MAP_TYPE = "java.util.LinkedHashMap<java.lang.String,java.lang.Object>"

#: OpenAPI schema of the ``PATCH /connectors/{c}/offsets`` body.
CONNECTOR_OFFSETS_JSON_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["offsets"],
    "properties": {
        "offsets": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "partition": {"type": "object"},
                    "offset": {"type": ["object", "null"]},
                },
            },
        }
    },
}


_INT_MIN, _INT_MAX = -(2**31), 2**31 - 1


def _jackson_token(value: object) -> str:
    if isinstance(value, list):
        return "Array value (token `JsonToken.START_ARRAY`)"
    if isinstance(value, dict):
        return "Object value (token `JsonToken.START_OBJECT`)"
    if isinstance(value, str):
        return "String value (token `JsonToken.VALUE_STRING`)"
    if isinstance(value, bool):
        return f"Boolean value (token `JsonToken.VALUE_{'TRUE' if value else 'FALSE'}`)"
    if isinstance(value, int):
        return "Integer value (token `JsonToken.VALUE_NUMBER_INT`)"
    return "Floating-point value (token `JsonToken.VALUE_NUMBER_FLOAT`)"


def _jackson_creator(value: object) -> str | None:
    """The creator Jackson looked for to build an object from the scalar ``value`` (None: not a scalar)."""
    if isinstance(value, str):
        return f"String-argument constructor/factory method to deserialize from String value ('{value}')"
    if isinstance(value, bool):
        return ("boolean/Boolean-argument constructor/factory method to deserialize from boolean value "
                f"({'true' if value else 'false'})")
    if isinstance(value, int):
        kind = "int/Int" if _INT_MIN <= value <= _INT_MAX else "long/Long"
        return f"{kind}-argument constructor/factory method to deserialize from Number value ({value})"
    if isinstance(value, float):
        return f"double/Double-argument constructor/factory method to deserialize from Number value ({value})"
    return None


#: How Jackson builds a target type, which decides its words for a value of the wrong shape.
_BEAN, _MAP, _LIST = "bean", "map", "list"


def _cannot_deserialize(java_type: str, value: object, kind: str) -> BadRequestHttpError:
    """Jackson's message for ``value`` where it expected a ``java_type`` it builds as a ``kind`` (the
    reference answers it with 500, and adds where in the body it was). A bean is first tried through
    a creator taking the scalar, and so is a map from a string; an empty string is refused first."""
    raw = java_type.split("<", 1)[0]
    if value == "" and kind != _LIST:
        target = f"element of `{raw}`" if kind == _MAP else f"`{raw}` value"
        return BadRequestHttpError(
            f'Cannot coerce empty String ("") to {target} (but could if coercion was enabled using `CoercionConfig`)')
    creator = _jackson_creator(value) if kind == _BEAN or (kind == _MAP and isinstance(value, str)) else None
    if creator is not None:
        return BadRequestHttpError(f"Cannot construct instance of `{raw}` (although at least one Creator exists): "
                                   f"no {creator}")
    return BadRequestHttpError(f"Cannot deserialize value of type `{java_type}` from {_jackson_token(value)}")


def _unrecognized(field: str, java_class: str, known: list[str]) -> BadRequestHttpError:
    """Jackson's wording for an unknown field (Connect's mapper fails on them)."""
    count = "one known property" if len(known) == 1 else f"{len(known)} known properties"
    names = ", ".join(f'"{k}"' for k in known)
    return BadRequestHttpError(
        f'Unrecognized field "{field}" (class {java_class}), not marked as ignorable ({count}: {names}])')


def _offset_map(value: object) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _cannot_deserialize(_OFFSET_MAP_TYPE, value, _MAP)
    return value


def parse_connector_offsets(raw: bytes) -> list[ConnectorOffset]:
    """The body of ``PATCH /connectors/{c}/offsets``: ``{"offsets": [{"partition": {...}, "offset": {...}|null}]}``.

    Shapes follow the reference's ``ConnectorOffsets`` entity; every malformed body is a 400 (the
    reference answers Jackson's mapping errors with 500, in the same words followed by the line and
    column of the error). Numbers keep their
    JSON types here, unlike config bodies: offsets are typed values. Whether the values are primitives
    is checked by the herder, with the reference's ``OffsetUtils`` messages.
    """
    if not raw.strip():
        raise BadRequestHttpError(NO_OFFSETS_PROVIDED)
    data = decode_json(raw, numbers_as_text=False)
    if not isinstance(data, dict):
        if data is None:
            raise BadRequestHttpError(NO_OFFSETS_PROVIDED)
        raise _cannot_deserialize(_OFFSETS_CLASS, data, _BEAN)
    for name in data:
        if name != "offsets":
            raise _unrecognized(name, _OFFSETS_CLASS, ["offsets"])
    entries = data.get("offsets")
    if entries is None or entries == []:
        raise BadRequestHttpError(NO_OFFSETS_PROVIDED)
    if not isinstance(entries, list):
        raise _cannot_deserialize(f"java.util.ArrayList<{_OFFSET_CLASS}>", entries, _LIST)
    offsets: list[ConnectorOffset] = []
    for entry in entries:
        if entry is None:
            raise BadRequestHttpError(NULL_PARTITION)
        if not isinstance(entry, dict):
            raise _cannot_deserialize(_OFFSET_CLASS, entry, _BEAN)
        for name in entry:
            if name not in ("partition", "offset"):
                raise _unrecognized(name, _OFFSET_CLASS, ["partition", "offset"])
        partition = entry.get("partition")
        if partition is None:
            raise BadRequestHttpError(NULL_PARTITION)
        offset = entry.get("offset")
        offsets.append(ConnectorOffset(_offset_map(partition), None if offset is None else _offset_map(offset)))
    return offsets


# ---------------------------------------------------------------------------------------------
# Responses
# ---------------------------------------------------------------------------------------------


class ConnectModel(BaseModel):
    """Base of response models: by-alias JSON rendering, immutable."""

    model_config = ConfigDict(frozen=True, populate_by_name=True)

    def to_json(self) -> Any:
        """The JSON-compatible value sent to the client."""
        return self.model_dump(mode="json", by_alias=True)

    @classmethod
    def from_entity(cls, entity: object) -> Self:
        """Build from the herder entity: its attributes of the fields' names, nested entities included."""
        return cls.model_validate(entity, from_attributes=True)


class ErrorMessage(ConnectModel):
    """Every error body: ``{"error_code": <http status>, "message": "..."}``."""

    error_code: int
    message: str | None


class ServerInfo(ConnectModel):
    """``GET /``."""

    version: str
    commit: str
    kafka_cluster_id: str


class WorkerStatus(ConnectModel):
    """``GET /health``."""

    status: str
    message: str


class ConnectorTaskIdModel(ConnectModel):
    """``{"connector": ..., "task": ...}``."""

    connector: str
    task: int


class ConnectorInfoModel(ConnectModel):
    """``GET /connectors/{c}``, and the body of successful creates/updates."""

    name: str
    config: dict[str, str]
    tasks: list[ConnectorTaskIdModel]
    type: str


class TaskInfoModel(ConnectModel):
    """One entry of ``GET /connectors/{c}/tasks``."""

    id: ConnectorTaskIdModel
    config: dict[str, str]


class _StateModel(ConnectModel):
    """Java annotates ``trace`` with ``@JsonInclude(NON_EMPTY)``: absent when null or empty.

    Subclasses declare their fields in Jackson's output order: the ``@JsonCreator`` properties in
    constructor order (``id`` first for tasks), then ``trace`` (its creator parameter is named
    ``msg``, so Jackson writes it after them).
    """

    @model_serializer(mode="wrap")
    def _omit_empty_trace(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        if not data.get("trace"):
            data.pop("trace", None)
        # Java 4.1 writes the instance's version only when it has one.
        if data.get("version") in (None, "", "undefined"):
            data.pop("version", None)
        return data


class ConnectorStateModel(_StateModel):
    """The ``connector`` part of a status: ``{"state", "worker_id", "version"?, "trace"?}``."""

    state: str
    worker_id: str
    version: str | None = None
    trace: str | None = None


class TaskStateModel(_StateModel):
    """One task of a status (also ``GET /connectors/{c}/tasks/{t}/status``):
    ``{"id", "state", "worker_id", "trace"?}``."""

    id: int
    state: str
    worker_id: str
    version: str | None = None
    trace: str | None = None


class ConnectorStateInfoModel(ConnectModel):
    """``GET /connectors/{c}/status``."""

    name: str
    connector: ConnectorStateModel
    tasks: list[TaskStateModel]
    type: str


class ConnectorExpansion(ConnectModel):
    """One value of ``GET /connectors?expand=...``: only the requested keys are present.

    The endpoint renders with :func:`expanded_connector_json`; this model documents the shape.
    """

    status: ConnectorStateInfoModel | None = None
    info: ConnectorInfoModel | None = None


def _state_json(state: StateInfo, out: dict[str, Any]) -> dict[str, Any]:
    """``out`` completed as :class:`_StateModel` renders ``state``."""
    out["state"] = state.state
    out["worker_id"] = state.worker_id
    if state.version not in (None, "", UNDEFINED_VERSION):
        out["version"] = state.version
    if state.trace:
        out["trace"] = state.trace
    return out


def connector_status_json(status: ConnectorStateInfo) -> dict[str, Any]:
    """What ``ConnectorStateInfoModel.from_entity(status).to_json()`` gives, without pydantic.

    A list with ``expand`` renders hundreds of statuses per request, and validating entities from
    their attributes costs tens of microseconds each; a unit test keeps the two renderings equal.
    """
    return {"name": status.name, "connector": _state_json(status.connector, {}),
            "tasks": [_state_json(task, {"id": task.id}) for task in status.tasks], "type": status.type}


def connector_info_json(info: ConnectorInfo) -> dict[str, Any]:
    """What ``ConnectorInfoModel.from_entity(info).to_json()`` gives, without pydantic (see
    :func:`connector_status_json`)."""
    return {"name": info.name, "config": dict(info.config),
            "tasks": [{"connector": task.connector, "task": task.task} for task in info.tasks], "type": info.type}


def expanded_connector_json(entry: ExpandedConnector) -> dict[str, Any]:
    """One value of ``GET /connectors?expand=...``: ``status`` then ``info``, each only when present."""
    out: dict[str, Any] = {}
    if entry.status is not None:
        out["status"] = connector_status_json(entry.status)
    if entry.info is not None:
        out["info"] = connector_info_json(entry.info)
    return out


class PluginInfoModel(ConnectModel):
    """``GET /connector-plugins`` entry; ``version`` is omitted when it is ``"undefined"``."""

    class_name: str = Field(alias="class")
    type: str
    version: str | None = None

    @model_serializer(mode="wrap")
    def _omit_undefined_version(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        if data.get("version") == UNDEFINED_VERSION:
            data.pop("version", None)
        return data


class ConfigKeyInfoModel(ConnectModel):
    """A config key definition (``GET /connector-plugins/{p}/config``, ``definition`` of ConfigInfo)."""

    name: str
    type: str
    required: bool
    default_value: str | None
    importance: str | None
    documentation: str | None
    group: str | None
    width: str | None
    display_name: str | None
    dependents: list[str]
    # Last, as Jackson writes it: Java's getter names it ``order``, its constructor ``order_in_group``, so it
    # is not one of the creator's properties, which come first.
    order: int


class ConfigValueInfoModel(ConnectModel):
    """The ``value`` half of a validation result."""

    name: str
    value: str | None
    recommended_values: list[str]
    errors: list[str]
    visible: bool


class ConfigInfoModel(ConnectModel):
    """One key of a validation result."""

    definition: ConfigKeyInfoModel
    value: ConfigValueInfoModel


class ConfigInfosModel(ConnectModel):
    """``PUT /connector-plugins/{p}/config/validate``."""

    name: str
    error_count: int
    groups: list[str]
    configs: list[ConfigInfoModel]


class ConnectorOffsetModel(ConnectModel):
    """One entry of ``GET /connectors/{c}/offsets``: ``{"partition": {...}, "offset": {...}}``."""

    partition: dict[str, Any]
    offset: dict[str, Any] | None


class ConnectorOffsetsModel(ConnectModel):
    """``GET /connectors/{c}/offsets``: ``{"offsets": [...]}``."""

    offsets: list[ConnectorOffsetModel]


class ActiveTopicsModel(ConnectModel):
    """The value of ``GET /connectors/{c}/topics``: ``{"<connector>": {"topics": [...]}}``."""

    topics: list[str]


class LoggerLevelModel(ConnectModel):
    """``GET /admin/loggers/{name}`` (and each value of ``GET /admin/loggers``)."""

    level: str
    last_modified: int | None


class MessageModel(ConnectModel):
    """``{"message": "..."}``: the answer of ``PATCH`` / ``DELETE /connectors/{c}/offsets``."""

    message: str
