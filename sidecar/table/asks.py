"""The GM asks seats for a roll: the ask's events, the answers it records, and what a
member is told of the open asks (``ask list``, ``welcome.asks``).

An ask's answers follow the ask's ``mode``, in the list as in the outcomes
(PROTOCOL.md §7.5): the GMs see every answer as it stands; a seat sees an ask it is
named in. A ``public`` ask's answers are everyone's: its ``answered`` map is shown whole.
A ``gm`` or ``blind`` ask's answers are not the other seats' (nor, ``blind``, the
roller's own), so its seats get ``answered: {}`` — and get it only until they answered:
an ask stays open while an answer waits for a decision after its dice, so whether it is
still listed would tell them how those dice went.
"""

from __future__ import annotations

import dataclasses
import secrets
from collections.abc import Iterator
from types import MappingProxyType
from typing import Any

from sidecar.host.guard import deep_copy
from sidecar.host.pipeline import Resolution
from sidecar.model import Roll
from sidecar.protocol.errors import ProtocolError, bad_field, plays_another
from sidecar.protocol.events import ask_cancel_event, ask_open_event
from sidecar.protocol.messages import AskRequest, RollRequest
from sidecar.protocol.replies import ask_message, asks_message
from sidecar.table.asksides import side_for, side_key
from sidecar.table.basis import CoreBasis
from sidecar.table.effects import Pending, ReactTicket, RollTicket
from sidecar.table.limits import check_strings
from sidecar.table.listing import open_asks, take_page
from sidecar.table.names import ambiguous, ambiguous_name
from sidecar.table.tables import Member, Table
from sidecar.table.targeting import check_targets, target_copies


def listed(ask: dict[str, Any], member: Member) -> dict[str, Any] | None:
    """``ask`` (an open ask's record: its ``event`` and ``answered`` map) as ``member``
    sees it in a list; ``None`` when it is not listed to them."""
    event, answered = ask["event"], ask["answered"]
    view = ask_message(event)
    if member.role == "gm":
        view["answered"] = dict(answered)
        return view
    if not (member.seat and any(target["seat"] == member.name for target in event["to"])):
        return None
    if event.get("roll_mode", "public") == "public":
        view["answered"] = dict(answered)
        return view
    if member.name in answered:
        return None
    view["answered"] = {}
    return view


def oppose(ask: str, sides: list[dict[str, Any]]) -> dict[str, Any]:
    """Who wins an opposed roll, once every side answered: among the sides that succeeded
    (all of them, in a pure opposition whose difficulty everyone reaches), the highest
    margin; two at the top make a draw; nobody succeeding, everybody fails (d6code, seed
    003: « c'est le personnage ayant réussi le meilleur jet qui sort vainqueur »)."""
    standing = [side for side in sides if side["success"]]
    if not standing:
        return {"ask": ask, "sides": sides, "winner": None, "winner_character": None,
                "draw": False}
    best = max(side["margin"] for side in standing)
    top = [side for side in standing if side["margin"] == best]
    # ``winner`` is a seat (null when a GM's NPC wins, as on a draw): ``winner_character``
    # says which character won, so that an NPC's win is not read as nobody's.
    won = top[0] if len(top) == 1 else None
    return {"ask": ask, "sides": sides, "winner": won["seat"] if won else None,
            "winner_character": won["character"] if won else None, "draw": len(top) > 1}


def cooperate(ask: str, sides: list[dict[str, Any]]) -> dict[str, Any]:
    """What a cooperative roll achieves, once every side answered: only the best roll
    counts (O'Ween's, seed 000: « Dans le cas d'une action simple, on ne prend en compte
    que le meilleur jet ») — a success before a failure, then the highest margin; the
    first asked wins a tie. ``best`` is its seat (null for a GM's NPC's), ``best_character``
    its character."""
    best = max(sides, key=lambda side: (side["success"], side["margin"]))
    return {"ask": ask, "sides": sides, "best": best["seat"],
            "best_character": best["character"],
            "success": best["success"], "margin": best["margin"]}


def answer_targets(event: dict[str, Any], character: str | None) -> tuple[str, ...]:
    """The targets of an answer to the ask ``event`` made as ``character``: the ask's
    own ``targets``, then — an opposed ask naming characters — every other side's
    character (each side's roll reads its opponents' sheets: the opponent's skill); never
    the answering character itself (PROTOCOL.md §8). A cooperative ask's other sides are
    allies, not targets: nothing is aimed at them (they are counted as ``collaborators``)."""
    names = list(event.get("targets") or ())
    if event.get("opposed"):
        names += [side["character"] for side in event["to"] if side.get("character")]
    return tuple(name for name in dict.fromkeys(names) if name != character)


class Asks(CoreBasis):
    """The GM asks seats (or the characters they play) for a roll; each answer is an
    outcome that records itself in the ask; opposed and cooperative asks are judged
    once every side answered."""

    @staticmethod
    def _ask_target(table: Table, ask_id: str, member: Member, character: str | None
                    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """The open ask and the target in it that ``member`` answers for: a seat its own;
        a GM a GM's NPC's side, as ``character`` (:func:`~sidecar.table.asksides.side_for`)."""
        ask = table.asks.get(ask_id)
        if ask is None:
            raise bad_field("answers", "no open ask of that id at this table (unknown, "
                            "cancelled or answered by all)", fr="pas de demande ouverte de "
                            "cet identifiant à cette table (inconnue, annulée ou close)")
        target = side_for(ask["event"]["to"], member.name, gm=member.role == "gm",
                          seated=bool(member.seat), character=character)
        if target is None:
            raise ProtocolError("forbidden", "this ask is not for you",
                                fr="cette demande ne vous est pas adressée",
                                details={"field": "answers"})
        if side_key(target) in ask["answered"]:
            raise bad_field("answers", "you already answered this ask",
                            fr="vous avez déjà répondu à cette demande")
        return ask, target

    def _answering(self, table: Table, member: Member, request: RollRequest) -> RollRequest:
        """The roll an answer to an ask makes: the ask's ruleset, params, label, mode and
        options (the player adds only physical dice, where allowed)."""
        assert request.answers is not None
        ask, target = self._ask_target(table, request.answers, member, request.character)
        event = ask["event"]
        character = target.get("character") or request.character
        return dataclasses.replace(
            request, ruleset=event["ruleset"],
            params=deep_copy(target.get("params") or event["params"]),
            label=event["label"], mode=event["roll_mode"],
            options=deep_copy(event.get("options") or {}),
            character=character, targets=answer_targets(event, character))

    def ask_open(self, ticket: RollTicket, request: AskRequest) -> Pending:
        """The event of a GM's ask (the caller holds the table's turn): checked as a roll
        would be; each name of ``to`` is a seat, or a character (its owner's seat rolls as
        it)."""
        table = ticket.table
        if request.mode == "self":
            raise ProtocolError(
                # (The mode as the page names it, strings.js mode.self.)
                "invalid_params", "an asked roll cannot be \"Only me\": the GM would not "
                "see it", fr="un jet demandé ne peut pas être « Moi seul » : le MJ ne le "
                "verrait pas",
                details={"param": "mode", "field": "mode"})
        check_strings(request.params, request.options, self.config.max_string_chars)
        check_targets(table, request.targets)
        roll = self.preparer.prepare(request.ruleset, request.params, options=request.options,
                                     table=table.name, by=ticket.member.by)
        if request.opposed and request.cooperative:
            raise ProtocolError("invalid_params", "an ask is opposed or cooperative, not both",
                                fr="une demande est une opposition ou une coopération, pas "
                                   "les deux", details={"param": "cooperative"})
        if (request.opposed or request.cooperative) and len(request.to) < 2:
            raise ProtocolError("invalid_params", "an opposed roll needs two sides or more",
                                fr="une opposition demande au moins deux camps",
                                details={"param": "to", "field": "to"})
        params = request.params
        if request.cooperative and "collaborators" in roll.params and (
                "collaborators" not in params):
            # « chaque participant gagne une augmentation par collaborateur » (seed 000): a
            # ruleset that describes ``collaborators`` is told how many each side has.
            params = {**params, "collaborators": len(request.to) - 1}
            roll = self.preparer.prepare(request.ruleset, params, options=request.options,
                                         table=table.name, by=ticket.member.by)
        unknown = [name for name in request.each if name not in request.to]
        if unknown:
            raise ProtocolError(
                "invalid_params", f"'each' names '{unknown[0][:64]}', which 'to' does not",
                fr=f"« each » nomme « {unknown[0][:64]} », absent de « to »",
                details={"param": "each", "field": "each"})
        targets = []
        for name in request.to:
            own = request.each.get(name)
            if own is not None:
                if not isinstance(own, dict):
                    raise bad_field("each", "maps each name to its params",
                                    fr="associe à chaque nom ses paramètres")
                check_strings(own, {}, self.config.max_string_chars)
                # Each side's own params (its own difficulty…), checked as a roll's.
                own = self.preparer.prepare(request.ruleset, {**params, **own},
                                            table=table.name, by=ticket.member.by).params
            if ambiguous(table, name):
                raise ambiguous_name(name)
            character = table.characters.get(name)
            if name in table.seats and character is None:
                targets.append({"seat": name, "character": None, "params": own})
                continue
            # (A seat of its own character's name: the name is the character's.)
            if character is None:
                raise ProtocolError(
                    "invalid_params", f"'{name[:64]}' is neither a seat nor a character "
                    "of this table", fr=f"« {name[:64]} » n'est ni une place ni un "
                    "personnage de cette table", details={"param": "to", "field": "to",
                                                       "name": name[:64]})
            if character.ruleset != roll.ruleset:
                title = self.ruleset_title
                refused = plays_another(
                    name, {lang: title(character.ruleset, lang) for lang in ("fr", "en")},
                    {lang: title(roll.ruleset, lang) for lang in ("fr", "en")}, "to")
                refused.details["name"] = name[:64]
                raise refused
            # A character no seat plays (a GM's NPC): its side is a GM's to answer.
            owner = character.owner if character.owner in table.seats else None
            targets.append({"seat": owner, "character": name, "params": own})
        seats = [side_key(t) for t in targets]
        if len(set(seats)) != len(seats):
            raise ProtocolError("invalid_params", "a seat may be asked once per ask",
                                fr="une place n'est demandée qu'une fois par demande",
                                details={"param": "to", "field": "to"})
        ask_id = secrets.token_hex(6)
        for target in targets:
            if target["params"] is None:
                del target["params"]
        # Public: everyone sees that the GM asked (not how it goes).
        event = ask_open_event(**self._head(ticket), ask=ask_id, to=targets,
                               ruleset=roll.ruleset, params=roll.params, label=request.label,
                               roll_mode=request.mode, options=roll.options,
                               opposed=request.opposed, cooperative=request.cooperative)
        if request.targets:
            event["targets"] = list(request.targets)
        return self._pending(ticket, event, (("ask", ask_id, {"event": event,
                                                               "answered": {}}),))

    def answer_rolls(self, ticket: RollTicket, event: dict[str, Any]) -> list[list[Roll]]:
        """For each side of the ask ``event`` (being opened), the rolls its answers could
        make, as :meth:`_answering` and ``attach_sheet`` would prepare them (the caller
        holds the table's turn): a side naming a character rolls as it, its sheet
        supplying what it supplies; a seat's side as each character of the ask's game
        that seat plays, then as no character. The caller checks each before its dice:
        a side none of whose rolls could pass is refused (issue 29)."""
        table, sides = ticket.table, []
        for side in event["to"]:
            names: list[str | None] = [side["character"]] if side.get("character") else [
                *(name for name, character in table.characters.items()
                  if character.owner == side["seat"] and character.ruleset == event["ruleset"]),
                None]
            rolls = []
            for name in names:
                roll = self.preparer.prepare(
                    event["ruleset"], deep_copy(side.get("params") or event["params"]),
                    options=deep_copy(event.get("options") or {}), table=table.name,
                    by=({"name": side["seat"], "role": "player"} if side["seat"] is not None
                        else ticket.member.by), label=event["label"],
                    mode=event["roll_mode"])
                roll.character, roll.asked = name, True
                roll.session, roll.turn = table.session, table.turns
                roll.targets = target_copies(table, answer_targets(event, name))
                if name is not None:
                    roll.sheet = MappingProxyType(table.characters[name].values)
                rolls.append(roll)
            sides.append(rolls)
        return sides

    def ask_cancel(self, ticket: RollTicket, request: AskRequest) -> Pending:
        """The event cancelling an open ask (the caller holds the table's turn)."""
        table = ticket.table
        assert request.ask is not None
        if request.ask not in table.asks:
            raise bad_field("ask", "no open ask of that id at this table",
                            fr="pas de demande ouverte de cet identifiant à cette table")
        event = ask_cancel_event(**self._head(ticket), ask=request.ask)
        return self._pending(ticket, event, (("ask", request.ask, None),))

    def ask_list(self, table: Table, member: Member, request: AskRequest, *,
                 max_bytes: int | None = None) -> dict[str, Any]:
        """The answer to ``ask`` ``list``: a page of open asks — all for a GM, a seat's
        own, each as its mode lets the member see it (:func:`sidecar.table.asks.listed`) — in
        the order they were opened, after ``request.after`` (a ``seq``), within
        ``max_bytes`` (by default the history pages' bound)."""
        def views() -> Iterator[dict[str, Any]]:
            for ask in open_asks(table, request.after):
                view = listed(ask, member)
                if view is not None:
                    yield view
        bound = self.config.max_history_bytes if max_bytes is None else max_bytes
        page, more = take_page(views(), limit=request.limit, max_bytes=bound,
                               binary=member.binary)
        return asks_message(table.name, page, request.id, more=more,
                            next=page[-1]["seq"] if page else request.after)

    def answer_record(self, ticket: RollTicket, resolution: Resolution, roll_id: str,
                      reaction: ReactTicket | None
                      ) -> tuple[tuple[tuple[str, str, Any], ...], dict[str, Any] | None,
                                 dict[str, Any] | None]:
        """What an answer to the ask ``ticket.answers`` records (the caller numbers the
        roll ``roll_id``; ``reaction``: it is the decision on an answer left open): the
        ask's record, as it stands after this answer (``None``: settled, closed), and the
        opposition's or cooperation's judgement once every side answered."""
        table, roll, outcome = ticket.table, resolution.roll, resolution.outcome
        assert ticket.answers is not None
        if reaction is None:
            ask, target = self._ask_target(table, ticket.answers, ticket.member,
                                           roll.character)
        else:  # a decision on an answer left open (a cancelled ask is left alone)
            ask = table.asks.get(ticket.answers)
            target = ask and side_for(ask["event"]["to"], roll.by["name"],
                                      gm=roll.by.get("role") == "gm",
                                      seated=bool(roll.by.get("seat")),
                                      character=roll.character)
        if ask is None or target is None:
            return (), None, None
        as_character = roll.character if reaction is not None else target.get("character")
        side = {"seat": target["seat"], "character": as_character, "seq": table.seq + 1,
                "roll": roll_id, "open": outcome.choices is not None,
                "success": bool(outcome.result.get("success")),
                "margin": outcome.result.get("margin", 0)}
        if isinstance(outcome.result.get("label"), dict):
            # Its own result's words, for the summary (« Bourde », not « échec »).
            side["label"] = outcome.result["label"]
        answered = {**ask["answered"], side_key(target): side}
        # Settled when every side answered and none still waits for a decision taken
        # after its dice (the opposition is judged on the final results).
        settled = (len(answered) == len(ask["event"]["to"])
                   and not any(other["open"] for other in answered.values()))
        records = (("ask", ticket.answers, None if settled
                    else {"event": ask["event"], "answered": answered}),)
        if not settled:
            return records, None, None
        sides = [answered[side_key(t)] for t in ask["event"]["to"]]
        if ask["event"].get("opposed"):
            return records, oppose(ticket.answers, sides), None
        if ask["event"].get("cooperative"):
            return records, None, cooperate(ticket.answers, sides)
        return records, None, None
