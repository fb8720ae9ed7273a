// The JavaScript client given several server URLs (processes serving the same tables): it
// joins through the first that answers, moves to the next URL after a drop or when its
// server stops, and resumes there with every event delivered exactly once.
//
// Without a shared store two servers do not share tables, so "another process" is the same
// sidecar under another name (127.0.0.1 and localhost), or one sidecar stopped and started
// again on its port with its journal, with a dead address in between.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";

import { SidecarClient, SidecarError, tableUrl } from "../../sidecar/server/web/static/sidecar-client.js";
import { GM_TOKEN, PLAYER_TOKEN, startSidecar } from "./sidecar-process.mjs";

let sidecar;
const clients = [];

function client(url, options) {
  const made = new SidecarClient(url, { requestTimeout: 15000, ...options });
  clients.push(made);
  return made;
}

/** A WebSocket URL nothing listens at (connecting is refused). */
async function dead() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return `ws://127.0.0.1:${port}/ws`;
}

/** The same sidecar under another name, as a second process's address would be. */
const byName = (url) => url.replace("127.0.0.1", "localhost");

/** Every seq of the table's journal as `member` sees it, page after page. */
async function allSeqs(member) {
  const seqs = [];
  let page = { more: true, next: 0 };
  while (page.more) {
    page = await member.history({ after: page.next, limit: 500 });
    seqs.push(...page.events.map((event) => event.seq));
  }
  return seqs;
}

/** Resolves once `seqs` (filled by an `outcome` listener of `member`) reaches `seq`. */
async function reach(member, seqs, seq) {
  while (!seqs.length || seqs.at(-1) < seq) await member.next("outcome", () => true, 20000);
}

before(async () => { sidecar = await startSidecar(); });
after(async () => {
  await Promise.all(clients.map((made) => made.close()));
  await sidecar.stop();
});

describe("several URLs", () => {
  test("one URL or an array of them", () => {
    const one = new SidecarClient("ws://127.0.0.1:1/ws", { table: "t", name: "n" });
    assert.deepEqual(one.urls, ["ws://127.0.0.1:1/ws"]);
    assert.equal(one.url, "ws://127.0.0.1:1/ws");
    const several = new SidecarClient(["ws://a:1/ws", "ws://b:1/ws"], { table: "t", name: "n" });
    assert.equal(several.url, "ws://a:1/ws");
    assert.throws(() => new SidecarClient([], { table: "t", name: "n" }), TypeError);
  });

  test("a table behind what was seen (its store lost events): lastSeq follows it", async () => {
    const player = client(sidecar.url, { table: "js-behind", name: "Aengus",
                                         token: PLAYER_TOKEN, resume: 99 });
    const welcome = await player.connect();
    assert.ok(welcome.seq < 99);
    assert.equal(player.lastSeq, welcome.seq);
  });

  test("the first URL refused, it joins through the next", async () => {
    const urls = [await dead(), await dead(), sidecar.url];
    const player = client(urls, { table: "js-urls", name: "Aengus", token: PLAYER_TOKEN });
    const welcome = await player.connect();
    assert.equal(welcome.type, "welcome");
    assert.equal(player.url, sidecar.url);
    assert.equal(player.state, "open");
    const outcome = await player.roll({ ruleset: "bloodlust", params: { pool: 2 } });
    assert.equal(outcome.seq, player.lastSeq);
  });

  test("when no URL answers, connect rejects; without reconnect it is closed", async () => {
    const urls = [await dead(), await dead()];
    const player = client(urls, { table: "js-urls", name: "Aengus", token: PLAYER_TOKEN,
                                  reconnect: false });
    await assert.rejects(player.connect(), (error) => error instanceof SidecarError && error.code === "closed");
    assert.equal(player.url, urls[1]);
    assert.equal(player.state, "closed");
    assert.equal(player._retryTimer, null);
  });

  test("a refusal for good is not tried on the next URL", async () => {
    const intruder = client([sidecar.url, await dead()],
                            { table: "js-urls", name: "Mallory", role: "gm", token: "nope" });
    await assert.rejects(intruder.connect(), (error) => error.code === "forbidden");
    assert.equal(intruder.url, sidecar.url);
    assert.equal(intruder.state, "closed");
    assert.equal(intruder._retryTimer, null);
  });

  test("a drop moves to the next URL and resumes: every seq once, cut-off rolls keep their id", async () => {
    const urls = [sidecar.url, await dead(), byName(sidecar.url)];
    const player = client(urls, { table: "js-urls-drop", name: "Aengus", token: PLAYER_TOKEN, minDelay: 50 });
    const gm = client(sidecar.url, { table: "js-urls-drop", name: "Morgane", role: "gm",
                                     token: GM_TOKEN, reconnect: false });
    const seqs = [];
    player.on("outcome", (outcome) => seqs.push(outcome.seq));
    await player.connect();
    await gm.connect();
    let stop = false;
    const flood = (async () => {
      const rolled = [];
      while (!stop && rolled.length < 2000) {
        rolled.push((await gm.roll({ ruleset: "bloodlust", params: { pool: 1 } })).seq);
      }
      return rolled;
    })();
    const mine = [];
    for (const [turn, expected] of [urls[2], urls[0]].entries()) {
      await reach(player, seqs, (seqs.at(-1) ?? 0) + 5);
      const rejoined = player.next("welcome", () => player.url === expected, 20000);
      const cut = player.roll({ ruleset: "oweens", params: { dice: 2 }, id: `js-cut-off-${turn}` });
      player.dropConnection();
      await rejoined;
      const outcome = await cut;
      assert.equal(outcome.id, `js-cut-off-${turn}`);
      mine.push(outcome);
    }
    stop = true;
    const flooded = await flood;
    await reach(player, seqs, Math.max(flooded.at(-1), ...mine.map((outcome) => outcome.seq)));
    const listed = await allSeqs(gm);
    assert.deepEqual(seqs, listed);
    assert.deepEqual(listed, listed.map((_, index) => index + 1));
    const again = await player.roll({ ruleset: "oweens", params: { dice: 2 }, id: "js-cut-off-0" });
    assert.equal(again.duplicate, true);
    assert.equal(again.seq, mine[0].seq);
  });

  test("a sidecar that stops mid-session is left for the next URLs until one serves the table again", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sidecar-js-urls-"));
    const db = join(dir, "journal.db");
    let server = await startSidecar({ db });
    try {
      const urls = [server.url, await dead(), byName(server.url)];
      const player = client(urls, { table: "js-urls-stop", name: "Aengus", token: PLAYER_TOKEN, minDelay: 50 });
      const seqs = [];
      player.on("outcome", (outcome) => seqs.push(outcome.seq));
      await player.connect();
      const before = [];
      for (let i = 0; i < 2; i += 1) {
        before.push((await player.roll({ ruleset: "bloodlust", params: { pool: 2 } })).seq);
      }
      const away = player.next("state", (state) => state === "reconnecting", 15000);
      await server.stop();
      await away;
      server = await startSidecar({ db, port: server.port });
      const gm = client(server.url, { table: "js-urls-stop", name: "Morgane", role: "gm",
                                      token: GM_TOKEN, reconnect: false });
      await gm.connect();
      const missed = [];
      for (let i = 0; i < 4; i += 1) {
        missed.push((await gm.roll({ ruleset: "bloodlust", params: { pool: 2 } })).seq);
      }
      await reach(player, seqs, missed.at(-1));
      assert.deepEqual(seqs, [...before, ...missed]);
      assert.notEqual(player.url, urls[1]);
      assert.equal(player.state, "open");
      const live = await player.roll({ ruleset: "bloodlust", params: { pool: 1 } });
      assert.equal(live.seq, missed.at(-1) + 1);
      await reach(player, seqs, live.seq);
      assert.deepEqual(seqs, [...before, ...missed, live.seq]);
      await player.close();
      await gm.close();
    } finally {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the table in the URL's query (a load balancer's affinity)", () => {
  // The same name and bytes as tests/test_table_affinity.py: both clients hash alike.
  const HARD_NAME = "Crypte d'été & #2 +=ok";
  const HARD_QUERY = "table=Crypte%20d%27%C3%A9t%C3%A9%20%26%20%232%20%2B%3Dok";

  /** A WebSocket class that records the URLs it is asked to open. */
  function recording(opened) {
    return class extends globalThis.WebSocket {
      constructor(url, ...rest) {
        opened.push(url);
        super(url, ...rest);
      }
    };
  }

  test("tableUrl adds the table once, encoded as the Python client does", () => {
    const cases = [
      ["ws://a:1/ws", `ws://a:1/ws?${HARD_QUERY}`],
      ["ws://a:1/ws?", `ws://a:1/ws?${HARD_QUERY}`],
      ["wss://a/ws?lang=fr", `wss://a/ws?lang=fr&${HARD_QUERY}`],
      ["wss://a/ws?lang=fr&", `wss://a/ws?lang=fr&${HARD_QUERY}`],
      ["ws://a:1/ws#x", `ws://a:1/ws?${HARD_QUERY}#x`],
      ["ws://a:1/ws?table=autre", "ws://a:1/ws?table=autre"],
      ["ws://a:1/ws?x=1&table=", "ws://a:1/ws?x=1&table="],
    ];
    for (const [url, expected] of cases) assert.equal(tableUrl(url, HARD_NAME), expected);
    for (const name of [HARD_NAME, "démo", "a/b?c", "100%", "~-._!*'()"]) {
      const query = tableUrl("ws://a/ws", name).split("?")[1];
      assert.equal(new URLSearchParams(query).get("table"), name);
      assert.match(query, /^[A-Za-z0-9\-._~%=]+$/);
    }
  });

  test("each URL tried is opened with the table; client.url stays as given", async () => {
    const opened = [];
    const urls = [await dead(), sidecar.url];
    const player = client(urls, { table: HARD_NAME, name: "Aengus", token: PLAYER_TOKEN,
                                  WebSocket: recording(opened) });
    const welcome = await player.connect();
    assert.equal(welcome.table, HARD_NAME);
    assert.deepEqual(opened, urls.map((url) => `${url}?${HARD_QUERY}`));
    assert.equal(player.url, sidecar.url);
    await player.close();
  });

  test("a table already in the URL is kept, and hello's table is the one joined", async () => {
    const opened = [];
    const url = `${sidecar.url}?table=autre`;
    const player = client(url, { table: "js-affinity", name: "Aengus", token: PLAYER_TOKEN,
                                 WebSocket: recording(opened) });
    const welcome = await player.connect();
    assert.deepEqual(opened, [url]);
    assert.equal(welcome.table, "js-affinity");
    const outcome = await player.roll({ ruleset: "bloodlust", params: { pool: 1 } });
    assert.equal(outcome.table, "js-affinity");
    await player.close();
  });
});

describe("the Node example", () => {
  test("examples/js-client/roll.mjs takes several URLs separated by commas", async () => {
    const { spawn } = await import("node:child_process");
    const { ROOT } = await import("./sidecar-process.mjs");
    const child = spawn(process.execPath, ["--experimental-websocket", "examples/js-client/roll.mjs",
      `${await dead()},${sidecar.url}`, PLAYER_TOKEN, "js-urls-example"],
    { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.setEncoding("utf8");
    try {
      await new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`example printed only:\n${out}`)), 15000);
        child.stdout.on("data", (chunk) => {
          out += chunk;
          if (/Nodejs — Escalade/.test(out)) { clearTimeout(timer); resolve(); }
        });
        child.on("exit", () => { clearTimeout(timer); reject(new Error(`example exited:\n${out}`)); });
      });
      assert.match(out, /chances de réussite : \d/);
    } finally {
      child.kill();
    }
  });
});
