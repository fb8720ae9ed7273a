// The JavaScript client against a real sidecar process (node --test).
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";

import { SidecarClient, SidecarError } from "../../sidecar/server/web/static/sidecar-client.js";
import { GM_TOKEN, PLAYER_TOKEN, startSidecar } from "./sidecar-process.mjs";

let sidecar;
const clients = [];

function client(options) {
  const made = new SidecarClient(options.url ?? sidecar.url, { requestTimeout: 8000, ...options });
  clients.push(made);
  return made;
}

before(async () => { sidecar = await startSidecar(); });
after(async () => {
  await Promise.all(clients.map((made) => made.close()));
  await sidecar.stop();
});

describe("joining", () => {
  test("hello → welcome lists the rulesets and their params", async () => {
    const gm = client({ table: "js-join", name: "Morgane", role: "gm", token: GM_TOKEN });
    const welcome = await gm.connect();
    assert.equal(welcome.type, "welcome");
    assert.equal(welcome.protocol, 1);
    assert.equal(welcome.role, "gm");
    const names = welcome.rulesets.map((ruleset) => ruleset.name).sort();
    assert.deepEqual(names, ["bloodlust", "d6code", "dice", "ladder", "oweens", "seuil"]);
    assert.equal(welcome.rulesets.find((r) => r.name === "oweens").params.dice.type, "int");
    assert.equal(gm.state, "open");
  });

  test("a wrong token is a typed forbidden error, and no reconnection follows", async () => {
    const intruder = client({ table: "js-join", name: "Mallory", role: "gm", token: "nope" });
    // When the server closes the socket, the client either gives up or schedules a retry.
    const after = intruder.next("state", (state) => state === "closed" || state === "reconnecting", 8000);
    await assert.rejects(intruder.connect(), (error) => {
      assert.ok(error instanceof SidecarError);
      assert.equal(error.code, "forbidden");
      return true;
    });
    assert.equal(await after, "closed");
    assert.equal(intruder._retryTimer, null);
  });

  test("a client re-joining a server is not sent the descriptions again, and has them", async () => {
    // A URL of its own (the server ignores the query): nothing is cached for it yet.
    const url = `${sidecar.url}?cache=js-catalogue`;
    const first = client({ url, table: "js-catalogue", name: "Un", token: PLAYER_TOKEN });
    const whole = await first.connect();
    assert.equal(typeof whole.catalogue, "string");
    assert.ok(first.welcomeBytes > 20000, `${first.welcomeBytes}`);
    await first.close();
    for (const binary of [true, false]) {
      const again = client({ url, table: "js-catalogue", name: "Deux", token: PLAYER_TOKEN, binary });
      const light = await again.connect();
      assert.ok(again.welcomeBytes * 10 < first.welcomeBytes, `${again.welcomeBytes}`);
      assert.equal(light.catalogue, whole.catalogue);
      assert.deepEqual(light.rulesets, whole.rulesets);
      assert.deepEqual(light.extensions, whole.extensions);
      assert.deepEqual(light.options, whole.options);
      await again.close();
    }
  });

  test("JSON text frames work as well as MessagePack", async () => {
    const textual = client({ table: "js-join", name: "Texte", role: "player",
                             token: PLAYER_TOKEN, binary: false, locale: "en" });
    await textual.connect();
    const outcome = await textual.roll({ ruleset: "bloodlust", params: { pool: 3 } });
    assert.equal(outcome.dice.length, 3);
    assert.match(outcome.text, /Texte/);
  });
});

describe("rolling", () => {
  test("the roller gets its outcome with its id; the table gets it too", async () => {
    const player = client({ table: "js-roll", name: "Aengus", token: PLAYER_TOKEN });
    const watcher = client({ table: "js-roll", name: "Brann", role: "observer" });
    await player.connect();
    await watcher.connect();
    const seen = watcher.next("outcome");
    const outcome = await player.roll({ ruleset: "oweens", params: { dice: 4, difficulty: 3 },
                                        label: "Escalader" });
    assert.equal(outcome.type, "outcome");
    assert.ok(outcome.id.startsWith(player._prefix));
    assert.equal(outcome.dice.length, 4);
    assert.ok(["botch", "failure", "narrow", "success", "critical"].includes(outcome.result.kind));
    assert.equal(typeof outcome.result.label.fr, "string");
    const theirs = await seen;
    assert.equal(theirs.seq, outcome.seq);
    assert.equal(theirs.id, undefined); // the id is only in the roller's copy
    assert.deepEqual(theirs.dice, outcome.dice);
    assert.equal(player.lastSeq, outcome.seq);
  });

  test("physical dice from a GM decide the roll", async () => {
    const gm = client({ table: "js-roll", name: "Morgane", role: "gm", token: GM_TOKEN });
    await gm.connect();
    const outcome = await gm.roll({ ruleset: "oweens", params: { dice: 4, difficulty: 3 },
                                    dice: [6, 6, 1, 3] });
    assert.deepEqual(outcome.dice.map((die) => die.face), [6, 6, 1, 3]);
    await assert.rejects(gm.roll({ ruleset: "oweens", params: { dice: 4 }, dice: [6] }),
      (error) => error.code === "bad_dice");
  });

  test("blind: hidden to the roller, whole to the GM", async () => {
    const player = client({ table: "js-blind", name: "Aengus", token: PLAYER_TOKEN });
    const gm = client({ table: "js-blind", name: "Morgane", role: "gm", token: GM_TOKEN });
    await player.connect();
    await gm.connect();
    const gmCopy = gm.next("outcome");
    const mine = await player.roll({ ruleset: "bloodlust", params: { pool: 4 }, mode: "blind" });
    assert.deepEqual(mine.result, { hidden: true });
    assert.deepEqual(mine.dice ?? [], []);
    const whole = await gmCopy;
    assert.equal(whole.dice.length, 4);
    assert.equal(typeof whole.result.success, "boolean");
  });

  test("errors are typed and name the parameter", async () => {
    const player = client({ table: "js-roll", name: "Erreurs", token: PLAYER_TOKEN });
    await player.connect();
    await assert.rejects(player.roll({ ruleset: "oweens", params: { dice: 99 } }), (error) => {
      assert.ok(error instanceof SidecarError);
      assert.equal(error.code, "invalid_params");
      assert.equal(error.details.param, "dice");
      return true;
    });
    await assert.rejects(player.roll({ ruleset: "nope" }), (error) => error.code === "unknown_ruleset");
    // The connection stays usable after an error.
    const outcome = await player.roll({ ruleset: "seuil", params: { level: 2, threshold: 13 } });
    assert.equal(outcome.ruleset, "seuil");
  });
});

describe("odds", () => {
  test("exact odds, nothing rolled", async () => {
    const player = client({ table: "js-odds", name: "Calcul", token: PLAYER_TOKEN });
    await player.connect();
    // One d10 against 6: success on 6–10, exactly one half.
    const odds = await player.odds("bloodlust", { pool: 1, difficulty: 6 });
    assert.equal(odds.type, "odds");
    assert.equal(odds.p_success, 0.5);
    const total = Object.values(odds.kinds).reduce((sum, p) => sum + p, 0);
    assert.ok(Math.abs(total - 1) < 1e-12);
    const sum = odds.distribution.values.reduce((acc, [, p]) => acc + p, 0);
    assert.ok(Math.abs(sum - 1) < 1e-12);
    const history = await player.history({ after: 0 });
    assert.equal(history.events.length, 0);
  });
});

describe("reconnection", () => {
  test("after a server restart it resumes and gets every missed outcome once", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sidecar-js-"));
    const db = join(dir, "journal.db");
    let server = await startSidecar({ db });
    try {
      const player = client({ url: server.url, table: "js-resume", name: "Aengus",
                              token: PLAYER_TOKEN, minDelay: 600000 });
      const received = [];
      const states = [];
      player.on("outcome", (outcome) => received.push(outcome.seq));
      player.on("state", (state) => states.push(state));
      await player.connect();
      const first = await player.roll({ ruleset: "bloodlust", params: { pool: 2 } });
      const away = player.next("state", (state) => state === "reconnecting", 15000);
      await server.stop();
      await away;
      server = await startSidecar({ db, port: server.port });
      const gm = client({ url: server.url, table: "js-resume", name: "Morgane", role: "gm",
                          token: GM_TOKEN, reconnect: false });
      await gm.connect();
      const missed = [];
      for (let i = 0; i < 3; i += 1) {
        missed.push((await gm.roll({ ruleset: "bloodlust", params: { pool: 2 } })).seq);
      }
      // No retry on its own before these rolls: it tries when told to.
      const rejoined = player.next("welcome", () => true, 15000);
      assert.equal(player.state, "reconnecting");
      player.reconnectNow();
      const welcome = await rejoined;
      assert.equal(welcome.replayed, 3);
      while (received.length < 4) await player.next("outcome", () => true, 5000);
      assert.deepEqual(received, [first.seq, ...missed]);
      assert.ok(states.includes("reconnecting"));
      assert.equal(player.state, "open");
      // And it keeps working live.
      const live = await player.roll({ ruleset: "bloodlust", params: { pool: 1 } });
      assert.equal(live.seq, missed[2] + 1);
    } finally {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a roll cut off by a drop is answered once, never rolled twice", async () => {
    const player = client({ table: "js-drop", name: "Aengus", token: PLAYER_TOKEN, minDelay: 50 });
    await player.connect();
    const pending = player.roll({ ruleset: "oweens", params: { dice: 3 }, id: "js-drop-roll-1" });
    player.dropConnection();
    const outcome = await pending;
    assert.equal(outcome.id, "js-drop-roll-1");
    while (player.state !== "open") await new Promise((resolve) => setTimeout(resolve, 20));
    const again = await player.roll({ ruleset: "oweens", params: { dice: 3 }, id: "js-drop-roll-1" });
    assert.equal(again.duplicate, true);
    assert.equal(again.seq, outcome.seq);
    const page = await player.history({ after: 0 });
    assert.equal(page.events.filter((event) => event.ruleset === "oweens").length, 1);
  });
});

describe("the Node example", () => {
  test("examples/js-client/roll.mjs joins, prints the odds, rolls and watches", async () => {
    const { spawn } = await import("node:child_process");
    const { ROOT } = await import("./sidecar-process.mjs");
    const child = spawn(process.execPath, ["--experimental-websocket", "examples/js-client/roll.mjs",
      sidecar.url, PLAYER_TOKEN, "js-example"], { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.setEncoding("utf8");
    const lines = (count) => new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`example printed only:\n${out}`)), 10000);
      const check = () => {
        if (out.split("\n").length > count) { clearTimeout(timer); child.stdout.off("data", onData); resolve(); }
      };
      const onData = (chunk) => { out += chunk; check(); };
      child.stdout.on("data", onData);
      check();
    });
    try {
      await lines(3);
      // 4 d6 against 3: exact odds, as the engine gives them (French decimal point aside).
      const odds = await (await joined()).odds("oweens", { dice: 4, difficulty: 3 });
      assert.match(out, new RegExp(`chances de réussite : ${(odds.p_success * 100).toFixed(1)} %`));
      assert.match(out, /Nodejs — Escalade/);
      const other = client({ table: "js-example", name: "Brann", token: PLAYER_TOKEN });
      await other.connect();
      const outcome = await other.roll({ ruleset: "seuil", params: { level: 2, threshold: 13 }, label: "Nager" });
      await lines(4);
      assert.match(out, new RegExp(`#${outcome.seq} Brann — Nager`));
    } finally {
      child.kill();
    }
  });
});

async function joined() {
  // A token: an observer opens a table nobody has opened only with one.
  const made = client({ table: "js-example-odds", name: "calc", role: "observer", token: PLAYER_TOKEN });
  await made.connect();
  return made;
}
