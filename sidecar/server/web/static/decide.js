// Open rolls (PROTOCOL.md §7.6): an outcome's choices as buttons on its card, for its roller
// and the GMs (a choice marked `gm`: the GMs only), with the default marked and the time
// left; the decision is then drawn on the open card (one roll, one card), which says what
// was decided and by whom, or that time ran out.
import { renderOutcome } from "./entries.js";
import { verifyBadge } from "./verify.js";
import { describeError, el, local, state, t } from "./page.js";

/** What this page is doing with an open roll: roll id → {picking, faces, error, busy}. */
const ui = new Map();
let rerender = () => {};

/** `changed`: called when a card must be drawn again (an error, the faces asked for). */
export function configureDecisions({ changed }) {
  rerender = changed;
}

/** The decisions the log holds, by the seq of the open outcome each one decides. */
export function decisionsBySeq(outcomes) {
  const decisions = new Map();
  for (const outcome of outcomes) {
    if (typeof outcome.reacts_to === "number") decisions.set(outcome.reacts_to, outcome);
  }
  return decisions;
}

/**
 * An open roll and its decisions are ONE roll in the log: the decisions (new outcomes,
 * `reacts_to` the open one, §7.6) are drawn on the open card, at its place, not as cards
 * of their own that repeat its dice and its « Décidé » line. Returns `chains` (open seq →
 * its decisions in order: a decision open again, the ladder's, is decided in turn) and
 * `merged` (the seqs drawn on another card). A decision whose open roll left the log
 * (older than its last lines) stays a card of its own.
 */
export function decisionChains(outcomes) {
  const seqs = new Set(outcomes.map((outcome) => outcome.seq));
  const rootOf = new Map();
  const chains = new Map();
  for (const outcome of [...outcomes].sort((a, b) => (a.seq ?? 0) - (b.seq ?? 0))) {
    if (typeof outcome.reacts_to !== "number" || !seqs.has(outcome.reacts_to)) continue;
    const root = rootOf.get(outcome.reacts_to) ?? outcome.reacts_to;
    rootOf.set(outcome.seq, root);
    if (!chains.has(root)) chains.set(root, []);
    chains.get(root).push(outcome);
  }
  return { chains, merged: new Set(rootOf.keys()) };
}

/**
 * What the open card shows once decided: the last decision's dice and result (a choice may
 * draw new faces), the open roll's dice when a decision drew none (time ran out without a
 * default: « no dice, the same result »).
 */
export function decidedCard(opened, chain) {
  const last = chain.at(-1);
  const withDice = [...chain].reverse().find((outcome) => outcome.dice?.length) ?? opened;
  return { ...last, dice: withDice.dice, manual: withDice.manual };
}

/** The card's verification badge: each of its outcomes is checked apart (verify.js), the
 * card shows the worst — a bad decision is not hidden behind a good open roll. */
function worstBadge(outcomes) {
  const badges = outcomes.map(verifyBadge).filter(Boolean);
  const rank = { no: 0, unknown: 1, yes: 2 };
  return badges.sort((a, b) => rank[a.dataset.verified] - rank[b.dataset.verified])[0] ?? null;
}

/** The open card once decided (`decisionChains`): one card, its decisions' lines in order,
 * its number « #33 → #34 », `data-seqs` holding every seq it stands for. */
export function renderDecided(opened, chain, decisions, bySeq) {
  const node = renderOutcome(decidedCard(opened, chain),
    chain.flatMap((decision) => decisionParts(decision, decisions, bySeq)));
  node.dataset.seq = opened.seq;
  node.dataset.seqs = [opened, ...chain].map((outcome) => outcome.seq).join(" ");
  const number = node.querySelector(".entry-head .seq");
  if (number) number.textContent = `#${opened.seq} → #${chain.at(-1).seq}`;
  node.querySelector(".entry-head .verified")?.remove();
  const badge = worstBadge([opened, ...chain]);
  if (badge && number) number.before(badge);
  return node;
}

/** A DOM id from a roll id and a choice (roll ids are the server's; kept readable). */
const domId = (...parts) => parts.map((part) => String(part).replace(/[^A-Za-z0-9_-]/g, "_")).join("-");

function choiceLabel(choices, name) {
  const choice = (choices ?? []).find((item) => item.name === name);
  return local(choice?.label) || String(name ?? "").replaceAll("_", " ");
}

/** "1 min 05 s" style: what is left before the default is taken. */
function left(expires) {
  const seconds = Math.max(0, Math.round(expires - Date.now() / 1000));
  const minutes = Math.floor(seconds / 60);
  const rest = String(seconds % 60).padStart(2, "0");
  return t("open.left", { time: minutes ? `${minutes} min ${rest} s` : `${seconds % 60} s` });
}

/** The clocks of the open cards, once a second (they are text: no layout to redo). */
function tick() {
  for (const node of document.querySelectorAll("#log .expires[data-expires]")) {
    node.textContent = left(Number(node.dataset.expires));
  }
}
let clock = null;

/** The line saying how an open roll was decided: choice, by whom, or time running out. */
function decidedLine(decision, opened) {
  const choices = opened?.choices ?? decision.choices;
  // (A blind roll's roller gets no decision at all: it would tell that the roll was open.)
  let text;
  if (decision.reacted_by === null || decision.reacted_by === undefined) {
    text = decision.choice ? t("open.timeout", { choice: choiceLabel(choices, decision.choice) })
      : t("open.timeout.none");
  } else {
    text = t("open.decided", { choice: choiceLabel(choices, decision.choice), name: decision.reacted_by.name });
  }
  return el("p", { class: "decided", "data-choice": decision.choice ?? "",
    "data-by": decision.reacted_by?.name ?? "" }, text);
}

/**
 * What a card shows about deciding: on a decision, what was decided; on an open outcome,
 * the buttons (when this page may decide), or what is awaited; nothing otherwise.
 * `decisions`: from `decisionsBySeq`; `bySeq`: outcome seq → outcome.
 */
export function decisionParts(outcome, decisions, bySeq) {
  const parts = [];
  if (typeof outcome.reacts_to === "number") parts.push(decidedLine(outcome, bySeq.get(outcome.reacts_to)));
  if (outcome.open !== true) return parts;
  const decision = decisions.get(outcome.seq);
  if (decision) {
    if (typeof outcome.reacts_to !== "number") parts.push(decidedLine(decision, outcome));
    return parts;
  }
  if (!clock) clock = setInterval(tick, 1000);
  const expires = typeof outcome.expires === "number"
    ? el("span", { class: "expires", "data-expires": outcome.expires, text: left(outcome.expires) }) : null;
  // (extension) A choice marked `gm` is the GM's alone: a player's page does not show it.
  const gm = state.welcome?.role === "gm";
  // (extension) A choice's `spend`: what it costs the roller's character. One the sheet
  // cannot pay now (another roll spent it meanwhile) is not offered.
  const sheet = outcome.character ? state.characters?.get(outcome.character)?.values : null;
  const payable = (choice) => !sheet || Object.entries(choice.spend ?? {}).every(
    ([field, amount]) => typeof sheet[field] !== "number" || sheet[field] >= amount);
  const offered = (outcome.choices ?? []).filter((choice) => (choice.gm !== true || gm) && payable(choice));
  if (!state.client?.mayDecide(outcome) || offered.length === 0) {
    parts.push(el("p", { class: "awaiting" }, t("open.awaiting"), expires ? " · " : null, expires));
    return parts;
  }
  const mine = ui.get(outcome.roll) ?? {};
  const group = el("div", { class: "choices-open", role: "group", "aria-label": t("open.title") },
    el("span", { class: "choices-title", text: t("open.title") }),
    offered.map((choice) => {
      const isDefault = choice.name === outcome.default;
      return el("button", { type: "button", class: `choice${isDefault ? " default" : ""}`,
        id: domId("choice", outcome.roll, choice.name), "data-choice": choice.name,
        disabled: mine.busy, onclick: () => decide(outcome, choice) },
      local(choice.label) || choice.name,
      isDefault ? el("small", { class: "default-mark", text: ` ${t("open.default")}` }) : null);
    }),
    expires);
  parts.push(group);
  if (mine.picking) parts.push(facesForm(outcome, outcome.choices.find((c) => c.name === mine.picking), mine));
  if (mine.error) parts.push(el("p", { class: "error decide-error", role: "alert", text: mine.error }));
  return parts;
}

/** Asking the faces of a choice that draws dice (physical dice on): empty, the server rolls. */
function facesForm(outcome, choice, mine) {
  const id = domId("faces", outcome.roll);
  const input = el("input", { id, class: "faces", inputmode: "numeric", autocomplete: "off",
    value: mine.faces ?? "", placeholder: t("roll.dice.placeholder") });
  input.addEventListener("input", () => { mine.faces = input.value; });
  const form = el("form", { class: "faces-form inline-form" },
    el("label", { for: id }, t("open.faces", { choice: local(choice?.label) || choice?.name, count: choice?.dice })),
    input,
    el("button", { type: "submit", class: "primary", id: domId("faces-ok", outcome.roll), text: t("open.send") }),
    el("button", { type: "button", id: domId("faces-cancel", outcome.roll), text: t("open.cancel"),
      onclick: () => { ui.delete(outcome.roll); rerender(); } }));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const raw = input.value.trim();
    const faces = raw ? raw.split(/[\s,;]+/).map(Number) : null;
    if (faces && faces.some((face) => !Number.isInteger(face))) {
      ui.set(outcome.roll, { ...mine, error: t("error.dice") });
      rerender();
      return;
    }
    send(outcome, choice, faces);
  });
  return form;
}

function decide(outcome, choice) {
  const manual = state.welcome?.manual_dice === true && choice.dice > 0;
  if (manual) {
    // Physical dice: the faces of this choice first (left empty, the server rolls them).
    ui.set(outcome.roll, { picking: choice.name });
    rerender();
    document.getElementById(domId("faces", outcome.roll))?.focus();
    return;
  }
  send(outcome, choice, null);
}

async function send(outcome, choice, faces) {
  ui.set(outcome.roll, { ...ui.get(outcome.roll), busy: true, error: null });
  rerender();
  try {
    await state.client.react(outcome, choice.name, faces ?? undefined);
    ui.delete(outcome.roll);
  } catch (failure) {
    // Refused (not enough to spend, wrong faces, already decided): said plainly, the roll
    // stays as it was.
    ui.set(outcome.roll, { ...ui.get(outcome.roll), busy: false, error: describeError(failure, outcome.ruleset) });
  }
  rerender();
}
