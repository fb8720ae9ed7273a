// Open rolls from the JavaScript client (decide after the dice): the `open` event,
// `react(roll, choice, dice)`, `mayDecide`, against a real sidecar loading the `luck` test
// ruleset (tests/js/plugins/luck.py: `second_chance` leaves a failed roll open).
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";

import { SidecarClient, SidecarError } from "../../sidecar/server/web/static/sidecar-client.js";
import { GM_TOKEN, PLAYER_TOKEN, ROOT, startSidecar } from "./sidecar-process.mjs";

let sidecar;
const clients = [];
const FAIL = { target: 7, second_chance: true }; // a d6 never reaches 7: always open

async function joined(options) {
  const made = new SidecarClient(sidecar.url, { requestTimeout: 8000, reconnect: false, ...options });
  clients.push(made);
  await made.connect();
  return made;
}

before(async () => {
  sidecar = await startSidecar({ extra: ["--plugins-dir", join(ROOT, "tests", "js", "plugins"),
                                         "--react-timeout", "600"] });
});
after(async () => {
  await Promise.all(clients.map((made) => made.close()));
  await sidecar.stop();
});

describe("open rolls", () => {
  test("an open roll fires `open`; its roller decides with react and everyone sees the decision", async () => {
    const table = "js-open";
    const alice = await joined({ table, name: "Alice", token: PLAYER_TOKEN });
    const bob = await joined({ table, name: "Bob", token: PLAYER_TOKEN });
    const gm = await joined({ table, name: "MJ", role: "gm", token: GM_TOKEN });
    const opened = [];
    alice.on("open", (outcome) => opened.push(outcome));
    const bobSees = bob.next("open");
    const out = await alice.roll({ ruleset: "luck", params: FAIL });
    assert.equal(out.open, true);
    assert.equal(out.default, "keep");
    assert.deepEqual(out.choices.map((choice) => choice.name), ["reroll", "keep"]);
    assert.deepEqual(out.choices[0].label, { fr: "Relancer", en: "Reroll" });
    assert.deepEqual(opened.map((outcome) => outcome.seq), [out.seq]);
    const seen = await bobSees;
    assert.equal(seen.roll, out.roll);
    assert.equal(alice.mayDecide(out), true);
    assert.equal(bob.mayDecide(seen), false);
    assert.equal(gm.mayDecide(seen), true);
    // A `gm: true` choice is a GM's alone: a roller is offered only the others.
    const gmOnly = { ...out, choices: out.choices.map((choice) => ({ ...choice, gm: true })) };
    assert.equal(alice.mayDecide(gmOnly), false);
    assert.equal(gm.mayDecide(gmOnly), true);
    const mixed = { ...out, choices: [{ ...out.choices[0], gm: true }, out.choices[1]] };
    assert.deepEqual(alice.choicesFor(mixed).map((choice) => choice.name), ["keep"]);
    assert.deepEqual(gm.choicesFor(mixed).map((choice) => choice.name), ["reroll", "keep"]);
    await assert.rejects(bob.react(out.roll, "keep"), (error) => error instanceof SidecarError && error.code === "forbidden");
    await assert.rejects(alice.react(out, "fly"), (error) => error.code === "bad_message" && error.details.field === "choice");
    const bobDecision = bob.next("outcome", (outcome) => outcome.reacts_to === out.seq);
    const decided = await alice.react(out, "reroll");
    assert.equal(decided.reacts_to, out.seq);
    assert.equal(decided.roll, out.roll);
    assert.equal(decided.choice, "reroll");
    assert.deepEqual(decided.reacted_by, { name: "Alice", role: "player" });
    assert.equal(decided.open, undefined);
    assert.equal(decided.dice.length, 1);
    assert.equal((await bobDecision).choice, "reroll");
    assert.equal(opened.length, 1); // a decision without new choices is not `open`
    await assert.rejects(alice.react(out.roll, "keep"), (error) => error.code === "bad_message" && error.details.field === "roll");
  });

  test("the GM decides with physical dice; a blind roll's roller is told nothing of it", async () => {
    const table = "js-open-blind";
    const alice = await joined({ table, name: "Alice", token: PLAYER_TOKEN });
    const gm = await joined({ table, name: "MJ", role: "gm", token: GM_TOKEN });
    const aliceOpens = [];
    const aliceOutcomes = [];
    alice.on("open", (outcome) => aliceOpens.push(outcome));
    alice.on("outcome", (outcome) => aliceOutcomes.push(outcome));
    const gmSees = gm.next("open");
    const out = await alice.roll({ ruleset: "luck", params: FAIL, mode: "blind" });
    // Whether it is open would tell how the dice went: its roller is not told.
    assert.equal(out.open, undefined);
    assert.equal(out.choices, undefined);
    assert.equal(alice.mayDecide(out), false);
    const full = await gmSees;
    assert.equal(full.roll, out.roll);
    await assert.rejects(alice.react(out.roll, "keep"), (error) => error.code === "bad_message" && error.details.field === "roll");
    await assert.rejects(gm.react(full, "reroll", [3, 4]), (error) => error.code === "bad_dice");
    const decided = await gm.react(full, "reroll", [6]);
    assert.equal(decided.dice[0].face, 6);
    assert.equal(decided.result.total, 6);
    assert.deepEqual(decided.reacted_by, { name: "MJ", role: "gm" });
    // Nor that it was decided: the GM's next public roll is her next outcome.
    const next = alice.next("outcome", (outcome) => outcome.roll !== out.roll);
    const mark = await gm.roll({ ruleset: "luck", params: { target: 1 }, dice: [1] });
    assert.equal((await next).seq, mark.seq);
    assert.equal(aliceOutcomes.some((outcome) => "reacts_to" in outcome), false);
    assert.equal(aliceOpens.length, 0);
  });
});
