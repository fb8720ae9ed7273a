// The table's log entries, as the page draws them: an outcome (its dice, result, spends,
// what it did to its targets), a note (a seat, a sheet, an ask, a session), and the lines
// standing for what this member may not see (secret rolls, the GM's notes). Everything
// shown comes from other people: always set as text, never as HTML.
import { answerButton, askedText, bestText, sidesText, winnerText } from "./asks.js";
import { colon, el, fieldLabel, local, quoted, rulesetByName, state, t } from "./page.js";
import { reserveChange, spentParts } from "./reserves.js";
import { renderInitiative } from "./initiative.js";
import { askTargetsText, renderEffects } from "./targets.js";
import { shownKind } from "./verdict.js";
import { renderEpoch, verifyBadge } from "./verify.js";

/** What the GM did out of this page's sight (seats, the others' sheets), one line a run:
 * « le MJ prépare la table », once before the first roll, then for each run (« ×2 » for
 * two events): the GM wrote no note, and a player should not look for one. */
export function renderGmNote({ secret, count, prep }) {
  const text = prep || count === 1 ? t("log.prep") : `${t("log.prep")} ×${count}`;
  const kind = prep ? "prep" : "note";
  return el("li", { class: `entry entry-secret entry-${kind}`, "data-seq": secret, "data-kind": kind,
    "data-count": count }, el("span", { class: "secret-note", text }),
    el("span", { class: "seq", text: count > 1 ? `#${secret}–${secret + count - 1}` : `#${secret}` }));
}

export function renderSecret({ secret, count, roll }) {
  // « jet secret » when a history page said they were no notes: one line, its seqs, no count
  // (a hidden roll decided later is two seqs, and how many rolls is not the others' to know);
  // else « jet secret ou note du MJ », a line each or « 12 jets secrets ou notes du MJ ».
  const text = roll ? t("log.secret_roll") : count > 1 ? `${count} ${t("log.secrets")}` : t("log.secret");
  // (`data-seqs`: every seq the line stands for, as an open roll's card has.)
  const seqs = [...Array(count).keys()].map((i) => secret + i).join(" ");
  return el("li", { class: "entry entry-secret", "data-seq": secret, "data-kind": "secret",
    "data-count": count, "data-seqs": seqs }, el("span", { class: "secret-note", text }),
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
export const NUMBER_WORDS = {
  fr: { successes: "réussites", net: "réussites nettes", score: "score" },
  en: { successes: "successes", net: "net successes", score: "score" },
};
export const wordIn = (words, name) => words[state.lang]?.[name] ?? String(name).replaceAll("_", " ");

const DIE_FLAGS = {
  success: { fr: "réussite", en: "success" },
  cancels: { fr: "annule une réussite", en: "cancels a success" },
  cancelled: { fr: "annulée", en: "cancelled" },
  kept: { fr: "gardé", en: "kept" },
  replaced: { fr: "relancé", en: "rerolled" },
};

const RAISED = { fr: "relevé à", en: "raised to" };
const TYPED = { fr: "saisi à la main", en: "typed in" };

/** Which of an outcome's dice a person typed (`manual.dice`, indexes in its `dice`): a
 * decision that drew new faces on a typed roll shows both, only the typed ones physical.
 * A `manual` without `dice` (older journals) means every face (PROTOCOL.md §3). */
function typedDice(outcome) {
  if (!outcome.manual?.by) return new Set();
  const dice = outcome.manual.dice;
  return new Set(Array.isArray(dice) ? dice : (outcome.dice ?? []).map((_, i) => i));
}

/** 1-based dice numbers, runs joined: `[0, 1, 3]` → `1–2, 4`. */
function diceSpans(indexes) {
  const runs = [];
  for (const n of [...new Set(indexes)].sort((a, b) => a - b).map((i) => i + 1)) {
    const last = runs.at(-1);
    if (last && n === last.at(-1) + 1) last.push(n); else runs.push([n]);
  }
  return runs.map((run) => run.length > 1 ? `${run[0]}–${run.at(-1)}` : `${run[0]}`).join(", ");
}

/** Who typed which dice: « dés physiques (tous) — saisis par Léa » when all were, « dés 1–2
 * saisis par Léa » when some were; one part per typist when two typed (`manual.entered`). */
function manualText(outcome) {
  const count = (outcome.dice ?? []).length;
  const marks = Array.isArray(outcome.manual.entered) ? outcome.manual.entered : [outcome.manual];
  return marks.map((mark) => {
    const name = mark.by?.name ?? "?";
    const dice = Array.isArray(mark.dice) ? [...new Set(mark.dice)] : null;
    if (!dice || dice.length >= count && [...Array(count).keys()].every((i) => dice.includes(i))) {
      return t("log.manual", { name });
    }
    return t(dice.length > 1 ? "log.manual.some" : "log.manual.one", { dice: diceSpans(dice), name });
  }).join(" · ");
}

function renderDie(die, typed = false) {
  const classes = ["die"];
  const notes = [];
  if (typed) {
    classes.push("die-typed");
    notes.push(local(TYPED));
  }
  for (const [flag, label] of Object.entries(DIE_FLAGS)) {
    if (die[flag] === true) {
      classes.push(`die-${flag}`);
      notes.push(local(label));
    }
  }
  // A die an augmentation raised (O'Ween's) shows both faces, 3→4, as the CLI does: its
  // natural face alone would read as a plain 3.
  const raised = typeof die.raised_to === "number" && die.raised_to !== die.face;
  const shown = raised ? die.raised_to : die.face;
  if (shown === 1) classes.push("die-one");
  if (shown === die.sides) classes.push("die-max");
  if (raised) {
    classes.push("die-raised");
    notes.push(`${local(RAISED)} ${die.raised_to}`);
  }
  if (die.role) notes.push(die.role);
  if (typeof die.successes === "number" && die.successes > 0) classes.push("die-success");
  // Its tooltip: the die, its face, then what is said of it — « d6 : 5, relevé à 6 ».
  const title = [`d${die.sides}${colon()}${die.face}`, ...notes].join(", ");
  return el("span", { class: classes.join(" "), title,
    "data-raised-to": raised ? die.raised_to : null },
    el("span", { class: "face", text: die.face }),
    raised ? el("span", { class: "raised", "aria-label": `${local(RAISED)} ${die.raised_to}`,
      text: `→${die.raised_to}` }) : null,
    die.role && wordIn(ROLE_WORDS, die.role)
      ? el("small", { class: "die-role", text: wordIn(ROLE_WORDS, die.role) }) : null,
    typeof die.successes === "number" && die.successes > 1 ? el("small", { class: "die-role", text: `×${die.successes}` }) : null);
}

/**
 * Who rolled, as the card's head says it: the roller (« Morgane », the GM's badge), or a
 * roll as a character headed by the character, as its text line starts (« Aengus — … »),
 * then « par Léa » — the GM shown once (« par MJ » with the badge's colour, not « MJ MJ »).
 */
function rollerParts(outcome) {
  const name = outcome.by?.name ?? "?";
  const gm = outcome.by?.role === "gm";
  if (!outcome.character) {
    return [el("strong", { class: "who", text: name }),
      gm ? el("span", { class: "badge role-gm", text: t("role.gm") }) : null];
  }
  return [el("strong", { class: "who", text: outcome.character }),
    el("span", { class: `by${gm ? " badge role-gm" : ""}`, "data-by": name, text: t("log.by", { name }) })];
}

export function renderOutcome(outcome, deciding = []) {
  const result = outcome.result ?? {};
  const hidden = result.hidden === true;
  const kind = shownKind(result); // (`total`: a total without a target, no verdict)
  const ruleset = state.welcome ? rulesetByName(outcome.ruleset) : null;
  const mine = state.welcome && outcome.by?.name === state.client?.name;
  const head = el("div", { class: "entry-head" },
    ...rollerParts(outcome),
    el("span", { class: "game", text: local(ruleset?.title)?.split(" — ")[0] || outcome.ruleset }),
    outcome.label ? el("span", { class: "what", text: quoted(outcome.label) }) : null,
    outcome.mode && outcome.mode !== "public"
      ? el("span", { class: `badge mode-${outcome.mode}`, text: t(`mode.badge.${outcome.mode}`) }) : null,
    verifyBadge(outcome), el("span", { class: "seq", text: `#${outcome.seq ?? ""}` }));
  const body = [];
  if (hidden) {
    body.push(el("p", { class: "hidden-note", text: t("log.hidden") }));
  } else {
    // Faces a person typed, and who (PROTOCOL.md §3): marked on those dice and said under
    // them, to whoever sees them — drawn faces beside them are the server's.
    const typed = typedDice(outcome);
    body.push(el("div", { class: "dice" }, (outcome.dice ?? []).map((die, i) => renderDie(die, typed.has(i)))));
    if (typed.size) {
      body.push(el("p", { class: "manual-mark", "data-by": outcome.manual.by.name ?? "",
        text: manualText(outcome) }));
    }
    body.push(el("div", { class: "result" },
      el("span", { class: `kind kind-${kind}`, text: local(result.label) || kind }),
      el("span", { class: "text", text: outcome.text ?? "" })));
    for (const note of outcome.notes ?? []) body.push(el("p", { class: "note", text: local(note) }));
    if (outcome.applied?.length) {
      body.push(el("p", { class: "applied", text: t("log.applied") + outcome.applied.map(extensionTitle).join(", ") }));
    }
  }
  // The last side of an opposition says who won, in every log that receives it (the
  // server sends it where the ask's mode lets it be seen).
  if (outcome.opposition) {
    body.push(el("p", { class: "ask-winner", "data-winner": outcome.opposition.winner ?? "",
      text: winnerText(outcome.opposition) }));
  }
  if (outcome.cooperation) {
    body.push(el("p", { class: "ask-best", "data-best": outcome.cooperation.best ?? "",
      text: bestText(outcome.cooperation) }));
  }
  // What the roll took from the character, and what is left (a blind roll's roller gets
  // neither: nothing is shown then).
  const spent = Object.entries(outcome.spent ?? {}).filter(([, amount]) => amount !== 0);
  if (spent.length && outcome.character) {
    body.push(el("p", { class: "spent" }, el("span", { class: "spent-title", text: t("log.spent") }),
      spent.map(([field, amount]) => {
        // (A reserve says what is left of it, « −1 → 2 / 3 », as the panel and the CLI do.)
        const [label, after] = spentParts(outcome, field, outcome.sheet?.[field]);
        return el("span", { class: "spent-item", "data-field": field, "data-amount": amount,
          "data-after": outcome.sheet?.[field] }, `${label} ${amount > 0 ? "−" : "+"}${Math.abs(amount)}`,
        outcome.sheet && field in outcome.sheet ? ` → ${after}` : "");
      })));
  }
  // What it did to its targets: before → after where this page sees them (contract §8).
  if (!hidden) body.push(renderEffects(outcome));
  body.push(...deciding);
  return el("li", { class: `entry entry-${kind}${mine ? " mine" : ""}${outcome.open === true ? " open" : ""}`,
    "data-seq": outcome.seq, "data-kind": kind, "data-mode": outcome.mode, "data-roll": outcome.roll,
    "data-open": outcome.open === true ? "1" : null, "data-answers": outcome.answers }, head, ...body);
}

/** A character or seat change, as its line of the log: who did what, to what, and why. */
export function renderNote(event) {
  if (event.type === "epoch") return renderEpoch(event);
  if (event.type === "initiative") return renderInitiative(event);
  const who = el("strong", { class: "who", text: event.by?.name ?? "?" });
  let what;
  let details = [];
  if (event.type === "seat") {
    what = t(`log.seat.${event.op}`);
    details = [el("span", { class: "target", text: event.name })];
  } else if (event.type === "session") {
    what = event.op === "turn" ? t("log.turn", { turn: event.turn })
      : t("log.session", { number: event.number });
  } else if (event.type === "ask") {
    // One sentence as each language says it: « demande à Aengus un jet « Escalade » », "asks
    // Aengus for a roll: “Climb”" (t() elides a « de {names} » where a wording has one).
    const names = (event.to ?? []).map((target) => target.character || target.seat).join(", ");
    what = t(names ? `log.ask.${event.op}.to` : `log.ask.${event.op}`, { names });
    if (event.label) what = t("log.ask.labelled", { what });
    const asked = event.op === "open" ? askedText(event) : "";
    details = [event.label ? el("span", { class: "target", text: quoted(event.label) }) : null,
      asked ? el("span", { class: "ask-what", text: t("ask.what", { what: asked }) }) : null,
      event.op === "open" && sidesText(event) ? el("span", { class: "ask-sides-what", text: sidesText(event) }) : null,
      event.targets?.length ? el("span", { class: "why", text: askTargetsText(event) }) : null];
  } else {
    const created = event.op === "set" && Object.values(event.changed ?? {}).length
      && Object.values(event.changed).every(([before]) => before === null || before === undefined);
    what = t(event.removed ? "log.sheet.remove" : created ? "log.sheet.new" : `log.sheet.${event.op}`);
    // A field empty before and after (a new character's empty pools) changed nothing.
    const changes = Object.entries(event.changed ?? {}).filter(([, [before, after]]) =>
      shortValue(before) !== "—" || shortValue(after) !== "—");
    details = [el("span", { class: "target", text: event.character }),
      changes.length ? el("span", { class: "changes" }, changes.slice(0, 6).map(([field, [before, after]]) =>
        el("span", { class: "change", "data-field": field },
          // (A new character's values: « Peps (PEP) 3 », not « — → 3 », a change from nothing.)
          reserveChange(event, field, [before, after], { created })
            ?? (created ? `${fieldLabel(event.ruleset, field)} ${shortValue(after)}`
              : `${fieldLabel(event.ruleset, field)} ${shortValue(before)} → ${shortValue(after)}`))),
      changes.length > 6 ? " …" : null) : null,
      // (An effect's reason is the roll's seq, « #89 »: no quote marks, it is no one's words.)
      event.reason ? el("span", { class: "why", text: event.op === "effect" ? event.reason
        : quoted(event.reason) }) : null];
  }
  // An ask still waiting for this player: its button is on its line too, where the player
  // reads (the card is at the top of the page).
  const button = event.type === "ask" && event.op === "open" ? answerButton(event.ask) : null;
  return el("li", { class: `entry entry-note entry-${event.type}`, "data-seq": event.seq, "data-kind": event.type,
    "data-op": event.op }, el("div", { class: "entry-head" }, who,
    event.by?.role === "gm" ? el("span", { class: "badge role-gm", text: t("role.gm") }) : null,
    el("span", { class: "op", text: what }), ...details,
    el("span", { class: "seq", text: `#${event.seq ?? ""}` })), button);
}

/** An extension as people know it: its options' title (« Combat (O'Ween's) »), not its key. */
function extensionTitle(name) {
  const described = (state.welcome?.options ?? []).find((option) => option.name === name);
  return local(described?.label) || name;
}

function shortValue(value) {
  if (value === null || value === undefined) return "—";
  if (typeof value === "object") {
    const text = Array.isArray(value) ? value.join(", ") : Object.entries(value).map(([k, v]) => `${k} ${v}`).join(", ");
    return text.length > 40 ? `${text.slice(0, 39)}…` : text || "—";
  }
  return String(value);
}
