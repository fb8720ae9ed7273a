// The seqs of the log this page never received, said for what they are: the GM's notes
// (a seat, another's sheet — the server names them in `history`'s `hidden_notes`, wherever
// they are) as « le MJ prépare la table », once before the table's first roll, then one
// line per run; the seqs a `history` page looked at that were no note as « jet secret »,
// one line a run with its seqs and no count (a hidden roll and its decision are two seqs)
// (PROTOCOL.md §7.3: the server looks at a page's first 100 unseen seqs and names the notes
// among them, so the others are rolls — the missing seq already said something happened);
// the rest as « jet secret ou note du MJ » (the server said nothing of them).
import { state } from "./page.js";

/** A longer run of seqs the server said nothing of is one line with its count, not a line each. */
const SECRET_RUN = 10;

/** Unseen seqs a `history` page looks at (the server's `HistoryPage.GAPS`, PROTOCOL.md §7.3). */
const LOOKED_AT = 100;

/**
 * What a `history` page (asked `after`) tells of the seqs this page does not see: the GM's
 * notes (`hidden_notes`), and the secret rolls — the unseen seqs it looked at that were no
 * note: its first `LOOKED_AT` ones after `after`, up to its last event (`next`), or up to
 * `known` (the table's seq as this page knows it) on the last page. Whether it learnt anything.
 */
export function learnPage(page, after, known = 0) {
  const before = state.hiddenNotes.size + state.hiddenRolls.size;
  for (const seq of page.hidden_notes ?? []) state.hiddenNotes.add(seq);
  const seen = new Set((page.events ?? []).map((event) => event.seq));
  const end = page.more ? page.next : Math.max(page.next ?? after, known);
  let looked = 0;
  for (let seq = after + 1; seq <= end && looked < LOOKED_AT; seq += 1) {
    if (seen.has(seq)) continue;
    looked += 1;
    if (!state.hiddenNotes.has(seq)) state.hiddenRolls.add(seq);
  }
  return state.hiddenNotes.size + state.hiddenRolls.size > before;
}

/**
 * The lines for the seqs `from`..`upTo` this page does not see, pushed to `lines`.
 * `log.opening`: no roll of the table is before them — the GM prepares the table, said
 * once (`log.prepared`) whatever the page sees in between (its own seat, its character).
 */
export function gapLines(lines, from, upTo, log) {
  // Seqs known to be rolls: one line a run, which counts no rolls — a roll decided later
  // (its decision a seq of its own) must not read as two rolls, nor tell it was open.
  // Seqs the server said nothing of: a line each, or one with its count for a long run.
  const unknownRun = (first, last) => {
    const count = last - first + 1;
    if (count > SECRET_RUN) lines.push({ secret: first, count, roll: false });
    else for (let seq = first; seq <= last; seq += 1) lines.push({ secret: seq, count: 1, roll: false });
  };
  const secretRun = (first, last) => {
    for (let seq = first; seq <= last;) {
      const roll = state.hiddenRolls.has(seq);
      let end = seq;
      while (end < last && state.hiddenRolls.has(end + 1) === roll) end += 1;
      if (roll) lines.push({ secret: seq, count: end - seq + 1, roll: true });
      else unknownRun(seq, end);
      seq = end + 1;
    }
  };
  let start = from;
  let seq = from;
  while (seq <= upTo) {
    if (!state.hiddenNotes.has(seq)) {
      seq += 1;
      continue;
    }
    if (seq > start) secretRun(start, seq - 1);
    let end = seq;
    while (end < upTo && state.hiddenNotes.has(end + 1)) end += 1;
    if (!log.opening) lines.push({ secret: seq, count: end - seq + 1, note: true });
    else if (!log.prepared) lines.push({ secret: seq, count: end - seq + 1, note: true, prep: true });
    log.prepared ||= log.opening;
    start = seq = end + 1;
  }
  if (upTo >= start) secretRun(start, upTo);
}

/**
 * A live event arrived after seqs this page did not get: ask the server which were the
 * GM's notes (a one-event `history` page after the last seq seen names them), then redraw.
 */
export function learnGap(client, before, seq, redraw) {
  if (seq <= before + 1 || !client || state.welcome?.role === "gm") return;
  client.history({ after: before, limit: 1 }).then((page) => {
    if (learnPage(page, before, seq)) redraw();
  }, () => {}); // a comfort: the line stays « jet secret ou note du MJ »
}
