/**
 * vtt-sidecar for Foundry VTT: rolls typed as `/sc …` in the chat are resolved by the
 * table's sidecar (authoritative dice, exact odds, hidden rolls that stay hidden) and come
 * back as chat cards. The JS client is loaded from the sidecar itself, so the module and the
 * server always speak the same protocol version.
 *
 * A player with a seat (their own token, made by the GM with `sidecar seat add` or on the
 * sidecar's page) puts it in the client-scoped *Seat token* setting: the module joins as
 * that seat (under the Foundry user's name, or the *Seat name* setting), which keeps their
 * secret rolls theirs, and `/sc` rolls as their character (see `chooseCharacter`).
 *
 * An open roll's card carries its choices as buttons, kept for its roller and the GMs
 * (`bindChoices` on `renderChatMessage`); once decided, the card loses them for a line
 * saying what was decided (`closeChoices`), updated by its author, or by the responsible
 * GM when the author is away.
 *
 * Asked rolls (`/sc ask …`, GM): the responsible GM's client posts the GM's card, which
 * fills as answers arrive (an opposed roll's winner on it); each asked player's client
 * posts that player's card with one button that answers (`bindAnswers`). `/sc session`
 * starts a new game session.
 */
import { SidecarChat, bindAnswers, bindChoices, closeChoices, escapeHtml } from "./sidecar-chat.js";

const MODULE = "vtt-sidecar";

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

Hooks.once("init", () => {
  register("url", { scope: "world", type: String, default: "ws://127.0.0.1:8765/ws" });
  register("table", { scope: "world", type: String, default: "foundry" });
  // Players share the player token; the GM token stays in the GM's own browser (a world
  // setting would be readable by every player).
  register("playerToken", { scope: "world", type: String, default: "" });
  register("gmToken", { scope: "client", type: String, default: "" });
  // A seat's token is its player's alone: kept in that player's browser, like the GM's.
  register("seatToken", { scope: "client", type: String, default: "" });
  register("seatName", { scope: "client", type: String, default: "" });
  register("character", { scope: "client", type: String, default: "" });
  register("mirror", { scope: "world", type: Boolean, default: true });
});

/** Where the sidecar serves its files (`ws://host:port/ws` → `http://host:port`). */
export function httpBase(url) {
  return url.replace(/^ws(s?):/, "http$1:").replace(/\/ws\/?$/, "");
}

Hooks.once("ready", async () => {
  const url = setting("url");
  const lang = game.i18n.lang?.startsWith("fr") ? "fr" : "en";
  let SidecarClient;
  try {
    ({ SidecarClient } = await import(`${httpBase(url)}/static/sidecar-client.js`));
  } catch (error) {
    ui.notifications.error(notice("VTTSIDECAR.unreachable", { url }));
    console.error("vtt-sidecar: cannot load the client from the sidecar", error);
    return;
  }
  const isGM = game.user.isGM;
  const seatToken = isGM ? "" : setting("seatToken").trim();
  const name = (seatToken && setting("seatName").trim()) || game.user.name;
  const client = new SidecarClient(url, {
    table: setting("table"), name, role: isGM ? "gm" : "player",
    token: isGM ? setting("gmToken") : seatToken || setting("playerToken"), locale: lang,
  });
  const chat = new SidecarChat({
    client, lang, userId: game.user.id,
    gmIds: () => game.users.filter((user) => user.isGM).map((user) => user.id),
    // One GM posts the cards of blind and mirrored rolls, not every GM's browser.
    isResponsibleGM: () => game.user.isGM && (game.users.activeGM ?? game.user) === game.user,
    otherNames: () => game.users.map((user) => user.name),
    mirror: () => setting("mirror"),
    character: () => setting("character").trim(),
    assigned: () => game.user.character?.name ?? "",
    seat: () => (seatToken ? name : ""),
    userIdOf: (sidecarName) => game.users.find((user) => user.name === sidecarName)?.id ?? null,
    post: ({ content, whisper, blind, rollMode, seq, roll, open, ask }) => ChatMessage.create({
      content, whisper, blind, speaker: ChatMessage.getSpeaker(),
      flags: { [MODULE]: { seq: seq ?? null, rollMode: rollMode ?? null, roll: roll ?? null, open: open === true,
                           ask: ask ?? null } },
    }),
    update: (message, content) => message?.update?.({ content }),
    close: async (roll, decision) => {
      const responsible = game.user.isGM && (game.users.activeGM ?? game.user) === game.user;
      for (const message of game.messages?.contents ?? game.messages ?? []) {
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
  Hooks.on("renderChatMessage", (_message, html) => {
    bindChoices(html?.[0] ?? html, chat);
    bindAnswers(html?.[0] ?? html, chat);
  });
  client.on("state", (state) => {
    if (state === "reconnecting") ui.notifications.warn(game.i18n.localize("VTTSIDECAR.reconnecting"));
  });
  Hooks.on("chatMessage", (_log, text) => {
    const handled = chat.handle(text, game.settings.get("core", "rollMode"));
    if (handled === false) return true;
    handled.catch((error) => console.error("vtt-sidecar:", error));
    return false; // Foundry must not post the raw command
  });
  try {
    await client.connect();
    ui.notifications.info(notice("VTTSIDECAR.connected", { table: setting("table") }));
  } catch (error) {
    const message = error.serverMessage ?? error.message;
    // A name that has a seat joins with its seat's token only: say where to put it.
    const key = error.code === "forbidden" && !isGM && !seatToken ? "VTTSIDECAR.seatNeeded" : "VTTSIDECAR.refused";
    ui.notifications.error(notice(key, { message }));
  }
  game.modules.get(MODULE).api = { client, chat };
});
