// Verifiable dice, checked in the browser: once an epoch is revealed, the page asks the
// history again (each roll it may see now carries its key and the path to the epoch's
// commitment), recomputes every face with WebCrypto and marks each roll ✓ or ✗.
//
// The derivation is protocol/PROTOCOL.md's "Dice anyone can check" (the same as
// sidecar/provable.py and examples/verify_dice.py). The page never receives the epoch's
// seed: only the keys of the rolls it was shown, so nothing of a secret roll.
import { $, el, state } from "./page.js";

const encoder = new TextEncoder();
/** seq → true (checks) / false (does not): what the log marks. */
const results = new Map();

const WORDS = {
  fr: { ok: "dés vérifiés", bad: "dés NON conformes", end: "Clore l'époque (révéler la graine)" },
  en: { ok: "dice verified", bad: "dice do NOT check", end: "End the epoch (reveal its seed)" },
};
const word = (key) => (WORDS[state.lang] ?? WORDS.fr)[key];

/** This member's client seed at this table (made once, kept by the browser). */
export function clientSeed(table, name) {
  const key = `sidecar.clientSeed.${table}.${name}`;
  let seed = localStorage.getItem(key);
  if (!seed || !/^[A-Za-z0-9_.-]{1,64}$/.test(seed)) {
    const bytes = crypto.getRandomValues(new Uint8Array(16));
    seed = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
    localStorage.setItem(key, seed);
  }
  return seed;
}

const fromHex = (hex) => Uint8Array.from(hex.match(/../g) ?? [], (h) => parseInt(h, 16));
const toHex = (bytes) => Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, "0")).join("");
const u32 = (n) => new Uint8Array([(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255]);

function concat(...parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

const sha256 = async (bytes) => new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));

/** The commitment a leaf key and its Merkle path lead to. */
export async function rootFromPath(key, position, path) {
  let digest = await sha256(concat(new Uint8Array([0]), key));
  let index = position;
  for (const sibling of path) {
    const other = fromHex(sibling);
    digest = await sha256(concat(new Uint8Array([1]), index & 1 ? other : digest, index & 1 ? digest : other));
    index >>>= 1;
  }
  return toHex(digest);
}

/** The faces of dice of `sides`, in the order a roll drew them (rejection sampling). */
export async function deriveFaces(key, client, position, sides) {
  const hmacKey = await crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const prefix = concat(encoder.encode("sidecar-dice/1"), new Uint8Array([0]), encoder.encode(client),
    new Uint8Array([0]), u32(position));
  const streams = new Map(); // sides → {bytes, block}
  const faces = [];
  for (const s of sides) {
    if (!streams.has(s)) streams.set(s, { bytes: new Uint8Array(0), block: 0 });
    const stream = streams.get(s);
    const width = s <= 256 ? 1 : 2;
    const span = width === 1 ? 256 : 65536;
    const limit = span - (span % s);
    for (;;) {
      while (stream.bytes.length < width) {
        const block = await crypto.subtle.sign("HMAC", hmacKey, concat(prefix, u32(s), u32(stream.block)));
        stream.block += 1;
        stream.bytes = concat(stream.bytes, new Uint8Array(block));
      }
      const value = width === 1 ? stream.bytes[0] : stream.bytes[0] * 256 + stream.bytes[1];
      stream.bytes = stream.bytes.slice(width);
      if (value < limit) {
        faces.push((value % s) + 1);
        break;
      }
    }
  }
  return faces;
}

/** Whether one roll checks: its key is under the commitment the page was told before,
 * and its dice (as the page showed them) are the derived ones, in order. */
export async function checkRoll(outcome, proof, commitment) {
  if (!proof?.key || proof.commitment !== commitment) return false;
  const key = fromHex(proof.key);
  if (await rootFromPath(key, proof.position, proof.path ?? []) !== commitment) return false;
  const faces = await deriveFaces(key, proof.client, proof.position, proof.sides);
  const shown = (outcome.dice ?? []).map((die) => [die.sides, die.face]);
  let at = 0;
  for (let i = 0; i < faces.length; i += 1) {
    while (at < shown.length && !(shown[at][0] === proof.sides[i] && shown[at][1] === faces[i])) at += 1;
    if (at >= shown.length) return false;
    at += 1;
  }
  return true;
}

/** The commitments this page was told, by epoch number (welcome, epoch events). */
const commitments = new Map();

export function noteWelcome(welcome) {
  if (welcome?.epoch) commitments.set(welcome.epoch.number, welcome.epoch.commitment);
  showEndButton(welcome);
}

/** An `epoch` event: remember the commitments; after a reveal, check the epoch's rolls. */
export async function onEpoch(event, client, rerender) {
  for (const epoch of [event.epoch, event.next]) {
    if (epoch && !commitments.has(epoch.number)) commitments.set(epoch.number, epoch.commitment);
  }
  if (event.op !== "reveal") return;
  const number = event.epoch.number;
  const commitment = commitments.get(number);
  let after = 0;
  for (;;) {
    const page = await client.history({ after, limit: 500 });
    for (const copy of page.events) {
      const proof = copy.proof;
      if (copy.type !== "outcome" || !proof || proof.manual || proof.epoch !== number) continue;
      // The dice as this page showed them live, when it did: the history copy must not
      // be what decides.
      const shown = state.outcomes.find((o) => o.seq === copy.seq) ?? copy;
      results.set(copy.seq, await checkRoll(shown, proof, commitment));
    }
    if (!page.more) break;
    after = page.next;
  }
  state.verified = Object.fromEntries(results);
  rerender();
}

/** The mark of one roll of the log (nothing until its epoch is revealed). */
export function verifyBadge(outcome) {
  if (outcome.proof?.manual) return null;
  if (!results.has(outcome.seq)) return null;
  const ok = results.get(outcome.seq);
  return el("span", { class: `badge verified verified-${ok ? "yes" : "no"}`, "data-verified": ok ? "yes" : "no",
    title: word(ok ? "ok" : "bad"), text: ok ? "✓" : "✗" });
}

/** A reveal or a new commitment, as a line of the log. */
export function renderEpoch(event) {
  const text = event.op === "reveal"
    ? (state.lang === "en" ? `Epoch ${event.epoch.number} revealed (${event.rolls} rolls); next commitment ${event.next.commitment.slice(0, 12)}…`
      : `Époque ${event.epoch.number} révélée (${event.rolls} jets) ; engagement suivant ${event.next.commitment.slice(0, 12)}…`)
    : (state.lang === "en" ? `Dice committed: ${event.epoch.commitment.slice(0, 12)}…`
      : `Dés engagés : ${event.epoch.commitment.slice(0, 12)}…`);
  return el("li", { class: "entry entry-note entry-epoch", "data-seq": event.seq, "data-kind": "epoch" },
    el("span", { class: "note-text", text }), el("span", { class: "seq", text: `#${event.seq}` }));
}

/** The GM's button to end the epoch (only on a server with verifiable dice). */
function showEndButton(welcome) {
  const panel = $("gm-panel");
  let button = $("epoch-end");
  if (!panel || welcome?.role !== "gm" || !welcome.epoch) {
    if (button) button.hidden = true;
    return;
  }
  if (!button) {
    button = el("button", { id: "epoch-end", type: "button", class: "secondary", text: word("end") });
    button.addEventListener("click", async () => {
      button.disabled = true;
      try {
        await state.client?.request({ type: "epoch", op: "end" });
      } finally {
        button.disabled = false;
      }
    });
    panel.append(button);
  }
  button.hidden = false;
}
