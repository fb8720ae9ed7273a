// `/sc … ext.key=value`: extension options typed and checked from `welcome.options`, then
// sent with the roll (issue 15), against a real sidecar.
import assert from "node:assert/strict";
import { register } from "node:module";
import { after, before, describe, test } from "node:test";

import { SidecarClient } from "../../../sidecar/server/web/static/sidecar-client.js";
import { GM_TOKEN, startSidecar } from "../../../tests/js/sidecar-process.mjs";
import { CommandError, SidecarChat, parseCommand } from "../scripts/sidecar-chat.js";

register("../../../tests/js/http-loader.mjs", import.meta.url);

let sidecar;
let client;
let welcome;

before(async () => {
  sidecar = await startSidecar();
  client = new SidecarClient(sidecar.url, { table: "foundry-options", name: "Morgane", role: "gm",
    token: GM_TOKEN, requestTimeout: 8000 });
  welcome = await client.connect();
});
after(async () => {
  await client.close();
  await sidecar.stop();
});

describe("/sc with extension options", () => {
  test("ext.key=value is typed by the extension's description", () => {
    const command = parseCommand("/sc oweens dice=4 difficulty=2 combat.options=viser combat.zone=tête "
      + "combat.opponent_pep=3 combat.options=charger combat.initiative=oui", welcome.rulesets, "fr", welcome.options);
    assert.deepEqual(command.params, { dice: 4, difficulty: 2 });
    assert.deepEqual(command.options, { combat: { options: ["viser", "charger"], zone: "tête", opponent_pep: 3,
                                                  initiative: true } });
    // Without options, the command is as before (no `options` key).
    assert.equal(parseCommand("/sc oweens dice=4", welcome.rulesets, "fr", welcome.options).options, undefined);
  });

  test("an unknown extension or key, or the wrong game, is explained before anything is sent", () => {
    const parse = (text, lang = "fr") => () => parseCommand(text, welcome.rulesets, lang, welcome.options);
    assert.throws(parse("/sc oweens dice=3 nope.x=1"),
      (error) => error instanceof CommandError && /Extension inconnue « nope ».*combat/.test(error.message));
    assert.throws(parse("/sc oweens dice=3 combat.viser=oui"), /n'a pas d'option « viser ».*options/);
    assert.throws(parse("/sc oweens dice=3 combat.viser=yes", "en"), /"combat" has no option "viser"/);
    assert.throws(parse("/sc bloodlust pool=3 combat.options=viser"), /ne s'applique qu'à : oweens/);
  });

  test("the options reach the roll: Viser is applied", async () => {
    const chat = new SidecarChat({ client, userId: "u-morgane", gmIds: () => ["u-morgane"],
      post: async (message) => message });
    const card = await chat.handle("/sc oweens dice=4 difficulty=2 combat.options=viser combat.zone=tête --dice 6,5,4",
      "publicroll");
    const outcome = (await client.history({ after: card.seq - 1, limit: 1 })).events[0];
    assert.equal(outcome.result.combat.aimed, true);
    assert.equal(outcome.result.combat.zone, "tête");
    assert.equal(outcome.params.difficulty, 2);
    assert.deepEqual(outcome.applied.includes("combat"), true);
    const refused = await chat.handle("/sc oweens dice=4 combat.opponent_pep=99", "publicroll");
    assert.equal(refused.error, true);
    assert.match(refused.content, /opponent_pep/);
  });
});
