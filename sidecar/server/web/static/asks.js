// Asked rolls (PROTOCOL.md §7.5): the GM's form asking seats or characters for a roll (an
// opposition with each side's own params), and the cards of the open asks — an asked seat's
// has one button that rolls as asked, the GM's fills as the answers arrive and can cancel.
import { buildField, fieldId, layoutFields, readFields, syncLayout, writeFields } from "./fields.js";
import {
  $, colon, describeError, el, followTableGame, local, paramLabel, paramLabels, parseFaces,
  patchList, quoted, rulesetByName, sheetOf, state, t,
} from "./page.js";
import { failureText, showError } from "./formerrors.js";
import { askTargetsText, clearTargets, readTargets, renderTargetPickers } from "./targets.js";
import { hideSupplied, sideBox, suppliedBySheets } from "./askfit.js";

const PREFIX = "askp";
const sidePrefix = (index) => `asks${index}`;
const isGm = () => state.welcome?.role === "gm";

/** What else shows the asks (the log's ask lines carry their answer button). */
let asksChanged = () => {};
export function onAsksChanged(callback) {
  asksChanged = callback;
}

/** What shows an answer's result (the card goes, and on a phone the log is far below it):
 * called with the server's reply to this page's answer. */
let answered = () => {};
export function onAnswered(callback) {
  answered = callback;
}

/** This page's errors on ask cards: ask id → how to write it in the page's language now
 * (a card drawn again after a language switch says it in the new one). */
const errors = new Map();
/** The cards whose error is about the faces typed (their field is marked). */
const badFaces = new Set();
const busy = new Set();
/** Physical dice typed on a card before its button is pressed: ask id → text. */
const typedFaces = new Map();

/** How an ask keys a side's answer: its seat; a GM's NPC's side (no seat) by the NPC's name. */
const sideKey = (target) => target.seat ?? target.character;

/** The NPC side of `event` a GM's answer made as `character` fills, if any. */
const npcSide = (event, character) => (event.to ?? []).find((target) =>
  (target.seat === null || target.seat === undefined) && target.character === character);

/** An ask as this page knows it: `{event, answers: Map(side key → outcome or side), opposition, closed}`. */
function known(event) {
  return { event, answers: new Map(Object.entries(event.answered ?? {})), opposition: null,
    cooperation: null, closed: null };
}

/** Whether this page's seat is asked. */
function asksMe(event) {
  return Boolean(state.welcome?.seat) && (event.to ?? []).some((item) => item.seat === state.client?.name);
}

const shown = (event) => isGm() || asksMe(event);

/** An ask as listed (a welcome, a page of `ask list`), keeping the answers this page saw. */
function listed(ask, old) {
  const item = known(ask);
  if (old) for (const [seat, answer] of old.answers) if (!item.answers.has(seat)) item.answers.set(seat, answer);
  return item;
}

/**
 * After a `welcome`: the open asks it lists; those this page had that are gone are closed.
 * A welcome that says `asks_more` lists the first page only: those this page had are kept
 * open until every page is in (`listRestOfAsks`).
 */
export function resetAsks(welcome) {
  const before = state.asks ?? new Map();
  state.asks = new Map();
  state.unlistedAsks = new Set();
  const open = new Set((welcome.asks ?? []).map((ask) => ask.ask));
  for (const [id, item] of before) {
    if (open.has(id)) continue;
    if (welcome.asks_more && !item.closed) {
      state.asks.set(id, item); // on a later page (and resumed events apply to it), or gone
      state.unlistedAsks.add(id);
    } else {
      state.asks.set(id, { ...item, closed: item.closed ?? "done" });
    }
  }
  for (const ask of welcome.asks ?? []) state.asks.set(ask.ask, listed(ask, before.get(ask.ask)));
  renderAsks();
}

/** A page of `ask list` (as it arrives, in order with the events): the asks not followed yet. */
function addListedAsks(asks) {
  for (const ask of asks) {
    state.unlistedAsks?.delete(ask.ask);
    const item = state.asks.get(ask.ask);
    if ((item && !item.closed) || !shown(ask)) continue; // followed: its events apply to it
    state.asks.set(ask.ask, listed(ask, item));
  }
  renderAsks();
}

/**
 * After a welcome that says `asks_more`: the other open asks, page by page; once all are
 * in, those this page had that no page lists are closed.
 */
export async function listRestOfAsks(client, welcome) {
  const first = welcome.asks ?? [];
  if (!welcome.asks_more || !first.length) return;
  try {
    await client.asks({ after: first[first.length - 1].seq, onPage: addListedAsks });
  } catch {
    return; // the connection ended meanwhile: the next welcome lists them again
  }
  for (const id of state.unlistedAsks ?? []) {
    const item = state.asks.get(id);
    if (item && !item.closed) item.closed = "done";
  }
  state.unlistedAsks = null;
  renderAsks();
}

/** An `ask` event (open or cancel). Asks opened before the join come from `welcome.asks`. */
export function applyAsk(event) {
  const item = state.asks?.get(event.ask);
  if (event.op === "open") {
    if (item || !shown(event)) return;
    if (typeof event.seq === "number" && event.seq <= (state.welcome?.seq ?? 0)) return; // closed since
    state.asks.set(event.ask, known(event));
  } else if (event.op === "cancel" && item) {
    item.closed = "cancelled";
  }
  renderAsks();
}

/** An outcome: an answer fills its ask's card; an opposition's last side says who won. */
export function applyAskOutcome(outcome) {
  const id = outcome.answers ?? outcome.opposition?.ask ?? outcome.cooperation?.ask;
  const item = id ? state.asks?.get(id) : null;
  if (!item) return;
  // A decision answers for the seat whose open roll it decides (the GM may take it).
  const decided = typeof outcome.reacts_to === "number"
    ? [...item.answers].find(([, answer]) => answer.seq === outcome.reacts_to)?.[0] : null;
  // A GM's answer as a GM's NPC fills that NPC's side (keyed by its name, as the server's).
  const npc = outcome.by?.role === "gm" && !outcome.by?.seat ? npcSide(item.event, outcome.character) : null;
  const seat = decided ?? (npc ? npc.character : outcome.by?.name);
  const previous = item.answers.get(seat);
  if (outcome.answers && (!previous || (previous.seq ?? 0) <= (outcome.seq ?? 0)
      || previous.type !== "outcome")) {
    item.answers.set(seat, outcome);
  }
  if (outcome.opposition) item.opposition = outcome.opposition;
  if (outcome.cooperation) item.cooperation = outcome.cooperation;
  // Done once every answer is in and decided: an open roll still waits for its decision.
  const everyone = (item.event.to ?? []).every((target) => item.answers.has(sideKey(target))
    && item.answers.get(sideKey(target)).open !== true);
  if (everyone && !item.closed) item.closed = "done";
  renderAsks();
}

function rulesetTitle(name) {
  return local(rulesetByName(name)?.title)?.split(" — ")[0] || name;
}

/** What an ask asks for, for people: its label, else the characteristic it names
 * (« Flair (FLA) »), else its game's title (issue 29: never the game as if it were a label). */
const askName = (event) => event.label || askedCharacteristic(event) || rulesetTitle(event.ruleset);

/** The characteristic an ask names for this page's side (for the GM: the one every side
 * shares), as people read it: its choice's label, else the sheet's field of that name
 * (« Flair (FLA) »), else as given; "" for none. */
function askedCharacteristic(event) {
  const side = isGm() ? null : (event.to ?? []).find((target) => target.seat === state.client?.name);
  if (!side && differing(event).includes("characteristic")) return "";
  const value = (side ? sideParams_(event, side) : event.params ?? {}).characteristic;
  if (typeof value !== "string" || !value) return "";
  const named = local(rulesetByName(event.ruleset)?.params?.characteristic?.choice_labels?.[value]);
  if (named) return named;
  const field = local(sheetOf(event.ruleset)[value.toLowerCase()]?.label);
  return !field ? value : field.includes(value) ? field : `${field} (${value})`;
}

/** A value as people read it: a choice's label, yes for a bool, a list's items. */
function valueText(spec, value) {
  if (typeof value === "boolean") return "";
  if (Array.isArray(value)) return value.map((item) => local(spec.choice_labels?.[item]) || item).join(", ");
  if (value && typeof value === "object") return Object.entries(value).map(([k, v]) => `${k} ${v}`).join(", ");
  return local(spec.choice_labels?.[value]) || String(value);
}

/** A side's params: its own (the common ones with its `each` over them), else the common. */
const sideParams_ = (event, target) => target?.params ?? event.params ?? {};

/** The params on which the sides of an opposed ask differ (none for a single side). */
function differing(event) {
  const sides = (event.to ?? []).map((target) => sideParams_(event, target));
  if (sides.length < 2) return [];
  const names = [...new Set(sides.flatMap((params) => Object.keys(params)))];
  return names.filter((name) => new Set(sides.map((params) =>
    JSON.stringify(params[name] ?? null))).size > 1);
}

/**
 * What an ask asks of `target` (a side of it, or everyone): the params that differ from
 * the game's defaults, « Caractéristique ECL · Difficulté 4 ». Read by no side (the GM, an
 * observer), only what every side is asked alike: each side's own values are on its line
 * (`sideText`), never one side's said as everyone's.
 */
export function askedText(event, target) {
  const schema = rulesetByName(event.ruleset)?.params ?? {};
  const side = target === undefined && !isGm()
    ? (event.to ?? []).find((item) => item.seat === state.client?.name) : target;
  const apart = new Set(side ? [] : differing(event));
  const params = side ? sideParams_(event, side) : event.params ?? {};
  return Object.entries(params).filter(([name, value]) => {
    const spec = schema[name] ?? {};
    if (apart.has(name)) return false;
    if (value === null || value === undefined || value === false || value === "") return false;
    if (Array.isArray(value) && !value.length) return false;
    return JSON.stringify(value) !== JSON.stringify(spec.default);
  }).map(([name, value]) => [paramLabel(event.ruleset, name), valueText(schema[name] ?? {}, value)]
    .filter(Boolean).join(" ")).join(" · ");
}

/**
 * What one side of an opposed ask is asked apart from the others: its own value of each
 * param on which the sides differ, by its label — « Caractéristique PEP · Difficulté 2 »,
 * a default too (« Difficulté 0 »: it is what differs), « — » for none.
 */
export function sideText(event, target) {
  const schema = rulesetByName(event.ruleset)?.params ?? {};
  const params = sideParams_(event, target);
  return differing(event).map((name) => {
    const value = params[name];
    const shown = value === null || value === undefined || value === "" ? "—"
      : typeof value === "boolean" ? t(value ? "ask.yes" : "ask.no") : valueText(schema[name] ?? {}, value);
    return `${paramLabel(event.ruleset, name)} ${shown}`;
  }).join(" · ");
}

/** Every side's own values, for a reader who is no side (the GM's log line): « Ervald : … ; Tam : … »,
 * "Ervald: …; Tam: …" in English. */
export function sidesText(event) {
  if (!differing(event).length || (!isGm() && asksMe(event))) return ""; // (a side reads its own)
  return (event.to ?? []).map((target) => t("ask.side.values", { name: target.character || target.seat,
    values: sideText(event, target) })).join(state.lang === "fr" ? " ; " : "; "); // (French typography)
}

/** The seqs of the answers the cards show (an answer is an outcome in the join's language). */
export function answerSeqs() {
  const seqs = [];
  for (const item of state.asks?.values() ?? []) {
    for (const answer of item.answers.values()) if (typeof answer.seq === "number") seqs.push(answer.seq);
  }
  return seqs;
}

/** After a language switch: an answer the cards show, again as the server sends it now
 * (`history` in the new language), so a card does not keep the old language's text. */
export function reanswer(event) {
  for (const item of state.asks?.values() ?? []) {
    for (const [seat, answer] of item.answers) {
      if (answer.type === "outcome" && answer.seq === event.seq) item.answers.set(seat, event);
    }
  }
}

/** This page's seat's part of an ask still waiting for its answer (`null`: none). */
export function pendingFor(id) {
  const item = state.asks?.get(id);
  if (!item || item.closed || isGm() || !asksMe(item.event)) return null;
  if (item.answers.has(state.client?.name)) return null;
  return item;
}

/** The asked roll's button, for the ask's line in the log (where the player reads), or
 * `where` else (the bar at the bottom of the screen: asknotice.js). */
export function answerButton(id, where = "log") {
  const item = pendingFor(id);
  if (!item) return null;
  return el("button", { type: "button", class: "primary ask-roll-here", id: `ask-roll-${where}-${id}`,
    disabled: busy.has(id), text: t("ask.roll", { what: askName(item.event) }), onclick: () => answer_(item) });
}

/** A seat's answer on the GM's card: its result, or the side the ask recorded. */
function answerText(answer, event) {
  if (!answer) return t("ask.waiting");
  if (answer.type === "outcome") {
    const result = answer.result ?? {};
    const verdict = local(result.label) || result.kind || "";
    const text = withoutHeading(answer.text ?? "", [answer.character, answer.by?.name], answer.label || event?.label);
    // The verdict once: the text often ends with it (« … : Bourde ! »).
    const pieces = [text.includes(verdict) ? "" : verdict];
    if (text) pieces.push(text);
    if (answer.open === true) pieces.push(t("ask.deciding"));
    return pieces.filter(Boolean).join(" — ");
  }
  // Known only as the ask's side (a page opened after the answer): its result's own word
  // (« Bourde ») and its margin in the ruleset's words (`margin_labels`: « MR 2 », a
  // failure's shortfall « ME 3 », as the CLI and the live card's text say), else the page's.
  const pieces = [local(answer.label) || (answer.success ? t("kind.success") : t("kind.failure"))];
  if (typeof answer.margin === "number") pieces.push(marginText(answer, event));
  if (answer.open) pieces.push(t("ask.deciding"));
  return pieces.join(" · ");
}

/** A side's margin as its game says it (« MR 2 », « ME 3 »), else « marge 2 ». */
function marginText(side, event) {
  const own = rulesetByName(event?.ruleset)?.margin_labels?.[side.success ? "success" : "failure"];
  if (!own) return t("ask.margin", { margin: side.margin });
  return `${local(own)} ${side.success ? side.margin : -side.margin}`;
}

/** An outcome's text without its heading (« Léa — Escalader le mur : »): the card's line
 * names who answered and the card the ask's label already. */
function withoutHeading(text, names, label) {
  if (!label) return text;
  const quote = (word) => word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const who = names.filter(Boolean).map(quote).join("|");
  return who ? text.replace(new RegExp(`^(?:${who}) — ${quote(label)}\\s?:\\s*`), "") || text : text;
}

/** Who won an opposition, for people (the GM's card, and every log the ask's mode lets see it). */
export function winnerText(opposition) {
  if (opposition.draw) return t("ask.draw");
  // The winning side's character: a GM's NPC wins with no seat (winner null).
  if (opposition.winner_character) return t("ask.winner", { name: opposition.winner_character });
  if (opposition.winner === null || opposition.winner === undefined) return t("ask.nobody");
  const side = (opposition.sides ?? []).find((item) => item.seat === opposition.winner);
  return t("ask.winner", { name: side?.character || opposition.winner });
}

/** What a cooperative ask achieved: the best roll, the one that counts (by its character). */
export function bestText(cooperation) {
  const sides = cooperation.sides ?? [];
  const side = cooperation.best === null || cooperation.best === undefined
    ? sides.find((item) => item.character === cooperation.best_character) // (a GM's NPC)
    : sides.find((item) => item.seat === cooperation.best);
  // The best roll as it said it (its result's label: « Réussite de justesse », « Bourde »),
  // as the CLI says it; a bare success or failure only when a side carries no label.
  const how = local(side?.label) || t(`kind.${cooperation.success ? "success" : "failure"}`);
  const name = cooperation.best_character || side?.character || cooperation.best;
  return `${t("ask.best", { name })} (${how})`;
}

function renderCard(item) {
  const { event } = item;
  const id = event.ask;
  const who = (target) => (!target.seat ? t("ask.npc_side", { name: target.character })
    : target.character ? `${target.character} (${target.seat})` : target.seat);
  const head = el("div", { class: "entry-head" },
    // A label is quoted (people's words); what stands for none follows a colon, unquoted.
    el("strong", { class: "who", text: (isGm() ? t("ask.gm_title") : t("ask.player_title"))
      + (event.label ? "" : colon().trimEnd()) }),
    el("span", { class: "what", text: event.label ? quoted(event.label) : askName(event) }),
    event.opposed ? el("span", { class: "badge", text: t("ask.opposed.badge") }) : null,
    event.cooperative ? el("span", { class: "badge", text: t("ask.cooperative.badge") }) : null,
    event.mode && event.mode !== "public" ? el("span", { class: `badge mode-${event.mode}`,
      text: t(`mode.badge.${event.mode}`) }) : null,
    item.closed ? el("span", { class: "badge", text: t(`ask.${item.closed}`) }) : null);
  const body = [];
  // What is asked: the characteristic, the difficulty… (this seat's side, for a player).
  const mine = isGm() ? null : (event.to ?? []).find((target) => target.seat === state.client?.name);
  const asked = askedText(event, mine);
  if (asked) body.push(el("p", { class: "ask-what", text: t("ask.what", { what: asked }) }));
  // A player's opposition: against whom (the ask, public, names every side to everyone).
  const others = event.opposed && mine ? (event.to ?? []).filter((target) => target.seat !== mine.seat) : [];
  if (others.length) {
    body.push(el("p", { class: "ask-against", text: t("ask.against", { names: others.map(who).join(", ") }) }));
  }
  const aimed = askTargetsText(event);
  if (aimed) body.push(el("p", { class: "ask-aimed", text: aimed }));
  if (isGm()) {
    const own = (target) => sideText(event, target);
    body.push(el("ul", { class: "ask-lines" }, (event.to ?? []).map((target) => {
      const answer = item.answers.get(sideKey(target));
      // A GM's NPC's side waiting: the GM rolls for it from here (as the NPC).
      const npc = !target.seat && !answer && !item.closed;
      return el("li", { class: "ask-line", "data-seat": target.seat ?? null,
        "data-npc": target.seat ? null : target.character,
        "data-state": answer ? "answered" : "waiting" },
      el("strong", { text: who(target) }),
      // An opposition's side: what it is asked apart from the others (its characteristic…).
      own(target) ? el("span", { class: "ask-side-what", text: ` (${own(target)})` }) : null, " — ",
      el("span", { class: "ask-answer", text: answerText(answer, event) }),
      npc ? el("button", { type: "button", class: "primary ask-roll-npc", disabled: busy.has(id),
        "data-character": target.character, text: t("ask.roll_for", { name: target.character }),
        onclick: () => answer_(item, target.character) }) : null);
    })));
    if (state.welcome?.manual_dice && !item.closed && (event.to ?? []).some((target) =>
      !target.seat && !item.answers.has(sideKey(target)))) body.push(facesField(event));
    if (item.opposition) {
      body.push(el("p", { class: "ask-winner", "data-winner": item.opposition.winner ?? "",
        text: winnerText(item.opposition) }));
    }
    if (item.cooperation) {
      body.push(el("p", { class: "ask-best", "data-best": item.cooperation.best ?? "",
        text: bestText(item.cooperation) }));
    }
    if (!item.closed) {
      body.push(el("button", { type: "button", class: "ask-cancel danger", id: `ask-cancel-${id}`,
        text: t("ask.cancel"), onclick: () => cancel(id) }));
    } else {
      // A closed card stays until the GM has read it: the answers are in the log too.
      body.push(el("button", { type: "button", class: "ask-dismiss", id: `ask-dismiss-${id}`,
        text: t("ask.dismiss"), onclick: () => dismiss(id) }));
    }
  } else {
    const answer = item.answers.get(state.client?.name);
    if (answer) body.push(el("p", { class: "ask-done", text: t("ask.answered") }));
    else if (item.closed === "cancelled") body.push(el("p", { class: "hint", text: t("ask.cancelled.player") }));
    else {
      const target = event.to.find((item_) => item_.seat === state.client?.name);
      if (target?.character) body.push(el("p", { class: "hint", text: t("log.as", { name: target.character }) }));
      if (state.welcome?.manual_dice) body.push(facesField(event));
      body.push(el("button", { type: "button", class: "primary ask-roll", id: `ask-roll-${id}`,
        disabled: busy.has(id), text: t("ask.roll", { what: askName(event) }), onclick: () => answer_(item) }));
    }
  }
  if (errors.get(id)) body.push(el("p", { class: "error", role: "alert", text: errors.get(id)() }));
  return el("li", { class: "entry ask-card", "data-ask": id, "data-state": item.closed ?? "open" }, head, ...body);
}

/** The cards, newest first: the GM's all, a player's those asked of them still pending. */
export function renderAsks() {
  const box = $("asks");
  if (!box) return;
  const focused = document.activeElement?.id;
  const cards = [...(state.asks ?? new Map()).values()]
    .filter((item) => isGm() || !item.closed || errors.has(item.event.ask))
    .sort((a, b) => (b.event.seq ?? 0) - (a.event.seq ?? 0))
    .map((item) => {
      const card = renderCard(item);
      card.dataset.key = card.dataset.ask;
      return card;
    });
  // Only the cards that changed are drawn again: the list is a live region.
  patchList(box, cards);
  // First on the page (a phone shows it before the roll form): what the GM asks for now.
  $("asks-card").hidden = cards.length === 0;
  asksChanged();
  if (focused && box.contains(document.getElementById(focused))) document.getElementById(focused).focus();
}

/** Physical dice for an asked roll, as the roll form has them (empty: the server rolls). */
function facesField(event) {
  const id = `ask-dice-${event.ask}`;
  const order = rulesetByName(event.ruleset)?.dice_order;
  const help = order ? el("small", { class: "help", id: `${id}-help`, text: t("dice.order") + local(order) }) : null;
  const input = el("input", { id, class: "ask-dice", inputmode: "numeric", autocomplete: "off",
    value: typedFaces.get(event.ask) ?? "", placeholder: t("roll.dice.placeholder"),
    "aria-describedby": help ? `${id}-help` : null,
    "aria-invalid": badFaces.has(event.ask) ? "true" : null });
  input.addEventListener("input", () => typedFaces.set(event.ask, input.value));
  return el("div", { class: "ask-faces" }, el("label", { for: id, text: t("roll.dice") }), input, help);
}

/** Answer `item`'s ask: this seat's side, or (a GM, `character`) that NPC's side. */
async function answer_(item, character = null) {
  const { event } = item;
  const id = event.ask;
  errors.delete(id);
  badFaces.delete(id);
  let dice;
  try {
    dice = parseFaces(typedFaces.get(id) ?? "");
  } catch {
    errors.set(id, () => t("error.dice"));
    badFaces.add(id);
    renderAsks();
    document.getElementById(`ask-dice-${id}`)?.focus();
    return;
  }
  busy.add(id);
  renderAsks();
  try {
    // The ask's ruleset, params, label and mode apply whatever the roll says.
    const message = { type: "roll", ruleset: event.ruleset, params: {}, answers: id,
      label: event.label ?? "", mode: event.mode ?? "public", options: {} };
    if (dice) message.dice = dice;
    if (character) message.character = character;
    const reply = await state.client.request(message, { resend: true });
    typedFaces.delete(id);
    answered(reply);
  } catch (failure) {
    errors.set(id, () => describeError(failure, event.ruleset));
    if (failure?.code === "bad_dice") badFaces.add(id);
  } finally {
    busy.delete(id);
  }
  renderAsks();
}

function dismiss(id) {
  state.asks.delete(id);
  errors.delete(id);
  badFaces.delete(id);
  renderAsks();
  $("asks").firstElementChild?.querySelector("button")?.focus();
}

async function cancel(id) {
  errors.delete(id);
  try {
    await state.client.request({ type: "ask", op: "cancel", ask: id });
  } catch (failure) {
    errors.set(id, () => describeError(failure));
  }
  renderAsks();
}

// -- the GM's form ---------------------------------------------------------------------------

/** Who may be asked: the seats, the characters that have one, and the GM's NPCs. */
function targets() {
  const names = state.seats.map((seat) => ({ name: seat.name, hint: t("ask.seat") }));
  for (const character of [...state.characters.values()].sort((a, b) => a.character.localeCompare(b.character))) {
    if (character.owner) names.push({ name: character.character, hint: t("ask.played_by", { seat: character.owner }) });
    // A character no seat plays: the GM's NPC, whose side a GM answers (« Lancer pour Orc »).
    else names.push({ name: character.character, hint: t("ask.npc") });
  }
  return names;
}

const checked = () => [...document.querySelectorAll("#ask-targets input:checked")].map((box) => box.value);

/** The checkboxes of who may be asked (what was ticked stays ticked). */
export function renderAskTargets() {
  if (!isGm() || !$("ask-targets")) return;
  const ticked = new Set(checked());
  const list = targets();
  // (The hint under the name, not beside it: short names, several to a line on a phone.)
  $("ask-targets").replaceChildren(...list.map(({ name, hint }) => el("label", { class: "chip target-chip" },
    el("input", { type: "checkbox", value: name, checked: ticked.has(name) }),
    el("span", { class: "chip-text" }, el("span", { text: name }), el("small", { class: "hint", text: hint })))));
  $("ask-targets-empty").hidden = list.length > 0;
  buildSides();
}

function schema() {
  return rulesetByName($("ask-ruleset").value)?.params ?? {};
}

function buildParams() {
  const params = schema();
  const box = $("ask-params");
  // What was typed stays for the same game (a language switch), never for another: another
  // game's difficulty is no value of this one.
  const kept = box.dataset.ruleset === $("ask-ruleset").value
    ? readFields(params, PREFIX, { relaxed: true }).values : {};
  box.replaceChildren(...layoutFields(params, PREFIX, (name, spec) => buildField(name, spec, PREFIX)));
  box.dataset.ruleset = $("ask-ruleset").value;
  writeFields(params, PREFIX, kept);
  syncLayout($("ask-params"));
  buildSides();
}

/** What the sheets of the characters asked give (their dice): neither shown nor sent. */
const supplied = () => suppliedBySheets($("ask-ruleset").value, checked());

/** What a side may set apart from the common params: what a roll needs (not what folds
 * away, nor a situation, nor what the sheets give), empty — left empty, the side rolls as
 * the common params say. */
function sideParams(params) {
  const switches = new Set(Object.values(params).map((spec) => spec.situation));
  const given = supplied();
  return Object.fromEntries(Object.entries(params)
    .filter(([name, spec]) => !spec.more && !spec.situation && !switches.has(name) && spec.type !== "bool"
      && !given.has(name))
    .map(([name, spec]) => {
      // The help is read once, on the common field above.
      const { default: _, required: __, description: ___, ...rest } = spec;
      return [name, rest];
    }));
}

/**
 * In an opposition, the params common to the sides stay above; each side is one folded line
 * that opens on what it may set differently (its own difficulty, its own code…), empty until
 * the GM types it, and says how many it sets.
 */
function buildSides() {
  hideSupplied($("ask-params"), supplied());
  const opposed = $("ask-opposed").checked;
  const box = $("ask-sides");
  box.hidden = !opposed;
  $("ask-common").hidden = !opposed;
  if (!opposed) {
    box.replaceChildren();
    delete box.dataset.ruleset;
    return;
  }
  const params = sideParams(schema());
  const names = checked();
  const sides = [...box.querySelectorAll("[data-side]")].map((set) => set.dataset.side);
  if (box.dataset.ruleset === $("ask-ruleset").value && sides.join("\n") === names.join("\n")
      && (names.length || box.childElementCount)) return; // as it stands: keep what is typed
  box.dataset.ruleset = $("ask-ruleset").value;
  const before = new Map([...box.querySelectorAll("[data-side]")].map((set) =>
    [set.dataset.side, readFields(params, set.dataset.prefix, { relaxed: true }).values]));
  box.replaceChildren(...names.map((name, index) => sideBox(name, sidePrefix(index), params,
    Object.entries(params).map(([param, spec]) => buildField(param, spec, sidePrefix(index))))));
  names.forEach((name, index) => writeFields(params, sidePrefix(index), before.get(name) ?? {}));
  for (const side of box.querySelectorAll("[data-side]")) side.recount();
  if (!names.length) box.append(el("p", { class: "hint", text: t("ask.pick") }));
}

/** The form as it was before any ask: nothing of the last one is sent again by mistake
 * (nobody ticked, no opposition left on: a third side added to it by mistake). */
function resetAskForm() {
  for (const box of document.querySelectorAll("#ask-targets input:checked")) box.checked = false;
  $("ask-opposed").checked = false;
  $("ask-cooperative").checked = false;
  $("ask-mode").selectedIndex = 0; // (public: a secret ask is a choice made each time)
  $("ask-params").replaceChildren();
  $("ask-sides").replaceChildren();
  delete $("ask-sides").dataset.ruleset;
  $("ask-label").value = "";
  buildParams();
}

async function submitAsk(event) {
  event.preventDefault();
  const error = $("ask-error");
  error.hidden = true;
  const to = checked();
  const ruleset = $("ask-ruleset").value;
  const opposed = $("ask-opposed").checked;
  const cooperative = $("ask-cooperative").checked;
  for (const node of $("ask-form").querySelectorAll("[aria-invalid]")) node.removeAttribute("aria-invalid");
  const fail = (text, field) => {
    showError("ask-error", text); // (the page's words a function: written again in another language)
    // The field to fill, marked and focused (not the button that was pressed).
    const node = field ? document.getElementById(field) : null;
    node?.setAttribute("aria-invalid", "true");
    node?.focus();
  };
  if (!to.length || ((opposed || cooperative) && to.length < 2)) {
    fail(() => t(opposed ? "ask.pick_two" : cooperative ? "ask.pick_two.cooperative" : "ask.pick"));
    return;
  }
  const message = { type: "ask", op: "open", to, ruleset, label: $("ask-label").value.trim(),
    mode: $("ask-mode").value, options: {} };
  // The characters every answer is aimed at (contract §8): an NPC's sheet is read and hit.
  const aimed = readTargets("ask-target");
  if (aimed.length) message.targets = aimed;
  const params = schema();
  const skip = supplied(); // (a param sent would win over the sheets)
  if (opposed) {
    // The common params, and each side's differences over them (PROTOCOL.md §7.5).
    const common = readFields(params, PREFIX, { relaxed: true, skip, changed: true }).values;
    message.opposed = true;
    message.params = common;
    message.each = {};
    for (const [index, name] of to.entries()) {
      const { values } = readFields(sideParams(params), sidePrefix(index));
      const missing = Object.entries(params).filter(([param, spec]) => spec.required
        && !skip.has(param) && !(param in common) && !(param in values)).map(([param]) => param);
      if (missing.length) {
        const field = fieldId(sidePrefix(index), missing[0]);
        fail(() => `${t("ask.side", { name })}${colon()}${t("odds.missing")}${paramLabels(ruleset, missing)}`,
          document.getElementById(field) ? field : fieldId(PREFIX, missing[0]));
        return;
      }
      message.each[name] = values;
    }
  } else {
    // Only what the GM set: an untouched default (collaborators 0) would win over the server's.
    const { values, missing } = readFields(params, PREFIX, { skip, changed: true });
    if (missing.length) {
      fail(() => t("odds.missing") + paramLabels(ruleset, missing), fieldId(PREFIX, missing[0]));
      return;
    }
    message.params = values;
    if (cooperative) message.cooperative = true; // every side rolls, the best one counts
  }
  const button = $("ask-form").querySelector("button[type=submit]");
  button.disabled = true;
  try {
    const reply = await state.client.request(message);
    applyAsk(reply);
    resetAskForm();
    clearTargets("ask-target");
    renderTargetPickers();
    $("ask-status").textContent = t("ask.sent");
  } catch (failure) {
    fail(failureText(failure, ruleset), failure.details?.field === "targets" ? "ask-target" : undefined);
  } finally {
    button.disabled = false;
  }
}

/** The form after a `welcome` (GM only): the rulesets and who may be asked. */
export function enterAskForm() {
  if (!isGm()) return;
  const select = $("ask-ruleset");
  const current = select.value;
  select.replaceChildren(...state.welcome.rulesets.map((ruleset) =>
    el("option", { value: ruleset.name, text: rulesetTitle(ruleset.name) })));
  if (current && rulesetByName(current)) select.value = current;
  buildParams();
  renderAskTargets();
}

export function setupAskForm() {
  $("ask-form").addEventListener("submit", submitAsk);
  $("ask-ruleset").addEventListener("change", buildParams);
  followTableGame($("ask-ruleset"), buildParams);
  $("ask-opposed").addEventListener("change", () => {
    // Opposed or cooperative, not both (PROTOCOL.md §7.5).
    if ($("ask-opposed").checked) $("ask-cooperative").checked = false;
    buildSides();
  });
  $("ask-cooperative").addEventListener("change", () => {
    if ($("ask-cooperative").checked) $("ask-opposed").checked = false;
    buildSides();
  });
  $("ask-targets").addEventListener("change", buildSides);
  $("ask-form").addEventListener("input", () => { $("ask-status").textContent = ""; });
}
