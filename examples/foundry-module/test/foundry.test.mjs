// The Foundry module under Node: command parsing, mode mapping and cards, then the chat
// bridge and the module's Foundry glue against a real sidecar (Foundry itself is faked:
// only its Hooks/game/ChatMessage surface is).
import assert from "node:assert/strict";
import { register } from "node:module";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";

import { SidecarClient } from "../../../sidecar/server/web/static/sidecar-client.js";
import { GM_TOKEN, PLAYER_TOKEN, ROOT, startSidecar } from "../../../tests/js/sidecar-process.mjs";
import {
  CommandError, FOUNDRY_TO_SIDECAR, SIDECAR_TO_FOUNDRY, SidecarChat, bindAnswers, bindChoices, chatVisibility,
  chooseCharacter, closeAnswer, closeChoices, escapeHtml, parseCommand, renderAskCard, renderAskedCard, renderCard,
  renderChoices, renderHelp, renderOdds, renderSheets, renderSpent,
} from "../scripts/sidecar-chat.js";
import { installFoundry } from "./fake-foundry.mjs";
import { readFileSync } from "node:fs";

register("../../../tests/js/http-loader.mjs", import.meta.url);
const FRENCH = JSON.parse(readFileSync(new URL("../lang/fr.json", import.meta.url), "utf8"));

let sidecar;
let rulesets;
const clients = [];

async function joined(options) {
  const client = new SidecarClient(sidecar.url, { requestTimeout: 8000, ...options });
  clients.push(client);
  await client.connect();
  return client;
}

before(async () => {
  sidecar = await startSidecar();
  const probe = await joined({ table: "foundry-probe", name: "probe", role: "observer", token: PLAYER_TOKEN });
  rulesets = probe.welcome.rulesets;
});
after(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await sidecar.stop();
});

describe("the /sc command", () => {
  test("a roll with params converted by the ruleset's description", () => {
    const command = parseCommand('/sc oweens dice=4 difficulty=3 bagage "Escalader le mur"', rulesets);
    assert.deepEqual(command, { action: "roll", ruleset: "oweens", label: "Escalader le mur", mode: null,
                                dice: null, character: null, params: { dice: 4, difficulty: 3, bagage: true } });
  });

  test("named levels, lists, booleans in words, flags", () => {
    const ladder = parseCommand('/sc ladder level=5 difficulty="Très difficile" reroll=oui --mode blindroll', rulesets);
    assert.deepEqual(ladder.params, { level: 5, difficulty: "Très difficile", reroll: true });
    assert.equal(ladder.mode, "blind");
    const seuil = parseCommand("/sc seuil level=3 threshold=22 factors=stress_bas,conseille --dice 4,7,2,3", rulesets);
    assert.deepEqual(seuil.params, { level: 3, threshold: 22, factors: ["stress_bas", "conseille"] });
    assert.deepEqual(seuil.dice, [4, 7, 2, 3]);
    const code = parseCommand("/sc d6code code=4D+2 difficulty=15 --mode gm « Piloter »", rulesets);
    assert.deepEqual(code.params, { code: "4D+2", difficulty: 15 });
    assert.equal(code.label, "Piloter");
    assert.equal(code.mode, "gm");
  });

  test("odds, help, and what is not a command", () => {
    assert.equal(parseCommand("/sc odds bloodlust pool=3", rulesets).action, "odds");
    assert.deepEqual(parseCommand("/sc", rulesets), { action: "help" });
    assert.deepEqual(parseCommand("/sc aide", rulesets), { action: "help" });
    assert.equal(parseCommand("bonjour /sc", rulesets), null);
    assert.equal(parseCommand("/scene", rulesets), null);
  });

  test("mistakes are explained in French (and English)", () => {
    assert.throws(() => parseCommand("/sc donjons dice=3", rulesets),
      (error) => error instanceof CommandError && /Jeu inconnu « donjons ».*oweens/.test(error.message));
    assert.throws(() => parseCommand("/sc donjons", rulesets, "en"), /Unknown game "donjons"/);
    assert.throws(() => parseCommand("/sc oweens --mode partout", rulesets), /Mode inconnu/);
    assert.throws(() => parseCommand("/sc oweens --dice six", rulesets), /--dice/);
    assert.throws(() => parseCommand("/sc oweens --dice", rulesets), /attend une valeur/);
  });
});

describe("rolling as a character", () => {
  const characters = new Map([
    ["Aengus", { character: "Aengus", ruleset: "oweens", owner: "Aengus", values: {} }],
    ["Rex", { character: "Rex", ruleset: "bloodlust", owner: "Aengus", values: {} }],
    ["Sire Brann", { character: "Sire Brann", ruleset: "oweens", owner: "Brann", values: {} }],
  ]);

  test("--character names one (quoted names too), - rolls as nobody", () => {
    assert.equal(parseCommand('/sc oweens dice=4 --character "Sire Brann" Nager', rulesets).character, "Sire Brann");
    assert.equal(parseCommand("/sc oweens dice=4 --perso Aengus", rulesets).character, "Aengus");
    assert.equal(parseCommand("/sc oweens dice=4 --character -", rulesets).character, "");
    assert.equal(parseCommand("/sc odds oweens dice=4 --character Aengus", rulesets).character, "Aengus");
    assert.throws(() => parseCommand("/sc oweens --character", rulesets), /attend une valeur/);
  });

  test("/sc fiche (or sheet) asks for one's characters", () => {
    assert.deepEqual(parseCommand("/sc fiche", rulesets), { action: "sheet" });
    assert.deepEqual(parseCommand("/sc sheet", rulesets), { action: "sheet" });
  });

  test("who a roll is made as: flag, setting, assigned character, the seat's only one", () => {
    const roll = (ruleset, character = null) => ({ ruleset, character });
    const who = { setting: "", assigned: "", seat: "Aengus" };
    assert.equal(chooseCharacter(roll("oweens", "Sire Brann"), characters, who), "Sire Brann");
    assert.equal(chooseCharacter(roll("oweens", ""), characters, who), null);
    assert.equal(chooseCharacter(roll("oweens"), characters, who), "Aengus");       // the seat's only oweens one
    assert.equal(chooseCharacter(roll("bloodlust"), characters, who), "Rex");
    assert.equal(chooseCharacter(roll("seuil"), characters, who), null);            // none for that game
    assert.equal(chooseCharacter(roll("oweens"), characters, { ...who, setting: "Sire Brann" }), "Sire Brann");
    assert.equal(chooseCharacter(roll("oweens"), characters, { seat: "", assigned: "Aengus" }), "Aengus");
    // A setting or an assigned character of another game does not turn a quick roll into theirs.
    assert.equal(chooseCharacter(roll("seuil"), characters, { setting: "Aengus", assigned: "Aengus" }), null);
    // Two characters of the game rolled: the player says which.
    const two = new Map([...characters, ["Aengus II", { character: "Aengus II", ruleset: "oweens", owner: "Aengus" }]]);
    assert.equal(chooseCharacter(roll("oweens"), two, who), null);
    assert.equal(chooseCharacter(roll("oweens"), new Map(), {}), null);
  });

  test("a total without a target is no success: the card is neutral", () => {
    const rolled = (result) => renderCard({ seq: 4, by: { name: "MJ" }, ruleset: "dice",
      dice: [{ sides: 6, face: 5 }, { sides: 6, face: 4 }], text: "MJ — 2d6", result });
    const total = { success: true, margin: 0, kind: "success", label: { fr: "Total : 9" }, target: null };
    for (const result of [total, { ...total, judged: false }, { ...total, target: undefined, judged: false }]) {
      const html = rolled(result);
      assert.match(html, /class="sidecar-card sidecar-total"/);
      assert.doesNotMatch(html, /sidecar-success/);
    }
    // Against a target, the verdict's colour.
    assert.match(rolled({ ...total, target: 9 }), /class="sidecar-card sidecar-success"/);
    // An asked total on the GM's ask card too.
    const ask = { ask: "a1", ruleset: "dice", to: [{ seat: "Alice" }, { seat: "Bob" }] };
    const answers = { Alice: { seq: 5, text: "Alice — 2d6", result: total },
      Bob: { seq: 6, text: "Bob — 2d6", result: { ...total, target: 9 } } };
    const card = renderAskCard(ask, { answers });
    assert.match(card, /class="sidecar-asked-side sidecar-total" data-seat="Alice"/);
    assert.match(card, /class="sidecar-asked-side sidecar-success" data-seat="Bob"/);
  });

  test("the card says what was spent, by the sheet's labels, and the values after", () => {
    const sheet = { luck: { type: "int", label: { fr: "Chance", en: "Luck" } }, skills: { type: "map" } };
    const outcome = { seq: 3, by: { name: "Aengus" }, ruleset: "luck", character: "Aengus",
      spent: { luck: 2 }, sheet: { luck: 1, skills: { Nager: 2 } }, dice: [{ sides: 6, face: 4 }],
      result: { kind: "success", label: { fr: "Réussite" } }, text: "Aengus — Nager" };
    const html = renderCard(outcome, { sheet });
    assertShownAsText(html, "Aengus", "dépensé : Chance −2 → 1", "Chance 1 · skills Nager 2");
    assertShownAsText(renderSpent({ ...outcome, spent: {} }, { lang: "en", sheet }), "nothing spent", "Luck 1");
    assert.equal(renderSpent({ ...outcome, character: undefined }), "");
    // A blind roll's roller has neither spent nor sheet.
    assert.equal(renderSpent({ character: "Aengus", result: { hidden: true } }), "");
    const trick = "[[/r 1d20]]";
    assertShownAsText(renderCard({ ...outcome, character: trick, spent: { [trick]: 1 }, sheet: { [trick]: trick } }), trick);
    const listed = renderSheets([{ character: "Aengus", ruleset: "luck", owner: "Aengus", values: { luck: 3 } }],
      [{ name: "luck", sheet }]);
    assertShownAsText(listed, "Aengus", "place Aengus", "Chance 3");
    assertShownAsText(renderSheets([], [], "en"), "no character");
  });
});

describe("roll modes and cards", () => {
  test("every Foundry roll mode maps to a sidecar mode and back", () => {
    assert.deepEqual(FOUNDRY_TO_SIDECAR, { publicroll: "public", gmroll: "gm", blindroll: "blind", selfroll: "self" });
    for (const [foundry, mode] of Object.entries(FOUNDRY_TO_SIDECAR)) assert.equal(SIDECAR_TO_FOUNDRY[mode], foundry);
  });

  test("who sees the card", () => {
    const who = { userId: "u1", gmIds: ["g1", "g2"] };
    assert.deepEqual(chatVisibility("public", who), { whisper: [], blind: false });
    assert.deepEqual(chatVisibility("gm", who), { whisper: ["g1", "g2", "u1"], blind: false });
    assert.deepEqual(chatVisibility("blind", who), { whisper: ["g1", "g2"], blind: true });
    assert.deepEqual(chatVisibility("self", who), { whisper: ["u1"], blind: false });
  });

  test("cards escape what players typed", () => {
    const html = renderCard({ seq: 1, by: { name: "<img src=x onerror=alert(1)>" }, ruleset: "oweens",
      label: '"><script>', dice: [{ sides: 6, face: 6, successes: 2 }],
      result: { kind: "success", label: { fr: "Réussite", en: "Success" } }, text: "a & b", notes: ["<b>"] });
    assert.ok(!html.includes("<img") && !html.includes("<script>") && !html.includes("<b>"));
    assert.ok(html.includes(escapeHtml("<img src=x onerror=alert(1)>")));
    assert.ok(html.includes("a &amp; b"));
  });
});

/**
 * What Foundry's enricher works on: the card's text nodes, entities decoded. It runs its
 * patterns (and the systems' own) over each text node's text, so that is what must hold no
 * pattern. (The cards only use plain tags, so splitting on tags finds the text nodes.)
 */
function textNodes(html) {
  const decode = (text) => text.replace(/&(#\d+|#x[\da-f]+|amp|lt|gt|quot);/gi, (_, name) => (
    name[0] === "#" ? String.fromCodePoint(Number(name[1].toLowerCase() === "x" ? `0${name.slice(1)}` : name.slice(1)))
      : { amp: "&", lt: "<", gt: ">", quot: '"' }[name.toLowerCase()]));
  return html.split(/<[^>]*>/).filter(Boolean).map(decode);
}

/** Foundry's enrichers, in spirit: inline rolls, document links, URLs, a system's links. */
const ENRICHED = [/\[\[.*?\]\]/, /@\w+\[[^\]]+\]/, /https?:\/\//i, /&\w+\[[^\]]+\]/];

function assertShownAsText(html, ...texts) {
  for (const node of textNodes(html)) {
    for (const pattern of ENRICHED) assert.doesNotMatch(node, pattern, `Foundry would enrich: ${html}`);
  }
  const shown = textNodes(html).join("");
  for (const text of texts) assert.ok(shown.includes(text), `${text} is not shown in ${html}`);
}

describe("cards Foundry shows as they are", () => {
  const tricks = ["[[/r 1d20+99]]", "[[1d100]]{Critique !}", "@UUID[Actor.abc123]{Morgane}",
                  "@Compendium[world.monstres.xyz]", "@Check[type:athletics|dc:20]",
                  "&Reference[blinded]", "https://example.com/piege"];

  test("labels, names, notes and texts that Foundry would enrich stay text", () => {
    for (const trick of tricks) {
      const html = renderCard({ seq: 7, by: { name: trick }, ruleset: "bloodlust", label: trick,
        dice: [{ sides: 10, face: 1, role: trick }], result: { kind: "botch", label: { fr: trick } },
        text: trick, notes: [trick], applied: [trick] }, { rulesetTitle: trick });
      assertShownAsText(html, trick, `« ${trick} »`);
      assertShownAsText(renderCard({ seq: 8, by: { name: trick }, ruleset: "b", label: trick,
        mode: "blind", result: { hidden: true } }), trick);
      assertShownAsText(renderHelp([{ name: trick, title: { fr: trick }, params: { [trick]: {} } }]), trick);
      assertShownAsText(renderOdds({ ruleset: trick, p_success: 0.5, kinds: {} }), trick);
    }
  });

  test("the odds card escapes whatever a plugin put in its figures", () => {
    const hostile = '"><img src=x onerror=alert(1)>';
    const html = renderOdds({ ruleset: hostile, p_success: hostile,
      kinds: { botch: hostile, failure: 10 ** 400, narrow: { toString: () => hostile }, success: -3, critical: 0.25 } });
    assert.ok(!html.includes("<img") && !html.includes("onerror=alert(1)>"), html);
    const values = [...html.matchAll(/<meter [^>]*value="([^"]*)"/g)].map((match) => match[1]);
    assert.deepEqual(values, ["0", "0", "0", "0", "0.25"]);
    assert.ok(html.includes("25,0 %"));
  });

  test("the refusal card shows the server's message as text", async () => {
    const posted = [];
    const chat = new SidecarChat({ client: { on: () => () => {}, welcome: null }, userId: "u1", gmIds: () => [],
      post: async (message) => { posted.push(message); return message; } });
    const message = await chat.postError("Jeu inconnu « [[/r 1d20]] »");
    assertShownAsText(message.content, "Jeu inconnu « [[/r 1d20]] »");
  });
});

describe("the chat bridge against a real sidecar", () => {
  let player;
  let gm;
  const posted = { player: [], gm: [] };

  before(async () => {
    const table = "foundry-chat";
    player = new SidecarChat({ client: await joined({ table, name: "Aengus", token: PLAYER_TOKEN }),
      userId: "u-aengus", gmIds: () => ["u-morgane"], post: async (message) => { posted.player.push(message); return message; } });
    gm = new SidecarChat({ client: await joined({ table, name: "Morgane", role: "gm", token: GM_TOKEN }),
      userId: "u-morgane", gmIds: () => ["u-morgane"], isResponsibleGM: () => true,
      otherNames: () => ["Aengus", "Morgane"], mirror: () => true,
      post: async (message) => { posted.gm.push(message); return message; } });
  });

  test("a public roll becomes a card for everyone, with the French label and every die", async () => {
    const message = await player.handle('/sc oweens dice=4 difficulty=3 "Escalader le mur"', "publicroll");
    assert.deepEqual(message.whisper, []);
    assert.equal(message.blind, false);
    assert.equal(message.rollMode, "publicroll");
    const outcome = (await player.client.history({ after: message.seq - 1, limit: 1 })).events[0];
    assert.equal(outcome.seq, message.seq);
    assert.ok(message.content.includes(escapeHtml(outcome.result.label.fr)));
    assert.equal((message.content.match(/class="sidecar-die/g) ?? []).length, 4);
    assert.ok(message.content.includes("Escalader le mur"));
    assert.ok(message.content.includes(`sidecar-${outcome.result.kind}`));
  });

  test("Foundry's roll mode decides who sees it; --mode overrides it", async () => {
    assert.deepEqual((await player.handle("/sc bloodlust pool=3", "gmroll")).whisper, ["u-morgane", "u-aengus"]);
    assert.deepEqual((await player.handle("/sc bloodlust pool=3", "selfroll")).whisper, ["u-aengus"]);
    const forced = await player.handle("/sc bloodlust pool=3 --mode self", "publicroll");
    assert.deepEqual(forced.whisper, ["u-aengus"]);
  });

  test("a blind roll: the player keeps a hidden note, the GM's client posts the whole card", async () => {
    const gmCard = new Promise((resolve) => {
      const before = posted.gm.length;
      const timer = setInterval(() => {
        const blind = posted.gm.slice(before).find((message) => message.rollMode === "blindroll");
        if (blind) { clearInterval(timer); resolve(blind); }
      }, 10);
    });
    const mine = await player.handle("/sc bloodlust pool=5 Fouiller", "blindroll");
    assert.ok(mine.content.includes("seul le MJ voit le résultat"));
    assert.ok(!mine.content.includes("sidecar-die"));
    const theirs = await gmCard;
    assert.equal(theirs.seq, mine.seq);
    assert.deepEqual(theirs.whisper, ["u-morgane"]);
    assert.equal(theirs.blind, true);
    assert.equal((theirs.content.match(/class="sidecar-die/g) ?? []).length, 5);
  });

  test("rolls made outside Foundry are mirrored by the GM's client", async () => {
    const web = await joined({ table: "foundry-chat", name: "Brann (web)", token: PLAYER_TOKEN });
    const before = posted.gm.length;
    const outcome = await web.roll({ ruleset: "seuil", params: { level: 2, threshold: 13 } });
    while (!posted.gm.slice(before).some((message) => message.seq === outcome.seq)) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const mirrored = posted.gm.slice(before).find((message) => message.seq === outcome.seq);
    assert.ok(mirrored.content.includes("Brann (web)"));
    // Foundry players' own rolls are not mirrored (their own client posted them): once the
    // next web roll is mirrored (outcomes reach the GM's client in order), the player's was not.
    const count = posted.gm.length;
    const own = await player.handle("/sc bloodlust pool=2", "publicroll");
    const next = await web.roll({ ruleset: "seuil", params: { level: 2, threshold: 13 } });
    while (!posted.gm.slice(count).some((message) => message.seq === next.seq)) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.ok(own.seq < next.seq);
    assert.deepEqual(posted.gm.slice(count).map((message) => message.seq), [next.seq]);
  });

  test("/sc odds answers privately with exact percentages", async () => {
    const message = await player.handle("/sc odds bloodlust pool=1 difficulty=6", "publicroll");
    assert.deepEqual(message.whisper, ["u-aengus"]);
    assert.ok(message.content.includes("50,0 %"), message.content);
  });

  test("the server's refusal is shown to the roller only", async () => {
    const message = await player.handle("/sc oweens dice=99", "publicroll");
    assert.equal(message.error, true);
    assert.deepEqual(message.whisper, ["u-aengus"]);
    assert.match(message.content, /dice/);
    const typo = await player.handle("/sc owen dice=3", "publicroll");
    assert.match(typo.content, /Jeu inconnu/);
  });
});

describe("before the connection is up", () => {
  test("a /sc command says the sidecar cannot be reached, in French", async () => {
    const offline = new SidecarClient("ws://127.0.0.1:9/ws", { table: "t", name: "x", reconnect: false });
    const posted = [];
    const chat = new SidecarChat({ client: offline, userId: "u1", gmIds: () => [],
      post: async (message) => { posted.push(message); return message; } });
    const message = await chat.handle("/sc bloodlust pool=3", "publicroll");
    assert.equal(message.error, true);
    assert.match(message.content, /pas joignable/);
    assert.deepEqual(message.whisper, ["u1"]);
  });
});

describe("module.js inside a (faked) Foundry", () => {
  test("notifications are HTML in Foundry: the values put in them are escaped", async () => {
    const hostile = '<img src=x onerror="alert(1)">';
    const foundry = await fakeFoundry("unreachable", { user: { name: "Aengus" }, wait: false,
      settings: { url: `ws://127.0.0.1:9/${hostile}/ws`, table: "t", playerToken: "" } });
    try {
      for (let i = 0; i < 500 && !foundry.notes.length; i += 1) await new Promise((resolve) => setTimeout(resolve, 10));
      assert.equal(foundry.notes.length, 1, JSON.stringify(foundry.notes));
      assert.ok(!foundry.notes[0][1].includes("<img") && foundry.notes[0][1].includes(escapeHtml(hostile)),
        foundry.notes[0][1]);
    } finally {
      await foundry.close();
    }
  });

  test("settings, client loaded from the sidecar over HTTP, /sc intercepted", async () => {
    const foundry = await fakeFoundry("glue", { user: { name: "Aengus" },
      settings: { url: sidecar.url, table: "foundry-glue", playerToken: PLAYER_TOKEN } });
    try {
      assert.deepEqual(foundry.notes.map(([level]) => level), ["info"], JSON.stringify(foundry.notes));
      assert.equal(foundry.module.api.client.state, "open");
      assert.equal(foundry.hooks.get("chatMessage")[0]({}, "Bonjour la table"), true); // not ours
      const card = await foundry.chat("/sc bloodlust pool=3 Sauter");
      assert.match(card.content, /sidecar-card/);
      assert.deepEqual(card.whisper, []);
      assert.equal(card.flags["vtt-sidecar"].rollMode, "publicroll");
      assert.equal(typeof card.flags["vtt-sidecar"].seq, "number");
      assert.equal(card.speaker.alias, "Aengus");
    } finally {
      await foundry.close();
    }
  });
});

/**
 * module.js in the closer fake Foundry (`fake-foundry.mjs`), as one user of a world: its
 * hooks run, its chat messages and notifications are kept. `variant` makes each import a
 * fresh copy of the module (ES modules are cached). Resolves once the module has joined
 * (or failed to), unless `wait` is false.
 */
async function fakeFoundry(variant, { settings, user, wait = true, users = [] }) {
  const fake = installFoundry({ users: [{ active: true, ...user, id: undefined }, ...users], me: user.name,
    translations: FRENCH,
    settings: { table: "foundry", playerToken: "", gmToken: "", seatToken: "", seatName: "", character: "",
                mirror: false, ...settings } });
  const created = [];
  globalThis.Hooks.on("createChatMessage", (message) => created.push(message));
  await import(`../scripts/module.js?${variant}`);
  await fake.boot();
  const module = fake.game.modules.get("vtt-sidecar");
  if (wait) await module.api.start();
  return {
    fake, created, module, user: fake.user,
    hooks: { get: (name) => (fake.hooks.get(name) ?? []).map((entry) => entry.fn) },
    get notes() { return fake.notes.map((note) => [note.level, note.message]); },
    /** Types a chat line as Foundry's chat log would; resolves with the card it posts. */
    async chat(text) {
      const before = created.length;
      assert.equal(await fake.chat(text), null); // the module took it: nothing posted raw
      while (created.length === before) await new Promise((resolve) => setTimeout(resolve, 10));
      return created[before];
    },
    async close() {
      await module.api?.stop();
      fake.uninstall();
    },
  };
}

describe("a Foundry player with a seat (against a real sidecar with the luck ruleset)", () => {
  let seated;
  let gm;
  let seat;
  const table = "foundry-seats";
  const base = { url: "", table, playerToken: PLAYER_TOKEN, gmToken: "", seatToken: "", seatName: "",
                 character: "", mirror: false };

  before(async () => {
    seated = await startSidecar({ extra: ["--plugins-dir", join(ROOT, "tests", "js", "plugins")] });
    base.url = seated.url;
    gm = new SidecarClient(seated.url, { table, name: "Morgane", role: "gm", token: GM_TOKEN, reconnect: false });
    await gm.connect();
    seat = await gm.addSeat("Aengus");
    await gm.setSheet({ character: "Aengus", ruleset: "luck", owner: "Aengus", values: { level: 1 } });
  });
  after(async () => {
    await gm.close();
    await seated.stop();
  });

  test("the seat token setting joins as the seat; /sc rolls as its character and the card shows the spend", async () => {
    const user = { id: "u1", name: "Aengus", isGM: false, character: null };
    const foundry = await fakeFoundry("seat", { settings: { ...base, seatToken: ` ${seat.token} ` }, user });
    try {
      assert.deepEqual(foundry.notes.map(([level]) => level), ["info"], JSON.stringify(foundry.notes));
      const { client } = foundry.module.api;
      assert.equal(client.welcome.seat, true);
      const card = await foundry.chat("/sc luck push=2 Nager");
      assert.match(card.content, /sidecar-character/);
      assert.match(card.content, /dépensé : Chance −2 → 1/);
      assert.equal(client.characters.get("Aengus").values.luck, 1);
      // --character - : a plain roll, nothing spent.
      const plain = await foundry.chat("/sc luck push=1 --character -");
      assert.doesNotMatch(plain.content, /sidecar-character/);
      // Not enough luck: the refusal, to the roller only, nothing rolled.
      const short = await foundry.chat("/sc luck push=3");
      assert.match(short.content, /sidecar-error.*pas assez de « Chance »/);
      assert.deepEqual(short.whisper, [foundry.user.id]);
      const sheet = await foundry.chat("/sc fiche");
      assert.match(sheet.content, /Chance 1/);
    } finally {
      await foundry.close();
    }
  });

  test("the seat's token under another name, and the seat's name with the shared token, are refused", async () => {
    const other = await fakeFoundry("other", { settings: { ...base, seatToken: seat.token },
                                               user: { id: "u2", name: "Brann", isGM: false } });
    try {
      assert.deepEqual(other.notes.map(([level]) => level), ["error"]);
      assert.match(other.notes[0][1], /connexion refusée/);
      assert.notEqual(other.module.api.client.state, "open");
    } finally {
      await other.close();
    }
    const shared = await fakeFoundry("shared", { settings: base, user: { id: "u3", name: "Aengus", isGM: false } });
    try {
      assert.match(shared.notes[0][1], /entrez votre jeton de place/); // says where the seat token goes
    } finally {
      await shared.close();
    }
  });

  test("the Seat name setting joins a seat named otherwise than the Foundry user", async () => {
    const user = { id: "u4", name: "Julien", isGM: false, character: { name: "Aengus" } };
    const foundry = await fakeFoundry("named", { settings: { ...base, seatToken: seat.token, seatName: "Aengus" }, user });
    try {
      assert.equal(foundry.module.api.client.welcome.seat, true);
      assert.equal(foundry.module.api.client.name, "Aengus");
      await gm.adjustSheet({ character: "Aengus", delta: { luck: 2 }, reason: "belle scène" });
      const card = await foundry.chat("/sc luck push=1");  // as the seat's character
      assert.match(card.content, /Chance −1/);
    } finally {
      await foundry.close();
    }
  });
});

/**
 * A rendered card's choice buttons, as much of the DOM as `bindChoices` uses (Node has no
 * DOM): the `.sidecar-choices` block (dataset, remove) and its buttons (click, disabled).
 */
function fakeCard(html) {
  const blocks = [];
  const root = { querySelectorAll: (selector) => (selector === ".sidecar-choices" ? blocks.filter((b) => !b.removed) : []) };
  const unescape = (text) => text.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">").replace(/&amp;/g, "&");
  for (const match of html.matchAll(/<div class="sidecar-choices" data-roll="([^"]*)" data-by="([^"]*)" data-mode="([^"]*)" data-character="([^"]*)">([^]*?)<\/div>/g)) {
    const buttons = [...match[5].matchAll(/<button [^>]*data-choice="([^"]*)"[^>]*>/g)].map((button) => {
      const listeners = [];
      const dataset = { choice: unescape(button[1]) };
      if (/ data-gm="1"/.test(button[0])) dataset.gm = "1";
      const made = { dataset, disabled: false, removed: false,
                     remove() { made.removed = true; },
                     addEventListener: (type, fn) => listeners.push(fn),
                     click: () => Promise.all(listeners.map((fn) => fn({ preventDefault() {} }))) };
      return made;
    });
    const block = { dataset: { roll: unescape(match[1]), by: unescape(match[2]), mode: unescape(match[3]),
                               character: unescape(match[4]) }, removed: false, buttons,
                    remove() { block.removed = true; },
                    querySelectorAll: (selector) => (selector === ".sidecar-choice" ? buttons.filter((b) => !b.removed) : []) };
    blocks.push(block);
  }
  return { root, blocks, button: (choice) => blocks.flatMap((b) => b.buttons).find((b) => b.dataset.choice === choice) };
}

describe("open rolls: choices as buttons on the card", () => {
  const open = { seq: 4, roll: "r-1", by: { name: "Aengus" }, ruleset: "luck", open: true, default: "keep",
    choices: [{ name: "reroll", label: { fr: "Relancer", en: "Reroll" }, dice: 1 },
              { name: "keep", label: { fr: "Garder", en: "Keep" }, dice: 0 }],
    dice: [{ sides: 6, face: 2 }], result: { kind: "failure", label: { fr: "Échec" } }, text: "Aengus — Sauter" };

  test("an open roll's card has one button per choice, the default marked; a closed one has none", () => {
    const html = renderCard(open);
    const card = fakeCard(html);
    assert.equal(card.blocks.length, 1);
    assert.deepEqual(card.blocks[0].dataset, { roll: "r-1", by: "Aengus", mode: "", character: "" });
    assert.deepEqual(card.blocks[0].buttons.map((b) => b.dataset.choice), ["reroll", "keep"]);
    assertShownAsText(html, "Relancer (1 dé)", "Garder", "À vous de choisir");
    assert.match(html, /class="sidecar-choice sidecar-default" data-choice="keep"/);
    assertShownAsText(renderChoices(open, "en"), "Reroll (1 die)", "Your call");
    assert.equal(renderChoices({ ...open, open: undefined }), "");
    // A blind roll's roller (never told that it is open): no buttons, whatever it shows.
    assert.doesNotMatch(renderCard({ ...open, choices: undefined, result: { hidden: true } }), /<button/);
    const trick = '[[/r 1d20]]"><img src=x>';
    const tricky = renderCard({ ...open, roll: trick, by: { name: trick },
      choices: [{ name: trick, label: { fr: trick }, dice: 0 }] });
    assertShownAsText(tricky, trick);
    assert.ok(!tricky.includes("<img"));
    assert.equal(fakeCard(tricky).blocks[0].buttons[0].dataset.choice, trick);
  });

  test("the decision's card says what it answers; the open card's buttons give way to the decision", () => {
    const decision = { ...open, seq: 5, open: undefined, choices: undefined, reacts_to: 4, choice: "reroll",
                       reacted_by: { name: "Morgane", role: "gm" } };
    assertShownAsText(renderCard(decision), "en réponse au jet #4 · reroll · Morgane");
    assertShownAsText(renderCard({ ...decision, reacted_by: null, choice: null }, { lang: "en" }),
      "answering roll #4 · as it stands · time ran out");
    const closed = closeChoices(renderCard(open), decision);
    assert.doesNotMatch(closed, /<button/);
    assertShownAsText(closed, "Décidé : reroll — Morgane (#5)", "Aengus — Sauter");
    assertShownAsText(closeChoices(renderCard(open), { ...decision, reacted_by: null, choice: "keep" }, "en"),
      "Decided: keep — time ran out");
  });

  test("buttons stay for the roller and the GMs only; a click decides, its buttons off meanwhile", async () => {
    const decided = [];
    const chat = (role, name) => new SidecarChat({ client: { on: () => () => {}, role, name }, userId: "u", gmIds: () => [] });
    const player = chat("player", "Aengus");
    player.decide = async (roll, choice) => {
      decided.push([roll, choice, card.blocks[0].buttons.map((b) => b.disabled)]);
      return { content: "" };
    };
    const card = fakeCard(renderCard(open));
    assert.equal(bindChoices(card.root, player).length, 1);
    await card.button("reroll").click();
    assert.deepEqual(decided, [["r-1", "reroll", [true, true]]]);
    // A refusal (posted as an error card) puts the buttons back.
    player.decide = async () => ({ error: true });
    await card.button("keep").click();
    assert.deepEqual(card.blocks[0].buttons.map((b) => b.disabled), [false, false]);
    for (const [role, name, kept] of [["gm", "Morgane", 1], ["player", "Brann", 0], ["observer", "Aengus", 0]]) {
      const other = fakeCard(renderCard(open));
      assert.equal(bindChoices(other.root, chat(role, name)).length, kept, `${role} ${name}`);
      assert.equal(other.blocks[0].removed, kept === 0);
    }
  });

  test("a public roll the GM made as a character: its seat's player decides it too, not a gm roll's", () => {
    const seat = (name, owns) => new SidecarChat({
      client: { on: () => () => {}, role: "player", name, welcome: { seat: true },
                characters: new Map([["Ervald", { owner: owns }]]) }, userId: "u", gmIds: () => [] });
    const asCharacter = { ...open, by: { name: "Morgane" }, mode: "public", character: "Ervald" };
    for (const [chat, mode, kept] of [[seat("Tom", "Tom"), "public", 1], [seat("Tom", "Tom"), "gm", 0],
                                      [seat("Brann", "Tom"), "public", 0]]) {
      const card = fakeCard(renderCard({ ...asCharacter, mode }));
      assert.equal(bindChoices(card.root, chat).length, kept, `${chat.client.name} ${mode}`);
    }
  });

  test("a GM's choice (gm: true) is a button for the GMs only, never for the roller", () => {
    const chat = (role, name) => new SidecarChat({ client: { on: () => () => {}, role, name }, userId: "u", gmIds: () => [] });
    const mixed = { ...open, choices: [{ name: "success_at_cost", label: { fr: "Réussi, mais…" }, dice: 0, gm: true },
                                       open.choices[1]] };
    const forPlayer = fakeCard(renderCard(mixed));
    assert.equal(bindChoices(forPlayer.root, chat("player", "Aengus")).length, 1);
    assert.deepEqual(forPlayer.blocks[0].buttons.filter((b) => !b.removed).map((b) => b.dataset.choice), ["keep"]);
    const forGm = fakeCard(renderCard(mixed));
    assert.equal(bindChoices(forGm.root, chat("gm", "Morgane")).length, 1);
    assert.deepEqual(forGm.blocks[0].buttons.filter((b) => !b.removed).map((b) => b.dataset.choice),
      ["success_at_cost", "keep"]);
    // Only a GM's choices left: the roller's card has no block at all.
    const gmOnly = { ...open, choices: [mixed.choices[0]], default: "success_at_cost" };
    const waiting = fakeCard(renderCard(gmOnly));
    assert.equal(bindChoices(waiting.root, chat("player", "Aengus")).length, 0);
    assert.equal(waiting.blocks[0].removed, true);
  });
});

describe("open rolls in the chat, against a real sidecar with the luck ruleset", () => {
  let luck;
  const table = "foundry-open";
  const posted = { player: [], gm: [] };
  const closed = { player: [], gm: [] };
  let player;
  let gm;
  const OPEN = "/sc luck target=7 second_chance=oui Sauter"; // a d6 never reaches 7: always open

  before(async () => {
    luck = await startSidecar({ extra: ["--plugins-dir", join(ROOT, "tests", "js", "plugins")] });
    const connect = async (options) => {
      const client = new SidecarClient(luck.url, { requestTimeout: 8000, reconnect: false, table, ...options });
      clients.push(client);
      await client.connect();
      return client;
    };
    player = new SidecarChat({ client: await connect({ name: "Aengus", token: PLAYER_TOKEN }),
      userId: "u-aengus", gmIds: () => ["u-morgane"],
      close: async (roll, decision) => closed.player.push([roll, decision.seq]),
      post: async (message) => { posted.player.push(message); return message; } });
    gm = new SidecarChat({ client: await connect({ name: "Morgane", role: "gm", token: GM_TOKEN }),
      userId: "u-morgane", gmIds: () => ["u-morgane"], isResponsibleGM: () => true,
      otherNames: () => ["Aengus", "Morgane"], mirror: () => true,
      userIdOf: (name) => ({ Aengus: "u-aengus", Morgane: "u-morgane" })[name] ?? null,
      close: async (roll, decision) => closed.gm.push([roll, decision.seq]),
      post: async (message) => { posted.gm.push(message); return message; } });
  });
  after(async () => { await luck.stop(); });

  async function until(predicate) {
    for (let i = 0; i < 500 && !predicate(); i += 1) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.ok(predicate());
  }

  test("the roller clicks a choice: the react is sent, the decision's card follows, the open card closes", async () => {
    const card = await player.handle(OPEN, "publicroll");
    assert.equal(card.open, true);
    const buttons = fakeCard(card.content);
    assert.equal(buttons.blocks[0].dataset.roll, card.roll);
    assert.equal(bindChoices(buttons.root, player).length, 1);
    assert.equal(bindChoices(fakeCard(card.content).root, gm).length, 1); // the GM may decide too
    const before = posted.player.length;
    await buttons.button("reroll").click();
    await until(() => posted.player.length > before);
    const decision = posted.player[before];
    assert.equal(decision.roll, card.roll);
    assert.equal(decision.open, false);
    assert.deepEqual(decision.whisper, []);
    assertShownAsText(decision.content, `en réponse au jet #${card.seq} · reroll · Aengus`);
    assert.equal((decision.content.match(/class="sidecar-die/g) ?? []).length, 1);
    await until(() => closed.gm.some(([roll]) => roll === card.roll));
    assert.deepEqual(closed.player, [[card.roll, decision.seq]]);
    // The player's own Foundry client posted it: the GM's does not post it again.
    assert.ok(!posted.gm.some((message) => message.seq === decision.seq));
    // Clicked again (a stale card): refused, shown to the roller only.
    const again = await player.decide(card.roll, "keep");
    assert.equal(again.error, true);
    assert.deepEqual(again.whisper, ["u-aengus"]);
    assert.match(again.content, /refusé ce choix/);
  });

  test("a blind roll: no buttons for its roller; the GM decides on the GM's card, blind", async () => {
    const before = posted.gm.length;
    const note = await player.handle(`${OPEN} --mode blind`, "publicroll");
    assert.doesNotMatch(note.content, /<button/);
    await until(() => posted.gm.slice(before).some((message) => message.seq === note.seq));
    const gmCard = posted.gm.slice(before).find((message) => message.seq === note.seq);
    assert.equal(gmCard.blind, true);
    const buttons = fakeCard(gmCard.content);
    assert.equal(bindChoices(buttons.root, gm).length, 1);
    const count = posted.gm.length;
    const rollerSaw = [];
    player.client.on("outcome", (outcome) => rollerSaw.push(outcome));
    await buttons.button("keep").click();
    await until(() => posted.gm.length > count);
    const decision = posted.gm[count];
    assert.equal(decision.blind, true);
    assert.deepEqual(decision.whisper, ["u-morgane"]);
    assertShownAsText(decision.content, `en réponse au jet #${note.seq} · keep · Morgane`);
    // Its roller is told nothing of the decision (it would tell that the roll was open):
    // the answer to a later request comes after anything sent before it.
    const read = await player.client.history({ after: note.seq - 1 });
    assert.ok(!read.events.some((event) => event.reacts_to === note.seq));
    assert.ok(!rollerSaw.some((outcome) => outcome.reacts_to === note.seq));
    assert.ok(!closed.player.some(([roll]) => roll === note.roll));
  });

  test("a GM deciding from outside Foundry: the responsible GM's client posts the decision", async () => {
    const web = new SidecarClient(luck.url, { table, name: "MJ (web)", role: "gm", token: GM_TOKEN, reconnect: false });
    clients.push(web);
    await web.connect();
    const card = await player.handle(OPEN, "gmroll");
    const before = posted.gm.length;
    const decided = await web.react(card.roll, "keep");
    await until(() => posted.gm.slice(before).some((message) => message.seq === decided.seq));
    const decision = posted.gm.slice(before).find((message) => message.seq === decided.seq);
    assert.deepEqual(decision.whisper, ["u-morgane", "u-aengus"]); // the roll's own audience
    assertShownAsText(decision.content, "keep · MJ (web)");
  });
});

describe("module.js: an open card's buttons and their closing in a (faked) Foundry", () => {
  let luck;
  before(async () => { luck = await startSidecar({ extra: ["--plugins-dir", join(ROOT, "tests", "js", "plugins")] }); });
  after(async () => { await luck.stop(); });

  test("renderChatMessage binds the buttons; a click decides and the open card is updated", async () => {
    const user = { id: "u1", name: "Aengus", isGM: false, active: true };
    const foundry = await fakeFoundry("open", { user, settings: { url: luck.url, table: "foundry-open-glue",
      playerToken: PLAYER_TOKEN, gmToken: "", seatToken: "", seatName: "", character: "", mirror: false } });
    try {
      const card = await foundry.chat("/sc luck target=7 second_chance=oui");
      assert.equal(card.flags["vtt-sidecar"].open, true);
      assert.equal(typeof card.flags["vtt-sidecar"].roll, "string");
      const rendered = fakeCard(card.content);
      const [render] = foundry.hooks.get("renderChatMessage");
      render(card, [rendered.root]); // Foundry v11–v12 passes jQuery
      const before = foundry.created.length;
      await rendered.button("reroll").click();
      assert.equal(foundry.created.length, before + 1);
      const decision = foundry.created[before];
      assert.match(decision.content, /en réponse au jet/);
      for (let i = 0; i < 500 && card.flags["vtt-sidecar"].open; i += 1) await new Promise((resolve) => setTimeout(resolve, 10));
      assert.equal(card.flags["vtt-sidecar"].open, false);
      assert.doesNotMatch(card.content, /<button/);
      assertShownAsText(card.content, `Décidé : reroll — Aengus (#${decision.flags["vtt-sidecar"].seq})`);
    } finally {
      await foundry.close();
    }
  });
});

/** A rendered asked card's answer button, as much of the DOM as `bindAnswers` uses. */
function fakeAnswerCard(html) {
  const blocks = [];
  const root = { querySelectorAll: (selector) => (selector === ".sidecar-answer" ? blocks.filter((b) => !b.removed) : []) };
  for (const match of html.matchAll(/<div class="sidecar-answer" data-ask="([^"]*)" data-seat="([^"]*)">/g)) {
    const listeners = [];
    const button = { disabled: false, addEventListener: (type, fn) => listeners.push(fn),
                     click: () => Promise.all(listeners.map((fn) => fn({ preventDefault() {} }))) };
    const block = { dataset: { ask: match[1], seat: match[2] }, removed: false, button,
                    remove() { block.removed = true; },
                    querySelectorAll: (selector) => (selector === ".sidecar-answer-button" ? [button] : []) };
    blocks.push(block);
  }
  return { root, blocks };
}

describe("asked rolls: /sc ask, the cards", () => {
  test("/sc ask, its options, /sc ask cancel and /sc session are parsed", () => {
    const ask = parseCommand('/sc ask luck --to Alice,Ysolde target=5 "Perception" --mode gmroll', []);
    assert.deepEqual(ask, { action: "ask", ruleset: "luck", to: ["Alice", "Ysolde"], params: { target: 5 },
                            label: "Perception", mode: "gm", opposed: false, each: {} });
    const duel = parseCommand("/sc ask d6code --to Strengal --to Krull difficulty=0 --opposed "
      + "--each Strengal:code=3D+5 --each Krull:code=4D+1 --each Krull:difficulty=3", rulesets);
    assert.equal(duel.opposed, true);
    assert.deepEqual(duel.to, ["Strengal", "Krull"]);
    assert.deepEqual(duel.each, { Strengal: { code: "3D+5" }, Krull: { code: "4D+1", difficulty: 3 } });
    assert.deepEqual(parseCommand("/sc ask cancel 4f2a", rulesets), { action: "cancelAsk", ask: "4f2a" });
    // A GM rolls a GM's NPC's side (issue 29 follow-up): the ask, the NPC (optional when
    // the ask has one NPC side), physical dice.
    assert.deepEqual(parseCommand('/sc ask answer 4f2a "Grand Orc" --dice 6,3', rulesets),
                     { action: "answerAsk", ask: "4f2a", character: "Grand Orc", dice: [6, 3] });
    assert.deepEqual(parseCommand("/sc demande répondre 4f2a", rulesets),
                     { action: "answerAsk", ask: "4f2a", character: undefined, dice: undefined });
    assert.throws(() => parseCommand("/sc ask answer", rulesets), /ask answer <id>/);
    assert.throws(() => parseCommand("/sc ask answer 4f2a Orc --dice six", rulesets), /virgules/);
    assert.deepEqual(parseCommand("/sc session", rulesets), { action: "session" });
    assert.throws(() => parseCommand("/sc ask d6code code=3D", rulesets), /--to Nom/);      // nobody asked
    assert.throws(() => parseCommand("/sc ask d6code --to A --mode self", rulesets), /Mode inconnu/);
    assert.throws(() => parseCommand("/sc ask d6code --to A --each A", rulesets), /--each attend/);
    assert.throws(() => parseCommand("/sc ask donjons --to A", rulesets), /Jeu inconnu/);
  });

  test("the GM's card lists the asked and fills; the player's card has one button, for that seat only", async () => {
    const ask = { ask: "a-1", ruleset: "luck", label: "Perception", opposed: true,
                  to: [{ seat: "Alice", character: null }, { seat: "Bob", character: "Ysolde" }] };
    const waiting = renderAskCard(ask);
    assertShownAsText(waiting, "Jet en opposition · luck · « Perception »", "Alice : en attente",
                      "Bob (Ysolde) : en attente");
    const filled = renderAskCard(ask, { answers: { Alice: { seq: 7, text: "Alice — 5",
      result: { kind: "success", label: { fr: "Réussite" } } } }, opposition: { winner: "Alice", draw: false } });
    assertShownAsText(filled, "Alice : Réussite — Alice — 5 (#7)", "Bob (Ysolde) : en attente", "Vainqueur : Alice");
    assertShownAsText(renderAskCard(ask, { opposition: { winner: null, draw: true }, lang: "en" }), "Draw");
    assertShownAsText(renderAskCard(ask, { opposition: { winner: null, draw: false } }), "Personne ne réussit");
    assertShownAsText(renderAskCard(ask, { cancelled: true }), "Demande annulée");
    // A GM's NPC's side (no seat), keyed by its name; it wins: named, not « nobody ».
    const npc = { ...ask, to: [{ seat: "Alice", character: null }, { seat: null, character: "Krull" }] };
    assertShownAsText(renderAskCard(npc, { answers: { Krull: { seq: 8, text: "Krull — 19",
      result: { kind: "success", label: { fr: "Réussite" } } } },
      opposition: { winner: null, winner_character: "Krull", draw: false } }),
    "Krull : Réussite — Krull — 19 (#8)", "Alice : en attente", "Vainqueur : Krull");
    const asked = renderAskedCard(ask, { seat: "Alice" });
    assertShownAsText(asked, "Le MJ vous demande un jet · luck · « Perception »", "Lancer");
    assertShownAsText(closeAnswer(asked, "Répondu (#7)"), "Répondu (#7)");
    assert.doesNotMatch(closeAnswer(asked, "Répondu (#7)"), /<button/);
    const answered = [];
    const chat = (role, name) => ({ client: { role, name }, answerAsk: async (id) => { answered.push(id); return {}; } });
    const card = fakeAnswerCard(asked);
    assert.equal(bindAnswers(card.root, chat("player", "Alice")).length, 1);
    await card.blocks[0].button.click();
    assert.deepEqual(answered, ["a-1"]);
    assert.equal(card.blocks[0].button.disabled, true);
    for (const [role, name] of [["player", "Bob"], ["gm", "Alice"]]) {
      const other = fakeAnswerCard(asked);
      assert.equal(bindAnswers(other.root, chat(role, name)).length, 0);
      assert.equal(other.blocks[0].removed, true);
    }
  });
});

describe("asked rolls in the chat, against a real sidecar", () => {
  let server;
  const table = "foundry-asks";
  const posted = {};
  const chats = {};

  async function until(predicate) {
    for (let i = 0; i < 500 && !predicate(); i += 1) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.ok(predicate());
  }

  before(async () => {
    server = await startSidecar({ extra: ["--plugins-dir", join(ROOT, "tests", "js", "plugins"),
                                          "--allow-player-dice"] });
    const connect = async (options) => {
      const client = new SidecarClient(server.url, { requestTimeout: 8000, reconnect: false, table, ...options });
      clients.push(client);
      await client.connect();
      return client;
    };
    const chat = (name, client, more = {}) => {
      posted[name] = [];
      chats[name] = new SidecarChat({ client, userId: `u-${name}`, gmIds: () => ["u-MJ"],
        post: async (message) => { posted[name].push(message); return message; },
        update: async (message, content) => { message.content = content; }, ...more });
    };
    const gm = await connect({ name: "MJ", role: "gm", token: GM_TOKEN });
    chat("MJ", gm, { isResponsibleGM: () => true, otherNames: () => ["MJ", "Alice", "Strengal", "Krull"] });
    for (const name of ["Alice", "Strengal", "Krull"]) {
      const { token } = await gm.addSeat(name);
      chat(name, await connect({ name, token }));
    }
  });
  after(async () => { await server.stop(); });

  test("the GM asks; the player's card answers with one click; the GM's card fills", async () => {
    const gmCard = await chats.MJ.handle('/sc ask luck --to Alice target=5 "Perception"');
    assertShownAsText(gmCard.content, "Demande de jet · Chance · « Perception »", "Alice : en attente");
    assert.deepEqual(gmCard.whisper, ["u-MJ"]);
    await until(() => posted.Alice.length === 1);
    const asked = posted.Alice[0];
    assert.deepEqual(asked.whisper, ["u-Alice"]);
    const card = fakeAnswerCard(asked.content);
    assert.equal(bindAnswers(card.root, chats.Alice).length, 1);
    await card.blocks[0].button.click();
    const answer = posted.Alice[1];
    assert.match(answer.content, /répond à la demande/);
    assert.doesNotMatch(asked.content, /<button/);
    assertShownAsText(asked.content, `Répondu (#${answer.seq})`);
    await until(() => gmCard.content.includes(`(#${answer.seq})`));
    assert.doesNotMatch(gmCard.content, /en attente/);
    // Clicked again (a stale card): refused, to the player only.
    const again = await chats.Alice.answerAsk(asked.ask);
    assert.equal(again.error, true);
    assert.match(again.content, /refusé la réponse/);
  });

  test("an opposed duel: the winner on the GM's card and on the last answer's", async () => {
    const gmCard = await chats.MJ.handle("/sc ask d6code --to Strengal,Krull difficulty=0 --opposed "
      + "--each Strengal:code=3D+5 --each Krull:code=4D+1 Duel");
    assertShownAsText(gmCard.content, "Jet en opposition", "Strengal : en attente", "Krull : en attente");
    await until(() => posted.Strengal.length === 1 && posted.Krull.length === 1);
    const id = posted.Strengal[0].ask;
    await chats.Strengal.answerAsk(id, [3, 4, 4]);
    const last = await chats.Krull.answerAsk(id, [4, 4, 3, 2]);
    assertShownAsText(last.content, "Vainqueur : Strengal");
    await until(() => gmCard.content.includes("Vainqueur : Strengal"));
    assert.doesNotMatch(gmCard.content, /en attente/);
  });

  test("an opposed roll against a GM's NPC: the GM rolls its side with /sc ask answer", async () => {
    await chats.MJ.client.setSheet({ character: "Orc", ruleset: "luck", values: { level: 0 } });
    const gmCard = await chats.MJ.handle('/sc ask luck --to Alice,Orc target=4 --opposed "Bras de fer"');
    assertShownAsText(gmCard.content, "Orc : en attente", "/sc ask answer");
    await until(() => posted.Alice.some((message) => message.ask === gmCard.ask));
    await chats.Alice.answerAsk(gmCard.ask, [2]);
    const npc = await chats.MJ.handle(`/sc ask answer ${gmCard.ask} Orc --dice 6`);
    assert.match(npc.content, /répond à la demande/);
    assertShownAsText(npc.content, "Vainqueur : Orc");
    await until(() => gmCard.content.includes("Vainqueur : Orc"));
    assert.doesNotMatch(gmCard.content, /en attente|\/sc ask answer/);
    // A player may not roll it: refused, said to that player only.
    const refused = await chats.Alice.handle(`/sc ask answer ${gmCard.ask} Orc`);
    assert.equal(refused.error, true);
  });

  test("module.js: the asked card's button is bound on render, a click answers and the card is updated", async () => {
    const gm = new SidecarClient(server.url, { table, name: "MJ (web)", role: "gm", token: GM_TOKEN, reconnect: false });
    clients.push(gm);
    await gm.connect();
    const { token } = await gm.addSeat("Léa");
    const user = { id: "u-lea", name: "Léa", isGM: false, active: true };
    const foundry = await fakeFoundry("asks", { user, settings: { url: server.url, table, playerToken: PLAYER_TOKEN,
      gmToken: "", seatToken: token, seatName: "", character: "", mirror: false } });
    try {
      const ask = await gm.ask({ to: ["Léa"], ruleset: "luck", label: "Grimper" });
      for (let i = 0; i < 500 && !foundry.created.length; i += 1) await new Promise((resolve) => setTimeout(resolve, 10));
      const card = foundry.created[0];
      assert.equal(card.flags["vtt-sidecar"].ask, ask.ask);
      assert.deepEqual(card.whisper, [foundry.user.id]);
      const rendered = fakeAnswerCard(card.content);
      const render = foundry.hooks.get("renderChatMessage")[0];
      render(card, [rendered.root]);
      await rendered.blocks[0].button.click();
      const answer = foundry.created[1];
      assert.match(answer.content, /répond à la demande/);
      assertShownAsText(card.content, `Répondu (#${answer.flags["vtt-sidecar"].seq})`);
      assert.doesNotMatch(card.content, /<button/);
    } finally {
      await foundry.close();
    }
  });

  test("a cancelled ask says so on both cards; /sc session is announced to everyone", async () => {
    const gmCard = await chats.MJ.handle("/sc ask luck --to Alice");
    await until(() => posted.Alice.some((message) => message.ask === gmCard.ask));
    const asked = posted.Alice.find((message) => message.ask === gmCard.ask);
    await chats.MJ.handle(`/sc ask cancel ${gmCard.ask}`);
    assertShownAsText(gmCard.content, "Demande annulée");
    await until(() => asked.content.includes("Demande annulée"));
    assert.doesNotMatch(asked.content, /<button/);
    const refused = await chats.Alice.handle("/sc ask luck --to Alice");
    assert.equal(refused.error, true);
    const session = await chats.MJ.handle("/sc session");
    assertShownAsText(session.content, "Nouvelle session de jeu : 1");
    assert.deepEqual(session.whisper, []);
  });

  test("an initiative is announced to everyone as its order and what a claim cost, not as a roll", async () => {
    const gm = chats.MJ.client;
    for (const [character, pep] of [["Garde", 4], ["Aengus", 2], ["Brady", 2]]) {
      await gm.request({ type: "sheet", op: "set", character, ruleset: "oweens", owner: null, values: { pep, bonbonus: 3 } });
    }
    const event = await gm.request({ type: "initiative", characters: ["Garde", "Aengus", { character: "Brady", claim: true }] });
    await until(() => posted.MJ.some((message) => message.seq === event.seq));
    const card = posted.MJ.find((message) => message.seq === event.seq);
    assertShownAsText(card.content, "Initiative : Brady, puis Garde, puis Aengus (Brady : −1 BB+)");
    assert.doesNotMatch(card.content, /sidecar-die|failure|échec/i);
    assert.deepEqual(card.whisper, []);
    // Only the responsible GM's client posts it (once for the table).
    assert.equal(posted.Alice.some((message) => message.seq === event.seq), false);
    const ties = await gm.request({ type: "initiative", characters: ["Garde", "Aengus", "Brady"] });
    await until(() => posted.MJ.some((message) => message.seq === ties.seq));
    assertShownAsText(posted.MJ.find((message) => message.seq === ties.seq).content,
      "Initiative : Garde, puis Aengus et Brady ensemble");
  });
});
