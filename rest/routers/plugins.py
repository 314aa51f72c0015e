"""``/connector-plugins`` endpoints (Java's ``ConnectorPluginsResource``)."""

from __future__ import annotations

import logging
from functools import partial
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import JSONResponse

from connect_runtime.errors import BadRequestHttpError
from connect_runtime.version import version_requirement
from rest.models import (
    STRING_MAP_JSON_SCHEMA,
    ConfigInfosModel,
    ConfigKeyInfoModel,
    ConnectorConfigBody,
    PluginInfoModel,
    parse_json_body,
    parse_request,
)
from rest.routers import RestContext, get_context

logger = logging.getLogger(__name__)

router = APIRouter(prefix="/connector-plugins", tags=["connector-plugins"])

#: ``ConnectorConfig.CONNECTOR_CLASS_CONFIG``.
CONNECTOR_CLASS_CONFIG = "connector.class"
_ALIAS_SUFFIX = "Connector"

Ctx = Annotated[RestContext, Depends(get_context)]

_VALIDATE_BODY_SCHEMA: dict[str, Any] = {
    "requestBody": {
        "required": True,
        "description": "The connector configuration to validate (unknown keys are tolerated)",
        "content": {"application/json": {"schema": STRING_MAP_JSON_SCHEMA}},
    }
}


def normalized_plugin_name(plugin_name: str) -> str:
    """Java's ``normalizedPluginName``: drop a trailing ``Connector`` (works for class names and aliases)."""
    if plugin_name.endswith(_ALIAS_SUFFIX) and len(plugin_name) > len(_ALIAS_SUFFIX):
        return plugin_name[: -len(_ALIAS_SUFFIX)]
    return plugin_name


def check_connector_class(plugin_name: str, config: dict[str, str]) -> None:
    """An included ``connector.class`` must name the plugin of the URL (full class name or alias)."""
    included = config.get(CONNECTOR_CLASS_CONFIG)
    if included is not None and not normalized_plugin_name(included).endswith(
        normalized_plugin_name(plugin_name)
    ):
        raise BadRequestHttpError(f"Included connector type {included} does not match request type {plugin_name}")


def _parse_connectors_only(value: str | None) -> bool:
    # Jersey binds ``@DefaultValue("true") boolean`` with Boolean.valueOf: only "true" (any case) is true.
    if value is None:
        return True
    return value.strip().lower() == "true"


@router.get("", response_model=list[PluginInfoModel], summary="Installed plugins")
@router.get("/", include_in_schema=False)
async def list_connector_plugins(
    ctx: Ctx,
    connectors_only: Annotated[
        str | None,
        Query(alias="connectorsOnly", description="true (default): connectors only; false: all plugins"),
    ] = None,
) -> JSONResponse:
    """``[{"class", "type", "version"}]``."""
    only = _parse_connectors_only(connectors_only)
    plugins = await ctx.blocking(partial(ctx.herder.connector_plugins, only))
    return JSONResponse([PluginInfoModel.from_entity(p).to_json() for p in plugins])


@router.get(
    "/{plugin}/config", response_model=list[ConfigKeyInfoModel], summary="Config definition of a plugin"
)
async def get_plugin_config(
    plugin: str,
    ctx: Ctx,
    version: Annotated[
        str | None,
        Query(description="A version or a version range the plugin must meet (default: latest)"),
    ] = None,
) -> JSONResponse:
    """The plugin's config key definitions; 400 for a version specification that does not parse, or that
    the installed plugin does not meet."""
    required = None
    if version is not None and version != "latest":
        try:
            required = version_requirement(version)
        except ValueError:
            raise BadRequestHttpError(f"Invalid version specification: {version}") from None
    keys = await ctx.blocking(partial(ctx.herder.plugin_config, plugin, required))
    return JSONResponse([ConfigKeyInfoModel.from_entity(k).to_json() for k in keys])


@router.put(
    "/{plugin}/config/validate",
    response_model=ConfigInfosModel,
    openapi_extra=_VALIDATE_BODY_SCHEMA,
    summary="Validate a connector configuration",
)
async def validate_configs(plugin: str, request: Request, ctx: Ctx) -> JSONResponse:
    """ConfigInfos for the given config; the config is passed to the herder unchanged."""
    body = parse_request(ConnectorConfigBody, parse_json_body(await request.body()))
    config = dict(body.root)
    check_connector_class(plugin, config)
    infos = await ctx.blocking(partial(ctx.herder.validate_connector_config, config))
    return JSONResponse(ConfigInfosModel.from_entity(infos).to_json())
