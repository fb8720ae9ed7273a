// A reserve kept as its gap to a score (O'Ween's `reserve_pep`: 0 = full, −2 = two points
// lost), shown as what is left of the score, « 2 / 3 », in the character panel and in the
// log alike (the log said « Réserve ECL (0 = pleine) -1 » where the panel said 2 / 3).
import { el, fieldLabel, sheetOf, state } from "./page.js";

/**
 * The score `field` is the reserve of, when it is one counted down from full (an int whose
 * most is 0, named after an int field of the sheet: `reserve_pep` → `pep`) and that score
 * is known; else `null`.
 */
export function reserveOf(schema, field, values) {
  const spec = schema[field] ?? {};
  if (spec.type !== "int" || spec.max !== 0 || !((spec.min ?? 0) < 0)) return null;
  const score = field.split("_").find((part) => part !== field && schema[part]?.type === "int");
  return score && typeof values?.[score] === "number" ? score : null;
}

/**
 * What full is for a sheet's counter that says it the same for every character: its most,
 * when a turn or a rest refills it to that most (`refill` with `default` = `max`: Bloodlust's
 * « Volonté ce tour » 1 / 1); else `null` — a `max` alone is the field's bound (the ladder's
 * Chance, at most 20, starts at 2), no gauge's full. (A reserve counted from a score is
 * `reserveOf`'s.)
 */
export function counterFull(spec) {
  if (spec.type !== "int" || !spec.refill || typeof spec.max !== "number") return null;
  // (A gap counted down to 0 whose score is unknown says no full either.)
  return spec.default === spec.max && spec.max > 0 && spec.max > (spec.min ?? 0) ? spec.max : null;
}

/** A reserve's label without the « (0 = pleine) » a reader had to decode. */
export function reserveLabel(label) {
  return label.replace(/\s*\([^()]*\)$/, "") || label;
}

/** What is left of a reserve whose gap is `gap`, out of `base`. */
export const reserveLeft = (base, gap) => Math.max(0, base + (typeof gap === "number" ? gap : 0));

/**
 * A sheet event's change of `field` as the log says it when it is a reserve: « Réserve PEP
 * 3 → 2 / 3 » (« Réserve PEP 3 / 3 » for a new character); `null` for any other field.
 * The score comes from the event's own changes, else the character as this page knows it.
 */
export function reserveChange(event, field, [before, after], { created = false } = {}) {
  const values = { ...(state.characters.get(event.character)?.values ?? {}),
    ...Object.fromEntries(Object.entries(event.changed ?? {}).map(([name, [, now]]) => [name, now])) };
  const schema = sheetOf(event.ruleset);
  const score = reserveOf(schema, field, values);
  if (!score) return null;
  const base = values[score];
  const label = reserveLabel(fieldLabel(event.ruleset, field));
  const now = `${reserveLeft(base, after)} / ${base}`;
  return created || typeof before !== "number" ? `${label} ${now}` : `${label} ${reserveLeft(base, before)} → ${now}`;
}

/** The sheet's reserves kept as gaps, each with its score: `[["reserve_pep", "pep"], …]`. */
export function reserveFields(schema) {
  const probe = Object.fromEntries(Object.keys(schema).map((name) => [name, 0]));
  return Object.keys(schema).map((field) => [field, reserveOf(schema, field, probe)]).filter(([, score]) => score);
}

/**
 * The sheet editor (fields prefixed `prefix`) asks a reserve as what is left of it, « 2 / 3 »,
 * not as its gap (« Réserve PEP (0 = pleine) » −1): its field shows `values`' reserve left,
 * from 0 to the score. `reserveGaps` turns what is typed back into the sheet's gaps.
 */
export function askReservesLeft(schema, prefix, values) {
  for (const [field, score] of reserveFields(schema)) {
    const input = document.getElementById(`${prefix}-${field}`);
    const base = values?.[score];
    if (!input || typeof base !== "number") continue;
    Object.assign(input, { min: 0, max: base, value: reserveLeft(base, values[field]) });
    input.dataset.reserveOf = score;
    const box = input.closest(".param");
    const name = box.querySelector(".param-name");
    name.textContent = reserveLabel(name.textContent);
    box.querySelector(".help")?.remove(); // (it explained the gap)
    input.after(el("span", { class: "reserve-of", text: ` / ${base}` }));
  }
}

/** `values` read from the editor, its reserves (typed as what is left) as the sheet's gaps. */
export function reserveGaps(schema, prefix, values) {
  for (const [field, score] of reserveFields(schema)) {
    const input = document.getElementById(`${prefix}-${field}`);
    if (!input?.dataset.reserveOf || typeof values[field] !== "number") continue;
    const base = values[score] ?? 0;
    values[field] = Math.min(0, Math.max(0, values[field]) - base);
  }
  return values;
}

/**
 * A roll's spend of `field` as the log says it: its label and what follows the arrow,
 * « Réserve ENC » and « 2 / 3 » for a reserve (« −1 → -1 » showed its gap), the label and
 * the value for any other field. `after` is the value the outcome's `sheet` gives.
 */
export function spentParts(outcome, field, after) {
  const values = { ...(state.characters.get(outcome.character)?.values ?? {}), ...(outcome.sheet ?? {}) };
  const label = fieldLabel(outcome.ruleset, field);
  const score = reserveOf(sheetOf(outcome.ruleset), field, values);
  if (!score) return [label, after];
  return [reserveLabel(label), `${reserveLeft(values[score], after)} / ${values[score]}`];
}
