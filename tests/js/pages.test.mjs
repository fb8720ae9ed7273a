// A table larger than one frame, from the JavaScript client (issue 25, item 9): 50 seats
// with 64-character names, 600 characters, 120 open asks naming every seat, on a real
// sidecar. The welcome carries the first page of characters and of asks (`characters_more`,
// `asks_more`); the client lists the rest of the characters by itself (`listed`,
// `characters` event) and `asks()` / `seats()` page through.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { SidecarClient } from "../../sidecar/server/web/static/sidecar-client.js";
import { GM_TOKEN, startSidecar } from "./sidecar-process.mjs";

const SEATS = Array.from({ length: 50 }, (_, i) => `${String(i).padStart(2, "0")} ${"Siège-".repeat(10)}x`);
const CHARACTERS = Array.from({ length: 600 }, (_, i) => `${String(i).padStart(4, "0")} ${"Personnage ".repeat(5)}yyyy`);
const ASKS = 120;

let sidecar;
const clients = [];

async function joined(options) {
  const made = new SidecarClient(sidecar.url, { requestTimeout: 20000, reconnect: false, ...options });
  clients.push(made);
  await made.connect();
  return made;
}

before(async () => { sidecar = await startSidecar(); });
after(async () => {
  await Promise.all(clients.map((made) => made.close()));
  await sidecar.stop();
});

describe("lists in pages", () => {
  test("a GM at a table of 50 long seats, 600 characters and 120 asks gets every one", async () => {
    const table = "js-pages";
    assert.deepEqual(new Set([...SEATS, ...CHARACTERS].map((name) => name.length)), new Set([64]));
    const gm = await joined({ table, name: "MJ", role: "gm", token: GM_TOKEN });
    for (const name of SEATS) await gm.addSeat(name);
    for (const [i, character] of CHARACTERS.entries()) {
      await gm.setSheet({ character, ruleset: "bloodlust", owner: SEATS[i % SEATS.length] });
    }
    for (let i = 0; i < ASKS; i += 1) {
      await gm.ask({ to: SEATS, ruleset: "bloodlust", params: { pool: 1 }, label: `Demande ${i}` });
    }

    const late = await joined({ table, name: "MJ2", role: "gm", token: GM_TOKEN });
    assert.equal(late.welcome.characters_more, true);
    assert.equal(late.welcome.asks_more, true);
    assert.ok(late.welcome.asks.length < ASKS && late.characters.size < CHARACTERS.length);
    const added = [];
    late.on("characters", (entries) => added.push(...entries));
    await late.listed;
    assert.equal(late.characters.size, CHARACTERS.length);
    assert.equal(added.length + late.welcome.characters.length, CHARACTERS.length);

    const pages = [];
    const asks = await late.asks({ onPage: (page) => pages.push(page.length) });
    assert.deepEqual(asks.map((ask) => ask.label), Array.from({ length: ASKS }, (_, i) => `Demande ${i}`));
    assert.ok(pages.length > 1, `${pages}`);
    const after = late.welcome.asks.at(-1).seq;
    const rest = await late.asks({ after });
    assert.equal(late.welcome.asks.length + rest.length, ASKS);

    const seats = await late.seats();
    assert.deepEqual(seats.map((seat) => seat.name), [...SEATS].sort());
    assert.equal(seats.reduce((sum, seat) => sum + seat.characters.length, 0), CHARACTERS.length);
  });
});
