"""One name, one player (issue 29): a name that is both a seat and a character is allowed
only when that seat plays that character — then both mean the same player, and an ask to
the name is the character's. Else an ask ticking « Ervald (personnage de Tom) » went to
an empty seat Ervald (PROTOCOL.md §7.1, §7.2, §7.5)."""

from __future__ import annotations

from sidecar.protocol.errors import ProtocolError
from sidecar.protocol.text import elide
from sidecar.table.tables import Table


def refuse_seat_name(table: Table, name: str) -> None:
    """Refuse a new seat ``name`` that is a character another seat plays, or nobody."""
    character = table.characters.get(name)
    if character is None or character.owner == name:
        return
    if character.owner is None:
        fr_whose, en_whose = "personnage sans place (PNJ)", "character no seat plays (an NPC)"
    else:
        fr_whose = f"personnage {elide('de', character.owner)}"
        en_whose = f"character of {character.owner}'s"
    raise ProtocolError(
        "invalid_params", f"'{name}' is already the name of a {en_whose}: give the seat "
        "another name", fr=f"« {name} » est déjà le nom d'un {fr_whose} : donnez un autre "
        "nom à la place", details={"param": "name", "field": "name", "name": name})


def refuse_character_owner(table: Table, name: str, owner: str | None) -> None:
    """Refuse a character ``name`` (created, or given to ``owner``) that is a seat's name
    while another seat, or nobody, would play it."""
    if name not in table.seats or owner == name:
        return
    raise ProtocolError(
        "invalid_params", f"'{name}' is already the name of a seat: a character of that name "
        f"can only be that seat's own (owner '{name}'); give the character another name",
        fr=f"« {name} » est déjà le nom d'une place : un personnage de ce nom ne peut être "
           f"que le sien (joué par « {name} ») ; donnez un autre nom au personnage",
        details={"param": "character", "field": "character", "name": name})


def ambiguous(table: Table, name: str) -> bool:
    """Whether ``name`` is a seat and a character another seat (or nobody) plays: a clash
    an older server let a journal hold, which an ask may not resolve by a guess."""
    character = table.characters.get(name)
    return name in table.seats and character is not None and character.owner != name


def ambiguous_name(name: str) -> ProtocolError:
    """The refusal of an ask naming an :func:`ambiguous` name."""
    return ProtocolError(
        "invalid_params", f"'{name[:64]}' is ambiguous: both a seat and another player's "
        "character (an older server allowed it); rename the character or remove the seat",
        fr=f"« {name[:64]} » est ambigu : à la fois une place et le personnage d'un autre "
           "joueur (un serveur plus ancien l'a permis) ; renommez le personnage ou "
           "supprimez la place",
        details={"param": "to", "field": "to", "name": name[:64], "ambiguous": True})
