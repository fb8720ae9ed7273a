"""Open rolls: a roll whose ruleset offers choices after its dice waits for its roller
(or a GM) to decide, or for its time to run out (the default, else closed as it stands)."""

from __future__ import annotations

from sidecar.host.guard import deep_copy
from sidecar.host.pipeline import Resolution
from sidecar.model import Outcome, Roll
from sidecar.protocol.errors import ProtocolError, bad_field
from sidecar.protocol.messages import ReactRequest
from sidecar.table.basis import CoreBasis
from sidecar.table.effects import Pending, ReactTicket, RollTicket
from sidecar.table.ownership import check_decider
from sidecar.table.tables import Member, Table
from sidecar.table.targeting import target_copies
from sidecar.table.visibility import identity


class Decisions(CoreBasis):
    """Decisions on open rolls; the event is numbered as a roll's
    (:meth:`~sidecar.table.rolling.Rolling.number`)."""

    def begin_react(self, table: Table, member: Member | None, request: ReactRequest
                    ) -> ReactTicket:
        """Check a decision on an open roll: ``bad_message`` for an unknown or closed roll
        or an unknown choice, ``forbidden`` for someone else's roll (GMs decide any), a
        roll made as a character no longer the player's, or a player taking a choice
        marked ``gm: true``,
        ``bad_dice`` for manual faces that are not the choice's count. ``member`` ``None``:
        the server itself, taking the default when nobody decided in time."""
        event = table.open_rolls.get(request.roll)
        if event is None or (member is not None and member.role != "gm"
                             and event["mode"] == "blind"):
            # A GM decides a blind roll; anyone else is answered as for a closed roll,
            # before anything else is looked at: whether it is open tells how the dice
            # went (contract §7, 1.2).
            raise bad_field("roll", "no open roll of that id at this table that you may "
                            "decide (unknown, already decided, or blind: a GM decides)",
                            fr="pas de jet ouvert de cet identifiant à cette table que vous "
                               "puissiez décider (inconnu, déjà décidé, ou à l'aveugle : "
                               "le MJ décide)")
        if member is not None:
            if member.role != "gm" and member.key != identity(event["by"]):
                raise ProtocolError("forbidden", "only the roller or a GM decides on a roll",
                                    fr="seuls l'auteur du jet ou un MJ décident d'un jet",
                                    details={"field": "roll"})
            check_decider(table, member, event)
            if request.dice is not None and member.role != "gm" \
                    and not self.config.allow_player_dice:
                raise ProtocolError(
                    "forbidden", "only the GM may enter physical dice on this server",
                    fr="seul le MJ peut saisir des dés physiques sur ce serveur",
                    details={"field": "dice"})
        choice = next((c for c in event["choices"] if c["name"] == request.choice), None)
        if choice is None:
            known = ", ".join(c["name"] for c in event["choices"])
            raise bad_field("choice", f"not offered by this roll (offered: {known})",
                            fr=f"n'est pas proposé par ce jet (proposés : {known})")
        if choice.get("gm") is True and member is not None and member.role != "gm":
            # (extension) A choice marked ``gm`` is the GM's decision alone (the ladder's
            # « réussi, mais… »): the roller may not take it; the default still is, in time.
            raise ProtocolError("forbidden", "only a GM may take this choice",
                                fr="seul un MJ peut prendre ce choix",
                                details={"field": "choice"})
        wanted = choice.get("dice", 0)
        if request.dice is not None and len(request.dice) != wanted:
            raise ProtocolError(
                "bad_dice", f"this choice draws {wanted} dice, {len(request.dice)} were given",
                fr=f"ce choix tire {wanted} dés, {len(request.dice)} donnés",
                details={"expected": wanted, "given": len(request.dice)})
        key = None
        request_id = None
        if member is not None and member.key == identity(event["by"]):
            # Stored with the event only when the roller decides: the journal's request ids
            # are per roller, and a GM's id could collide with one of the roller's.
            request_id = request.id
            key = self.request_key(member, request.id)
        return ReactTicket(table, member, event, request.choice, request.dice, request.id,
                           request_id, key)

    def reopen(self, ticket: ReactTicket) -> tuple[RollTicket, Roll, Outcome]:
        """The roll and open outcome a decision is taken on, as the hooks see them (the
        caller holds the table's turn: the sheet is read now)."""
        event = ticket.event
        roll = Roll(ruleset=event["ruleset"], params=deep_copy(event["params"]),
                    options=deep_copy(event.get("options") or {}), table=event["table"],
                    by=dict(event["by"]), label=event["label"], mode=event["mode"],
                    manual=ticket.dice is not None, character=event.get("character"),
                    session=ticket.table.session, turn=ticket.table.turns,
                    asked="answers" in event)
        character = ticket.table.characters.get(roll.character) if roll.character else None
        if character is not None:
            roll.sheet = character.copy_values()
        elif roll.character is not None:
            roll.character = None  # the character was removed meanwhile: nothing to spend
        if event.get("targets"):
            # Targets are not locked: the decision's effects apply to the values they have
            # now (contract §8); one removed meanwhile is no longer a target.
            roll.targets = target_copies(ticket.table, event["targets"])
        outcome = Outcome(result=deep_copy(event["result"]), dice=deep_copy(event["dice"]),
                          notes=list(event["notes"]), applied=list(event["applied"]),
                          choices=deep_copy(event["choices"]), default=event.get("default"))
        member = ticket.member
        reactor = member if member is not None else Member(
            name=event["by"]["name"], role=event["by"]["role"],
            seat=str(event["by"].get("seat") or ""))
        return (RollTicket(ticket.table, reactor, roll, ticket.request_id, ticket.key,
                           answers=event.get("answers")),
                roll, outcome)

    def close_open_roll(self, table: Table, roll_id: str) -> Pending:
        """The event that closes an open roll without a default whose time ran out: its
        result as it stands, no choice taken (the caller holds the table's turn)."""
        event = table.open_rolls[roll_id]
        # (no choice taken: ``choice`` is None in its event)
        react = ReactTicket(table, None, event, None, None, None, None, None)
        ticket, roll, outcome = self.reopen(react)
        outcome.choices = outcome.default = None
        outcome.dice = []
        text = {locale: f"{event['text'][locale]} — "
                        f"{'temps écoulé' if locale == 'fr' else 'time is up'}"
                for locale in ("fr", "en")}
        resolution = Resolution(roll=roll, outcome=outcome, text=text, state=table.state)
        return self.number(ticket, resolution, reaction=react)
