// The worker's own REST API, and nothing else: every URL is relative to the page's origin, and names
// go into paths through encodeURIComponent.
//
// Credentials: Basic authentication answers 401 without a challenge (as Java's does), so a browser never
// prompts. The sign-in form keeps "Basic …" in sessionStorage (gone when the tab closes) and every call
// sends it as the Authorization header.

const AUTH_KEY = "connect-console.authorization";

/** An error answer of the REST API, with Connect's message when the body carries one. */
export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

export function authorization() {
  return sessionStorage.getItem(AUTH_KEY);
}

export function signIn(user, password) {
  const bytes = new TextEncoder().encode(`${user}:${password}`);
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  sessionStorage.setItem(AUTH_KEY, `Basic ${btoa(binary)}`);
}

export function signOut() {
  sessionStorage.removeItem(AUTH_KEY);
}

/** Listeners told when the worker refuses the credentials (401), so the page can ask for them. */
const unauthorizedListeners = [];
export function onUnauthorized(listener) {
  unauthorizedListeners.push(listener);
}

/** A path of the API from literal parts and names: `path("connectors", name, "status")`. */
export function path(...segments) {
  return "../" + segments.map((s) => encodeURIComponent(String(s))).join("/");
}

/** Whether the REST API can address a connector of this name at all. Jetty (and so the worker)
 * refuses an encoded "/" in a path segment, and every URL parser folds "." and ".." segments away:
 * such a connector can be listed, never read, changed or deleted by name. */
export function addressable(name) {
  return !name.includes("/") && name !== "." && name !== "..";
}

/** Calls the API; resolves to the parsed JSON body (null when empty); rejects with ApiError. */
export async function call(method, url, body, { text = false } = {}) {
  const headers = { Accept: text ? "text/plain, */*" : "application/json" };
  const auth = authorization();
  if (auth) headers.Authorization = auth;
  const init = { method, headers, credentials: "same-origin", cache: "no-store" };
  if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(url, init);
  const raw = await response.text();
  if (!response.ok) {
    let message = raw || response.statusText;
    try {
      const parsed = JSON.parse(raw);
      if (parsed && typeof parsed.message === "string") message = parsed.message;
    } catch {
      // not JSON: keep the text
    }
    if (response.status === 401) unauthorizedListeners.forEach((l) => l());
    throw new ApiError(response.status, `${response.status}: ${message}`);
  }
  if (text) return raw;
  return raw ? JSON.parse(raw) : null;
}

export const get = (url, opts) => call("GET", url, undefined, opts);
export const put = (url, body) => call("PUT", url, body);
export const post = (url, body) => call("POST", url, body);
export const patch = (url, body) => call("PATCH", url, body);
export const del = (url) => call("DELETE", url);
