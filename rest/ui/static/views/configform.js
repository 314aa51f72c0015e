// A connector config as a form built from its plugin's ConfigDef, validated by the worker as you type
// (PUT /connector-plugins/{plugin}/config/validate, debounced) with each error shown at its field, and
// validated once more before anything is saved.

import { get, path, put } from "../api.js";
import { debounce, el, fill } from "../dom.js";

const VALIDATE_DELAY_MS = 400;
/** The groups of Kafka Connect's own connector settings (ConnectorConfig and its source additions). */
const FRAMEWORK_GROUPS = new Set(["Common", "Transforms", "Predicates", "Error Handling", "Topic Creation",
  "Exactly Once Support", "offsets.topic"]);

/** The plugin's config definitions (GET /connector-plugins/{plugin}/config). */
export function definitionsOf(plugin) {
  return get(path("connector-plugins", plugin, "config"));
}

function input(def, value) {
  const attrs = { id: `field-${def.name}`, name: def.name, "data-key": def.name };
  if (def.type === "BOOLEAN") {
    return el("select", attrs, ["", "true", "false"].map((v) =>
      el("option", { value: v, selected: v === (value ?? "") }, v || `(default${def.default_value ? `: ${def.default_value}` : ""})`)));
  }
  return el("input", { ...attrs, type: def.type === "PASSWORD" ? "password" : "text", value: value ?? "",
    placeholder: def.default_value ?? (def.required ? "required" : ""), autocomplete: "off" });
}

/**
 * The form: `plugin` (connector class), `definitions` (its ConfigDef), `values` (an existing config, or
 * {}), `name` (fixed when editing), `onSave(name, config)` called once the worker found no error.
 */
export function configForm({ plugin, definitions, values = {}, name, submitLabel, onSave }) {
  const fields = new Map(); // key -> {row, control, error}
  const general = el("ul", { class: "error", id: "form-errors" });
  const status = el("span", { class: "muted", id: "validation-status" });
  const fieldList = el("div");
  // The worker's own keys (converters, transforms, errors, topic creation…) after the plugin's, folded.
  const frameworkList = el("div");
  const frameworkBox = el("details", { id: "framework-settings" },
    el("summary", {}, "Framework settings: converters, transforms, error handling, topic creation, exactly-once"),
    frameworkList);
  let sequence = 0;

  const config = () => {
    const result = { "connector.class": plugin };
    for (const [key, { control }] of fields) {
      // A stored setting may be "" on purpose; an unset field or a cleared added row means "not set".
      if (control.value !== "" || Object.hasOwn(values, key)) result[key] = control.value;
    }
    return result;
  };

  /** Validates with the worker; shows each error at its field; resolves to the error count, or to null
   * when `latestOnly` and a newer validation started meanwhile (its answer will be shown instead). */
  const validate = async ({ latestOnly = true } = {}) => {
    const mine = ++sequence;
    fill(status, "Validating…");
    const result = await put(`${path("connector-plugins", plugin, "config", "validate")}`, config());
    if (latestOnly && mine !== sequence) return null;
    const others = [];
    for (const { row, error } of fields.values()) { row.classList.remove("invalid"); fill(error); }
    for (const { definition, value } of result.configs) {
      const errors = value.errors || [];
      if (!errors.length) continue;
      const field = fields.get(definition.name);
      if (field) {
        if (frameworkList.contains(field.row)) frameworkBox.open = true;
        field.row.classList.add("invalid");
        fill(field.error, errors.join(" "));
      } else {
        others.push(el("li", {}, `${definition.name}: ${errors.join(" ")}`));
      }
    }
    fill(general, others);
    fill(status, result.error_count ? `${result.error_count} error(s)` : "Valid");
    form.dataset.errors = String(result.error_count);
    return result.error_count;
  };
  const validateSafely = () => validate().catch((e) => fill(status, el("span", { class: "error" }, e.message)));
  const scheduleValidation = debounce(validateSafely, VALIDATE_DELAY_MS);

  const addField = (def, value, into = fieldList) => {
    const control = input(def, value);
    const error = el("div", { class: "field-error", id: `error-${def.name}` });
    const row = el("div", { class: "field", "data-field": def.name },
      el("label", { for: control.id }, def.display_name && def.display_name !== def.name
        ? `${def.display_name} (${def.name})` : def.name, def.required ? " *" : ""),
      control,
      def.documentation ? el("div", { class: "doc" }, def.documentation) : null,
      error);
    control.addEventListener("input", scheduleValidation);
    control.addEventListener("change", scheduleValidation);
    fields.set(def.name, { row, control, error });
    into.append(row);
  };

  const nameDef = { name: "name", type: "STRING", required: true, documentation: "The connector's unique name." };
  addField(nameDef, name ?? values.name ?? "");
  if (name !== undefined) fields.get("name").control.readOnly = true;
  const known = new Set(["name", "connector.class"]);
  const tasksDef = definitions.find((d) => d.name === "tasks.max") || { name: "tasks.max", type: "INT",
    required: false, default_value: "1", documentation: "The most tasks the connector may run." };
  addField(tasksDef, values["tasks.max"]);
  known.add("tasks.max");
  for (const def of definitions) {
    if (known.has(def.name)) continue;
    known.add(def.name);
    const framework = FRAMEWORK_GROUPS.has(def.group);
    addField(def, values[def.name], framework ? frameworkList : fieldList);
    if (framework && values[def.name] !== undefined) frameworkBox.open = true;
  }
  for (const [key, value] of Object.entries(values)) {
    if (!known.has(key)) {
      known.add(key);
      addField({ name: key, type: "STRING", required: false, documentation: "" }, value);
    }
  }

  const newKey = el("input", { type: "text", id: "new-key", placeholder: "another setting, e.g. transforms" });
  const addButton = el("button", { type: "button", onclick: () => {
    const key = newKey.value.trim();
    if (key && !fields.has(key)) addField({ name: key, type: "STRING", required: false, documentation: "" }, "");
    if (key && frameworkList.contains(fields.get(key).row)) frameworkBox.open = true;
    if (key) fields.get(key).control.focus();
    newKey.value = "";
  } }, "Add setting");

  const submit = el("button", { type: "submit", class: "primary", id: "save-config" }, submitLabel);
  const form = el("form", { class: "config", id: "config-form", "data-errors": "" },
    el("p", { class: "hint" }, `Plugin ${plugin}. Every change is validated by the worker; `,
      "nothing is saved until it finds no error."),
    general, fieldList, frameworkBox,
    el("div", { class: "toolbar" }, newKey, addButton),
    el("div", { class: "toolbar" }, submit, status));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    submit.disabled = true;
    // Save checks the config as it is now: a validation still waiting for typing to pause is not needed,
    // and one started while saving must not turn this click into nothing.
    scheduleValidation.cancel();
    try {
      const errors = await validate({ latestOnly: false });
      if (errors === 0) {
        const cfg = config();
        const connectorName = cfg.name;
        delete cfg.name;
        await onSave(connectorName, { ...cfg, name: connectorName });
      }
    } catch (e) {
      fill(status, el("span", { class: "error" }, e.message));
    } finally {
      submit.disabled = false;
    }
  });
  if (Object.keys(values).length) validateSafely();
  return form;
}
