// The odds beside the roll form: the chance to succeed, one stacked bar of every kind, each
// kind's figure, and the distribution of a roll's values; nothing of figures that say
// nothing true next to why the odds cannot be computed.
import { NUMBER_WORDS, wordIn } from "./entries.js";
import { $, colon, el, state, t } from "./page.js";

const KINDS = ["botch", "failure", "narrow", "success", "critical"];
/** The kinds the chance to succeed adds up, and the others. */
const PARTS = ["narrow", "success", "critical"];
const FAILURES = ["botch", "failure"];

/** A probability as the page's language writes it: « 33 % », « < 0,1 % » in French (a space
 * before %, a decimal comma), "33%", "< 0.1%" in English. */
export function percent(p) {
  const french = state.lang === "fr";
  const text = p === 0 ? "0" : p === 1 ? "100" : p < 0.001 ? "< 0.1" : (p * 100).toFixed(p < 0.1 ? 1 : 0);
  return french ? `${text.replace(".", ",")} %` : `${text}%`;
}

/** A kind's name in the odds: the ruleset's own word when it gives one (`kind_labels`:
 * O'Ween's « Bourde », « Coup d'éclat », as its roll's badge says), else the page's. */
function kindWord(kind, about) {
  const name = String(about ?? "").split("\u0000")[0];
  const ruleset = state.welcome?.rulesets?.find((each) => each.name === name);
  const own = ruleset?.kind_labels?.[kind];
  return (own && (own[state.lang] ?? own.fr)) || t(`kind.${kind}`);
}

export function showOdds(odds, note, about) {
  $("odds").classList.toggle("stale", !odds);
  $("odds-note").textContent = note;
  if (!odds) {
    // A value being typed leaves the figures dimmed; figures of another game or another
    // character say nothing true next to why these cannot be computed: gone.
    if (about !== state.oddsAbout) {
      for (const id of ["odds-success", "odds-stack", "odds-bars", "odds-dist"]) $(id).replaceChildren();
      state.oddsAbout = null;
    }
    return;
  }
  state.oddsAbout = about;
  state.shownOdds = odds; // (drawn again in another language: `applyLanguage`)
  // A roll without a verdict (`judged: false`: a `dice` total without a target): its
  // distribution alone — « 100 % de réussite » and kinds at 0 % would say nothing true.
  const judged = odds.judged !== false;
  $("odds").classList.toggle("unjudged", !judged);
  for (const id of ["odds-success", "odds-stack", "odds-bars"]) $(id).hidden = !judged;
  $("odds-success").textContent = `${percent(odds.p_success)} ${t("odds.success")}`;
  // One stacked bar (every kind side by side: the whole picture at a glance), then the
  // figures of each kind.
  $("odds-stack").replaceChildren(...KINDS.filter((kind) => (odds.kinds?.[kind] ?? 0) > 0).map((kind) => {
    const segment = el("span", { class: `segment kind-${kind}`, title: `${kindWord(kind, about)} ${percent(odds.kinds[kind])}` });
    segment.style.setProperty("flex-grow", String(odds.kinds[kind]));
    return segment;
  }));
  // The headline sums the successes of every kind: their rows read as its parts, « dont : »
  // under it (a row « Réussite 2,8 % » beside « 14 % de réussite » read as a contradiction),
  // then the failures. `sidecar odds` (sidecar/cli/odds_view.py) prints them alike.
  const bar = (kind) => {
    const p = odds.kinds?.[kind] ?? 0;
    return el("div", { class: `bar${p === 0 ? " zero" : ""}`, "data-kind": kind, "data-p": p },
      el("span", { class: `swatch kind-${kind}` }),
      el("span", { class: "bar-label", text: kindWord(kind, about) }),
      el("span", { class: "bar-value", text: percent(p) }));
  };
  $("odds-bars").replaceChildren(
    el("div", { class: "bar-group odds-parts" }, el("span", { class: "parts-of", text: t("odds.parts") }),
      PARTS.map(bar)),
    el("div", { class: "bar-group odds-failures" }, FAILURES.map(bar)));
  const dist = odds.distribution;
  const box = $("odds-dist");
  box.replaceChildren();
  if (dist?.values?.length > 1 && dist.values.length <= 80) {
    const peak = Math.max(...dist.values.map(([, p]) => p));
    box.append(el("span", { class: "dist-of", text: t("odds.of") + wordIn(NUMBER_WORDS, dist.of) }));
    const columns = el("div", { class: "columns" });
    for (const [value, p] of dist.values) {
      const column = el("span", { class: "column", title: `${value}${colon()}${percent(p)}` });
      column.style.setProperty("height", `${Math.max(2, (p / peak) * 100)}%`);
      columns.append(column);
    }
    const [first] = dist.values[0];
    const [last] = dist.values[dist.values.length - 1];
    box.append(columns, el("div", { class: "dist-axis" }, el("span", { text: first }), el("span", { text: last })));
  }
}
