"""Whose characters a player plays: the one refusal for a character that is not theirs.

A seat plays the characters it owns, and no other. Naming a character that is not its own
gets one answer whether that character exists (the GM's secret NPC, another seat's
character) or not: two answers would let a seat list the GM's NPCs by guessing names.
The same rule holds for a decision on an open roll made as a character: the roller
decides it only while the character is still theirs (given to another seat, or removed,
it is no longer) — else its decision would spend from someone else's sheet. A GM decides
any roll.

A character's sheet events are read by the GMs and by its owner's seat — that seat, not
its name: a seat removed and added again under the same name is a new seat, which reads
none of the old one's sheet events (their values, the GM's ``reason``).
"""

from __future__ import annotations

from typing import Any

from sidecar.protocol.deciding import may_decide
from sidecar.protocol.errors import ProtocolError
from sidecar.stores.visible import identity
from sidecar.table.tables import Member, Table


def not_yours(name: str) -> ProtocolError:
    """The refusal of a character ``name`` the member may not play (existing or not)."""
    return ProtocolError(
        "forbidden", f"you have no character '{name[:64]}' at this table",
        fr=f"vous n'avez pas de personnage « {name[:64]} » à cette table",
        details={"field": "character"})


def check_decider(table: Table, member: Member, event: dict[str, Any]) -> None:
    """Refuse a player's decision on the open roll ``event`` when it was made as a
    character that is no longer theirs (checked before anything of the dice: the answer
    is the same whatever they showed)."""
    name = event.get("character")
    if name is None or member.role == "gm":
        return
    character = table.characters.get(name)
    if character is None or not member.seat or character.owner != member.name:
        raise not_yours(name)


def decides(table: Table, member: Member, event: dict[str, Any]) -> bool:
    """Whether ``member`` may decide the open roll ``event``: its roller, a GM, or the
    seat that plays the character it was made as, on a roll shown to that seat
    (:func:`sidecar.protocol.deciding.may_decide`, issue 29)."""
    name = event.get("character")
    character = table.characters.get(name) if name is not None else None
    return may_decide(role=member.role, mode=event["mode"],
                      roller=member.key == identity(event["by"]),
                      plays=(character is not None and bool(member.seat)
                             and character.owner == member.name))


def sheet_audience(table: Table, owner: str | None) -> str:
    """The identity role of the seat owning a character (``seat:<id>``, as
    :attr:`sidecar.table.tables.Member.key` has it) — the ``audience`` of its sheet events —, or
    ``""`` (the GMs only) when it has no owner or its owner no seat (a seat added later
    under that name is not the one the event was about)."""
    seat = table.seat_ids.get(owner) if owner else None
    return f"seat:{seat}" if seat else ""
