#!/usr/bin/env python3
"""Check a vtt-sidecar table's dice yourself, with nothing but Python's standard library.

    python3 verify_dice.py export.jsonl        # from `sidecar export`, or a saved log

Written from protocol/PROTOCOL.md ("Dice anyone can check") alone, without importing the
sidecar, so that a sceptical player can read all of it. Exit 0: every roll that can be
checked checks; 1: the first bad event, named by its seq; 3: nothing bad, but some rolls
wait for their epoch's reveal.

What it checks, in order:
1. seqs strictly increase (no line moved); an export's are 1, 2, 3… (none removed);
2. a revealed seed is the one committed: the Merkle root of its leaves is the commitment
   announced before the epoch's first roll;
3. each roll names its epoch's commitment, and its position is its seq after the event
   that opened the epoch (no position passed over, none used twice);
4. its faces are those the derivation gives, from the seed (an export, a GM's log) or
   from the roll's own key and Merkle path (a player's log: players never get the seed).
"""

import hashlib
import hmac
import json
import sys

DEPTH = 12  # 4096 positions (rolls) per epoch


def leaf_key(seed, position):
    return hmac.digest(seed, b"sidecar-leaf" + position.to_bytes(4, "big"), "sha256")


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


def check(path):
    commitments, seeds, rolls, seen, last_seq = {}, {}, [], {}, 0
    for event, from_page in events(path):
        if event["type"] == "welcome":
            if event.get("epoch"):
                commitments.setdefault(event["epoch"]["number"], event["epoch"]["commitment"])
            continue
        seq = event["seq"]
        if seq in seen:
            # A player's log has events twice: live, then from a history page that adds
            # each roll's key after the reveal. It must be the same event.
            first = seen[seq]
            if (first["type"], first.get("roll")) != (event["type"], event.get("roll")):
                raise Bad(f"seq {seq}: two different events have this seq")
            if "key" in (event.get("proof") or {}):
                first["proof"] = event["proof"]
            continue
        if not from_page:  # a history page may bring back events missed live
            if seq <= last_seq:
                raise Bad(f"seq {seq}: out of order (after seq {last_seq})")
            last_seq = seq
        seen[seq] = event
    outcomes = [e for e in seen.values() if e["type"] == "outcome"]
    if outcomes and all(isinstance(e.get("text"), dict) for e in outcomes):
        # An export (its outcomes keep the texts of both languages) holds every event:
        # seqs 1, 2, 3… with none missing.
        for expected, seq in enumerate(sorted(seen), 1):
            if seq != expected:
                raise Bad(f"seq {seq}: seq {expected} is missing before it")
    bases = {}  # epoch -> the seq of the event that opened it
    for seq in sorted(seen):
        event = seen[seq]
        if event["type"] == "epoch":
            number, commitment = event["epoch"]["number"], event["epoch"]["commitment"]
            if commitments.setdefault(number, commitment) != commitment:
                raise Bad(f"seq {seq}: epoch {number} changed its commitment")
            if event["op"] == "start":
                bases.setdefault(number, seq)
            if event["op"] == "reveal":
                if event.get("next"):  # none when the server stopped
                    commitments.setdefault(event["next"]["number"], event["next"]["commitment"])
                    bases.setdefault(event["next"]["number"], seq)
                if "seed" in event:
                    seed = bytes.fromhex(event["seed"])
                    if merkle_root(seed) != commitment:
                        raise Bad(f"seq {seq}: the seed of epoch {number} was not committed")
                    seeds[number] = seed
            continue
        proof = event.get("proof")
        if event["type"] != "outcome" or not proof or proof.get("manual"):
            continue
        number, position = proof["epoch"], proof["position"]
        if commitments.setdefault(number, proof["commitment"]) != proof["commitment"]:
            raise Bad(f"seq {seq}: not the commitment of epoch {number}")
        # The position is the roll's seq after the event that opened the epoch.
        if bases.setdefault(number, seq - position - 1) != seq - position - 1:
            raise Bad(f"seq {seq}: position {position} is not its place in epoch {number}")
        rolls.append(event)
    checked, waiting = 0, 0
    for event in rolls:
        proof = event["proof"]
        number, position = proof["epoch"], proof["position"]
        if number in seeds:
            key = leaf_key(seeds[number], position)
        elif "key" in proof:
            key = bytes.fromhex(proof["key"])
            if root_from_path(key, position, proof["path"]) != commitments[number]:
                raise Bad(f"seq {event['seq']}: its key is not under the commitment")
        else:
            waiting += 1
            continue
        derived = faces(key, proof["client"], position, proof["sides"])
        drawn = list(zip(proof["sides"], derived, strict=True))
        # The drawn dice appear in this order among the dice shown (a decision on an
        # open roll shows that roll's dice first).
        shown = iter((d["sides"], d["face"]) for d in event["dice"])
        if not all(any(die == other for other in shown) for die in drawn):
            raise Bad(f"seq {event['seq']}: its dice are not the ones derived")
        checked += 1
    return checked, waiting


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[2].strip())
        return 2
    try:
        checked, waiting = check(sys.argv[1])
    except OSError as exc:
        print(f"cannot read {sys.argv[1]}: {exc.strerror}")
        return 2
    except Bad as bad:
        print(f"FAILED: {bad}")
        return 1
    except (KeyError, TypeError, ValueError) as exc:
        print(f"FAILED: malformed file ({exc!r})")
        return 1
    if not checked and not waiting:
        print("FAILED: no verifiable roll in this file")
        return 1
    print(f"{checked} rolls checked" + (f", {waiting} wait for a reveal" if waiting else ""))
    return 3 if waiting else 0


if __name__ == "__main__":
    sys.exit(main())
