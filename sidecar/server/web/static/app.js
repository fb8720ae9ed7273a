// The web table: join (from a seat's link too), a roll form built from the rulesets'
// `params` descriptions, rolling as a character, exact odds before rolling, the table's live
// log (open rolls decided from their cards, asked rolls), reconnection with resume. French
// first.
//
// Everything shown comes from other people (names, labels, notes): it is always set as
// text, never as HTML.
import {
  answerSeqs, applyAsk, applyAskOutcome, listRestOfAsks, onAnswered, onAsksChanged, reanswer, renderAsks,
  resetAsks,
} from "./asks.js";
import { keepPlace, renderAskNotice } from "./asknotice.js";
import {
  configureDecisions, decisionChains, decisionParts, decisionsBySeq, renderDecided,
} from "./decide.js";
import { clearError, failureText, relocalizeErrors, showError } from "./formerrors.js";
import { describeExtensions, oddsPrompt, waitsFor } from "./formfit.js";
import { gapLines, learnGap, learnPage } from "./gaps.js";
import {
  addListedCharacters, applyOutcomeSheet, applySheetEvent, applyTargetSheets, chooseCharacter,
  configureCharacters, currentCharacter, neededWithoutCharacter, noteActed, refreshQuickRolls,
  renderCharacterPanel, resetCharacters, sheetPlan,
} from "./characters.js";
import {
  buildField, buildOptionFieldsets, fieldId as fieldIdIn, layoutFields, optionsFor, readFields,
  readOptionFieldsets, syncLayout, writeFields, writeOptionFieldsets,
} from "./fields.js";
import {
  applySeatEvent, enterGmPanel, refreshSeats, relabelGmPanel, renderCharacterAdmin, setupGmPanel,
} from "./gm.js";
import {
  $, applyTableGame, describeError, el, followTableGame, local, paramLabels, parseFaces,
  patchList, query, rulesetByName, state, t,
} from "./page.js";
import { renderGmNote, renderNote, renderOutcome, renderSecret } from "./entries.js";
import { syncModes } from "./modes.js";
import { showOdds } from "./oddsview.js";
import { SidecarClient } from "./sidecar-client.js";
import {
  clearTargets, noticeNames, readTargets, renderTargetPickers, resetNames,
} from "./targets.js";
import { clientSeed, noteWelcome, onEpoch } from "./verify.js";

/** The session's key: a seat link's token is kept here for this tab only, never in the URL. */
const SESSION_KEY = "sidecar.session";

const LOG_LIMIT = 200;
const HISTORY_PAGE = 50;

// -- language --------------------------------------------------------------------------------

function applyLanguage() {
  document.documentElement.lang = state.lang;
  for (const node of document.querySelectorAll("[data-i18n]")) node.textContent = t(node.dataset.i18n);
  for (const node of document.querySelectorAll("[data-i18n-placeholder]")) {
    node.placeholder = t(node.dataset.i18nPlaceholder);
  }
  for (const node of document.querySelectorAll("[data-i18n-label]")) {
    node.setAttribute("aria-label", t(node.dataset.i18nLabel));
  }
  $("lang").textContent = state.lang === "fr" ? "EN" : "FR";
  setStatus(state.client?.state ?? "idle");
  if (state.welcome) {
    $("table-title").textContent = t("table.title", { table: state.welcome.table });
    const current = $("ruleset").value;
    fillRulesets(current);
    renderCharacterPanel();
    relabelGmPanel();
    renderLog();
    renderAsks();
    // The figures shown, in the new language at once (new ones come after the rejoin).
    const [stale, note] = [$("odds").classList.contains("stale"), $("odds-note").textContent];
    if (state.oddsAbout && state.shownOdds) showOdds(state.shownOdds, note, state.oddsAbout);
    $("odds").classList.toggle("stale", stale);
  }
  relocalizeErrors(); // (#roll-error, #ask-error)
}

function switchLanguage() {
  const values = state.welcome ? readForm() : null;
  state.lang = state.lang === "fr" ? "en" : "fr";
  localStorage.setItem("sidecar.lang", state.lang);
  applyLanguage();
  if (values) restoreForm(values);
  if (state.client) {
    // Outcome texts and error messages come in the language of the join: rejoin (with
    // resume, so nothing is lost) to have the server speak the new one.
    state.client.locale = state.lang;
    state.relocalize = true; // once back: the log's earlier rolls in the new language too
    state.client.dropConnection();
  }
}

function setStatus(status) {
  const node = $("status");
  node.textContent = t(`status.${status}`);
  node.className = `status status-${status}`;
}

// -- joining ---------------------------------------------------------------------------------

function wsUrl() {
  return `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`;
}

/** The session kept for this tab (from a seat link): `{table, name, role, token, seat}`. */
function savedSession() {
  try {
    return JSON.parse(sessionStorage.getItem(SESSION_KEY) ?? "null");
  } catch {
    return null;
  }
}

/**
 * A token in the address — after `#` in every link the sidecar makes (a seat's
 * `?table=T&name=N#token=…`, the players' join link `?table=T#token=…`, the GM's
 * `?table=T&role=gm#token=…`: a browser never sends what follows `#`, so no server or proxy
 * log holds it), or an older link's `?token=` — is read once, kept for this tab's session,
 * and taken out of the address and its history entry: it is a key, not something to
 * bookmark, share or leave in the history. A seat's link (a player's, naming the seat)
 * joins at once.
 */
function readTokenFromAddress() {
  const fragment = new URLSearchParams(location.hash.slice(1));
  const hashed = fragment.get("token");
  const token = hashed || query.get("token");
  if (!token) return null;
  const role = query.get("role") || "player";
  const session = { table: query.get("table") || "", name: query.get("name") || "",
    role, token, seat: Boolean(hashed) && role === "player" && Boolean(query.get("name")),
    gmLink: Boolean(hashed) && role === "gm" };
  sessionStorage.setItem(SESSION_KEY, JSON.stringify(session));
  query.delete("token");
  const search = query.toString();
  history.replaceState(history.state, "", `${location.pathname}${search ? `?${search}` : ""}`);
  return session;
}

function showJoin(message) {
  $("join").hidden = false;
  $("table").hidden = true;
  const session = state.session;
  $("join-name").value ||= session?.name || query.get("name") || localStorage.getItem("sidecar.name") || "";
  $("join-table").value ||= session?.table || query.get("table") || "demo";
  const role = session?.role || query.get("role");
  if (role && !$("join-role").dataset.touched) $("join-role").value = role;
  $("join-token").value ||= session?.token || "";
  $("join-token-label").hidden = $("join-role").value === "observer";
  const error = $("join-error");
  error.hidden = !message;
  error.textContent = message || "";
}

async function join(event) {
  event?.preventDefault();
  const name = $("join-name").value.trim();
  const table = $("join-table").value.trim();
  const role = $("join-role").value;
  if (!name || !table) {
    showJoin(state.lang === "fr" ? "Indiquez un nom et une table." : "Give a name and a table.");
    return;
  }
  localStorage.setItem("sidecar.name", name);
  const token = role === "observer" ? undefined : $("join-token").value.trim();
  if (state.logTable !== table) {
    // Another table: its seqs have nothing to do with the log shown so far.
    Object.assign(state, { logTable: table, seen: new Set(), outcomes: [], horizon: 0,
      hiddenNotes: new Set(), hiddenRolls: new Set() });
  }
  state.floor = null; // until this join's history is in
  const client = new SidecarClient(wsUrl(), { table, name, role, token, locale: state.lang,
    clientSeed: clientSeed(table, name) });
  client.on("state", (status) => {
    setStatus(status);
    if (status === "closed" && state.client === client) {
      // The server refused us back (new tokens after a restart, the seat removed or given
      // a new link…): back to the join form.
      state.client = null;
      state.welcome = null;
      const why = client.closedBy ? joinRefusal(client.closedBy, role) : "";
      showJoin(`${t("error.ended")} ${why}`.trim());
    }
  });
  client.on("outcome", addOutcome);
  client.on("presence", renderPresence);
  client.on("characters", (entries) => addListedCharacters(entries, client.lastSeq));
  client.on("sheet", addNote);
  client.on("seat", addNote);
  client.on("ask", (event) => keepPlace(() => addNote(event))); // (the player reads on)
  client.on("session", addNote);
  client.on("initiative", addNote);
  client.on("epoch", (event) => {
    addNote(event);
    // A reveal's check asks the history: at a server's clean stop (it reveals, then goes) that
    // request fails at the cut. The rolls then stay unmarked; the badge says the page is offline.
    onEpoch(event, client, renderLog).catch(() => {});
  });
  client.on("welcome", (welcome) => {
    const before = state.welcome;
    state.welcome = welcome;
    noteWelcome(welcome);
    if (state.client === client) {
      // A reconnection: the characters as they are now; resumed events follow it.
      resetCharacters(welcome);
      resetAsks(welcome);
      listRestOfAsks(client, welcome);
      refreshSeats();
      redescribeTable(before, welcome);
      if (state.relocalize) relocalizeLog(client);
    }
    scheduleOdds();
  });
  $("join-form").querySelector("button").disabled = true;
  try {
    const welcome = await client.connect();
    // Kept for this tab: a reload joins again by itself (a shared link's token is no longer
    // in the address, and nobody wants to press « Rejoindre » twice).
    state.session = { table, name, role, token, seat: Boolean(state.session?.seat
      && state.session.table === table && state.session.name === name), rejoin: true };
    sessionStorage.setItem(SESSION_KEY, JSON.stringify(state.session));
    state.client = client;
    state.welcome = welcome;
    noteWelcome(welcome);
    enterTable(welcome);
    // The form is gone: the focus goes to what replaced it, not to <body>.
    $("table-title").focus();
    loadRecentHistory(welcome.seq);
  } catch (error) {
    client.close();
    showJoin(joinRefusal(error, role));
  } finally {
    $("join-form").querySelector("button").disabled = false;
  }
}

/** Why the table refused this page, and what to do: a seat's name needs its seat's link. */
function joinRefusal(error, role) {
  const message = describeError(error);
  if (error?.code !== "forbidden" || role !== "player") return message;
  const fromLink = state.session?.seat && state.session.token === $("join-token").value.trim();
  if (fromLink) sessionStorage.removeItem(SESSION_KEY); // that link is dead: do not retry it
  return `${message} ${t(fromLink ? "error.seat_link" : "error.seat_taken")}`;
}

async function loadRecentHistory(upTo) {
  // The live stream starts at the join; show the last few rolls from before it too.
  const from = Math.max(0, upTo - HISTORY_PAGE);
  let after = from;
  try {
    for (;;) {
      const page = await state.client.history({ after, limit: HISTORY_PAGE });
      learnPage(page, after, upTo);
      for (const event of page.events) {
        if (NOTES.has(event.type)) addNote(event);
        else addOutcome(event);
      }
      if (!page.more || page.next > upTo) break;
      after = page.next;
    }
    state.floor = from;
    state.horizon = Math.max(state.horizon, upTo);
    applyTableGame(); // the last roll's game, when the table has no characters
  } catch {
    // History is a comfort: the live log works without it (gaps count from what it saw).
    state.floor = state.outcomes[0]?.seq ?? upTo;
  }
  renderLog();
}

/** After a language switch: the log's rolls again, from the history in the new language
 * (their texts and notes are the server's, in the join's language), not half and half. */
async function relocalizeLog(client) {
  state.relocalize = false;
  const index = new Map(state.outcomes.map((outcome, at) => [outcome.seq, at]));
  // The ask cards' answers too (an answer may have left the log's last LOG_LIMIT lines).
  const seqs = [...index.keys(), ...answerSeqs()].filter((seq) => typeof seq === "number");
  if (!seqs.length) return;
  let after = Math.min(...seqs) - 1;
  const last = Math.max(...seqs);
  try {
    while (after < last) {
      const page = await client.history({ after, limit: HISTORY_PAGE });
      for (const event of page.events) {
        const at = index.get(event.seq);
        if (at !== undefined && !NOTES.has(event.type)) state.outcomes[at] = event;
        if (event.type === "outcome") reanswer(event);
      }
      if (!page.more) break;
      after = page.next;
    }
  } catch {
    // The earlier words stay: the live log goes on in the new language all the same.
  }
  renderLog();
  renderAsks();
}

/** What the table's welcome describes (games, extensions, their options, manual dice) as
 * the server has it after a reconnection: a restarted server may have loaded a plugin.
 * Rebuilt only when it changed, keeping the game chosen and what was typed. */
function redescribeTable(before, welcome) {
  const described = (w) => JSON.stringify([w?.rulesets, w?.extensions, w?.options, w?.manual_dice]);
  if (!before || described(before) === described(welcome)) return;
  const values = readForm();
  describeExtensions(welcome);
  $("manual").hidden = !welcome.manual_dice;
  fillRulesets(values.ruleset);
  restoreForm(values);
  enterGmPanel();
  applyCharacter();
}

function enterTable(welcome) {
  $("join").hidden = true;
  $("table").hidden = false;
  $("table-name").textContent = `· ${welcome.table}`;
  $("table-title").textContent = t("table.title", { table: welcome.table });
  document.title = `${welcome.table} — vtt-sidecar`;
  const canRoll = welcome.role !== "observer";
  $("roller").hidden = !canRoll;
  $("manual").hidden = !welcome.manual_dice;
  describeExtensions(welcome);
  fillRulesets(query.get("ruleset") || localStorage.getItem("sidecar.ruleset"));
  resetNames();
  resetCharacters(welcome);
  resetAsks(welcome);
  listRestOfAsks(state.client, welcome);
  enterGmPanel();
  applyCharacter();
  applyTableGame();
}

// -- the roll form, built from `params` ------------------------------------------------------

const PARAM_PREFIX = "param";
/** The params a person typed in since the form was built: only those the odds mark red
 * (a field is not shown in error before anything is typed). */
const touchedParams = new Set();
const fieldId = (name) => fieldIdIn(PARAM_PREFIX, name);

function fillRulesets(preferred) {
  const select = $("ruleset");
  select.replaceChildren(...state.welcome.rulesets.map((ruleset) =>
    // (A name that fits a phone's select; the rest of the title beside « Jeu »: `buildParams`.)
    el("option", { value: ruleset.name, text: local(ruleset.title)?.split(" — ")[0] || ruleset.name })));
  if (preferred && rulesetByName(preferred)) select.value = preferred;
  buildParams();
}

/** The plan of the form as it stands: the character rolled as and what its sheet gives. */
function formPlan() {
  const character = currentCharacter();
  return { character, ...sheetPlan($("ruleset").value, character) };
}

function buildParams() {
  const ruleset = rulesetByName($("ruleset").value);
  if (!ruleset) return;
  $("ruleset-full").textContent = local(ruleset.title)?.split(" — ").slice(1).join(" — ") ?? "";
  if (!state.current) localStorage.setItem("sidecar.ruleset", ruleset.name);
  const { character, supplied, pickers } = formPlan();
  touchedParams.clear();
  const container = $("params");
  // What the character's sheet gives is not asked for: the form keeps the rest, what a
  // roll needs first.
  container.replaceChildren(...layoutFields(ruleset.params ?? {}, PARAM_PREFIX, (name, spec) =>
    (supplied.has(name) ? null : buildField(name, spec, PARAM_PREFIX, { choices: pickers.get(name) }))));
  // The first entry of the sheet the quick rolls pick from is chosen already: the odds
  // show at once, and the big button rolls it.
  const [first, choices] = pickers.entries().next().value ?? [];
  const node = first ? $(fieldId(first)) : null;
  if (node && !node.value && choices.length) node.value = choices[0][0];
  const roller = $("roll-as");
  roller.hidden = !character;
  roller.textContent = character ? t("roll.as", { name: character.character }) : "";
  $("dice-order").textContent = ruleset.dice_order ? t("dice.order") + local(ruleset.dice_order) : "";
  buildOptions(ruleset.name);
  scheduleOdds();
}

// -- extension options, built from `welcome.options` -----------------------------------------

/** The settings the option fieldsets hold now (of whatever ruleset they were built for). */
function keptOptions() {
  const built = $("option-sets").dataset.ruleset;
  return built ? readOptionFieldsets(state.welcome.options, built) : {};
}

/**
 * The fieldsets of the extensions that apply to `ruleset` only; settings already chosen
 * stay chosen when the form is rebuilt (an extension for every ruleset, another language).
 */
function buildOptions(ruleset) {
  const kept = keptOptions();
  const box = $("option-sets");
  box.replaceChildren(...buildOptionFieldsets(state.welcome.options, ruleset));
  writeOptionFieldsets(state.welcome.options, ruleset, kept);
  box.dataset.ruleset = ruleset;
  // Folded (a phone's form shows what a roll needs): unfolded when it holds a choice.
  if (box.querySelector(".option-on:checked")) $("ext-options").open = true;
  const shown = optionsFor(state.welcome.options, ruleset).length > 0;
  $("ext-options").hidden = !shown && $("options-free").hidden;
}

/**
 * Roll as the chosen character (or as oneself): its ruleset is the form's, fixed while it
 * is chosen.
 */
function applyCharacter() {
  if (!state.welcome) return;
  const character = currentCharacter();
  const select = $("ruleset");
  const kept = readForm();
  if (character && rulesetByName(character.ruleset)) select.value = character.ruleset;
  else if (!character && select.disabled) select.value = localStorage.getItem("sidecar.ruleset") || select.value;
  select.disabled = Boolean(character);
  renderTargetPickers(); // (never the one rolling)
  buildParams();
  if (kept.ruleset === select.value) restoreForm(kept);
}

/** A character's values changed (a spend, an adjustment): the pickers show the new ones. */
function charactersChanged() {
  renderCharacterAdmin();
  if (!state.welcome) return;
  renderTargetPickers();
  applyTableGame();
  const character = currentCharacter();
  const fixed = $("ruleset").disabled;
  if (Boolean(character) !== fixed || (character && character.ruleset !== $("ruleset").value)) {
    applyCharacter();
    return;
  }
  if (!character) return;
  const { pickers } = formPlan();
  for (const [name, choices] of pickers) {
    const node = $(fieldId(name));
    if (node?.tagName !== "SELECT") continue;
    const value = node.value; // (its « — » stays: a new option list sets nothing by itself)
    const none = [...node.options].filter((option) => option.value === "");
    node.replaceChildren(...none, ...choices.map(([choice, shown]) => el("option", { value: choice, text: shown })));
    if (choices.some(([choice]) => choice === value)) node.value = value;
  }
}

/**
 * The params as the form holds them: `{params, missing}`. Empty optional fields, and those
 * nobody touched that hold their default, are left out so the ruleset's defaults apply.
 * Rolling as a character, what the sheet gives is left out (a param sent would win over
 * the sheet).
 */
function readForm() {
  const ruleset = rulesetByName($("ruleset").value);
  const { supplied } = formPlan();
  const { values, missing } = readFields(ruleset?.params, PARAM_PREFIX, { skip: supplied, changed: true });
  return { ruleset: ruleset?.name, params: values, missing };
}

function restoreForm({ ruleset, params }) {
  if (ruleset && rulesetByName(ruleset) && !$("ruleset").disabled) {
    $("ruleset").value = ruleset;
    buildParams();
  }
  writeFields(rulesetByName(ruleset)?.params, PARAM_PREFIX, params);
  syncLayout($("params"));
  scheduleOdds();
}

/** The roll's `options`: the fieldsets' settings, and the free-form JSON of extensions
 * that describe none (a SyntaxError when it is not an object). */
function readOptions() {
  const described = readOptionFieldsets(state.welcome.options, $("ruleset").value);
  const raw = $("options-free").hidden ? "" : $("options").value.trim();
  if (!raw) return described;
  const options = JSON.parse(raw);
  if (!options || typeof options !== "object" || Array.isArray(options)) throw new SyntaxError();
  return { ...options, ...described };
}

function readDice() {
  return $("manual").hidden ? undefined : parseFaces($("manual-dice").value);
}

/**
 * Mark the field of `param` as the one in error (`aria-invalid`, red): the others are
 * cleared. `focus`: move the focus to it (after a refused roll, not while typing).
 */
function markInvalid(param, { focus = false } = {}) {
  for (const node of document.querySelectorAll("#roll-form .param.invalid")) node.classList.remove("invalid");
  for (const node of document.querySelectorAll("#roll-form [aria-invalid]")) node.removeAttribute("aria-invalid");
  if (!param) return;
  const wrap = document.querySelector(`#roll-form .param[data-param="${CSS.escape(param)}"]`);
  if (!wrap) return;
  wrap.classList.add("invalid");
  const input = $(fieldId(param)) ?? wrap.querySelector("input, select");
  const control = input?.matches("input, select, textarea") ? input : input?.querySelector("input, select");
  control?.setAttribute("aria-invalid", "true");
  if (focus) control?.focus();
}

/** A problem with the manual dice or the options: their field in error, focused. */
function markInvalidField(id) {
  markInvalid(null);
  $(id).setAttribute("aria-invalid", "true");
  if (id === "options") $("ext-options").open = true;
  $(id).focus();
}

// -- odds ------------------------------------------------------------------------------------

/** A param that says what a roll is against (its difficulty, threshold, target). */
const AGAINST = /diffic|threshold|seuil|target|cible/i;

/**
 * What the form's roll is against, for the quick rolls' buttons: « Difficulté 3 », or
 * « Contre Ogre » when a target is set and no difficulty typed (its sheet gives it), or "".
 */
function againstText() {
  const ruleset = rulesetByName($("ruleset").value);
  const aimed = readTargets("roll-target");
  const target = aimed.length ? t("target.against", { names: aimed.join(", ") }) : "";
  for (const [name, spec] of Object.entries(ruleset?.params ?? {})) {
    if (spec.type !== "int" || spec.more || spec.situation) continue;
    if (!AGAINST.test(name) && !AGAINST.test(local(spec.label) || "")) continue;
    const node = $(fieldId(name));
    if (!node) continue;
    const value = node.value.trim() || spec.default;
    // (A difficulty left at its default — 0 — is the target's to give, read from its sheet.)
    if (target && (value === undefined || value === "" || Number(value) === 0)) return target;
    return value === undefined || value === "" ? "" : `${local(spec.label) || name} ${value}`;
  }
  return target;
}

function scheduleOdds() {
  refreshQuickRolls();
  syncModes(); // (« Moi seul » where the server takes it)
  clearTimeout(state.oddsTimer);
  state.oddsTimer = setTimeout(refreshOdds, 150);
}

/** What odds are about: a game and the character rolling it (figures of another are void). */
const oddsAbout = (ruleset) => `${ruleset}\u0000${currentCharacter()?.character ?? ""}`;

async function refreshOdds() {
  if (!state.client || state.client.state !== "open") return;
  const ticket = ++state.oddsTicket;
  const { ruleset, params, missing } = readForm();
  // Without a character, what its sheet would give is needed too: odds the server must refuse
  // are not asked for (each refusal is a line in the host's log).
  if (!currentCharacter()) missing.push(...neededWithoutCharacter(ruleset).filter((name) => !(name in params)));
  if (missing.length) {
    showOdds(null, oddsPrompt(ruleset, missing), oddsAbout(ruleset));
    return;
  }
  let options;
  try {
    options = readOptions();
  } catch {
    showOdds(null, t("error.options"), oddsAbout(ruleset));
    return;
  }
  const character = currentCharacter();
  const about = oddsAbout(ruleset);
  try {
    const odds = await state.client.odds(ruleset, params, options, { character: character?.character,
      targets: readTargets("roll-target") });
    if (ticket !== state.oddsTicket) return; // the form changed meanwhile
    markInvalid(null);
    showOdds(odds, "", about);
  } catch (error) {
    if (ticket !== state.oddsTicket) return;
    const param = error.details?.param;
    if (waitsFor(error, touchedParams, (name) => $(fieldId(name)))) {
      markInvalid(null); // (nothing typed yet is wrong: the form is only not filled in)
      showOdds(null, oddsPrompt(ruleset, [param]), about);
      return;
    }
    markInvalid(touchedParams.has(param) ? param : null);
    // (An odds answer may come back after the roll's refusal: it keeps the target marked.)
    if (error.details?.field === "targets") markInvalidField("roll-target");
    // A refused form: no figure stays beside why (they were another form's odds), unless
    // its field is only emptied, a value being typed (dimmed until it comes).
    if ($(fieldId(param))?.value !== "") state.oddsAbout = null;
    showOdds(null, `${describeError(error, ruleset).replace(/\.?$/, ".")} ${t("odds.fix")}`, about);
  }
}

// -- rolling ---------------------------------------------------------------------------------

async function roll(event) {
  event.preventDefault();
  $("roll-error").hidden = true;
  const { ruleset, params, missing } = readForm();
  if (missing.length) {
    showError("roll-error", () => t("odds.missing") + paramLabels(ruleset, missing));
    touchedParams.add(missing[0]);
    markInvalid(missing[0], { focus: true });
    return;
  }
  let options;
  let dice;
  try {
    options = readOptions();
  } catch {
    showError("roll-error", () => t("error.options"));
    markInvalidField("options");
    return;
  }
  try {
    dice = readDice();
  } catch {
    showError("roll-error", () => t("error.dice"));
    markInvalidField("manual-dice");
    return;
  }
  const mode = document.querySelector('input[name="mode"]:checked')?.value ?? "public";
  const button = $("roll-button");
  button.disabled = true;
  const label = $("roll-label").value.trim();
  const character = currentCharacter();
  try {
    const reply = await state.client.roll({ ruleset, params, options, dice, mode, label,
      character: character?.character, targets: readTargets("roll-target") });
    // One column (a phone): the log is under the form, bring the roll into view. Side by
    // side, the log's newest line is at its top already, and the form stays where it is.
    if (ONE_COLUMN.matches) reveal(reply?.seq);
    // What was tried and who sees it belong to that roll: the next one starts public and
    // unlabelled, aimed at nobody (a blind roll, a blow, is not repeated by mistake).
    clearTargets("roll-target");
    renderTargetPickers();
    scheduleOdds(); // (the odds no longer against that target)
    $("manual-dice").value = "";
    $("roll-label").value = "";
    document.querySelector('input[name="mode"][value="public"]').checked = true;
    markInvalid(null);
  } catch (failure) {
    showError("roll-error", failureText(failure, ruleset));
    // Refused: now its field may be shown red (the odds keep it so).
    if (failure.details?.param) touchedParams.add(failure.details.param);
    if (failure.code === "bad_dice") markInvalidField("manual-dice");
    else if (failure.details?.field === "targets") markInvalidField("roll-target"); // (no such character)
    else markInvalid(failure.details?.param, { focus: true });
  } finally {
    button.disabled = false;
  }
}

// -- the live log ----------------------------------------------------------------------------

function addOutcome(outcome) {
  if (typeof outcome.seq === "number") {
    if (state.seen.has(outcome.seq)) return;
    state.seen.add(outcome.seq);
  }
  state.outcomes.push(outcome);
  state.outcomes.sort((a, b) => (a.seq ?? 0) - (b.seq ?? 0));
  if (state.outcomes.length > LOG_LIMIT) {
    state.outcomes.splice(0, state.outcomes.length - LOG_LIMIT);
    if (state.floor !== null) state.floor = Math.max(state.floor, state.outcomes[0].seq - 1);
  }
  if (typeof outcome.seq === "number") noticeSeq(outcome.seq);
  noticeNames(outcome);
  noteActed(outcome);
  if (outcome.character && outcome.sheet) applyOutcomeSheet(outcome);
  applyTargetSheets(outcome);
  applyAskOutcome(outcome);
  renderLog();
}

/** A seq received: the log reaches it; live, after seqs this page did not get, the server
 * is asked which of those were the GM's notes (not secret rolls). */
function noticeSeq(seq) {
  const before = state.horizon;
  state.horizon = Math.max(state.horizon, seq);
  if (state.floor !== null) learnGap(state.client, before, seq, renderLog);
}

/** The events shown as notes in the log (the others are outcomes). */
const NOTES = new Set(["sheet", "seat", "ask", "session", "epoch", "initiative"]);

/** A `sheet`, `seat`, `ask` or `session` event: a line of the log, and what it changes. */
function addNote(event) {
  if (typeof event.seq === "number") {
    if (state.seen.has(event.seq)) return;
    state.seen.add(event.seq);
    noticeSeq(event.seq);
  }
  state.notes.push(event);
  state.notes.sort((a, b) => (a.seq ?? 0) - (b.seq ?? 0));
  if (state.notes.length > LOG_LIMIT) state.notes.splice(0, state.notes.length - LOG_LIMIT);
  noticeNames(event);
  if (event.type === "sheet") applySheetEvent(event);
  else if (event.type === "session") noteActed(event);
  else if (event.type === "seat") applySeatEvent(event);
  else if (event.type === "ask") applyAsk(event);
  renderLog();
}

/**
 * The log's lines, oldest first: each outcome, and for the seqs in between that never
 * reached this page (another player's `gm`/`blind`/`self` roll) a discreet line saying a
 * secret roll happened, as Foundry does, rather than an unexplained jump in the numbers.
 */
function logLines() {
  if (state.floor === null) return [...state.outcomes, ...state.notes].sort((a, b) => (a.seq ?? 0) - (b.seq ?? 0));
  const lines = [];
  let next = state.floor + 1;
  // What the history says is no roll (seats, the others' sheets) is the GM at work: before
  // the table's first roll « le MJ prépare la table », after it « note du MJ », one line a
  // run, never "secret rolls" (gaps.js).
  const log = { opening: state.floor === 0, prepared: false };
  const secrets = (upTo) => gapLines(lines, next, upTo, log);
  const events = [...state.outcomes, ...state.notes.filter((note) => note.seq > state.floor)]
    .sort((a, b) => (a.seq ?? 0) - (b.seq ?? 0));
  for (const outcome of events) {
    if (typeof outcome.seq === "number") {
      secrets(outcome.seq - 1);
      next = Math.max(next, outcome.seq + 1);
    }
    if (!NOTES.has(outcome.type)) log.opening = false;
    lines.push(outcome);
  }
  secrets(state.horizon);
  return lines;
}

function renderLog() {
  const decisions = decisionsBySeq(state.outcomes);
  const bySeq = new Map(state.outcomes.map((outcome) => [outcome.seq, outcome]));
  // A decision is drawn on its open roll's card (decide.js), not as a second card.
  const { chains, merged } = decisionChains(state.outcomes);
  const lines = logLines().filter((line) => line.secret || !merged.has(line.seq));
  const items = lines.reverse().map((line) => {
    let node;
    if (line.note) node = renderGmNote(line);
    else if (line.secret) node = renderSecret(line);
    else if (NOTES.has(line.type)) node = renderNote(line);
    else if (chains.has(line.seq)) node = renderDecided(line, chains.get(line.seq), decisions, bySeq);
    else node = renderOutcome(line, decisionParts(line, decisions, bySeq));
    node.dataset.key = line.secret ? `${line.prep ? "prep" : line.note ? "note" : line.roll ? "roll" : "secret"}-${line.secret}-${line.count}`
      : `${line.type ?? "outcome"}-${line.seq}`;
    return node;
  });
  // A line that changed (a decision, a language switch) is drawn again; the control that
  // had the focus in it (a choice's faces being typed) gets it back.
  const focused = document.activeElement?.id;
  patchList($("log"), items);
  $("log-empty").hidden = items.length > 0;
  if (focused && document.activeElement?.id !== focused && $("log").contains($(focused))) $(focused).focus();
  if (state.reveal !== null && state.reveal !== undefined) reveal(state.reveal);
}

/** The layout of a phone (style.css): the log comes after the form. */
const ONE_COLUMN = window.matchMedia("(max-width: 760px)");

/**
 * Bring this page's new roll into view (on a phone, the log is under the form): at once if
 * it is drawn, else when it is.
 */
function reveal(seq) {
  state.reveal = typeof seq === "number" ? seq : null;
  const entry = state.reveal === null ? null
    : $("log").querySelector(`.entry[data-seq="${seq}"], .entry[data-seqs~="${seq}"]`);
  if (!entry) return;
  state.reveal = null;
  entry.scrollIntoView({ block: "nearest" });
  // It slides in: where it ends, once it has.
  entry.addEventListener("animationend", () => entry.scrollIntoView({ block: "nearest" }), { once: true });
}

function renderPresence(presence) {
  state.presence = presence.members ?? [];
  // One line per member: a seat open on a phone and a laptop is one person (« Aengus ⚑ ×2 »).
  const shown = new Map();
  for (const member of state.presence) {
    const key = `${member.role}\u0000${member.name}\u0000${Boolean(member.seat)}`;
    shown.set(key, { member, count: (shown.get(key)?.count ?? 0) + 1 });
  }
  // What ⚑ means is written under the list (a phone cannot hover a tooltip).
  $("presence").replaceChildren(...[...shown.values()].map(({ member, count }) =>
    el("li", { class: `member role-${member.role}${member.seat ? " member-seat" : ""}`,
      title: t(`role.${member.role}`) + (member.seat ? ` · ${t("role.seat")}` : "") },
    member.name, member.seat ? el("span", { class: "seat-flag", "aria-label": t("role.seat"), text: " ⚑" }) : null,
    count > 1 ? el("span", { class: "member-count", text: ` ×${count}` }) : null)));
  $("presence-legend").hidden = !state.presence.some((member) => member.seat);
  refreshSeats(); // who is online at each seat
}

// -- start -----------------------------------------------------------------------------------

function start() {
  $("lang").addEventListener("click", switchLanguage);
  $("join-form").addEventListener("submit", join);
  $("join-role").addEventListener("change", () => {
    $("join-role").dataset.touched = "1";
    $("join-token-label").hidden = $("join-role").value === "observer";
  });
  $("ruleset").addEventListener("change", buildParams);
  followTableGame($("ruleset"), buildParams, { busy: () => touchedParams.size > 0 });
  // A game named in the address is a choice: the table's game does not replace it.
  if (query.get("ruleset")) $("ruleset").dataset.chosen = "1";
  const touch = (event) => {
    const param = event.target.closest?.("#roll-form .param")?.dataset.param;
    if (param) touchedParams.add(param);
  };
  $("roll-form").addEventListener("input", touch);
  $("roll-form").addEventListener("change", touch);
  $("roll-form").addEventListener("input", (event) => {
    if (event.target.id !== "roll-label" && event.target.id !== "manual-dice") scheduleOdds();
  });
  $("roll-form").addEventListener("change", scheduleOdds);
  // A refusal is about the form as it was: a field changed, it goes (the label changes nothing).
  for (const kind of ["input", "change"]) {
    $("roll-form").addEventListener(kind, (event) => {
      if (event.target.id !== "roll-label") clearError("roll-error");
    });
  }
  $("roll-form").addEventListener("submit", roll);
  $("character-select").addEventListener("change", () => chooseCharacter($("character-select").value));
  configureCharacters({
    against: againstText,
    currentChanged: applyCharacter,
    changed: charactersChanged,
    quickRoll: (param, value) => {
      // One tap: the entry picked from the sheet, the rest of the form as it stands.
      if (param) {
        const node = $(fieldId(param));
        if (node) node.value = value;
      }
      $("roll-form").requestSubmit();
    },
  });
  setupGmPanel();
  configureDecisions({ changed: renderLog });
  onAsksChanged(() => { if (state.welcome) renderLog(); renderAskNotice(); }); // (asknotice.js)
  // An answer from a card or the bottom bar: its result where the player is (issue 29).
  onAnswered((reply) => { if (ONE_COLUMN.matches) reveal(reply?.seq); });
  // Back from a dead Wi-Fi: no need to wait for the next scheduled try.
  window.addEventListener("online", () => state.client?.reconnectNow());
  const fromAddress = readTokenFromAddress();
  const saved = savedSession();
  // The session of this tab (a seat link opened, then the page reloaded) if it is this
  // address's table and name.
  const matches = saved && (!query.get("table") || query.get("table") === saved.table)
    && (!query.get("name") || query.get("name") === saved.name);
  state.session = fromAddress ?? (matches ? saved : null);
  applyLanguage();
  showJoin("");
  // A GM's link (as serve prints it: its token after `#`) joins at once too, as « MJ »
  // when this browser has no name yet — in English too: a name is who rolls (the CLI's
  // default is « MJ » whatever its locale), « GM » beside « MJ » would be two members.
  const gmLink = fromAddress?.gmLink === true;
  if (gmLink && !$("join-name").value) $("join-name").value = "MJ";
  const ready = $("join-name").value && $("join-table").value;
  // A seat's link joins at once: the player scanned it to sit down, not to fill a form.
  // So does a reload of a page that joined (its session is kept for the tab).
  if (ready && (query.get("join") === "1" || gmLink || state.session?.seat
    || state.session?.rejoin)) join();
}

start();
// Exposed for the browser tests and curious GMs: the page's state, read-only by convention.
window.sidecarTable = state;
