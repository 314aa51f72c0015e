// Overview: the workers, the leader and generation, connectors and tasks by state, failed ones first.

import { get } from "../api.js";
import { el, fill, stateBadge, table } from "../dom.js";
import { sampler } from "../prom.js";

const ORDER = ["FAILED", "RESTARTING", "UNASSIGNED", "PAUSED", "STOPPED", "RUNNING"];
const rank = (state) => (ORDER.indexOf(state) + ORDER.length + 1) % (ORDER.length + 1);

/** `GET /connectors?expand=status&expand=info`: one call for every connector's status and config. */
export function listConnectors() {
  return get("../connectors?expand=status&expand=info");
}

function link(name) {
  return el("a", { href: `#/connector/${encodeURIComponent(name)}` }, name);
}

function countBy(values) {
  const counts = {};
  for (const v of values) counts[v] = (counts[v] || 0) + 1;
  return Object.entries(counts).sort((a, b) => rank(a[0]) - rank(b[0]));
}

export async function render(main) {
  const [info, all] = await Promise.all([get("../"), listConnectors()]);
  const entries = Object.entries(all || {});
  const tasks = entries.flatMap(([name, c]) => (c.status?.tasks || []).map((t) => ({ name, ...t })));
  const workers = new Map();
  for (const [name, c] of entries) {
    const w = c.status?.connector?.worker_id;
    if (w) (workers.get(w) || workers.set(w, { connectors: 0, tasks: 0 }).get(w)).connectors++;
  }
  for (const t of tasks) {
    if (t.worker_id) (workers.get(t.worker_id) || workers.set(t.worker_id, { connectors: 0, tasks: 0 }).get(t.worker_id)).tasks++;
  }
  const leaderBox = el("span");
  const generationBox = el("span");
  const showRebalance = () => {
    const leader = sampler.latest("kafka_connect_worker_rebalance_leader_name");
    const epoch = sampler.latest("kafka_connect_worker_rebalance_epoch");
    const missing = sampler.status === "ok" ? "not reported" : "unknown (this listener serves no /metrics)";
    // A string metric is a series of value 1 labelled with the string (Strimzi's rules).
    fill(leaderBox, leader ? leader.labels.leader_name ?? Object.values(leader.labels)[0] ?? "" : missing);
    fill(generationBox, epoch && Number.isFinite(epoch.value) ? String(epoch.value) : missing);
  };
  showRebalance();
  const unsubscribe = sampler.subscribe(showRebalance);

  const connectorStates = countBy(entries.map(([, c]) => c.status?.connector?.state || "UNKNOWN"));
  const taskStates = countBy(tasks.map((t) => t.state));
  const problems = [
    ...entries.filter(([, c]) => c.status?.connector?.state !== "RUNNING")
      .map(([name, c]) => ({ name, what: "connector", state: c.status?.connector?.state, trace: c.status?.connector?.trace })),
    ...tasks.filter((t) => t.state !== "RUNNING")
      .map((t) => ({ name: t.name, what: `task ${t.id}`, state: t.state, trace: t.trace })),
  ].sort((a, b) => rank(a.state) - rank(b.state));

  fill(main,
    el("h1", {}, "Overview"),
    el("div", { class: "cards" },
      el("div", { class: "card" }, el("div", { class: "muted" }, "Worker version"), el("div", { class: "big" }, info.version)),
      el("div", { class: "card" }, el("div", { class: "muted" }, "Kafka cluster"), el("div", {}, info.kafka_cluster_id)),
      el("div", { class: "card" }, el("div", { class: "muted" }, "Leader"), el("div", { id: "leader" }, leaderBox)),
      el("div", { class: "card" }, el("div", { class: "muted" }, "Generation"), el("div", { id: "generation" }, generationBox)),
      el("div", { class: "card", id: "connector-states" }, el("div", { class: "muted" }, `Connectors (${entries.length})`),
        connectorStates.map(([s, n]) => el("div", {}, stateBadge(s), ` ${n}`))),
      el("div", { class: "card", id: "task-states" }, el("div", { class: "muted" }, `Tasks (${tasks.length})`),
        taskStates.map(([s, n]) => el("div", {}, stateBadge(s), ` ${n}`)))),
    el("h2", {}, "Not running (failed first)"),
    problems.length
      ? table(["Connector", "What", "State", "Trace"], problems.map((p) => el("tr", {},
        el("td", { class: "name" }, link(p.name)), el("td", {}, p.what), el("td", {}, stateBadge(p.state)),
        el("td", {}, p.trace ? el("pre", { class: "trace" }, p.trace.split("\n").slice(0, 4).join("\n")) : ""))),
      { id: "problems" })
      : el("p", { class: "muted" }, "Every connector and task is running."),
    el("h2", {}, "Workers"),
    el("p", { class: "hint" }, "The workers running at least one connector or task, as their statuses name them."),
    table(["Worker", "Connectors", "Tasks"], [...workers.entries()].sort().map(([w, n]) =>
      el("tr", {}, el("td", {}, w), el("td", {}, String(n.connectors)), el("td", {}, String(n.tasks)))),
    { id: "workers" }),
    el("p", { class: "hint" }, "Connector pages: ", el("a", { href: "#/connectors" }, "Connectors"), "."),
  );
  return unsubscribe;
}
