"""``GET /`` (server info) and ``GET /health`` (Java's ``RootResource``)."""

from __future__ import annotations

import logging
import time
from typing import Annotated

from fastapi import APIRouter, Depends
from fastapi.responses import JSONResponse

from connect_runtime.errors import HttpStatusError
from connect_runtime.version import runtime_version
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
    """200 once the worker is ready and its herder thread answers; 503 while it starts; 500 if the herder
    thread does not process a request within 10 s (stuck: it would not serve anything else either)."""
    timeout = min(HEALTH_CHECK_TIMEOUT_S, ctx.request_timeout_s)
    started = time.monotonic()
    try:
        await ctx.complete(ctx.herder.health_check(), timeout_s=timeout)
        responsive = True
    except HttpStatusError as exc:
        logger.warning("Health check failed: %s", exc.message)
        responsive = False
    try:
        ready = await ctx.blocking(ctx.herder.is_ready,
                                   timeout_s=max(timeout - (time.monotonic() - started), 0.1))
    except HttpStatusError as exc:
        logger.warning("Health check failed: %s", exc.message)
        ready, responsive = True, False  # cannot even say whether it started: unhealthy
    if not ready:
        body = WorkerStatus(status="starting", message=STARTING_MESSAGE)
        return JSONResponse(body.to_json(), status_code=503)
    if not responsive:
        body = WorkerStatus(status="unhealthy", message=UNHEALTHY_MESSAGE)
        return JSONResponse(body.to_json(), status_code=500)
    return JSONResponse(WorkerStatus(status="healthy", message=HEALTHY_MESSAGE).to_json())
