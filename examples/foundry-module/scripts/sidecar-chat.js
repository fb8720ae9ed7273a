/**
 * The Foundry module's logic, free of Foundry globals so it runs (and is tested) under Node:
 * the `/sc` chat command, the mapping between Foundry's roll modes and the sidecar's, and the
 * chat cards. `module.js` wires it into Foundry.
 *
 * Rolling as a character (PROTOCOL.md §7): `/sc … --character NAME` rolls as that
 * character; without it, a roll is made as the user's character when there is one for the
 * game rolled (see `chooseCharacter`), and `--character -` rolls without any.
 *
 * Open rolls (decide after the dice): an outcome that offers `choices` gets them as buttons
 * on its card (`renderChoices`); `module.js` keeps them for the roller and the GMs only
 * (`SidecarChat.mayDecide`) and a click sends the `react` (`SidecarChat.decide`). The
 * decision comes as a card of its own that follows, and the open card loses its buttons for
 * a line saying what was decided (`closeChoices`). A blind roll's roller gets no choices
 * from the server, hence no buttons: the GM decides on the GM's card.
 *
 * Asked rolls (PROTOCOL.md §7.5): `/sc ask <game> --to A,B …` (GM) asks seats or
 * characters for a roll; the responsible GM's client posts the GM's card (`renderAskCard`),
 * which fills as answers arrive, an opposed roll's winner on it; an asked player's client
 * posts a card with one button (`renderAskedCard`, `bindAnswers`) that answers. `/sc ask
 * cancel <id>` cancels; `/sc session` starts a new game session.
 */

/** Foundry's roll modes (CONST.DICE_ROLL_MODES) → the sidecar's `mode`. */
export const FOUNDRY_TO_SIDECAR = Object.freeze({
  publicroll: "public",
  gmroll: "gm",
  blindroll: "blind",
  selfroll: "self",
});

/** The sidecar's `mode` → Foundry's roll mode. */
export const SIDECAR_TO_FOUNDRY = Object.freeze(
  Object.fromEntries(Object.entries(FOUNDRY_TO_SIDECAR).map(([foundry, sidecar]) => [sidecar, foundry])));

const STRINGS = {
  fr: {
    hidden: "Jet à l'aveugle : seul le MJ voit le résultat.",
    odds: "Chances", success: "de réussite", applied: "Extensions",
    usage: "Usage : /sc 2d6+3 [target=10] · /sc <jeu> param=valeur… [extension.clé=valeur…] [\"ce que vous tentez\"] [--mode public|gm|blind|self] [--dice 6,6,1] [--character NOM|-] [--cible NOM|-]  ·  /sc odds <jeu> param=valeur…  ·  /sc fiche  ·  /sc ask <jeu> --to Nom,Nom …  ·  /sc session  ·  /sc help",
    unknownRuleset: (name, known) => `Jeu inconnu « ${name} ». Jeux de la table : ${known}.`,
    badMode: (mode) => `Mode inconnu « ${mode} » : public, gm, blind ou self.`,
    badDice: "--dice attend des faces séparées par des virgules, ex. --dice 6,6,1",
    missing: (flag) => `${flag} attend une valeur.`,
    failed: "Le sidecar a refusé le jet",
    unreachable: "Le sidecar n'est pas joignable pour l'instant (connexion en cours ou perdue) ; réessayez dans un instant.",
    rulesets: "Jeux de la table",
    spent: "dépensé", nothingSpent: "rien dépensé", noCharacters: "Vous n'avez aucun personnage à cette table.",
    characters: "Vos personnages", seat: "place",
    kinds: { botch: "Échec critique", failure: "Échec", narrow: "De justesse", success: "Réussite", critical: "Éclatante" },
    choose: "À vous de choisir", byDefault: "par défaut", dice: (n) => `${n} dé${n > 1 ? "s" : ""}`,
    decided: (choice, by) => `Décidé : ${choice} — ${by}`, timeUp: "temps écoulé", noChoice: "tel quel",
    reactsTo: (seq) => `en réponse au jet #${seq}`, refusedChoice: "Le sidecar a refusé ce choix",
    askUsage: "Usage : /sc ask <jeu> --to Nom,Nom param=valeur… [\"ce qui est demandé\"] [--mode public|gm|blind] [--opposed] [--each Nom:param=valeur] [--cible NOM|-]  ·  /sc ask cancel <id>  ·  /sc ask answer <id> [PNJ] [--dice 6,3]  ·  /sc session",
    asked: "Demande de jet", opposed: "Jet en opposition", askedYou: "Le MJ vous demande un jet",
    answerButton: "Lancer", answered: (seq) => `Répondu (#${seq})`, waiting: "en attente",
    cancelled: "Demande annulée", answersAsk: "répond à la demande",
    winner: (name) => `Vainqueur : ${name}`, draw: "Égalité", nobody: "Personne ne réussit",
    initiative: { title: "Initiative", colon: " : ", then: ", puis ", and: " et ", together: " ensemble" },
    session: (number) => `Nouvelle session de jeu : ${number}`, refusedAnswer: "Le sidecar a refusé la réponse",
    badEach: "--each attend Nom:param=valeur, ex. --each Krull:code=4D+1",
    faces: "Vos dés (faces, ex. 6,3) — vide : le sidecar lance",
    badFaces: "Les faces s'écrivent en chiffres séparés par des virgules, ex. 6,3",
    against: (names) => `Contre ${names}`,
    manual: (name) => `dés physiques (tous) — saisis par ${name}`,
    npcAnswer: "à lancer par le MJ :",
    manualSome: (dice, n, name) => n > 1 ? `dés ${dice} saisis par ${name}` : `dé ${dice} saisi par ${name}`,
    effect: (field, name, change) => `${field} ${/^[aeiouyàâäéèêëîïôöùûü]/i.test(name) ? "d'" : "de "}${name} : ${change}`,
  },
  en: {
    hidden: "Blind roll: only the GM sees the result.",
    odds: "Odds", success: "to succeed", applied: "Extensions",
    usage: "Usage: /sc 2d6+3 [target=10] · /sc <game> param=value… [extension.key=value…] [\"what you attempt\"] [--mode public|gm|blind|self] [--dice 6,6,1] [--character NAME|-] [--target NAME|-]  ·  /sc odds <game> param=value…  ·  /sc sheet  ·  /sc ask <game> --to Name,Name …  ·  /sc session  ·  /sc help",
    unknownRuleset: (name, known) => `Unknown game "${name}". Games at this table: ${known}.`,
    badMode: (mode) => `Unknown mode "${mode}": public, gm, blind or self.`,
    badDice: "--dice wants faces separated by commas, e.g. --dice 6,6,1",
    missing: (flag) => `${flag} needs a value.`,
    failed: "The sidecar refused the roll",
    unreachable: "The sidecar cannot be reached right now (connecting or connection lost); try again in a moment.",
    rulesets: "Games at this table",
    spent: "spent", nothingSpent: "nothing spent", noCharacters: "You have no character at this table.",
    characters: "Your characters", seat: "seat",
    kinds: { botch: "Critical failure", failure: "Failure", narrow: "Narrow", success: "Success", critical: "Outstanding" },
    choose: "Your call", byDefault: "default", dice: (n) => `${n} ${n > 1 ? "dice" : "die"}`,
    decided: (choice, by) => `Decided: ${choice} — ${by}`, timeUp: "time ran out", noChoice: "as it stands",
    reactsTo: (seq) => `answering roll #${seq}`, refusedChoice: "The sidecar refused this choice",
    askUsage: "Usage: /sc ask <game> --to Name,Name param=value… [\"what is asked\"] [--mode public|gm|blind] [--opposed] [--each Name:param=value] [--target NAME|-]  ·  /sc ask cancel <id>  ·  /sc ask answer <id> [NPC] [--dice 6,3]  ·  /sc session",
    asked: "Roll request", opposed: "Opposed roll", askedYou: "The GM asks you for a roll",
    answerButton: "Roll", answered: (seq) => `Answered (#${seq})`, waiting: "waiting",
    cancelled: "Request cancelled", answersAsk: "answers request",
    winner: (name) => `Winner: ${name}`, draw: "Draw", nobody: "Nobody succeeds",
    initiative: { title: "Initiative", colon: ": ", then: ", then ", and: " and ", together: " together" },
    session: (number) => `New game session: ${number}`, refusedAnswer: "The sidecar refused the answer",
    badEach: "--each wants Name:param=value, e.g. --each Krull:code=4D+1",
    faces: "Your dice (faces, e.g. 6,3) — empty: the sidecar rolls",
    badFaces: "Faces are numbers separated by commas, e.g. 6,3",
    against: (names) => `Against ${names}`,
    manual: (name) => `physical dice (all) — entered by ${name}`,
    npcAnswer: "for the GM to roll:",
    manualSome: (dice, n, name) => `${n > 1 ? "dice" : "die"} ${dice} typed by ${name}`,
    effect: (field, name, change) => `${name}'s ${field}: ${change}`,
  },
};

const KINDS = ["botch", "failure", "narrow", "success", "critical"];
/** The client's own codes for a connection that is not there (not the server's refusals). */
const CONNECTION_CODES = new Set(["not_connected", "closed", "timeout"]);
const TRUE_WORDS = new Set(["true", "oui", "yes", "1", "vrai", "on"]);
const FALSE_WORDS = new Set(["false", "non", "no", "0", "faux", "off"]);

/**
 * A bare dice expression after `/sc` (`2d6+3`, `4d6kh3`, `8d10>=7`, `1d20+1d4-1`, `1d%`):
 * rolled by the built-in `dice` ruleset, its `expr` param (the server checks the grammar).
 */
export const DICE_EXPRESSION = /^(?=[^=]*\d*d[\d%])[\dd%+\-*\/()khlx!<>=]+$/i;

/** Whether a chat line is a `/sc` command (Foundry must not post it as it stands). */
export function isSidecarCommand(text) {
  return /^\/sc(\s|$)/i.test(String(text ?? "").trimStart());
}

/** A problem with what the user typed, to show them (in their language). */
export class CommandError extends Error {
  constructor(message) {
    super(message);
    this.name = "CommandError";
  }
}

function strings(lang) {
  return STRINGS[lang] ?? STRINGS.fr;
}

/** Splits a command line on spaces, keeping "quoted strings" (and key="quoted values") whole. */
export function tokenize(text) {
  const tokens = [];
  const pattern = /(?:[^\s"«»]+|"[^"]*"|«[^»]*»)+/g;
  for (const match of text.matchAll(pattern)) {
    tokens.push({ raw: match[0], quoted: /["«]/.test(match[0][0]),
                  value: match[0].replace(/"([^"]*)"|«\s*([^»]*?)\s*»/g, (_, a, b) => a ?? b) });
  }
  return tokens;
}

/** Converts a typed value by the parameter's description (from `welcome`). */
export function convertValue(raw, spec) {
  const word = raw.trim();
  const type = spec?.type;
  if (type === "bool" || (!type && (TRUE_WORDS.has(word.toLowerCase()) || FALSE_WORDS.has(word.toLowerCase())) && !/^\d+$/.test(word))) {
    if (TRUE_WORDS.has(word.toLowerCase())) return true;
    if (FALSE_WORDS.has(word.toLowerCase())) return false;
    return word; // the server names the parameter and what it expects
  }
  if (type === "list") return word === "" ? [] : word.split(",").map((item) => item.trim()).filter(Boolean);
  if (type === "string") return word;
  if (/^[+-]?\d+$/.test(word)) return Number(word);
  return word; // an int parameter also takes a named level ("Difficile")
}

/**
 * An extension's option typed in `/sc` as `ext.key=value` (`combat.options=viser`,
 * `boss.armor=2`), checked and typed by `welcome.options` (PROTOCOL.md, "Extension
 * options"): added to `options`. A list adds up over repeats (`combat.options=viser
 * combat.options=charger`, or `viser,charger`); a map takes JSON. Throws CommandError
 * for an unknown extension or key, or an extension that does not apply to `ruleset`.
 */
export function addOption(options, key, raw, descriptions, ruleset, lang = "fr") {
  const fr = lang !== "en";
  const [name, field] = [key.slice(0, key.indexOf(".")), key.slice(key.indexOf(".") + 1)];
  const described = (descriptions ?? []).find((candidate) => candidate.name === name);
  if (!described) {
    const known = (descriptions ?? []).map((candidate) => candidate.name).join(", ") || "—";
    throw new CommandError(fr ? `Extension inconnue « ${name} » (avec des options : ${known}).`
      : `Unknown extension "${name}" (with options: ${known}).`);
  }
  if (described.rulesets && !described.rulesets.includes(ruleset)) {
    throw new CommandError(fr ? `« ${name} » ne s'applique qu'à : ${described.rulesets.join(", ")}.`
      : `"${name}" only applies to: ${described.rulesets.join(", ")}.`);
  }
  const spec = described.params?.[field];
  if (!spec) {
    const known = Object.keys(described.params ?? {}).join(", ");
    throw new CommandError(fr ? `« ${name} » n'a pas d'option « ${field} » (connues : ${known}).`
      : `"${name}" has no option "${field}" (known: ${known}).`);
  }
  const settings = (options[name] ??= {});
  let value;
  if (spec.type === "map") {
    try { value = JSON.parse(raw); } catch { value = raw; } // the server names what it expects
  } else if (spec.type === "list" && spec.items === "int") {
    value = raw.split(",").map((item) => item.trim()).filter(Boolean).map((item) => (/^[+-]?\d+$/.test(item) ? Number(item) : item));
  } else {
    value = convertValue(raw, spec);
  }
  settings[field] = spec.type === "list" && Array.isArray(settings[field]) ? [...settings[field], ...value] : value;
}

/**
 * Parses `/sc …`. Returns null when the text is not a sidecar command, else
 * `{action: "roll"|"odds", ruleset, params, label, mode, dice, character, options?}` or
 * `{action: "help"|"sheet"}`. `character` is null (not given: the bridge chooses), a name,
 * or "" (`--character -`: roll as nobody).
 * Throws CommandError for what the user must fix.
 * @param {string} text  the chat line
 * @param {Array} rulesets  `welcome.rulesets` (to check the name and convert values)
 * @param {string} lang  "fr" or "en"
 * @param {Array} descriptions  `welcome.options` (for `ext.key=value`: see addOption)
 */
export function parseCommand(text, rulesets = [], lang = "fr", descriptions = []) {
  const trimmed = text.trim();
  if (!/^\/sc(\s|$)/i.test(trimmed)) return null;
  const say = strings(lang);
  const tokens = tokenize(trimmed.slice(3));
  if (tokens.length === 0 || ["help", "aide", "?"].includes(tokens[0].value.toLowerCase())) {
    return { action: "help" };
  }
  if (["sheet", "fiche", "sheets", "fiches"].includes(tokens[0].value.toLowerCase()) && tokens.length === 1) {
    return { action: "sheet" };
  }
  const first = tokens[0].value.toLowerCase();
  if (first === "session" && tokens.length === 1) return { action: "session" };
  if (first === "ask" || first === "demande") return parseAsk(tokens.slice(1), rulesets, say);
  let action = "roll";
  if (tokens[0].value.toLowerCase() === "odds" || tokens[0].value.toLowerCase() === "chances") {
    action = "odds";
    tokens.shift();
  }
  const name = tokens.shift()?.value;
  if (!name) throw new CommandError(say.usage);
  const named = rulesets.find((candidate) => candidate.name.toLowerCase() === name.toLowerCase());
  if (!named && DICE_EXPRESSION.test(name)) {
    // `/sc 2d6+3 target=10 "Sauter"`: the plain dice roller, whatever the table lists.
    tokens.unshift({ raw: `expr=${name}`, quoted: false, value: `expr=${name}` });
  }
  const ruleset = named ?? (DICE_EXPRESSION.test(name) ? { name: "dice", params: {
    expr: { type: "string" }, target: { type: "int" }, ...rulesets.find((r) => r.name === "dice")?.params } } : undefined);
  if (rulesets.length && !ruleset) {
    throw new CommandError(say.unknownRuleset(name, rulesets.map((r) => r.name).join(", ")));
  }
  const command = { action, ruleset: ruleset?.name ?? name, params: {}, label: "", mode: null, dice: null,
                    character: null };
  const labelParts = [];
  while (tokens.length) {
    const token = tokens.shift();
    if (!token.quoted && token.value.startsWith("--")) {
      const flag = token.value;
      const value = tokens.shift()?.value;
      if (value === undefined) throw new CommandError(say.missing(flag));
      if (flag === "--mode") {
        const mode = FOUNDRY_TO_SIDECAR[value] ?? value;
        if (!Object.values(FOUNDRY_TO_SIDECAR).includes(mode)) throw new CommandError(say.badMode(value));
        command.mode = mode;
      } else if (flag === "--dice") {
        const faces = value.split(/[,;]/).map((face) => face.trim()).filter(Boolean);
        if (!faces.length || !faces.every((face) => /^\d+$/.test(face))) throw new CommandError(say.badDice);
        command.dice = faces.map(Number);
      } else if (flag === "--label") {
        labelParts.push(value);
      } else if (flag === "--character" || flag === "--perso") {
        command.character = value === "-" ? "" : value;
      } else if (TARGET_FLAGS.has(flag)) {
        aim(command, value);
      } else {
        throw new CommandError(say.usage);
      }
      continue;
    }
    const equals = token.quoted ? -1 : token.raw.indexOf("=");
    if (equals > 0) {
      const key = token.raw.slice(0, equals);
      const raw = token.value.slice(token.value.indexOf("=") + 1);
      // `ext.key=value`: an extension's option (command.options only when one is given).
      if (key.includes(".")) addOption((command.options ??= {}), key, raw, descriptions, command.ruleset, lang);
      else command.params[key] = convertValue(raw, ruleset?.params?.[key]);
    } else if (!token.quoted && ruleset?.params?.[token.value]?.type === "bool") {
      command.params[token.value] = true; // `/sc oweens dice=4 bagage`
    } else {
      labelParts.push(token.value);
    }
  }
  command.label = labelParts.join(" ").trim();
  return command;
}

/** `--cible NAME` (or `--target`), repeatable, commas between several: the characters the
 * command is aimed at instead of the user's targeted tokens; `-`: at nobody. */
const TARGET_FLAGS = new Set(["--cible", "--target", "--targets", "--cibles"]);

function aim(command, value) {
  command.targets ??= [];
  if (value === "-") return;
  command.targets.push(...value.split(",").map((name) => name.trim()).filter(Boolean));
}

/**
 * The characters a command is aimed at (contract §8): those it names (`--cible`), else the
 * actors of the tokens the user targets in Foundry (`game.user.targets`, each token's actor
 * name taken as the sidecar character's), each once.
 */
export function targetsFor(command, targeted = []) {
  const names = command.targets ?? targeted;
  return [...new Set(names.filter((name) => typeof name === "string" && name))];
}

/** The Foundry tokens' sidecar characters: each targeted token's actor's name (its own
 * name for a token without an actor). */
export function targetedNames(tokens) {
  return [...(tokens ?? [])].map((token) => token?.actor?.name ?? token?.document?.name ?? token?.name)
    .filter((name) => typeof name === "string" && name);
}

/**
 * Parses what follows `/sc ask answer` (a GM rolling a GM's NPC's side of an ask,
 * PROTOCOL.md §7.5): `<id> [NPC] [--dice 6,3]` → `{action: "answerAsk", ask, character, dice}`
 * (`character` may be left out when the ask has one NPC side: the server finds it).
 */
function parseAnswer(tokens, say) {
  const command = { action: "answerAsk", ask: undefined, character: undefined, dice: undefined };
  const names = [];
  while (tokens.length) {
    const token = tokens.shift();
    if (!token.quoted && token.value === "--dice") {
      const faces = (tokens.shift()?.value ?? "").split(/[,;]/).map((face) => face.trim()).filter(Boolean);
      if (!faces.length || !faces.every((face) => /^\d+$/.test(face))) throw new CommandError(say.badDice);
      command.dice = faces.map(Number);
    } else if (!token.quoted && token.value.startsWith("--")) {
      throw new CommandError(say.askUsage);
    } else if (command.ask === undefined) {
      command.ask = token.value;
    } else {
      names.push(token.value);
    }
  }
  if (!command.ask || names.length > 1) throw new CommandError(say.askUsage);
  command.character = names[0];
  return command;
}

/**
 * Parses what follows `/sc ask`: `cancel <id>`, `answer <id> [NPC]`, or `<game> --to A,B param=value… "label"
 * [--mode m] [--opposed] [--each Name:param=value]…` →
 * `{action: "ask", ruleset, to, params, label, mode, opposed, each}`.
 */
function parseAsk(tokens, rulesets, say) {
  if (tokens[0]?.value.toLowerCase() === "cancel" || tokens[0]?.value.toLowerCase() === "annuler") {
    if (tokens.length !== 2) throw new CommandError(say.askUsage);
    return { action: "cancelAsk", ask: tokens[1].value };
  }
  if (["answer", "répondre", "repondre"].includes(tokens[0]?.value.toLowerCase())) return parseAnswer(tokens.slice(1), say);
  const name = tokens.shift()?.value;
  if (!name) throw new CommandError(say.askUsage);
  const ruleset = rulesets.find((candidate) => candidate.name.toLowerCase() === name.toLowerCase());
  if (rulesets.length && !ruleset) {
    throw new CommandError(say.unknownRuleset(name, rulesets.map((r) => r.name).join(", ")));
  }
  const command = { action: "ask", ruleset: ruleset?.name ?? name, to: [], params: {}, label: "", mode: null,
                    opposed: false, each: {} };
  const labelParts = [];
  const param = (raw, value, into) => {
    const key = raw.slice(0, raw.indexOf("="));
    into[key] = convertValue(value.slice(value.indexOf("=") + 1), ruleset?.params?.[key]);
  };
  while (tokens.length) {
    const token = tokens.shift();
    if (!token.quoted && token.value === "--opposed") {
      command.opposed = true;
      continue;
    }
    if (!token.quoted && token.value.startsWith("--")) {
      const flag = token.value;
      const value = tokens.shift()?.value;
      if (value === undefined) throw new CommandError(say.missing(flag));
      if (flag === "--to") {
        command.to.push(...value.split(",").map((item) => item.trim()).filter(Boolean));
      } else if (flag === "--mode") {
        const mode = FOUNDRY_TO_SIDECAR[value] ?? value;
        if (!["public", "gm", "blind"].includes(mode)) throw new CommandError(say.badMode(value));
        command.mode = mode;
      } else if (flag === "--each") {
        const colon = value.indexOf(":");
        if (colon < 1 || value.indexOf("=", colon) < 0) throw new CommandError(say.badEach);
        const side = value.slice(0, colon);
        command.each[side] ??= {};
        param(value.slice(colon + 1), value.slice(colon + 1), command.each[side]);
      } else if (flag === "--label") {
        labelParts.push(value);
      } else if (TARGET_FLAGS.has(flag)) {
        aim(command, value);
      } else {
        throw new CommandError(say.askUsage);
      }
      continue;
    }
    if (!token.quoted && token.raw.indexOf("=") > 0) param(token.raw, token.value, command.params);
    else labelParts.push(token.value);
  }
  if (!command.to.length) throw new CommandError(say.askUsage);
  command.label = labelParts.join(" ").trim();
  return command;
}

/**
 * The character a `/sc` roll is made as, by what a Foundry player expects: the one named
 * with `--character` (`""`: none); else the one named in the module's *Character* setting,
 * else the user's assigned Foundry character (by name), else the only character the user's
 * seat owns — each only when the client knows that character and it plays the game rolled
 * (a quick roll of another game stays a plain roll). Returns a name or null.
 * @param {{ruleset: string, character: string|null}} command  from parseCommand
 * @param {Map} characters  the client's `characters` (what this user may see)
 * @param {{setting?: string, assigned?: string, seat?: string}} who
 */
export function chooseCharacter(command, characters, { setting, assigned, seat } = {}) {
  if (command.character !== null && command.character !== undefined) return command.character || null;
  const plays = (name) => Boolean(name) && characters?.get(name)?.ruleset === command.ruleset;
  if (plays(setting)) return setting;
  if (plays(assigned)) return assigned;
  if (seat) {
    const owned = [...(characters?.values() ?? [])]
      .filter((entry) => entry.owner === seat && entry.ruleset === command.ruleset);
    if (owned.length === 1) return owned[0].character;
  }
  return null;
}

/**
 * The Foundry user whose client posts blind cards (and the GM's cards of asks): the
 * first active GM, by id, among those connected to the sidecar *as GM* (`sidecarGMs`,
 * names from `presence`) — not Foundry's `activeGM`, whose browser may hold no GM token.
 * Every client computes the same answer from the same facts. Null: nobody can.
 */
export function responsibleGM(users, sidecarGMs) {
  const candidates = [...(users ?? [])]
    .filter((user) => user?.isGM && user.active && sidecarGMs.has(user.name))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return candidates[0]?.id ?? null;
}

/**
 * The `sidecar serve` flag that lets a Foundry page at `origin` connect (the sidecar
 * refuses browser origins other than its own and localhost's), or "" when none is needed.
 */
export function originFlag(origin) {
  if (!origin || origin === "null") return "";
  if (/^https?:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/.test(origin)) return "";
  return `--origin ${origin}`;
}

/** Who sees the chat card, in Foundry's terms, for a sidecar mode. */
export function chatVisibility(mode, { userId, gmIds }) {
  switch (mode) {
    case "gm": return { whisper: [...new Set([...gmIds, userId])], blind: false };
    case "blind": return { whisper: [...gmIds], blind: true };
    case "self": return { whisper: [userId], blind: false };
    default: return { whisper: [], blind: false };
  }
}

/** Escapes text for HTML (an attribute's value or text): every name, label and note comes
 * from someone at the table. */
export function escapeHtml(value) {
  return String(value ?? "").replace(/[&<>"']/g, (char) => (
    { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[char]));
}

/**
 * Escapes text put between tags in a chat card, and keeps Foundry from enriching it.
 *
 * Foundry enriches a chat message when it shows it (`TextEditor.enrichHTML`): it matches
 * `[[1d20]]` (an inline roll, rolled by Foundry), `@UUID[…]{…}`, `@Compendium[…]`, system
 * enrichers (`@Check[…]`, `&Reference[…]`) and `https://…` against each text node's
 * decoded text, so HTML entities alone would not stop it. Each `[`, `]`, `@`, `{`, `}` and
 * the `//` of a URL gets an element of its own: no text node holds a whole pattern any
 * more, and the text reads the same.
 */
export function escapeText(value) {
  return escapeHtml(value).replace(/[[\]@{}]|\/\//g, (part) => `<span>${part}</span>`);
}

/** A probability from the server, as the number a `<meter>` takes (0 when it is not one). */
function probability(value) {
  return typeof value === "number" && Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 0;
}

function local(value, lang) {
  return value && typeof value === "object" ? value[lang] ?? value.fr ?? value.en ?? "" : value ?? "";
}

function dieHtml(die, typed = false) {
  const classes = ["sidecar-die"];
  if (typed) classes.push("die-typed");
  for (const flag of ["success", "cancels", "cancelled", "kept", "replaced"]) {
    if (die[flag] === true) classes.push(`die-${flag}`);
  }
  if (typeof die.successes === "number" && die.successes > 0) classes.push("die-success");
  const role = die.role && die.role !== "normal" ? `<small>${escapeText(die.role)}</small>` : "";
  return `<span class="${classes.join(" ")}" title="d${escapeHtml(die.sides)}">${escapeText(die.face)}${role}</span>`;
}

/**
 * Which of an outcome's dice a person typed (`manual.dice`, indexes in its `dice`): a
 * decision that drew new faces on a typed roll shows both, only the typed ones physical.
 * A `manual` without `dice` (older journals) means every face (PROTOCOL.md §3).
 */
export function typedDice(outcome) {
  const manual = outcome.manual;
  if (!manual?.by) return new Set();
  const count = (outcome.dice ?? []).length;
  return new Set(Array.isArray(manual.dice) ? manual.dice : [...Array(count).keys()]);
}

/** 1-based dice numbers, runs joined: `[0, 1, 3]` → `1–2, 4`. */
function diceSpans(indexes) {
  const runs = [];
  for (const n of [...new Set(indexes)].sort((a, b) => a - b).map((i) => i + 1)) {
    const last = runs.at(-1);
    if (last && n === last.at(-1) + 1) last.push(n); else runs.push([n]);
  }
  return runs.map((run) => run.length > 1 ? `${run[0]}–${run.at(-1)}` : `${run[0]}`).join(", ");
}

/** Who typed which dice: « dés physiques (tous) — saisis par Léa », « dés 1–2 saisis par
 * Léa », one part per typist when two typed (`manual.entered`). */
function manualText(outcome, say) {
  const count = (outcome.dice ?? []).length;
  const marks = Array.isArray(outcome.manual.entered) ? outcome.manual.entered : [outcome.manual];
  return marks.map((mark) => {
    const name = mark.by?.name ?? "?";
    const dice = Array.isArray(mark.dice) ? mark.dice : null;
    const all = !dice || [...Array(count).keys()].every((i) => dice.includes(i));
    return all ? say.manual(name) : say.manualSome(diceSpans(dice), new Set(dice).size, name);
  }).join(" · ");
}

/** A sheet value, short: lists joined, maps as `name: value`. */
function sheetValue(value, lang) {
  if (typeof value === "boolean") return lang === "fr" ? (value ? "oui" : "non") : (value ? "yes" : "no");
  if (Array.isArray(value)) return value.join(", ");
  if (value && typeof value === "object") return Object.entries(value).map(([k, v]) => `${k} ${v}`).join(", ");
  return String(value ?? "");
}

/**
 * An initiative's sentence in one language (`say`: its words): the groups in order, a tie
 * « ensemble », each claim's cost by the field's short name (« Bonbonus (BB+) » → « BB+ »).
 */
export function initiativeText(event, say, label) {
  const together = (names) => (names.length < 2 ? names.join("")
    : `${names.slice(0, -1).join(", ")}${say.and}${names.at(-1)}${say.together}`);
  const short = (text) => /\(([^()]{1,8})\)$/.exec(text)?.[1] ?? text;
  const groups = (event.order ?? []).filter((group) => group?.length).map((group) => together(group.map(String)));
  const costs = Object.entries(event.spent ?? {}).map(([name, amounts]) => {
    const paid = Object.entries(amounts ?? {}).map(([field, amount]) => `−${amount} ${short(label(field))}`).join(", ");
    return paid ? `${name}${say.colon}${paid}` : "";
  }).filter(Boolean);
  const line = `${say.title}${say.colon}${groups.join(say.then) || "—"}`;
  return costs.length ? `${line} (${costs.join("; ")})` : line;
}

/** A field's label from the sheet description (`welcome.rulesets[].sheet`), else its name. */
function fieldLabel(sheet, field, lang) {
  return local(sheet?.[field]?.label, lang) || field;
}

/**
 * What a roll as a character spent and the values after: `Aengus : Chance −1 → 2 ·
 * Niveau 2 · …` (escaped). Empty when the outcome has no character, or hides them (blind).
 */
export function renderSpent(outcome, { lang = "fr", sheet } = {}) {
  if (!outcome.character || !outcome.sheet) return "";
  const say = strings(lang);
  const spent = Object.entries(outcome.spent ?? {}).map(([field, amount]) => {
    const change = Number(amount) >= 0 ? `−${Number(amount)}` : `+${-Number(amount)}`;
    return `${fieldLabel(sheet, field, lang)} ${change} → ${sheetValue(outcome.sheet[field], lang)}`;
  });
  const values = Object.entries(outcome.sheet)
    .map(([field, value]) => `${fieldLabel(sheet, field, lang)} ${sheetValue(value, lang)}`);
  return `<div class="sidecar-character"><strong>${escapeText(outcome.character)}</strong> · `
    + `<span class="sidecar-spent">${escapeText(spent.length ? `${say.spent} : ${spent.join(", ")}` : say.nothingSpent)}</span>`
    + `<p class="sidecar-sheet">${escapeText(values.join(" · "))}</p></div>`;
}

/**
 * What a roll aimed at characters did to them: « Contre Brady · Blessures de Brady : 2 → 5 »
 * where this user's copy carries their new values (`target_sheets`: their owner, a GM),
 * « +3 » elsewhere (escaped). Empty for a roll aimed at nobody.
 */
export function renderEffects(outcome, { lang = "fr", sheet } = {}) {
  if (!Array.isArray(outcome.targets) || !outcome.targets.length) return "";
  const say = strings(lang);
  const after = outcome.target_sheets ?? {};
  const items = Object.entries(outcome.effects ?? {}).flatMap(([name, deltas]) =>
    Object.entries(deltas ?? {}).filter(([, delta]) => delta !== 0).map(([field, delta]) => {
      const value = after[name]?.[field];
      const change = typeof value === "number" && typeof delta === "number"
        ? `${value - delta} → ${value}` : `${delta > 0 ? "+" : "−"}${Math.abs(delta)}`;
      return `<span class="sidecar-effect" data-character="${escapeHtml(name)}" data-field="${escapeHtml(field)}">`
        + `${escapeText(say.effect(fieldLabel(sheet, field, lang), name, change))}</span>`;
    }));
  return `<p class="sidecar-effects">${escapeText(say.against(outcome.targets.join(", ")))}`
    + (items.length ? ` · ${items.join(" · ")}` : "") + "</p>";
}

/** The `/sc fiche` card: the user's characters and their values. */
export function renderSheets(characters, rulesets = [], lang = "fr") {
  const say = strings(lang);
  if (!characters.length) return `<div class="sidecar-card sidecar-sheets"><p>${escapeText(say.noCharacters)}</p></div>`;
  const items = characters.map((entry) => {
    const sheet = rulesets.find((ruleset) => ruleset.name === entry.ruleset)?.sheet;
    const values = Object.entries(entry.values ?? {})
      .map(([field, value]) => `${fieldLabel(sheet, field, lang)} ${sheetValue(value, lang)}`).join(" · ");
    return `<li><strong>${escapeText(entry.character)}</strong> (${escapeText(entry.ruleset)}`
      + (entry.owner ? `, ${escapeText(say.seat)} ${escapeText(entry.owner)}` : "") + `) : ${escapeText(values)}</li>`;
  }).join("");
  return `<div class="sidecar-card sidecar-sheets"><p>${escapeText(say.characters)} :</p><ul>${items}</ul></div>`;
}

/**
 * An open outcome's choices as buttons (HTML), or "" when it offers none (a closed roll, a
 * blind roll's hidden copy). The block names the roll and its roller: `module.js` keeps it
 * only for those who may decide and sends a click's `react`.
 */
export function renderChoices(outcome, lang = "fr") {
  if (outcome.open !== true || !Array.isArray(outcome.choices) || !outcome.choices.length) return "";
  const say = strings(lang);
  const buttons = outcome.choices.map((choice) => {
    const isDefault = choice.name === outcome.default;
    const dice = Number(choice.dice) > 0 ? ` (${say.dice(Number(choice.dice))})` : "";
    // A `gm: true` choice is a GM's alone (the ladder's « réussi, mais… »): marked, so that
    // bindChoices leaves it to GMs.
    const gmOnly = choice.gm === true ? ' data-gm="1"' : "";
    return `<button type="button" class="sidecar-choice${isDefault ? " sidecar-default" : ""}" `
      + `data-choice="${escapeHtml(choice.name)}"${gmOnly}${isDefault ? ` title="${escapeHtml(say.byDefault)}"` : ""}>`
      + `${escapeText(local(choice.label, lang) || choice.name)}${escapeText(dice)}</button>`;
  }).join("");
  // A choice that draws dice takes the player's physical dice too (empty: the sidecar rolls).
  const faces = outcome.choices.some((choice) => Number(choice.dice) > 0) ? facesInput(say) : "";
  // The mode and the character say whether a seat that plays the character may decide too.
  return `<div class="sidecar-choices" data-roll="${escapeHtml(outcome.roll)}" data-by="${escapeHtml(outcome.by?.name)}"`
    + ` data-mode="${escapeHtml(outcome.mode ?? "")}" data-character="${escapeHtml(outcome.character ?? "")}">`
    + `<span>${escapeText(say.choose)} :</span>${buttons}${faces}</div>`;
}

/** The field where a player types the faces of their own dice (`6,3`). */
function facesInput(say) {
  return `<input type="text" class="sidecar-faces" inputmode="numeric" autocomplete="off" `
    + `placeholder="6,3" aria-label="${escapeHtml(say.faces)}" title="${escapeHtml(say.faces)}">`;
}

/**
 * The faces a player typed for their physical dice: `undefined` when the field is empty
 * (the sidecar rolls), else the numbers; a CommandError when it is not a list of numbers.
 */
export function parseFaces(text, lang = "fr") {
  const faces = String(text ?? "").split(/[\s,;]+/).filter(Boolean);
  if (!faces.length) return undefined;
  if (!faces.every((face) => /^\d{1,4}$/.test(face))) throw new CommandError(strings(lang).badFaces);
  return faces.map(Number);
}

/** The faces typed in a card block's field, or a refusal card for this user (null). */
async function typedFaces(block, chat) {
  try {
    return { dice: parseFaces(block.querySelector?.(".sidecar-faces")?.value, chat.lang) };
  } catch (error) {
    if (!(error instanceof CommandError)) throw error;
    await chat.postError?.(error.message);
    return null;
  }
}

/**
 * Makes the choice buttons of a rendered chat card work (`renderChatMessage`): a block
 * this user may not decide (another player's roll) is removed; a click disables the
 * block's buttons and sends the `react` through `chat.decide` (buttons back on a refusal).
 * `root` is the card's element (Foundry's `html[0]`). Returns the blocks kept.
 */
export function bindChoices(root, chat) {
  const kept = [];
  for (const block of root?.querySelectorAll?.(".sidecar-choices") ?? []) {
    if (!chat.mayDecide(block.dataset.by, block.dataset.mode, block.dataset.character)) {
      block.remove();
      continue;
    }
    let buttons = [...block.querySelectorAll(".sidecar-choice")];
    if (chat.client.role !== "gm") {
      // A GM's choice is not offered to the roller: the server would refuse it.
      for (const button of buttons) if (button.dataset.gm === "1") button.remove();
      buttons = buttons.filter((button) => button.dataset.gm !== "1");
      if (!buttons.length) {
        block.remove();
        continue;
      }
    }
    kept.push(block);
    for (const button of buttons) {
      button.addEventListener("click", async (event) => {
        event?.preventDefault?.();
        const typed = await typedFaces(block, chat);
        if (typed === null) return;
        for (const each of buttons) each.disabled = true;
        try {
          const posted = await chat.decide(block.dataset.roll, button.dataset.choice, typed.dice);
          if (posted?.error) for (const each of buttons) each.disabled = false;
        } catch (error) {
          for (const each of buttons) each.disabled = false;
          console.error("vtt-sidecar:", error);
        }
      });
    }
  }
  return kept;
}

/** What a decision answers, as a line of its card: the open roll's seq, the choice, who. */
function renderDecided(outcome, lang) {
  if (outcome.reacts_to === undefined) return "";
  const say = strings(lang);
  const parts = [say.reactsTo(outcome.reacts_to)];
  if (outcome.choice !== undefined) parts.push(outcome.choice ?? say.noChoice);
  if (outcome.reacted_by !== undefined) parts.push(outcome.reacted_by?.name ?? say.timeUp);
  return `<p class="sidecar-reacts">${escapeText(parts.join(" · "))}</p>`;
}

/**
 * An open card's content once its roll is decided: the buttons give way to a line saying
 * what was decided and by whom (the decision's own card follows it in the chat).
 */
export function closeChoices(content, decision, lang = "fr") {
  const say = strings(lang);
  const who = decision.reacted_by?.name ?? say.timeUp;
  const line = `<p class="sidecar-decided">${escapeText(say.decided(decision.choice ?? say.noChoice, who))}`
    + ` (#${escapeText(decision.seq)})</p>`;
  return String(content).replace(/<div class="sidecar-choices"[^]*?<\/div>/, line);
}

/** What an answer to an ask adds to its card: the ask it answers, an opposition's result. */
function renderAnswers(outcome, lang) {
  if (!outcome.answers) return "";
  const say = strings(lang);
  return `<p class="sidecar-answers">${escapeText(`${say.answersAsk} ${outcome.answers}`)}</p>`
    + (outcome.opposition ? renderOpposition(outcome.opposition, lang) : "");
}

/** An opposed roll's verdict: the winner, a draw, or nobody. */
export function renderOpposition(opposition, lang = "fr") {
  const say = strings(lang);
  // (`winner_character`: the winning side's character — a GM's NPC wins with no seat.)
  const verdict = opposition.draw ? say.draw
    : opposition.winner_character ? say.winner(opposition.winner_character)
      : opposition.winner === null || opposition.winner === undefined ? say.nobody : say.winner(opposition.winner);
  return `<p class="sidecar-opposition" data-winner="${escapeHtml(opposition.winner ?? "")}">${escapeText(verdict)}</p>`;
}

function askedName(side) {
  if (side.seat === null || side.seat === undefined) return side.character; // a GM's NPC
  return side.character ? `${side.seat} (${side.character})` : side.seat;
}

/**
 * The GM's card of an ask: who is asked, and each answer as it arrives (`answers`: seat →
 * its latest outcome), an opposition's verdict once settled, or that it was cancelled.
 */
export function renderAskCard(ask, { lang = "fr", rulesetTitle, answers = {}, opposition = null, cancelled = false } = {}) {
  const say = strings(lang);
  const game = local(rulesetTitle, lang).split(" — ")[0] || ask.ruleset;
  const rows = (ask.to ?? []).map((side) => {
    const answer = answers[side.seat ?? side.character]; // (an NPC's side: by its name)
    const kind = answer?.result?.kind ? cardKind(answer.result) : null;
    // A GM's NPC's side waits for the GM: the command that rolls it, on the GM's card.
    const npcWaiting = !answer && (side.seat === null || side.seat === undefined)
      ? ` — ${say.npcAnswer} /sc ask answer ${ask.ask} ${/\s/.test(side.character) ? `"${side.character}"` : side.character}` : "";
    const what = !answer ? say.waiting + npcWaiting
      : answer.result?.hidden ? say.hidden : `${local(answer.result?.label, lang)} — ${answer.text ?? ""} (#${answer.seq})`;
    return `<li class="sidecar-asked-side${kind ? ` sidecar-${escapeHtml(kind)}` : ""}" data-seat="${escapeHtml(side.seat)}">`
      + `<strong>${escapeText(askedName(side))}</strong> : ${escapeText(what)}</li>`;
  }).join("");
  return `<div class="sidecar-card sidecar-ask" data-ask="${escapeHtml(ask.ask)}">`
    + `<header class="sidecar-head">${escapeText(ask.opposed ? say.opposed : say.asked)} · ${escapeText(game)}`
    + (ask.label ? ` · « ${escapeText(ask.label)} »` : "") + `</header>${askTargets(ask, say)}<ul>${rows}</ul>`
    + (opposition ? renderOpposition(opposition, lang) : "")
    + (cancelled ? `<p class="sidecar-cancelled">${escapeText(say.cancelled)}</p>` : "")
    + `<footer class="sidecar-foot">vtt-sidecar ${escapeText(ask.ask)}</footer></div>`;
}

/** Whom an ask's answers are aimed at (« Contre Ogre »), or nothing. */
function askTargets(ask, say) {
  return ask.targets?.length ? `<p class="sidecar-effects">${escapeText(say.against(ask.targets.join(", ")))}</p>` : "";
}

/** The asked player's card: what the GM asks, and one button that answers it. */
export function renderAskedCard(ask, { lang = "fr", rulesetTitle, seat } = {}) {
  const say = strings(lang);
  const game = local(rulesetTitle, lang).split(" — ")[0] || ask.ruleset;
  return `<div class="sidecar-card sidecar-asked" data-ask="${escapeHtml(ask.ask)}">`
    + `<header class="sidecar-head">${escapeText(say.askedYou)} · ${escapeText(game)}`
    + (ask.label ? ` · « ${escapeText(ask.label)} »` : "") + "</header>" + askTargets(ask, say)
    + `<div class="sidecar-answer" data-ask="${escapeHtml(ask.ask)}" data-seat="${escapeHtml(seat)}">`
    + `<button type="button" class="sidecar-answer-button">${escapeText(say.answerButton)}</button>`
    + `${facesInput(say)}</div></div>`;
}

/** An asked card once answered (or cancelled): its button gives way to a line. */
export function closeAnswer(content, line) {
  return String(content).replace(/<div class="sidecar-answer"[^]*?<\/div>/,
    `<p class="sidecar-answered">${escapeText(line)}</p>`);
}

/**
 * Makes the answer button of a rendered asked card work: kept for the asked seat only; a
 * click disables it and answers through `chat.answerAsk` (back on a refusal).
 */
export function bindAnswers(root, chat) {
  const kept = [];
  for (const block of root?.querySelectorAll?.(".sidecar-answer") ?? []) {
    if (!(chat.client.role === "player" && block.dataset.seat === chat.client.name)) {
      block.remove();
      continue;
    }
    kept.push(block);
    for (const button of block.querySelectorAll(".sidecar-answer-button")) {
      button.addEventListener("click", async (event) => {
        event?.preventDefault?.();
        const typed = await typedFaces(block, chat);
        if (typed === null) return;
        button.disabled = true;
        try {
          const posted = await chat.answerAsk(block.dataset.ask, typed.dice);
          if (posted?.error) button.disabled = false;
        } catch (error) {
          button.disabled = false;
          console.error("vtt-sidecar:", error);
        }
      });
    }
  }
  return kept;
}

/**
 * The kind a card (or an ask's answer) is drawn in. A total without a target (`judged:
 * false`, or the `dice` roller's `target: null`) is neither a success nor a failure:
 * `total`, neutral (PROTOCOL.md §7, `result.judged`).
 */
function cardKind(result) {
  if (result.judged === false || ("target" in result && result.target === null)) return "total";
  return KINDS.includes(result.kind) ? result.kind : "failure";
}

/**
 * The chat card of an outcome, as HTML. `rulesetTitle` is the ruleset's `title` from
 * `welcome` (a string or {fr, en}); `sheet` its sheet description (field labels).
 */
export function renderCard(outcome, { lang = "fr", rulesetTitle, sheet } = {}) {
  const say = strings(lang);
  const result = outcome.result ?? {};
  const game = local(rulesetTitle, lang).split(" — ")[0] || outcome.ruleset;
  const head = `<header class="sidecar-head"><strong>${escapeText(outcome.by?.name)}</strong> · ${escapeText(game)}`
    + (outcome.label ? ` · « ${escapeText(outcome.label)} »` : "") + "</header>";
  if (result.hidden) {
    return `<div class="sidecar-card sidecar-hidden" data-seq="${escapeHtml(outcome.seq)}">${head}`
      + `<p class="sidecar-text">${escapeText(say.hidden)}</p>${renderDecided(outcome, lang)}</div>`;
  }
  const kind = cardKind(result);
  const typed = typedDice(outcome);
  const dice = (outcome.dice ?? []).map((die, i) => dieHtml(die, typed.has(i))).join("");
  const notes = (outcome.notes ?? []).map((note) => `<li>${escapeText(local(note, lang))}</li>`).join("");
  return `<div class="sidecar-card sidecar-${kind}" data-seq="${escapeHtml(outcome.seq)}" data-kind="${kind}">${head}`
    + `<div class="sidecar-dice">${dice}</div>`
    // Faces a person typed, and who (PROTOCOL.md §3): said on every card that shows them.
    + (typed.size ? `<p class="sidecar-manual">${escapeText(manualText(outcome, say))}</p>` : "")
    + `<div class="sidecar-result"><span class="sidecar-kind">${escapeText(local(result.label, lang))}</span></div>`
    + `<p class="sidecar-text">${escapeText(outcome.text)}</p>`
    + (notes ? `<ul class="sidecar-notes">${notes}</ul>` : "")
    + renderSpent(outcome, { lang, sheet })
    + renderEffects(outcome, { lang, sheet })
    + (outcome.applied?.length ? `<p class="sidecar-applied">${escapeText(say.applied)} : ${escapeText(outcome.applied.join(", "))}</p>` : "")
    + renderDecided(outcome, lang)
    + renderAnswers(outcome, lang)
    + renderChoices(outcome, lang)
    + `<footer class="sidecar-foot">vtt-sidecar #${escapeText(outcome.seq)}</footer></div>`;
}

function percent(p, lang) {
  const text = p > 0 && p < 0.001 ? "< 0.1" : (p * 100).toFixed(1);
  return `${lang === "fr" ? text.replace(".", ",") : text} %`;
}

/** The card for `/sc odds …`: each kind's probability as a bar. */
export function renderOdds(odds, { lang = "fr", rulesetTitle } = {}) {
  const say = strings(lang);
  const game = local(rulesetTitle, lang).split(" — ")[0] || odds.ruleset;
  const bars = KINDS.map((kind) => {
    // Whatever a plugin put in `kinds` (text, 10**400…), the card shows a number in [0, 1].
    const p = probability(odds.kinds?.[kind]);
    return `<div class="sidecar-bar" data-kind="${kind}"><span>${escapeText(say.kinds[kind])}</span>`
      + `<meter min="0" max="1" value="${escapeHtml(p)}"></meter><span>${escapeText(percent(p, lang))}</span></div>`;
  }).join("");
  return `<div class="sidecar-card sidecar-odds"><header class="sidecar-head">${escapeText(say.odds)} · ${escapeText(game)}</header>`
    + `<p><strong>${escapeText(percent(probability(odds.p_success), lang))}</strong> ${escapeText(say.success)}</p>${bars}</div>`;
}

/** The help card: usage and the table's games with their parameters. */
export function renderHelp(rulesets, lang = "fr") {
  const say = strings(lang);
  const items = rulesets.map((ruleset) => `<li><strong>${escapeText(ruleset.name)}</strong> — `
    + `${escapeText(local(ruleset.title, lang))} : ${escapeText(Object.keys(ruleset.params ?? {}).join(", "))}</li>`).join("");
  return `<div class="sidecar-card sidecar-help"><p>${escapeText(say.usage)}</p>`
    + `<p>${escapeText(say.rulesets)} :</p><ul>${items}</ul></div>`;
}

/**
 * Routes `/sc` commands through a connected SidecarClient and posts the chat cards.
 *
 * `post(message)` creates the chat message (`{content, whisper, blind}`); in Foundry it is
 * ChatMessage.create. The roller posts its own card, except for blind rolls: the roller
 * only has the hidden copy, so the responsible GM's client posts the whole card, whispered
 * to the GMs and blind, when the outcome reaches it.
 */
export class SidecarChat {
  /**
   * `character()` names the character the user set in the module's settings (or ""),
   * `assigned()` the user's assigned Foundry character's name, `seat()` the user's seat
   * name when joined with a seat token (see `chooseCharacter`).
   */
  /**
   * `close(roll, decision)` takes the buttons off the open cards of `roll` once decided
   * (in Foundry: the chat messages of that roll this user may change); `userIdOf(name)` is
   * the Foundry user of a sidecar name (who sees a decision taken by a GM on a `gm` roll).
   */
  constructor({ client, post, userId, gmIds, isResponsibleGM = () => false,
                otherNames = () => [], mirror = () => false, lang = "fr",
                character = () => "", assigned = () => "", seat = () => "", targeted = () => [],
                close = async () => {}, userIdOf = () => null, update = async () => {},
                hasBlindCard = () => false, retryDelays = [500, 2000, 5000] }) {
    this.client = client;
    /** `hasBlindCard(seq)`: whether the chat holds the GMs' blind card of that event
     * already (a catch-up after a GM's reconnection must not post it twice). */
    this.hasBlindCard = hasBlindCard;
    /** Seqs of the blind cards this client posted (or is posting). */
    this.blindPosted = new Set();
    /** Pauses (ms) between the attempts at posting a blind card Foundry refused. */
    this.retryDelays = retryDelays;
    /** Names connected to the sidecar as GMs (from `presence`): who can post blind cards. */
    this.sidecarGMs = new Set();
    /** `update(message, content)` changes a posted card (Foundry: `message.update`). */
    this.update = update;
    /** Asks this client shows a card of: ask id → {ask, message (a promise), answers, opposition}. */
    this.askCards = new Map();
    this.posted = new Map();
    this.close = close;
    this.userIdOf = userIdOf;
    this.character = character;
    this.assigned = assigned;
    /** `targeted()`: the sidecar characters of the tokens the user targets in Foundry. */
    this.targeted = targeted;
    this.seat = seat;
    // Every card speaks as someone named, never as the token the GM happens to have selected.
    this.post = (message) => post({ alias: this.client.name, ...message });
    this.userId = userId;
    this.gmIds = gmIds;
    this.isResponsibleGM = isResponsibleGM;
    this.otherNames = otherNames;
    this.mirror = mirror;
    this.lang = lang;
    const logged = (promise) => promise.catch((error) => console.error("vtt-sidecar:", error));
    const unsubscribe = [
      client.on("outcome", (outcome) => logged(this.onOutcome(outcome))),
      client.on("ask", (ask) => logged(this.onAsk(ask))),
      client.on("session", (session) => logged(this.onSession(session))),
      client.on("initiative", (event) => logged(this.onInitiative(event))),
      client.on("presence", (presence) => logged(this.onPresence(presence))),
    ];
    this.unsubscribe = () => unsubscribe.forEach((off) => off?.());
  }

  get rulesets() {
    return this.client.welcome?.rulesets ?? [];
  }

  /**
   * Who is at the table on the sidecar's side: GMs joined as GMs. When this client becomes
   * the one that posts blind cards (the GM who did went away, or this one just joined), it
   * posts those the chat is missing.
   */
  async onPresence(presence) {
    const was = this.isResponsibleGM();
    this.sidecarGMs = new Set((presence?.members ?? []).filter((member) => member?.role === "gm")
      .map((member) => member.name));
    if (!was && this.isResponsibleGM()) return this.catchUp();
    return null;
  }

  /**
   * Posts the blind cards of the last events the chat does not show (`hasBlindCard`): rolled
   * while no GM connected as GM was in Foundry. Bounded: the last `window` events.
   */
  async catchUp(window = 200) {
    if (this.client.role !== "gm" || !this.isResponsibleGM()) return [];
    const posted = [];
    let after = Math.max(0, Number(this.client.welcome?.seq ?? 0) - window);
    for (let page = 0; page < Math.ceil(window / 100) + 1; page += 1) {
      const { events = [], more, next } = await this.client.history({ after, limit: 100 });
      for (const event of events) {
        if (event.type === "outcome" && event.mode === "blind" && !event.result?.hidden
            && event.reacts_to === undefined && !this.hasBlindCard(event.seq)) {
          const message = await this.postBlind(event);
          if (message) posted.push(message);
        }
      }
      if (!more) break;
      after = next;
    }
    return posted;
  }

  /** A blind roll's whole card, to the GMs only (blind), once; Foundry's refusals retried. */
  async postBlind(outcome) {
    if (this.blindPosted.has(outcome.seq) || this.hasBlindCard(outcome.seq)) return null;
    this.blindPosted.add(outcome.seq);
    const message = { content: renderCard(outcome, this.cardOptions(outcome.ruleset)), alias: outcome.by?.name,
                      ...chatVisibility("blind", { userId: this.userId, gmIds: this.gmIds() }),
                      rollMode: "blindroll", seq: outcome.seq, roll: outcome.roll, open: outcome.open === true };
    for (let attempt = 0; ; attempt += 1) {
      try {
        return await this.post(message);
      } catch (error) {
        if (attempt >= this.retryDelays.length) {
          this.blindPosted.delete(outcome.seq); // the next catch-up tries again
          throw error;
        }
        console.warn(`vtt-sidecar: the blind card #${outcome.seq} was refused, trying again`, error);
        await new Promise((resolve) => setTimeout(resolve, this.retryDelays[attempt]));
      }
    }
  }

  titleOf(name) {
    return this.rulesets.find((ruleset) => ruleset.name === name)?.title;
  }

  /** What renderCard needs to know of an outcome's ruleset. */
  cardOptions(name) {
    const ruleset = this.rulesets.find((candidate) => candidate.name === name);
    return { lang: this.lang, rulesetTitle: ruleset?.title, sheet: ruleset?.sheet };
  }

  /** The character a command rolls as (a name or null): see chooseCharacter. */
  characterFor(command) {
    return chooseCharacter(command, this.client.characters,
      { setting: this.character(), assigned: this.assigned(), seat: this.seat() });
  }

  /**
   * Handles a chat line. Returns false when it is not a `/sc` command (Foundry goes on as
   * usual), else a promise of the posted message's data.
   * @param {string} text  the chat line
   * @param {string} rollMode  Foundry's current roll mode (`core.rollMode`)
   */
  handle(text, rollMode = "publicroll") {
    let command;
    try {
      command = parseCommand(text, this.rulesets, this.lang, this.client.welcome?.options ?? []);
    } catch (error) {
      if (!(error instanceof CommandError)) throw error;
      return this.postError(error.message);
    }
    if (command === null) return false;
    if (command.action === "help") {
      return this.post({ content: renderHelp(this.rulesets, this.lang), whisper: [this.userId], blind: false });
    }
    if (command.action === "sheet") {
      // The characters this user may see (a GM: all of them), to this user only.
      return this.post({ content: renderSheets([...(this.client.characters?.values() ?? [])], this.rulesets, this.lang),
                         whisper: [this.userId], blind: false });
    }
    if (command.action === "session") {
      return this.guard((say) => say.failed, async () => {
        const session = await this.client.startSession();
        return (await this.posted.get(`session-${session.seq}`)) ?? null;
      });
    }
    if (command.action === "cancelAsk") {
      return this.guard((say) => say.failed, async () => {
        await this.client.cancelAsk(command.ask);
        return (await this.askCards.get(command.ask)?.message) ?? null;
      });
    }
    if (command.action === "answerAsk") return this.answerAsk(command.ask, command.dice, command.character);
    if (command.action === "ask") {
      return this.guard((say) => say.failed, async () => {
        const each = Object.keys(command.each).length ? command.each : undefined;
        const ask = await this.client.ask({ to: command.to, ruleset: command.ruleset, params: command.params,
          label: command.label, mode: command.mode ?? "public", opposed: command.opposed, each,
          targets: targetsFor(command, this.targeted()) });
        return (await this.askCards.get(ask.ask)?.message) ?? null;
      });
    }
    return this.run(command, rollMode);
  }

  /** Runs a request, turning the server's refusal into an error card for this user. */
  async guard(failed, work) {
    try {
      return await work();
    } catch (error) {
      const say = strings(this.lang);
      if (CONNECTION_CODES.has(error?.code)) return this.postError(say.unreachable);
      if (error?.code) return this.postError(`${failed(say)} : ${error.serverMessage ?? error.message}`);
      throw error;
    }
  }

  /**
   * An ask event. Opened: the responsible GM's client posts the GM's card (to the GMs),
   * an asked seat's client its card with the answer button (to its user). Cancelled:
   * both cards say so.
   */
  async onAsk(ask) {
    const say = strings(this.lang);
    if (ask.op === "cancel") {
      const card = this.askCards.get(ask.ask);
      if (!card) return null;
      card.cancelled = true;
      const message = await card.message;
      if (card.asked) return this.update(message, closeAnswer(message.content, say.cancelled));
      return this.update(message, this.askContent(card));
    }
    if (ask.op !== "open") return null;
    const options = this.cardOptions(ask.ruleset);
    if (this.isResponsibleGM()) {
      const card = { ask, answers: {}, opposition: null, cancelled: false };
      card.message = this.post({ content: this.askContent(card), whisper: [...this.gmIds()], blind: false,
                                 ask: ask.ask });
      this.askCards.set(ask.ask, card);
      return card.message;
    }
    const seat = this.client.role === "player"
      ? (ask.to ?? []).find((side) => side.seat === this.client.name) : undefined;
    if (!seat) return null;
    const card = { ask, asked: true };
    card.message = this.post({ content: renderAskedCard(ask, { ...options, seat: seat.seat }),
                               whisper: [this.userId], blind: false, ask: ask.ask });
    this.askCards.set(ask.ask, card);
    return card.message;
  }

  askContent(card) {
    return renderAskCard(card.ask, { ...this.cardOptions(card.ask.ruleset), answers: card.answers,
                                     opposition: card.opposition, cancelled: card.cancelled });
  }

  /** An answer (or a decision on one) reaches the GM's card: it fills. */
  async onAnswer(outcome) {
    const card = [...this.askCards.values()].find((each) => !each.asked && (each.ask.ask === outcome.answers
      || Object.values(each.answers).some((answer) => answer.roll === outcome.roll)));
    if (!card || !outcome.by?.name) return null;
    // A GM's answer as a GM's NPC of the ask fills that NPC's side (keyed by its name).
    const npc = !outcome.by.seat && (card.ask.to ?? []).find((side) => side.seat == null
      && side.character === outcome.character);
    card.answers[npc ? npc.character : outcome.by.name] = outcome;
    if (outcome.opposition) card.opposition = outcome.opposition;
    return this.update(await card.message, this.askContent(card));
  }

  /** Answers an ask from its card's button (or `/sc ask answer`, a GM for `character`, a
   * GM's NPC): the answer's card is posted like a roll's, and the asked card's button gives
   * way to a line. */
  async answerAsk(askId, dice, character) {
    const say = strings(this.lang);
    return this.guard((s) => s.refusedAnswer, async () => {
      // (`character` only for an NPC: a seat's answer calls the client as it always did.)
      const outcome = await (character ? this.client.answer(askId, dice, { character })
        : this.client.answer(askId, dice));
      const card = this.askCards.get(askId);
      if (card?.asked) {
        const message = await card.message;
        await this.update(message, closeAnswer(message.content, say.answered(outcome.seq)));
      }
      const visibility = chatVisibility(outcome.mode, { userId: this.userId, gmIds: this.gmIds() });
      if (outcome.mode === "blind") {
        return this.post({ content: renderCard(outcome, { lang: this.lang }), whisper: [this.userId],
                           blind: false, rollMode: "selfroll", seq: outcome.seq, roll: outcome.roll,
                           alias: outcome.by?.name });
      }
      return this.post({ content: renderCard(outcome, this.cardOptions(outcome.ruleset)), ...visibility,
                         alias: outcome.by?.name,
                         rollMode: SIDECAR_TO_FOUNDRY[outcome.mode], seq: outcome.seq, roll: outcome.roll,
                         open: outcome.open === true });
    });
  }

  /** A new game session: the responsible GM's client says so in the chat, to everyone. */
  async onSession(session) {
    if (!this.isResponsibleGM()) return null;
    const say = strings(this.lang);
    const message = this.post({ content: `<div class="sidecar-card sidecar-session">${escapeText(say.session(session.number))}</div>`,
                                whisper: [], blind: false, seq: session.seq });
    this.posted.set(`session-${session.seq}`, message);
    return message;
  }

  /**
   * A scene's initiative (PROTOCOL.md §7.7): the responsible GM's client says its order to
   * everyone, who acts together and what a claim cost — « Initiative : Garde, puis Aengus et
   * Brady ensemble (Brady : −1 BB+) » —, never as a roll's card.
   */
  async onInitiative(event) {
    if (!this.isResponsibleGM()) return null;
    const sheet = this.rulesets.find((ruleset) => ruleset.name === event.ruleset)?.sheet;
    const text = initiativeText(event, strings(this.lang).initiative, (field) => fieldLabel(sheet, field, this.lang));
    const message = this.post({ content: `<div class="sidecar-card sidecar-initiative">${escapeText(text)}</div>`,
                                whisper: [], blind: false, seq: event.seq });
    this.posted.set(`initiative-${event.seq}`, message);
    return message;
  }

  async run(command, rollMode) {
    try {
      const character = this.characterFor(command);
      // Aimed at the tokens the user targets (or those --cible names), never at itself.
      const targets = targetsFor(command, this.targeted()).filter((name) => name !== character);
      if (command.action === "odds") {
        const odds = await this.client.odds(command.ruleset, command.params, command.options ?? {},
          { character: character ?? undefined, targets });
        return await this.post({ content: renderOdds(odds, { lang: this.lang, rulesetTitle: this.titleOf(command.ruleset) }),
                                 whisper: [this.userId], blind: false });
      }
      const mode = command.mode ?? FOUNDRY_TO_SIDECAR[rollMode] ?? "public";
      const outcome = await this.client.roll({ ruleset: command.ruleset, params: command.params,
        options: command.options ?? {}, label: command.label, mode, dice: command.dice ?? undefined,
        character: character ?? undefined, targets });
      const visibility = chatVisibility(mode, { userId: this.userId, gmIds: this.gmIds() });
      if (mode === "blind") {
        // Our copy is the hidden one: a note for ourselves; the GM's client posts the card.
        return await this.post({ content: renderCard(outcome, { lang: this.lang }), whisper: [this.userId],
                                 blind: false, rollMode: "selfroll", seq: outcome.seq, roll: outcome.roll,
                                 alias: outcome.by?.name });
      }
      return await this.post({ content: renderCard(outcome, this.cardOptions(outcome.ruleset)),
                               alias: outcome.by?.name, ...visibility, rollMode: SIDECAR_TO_FOUNDRY[mode], seq: outcome.seq,
                               roll: outcome.roll, open: outcome.open === true });
    } catch (error) {
      const say = strings(this.lang);
      if (CONNECTION_CODES.has(error?.code)) return this.postError(say.unreachable);
      if (error?.code) return this.postError(`${say.failed} : ${error.serverMessage ?? error.message}`);
      throw error;
    }
  }

  /** Whether this user may take a choice of an open card rolled by `by` (a sidecar name):
   * a GM, its roller, or — a `public` roll made as `character` — the seat that plays that
   * character (the server's rule: protocol/deciding.py `may_decide`, PROTOCOL.md §7.6). */
  mayDecide(by, mode = "", character = "") {
    const client = this.client;
    if (client.role === "gm") return true;
    if (client.role !== "player") return false;
    if (by === client.name) return true;
    return client.welcome?.seat === true && mode === "public" && Boolean(character)
      && client.characters?.get?.(character)?.owner === client.name;
  }

  /** A button of an open card was clicked: sends the `react`, posts the decision's card (a
   * refusal: to this user only). Resolves with the posted message. */
  async decide(roll, choice, dice) {
    try {
      return await this.postDecision(await this.client.react(roll, choice, dice));
    } catch (error) {
      const say = strings(this.lang);
      if (CONNECTION_CODES.has(error?.code)) return this.postError(say.unreachable);
      if (error?.code) return this.postError(`${say.refusedChoice} : ${error.serverMessage ?? error.message}`);
      throw error;
    }
  }

  /** A decision's card, seen by whom its roll is seen by (a blind one: the GMs, blind). */
  postDecision(decision) {
    const gmIds = this.gmIds();
    const common = { content: renderCard(decision, this.cardOptions(decision.ruleset)), seq: decision.seq,
                     alias: decision.by?.name,
                     roll: decision.roll, open: decision.open === true };
    if (decision.mode === "blind") {
      return this.post({ ...common, ...chatVisibility("blind", { userId: this.userId, gmIds }), rollMode: "blindroll" });
    }
    const userId = this.userIdOf(decision.by?.name) ?? this.userId;
    return this.post({ ...common, ...chatVisibility(decision.mode, { userId, gmIds }),
                       rollMode: SIDECAR_TO_FOUNDRY[decision.mode] });
  }

  postError(message) {
    return this.post({ content: `<div class="sidecar-card sidecar-error">${escapeText(message)}</div>`,
                       whisper: [this.userId], blind: false, error: true });
  }

  /** Outcomes streamed from the table: the blind ones (for the responsible GM), and
   * optionally rolls made outside Foundry (web table, CLI), mirrored into the chat. */
  async onOutcome(outcome) {
    if (this.isResponsibleGM() && this.askCards.size) await this.onAnswer(outcome);
    if (outcome.reacts_to !== undefined) return this.onDecision(outcome);
    if (outcome.id !== undefined || !this.isResponsibleGM()) return null; // our own: posted by run()
    const options = this.cardOptions(outcome.ruleset);
    if (outcome.mode === "blind") {
      // Only a GM joined as GM has the whole card; anyone else's copy is hidden: nothing to post.
      return outcome.result?.hidden || this.client.role !== "gm" ? null : this.postBlind(outcome);
    }
    if (this.mirror() && !this.otherNames().includes(outcome.by?.name)) {
      return this.post({ content: renderCard(outcome, options), alias: outcome.by?.name,
                         ...chatVisibility(outcome.mode, { userId: this.userId, gmIds: this.gmIds() }),
                         rollMode: SIDECAR_TO_FOUNDRY[outcome.mode], seq: outcome.seq });
    }
    return null;
  }

  /** A decision on an open roll: its open cards lose their buttons; its own card is posted
   * by the client that decided (`decide`), else — time ran out, or decided outside Foundry
   * — by the responsible GM's client, for a roll whose card is in the chat. */
  async onDecision(decision) {
    if (decision.result?.hidden) return null; // a blind roll's roller: nothing to show
    await this.close(decision.roll, decision);
    if (decision.id !== undefined || !this.isResponsibleGM()) return null;
    const names = this.otherNames();
    if (decision.reacted_by && names.includes(decision.reacted_by.name)) return null; // its client posts it
    if (!(decision.mode === "blind" || this.mirror() || names.includes(decision.by?.name))) return null;
    return this.postDecision(decision);
  }
}
