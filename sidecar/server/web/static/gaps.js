// The seqs of the log this page never received, said for what they are: the GM's notes
// (a seat, another's sheet — the server names them in `history`'s `hidden_notes`, wherever
// they are) as « le MJ prépare la table », once before the table's first roll, then one
// line per run; the rest as « jet secret ou note du MJ » (the server said
// nothing of them: a secret roll, or a note it did not look at).
import { state } from "./page.js";

/** A longer run of seqs the page does not see is one line with its count, not a line each. */
const SECRET_RUN = 10;

/**
 * The lines for the seqs `from`..`upTo` this page does not see, pushed to `lines`.
 * `log.opening`: no roll of the table is before them — the GM prepares the table, said
 * once (`log.prepared`) whatever the page sees in between (its own seat, its character).
 */
export function gapLines(lines, from, upTo, log) {
  const secretRun = (first, last) => {
    const count = last - first + 1;
    if (count > SECRET_RUN) lines.push({ secret: first, count });
    else for (let seq = first; seq <= last; seq += 1) lines.push({ secret: seq, count: 1 });
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
    const fresh = (page.hidden_notes ?? []).filter((note) => !state.hiddenNotes.has(note));
    for (const note of fresh) state.hiddenNotes.add(note);
    if (fresh.length) redraw();
  }, () => {}); // a comfort: the line stays « jet secret ou note du MJ »
}
