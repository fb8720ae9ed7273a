"""Checking verifiable dice: an ``export`` or a client's saved log, event by event.

:func:`check` reads events in order (raw journal events of ``sidecar export``, or the
messages a client received: ``welcome``, ``epoch``, ``outcome``, ``history`` pages) and
stops at the first one that does not check, naming its ``seq``:

- events are in strictly increasing ``seq`` order (a client's log may hold an event
  again, from a history page: it must be the same one);
- an epoch's revealed seed hashes to the commitment announced before its rolls
  (the Merkle root of :mod:`sidecar.provable`);
- an export's seqs are 1, 2, 3… with none missing;
- each verifiable roll names that commitment and its position is its seq after the event
  that opened the epoch, and its dice are those the derivation gives (from the seed, or
  from the roll's own leaf key and path to the commitment, which a player's log holds);
- with ``rerun``, the ruleset (when its plugin is installed) resolves the same faces to
  the same result.

Manual dice are counted, not checked (a person entered them: the proof names who).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from sidecar.provable import faces_of, leaf_key, root_from_path, tree


class Bad(Exception):
    """The first event that does not check."""

    def __init__(self, seq: Any, why: str) -> None:
        super().__init__(f"seq {seq}: {why}")
        self.seq, self.why = seq, why


@dataclass
class Report:
    """What a check found: rolls checked, manual rolls, rolls whose epoch is not revealed
    yet, results re-run by their ruleset."""

    checked: int = 0
    manual: int = 0
    waiting: list[Any] = field(default_factory=list)
    rerun: int = 0
    epochs: set[int] = field(default_factory=set)


#: Marks the events that came in a ``history`` page (see :func:`events_of`).
PAGE = "_from_history"


def events_of(lines: Iterable[str]) -> Iterator[dict[str, Any]]:
    """The events of a JSON Lines file: one event (or message) per line; a ``history``
    page stands for its events. Every journaled event (one with a ``seq``: seats, sheets,
    asks… too) is kept, since each takes its place in the epoch's positions; messages
    without one (presence, errors…) are skipped."""
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            message = json.loads(line)
        except ValueError:
            raise Bad(f"? (line {number})", "not JSON") from None
        if not isinstance(message, dict):
            raise Bad(f"? (line {number})", "not an event")
        if message.get("type") == "history":
            for event in message.get("events", []):
                yield {**event, PAGE: True}
        elif message.get("type") == "welcome" or isinstance(message.get("seq"), int):
            yield message


def _subsequence(drawn: list[tuple[int, int]], dice: list[Any]) -> bool:
    """Whether the dice drawn appear, in order, among the dice the event shows (a
    decision shows the open roll's dice before its own)."""
    shown = iter((d.get("sides"), d.get("face")) for d in dice if isinstance(d, dict))
    return all(any(die == other for other in shown) for die in drawn)


def check(events: Iterable[dict[str, Any]], *,
          rerun: Callable[[dict[str, Any], list[int]], dict[str, Any] | None] | None = None
          ) -> Report:
    """Check ``events`` in order; raises :class:`Bad` at the first that does not check.

    ``rerun(event, faces)``: the ruleset's result for those faces (``None`` when it
    cannot be re-run here)."""
    report = Report()
    commitments: dict[int, str] = {}  # epoch → commitment announced
    seeds: dict[int, bytes] = {}
    bases: dict[int, int] = {}  # epoch → the seq of the event that opened it
    rolls: list[dict[str, Any]] = []
    seen: dict[int, dict[str, Any]] = {}
    last = 0
    for event in events:
        kind = event.get("type")
        if kind == "welcome":
            epoch = event.get("epoch")
            if epoch:
                commitments.setdefault(epoch["number"], epoch["commitment"])
            continue
        seq = event.get("seq")
        if not isinstance(seq, int):
            raise Bad(seq, "no seq")
        if seq in seen:
            # A client's log holds some events twice (live, then in a history page
            # that adds each roll's key after the reveal): the same event, or forged.
            first = seen[seq]
            if (first.get("type"), first.get("roll")) != (kind, event.get("roll")):
                raise Bad(seq, "two different events have this seq")
            if "key" in (event.get("proof") or {}):
                first["proof"] = event["proof"]
            continue
        if not event.get(PAGE):
            # Lines of an export, live messages of a log: in seq order (a history page
            # may bring back earlier events a client did not receive live).
            if seq <= last:
                raise Bad(seq, f"out of order (after seq {last})")
            last = seq
        seen[seq] = dict(event)
    outcomes = [e for e in seen.values() if e.get("type") == "outcome"]
    if outcomes and all(isinstance(e.get("text"), dict) for e in outcomes):
        # An export (its outcomes keep both languages' texts) holds every event: seqs
        # 1, 2, 3… with none missing (a missing one could hide a roll drawn and dropped).
        for expected, seq in enumerate(sorted(seen), 1):
            if seq != expected:
                raise Bad(seq, f"seq {expected} is missing before it")
    for seq in sorted(seen):
        event = seen[seq]
        kind = event.get("type")
        if kind == "epoch":
            number, commitment = event["epoch"]["number"], event["epoch"]["commitment"]
            if commitments.setdefault(number, commitment) != commitment:
                raise Bad(seq, f"epoch {number} changed its commitment")
            if event.get("op") == "start":
                bases.setdefault(number, seq)
            if event.get("op") == "reveal":
                nxt = event.get("next")
                if nxt:
                    commitments.setdefault(nxt["number"], nxt["commitment"])
                    bases.setdefault(nxt["number"], seq)
                if "seed" in event:
                    seed = bytes.fromhex(event["seed"])
                    if tree(seed).root != commitment:
                        raise Bad(seq, f"the seed of epoch {number} is not the one committed")
                    seeds[number] = seed
            continue
        proof = event.get("proof")
        if kind != "outcome" or proof is None:
            continue
        if proof.get("manual"):
            report.manual += 1
            continue
        number, position = proof["epoch"], proof["position"]
        if commitments.setdefault(number, proof["commitment"]) != proof["commitment"]:
            raise Bad(seq, f"not the commitment of epoch {number}")
        # A position is the roll's seq after the event that opened its epoch: the server
        # cannot pass one over to draw other faces, nor use one twice.
        if bases.setdefault(number, seq - position - 1) != seq - position - 1:
            raise Bad(seq, f"position {position} is not this event's place in epoch {number}")
        rolls.append(event)
    # Seeds are revealed after the rolls: faces are checked once every seed is known.
    for event in rolls:
        proof = event["proof"]
        number, position = proof["epoch"], proof["position"]
        seed = seeds.get(number)
        if seed is not None:
            key = leaf_key(seed, position)
        elif "key" in proof:
            key = bytes.fromhex(proof["key"])
            if root_from_path(key, position, proof.get("path", [])) != commitments[number]:
                raise Bad(event["seq"], "its key does not lead to the epoch's commitment")
        else:
            report.waiting.append(event["seq"])
            continue
        faces = faces_of(key, str(proof["client"]), position, list(proof["sides"]))
        drawn = list(zip(proof["sides"], faces, strict=True))
        if not _subsequence(drawn, event.get("dice", [])):
            raise Bad(event["seq"], "its dice are not the ones derived")
        if rerun is not None:
            result = rerun(event, [face for _, face in drawn])
            if result is not None:
                if result != event.get("result"):
                    raise Bad(event["seq"], "its ruleset gives another result for these dice")
                report.rerun += 1
        report.checked += 1
        report.epochs.add(number)
    return report


def ruleset_rerun() -> Callable[[dict[str, Any], list[int]], dict[str, Any] | None]:
    """Re-run the installed rulesets on a roll's faces: a plain roll (no decision, no
    character, no extension that changed it) is resolved again with its faces entered as
    manual dice; its result must be the one stored."""
    import asyncio

    from sidecar.pipeline import RollPipeline
    from sidecar.plugins import default_host
    from sidecar.protocol.errors import ProtocolError

    pipeline = RollPipeline(default_host())

    def rerun(event: dict[str, Any], faces: list[int]) -> dict[str, Any] | None:
        if (event.get("reacts_to") is not None or event.get("character")
                or event.get("applied") or event.get("open")
                or event.get("ruleset") not in pipeline.host.rulesets):
            return None
        try:
            roll = pipeline.prepare(event["ruleset"], dict(event.get("params") or {}),
                                    options=event.get("options") or {})
            resolution = asyncio.run(pipeline.run(roll, dice=faces, table_state={}))
        except ProtocolError as error:
            return {"error": error.code}
        return resolution.outcome.result

    return rerun
