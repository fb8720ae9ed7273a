// The Foundry module's *Sidecar address* setting with several addresses separated by
// commas (sidecar processes serving the same tables), in the faked Foundry against a real
// sidecar: the client is loaded from the first address that serves it, joins through it,
// and after a drop goes on through the next addresses.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { register } from "node:module";
import { createServer } from "node:net";
import { after, before, describe, test } from "node:test";

import { PLAYER_TOKEN, startSidecar } from "../../../tests/js/sidecar-process.mjs";
import { installFoundry } from "./fake-foundry.mjs";

register("../../../tests/js/http-loader.mjs", import.meta.url);
const FRENCH = JSON.parse(readFileSync(new URL("../lang/fr.json", import.meta.url), "utf8"));

let sidecar;
before(async () => { sidecar = await startSidecar(); });
after(async () => { await sidecar.stop(); });

/** A WebSocket URL nothing listens at (connecting is refused). */
async function dead() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return `ws://127.0.0.1:${port}/ws`;
}

describe("the Sidecar address setting with several addresses", () => {
  test("the first address down: loaded and joined through the next; a drop goes on", async () => {
    const down = await dead();
    const fake = installFoundry({ users: [{ name: "Aengus", active: true }], me: "Aengus", translations: FRENCH,
      settings: { url: `${down}, ${sidecar.url}`, table: "foundry-urls", playerToken: PLAYER_TOKEN, gmToken: "",
                  seatToken: "", seatName: "", character: "", mirror: false } });
    const created = [];
    globalThis.Hooks.on("createChatMessage", (message) => created.push(message));
    // (module.js hooks into Foundry as it loads: imported once the fake is in place.)
    const { serverUrls } = await import("../scripts/module.js?urls");
    assert.deepEqual(serverUrls("ws://a:1/ws"), ["ws://a:1/ws"]);
    assert.deepEqual(serverUrls(" ws://a:1/ws ,ws://b:2/ws,, "), ["ws://a:1/ws", "ws://b:2/ws"]);
    assert.deepEqual(serverUrls(""), [""]);
    await fake.boot();
    const module = fake.game.modules.get("vtt-sidecar");
    try {
      await module.api.start();
      // Joined at the first try: one "connected" note, no "unreachable" error.
      assert.deepEqual(fake.notes.map((note) => note.level), ["info"], JSON.stringify(fake.notes));
      const client = module.api.client;
      assert.deepEqual(client.urls, [sidecar.url, down]);
      assert.equal(client.url, sidecar.url);
      // The socket carries the table (the client loaded from the sidecar adds it): a load
      // balancer in front of several processes keeps the table's members on one of them.
      assert.equal(client._ws.url, `${sidecar.url}?table=foundry-urls`);
      const rejoined = client.next("welcome", () => true, 20000);
      client.dropConnection();
      await rejoined; // through the dead address (refused), then round to the live one
      assert.equal(client.url, sidecar.url);
      assert.equal(client.state, "open");
      assert.equal(await fake.chat("/sc bloodlust pool=2 Sauter"), null);
      while (!created.length) await new Promise((resolve) => setTimeout(resolve, 10));
      assert.match(created[0].content, /sidecar-card/);
    } finally {
      await module.api?.stop();
      fake.uninstall();
    }
  });
});
