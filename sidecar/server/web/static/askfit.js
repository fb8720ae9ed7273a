// The GM's ask form on a phone (issue 29, item 4): what an ask of characters needs first (the
// dice their sheets give are neither shown nor sent), and each opposed side one folded line
// that opens on what it may set apart and says how many of those it sets.
import { readFields } from "./fields.js";
import { el, state, t } from "./page.js";
import { sheetPlan } from "./characters.js";

/**
 * The params the sheets give when every one asked is a character of `ruleset` (O'Ween's
 * `dice`…): not asked in the form, never sent (a param sent would win over the sheet). Any
 * seat asked, or a character of another game, and nothing is left out.
 */
export function suppliedBySheets(ruleset, names) {
  const characters = names.map((name) => state.characters?.get(name));
  if (!characters.length || characters.some((item) => !item || item.ruleset !== ruleset)) return new Set();
  const [first, ...others] = characters.map((item) => sheetPlan(ruleset, item).supplied);
  return new Set([...first].filter((name) => others.every((set) => set.has(name))));
}

/** The common fields (in `box`) the sheets give: hidden, as the roll form hides them. */
export function hideSupplied(box, supplied) {
  for (const field of box.querySelectorAll(".param[data-param]")) {
    if (field.closest(".more-params, .situation-fields")) continue; // (their own box says)
    field.hidden = supplied.has(field.dataset.param);
  }
}

/**
 * One side of an opposition, folded: « Camp de Tam — comme au-dessus » until it sets a
 * param of `params` apart, then « Camp de Tam — 1 différence ». Opens on its fields; with
 * none (`params` empty), a plain line.
 */
export function sideBox(name, prefix, params, fields) {
  if (!Object.keys(params).length) {
    // Nothing a side may set apart (a game of switches only): a plain line, not a fold
    // that would open on nothing.
    const line = el("p", { class: "ask-side ask-side-plain", "data-side": name, "data-prefix": prefix,
      text: t("ask.side.same", { side: t("ask.side", { name }) }) });
    line.recount = () => {};
    return line;
  }
  const summary = el("summary", { class: "ask-side-summary" });
  const box = el("details", { class: "ask-side", "data-side": name, "data-prefix": prefix }, summary,
    el("div", { class: "params" }, el("small", { class: "help side-help", text: t("ask.side.help") }), fields));
  const count = () => {
    const set = Object.keys(readFields(params, prefix, { relaxed: true }).values).length;
    summary.textContent = t(set > 1 ? "ask.side.sets" : set ? "ask.side.set" : "ask.side.same", { side: t("ask.side", { name }), count: set });
  };
  box.addEventListener("input", count);
  box.addEventListener("change", count);
  box.recount = count;
  count();
  return box;
}
