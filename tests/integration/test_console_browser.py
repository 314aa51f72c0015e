"""The operator console (/ui/) in a real headless Chromium (the system's ``chromium``, driven by
Playwright), on one real worker behind Basic authentication: sign in, create a connector through the
ConfigDef form (an inline validation error first), pause, resume, stop, alter its offsets, resume, bulk
actions, the charts, and hostile connector names rendered as text. Each view is saved as a screenshot
into docs/console/ for the operations guide."""

from __future__ import annotations

import json
import math
import re
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import trustme
from playwright.sync_api import Browser, Page, expect, sync_playwright

from connect_runtime.testing import WorkerProcess, wait_until
from connect_runtime.testing.launcher import free_ports
from rest.basic_auth import CREDENTIALS_FILE_CONFIG, JAVA_CLASS_NAME
from rest.ui import CONTENT_SECURITY_POLICY

pytestmark = [pytest.mark.kafka, pytest.mark.browser]

SCREENSHOTS = Path(__file__).parents[2] / "docs" / "console"
USER, PASSWORD = "operator", "console pw"
#: Playwright's own deadline for each expectation (it polls until then).
WAIT_MS = 60_000
HOSTILE_NAMES = ("<script>alert(1)</script>", "../../etc/passwd", "<img src=x onerror=alert(2)>")
VERIFIABLE = "VerifiableSource"
#: The connectors create their topics (the broker does not).
TOPIC_CREATION = {"topic.creation.default.replication.factor": "1", "topic.creation.default.partitions": "1"}


@pytest.fixture(scope="module")
def worker(kafka_bootstrap: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[WorkerProcess]:
    """A ready worker whose REST API needs Basic credentials, on an http listener (its ``url``) and an
    https one (:func:`https_url`)."""
    workdir = tmp_path_factory.mktemp("console")
    users = workdir / "users.properties"
    users.write_text(f"{USER}: {PASSWORD}\n")
    keystore = workdir / "keystore.pem"
    trustme.CA().issue_cert("127.0.0.1").private_key_and_cert_chain_pem.write_to_path(str(keystore))
    http_port, https_port = free_ports(2)
    w = WorkerProcess(kafka_bootstrap, workdir, f"console-{uuid.uuid4().hex[:8]}", extra={
        "listeners": f"http://127.0.0.1:{http_port},https://127.0.0.1:{https_port}",
        "listeners.https.ssl.keystore.type": "PEM", "listeners.https.ssl.keystore.location": str(keystore),
        "rest.extension.classes": JAVA_CLASS_NAME, CREDENTIALS_FILE_CONFIG: str(users)})
    try:
        w.start()
        # /health is authenticated too: the toolkit's readiness check cannot be used.
        wait_until(lambda: httpx.get(f"{w.url}/health", auth=(USER, PASSWORD), timeout=2).status_code == 200, 60,
                   message="the authenticating worker to be ready")
        yield w
    finally:
        w.stop()


def https_url(worker: WorkerProcess) -> str:
    return next(url for url in worker.props["listeners"].split(",") if url.startswith("https://"))


@pytest.fixture(scope="module")
def api(worker: WorkerProcess) -> Iterator[httpx.Client]:
    """The worker's REST API with the operator's credentials, to set up and check what the page did."""
    with httpx.Client(base_url=worker.url, auth=(USER, PASSWORD), timeout=30) as client:
        yield client


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    executable = shutil.which("chromium")
    assert executable, "the browser tests need Debian's chromium on PATH (./dev setup installs it)"
    with sync_playwright() as playwright:
        # Root in a container has no user namespace for Chromium's sandbox.
        browser = playwright.chromium.launch(executable_path=executable, args=["--no-sandbox"])
        yield browser
        browser.close()


@pytest.fixture(scope="module")
def dialogs() -> list[str]:
    """The messages of every dialog (alert, confirm...) the module's tab opened."""
    return []


@pytest.fixture(scope="module")
def console_errors() -> list[str]:
    """The errors the module's tab logged (a script error, a Content-Security-Policy refusal...)."""
    return []


@pytest.fixture(scope="module")
def page(browser: Browser, worker: WorkerProcess, dialogs: list[str], console_errors: list[str]) -> Iterator[Page]:
    """One signed-in tab for the module; every dialog it would open is recorded (and dismissed)."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    tab = context.new_page()
    tab.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    tab.on("pageerror", lambda e: console_errors.append(str(e)))
    tab.on("console", lambda m: console_errors.append(m.text) if m.type == "error" else None)
    response = tab.goto(f"{worker.url}/ui")
    assert response is not None and response.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
    expect(tab).to_have_url(re.compile(r"/ui/$"))
    expect(tab.locator("#signin")).to_be_visible(timeout=WAIT_MS)
    shot(tab, "signin")
    tab.fill("#signin-user", USER)
    tab.fill("#signin-password", "wrong")
    tab.click("#signin button[type=submit]")
    expect(tab.locator("#signin .error")).to_have_text("Wrong user or password.", timeout=WAIT_MS)
    sign_in(tab)
    expect(tab.locator("h1")).to_have_text("Overview", timeout=WAIT_MS)
    yield tab
    context.close()


def sign_in(page: Page) -> None:
    page.fill("#signin-user", USER)
    page.fill("#signin-password", PASSWORD)
    page.click("#signin button[type=submit]")
    expect(page.locator("#signin")).to_have_count(0, timeout=WAIT_MS)
    expect(page.locator("#session")).to_contain_text("Signed in")


def shot(page: Page, view: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{view}.png"))


def state_of(api: httpx.Client, name: str) -> str:
    response = api.get(f"/connectors/{name}/status")
    return str(response.json()["connector"]["state"]) if response.status_code == 200 else ""


def tasks_running(api: httpx.Client, name: str) -> bool:
    status = api.get(f"/connectors/{name}/status").json()
    return bool(status["connector"]["state"] == "RUNNING" and status["tasks"]
                and all(t["state"] == "RUNNING" for t in status["tasks"]))


def offsets_of(api: httpx.Client, name: str) -> list[dict[str, Any]]:
    return list(api.get(f"/connectors/{name}/offsets").json()["offsets"])


def open_connector(page: Page, name: str) -> None:
    page.goto(page.url.split("#")[0] + "#/connector/" + name)
    expect(page.locator("#connector-name")).to_have_text(name, timeout=WAIT_MS)


def test_create_validate_pause_resume_stop_alter_offsets_resume(page: Page, api: httpx.Client) -> None:
    name = f"console-{uuid.uuid4().hex[:6]}"
    page.click("#nav a[href='#/create']")
    shot(page, "create")
    plugin = next(p["class"] for p in api.get("/connector-plugins").json()
                  if p["class"].endswith(VERIFIABLE + "Connector"))
    page.select_option("#plugin", plugin)
    form = page.locator("#config-form")
    expect(form).to_be_visible(timeout=WAIT_MS)
    page.fill("[id='field-name']", name)
    page.fill("[id='field-throughput']", "not a number")
    # The worker's validation as you type: each error at its field, before anything is saved.
    expect(page.locator("[id='error-throughput']")).not_to_be_empty(timeout=WAIT_MS)
    expect(page.locator("[id='error-topic']")).to_contain_text("required", timeout=WAIT_MS)
    shot(page, "create-validation")
    page.click("#save-config")
    expect(form).to_have_attribute("data-errors", re.compile(r"[1-9]"), timeout=WAIT_MS)
    assert api.get(f"/connectors/{name}").status_code == 404, "saved despite errors"
    page.fill("[id='field-throughput']", "50")
    page.fill("[id='field-topic']", f"{name}-data")
    for key, value in TOPIC_CREATION.items():  # settings the plugin's ConfigDef does not declare
        page.fill("#new-key", key)
        page.click("text=Add setting")
        page.fill(f"[id='field-{key}']", value)
    expect(form).to_have_attribute("data-errors", "0", timeout=WAIT_MS)
    expect(page.locator("[id='error-throughput']")).to_be_empty()
    page.click("#save-config")

    # The connector page: RUNNING, with its task.
    expect(page.locator("#connector-name")).to_have_text(name, timeout=WAIT_MS)
    state = page.locator("#connector-state")
    expect(state).to_have_text("RUNNING", timeout=WAIT_MS)
    expect(page.locator("#tasks [data-task='0']")).to_contain_text("RUNNING", timeout=WAIT_MS)
    wait_until(lambda: offsets_of(api, name), 60, message="the task to commit offsets")
    shot(page, "connector")

    page.click("#action-pause")
    expect(state).to_have_text("PAUSED", timeout=WAIT_MS)
    assert state_of(api, name) == "PAUSED"
    page.click("#action-resume")
    expect(state).to_have_text("RUNNING", timeout=WAIT_MS)
    page.click("#action-stop")
    expect(state).to_have_text("STOPPED", timeout=WAIT_MS)

    # Offsets, once stopped: alter task 0's position through the editor.
    alter = page.locator("#offsets-alter")
    expect(alter).to_be_enabled(timeout=WAIT_MS)
    target = 1_000_000
    page.fill("#offsets-editor", json.dumps({"offsets": [{"partition": {"id": 0}, "offset": {"seqno": target}}]}))
    page.locator("#offsets").screenshot(path=str(SCREENSHOTS / "offsets.png"))
    alter.click()
    expect(page.locator("#notice-text")).to_contain_text("offsets", timeout=WAIT_MS)
    assert offsets_of(api, name) == [{"partition": {"id": 0}, "offset": {"seqno": target}}]
    expect(page.locator("#offsets-table")).to_contain_text(str(target), timeout=WAIT_MS)

    page.click("#action-resume")
    expect(state).to_have_text("RUNNING", timeout=WAIT_MS)
    # The task started again from the altered offset.
    wait_until(lambda: offsets_of(api, name)[0]["offset"]["seqno"] > target, 60,
               message="the resumed task to continue after the altered offset")


def test_connectors_list_filters_and_bulk_actions(page: Page, api: httpx.Client) -> None:
    names = [f"bulk-{i}-{uuid.uuid4().hex[:6]}" for i in range(2)]
    for name in names:
        config = {"connector.class": VERIFIABLE, "topic": f"{name}-data", "throughput": "10", **TOPIC_CREATION}
        assert api.put(f"/connectors/{name}/config", json=config).status_code == 201
    for name in names:
        wait_until(lambda n=name: state_of(api, n) == "RUNNING", 60, message=f"{name} to run")
    page.click("#nav a[href='#/connectors']")
    rows = page.locator("#connectors tbody tr")
    expect(rows.first).to_be_visible(timeout=WAIT_MS)
    page.fill("#filter-name", "bulk-")
    expect(rows).to_have_count(2, timeout=WAIT_MS)
    page.check("#select-all")
    page.click("#bulk-pause")
    for name in names:
        wait_until(lambda n=name: state_of(api, n) == "PAUSED", 60, message=f"{name} to pause")
    page.select_option("#filter-state", "PAUSED")
    expect(rows).to_have_count(2, timeout=WAIT_MS)
    shot(page, "connectors")
    page.check("#select-all")
    page.click("#bulk-resume")
    for name in names:
        wait_until(lambda n=name: tasks_running(api, n), 60, message=f"{name} and its task to resume")
    page.click("#nav a[href='#/overview']")
    expect(page.locator("#connector-states")).to_contain_text("RUNNING", timeout=WAIT_MS)
    shot(page, "overview")


def create_running(api: httpx.Client, prefix: str, **extra: str) -> str:
    name = f"{prefix}-{uuid.uuid4().hex[:6]}"
    config = {"connector.class": VERIFIABLE, "topic": f"{name}-data", "throughput": "10", **TOPIC_CREATION, **extra}
    assert api.put(f"/connectors/{name}/config", json=config).status_code == 201
    wait_until(lambda: state_of(api, name) == "RUNNING", 60, message=f"{name} to run")
    return name


def test_bulk_actions_act_on_the_shown_selection_only(page: Page, api: httpx.Client, dialogs: list[str]) -> None:
    prefix = f"shown-{uuid.uuid4().hex[:4]}"
    shown, hidden = create_running(api, prefix), create_running(api, prefix)
    page.click("#nav a[href='#/connectors']")
    rows = page.locator("#connectors tbody tr")
    page.fill("#filter-name", prefix)
    expect(rows).to_have_count(2, timeout=WAIT_MS)
    page.check("#select-all")
    page.fill("#filter-name", shown)
    expect(rows).to_have_count(1, timeout=WAIT_MS)
    with page.expect_event("dialog") as confirmation:
        page.click("#bulk-delete")  # the module's tab dismisses it: nothing is deleted
    assert shown in confirmation.value.message and hidden not in confirmation.value.message
    dialogs.clear()
    page.click("#bulk-pause")
    expect(page.locator("#notice-text")).to_have_text("Pause: done for 1 connector(s).", timeout=WAIT_MS)
    wait_until(lambda: state_of(api, shown) == "PAUSED", 60, message=f"{shown} to pause")
    assert state_of(api, hidden) == "RUNNING"


#: Holds the page's requests to one connector's config until the test releases them, and counts its
#: status requests (window.fetch replaced in the page; the original kept to be put back).
HOLD_CONFIG = """(name) => {
    const original = window.__originalFetch = window.fetch;
    const base = `/connectors/${encodeURIComponent(name)}`;
    window.__statusCalls = 0;
    window.__released = new Promise((resolve) => { window.__release = resolve; });
    window.fetch = async (url, init) => {
        if (String(url).endsWith(`${base}/status`)) window.__statusCalls++;
        if (String(url).endsWith(`${base}/config`)) { window.__held = true; await window.__released; }
        return original(url, init);
    };
}"""
#: Delays the worker's validation answers by a second, longer than the form's debounce.
SLOW_VALIDATION = """() => {
    const original = window.__originalFetch = window.fetch;
    window.fetch = async (url, init) => {
        if (String(url).endsWith("/config/validate")) await new Promise((r) => setTimeout(r, 1000));
        return original(url, init);
    };
}"""
RESTORE_FETCH = "() => { window.fetch = window.__originalFetch; }"
#: Two connector page refreshes.
REFRESHES_MS = 4_500


def test_a_view_left_before_it_rendered_neither_shows_nor_polls(page: Page, api: httpx.Client) -> None:
    name = create_running(api, "stale")
    page.evaluate("location.hash = '#/plugins'")
    expect(page.locator("#plugins")).to_be_visible(timeout=WAIT_MS)
    page.evaluate(HOLD_CONFIG, name)
    try:
        page.evaluate("(name) => { location.hash = `#/connector/${encodeURIComponent(name)}`; }", name)
        page.wait_for_function("() => window.__held === true", timeout=WAIT_MS)
        page.evaluate("location.hash = '#/loggers'")
        expect(page.locator("#loggers")).to_be_visible(timeout=WAIT_MS)
        page.evaluate("window.__release()")
        # The left view finishes (its first status read) after the loggers page is shown...
        page.wait_for_function("() => window.__statusCalls >= 1", timeout=WAIT_MS)
        page.wait_for_timeout(REFRESHES_MS)
        # ... and neither replaces it nor keeps refreshing.
        expect(page.locator("#loggers")).to_be_visible()
        assert page.locator("#connector-name").count() == 0
        assert page.evaluate("window.__statusCalls") == 1
    finally:
        page.evaluate(RESTORE_FETCH)


def test_a_malformed_address_shows_an_error(page: Page) -> None:
    page.evaluate("location.hash = '#/connector/%E0'")
    expect(page.locator("#main .error")).to_contain_text("URI malformed", timeout=WAIT_MS)
    expect(page.locator("#main")).not_to_contain_text("Loading")


def test_save_right_after_an_edit_saves_and_keeps_empty_settings(page: Page, api: httpx.Client) -> None:
    name = create_running(api, "save", **{"console.note": ""})
    assert api.get(f"/connectors/{name}/config").json()["console.note"] == ""
    open_connector(page, name)
    form = page.locator("#config-form")
    expect(form).to_have_attribute("data-errors", "0", timeout=WAIT_MS)
    page.evaluate(SLOW_VALIDATION)
    try:
        # Saved within the debounce, while the worker is slow to validate: the click still saves.
        page.fill("[id='field-throughput']", "7")
        page.click("#save-config")
        expect(page.locator("#notice-text")).to_contain_text("Save config", timeout=WAIT_MS)
        wait_until(lambda: api.get(f"/connectors/{name}/config").json()["throughput"] == "7", 60,
                   message="the edited config to be saved")
    finally:
        page.evaluate(RESTORE_FETCH)
    # A stored setting whose value is "" is kept.
    assert api.get(f"/connectors/{name}/config").json()["console.note"] == ""


def test_hostile_names_render_as_text(page: Page, api: httpx.Client, dialogs: list[str],
                                     console_errors: list[str]) -> None:
    for name in HOSTILE_NAMES:
        response = api.post("/connectors", json={"name": name, "config": {
            "connector.class": VERIFIABLE, "topic": f"hostile-{uuid.uuid4().hex[:6]}", "throughput": "1",
            **TOPIC_CREATION}})
        assert response.status_code == 201, response.text
    page.click("#nav a[href='#/overview']")
    page.click("#nav a[href='#/connectors']")
    for name in HOSTILE_NAMES:
        row = page.locator("#connectors tbody tr", has=page.get_by_text(name, exact=True))
        expect(row.locator("td.name a")).to_have_text(name, timeout=WAIT_MS)
    # A name with "/" cannot be addressed by the API: its page says so and shows what the list knows.
    open_connector(page, "../../etc/passwd")
    expect(page.locator(".explain")).to_contain_text("cannot be paused", timeout=WAIT_MS)
    open_connector(page, HOSTILE_NAMES[2])
    expect(page.locator("#connector-state")).to_have_text(re.compile("RUNNING|UNASSIGNED"), timeout=WAIT_MS)
    assert page.locator("img").count() == 0
    assert dialogs == []
    # Refused requests (the sign-in's wrong password, 404s) are logged as errors too; nothing else is.
    unexpected = [e for e in console_errors if not e.startswith("Failed to load resource")]
    assert unexpected == []


def test_plugins_and_loggers(page: Page, api: httpx.Client) -> None:
    page.click("#nav a[href='#/plugins']")
    expect(page.locator("#plugins")).to_contain_text(VERIFIABLE, timeout=WAIT_MS)
    page.locator("#plugins tr", has=page.get_by_text(re.compile(VERIFIABLE))).first.get_by_text(
        "Config definition").click()
    expect(page.locator("#definitions")).to_contain_text("throughput", timeout=WAIT_MS)
    shot(page, "plugins")
    page.click("#nav a[href='#/loggers']")
    page.fill("#logger-name", "connect_runtime.console_test")
    page.select_option("#logger-level", "DEBUG")
    page.click("#logger-set")
    expect(page.locator("#loggers")).to_contain_text("connect_runtime.console_test", timeout=WAIT_MS)
    assert api.get("/admin/loggers/connect_runtime.console_test").json()["level"] == "DEBUG"
    shot(page, "loggers")


def test_the_console_works_on_an_https_listener(browser: Browser, worker: WorkerProcess, api: httpx.Client) -> None:
    # The test's own CA: this browser does not know it.
    context = browser.new_context(ignore_https_errors=True)
    try:
        tab = context.new_page()
        metrics_requests: list[str] = []
        tab.on("request", lambda r: metrics_requests.append(r.url) if r.url.endswith("/metrics") else None)
        tab.goto(f"{https_url(worker)}/ui/#/connectors")
        expect(tab.locator("#signin")).to_be_visible(timeout=WAIT_MS)
        # /metrics is refused without credentials too: the sign-in form samples nothing.
        assert tab.evaluate("async () => (await import('./prom.js')).sampler.running") is False
        assert metrics_requests == []
        sign_in(tab)  # and back on the page asked for
        tab.wait_for_function("async () => (await import('./prom.js')).sampler.running", timeout=WAIT_MS)
        name = f"https-{uuid.uuid4().hex[:6]}"
        config = {"connector.class": VERIFIABLE, "topic": f"{name}-data", "throughput": "1", **TOPIC_CREATION}
        assert api.put(f"/connectors/{name}/config", json=config).status_code == 201
        expect(tab.locator("#connectors")).to_contain_text(name, timeout=WAIT_MS)
    finally:
        context.close()


PROMETHEUS_TEXT = """\
# HELP kafka_connect_source_task_source_record_write_rate The average per-second number of records written.
# TYPE kafka_connect_source_task_source_record_write_rate gauge
kafka_connect_source_task_source_record_write_rate{connector="a \\"quoted\\" } name",task="0"} 12.5
kafka_connect_source_task_source_record_write_rate{connector="b",task="1"} NaN
kafka_connect_worker_rebalance_epoch 3.0
kafka_connect_worker_rebalance_leader_name{leader_name="http://w1:8083"} 1.0
"""


def test_metrics_text_is_parsed_and_nan_draws_nothing(page: Page) -> None:
    """The page's own reading of GET /metrics (Prometheus text), and a chart of a window without data."""
    samples = page.evaluate("async (text) => (await import('./prom.js')).parsePrometheus(text)", PROMETHEUS_TEXT)
    assert samples[0] == {"name": "kafka_connect_source_task_source_record_write_rate",
                          "labels": {"connector": 'a "quoted" } name', "task": "0"}, "value": 12.5}
    assert samples[1]["labels"] == {"connector": "b", "task": "1"} and math.isnan(samples[1]["value"])
    assert samples[2] == {"name": "kafka_connect_worker_rebalance_epoch", "labels": {}, "value": 3.0}
    assert samples[3]["labels"] == {"leader_name": "http://w1:8083"}
    drawn = page.evaluate("""async () => {
        const { lineChart } = await import('./chart.js');
        const now = Date.now();
        const chart = lineChart('t', [{ label: 'task 0', points: [[now - 2000, NaN], [now - 1000, 4], [now, 6]] },
                                      { label: 'task 1', points: [[now, NaN]] }], now);
        return [chart.dataset.points, chart.dataset.last, chart.querySelectorAll('path').length];
    }""")
    assert drawn == ["2", "6", 1]


def test_latest_is_the_newest_series_and_gone_series_are_dropped(page: Page) -> None:
    """After a leader change the overview shows the new leader; a task gone for the window leaves the charts."""
    seen = page.evaluate("""async () => {
        const { Sampler, WINDOW_MS } = await import('./prom.js');
        const sampler = new Sampler();
        const leader = (url) => ({ name: 'kafka_connect_worker_rebalance_leader_name', labels: { leader_name: url },
                                   value: 1 });
        const rate = (task) => ({ name: 'kafka_connect_source_task_source_record_write_rate',
                                  labels: { connector: 'c', task }, value: 5 });
        sampler.record([leader('http://w1'), rate('0'), rate('1')], 1000);
        sampler.record([leader('http://w2'), rate('0')], 2000);
        const afterChange = sampler.latest('kafka_connect_worker_rebalance_leader_name').labels.leader_name;
        sampler.record([leader('http://w2'), rate('0')], 1500 + WINDOW_MS);
        return [afterChange, sampler.find('kafka_connect_worker_rebalance_leader_name').length,
                sampler.find('kafka_connect_source_task_source_record_write_rate').map((s) => s.labels.task)];
    }""")
    assert seen == ["http://w2", 1, ["0"]]


def test_polling_skips_a_tick_while_the_last_call_is_pending(page: Page) -> None:
    calls = page.evaluate("""async () => {
        const { every } = await import('./dom.js');
        let calls = 0;
        const stop = every(10, () => { calls++; return new Promise(() => {}); });
        await new Promise((resolve) => setTimeout(resolve, 200));
        stop();
        return calls;
    }""")
    assert calls == 1


def test_charts_move(page: Page, api: httpx.Client) -> None:
    """Needs the worker's task metrics on /metrics: the write rate of a running task, sampled by the page."""
    name = f"chart-{uuid.uuid4().hex[:6]}"
    config = {"connector.class": VERIFIABLE, "topic": f"{name}-data", "throughput": "200", **TOPIC_CREATION}
    assert api.put(f"/connectors/{name}/config", json=config).status_code == 201
    open_connector(page, name)
    chart = page.locator(".chart[data-title='Records written / s']")
    expect(chart).to_have_attribute("data-last", re.compile(r"^[0-9.e+]*[1-9]"), timeout=WAIT_MS)
    # Several samples, so the screenshot shows lines rather than a dot.
    wait_until(lambda: int(chart.get_attribute("data-points") or 0) >= 4, 60,
               message="several samples in the chart")
    page.locator("#charts").screenshot(path=str(SCREENSHOTS / "charts.png"))
