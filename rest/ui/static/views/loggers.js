// Loggers (/admin/loggers): this worker's levels, changed on this worker or on every worker of the
// cluster (?scope=cluster).

import { ApiError, get, path, put } from "../api.js";
import { el, fill, notify, table } from "../dom.js";

const LEVELS = ["TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL", "OFF"];

function levelSelect(current, id) {
  return el("select", { id }, LEVELS.map((l) => el("option", { value: l, selected: l === current }, l)));
}

export async function render(main) {
  let loggers;
  try {
    loggers = await get("../admin/loggers");
  } catch (e) {
    if (!(e instanceof ApiError) || e.status !== 404) throw e;
    fill(main, el("h1", {}, "Loggers"), el("div", { class: "explain", id: "loggers-unavailable" },
      "This listener does not serve /admin/loggers. A worker with admin.listeners set serves the admin ",
      "endpoints on those listeners only (and with admin.listeners empty, nowhere): change log levels there, ",
      "with any HTTP client."));
    return;
  }
  const scope = el("select", { id: "logger-scope" },
    el("option", { value: "worker" }, "this worker"), el("option", { value: "cluster" }, "every worker (cluster)"));
  const set = async (logger, level) => {
    const url = path("admin", "loggers", logger) + (scope.value === "cluster" ? "?scope=cluster" : "");
    try {
      await put(url, { level });
      notify(`${logger}: ${level} on ${scope.value === "cluster" ? "every worker" : "this worker"}.`);
      await render(main);
    } catch (e) {
      notify(`${logger}: ${e.message}`, true);
    }
  };
  const newName = el("input", { type: "text", id: "logger-name", placeholder: "logger name, e.g. connect_runtime.worker" });
  const newLevel = levelSelect("INFO", "logger-level");
  fill(main,
    el("h1", {}, "Loggers"),
    el("p", { class: "hint" }, "The levels this worker has set explicitly. Cluster scope asks every worker ",
      "to apply the level (through the config topic); it takes a moment to show."),
    el("div", { class: "toolbar" }, "Apply to", scope),
    el("div", { class: "toolbar" }, newName, newLevel,
      el("button", { type: "button", id: "logger-set", onclick: () => newName.value.trim() && set(newName.value.trim(), newLevel.value) }, "Set level")),
    table(["Logger", "Level", "Last modified", ""], Object.entries(loggers).sort().map(([name, info], i) => {
      const select = levelSelect(info.level, `level-${i}`);
      return el("tr", {}, el("td", { class: "name" }, name), el("td", {}, select),
        el("td", {}, info.last_modified ? new Date(info.last_modified).toISOString() : ""),
        el("td", {}, el("button", { type: "button", onclick: () => set(name, select.value) }, "Set")));
    }), { id: "loggers" }));
}
