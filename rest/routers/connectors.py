"""``/connectors`` endpoints (Java's ``ConnectorsResource``), minus the internal ones.

Create, update, delete, stop, restarts and offset changes must run on the leader (or, for plain restarts, on the
owner of the connector or task) and go through :func:`rest.routers.complete_or_forward`; reads
(lists, info, config, task configs, statuses) await the herder's futures, which it completes at once
from its latest snapshots; pause and resume call the herder synchronously on the thread pool, as
Java does. The internal endpoints live in :mod:`rest.routers.internal`.
"""

from __future__ import annotations

import logging
from typing import Annotated, Any
from urllib.parse import quote

import orjson
from fastapi import APIRouter, Depends, HTTPException, Path, Query, Request, Response
from fastapi.responses import JSONResponse

from connect_runtime.cluster.herder_api import ConnectorInfo
from connect_runtime.errors import BadRequestHttpError
from connect_runtime.types import ConnectorTaskId, TargetState
from rest.models import (
    CONNECTOR_OFFSETS_JSON_SCHEMA,
    CREATE_CONNECTOR_JSON_SCHEMA,
    STRING_MAP_JSON_SCHEMA,
    ActiveTopicsModel,
    ConnectorConfigBody,
    ConnectorConfigPatchBody,
    ConnectorExpansion,
    ConnectorInfoModel,
    ConnectorOffsetsModel,
    ConnectorStateInfoModel,
    MessageModel,
    TaskInfoModel,
    TaskStateModel,
    expanded_connector_json,
    parse_connector_offsets,
    parse_create_connector,
    parse_json_body,
    parse_request,
)
from rest.routers import RestContext, complete_or_forward, get_context, parse_forward, parse_java_boolean

logger = logging.getLogger(__name__)

router = APIRouter(prefix="/connectors", tags=["connectors"])

#: ``ConnectorConfig.NAME_CONFIG``.
NAME_CONFIG = "name"
_VALIDATE_HINT = (
    "You can also find the above list of errors at the endpoint "
    "`/connector-plugins/{connectorType}/config/validate`"
)

Ctx = Annotated[RestContext, Depends(get_context)]
# ``forward`` is internal (worker-to-worker); accepted everywhere, hidden from the docs.
Forward = Annotated[str | None, Query(include_in_schema=False)]


#: The expansions of ``GET /connectors?expand=...``.
_EXPANSIONS = frozenset({"status", "info"})

_INT_MIN, _INT_MAX = -(2**31), 2**31 - 1
_ASCII_DIGITS = frozenset("0123456789")


def parse_task_id(value: str) -> int:
    """A ``{task}`` path segment as Jersey binds ``@PathParam Integer``: unparseable → 404.

    ``Integer.valueOf`` takes an optional sign and decimal digits within the int range; a path
    parameter that does not convert makes JAX-RS answer 404 (not 400).
    """
    digits = value[1:] if value[:1] in ("+", "-") else value
    if digits and set(digits) <= _ASCII_DIGITS:
        number = int(value)
        if _INT_MIN <= number <= _INT_MAX:
            return number
    raise HTTPException(status_code=404)


TaskIdParam = Annotated[str, Path(description="The task id", json_schema_extra={"type": "integer", "format": "int32"})]


def _config_body_schema(description: str) -> dict[str, Any]:
    return {
        "requestBody": {
            "required": True,
            "description": description,
            "content": {"application/json": {"schema": STRING_MAP_JSON_SCHEMA}},
        }
    }


_CREATE_BODY_SCHEMA: dict[str, Any] = {
    "requestBody": {
        "required": True,
        "content": {"application/json": {"schema": CREATE_CONNECTOR_JSON_SCHEMA}},
    }
}


def check_and_put_connector_config_name(name: str, config: dict[str, str]) -> None:
    """Java's ``checkAndPutConnectorConfigName``: the config's ``name`` must match, else it is added."""
    included = config.get(NAME_CONFIG)
    if included is not None:
        if included != name:
            raise BadRequestHttpError(
                f"Connector name configuration ({included}) doesn't match connector name in the URL ({name})"
            )
    else:
        config[NAME_CONFIG] = name


#: What Java's ``String.trim()`` strips from both ends: every character up to and including the space.
_JAVA_TRIMMED = "".join(chr(c) for c in range(0x21))


def java_trim(text: str) -> str:
    """Java's ``String.trim()``, with which Java trims a new connector's name: control characters too."""
    return text.strip(_JAVA_TRIMMED)


def _java_is_iso_control(ch: str) -> bool:
    code = ord(ch)
    return code <= 0x1F or 0x7F <= code <= 0x9F


def check_connector_name(name: str) -> None:
    """Reject names Java's ``name`` validator (``NonEmptyStringWithoutControlChars``) rejects.

    The herder validates the name too; checking here keeps an empty name out of the ``Location``
    header and answers with the exact message Java's herder gives for this single error.
    """
    problem: str | None = None
    if not name:
        problem = "String may not be empty"
    else:
        bad = [str(ord(c)) for c in name if _java_is_iso_control(c)]
        if bad:
            problem = "String may not contain control sequences but had the following ASCII chars: "
            problem += ", ".join(bad)
    if problem is not None:
        raise BadRequestHttpError(
            "Connector configuration is invalid and contains the following 1 error(s):\n"
            f"Invalid value {name} for configuration {NAME_CONFIG}: {problem}\n{_VALIDATE_HINT}"
        )


def connector_location(request: Request, name: str) -> str:
    """Absolute URL of a connector, as JAX-RS resolves ``Response.created("/connectors/<name>")``."""
    return str(request.base_url).rstrip("/") + "/connectors/" + quote(name, safe="/:@!$&'()*+,;=~")


def _info_response(info: ConnectorInfo, status: int, location: str | None = None) -> JSONResponse:
    headers = {"Location": location} if location is not None else None
    return JSONResponse(ConnectorInfoModel.from_entity(info).to_json(), status_code=status, headers=headers)


@router.get(
    "",
    response_model=list[str] | dict[str, ConnectorExpansion],
    summary="List connectors (optionally expanded with status and/or info)",
)
@router.get("/", include_in_schema=False)
async def list_connectors(
    ctx: Ctx,
    expand: Annotated[list[str] | None, Query(description="status and/or info; repeatable")] = None,
    forward: Forward = None,
) -> Response:
    """Names, or ``{name: {"status": ..., "info": ...}}`` with the requested expansions.

    As Java, each ``expand`` value is one expansion (``status,info`` is an unknown one) and unknown
    ones are ignored. All connectors are read at once, from one snapshot, and rendered without
    pydantic: at hundreds of connectors, per-connector reads and model validation were most of the time.
    """
    if expand is None:
        names = await ctx.complete(ctx.herder.connectors())
        return JSONResponse(list(names))
    for unknown in sorted(set(expand) - _EXPANSIONS):
        logger.info("Ignoring unknown expansion type %s", unknown)
    expanded = await ctx.complete(ctx.herder.connectors_expanded("status" in expand, "info" in expand))
    # orjson writes what JSONResponse's json.dumps(ensure_ascii=False, separators=(",", ":")) does.
    body = orjson.dumps({name: expanded_connector_json(entry) for name, entry in expanded.items()})
    return Response(body, media_type="application/json")


@router.post(
    "",
    status_code=201,
    response_model=ConnectorInfoModel,
    openapi_extra=_CREATE_BODY_SCHEMA,
    summary="Create a connector",
)
@router.post("/", status_code=201, include_in_schema=False)
async def create_connector(request: Request, ctx: Ctx, forward: Forward = None) -> JSONResponse:
    """201 + ``Location`` + ConnectorInfo; 409 if it exists; 400 if the request or config is invalid."""
    create = parse_create_connector(parse_json_body(await request.body()))
    name = java_trim(create.name or "")
    if create.config is None:
        raise BadRequestHttpError('Connector configuration ("config") is missing from the request')
    config = dict(create.config)
    check_and_put_connector_config_name(name, config)
    check_connector_name(name)
    initial: TargetState | None = create.initial_state.to_target_state() if create.initial_state else None
    created = await complete_or_forward(
        ctx,
        request,
        parse_forward(forward),
        lambda: ctx.herder.put_connector_config(name, config, False, initial),
    )
    logger.info("Created connector %s", name)
    return _info_response(created.info, 201, connector_location(request, name))


@router.get("/{connector}", response_model=ConnectorInfoModel, summary="Connector config and tasks")
async def get_connector(connector: str, ctx: Ctx, forward: Forward = None) -> JSONResponse:
    """``{"name", "config", "tasks", "type"}``; 404 if unknown."""
    info = await ctx.complete(ctx.herder.connector_info(connector))
    return _info_response(info, 200)


@router.get("/{connector}/config", response_model=dict[str, str], summary="Connector config")
async def get_connector_config(connector: str, ctx: Ctx, forward: Forward = None) -> JSONResponse:
    """The config map; 404 if unknown."""
    config = await ctx.complete(ctx.herder.connector_config(connector))
    return JSONResponse(dict(config))


@router.put(
    "/{connector}/config",
    response_model=ConnectorInfoModel,
    responses={201: {"model": ConnectorInfoModel}},
    openapi_extra=_config_body_schema("The full connector configuration"),
    summary="Create or reconfigure a connector",
)
async def put_connector_config(
    connector: str, request: Request, ctx: Ctx, forward: Forward = None
) -> JSONResponse:
    """201 + ``Location`` when created, 200 when updated."""
    body = parse_request(ConnectorConfigBody, parse_json_body(await request.body()))
    config = dict(body.root)
    check_and_put_connector_config_name(connector, config)
    check_connector_name(connector)
    created = await complete_or_forward(
        ctx,
        request,
        parse_forward(forward),
        lambda: ctx.herder.put_connector_config(connector, config, True, None),
    )
    if created.created:
        logger.info("Created connector %s", connector)
        return _info_response(created.info, 201, connector_location(request, connector))
    logger.info("Reconfigured connector %s", connector)
    return _info_response(created.info, 200)


@router.patch(
    "/{connector}/config",
    response_model=ConnectorInfoModel,
    openapi_extra={
        "requestBody": {
            "required": True,
            "description": "Keys to set; a null value removes the key",
            "content": {"application/json": {"schema": {"type": "object", "additionalProperties": {
                "type": "string", "nullable": True}}}},
        }
    },
    summary="Patch the configuration of the specified connector",
)
async def patch_connector_config(
    connector: str, request: Request, ctx: Ctx, forward: Forward = None
) -> JSONResponse:
    """KIP-477: 200 + ConnectorInfo of the merged config (validated as a PUT is); 404 if unknown."""
    body = parse_request(ConnectorConfigPatchBody, parse_json_body(await request.body()))
    patch = dict(body.root)
    created = await complete_or_forward(
        ctx,
        request,
        parse_forward(forward),
        lambda: ctx.herder.patch_connector_config(connector, patch),
    )
    logger.info("Patched the configuration of connector %s", connector)
    return _info_response(created.info, 200)


@router.get(
    "/{connector}/topics",
    response_model=dict[str, ActiveTopicsModel],
    summary="Get the list of topics actively used by the specified connector",
)
async def get_connector_active_topics(connector: str, ctx: Ctx) -> JSONResponse:
    """``{"<connector>": {"topics": [...]}}``; 403 when ``topic.tracking.enable`` is false."""
    topics = await ctx.complete(ctx.herder.connector_active_topics(connector))
    return JSONResponse({connector: {"topics": list(topics)}})


@router.put(
    "/{connector}/topics/reset",
    status_code=202,
    response_class=Response,
    responses={202: {"description": "The active topics were reset"}},
    summary="Reset the list of topics actively used by the specified connector",
)
async def reset_connector_active_topics(connector: str, ctx: Ctx) -> Response:
    """202 with no body; 403 when topic tracking or its reset is disabled."""
    await ctx.complete(ctx.herder.reset_connector_active_topics(connector))
    return Response(status_code=202)


@router.get(
    "/{connector}/status", response_model=ConnectorStateInfoModel, summary="Connector and task states"
)
async def get_connector_status(connector: str, ctx: Ctx) -> JSONResponse:
    """``{"name", "connector", "tasks", "type"}``; ``trace`` only where there is one."""
    status = await ctx.complete(ctx.herder.connector_status(connector))
    return JSONResponse(ConnectorStateInfoModel.from_entity(status).to_json())


@router.get("/{connector}/tasks", response_model=list[TaskInfoModel], summary="Task configs")
async def get_task_configs(connector: str, ctx: Ctx, forward: Forward = None) -> JSONResponse:
    """``[{"id": {"connector", "task"}, "config": {...}}]``."""
    tasks = await ctx.complete(ctx.herder.task_configs(connector))
    return JSONResponse([TaskInfoModel.from_entity(t).to_json() for t in tasks])


@router.delete("/{connector}", status_code=204, summary="Delete a connector")
async def delete_connector(connector: str, request: Request, ctx: Ctx, forward: Forward = None) -> Response:
    """204; 404 if unknown."""
    await complete_or_forward(
        ctx, request, parse_forward(forward), lambda: ctx.herder.delete_connector(connector)
    )
    logger.info("Deleted connector %s", connector)
    return Response(status_code=204)


@router.put(
    "/{connector}/pause",
    status_code=202,
    response_class=Response,
    responses={202: {"description": "The connector will be paused"}},
    summary="Pause a connector and its tasks",
)
async def pause_connector(connector: str, ctx: Ctx) -> Response:
    """202 with no body (any worker may write the target state)."""
    await ctx.blocking(lambda: ctx.herder.pause_connector(connector))
    return Response(status_code=202)


@router.put(
    "/{connector}/resume",
    status_code=202,
    response_class=Response,
    responses={202: {"description": "The connector will be resumed"}},
    summary="Resume a paused connector",
)
async def resume_connector(connector: str, ctx: Ctx) -> Response:
    """202 with no body."""
    await ctx.blocking(lambda: ctx.herder.resume_connector(connector))
    return Response(status_code=202)


@router.put(
    "/{connector}/stop",
    status_code=204,
    responses={204: {"description": "Connector stopped"}},
    summary="Stop a connector and shut down its tasks",
)
async def stop_connector(connector: str, request: Request, ctx: Ctx, forward: Forward = None) -> Response:
    """204: the leader wrote an empty task set and the STOPPED target state (idempotent)."""
    await complete_or_forward(ctx, request, parse_forward(forward), lambda: ctx.herder.stop_connector(connector))
    logger.info("Stopped connector %s", connector)
    return Response(status_code=204)


@router.post(
    "/{connector}/restart",
    status_code=202,
    response_model=ConnectorStateInfoModel,
    responses={204: {"description": "Connector restarted (includeTasks and onlyFailed both false)"}},
    summary="Restart a connector (optionally with its tasks, or only what failed)",
)
async def restart_connector(
    connector: str,
    request: Request,
    ctx: Ctx,
    include_tasks: Annotated[
        str | None, Query(alias="includeTasks", description="Also restart the tasks (default false)")
    ] = None,
    only_failed: Annotated[
        str | None, Query(alias="onlyFailed", description="Only restart FAILED instances (default false)")
    ] = None,
    forward: Forward = None,
) -> Response:
    """Both flags false: the owner restarts the connector at once → 204. Otherwise the leader records a
    restart request → 202 with the status showing what will restart as ``RESTARTING``."""
    tasks, failed = parse_java_boolean(include_tasks), parse_java_boolean(only_failed)
    result = await complete_or_forward(
        ctx,
        request,
        parse_forward(forward),
        lambda: ctx.herder.restart_connector(connector, tasks, failed),
    )
    if result is None:
        return Response(status_code=204)
    return JSONResponse(ConnectorStateInfoModel.from_entity(result).to_json(), status_code=202)


@router.get(
    "/{connector}/tasks/{task}/status",
    response_model=TaskStateModel,
    summary="State of one task",
)
async def get_task_status(connector: str, task: TaskIdParam, ctx: Ctx) -> JSONResponse:
    """``{"id", "state", "worker_id", "trace"?}``; 404 if unknown."""
    task_id = ConnectorTaskId(connector, parse_task_id(task))
    state = await ctx.complete(ctx.herder.task_status(task_id))
    return JSONResponse(TaskStateModel.from_entity(state).to_json())


@router.post(
    "/{connector}/tasks/{task}/restart",
    status_code=204,
    summary="Restart one task",
)
async def restart_task(
    connector: str, task: TaskIdParam, request: Request, ctx: Ctx, forward: Forward = None
) -> Response:
    """204 once the task's owner restarted it; 404 if the connector or task is unknown."""
    task_id = ConnectorTaskId(connector, parse_task_id(task))
    await complete_or_forward(ctx, request, parse_forward(forward), lambda: ctx.herder.restart_task(task_id))
    logger.info("Restarted task %s", task_id)
    return Response(status_code=204)


@router.get(
    "/{connector}/offsets",
    response_model=ConnectorOffsetsModel,
    summary="Get the current offsets for the specified connector",
)
async def get_offsets(connector: str, ctx: Ctx, forward: Forward = None) -> JSONResponse:
    """``{"offsets": [{"partition": {...}, "offset": {...}}]}``; any worker answers; 404 if unknown."""
    offsets = await ctx.complete(ctx.herder.connector_offsets(connector))
    return JSONResponse(ConnectorOffsetsModel.from_entity(offsets).to_json())


@router.patch(
    "/{connector}/offsets",
    response_model=MessageModel,
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": CONNECTOR_OFFSETS_JSON_SCHEMA}},
        }
    },
    summary="Alter the offsets for the specified connector",
)
async def alter_offsets(connector: str, request: Request, ctx: Ctx, forward: Forward = None) -> JSONResponse:
    """200 ``{"message": ...}``; the connector must be STOPPED (400 otherwise); a null offset resets
    its partition. Runs on the leader, after a zombie-fencing round under exactly-once support."""
    offsets = parse_connector_offsets(await request.body())
    message = await complete_or_forward(
        ctx, request, parse_forward(forward), lambda: ctx.herder.alter_connector_offsets(connector, offsets)
    )
    return JSONResponse(MessageModel(message=message).to_json())


@router.delete(
    "/{connector}/offsets",
    response_model=MessageModel,
    summary="Reset the offsets for the specified connector",
)
async def reset_offsets(connector: str, request: Request, ctx: Ctx, forward: Forward = None) -> JSONResponse:
    """200 ``{"message": ...}``: every partition's offset is removed; the connector must be STOPPED."""
    message = await complete_or_forward(
        ctx, request, parse_forward(forward), lambda: ctx.herder.reset_connector_offsets(connector)
    )
    return JSONResponse(MessageModel(message=message).to_json())
