// A fake Foundry VTT (v12/v13) close enough to refuse what a real world refuses, for the
// module's tests under Node and in Chromium (no Node imports: a browser page loads it too).
//
// What it keeps of Foundry, from its client source:
// - `ChatLog#processMessage`: the `chatMessage` hook is called first; only if no handler
//   returned false is the line parsed, and an unknown `/command` throws "invalid command"
//   (a module whose hook was never registered makes every `/sc` throw);
// - `ChatMessage.create`: schema validation (16-character ids for users and whispers,
//   the speaker's four fields, booleans and strings where Foundry wants them), then
//   `_preCreate`, which rolls `[[…]]` inline rolls found in the raw content with Foundry's
//   own dice (recorded in `inlineRolls`: a sidecar card must never hold one);
// - rendering: the enrichers run over each text node's *decoded* text (inline rolls,
//   `@Thing[…]` links), recorded in `enriched`;
// - `game.users.activeGM` computed (the active GM with the lowest id), `game.users` a
//   collection iterating over users, `game.settings.get` throwing on unregistered keys,
//   `game.i18n.format` replacing `{name}` as Foundry does (a missing value reads "undefined").

/** Foundry's `_preCreate` pattern for immediately evaluated inline rolls (raw content). */
export const PRECREATE_INLINE_ROLL = /\[\[[^/].*?]{2,3}/g;
/** `TextEditor.enrichHTML`'s inline roll pattern, over each text node's decoded text. */
export const INLINE_ROLL = /\[\[(\/[a-zA-Z]+\s)?(.*?)(]{2,3})(?:{([^}]+)})?/gi;
/** The document-link enricher (`@UUID[…]{…}`, `@Actor[…]`, `@Compendium[…]`…). */
export const ENRICHER = /@(\w+)\[([^#\]]+)(?:#([^\]]+))?](?:{([^}]+)})?/g;
/** `ChatLog.parse`'s known commands; any other `/word` is "invalid". */
const KNOWN_COMMAND = /^\/(r|roll|gmr|gmroll|br|broll|blindroll|sr|selfroll|pr|publicroll|ic|ooc|em|emote|me|w|whisper|reply|gm|players|macro)(\s|$)/i;

const ID = /^[a-zA-Z0-9]{16}$/;

/** A random 16-character id, as `foundry.utils.randomID()` makes them. */
export function randomID() {
  const chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  const bytes = new Uint8Array(16);
  globalThis.crypto.getRandomValues(bytes);
  return Array.from(bytes, (byte) => chars[byte % chars.length]).join("");
}

/** Foundry's Collection: a Map that iterates over its values. */
class Collection extends Map {
  [Symbol.iterator]() { return this.values(); }
  get contents() { return [...this.values()]; }
  filter(fn) { return this.contents.filter(fn); }
  find(fn) { return this.contents.find(fn); }
  map(fn) { return this.contents.map(fn); }
  some(fn) { return this.contents.some(fn); }
}

class Users extends Collection {
  /** The active GM with the lowest id (Foundry's designated GM), or null. */
  get activeGM() {
    return this.filter((user) => user.isGM && user.active).sort((a, b) => (a.id < b.id ? -1 : 1))[0] ?? null;
  }
}

/** What Foundry's schema refuses in a chat message, as Foundry would throw it. */
function validate(data, users) {
  const fail = (why) => { throw new Error(`ChatMessage validation errors:\n  ${why}`); };
  if (data.content !== undefined && typeof data.content !== "string") fail("content: must be a string");
  if (data.blind !== undefined && typeof data.blind !== "boolean") fail("blind: must be a boolean");
  for (const id of data.whisper ?? []) {
    if (typeof id !== "string" || !ID.test(id)) fail(`whisper: "${id}" is not a valid 16-character id`);
    if (!users.has(id)) fail(`whisper: no user ${id}`);
  }
  if (data.speaker !== undefined) {
    if (typeof data.speaker !== "object" || data.speaker === null) fail("speaker: must be an object");
    for (const [key, value] of Object.entries(data.speaker)) {
      if (!["scene", "actor", "token", "alias"].includes(key)) fail(`speaker.${key}: unknown field`);
      if (value !== null && value !== undefined && typeof value !== "string") fail(`speaker.${key}: must be a string`);
      if (key !== "alias" && value && !ID.test(value)) fail(`speaker.${key}: not a valid id`);
    }
  }
  if (data.flags !== undefined && (typeof data.flags !== "object" || data.flags === null)) fail("flags: must be an object");
}

/** The text nodes of an HTML fragment, entities decoded (what the enrichers match). */
export function textNodes(html) {
  const decode = (text) => text.replace(/&(#\d+|#x[\da-f]+|amp|lt|gt|quot|apos|nbsp);/gi, (_, name) => (
    name[0] === "#" ? String.fromCodePoint(Number(name[1].toLowerCase() === "x" ? `0${name.slice(1)}` : name.slice(1)))
      : { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: "\u00a0" }[name.toLowerCase()]));
  return String(html).split(/<[^>]*>/).filter(Boolean).map(decode);
}

/**
 * Installs the fake as the globals Foundry gives a module (`Hooks`, `game`, `ui`,
 * `ChatMessage`, `CONST`) and returns its handle.
 * @param {object} options
 * @param {Array<{name: string, isGM?: boolean, active?: boolean, id?: string}>} options.users
 * @param {string} options.me  the name of the user of this browser
 * @param {object} [options.settings]  values of the module's settings (`{key: value}`)
 * @param {object} [options.translations]  the module's lang file, as Foundry loads it
 * @param {string} [options.lang]
 * @param {string} [options.origin]  the page's origin (Node only: a browser has its own)
 * @param {number} [options.generation]  Foundry's major version (12 or 13)
 */
export function installFoundry({ users = [], me, settings = {}, translations = {}, lang = "fr", origin,
                                 generation = 12 } = {}) {
  const hooks = new Map();
  const notes = [];
  const inlineRolls = [];
  const enriched = [];
  const registered = new Map();
  const stored = new Map(Object.entries(settings));
  const all = new Users();
  for (const data of users) {
    // `targets`: Foundry's UserTargets, a Set of the Token placeables the user targets (T).
    const user = { id: data.id ?? randomID(), name: data.name, isGM: Boolean(data.isGM), active: data.active ?? true,
                   character: data.character ?? null, targets: new Set() };
    all.set(user.id, user);
  }
  const user = all.find((each) => each.name === me);
  if (!user) throw new Error(`no user named ${me}`);
  const messages = new Collection();
  const modules = new Map([["vtt-sidecar", { id: "vtt-sidecar", active: true }]]);

  const Hooks = {
    on(name, fn) { hooks.set(name, [...(hooks.get(name) ?? []), { fn, once: false }]); },
    once(name, fn) { hooks.set(name, [...(hooks.get(name) ?? []), { fn, once: true }]); },
    /** Foundry's `Hooks.call`: stops at (and returns false for) a handler returning false. */
    call(name, ...args) {
      for (const entry of [...(hooks.get(name) ?? [])]) {
        if (entry.once) hooks.set(name, hooks.get(name).filter((each) => each !== entry));
        if (entry.fn(...args) === false) return false;
      }
      return true;
    },
    callAll(name, ...args) {
      for (const entry of [...(hooks.get(name) ?? [])]) {
        if (entry.once) hooks.set(name, hooks.get(name).filter((each) => each !== entry));
        entry.fn(...args);
      }
      return true;
    },
  };

  const game = {
    ready: false,
    release: { generation },
    user,
    users: all,
    messages,
    modules,
    settings: {
      register(namespace, key, data) { registered.set(`${namespace}.${key}`, data); },
      get(namespace, key) {
        const id = `${namespace}.${key}`;
        if (!registered.has(id)) throw new Error(`"${id}" is not a registered game setting`);
        return stored.has(key) && namespace !== "core" ? stored.get(key)
          : stored.has(id) ? stored.get(id) : registered.get(id).default;
      },
      async set(namespace, key, value) {
        const id = `${namespace}.${key}`;
        if (!registered.has(id)) throw new Error(`"${id}" is not a registered game setting`);
        stored.set(namespace === "core" ? id : key, value);
        await registered.get(id).onChange?.(value);
        return value;
      },
    },
    i18n: {
      lang,
      localize: (key) => translations[key] ?? key,
      format(key, data = {}) {
        return (translations[key] ?? key).replace(/{[^}]+}/g, (name) => data[name.slice(1, -1)]);
      },
    },
  };
  game.settings.register("core", "rollMode", { scope: "client", default: "publicroll" });

  const ChatMessage = {
    getSpeaker: () => ({ scene: null, actor: null, token: null, alias: user.name }),
    async create(data) {
      validate(data, all);
      let content = data.content ?? "";
      // _preCreate: immediately evaluated inline rolls, rolled with Foundry's dice.
      for (const [expression] of content.matchAll(PRECREATE_INLINE_ROLL)) {
        inlineRolls.push(expression);
        content = content.replace(expression, `<a class="inline-roll">${Math.ceil(Math.random() * 20)}</a>`);
      }
      const id = randomID();
      const message = {
        _id: id, id, ...data, content, author: user, user,
        speaker: { scene: null, actor: null, token: null, alias: null, ...(data.speaker ?? ChatMessage.getSpeaker()) },
        flags: structuredClone(data.flags ?? {}),
        async update(changes) {
          validate(Object.fromEntries(Object.entries(changes).filter(([key]) => !key.includes("."))), all);
          for (const [key, value] of Object.entries(changes)) {
            const path = key.split(".");
            let target = message;
            for (const part of path.slice(0, -1)) target = target[part];
            target[path.at(-1)] = value;
          }
          render(message);
          return message;
        },
      };
      messages.set(id, message);
      Hooks.callAll("createChatMessage", message);
      render(message);
      return message;
    },
  };

  /** What rendering would enrich: recorded, so a test can say nothing was. */
  function render(message) {
    for (const node of textNodes(message.content)) {
      for (const pattern of [INLINE_ROLL, ENRICHER]) {
        for (const match of node.matchAll(pattern)) enriched.push({ message: message.id, match: match[0] });
      }
    }
  }

  const ui = { notifications: {
    info: (message, options) => notes.push({ level: "info", message, options }),
    warn: (message, options) => notes.push({ level: "warn", message, options }),
    error: (message, options) => notes.push({ level: "error", message, options }),
  } };

  const previous = {};
  const globals = { Hooks, game, ui, ChatMessage, CONST: { DICE_ROLL_MODES: { PUBLIC: "publicroll", PRIVATE: "gmroll",
    BLIND: "blindroll", SELF: "selfroll" } } };
  if (origin !== undefined && typeof document === "undefined") {
    globals.location = { origin, protocol: new URL(origin).protocol };
  }
  for (const [name, value] of Object.entries(globals)) {
    previous[name] = Object.getOwnPropertyDescriptor(globalThis, name);
    Object.defineProperty(globalThis, name, { value, configurable: true, writable: true });
  }

  return {
    hooks, notes, inlineRolls, enriched, messages, user, users: all, game,
    /**
     * The user targets tokens, as with T over each in Foundry: `[tokenName, actorName]`
     * pairs (`actorName` null: a token without an actor); replaces the targets.
     */
    target(...tokens) {
      user.targets = new Set(tokens.map(([name, actor]) => ({
        name, document: { name }, actor: actor === null ? null : { name: actor ?? name } })));
    },
    /** Foundry's start: init, i18nInit, setup, then ready. */
    async boot() {
      Hooks.callAll("init");
      Hooks.callAll("i18nInit");
      Hooks.callAll("setup");
      game.ready = true;
      Hooks.callAll("ready");
    },
    /** `ChatLog#processMessage`: the hook first, then Foundry's parser (which throws on
     * an unknown command), then a plain message. */
    async chat(text) {
      const line = text.trim();
      if (Hooks.call("chatMessage", {}, line, { user: user.id }) === false) return null;
      if (!KNOWN_COMMAND.test(line) && /^(\/[^\s]+)/.test(line)) {
        throw new Error(game.i18n.format("CHAT.InvalidCommand", { command: line.split(/\s/)[0] }));
      }
      return ChatMessage.create({ content: line, speaker: ChatMessage.getSpeaker() });
    },
    /** The messages whose content a user would read (Foundry's `visible`, and a blind
     * message's content hidden from anyone but GMs, its author included). */
    visibleTo(name) {
      const viewer = all.find((each) => each.name === name);
      return messages.filter((message) => {
        if (message.blind && !viewer.isGM) return false;
        return !message.whisper?.length || message.whisper.includes(viewer.id) || message.author?.id === viewer.id;
      });
    },
    uninstall() {
      for (const [name, descriptor] of Object.entries(previous)) {
        if (descriptor) Object.defineProperty(globalThis, name, descriptor);
        else delete globalThis[name];
      }
    },
  };
}
