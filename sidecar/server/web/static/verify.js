// Verifiable dice, checked in the browser: once an epoch is revealed, the page asks the
// history again (each roll it may see now carries its key and the path to the epoch's
// commitment), recomputes every face with WebCrypto (or, where the browser withholds it,
// the plain SHA-256 below) and marks each roll ✓ or ✗.
//
// The derivation is protocol/PROTOCOL.md's "Dice anyone can check" (the same as
// sidecar/dice/provable.py and examples/verify_dice.py). The page never receives the epoch's
// seed: only the keys of the rolls it was shown, so nothing of a secret roll.
import { $, colon, el, state, t } from "./page.js";

const encoder = new TextEncoder();
/** seq → {ok: true | false | null (cannot tell), field, why}: what the log marks. */
const results = new Map();

const WORDS = {
  fr: {
    ok: "dés vérifiés (le résultat n'est pas recalculé ici : `sidecar verify` le fait)",
    bad: "dés NON conformes", unknown: "non vérifiable ici",
  },
  en: {
    ok: "dice verified (the result is not recomputed here: `sidecar verify` does)",
    bad: "dice do NOT check", unknown: "cannot be checked here",
  },
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

/** WebCrypto when the browser gives it (secure contexts), else the plain version below. */
const subtle = globalThis.crypto?.subtle;
const sha256 = async (bytes) => (subtle ? new Uint8Array(await subtle.digest("SHA-256", bytes)) : sha256Plain(bytes));

async function hmacSigner(key) {
  if (!subtle) return async (message) => hmacPlain(key, message);
  const imported = await subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return async (message) => new Uint8Array(await subtle.sign("HMAC", imported, message));
}

// SHA-256 and HMAC in plain JavaScript, for pages WebCrypto is withheld from: browsers give
// `crypto.subtle` to secure contexts only (HTTPS, localhost), and a phone reaching the
// sidecar at a LAN address over HTTP is not one. FIPS 180-4, written for reading, not speed.
const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);
const H0 = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];
const ror = (x, n) => (x >>> n) | (x << (32 - n));

export function sha256Plain(bytes) {
  const padded = new Uint8Array(((bytes.length + 9 + 63) >> 6) << 6);
  padded.set(bytes);
  padded[bytes.length] = 0x80;
  const view = new DataView(padded.buffer);
  const bits = bytes.length * 8;
  view.setUint32(padded.length - 8, Math.floor(bits / 2 ** 32));
  view.setUint32(padded.length - 4, bits >>> 0);
  const hash = new Uint32Array(H0);
  const w = new Uint32Array(64);
  for (let offset = 0; offset < padded.length; offset += 64) {
    for (let i = 0; i < 16; i += 1) w[i] = view.getUint32(offset + i * 4);
    for (let i = 16; i < 64; i += 1) {
      const s0 = ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ (w[i - 15] >>> 3);
      const s1 = ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ (w[i - 2] >>> 10);
      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    let [a, b, c, d, e, f, g, h] = hash;
    for (let i = 0; i < 64; i += 1) {
      const t1 = (h + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i]) | 0;
      const t2 = ((ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) | 0;
      [h, g, f, e, d, c, b, a] = [g, f, e, (d + t1) | 0, c, b, a, (t1 + t2) | 0];
    }
    hash[0] += a; hash[1] += b; hash[2] += c; hash[3] += d;
    hash[4] += e; hash[5] += f; hash[6] += g; hash[7] += h;
  }
  const out = new Uint8Array(32);
  const outView = new DataView(out.buffer);
  hash.forEach((word, i) => outView.setUint32(i * 4, word));
  return out;
}

export function hmacPlain(key, message) {
  const block = new Uint8Array(64);
  block.set(key.length > 64 ? sha256Plain(key) : key);
  const inner = concat(block.map((b) => b ^ 0x36), message);
  return sha256Plain(concat(block.map((b) => b ^ 0x5c), sha256Plain(inner)));
}

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
  const sign = await hmacSigner(key);
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
        const block = await sign(concat(prefix, u32(s), u32(stream.block)));
        stream.block += 1;
        stream.bytes = concat(stream.bytes, block);
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

const pairs = (dice) => (dice ?? []).map((die) => [die.sides, die.face]);
const same = (a, b) => a[0] === b[0] && a[1] === b[1];

/** Whether `shown` is exactly `first` and `second` merged, each in its order (a decision
 * may show its open roll's dice beside the ones it drew). */
export function interleaves(shown, first, second) {
  if (shown.length !== first.length + second.length) return false;
  let reachable = new Set([0]); // how many of `first` were taken, after each die shown
  shown.forEach((die, index) => {
    const next = new Set();
    for (const i of reachable) {
      if (i < first.length && same(first[i], die)) next.add(i + 1);
      if (index - i < second.length && same(second[index - i], die)) next.add(i);
    }
    reachable = next;
  });
  return reachable.size > 0;
}

const bad = (field, why) => ({ ok: false, field, why });

/** What this page can check of one roll of a revealed epoch: `null` when there is nothing
 * to mark (a blind roll's hidden copy, dice a GM — or a player, where the epoch's settings
 * allow it — entered by hand, a roll closed without drawing), else `{ok, field, why}`:
 * `ok` false when something does not check, `null` when the page cannot tell. Every roll
 * of the epoch is proven or entered by hand; a proof's key leads to the commitment the
 * page was told before, and the roll shows exactly the dice derived (a decision: those of
 * its open roll, `opened`, too). A roll of this page's member (`me`: {name, role}) was
 * drawn with this page's own client seed (`client`; a decision: its open roll's), not one
 * the server chose — from `since` on (the seq of this page's first welcome: before it,
 * another browser of the member's may have rolled with its own). The result is not recomputed here (no rulesets in the page):
 * `sidecar verify` does. */
export async function checkCopy(copy, { commitment, settings, opened, me, client, since = 0 } = {}) {
  if (copy.result?.hidden) return null;
  const proof = copy.proof;
  const decision = copy.reacts_to !== undefined && copy.reacts_to !== null;
  if (!proof) {
    if (decision && copy.choice == null && !(copy.dice ?? []).length) return null;
    return bad("proof", "no proof: every roll of the epoch is proven or entered by hand");
  }
  if (proof.manual) {
    const author = decision ? copy.reacted_by : copy.by;
    if (!author || proof.by?.name !== author.name || proof.by?.role !== author.role) {
      return bad("proof.by", "entered by someone else than the one who rolled");
    }
    if (proof.by.role === "gm" || settings?.player_dice === true) return null;
    if (!settings) return { ok: null, field: "proof", why: "entered by a player; the epoch does not say whether players could" };
    return bad("proof", "entered by a player, and players may not enter dice on this server");
  }
  if (!proof.key || proof.commitment !== commitment) return bad("proof.commitment", "not the epoch's commitment");
  if (me && client && copy.seq > since && copy.by?.name === me.name && copy.by?.role === me.role) {
    const own = decision && opened?.proof?.client ? opened.proof.client : client;
    if (proof.client !== own) return bad("proof.client", "not this page's own client seed: the server chose it");
  }
  const key = fromHex(proof.key);
  if (await rootFromPath(key, proof.position, proof.path ?? []) !== commitment) {
    return bad("proof.key", "its key does not lead to the commitment");
  }
  const faces = await deriveFaces(key, proof.client, proof.position, proof.sides);
  const drawn = proof.sides.map((sides, i) => [sides, faces[i]]);
  const shown = pairs(copy.dice);
  const exact = shown.length === drawn.length && shown.every((die, i) => same(die, drawn[i]));
  if (!exact && !(decision && opened && interleaves(shown, pairs(opened.dice), drawn))) {
    return bad("dice", "its dice are not the ones derived");
  }
  return { ok: true };
}

/** The commitments and settings this page was told, by epoch number (welcome, epochs). */
const commitments = new Map();
const settingsOf = new Map();

function remember(epoch) {
  if (!epoch) return;
  if (!commitments.has(epoch.number)) commitments.set(epoch.number, epoch.commitment);
  if (epoch.settings && !settingsOf.has(epoch.number)) settingsOf.set(epoch.number, epoch.settings);
}

/** The seq of this page's first welcome: its own rolls after it used its client seed. */
let joinedAt = null;

export function noteWelcome(welcome) {
  if (joinedAt === null && Number.isInteger(welcome?.seq)) joinedAt = welcome.seq;
  remember(welcome?.epoch);
  showEndButton(welcome);
}

/** An `epoch` event: remember the commitments; after a reveal, check every roll of the
 * epoch this page may see (the events between the one that opened it and the reveal). */
export async function onEpoch(event, client, rerender) {
  remember(event.epoch);
  remember(event.next);
  if (event.op !== "reveal") return;
  const number = event.epoch.number;
  const context = { commitment: commitments.get(number), settings: settingsOf.get(number),
    me: { name: client.name, role: client.role }, client: client.clientSeed, since: joinedAt ?? Infinity };
  const first = event.seq - event.events;
  const copies = new Map();
  let after = first - 1;
  for (;;) {
    const page = await client.history({ after, limit: 500 });
    for (const copy of page.events) {
      if (copy.seq >= event.seq) break;
      copies.set(copy.seq, copy);
    }
    if (!page.more || page.events.some((copy) => copy.seq >= event.seq)) break;
    after = page.next;
  }
  // The dice as this page showed them live, when it did: the history copy must not be
  // what decides.
  const live = (seq) => state.outcomes.find((o) => o.seq === seq);
  for (const [seq, copy] of copies) {
    if (copy.type !== "outcome") continue;
    const shown = live(seq);
    const opened = copy.reacts_to != null ? (live(copy.reacts_to) ?? copies.get(copy.reacts_to)) : null;
    const verdict = await checkCopy(shown ? { ...copy, dice: shown.dice } : copy, { ...context, opened });
    if (verdict) results.set(seq, verdict);
  }
  state.verified = Object.fromEntries([...results].map(([seq, verdict]) => [seq, verdict.ok]));
  rerender();
}

/** The mark of one roll of the log (nothing until its epoch is revealed). */
export function verifyBadge(outcome) {
  const verdict = results.get(outcome.seq);
  if (!verdict) return null;
  const [mark, kind, title] = verdict.ok === true ? ["✓", "yes", word("ok")]
    : verdict.ok === false ? ["✗", "no", `${word("bad")} (${verdict.field}${colon()}${verdict.why})`]
      : ["?", "unknown", `${word("unknown")} (${verdict.field}${colon()}${verdict.why})`];
  return el("span", { class: `badge verified verified-${kind}`, "data-verified": kind, "data-field": verdict.field ?? "",
    title, text: mark });
}

/** A reveal or a new commitment, as a line of the log. */
export function renderEpoch(event) {
  // (French: « 0 événement », « 1 événement »; English: "0 events", "1 event".)
  const plural = (state.lang === "en" ? event.events !== 1 : event.events > 1) ? "s" : "";
  const next = event.next ? ` → ${event.next.commitment.slice(0, 12)}…` : "";
  const text = event.op === "reveal"
    ? (state.lang === "en" ? `Epoch ${event.epoch.number} revealed (${event.events} event${plural})${next}`
      : `Époque ${event.epoch.number} révélée (${event.events} événement${plural})${next}`)
    : (state.lang === "en" ? `Dice committed: ${event.epoch.commitment.slice(0, 12)}…`
      : `Dés engagés : ${event.epoch.commitment.slice(0, 12)}…`);
  // A head like every note's: its seq apart on the right, not glued to the text.
  return el("li", { class: "entry entry-note entry-epoch", "data-seq": event.seq, "data-kind": "epoch" },
    el("div", { class: "entry-head" }, el("span", { class: "note-text", text }),
      el("span", { class: "seq", text: `#${event.seq}` })));
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
    // (`data-i18n`: written again by a language switch, as the rest of the page.)
    button = el("button", { id: "epoch-end", type: "button", class: "secondary", "data-i18n": "epoch.end",
      text: t("epoch.end") });
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
