// What the roll form says beside its fields, kept short for a phone (issue 29, item 4): the
// table's extensions each said once, and what the odds wait for before anything is typed.
import { $, local, paramLabels, t } from "./page.js";

/**
 * The line « Extensions de la table »: only the extensions that describe no options. One
 * that does has its own fieldset in the form, shown for the games it applies to only
 * (`welcome.options[].rulesets`), with its title and what it does: it is not said twice,
 * nor named on a roll of a game it does not apply to. Those others take free-form JSON.
 */
export function describeExtensions(welcome) {
  const described = new Set((welcome.options ?? []).map((option) => option.name));
  const listed = (welcome.extensions ?? []).filter((ext) => !described.has(ext.name));
  // (What it does, else its key: an extension that says nothing has nothing else.)
  $("extensions-list").textContent = listed.length
    ? t("ext.list") + listed.map((ext) => local(ext.description) || ext.name).join(" · ") : "";
  $("options-free").hidden = listed.length === 0;
}

/** What the odds say while the roll lacks `names` (their labels): « Pour voir les
 * chances, remplissez : Code de compétence » — a prompt, not an error. */
export const oddsPrompt = (ruleset, names) => t("odds.fill") + paramLabels(ruleset, names);

/**
 * Whether an odds refusal only says that `param`, which nobody typed in yet, is empty
 * (« est obligatoire (ou lancez en tant que personnage…) »): the form is just not filled
 * in, and the odds prompt for it instead of showing the server's error.
 */
export function waitsFor(error, touched, fieldOf) {
  const param = error?.details?.param;
  if (error?.code !== "invalid_params" || typeof param !== "string" || touched.has(param)) return null;
  const node = fieldOf(param);
  return node && "value" in node && node.value.trim() === "" ? param : null;
}
