"""The operator console's files at /ui/ (rest/ui), without a broker: where they are served, their
security headers, that they need no credentials while the API does, and rest.ui.enable.
The console itself runs in a real browser in tests/integration/test_console_browser.py."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from fake_herder import FakeHerder
from fastapi.testclient import TestClient
from worker_stubs import MINIMAL_WORKER

from connect_runtime.composition import compose_worker, rest_server_factory
from connect_runtime.config.worker_config import WorkerConfig
from connect_runtime.plugins.registry import PluginRegistry
from rest.app import create_app
from rest.basic_auth import JAVA_CLASS_NAME
from rest.extensions import ServiceWithExtensions, load_rest_extensions
from rest.server import RestServers
from rest.ui import CONTENT_SECURITY_POLICY

STATIC = Path(__file__).parents[2] / "rest" / "ui" / "static"


@pytest.fixture
def console() -> TestClient:
    return TestClient(create_app(FakeHerder()), follow_redirects=False)


def test_ui_redirects_to_its_directory_and_serves_the_page_with_a_strict_policy(console: TestClient) -> None:
    r = console.get("/ui")
    assert r.status_code == 308 and r.headers["location"] == "/ui/"
    page = console.get("/ui/", headers={"Accept": "text/html"})
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert '<script type="module" src="app.js">' in page.text
    for answer in (r, page, console.get("/ui/app.js"), console.get("/ui/missing.js")):
        assert answer.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
        assert answer.headers["x-content-type-options"] == "nosniff"
    assert "script-src 'self'" in CONTENT_SECURITY_POLICY and "frame-ancestors 'none'" in CONTENT_SECURITY_POLICY
    assert console.get("/ui/missing.js").status_code == 404
    assert console.get("/ui/../pyproject.toml").status_code == 404
    assert console.post("/ui/app.js").status_code == 405
    script = console.get("/ui/views/connector.js")
    assert script.status_code == 200 and "javascript" in script.headers["content-type"]


def test_every_shipped_file_is_served(console: TestClient) -> None:
    files = [p.relative_to(STATIC).as_posix() for p in STATIC.rglob("*") if p.is_file()]
    assert "index.html" in files and "app.js" in files
    for name in files:
        assert console.get(f"/ui/{name}").status_code == 200, name


def test_data_never_becomes_markup() -> None:
    """The console builds text nodes only; the policy forbids inline code, this keeps the sources honest."""
    for source in STATIC.rglob("*.js"):
        text = source.read_text()
        for forbidden in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("):
            assert forbidden not in text, f"{source.name} uses {forbidden}"


def test_the_console_needs_no_credentials_but_the_api_does(tmp_path: Path) -> None:
    creds = tmp_path / "users.properties"
    creds.write_text("alice: pw\n")
    loaded = load_rest_extensions([JAVA_CLASS_NAME], {"rest.basic.auth.credentials.file": str(creds)},
                                  PluginRegistry())
    client = TestClient(create_app(FakeHerder(), extensions=loaded.extensions))
    assert client.get("/ui/").status_code == 200
    assert client.get("/connectors").status_code == 401
    good = {"Authorization": "Basic " + base64.b64encode(b"alice:pw").decode()}
    assert client.get("/connectors", headers=good).status_code == 200


@pytest.mark.parametrize(("setting", "served"), [(None, True), ("true", True), ("false", False)])
def test_rest_ui_enable_serves_the_console_on_the_regular_listeners_only(setting: str | None, served: bool) -> None:
    props = {**MINIMAL_WORKER, "listeners": "http://127.0.0.1:18083", "admin.listeners": "http://127.0.0.1:18084"}
    if setting is not None:
        props["rest.ui.enable"] = setting
    assert WorkerConfig.from_properties(props).rest_ui_enable is served
    herder = FakeHerder()
    herder.plugins = None  # type: ignore[attr-defined]  # no extensions configured: never consulted
    service = rest_server_factory(compose_worker(props))(herder)  # type: ignore[arg-type]
    assert isinstance(service, ServiceWithExtensions) and isinstance(service.server, RestServers)
    regular, admin = (TestClient(server._app) for server in service.server.servers)  # built, never started
    assert regular.get("/ui/").status_code == (200 if served else 404)
    # The admin listener serves /admin only.
    assert admin.get("/ui/").status_code == 404
    assert admin.get("/admin/loggers").status_code == 200
