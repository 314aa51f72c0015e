// Connectors: one GET /connectors?expand=status&expand=info, filtered here; bulk actions on the selection.

import { addressable, del, post, put, path } from "../api.js";
import { el, every, fill, notify, stateBadge, table } from "../dom.js";
import { listConnectors } from "./overview.js";

const BULK = {
  pause: { label: "Pause", run: (c) => put(path("connectors", c, "pause")) },
  resume: { label: "Resume", run: (c) => put(path("connectors", c, "resume")) },
  "restart-failed": { label: "Restart failed", run: (c) => post(`${path("connectors", c, "restart")}?includeTasks=true&onlyFailed=true`) },
  "restart-all": { label: "Restart all", run: (c) => post(`${path("connectors", c, "restart")}?includeTasks=true&onlyFailed=false`) },
  stop: { label: "Stop", run: (c) => put(path("connectors", c, "stop")) },
  delete: { label: "Delete", run: (c) => del(path("connectors", c)), confirm: true },
};

const STATES = ["RUNNING", "PAUSED", "STOPPED", "FAILED", "RESTARTING", "UNASSIGNED"];
const REFRESH_MS = 3000;

function shortClass(cls) {
  return String(cls || "").split(".").pop();
}

async function load() {
  return Object.entries((await listConnectors()) || {}).map(([name, c]) => ({
    name,
    state: c.status?.connector?.state || "UNKNOWN",
    cls: c.info?.config?.["connector.class"] || "",
    type: c.info?.type || c.status?.type || "",
    tasks: c.status?.tasks || [],
  })).sort((a, b) => a.name.localeCompare(b.name));
}

export async function render(main) {
  let all = await load();
  const selected = new Set();
  const nameFilter = el("input", { type: "search", id: "filter-name", placeholder: "Name contains…" });
  const stateFilter = el("select", { id: "filter-state" }, el("option", { value: "" }, "Any state"),
    STATES.map((s) => el("option", { value: s }, s)));
  const classFilter = el("select", { id: "filter-class" });
  const drawClasses = () => {
    const chosen = classFilter.value;
    fill(classFilter, el("option", { value: "" }, "Any class"), [...new Set(all.map((c) => c.cls))].sort()
      .map((c) => el("option", { value: c, selected: c === chosen }, shortClass(c))));
  };
  drawClasses();
  const body = el("tbody");
  const count = el("span", { class: "muted" });
  const selectAll = el("input", { type: "checkbox", id: "select-all", title: "Select every shown connector" });

  const visible = () => all.filter((c) =>
    c.name.toLowerCase().includes(nameFilter.value.toLowerCase()) &&
    (!stateFilter.value || c.state === stateFilter.value) &&
    (!classFilter.value || c.cls === classFilter.value));

  const draw = () => {
    const rows = visible();
    fill(count, `${selected.size} selected, ${rows.length} of ${all.length} shown`);
    fill(body, rows.map((c) => {
      const box = el("input", { type: "checkbox", checked: selected.has(c.name), "aria-label": `Select ${c.name}`,
        disabled: !addressable(c.name) });
      box.addEventListener("change", () => { box.checked ? selected.add(c.name) : selected.delete(c.name); draw(); });
      const failed = c.tasks.filter((t) => t.state === "FAILED").length;
      return el("tr", { "data-connector": c.name },
        el("td", {}, box),
        el("td", { class: "name" }, el("a", { href: `#/connector/${encodeURIComponent(c.name)}` }, c.name),
          addressable(c.name) ? null : el("div", { class: "hint" }, "Cannot be managed through the REST API (its name has a \"/\" or is a dot segment).")),
        el("td", {}, stateBadge(c.state)),
        el("td", {}, `${c.tasks.length}${failed ? ` (${failed} failed)` : ""}`),
        el("td", { title: c.cls }, shortClass(c.cls)),
        el("td", {}, c.type));
    }));
  };

  const bulk = async (action) => {
    // What the filter hides stays selected but is not acted on: the operator sees what is done.
    const names = visible().map((c) => c.name).filter((n) => selected.has(n));
    if (!names.length) return;
    if (BULK[action].confirm &&
        !window.confirm(`${BULK[action].label} ${names.length} connector(s)?\n\n${names.join("\n")}`)) return;
    const results = await Promise.allSettled(names.map((n) => BULK[action].run(n)));
    const failures = results.map((r, i) => [names[i], r]).filter(([, r]) => r.status === "rejected");
    for (const n of names) selected.delete(n);
    selectAll.checked = false;
    await reload();
    notify(failures.length
      ? `${BULK[action].label}: ${failures.length} of ${names.length} failed: ` +
        failures.map(([n, r]) => `${n}: ${r.reason.message}`).join("; ")
      : `${BULK[action].label}: done for ${names.length} connector(s).`, failures.length > 0);
  };

  const reload = async () => {
    all = await load();
    drawClasses();
    draw();
  };
  // Actions take effect asynchronously (and other operators act too): keep the list current.
  const stop = every(REFRESH_MS, reload);

  selectAll.addEventListener("change", () => {
    for (const c of visible()) if (addressable(c.name)) selectAll.checked ? selected.add(c.name) : selected.delete(c.name);
    draw();
  });
  for (const input of [nameFilter, stateFilter, classFilter]) input.addEventListener("input", draw);

  fill(main,
    el("h1", {}, "Connectors"),
    el("div", { class: "toolbar" }, nameFilter, stateFilter, classFilter, count),
    el("div", { class: "toolbar" }, "Selected:",
      Object.entries(BULK).map(([key, b]) => el("button", { type: "button", id: `bulk-${key}`,
        class: key === "delete" ? "danger" : "", onclick: () => bulk(key) }, b.label)),
      el("a", { href: "#/create" }, "New connector…")),
    table([selectAll, "Name", "State", "Tasks", "Class", "Type"], body, { id: "connectors" }));
  draw();
  return stop;
}
