"""Rolling: a roll request checked and prepared, then its resolution numbered as the
table's next event (what it spends of its character, what it answers of an ask)."""

from __future__ import annotations

import logging
import secrets
from types import MappingProxyType
from typing import Any

from sidecar.dice.sources import ProvableDice
from sidecar.host.guard import choices_problem
from sidecar.host.pipeline import Resolution
from sidecar.host.sheets import Character, apply_delta
from sidecar.host.spending import taken_as_far_as_held, unpaid_note
from sidecar.model import Roll
from sidecar.protocol.errors import ProtocolError
from sidecar.protocol.events import outcome_details, outcome_event
from sidecar.protocol.manual import decision_typed
from sidecar.protocol.messages import OddsRequest, RollRequest
from sidecar.protocol.replies import odds_message
from sidecar.protocol.text import elide
from sidecar.table.effects import CLOSE_POLICY, Pending, ReactTicket, RollTicket
from sidecar.table.limits import check_event_size, check_strings
from sidecar.table.ownership import sheet_audience
from sidecar.table.tables import Member, Table
from sidecar.table.targeting import (
    Targeting,
    check_targets,
    readable_targets,
    refuse_if_open,
    target_copies,
)
from sidecar.table.visibility import FULL, audience, identity, view

log = logging.getLogger("sidecar.core")


class Rolling(Targeting):
    """A roll from its request to its numbered event. An answer to an ask is checked and
    recorded by :class:`~sidecar.table.asks.Asks` (``_answering``, ``answer_record``)."""

    def begin_roll(self, table: Table, member: Member, request: RollRequest) -> RollTicket:
        """Check that ``member`` may make this roll and prepare it (params validated)."""
        if member.role == "observer":
            raise ProtocolError("forbidden", "observers cannot roll",
                                fr="les observateurs ne peuvent pas lancer de dés")
        if request.dice is not None and member.role != "gm" and not self.config.allow_player_dice:
            raise ProtocolError(
                "forbidden", "only the GM may enter physical dice on this server",
                fr="seul le MJ peut saisir des dés physiques sur ce serveur",
                details={"field": "dice"})
        check_strings(request.params, request.options, self.config.max_string_chars)
        if request.answers is not None:
            request = self._answering(table, member, request)
        if request.targets:
            self._check_targets(table, request.targets, request.character, request.mode)
        if request.character is not None:
            self._character_for(table, member, request.character, request.ruleset)
            refuse_if_open(table, request.character, member)
            if request.mode == "self":
                # The GMs keep the sheets: a spend no GM could see would leave them values
                # their history of the character does not add up to.
                # (The modes as the page names them, strings.js mode.self/mode.gm.)
                raise ProtocolError(
                    "invalid_params", "a roll as a character cannot be \"Only me\": the GMs "
                    "see what it spends (\"Me and the GM\" keeps it from the other players)",
                    fr="un jet en tant que personnage ne peut pas être « Moi seul » : les MJ "
                       "voient ce qu'il dépense (« Moi et le MJ » le cache aux autres "
                       "joueurs)",
                    details={"param": "mode", "field": "mode"})
        roll = self.preparer.prepare(
            request.ruleset, request.params, options=request.options, table=table.name,
            by=member.by, label=request.label, mode=request.mode,
            manual=request.dice is not None)
        roll.character = request.character
        roll.session, roll.turn = table.session, table.turns
        roll.asked = request.answers is not None  # (its params are the GM's ask's)
        return RollTicket(table, member, roll, request.id, self.request_key(member, request.id),
                          answers=request.answers, targets=request.targets)

    @staticmethod
    def _check_targets(table: Table, targets: tuple[str, ...], character: str | None,
                       mode: str) -> None:
        """Refuse, before any die, targets that are not characters of the table, the
        roller's own character among them, or a ``self`` roll: its effects would change
        sheets no GM sees change."""
        check_targets(table, targets)
        if character is not None and character in targets:
            raise ProtocolError(
                "invalid_params", "a character is not its own target",
                fr="un personnage n'est pas sa propre cible",
                details={"param": "targets", "field": "targets"})
        if mode == "self":
            raise ProtocolError(
                "invalid_params", "a roll aimed at characters cannot be 'self': the GMs see "
                "what it does to them", fr="un jet qui vise des personnages ne peut pas être "
                "« self » : les MJ voient ce qu'il leur fait",
                details={"param": "mode", "field": "mode"})

    def attach_sheet(self, ticket: RollTicket) -> None:
        """Give the roll its character's values, as they are now (the caller holds the
        table's turn: no other event changes them until this roll is committed)."""
        roll = ticket.roll
        if roll is None:
            return
        if ticket.targets:
            # (checked again: one may have been removed while the roll waited its turn)
            check_targets(ticket.table, ticket.targets)
            roll.targets = target_copies(ticket.table, ticket.targets)
        if roll.character is None:
            return
        character = self._character_for(ticket.table, ticket.member, roll.character,
                                        roll.ruleset)
        # Checked in the table's turn: two rolls as one character sent together would
        # both pass the check made on arrival.
        refuse_if_open(ticket.table, roll.character, ticket.member)
        # Read-only, not a copy (on every roll as a character): a character's values are
        # never changed in place (each change makes new ones), and a third-party plugin
        # works on the guard's own deep copy anyway.
        roll.sheet = MappingProxyType(character.values)

    @staticmethod
    def _seat_gone() -> ProtocolError:
        return ProtocolError("forbidden", "your seat was removed or given a new link",
                             fr="votre place a été supprimée ou a reçu un nouveau lien",
                             close=CLOSE_POLICY)

    @staticmethod
    def repeat(member: Member, event: dict[str, Any]) -> dict[str, Any]:
        """The answer to a request id already resolved: its original outcome, as
        ``member`` may see it, marked ``duplicate``."""
        message = view(event, member, duplicate=True)
        assert message is not None, "a member always sees their own roll"
        return message

    def number(self, ticket: RollTicket, resolution: Resolution, *, now: float = 0.0,
               reaction: ReactTicket | None = None,
               source: ProvableDice | None = None, manual: bool = False,
               asked: dict[str, Any] | None = None) -> Pending:
        """The journal event of a resolved roll, numbered after the table's committed seq.

        Nothing about the table changes until :meth:`commit`. The caller holds
        ``table.turn`` from here to commit or abandon. An event larger than
        ``max_event_bytes`` is refused here (``too_large``), before anything is counted.
        ``now`` (seconds since the epoch) dates an open roll's expiry; ``reaction``: the
        event is the decision taken on that open roll. ``source``: the verifiable dice it
        drew (its proof is stored with it, and the epoch's next position); ``manual``: its
        faces were entered by the requester (marked so, with who, when dice are provable);
        ``asked``: the params as requested, kept as ``asked_params`` when extensions
        changed them (a verifier re-runs the roll from them).
        """
        table = ticket.table
        if ticket.member.gone:
            # Its seat was removed or re-keyed while this roll waited for the table's turn.
            raise self._seat_gone()
        roll, outcome = resolution.roll, resolution.outcome
        records: tuple[tuple[str, str, Any], ...] = ()
        character = table.characters.get(roll.character) if roll.character else None
        spent: dict[str, int] = {}
        sheet = None
        if character is not None:
            # Faces drawn: the outcome is journaled whatever its spend (sidecar.host.spending).
            spent, records = self._spend(character, roll, outcome.spend,
                                         sheet_audience(table, character.owner),
                                         notes=outcome.notes if resolution.drawn else None)
            # The values the roll leaves: its own record's, when it writes one (a roll
            # that spends nothing writes none; the ask's record may follow either way).
            sheet = records[0][2]["values"] if records else character.values
            if reaction is None and character.acted != table.turns:
                # Acted this turn (the GMs see it): kept with the character's record.
                if records:
                    records[0][2]["acted"] = table.turns
                else:
                    records = (("character", character.name,
                                {**character.to_record(), "acted": table.turns}),)
        targeted = None
        if roll.targets or outcome.effects:
            # (one test on the path of a roll without targets)
            applied, target_sheets, changed, notices = self.apply_effects(
                table, roll, outcome.effects, table.seq + 1)
            records += changed
            targeted = (list(roll.targets), applied, target_sheets, tuple(notices))
        roll_id = reaction.roll_id if reaction is not None else secrets.token_hex(8)
        opposition = cooperation = None
        if ticket.answers is not None:
            answer, opposition, cooperation = self.answer_record(ticket, resolution, roll_id,
                                                                 reaction)
            records += answer
        proof = None
        if source is not None:
            proof = {**source.proof, "sides": [die["sides"] for die in source.rolled]}
            if table.epoch is not None and table.epoch.counted:
                # Its position is used: the next roll draws at the next one.
                records += (("epoch", "current", {**table.epoch.record(),
                                                  "drawn": proof["position"] + 1}),)
        entered = None
        if manual:
            # Who typed the faces: in a provable table's proof, else in the event itself
            # (its messages mark the typed faces as physical dice either way: `manual`).
            entered = {"name": ticket.member.name, "role": ticket.member.role}
            if self.provable:
                proof, entered = {"manual": True, "by": entered}, None
        opened = None
        if outcome.choices is not None:
            problem = choices_problem(outcome.choices, outcome.default)
            if problem:
                raise ProtocolError(
                    "plugin_error", f"the ruleset '{roll.ruleset}' offered bad choices: "
                    f"{problem}", fr=f"le jeu de règles « {roll.ruleset} » a proposé des choix "
                    f"invalides : {problem}", details={"ruleset": roll.ruleset})
            opened = (outcome.choices, outcome.default,
                      round(now + self.config.react_timeout, 3), roll.manual)
        event = outcome_details(
            outcome_event(  # (by position, in its order: seq, roll, table, by, ruleset,
                # params, label, mode, dice, result, applied, notes, text, request_id)
                table.seq + 1, roll_id, table.name, roll.by, roll.ruleset, roll.params,
                roll.label, roll.mode, outcome.dice, outcome.result, outcome.applied,
                outcome.notes, resolution.text, ticket.request_id),
            # (by position too, in its order: options, asked_params, answers, opposition,
            # cooperation, character, proof, reaction, audience, opened)
            roll.options,
            asked if asked is not None and asked != roll.params else None,
            ticket.answers, opposition, cooperation,
            (character.name, spent, sheet) if character is not None else None,
            proof,
            None if reaction is None else (
                reaction.event["seq"], reaction.choice,
                reaction.member.by if reaction.member is not None else None),
            # A blind roll's decision: its roller may not even learn that it was decided
            # (that it was open): the GMs' alone, live, replayed and in history.
            "" if reaction is not None and roll.mode == "blind" else None,
            opened)
        if entered is not None:
            event["entered_by"] = entered
        if reaction is not None and event["dice"]:
            # Which of the decision's faces were typed: its open roll's typed ones, where
            # they are shown, and its own when typed (drawn faces are the server's).
            typed = decision_typed(event["dice"], reaction.event, resolution.drawn,
                                   {"name": ticket.member.name, "role": ticket.member.role}
                                   if manual else None)
            if typed or manual:
                event["manual_dice"] = typed
        if targeted is not None:
            event["targets"], event["effects"], event["target_sheets"] = targeted[:3]
        if opened is not None:  # (left open again: its record is the new event)
            records += (("open", roll_id, event),)
        elif reaction is not None:
            records += (("open", reaction.roll_id, None),)
        size = check_event_size(event, self.config.max_event_bytes)
        table.pending += 1
        # (a decision: the reactor's copy echoes the react request's id)
        return Pending(ticket, event, resolution.state, size, records,
                       reply_id=reaction.reply_id if reaction is not None else None,
                       notices=targeted[3] if targeted is not None else ())

    def _spend(self, character: Character, roll: Roll, spend: Any, owner_seat: str, *,
               notes: list[Any] | None = None
               ) -> tuple[dict[str, int], tuple[tuple[str, str, Any], ...]]:
        """What a roll's ``spend`` leaves of its character: ``insufficient`` when a field
        would leave its bounds, ``plugin_error`` when the plugins spent what is not a
        number field of the sheet. Nothing is changed yet. ``owner_seat``: the identity
        role of its owner's seat (``""``: none). ``notes`` (the outcome's, when the request
        drew faces): never refused then — the spend is taken only as far as the sheet
        holds, and ``notes`` say what was not taken."""
        if not isinstance(spend, dict):
            # A falsy non-map (None, [], 0, "") passes the outcome checks that look only
            # at a spend that is there.
            raise ProtocolError(
                "plugin_error",
                f"the roll's spend is not a map of sheet field to integer "
                f"({type(spend).__name__})",
                fr=f"la dépense du jet n'est pas une table de champ à entier "
                   f"({type(spend).__name__})",
                details={"ruleset": roll.ruleset})
        sheet = self.catalogue.sheet_schema(character.ruleset)
        values = character.values
        try:
            if spend and notes is not None:
                spend = self._held(character, roll, sheet, spend, notes)
            if spend:
                values, _ = apply_delta(sheet, character.values, spend, sign=-1,
                                        where="spend")
        except ProtocolError as error:
            if error.code != "invalid_params":
                raise
            raise ProtocolError(
                "plugin_error",
                f"the roll spent what the sheet of {character.ruleset} does not have "
                f"({error.message})",
                fr=f"le jet a dépensé ce que la fiche {elide('de', character.ruleset)} n'a pas "
                   f"({error.message_fr or error.message})",
                details={"ruleset": roll.ruleset, "spend": sorted(map(str, spend))[:10]},
            ) from None
        spent = {name: amount for name, amount in spend.items() if amount}
        shown = None
        if character.owner is not None and audience(
                roll.mode, (character.owner, owner_seat or "seat"),
                identity(roll.by)) != FULL:
            # The owner's seat will not see this outcome's sheet: it keeps seeing the
            # values it last saw, until an event it sees shows them whole.
            shown = character.shown if character.shown is not None else character.values
        if values is character.values and shown == character.shown:
            return spent, ()  # nothing changes: no record to write
        record = Character(character.name, character.ruleset, character.owner, values, shown,
                           character.acted, character.notify)
        return spent, (("character", character.name, record.to_record()),)

    @staticmethod
    def _held(character: Character, roll: Roll, sheet: dict[str, Any],
              spend: dict[str, Any], notes: list[Any]) -> dict[str, Any]:
        """A rolled outcome's spend, taken only as far as the sheet holds (contract §7:
        refusals never depend on the dice); what was not taken goes in ``notes``."""
        taken, unpaid = taken_as_far_as_held(sheet, character.values, spend)
        if unpaid:
            log.warning("ruleset %s spent past the sheet of %r after its dice (not taken: "
                        "%s): declare it in sidecar_max_spend or clamp it", roll.ruleset,
                        character.name, unpaid)
            notes.append(unpaid_note(unpaid, sheet))
        return taken

    def prepare_odds(self, table: Table, member: Member, request: OddsRequest) -> Roll:
        """The roll whose exact odds are asked (nothing is rolled)."""
        check_strings(request.params, request.options, self.config.max_string_chars)
        roll = self.preparer.prepare(
            request.ruleset, request.params, options=request.options, table=table.name,
            by=member.by)
        if request.character is not None:
            character = self._character_for(table, member, request.character,
                                            request.ruleset)
            roll.character = character.name
            roll.sheet = character.copy_values()
        if request.targets:
            self._check_targets(table, request.targets, roll.character, "public")
            roll.targets = target_copies(table, readable_targets(table, member,
                                                                 request.targets))
        return roll

    @staticmethod
    def odds(request: OddsRequest, roll: Roll, odds: dict[str, Any]) -> dict[str, Any]:
        return odds_message(roll.ruleset, roll.params, odds, request.id)
