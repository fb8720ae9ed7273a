// The JavaScript client from Node: join a table, ask the odds, roll, watch the table.
//
//   node --experimental-websocket roll.mjs ws://127.0.0.1:8765/ws <player-token>
//
// Several sidecar processes serving the same tables: their URLs separated by commas (the
// client joins through the first that answers and moves to the next after a drop).
// (Node 22 and later need no flag.) The client is the file the sidecar serves at
// /static/sidecar-client.js; a browser page or a Foundry module imports the same one.
import { SidecarClient, SidecarError } from "../../sidecar/server/web/static/sidecar-client.js";

const [url = "ws://127.0.0.1:8765/ws", token = "demo-player", table = "demo"] = process.argv.slice(2);
const urls = url.split(",").map((one) => one.trim()).filter(Boolean);
const client = new SidecarClient(urls.length > 1 ? urls : url, { table, name: "Nodejs", token, locale: "fr" });
client.on("state", (state) => { if (state === "reconnecting") console.log("(reconnexion…)"); });

try {
  await client.connect();
  const odds = await client.odds("oweens", { dice: 4, difficulty: 3 });
  console.log(`chances de réussite : ${(odds.p_success * 100).toFixed(1)} %`);
  const outcome = await client.roll({ ruleset: "oweens", params: { dice: 4, difficulty: 3 }, label: "Escalade" });
  console.log(outcome.text);
  console.log("en attente des jets de la table (Ctrl-C pour quitter)…");
  client.on("outcome", (event) => {
    if (event.seq !== outcome.seq) console.log(`#${event.seq} ${event.text}`);
  });
} catch (error) {
  if (!(error instanceof SidecarError)) throw error;
  console.error(`refusé : ${error.code} — ${error.serverMessage}`);
  process.exitCode = 1;
  await client.close();
}
