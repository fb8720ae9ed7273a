/**
 * vtt-sidecar JavaScript client: one connection to one table of a sidecar.
 *
 * A dependency-light ES module for browsers, Foundry VTT and Node ≥ 20 (run Node 20 with
 * `--experimental-websocket`, or pass a `WebSocket` class such as the `ws` package's).
 * Frames are MessagePack (the bundled @msgpack/msgpack) unless `binary: false` asks for
 * JSON text frames. The sidecar serves this file at `/static/sidecar-client.js`.
 * A sidecar serving TLS is reached at `wss://…/ws`; a browser trusts its certificate as it
 * trusts any site's, Node with `NODE_EXTRA_CA_CERTS=cert.pem` for a self-signed one.
 *
 *   import { SidecarClient } from "./sidecar-client.js";
 *   const client = new SidecarClient("ws://192.168.1.20:8765/ws",
 *                                    { table: "crypte", name: "Aengus", token: "…" });
 *   client.on("outcome", (outcome) => console.log(outcome.text));
 *   await client.connect();
 *   const outcome = await client.roll({ ruleset: "oweens", params: { dice: 4, difficulty: 3 } });
 *   const odds = await client.odds("oweens", { dice: 4, difficulty: 3 });
 *
 * Seats and characters (PROTOCOL.md §7): a GM gives a player a seat (`addSeat(name)` →
 * its own `token` and `link`) and a character (`setSheet({character, ruleset, owner,
 * values})`); the player joins with the seat's token under the seat's name and rolls as
 * the character (`roll({ruleset, params, character})`): the outcome carries `spent` and
 * `sheet`, and `client.characters` follows every change this client may see (event
 * `character`). Not enough left to spend rejects with the SidecarError `insufficient`
 * (`details`: `field`, `have`, `need`).
 *
 * Targets (contract §8): `roll({…, targets: ["Brady"]})`, `odds(…, {targets})` and
 * `ask({…, targets})` aim the action at other characters (an NPC of the GM's too): the rules
 * read their sheets, the outcome carries `targets` and `effects` (`{Brady: {wounds: 3}}`),
 * and — for their owners and the GMs only — `target_sheets` (the new values), which
 * `client.characters` follows (event `character`), as it follows the `sheet` event
 * (`op: "effect"`) that tells an owner what a roll hidden from it did to its character.
 *
 * Open rolls (decide after the dice): an outcome may come back `open: true` with `choices`
 * (`[{name, label, dice}]`), `default` and `expires`; the roller or a GM (or, on a public
 * roll made as a character, the seat that plays it) decides with
 * `react(outcome, choice, dice)`, which resolves with the decision (an outcome with
 * `reacts_to`, `choice`, `reacted_by`: null when time ran out). Event `open` fires for
 * each outcome that offers choices; `mayDecide(outcome)` says whether this client may take one.
 *
 * After a dropped connection the client reconnects by itself and joins with
 * `resume: <last seq seen>`: the server replays what was missed, in order, exactly once.
 * Rolls left unanswered by the drop are re-sent with the same `id`; the server's idempotency
 * makes sure they are never rolled twice.
 *
 * Several servers (`sidecar serve` processes sharing one store): give an array of URLs,
 * `new SidecarClient(["ws://a:8765/ws", "ws://b:8765/ws"], {…})`. `connect()` joins
 * through the first that answers; after a drop the client moves to the next URL in turn
 * and resumes there, each event still delivered once. `client.url` is the one in use.
 * Each URL is opened with the table in its query (`…/ws?table=crypte`, see `tableUrl`): a
 * load balancer in front of those processes hashes on it, so that every member of one
 * table reaches the same process (cheaper; any process would do).
 */
import { decode, encode } from "./vendor/msgpack.mjs";

/** The protocol version this client speaks. */
export const PROTOCOL = 1;

/**
 * The largest frame this client reads (1 MiB). A server's lists come in pages (`history`,
 * `sheet`/`seat`/`ask` `list`: 56 KiB; `welcome`: its descriptions of the rulesets, plus
 * 24 KiB of characters and 24 KiB of asks, `characters_more`/`asks_more` saying more
 * follow) and no server sends a frame past the 1 MiB it lets a client leave unread.
 */
export const MAX_FRAME_BYTES = 1 << 20;

/** Error codes after which reconnecting cannot help (the server closes the connection). */
const FATAL_CODES = new Set(["forbidden", "unsupported_protocol", "bad_message"]);
/** Journaled events: they carry a `seq`, each is delivered once. */
const JOURNALED = new Set(["outcome", "sheet", "seat", "ask", "session", "epoch", "initiative"]);

/** An `error` message from the server, or a failure of the connection itself. */
export class SidecarError extends Error {
  /**
   * @param {string} code  the contract's error code (`invalid_params`, `forbidden`…), or
   *                       `closed` / `timeout` / `not_connected` for the connection itself
   * @param {string} message  for a person, in the client's locale
   * @param {object} [details]  e.g. `{param: "dice"}` for `invalid_params`
   * @param {{fr: string, en: string}} [messages]  the message in both languages, when the
   *                       server gives both (a page switching language shows it in the new one)
   */
  constructor(code, message, details = {}, messages = null) {
    super(`${code}: ${message}`);
    this.name = "SidecarError";
    this.code = code;
    this.details = details ?? {};
    this.serverMessage = message;
    this.messages = messages ?? null;
  }
}

/**
 * `url` with `table=<table>` added to its query, percent-encoded as RFC 3986 says (UTF-8,
 * everything but letters, digits and `-._~` encoded: the Python client's `table_url` writes
 * the same bytes, so a load balancer hashing on the parameter sends both to one process).
 * A URL that names a `table` already is returned unchanged. The server ignores the query:
 * the `table` of `hello` is the one joined.
 * @param {string} url
 * @param {string} table
 * @returns {string}
 */
export function tableUrl(url, table) {
  const hashAt = url.indexOf("#");
  const rest = hashAt < 0 ? url : url.slice(0, hashAt);
  const fragment = hashAt < 0 ? "" : url.slice(hashAt);
  const queryAt = rest.indexOf("?");
  const base = queryAt < 0 ? rest : rest.slice(0, queryAt);
  const query = queryAt < 0 ? "" : rest.slice(queryAt + 1);
  if (new URLSearchParams(query).has("table")) return url;
  const encoded = encodeURIComponent(String(table ?? "")).replace(
    /[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  const joined = query && !query.endsWith("&") ? `${query}&` : query;
  return `${base}?${joined}table=${encoded}${fragment}`;
}

/**
 * The descriptions a welcome carries (`rulesets`, `extensions`, `options`), kept per server
 * URL under their digest (`welcome.catalogue`): the next `hello` to that URL echoes the
 * digest and the server leaves them out while they are unchanged (PROTOCOL.md §2). In
 * memory, and in the page's `sessionStorage` when there is one (a reloaded page, another
 * table of the same tab): a digest that no longer matches is sent again whole.
 */
const catalogues = new Map();
const DESCRIBED = ["rulesets", "extensions", "options"];
const STORAGE_PREFIX = "sidecar-catalogue:";

function storage() {
  try {
    return globalThis.sessionStorage ?? null;
  } catch {
    return null; // storage refused (a sandboxed frame, privacy settings): memory only
  }
}

function cachedCatalogue(url) {
  let cached = catalogues.get(url);
  if (cached === undefined) {
    try {
      const stored = storage()?.getItem(STORAGE_PREFIX + url);
      cached = stored ? JSON.parse(stored) : null;
    } catch {
      cached = null;
    }
    if (cached && typeof cached.digest === "string") catalogues.set(url, cached);
    else cached = null;
  }
  return cached;
}

/** `welcome` whole: the kept descriptions put back when the server left them out, or
 * kept when it sent them. */
function withCatalogue(url, welcome) {
  const digest = welcome.catalogue;
  if (typeof digest !== "string") return welcome;
  if ("rulesets" in welcome) {
    const kept = { digest };
    for (const key of DESCRIBED) kept[key] = welcome[key] ?? [];
    catalogues.set(url, kept);
    try {
      storage()?.setItem(STORAGE_PREFIX + url, JSON.stringify(kept));
    } catch {
      // (storage full or refused: memory keeps it)
    }
    return welcome;
  }
  const cached = cachedCatalogue(url);
  if (!cached || cached.digest !== digest) return welcome;
  // Copies: a caller changing its welcome must not change the next one's.
  const whole = { ...welcome };
  for (const key of DESCRIBED) whole[key] = structuredClone(cached[key]);
  return whole;
}

function randomPrefix() {
  const bytes = new Uint8Array(6);
  globalThis.crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * One client at one table. Events (subscribe with `on(type, listener)`):
 * - `welcome` (welcome message) after each join, reconnections included;
 * - `outcome` (outcome) for every outcome this client may see, replayed ones included,
 *   each `seq` once;
 * - `open` (outcome) for every outcome that offers choices (an open roll, or a decision
 *   that offers more), after its `outcome` event;
 * - `presence` ({table, members}) when someone joins or leaves;
 * - `sheet` (sheet event) for every character change this client may see (GMs, the
 *   owner's seat), and `seat` (seat event, GMs only), each `seq` once;
 * - `ask` (ask event: a GM asked seats for a roll, `op: "open"`, or cancelled it) and
 *   `session` (a GM started game session `number`), public, each `seq` once;
 * - `character` ({character, ruleset, owner, values}, or `{character, removed: true}`)
 *   whenever `client.characters` changes: a sheet event, or a roll as a character;
 * - `characters` ([{character, ruleset, owner, values}, …]) when a page of `sheet list`
 *   adds characters `client.characters` did not hold: a welcome carries the first page
 *   of them only (`characters_more`), the client lists the rest by itself (`listed`);
 * - `state` ("connecting" | "open" | "reconnecting" | "closed");
 * - `error` (SidecarError) for an error that answers no request of this client.
 */
export class SidecarClient {
  /**
   * @param {string|string[]} url  the sidecar's WebSocket URL, e.g. `ws://127.0.0.1:8765/ws`,
   *   or several (processes serving the same tables), tried in turn
   * @param {object} options
   * @param {string} options.table  table name (created by the first join)
   * @param {string} options.name  display name
   * @param {"player"|"gm"|"observer"} [options.role]
   * @param {string} [options.token]  the GM or player token (not needed by observers)
   * @param {"fr"|"en"} [options.locale]  language of `text` and error messages
   * @param {boolean} [options.binary]  MessagePack frames (default) or JSON text frames
   * @param {boolean} [options.reconnect]  reconnect after a drop (default true)
   * @param {number} [options.resume]  join with `resume`: replay events after this seq
   * @param {number} [options.requestTimeout]  ms before a request fails with `timeout`
   * @param {typeof WebSocket} [options.WebSocket]  WebSocket class (default: the global)
   */
  constructor(url, options = {}) {
    const urls = Array.isArray(url) ? [...url] : [url];
    if (!urls.length || !urls.every((each) => typeof each === "string" && each)) {
      throw new TypeError("url: one WebSocket URL or a non-empty array of them");
    }
    /** Every server URL given, in the order they are tried. */
    this.urls = urls;
    this._urlIndex = 0;
    this.table = options.table;
    this.name = options.name;
    this.role = options.role ?? "player";
    this.token = options.token;
    /** This member's seed for verifiable dice (sent at hello; the server makes one if not). */
    this.clientSeed = options.clientSeed ?? randomPrefix() + randomPrefix();
    this.locale = options.locale ?? "fr";
    this.binary = options.binary ?? true;
    this.reconnect = options.reconnect ?? true;
    this.requestTimeout = options.requestTimeout ?? 15000;
    this.minDelay = options.minDelay ?? 250;
    this.maxDelay = options.maxDelay ?? 5000;
    this.WebSocket = options.WebSocket ?? globalThis.WebSocket;
    if (!this.WebSocket) {
      throw new TypeError("no WebSocket class: pass options.WebSocket (Node 20: --experimental-websocket)");
    }
    /** Highest `seq` received: the next join resumes after it. */
    this.lastSeq = options.resume ?? null;
    /** The last `welcome` (its descriptions put back when the server left them out,
     * this page holding them already: `welcomeBytes` is the frame's size as received). */
    this.welcome = null;
    this.welcomeBytes = 0;
    /** The characters this client may see, by name: `{character, ruleset, owner, values}`. */
    this.characters = new Map();
    /** Resolves once `characters` holds every character of the last welcome (listed page
     * by page after a welcome that says `characters_more`). */
    this.listed = Promise.resolve();
    /** The SidecarError that ended the connection for good (a token changed…), if any. */
    this.closedBy = null;
    this.state = "idle";
    this._listeners = new Map();
    this._pending = new Map();
    this._prefix = randomPrefix();
    this._counter = 0;
    this._ws = null;
    this._closing = false;
    this._retryTimer = null;
    this._attempt = 0;
    this._connecting = false;
  }

  /** The server URL in use (or tried last): one of `urls`. */
  get url() {
    return this.urls[this._urlIndex];
  }

  // -- events -------------------------------------------------------------------------------

  /** Call `listener(detail)` on each event of `type`; returns a function that unsubscribes. */
  on(type, listener) {
    if (!this._listeners.has(type)) this._listeners.set(type, new Set());
    this._listeners.get(type).add(listener);
    return () => this._listeners.get(type)?.delete(listener);
  }

  /** A promise of the next event of `type` for which `predicate(detail)` holds. */
  next(type, predicate = () => true, timeout = this.requestTimeout) {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        off();
        reject(new SidecarError("timeout", `no ${type} event within ${timeout} ms`));
      }, timeout);
      const off = this.on(type, (detail) => {
        if (!predicate(detail)) return;
        clearTimeout(timer);
        off();
        resolve(detail);
      });
    });
  }

  _emit(type, detail) {
    for (const listener of [...(this._listeners.get(type) ?? [])]) {
      try {
        listener(detail);
      } catch (err) {
        // A listener's bug must not break the connection for the others.
        console.error(`sidecar-client: ${type} listener failed`, err);
      }
    }
  }

  _setState(state) {
    if (this.state === state) return;
    this.state = state;
    this._emit("state", state);
  }

  // -- connection ---------------------------------------------------------------------------

  /**
   * Open the connection and join through the first of `urls` that answers; resolves with
   * `welcome`. Rejects with a SidecarError: a refusal for good (`forbidden`…) at once,
   * else the last URL's failure (and, with `reconnect`, the client keeps trying).
   */
  async connect() {
    this._closing = false;
    this._setState("connecting");
    this._connecting = true; // failures move on to the next URL here, not to a timer
    try {
      for (let tried = 0; ; tried += 1) {
        if (tried) this._nextUrl();
        try {
          return await this._open();
        } catch (error) {
          this._forgetSocket();
          if (this._closing || tried === this.urls.length - 1) {
            this._connecting = false;
            this._afterClose(); // closed for good, or a retry scheduled
            throw error;
          }
        }
      }
    } finally {
      this._connecting = false;
    }
  }

  _nextUrl() {
    this._urlIndex = (this._urlIndex + 1) % this.urls.length;
  }

  /** Let go of a socket whose join failed: its close, whenever it comes, is not followed
   * up (connect() has moved on, or scheduled the next try itself). */
  _forgetSocket() {
    const ws = this._ws;
    this._ws = null;
    if (ws && ws.readyState <= 1) {
      try { ws.close(); } catch { /* not open: nothing to close */ }
    }
  }

  _open() {
    return new Promise((resolve, reject) => {
      let joined = false;
      let ws;
      try {
        // The table in the query: a load balancer keeps a table's members on one process.
        ws = new this.WebSocket(tableUrl(this.url, this.table));
      } catch (err) {
        reject(new SidecarError("closed", `cannot connect to ${this.url}: ${err.message}`));
        return;
      }
      ws.binaryType = "arraybuffer";
      this._ws = ws;
      const helloId = `${this._prefix}-hello-${++this._counter}`;
      ws.onopen = () => {
        const hello = { type: "hello", id: helloId, protocol: PROTOCOL, table: this.table,
                        name: this.name, role: this.role, locale: this.locale };
        if (this.token) hello.token = this.token;
        if (this.clientSeed) hello.client_seed = this.clientSeed;
        if (this.lastSeq !== null) hello.resume = this.lastSeq;
        const cached = cachedCatalogue(this.url);
        if (cached) hello.catalogue = cached.digest; // held already: not sent again
        this._sendRaw(hello);
      };
      ws.onmessage = (event) => {
        let message;
        try {
          message = this._decode(event.data);
        } catch (err) {
          this._emit("error", new SidecarError("bad_frame", `undecodable frame: ${err.message}`));
          return;
        }
        if (!joined) {
          if (message.type === "welcome") {
            joined = true;
            this._attempt = 0;
            this.welcomeBytes = event.data.byteLength ?? event.data.length;
            message = withCatalogue(this.url, message);
            this.welcome = message;
            this.characters = new Map((message.characters ?? [])
              .filter((entry) => entry && typeof entry.character === "string")
              .map((entry) => [entry.character, { ...entry }]));
            // A table behind what was seen here: the server's store lost events (its
            // next events reuse those numbers): follow the table from its seq.
            if (this.lastSeq === null || message.seq < this.lastSeq) this.lastSeq = message.seq;
            this._setState("open");
            // What the last connection left unanswered is settled first: requests the
            // welcome's listeners make (the rest of a list…) belong to this connection.
            this._resendPending();
            this.listed = this._listCharacters(message);
            this._emit("welcome", message);
            resolve(message);
          } else if (message.type === "error") {
            const error = new SidecarError(message.code, message.message, message.details, message.messages);
            if (FATAL_CODES.has(message.code)) {
              this._closing = true;
              this.closedBy = error; // why a reconnection ended for good
            }
            reject(error);
          }
          return;
        }
        this._dispatch(message);
      };
      let ended = false;
      ws.onclose = (event) => {
        if (ended) return;
        ended = true;
        // A socket connect() let go of (its join failed, another URL is tried) ends alone.
        const current = this._ws === ws;
        if (current) this._ws = null;
        if (!joined) {
          reject(new SidecarError("closed", `connection closed before joining (${event.code})`));
        }
        if (current) this._afterClose();
      };
      ws.onerror = () => {
        // onclose normally follows and decides what to do; but Node's WebSocket reports a
        // failed TLS handshake (an untrusted certificate) as an error and never closes.
        setTimeout(() => {
          if (ended || ws.readyState === 1 /* OPEN */) return;
          try { ws.close(); } catch { /* not open: nothing to close */ }
          ws.onclose({ code: 1006 });
        }, 0);
      };
    });
  }

  _afterClose() {
    if (this._connecting && !this._closing) return; // connect() tries the next URL
    if (this._closing || !this.reconnect) {
      this._setState("closed");
      this._failPending(new SidecarError("closed", "connection closed"));
      return;
    }
    this._setState("reconnecting");
    // Each try goes to the next URL (the one that failed comes last); the delay doubles
    // after each full round of them.
    this._nextUrl();
    const rounds = Math.floor(this._attempt / this.urls.length);
    const delay = Math.min(this.maxDelay, this.minDelay * 2 ** rounds);
    this._attempt += 1;
    // Jitter spreads a whole table's reconnections after a server restart.
    const jittered = delay * (0.75 + Math.random() * 0.5);
    this._retryTimer = setTimeout(() => {
      this._retryTimer = null;
      if (this._closing) return;
      this._open().catch(() => {
        // _afterClose has scheduled the next try (or given up on a fatal error).
      });
    }, jittered);
  }

  /** Close for good (no reconnection); pending requests fail with `closed`. */
  close() {
    this._closing = true;
    if (this._retryTimer !== null) clearTimeout(this._retryTimer);
    this._retryTimer = null;
    const ws = this._ws;
    if (ws && ws.readyState <= 1) {
      return new Promise((resolve) => {
        const done = () => resolve();
        ws.addEventListener?.("close", done);
        ws.close(1000);
        setTimeout(done, 2000);
      }).then(() => this._afterClose());
    }
    this._afterClose();
    return Promise.resolve();
  }

  /** Drop the connection as a network failure would (it reconnects); for tests and demos. */
  dropConnection() {
    this._ws?.close(4000, "dropped by the client");
  }

  /** While waiting to reconnect, try at once (the browser is back online, a "retry" button). */
  reconnectNow() {
    if (this.state !== "reconnecting" || this._retryTimer === null) return;
    clearTimeout(this._retryTimer);
    this._retryTimer = null;
    this._open().catch(() => {
      // _afterClose has scheduled the next try (or given up on a fatal error).
    });
  }

  // -- frames -------------------------------------------------------------------------------

  _decode(data) {
    // (A JS string's length is at most its UTF-8 bytes: the exact count only near the bound.)
    const size = typeof data === "string"
      ? (data.length * 3 > MAX_FRAME_BYTES ? new TextEncoder().encode(data).length : data.length)
      : data.byteLength;
    if (size > MAX_FRAME_BYTES) throw new Error(`frame larger than ${MAX_FRAME_BYTES} bytes`);
    if (typeof data === "string") return JSON.parse(data);
    const message = decode(new Uint8Array(data));
    if (message === null || typeof message !== "object" || Array.isArray(message)) {
      throw new Error("not a map");
    }
    return message;
  }

  _sendRaw(message) {
    // A socket already closing (its close frame is in, `onclose` has not run yet) sends
    // nothing: a roll waits to be re-sent after the reconnection, other requests fail then.
    if (this._ws?.readyState !== 1) return;
    this._ws.send(this.binary ? encode(message) : JSON.stringify(message));
  }

  _dispatch(message) {
    if (JOURNALED.has(message.type)) {
      if (typeof message.seq === "number") {
        if (this.lastSeq !== null && message.seq <= this.lastSeq && !message.duplicate) {
          this._settle(message);
          return; // already seen (a replay overlapping what we had)
        }
        if (this.lastSeq === null || message.seq > this.lastSeq) this.lastSeq = message.seq;
      }
      if (!message.duplicate) {
        this._track(message);
        this._emit(message.type, message);
        if (message.type === "outcome" && message.open === true && message.choices?.length) {
          this._emit("open", message);
        }
      }
    } else if (message.type === "presence") {
      this._emit("presence", message);
    } else if (message.type === "sheets") {
      this._listedCharacters(message.characters);
    } else if (message.type === "error" && !this._pending.has(message.id)) {
      this._emit("error", new SidecarError(message.code, message.message, message.details, message.messages));
    }
    this._settle(message);
  }

  /** Keeps `characters` as the journaled events say (in `seq` order, each once). */
  _track(event) {
    if (event.type === "outcome") this._trackTargets(event);
    const name = event.character;
    if (typeof name !== "string") return;
    let entry;
    if (event.type === "sheet") {
      if (event.removed || event.op === "remove") {
        this.characters.delete(name);
        this._emit("character", { character: name, removed: true });
        return;
      }
      entry = event.op === "effect"
        // What a roll hidden from this seat did to its character: new values only.
        ? { character: name, ruleset: event.ruleset, ...this.characters.get(name), values: event.values }
        : { character: name, ruleset: event.ruleset, owner: event.owner, values: event.values };
    } else if (event.type === "outcome" && event.sheet && typeof event.sheet === "object") {
      // A roll seen without the sheet's events (another seat's public roll): its values
      // are known, its owner may not be.
      entry = { character: name, ruleset: event.ruleset, ...this.characters.get(name), values: event.sheet };
    } else {
      return;
    }
    this.characters.set(name, entry);
    this._emit("character", entry);
  }

  /** A roll aimed at characters this client may see (their owner, a GM): their new values. */
  _trackTargets(event) {
    const seen = event.target_sheets;
    if (!seen || typeof seen !== "object") return;
    for (const [name, values] of Object.entries(seen)) {
      if (!values || typeof values !== "object") continue;
      const entry = { character: name, ...this.characters.get(name), values };
      this.characters.set(name, entry);
      this._emit("character", entry);
    }
  }

  /**
   * A page of characters (`sheet list`, in order with the events): those `characters`
   * did not hold join it; those it holds are as the page says already (every event since
   * they were listed applies to them).
   */
  _listedCharacters(entries) {
    const added = [];
    for (const entry of Array.isArray(entries) ? entries : []) {
      if (!entry || typeof entry.character !== "string" || this.characters.has(entry.character)) continue;
      const copy = { ...entry };
      this.characters.set(entry.character, copy);
      added.push(copy);
    }
    if (added.length) this._emit("characters", added);
  }

  /** After a welcome that says `characters_more`: the other characters, page by page. */
  async _listCharacters(welcome) {
    const first = welcome.characters ?? [];
    if (!welcome.characters_more || !first.length) return;
    try {
      let after = first[first.length - 1].character;
      for (;;) {
        const page = await this.request({ type: "sheet", op: "list", after });
        if (!page.more || !page.characters?.length) return;
        after = page.next;
      }
    } catch {
      // The connection ended meanwhile: the next welcome lists them again.
    }
  }

  _settle(message) {
    const pending = message.id !== undefined ? this._pending.get(message.id) : undefined;
    if (!pending) return;
    this._pending.delete(message.id);
    clearTimeout(pending.timer);
    if (message.type === "error") {
      pending.reject(new SidecarError(message.code, message.message, message.details, message.messages));
    } else {
      pending.resolve(message);
    }
  }

  _resendPending() {
    for (const pending of this._pending.values()) {
      if (pending.resend) this._sendRaw(pending.message);
      else {
        // An odds or history request is cheap to ask again, but its caller may have moved
        // on: fail it and let the caller decide.
        this._pending.delete(pending.message.id);
        clearTimeout(pending.timer);
        pending.reject(new SidecarError("closed", "connection lost before the reply"));
      }
    }
  }

  _failPending(error) {
    for (const pending of this._pending.values()) {
      clearTimeout(pending.timer);
      pending.reject(error);
    }
    this._pending.clear();
  }

  // -- requests -----------------------------------------------------------------------------

  /**
   * Send a request (`type` and its fields) and resolve with the reply carrying its `id`;
   * an `error` reply rejects with a SidecarError.
   */
  request(message, { resend = false } = {}) {
    if (this.state !== "open" && !(resend && this.state === "reconnecting")) {
      return Promise.reject(new SidecarError("not_connected", `client is ${this.state}`));
    }
    const full = { ...message, id: message.id ?? `${this._prefix}-${++this._counter}` };
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this._pending.delete(full.id);
        reject(new SidecarError("timeout", `no reply to ${full.type} within ${this.requestTimeout} ms`));
      }, this.requestTimeout);
      this._pending.set(full.id, { message: full, resolve, reject, timer, resend });
      if (this.state === "open") this._sendRaw(full);
    });
  }

  /**
   * Roll. Resolves with this client's copy of the outcome (carrying the request `id`).
   * With `character`, roll as that character: the outcome carries `spent` and `sheet`; a
   * sheet without enough to spend rejects with `insufficient` (nothing rolled).
   * With `targets` (character names), aim it at them: the outcome carries `targets`,
   * `effects` and, for their owners and the GMs, `target_sheets`.
   * @param {{ruleset: string, params?: object, label?: string,
   *          mode?: "public"|"gm"|"blind"|"self", options?: object, dice?: number[],
   *          character?: string, targets?: string[]}} roll
   */
  roll({ ruleset, params = {}, label = "", mode = "public", options = {}, dice, id, character, targets } = {}) {
    const message = { type: "roll", ruleset, params, label, mode, options };
    if (dice !== undefined && dice !== null) message.dice = dice;
    if (id !== undefined) message.id = id;
    if (character !== undefined && character !== null) message.character = character;
    if (targets?.length) message.targets = [...targets];
    return this.request(message, { resend: true });
  }

  /**
   * Decide an open roll: `roll` is its `roll` id or the open outcome, `choice` the name of
   * one of its `choices`, `dice` the physical faces the choice draws (optional). Resolves
   * with this client's copy of the decision; rejects with `bad_message` (unknown or decided
   * roll, unknown choice), `forbidden` (another player's roll), `bad_dice`, `insufficient`.
   */
  react(roll, choice, dice) {
    const message = { type: "react", roll: typeof roll === "object" ? roll.roll : roll, choice };
    if (dice !== undefined && dice !== null) message.dice = dice;
    return this.request(message, { resend: true });
  }

  /** Whether this client may decide an open outcome: it shows choices (a blind roll's
   * roller is not even told that it is open: a GM decides) and this client is a GM, its
   * roller, or — a public roll made as a character — the seat that plays it (the server's
   * rule, protocol/deciding.py `may_decide`, PROTOCOL.md §7.6). */
  mayDecide(outcome) {
    if (outcome?.open !== true || !this.choicesFor(outcome).length) return false;
    if (this.role === "gm") return true;
    if (this.role !== "player" || outcome.mode === "blind") return false;
    if (outcome.by?.name === this.name) return true;
    return this.welcome?.seat === true && outcome.mode === "public"
      && typeof outcome.character === "string"
      && this.characters.get(outcome.character)?.owner === this.name;
  }

  /** The open outcome's choices this client's role may take: all for a GM, those without
   * `gm: true` for a player (a `gm: true` choice is a GM's alone). */
  choicesFor(outcome) {
    const choices = Array.isArray(outcome?.choices) ? outcome.choices : [];
    return this.role === "gm" ? choices : choices.filter((choice) => choice?.gm !== true);
  }

  /**
   * Ask seats or characters (`to`: their names) for a roll (GM only). Resolves with the
   * `ask` event (`ask`: its id; `to`: `[{seat, character}]`). `opposed: true` compares the
   * sides when the last one answers; `cooperative: true`: every side rolls and the best one
   * counts; `each` gives a side (its name in `to`) its own params; `targets`: the characters
   * every answer is aimed at.
   */
  ask({ to, ruleset, params = {}, label = "", mode = "public", options = {}, opposed = false, cooperative = false, each, id, targets } = {}) {
    const message = { type: "ask", op: "open", to: Array.isArray(to) ? to : [to], ruleset, params, label, mode, options };
    if (opposed) message.opposed = true;
    if (cooperative) message.cooperative = true;
    if (each) message.each = each;
    if (targets?.length) message.targets = [...targets];
    if (id !== undefined) message.id = id;
    return this.request(message);
  }

  /** Cancel an open ask (GM only): `ask` is its id or the ask event. */
  cancelAsk(ask) {
    return this.request({ type: "ask", op: "cancel", ask: typeof ask === "object" ? ask.ask : ask });
  }

  /**
   * The open asks (a GM: all; a seat: those naming it), each with `answered: {seat: side}`
   * (a GM's NPC's side under the NPC's name, its `seat` null), every page of them, in the order they were opened. `after`: only those opened after
   * that `seq`; `onPage(asks)` is called with each page as it arrives (before any event
   * that follows it), for a list kept up to date by the events.
   */
  async asks({ after = 0, onPage } = {}) {
    const asks = [];
    for (;;) {
      const page = await this.request({ type: "ask", op: "list", after });
      onPage?.(page.asks ?? []);
      asks.push(...(page.asks ?? []));
      if (!page.more || !page.asks?.length) return asks;
      after = page.next;
    }
  }

  /**
   * Answer an ask as an asked seat: a roll carrying `answers` (the ask's ruleset, params,
   * label and mode apply; `dice`: physical faces where allowed). Resolves with the outcome
   * (`answers`, and `opposition` when it settles an opposed roll). A GM answers a GM's
   * NPC's side with `{character}`, the NPC's name (PROTOCOL.md §7.5).
   */
  async answer(ask, dice, { character } = {}) {
    const askId = typeof ask === "object" ? ask.ask : ask;
    let ruleset = typeof ask === "object" ? ask.ruleset : undefined;
    ruleset ??= (this.welcome?.asks ?? []).find((known) => known.ask === askId)?.ruleset;
    ruleset ??= (await this.asks()).find((known) => known.ask === askId)?.ruleset ?? "";
    const message = { type: "roll", ruleset, params: {}, answers: askId };
    if (dice !== undefined && dice !== null) message.dice = dice;
    if (character) message.character = character;
    return this.request(message, { resend: true });
  }

  /** Start a new game session (GM only): resolves with the `session` event (`number`). */
  startSession() {
    return this.request({ type: "session", op: "start" });
  }

  /**
   * The exact odds of a roll (nothing is rolled): `{p_success, kinds, distribution…}`;
   * `{character}` for a roll as that character, `{targets}` against those characters' sheets.
   */
  odds(ruleset, params = {}, options = {}, { character, targets } = {}) {
    const message = { type: "odds", ruleset, params, options };
    if (character !== undefined && character !== null) message.character = character;
    if (targets?.length) message.targets = [...targets];
    return this.request(message);
  }

  // -- seats (GM only) ------------------------------------------------------------------------

  /** Give a player a seat: resolves with its `token`, `link` and `qr` (shown this once). */
  addSeat(name) {
    return this.request({ type: "seat", op: "add", name });
  }

  /** Remove a seat: its token stops working and its connections close. */
  removeSeat(name) {
    return this.request({ type: "seat", op: "remove", name });
  }

  /** Give a seat a new token and link (the old ones stop working at once). */
  rotateSeat(name) {
    return this.request({ type: "seat", op: "rotate", name });
  }

  /**
   * The table's seats: `[{name, online, characters}, …]`, every page of them; a seat owning
   * more characters than its entry lists (`characters_more`) gets them all from `sheets()`.
   */
  async seats() {
    const seats = [];
    let after = "";
    for (;;) {
      const page = await this.request({ type: "seat", op: "list", after });
      seats.push(...(page.seats ?? []));
      if (!page.more || !page.seats?.length) break;
      after = page.next;
    }
    if (seats.some((seat) => seat.characters_more)) {
      const owned = new Map();
      for (const entry of await this.sheets()) {
        if (!owned.has(entry.owner)) owned.set(entry.owner, []);
        owned.get(entry.owner).push(entry.character);
      }
      for (const seat of seats) {
        if (!seat.characters_more) continue;
        delete seat.characters_more;
        seat.characters = (owned.get(seat.name) ?? []).sort();
      }
    }
    return seats;
  }

  // -- characters -----------------------------------------------------------------------------

  /**
   * Create a character or change the values given (GM only). `owner`: a seat's name,
   * `null` for the GM's own character, left out to keep it. Resolves with the sheet event.
   */
  setSheet({ character, ruleset, values = {}, owner, reason, id } = {}) {
    const message = { type: "sheet", op: "set", character, ruleset, values };
    if (owner !== undefined) message.owner = owner;
    return this._sheet(message, reason, id);
  }

  /** Add `delta` to integer fields (GM only): `{bonbonus: 2}` gives, `-1` takes. */
  adjustSheet({ character, delta, reason, id } = {}) {
    return this._sheet({ type: "sheet", op: "adjust", character, delta }, reason, id);
  }

  /** A new `"turn"` or a `"rest"`: marked counters back to their default (GM only). */
  refill({ what = "turn", character, reason, id } = {}) {
    const message = { type: "sheet", op: "refill", what };
    if (character !== undefined && character !== null) message.character = character;
    return this._sheet(message, reason, id);
  }

  /** Delete a character (GM only; its events stay in the journal). */
  removeSheet({ character, reason, id } = {}) {
    return this._sheet({ type: "sheet", op: "remove", character }, reason, id);
  }

  /** Every character this client may see, page after page: `[{character, ruleset, owner, values}, …]`. */
  async sheets() {
    const characters = [];
    let after = "";
    for (;;) {
      const page = await this.request({ type: "sheet", op: "list", after });
      characters.push(...page.characters);
      if (!page.more) return characters;
      after = page.next;
    }
  }

  _sheet(message, reason, id) {
    if (reason !== undefined && reason !== null) message.reason = reason;
    if (id !== undefined) message.id = id;
    // A sheet change is idempotent by its id, like a roll: re-sent after a drop.
    return this.request(message, { resend: true });
  }

  /** A page of the table's journal as this client may see it: `{events, more, next}`. */
  history({ after = 0, limit = 100 } = {}) {
    return this.request({ type: "history", after, limit });
  }
}
