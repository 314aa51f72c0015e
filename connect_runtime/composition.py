"""The composition root of a worker process, as Java's ``AbstractConnectCli``: the one place that turns
a worker file into running parts and closes them again.

:class:`~connect_runtime.config.worker_config.WorkerConfig` is pure data. What the file configures that
lives beyond parsing (config providers, the override policy, the REST server's and the peer client's TLS
contexts, the resolved secrets registered with the process's log redactor) is made here, in
:func:`compose_worker`, owned by the :class:`ComposedWorker` it returns and closed by
:meth:`ComposedWorker.close`. ``connect-distributed`` and ``connect-runtime demo`` both start workers
through :func:`load_worker`, :func:`distributed_worker` and :func:`rest_server_factory`.
"""

from __future__ import annotations

import logging
import os
import ssl
import threading
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from connect_runtime.api.errors import ConfigException
from connect_runtime.api.override_policy import ConnectorClientConfigOverridePolicy
from connect_runtime.config.config_providers import CONFIG_PROVIDERS_CONFIG, ResolvedConfig, has_placeholder
from connect_runtime.config.rest_tls import (
    ADMIN_LISTENERS_HTTPS_PREFIX,
    LISTENERS_HTTPS_PREFIX,
    PeerTls,
    TlsSettingError,
    client_context,
    server_context,
)
from connect_runtime.config.worker_config import (
    RestListener,
    WorkerConfig,
    WorkerConfigError,
    plugin_allowlist,
    read_worker_properties,
)
from connect_runtime.config.worker_plugins import WorkerPlugins, create_config_transformer, create_override_policy
from connect_runtime.redaction import redactor

if TYPE_CHECKING:
    from connect_runtime.cluster.herder import DistributedHerder
    from connect_runtime.distributed import DistributedWorker, RestServerFactory

__all__ = ["LOG_FORMAT", "ComposedWorker", "compose_worker", "distributed_worker", "load_worker",
           "rest_server_factory"]

log = logging.getLogger(__name__)

#: The log line of every worker process (Kafka Connect's layout: time, level, message, logger, thread).
LOG_FORMAT = "[%(asctime)s] %(levelname)s %(message)s (%(name)s) [%(threadName)s]"


class ComposedWorker:
    """A worker's config and the live objects made from it; :meth:`close` ends what was made."""

    def __init__(self, config: WorkerConfig, plugins: WorkerPlugins,
                 server_tls: Mapping[str, ssl.SSLContext], redaction_owner: object) -> None:
        self.config = config
        self.plugins = plugins
        self._server_tls = dict(server_tls)
        self._redaction_owner = redaction_owner
        self._closed = threading.Event()

    def rest_ssl_context(self, listener: RestListener) -> ssl.SSLContext:
        """The TLS context of an https listener (built by :func:`compose_worker`): ``admin.listeners.https.ssl.*``
        for an admin listener, ``listeners.https.ssl.*`` for the others."""
        return self._server_tls[_tls_prefix(listener)]

    def close(self) -> None:
        """Close the config providers and the override policy, and stop redacting the worker's resolved
        values; once (later calls do nothing)."""
        if self._closed.is_set():
            return
        self._closed.set()
        self.plugins.config_transformer.close()
        _close_policy(self.plugins.override_policy)
        redactor.unregister(self._redaction_owner)


def _close_policy(policy: ConnectorClientConfigOverridePolicy) -> None:
    try:
        policy.close()
    except Exception:
        log.exception("The connector client config override policy failed to close")


def compose_worker(props: Mapping[str, str]) -> ComposedWorker:
    """Make a worker's parts from its raw properties; the first problem raises a one-line
    :class:`WorkerConfigError` naming its key, and what was made by then is closed.

    The config providers named in ``config.providers`` are created first and resolve
    ``${provider:[path:]key}`` placeholders in the other values (as Kafka's ``AbstractConfig`` does).
    Resolved values are redacted from the process's log until :meth:`ComposedWorker.close`, and an error
    never shows one (the key it names shows its placeholder). The TLS contexts of https listeners are
    built here, so a setting that cannot be honoured refuses start-up; like Java (KAFKA-14816), a worker
    without https listeners only logs a bad peer TLS setting, and its https calls then fail with it.
    """
    allowlist = plugin_allowlist(props)
    transformer = create_config_transformer(props, allowlist)
    raw = {k: v for k, v in props.items() if not k.startswith(CONFIG_PROVIDERS_CONFIG)}
    resolution = ResolvedConfig(dict(raw))
    owner = ("worker config", object())
    policy = None
    try:
        resolution = transformer.transform(raw)
        # Redacted from the log for the life of the worker (its own settings never stop being used).
        redactor.register(owner, resolution)
        resolved = dict(resolution.data)
        resolved.update({k: v for k, v in props.items() if k.startswith(CONFIG_PROVIDERS_CONFIG)})
        config = WorkerConfig.from_properties(resolved, allowlist)
        policy = create_override_policy(config)
        server_tls, peer_tls = _tls_contexts(config)
        unknown = config.unknown_settings()
        if unknown:
            log.warning("Worker settings this runtime does not know, without effect unless a REST extension, config "
                        "provider or override policy reads them (check their spelling): %s", ", ".join(unknown))
    except ConfigException as e:
        transformer.close()
        if policy is not None:
            _close_policy(policy)
        redactor.unregister(owner)
        raise _without_resolved_values(e, raw, resolution) from None
    return ComposedWorker(config, WorkerPlugins(transformer, policy, peer_tls), server_tls, owner)


def load_worker(path: str | os.PathLike[str], overrides: Sequence[str] = ()) -> ComposedWorker:
    """:func:`compose_worker` of a worker properties file with ``--override key=value`` strings applied."""
    return compose_worker(read_worker_properties(path, overrides))


def _tls_prefix(listener: RestListener) -> str:
    return LISTENERS_HTTPS_PREFIX if listener.regular else ADMIN_LISTENERS_HTTPS_PREFIX


def _tls_contexts(config: WorkerConfig) -> tuple[dict[str, ssl.SSLContext], PeerTls]:
    """The server contexts of the https listeners by settings prefix, and the peer client's TLS."""
    originals = config.originals
    listeners = config.rest_listeners()
    server_tls: dict[str, ssl.SSLContext] = {}
    try:
        for listener in listeners:
            if listener.https and _tls_prefix(listener) not in server_tls:
                server_tls[_tls_prefix(listener)] = server_context(originals, _tls_prefix(listener))
        if config.rest_advertised_listener == "https" or server_tls:
            return server_tls, PeerTls(client_context(originals))
    except TlsSettingError as e:
        raise WorkerConfigError(str(e), key=e.key) from None
    try:
        return server_tls, PeerTls(client_context(originals))
    except TlsSettingError as e:
        log.error("Calls to other workers over https will fail: %s", e)
        return server_tls, PeerTls(None, str(e))


def _without_resolved_values(error: ConfigException, raw: Mapping[str, str],
                             resolution: ResolvedConfig) -> WorkerConfigError:
    """``error`` as a one-line :class:`WorkerConfigError` showing no value a provider resolved: the key it
    names shows its value as written (the placeholder), and other resolved values in the message are put
    back as their placeholders."""
    message = str(error)
    key = getattr(error, "key", None)
    value = getattr(error, "value", None)
    shown = raw.get(key) if key is not None else None
    if isinstance(shown, str) and has_placeholder(shown):
        if value is not None and str(value):
            message = message.replace(f'"{value}"', f'"{shown}"', 1)
        value = shown
    return WorkerConfigError(resolution.redact(message), key=key, value=value)


def distributed_worker(composed: ComposedWorker) -> DistributedWorker:
    """The distributed worker of ``composed``, serving its REST API (see :func:`rest_server_factory`)."""
    # Imported here, as the REST layer below: reading a worker file needs neither Kafka clients nor HTTP.
    from connect_runtime.distributed import DistributedWorker

    return DistributedWorker(composed.config, rest_server_factory(composed), worker_plugins=composed.plugins)


def rest_server_factory(composed: ComposedWorker) -> RestServerFactory:
    """The REST servers a worker serves its herder with: one per listener of ``listeners`` and
    ``admin.listeners`` (http or https), each serving the endpoints its kind of listener serves."""
    from rest.app import create_app
    from rest.extensions import ServiceWithExtensions, load_rest_extensions
    from rest.response_headers import replaced_server_headers
    from rest.server import RestServer, RestServers

    config = composed.config

    def build(herder: DistributedHerder) -> ServiceWithExtensions:
        # Extensions are plugins: found through the worker's registry, closed when REST stops.
        extensions = load_rest_extensions(config.rest_extension_classes, config.originals, herder.plugins)
        try:
            # As Java's HeaderFilter: response.http.headers.config on the regular listeners (with
            # /admin/* when served there), not on admin.listeners.
            header_rules = config.response_header_rules
            replaced = replaced_server_headers(header_rules)
            servers = RestServers([
                RestServer(
                    # As Java, extensions (authentication) cover the regular endpoints only: separate
                    # admin listeners are protected by their own TLS settings.
                    create_app(herder, regular=listener.regular, admin=listener.admin,
                               peer_tls=composed.plugins.peer_tls,
                               extensions=extensions.extensions if listener.regular else (),
                               allowed_origins=config.access_control_allow_origin,
                               allowed_methods=config.access_control_allow_methods,
                               max_request_bytes=config.rest_request_max_bytes,
                               response_headers=header_rules if listener.regular else (),
                               console=config.rest_ui_enable),
                    listener.host or "0.0.0.0", listener.port,
                    ssl_context=composed.rest_ssl_context(listener) if listener.https else None,
                    replaced_headers=replaced if listener.regular else ())
                for listener in config.rest_listeners()
            ])
        except BaseException:
            extensions.close()
            raise
        return ServiceWithExtensions(servers, extensions)

    return build
