// Physical dice marked on the Foundry card (issue 29, replay 2): faces the GM typed are
// said « dés physiques (tous) — saisis par Morgane » on every card that shows them, in the
// reader's one language; drawn dice are not. A decision that drew new faces on a typed
// roll marks the typed dice only, « dés 1–2 saisis par Morgane » (issue 29 follow-up).
// Real sidecars, in both dice modes.
import assert from "node:assert/strict";
import { after, describe, test } from "node:test";

import { SidecarClient } from "../../../sidecar/server/web/static/sidecar-client.js";
import { GM_TOKEN, PLAYER_TOKEN, startSidecar } from "../../../tests/js/sidecar-process.mjs";
import { renderCard } from "../scripts/sidecar-chat.js";

const stops = [];
after(async () => { for (const stop of stops) await stop(); });

for (const dice of ["secure", "provable"]) {
  describe(`physical dice on the card (--dice ${dice})`, () => {
    test("the GM's typed faces are marked with who typed them, drawn ones are not", async () => {
      const sidecar = await startSidecar({ extra: ["--dice", dice] });
      const options = { table: "foundry-manual", reconnect: false };
      const gm = new SidecarClient(sidecar.url, { ...options, name: "Morgane", role: "gm", token: GM_TOKEN });
      const lea = new SidecarClient(sidecar.url, { ...options, name: "Léa", role: "player", token: PLAYER_TOKEN });
      stops.push(async () => { await gm.close(); await lea.close(); await sidecar.stop(); });
      await gm.connect();
      await lea.connect();
      const typed = await gm.roll({ ruleset: "bloodlust", params: { pool: 3 }, dice: [3, 5, 6] });
      const drawn = await gm.roll({ ruleset: "bloodlust", params: { pool: 3 } });
      const seen = new Map((await lea.history()).events.map((event) => [event.seq, event]));
      for (const outcome of [typed, seen.get(typed.seq)]) {
        assert.match(renderCard(outcome, { lang: "fr" }),
          /<p class="sidecar-manual">dés physiques \(tous\) — saisis par Morgane<\/p>/);
        assert.match(renderCard(outcome, { lang: "en" }),
          /<p class="sidecar-manual">physical dice \(all\) — entered by Morgane<\/p>/);
      }
      for (const outcome of [drawn, seen.get(drawn.seq)]) {
        assert.doesNotMatch(renderCard(outcome, { lang: "fr" }), /sidecar-manual|die-typed/);
      }
      // The ladder at level 1 against 60 always fails and opens: its reroll draws a new
      // pair and shows both, the typed pair first — only that pair is physical.
      const opened = await gm.roll({ ruleset: "ladder", params: { level: 1, difficulty: 60 }, dice: [1, 2] });
      assert.equal(opened.open, true);
      const rerolled = await gm.react(opened.roll, "reroll");
      const copies = new Map((await lea.history()).events.map((event) => [event.seq, event]));
      for (const outcome of [rerolled, copies.get(rerolled.seq)]) {
        const fr = renderCard(outcome, { lang: "fr" });
        assert.match(fr, /<p class="sidecar-manual">dés 1–2 saisis par Morgane<\/p>/);
        assert.doesNotMatch(fr, /physiques|tous/);
        const typedDice = [...fr.matchAll(/<span class="sidecar-die[^"]*"/g)].map((m) => m[0].includes("die-typed"));
        assert.deepEqual(typedDice, [true, true, false, false]);
        assert.match(renderCard(outcome, { lang: "en" }), /<p class="sidecar-manual">dice 1–2 typed by Morgane<\/p>/);
      }
    });
  });
}
