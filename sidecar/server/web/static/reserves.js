// A reserve kept as its gap to a score (O'Ween's `reserve_pep`: 0 = full, −2 = two points
// lost), shown as what is left of the score, « 2 / 3 », in the character panel and in the
// log alike (the log said « Réserve ECL (0 = pleine) -1 » where the panel said 2 / 3).
import { fieldLabel, sheetOf, state } from "./page.js";

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
