// A roll's verdict, as its card shows it. A total without a target (the `dice` roller's
// `2d6`, `3d6>=4` with « Cible » empty) is neither a success nor a failure, whatever kind
// its ruleset files it under (contract §7: `kind` is always one of five): its card is
// neutral, as the CLI prints it without a mark and the odds show its distribution alone.

/**
 * Whether `result` judges the roll: not when the ruleset says `judged: false`, nor for a
 * `target` left empty (`null`: the `dice` roller's outcomes journaled before it said so).
 */
export function judged(result) {
  return result.judged !== false && !("target" in result && result.target === null);
}

/** The kind a card is drawn in: the ruleset's, `hidden`, or `total` (no verdict). */
export function shownKind(result) {
  if (result.hidden === true) return "hidden";
  if (!judged(result)) return "total";
  return result.kind ?? "failure";
}
