// The Foundry module in a world as a real one behaves (fake-foundry.mjs), against real
// sidecars: the sidecar down when Foundry starts, blind cards posted by a GM joined as GM,
// cards that Foundry's inline rolls and enrichers leave alone, cards speaking as the roller,
// physical dice typed on a card, and `/sc 2d6+3`.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { register } from "node:module";
import { createServer } from "node:net";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";

import { SidecarClient } from "../../../sidecar/server/web/static/sidecar-client.js";
import { GM_TOKEN, PLAYER_TOKEN, ROOT, startSidecar } from "../../../tests/js/sidecar-process.mjs";
import {
  SidecarChat, bindAnswers, bindChoices, originFlag, parseCommand, parseFaces, renderAskedCard, renderCard,
  responsibleGM,
} from "../scripts/sidecar-chat.js";
import { INLINE_ROLL, installFoundry, randomID, textNodes } from "./fake-foundry.mjs";

register("../../../tests/js/http-loader.mjs", import.meta.url);
const FRENCH = JSON.parse(readFileSync(new URL("../lang/fr.json", import.meta.url), "utf8"));
const LUCK = ["--plugins-dir", join(ROOT, "tests", "js", "plugins")];
const clients = [];
let variants = 0;

async function until(predicate, what = "condition") {
  for (let i = 0; i < 1000 && !(await predicate()); i += 1) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.ok(await predicate(), what);
}

async function joined(url, options) {
  const client = new SidecarClient(url, { requestTimeout: 8000, reconnect: false, ...options });
  clients.push(client);
  await client.connect();
  return client;
}

after(async () => { await Promise.all(clients.map((client) => client.close())); });

/** module.js booted in the fake as `me`; `wait`: until it joined (or was refused). */
async function world({ users, me, settings, origin, wait = true }) {
  const fake = installFoundry({ users, me, translations: FRENCH, origin,
    settings: { table: "real", playerToken: PLAYER_TOKEN, gmToken: "", seatToken: "", seatName: "", character: "",
                mirror: false, ...settings } });
  variants += 1;
  await import(`../scripts/module.js?real-${variants}`);
  await fake.boot();
  const api = fake.game.modules.get("vtt-sidecar").api;
  if (wait) await api.start();
  return { fake, api, async close() { await api.stop(); fake.uninstall(); } };
}

describe("the fake is as strict as Foundry", () => {
  test("hook then parse: an unhooked /sc is Foundry's invalid command; settings, ids, activeGM, format", async () => {
    const fake = installFoundry({ users: [{ name: "MJ", isGM: true, id: "bbbbbbbbbbbbbbbb" },
      { name: "MJ2", isGM: true, id: "aaaaaaaaaaaaaaaa", active: false }, { name: "Aengus" }], me: "Aengus",
      translations: { "X.hello": "Bonjour {name} ({table})" } });
    try {
      await assert.rejects(fake.chat("/sc bloodlust pool=3"), /InvalidCommand|\/sc/);
      assert.ok(await fake.chat("Bonjour"));
      assert.throws(() => fake.game.settings.get("vtt-sidecar", "url"), /not a registered game setting/);
      await assert.rejects(globalThis.ChatMessage.create({ content: "x", whisper: ["u1"] }), /16-character/);
      await assert.rejects(globalThis.ChatMessage.create({ content: "x", speaker: ChatMessage.getSpeaker() && { actor: 3 } }),
        /speaker/);
      assert.equal(fake.users.activeGM.name, "MJ"); // MJ2 has a lower id but is away
      assert.equal(fake.game.i18n.format("X.hello", { name: "Aengus" }), "Bonjour Aengus (undefined)");
      // Foundry rolls inline rolls of the raw content, and enriches decoded text nodes.
      await ChatMessage.create({ content: "<p>[[1d20]] &#64;UUID[Actor.x]{y}</p>" });
      assert.deepEqual(fake.inlineRolls, ["[[1d20]]"]);
      assert.equal(fake.enriched.length, 1);
    } finally {
      fake.uninstall();
    }
  });
});

describe("the sidecar not up when Foundry starts", () => {
  test("/sc is answered with a notification, never Foundry's invalid command, and works once it is up", async () => {
    const port = await new Promise((resolve) => {
      const probe = createServer().listen(0, "127.0.0.1", () => { const { port } = probe.address(); probe.close(() => resolve(port)); });
    });
    const { fake, api, close } = await world({ users: [{ name: "Aengus" }], me: "Aengus", wait: false,
      settings: { url: `ws://127.0.0.1:${port}/ws` } });
    let sidecar;
    try {
      assert.equal(await fake.chat("/sc bloodlust pool=3"), null); // taken by the module, no throw
      await until(() => fake.notes.some((note) => /pas encore joignable/.test(note.message)), "a notification");
      assert.equal(fake.messages.size, 0);
      sidecar = await startSidecar({ port });
      // Typing /sc again tries at once (no need to wait for the next retry).
      await fake.chat("/sc bloodlust pool=3");
      await until(() => api.client?.state === "open", "joined once the sidecar is up");
      assert.equal(await fake.chat("/sc bloodlust pool=3 Sauter"), null);
      await until(() => fake.messages.size === 1, "a card");
      assert.match(fake.messages.contents[0].content, /sidecar-card/);
      assert.ok(fake.notes.every((note) => !note.message.includes("undefined")), JSON.stringify(fake.notes));
    } finally {
      await close();
      await sidecar?.stop();
    }
  });
});

describe("blind cards: posted by a GM joined as GM, never lost, never shown to a player", () => {
  let sidecar;
  before(async () => { sidecar = await startSidecar(); });
  after(async () => { await sidecar.stop(); });

  test("the poster is the first active GM connected as GM, not Foundry's activeGM", () => {
    const users = [{ id: "aaaaaaaaaaaaaaaa", name: "Morgane", isGM: true, active: true },
                   { id: "bbbbbbbbbbbbbbbb", name: "Brann", isGM: true, active: true },
                   { id: "cccccccccccccccc", name: "Aengus", isGM: false, active: true }];
    assert.equal(responsibleGM(users, new Set(["Brann"])), "bbbbbbbbbbbbbbbb");
    assert.equal(responsibleGM(users, new Set(["Brann", "Morgane"])), "aaaaaaaaaaaaaaaa");
    assert.equal(responsibleGM(users, new Set(["Aengus"])), null); // a player named like it is no GM
    assert.equal(responsibleGM(users, new Set()), null);
  });

  test("a GM without the token is told so; a GM on another device posts the blind card; a late GM catches up", async () => {
    const table = "real-blind";
    const ids = { Morgane: "aaaaaaaaaaaaaaaa", Brann: "bbbbbbbbbbbbbbbb", Aengus: "cccccccccccccccc" };
    const users = [{ id: ids.Morgane, name: "Morgane", isGM: true }, { id: ids.Brann, name: "Brann", isGM: true },
                   { id: ids.Aengus, name: "Aengus" }];
    // Morgane's browser (Foundry's activeGM) has no GM token: refused, and told why.
    const morgane = await world({ users, me: "Morgane", settings: { url: sidecar.url, table } });
    try {
      const note = morgane.fake.notes.find((each) => each.level === "error");
      assert.match(note.message, /refusé votre connexion de MJ/);
      assert.equal(note.options?.permanent, true);
      assert.equal(morgane.fake.users.activeGM.name, "Morgane");
      assert.equal(morgane.api.chat.isResponsibleGM(), false);
      // Entering the token joins again, as GM, without a reload.
      await morgane.fake.game.settings.set("vtt-sidecar", "gmToken", GM_TOKEN);
      await until(() => morgane.api.client?.state === "open" && morgane.api.client.role === "gm", "joined as GM");
      await until(() => morgane.api.chat.isResponsibleGM(), "Morgane posts blind cards now");
    } finally {
      await morgane.close();
    }
    // The world's chat, shared by the browsers of this test (one message store).
    const chatLog = [];
    let failures = 1; // Foundry refuses the first attempt at the blind card: retried
    const browser = (name, client, more = {}) => {
      const chat = new SidecarChat({ client, userId: ids[name], gmIds: () => [ids.Morgane, ids.Brann],
        otherNames: () => Object.keys(ids), retryDelays: [10, 10],
        hasBlindCard: (seq) => chatLog.some((message) => message.blind && message.seq === seq),
        post: async (message) => {
          if (name === "Brann" && message.blind && failures-- > 0) throw new Error("socket busy");
          const posted = { ...message, author: name };
          chatLog.push(posted);
          return posted;
        }, ...more });
      chat.isResponsibleGM = () => client.role === "gm"
        && responsibleGM(users.map((user) => ({ ...user, active: true })), chat.sidecarGMs) === ids[name];
      return chat;
    };
    const aengus = browser("Aengus", await joined(sidecar.url, { table, name: "Aengus", token: PLAYER_TOKEN }));
    // Rolled while no GM is connected as GM: only the player's hidden note is posted.
    const early = await aengus.handle('/sc bloodlust pool=4 "Fouiller la crypte"', "blindroll");
    assert.doesNotMatch(early.content, /sidecar-die/);
    // Brann's browser joins as GM: it becomes the poster and posts the card the chat misses.
    const brann = browser("Brann", await joined(sidecar.url, { table, name: "Brann", role: "gm", token: GM_TOKEN }));
    await until(() => chatLog.some((message) => message.seq === early.seq && message.author === "Brann"), "caught up");
    // Live now: a second blind roll reaches the chat through Brann's client.
    const live = await aengus.handle("/sc bloodlust pool=2", "blindroll");
    await until(() => chatLog.some((message) => message.seq === live.seq && message.author === "Brann"), "live");
    for (const seq of [early.seq, live.seq]) {
      const cards = chatLog.filter((message) => message.seq === seq && message.author === "Brann");
      assert.equal(cards.length, 1, `one GM card for #${seq}`);
      assert.equal(cards[0].blind, true);
      assert.deepEqual(cards[0].whisper, [ids.Morgane, ids.Brann]);
      assert.equal(cards[0].alias, "Aengus"); // the roller speaks, not the GM's selected token
      assert.match(cards[0].content, /sidecar-die/);
    }
    // Nothing the player's browser posted or may read shows a die of a blind roll.
    for (const message of chatLog.filter((each) => !each.blind && (each.whisper.length === 0
        || each.whisper.includes(ids.Aengus)))) {
      assert.doesNotMatch(message.content, /sidecar-die/);
    }
    // A second catch-up posts nothing again.
    assert.deepEqual(await brann.catchUp(), []);
    brann.unsubscribe();
    aengus.unsubscribe();
  });
});

describe("cards Foundry leaves alone, speaking as the roller", () => {
  let sidecar;
  before(async () => { sidecar = await startSidecar(); });
  after(async () => { await sidecar.stop(); });

  test("labels full of inline rolls and links: nothing rolled by Foundry, nothing enriched", async () => {
    const { fake, close } = await world({ users: [{ name: "[[/r 1d20]] @UUID[Actor.abc]{Morgane}" }],
      me: "[[/r 1d20]] @UUID[Actor.abc]{Morgane}", settings: { url: sidecar.url, table: "real-inline" } });
    try {
      const tricks = '"[[1d100]] [[/r 1d20+99]]{Critique} @UUID[Actor.abc123]{Morgane} @Check[dc:20] [[[1d6]]]"';
      assert.equal(await fake.chat(`/sc bloodlust pool=2 ${tricks}`), null);
      await until(() => fake.messages.size === 1, "a card");
      const card = fake.messages.contents[0];
      assert.deepEqual(fake.inlineRolls, []);
      assert.deepEqual(fake.enriched, []);
      const shown = textNodes(card.content).join("");
      assert.ok(shown.includes("[[1d100]] [[/r 1d20+99]]{Critique} @UUID[Actor.abc123]{Morgane}"), shown);
      assert.doesNotMatch(shown.replace(/\s/g, ""), /^$/);
      assert.equal(card.speaker.alias, "[[/r 1d20]] @UUID[Actor.abc]{Morgane}");
      assert.equal(card.speaker.token, null);
      // Foundry's own pattern finds nothing in any text node.
      for (const node of textNodes(card.content)) assert.equal([...node.matchAll(INLINE_ROLL)].length, 0);
    } finally {
      await close();
    }
  });
});

describe("/sc 2d6+3: the plain dice roller", () => {
  test("a bare expression rolls the dice ruleset with expr (and target, label, mode)", async () => {
    const sent = [];
    const client = { on: () => () => {}, name: "Aengus", role: "player", welcome: { rulesets: [{ name: "oweens", params: {} }] },
      characters: new Map(),
      roll: async (request) => { sent.push(request); return { seq: 1, by: { name: "Aengus" }, ruleset: "dice", dice: [],
                                                              result: { kind: "success", label: { fr: "Réussite" } } }; } };
    const posted = [];
    const chat = new SidecarChat({ client, userId: randomID(), gmIds: () => [],
      post: async (message) => { posted.push(message); return message; } });
    await chat.handle("/sc 2d6+3", "publicroll");
    await chat.handle('/sc 8d10>=7 target=3 "Tirer" --mode gm', "publicroll");
    assert.deepEqual(sent.map(({ ruleset, params, label, mode }) => ({ ruleset, params, label, mode })), [
      { ruleset: "dice", params: { expr: "2d6+3" }, label: "", mode: "public" },
      { ruleset: "dice", params: { expr: "8d10>=7", target: 3 }, label: "Tirer", mode: "gm" }]);
    assert.equal(posted[0].alias, "Aengus");
    for (const expr of ["4d6kh3", "2d20kl1+5", "1d100", "3d6!", "1d20+1d4-1", "d%"]) {
      assert.deepEqual(parseCommand(`/sc ${expr}`, []).params, { expr });
    }
    assert.equal(parseCommand("/sc odds 2d6 target=8", []).action, "odds");
    assert.equal(parseCommand("/sc d6code code=3D", [{ name: "d6code", params: {} }]).ruleset, "d6code");
  });
});

describe("physical dice typed on a card (asks, and choices that draw dice)", () => {
  let sidecar;
  before(async () => { sidecar = await startSidecar({ extra: [...LUCK, "--allow-player-dice"] }); });
  after(async () => { await sidecar.stop(); });

  /** A rendered block (answer or choices) with its faces field typed. */
  function block(html, selector, typed) {
    const listeners = new Map();
    const field = { value: typed };
    const buttons = [...html.matchAll(/<button [^>]*>/g)].map((match) => {
      const button = { dataset: { choice: match[0].match(/data-choice="([^"]*)"/)?.[1] }, disabled: false,
                       addEventListener: (type, fn) => listeners.set(button, fn),
                       click: () => listeners.get(button)({ preventDefault() {} }) };
      return button;
    });
    const data = html.match(/<div class="sidecar-(?:answer|choices)" ([^>]*)>/)[1];
    const dataset = Object.fromEntries([...data.matchAll(/data-(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    const element = { dataset, remove() {}, buttons,
      querySelector: (css) => (css === ".sidecar-faces" ? field : null),
      querySelectorAll: (css) => (css === ".sidecar-answer-button" || css === ".sidecar-choice" ? buttons : []) };
    return { root: { querySelectorAll: (css) => (css === selector ? [element] : []) }, element, field };
  }

  test("faces: typed, parsed, refused when not numbers", () => {
    assert.equal(parseFaces(""), undefined);
    assert.deepEqual(parseFaces(" 6, 3 2 "), [6, 3, 2]);
    assert.throws(() => parseFaces("six"), /chiffres/);
    assert.match(renderAskedCard({ ask: "a", ruleset: "luck" }, { seat: "Alice" }), /class="sidecar-faces"/);
    const open = { seq: 1, roll: "r", by: { name: "A" }, open: true, result: { kind: "failure" },
                   choices: [{ name: "reroll", dice: 1 }, { name: "keep", dice: 0 }] };
    assert.match(renderCard(open), /class="sidecar-faces"/);
    assert.doesNotMatch(renderCard({ ...open, choices: [{ name: "keep", dice: 0 }] }), /sidecar-faces/);
  });

  test("an asked player answers with their own dice; a choice that draws a die takes the typed face", async () => {
    const table = "real-faces";
    const gm = await joined(sidecar.url, { table, name: "MJ", role: "gm", token: GM_TOKEN });
    const { token } = await gm.addSeat("Alice");
    const alice = await joined(sidecar.url, { table, name: "Alice", token });
    // What the card hands to the client (a random d6 could match the typed face by chance).
    const sent = [];
    for (const method of ["answer", "react"]) {
      const original = alice[method].bind(alice);
      alice[method] = (...args) => { sent.push([method, args.at(-1)]); return original(...args); };
    }
    const posted = [];
    const chat = new SidecarChat({ client: alice, userId: randomID(), gmIds: () => [],
      post: async (message) => { posted.push(message); return message; },
      update: async (message, content) => { message.content = content; } });
    const ask = await gm.ask({ to: ["Alice"], ruleset: "luck", params: { target: 5 }, label: "Grimper" });
    await until(() => posted.length === 1, "the asked card");
    // A typo first: refused to Alice, nothing sent.
    const typo = block(posted[0].content, ".sidecar-answer", "quatre");
    assert.equal(bindAnswers(typo.root, chat).length, 1);
    await typo.element.buttons[0].click();
    assert.equal(posted.at(-1).error, true);
    assert.match(posted.at(-1).content, /chiffres/);
    const card = block(posted[0].content, ".sidecar-answer", "4");
    bindAnswers(card.root, chat);
    await card.element.buttons[0].click();
    const answer = posted.at(-1);
    assert.match(answer.content, /répond à la demande/);
    const outcome = (await alice.history({ after: answer.seq - 1, limit: 1 })).events[0];
    assert.equal(outcome.answers, ask.ask);
    assert.deepEqual(outcome.dice.map((die) => die.face), [4]);
    // An open roll whose reroll draws one die: the typed face is the die rerolled.
    const rolled = await chat.handle("/sc luck target=7 second_chance=oui --dice 1", "publicroll");
    const choices = block(rolled.content, ".sidecar-choices", "5");
    assert.equal(bindChoices(choices.root, chat).length, 1);
    await choices.element.buttons.find((button) => button.dataset.choice === "reroll").click();
    const decision = posted.at(-1);
    assert.match(decision.content, /en réponse au jet/);
    const decided = (await alice.history({ after: decision.seq - 1, limit: 1 })).events[0];
    assert.deepEqual(decided.dice.map((die) => die.face), [5]);
    assert.deepEqual(sent, [["answer", [4]], ["react", [5]]]);
    chat.unsubscribe();
  });
});

describe("Foundry v13", () => {
  test("the card buttons are bound on v13's renderChatMessageHTML (an HTMLElement), v12's renderChatMessage before", async () => {
    for (const [generation, hook, other] of [[13, "renderChatMessageHTML", "renderChatMessage"],
                                             [12, "renderChatMessage", "renderChatMessageHTML"]]) {
      const fake = installFoundry({ users: [{ name: "A" }], me: "A", generation, settings: { url: "ws://127.0.0.1:9/ws" } });
      try {
        await import(`../scripts/module.js?v${generation}-${(variants += 1)}`);
        Hooks.callAll("init");
        assert.equal(fake.hooks.get(hook)?.length, 1, hook);
        assert.equal(fake.hooks.get(other), undefined, other);
      } finally {
        fake.uninstall();
      }
    }
  });
});

describe("a Foundry page on the LAN", () => {
  test("the settings screen says the exact --origin flag for this page", async () => {
    const origin = "http://192.168.1.20:30000";
    assert.equal(originFlag(origin), `--origin ${origin}`);
    assert.equal(originFlag("http://localhost:30000"), "");
    const { fake, close } = await world({ users: [{ name: "MJ", isGM: true }], me: "MJ", origin, wait: false,
      settings: { url: "ws://127.0.0.1:9/ws" } });
    const appended = [];
    globalThis.document = { createElement: () => ({}) };
    try {
      const group = { append: (line) => appended.push(line) };
      const input = { value: "ws://192.168.1.20:8765/ws", closest: () => group };
      fake.hooks.get("renderSettingsConfig")[0].fn({}, [{ querySelector: (css) => (css === '[name="vtt-sidecar.url"]' ? input : null) }]);
      assert.equal(appended.length, 1);
      assert.equal(appended[0].textContent,
        `Cette page Foundry demande de lancer le sidecar avec : sidecar serve --origin ${origin}`);
      await until(() => fake.notes.length > 0, "the unreachable notification");
      assert.match(fake.notes[0].message, /--origin http:\/\/192\.168\.1\.20:30000/);
    } finally {
      delete globalThis.document;
      await close();
    }
  });
});
