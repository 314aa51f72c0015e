"""``/admin/loggers`` (Java's ``LoggingResource``, KIP-495 and KIP-976): read and change log levels."""

from __future__ import annotations

import logging
from functools import partial
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request, Response
from fastapi.responses import JSONResponse

from connect_runtime.cluster.herder_api import LoggerLevelInfo
from connect_runtime.errors import BadRequestHttpError, NotFoundHttpError
from connect_runtime.loggers import to_python_level
from rest.models import ConnectorConfigPatchBody, LoggerLevelModel, parse_json_body, parse_request
from rest.routers import RestContext, get_context

logger = logging.getLogger(__name__)

router = APIRouter(prefix="/admin/loggers", tags=["loggers"])

Ctx = Annotated[RestContext, Depends(get_context)]

WORKER_SCOPE = "worker"
CLUSTER_SCOPE = "cluster"


def _level_json(level: LoggerLevelInfo) -> dict[str, Any]:
    # Jackson writes a null ``last_modified`` (the level was never changed through the API).
    return {"level": level.level, "last_modified": level.last_modified}


@router.get(
    "",
    response_model=dict[str, LoggerLevelModel],
    summary="List the current loggers that have their levels explicitly set and their log levels",
)
@router.get("/", include_in_schema=False)
async def list_loggers(ctx: Ctx) -> JSONResponse:
    """``{"<logger>": {"level", "last_modified"}}``, ``root`` included."""
    levels = await ctx.blocking(ctx.herder.all_logger_levels)
    return JSONResponse({name: _level_json(level) for name, level in levels.items()})


@router.get("/{logger_name}", response_model=LoggerLevelModel, summary="Get the log level for the specified logger")
async def get_logger(logger_name: str, ctx: Ctx) -> JSONResponse:
    """``{"level", "last_modified"}``; 404 if there is no such logger."""
    level = await ctx.blocking(partial(ctx.herder.logger_level, logger_name))
    if level is None:
        raise NotFoundHttpError(f"Logger {logger_name} not found.")
    return JSONResponse(_level_json(level))


@router.put(
    "/{logger_name}",
    response_model=list[str],
    responses={204: {"description": "Cluster scope: every worker will apply the level"}},
    summary="Set the log level for the specified logger",
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": {
                "type": "object", "properties": {"level": {"type": "string"}}}}},
        }
    },
)
async def set_level(
    logger_name: str,
    request: Request,
    ctx: Ctx,
    scope: Annotated[
        str, Query(description="The scope for the logging modification (single-worker, cluster-wide, etc.)")
    ] = WORKER_SCOPE,
) -> Response:
    """Worker scope: 200 and the names of the loggers changed; cluster scope: 204 (every worker applies
    it). Another scope is taken as ``worker``, as Java does."""
    body = parse_request(ConnectorConfigPatchBody, parse_json_body(await request.body()))
    level = body.root.get("level")
    if level is None:
        raise BadRequestHttpError("Desired 'level' parameter was not specified in request.")
    if to_python_level(level) is None:
        raise NotFoundHttpError(f"invalid log level '{level}'.")
    if scope.lower() == CLUSTER_SCOPE:
        await ctx.blocking(partial(ctx.herder.set_cluster_logger_level, logger_name, level))
        return Response(status_code=204)
    if scope.lower() != WORKER_SCOPE:
        logger.warning("Received invalid scope '%s' in request to adjust logging level; will default to %s",
                       scope, WORKER_SCOPE)
    affected = await ctx.blocking(partial(ctx.herder.set_worker_logger_level, logger_name, level))
    return JSONResponse(list(affected))
