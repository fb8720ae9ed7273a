"""A GM's export checked against a player's own saved log: what an export alone cannot show.

The holder of an epoch's revealed seed can rewrite an export consistently where no die
disagrees: drop the last events of an epoch, put a neutral event in a roll's place, draw a
roll again with a client seed of its choosing. A player's log holds what she was sent live
— the commitments, her client seed, every roll she saw — so every event of her log must be
in the export, at its seq, the same: the same kind of event, the same roll with the same
dice, result, mode, ruleset and proof.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sidecar.tools.verify import Bad, read_events
from sidecar.tools.words import said

#: What a player's copy of an outcome shares with the journal's event (its text is in her
#: language, its author without the seat's id).
SHARED = ("roll", "ruleset", "mode", "character", "reacts_to", "choice", "answers")
RESULT = ("success", "margin", "kind")


def _faces(event: dict[str, Any]) -> list[tuple[Any, Any]]:
    return [(d.get("sides"), d.get("face")) for d in event.get("dice") or []
            if isinstance(d, dict)]


def against(export: Iterable[dict[str, Any]], log: Iterable[dict[str, Any]]) -> int:
    """Raise :class:`Bad` at the first event of ``log`` (a player's saved log) that the
    ``export`` does not hold as she saw it; returns how many events were compared."""
    journal, _, _ = read_events(export)
    seen, welcomes, _ = read_events(log)
    commitments = {e["epoch"]["number"]: e["epoch"]["commitment"] for e in journal.values()
                   if e.get("type") == "epoch"}
    commitments.update({e["next"]["number"]: e["next"]["commitment"]
                        for e in journal.values()
                        if e.get("type") == "epoch" and e.get("next")})
    for welcome in welcomes:
        epoch = welcome.get("epoch") or {}
        if "number" in epoch and commitments.get(epoch["number"]) != epoch.get("commitment"):
            told = f"{str(epoch.get('commitment'))[:16]}…"
            raise Bad("welcome", said(f"the player was told epoch {epoch['number']}'s "
                                      f"commitment {told}, the export has another",
                                      f"le joueur a reçu l'engagement {told} de l'époque "
                                      f"{epoch['number']}, l'export en a un autre"),
                      field="epoch")
    for seq in sorted(seen):
        copy = seen[seq]
        event = journal.get(seq)
        roll = copy.get("roll")
        if event is None:
            raise Bad(seq, said("the player's log holds this event, the export does not",
                                "le journal du joueur a cet événement, l'export ne l'a pas"),
                      roll=roll, field="seq")
        if event.get("type") != copy.get("type"):
            raise Bad(seq, said(f"the player was sent a {copy.get('type')} here, the export "
                                f"has a {event.get('type')}", f"le joueur a reçu ici un "
                                f"{copy.get('type')}, l'export a un {event.get('type')}"),
                      roll=roll, field="type")
        if copy.get("type") == "epoch":
            for key in ("epoch", "next"):
                if (copy.get(key) or {}).get("commitment") != (event.get(key) or {}).get(
                        "commitment"):
                    raise Bad(seq, said("not the commitment the player was sent",
                                        "pas l'engagement que le joueur a reçu"), field=key)
        if copy.get("type") != "outcome":
            continue
        for key in SHARED:
            if copy.get(key) != event.get(key):
                raise Bad(seq, _saw(repr(str(copy.get(key))[:40])), roll=roll, field=key)
        if copy.get("result") == {"hidden": True}:
            continue  # (a blind roll's roller saw that it happened, not how)
        if _faces(copy) != _faces(event):
            raise Bad(seq, said(f"the player saw the dice {_faces(copy)}",
                                f"le joueur a vu les dés {_faces(copy)}"), roll=roll,
                      field="dice")
        for key in RESULT:
            if (copy.get("result") or {}).get(key) != (event.get("result") or {}).get(key):
                raise Bad(seq, _saw(repr((copy.get("result") or {}).get(key))),
                          roll=roll, field=f"result.{key}")
        mine, theirs = copy.get("proof") or {}, event.get("proof") or {}
        for key in ("manual", "epoch", "position", "client", "sides"):
            if mine.get(key) != theirs.get(key):
                sent = repr(str(mine.get(key))[:40])
                raise Bad(seq, said(f"the player was sent {sent}", f"le joueur a reçu {sent}"),
                          roll=roll, field=f"proof.{key}")
    return len(seen)


def _saw(value: str) -> str:
    """What the player saw where the export differs, in both languages."""
    return said(f"the player saw {value}", f"le joueur a vu {value}")
