"""Internal (worker-to-worker) endpoints: Java's ``InternalClusterResource``. Hidden from the docs.

``POST /connectors/{c}/tasks``: the worker running a connector hands its task configs to the leader.
``PUT /connectors/{c}/fence``: a task asks the leader to fence the previous task generation (KIP-618).

Both are KIP-507 signed: the signature over the raw body is checked before anything else (before the
body is even parsed), with Java's statuses and messages (see
:func:`connect_runtime.cluster.request_signature.check_request_signature`). A worker that is not the
leader verifies with its own copy of the session key and forwards the request, re-signed.
"""

from __future__ import annotations

import logging
from typing import Annotated

from fastapi import APIRouter, Depends, Query, Request, Response
from pydantic import TypeAdapter, ValidationError

from connect_runtime.cluster.request_signature import check_request_signature
from connect_runtime.errors import BadRequestHttpError
from rest.models import OptionalString, format_validation_error, parse_json_body
from rest.routers import RestContext, complete_or_forward, get_context, parse_forward

logger = logging.getLogger(__name__)

router = APIRouter(prefix="/connectors", tags=["internal"])

Ctx = Annotated[RestContext, Depends(get_context)]
Forward = Annotated[str | None, Query(include_in_schema=False)]

# Jackson binds List<Map<String, String>>: scalars become their text, null values are kept (and
# dropped here: a task config never holds a null), nested structures are refused.
_TASK_CONFIGS = TypeAdapter(list[dict[str, OptionalString]])


def parse_task_configs(raw: bytes) -> list[dict[str, str]]:
    """The body of ``POST /connectors/{c}/tasks``: a JSON list of string maps; anything else is 400."""
    data = parse_json_body(raw)
    if not isinstance(data, list):
        raise BadRequestHttpError("Request body must be a JSON array of task configurations")
    try:
        configs = _TASK_CONFIGS.validate_python(data)
    except ValidationError as exc:
        raise BadRequestHttpError(format_validation_error(exc)) from None
    return [{k: v for k, v in config.items() if v is not None} for config in configs]


async def verify_signature(ctx: RestContext, request: Request, body: bytes) -> None:
    """Reject an internal request whose KIP-507 signature does not check out (400/403/503)."""
    herder = ctx.herder
    algorithms, key = await ctx.blocking(lambda: (herder.verification_algorithms(), herder.session_key()))
    check_request_signature(request.headers, body, algorithms, None if key is None else key.key)


@router.post("/{connector}/tasks", status_code=204, include_in_schema=False)
async def put_task_configs(connector: str, request: Request, ctx: Ctx, forward: Forward = None) -> Response:
    """Write a connector's task configs (leader only; forwarded there otherwise). 204."""
    body = await request.body()
    await verify_signature(ctx, request, body)
    configs = parse_task_configs(body)
    await complete_or_forward(
        ctx,
        request,
        parse_forward(forward),
        lambda: ctx.herder.put_task_configs(connector, configs),
        internal=True,
    )
    logger.debug("Wrote %d task configs for connector %s", len(configs), connector)
    return Response(status_code=204)


@router.put("/{connector}/fence", status_code=204, include_in_schema=False)
async def fence_zombies(connector: str, request: Request, ctx: Ctx, forward: Forward = None) -> Response:
    """Fence the previous generation of a source connector's tasks (leader only). 204."""
    body = await request.body()
    await verify_signature(ctx, request, body)
    await complete_or_forward(
        ctx,
        request,
        parse_forward(forward),
        lambda: ctx.herder.fence_zombies(connector),
        internal=True,
    )
    logger.debug("Zombie fencing for connector %s done", connector)
    return Response(status_code=204)
