// A new connector from its plugin's ConfigDef, as a form.

import { get, post } from "../api.js";
import { el, fill, notify } from "../dom.js";
import { configForm, definitionsOf } from "./configform.js";

export async function render(main, plugin) {
  const plugins = (await get("../connector-plugins")) || [];
  const chooser = el("select", { id: "plugin" }, el("option", { value: "" }, "Choose a connector plugin…"),
    plugins.map((p) => el("option", { value: p.class, selected: p.class === plugin }, `${p.class} (${p.type}, ${p.version})`)));
  chooser.addEventListener("change", () => {
    location.hash = chooser.value ? `#/create/${encodeURIComponent(chooser.value)}` : "#/create";
  });
  const formBox = el("div");
  fill(main, el("h1", {}, "New connector"), el("div", { class: "toolbar" }, chooser), formBox);
  if (!plugin) return;
  const definitions = await definitionsOf(plugin);
  fill(formBox, configForm({
    plugin, definitions, submitLabel: "Create",
    onSave: async (name, config) => {
      await post("../connectors", { name, config });
      location.hash = `#/connector/${encodeURIComponent(name)}`;
      notify(`Created ${name}.`);
    },
  }));
}
