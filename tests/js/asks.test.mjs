// Asked rolls, opposed rolls and sessions from the JavaScript client: `ask`, `answer`,
// `cancelAsk`, `asks`, `startSession` and the `ask`/`session` events, against a real
// sidecar (the `luck` test ruleset of tests/js/plugins; d6code's duel with physical dice).
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";

import { SidecarClient } from "../../sidecar/server/web/static/sidecar-client.js";
import { GM_TOKEN, ROOT, startSidecar } from "./sidecar-process.mjs";

let sidecar;
const clients = [];

async function joined(options) {
  const made = new SidecarClient(sidecar.url, { requestTimeout: 8000, reconnect: false, ...options });
  clients.push(made);
  await made.connect();
  return made;
}

async function seated(gm, table, name) {
  const { token } = await gm.addSeat(name);
  return joined({ table, name, token });
}

before(async () => {
  sidecar = await startSidecar({ extra: ["--plugins-dir", join(ROOT, "tests", "js", "plugins"),
                                         "--allow-player-dice"] });
});
after(async () => {
  await Promise.all(clients.map((made) => made.close()));
  await sidecar.stop();
});

describe("asked rolls", () => {
  test("the GM asks, the seats get an `ask` event and answer; a cancelled ask is refused", async () => {
    const table = "js-asks";
    const gm = await joined({ table, name: "MJ", role: "gm", token: GM_TOKEN });
    const alice = await seated(gm, table, "Alice");
    const bob = await seated(gm, table, "Bob");
    await gm.setSheet({ character: "Ysolde", ruleset: "luck", owner: "Bob", values: { level: 4 } });
    const aliceSees = alice.next("ask");
    const ask = await gm.ask({ to: ["Alice", "Ysolde"], ruleset: "luck", params: { target: 5 },
                               label: "Perception", mode: "gm" });
    assert.deepEqual(ask.to, [{ seat: "Alice", character: null }, { seat: "Bob", character: "Ysolde" }]);
    const seen = await aliceSees;
    assert.equal(seen.ask, ask.ask);
    assert.equal(seen.op, "open");
    assert.deepEqual((await alice.asks()).map((open) => open.ask), [ask.ask]);
    const gmSeesAnswer = gm.next("outcome", (outcome) => outcome.answers === ask.ask);
    const answer = await alice.answer(seen, [4]);
    assert.equal(answer.answers, ask.ask);
    assert.equal(answer.label, "Perception");
    assert.equal(answer.params.target, 5);
    assert.equal((await gmSeesAnswer).by.name, "Alice");
    const listed = await gm.asks();
    assert.equal(listed[0].answered.Alice.seq, answer.seq);
    await assert.rejects(alice.answer(ask.ask), (error) => error.code === "bad_message");
    // By id only: the ruleset is found in the server's list.
    const byBob = await bob.answer(ask.ask);
    assert.equal(byBob.character, "Ysolde");
    assert.deepEqual(await gm.asks(), []);
    const other = await gm.ask({ to: "Alice", ruleset: "luck" });
    const cancelSeen = alice.next("ask", (event) => event.op === "cancel");
    const cancelled = await gm.cancelAsk(other);
    assert.equal(cancelled.op, "cancel");
    assert.equal((await cancelSeen).ask, other.ask);
    await assert.rejects(alice.answer({ ask: other.ask, ruleset: "luck" }), (error) => error.code === "bad_message");
    await assert.rejects(alice.ask({ to: ["Bob"], ruleset: "luck" }), (error) => error.code === "forbidden");
  });

  test("an opposed duel: each side its own code, the last answer carries the winner", async () => {
    // Seed 003: Strengal 3D+5 rolls 11 → 16 against Krull 4D+1 rolling 13 → 14.
    const table = "js-duel";
    const gm = await joined({ table, name: "MJ", role: "gm", token: GM_TOKEN });
    const strengal = await seated(gm, table, "Strengal");
    const krull = await seated(gm, table, "Krull");
    const ask = await gm.ask({ to: ["Strengal", "Krull"], ruleset: "d6code", params: { difficulty: 0 },
                               opposed: true, each: { Strengal: { code: "3D+5" }, Krull: { code: "4D+1" } } });
    assert.equal(ask.opposed, true);
    const first = await strengal.answer(ask, [3, 4, 4]);
    assert.equal(first.result.score, 16);
    assert.equal(first.opposition, undefined);
    const strengalSees = strengal.next("outcome", (outcome) => outcome.opposition !== undefined);
    const last = await krull.answer(ask, [4, 4, 3, 2]);
    assert.equal(last.opposition.winner, "Strengal");
    assert.equal(last.opposition.draw, false);
    assert.deepEqual(last.opposition.sides.map((side) => side.seat), ["Strengal", "Krull"]);
    assert.deepEqual((await strengalSees).opposition, last.opposition);
  });

  test("a cooperative ask: every side rolls, the last answer says which one counts", async () => {
    const table = "js-cooperation";
    const gm = await joined({ table, name: "MJ", role: "gm", token: GM_TOKEN });
    const alice = await seated(gm, table, "Alice");
    const bob = await seated(gm, table, "Bob");
    const ask = await gm.ask({ to: ["Alice", "Bob"], ruleset: "d6code", params: { code: "2D", difficulty: 5 },
                               cooperative: true });
    assert.equal(ask.cooperative, true);
    assert.ok(!ask.opposed);
    await alice.answer(ask, [3, 4]); // (a success: no style point left to decide)
    const last = await bob.answer(ask, [6, 5]);
    assert.equal(last.cooperation.best, "Bob");
  });

  test("a new session is a public `session` event", async () => {
    const table = "js-session";
    const gm = await joined({ table, name: "MJ", role: "gm", token: GM_TOKEN });
    const alice = await seated(gm, table, "Alice");
    const aliceSees = alice.next("session");
    const started = await gm.startSession();
    assert.equal(started.number, 1);
    const seen = await aliceSees;
    assert.equal(seen.number, 1);
    assert.equal(alice.lastSeq, seen.seq);
    await assert.rejects(alice.startSession(), (error) => error.code === "forbidden");
  });

  test("an initiative order is journaled: a member's lastSeq follows it", async () => {
    const table = "js-initiative";
    const gm = await joined({ table, name: "MJ", role: "gm", token: GM_TOKEN });
    await gm.setSheet({ character: "Aengus", ruleset: "oweens", values: { pep: 3 } });
    const alice = await seated(gm, table, "Alice");
    const aliceSees = alice.next("initiative");
    const order = await gm.request({ type: "initiative", characters: ["Aengus"] });
    assert.equal(order.type, "initiative");
    const seen = await aliceSees;
    assert.equal(seen.seq, order.seq);
    assert.equal(alice.lastSeq, seen.seq);
  });
});
