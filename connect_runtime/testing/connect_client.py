"""A client of the Kafka Connect REST API for tests: one method per endpoint a test needs.

Methods return Kafka Connect's JSON as parsed (dicts and lists, exactly as the worker sent them) and
raise :class:`ConnectRestError` when the worker answers with another status than the endpoint's
success status; :meth:`ConnectClient.request` sends anything else and returns the raw response, for
tests of error answers.
"""

from __future__ import annotations

import ssl
from collections.abc import Mapping, Sequence
from types import TracebackType
from typing import Any
from urllib.parse import quote

import httpx

from connect_runtime.testing.waiting import wait_until


class ConnectRestError(Exception):
    """The worker answered with an unexpected status.

    ``status_code`` is the HTTP status; ``error_code`` and ``message`` come from Kafka Connect's error
    body (``{"error_code": ..., "message": ...}``) when it has one; ``response`` is the raw response.
    """

    def __init__(self, response: httpx.Response) -> None:
        self.response = response
        self.status_code = response.status_code
        self.error_code: int | None = None
        self.message = response.text
        try:
            body = response.json()
        except ValueError:
            body = None
        if isinstance(body, dict) and "message" in body:
            self.error_code = body.get("error_code")
            self.message = str(body["message"])
        super().__init__(f"{response.request.method} {response.request.url.path} answered "
                         f"{response.status_code}: {self.message}")


def _c(name: str) -> str:
    """A connector name as one path segment (names may hold '/', spaces, ...)."""
    return quote(name, safe="")


class ConnectClient:
    """A client of one worker's REST API (``url`` like ``http://127.0.0.1:8083``).

    ``verify`` is how https listeners are verified (``WorkerProcess.verify`` for a worker of the
    toolkit). Use it as a context manager, or :meth:`close` it.
    """

    def __init__(self, url: str, timeout_s: float = 30.0, verify: ssl.SSLContext | bool = True) -> None:
        self.url = url.rstrip("/")
        self._http = httpx.Client(base_url=self.url, timeout=timeout_s, verify=verify)

    def __enter__(self) -> ConnectClient:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        """Close the HTTP connections."""
        self._http.close()

    # -- plumbing ------------------------------------------------------------------------------

    def request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        """Send any request (``path`` relative to the worker's URL); the raw response, whatever its status."""
        return self._http.request(method, path, **kwargs)

    def _call(self, method: str, path: str, expect: int | Sequence[int], **kwargs: Any) -> httpx.Response:
        r = self._http.request(method, path, **kwargs)
        if r.status_code not in ((expect,) if isinstance(expect, int) else expect):
            raise ConnectRestError(r)
        return r

    def _json(self, method: str, path: str, expect: int | Sequence[int] = 200, **kwargs: Any) -> Any:
        return self._call(method, path, expect, **kwargs).json()

    # -- worker and plugins ----------------------------------------------------------------------

    def server_info(self) -> dict[str, Any]:
        """``GET /``: ``{"version", "commit", "kafka_cluster_id"}``."""
        result: dict[str, Any] = self._json("GET", "/")
        return result

    def connector_plugins(self, connectors_only: bool = True) -> list[dict[str, Any]]:
        """``GET /connector-plugins``: ``[{"class", "type", "version"}, ...]`` (transforms, converters
        and the like too when ``connectors_only`` is false)."""
        params = {} if connectors_only else {"connectorsOnly": "false"}
        result: list[dict[str, Any]] = self._json("GET", "/connector-plugins", params=params)
        return result

    def plugin_config(self, plugin: str) -> list[dict[str, Any]]:
        """``GET /connector-plugins/{plugin}/config``: the plugin's config key definitions."""
        result: list[dict[str, Any]] = self._json("GET", f"/connector-plugins/{_c(plugin)}/config")
        return result

    def validate(self, config: Mapping[str, str], plugin: str | None = None) -> dict[str, Any]:
        """``PUT /connector-plugins/{plugin}/config/validate``: Kafka Connect's ConfigInfos,
        ``{"name", "error_count", "groups", "configs": [{"definition": ..., "value": {"name", "value",
        "recommended_values", "errors", "visible"}}, ...]}``.

        ``plugin`` defaults to the config's ``connector.class``. Put ``name`` in the config, as for a
        create: without it the answer has an error on ``name``. See :meth:`validation_errors`.
        """
        plugin = plugin or config.get("connector.class", "")
        result: dict[str, Any] = self._json("PUT", f"/connector-plugins/{_c(plugin)}/config/validate",
                                            json=dict(config))
        return result

    def validation_errors(self, config: Mapping[str, str], plugin: str | None = None) -> dict[str, list[str]]:
        """The errors :meth:`validate` reports, by config key (keys without errors left out)."""
        infos = self.validate(config, plugin)
        return {c["value"]["name"]: c["value"]["errors"] for c in infos["configs"] if c["value"]["errors"]}

    # -- connectors ----------------------------------------------------------------------------

    def list_connectors(self, expand: Sequence[str] = ()) -> Any:
        """``GET /connectors``: the names; with ``expand`` (``"status"`` and/or ``"info"``)
        ``{name: {"status": ..., "info": ...}}``."""
        return self._json("GET", "/connectors", params=[("expand", e) for e in expand])

    def create_connector(self, name: str, config: Mapping[str, str],
                         initial_state: str | None = None) -> dict[str, Any]:
        """``POST /connectors``: create ``name``; returns ``{"name", "config", "tasks", "type"}``.

        ``initial_state`` (``RUNNING``, ``PAUSED`` or ``STOPPED``, KIP-980) is sent only when given.
        """
        body: dict[str, Any] = {"name": name, "config": dict(config)}
        if initial_state is not None:
            body["initial_state"] = initial_state
        result: dict[str, Any] = self._json("POST", "/connectors", 201, json=body)
        return result

    def connector_info(self, name: str) -> dict[str, Any]:
        """``GET /connectors/{name}``: ``{"name", "config", "tasks": [{"connector", "task"}], "type"}``."""
        result: dict[str, Any] = self._json("GET", f"/connectors/{_c(name)}")
        return result

    def connector_config(self, name: str) -> dict[str, str]:
        """``GET /connectors/{name}/config``."""
        result: dict[str, str] = self._json("GET", f"/connectors/{_c(name)}/config")
        return result

    def put_connector_config(self, name: str, config: Mapping[str, str]) -> dict[str, Any]:
        """``PUT /connectors/{name}/config``: create (201) or replace (200) the config; the connector info."""
        result: dict[str, Any] = self._json("PUT", f"/connectors/{_c(name)}/config", (200, 201), json=dict(config))
        return result

    def patch_connector_config(self, name: str, changes: Mapping[str, str | None]) -> dict[str, Any]:
        """``PATCH /connectors/{name}/config`` (KIP-477): merge ``changes`` (``None`` removes a key)."""
        result: dict[str, Any] = self._json("PATCH", f"/connectors/{_c(name)}/config", json=dict(changes))
        return result

    def delete_connector(self, name: str) -> None:
        """``DELETE /connectors/{name}``."""
        self._call("DELETE", f"/connectors/{_c(name)}", 204)

    def status(self, name: str) -> dict[str, Any]:
        """``GET /connectors/{name}/status``: ``{"name", "connector": {"state", "worker_id"[, "trace"]},
        "tasks": [{"id", "state", "worker_id"[, "trace"]}], "type"}``."""
        result: dict[str, Any] = self._json("GET", f"/connectors/{_c(name)}/status")
        return result

    def task_status(self, name: str, task: int) -> dict[str, Any]:
        """``GET /connectors/{name}/tasks/{task}/status``: ``{"id", "state", "worker_id"[, "trace"]}``."""
        result: dict[str, Any] = self._json("GET", f"/connectors/{_c(name)}/tasks/{task}/status")
        return result

    def task_configs(self, name: str) -> list[dict[str, Any]]:
        """``GET /connectors/{name}/tasks``: ``[{"id": {"connector", "task"}, "config": {...}}, ...]``."""
        result: list[dict[str, Any]] = self._json("GET", f"/connectors/{_c(name)}/tasks")
        return result

    def active_topics(self, name: str) -> list[str]:
        """``GET /connectors/{name}/topics``: the topics the connector has used."""
        result: list[str] = self._json("GET", f"/connectors/{_c(name)}/topics")[name]["topics"]
        return result

    def reset_active_topics(self, name: str) -> None:
        """``PUT /connectors/{name}/topics/reset``."""
        self._call("PUT", f"/connectors/{_c(name)}/topics/reset", 202)

    def pause_connector(self, name: str) -> None:
        """``PUT /connectors/{name}/pause`` (asynchronous: wait with :meth:`wait_state`)."""
        self._call("PUT", f"/connectors/{_c(name)}/pause", 202)

    def resume_connector(self, name: str) -> None:
        """``PUT /connectors/{name}/resume`` (also starts a STOPPED connector again)."""
        self._call("PUT", f"/connectors/{_c(name)}/resume", 202)

    def stop_connector(self, name: str) -> None:
        """``PUT /connectors/{name}/stop`` (KIP-875): connector stopped, its tasks removed."""
        self._call("PUT", f"/connectors/{_c(name)}/stop", 204)

    def restart_connector(self, name: str, include_tasks: bool = False,
                          only_failed: bool = False) -> dict[str, Any] | None:
        """``POST /connectors/{name}/restart?includeTasks=&onlyFailed=`` (KIP-745).

        ``None`` for the plain restart of the connector alone (204); with ``include_tasks`` or
        ``only_failed``, the status the restart starts from (202), with ``RESTARTING`` on every
        instance that restarts.
        """
        params = {"includeTasks": str(include_tasks).lower(), "onlyFailed": str(only_failed).lower()}
        r = self._call("POST", f"/connectors/{_c(name)}/restart", (202, 204), params=params)
        if r.status_code == 204:
            return None
        result: dict[str, Any] = r.json()
        return result

    def restart_task(self, name: str, task: int) -> None:
        """``POST /connectors/{name}/tasks/{task}/restart``."""
        self._call("POST", f"/connectors/{_c(name)}/tasks/{task}/restart", 204)

    # -- offsets (KIP-875) -------------------------------------------------------------------------

    def offsets(self, name: str) -> list[dict[str, Any]]:
        """``GET /connectors/{name}/offsets``: its ``offsets`` array,
        ``[{"partition": {...}, "offset": {...}}, ...]``."""
        result: list[dict[str, Any]] = self._json("GET", f"/connectors/{_c(name)}/offsets")["offsets"]
        return result

    def alter_offsets(self, name: str, offsets: Sequence[Mapping[str, Any]]) -> str:
        """``PATCH /connectors/{name}/offsets`` with ``{"offsets": offsets}`` (entries
        ``{"partition": {...}, "offset": {...} | None}``; ``None`` resets that partition). The
        connector must be STOPPED. Returns the worker's message."""
        body = {"offsets": [dict(o) for o in offsets]}
        message: str = self._json("PATCH", f"/connectors/{_c(name)}/offsets", json=body)["message"]
        return message

    def reset_offsets(self, name: str) -> str:
        """``DELETE /connectors/{name}/offsets``: forget every offset of a STOPPED connector; the message."""
        message: str = self._json("DELETE", f"/connectors/{_c(name)}/offsets")["message"]
        return message

    # -- waiting -------------------------------------------------------------------------------

    def in_state(self, name: str, state: str, tasks: int | None = None) -> dict[str, Any] | None:
        """The status of ``name`` if the connector and every task are in ``state`` now, with exactly
        ``tasks`` tasks when given (``STOPPED`` means no task at all); else None. One look, no waiting:
        for :func:`~connect_runtime.testing.wait_until` conditions that ask more than :meth:`wait_state`."""
        st = self.status(name)
        want = 0 if state == "STOPPED" else tasks
        ok = (st["connector"]["state"] == state and (want is None or len(st["tasks"]) == want)
              and all(t["state"] == state for t in st["tasks"]))
        return st if ok else None

    def wait_state(self, name: str, state: str, tasks: int | None = None,
                   timeout_s: float = 90.0) -> dict[str, Any]:
        """Wait until the connector and every task are in ``state`` (``RUNNING``, ``PAUSED``,
        ``FAILED``, ...), with exactly ``tasks`` tasks when given; ``STOPPED`` means no task at all.
        Returns the status."""
        count = "no" if state == "STOPPED" else tasks if tasks is not None else "all"
        return wait_until(lambda: self.in_state(name, state, tasks), timeout_s,
                          message=f"{name} and {count} tasks {state}")

    def wait_running(self, name: str, tasks: int, timeout_s: float = 90.0) -> dict[str, Any]:
        """Wait until the connector and exactly ``tasks`` tasks are RUNNING; the status."""
        return self.wait_state(name, "RUNNING", tasks, timeout_s)

    def wait_task_state(self, name: str, task: int, state: str, timeout_s: float = 90.0) -> dict[str, Any]:
        """Wait until task ``task`` of ``name`` is in ``state``; its status (with ``trace`` when FAILED)."""
        def reached() -> dict[str, Any] | None:
            st = self.status(name)
            found = [t for t in st["tasks"] if t["id"] == task and t["state"] == state]
            return found[0] if found else None

        return wait_until(reached, timeout_s, message=f"task {task} of {name} {state}")

    def wait_deleted(self, name: str, timeout_s: float = 60.0) -> None:
        """Wait until the worker no longer knows ``name`` (404 on its status)."""
        wait_until(lambda: self.request("GET", f"/connectors/{_c(name)}/status").status_code == 404,
                   timeout_s, message=f"{name} gone")
