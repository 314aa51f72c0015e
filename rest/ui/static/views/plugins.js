// Plugins, with the config definitions of the one chosen.

import { get, path } from "../api.js";
import { el, fill, table } from "../dom.js";

export async function render(main, chosen) {
  const plugins = (await get("../connector-plugins?connectorsOnly=false")) || [];
  const definitionsBox = el("div", { id: "definitions" });
  fill(main,
    el("h1", {}, "Plugins"),
    table(["Class", "Type", "Version", ""], plugins.map((p) => el("tr", {},
      el("td", { class: "name" }, p.class), el("td", {}, p.type), el("td", {}, p.version || ""),
      el("td", {}, el("a", { href: `#/plugins/${encodeURIComponent(p.class)}` }, "Config definition")))),
    { id: "plugins" }),
    definitionsBox);
  if (!chosen) return;
  const definitions = await get(path("connector-plugins", chosen, "config"));
  fill(definitionsBox,
    el("h2", {}, `Config of ${chosen}`),
    definitions.length
      ? table(["Name", "Type", "Required", "Default", "Importance", "Documentation"], definitions.map((d) =>
        el("tr", {}, el("td", { class: "name" }, d.name), el("td", {}, d.type), el("td", {}, d.required ? "yes" : ""),
          el("td", {}, d.default_value ?? ""), el("td", {}, d.importance || ""), el("td", {}, d.documentation || ""))))
      : el("p", { class: "muted" }, "This plugin declares no settings."));
  definitionsBox.scrollIntoView();
}
