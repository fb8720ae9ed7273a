"""Open rolls: a roll whose ruleset offers choices after its dice waits for its roller
(or a GM) to decide, or for its time to run out (the default, else closed as it stands)."""

from __future__ import annotations

from typing import Any

from sidecar.host.guard import deep_copy
from sidecar.host.pipeline import Resolution
from sidecar.model import Outcome, Roll, label
from sidecar.protocol.errors import ProtocolError, bad_field
from sidecar.protocol.messages import ReactRequest
from sidecar.protocol.text import dice_words, given_words
from sidecar.table.basis import CoreBasis
from sidecar.table.effects import Pending, ReactTicket, RollTicket
from sidecar.table.ownership import check_decider, decides
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
            if not decides(table, member, event):
                raise ProtocolError(
                    "forbidden", "only the roller, a GM, or the character's player on a "
                    "public roll decides it", fr="seuls l'auteur du jet, un MJ ou, sur un jet "
                    "public, le joueur du personnage le décident", details={"field": "roll"})
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
            refused = bad_field("choice", f"not offered by this roll (offered: {known})",
                                fr=f"n'est pas proposé par ce jet (proposés : {known})")
            # (extension) The names offered, in order: a client that numbered them (the
            # CLI's « 2) Garder ») maps the number a person typed to its name.
            refused.details["offered"] = [c["name"] for c in event["choices"]]
            raise refused
        if choice.get("gm") is True and member is not None and member.role != "gm":
            # (extension) A choice marked ``gm`` is the GM's decision alone (the ladder's
            # « réussi, mais… »): the roller may not take it; the default still is, in time.
            raise ProtocolError("forbidden", "only a GM may take this choice",
                                fr="seul un MJ peut prendre ce choix",
                                details={"field": "choice"})
        wanted = choice.get("dice", 0)
        if request.dice is not None and len(request.dice) != wanted:
            draws, given = dice_words(wanted), given_words(len(request.dice))
            raise ProtocolError(
                "bad_dice", f"this choice draws {draws[1]}, {given[1]}",
                fr=f"ce choix tire {draws[0]}, {given[0]}",
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
        removed = []
        if character is not None:
            roll.sheet = character.copy_values()
        elif roll.character is not None:
            removed.append(roll.character)
            roll.character = None  # the character was removed meanwhile: nothing to spend
        if event.get("targets"):
            # Targets are not locked: the decision's effects apply to the values they have
            # now (contract §8); one removed meanwhile is no longer a target, and the hooks
            # are told (``roll.removed``) so as to decide on what is left.
            roll.targets = target_copies(ticket.table, event["targets"])
            removed += [name for name in event["targets"] if name not in roll.targets]
        roll.removed = tuple(removed)
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

    def close_open_roll(self, table: Table, roll_id: str,
                        failed: ProtocolError | bool | None = None) -> Pending:
        """The event that closes an open roll whose time ran out with no choice taken: its
        result as it stands (the caller holds the table's turn). ``failed``: its default
        could not be taken (a refusal, a plugin's failure, a target removed meanwhile),
        noted on the outcome — else the roll would stay open for good, and its character
        could never roll again (one open roll per character, contract §8)."""
        event = table.open_rolls[roll_id]
        # (no choice taken: ``choice`` is None in its event)
        react = ReactTicket(table, None, event, None, None, None, None, None)
        ticket, roll, outcome = self.reopen(react)
        outcome.choices = outcome.default = None
        outcome.dice = []
        if failed:
            outcome.notes.append(_default_failed(event, failed))
        fr = "temps écoulé" if not failed else "temps écoulé, clos tel quel"
        en = "time is up" if not failed else "time is up, closed as it stands"
        text = {locale: f"{event['text'][locale]} — {fr if locale == 'fr' else en}"
                for locale in ("fr", "en")}
        resolution = Resolution(roll=roll, outcome=outcome, text=text, state=table.state)
        return self.number(ticket, resolution, reaction=react)


def _default_failed(event: dict[str, Any], failed: ProtocolError | bool) -> dict[str, str]:
    """The note of a roll closed because its default could not be taken: the choice by
    its label (its key is no word for people, issue 29), why by its error code only (a
    refusal's message may name what the roller must not read)."""
    default = event.get("default")
    named = next((c.get("label") for c in event.get("choices") or ()
                  if c.get("name") == default), None)
    if isinstance(named, dict):
        fr, en = named.get("fr") or default, named.get("en") or default
    else:
        fr = en = named if isinstance(named, str) else default
    code = f" ({failed.code})" if isinstance(failed, ProtocolError) else ""
    return label(f"Le choix par défaut « {fr} » n'a pas pu être pris{code} (refus ou "
                 "erreur du jeu de règles, cible retirée…) : le jet est clos tel quel.",
                 f"The default choice '{en}' could not be taken{code} (a refusal or "
                 "a ruleset's error, a target removed…): the roll is closed as it stands.")
