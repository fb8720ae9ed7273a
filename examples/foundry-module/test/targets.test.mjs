// `/sc` aimed at the tokens the user targets in Foundry (contract §8), module.js in the fake
// Foundry against a real sidecar with the `duel` test ruleset (tests/js/plugins/duel.py:
// each target takes the die's face in wounds; the difficulty is the first target's defence).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { register } from "node:module";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";

import { SidecarClient } from "../../../sidecar/server/web/static/sidecar-client.js";
import { GM_TOKEN, ROOT, startSidecar } from "../../../tests/js/sidecar-process.mjs";
import {
  parseCommand, renderAskCard, renderAskedCard, renderEffects, targetedNames, targetsFor,
} from "../scripts/sidecar-chat.js";
import { installFoundry } from "./fake-foundry.mjs";

register("../../../tests/js/http-loader.mjs", import.meta.url);
const FRENCH = JSON.parse(readFileSync(new URL("../lang/fr.json", import.meta.url), "utf8"));
const table = "foundry-duel";

let sidecar;
let gm;
let seat;
let variants = 0;

before(async () => {
  sidecar = await startSidecar({ extra: ["--plugins-dir", join(ROOT, "tests", "js", "plugins")] });
  gm = new SidecarClient(sidecar.url, { table, name: "Morgane", role: "gm", token: GM_TOKEN, reconnect: false });
  await gm.connect();
  seat = await gm.addSeat("Aengus");
  await gm.addSeat("Brady");
  await gm.setSheet({ character: "Aengus", ruleset: "duel", owner: "Aengus", values: {} });
  await gm.setSheet({ character: "Brady", ruleset: "duel", owner: "Brady", values: { defense: 5, wounds: 2 } });
  await gm.setSheet({ character: "Ogre", ruleset: "duel", owner: null, values: { defense: 3 } });
});
after(async () => {
  await gm.close();
  await sidecar.stop();
});

/** module.js booted in the fake Foundry as `user`, joined to the sidecar. */
async function world(user, settings) {
  const fake = installFoundry({ users: [{ active: true, ...user }], me: user.name, translations: FRENCH,
    settings: { url: sidecar.url, table, playerToken: "", gmToken: "", seatToken: "", seatName: "", character: "",
                mirror: false, ...settings } });
  const created = [];
  globalThis.Hooks.on("createChatMessage", (message) => created.push(message));
  variants += 1;
  await import(`../scripts/module.js?targets-${variants}`);
  await fake.boot();
  const module = fake.game.modules.get("vtt-sidecar");
  await module.api.start();
  return {
    fake, module,
    async chat(text) {
      const before = created.length;
      assert.equal(await fake.chat(text), null);
      while (created.length === before) await new Promise((resolve) => setTimeout(resolve, 10));
      return created[before];
    },
    async close() { await module.api.stop(); fake.uninstall(); },
  };
}

describe("targets from Foundry's targeting", () => {
  test("the targeted tokens' actors are the targets; --cible names them instead, - none", () => {
    const tokens = [{ name: "Gros Ogre", actor: { name: "Ogre" } }, { name: "Brady" }, { name: "Ogre", actor: { name: "Ogre" } }];
    assert.deepEqual(targetedNames(tokens), ["Ogre", "Brady", "Ogre"]);
    assert.deepEqual(targetsFor({}, targetedNames(tokens)), ["Ogre", "Brady"]);
    const rulesets = [{ name: "duel", params: {} }];
    assert.deepEqual(targetsFor(parseCommand("/sc duel --cible Brady,Ogre", rulesets), ["X"]), ["Brady", "Ogre"]);
    assert.deepEqual(targetsFor(parseCommand("/sc duel --target Brady --cible Ogre", rulesets), ["X"]), ["Brady", "Ogre"]);
    assert.deepEqual(targetsFor(parseCommand("/sc duel --cible -", rulesets), ["X"]), []);
    assert.deepEqual(parseCommand("/sc ask duel --to Aengus --cible Ogre", rulesets).targets, ["Ogre"]);
  });

  test("the card says what the roll did: before → after for whom sees the target, else what was dealt", () => {
    const sheet = { wounds: { type: "int", label: { fr: "Blessures", en: "Wounds" } } };
    const outcome = { targets: ["Brady", "Ogre"], effects: { Brady: { wounds: 3 }, Ogre: { wounds: 3 } },
                      target_sheets: { Brady: { wounds: 5 } } };
    const html = renderEffects(outcome, { lang: "fr", sheet });
    assert.match(html, /Contre Brady, Ogre/);
    assert.match(html, /Blessures de Brady : 2 → 5/);
    assert.match(html, /Blessures d&#39;Ogre : \+3|Blessures d'Ogre : \+3/);
    assert.match(renderEffects(outcome, { lang: "en", sheet }), /Brady&#39;s Wounds: 2 → 5|Brady's Wounds: 2 → 5/);
    assert.equal(renderEffects({ targets: [] }), "");
    // An ask's cards say whom its answers are aimed at.
    const ask = { ask: "a1", ruleset: "duel", to: [{ seat: "Aengus" }], targets: ["Ogre"] };
    assert.match(renderAskCard(ask), /Contre Ogre/);
    assert.match(renderAskedCard(ask, { seat: "Aengus" }), /Contre Ogre/);
    assert.doesNotMatch(renderAskCard({ ...ask, targets: [] }), /Contre/);
  });

  test("a player's /sc hits the targeted token's actor; the GM's card shows it; an ask at the NPC", async () => {
    // (One fake Foundry at a time: it installs Foundry's globals.)
    const player = await world({ id: "aaaaaaaaaaaaaaaa", name: "Aengus" }, { seatToken: seat.token });
    try {
      // Aengus targets Brady's token (named otherwise than its actor): the odds read his defence.
      player.fake.target(["Brady le Rouge", "Brady"]);
      const odds = await player.chat("/sc odds duel");
      assert.match(odds.content, /33,3 %/);
      const card = await player.chat("/sc duel Frapper");
      const seq = card.flags["vtt-sidecar"].seq;
      const [hit] = (await gm.history({ after: seq - 1, limit: 1 })).events;
      const face = hit.dice[0].face;
      assert.deepEqual(hit.targets, ["Brady"]);
      assert.deepEqual(hit.effects, { Brady: { wounds: face } });
      assert.match(card.content, /Contre Brady/);
      assert.match(card.content, new RegExp(`Blessures de Brady : \\+${face}<`));   // the roller: what was dealt
      // --cible - : a blow at nobody, whatever is targeted.
      const plain = await player.chat("/sc duel --cible -");
      assert.doesNotMatch(plain.content, /sidecar-effects/);
    } finally {
      await player.close();
    }
    const master = await world({ id: "bbbbbbbbbbbbbbbb", name: "Morgane", isGM: true }, { gmToken: GM_TOKEN });
    try {
      // The GM targets the Ogre (an NPC) and rolls: its card says before → after.
      master.fake.target(["Ogre"]);
      const blow = await master.chat("/sc duel");
      const [own] = (await gm.history({ after: blow.flags["vtt-sidecar"].seq - 1, limit: 1 })).events;
      assert.match(blow.content, new RegExp(`Blessures d&#39;Ogre : 0 → ${own.dice[0].face}<`));
      // An ask aimed at the targeted Ogre.
      await master.chat("/sc ask duel --to Aengus Frapper");
      const ask = (await gm.asks()).at(-1);
      assert.deepEqual(ask.targets, ["Ogre"]);
    } finally {
      await master.close();
    }
  });
});
