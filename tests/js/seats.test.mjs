// Seats and characters from the JavaScript client (PROTOCOL.md §7), against a real sidecar
// that also loads the `luck` test ruleset (tests/js/plugins/luck.py), whose rolls spend.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";

import { SidecarClient, SidecarError } from "../../sidecar/server/web/static/sidecar-client.js";
import { GM_TOKEN, PLAYER_TOKEN, ROOT, startSidecar } from "./sidecar-process.mjs";

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

async function refused(options) {
  const made = client(options);
  await assert.rejects(made.connect(), (error) => error instanceof SidecarError && error.code === "forbidden");
}

describe("seats and characters", () => {
  test("the GM adds a seat; its token joins under its name only; its character rolls and spends", async () => {
    const table = "js-seats";
    const gm = client({ table, name: "Morgane", role: "gm", token: GM_TOKEN });
    await gm.connect();
    const seat = await gm.addSeat("Aengus");
    assert.equal(seat.name, "Aengus");
    assert.ok(seat.link.endsWith(`#token=${seat.token}`));
    assert.match(seat.qr, /^data:image\/svg\+xml/);
    await refused({ table, name: "Brann", token: seat.token });
    await refused({ table, name: "Aengus", token: PLAYER_TOKEN });

    const player = client({ table, name: "Aengus", token: seat.token });
    const welcome = await player.connect();
    assert.equal(welcome.seat, true);
    const arrives = player.next("character", (entry) => entry.character === "Aengus");
    const made = await gm.setSheet({ character: "Aengus", ruleset: "luck", owner: "Aengus",
                                     values: { level: 1, skills: { Nager: 1 } }, reason: "création" });
    assert.equal(made.values.luck, 3);
    assert.equal(made.reason, "création");
    assert.equal((await arrives).values.level, 1);          // the owner sees it live
    assert.deepEqual((await player.sheets()).map((entry) => entry.character), ["Aengus"]);
    assert.deepEqual((await gm.seats()).map((entry) => entry.name), ["Aengus"]);

    const odds = await player.odds("luck", { skill: "Nager" }, {}, { character: "Aengus" });
    assert.equal(odds.p_success, 0.5);
    const gmSees = gm.next("outcome", (outcome) => outcome.character === "Aengus");
    const outcome = await player.roll({ ruleset: "luck", params: { push: 2 }, character: "Aengus" });
    assert.deepEqual(outcome.spent, { luck: 2 });
    assert.equal(outcome.sheet.luck, 1);
    assert.equal(player.characters.get("Aengus").values.luck, 1);
    assert.deepEqual((await gmSees).spent, { luck: 2 });
    assert.equal(gm.characters.get("Aengus").values.luck, 1);

    await assert.rejects(player.roll({ ruleset: "luck", params: { push: 2 }, character: "Aengus" }), (error) => {
      assert.equal(error.code, "insufficient");
      assert.equal(error.details.field, "luck");
      assert.equal(error.details.have, 1);
      return true;
    });
    const given = await gm.adjustSheet({ character: "Aengus", delta: { luck: 1 }, reason: "belle scène" });
    assert.deepEqual(given.changed, { luck: [1, 2] });
    const rested = player.next("sheet", (event) => event.op === "refill");
    await gm.refill({ what: "rest", reason: "nuit au camp" });
    assert.equal((await rested).values.luck, 3);
    assert.equal(player.characters.get("Aengus").values.luck, 3);

    // A new token closes the seat's connection, for good; the old token no longer joins.
    const closed = player.next("state", (state) => state === "closed");
    const rotated = await gm.rotateSeat("Aengus");
    assert.notEqual(rotated.token, seat.token);
    await closed;
    await refused({ table, name: "Aengus", token: seat.token });
    const again = client({ table, name: "Aengus", token: rotated.token });
    await again.connect();
    assert.equal(again.characters.get("Aengus").values.luck, 3); // from welcome.characters
    const gone = again.next("character", (entry) => entry.removed === true);
    await gm.removeSheet({ character: "Aengus", reason: "mort au combat" });
    await gone;
    assert.equal(again.characters.has("Aengus"), false);
    assert.equal((await gm.removeSeat("Aengus")).removed, true);
    assert.deepEqual(await gm.seats(), []);
  });
});
