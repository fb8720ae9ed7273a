// capacity.py's load from Node (`--clients node`): the same players, rolls and timing as its
// Python client processes, at a fraction of their CPU (issue 28: on a 2-core machine the
// generator's CPU is taken from the server it measures).
//
//   node benchmarks/capacity_clients.mjs '<json settings>'
//
// Settings: url, token, start / opened / closed (epoch seconds), ramp, interval, jitter,
// tables, players, mine (this process's player numbers: [first, step]), catalogue (echo the
// first welcome's `catalogue` in the next hellos). A load generator,
// not a client to copy: bare TCP sockets (node:net) with the WebSocket opening handshake and
// framing done here, only what the load needs (Node 20's own WebSocket costs about 40 µs a
// frame, this a few): the requests are MessagePack encoded here, with a zero mask; of the
// answers only the first (welcome or refusal) is decoded, an outcome is told as the roller's
// own by its request id's bytes and the table's other outcomes are read and dropped
// undecoded; pings are answered. Prints one JSON line: latencies (ms, rolls sent in the
// window), rolls, lost, welcomed, refused (by code), failed (by cause).

import net from "node:net";
import crypto from "node:crypto";

const settings = JSON.parse(process.argv[2]);
const HELLO_TIMEOUT = 60_000;

// -- MessagePack, the subset used -------------------------------------------------------
function packString(s) {
  const bytes = Buffer.from(s, "utf8");
  if (bytes.length < 32) return Buffer.concat([Buffer.from([0xa0 | bytes.length]), bytes]);
  if (bytes.length < 256) return Buffer.concat([Buffer.from([0xd9, bytes.length]), bytes]);
  throw new Error("string too long for this packer");
}
function pack(value) {
  if (typeof value === "string") return packString(value);
  if (Number.isInteger(value) && value >= 0 && value < 128) return Buffer.from([value]);
  if (value && typeof value === "object") {
    const keys = Object.keys(value);
    return Buffer.concat([Buffer.from([0x80 | keys.length]),
      ...keys.flatMap((k) => [packString(k), pack(value[k])])]);
  }
  throw new Error(`cannot pack ${value}`);
}
function unpack(buf) {
  let at = 0;
  const u8 = () => buf[at++];
  const u16 = () => { const v = buf.readUInt16BE(at); at += 2; return v; };
  const u32 = () => { const v = buf.readUInt32BE(at); at += 4; return v; };
  const str = (n) => { const v = buf.toString("utf8", at, at + n); at += n; return v; };
  const map = (n) => { const o = {}; for (let i = 0; i < n; i++) { const k = read(); o[k] = read(); } return o; };
  const arr = (n) => { const a = []; for (let i = 0; i < n; i++) a.push(read()); return a; };
  function read() {
    const b = u8();
    if (b < 0x80) return b;
    if (b >= 0xe0) return b - 256;
    if ((b & 0xf0) === 0x80) return map(b & 0x0f);
    if ((b & 0xf0) === 0x90) return arr(b & 0x0f);
    if ((b & 0xe0) === 0xa0) return str(b & 0x1f);
    switch (b) {
      case 0xc0: return null;
      case 0xc2: return false;
      case 0xc3: return true;
      case 0xc4: { const n = u8(); at += n; return null; }
      case 0xc5: { const n = u16(); at += n; return null; }
      case 0xc6: { const n = u32(); at += n; return null; }
      case 0xca: { const v = buf.readFloatBE(at); at += 4; return v; }
      case 0xcb: { const v = buf.readDoubleBE(at); at += 8; return v; }
      case 0xcc: return u8();
      case 0xcd: return u16();
      case 0xce: return u32();
      case 0xcf: { const v = Number(buf.readBigUInt64BE(at)); at += 8; return v; }
      case 0xd0: { const v = buf.readInt8(at); at += 1; return v; }
      case 0xd1: { const v = buf.readInt16BE(at); at += 2; return v; }
      case 0xd2: { const v = buf.readInt32BE(at); at += 4; return v; }
      case 0xd3: { const v = Number(buf.readBigInt64BE(at)); at += 8; return v; }
      case 0xd9: return str(u8());
      case 0xda: return str(u16());
      case 0xdb: return str(u32());
      case 0xdc: return arr(u16());
      case 0xdd: return arr(u32());
      case 0xde: return map(u16());
      case 0xdf: return map(u32());
      default: throw new Error(`msgpack byte ${b} not handled`);
    }
  }
  return read();
}

// -- the players -------------------------------------------------------------------------
const out = { latencies: [], rolls: 0, lost: 0, welcomed: 0, refused: {}, failed: {} };
let catalogue = null;
const count = (where, key) => { where[key] = (where[key] || 0) + 1; };
const now = () => Date.now() / 1000;
const total = settings.tables * settings.players;
// A roll's frame but its id, encoded once: {type, ruleset, params, mode, id: <id>}.
const ROLL_HEAD = (() => {
  const body = pack({ type: "roll", ruleset: "bloodlust", params: { pool: 5 }, mode: "public" });
  // One more key than packed: the id, appended by rollFrame.
  return Buffer.concat([Buffer.from([body[0] + 1]), body.subarray(1), packString("id")]);
})();
const rollFrame = (rid) => Buffer.concat([ROLL_HEAD, packString(rid)]);

// A small deterministic generator per player (the jitter), as the Python clients' Random(k).
function rng(seed) {
  let s = (seed * 2654435761) >>> 0 || 1;
  return () => { s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0; return s / 4294967296; };
}

function player(k) {
  return new Promise((resolve) => {
    const at = settings.start + (settings.ramp * k) / total;
    setTimeout(() => join(k, resolve), Math.max(0, (at - now()) * 1000));
  });
}

// -- WebSocket over a bare socket -----------------------------------------------------------
const { hostname, port, pathname } = new URL(settings.url);

/** A frame from the client: FIN, opcode, a zero mask (the payload as it is). */
function clientFrame(opcode, payload) {
  const n = payload.length;
  const head = n < 126 ? Buffer.from([0x80 | opcode, 0x80 | n, 0, 0, 0, 0])
    : Buffer.from([0x80 | opcode, 0x80 | 126, n >> 8, n & 0xff, 0, 0, 0, 0]);
  return Buffer.concat([head, payload]);
}

/** A connection: `onmessage(frame payload)` per data frame, `onclose()` once. */
function connect(onopen, onmessage, onclose) {
  const socket = net.connect({ host: hostname, port: Number(port), noDelay: true });
  let pending = Buffer.alloc(0);
  let open = false;
  let closed = false;
  let parts = [];
  const close = () => { if (!closed) { closed = true; socket.destroy(); onclose(); } };
  socket.on("connect", () => {
    const key = crypto.randomBytes(16).toString("base64");
    socket.write(`GET ${pathname} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nUpgrade: websocket\r\n` +
      `Connection: Upgrade\r\nSec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`);
  });
  socket.on("data", (chunk) => {
    pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
    if (!open) {
      const end = pending.indexOf("\r\n\r\n");
      if (end < 0) return;
      if (!pending.subarray(0, 12).toString().includes(" 101")) return close();
      open = true;
      pending = pending.subarray(end + 4);
      onopen();
    }
    while (pending.length >= 2) {
      const opcode = pending[0] & 0x0f;
      let n = pending[1] & 0x7f;
      let at = 2;
      if (n === 126) { if (pending.length < 4) return; n = pending.readUInt16BE(2); at = 4; }
      else if (n === 127) { if (pending.length < 10) return; n = Number(pending.readBigUInt64BE(2)); at = 10; }
      if (pending.length < at + n) return;
      const payload = pending.subarray(at, at + n);
      const fin = pending[0] & 0x80;
      pending = pending.subarray(at + n);
      if (opcode === 0x9) socket.write(clientFrame(0xa, payload));
      else if (opcode === 0x8) return close();
      else if (opcode === 0x1 || opcode === 0x2 || opcode === 0x0) {
        parts.push(payload);
        if (fin) {
          const whole = parts.length === 1 ? parts[0] : Buffer.concat(parts);
          parts = [];
          onmessage(whole);
        }
      }
    }
  });
  socket.on("error", () => close());
  socket.on("close", () => close());
  return {
    send: (payload) => { if (!closed) socket.write(clientFrame(0x2, payload)); },
    close: () => {
      if (!closed) socket.end(clientFrame(0x8, Buffer.from([0x03, 0xe8])));
      close();
    },
    get opened() { return open; },
  };
}

function join(k, done) {
  const table = Math.floor(k / settings.players);
  const seat = k % settings.players;
  let welcomed = false;
  let finished = false;
  let ws;
  const finish = () => { if (!finished) { finished = true; ws.close(); done(); } };
  const helloTimer = setTimeout(() => { count(out.failed, "hello: TimeoutError"); finish(); },
    HELLO_TIMEOUT);
  // The roll in flight: its id's bytes, when sent, and whether it counts (sent in the window).
  let waiting = null;
  let timer = null;
  const random = rng(k + 1);
  const [opened, closed] = [settings.opened, settings.closed];
  let nextAt = now() + random() * settings.interval;
  let n = 0;

  const rollNext = () => {
    timer = setTimeout(() => {
      const sentWall = now();
      if (sentWall >= closed) return finish();
      n += 1;
      const rid = `${k}-${n}`;
      waiting = { id: packString(rid), began: performance.now(), counts: opened <= sentWall };
      ws.send(rollFrame(rid));
      timer = setTimeout(() => {
        if (waiting && waiting.counts) out.lost += 1;
        waiting = null;
        finish();
      }, Math.max(1000, (closed + 10 - now()) * 1000));
    }, Math.max(0, (nextAt - now()) * 1000));
  };

  const onopen = () => {
    const hello = { type: "hello", protocol: 1, table: `cap${table}`, name: `p${seat}`,
      role: "player", token: settings.token };
    // The descriptions a client already holds are not sent again (`hello.catalogue`):
    // echoed from this process's first welcome, as a returning client would.
    if (settings.catalogue && catalogue) hello.catalogue = catalogue;
    ws.send(pack(hello));
  };
  const onmessage = (frame) => {
    if (!welcomed) {
      clearTimeout(helloTimer);
      const first = unpack(frame);
      if (first.type !== "welcome") {
        count(out.refused, String(first.code));
        return finish();
      }
      welcomed = true;
      out.welcomed += 1;
      if (first.catalogue) catalogue = first.catalogue;
      return rollNext();
    }
    // Only the roller's own outcome carries its id; the table's other outcomes are dropped.
    if (waiting === null || frame.indexOf(waiting.id) < 0) return;
    const sent = waiting;
    waiting = null;
    clearTimeout(timer);
    if (sent.counts) {
      out.latencies.push(performance.now() - sent.began);
      out.rolls += 1;
    }
    nextAt += settings.interval * (1 - settings.jitter + 2 * settings.jitter * random());
    nextAt = Math.max(nextAt, now());
    rollNext();
  };
  const onclose = () => {
    clearTimeout(helloTimer);
    clearTimeout(timer);
    if (!welcomed && !finished) count(out.failed, ws.opened ? "hello: closed" : "connect: error");
    finish();
  };
  ws = connect(onopen, onmessage, onclose);
}

const [first, step] = settings.mine;
const players = [];
for (let k = first; k < total; k += step) players.push(player(k));
const deadline = setTimeout(() => {
  count(out.failed, "still running after the window");
  finishAll();
}, Math.max(1000, (settings.closed + 20 - now()) * 1000));
function finishAll() {
  clearTimeout(deadline);
  process.stdout.write(JSON.stringify(out) + "\n", () => process.exit(0));
}
Promise.all(players).then(finishAll);
