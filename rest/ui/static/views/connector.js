// One connector: status with task traces and actions, active topics, charts, offsets (KIP-875) and its
// config in the validating editor.

import { addressable, del, get, patch, path, post, put } from "../api.js";
import { el, every, fill, notify, stateBadge, table } from "../dom.js";
import { lineChart } from "../chart.js";
import { CHART_SERIES, sampler } from "../prom.js";
import { configForm, definitionsOf } from "./configform.js";
import { listConnectors } from "./overview.js";

const REFRESH_MS = 2000;

export async function render(main, name) {
  if (!addressable(name)) return renderReadOnly(main, name);
  const base = path("connectors", name);
  let state = "UNKNOWN";
  const statusBox = el("div", { id: "status" });
  const topicsBox = el("div", { id: "topics" });
  const chartsBox = el("div", { class: "charts", id: "charts" });
  const offsetsBox = el("div", { id: "offsets" });
  const configBox = el("div", { id: "config" });
  const stateBox = el("span", { id: "connector-state" });

  const act = async (label, request, reloadOffsets = false) => {
    try {
      const answer = await request();
      notify(answer && typeof answer.message === "string" ? `${label}: ${answer.message}` : `${label}: requested.`);
    } catch (e) {
      notify(`${label} failed: ${e.message}`, true);
    }
    await refresh(reloadOffsets);
  };

  const refreshStatus = async () => {
    const status = await get(`${base}/status`);
    state = status.connector.state;
    fill(stateBox, stateBadge(state));
    offsetsBox.dataset.state = state;
    fill(statusBox,
      el("p", {}, `Connector on ${status.connector.worker_id || "no worker"}, type ${status.type || "unknown"}.`),
      status.connector.trace ? el("pre", { class: "trace" }, status.connector.trace) : null,
      table(["Task", "State", "Worker", "Trace", ""], status.tasks.map((t) => el("tr", { "data-task": t.id },
        el("td", {}, String(t.id)), el("td", {}, stateBadge(t.state)), el("td", {}, t.worker_id || ""),
        el("td", {}, t.trace ? el("pre", { class: "trace" }, t.trace) : ""),
        el("td", {}, el("button", { type: "button", class: "restart-task",
          onclick: () => act(`Restart task ${t.id}`, () => post(`${base}/tasks/${t.id}/restart`)) }, "Restart task")))),
      { id: "tasks" }));
    return status;
  };

  const refreshTopics = async () => {
    try {
      const topics = (await get(`${base}/topics`))[name]?.topics || [];
      fill(topicsBox, topics.length ? el("ul", {}, topics.map((t) => el("li", {}, t)))
        : el("p", { class: "muted" }, "No active topics recorded yet."));
    } catch (e) {
      fill(topicsBox, el("p", { class: "muted" }, `Active topics unavailable: ${e.message}`));
    }
  };

  const drawCharts = () => {
    if (sampler.status !== "ok" && !sampler.series.size) {
      fill(chartsBox, el("p", { class: "muted" }, "This listener serves no /metrics (or the worker has " +
        "admin.listeners, which serve it): no charts here. " + (sampler.message || "")));
      return;
    }
    fill(chartsBox, Object.entries(CHART_SERIES).map(([series, title]) => lineChart(title,
      sampler.find(series, { connector: name })
        .sort((a, b) => Number(a.labels.task) - Number(b.labels.task))
        .map((s) => ({ label: `task ${s.labels.task}`, points: s.points })))));
  };

  const refreshOffsets = async () => {
    let offsets;
    try {
      offsets = await get(`${base}/offsets`);
    } catch (e) {
      fill(offsetsBox, el("p", { class: "error" }, e.message));
      return;
    }
    const stopped = state === "STOPPED";
    const editor = el("textarea", { id: "offsets-editor", spellcheck: "false" });
    editor.value = JSON.stringify({ offsets: offsets.offsets }, null, 2);
    fill(offsetsBox,
      el("div", { class: "explain" },
        el("strong", {}, "Offsets can only be changed while the connector is STOPPED. "),
        "Stop it (its tasks shut down and stay down, unlike a pause), alter or reset the offsets below, ",
        "then resume it: its tasks start again from the new offsets. ",
        stopped ? "The connector is stopped: you can change its offsets now."
          : el("span", {}, `It is ${state} now. `, el("button", { type: "button", id: "offsets-stop",
            onclick: () => act("Stop", () => put(`${base}/stop`)) }, "Stop the connector"))),
      table(["Partition", "Offset"], offsets.offsets.map((o) => el("tr", {},
        el("td", {}, JSON.stringify(o.partition)), el("td", {}, JSON.stringify(o.offset)))), { id: "offsets-table" }),
      el("p", { class: "hint" }, "Edit the JSON to alter offsets: {\"offsets\": [{\"partition\": {…}, " +
        "\"offset\": {…}}]}; an offset of null resets that partition only."),
      editor,
      el("div", { class: "toolbar" },
        el("button", { type: "button", id: "offsets-alter", disabled: !stopped, onclick: () => {
          let body;
          try { body = JSON.parse(editor.value); } catch (e) { notify(`Not JSON: ${e.message}`, true); return; }
          act("Alter offsets", () => patch(`${base}/offsets`, body), true);
        } }, "Alter offsets"),
        el("button", { type: "button", id: "offsets-reset", class: "danger", disabled: !stopped, onclick: () => {
          if (window.confirm(`Reset every offset of ${name}?`)) act("Reset offsets", () => del(`${base}/offsets`), true);
        } }, "Reset all offsets"),
        stopped ? el("button", { type: "button", onclick: () => act("Resume", () => put(`${base}/resume`)) }, "Resume") : null));
  };

  const refresh = async (reloadOffsets = false) => {
    const before = state;
    await refreshStatus();
    await refreshTopics();
    // Not on every tick: the editor would lose what the user is typing.
    if (reloadOffsets || before !== state) await refreshOffsets();
  };

  const config = await get(`${base}/config`);
  const plugin = config["connector.class"];
  await refresh();
  const definitions = await definitionsOf(plugin).catch(() => []);
  fill(configBox, configForm({
    plugin, definitions, values: config, name, submitLabel: "Save config",
    onSave: async (_, newConfig) => act("Save config", () => put(`${base}/config`, newConfig)),
  }));
  drawCharts();
  const unsubscribe = sampler.subscribe(drawCharts);
  const stop = every(REFRESH_MS, refresh);

  fill(main,
    el("h1", {}, el("span", { id: "connector-name" }, name), " ", stateBox),
    el("div", { class: "toolbar" },
      el("button", { type: "button", id: "action-pause", onclick: () => act("Pause", () => put(`${base}/pause`)) }, "Pause"),
      el("button", { type: "button", id: "action-resume", onclick: () => act("Resume", () => put(`${base}/resume`)) }, "Resume"),
      el("button", { type: "button", id: "action-stop", onclick: () => act("Stop", () => put(`${base}/stop`)) }, "Stop"),
      el("button", { type: "button", id: "action-restart", onclick: () =>
        act("Restart", () => post(`${base}/restart?includeTasks=true&onlyFailed=false`)) }, "Restart with tasks"),
      el("button", { type: "button", id: "action-restart-failed", onclick: () =>
        act("Restart failed", () => post(`${base}/restart?includeTasks=true&onlyFailed=true`)) }, "Restart failed"),
      el("button", { type: "button", class: "danger", id: "action-delete", onclick: async () => {
        if (!window.confirm(`Delete ${name}?`)) return;
        try { await del(base); location.hash = "#/connectors"; } catch (e) { notify(e.message, true); }
      } }, "Delete")),
    el("h2", {}, "Status"), statusBox,
    el("h2", {}, "Active topics"), topicsBox,
    el("h2", {}, "Last minutes"), chartsBox,
    el("h2", {}, "Offsets"), offsetsBox,
    el("h2", {}, "Config"), configBox);
  return () => { stop(); unsubscribe(); };
}

/** A connector the REST API cannot address by name: what the list call tells, and why nothing more. */
async function renderReadOnly(main, name) {
  const entry = ((await listConnectors()) || {})[name];
  fill(main,
    el("h1", {}, el("span", { id: "connector-name" }, name), " ", stateBadge(entry?.status?.connector?.state)),
    el("div", { class: "explain" },
      "This connector's name contains \"/\" (or is \".\" or \"..\"). The REST API, like Apache Kafka Connect's, ",
      "refuses an encoded \"/\" in a URL path and URLs fold dot segments away, so no request can name it: it ",
      "cannot be paused, changed or deleted through the API or this console. What the connector list reports is ",
      "shown below."),
    entry ? [
      el("h2", {}, "Status"),
      table(["Task", "State", "Worker"], (entry.status?.tasks || []).map((t) =>
        el("tr", {}, el("td", {}, String(t.id)), el("td", {}, stateBadge(t.state)), el("td", {}, t.worker_id || "")))),
      el("h2", {}, "Config"),
      table(["Key", "Value"], Object.entries(entry.info?.config || {}).map(([k, v]) =>
        el("tr", {}, el("td", {}, k), el("td", { class: "name" }, v)))),
    ] : el("p", { class: "muted" }, "Not in the connector list."));
}
