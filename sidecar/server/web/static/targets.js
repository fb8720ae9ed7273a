// Targets (contract §8): the characters a roll or an ask is aimed at. The pickers (one line
// each, folded while there is nobody to aim at), the names this page knows, and what a roll
// did to its targets, as a line of the log: « Blessures de Brady : 2 → 5 » where this page
// sees the target's values (its owner, a GM), « +3 » where it does not (the roller).
import { $, el, fieldLabel, local, rulesetByName, state, t } from "./page.js";

/** Characters this page saw named (a roll as one, a roll aimed at one, an ask naming
 * one): a player may aim at them, though their sheets are not its to see. */
const named = new Set();

/** A journaled event: the character names it shows this page (the pickers offer them). */
export function noticeNames(event) {
  const before = named.size;
  if (event.type === "sheet" && (event.removed || event.op === "remove")) {
    named.delete(event.character);
  } else {
    const names = [event.character, ...(Array.isArray(event.targets) ? event.targets : [])];
    if (event.type === "ask") names.push(...(event.to ?? []).map((side) => side?.character));
    for (const name of names) if (typeof name === "string") named.add(name);
  }
  if (named.size !== before) renderTargetPickers();
}

/** Forget the names seen (another table joined). */
export function resetNames() {
  named.clear();
}

/** Who a picker offers: a GM every character (its NPCs, owned by no seat, too), a player
 * its own and those it saw named; never `roller`, the one acting. */
export function targetChoices(roller = "") {
  const names = new Set(state.characters.keys());
  if (state.welcome?.role !== "gm") for (const name of named) names.add(name);
  names.delete(roller);
  return [...names].sort((a, b) => a.localeCompare(b));
}

/** A name's hint in the suggestions: whose it is (a GM's NPC says so). */
function hint(name) {
  const known = state.characters.get(name);
  if (!known || state.welcome?.role !== "gm") return "";
  const game = local(rulesetByName(known.ruleset)?.title)?.split(" — ")[0] || known.ruleset;
  return `${known.owner ? t("target.of", { seat: known.owner }) : t("target.npc")} · ${game}`;
}

/** The suggestions, and each picker folded while it has nobody to offer (nothing typed). */
export function renderTargetPickers() {
  const list = $("target-names");
  if (!list || !state.welcome) return;
  // (One list for both pickers: the GM asks with no character of its own chosen.)
  const names = targetChoices(state.current);
  list.replaceChildren(...names.map((name) => el("option", { value: name, label: hint(name) || null })));
  $("roll-target-line").hidden = !names.length && !$("roll-target").value.trim();
  const asked = $("ask-target");
  if (asked) $("ask-target-line").hidden = !state.characters.size && !asked.value.trim();
}

/** The names typed or picked in the input `id` (commas between several), each once. */
export function readTargets(id) {
  const node = $(id);
  if (!node || node.closest("[hidden]")) return [];
  return [...new Set(node.value.split(/[,;]/).map((name) => name.trim()).filter(Boolean))];
}

/** Empty the picker `id` (after an ask: the next one is not aimed by mistake). */
export function clearTargets(id) {
  if ($(id)) $(id).value = "";
}

/**
 * A roll's targets and what it did to them, as one line of its log entry; `null` for a
 * roll aimed at nobody or that did nothing to them. `target_sheets` (their owner's and the GMs' copies only) gives the
 * values after, so the line says before → after; elsewhere it says what was dealt.
 */
export function renderEffects(outcome) {
  if (!Array.isArray(outcome.targets) || !outcome.targets.length) return null;
  const after = outcome.target_sheets ?? {};
  const ruleset = (name) => state.characters.get(name)?.ruleset ?? outcome.ruleset;
  const items = Object.entries(outcome.effects ?? {}).flatMap(([name, deltas]) =>
    Object.entries(deltas ?? {}).filter(([, delta]) => delta !== 0).map(([field, delta]) => {
      const value = after[name]?.[field];
      const change = typeof value === "number" && typeof delta === "number"
        ? `${value - delta} → ${value}` : `${delta > 0 ? "+" : "−"}${Math.abs(delta)}`;
      return el("span", { class: "effect", "data-character": name, "data-field": field,
        "data-delta": delta, "data-after": value },
      t("log.effect", { field: inSentence(fieldLabel(ruleset(name), field)), name, change }));
    }));
  // Nothing happened to them: nothing to say (« Contre Ervald : sans effet » on every card
  // of an opposition, whose sides aim at each other, said nothing a person needs).
  if (!items.length) return null;
  return el("p", { class: "effects" },
    el("span", { class: "effects-title", text: t("log.targets", { names: outcome.targets.join(", ") }) }), items);
}

/** A field's label as a sentence names it, without the form's hint in parentheses
 * (« Réserve ECL (0 = pleine) » → « Réserve ECL », as in « Réserve ECL d'Ogre »). */
function inSentence(label) {
  return String(label).replace(/\s*\([^()]*\)$/, "") || label;
}

/** What an ask names as its targets, for its card and its log line (`""`: none). */
export function askTargetsText(event) {
  return event.targets?.length ? t("target.against", { names: event.targets.join(", ") }) : "";
}
