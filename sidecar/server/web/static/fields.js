// Form fields built from a description (a ruleset's `params`, a character `sheet`, an
// extension's options): one input per field, read back into the values the server expects.
import { el, local, t } from "./page.js";

/** The id of field `name`'s input in the form whose fields are prefixed with `prefix`. */
export const fieldId = (prefix, name) => `${prefix}-${name}`;

/** Tell the form that a field changed without a key being pressed (odds follow the form). */
const changed = (node) => node.dispatchEvent(new Event("change", { bubbles: true }));

/**
 * One field: its label, its input, its help. `options.choices` overrides the choices of a
 * string field (as `[[value, shown], …]`: a character's skills with their levels).
 */
export function buildField(name, spec, prefix, options = {}) {
  const id = fieldId(prefix, name);
  const shown = local(spec.label) || name.replaceAll("_", " ");
  const help = withoutLabel(local(spec.description), shown);
  const title = el("span", { class: "param-name", title: name }, shown,
    spec.required ? el("span", { class: "required", title: t("field.required"), text: " *" }) : null);
  const wrap = el("div", { class: `param param-${spec.type ?? "string"}${spec.labels ? " has-labels" : ""}`,
    "data-param": name });
  // Set by a person (typed, picked, fixed by a chosen situation): sent even as its default,
  // which is theirs then (`readFields`' `changed`).
  for (const kind of ["input", "change"]) wrap.addEventListener(kind, () => { wrap.dataset.set = ""; });
  const helpId = help ? `${id}-help` : null;
  if (spec.type === "bool") {
    // An extension's option may cost something (`cost`: an integer on a bool).
    const cost = typeof spec.cost === "number" ? el("span", { class: "cost", text: ` (${t("option.cost", { cost: spec.cost })})` }) : null;
    wrap.append(el("label", { class: "check" },
      el("input", { type: "checkbox", id, checked: spec.default === true, "aria-describedby": helpId }),
      el("span", {}, title, cost, help ? el("small", { class: "help", id: helpId, text: help }) : null)));
    return wrap;
  }
  let input;
  const choices = options.choices ?? (spec.choices ? spec.choices.map((choice) => [choice, choiceText(spec, choice)]) : null);
  if (spec.type === "int") {
    input = el("input", { type: "number", id, inputmode: "numeric", min: spec.min, max: spec.max,
      step: 1, value: spec.default ?? "", required: spec.required });
  } else if (spec.type === "map") {
    input = buildMap(id, spec, spec.default ?? {});
  } else if ((spec.type ?? "string") === "string" && choices) {
    input = el("select", { id },
      spec.required && !options.choices ? null : el("option", { value: "", text: t("choice.none") }),
      choices.map(([value, text]) => el("option", { value, text, selected: spec.default === value })));
  } else if (spec.type === "list" && spec.choices) {
    const defaults = new Set(spec.default ?? []);
    input = el("div", { class: "choices", id },
      spec.choices.map((choice) => el("label", { class: "chip" },
        el("input", { type: "checkbox", value: choice, checked: defaults.has(choice) }),
        el("span", { text: choiceText(spec, choice) }),
        // An extension's option lists what each choice costs (`cost`: choice → integer).
        typeof spec.cost?.[choice] === "number"
          ? el("span", { class: "cost", text: ` (${t("option.cost", { cost: spec.cost[choice] })})` }) : null)));
  } else {
    input = el("input", { type: "text", id, maxlength: spec.max_length ?? 200,
      placeholder: spec.example ?? "", value: spec.type === "list" ? (spec.default ?? []).join(", ")
        : spec.default ?? "", required: spec.required, autocomplete: "off" });
  }
  const row = el("div", { class: "param-input" }, input);
  if (spec.labels) {
    // Named levels ("Difficile" = 20): picking one fills the number.
    const picker = el("select", { class: "labels", "aria-label": t("labels.pick") },
      el("option", { value: "", text: t("labels.pick") }),
      Object.entries(spec.labels).map(([label, value]) =>
        // (Each named in the page's language, `label_names`: the number is what is sent.)
        el("option", { value: String(value), text: `${local(spec.label_names?.[label]) || label} (${value})` })));
    picker.addEventListener("change", (event) => {
      event.stopPropagation();
      if (picker.value !== "") input.value = picker.value;
      picker.value = "";
      changed(input);
    });
    row.append(picker);
  }
  // A map's rows have their own labels; the field's name labels the group.
  const heading = spec.type === "map"
    ? el("span", { class: "map-title", id: `${id}-title` }, title)
    : el("label", { for: id }, title);
  if (spec.type === "map") input.setAttribute("aria-labelledby", `${id}-title`);
  wrap.append(heading, row);
  if (help) {
    // Linked to the field: a screen reader says it with the field's name.
    wrap.append(el("small", { class: "help", id: helpId, text: help }));
    input.setAttribute("aria-describedby", helpId);
  }
  return wrap;
}

/**
 * A help that starts with its field's label says it twice under it (« Difficulté », then
 * « Difficulté (0 à 20 ; …) », « Bagage adéquat : +1 dé… », "Relevant background: …"):
 * what follows the label is kept, from a capital. A label that only begins a longer name (« Caractéristique
 * utilisée : … ») goes with that name; one that begins a phrase (« Niveau de la
 * caractéristique (1 à 5) ») stays, being no repetition.
 */
export function withoutLabel(help, label) {
  if (!help || !label || !help.toLocaleLowerCase().startsWith(label.toLocaleLowerCase())) return help;
  const rest = help.slice(label.length);
  // (English puts no space before its colon: "Relevant background: +1 die…" repeats it too;
  // a label that only begins a word, "Dice" in "Dicey: …", is no repetition.)
  const said = rest.match(/^\s*\((.*)\)\s*$/)
    ?? (/^[\s:]/.test(rest) ? rest.match(/^[^:;,.()]*?:\s*(.+)$/s) : null);
  if (!said) return help;
  const kept = said[1].trim();
  return kept ? kept[0].toLocaleUpperCase() + kept.slice(1) : "";
}

/**
 * A form's fields as a person needs them (PROTOCOL.md §3, `more` and `situation`): what a
 * roll needs at once; a « Situation » choice for the bool params others name as their
 * `situation` (drinking, darts), which brings those params; the `more` params folded
 * behind « plus d'options ». `build(name, spec)` makes one field. Returns the nodes.
 */
export function layoutFields(params, prefix, build) {
  const entries = Object.entries(params);
  const switches = new Set(entries.map(([, spec]) => spec.situation).filter((name) => params[name]?.type === "bool"));
  const main = [];
  const more = [];
  const bySituation = new Map([...switches].map((name) => [name, []]));
  for (const [name, spec] of entries) {
    const field = build(name, spec);
    if (!field) continue;
    if (switches.has(name)) field.hidden = true; // the « Situation » choice sets it
    if (spec.situation && bySituation.has(spec.situation)) bySituation.get(spec.situation).push(field);
    else if (spec.more || switches.has(name)) more.push(field);
    else main.push(field);
  }
  const nodes = [...main];
  if (switches.size) {
    const id = `${prefix}-situation`;
    const select = el("select", { id, class: "situation-pick" },
      el("option", { value: "", text: t("situation.none") }),
      [...switches].map((name) => el("option", { value: name,
        text: local(params[name].label) || name.replaceAll("_", " "),
        // What the situation's rule fixes (`sets`: « se pinter » is an Encaisse roll).
        "data-sets": params[name].sets ? JSON.stringify(params[name].sets) : null })));
    select.addEventListener("change", () => chooseSituation(select));
    nodes.push(el("div", { class: "param situation", "data-situation-pick": prefix },
      el("label", { for: id }, el("span", { class: "param-name", text: t("situation.title") })),
      el("div", { class: "param-input" }, select)));
    for (const [name, fields] of bySituation) {
      // Off, its fields are not read: a situation not chosen sends nothing.
      nodes.push(el("div", { class: "situation-fields params", "data-situation": name, hidden: true,
        "data-off": "" }, fields));
    }
  }
  if (more.length) {
    const summary = el("summary", { class: "more-summary", text: t("more.title") });
    const box = el("details", { class: "more-params", "data-prefix": prefix }, summary,
      el("div", { class: "params" }, more));
    const count = () => {
      const set = more.filter((field) => !field.hidden && differs(params, prefix, field.dataset.param)).length;
      summary.textContent = set === 1 ? t("more.set_one") : set ? t("more.set", { count: set }) : t("more.title");
    };
    box.addEventListener("input", count);
    box.addEventListener("change", count);
    box.recount = count;
    nodes.push(box);
  }
  return nodes;
}

/** Whether field `name` holds something else than its default. */
function differs(params, prefix, name) {
  const spec = params[name];
  if (!spec) return false;
  const { values } = readFields({ [name]: spec }, prefix, { relaxed: true });
  return name in values && !isDefault(spec, values[name]);
}

/** Whether `value` is what `spec` gives when nothing is sent (an empty list or map too). */
function isDefault(spec, value) {
  if (spec.type === "bool") return value === (spec.default === true);
  if (Array.isArray(value) && !value.length) return !spec.default?.length;
  if (value && typeof value === "object" && !Array.isArray(value) && !Object.keys(value).length) {
    return !Object.keys(spec.default ?? {}).length;
  }
  return JSON.stringify(value) === JSON.stringify(spec.default);
}

/** The situation `select` picks: its switch on, the others off, their fields shown or not. */
function chooseSituation(select) {
  const form = select.closest("form") ?? document;
  const prefix = select.id.slice(0, -"-situation".length);
  for (const box of form.querySelectorAll(".situation-fields")) {
    if (!box.parentElement.contains(select.closest(".situation"))) continue;
    const on = box.dataset.situation === select.value;
    box.hidden = !on;
    box.toggleAttribute("data-off", !on);
    const toggle = document.getElementById(fieldId(prefix, box.dataset.situation));
    if (toggle) toggle.checked = on;
  }
  fixBySituation(select, prefix);
}

/** The fields the chosen situation fixes take its value, said next to them (« fixé par
 * Se pinter »); another situation, or none, leaves them free again. */
function fixBySituation(select, prefix) {
  const form = select.closest("form") ?? document;
  for (const note of form.querySelectorAll(`.fixed-by[data-prefix="${prefix}"]`)) note.remove();
  const option = select.selectedOptions[0];
  const sets = option?.dataset.sets ? JSON.parse(option.dataset.sets) : {};
  for (const [name, value] of Object.entries(sets)) {
    const field = document.getElementById(fieldId(prefix, name));
    if (!field) continue;
    if (field.value !== String(value)) {
      field.value = String(value);
      field.dispatchEvent(new Event("input", { bubbles: true }));
      field.dispatchEvent(new Event("change", { bubbles: true }));
    }
    field.closest(".param")?.querySelector(".param-input")?.append(el("small",
      { class: "fixed-by", "data-prefix": prefix, text: t("situation.fixes", { name: option.textContent }) }));
  }
}

/** After values were written into a form: its situation choice and « plus d'options » say so. */
export function syncLayout(container) {
  for (const select of container.querySelectorAll(".situation-pick")) {
    const prefix = select.id.slice(0, -"-situation".length);
    const on = [...select.options].map((option) => option.value)
      .find((name) => name && document.getElementById(fieldId(prefix, name))?.checked);
    select.value = on ?? "";
    chooseSituation(select);
  }
  for (const box of container.querySelectorAll(".more-params")) box.recount?.();
}

/** What people read for one of a field's choices: its `choice_labels` entry, else the choice. */
function choiceText(spec, choice) {
  return local(spec.choice_labels?.[choice]) || String(choice).replaceAll("_", " ");
}

/** A `map` field: editable rows of name → value, plus a button adding a row. */
function buildMap(id, spec, values) {
  const box = el("div", { class: "map", id, role: "group" });
  const rows = el("div", { class: "map-rows" });
  const add = el("button", { type: "button", class: "map-add", text: t("map.add") });
  add.addEventListener("click", () => {
    rows.append(mapRow(spec, "", ""));
    rows.lastElementChild.querySelector("input").focus();
  });
  for (const [key, value] of Object.entries(values)) rows.append(mapRow(spec, key, value));
  box.append(rows, add);
  return box;
}

function mapRow(spec, key, value) {
  const numeric = (spec.values ?? "string") === "int";
  const row = el("div", { class: "map-row" },
    el("input", { type: "text", class: "map-key", maxlength: 64, value: key, autocomplete: "off",
      "aria-label": t("map.key"), placeholder: t("map.key") }),
    el("input", { type: numeric ? "number" : "text", class: "map-value", value,
      inputmode: numeric ? "numeric" : null, step: numeric ? 1 : null, autocomplete: "off",
      min: numeric ? spec.item?.min : null, max: numeric ? spec.item?.max : null,
      "aria-label": t("map.value"), placeholder: t("map.value") }));
  const remove = el("button", { type: "button", class: "map-remove", "aria-label": t("map.remove"),
    title: t("map.remove"), text: "×" });
  remove.addEventListener("click", () => {
    const box = row.closest(".map");
    row.remove();
    if (box) changed(box);
  });
  row.append(remove);
  return row;
}

/**
 * The values a form holds for `schema`: `{values, missing}`. Empty optional fields are left
 * out so the defaults apply; `skip` names fields not to read (supplied by a sheet).
 * `changed`: what a request sends — only what a person set or changed, never a field's
 * untouched default (a folded « plus d'options » 0 would win over what the server or a
 * sheet fills in: a cooperative ask's collaborators).
 */
export function readFields(schema, prefix, { skip = new Set(), relaxed = false, changed = false } = {}) {
  const { values, missing } = readAll(schema, prefix, { skip, relaxed });
  if (changed) {
    for (const [name, value] of Object.entries(values)) {
      const spec = schema[name];
      const field = document.getElementById(fieldId(prefix, name))?.closest(".param");
      const set = field?.hasAttribute("data-set");
      if (!spec.required && !set && isDefault(spec, value)) delete values[name];
    }
  }
  return { values, missing };
}

function readAll(schema, prefix, { skip, relaxed }) {
  const values = {};
  const missing = [];
  for (const [name, spec] of Object.entries(schema ?? {})) {
    if (skip.has(name)) continue;
    const node = document.getElementById(fieldId(prefix, name));
    if (!node || node.closest("[data-off]")) continue; // a situation not chosen: not sent
    if (spec.type === "bool") {
      values[name] = node.checked;
    } else if (spec.type === "map") {
      const numeric = (spec.values ?? "string") === "int";
      const map = {};
      for (const row of node.querySelectorAll(".map-row")) {
        const key = row.querySelector(".map-key").value.trim();
        const raw = row.querySelector(".map-value").value.trim();
        if (!key) continue;
        map[key] = numeric && /^-?\d+$/.test(raw) ? Number(raw) : raw;
      }
      values[name] = map;
    } else if (spec.type === "list") {
      let items = spec.choices
        ? [...node.querySelectorAll("input:checked")].map((box) => box.value)
        : node.value.split(",").map((item) => item.trim()).filter(Boolean);
      if (spec.items === "int") items = items.map((item) => (/^-?\d+$/.test(item) ? Number(item) : item));
      if (items.length || spec.required) values[name] = items;
    } else {
      const raw = node.value.trim();
      if (raw === "") {
        if (spec.required && !relaxed) missing.push(name);
        continue;
      }
      values[name] = spec.type === "int" && /^-?\d+$/.test(raw) ? Number(raw) : raw;
    }
  }
  return { values, missing };
}

/** Put `values` into the form's fields (those the form has). */
export function writeFields(schema, prefix, values) {
  for (const [name, value] of Object.entries(values ?? {})) {
    const node = document.getElementById(fieldId(prefix, name));
    if (!node) continue;
    const spec = schema?.[name] ?? {};
    if (node.type === "checkbox") node.checked = value === true;
    else if (spec.type === "map" || node.classList.contains("map")) {
      const rows = node.querySelector(".map-rows");
      rows.replaceChildren(...Object.entries(value ?? {}).map(([key, item]) => mapRow(spec, key, item)));
    } else if (node.classList.contains("choices")) {
      for (const box of node.querySelectorAll("input")) box.checked = (value ?? []).includes(box.value);
    } else node.value = Array.isArray(value) ? value.join(", ") : value ?? "";
  }
}

// -- extension options: one fieldset per extension, built from `welcome.options` -------------

/** The prefix of the fields of extension `name`'s options. */
const optionPrefix = (name) => `option-${name}`;

/** The option descriptions that apply to rolls of `ruleset` (`rulesets: null`: every one). */
export function optionsFor(descriptions, ruleset) {
  return (descriptions ?? []).filter((described) => !described.rulesets || described.rulesets.includes(ruleset));
}

/**
 * One fieldset per extension whose options apply to `ruleset`: a checkbox turning the
 * extension on for this roll, and its fields (shown once it is on).
 */
export function buildOptionFieldsets(descriptions, ruleset) {
  return optionsFor(descriptions, ruleset).map((described) => {
    const prefix = optionPrefix(described.name);
    const toggle = el("input", { type: "checkbox", id: `${prefix}-on`, class: "option-on",
      "data-extension": described.name });
    const fields = el("div", { class: "option-fields", id: `${prefix}-fields` },
      Object.entries(described.params ?? {}).map(([key, spec]) => {
        const field = buildField(key, spec, prefix);
        // The server names a bad option `options.<extension>.<key>`: so does the field.
        field.dataset.param = `options.${described.name}.${key}`;
        return field;
      }));
    const help = local(described.description);
    const box = el("fieldset", { class: "option-set", "data-extension": described.name },
      el("legend", {}, el("label", { class: "check" }, toggle,
        el("span", { text: local(described.label) || described.name }))),
      help ? el("small", { class: "help", text: help }) : null, fields);
    toggle.addEventListener("change", () => { fields.hidden = !toggle.checked; });
    fields.hidden = true;
    return box;
  });
}

/** Put settings back into the fieldsets in the page (`{name: {key: value}}`): those of an
 * extension the form shows turn it on. */
export function writeOptionFieldsets(descriptions, ruleset, settings) {
  for (const described of optionsFor(descriptions, ruleset)) {
    const toggle = document.getElementById(`${optionPrefix(described.name)}-on`);
    if (!toggle || !(described.name in settings)) continue;
    toggle.checked = true;
    document.getElementById(`${optionPrefix(described.name)}-fields`).hidden = false;
    writeFields(described.params, optionPrefix(described.name), settings[described.name]);
  }
}

/**
 * The settings of every extension turned on in the form: `{name: {key: value}}`. Only
 * what differs from a field's `default` is sent (left out, the extension applies it).
 */
export function readOptionFieldsets(descriptions, ruleset) {
  const options = {};
  for (const described of optionsFor(descriptions, ruleset)) {
    const prefix = optionPrefix(described.name);
    if (!document.getElementById(`${prefix}-on`)?.checked) continue;
    const { values } = readFields(described.params, prefix, { relaxed: true });
    const settings = {};
    for (const [key, value] of Object.entries(values)) {
      const spec = described.params[key] ?? {};
      const empty = (Array.isArray(value) && value.length === 0)
        || (value && typeof value === "object" && !Array.isArray(value) && Object.keys(value).length === 0);
      if (empty && spec.default === undefined) continue;
      if ("default" in spec && JSON.stringify(spec.default) === JSON.stringify(value)) continue;
      settings[key] = value;
    }
    options[described.name] = settings;
  }
  return options;
}
