"""Game sessions, turns and initiative: public events that count what lasts "for the
session" or "this turn", and the order the ruleset gives the characters."""

from __future__ import annotations

from typing import Any

from sidecar.host.sheets import Character, apply_delta
from sidecar.protocol.errors import ProtocolError
from sidecar.protocol.events import initiative_event, session_event, turn_event
from sidecar.protocol.messages import InitiativeRequest
from sidecar.table.basis import CoreBasis, no_character
from sidecar.table.effects import Pending, RollTicket
from sidecar.table.tables import Table


class Sessions(CoreBasis):
    """Sessions, turns and initiative."""

    def initiative_entries(self, table: Table, request: InitiativeRequest
                           ) -> tuple[str, list[dict[str, Any]]]:
        """The ruleset and the entries an initiative is asked for: known characters, all
        of one ruleset (``invalid_params`` otherwise)."""
        entries, rulesets = [], set()
        for given in request.characters:
            character = table.characters.get(given["character"])
            if character is None:
                raise no_character(given["character"])
            rulesets.add(character.ruleset)
            entries.append({**given, "sheet": character.copy_values()})
        if len(rulesets) != 1:
            raise ProtocolError("invalid_params", "an initiative orders characters of one "
                                "ruleset", fr="une initiative ordonne des personnages d'un "
                                "même jeu", details={"param": "characters"})
        return rulesets.pop(), entries

    def initiative(self, ticket: RollTicket, ruleset: str, request: InitiativeRequest,
                   answer: dict[str, Any]) -> Pending:
        """The initiative event (the caller holds the table's turn): the order, and what
        the claims spend, applied like a roll's spend, all or nothing."""
        table = ticket.table
        records: tuple[tuple[str, str, Any], ...] = ()
        sheet = self.catalogue.sheet_schema(ruleset)
        for name, amounts in answer["spend"].items():
            character = table.characters.get(name)
            if character is None:
                raise no_character(name)
            try:
                values, _ = apply_delta(sheet, character.values, amounts, sign=-1,
                                        where="spend")
            except ProtocolError as error:
                raise whose(error, name) from None
            after = Character(name, character.ruleset, character.owner, values,
                              acted=character.acted, notify=character.notify)
            records += (("character", name, after.to_record()),)
        event = initiative_event(
            **self._head(ticket), ruleset=ruleset, order=answer["order"],
            claims=[e["character"] for e in request.characters if e["claim"]],
            spent=answer["spend"], entries=[dict(e) for e in request.characters])
        # Who already acted this turn, for the GMs (never a refusal: « la plupart du
        # temps un personnage ne peut faire qu'une action par tour »).
        event["acted"] = [e["character"] for e in request.characters
                          if (c := table.characters.get(e["character"])) is not None
                          and c.acted == table.turns]
        return self._pending(ticket, event, records)

    def session_start(self, ticket: RollTicket) -> Pending:
        """The event of a new game session (the caller holds the table's turn): public,
        numbered after the last one; what lasts "for the session" starts over."""
        number = ticket.table.session + 1
        event = session_event(**self._head(ticket), number=number)
        return self._pending(ticket, event, (("session", "current", {"number": number}),))

    def turn_next(self, ticket: RollTicket) -> Pending:
        """The event of a new turn (a table-wide ``refill turn``; the caller holds the
        table's turn): public, a ``session`` event with ``op: "turn"``, numbered after the
        last turn; what lasts "this turn and the next" counts on it (``roll.turn``)."""
        number = ticket.table.turns + 1
        event = turn_event(**self._head(ticket), number=ticket.table.session, turn=number)
        # (one of a whole-table refill's events: the requester's answer is the list after)
        return self._pending(ticket, event, (("session", "turn", {"number": number}),),
                             echo=False)


def whose(error: ProtocolError, name: str) -> ProtocolError:
    """``error`` about one character of several (a claim its sheet cannot pay), said
    with its name first — « Aengus : pas assez de « Bonbonus (BB+) » … » — and
    ``details.character``: the GM who ordered the scene learns who cannot pay."""
    return ProtocolError(error.code, f"{name}: {error.message}",
                         fr=f"{name} : {error.message_fr or error.message}",
                         details={**(error.details or {}), "character": name})
