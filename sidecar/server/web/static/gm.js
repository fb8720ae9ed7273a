// The GM's panel: the table (a new game session, a new turn), the players' seats (links, QR
// codes, who is online) and the characters (create, edit, adjust with a reason, refill,
// remove). Asking for rolls is in asks.js.
//
// A seat's link is shown once by the server, when it is made: the links this GM made are
// kept in this tab's sessionStorage (gone with the tab), the others can only be remade.
import { buildField, fieldId, readFields, writeFields } from "./fields.js";
import { enterAskForm, renderAskTargets, setupAskForm } from "./asks.js";
import { renderValues } from "./characters.js";
import { renderInitiativeForm, setupInitiative } from "./initiative.js";
import {
  askReservesLeft, reserveFields, reserveGaps, reserveLabel, reserveLeft, reserveOf,
} from "./reserves.js";
import {
  $, armedButton, describeError, el, followTableGame, local, rulesetByName, sheetOf, state, t,
} from "./page.js";

const SHEET_PREFIX = "sheet";
let listTimer = null;
let editing = null; // the character the editor holds (null: a new one)

const linksKey = () => `sidecar.links.${state.welcome?.table}`;

/** The links this GM made at this table in this tab: name → {link, qr, seq}. */
function links() {
  try {
    return JSON.parse(sessionStorage.getItem(linksKey()) ?? "{}") ?? {};
  } catch {
    return {};
  }
}

function saveLinks(map) {
  sessionStorage.setItem(linksKey(), JSON.stringify(map));
}

const isGm = () => state.welcome?.role === "gm";

// -- seats -----------------------------------------------------------------------------------

/** Ask for the seats again soon (several events in a row make one request). */
export function refreshSeats() {
  if (!isGm()) return;
  clearTimeout(listTimer);
  listTimer = setTimeout(async () => {
    if (!state.client || state.client.state !== "open" || !isGm()) return;
    try {
      state.seats = (await state.client.seats()) ?? [];
      renderSeats();
    } catch {
      // The list comes back with the next event; nothing to tell the GM.
    }
  }, 100);
}

/** A `seat` event (add, remove, rotate): the GM's own reply carries the new link. */
export function applySeatEvent(event) {
  if (!isGm()) return;
  const known = links();
  if (typeof event.link === "string" && typeof event.qr === "string") {
    known[event.name] = { link: event.link, qr: event.qr, seq: event.seq ?? 0 };
  } else if ((event.op === "remove" || event.op === "rotate")
             && (known[event.name]?.seq ?? 0) < (event.seq ?? Infinity)) {
    delete known[event.name]; // another GM took the seat away or remade its link
  }
  saveLinks(known);
  refreshSeats();
}

function renderSeats() {
  const known = links();
  const list = $("seat-list");
  list.replaceChildren(...state.seats.map((seat) => {
    const online = seat.online ?? 0;
    const owned = [...state.characters.values()].filter((c) => c.owner === seat.name).map((c) => c.character);
    const characters = owned.length ? owned : seat.characters ?? [];
    const item = el("li", { class: `seat ${online ? "online" : "offline"}`, "data-seat": seat.name },
      el("div", { class: "seat-head" },
        el("strong", { class: "seat-name", text: seat.name }),
        el("span", { class: "presence-dot", "data-online": online,
          text: online ? `${t("seats.online")}${online > 1 ? ` ×${online}` : ""}` : t("seats.offline") }),
        characters.length ? el("span", { class: "seat-characters", text: t("seats.characters") + characters.join(", ") }) : null));
    const link = known[seat.name];
    if (link) item.append(renderLink(seat.name, link));
    else item.append(el("p", { class: "hint no-link", text: t("seats.nolink") }));
    item.append(el("div", { class: "seat-actions" },
      el("button", { type: "button", class: "rotate", text: t("seats.rotate"),
        onclick: () => seatAction("rotate", seat.name) }),
      armedButton(t("seats.remove"), t("seats.confirm"), () => seatAction("remove", seat.name),
        { class: "remove danger" })));
    return item;
  }));
  $("seats-empty").hidden = state.seats.length > 0;
  renderOwners();
  renderAskTargets();
}

function renderLink(name, { link, qr }) {
  const id = `seat-link-${encodeURIComponent(name).replace(/[^A-Za-z0-9_-]/g, "_")}`;
  return linkBox(id, link, qr, t("seats.link", { name }), t("seats.qr", { name }));
}

/** A link to copy, with its QR code: a seat's, or the table's join link. */
function linkBox(id, link, qr, label, alt) {
  const input = el("input", { id, class: "seat-link", readonly: true, value: link, spellcheck: "false" });
  const copy = el("button", { type: "button", class: "copy", text: t("seats.copy") });
  copy.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(link);
    } catch {
      // No clipboard API outside https/localhost: select it and copy the old way.
      input.select();
      document.execCommand?.("copy");
    }
    copy.textContent = t("seats.copied");
  });
  const box = el("div", { class: "seat-link-box" },
    el("label", { for: id, class: "sr-label", text: label }),
    el("div", { class: "param-input" }, input, copy));
  // Only a picture made by the server itself: an SVG `data:` URI, never an address.
  if (typeof qr === "string" && qr.startsWith("data:image/svg+xml")) {
    box.append(el("img", { class: "qr", src: qr, alt, width: 180, height: 180 }));
  }
  return box;
}

// -- the table's join link -------------------------------------------------------------------

const JOIN_TEXT = {
  fr: "Rejoindre la table depuis un téléphone du réseau local : scannez, ou envoyez le lien",
  en: "Join the table from a phone on the LAN: scan, or send the link",
};

/** A server open to the LAN gives GMs the players' join link (`welcome.join`): shown at
 * the top of the panel, link and QR code, for phones to scan. */
function renderJoinLink() {
  const join = state.welcome?.join;
  $("gm-join")?.remove();
  if (!isGm() || typeof join?.link !== "string") return;
  const block = el("div", { id: "gm-join", class: "gm-join" },
    el("p", { class: "hint", text: local(JOIN_TEXT) }),
    linkBox("gm-join-link", join.link, join.qr, local(JOIN_TEXT), local({ fr: "QR code du lien de la table", en: "The table link's QR code" })));
  $("gm-table-error").after(block);
}

async function seatAction(op, name) {
  const error = $("seat-error");
  error.hidden = true;
  try {
    const reply = op === "rotate" ? await state.client.rotateSeat(name) : await state.client.removeSeat(name);
    applySeatEvent(reply);
  } catch (failure) {
    error.textContent = describeError(failure);
    error.hidden = false;
  }
}

async function addSeat(event) {
  event.preventDefault();
  const name = $("seat-name").value.trim();
  if (!name) return;
  const button = $("seat-form").querySelector("button[type=submit]");
  button.disabled = true;
  const error = $("seat-error");
  error.hidden = true;
  try {
    const reply = await state.client.addSeat(name);
    applySeatEvent(reply);
    $("seat-name").value = "";
  } catch (failure) {
    error.textContent = describeError(failure);
    error.hidden = false;
  } finally {
    button.disabled = false;
  }
}

// -- characters ------------------------------------------------------------------------------

function rulesetTitle(name) {
  return local(rulesetByName(name)?.title)?.split(" — ")[0] || name;
}

/** The GM's list of characters, with what each carries and its owner. */
export function renderCharacterAdmin() {
  if (!isGm() || !$("gm-panel")) return;
  const characters = [...state.characters.values()].sort((a, b) => a.character.localeCompare(b.character));
  $("sheet-list").replaceChildren(...characters.map((character) => el("li", { class: "sheet-item",
    "data-character": character.character },
  el("div", { class: "sheet-item-head" },
    el("strong", { text: character.character }),
    el("span", { class: "hint", text: `${rulesetTitle(character.ruleset)}${character.owner ? ` · ${character.owner}` : ` · ${t("target.npc")}`}` }),
    // Already acted this turn: a flag for the GM, never a refusal.
    character.acted ? el("span", { class: "badge acted", title: t("target.acted.title"), text: t("target.acted") }) : null,
    el("span", { class: "sheet-actions" },
      el("button", { type: "button", class: "edit", text: t("sheet.modify"), onclick: () => edit(character.character) }),
      armedButton(t("sheet.remove"), t("sheet.confirm"), () => removeCharacter(character.character),
        { class: "remove danger" }))),
  el("ul", { class: "sheet-values compact" }, renderValues(character.ruleset, character.values)))));
  $("sheet-empty").hidden = characters.length > 0;
  renderAdjustTargets();
  renderOwners();
  renderInitiativeForm();
  if (state.seats.length) renderSeats();
  else renderAskTargets();
}

/** The editor's owner choices: the GM, or a seat of the table. */
function renderOwners() {
  const select = $("sheet-owner");
  const current = select.value;
  const names = state.seats.map((seat) => seat.name);
  if (editing && state.characters.get(editing)?.owner && !names.includes(state.characters.get(editing).owner)) {
    names.push(state.characters.get(editing).owner);
  }
  select.replaceChildren(el("option", { value: "", text: t("sheet.owner.none") }),
    ...names.map((name) => el("option", { value: name, text: name })));
  select.value = names.includes(current) ? current : "";
}

function fillSheetRulesets() {
  const select = $("sheet-ruleset");
  const current = select.value;
  select.replaceChildren(...state.welcome.rulesets.map((ruleset) =>
    el("option", { value: ruleset.name, text: rulesetTitle(ruleset.name) })));
  if (current && rulesetByName(current)) select.value = current;
  buildSheetFields();
}

function buildSheetFields() {
  const ruleset = $("sheet-ruleset").value;
  const schema = sheetOf(ruleset);
  const box = $("sheet-fields");
  // A new character starts with its reserves full: they are not asked (the editor asks
  // what is left of them, « 2 / 3 », once the character exists: `edit`).
  const full = new Set(editing ? [] : reserveFields(schema).map(([field]) => field));
  box.replaceChildren(...Object.entries(schema).filter(([name]) => !full.has(name))
    .map(([name, spec]) => buildField(name, spec, SHEET_PREFIX)));
  $("sheet-nosheet").hidden = Object.keys(schema).length > 0;
}

function edit(name) {
  const character = state.characters.get(name);
  if (!character) return;
  editing = name;
  $("gm-characters").open = true;
  $("sheet-form-title").textContent = t("sheet.edit", { name });
  $("sheet-ruleset").value = character.ruleset;
  $("sheet-ruleset").disabled = true;
  buildSheetFields();
  $("sheet-name").value = name;
  $("sheet-name").readOnly = true;
  renderOwners();
  $("sheet-owner").value = character.owner ?? "";
  writeFields(sheetOf(character.ruleset), SHEET_PREFIX, character.values);
  askReservesLeft(sheetOf(character.ruleset), SHEET_PREFIX, character.values);
  $("sheet-name").focus();
}

function newCharacter() {
  editing = null;
  $("sheet-form-title").textContent = t("sheet.new");
  $("sheet-ruleset").disabled = false;
  $("sheet-name").readOnly = false;
  $("sheet-name").value = "";
  $("sheet-reason").value = "";
  $("sheet-form-error").hidden = true;
  renderOwners();
  buildSheetFields();
}

async function saveCharacter(event) {
  event.preventDefault();
  const error = $("sheet-form-error");
  error.hidden = true;
  const ruleset = $("sheet-ruleset").value;
  const character = $("sheet-name").value.trim();
  if (!character) return;
  const { values: typed } = readFields(sheetOf(ruleset), SHEET_PREFIX, { relaxed: true });
  const values = reserveGaps(sheetOf(ruleset), SHEET_PREFIX, typed);
  const reason = $("sheet-reason").value.trim() || undefined;
  const button = $("sheet-form").querySelector("button[type=submit]");
  button.disabled = true;
  try {
    await state.client.setSheet({ character, ruleset, owner: $("sheet-owner").value || null, values, reason });
    $("sheet-reason").value = "";
    $("sheet-form-status").textContent = t("sheet.saved");
    if (!editing) newCharacter();
  } catch (failure) {
    const field = failure.details?.field ?? failure.details?.param;
    error.textContent = describeError(failure, ruleset);
    error.hidden = false;
    for (const node of $("sheet-fields").querySelectorAll(".param.invalid")) node.classList.remove("invalid");
    const name = typeof field === "string" ? field.replace(/^values\./, "").split(".")[0] : null;
    if (name) document.getElementById(fieldId(SHEET_PREFIX, name))?.closest(".param")?.classList.add("invalid");
  } finally {
    button.disabled = false;
  }
}

async function removeCharacter(character) {
  try {
    await state.client.removeSheet({ character });
    if (editing === character) newCharacter();
  } catch (failure) {
    $("adjust-error").textContent = describeError(failure);
    $("adjust-error").hidden = false;
  }
}

// -- adjustments -----------------------------------------------------------------------------

function renderAdjustTargets() {
  const select = $("adjust-character");
  const current = select.value;
  const names = [...state.characters.keys()].sort();
  select.replaceChildren(el("option", { value: "", text: t("adjust.all") }),
    ...names.map((name) => el("option", { value: name, text: name })));
  select.value = names.includes(current) ? current : (names.length === 1 ? names[0] : "");
  renderAdjustFields();
}

function renderAdjustFields() {
  const character = state.characters.get($("adjust-character").value);
  const select = $("adjust-field");
  const current = select.value;
  const schema = character ? sheetOf(character.ruleset) : {};
  const fields = Object.entries(schema).filter(([, spec]) => spec.type === "int");
  // Counters rolls spend first: they are what a GM gives and takes most.
  fields.sort(([, a], [, b]) => Number(Boolean(b.resource)) - Number(Boolean(a.resource)));
  // A reserve kept as its gap reads as what is left, « Réserve ECL (2 / 3) » (a change by
  // +1 is the same either way).
  const shown = (name, spec) => {
    const score = reserveOf(schema, name, character.values);
    return score ? `${reserveLabel(local(spec.label) || name)} (${reserveLeft(character.values[score],
      character.values[name])} / ${character.values[score]})` : `${local(spec.label) || name} (${character.values?.[name] ?? "—"})`;
  };
  select.replaceChildren(...fields.map(([name, spec]) => el("option", { value: name, text: shown(name, spec) })));
  if (fields.some(([name]) => name === current)) select.value = current;
  select.disabled = !character;
  $("adjust-form").querySelector("button[type=submit]").disabled = !character;
}

async function adjust(event) {
  event.preventDefault();
  const error = $("adjust-error");
  error.hidden = true;
  const character = $("adjust-character").value;
  const field = $("adjust-field").value;
  const delta = Number($("adjust-delta").value);
  if (!character || !field) {
    error.textContent = t("adjust.pick");
    error.hidden = false;
    return;
  }
  if (!Number.isInteger(delta) || delta === 0) return;
  const reason = $("adjust-reason").value.trim() || undefined;
  try {
    await state.client.adjustSheet({ character, delta: { [field]: delta }, reason });
    $("adjust-reason").value = "";
  } catch (failure) {
    error.textContent = describeError(failure, state.characters.get(character)?.ruleset, { adding: delta > 0 });
    error.hidden = false;
  }
}

async function refill(what) {
  const error = $("adjust-error");
  error.hidden = true;
  const character = $("adjust-character").value || undefined;
  const reason = $("adjust-reason").value.trim() || undefined;
  try {
    await state.client.refill({ what, character, reason });
    $("adjust-reason").value = "";
  } catch (failure) {
    error.textContent = describeError(failure);
    error.hidden = false;
  }
}

// -- the table -------------------------------------------------------------------------------

/** "Nouvelle séance" (§7.4: what lasts a session starts over) or "Nouveau tour" (every
 * character's once-per-turn counters refilled). */
async function tableAction(action) {
  const error = $("gm-table-error");
  error.hidden = true;
  try {
    if (action === "session") await state.client.request({ type: "session", op: "start" });
    else await state.client.refill({ what: "turn" });
  } catch (failure) {
    error.textContent = describeError(failure);
    error.hidden = false;
  }
}

// -- wiring ----------------------------------------------------------------------------------

/** Show the GM's panel (or hide it from others) after a `welcome`. */
export function enterGmPanel() {
  const gm = isGm();
  $("gm-panel").hidden = !gm;
  renderJoinLink();
  if (!gm) return;
  fillSheetRulesets();
  renderCharacterAdmin();
  enterAskForm();
  refreshSeats();
}

/** The panel's words after a change of language. */
export function relabelGmPanel() {
  if (!isGm()) return;
  if (!editing) $("sheet-form-title").textContent = t("sheet.new");
  else $("sheet-form-title").textContent = t("sheet.edit", { name: editing });
  // The editor's fields in the new language, holding what was typed.
  const schema = sheetOf($("sheet-ruleset").value);
  const { values } = readFields(schema, SHEET_PREFIX, { relaxed: true });
  buildSheetFields();
  writeFields(schema, SHEET_PREFIX, values);
  renderCharacterAdmin();
  renderSeats();
  renderJoinLink();
  enterAskForm();
}

export function setupGmPanel() {
  $("seat-form").addEventListener("submit", addSeat);
  $("sheet-form").addEventListener("submit", saveCharacter);
  $("sheet-ruleset").addEventListener("change", buildSheetFields);
  followTableGame($("sheet-ruleset"), buildSheetFields);
  $("sheet-new").addEventListener("click", newCharacter);
  $("sheet-form").addEventListener("input", () => { $("sheet-form-status").textContent = ""; });
  $("adjust-form").addEventListener("submit", adjust);
  $("adjust-character").addEventListener("change", renderAdjustFields);
  $("adjust-turn").addEventListener("click", () => refill("turn"));
  $("adjust-rest").addEventListener("click", () => refill("rest"));
  $("session-start").addEventListener("click", () => tableAction("session"));
  $("turn-next").addEventListener("click", () => tableAction("turn"));
  setupAskForm();
  setupInitiative();
}
