#!/usr/bin/env python3
"""Check a vtt-sidecar table's dice yourself, with nothing but Python's standard library.

    python3 verify_dice.py export.jsonl        # from `sidecar export`, or a saved log

Written from protocol/PROTOCOL.md ("Dice anyone can check") alone, without importing the
sidecar, so that a sceptical player can read all of it. Exit 0: everything it checks
checks; 1: the first bad event, named by its seq, its roll and the field; 3: nothing bad,
but some rolls wait for their epoch's reveal; 4: nothing bad, but something could not be
checked (each listed).

What it checks, in order:
1. seqs strictly increase (no line moved); an export's are 1, 2, 3... (none removed);
2. a revealed seed is the one committed: the Merkle root of its leaves is the commitment
   announced before the epoch's first roll; an epoch keeps the settings it opened with,
   and its seed derives from them (with the reveal's nonce);
3. every roll made while an epoch was open is proven or entered by hand: its proof names
   that epoch's commitment, and its position is the epoch's next (it counts the rolls
   that drew before it; in an older epoch, its seq after the event that opened it): no
   position passed over, none used twice, none missing; dice entered by hand are a GM's, or
   a player's where the epoch's settings say players may enter dice;
4. its faces are exactly those the derivation gives (a decision: its open roll's dice and
   its own, nothing else), from the seed (an export, a GM's log) or from the roll's own
   key and Merkle path (a player's log: players never get the seed);
5. around the rules: a seat's roll is by a seat of the table; a roll as a character is
   its owner's or a GM's, never "self", and its sheet is the values before it less what it
   spent; a decision is on a roll still open, by its roller, a GM or (a public roll
   made as a character) that character's seat (a blind roll's: a GM), with a choice it
   offered, drawing that choice's dice; an answer is the asked seat's (a GM's NPC's side:
   a GM's, as that character), rolled as asked;
   an opposed or cooperative ask's verdict follows from its answers; the project's own
   rulesets' results agree with themselves (success and kind; a failure's margin ≤ -1).

What it does NOT do: re-run the rulesets (it has none). Each result, its extensions
(applied, notes), its text, the choices it offers and what it spends are the server's
word here: `sidecar verify` resolves every roll again and compares them.
"""

import hashlib
import hmac
import json
import sys

DEPTH = 12  # 4096 positions (rolls) per epoch
#: Rulesets shipped with the sidecar: their results follow the common conventions.
OWN_RULESETS = {"bloodlust", "d6code", "dice", "ladder", "oweens", "seuil"}
NOT_RECOMPUTED = ("results not recomputed here (this file has no rulesets): each roll's "
                  "result, applied, notes, text, choices and spend are the server's word — "
                  "`sidecar verify` re-runs them")


def leaf_key(seed, position):
    return hmac.digest(seed, b"sidecar-leaf" + position.to_bytes(4, "big"), "sha256")


def settings_seed(nonce, settings):
    """The seed of an epoch opened with these settings (PROTOCOL.md, 8.3)."""
    text = json.dumps(settings, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hmac.digest(nonce, b"sidecar-seed/1\x00" + text.encode("utf-8"), "sha256")


def merkle_root(seed):
    level = [hashlib.sha256(b"\x00" + leaf_key(seed, p)).digest() for p in range(1 << DEPTH)]
    while len(level) > 1:
        level = [hashlib.sha256(b"\x01" + level[i] + level[i + 1]).digest()
                 for i in range(0, len(level), 2)]
    return level[0].hex()


def root_from_path(key, position, path):
    digest = hashlib.sha256(b"\x00" + key).digest()
    for sibling in path:
        other = bytes.fromhex(sibling)
        pair = other + digest if position & 1 else digest + other
        digest = hashlib.sha256(b"\x01" + pair).digest()
        position >>= 1
    return digest.hex()


def faces(key, client, position, sides_list):
    """The faces of the dice of `sides_list`, in the order the roll drew them."""
    prefix = b"sidecar-dice/1\x00" + client.encode() + b"\x00" + position.to_bytes(4, "big")
    streams = {}  # sides -> [unread bytes, next block number]
    out = []
    for sides in sides_list:
        stream = streams.setdefault(sides, [b"", 0])
        width = 1 if sides <= 256 else 2
        limit = 256 ** width - 256 ** width % sides
        while True:
            while len(stream[0]) < width:
                message = prefix + sides.to_bytes(4, "big") + stream[1].to_bytes(4, "big")
                stream[0] += hmac.digest(key, message, "sha256")
                stream[1] += 1
            value = int.from_bytes(stream[0][:width], "big")
            stream[0] = stream[0][width:]
            if value < limit:  # rejection sampling: every face exactly as likely
                out.append(value % sides + 1)
                break
    return out


class Bad(Exception):
    def __init__(self, event, field, why):
        roll = f"roll {event['roll']}, " if event.get("roll") else ""
        super().__init__(f"seq {event.get('seq')}: {roll}field {field}: {why}")


class Unchecked(Bad):
    pass


def events(path):
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                message = json.loads(line)
                if message.get("type") == "history":
                    for event in message["events"]:
                        yield event, True
                # Every journaled event (it has a seq) takes its place in the epoch:
                # seats, sheets, asks... count as much as rolls.
                elif message.get("type") == "welcome" or isinstance(message.get("seq"), int):
                    yield message, False


def same_event(event):
    """What two copies of one event share: all but the request id a live copy echoes and
    the key and path a history page adds to its proof."""
    kept = {k: v for k, v in event.items() if k not in ("id", "duplicate")}
    if isinstance(kept.get("proof"), dict):
        kept["proof"] = {k: v for k, v in kept["proof"].items() if k not in ("key", "path")}
    return kept


def read(path):
    """The events by seq (each once), the welcomes, and whether the file is an export."""
    seen, pages, welcomes, last_seq = {}, {}, [], 0
    for event, from_page in events(path):
        if event["type"] == "welcome":
            welcomes.append(event)
            continue
        seq = event["seq"]
        if seq in seen:
            # A player's log has events twice: live, then from a history page that adds
            # each roll's key after the reveal. It must be the very same event; anywhere
            # else (an export, a log's live lines) each seq is there once.
            first, first_from_page = seen[seq], pages[seq]
            if not (from_page or first_from_page):
                raise Bad(event, "seq", "this seq is there twice (each event has its own)")
            if same_event(first) != same_event(event):
                raise Bad(event, "seq", "two different events have this seq")
            if "key" in (event.get("proof") or {}):
                first["proof"] = event["proof"]
            continue
        if not from_page:  # a history page may bring back events missed live
            if seq <= last_seq:
                raise Bad(event, "seq", f"out of order (after seq {last_seq})")
            last_seq = seq
        seen[seq], pages[seq] = event, from_page
    outcomes = [e for e in seen.values() if e["type"] == "outcome"]
    export = bool(outcomes) and all(isinstance(e.get("text"), dict) for e in outcomes)
    if export:
        # An export (its outcomes keep the texts of both languages) holds every event:
        # seqs 1, 2, 3... with none missing.
        for expected, seq in enumerate(sorted(seen), 1):
            if seq != expected:
                raise Bad(seen[seq], "seq", f"seq {expected} is missing before it")
    return seen, welcomes, export, pages


class Epochs:
    """Commitments, settings and seeds of the epochs; when each was open."""

    def __init__(self, seen, welcomes):
        self.commitments, self.settings, self.seeds, self.bases = {}, {}, {}, {}
        self.changes = []  # (seq, the epoch open after it, or None)
        self.unbound = []  # what says an epoch's settings are not bound to its seed
        self.drawn = {}  # positions used so far, by epoch (positions counting the rolls)
        for welcome in welcomes:
            if welcome.get("epoch"):
                self.announce(welcome, welcome["epoch"])
                self.changes.append((welcome["seq"], welcome["epoch"]["number"]))
        for seq in sorted(seen):
            event = seen[seq]
            if event["type"] != "epoch":
                continue
            number = event["epoch"]["number"]
            self.announce(event, event["epoch"])
            if event["op"] == "start":
                self.bases.setdefault(number, seq)
                self.changes.append((seq, number))
            if event["op"] == "reveal":
                nxt = event.get("next")  # none when the server stopped
                if nxt:
                    self.announce(event, nxt)
                    self.bases.setdefault(nxt["number"], seq)
                self.changes.append((seq, nxt["number"] if nxt else None))
                base = self.bases.get(number)
                if base is not None and event.get("events") != seq - base - 1:
                    raise Bad(event, "events", f"epoch {number} numbered {seq - base - 1} "
                              "events between the one that opened it and its reveal")
                if "seed" in event:
                    seed = bytes.fromhex(event["seed"])
                    if merkle_root(seed) != self.commitments[number]:
                        raise Bad(event, "seed", f"the seed of epoch {number} was not "
                                  "committed")
                    self.bound(event, number, seed)
                    self.seeds[number] = seed
        self.changes.sort(key=lambda change: change[0])

    def bound(self, event, number, seed):
        """The seed derives from the reveal's nonce and the settings the epoch announced:
        other settings would need another seed, so another commitment."""
        settings = self.settings.get(number)
        if "nonce" not in event:
            if settings is not None:
                self.unbound.append(str(Unchecked(
                    event, "settings", f"epoch {number}'s settings are not bound to its "
                    "seed (its reveal has no nonce: opened before seeds were derived from "
                    "them)")))
            return
        if settings is None:
            raise Bad(event, "settings", f"epoch {number} has a nonce but no settings")
        if settings_seed(bytes.fromhex(event["nonce"]), settings) != seed:
            raise Bad(event, "settings", f"the seed of epoch {number} is not derived from "
                      "the settings it announced (they were changed)")

    def announce(self, event, epoch):
        number = epoch["number"]
        if self.commitments.setdefault(number, epoch["commitment"]) != epoch["commitment"]:
            raise Bad(event, "epoch", f"epoch {number} changed its commitment")
        if "settings" in epoch and self.settings.setdefault(
                number, epoch["settings"]) != epoch["settings"]:
            raise Bad(event, "settings", f"epoch {number} changed its settings")

    def open_at(self, seq):
        """(whether the file says which epoch was open at seq, that epoch or None)"""
        known, number = False, None
        for at, opened in self.changes:
            if at >= seq:
                break
            known, number = True, opened
        return known, number


def interleaves(shown, first, second):
    """Whether `shown` is exactly `first` and `second` merged, each in its order."""
    if len(shown) != len(first) + len(second):
        return False
    reachable = {0}  # how many of `first` were taken, after each die shown
    for index, die in enumerate(shown):
        reachable = {i + 1 for i in reachable if i < len(first) and first[i] == die} | {
            i for i in reachable if index - i < len(second) and second[index - i] == die}
        if not reachable:
            return False
    return True


class Report:
    def __init__(self):
        self.checked, self.manual, self.waiting, self.unchecked = 0, 0, 0, []
        self.export = False


def check_proof(event, opened, epochs, report, export):
    """The roll is proven (or entered by hand, legitimately): returns how many new dice
    it may have drawn (None when that is not known)."""
    seq = event["seq"]
    shown = [(d["sides"], d["face"]) for d in event["dice"]]
    earlier = [(d["sides"], d["face"]) for d in opened["dice"]] if opened else []
    known, number = epochs.open_at(seq)
    proof = event.get("proof")
    if proof is None:
        if opened and event.get("choice") is None and not event["dice"]:
            return {0}  # closed when its time ran out: no die drawn
        if known and number is not None:
            raise Bad(event, "proof", f"no proof, though epoch {number} was open: every "
                      "roll of a provable table is proven or marked as entered by hand")
        report.unchecked.append(str(Unchecked(event, "dice", "no proof: made while no "
                                              "epoch was open" if known or export else
                                              "no proof, and no epoch is known here")))
        return None
    if proof.get("manual"):
        report.manual += 1
        author = event.get("reacted_by") if opened else event["by"]
        by = proof.get("by") or {}
        if not author or (by.get("name"), by.get("role")) != (author.get("name"),
                                                              author.get("role")):
            raise Bad(event, "proof.by", "dice entered by hand name who entered them: the "
                      "one who rolled (or decided)")
        if by.get("role") != "gm" and number is not None:
            settings = epochs.settings.get(number)
            if settings is None:
                report.unchecked.append(str(Unchecked(
                    event, "proof", f"dice entered by a player, and epoch {number} does not "
                    "say whether players could (its settings are missing)")))
            elif settings.get("player_dice") is not True:
                raise Bad(event, "proof", "dice entered by a player, and players may not "
                          f"enter dice on this server (epoch {number}'s settings)")
        # A decision shows its new dice, maybe after its open roll's: either count.
        return {len(shown), len(shown) - len(earlier)} if opened else {len(shown)}
    if known and proof["epoch"] != number:
        raise Bad(event, "proof.epoch", f"its proof names epoch {proof['epoch']}, epoch "
                  f"{number} was open")
    number, position = proof["epoch"], proof["position"]
    if epochs.commitments.setdefault(number, proof["commitment"]) != proof["commitment"]:
        raise Bad(event, "proof.commitment", f"not the commitment of epoch {number}")
    # Positions count the rolls that drew: 0, 1, 2... In an export none is missing (a roll
    # taken out or replaced leaves a hole); in a log they only increase. An epoch whose
    # settings do not say `positions: drawn` numbered every event: the position is the
    # roll's seq after the event that opened the epoch.
    settings = epochs.settings.get(number)
    expected = epochs.drawn.get(number, 0)
    counted = position == expected if export else position >= expected
    epochs.drawn[number] = position + 1
    if (settings or {}).get("positions") == "drawn":
        if not counted:
            raise Bad(event, "proof.position", f"position {position} in epoch {number}, "
                      f"where the rolls before it drew {expected} (none missing, none twice)")
    elif epochs.bases.setdefault(number, seq - position - 1) != seq - position - 1 and not (
            settings is None and counted):
        raise Bad(event, "proof.position", f"position {position} is not its place in "
                  f"epoch {number}")
    if number in epochs.seeds:
        key = leaf_key(epochs.seeds[number], position)
    elif "key" in proof:
        key = bytes.fromhex(proof["key"])
        if root_from_path(key, position, proof["path"]) != epochs.commitments[number]:
            raise Bad(event, "proof.key", "its key is not under the commitment")
    else:
        report.waiting += 1
        return {len(proof["sides"])}
    drawn = list(zip(proof["sides"], faces(key, proof["client"], position, proof["sides"]),
                     strict=True))
    # Exactly the dice drawn, in order; a decision may show its open roll's dice too
    # (all of them, each in its order): no die added, none moved.
    if shown != drawn and not (opened and interleaves(shown, earlier, drawn)):
        raise Bad(event, "dice", f"{len(shown)} dice shown, the proof draws {len(drawn)} "
                  f"({', '.join(f'd{s}:{f}' for s, f in drawn)}): its dice are not the "
                  "ones derived")
    report.checked += 1
    return {len(drawn)}


class Table:
    """What the server keeps of a table beside its events, as the events tell it."""

    def __init__(self):
        self.seats, self.characters, self.open, self.asks = {}, {}, {}, {}
        self.session, self.turn = 0, 0

    def take(self, event, drew, gap):
        kind = event["type"]
        if kind == "seat":
            if event.get("op") == "remove":
                self.seats.pop(event["name"], None)
            else:
                self.seats[event["name"]] = event.get("seat_id")
        elif kind == "sheet":
            if event.get("op") == "remove":
                self.characters.pop(event["character"], None)
            else:
                self.characters[event["character"]] = {
                    "ruleset": event["ruleset"], "owner": event.get("owner"),
                    "values": event.get("values") or {}}
        elif kind == "ask" and event.get("op") == "open":
            self.asks[event["ask"]] = {"event": event, "answered": {}}
        elif kind == "ask" and event.get("op") == "cancel":
            self.asks.pop(event["ask"], None)
        elif kind == "session":
            # A session is numbered after the last, a turn after the last of its session.
            turn = event.get("op") == "turn"
            expected = (self.session, self.turn + 1) if turn else (self.session + 1, None)
            got = (event["number"], event["turn"] if turn else None)
            self.session, self.turn = event["number"], event["turn"] if turn else self.turn
            if got != expected and not gap:
                field = "turn" if turn and got[0] == expected[0] else "number"
                raise Bad(event, field, f"the table's next {'turn' if turn else 'session'} "
                          f"is {expected[1] if field == 'turn' else expected[0]}")
        elif kind == "initiative":
            for name, amounts in (event.get("spent") or {}).items():
                if name in self.characters:
                    self.characters[name]["values"] = spend(
                        self.characters[name]["values"], amounts)
        elif kind == "outcome":
            self.outcome(event, drew, gap)

    def outcome(self, event, drew, gap):
        def missing(field, why):
            # A log lacks the events hidden from its reader: not there is not forged.
            return Unchecked(event, field, why + " (events before it are not in this "
                             "file)") if gap else Bad(event, field, why)

        opened = None
        if event.get("reacts_to") is not None:
            opened = self.open.get(event["roll"])
            if opened is None or opened["seq"] != event["reacts_to"]:
                raise missing("reacts_to", f"roll {event['roll']} is not open at seq "
                              f"{event['reacts_to']} (unknown, or already decided)")
            played = self.characters.get(opened.get("character") or "") or {}
            decision(event, opened, drew, played.get("owner"))
        else:
            self.author(event, gap, missing)
        name = event.get("character")
        if name is not None:
            character = self.characters.get(name)
            if character is None:
                raise missing("character", f"no character '{name}' at this table")
            if character["ruleset"] != event["ruleset"]:
                raise Bad(event, "character", f"'{name}' plays {character['ruleset']}")
            by = event["by"]
            if opened is None and by["role"] != "gm" and not (
                    by.get("seat") and character["owner"] == by["name"]):
                raise Bad(event, "by", f"'{name}' is {character['owner'] or 'nobody'}'s "
                          f"character, not {by['name']}'s")
            if opened is None and event["mode"] == "self":
                raise Bad(event, "mode", "a roll as a character is never 'self'")
            if not isinstance(event.get("spent"), dict) or not isinstance(
                    event.get("sheet"), dict):
                raise Bad(event, "spent", "a roll as a character records what it spent "
                          "and the values it left (spent, sheet)")
            if event["sheet"] != spend(character["values"], event["spent"]):
                raise Bad(event, "sheet", "the values it left are not those before it "
                          f"less what it spent ({event['spent']})")
            character["values"] = event["sheet"]
        if opened is not None:
            del self.open[event["roll"]]
        if event.get("open"):
            self.open[event["roll"]] = event
        self.answered(event, opened, missing)

    def author(self, event, gap, missing):
        by, seat = event["by"], event["by"].get("seat")
        if seat and by["name"] in self.seats:
            known = self.seats[by["name"]]
            if isinstance(seat, str) and known is not None and seat != known:
                raise Bad(event, "by", f"'{by['name']}' is not the seat of this id")
        elif seat and not gap:
            raise Bad(event, "by", f"'{by['name']}' has no seat at this table")
        ask_id = event.get("answers")
        if ask_id is None:
            return
        entry = self.asks.get(ask_id)
        if entry is None:
            raise missing("answers", f"no ask '{ask_id}' open at this table")
        ask = entry["event"]
        target = side_of(ask, by, event.get("character"))
        if target is None:
            raise Bad(event, "by", f"'{by['name']}' was not asked (ask {ask_id})")
        if key_of(target) in entry["answered"]:
            raise Bad(event, "answers", f"'{key_of(target)}' already answered ask {ask_id}")
        for field, stored, asked in (
                ("ruleset", event["ruleset"], ask["ruleset"]),
                ("label", event["label"], ask["label"]),
                ("mode", event["mode"], ask["roll_mode"]),
                ("options", event.get("options") or {}, ask.get("options") or {}),
                ("params", event.get("asked_params", event["params"]),
                 target.get("params") or ask["params"])):
            if stored != asked:
                raise Bad(event, field, f"an answer to ask {ask_id} is rolled as asked: "
                          f"{asked!r}, not {stored!r}")
        if target.get("character") and event.get("character") != target["character"]:
            raise Bad(event, "character", f"ask {ask_id} asked for '{target['character']}'")

    def answered(self, event, opened, missing):
        """An answer's side of its ask; once every side answered and none waits for a
        decision, the ask's verdict (the best margin among the successes wins an
        opposition, a tie is a draw; a cooperation takes the best roll)."""
        ask_id = event.get("answers")
        entry = self.asks.get(ask_id) if ask_id is not None else None
        expected = {}
        if entry is not None:
            ask = entry["event"]
            target = side_of(ask, event["by"], event.get("character"))
            if target is None:
                return  # (said by author)
            character = target.get("character") if opened is None else event.get("character")
            side = {"seat": target["seat"], "character": character, "seq": event["seq"],
                    "roll": event["roll"], "open": bool(event.get("open")),
                    "success": bool(event["result"].get("success")),
                    "margin": event["result"].get("margin", 0)}
            if isinstance(event["result"].get("label"), dict):
                side["label"] = event["result"]["label"]  # (its own result's words)
            answered = {**entry["answered"], key_of(target): side}
            if len(answered) == len(ask["to"]) and not any(s["open"] for s in answered.values()):
                del self.asks[ask_id]
                sides = [answered[key_of(t)] for t in ask["to"]]
                if ask.get("opposed"):
                    standing = [s for s in sides if s["success"]]
                    best = max((s["margin"] for s in standing), default=None)
                    top = [s for s in standing if s["margin"] == best]
                    won = top[0] if len(top) == 1 else None
                    expected["opposition"] = {
                        "ask": ask_id, "sides": sides, "draw": len(top) > 1,
                        "winner": won and won["seat"],
                        "winner_character": won and won["character"]}
                elif ask.get("cooperative"):
                    best = max(sides, key=lambda s: (s["success"], s["margin"]))
                    expected["cooperation"] = {"ask": ask_id, "sides": sides,
                                               "best": best["seat"],
                                               "best_character": best["character"],
                                               "success": best["success"],
                                               "margin": best["margin"]}
            else:
                entry["answered"] = answered
        elif ask_id is not None and opened is None:
            return
        for field in ("opposition", "cooperation"):
            # (A journal older than the sides' labels, or than the winner's character,
            # holds the same verdict without them.)
            forms = [expected.get(field)]
            if expected.get(field):
                unnamed = {k: v for k, v in expected[field].items()
                           if k not in ("winner_character", "best_character")}
                forms += [unnamed] + [{**form, "sides": [
                    {k: v for k, v in s.items() if k != "label"} for s in form["sides"]]}
                    for form in (expected[field], unnamed)]
            if event.get(field) not in forms:
                if entry is None:
                    raise missing(field, "its ask is not open here")
                raise Bad(event, field, f"its ask's answers give {expected.get(field)!r}")


def key_of(side):
    """How an ask's answers are keyed: by seat; a GM's NPC's side by its character."""
    return side["seat"] if side.get("seat") is not None else side["character"]


def side_of(ask, by, character):
    """The side of ``ask`` its answer by ``by`` fills: the seat's own; a GM's, the NPC
    side of the character it rolled as (``None``: not asked)."""
    if by.get("seat"):
        return next((t for t in ask["to"] if t["seat"] == by["name"]), None)
    if by.get("role") != "gm" or not character:
        return None
    return next((t for t in ask["to"] if t.get("seat") is None
                 and t.get("character") == character), None)


def spend(values, spent):
    """The values left after taking each amount spent from its field."""
    after = dict(values)
    for field, amount in spent.items():
        after[field] = after.get(field, 0) - amount
    return after


def decision(event, opened, drew, owner=None):
    """A decision keeps its roll, takes a choice it offered, by its roller, a GM, or —
    on a public roll made as a character — the seat that plays it (``owner``: that
    character's seat name now)."""
    for field in ("by", "ruleset", "params", "label", "mode", "answers"):
        if event.get(field) != opened.get(field):
            raise Bad(event, field, f"a decision keeps its roll's {field}")
    choice, reactor = event.get("choice"), event.get("reacted_by")
    if choice is None:
        # (A roll without a default, or whose default could not be taken: noted on it.)
        if reactor is not None or (opened.get("default") is not None and len(
                event.get("notes") or ()) != len(opened.get("notes") or ()) + 1):
            raise Bad(event, "choice", "only the server closes a roll with no choice, "
                      "when its time runs out: without a default, or noting why its "
                      "default could not be taken")
        if event["result"] != opened["result"] or event["dice"]:
            raise Bad(event, "result", "a roll closed when its time ran out keeps its "
                      "result as it stood and draws nothing")
        return
    offered = {c["name"]: c for c in opened.get("choices") or []}
    if choice not in offered:
        raise Bad(event, "choice", f"'{choice}' was not offered ({', '.join(offered)})")
    if reactor is None and choice != opened.get("default"):
        raise Bad(event, "choice", "the server takes the default when time runs out")
    if reactor is not None and reactor["role"] != "gm":
        if opened.get("mode") == "blind":  # its roller does not know how it fell
            raise Bad(event, "reacted_by", "only a GM decides a blind roll")
        roller = (reactor["name"], reactor.get("seat")) == (opened["by"]["name"],
                                                          opened["by"].get("seat"))
        plays = (opened.get("mode") == "public" and bool(reactor.get("seat"))
                 and owner is not None and owner == reactor["name"])
        if not (roller or plays):
            raise Bad(event, "reacted_by", "only the roller, a GM, or the character's "
                      "player on a public roll decides it")
        if offered[choice].get("gm") is True:
            raise Bad(event, "choice", f"only a GM takes '{choice}'")
    wanted = offered[choice].get("dice", 0)
    if drew is not None and wanted not in drew:
        raise Bad(event, "choice", f"'{choice}' draws {wanted} dice, this decision drew "
                  f"{min(drew)}")


def conventions(event):
    """The common result fields of the project's own rulesets agree with each other."""
    result = event["result"]
    if event["ruleset"] not in OWN_RULESETS or result.get("hidden"):
        return
    if result["success"] != (result["kind"] not in ("botch", "failure")):
        raise Bad(event, "result.success", f"{result['success']} with kind "
                  f"'{result['kind']}'")
    if not result["success"] and result["margin"] > -1:  # (docs/RULESETS.md)
        raise Bad(event, "result.margin", f"{result['margin']} for a failure (at most -1)")


EXPORT_LIMITS = ("what an export alone cannot show: events dropped from the end of an "
                 "epoch (its reveal renumbered), an event replaced by one that changes "
                 "nothing the rules read (a sheet set to its own values...), and each roll's "
                 "client seed (the server's word here) — the defense is the players' own "
                 "saved logs: this script on a player's log checks her rolls' client seed "
                 "and every roll she saw")


class OwnSeeds:
    """A client's log: whose it is (welcome.epoch.by; else the roller of the live copies
    answering its requests: they echo their id) and the client seed each welcome gave it. The server
    draws that member's dice with that seed; a roll of theirs with another was drawn with
    a seed the server chose."""

    def __init__(self, seen, welcomes, pages):
        self.spans = sorted((w["seq"], w["epoch"]["client"]) for w in welcomes
                            if isinstance(w.get("seq"), int)
                            and isinstance((w.get("epoch") or {}).get("client"), str))
        said = {(w["epoch"]["by"]["name"], w["epoch"]["by"]["role"]) for w in welcomes
                if isinstance((w.get("epoch") or {}).get("by"), dict)}
        roles = {w.get("role") for w in welcomes}
        owners = said or {(e["by"]["name"], e["by"]["role"]) for seq, e in seen.items()
                          if e["type"] == "outcome" and e.get("id") is not None
                          and not pages[seq] and e.get("reacts_to") is None
                          and e["by"]["role"] in roles}
        self.owner = owners.pop() if len(owners) == 1 else None

    def check(self, event, opened, report):
        proof = event.get("proof") or {}
        if (self.owner is None or not self.spans or "client" not in proof
                or (event["by"]["name"], event["by"]["role"]) != self.owner):
            return
        given = [client for at, client in self.spans if at < event["seq"]]
        if opened is not None and "client" in (opened.get("proof") or {}):
            given = [opened["proof"]["client"]]  # a decision draws with its roll's seed
        if not given:
            report.unchecked.append(str(Unchecked(
                event, "proof.client", "made before this log's first welcome: that "
                "connection's client seed is not in this file")))
        elif proof["client"] != given[-1]:
            raise Bad(event, "proof.client", f"drawn with the client seed "
                      f"{proof['client']!r}, not this log's own (welcome.epoch.client): the "
                      "server chose it")


def check(path):
    seen, welcomes, export, pages = read(path)
    epochs = Epochs(seen, welcomes)
    report, table, gap, previous = Report(), Table(), False, 0
    report.export = export
    report.unchecked.extend(epochs.unbound)
    seeds = OwnSeeds(seen, welcomes, pages)
    for seq in sorted(seen):
        event = seen[seq]
        gap = gap or seq != previous + 1  # events hidden from a log's reader
        previous = seq
        if event["type"] == "outcome" and event["result"] == {"hidden": True}:
            gap = True  # a blind roll's roller sees that it happened, not how
            continue
        drew = None
        if event["type"] == "outcome":
            opened = seen.get(event["reacts_to"]) if event.get("reacts_to") else None
            drew = check_proof(event, opened, epochs, report, export)
            seeds.check(event, opened, report)
            conventions(event)
        try:
            table.take(event, drew, gap)
        except Unchecked as why:
            report.unchecked.append(str(why))
    return report


def shown(text):
    """``text`` safe for a terminal: what comes from the file (a roll id, a name...) is
    printed with its control characters escaped (``\\x1b``, ``\\r``...), never obeyed."""
    return "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in str(text))


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[2].strip())
        return 2
    try:
        report = check(sys.argv[1])
    except OSError as exc:
        print(shown(f"cannot read {sys.argv[1]}: {exc.strerror}"))
        return 2
    except Bad as bad:
        print(shown(f"FAILED: {bad}"))
        return 1
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        print(shown(f"FAILED: malformed file ({exc!r})"))
        return 1
    if not (report.checked or report.waiting or report.manual or report.unchecked):
        print("FAILED: no verifiable roll in this file")
        return 1
    print(f"{report.checked} rolls checked" + (f", {report.manual} entered by hand"
                                               if report.manual else "")
          + (f", {report.waiting} wait for a reveal" if report.waiting else ""))
    print(NOT_RECOMPUTED)
    if report.export:
        print(EXPORT_LIMITS)
    if report.unchecked:
        print(f"NOT CHECKED ({len(report.unchecked)}):")
        for line in report.unchecked[:20]:
            print(f"  {shown(line)}")
    if report.waiting:
        return 3
    return 4 if report.unchecked else 0


if __name__ == "__main__":
    sys.exit(main())
