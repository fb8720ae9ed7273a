"""The sides of an ask and who answers each (PROTOCOL.md §7.5): a seat's side is its
seat's; a side naming a character no seat plays — a GM's NPC, ``{"seat": null,
"character": "Orc"}`` — is answered by any GM, as that character (issue 29 follow-up:
the evening's most common opposed roll is a PC against an NPC).

Shared by the table core and the journal's verifiers (``sidecar.tools.replay``), so
that both key and find a side alike."""

from __future__ import annotations

from typing import Any

from sidecar.protocol.errors import ProtocolError


def side_key(side: dict[str, Any]) -> str:
    """How ``answered`` keys a side: its seat; an NPC's side (no seat) by its character's
    name (names are unique across seats and characters: ``sidecar.table.names``)."""
    seat = side.get("seat")
    return seat if seat is not None else side["character"]


def is_npc(side: dict[str, Any]) -> bool:
    """Whether ``side`` is a GM's NPC's: a character no seat plays, answered by a GM."""
    return side.get("seat") is None and bool(side.get("character"))


def side_for(to: list[dict[str, Any]], name: str, *, gm: bool, seated: bool,
             character: str | None) -> dict[str, Any] | None:
    """The side of an ask (its ``to``) a member answers: a seat's own; for a GM, the NPC
    side of ``character`` — or, ``character`` unsaid, the ask's only NPC side; ``None``:
    no side is theirs. A GM who does not say which of several NPCs rolls is told to
    (``invalid_params``, ``details.field: "character"``)."""
    if seated:
        return next((side for side in to if side.get("seat") == name), None)
    if not gm:
        return None
    npcs = [side for side in to if is_npc(side)]
    if character is not None:
        return next((side for side in npcs if side["character"] == character), None)
    if len(npcs) > 1:
        names = ", ".join(side["character"] for side in npcs)
        raise ProtocolError(
            "invalid_params", f"this ask has several NPC sides ({names}): name the character "
            "who rolls", fr=f"cette demande a plusieurs PNJ ({names}) : nommez le "
            "personnage qui lance", details={"field": "character", "param": "character"})
    return npcs[0] if npcs else None
