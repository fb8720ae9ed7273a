// What every part of the web table shares: its state, its words, building elements.
//
// Everything shown comes from other people (names, labels, notes): it is always set as
// text, never as HTML.
import { STRINGS, elide } from "./strings.js";

export const query = new URLSearchParams(location.search);

export const state = {
  lang: query.get("lang") || localStorage.getItem("sidecar.lang") || "fr",
  client: null,
  welcome: null,
  seen: new Set(),
  outcomes: [],
  // Sheet and seat events this page may see, shown in the log between the outcomes.
  notes: [],
  // The seqs from `floor` + 1 to `horizon` all exist on the table (welcome.seq says how far
  // it went at the join); those the page never gets are rolls hidden from it. Until the
  // history before the join is in, `floor` is null and no gap is shown (it is not known yet).
  floor: null,
  horizon: 0,
  // Seqs the history says are hidden notes (a seat, another's sheet), not secret rolls.
  hiddenNotes: new Set(),
  /** Unseen seqs a `history` page said were no note: secret rolls (gaps.js). */
  hiddenRolls: new Set(),
  logTable: null,
  oddsTicket: 0,
  oddsTimer: null,
  // Characters this page may see: name → {character, ruleset, owner, values, seq}.
  characters: new Map(),
  // The character the page rolls as ("" for a plain roll).
  current: "",
  // The GM's view of the seats: [{name, online, characters}] (`seat list`).
  seats: [],
  presence: [],
  // Asked rolls this page shows a card for: ask id → {event, answers, opposition, closed}.
  asks: new Map(),
  // After a welcome with `asks_more`: asks this page had, not listed again yet.
  unlistedAsks: null,
  // The seq of this page's roll to bring into view once it is in the log.
  reveal: null,
};

export const $ = (id) => document.getElementById(id);

/** The page's words in its language, `{name}` filled from `values`. */
export function t(key, values) {
  const text = STRINGS[state.lang]?.[key] ?? STRINGS.fr[key] ?? key;
  if (!values) return text;
  // « de {name} » elides in French (« d'Aengus »): one rule, strings.js's elide.
  return text.replace(/(?:(?<![\p{L}])(de|que|le|la|De|Que|Le|La) )?\{(\w+)\}/gu, (whole, word, name) => {
    if (!(name in values)) return whole;
    const value = String(values[name]);
    if (!word) return value;
    return state.lang === "fr" ? elide(word, value) : `${word} ${value}`;
  });
}

/** The colon as the page's language writes it: « Peps : 3 » in French, "Peps: 3" in English. */
export const colon = () => (state.lang === "fr" ? " : " : ": ");

/** People's words quoted as the page's language does: « Porte A » in French, “Porte A” in English. */
export const quoted = (text) => (state.lang === "fr" ? `« ${text} »` : `“${text}”`);

/** A `{fr, en}` map or a plain string, in the page's language. */
export const local = (value) => (value && typeof value === "object"
  ? value[state.lang] ?? value.fr ?? value.en ?? "" : value ?? "");

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === "class") node.className = value;
    else if (name === "text") node.textContent = value;
    else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/**
 * Physical dice as typed ("3 5, 6"): their faces, or `undefined` when nothing is typed;
 * throws a `SyntaxError` on anything that is not whole numbers.
 */
export function parseFaces(raw) {
  const faces = String(raw ?? "").trim().split(/[\s,;]+/).filter(Boolean);
  if (!faces.length) return undefined;
  if (!faces.every((face) => /^\d+$/.test(face))) throw new SyntaxError();
  return faces.map(Number);
}

/**
 * Make `list` hold `items` (keyed by `data-key`) touching only what changed: a new roll adds
 * one line, so a screen reader following a live list (the log) hears that line alone.
 */
export function patchList(list, items) {
  const old = new Map([...list.children].map((node) => [node.dataset.key, node]));
  const kept = new Set();
  let previous = null;
  for (const item of items) {
    let node = old.get(item.dataset.key);
    if (node && !node.isEqualNode(item)) {
      node.replaceWith(item);
      node = item;
    }
    node ??= item;
    const slot = previous ? previous.nextElementSibling : list.firstElementChild;
    if (slot !== node) list.insertBefore(node, slot);
    kept.add(node);
    previous = node;
  }
  for (const child of [...list.children]) if (!kept.has(child)) child.remove();
}

export function rulesetByName(name) {
  return state.welcome?.rulesets.find((ruleset) => ruleset.name === name);
}

/** A ruleset's parameter's name for people: its label, else its name. */
export function paramLabel(ruleset, name) {
  return local(rulesetByName(ruleset)?.params?.[name]?.label) || String(name).replaceAll("_", " ");
}

/** Parameters' names for people, as a list in a sentence. */
export const paramLabels = (ruleset, names) => names.map((name) => paramLabel(ruleset, name)).join(", ");

/** The description of a ruleset's character sheet (`{}` when it has none). */
export function sheetOf(ruleset) {
  return rulesetByName(ruleset)?.sheet ?? {};
}

/** A sheet field's name for people: its label, else its name. */
export function fieldLabel(ruleset, field) {
  return local(sheetOf(ruleset)[field]?.label) || String(field).replaceAll("_", " ");
}

/** A button that asks for a second click before doing something that cannot be undone
 * (no `confirm()`: it blocks the page and a phone shows it badly). */
export function armedButton(label, confirmLabel, action, attrs = {}) {
  const button = el("button", { type: "button", ...attrs, text: label });
  button.addEventListener("click", () => {
    if (button.dataset.armed !== "1") {
      button.dataset.armed = "1";
      button.textContent = confirmLabel;
      return;
    }
    delete button.dataset.armed;
    button.textContent = label;
    action();
  });
  button.addEventListener("blur", () => {
    delete button.dataset.armed;
    button.textContent = label;
  });
  return button;
}

/**
 * An error from the server as a sentence in the page's language. `adding`: whether the
 * request added to the sheet (a GM's positive adjustment), when the page knows.
 */
export function describeError(error, ruleset, { adding } = {}) {
  // (A refusal naming whose sheet cannot pay, `details.character`: the server's words.)
  if (error?.code === "insufficient" && error.details?.field !== undefined && !error.details.character) {
    const { field, have, need } = error.details;
    // Too little to take, or too much to add: the request's direction says which, else the
    // sheet's bounds.
    const spec = ruleset ? sheetOf(ruleset)[field] ?? {} : {};
    const numbers = typeof have === "number" && typeof need === "number";
    const low = numbers && typeof spec.min === "number" && have - need < spec.min;
    const high = adding ?? (!low && numbers && typeof spec.max === "number" && have + need > spec.max);
    return t(high ? "error.past_max" : "error.insufficient", {
      field: ruleset ? fieldLabel(ruleset, field) : field, have: have ?? "?", need: need ?? "?" });
  }
  // The server's words in the page's language now (both come with most refusals).
  const message = error?.messages?.[state.lang] || error?.serverMessage || error?.message || String(error);
  const param = error?.details?.param;
  if (error?.code === "invalid_params" && typeof param === "string" && ruleset) {
    // The server names a described parameter by its label, then its key for the command
    // line (« Peps de l'adversaire » ('options.combat.opponent_pep')): the page needs only
    // the label. An undescribed one comes by its key: people know it by its label here.
    if (message.includes(` ('${param}')`)) return message.replace(` ('${param}')`, "");
    return message.replace(`'${param}'`, quoted(paramLabel(ruleset, param)));
  }
  return message;
}

// -- the table's game: what the game pickers show first --------------------------------------

/**
 * The table's game: the one most of its characters play, else the game of the last roll
 * this page saw, else the last this browser used (`null` when none is known).
 */
export function tableRuleset() {
  const counts = new Map();
  for (const character of state.characters.values()) {
    if (rulesetByName(character.ruleset)) counts.set(character.ruleset, (counts.get(character.ruleset) ?? 0) + 1);
  }
  if (counts.size) return [...counts].sort((a, b) => b[1] - a[1])[0][0];
  const last = [...state.outcomes].reverse().find((outcome) => rulesetByName(outcome.ruleset));
  if (last) return last.ruleset;
  const stored = localStorage.getItem("sidecar.ruleset");
  return rulesetByName(stored) ? stored : null;
}

/** The game pickers that follow the table's game until a person picks another. */
const followers = [];

/**
 * `select` (a game picker) shows the table's game, and follows it while nobody chose
 * another; `rebuild` redraws what depends on it.
 */
export function followTableGame(select, rebuild, { busy = () => false } = {}) {
  followers.push({ select, rebuild, busy });
  select.addEventListener("change", () => {
    if (select.value !== select.dataset.auto) select.dataset.chosen = "1";
  });
}

/** Every picker nobody chose on shows the table's game. */
export function applyTableGame() {
  const game = tableRuleset();
  if (!game) return;
  for (const { select, rebuild, busy } of followers) {
    // Picked by hand, fixed by a character, or being filled in: left as it is.
    if (select.dataset.chosen || select.disabled || select.value === game || busy()) continue;
    if (![...select.options].some((option) => option.value === game)) continue;
    select.value = game;
    select.dataset.auto = game;
    rebuild();
  }
}
