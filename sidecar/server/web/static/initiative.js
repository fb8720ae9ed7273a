// The scene's initiative (PROTOCOL.md §7.7): the GM's « Initiative » action in the panel —
// pick the scene's characters, who claims it (its player spends: O'Ween's 1 BB+), whose
// bagage is relevant (the tie-break), send — and the event as the log tells it, in the
// page's one language: « Initiative : Garde, puis Aengus et Brady ensemble (Brady : −1 BB+) ».
// Names come from other people: always set as text, never as HTML.
import { $, colon, describeError, el, fieldLabel, state, t } from "./page.js";

/** « Bonbonus (BB+) » → « BB+ »: the short name a table says (« −1 BB+ »). */
function shortLabel(label) {
  const found = /\(([^()]{1,8})\)$/.exec(label);
  return found ? found[1] : label;
}

/** « Aengus et Brady ensemble », a name alone as it is. */
function together(names) {
  if (names.length < 2) return names.join("");
  return `${names.slice(0, -1).join(", ")}${t("initiative.and")}${names.at(-1)}${t("initiative.together")}`;
}

/** The order's sentence: « Initiative : Garde, puis Aengus et Brady ensemble (Brady : −1 BB+) ». */
export function initiativeLine(event) {
  const groups = (event.order ?? []).filter((group) => group?.length).map((group) => together(group.map(String)));
  const costs = Object.entries(event.spent ?? {}).map(([name, amounts]) => {
    const paid = Object.entries(amounts ?? {})
      .map(([field, amount]) => `−${amount} ${shortLabel(fieldLabel(event.ruleset, field))}`).join(", ");
    return paid ? `${name}${colon()}${paid}` : "";
  }).filter(Boolean);
  const line = `${t("initiative.title")}${colon()}${groups.join(t("initiative.then")) || "—"}`;
  return costs.length ? `${line} (${costs.join("; ")})` : line;
}

/** An initiative event's line of the log: who asked, the order and what claims cost. */
export function renderInitiative(event) {
  return el("li", { class: "entry entry-note entry-initiative", "data-seq": event.seq, "data-kind": "initiative" },
    el("div", { class: "entry-head" }, el("strong", { class: "who", text: event.by?.name ?? "?" }),
      event.by?.role === "gm" ? el("span", { class: "badge role-gm", text: t("role.gm") }) : null,
      el("span", { class: "op initiative-order", text: initiativeLine(event) }),
      el("span", { class: "seq", text: `#${event.seq ?? ""}` })));
}

const ticked = (name) => new Set([...document.querySelectorAll(`#initiative-list input[name="${name}"]:checked`)]
  .map((box) => box.value));

/** Who takes the initiative, or whose bagage counts, is in the scene; out of it, neither. */
function linked(box, kind) {
  const row = box.closest(".initiative-row");
  if (kind !== "in" && box.checked) row.querySelector('input[name="initiative-in"]').checked = true;
  if (kind === "in" && !box.checked) {
    for (const other of row.querySelectorAll('input:not([name="initiative-in"])')) other.checked = false;
  }
}

/** The panel's rows, one a character (what was ticked stays ticked). */
export function renderInitiativeForm() {
  if (!$("initiative-list")) return;
  const kept = { in: ticked("initiative-in"), claim: ticked("initiative-claim"), bagage: ticked("initiative-bagage") };
  const names = [...state.characters.keys()].sort((a, b) => a.localeCompare(b));
  const box = (kind, name, text) => el("label", { class: `chip initiative-${kind}`,
    title: kind === "in" ? null : t(`initiative.${kind}.hint`) },
    el("input", { type: "checkbox", name: `initiative-${kind}`, value: name, checked: kept[kind].has(name),
      onchange: (change) => linked(change.target, kind) }),
    el("span", { text }));
  $("initiative-list").replaceChildren(...names.map((name) => el("li", { class: "initiative-row", "data-character": name },
    box("in", name, name), box("claim", name, t("initiative.claim")), box("bagage", name, t("initiative.bagage")))));
  $("initiative-empty").hidden = names.length > 0;
}

async function send(submit) {
  submit.preventDefault();
  const error = $("initiative-error");
  error.hidden = true;
  const scene = [...ticked("initiative-in")];
  const claims = ticked("initiative-claim");
  const bagage = ticked("initiative-bagage");
  if (!scene.length) {
    error.textContent = t("initiative.pick");
    error.hidden = false;
    return;
  }
  const characters = scene.map((name) => (claims.has(name) || bagage.has(name)
    ? { character: name, claim: claims.has(name), bagage: bagage.has(name) } : name));
  try {
    await state.client.request({ type: "initiative", characters });
    // (A claim spends once: the next scene's claims are ticked again by hand.)
    for (const claim of document.querySelectorAll('#initiative-list input[name="initiative-claim"]')) claim.checked = false;
  } catch (failure) {
    error.textContent = describeError(failure);
    error.hidden = false;
  }
}

export function setupInitiative() {
  $("initiative-form").addEventListener("submit", send);
}
