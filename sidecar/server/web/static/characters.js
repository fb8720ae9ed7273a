// Characters: the ones this page may see (a GM's all, a seat's own), kept live from `sheet`
// events and outcomes; the "my character" panel; how a character changes the roll form.
import { $, colon, el, fieldLabel, local, rulesetByName, sheetOf, state, t } from "./page.js";
import { counterFull, reserveLabel, reserveLeft, reserveOf } from "./reserves.js";

const hooks = { currentChanged: () => {}, quickRoll: () => {}, changed: () => {}, against: () => "" };

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
  if (!state.characters.has(state.current)) state.current = "";
  pickDefault();
  changed();
}

/**
 * Characters a page of `sheet list` added (a welcome carries the first page of them only,
 * `characters_more`: the client lists the rest), as they stood at `seq`.
 */
export function addListedCharacters(entries, seq) {
  let added = false;
  for (const entry of entries) {
    if (state.characters.has(entry.character)) continue; // followed: events apply to it
    state.characters.set(entry.character, { ...entry, seq: seq ?? state.welcome?.seq ?? 0 });
    added = true;
  }
  if (!added) return;
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
    // (Whether it acted this turn is no sheet's business: kept as it was.)
    state.characters.set(name, { character: name, ruleset: event.ruleset, owner: event.owner ?? null,
      values: event.values ?? {}, seq: event.seq, acted: state.characters.get(name)?.acted });
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

/** A roll aimed at characters this page may see (their owner, a GM): their new values
 * (`target_sheets`, contract §8), shown at once on the target's card. */
export function applyTargetSheets(outcome) {
  const seen = outcome.target_sheets;
  if (!seen || typeof seen !== "object") return;
  for (const [name, values] of Object.entries(seen)) {
    const known = state.characters.get(name);
    if (!known || !values || typeof values !== "object" || !newer(name, outcome.seq)) continue;
    const before = known.values;
    known.values = values;
    known.seq = outcome.seq;
    changed(new Set(Object.keys(values).filter((field) => before?.[field] !== values[field])), name);
  }
}

/**
 * Who already acted this turn, for the GMs (« la plupart du temps un personnage ne peut
 * faire qu'une action par tour »: a flag, never a refusal): a roll as a character marks it
 * (a decision of an open roll is the same action), the table's next turn clears them all.
 * A welcome's characters carry `acted` as they stood then.
 */
export function noteActed(event) {
  if (state.welcome?.role !== "gm") return;
  if (event.type === "session" && event.op === "turn") {
    for (const [name, known] of state.characters) if (newer(name, event.seq)) known.acted = false;
    hooks.changed();
    return;
  }
  const known = state.characters.get(event.character);
  if (event.type !== "outcome" || !known || "reacts_to" in event || !newer(event.character, event.seq)) return;
  known.acted = true;
  if (!event.sheet) hooks.changed(); // (else the new values are shown with it)
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

/** Words of a name or label, without accents, case or a plural's "s": to match a param
 * to a sheet field ("characteristic" / « Caractéristique » ↔ `caracteristiques`). */
function words(...texts) {
  const found = new Set();
  for (const text of texts) {
    for (const value of text && typeof text === "object" ? Object.values(text) : [text]) {
      if (typeof value !== "string") continue;
      for (const word of value.normalize("NFD").replace(/[\u0300-\u036f]/g, "").toLowerCase()
        .split(/[^a-z0-9]+/)) {
        if (word.length >= 4) found.add(word.replace(/s$/, ""));
      }
    }
  }
  return found;
}

/** A param the sheet supplies: named like a sheet field, or described as needed only
 * without a character (O'Ween's `dice`, the ladder's `level`, Bloodlust's `pool`…). */
function supplies(name, spec, schema) {
  return name in schema || neededWithout(spec);
}

/** A param its ruleset says a roll without a character needs (« obligatoire sans personnage »). */
const neededWithout = (spec) => /required without a character|obligatoire sans personnage/i
  .test(`${spec.description?.en ?? ""} ${spec.description?.fr ?? ""}`);

/** The params of `ruleset` a roll without a character needs (Bloodlust's `pool`, O'Ween's
 * `dice`): the server refuses odds without them, so the page does not ask for any. */
export function neededWithoutCharacter(ruleset) {
  return Object.entries(rulesetByName(ruleset)?.params ?? {})
    .filter(([, spec]) => !("default" in spec) && neededWithout(spec)).map(([name]) => name);
}

/**
 * The entries of a character's sheet a param can name: a field (`PEP` → `pep`, matched
 * without regard to case), or a key of a map field. Shown with their values.
 */
function fieldChoice(ruleset, schema, values, choice) {
  const field = Object.keys(schema).find((name) => name.toLowerCase() === String(choice).toLowerCase());
  if (!field || schema[field].type === "map") return null;
  let shown = `${fieldLabel(ruleset, field)}${colon()}${values?.[field] ?? "—"}`;
  let short = `${choice} ${values?.[field] ?? "—"}`;
  // Fields that go with it (O'Ween's `reserve_pep`) when they are not at their default.
  for (const [other, spec] of Object.entries(schema)) {
    if (other === field || spec.type !== "int" || !other.split("_").includes(field)) continue;
    const value = values?.[other];
    if (value === undefined || value === spec.default) continue;
    if (reserveOf(schema, other, values)) {
      // A reserve kept as its gap (`reserve_ecl` −1): what is left, « ECL 2 / 3 », as the
      // panel says it (« ECL 3 (-1) » before).
      const left = `${reserveLeft(values[field], value)} / ${values[field]}`;
      shown += ` · ${reserveLabel(fieldLabel(ruleset, other))} ${left}`;
      short = `${choice} ${left}`;
    } else {
      shown += ` · ${fieldLabel(ruleset, other)} ${value}`;
      short += ` (${value > 0 ? "+" : ""}${value})`;
    }
  }
  return [choice, shown, short];
}

/** The map field of the sheet a free string param picks a key of, if one matches. */
function mapFor(name, spec, schema) {
  const mine = words(name, spec.label);
  let best = null;
  let score = 0;
  for (const [field, fieldSpec] of Object.entries(schema)) {
    if (fieldSpec.type !== "map") continue;
    const theirs = words(field, fieldSpec.label);
    const shared = [...mine].filter((word) => theirs.has(word)).length;
    if (shared > score) [best, score] = [field, shared];
  }
  return best;
}

/**
 * What the roll form keeps when rolling as `character`: `supplied`, the params the sheet
 * gives (left out: the sheet gives them, and a player may not send another value), and `pickers`, params that
 * name one of the sheet's entries (a characteristic, a skill), offered as that
 * character's entries with their values, `[[value, shown], …]`. A string param picks when
 * its choices are all fields of the sheet, or, free, when a map of the sheet is named like
 * it (« Groupement » ↔ `groupements`).
 */
export function sheetPlan(ruleset, character) {
  const supplied = new Set();
  const pickers = new Map();
  const params = rulesetByName(ruleset)?.params ?? {};
  if (!character) return { supplied, pickers };
  const schema = sheetOf(ruleset);
  const values = character.values ?? {};
  for (const [name, spec] of Object.entries(params)) {
    const type = spec.type ?? "string";
    if (supplies(name, spec, schema)) {
      supplied.add(name);
    } else if (type === "string" && spec.choices?.length) {
      const choices = spec.choices.map((choice) => fieldChoice(ruleset, schema, values, choice));
      if (choices.every(Boolean)) pickers.set(name, choices);
    } else if (type === "string") {
      const map = mapFor(name, spec, schema);
      if (map) {
        pickers.set(name, Object.entries(values[map] ?? {}).map(([key, value]) => [key, `${key} (${value})`]));
      }
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
    } else if (reserveOf(schema, field, values)) {
      // A reserve kept as its gap to a score (O'Ween's `reserve_pep`: 0 = full, −2 = two
      // points lost): what is left of it out of the score, « 1 / 3 », its bar as full as
      // the reserve, and its label without the « (0 = pleine) » a player had to decode.
      const base = values[reserveOf(schema, field, values)];
      const left = reserveLeft(base, value);
      const short = reserveLabel(label);
      item.querySelector(".field-label").textContent = short;
      item.append(el("span", { class: "value", text: String(left) }), el("span", { class: "of", text: `/ ${base}` }),
        el("meter", { min: 0, max: Math.max(base, 1), value: left, "aria-label": short }));
    } else if (counterFull(spec) !== null) {
      // A counter whose full is its most (what a new turn gives back): how full it is. Any
      // other counter's `max` is the field's bound, not this character's full (the ladder's
      // Chance « 1 / 20 » read as nearly empty): its plain value.
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
    ...characters.map((character) => el("option", { value: character.character, selected: character.character === state.current,
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
  // A picker with nothing to pick (a d6code sheet without skills): no heading over nothing.
  if (param && !choices.length) {
    quick.hidden = true;
    return;
  }
  // A quick roll rolls the form as it stands: each button says against what (the form's
  // difficulty), not only what it picks.
  const against = () => el("small", { class: "quick-against", text: hooks.against() });
  const buttons = param
    ? choices.map(([value, shown, short]) => el("button", { type: "button", class: "quick", "data-param": param,
      "data-choice": value, title: shown, onclick: () => hooks.quickRoll(param, value) },
    el("span", { class: "quick-what", text: short ?? shown }), against()))
    : [el("button", { type: "button", class: "quick", onclick: () => hooks.quickRoll(null, null) },
      el("span", { class: "quick-what", text: t("roll.as", { name: character.character }) }), against())];
  quick.append(el("h3", { id: "quick-title", text: t("character.quick") }), el("div", { class: "quick-buttons" }, buttons));
}

/** The quick rolls' « against » line, after the roll form changed. */
export function refreshQuickRolls() {
  const text = hooks.against();
  for (const node of document.querySelectorAll("#quick-rolls .quick-against")) node.textContent = text;
}

export function chooseCharacter(name) {
  state.current = state.characters.has(name) ? name : "";
  state.pickedNone = !state.current;
  renderCharacterPanel();
  hooks.currentChanged();
}
