// The errors the forms show (#roll-error, #ask-error), kept so that a language switch
// does not leave one in the other language: the page's own words, and the server's when it
// gave them in both languages (`messages`), are written again in the new one; the others
// (in the language of the join, which the page cannot ask again for a refusal already
// made) are cleared.
import { $, describeError } from "./page.js";

/** Shown errors: element id → how to write it again (`null`: the server's words). */
const shown = new Map();

/**
 * Show `text` in the error element `id`: a function giving the page's words in its
 * language now (written again after a switch), or a string of the server's.
 */
export function showError(id, text) {
  const node = $(id);
  node.textContent = typeof text === "function" ? text() : text;
  node.hidden = false;
  shown.set(id, typeof text === "function" ? text : null);
}

/** Hide the error `id`: what it was about was changed (a field typed again), so it no
 * longer says anything true of the form (a notation refused, fixed, left standing under it). */
export function clearError(id) {
  const node = $(id);
  if (!node) return;
  node.hidden = true;
  node.textContent = "";
  shown.delete(id);
}

/** A refusal, as `showError` takes it: written again in another language when the page
 * writes it itself (too little of a sheet's field) or the server gave both, else as is. */
export function failureText(failure, ruleset) {
  const ours = failure?.code === "insufficient" && failure.details?.field !== undefined;
  return ours || failure?.messages ? () => describeError(failure, ruleset) : describeError(failure, ruleset);
}

/** After a language switch: every error shown in the new language, or cleared. */
export function relocalizeErrors() {
  for (const [id, again] of shown) {
    const node = $(id);
    if (!node || node.hidden) shown.delete(id);
    else if (again) node.textContent = again();
    else {
      node.hidden = true;
      node.textContent = "";
      shown.delete(id);
    }
  }
}
