// The console's shell: hash routes (#/connectors, #/connector/<name>…), the sign-in form, notices.

import { authorization, get, onUnauthorized, signIn, signOut } from "./api.js";
import { el, fill, notify } from "./dom.js";
import { sampler } from "./prom.js";
import * as connector from "./views/connector.js";
import * as connectors from "./views/connectors.js";
import * as create from "./views/create.js";
import * as loggers from "./views/loggers.js";
import * as overview from "./views/overview.js";
import * as plugins from "./views/plugins.js";

const ROUTES = { overview, connectors, connector, create, plugins, loggers };
const main = document.getElementById("main");
let cleanup = null;
let signingIn = false;
/** Counts routes: a view that finishes rendering after the user moved on is stale and must not stay. */
let routeSequence = 0;

function showSession() {
  const box = document.getElementById("session");
  fill(box, authorization()
    ? ["Signed in", el("button", { type: "button", onclick: () => { signOut(); location.reload(); } }, "Sign out")]
    : null);
}

function showSignIn(reason) {
  signingIn = true;
  routeSequence++;
  sampler.stop(); // /metrics needs the credentials too
  if (cleanup) cleanup();
  cleanup = null;
  const user = el("input", { type: "text", id: "signin-user", autocomplete: "username", required: true });
  const password = el("input", { type: "password", id: "signin-password", autocomplete: "current-password" });
  const error = el("p", { class: "error" });
  const form = el("form", { class: "signin", id: "signin" },
    el("h1", {}, "Sign in"),
    el("p", {}, reason),
    el("p", { class: "hint" },
      "This worker authenticates its REST API (HTTP Basic). The credentials stay in this tab only " +
      "(session storage) and go to this worker alone, with each request."),
    el("label", { for: "signin-user" }, "User"), user,
    el("label", { for: "signin-password" }, "Password"), password,
    el("p", {}, el("button", { type: "submit", class: "primary" }, "Sign in")), error);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    signIn(user.value, password.value);
    try {
      await get("../connectors");
      signingIn = false;
      showSession();
      route();
    } catch (e) {
      signOut();
      fill(error, e.status === 401 ? "Wrong user or password." : e.message);
    }
  });
  fill(main, form);
  user.focus();
}

onUnauthorized(() => {
  if (!signingIn) {
    signOut();
    showSignIn("The worker refused the request without valid credentials.");
  }
});

async function route() {
  if (signingIn) return;
  const mine = ++routeSequence;
  if (cleanup) cleanup();
  cleanup = null;
  notify("");
  const [, page = "overview", ...rest] = location.hash.replace(/^#/, "").split("/");
  const view = ROUTES[page] || overview;
  for (const link of document.querySelectorAll("#nav a")) {
    link.classList.toggle("active", link.getAttribute("href") === `#/${page}`);
  }
  // Each route renders into its own box: once a newer route replaced it, a slow view writes off-page.
  const box = el("div", { class: "view" }, el("p", { class: "muted" }, "Loading…"));
  fill(main, box);
  try {
    const param = rest.length ? decodeURIComponent(rest.join("/")) : undefined;
    const done = (await view.render(box, param)) || null;
    if (mine !== routeSequence) {
      if (done) done();
      return;
    }
    cleanup = done;
  } catch (e) {
    if (mine === routeSequence && e.status !== 401) fill(box, el("p", { class: "error" }, e.message));
  }
  // Not on the sign-in form (a refused request shows it): /metrics would be refused as well.
  if (!signingIn) sampler.start();
}

window.addEventListener("hashchange", route);
showSession();
route();
