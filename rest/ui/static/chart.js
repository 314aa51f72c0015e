// A small SVG line chart drawn here (a few dozen lines) rather than a vendored library: three charts of
// a few lines each need no zoom or legend engine, and the console then ships no third-party code.

import { el } from "./dom.js";
import { WINDOW_MS } from "./prom.js";

const SVG = "http://www.w3.org/2000/svg";
const W = 360, H = 140, PAD_L = 44, PAD_B = 18, PAD_T = 8, PAD_R = 8;

function svg(tag, attrs = {}, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}

function format(v) {
  if (Math.abs(v) >= 1000) return v.toFixed(0);
  if (Math.abs(v) >= 10) return v.toFixed(1);
  return v.toFixed(2);
}

/** A chart of `lines` ([{label, points: [[timeMs, value]]}]) over the last WINDOW_MS; NaN points (no data
 * in the worker's window) break a line. `data-points` counts the finite points drawn, and
 * `data-last` is the newest finite value of any line, so a reader (or a test) sees it move. */
export function lineChart(title, lines, now = Date.now()) {
  const finite = lines.flatMap((l) => l.points.filter(([, v]) => Number.isFinite(v)));
  const max = Math.max(1e-9, ...finite.map(([, v]) => v));
  const x = (t) => PAD_L + ((t - (now - WINDOW_MS)) / WINDOW_MS) * (W - PAD_L - PAD_R);
  const y = (v) => H - PAD_B - (v / max) * (H - PAD_B - PAD_T);
  const plot = svg("svg", { width: W, height: H, viewBox: `0 0 ${W} ${H}`, role: "img" });
  plot.append(svg("title", {}, title));
  plot.append(svg("line", { class: "axis", x1: PAD_L, y1: H - PAD_B, x2: W - PAD_R, y2: H - PAD_B }));
  plot.append(svg("line", { class: "axis", x1: PAD_L, y1: PAD_T, x2: PAD_L, y2: H - PAD_B }));
  plot.append(svg("text", { x: PAD_L - 4, y: PAD_T + 8, "text-anchor": "end" }, format(max)));
  plot.append(svg("text", { x: PAD_L - 4, y: H - PAD_B, "text-anchor": "end" }, "0"));
  plot.append(svg("text", { x: PAD_L, y: H - 4 }, `-${WINDOW_MS / 60000} min`));
  plot.append(svg("text", { x: W - PAD_R, y: H - 4, "text-anchor": "end" }, "now"));
  let last;
  let lastTime = -Infinity;
  lines.forEach((line, i) => {
    let d = "";
    let pen = false;
    for (const [t, v] of line.points) {
      if (!Number.isFinite(v)) { pen = false; continue; }
      d += `${pen ? "L" : "M"}${x(t).toFixed(1)},${y(v).toFixed(1)}`;
      pen = true;
      if (t >= lastTime) { lastTime = t; last = v; }
    }
    if (d) plot.append(svg("path", { class: `line series-${i % 6}`, d }));
  });
  const box = el("div", { class: "chart", "data-title": title, "data-points": finite.length,
    "data-last": last === undefined ? "" : String(last) },
  el("div", { class: "title" }, title), plot,
  el("div", { class: "legend" }, lines.map((l, i) => el("span", { class: `series-${i % 6}` }, `■ ${l.label}`))));
  if (!finite.length) box.append(el("div", { class: "hint" }, "No data in the window yet."));
  return box;
}
