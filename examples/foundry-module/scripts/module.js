/**
 * vtt-sidecar for Foundry VTT: rolls typed as `/sc …` in the chat are resolved by the
 * table's sidecar (authoritative dice, exact odds, hidden rolls that stay hidden) and come
 * back as chat cards. The JS client is loaded from the sidecar itself, so the module and the
 * server always speak the same protocol version.
 *
 * The sidecar may be down when Foundry starts: the `chatMessage` hook is registered at
 * `init` whatever happens, the client is loaded lazily and retried (with growing pauses,
 * and at once when someone types `/sc`), and a `/sc` typed meanwhile is answered with a
 * notification saying so — never Foundry's "invalid command". A Foundry page on the LAN or
 * behind HTTPS needs the sidecar to accept it: the settings screen and the notifications
 * say the exact `sidecar serve` flag (`--origin …`, or TLS for an `https://` world).
 *
 * A player with a seat (their own token, made by the GM with `sidecar seat add` or on the
 * sidecar's page) puts it in the client-scoped *Seat token* setting: the module joins as
 * that seat (under the Foundry user's name, or the *Seat name* setting), which keeps their
 * secret rolls theirs, and `/sc` rolls as their character (see `chooseCharacter`).
 * A `/sc` roll, odds or ask is aimed at the tokens the user targets in Foundry
 * (`game.user.targets`: each token's actor name is the sidecar character hit, contract §8);
 * its card says what the roll did to them (« Blessures de Brady : 2 → 5 »).
 *
 * The *Sidecar address* setting may list several addresses separated by commas (sidecar
 * processes serving the same tables): the client file is loaded from the first that
 * serves it, and the client moves to the next address when its connection drops, resuming
 * where it was (`serverUrls`).
 *
 * Blind cards (and the GM's cards of asks) are posted by one GM's client: the first active
 * GM connected to the sidecar *as GM* (`responsibleGM`), not Foundry's `activeGM`, whose
 * browser may hold no GM token; a GM whose connection is refused is told so, and joins again
 * when the GM token setting changes. When a GM's client becomes the poster, it posts the
 * blind cards the chat is missing (`SidecarChat.catchUp`).
 *
 * An open roll's card carries its choices as buttons, kept for its roller and the GMs
 * (`bindChoices` on `renderChatMessage`); once decided, the card loses them for a line
 * saying what was decided (`closeChoices`), updated by its author, or by the responsible
 * GM when the author is away. Asked rolls (`/sc ask …`, GM) post a card per asked player
 * with one button that answers (`bindAnswers`); choices that draw dice and answers take
 * the player's physical dice in a field (faces, `6,3`).
 */
import {
  SidecarChat, bindAnswers, bindChoices, closeChoices, escapeHtml, isSidecarCommand, originFlag, responsibleGM,
  targetedNames,
} from "./sidecar-chat.js";

const MODULE = "vtt-sidecar";
/** Pauses (ms) between attempts at loading the client from the sidecar; the last repeats. */
const RETRY_DELAYS = [2000, 5000, 10000, 30000];

/** The module's live state: the client once loaded, the chat bridge, the loading loop. */
const live = { client: null, chat: null, loading: null, wake: null, attempt: 0, warned: false, stopped: false,
               hurry: false, generation: 0 };

function setting(key) {
  return game.settings.get(MODULE, key);
}

/** A localized notification; Foundry shows notifications as HTML, so the values are escaped. */
function notice(key, data = {}) {
  return game.i18n.format(key, Object.fromEntries(
    Object.entries(data).map(([name, value]) => [name, escapeHtml(value)])));
}

function register(key, data) {
  game.settings.register(MODULE, key, { config: true, ...data,
    name: `VTTSIDECAR.settings.${key}.name`, hint: `VTTSIDECAR.settings.${key}.hint` });
}

/** Where the sidecar serves its files (`ws://host:port/ws` → `http://host:port`). */
export function httpBase(url) {
  return url.replace(/^ws(s?):/, "http$1:").replace(/\/ws\/?$/, "");
}

/** The addresses of the *Sidecar address* setting: one, or several separated by commas. */
export function serverUrls(text) {
  const urls = String(text ?? "").split(",").map((url) => url.trim()).filter(Boolean);
  return urls.length ? urls : [String(text ?? "")];
}

/** This Foundry page's origin (`http://192.168.1.20:30000`), as the sidecar sees it. */
function pageOrigin() {
  return globalThis.location?.origin ?? "";
}

/** What this page needs from `sidecar serve`: the `--origin` flag, TLS for an https page. */
function serveAdvice(url) {
  const parts = [];
  const flag = originFlag(pageOrigin());
  if (flag) parts.push(flag);
  if (globalThis.location?.protocol === "https:" && serverUrls(url).some((one) => /^ws:/i.test(one))) {
    parts.push("--ssl-certfile cert.pem --ssl-keyfile key.pem (wss://…)");
  }
  return parts.join(" ");
}

Hooks.once("init", () => {
  register("url", { scope: "world", type: String, default: "ws://127.0.0.1:8765/ws", onChange: () => restart() });
  register("table", { scope: "world", type: String, default: "foundry", onChange: () => restart() });
  // Players share the player token; the GM token stays in the GM's own browser (a world
  // setting would be readable by every player).
  register("playerToken", { scope: "world", type: String, default: "", onChange: () => restart() });
  // A GM refused for a missing or wrong token joins again as soon as it is entered.
  register("gmToken", { scope: "client", type: String, default: "", onChange: () => restart() });
  // A seat's token is its player's alone: kept in that player's browser, like the GM's.
  register("seatToken", { scope: "client", type: String, default: "", onChange: () => restart() });
  register("seatName", { scope: "client", type: String, default: "" });
  register("character", { scope: "client", type: String, default: "" });
  register("mirror", { scope: "world", type: Boolean, default: true });
  // Registered now, whatever the sidecar does later: `/sc` is never Foundry's invalid command.
  Hooks.on("chatMessage", onChatMessage);
  // v13 renamed the hook (an HTMLElement instead of jQuery); the old name is deprecated there.
  const rendered = (game.release?.generation ?? 12) >= 13 ? "renderChatMessageHTML" : "renderChatMessage";
  Hooks.on(rendered, (_message, html) => {
    if (!live.chat) return;
    bindChoices(html?.[0] ?? html, live.chat);
    bindAnswers(html?.[0] ?? html, live.chat);
  });
  Hooks.on("renderSettingsConfig", (_app, html) => showServeAdvice(html?.[0] ?? html));
});

Hooks.once("ready", () => {
  game.modules.get(MODULE).api = { start, restart, stop, get client() { return live.client; },
                                   get chat() { return live.chat; } };
  start();
});

/**
 * The settings screen, under the sidecar's address: the exact `sidecar serve` flags this
 * page needs (a LAN or hosted Foundry is refused without `--origin`).
 */
function showServeAdvice(root) {
  const input = root?.querySelector?.(`[name="${MODULE}.url"]`);
  const advice = serveAdvice(input?.value ?? setting("url"));
  if (!input || !advice) return;
  const line = document.createElement("p");
  line.className = "notes vtt-sidecar-origin";
  line.textContent = game.i18n.format("VTTSIDECAR.originAdvice", { flags: advice });
  (input.closest?.(".form-group") ?? input.parentElement)?.append(line);
}

function onChatMessage(_log, text) {
  if (!isSidecarCommand(text)) return true;
  if (!live.chat || live.client?.state !== "open") {
    // Not loaded yet, or the connection is down: say so, and try now rather than later.
    ui.notifications.warn(notice("VTTSIDECAR.notReady", { url: setting("url") }));
    live.hurry = true; // an attempt under way when it fails: the next one at once
    live.wake?.();
    if (!live.client) start();
    return false;
  }
  try {
    const handled = live.chat.handle(text, game.settings.get("core", "rollMode"));
    if (handled !== false) handled.catch((error) => console.error("vtt-sidecar:", error));
  } catch (error) {
    console.error("vtt-sidecar:", error);
  }
  return false; // Foundry must not post the raw command
}

/** Loads the client from the sidecar (retried until it comes), then joins the table. */
export function start() {
  live.loading ??= (async () => {
    const url = setting("url");
    const urls = serverUrls(url);
    // A restart starts a new loop: this one ends at its next turn.
    const generation = ++live.generation;
    while (!live.stopped && live.generation === generation) {
      try {
        // The HTML spec lets a browser remember a failed module import (today's Chromium
        // fetches again; not every engine does): each attempt is a new URL.
        const suffix = live.attempt ? `?attempt=${live.attempt}` : "";
        const { SidecarClient, first } = await loadClient(urls, suffix);
        if (live.stopped || live.generation !== generation) return null;
        // The client joins through the address that just answered first, then the others.
        return await join(SidecarClient, url, [...urls.slice(first), ...urls.slice(0, first)]);
      } catch (error) {
        if (live.attempt === 0) {
          ui.notifications.error(notice("VTTSIDECAR.unreachable", { url, advice: serveAdvice(url) }));
          console.error("vtt-sidecar: cannot load the client from the sidecar; retrying", error);
        }
        const delay = live.hurry ? 0 : RETRY_DELAYS[Math.min(live.attempt, RETRY_DELAYS.length - 1)];
        live.hurry = false;
        live.attempt += 1;
        let wake;
        await new Promise((resolve) => {
          const timer = setTimeout(resolve, delay);
          wake = () => { clearTimeout(timer); resolve(); };
          live.wake = wake;
        });
        if (live.wake === wake) live.wake = null; // (a newer loop's is not ours to clear)
      }
    }
    return null;
  })();
  return live.loading;
}

/** The client module from the first of `urls` that serves it, and that address's index;
 * rejects with the last one's failure. */
async function loadClient(urls, suffix) {
  for (let first = 0; ; first += 1) {
    try {
      const { SidecarClient } = await import(`${httpBase(urls[first])}/static/sidecar-client.js${suffix}`);
      return { SidecarClient, first };
    } catch (error) {
      if (first === urls.length - 1) throw error;
    }
  }
}

/** Ends the module's connection and its retries (the world is closing; tests). */
export async function stop() {
  live.stopped = true;
  live.wake?.();
  live.chat?.unsubscribe();
  await live.client?.close?.();
}

/** Closes the client and joins again (a setting changed: a GM token entered…). */
export async function restart() {
  const old = live.client;
  live.chat?.unsubscribe();
  live.client = null;
  live.chat = null;
  live.loading = null;
  live.attempt = 0;
  live.wake?.();
  await old?.close?.();
  if (game.ready !== false) return start();
  return null;
}

async function join(SidecarClient, url, urls) {
  const lang = game.i18n.lang?.startsWith("fr") ? "fr" : "en";
  const isGM = game.user.isGM;
  const seatToken = isGM ? "" : setting("seatToken").trim();
  const name = (seatToken && setting("seatName").trim()) || game.user.name;
  const client = new SidecarClient(urls.length > 1 ? urls : urls[0], {
    table: setting("table"), name, role: isGM ? "gm" : "player",
    token: isGM ? setting("gmToken") : seatToken || setting("playerToken"), locale: lang,
  });
  const messages = () => game.messages?.contents ?? game.messages ?? [];
  const chat = new SidecarChat({
    client, lang, userId: game.user.id,
    gmIds: () => game.users.filter((user) => user.isGM).map((user) => user.id),
    // The GM client posting blind cards: one connected to the sidecar as GM.
    isResponsibleGM: () => client.role === "gm" && client.state === "open"
      && responsibleGM(game.users, chat.sidecarGMs.size ? chat.sidecarGMs : new Set([name])) === game.user.id,
    otherNames: () => game.users.map((user) => user.name),
    mirror: () => setting("mirror"),
    character: () => setting("character").trim(),
    assigned: () => game.user.character?.name ?? "",
    // Foundry's own targeting (T on a token): each targeted token's actor is the character hit.
    targeted: () => targetedNames(game.user.targets),
    seat: () => (seatToken ? name : ""),
    userIdOf: (sidecarName) => game.users.find((user) => user.name === sidecarName)?.id ?? null,
    hasBlindCard: (seq) => [...messages()].some((message) => message.blind && message.flags?.[MODULE]?.seq === seq),
    // Every card speaks as the roller (`alias`), never as the token the poster has selected.
    post: ({ content, whisper, blind, rollMode, seq, roll, open, ask, alias }) => ChatMessage.create({
      content, whisper, blind, speaker: { scene: null, actor: null, token: null, alias: alias || game.user.name },
      flags: { [MODULE]: { seq: seq ?? null, rollMode: rollMode ?? null, roll: roll ?? null, open: open === true,
                           ask: ask ?? null } },
    }),
    update: (message, content) => message?.update?.({ content }),
    close: async (roll, decision) => {
      const responsible = chat.isResponsibleGM();
      for (const message of [...messages()]) {
        const flags = message.flags?.[MODULE];
        if (flags?.roll !== roll || !flags.open) continue;
        const author = message.author ?? message.user;
        // One client changes each card: its author, or the responsible GM when it is away.
        if (!(author?.id === game.user.id || (responsible && !author?.active))) continue;
        await message.update({ content: closeChoices(message.content, decision, lang),
                               [`flags.${MODULE}.open`]: false });
      }
    },
  });
  live.client = client;
  live.chat = chat;
  client.on("state", (state) => {
    if (state === "reconnecting" && !live.warned) {
      live.warned = true; // once per drop, not per attempt
      ui.notifications.warn(game.i18n.localize("VTTSIDECAR.reconnecting"));
    }
    if (state === "open" && live.warned) ui.notifications.info(notice("VTTSIDECAR.connected", { table: setting("table") }));
    if (state === "open") live.warned = false;
  });
  try {
    await client.connect();
    ui.notifications.info(notice("VTTSIDECAR.connected", { table: setting("table") }));
  } catch (error) {
    live.warned = true; // the reconnection that follows says "connected" when it comes
    const message = error.serverMessage ?? error.message;
    let key = "VTTSIDECAR.refused";
    // A name that has a seat joins with its seat's token only: say where to put it.
    if (error.code === "forbidden" && !isGM && !seatToken) key = "VTTSIDECAR.seatNeeded";
    // A GM without this browser's GM token: blind cards need a GM joined as GM.
    if (isGM && !["closed", "timeout"].includes(error.code)) key = "VTTSIDECAR.gmRefused";
    // The files came from the sidecar but the WebSocket did not open: the origin, most likely.
    if (error.code === "closed" && serveAdvice(url)) key = "VTTSIDECAR.originRefused";
    ui.notifications.error(notice(key, { message, url, advice: serveAdvice(url) }),
                           { permanent: key !== "VTTSIDECAR.refused" });
  }
  return client;
}
