// The web table: join, a roll form built from the rulesets' `params` descriptions, exact
// odds before rolling, the table's live log, reconnection with resume. French first.
//
// Everything shown comes from other people (names, labels, notes): it is always set as
// text, never as HTML.
import { SidecarClient } from "./sidecar-client.js";

const STRINGS = {
  fr: {
    "status.idle": "hors ligne", "status.connecting": "connexion…", "status.open": "connecté",
    "status.reconnecting": "reconnexion…", "status.closed": "déconnecté",
    "join.title": "Rejoindre la table", "join.name": "Votre nom", "join.table": "Table",
    "join.role": "Rôle", "join.token": "Jeton", "join.submit": "Rejoindre",
    "role.player": "Joueur", "role.gm": "MJ", "role.observer": "Spectateur",
    "roll.title": "Lancer les dés", "roll.ruleset": "Jeu", "roll.label": "Ce que vous tentez",
    "roll.label.placeholder": "Escalader le mur, convaincre le garde…",
    "roll.mode": "Qui voit le jet", "roll.dice": "Dés physiques (facultatif)",
    "roll.dice.placeholder": "ex. 3 5 6 1", "roll.options": "Options des extensions",
    "roll.submit": "Lancer !",
    "mode.public": "Tout le monde", "mode.gm": "Moi et le MJ", "mode.blind": "À l'aveugle (MJ seul)",
    "mode.self": "Moi seul",
    "odds.title": "Chances", "odds.success": "de réussite", "odds.missing": "Remplissez : ",
    "odds.of": "Distribution : ",
    "log.title": "Journal de la table", "log.empty": "Aucun jet pour l'instant.",
    "log.hidden": "Jet à l'aveugle : seul le MJ voit le résultat.",
    "log.manual": "dés physiques", "log.applied": "Extensions : ",
    "dice.order": "Ordre des dés : ", "ext.list": "Extensions de la table : ",
    "error.options": "Options : JSON invalide (un objet {\"extension\": {…}} est attendu).",
    "error.dice": "Dés physiques : des nombres séparés par des espaces ou des virgules.",
    "error.ended": "La table a fermé la connexion ; rejoignez-la à nouveau.",
    "choice.none": "—", "labels.pick": "…ou un niveau",
    "kind.botch": "Échec critique", "kind.failure": "Échec", "kind.narrow": "De justesse",
    "kind.success": "Réussite", "kind.critical": "Éclatante",
    "mode.badge.gm": "MJ", "mode.badge.blind": "aveugle", "mode.badge.self": "privé",
    "log.secret": "jet secret de quelqu'un", "log.secrets": "jets secrets de quelqu'un",
  },
  en: {
    "status.idle": "offline", "status.connecting": "connecting…", "status.open": "connected",
    "status.reconnecting": "reconnecting…", "status.closed": "disconnected",
    "join.title": "Join the table", "join.name": "Your name", "join.table": "Table",
    "join.role": "Role", "join.token": "Token", "join.submit": "Join",
    "role.player": "Player", "role.gm": "GM", "role.observer": "Observer",
    "roll.title": "Roll the dice", "roll.ruleset": "Game", "roll.label": "What you attempt",
    "roll.label.placeholder": "Climb the wall, talk the guard round…",
    "roll.mode": "Who sees the roll", "roll.dice": "Physical dice (optional)",
    "roll.dice.placeholder": "e.g. 3 5 6 1", "roll.options": "Extension options",
    "roll.submit": "Roll!",
    "mode.public": "Everyone", "mode.gm": "Me and the GM", "mode.blind": "Blind (GM only)",
    "mode.self": "Only me",
    "odds.title": "Odds", "odds.success": "to succeed", "odds.missing": "Fill in: ",
    "odds.of": "Distribution: ",
    "log.title": "Table log", "log.empty": "No roll yet.",
    "log.hidden": "Blind roll: only the GM sees the result.",
    "log.manual": "physical dice", "log.applied": "Extensions: ",
    "dice.order": "Dice order: ", "ext.list": "Extensions at this table: ",
    "error.options": "Options: invalid JSON (expected an object {\"extension\": {…}}).",
    "error.dice": "Physical dice: numbers separated by spaces or commas.",
    "error.ended": "The table closed the connection; join it again.",
    "choice.none": "—", "labels.pick": "…or a level",
    "kind.botch": "Critical failure", "kind.failure": "Failure", "kind.narrow": "Narrow",
    "kind.success": "Success", "kind.critical": "Outstanding",
    "mode.badge.gm": "GM", "mode.badge.blind": "blind", "mode.badge.self": "private",
    "log.secret": "someone's secret roll", "log.secrets": "secret rolls by someone",
  },
};

const KINDS = ["botch", "failure", "narrow", "success", "critical"];
const LOG_LIMIT = 200;
const HISTORY_PAGE = 50;
/** A longer run of seqs the page does not see is one line with its count, not a line each. */
const SECRET_RUN = 10;

const query = new URLSearchParams(location.search);
const state = {
  lang: query.get("lang") || localStorage.getItem("sidecar.lang") || "fr",
  client: null,
  welcome: null,
  seen: new Set(),
  outcomes: [],
  // The seqs from `floor` + 1 to `horizon` all exist on the table (welcome.seq says how far
  // it went at the join); those the page never gets are rolls hidden from it. Until the
  // history before the join is in, `floor` is null and no gap is shown (it is not known yet).
  floor: null,
  horizon: 0,
  logTable: null,
  oddsTicket: 0,
  oddsTimer: null,
};

const $ = (id) => document.getElementById(id);
const t = (key) => STRINGS[state.lang]?.[key] ?? STRINGS.fr[key] ?? key;
/** A `{fr, en}` map or a plain string, in the page's language. */
const local = (value) => (value && typeof value === "object" ? value[state.lang] ?? value.fr ?? value.en ?? "" : value ?? "");

function el(tag, attrs = {}, ...children) {
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

// -- language --------------------------------------------------------------------------------

function applyLanguage() {
  document.documentElement.lang = state.lang;
  for (const node of document.querySelectorAll("[data-i18n]")) node.textContent = t(node.dataset.i18n);
  for (const node of document.querySelectorAll("[data-i18n-placeholder]")) {
    node.placeholder = t(node.dataset.i18nPlaceholder);
  }
  $("lang").textContent = state.lang === "fr" ? "EN" : "FR";
  setStatus(state.client?.state ?? "idle");
  if (state.welcome) {
    const current = $("ruleset").value;
    fillRulesets(current);
    renderLog();
  }
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

function showJoin(message) {
  $("join").hidden = false;
  $("table").hidden = true;
  $("join-name").value ||= query.get("name") || localStorage.getItem("sidecar.name") || "";
  $("join-table").value ||= query.get("table") || "demo";
  const role = query.get("role");
  if (role && !$("join-role").dataset.touched) $("join-role").value = role;
  $("join-token").value ||= query.get("token") || "";
  $("join-token-label").hidden = $("join-role").value === "observer";
  const error = $("join-error");
  error.hidden = !message;
  error.textContent = message || "";
}

async function join(event) {
  event?.preventDefault();
  const name = $("join-name").value.trim();
  const table = $("join-table").value.trim();
  if (!name || !table) {
    showJoin(state.lang === "fr" ? "Indiquez un nom et une table." : "Give a name and a table.");
    return;
  }
  localStorage.setItem("sidecar.name", name);
  if (state.logTable !== table) {
    // Another table: its seqs have nothing to do with the log shown so far.
    Object.assign(state, { logTable: table, seen: new Set(), outcomes: [], horizon: 0 });
  }
  state.floor = null; // until this join's history is in
  const role = $("join-role").value;
  const client = new SidecarClient(wsUrl(), {
    table, name, role, token: role === "observer" ? undefined : $("join-token").value.trim(),
    locale: state.lang,
  });
  client.on("state", (status) => {
    setStatus(status);
    if (status === "closed" && state.client === client) {
      // The server refused us back (new tokens after a restart…): back to the join form.
      state.client = null;
      state.welcome = null;
      showJoin(`${t("error.ended")} ${client.closedBy?.serverMessage ?? ""}`.trim());
    }
  });
  client.on("outcome", addOutcome);
  client.on("presence", renderPresence);
  client.on("welcome", (welcome) => {
    state.welcome = welcome;
    scheduleOdds();
  });
  $("join-form").querySelector("button").disabled = true;
  try {
    const welcome = await client.connect();
    state.client = client;
    state.welcome = welcome;
    enterTable(welcome);
    loadRecentHistory(welcome.seq);
  } catch (error) {
    client.close();
    showJoin(error.serverMessage || error.message);
  } finally {
    $("join-form").querySelector("button").disabled = false;
  }
}

async function loadRecentHistory(upTo) {
  // The live stream starts at the join; show the last few rolls from before it too.
  const from = Math.max(0, upTo - HISTORY_PAGE);
  let after = from;
  try {
    for (;;) {
      const page = await state.client.history({ after, limit: HISTORY_PAGE });
      for (const outcome of page.events) addOutcome(outcome);
      if (!page.more || page.next > upTo) break;
      after = page.next;
    }
    state.floor = from;
    state.horizon = Math.max(state.horizon, upTo);
  } catch {
    // History is a comfort: the live log works without it (gaps count from what it saw).
    state.floor = state.outcomes[0]?.seq ?? upTo;
  }
  renderLog();
}

function enterTable(welcome) {
  $("join").hidden = true;
  $("table").hidden = false;
  $("table-name").textContent = `· ${welcome.table}`;
  document.title = `${welcome.table} — vtt-sidecar`;
  const canRoll = welcome.role !== "observer";
  $("roller").hidden = !canRoll;
  $("manual").hidden = !welcome.manual_dice;
  const extensions = welcome.extensions ?? [];
  $("ext-options").hidden = extensions.length === 0;
  $("extensions-list").textContent = extensions.length
    ? t("ext.list") + extensions.map((ext) => `${ext.name} — ${ext.description}`).join(" · ") : "";
  fillRulesets(query.get("ruleset") || localStorage.getItem("sidecar.ruleset"));
}

// -- the roll form, built from `params` ------------------------------------------------------

function rulesetByName(name) {
  return state.welcome.rulesets.find((ruleset) => ruleset.name === name);
}

function fillRulesets(preferred) {
  const select = $("ruleset");
  select.replaceChildren(...state.welcome.rulesets.map((ruleset) =>
    el("option", { value: ruleset.name, text: local(ruleset.title) || ruleset.name })));
  if (preferred && rulesetByName(preferred)) select.value = preferred;
  buildParams();
}

function fieldId(name) {
  return `param-${name}`;
}

function buildParams() {
  const ruleset = rulesetByName($("ruleset").value);
  if (!ruleset) return;
  localStorage.setItem("sidecar.ruleset", ruleset.name);
  const container = $("params");
  container.replaceChildren();
  for (const [name, spec] of Object.entries(ruleset.params ?? {})) {
    container.append(buildField(name, spec));
  }
  $("dice-order").textContent = ruleset.dice_order ? t("dice.order") + local(ruleset.dice_order) : "";
  scheduleOdds();
}

function buildField(name, spec) {
  const id = fieldId(name);
  const help = local(spec.description);
  const shown = local(spec.label) || name.replaceAll("_", " ");
  const title = el("span", { class: "param-name", title: name }, shown,
    spec.required ? el("span", { class: "required", title: "obligatoire / required", text: " *" }) : null);
  const wrap = el("div", { class: `param param-${spec.type}${spec.labels ? " has-labels" : ""}`,
    "data-param": name });
  if (spec.type === "bool") {
    wrap.append(el("label", { class: "check" },
      el("input", { type: "checkbox", id, checked: spec.default === true }),
      el("span", {}, title, el("small", { class: "help", text: help }))));
    return wrap;
  }
  let input;
  if (spec.type === "int") {
    input = el("input", { type: "number", id, inputmode: "numeric", min: spec.min, max: spec.max,
      step: 1, value: spec.default ?? "", required: spec.required });
  } else if (spec.type === "string" && spec.choices) {
    input = el("select", { id },
      spec.required ? null : el("option", { value: "", text: t("choice.none") }),
      spec.choices.map((choice) => el("option", { value: choice, text: choice,
        selected: spec.default === choice })));
  } else if (spec.type === "list" && spec.choices) {
    const defaults = new Set(spec.default ?? []);
    input = el("div", { class: "choices", id },
      spec.choices.map((choice) => el("label", { class: "chip" },
        el("input", { type: "checkbox", value: choice, checked: defaults.has(choice) }),
        el("span", { text: choice.replaceAll("_", " ") }))));
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
        el("option", { value: String(value), text: `${label} (${value})` })));
    picker.addEventListener("change", () => {
      if (picker.value !== "") input.value = picker.value;
      picker.value = "";
      scheduleOdds();
    });
    row.append(picker);
  }
  wrap.append(el("label", { for: id }, title), row, help ? el("small", { class: "help", text: help }) : null);
  return wrap;
}

/**
 * The params as the form holds them: `{params, missing}`. Empty optional fields are left
 * out so the ruleset's defaults apply.
 */
function readForm() {
  const ruleset = rulesetByName($("ruleset").value);
  const params = {};
  const missing = [];
  for (const [name, spec] of Object.entries(ruleset?.params ?? {})) {
    const node = $(fieldId(name));
    if (!node) continue;
    if (spec.type === "bool") {
      params[name] = node.checked;
    } else if (spec.type === "list") {
      const values = spec.choices
        ? [...node.querySelectorAll("input:checked")].map((box) => box.value)
        : node.value.split(",").map((item) => item.trim()).filter(Boolean);
      if (values.length || spec.required) params[name] = values;
    } else {
      const raw = node.value.trim();
      if (raw === "") {
        if (spec.required) missing.push(name);
        continue;
      }
      params[name] = spec.type === "int" && /^-?\d+$/.test(raw) ? Number(raw) : raw;
    }
  }
  return { ruleset: ruleset?.name, params, missing };
}

function restoreForm({ ruleset, params }) {
  if (ruleset && rulesetByName(ruleset)) {
    $("ruleset").value = ruleset;
    buildParams();
  }
  for (const [name, value] of Object.entries(params)) {
    const node = $(fieldId(name));
    if (!node) continue;
    if (node.type === "checkbox") node.checked = value;
    else if (node.classList.contains("choices")) {
      for (const box of node.querySelectorAll("input")) box.checked = value.includes(box.value);
    } else node.value = Array.isArray(value) ? value.join(", ") : value;
  }
  scheduleOdds();
}

function readOptions() {
  const raw = $("options").value.trim();
  if (!raw) return {};
  const options = JSON.parse(raw);
  if (!options || typeof options !== "object" || Array.isArray(options)) throw new SyntaxError();
  return options;
}

function readDice() {
  const raw = $("manual-dice").value.trim();
  if (!raw || $("manual").hidden) return undefined;
  const faces = raw.split(/[\s,;]+/).filter(Boolean);
  if (!faces.every((face) => /^\d+$/.test(face))) throw new SyntaxError();
  return faces.map(Number);
}

function markInvalid(param) {
  for (const node of document.querySelectorAll(".param.invalid")) node.classList.remove("invalid");
  if (param) document.querySelector(`.param[data-param="${CSS.escape(param)}"]`)?.classList.add("invalid");
}

// -- odds ------------------------------------------------------------------------------------

function scheduleOdds() {
  clearTimeout(state.oddsTimer);
  state.oddsTimer = setTimeout(refreshOdds, 150);
}

async function refreshOdds() {
  if (!state.client || state.client.state !== "open") return;
  const ticket = ++state.oddsTicket;
  const { ruleset, params, missing } = readForm();
  if (missing.length) {
    showOdds(null, t("odds.missing") + missing.join(", "));
    return;
  }
  let options;
  try {
    options = readOptions();
  } catch {
    showOdds(null, t("error.options"));
    return;
  }
  try {
    const odds = await state.client.odds(ruleset, params, options);
    if (ticket !== state.oddsTicket) return; // the form changed meanwhile
    markInvalid(null);
    showOdds(odds, "");
  } catch (error) {
    if (ticket !== state.oddsTicket) return;
    markInvalid(error.details?.param);
    showOdds(null, error.serverMessage || error.message);
  }
}

function percent(p) {
  if (p === 0) return "0 %";
  if (p === 1) return "100 %";
  if (p < 0.001) return "< 0,1 %".replace(",", state.lang === "fr" ? "," : ".");
  const text = (p * 100).toFixed(p < 0.1 ? 1 : 0);
  return `${state.lang === "fr" ? text.replace(".", ",") : text} %`;
}

function showOdds(odds, note) {
  $("odds").classList.toggle("stale", !odds);
  $("odds-note").textContent = note;
  if (!odds) return;
  $("odds-success").textContent = `${percent(odds.p_success)} ${t("odds.success")}`;
  // One stacked bar (every kind side by side: the whole picture at a glance), then the
  // figures of each kind.
  $("odds-stack").replaceChildren(...KINDS.filter((kind) => (odds.kinds?.[kind] ?? 0) > 0).map((kind) => {
    const segment = el("span", { class: `segment kind-${kind}`, title: `${t(`kind.${kind}`)} ${percent(odds.kinds[kind])}` });
    segment.style.setProperty("flex-grow", String(odds.kinds[kind]));
    return segment;
  }));
  $("odds-bars").replaceChildren(...KINDS.map((kind) => {
    const p = odds.kinds?.[kind] ?? 0;
    return el("div", { class: `bar${p === 0 ? " zero" : ""}`, "data-kind": kind, "data-p": p },
      el("span", { class: `swatch kind-${kind}` }),
      el("span", { class: "bar-label", text: t(`kind.${kind}`) }),
      el("span", { class: "bar-value", text: percent(p) }));
  }));
  const dist = odds.distribution;
  const box = $("odds-dist");
  box.replaceChildren();
  if (dist?.values?.length > 1 && dist.values.length <= 80) {
    const peak = Math.max(...dist.values.map(([, p]) => p));
    box.append(el("span", { class: "dist-of", text: t("odds.of") + wordIn(NUMBER_WORDS, dist.of) }));
    const columns = el("div", { class: "columns" });
    for (const [value, p] of dist.values) {
      const column = el("span", { class: "column", title: `${value} : ${percent(p)}` });
      column.style.setProperty("height", `${Math.max(2, (p / peak) * 100)}%`);
      columns.append(column);
    }
    const [first] = dist.values[0];
    const [last] = dist.values[dist.values.length - 1];
    box.append(columns, el("div", { class: "dist-axis" }, el("span", { text: first }), el("span", { text: last })));
  }
}

// -- rolling ---------------------------------------------------------------------------------

async function roll(event) {
  event.preventDefault();
  const error = $("roll-error");
  error.hidden = true;
  const { ruleset, params, missing } = readForm();
  if (missing.length) {
    error.textContent = t("odds.missing") + missing.join(", ");
    error.hidden = false;
    markInvalid(missing[0]);
    return;
  }
  let options;
  let dice;
  try {
    options = readOptions();
  } catch {
    error.textContent = t("error.options");
    error.hidden = false;
    return;
  }
  try {
    dice = readDice();
  } catch {
    error.textContent = t("error.dice");
    error.hidden = false;
    return;
  }
  const mode = document.querySelector('input[name="mode"]:checked')?.value ?? "public";
  const button = $("roll-button");
  button.disabled = true;
  try {
    await state.client.roll({ ruleset, params, options, dice, mode, label: $("roll-label").value.trim() });
    $("manual-dice").value = "";
    markInvalid(null);
  } catch (failure) {
    markInvalid(failure.details?.param);
    error.textContent = failure.serverMessage || failure.message;
    error.hidden = false;
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
  if (typeof outcome.seq === "number") state.horizon = Math.max(state.horizon, outcome.seq);
  renderLog();
}

/**
 * The log's lines, oldest first: each outcome, and for the seqs in between that never
 * reached this page (another player's `gm`/`blind`/`self` roll) a discreet line saying a
 * secret roll happened, as Foundry does, rather than an unexplained jump in the numbers.
 */
function logLines() {
  if (state.floor === null) return state.outcomes.slice();
  const lines = [];
  let next = state.floor + 1;
  const secrets = (upTo) => {
    if (upTo < next) return;
    const count = upTo - next + 1;
    if (count > SECRET_RUN) lines.push({ secret: next, count });
    else for (let seq = next; seq <= upTo; seq += 1) lines.push({ secret: seq, count: 1 });
  };
  for (const outcome of state.outcomes) {
    if (typeof outcome.seq === "number") {
      secrets(outcome.seq - 1);
      next = Math.max(next, outcome.seq + 1);
    }
    lines.push(outcome);
  }
  secrets(state.horizon);
  return lines;
}

function renderLog() {
  const items = logLines().reverse().map((line) => (line.secret ? renderSecret(line) : renderOutcome(line)));
  $("log").replaceChildren(...items);
  $("log-empty").hidden = items.length > 0;
}

function renderSecret({ secret, count }) {
  const text = count > 1 ? `${count} ${t("log.secrets")}` : t("log.secret");
  return el("li", { class: "entry entry-secret", "data-seq": secret, "data-kind": "secret",
    "data-count": count }, el("span", { class: "secret-note", text }),
    el("span", { class: "seq", text: count > 1 ? `#${secret}–${secret + count - 1}` : `#${secret}` }));
}

/** Names of the dice roles and distributions the built-in rulesets use; others show as is
 * (an empty name hides a role not worth a label). */
const ROLE_WORDS = {
  fr: { twin: "jumeau", twin_reroll: "relance", style: "style", complication: "compl.", opponent: "adv.",
        score: "", normal: "" },
  en: { twin: "twin", twin_reroll: "reroll", style: "style", complication: "compl.", opponent: "opp.",
        score: "", normal: "" },
};
const NUMBER_WORDS = {
  fr: { successes: "réussites", net: "réussites nettes", score: "score" },
  en: { successes: "successes", net: "net successes", score: "score" },
};
const wordIn = (words, name) => words[state.lang]?.[name] ?? String(name).replaceAll("_", " ");

const DIE_FLAGS = {
  success: { fr: "réussite", en: "success" },
  cancels: { fr: "annule une réussite", en: "cancels a success" },
  cancelled: { fr: "annulée", en: "cancelled" },
  kept: { fr: "gardé", en: "kept" },
  replaced: { fr: "relancé", en: "rerolled" },
};

function renderDie(die) {
  const classes = ["die"];
  const notes = [];
  for (const [flag, label] of Object.entries(DIE_FLAGS)) {
    if (die[flag] === true) {
      classes.push(`die-${flag}`);
      notes.push(local(label));
    }
  }
  if (die.face === 1) classes.push("die-one");
  if (die.face === die.sides) classes.push("die-max");
  if (die.role) notes.push(die.role);
  if (typeof die.successes === "number" && die.successes > 0) classes.push("die-success");
  return el("span", { class: classes.join(" "), title: `d${die.sides}${notes.length ? " — " + notes.join(", ") : ""}` },
    el("span", { class: "face", text: die.face }),
    die.role && wordIn(ROLE_WORDS, die.role)
      ? el("small", { class: "die-role", text: wordIn(ROLE_WORDS, die.role) }) : null,
    typeof die.successes === "number" && die.successes > 1 ? el("small", { class: "die-role", text: `×${die.successes}` }) : null);
}

function renderOutcome(outcome) {
  const result = outcome.result ?? {};
  const hidden = result.hidden === true;
  const kind = hidden ? "hidden" : result.kind ?? "failure";
  const ruleset = state.welcome ? rulesetByName(outcome.ruleset) : null;
  const mine = state.welcome && outcome.by?.name === state.client?.name;
  const head = el("div", { class: "entry-head" },
    el("strong", { class: "who", text: outcome.by?.name ?? "?" }),
    outcome.by?.role === "gm" ? el("span", { class: "badge role-gm", text: t("role.gm") }) : null,
    el("span", { class: "game", text: local(ruleset?.title)?.split(" — ")[0] || outcome.ruleset }),
    outcome.label ? el("span", { class: "what", text: `« ${outcome.label} »` }) : null,
    outcome.mode && outcome.mode !== "public"
      ? el("span", { class: `badge mode-${outcome.mode}`, text: t(`mode.badge.${outcome.mode}`) }) : null,
    outcome.manual ? el("span", { class: "badge", text: t("log.manual") }) : null,
    el("span", { class: "seq", text: `#${outcome.seq ?? ""}` }));
  const body = [];
  if (hidden) {
    body.push(el("p", { class: "hidden-note", text: t("log.hidden") }));
  } else {
    body.push(el("div", { class: "dice" }, (outcome.dice ?? []).map(renderDie)));
    body.push(el("div", { class: "result" },
      el("span", { class: `kind kind-${kind}`, text: local(result.label) || kind }),
      el("span", { class: "text", text: outcome.text ?? "" })));
    for (const note of outcome.notes ?? []) body.push(el("p", { class: "note", text: note }));
    if (outcome.applied?.length) {
      body.push(el("p", { class: "applied", text: t("log.applied") + outcome.applied.join(", ") }));
    }
  }
  return el("li", { class: `entry entry-${kind}${mine ? " mine" : ""}`, "data-seq": outcome.seq,
    "data-kind": kind, "data-mode": outcome.mode }, head, ...body);
}

function renderPresence(presence) {
  $("presence").replaceChildren(...(presence.members ?? []).map((member) =>
    el("li", { class: `member role-${member.role}`, title: t(`role.${member.role}`) },
      member.name)));
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
  $("roll-form").addEventListener("input", (event) => {
    if (event.target.id !== "roll-label" && event.target.id !== "manual-dice") scheduleOdds();
  });
  $("roll-form").addEventListener("change", scheduleOdds);
  $("roll-form").addEventListener("submit", roll);
  // Back from a dead Wi-Fi: no need to wait for the next scheduled try.
  window.addEventListener("online", () => state.client?.reconnectNow());
  applyLanguage();
  showJoin("");
  if (query.get("join") === "1" && $("join-name").value && $("join-table").value) join();
}

start();
// Exposed for the browser tests and curious GMs: the page's state, read-only by convention.
window.sidecarTable = state;
