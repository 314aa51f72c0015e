// Every page is built from elements and text nodes: data never becomes markup (no HTML parsing), so a
// connector named "<script>…" shows as those characters.

/** An element with attributes (`class`, `for`, `on<event>` handlers, others as attributes) and children
 * (strings become text nodes; null/undefined/false are skipped). */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") node.addEventListener(key.slice(2), value);
    else if (key === "class") node.className = value;
    else if (key === "value") node.value = value;
    else if (key === "checked" || key === "disabled") node[key] = Boolean(value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replace `node`'s content with `children`. */
export function fill(node, ...children) {
  node.replaceChildren();
  append(node, children);
  return node;
}

/** A state word (RUNNING, FAILED…) styled by its value. */
export function stateBadge(state) {
  const text = String(state || "UNKNOWN");
  return el("span", { class: `state state-${text.replace(/[^A-Z]/g, "")}` }, text);
}

/** A table from column headers and rows of cells. */
export function table(headers, rows, attrs = {}) {
  return el("table", attrs,
    el("thead", {}, el("tr", {}, headers.map((h) => el("th", {}, h)))),
    rows instanceof HTMLTableSectionElement ? rows : el("tbody", {}, rows));
}

/** Calls `fn` once `ms` passed without another call (validation as you type); `.cancel()` drops a
 * pending call. */
export function debounce(fn, ms) {
  let timer = null;
  const debounced = (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
  debounced.cancel = () => clearTimeout(timer);
  return debounced;
}

/** Calls the async `fn` every `ms`, skipping a tick while the previous call is still pending (a slow
 * worker then gets no pile of requests); a failed call is ignored. Returns the function that stops it. */
export function every(ms, fn) {
  let pending = false;
  const timer = setInterval(async () => {
    if (pending) return;
    pending = true;
    try {
      await fn();
    } catch {
      // the next tick tries again
    } finally {
      pending = false;
    }
  }, ms);
  return () => clearInterval(timer);
}

/** Shows a short message under the header (an error when `error`); "" clears it. */
export function notify(message, error = false) {
  const box = document.getElementById("notice");
  fill(box, message ? el("p", { class: error ? "error" : "ok", id: "notice-text" }, message) : null);
}
