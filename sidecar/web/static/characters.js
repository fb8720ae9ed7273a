// Characters: the ones this page may see (a GM's all, a seat's own), kept live from `sheet`
// events and outcomes; the "my character" panel; how a character changes the roll form.
import { $, el, fieldLabel, local, rulesetByName, sheetOf, state, t } from "./page.js";

const hooks = { currentChanged: () => {}, quickRoll: () => {}, changed: () => {} };

/** What the rest of the page does when the characters change. */
export function configureCharacters(callbacks) {
  Object.assign(hooks, callbacks);
}

// -- the store -------------------------------------------------------------------------------

/**
 * Start again from a `welcome`: its `characters` are the values at its `seq`, so an event
 * replayed by `resume` or read from `history` (older) never takes a value back.
 */
export function resetCharacters(welcome) {
  state.characters = new Map();
  for (const character of welcome.characters ?? []) {
    state.characters.set(character.character, { ...character, seq: welcome.seq ?? 0 });
  }
  pickDefault();
  changed();
}

/** Whether the values of `name` are older than `seq` (an event at `seq` tells news). */
function newer(name, seq) {
  const known = state.characters.get(name);
  const floor = known ? known.seq : state.welcome?.seq ?? 0;
  return typeof seq === "number" && seq > floor;
}

/** A `sheet` event (set, adjust, refill, remove) this page received. */
export function applySheetEvent(event) {
  const name = event.character;
  if (typeof name !== "string" || !newer(name, event.seq)) return;
  const mine = state.welcome?.role === "gm" || event.owner === state.client?.name;
  if (event.removed || event.op === "remove" || !mine) {
    // Removed, or given to another seat: no longer this page's to show.
    state.characters.delete(name);
  } else {
    state.characters.set(name, { character: name, ruleset: event.ruleset, owner: event.owner ?? null,
      values: event.values ?? {}, seq: event.seq });
  }
  if (!state.characters.has(state.current)) state.current = "";
  pickDefault();
  changed(new Set(Object.keys(event.changed ?? {})), name);
}

/** An outcome of a roll made as a character, with its new values (`sheet`). */
export function applyOutcomeSheet(outcome) {
  const known = state.characters.get(outcome.character);
  if (!known || !outcome.sheet || typeof outcome.sheet !== "object" || !newer(outcome.character, outcome.seq)) return;
  const before = known.values;
  known.values = outcome.sheet;
  known.seq = outcome.seq;
  const moved = new Set(Object.keys(outcome.sheet).filter((field) => before?.[field] !== outcome.sheet[field]));
  changed(moved, outcome.character);
}

/** The characters of a `sheets` reply (`sheet list`): the whole current state. */
export function replaceCharacters(list, seq) {
  state.characters = new Map(list.map((character) => [character.character, { ...character, seq }]));
  if (!state.characters.has(state.current)) state.current = "";
  pickDefault();
  changed();
}

/** A seat's own character is the one it rolls as unless it chose otherwise. */
function pickDefault() {
  if (state.current || state.welcome?.role === "gm" || state.pickedNone) return;
  const own = [...state.characters.values()].find((character) => character.owner === state.client?.name);
  if (own) state.current = own.character;
}

function changed(fields = new Set(), name = null) {
  renderCharacterPanel(name === state.current ? fields : new Set());
  hooks.changed();
}

export const currentCharacter = () => state.characters.get(state.current) ?? null;

// -- how a character changes the roll form ---------------------------------------------------

/** The entries a character's sheet can be asked for by name: its fields and its maps' keys. */
function sheetEntries(ruleset, values) {
  const schema = sheetOf(ruleset);
  const entries = new Map();
  for (const [field, spec] of Object.entries(schema)) {
    if (spec.type === "map") {
      for (const [key, value] of Object.entries(values?.[field] ?? {})) {
        if (!entries.has(key)) entries.set(key, { shown: key, value, map: field });
      }
    } else {
      entries.set(field, { shown: fieldLabel(ruleset, field), value: values?.[field] });
    }
  }
  return entries;
}

/**
 * What the roll form keeps when rolling as `character`: `supplied`, the params the sheet
 * gives (a param named like a sheet field), and `pickers`, params that name one of the
 * sheet's entries (a characteristic, a skill) — offered as that character's entries with
 * their values, `[[value, shown], …]`. A string param picks when its choices are all
 * entries of the sheet, or, free, when the sheet has a map named after it (`skill` →
 * `skills`).
 */
export function sheetPlan(ruleset, character) {
  const supplied = new Set();
  const pickers = new Map();
  const params = rulesetByName(ruleset)?.params ?? {};
  if (!character) return { supplied, pickers };
  const schema = sheetOf(ruleset);
  const entries = sheetEntries(ruleset, character.values);
  const show = (key) => {
    const entry = entries.get(key);
    return entry && entry.value !== undefined && typeof entry.value !== "object"
      ? `${entry.shown} (${entry.value})` : entry?.shown ?? key;
  };
  for (const [name, spec] of Object.entries(params)) {
    if (name in schema) {
      supplied.add(name);
    } else if ((spec.type ?? "string") === "string" && spec.choices?.length
               && spec.choices.every((choice) => entries.has(choice))) {
      pickers.set(name, spec.choices.map((choice) => [choice, show(choice)]));
    } else if ((spec.type ?? "string") === "string" && !spec.choices) {
      const map = [name, `${name}s`, `${name}es`].find((field) => schema[field]?.type === "map");
      if (map) pickers.set(name, Object.keys(character.values?.[map] ?? {}).map((key) => [key, show(key)]));
    }
  }
  return { supplied, pickers };
}

// -- the "my character" panel ----------------------------------------------------------------

function formatValue(spec, value) {
  if (spec.type === "bool") return value ? "✓" : "✗";
  if (Array.isArray(value)) return value.join(", ");
  return value === undefined || value === null ? "—" : String(value);
}

/** One line per sheet field: counters with their maximum (a meter), maps as their rows. */
export function renderValues(ruleset, values, highlight = new Set()) {
  const schema = sheetOf(ruleset);
  const fields = Object.keys(schema).length ? Object.keys(schema) : Object.keys(values ?? {});
  return fields.map((field) => {
    const spec = schema[field] ?? {};
    const value = values?.[field];
    const label = fieldLabel(ruleset, field);
    const classes = ["sheet-value", `sheet-${spec.type ?? "string"}`];
    if (spec.resource) classes.push("resource");
    if (highlight.has(field)) classes.push("changed");
    const item = el("li", { class: classes.join(" "), "data-field": field,
      "data-value": typeof value === "object" ? JSON.stringify(value) : value,
      title: local(spec.description) || null },
    el("span", { class: "field-label", text: label }));
    if (spec.type === "map") {
      const rows = Object.entries(value ?? {});
      item.append(el("ul", { class: "map-values" }, rows.length ? rows.map(([key, item]) =>
        el("li", { "data-key": key }, el("span", { class: "map-key", text: key }),
          el("span", { class: "value", text: String(item) }))) : el("li", { class: "hint", text: "—" })));
    } else if (spec.type === "int" && spec.resource && typeof spec.max === "number") {
      item.append(el("span", { class: "value", text: formatValue(spec, value) }),
        el("span", { class: "of", text: `/ ${spec.max}` }),
        el("meter", { min: spec.min ?? 0, max: spec.max, value: value ?? 0, "aria-label": label }));
    } else {
      item.append(el("span", { class: "value", text: formatValue(spec, value) }));
    }
    return item;
  });
}

export function renderCharacterPanel(highlight = new Set()) {
  const panel = $("character");
  if (!panel || !state.welcome) return;
  const characters = [...state.characters.values()].sort((a, b) => a.character.localeCompare(b.character));
  panel.hidden = characters.length === 0 || state.welcome.role === "observer";
  $("character-title").textContent = t(state.welcome.role === "gm" ? "character.titles" : "character.title");
  const select = $("character-select");
  select.replaceChildren(el("option", { value: "", text: t("character.none") }),
    characters.map((character) => el("option", { value: character.character, selected: character.character === state.current,
      text: `${character.character} · ${local(rulesetByName(character.ruleset)?.title)?.split(" — ")[0] || character.ruleset}` })));
  select.value = state.current;
  const character = currentCharacter();
  $("character-values").replaceChildren(...(character ? renderValues(character.ruleset, character.values, highlight) : []));
  const quick = $("quick-rolls");
  quick.replaceChildren();
  quick.hidden = !character;
  if (!character) return;
  const { pickers } = sheetPlan(character.ruleset, character);
  const [param, choices] = pickers.entries().next().value ?? [null, null];
  const buttons = param
    ? choices.map(([value, shown]) => el("button", { type: "button", class: "quick", "data-param": param,
      "data-choice": value, text: shown, onclick: () => hooks.quickRoll(param, value) }))
    : [el("button", { type: "button", class: "quick", text: t("roll.as", { name: character.character }),
      onclick: () => hooks.quickRoll(null, null) })];
  quick.append(el("h3", { id: "quick-title", text: t("character.quick") }), el("div", { class: "quick-buttons" }, buttons));
}

export function chooseCharacter(name) {
  state.current = state.characters.has(name) ? name : "";
  state.pickedNone = !state.current;
  renderCharacterPanel();
  hooks.currentChanged();
}
