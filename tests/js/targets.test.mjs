// Targets (contract §8) from the JavaScript client, against a real sidecar that loads the
// `duel` test ruleset (tests/js/plugins/duel.py: each target takes the die's face in wounds).
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";

import { SidecarClient } from "../../sidecar/server/web/static/sidecar-client.js";
import { GM_TOKEN, ROOT, startSidecar } from "./sidecar-process.mjs";

let sidecar;
const clients = [];

function client(options) {
  const made = new SidecarClient(sidecar.url, { requestTimeout: 8000, reconnect: false, ...options });
  clients.push(made);
  return made;
}

before(async () => { sidecar = await startSidecar({ extra: ["--plugins-dir", join(ROOT, "tests", "js", "plugins")] }); });
after(async () => {
  await Promise.all(clients.map((made) => made.close()));
  await sidecar.stop();
});

describe("targets", () => {
  test("a roll, odds and an ask aimed at characters; the target's card follows on its owner's client", async () => {
    const table = "js-duel";
    const gm = client({ table, name: "Morgane", role: "gm", token: GM_TOKEN });
    await gm.connect();
    const tokens = {};
    for (const name of ["Aengus", "Brady"]) tokens[name] = (await gm.addSeat(name)).token;
    await gm.setSheet({ character: "Aengus", ruleset: "duel", owner: "Aengus", values: {} });
    await gm.setSheet({ character: "Brady", ruleset: "duel", owner: "Brady", values: { defense: 5, wounds: 2 } });
    await gm.setSheet({ character: "Ogre", ruleset: "duel", owner: null, values: { defense: 3 } });
    const aengus = client({ table, name: "Aengus", token: tokens.Aengus });
    const brady = client({ table, name: "Brady", token: tokens.Brady });
    await aengus.connect();
    await brady.connect();

    const odds = await aengus.odds("duel", {}, {}, { character: "Aengus", targets: ["Brady"] });
    assert.equal(odds.p_success, 2 / 6);                       // Brady's defence, from its sheet
    const bradySees = brady.next("character", (entry) => entry.character === "Brady");
    const outcome = await aengus.roll({ ruleset: "duel", character: "Aengus", targets: ["Brady"] });
    const face = outcome.dice[0].face;
    assert.deepEqual(outcome.targets, ["Brady"]);
    assert.deepEqual(outcome.effects, { Brady: { wounds: face } });
    assert.equal(outcome.target_sheets, undefined);           // the roller learns no sheet
    assert.equal(aengus.characters.get("Brady")?.values, undefined);
    const card = await bradySees;
    assert.equal(card.values.wounds, 2 + face);
    assert.equal(brady.characters.get("Brady").owner, "Brady");

    // Hidden from Brady: a sheet event (op effect) carries its new values.
    const effect = brady.next("sheet", (event) => event.op === "effect");
    const hidden = await aengus.roll({ ruleset: "duel", character: "Aengus", targets: ["Brady"], mode: "gm" });
    const again = hidden.dice[0].face;
    assert.equal((await effect).values.wounds, 2 + face + again);
    assert.equal(brady.characters.get("Brady").values.wounds, 2 + face + again);
    assert.equal(brady.characters.get("Brady").owner, "Brady");

    // The GM asks Aengus to hit the Ogre (an NPC): the answer reads and changes its sheet.
    const asked = aengus.next("ask", (event) => event.op !== "cancel");
    const ask = await gm.ask({ to: "Aengus", ruleset: "duel", targets: ["Ogre"] });
    assert.deepEqual(ask.targets, ["Ogre"]);
    await asked;
    const ogre = gm.next("character", (entry) => entry.character === "Ogre");
    const answer = await aengus.answer(ask.ask);
    assert.deepEqual(answer.targets, ["Ogre"]);
    assert.equal(answer.result.difficulty, 3);
    assert.equal((await ogre).values.wounds, answer.dice[0].face);
  });
});
