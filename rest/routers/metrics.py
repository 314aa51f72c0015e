"""``GET /metrics``: the worker's metrics for Prometheus (:mod:`connect_runtime.metrics.prometheus`).

Served with ``/admin``: on the regular listeners (behind the REST extensions, so Basic authentication
covers it as every other resource) unless ``admin.listeners`` is set, then only there.
"""

from __future__ import annotations

from functools import partial
from typing import Annotated

from fastapi import APIRouter, Depends, Header
from fastapi.responses import PlainTextResponse, Response

from connect_runtime.metrics.prometheus import exposition
from rest.routers import RestContext, get_context

router = APIRouter(tags=["metrics"])

_TEXT = {"schema": {"type": "string"}}


@router.get(
    "/metrics",
    response_class=PlainTextResponse,
    responses={200: {
        "description": "Every metric of this worker, in the Prometheus text format 0.0.4, or OpenMetrics 1.0.0 "
                       "when the Accept header asks for application/openmetrics-text",
        "content": {"text/plain": _TEXT, "application/openmetrics-text": _TEXT},
    }},
    summary="This worker's metrics, named as Strimzi's JMX-exporter rules name Kafka Connect's",
)
async def metrics(ctx: Annotated[RestContext, Depends(get_context)],
                  accept: Annotated[str | None, Header(include_in_schema=False)] = None) -> Response:
    """Every metric group of this worker, read now (see the Monitoring section of the operations guide)."""
    # Off the event loop: a gauge reading live state may wait on a lock.
    body, content_type = await ctx.blocking(partial(exposition, ctx.herder.metrics(), accept))
    return Response(content=body, media_type=content_type)
