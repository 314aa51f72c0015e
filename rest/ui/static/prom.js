// The worker's GET /metrics (Prometheus text format), parsed here and sampled while the console is open:
// the charts show the last minutes as this page saw them (the worker keeps no history).

import { ApiError, get } from "./api.js";
import { every } from "./dom.js";

/** The series the charts draw, each labelled `connector` and `task`. */
export const CHART_SERIES = {
  kafka_connect_source_task_source_record_write_rate: "Records written / s",
  kafka_connect_source_task_transaction_size_avg: "Transaction size (records, avg)",
  kafka_connect_connector_task_offset_commit_avg_time_ms: "Commit time (ms, avg)",
};
/** What the overview reads of the worker's rebalance metrics (leader and generation). */
const KEPT = new Set([...Object.keys(CHART_SERIES),
  "kafka_connect_worker_rebalance_leader_name", "kafka_connect_worker_rebalance_epoch"]);
export const WINDOW_MS = 10 * 60 * 1000;
const PERIOD_MS = 5000;

function parseValue(text) {
  if (text === "NaN") return NaN;
  if (text === "+Inf" || text === "Inf") return Infinity;
  if (text === "-Inf") return -Infinity;
  return Number(text);
}

function parseLabels(text) {
  const labels = {};
  const re = /\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*=\s*"((?:[^"\\]|\\.)*)"\s*,?/gy;
  let match;
  while ((match = re.exec(text)) !== null) {
    labels[match[1]] = match[2].replace(/\\(.)/g, (_, c) => (c === "n" ? "\n" : c));
    if (re.lastIndex >= text.length) break;
  }
  return labels;
}

/** The samples of a Prometheus (or OpenMetrics) text exposition: [{name, labels, value}]. */
export function parsePrometheus(text) {
  const samples = [];
  for (const line of text.split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const brace = line.indexOf("{");
    let name, labels = {}, rest;
    if (brace >= 0 && brace < line.search(/\s/)) {
      name = line.slice(0, brace);
      // Label values may hold "}" and spaces: find the closing brace after the last quoted value.
      let i = brace + 1, inQuote = false;
      for (; i < line.length; i++) {
        const c = line[i];
        if (inQuote && c === "\\") i++;
        else if (c === '"') inQuote = !inQuote;
        else if (!inQuote && c === "}") break;
      }
      labels = parseLabels(line.slice(brace + 1, i));
      rest = line.slice(i + 1).trim();
    } else {
      const space = line.search(/\s/);
      name = line.slice(0, space);
      rest = line.slice(space).trim();
    }
    samples.push({ name, labels, value: parseValue(rest.split(/\s+/)[0]) });
  }
  return samples;
}

/** Samples /metrics every few seconds and keeps the kept series for WINDOW_MS; a series with no point
 * left in the window (a task gone, a former leader) is dropped. */
export class Sampler {
  constructor() {
    this.series = new Map(); // key -> {name, labels, points: [[timeMs, value]]}
    this.status = "starting"; // "ok" | "unavailable" | "error"
    this.message = "";
    this.listeners = new Set();
    this.stopTimer = null;
  }

  /** Samples now and every few seconds from now on (again after `stop`). */
  start() {
    if (this.stopTimer === null) {
      this.stopTimer = every(PERIOD_MS, () => this.sample());
      this.sample();
    }
  }

  /** Stops sampling (the sign-in form: /metrics would be refused); the kept series stay. */
  stop() {
    if (this.stopTimer !== null) this.stopTimer();
    this.stopTimer = null;
  }

  get running() {
    return this.stopTimer !== null;
  }

  subscribe(listener) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async sample() {
    const now = Date.now();
    try {
      const text = await get("../metrics", { text: true });
      this.status = "ok";
      this.record(parsePrometheus(text), now);
    } catch (e) {
      this.status = e instanceof ApiError && (e.status === 404 || e.status === 401) ? "unavailable" : "error";
      this.message = e.message;
      this.prune(now);
    }
    this.listeners.forEach((l) => l());
  }

  /** Adds one scrape's samples (of the kept names) taken at `now`, then drops what left the window. */
  record(samples, now) {
    for (const s of samples) {
      if (!KEPT.has(s.name)) continue;
      const key = s.name + JSON.stringify(Object.entries(s.labels).sort());
      let entry = this.series.get(key);
      if (!entry) this.series.set(key, (entry = { name: s.name, labels: s.labels, points: [] }));
      entry.points.push([now, s.value]);
    }
    this.prune(now);
  }

  prune(now) {
    for (const [key, entry] of this.series) {
      while (entry.points.length && entry.points[0][0] < now - WINDOW_MS) entry.points.shift();
      if (!entry.points.length) this.series.delete(key);
    }
  }

  /** The kept series called `name` whose labels include `match`. */
  find(name, match = {}) {
    return [...this.series.values()].filter((s) => s.name === name &&
      Object.entries(match).every(([k, v]) => s.labels[k] === v));
  }

  /** The value of the series sampled last (for a string metric, one series per value: the current one),
   * or undefined. */
  latest(name, match = {}) {
    let newest;
    for (const s of this.find(name, match)) {
      const point = s.points[s.points.length - 1];
      if (point && (!newest || point[0] >= newest.point[0])) newest = { series: s, point };
    }
    return newest ? { labels: newest.series.labels, value: newest.point[1] } : undefined;
  }
}

export const sampler = new Sampler();
