"""``GET /`` (server info) and ``GET /health`` (Java's ``RootResource``)."""

from __future__ import annotations

import importlib.metadata
import logging
from typing import Annotated

from fastapi import APIRouter, Depends
from fastapi.responses import JSONResponse

from connect_runtime.errors import ConnectRestError
from rest.models import ServerInfo, WorkerStatus
from rest.routers import RestContext, get_context

logger = logging.getLogger(__name__)

router = APIRouter(tags=["root"])

#: Java bounds the health check at 10 s (``RestRequestTimeout.healthCheckTimeoutMs``).
HEALTH_CHECK_TIMEOUT_S = 10.0
HEALTHY_MESSAGE = "Worker has completed startup and is ready to handle requests."
STARTING_MESSAGE = "Worker is still starting up."
UNHEALTHY_MESSAGE = "Worker was unable to handle this request and may be unable to handle other requests."
#: Reported as ``commit`` until builds stamp a revision.
COMMIT_ID = "unknown"
_FALLBACK_VERSION = "0.1.0"


def runtime_version() -> str:
    """The installed ``connect-runtime`` version (``0.1.0`` when running from a source tree)."""
    try:
        return importlib.metadata.version("connect-runtime")
    except importlib.metadata.PackageNotFoundError:
        return _FALLBACK_VERSION


@router.get("/", response_model=ServerInfo, summary="Worker version and Kafka cluster id")
async def server_info(ctx: Annotated[RestContext, Depends(get_context)]) -> JSONResponse:
    """``{"version", "commit", "kafka_cluster_id"}``."""
    cluster_id = await ctx.blocking(ctx.herder.kafka_cluster_id)
    info = ServerInfo(version=runtime_version(), commit=COMMIT_ID, kafka_cluster_id=cluster_id)
    return JSONResponse(info.to_json())


@router.get(
    "/health",
    response_model=WorkerStatus,
    responses={503: {"model": WorkerStatus}, 500: {"model": WorkerStatus}},
    summary="Worker readiness and liveness",
)
async def health(ctx: Annotated[RestContext, Depends(get_context)]) -> JSONResponse:
    """200 once the worker is ready, 503 while it starts, 500 if it does not answer in time."""
    timeout = min(HEALTH_CHECK_TIMEOUT_S, ctx.request_timeout_s)
    try:
        ready = await ctx.blocking(ctx.herder.is_ready, timeout_s=timeout)
    except ConnectRestError as exc:
        logger.warning("Health check failed: %s", exc.message)
        body = WorkerStatus(status="unhealthy", message=UNHEALTHY_MESSAGE)
        return JSONResponse(body.to_json(), status_code=500)
    if ready:
        return JSONResponse(WorkerStatus(status="healthy", message=HEALTHY_MESSAGE).to_json())
    body = WorkerStatus(status="starting", message=STARTING_MESSAGE)
    return JSONResponse(body.to_json(), status_code=503)
