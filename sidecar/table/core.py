"""The table core: every decision about joining, rolling and answering, without I/O.

Modelled on websockets' sans-I/O ``ServerProtocol``: the server (:mod:`sidecar.server.connections`)
decodes a frame, hands the parsed request to :class:`TableCore`, performs the I/O the core
asks for (run the roll pipeline, append to the journal, read a page of it) and sends the
:class:`Delivery` values the core returns. The core never touches a socket, the clock or
the journal: tests drive it directly (``tests/test_table_core.py``).

A roll goes through four calls::

    ticket = core.begin_roll(member, table, request)      # may answer a repeat instead
    async with table.turn:                                # one roll at a time per table
        resolution = await pipeline.run(ticket.roll, ...) # plugins (async hooks)
        pending = core.number(ticket, resolution)         # tentative seq, nothing changed
        await journal.append(pending.event, pending.state)
        deliveries = core.commit(pending)                 # or core.abandon(pending)

so a journal write that fails changes nothing: no seq taken, no plugin state, no request
id remembered.
"""

from __future__ import annotations

import collections
import dataclasses
import hmac
import logging
import secrets
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Protocol

from sidecar.config import ServerConfig
from sidecar.dice.provable import LEAVES, Epoch, leaf_key, new_client_seed, tree
from sidecar.dice.sources import ProvableDice
from sidecar.hookspecs import HOOKS_API
from sidecar.host.guard import choices_problem, deep_copy
from sidecar.host.pipeline import Resolution
from sidecar.host.sheets import (
    MAX_CHARACTERS,
    Character,
    apply_delta,
    checked_values,
    diff,
    refilled,
)
from sidecar.host.spending import taken_as_far_as_held, unpaid_note
from sidecar.model import Outcome, Roll
from sidecar.protocol.errors import ProtocolError, bad_field
from sidecar.protocol.messages import (
    AskRequest,
    EpochRequest,
    Hello,
    HistoryRequest,
    InitiativeRequest,
    OddsRequest,
    PluginsRequest,
    ReactRequest,
    RollRequest,
    SeatRequest,
    SessionRequest,
    SheetRequest,
    asks_message,
    history_message,
    odds_message,
    plugins_message,
    presence_message,
    seats_message,
    sheets_message,
    welcome_message,
)
from sidecar.stores.journal import request_key
from sidecar.stores.journal.schema import identity_role
from sidecar.table.asks import listed
from sidecar.table.joinlink import join_block
from sidecar.table.limits import check_event_size, check_strings, encoded_size
from sidecar.table.listing import open_asks, seat_entries, take_page
from sidecar.table.ownership import check_decider, not_yours, sheet_audience
from sidecar.table.seats import (
    MAX_SEATS,
    folded,
    lookalike,
    new_token,
    seat_link,
    token_hash,
)
from sidecar.table.tables import Member, Table, Tables
from sidecar.table.visibility import FULL, audience, identity, plan, view

log = logging.getLogger("sidecar.core")

#: Close codes that follow some errors (RFC 6455).
CLOSE_PROTOCOL = 1002
CLOSE_POLICY = 1008

#: The most bytes of characters a ``welcome`` carries (the rest: ``sheet`` ``list``), and
#: the most of open asks (the rest: ``ask`` ``list``).
WELCOME_BYTES = 24 * 1024

#: Seconds between two presence messages of one table: joins and leaves in between are
#: coalesced into the next one, which always carries the state at the time it is sent.
PRESENCE_INTERVAL = 0.25


class Catalogue(Protocol):
    """What the core reports about the plugins (the plugin host provides it)."""

    def ruleset_listing(self) -> list[dict[str, Any]]: ...
    def sheet_schema(self, ruleset: str) -> dict[str, Any]: ...
    def extension_listing(self) -> list[dict[str, Any]]: ...
    def option_listing(self) -> list[dict[str, Any]]: ...
    def status(self) -> list[dict[str, Any]]: ...
    def versions(self) -> dict[str, str]: ...


class Preparer(Protocol):
    """The pipeline's synchronous first step: check a ruleset and its params."""

    def prepare(self, ruleset: str, params: dict[str, Any], **fields: Any) -> Roll: ...


@dataclass
class Delivery:
    """One message for a group of members who all read it alike (one encoding)."""

    members: list[Member]
    message: dict[str, Any]


@dataclass
class RollTicket:
    """A request accepted for an event (a roll, a seat or sheet change): the prepared
    roll, if it is one, and how to recognise a repeat."""

    table: Table
    member: Member
    roll: Roll | None
    request_id: Any
    key: tuple[str, str, str] | None
    #: The GM's ask this roll answers, if any.
    answers: str | None = None


@dataclass
class ReactTicket:
    """A decision accepted on an open roll: the open outcome's event and the choice."""

    table: Table
    member: Member | None
    event: dict[str, Any]
    choice: str
    dice: list[int] | None
    #: The react request's id (echoed to the reactor) and the id stored with the event.
    reply_id: Any
    request_id: Any
    key: tuple[str, str, str] | None

    @property
    def roll_id(self) -> str:
        return str(self.event["roll"])


@dataclass
class Pending:
    """An event numbered tentatively, waiting for the journal: nothing is committed yet."""

    ticket: RollTicket
    event: dict[str, Any]
    state: dict[str, dict[str, Any]]
    #: The event's size as the journal stores it (bytes of JSON).
    size: int
    #: The table records (seats, characters) the event changes, written with it.
    records: tuple[tuple[str, str, Any], ...] = ()
    #: What the requester's copy alone adds (a new seat's token, link and QR code).
    extra: dict[str, Any] | None = None
    #: The seat whose connections close once it is committed (removed or re-keyed).
    close_seat: str | None = None
    close_reason: str = ""
    #: The id the requester's copy echoes when it is not the one stored (a GM's react).
    reply_id: Any = None
    #: Whether the requester's copy echoes an id at all (not the events of a whole-table
    #: refill, answered by the list after them).
    echo: bool = True
    #: Those connections, found when it is committed (a join with the old token may
    #: have slipped in while it was being journaled).
    closing: list[Member] = field(default_factory=list)


def oppose(ask: str, sides: list[dict[str, Any]]) -> dict[str, Any]:
    """Who wins an opposed roll, once every side answered: among the sides that succeeded
    (all of them, in a pure opposition whose difficulty everyone reaches), the highest
    margin; two at the top make a draw; nobody succeeding, everybody fails (d6code, seed
    003: « c'est le personnage ayant réussi le meilleur jet qui sort vainqueur »)."""
    standing = [side for side in sides if side["success"]]
    if not standing:
        return {"ask": ask, "sides": sides, "winner": None, "draw": False}
    best = max(side["margin"] for side in standing)
    top = [side for side in standing if side["margin"] == best]
    return {"ask": ask, "sides": sides,
            "winner": top[0]["seat"] if len(top) == 1 else None, "draw": len(top) > 1}


def cooperate(ask: str, sides: list[dict[str, Any]]) -> dict[str, Any]:
    """What a cooperative roll achieves, once every side answered: only the best roll
    counts (O'Ween's, seed 000: « Dans le cas d'une action simple, on ne prend en compte
    que le meilleur jet ») — a success before a failure, then the highest margin; the
    first asked wins a tie."""
    best = max(sides, key=lambda side: (side["success"], side["margin"]))
    return {"ask": ask, "sides": sides, "best": best["seat"],
            "success": best["success"], "margin": best["margin"]}


class TableCore:
    """The tables of one server and every rule about them. Plain Python, no I/O.

    ``load(name) -> (seq, state)`` reads a table's committed seq and plugin state (the
    journal's ``table_meta``); ``catalogue`` lists the plugins; ``preparer`` checks a
    roll's ruleset and params (the pipeline's ``prepare``).
    """

    def __init__(self, config: ServerConfig, *, catalogue: Catalogue, preparer: Preparer,
                 load: Callable[[str], tuple[int, dict[str, Any]]] | None = None,
                 version: str = "") -> None:
        self.config = config
        self.catalogue = catalogue
        self.preparer = preparer
        self.version = version
        self.tables = Tables(max_tables=config.max_tables, max_members=config.max_members,
                             max_observers=config.max_observers, load=load,
                             max_recent_bytes=config.max_remembered_bytes)

    # -- joining ------------------------------------------------------------------------

    @staticmethod
    def _matches(token: str | None, secret: str) -> bool:
        # An empty secret is no secret: it lets nobody in (a server embedded with
        # ``player_token=""`` takes seats only), never anyone who sends "".
        return hmac.compare_digest((token or "").encode(), secret.encode()) and bool(secret)

    @staticmethod
    def _refused(message: str, fr: str, **details: Any) -> ProtocolError:
        return ProtocolError("forbidden", message, fr=fr, details=details or None,
                             close=CLOSE_POLICY)

    def join(self, hello: Hello, *, binary: bool, connection: Any = None
             ) -> tuple[Table, Member]:
        """Seat the sender of ``hello``; raises ``forbidden`` (a wrong token, a seat's name
        without its token: then close), ``too_large`` (limits) or ``forbidden`` (an
        observer naming a new table).

        A name that has a seat at the table is joined with that seat's token only; a
        seat's token joins under its own name only."""
        # Both compared every time, so timing says nothing of which one matched.
        gm_ok = hello.token is not None and self._matches(hello.token, self.config.gm_token)
        player_ok = (hello.token is not None
                     and self._matches(hello.token, self.config.player_token))
        role = hello.role
        if role == "gm" and not gm_ok:
            raise self._refused("wrong token for the role 'gm'",
                                "jeton incorrect pour le rôle « gm »")
        table = self.tables.open(hello.table)
        seat = ""
        if role == "player":
            digest = token_hash(hello.token) if hello.token and table.seats else None
            seat_name = table.seat_of(digest) if digest else None
            if hello.name in table.seats:
                if seat_name != hello.name:
                    if seat_name is None and not (player_ok or gm_ok):
                        # No valid token at all: say nothing of which names have seats.
                        raise self._refused("wrong token for the role 'player'",
                                            "jeton incorrect pour le rôle « player »")
                    raise self._refused(
                        f"'{hello.name}' has a seat at this table: join with the link the "
                        "GM gave for it",
                        f"« {hello.name} » a une place à cette table : rejoignez-la avec le "
                        "lien donné par le MJ", seat=hello.name)
                seat = table.seat_ids.get(hello.name) or "0"
            elif seat_name is not None:
                raise self._refused(
                    f"this is the seat token of '{seat_name}': join under that name",
                    f"ce jeton est celui de la place de « {seat_name} » : rejoignez sous "
                    "ce nom", seat=seat_name)
            elif not (player_ok or gm_ok):
                raise self._refused("wrong token for the role 'player'",
                                    "jeton incorrect pour le rôle « player »")
            elif (near := lookalike(hello.name, table.seats)) is not None:
                # Not the seat's identity, but the table would read it as the seat's name.
                raise self._refused(
                    f"'{hello.name}' looks like the name of the seat '{near}': join with "
                    "its link, or under another name",
                    f"« {hello.name} » ressemble au nom de la place « {near} » : rejoignez-la "
                    "avec son lien, ou sous un autre nom", seat=near)
        member = Member(name=hello.name, role=role, locale=hello.locale, binary=binary,
                        connection=connection, seat=seat,
                        held=collections.deque() if hello.resume is not None else None,
                        client_seed=hello.client_seed or new_client_seed())
        # Creating a table takes a token: observers without one only join existing tables.
        table = self.tables.join(hello.table, member, creator=gm_ok or player_ok,
                                 table=table)
        return table, member

    def welcome(self, table: Table, member: Member, hello: Hello,
                replayed: int | None = None) -> dict[str, Any]:
        """The ``welcome`` for a member just seated (``replayed``: events to be resent)."""
        # The first page only, in a welcome that stays small whatever the table holds.
        characters, more = self.visible_characters(table, member, max_bytes=WELCOME_BYTES)
        asks = self.ask_list(table, member, AskRequest(op="list"), max_bytes=WELCOME_BYTES)
        message = welcome_message(
            table=table.name, role=member.role, seq=table.seq, version=self.version,
            rulesets=self.catalogue.ruleset_listing(),
            extensions=self.catalogue.extension_listing(),
            options=self.catalogue.option_listing(),
            manual_dice=member.role == "gm" or self.config.allow_player_dice,
            replayed=replayed if hello.resume is not None else None,
            request_id=hello.id, seat=member.seat, characters=characters,
            characters_more=more,
            asks=asks["asks"], asks_more=asks["more"],
            epoch=({**table.epoch.public(), "client": member.client_seed}
                   if self.provable and table.epoch is not None else None),
            hooks=HOOKS_API)
        # GMs get the players' join link and its QR code (a server open to the LAN only).
        join = join_block(self.config, self.public_url, table.name) if member.role == "gm" \
            else None
        if join is not None:
            message["join"] = join
        return message

    def visible_characters(self, table: Table, member: Member, *, after: str = "",
                           limit: int = 100, max_bytes: int | None = None
                           ) -> tuple[list[dict[str, Any]], bool]:
        """A page of the characters ``member`` may see (all for a GM, its own for a seat),
        by name after ``after``: at most ``limit`` and ``max_bytes`` encoded as the member
        reads them (by default the history pages' bound). Returns the page and whether
        more follow."""
        if member.role == "gm":
            names = sorted(name for name in table.characters if name > after)
        elif member.seat:
            names = sorted(name for name, c in table.characters.items()
                           if c.owner == member.name and name > after)
        else:
            return [], False
        bound = self.config.max_history_bytes if max_bytes is None else max_bytes
        page: list[dict[str, Any]] = []
        size = 0
        for name in names:
            if len(page) >= limit:
                return page, True
            view = table.characters[name].view(gm=member.role == "gm")
            size += encoded_size(view, member.binary)
            if page and size > bound:
                return page, True
            page.append(view)
        return page, False

    def leave(self, table: Table, member: Member) -> None:
        """A member's connection ended; the table is forgotten if nobody is left."""
        self.tables.leave(table, member)

    # -- presence -----------------------------------------------------------------------

    def presence_changed(self, table: Table, now: float) -> float | None:
        """Someone joined or left at ``now``: in how many seconds to send presence, or
        ``None`` when one is already due (it will carry this change too)."""
        if table.presence_due is not None:
            return None
        table.presence_due = max(now, table.presence_sent + PRESENCE_INTERVAL)
        return table.presence_due - now

    def presence(self, table: Table, now: float) -> list[Delivery]:
        """The due presence message: everyone at the table, to everyone at the table."""
        table.presence_due = None
        table.presence_sent = now
        if not table.members:
            return []
        members = [{"name": m.name, "role": m.role, "seat": True} if m.seat
                   else {"name": m.name, "role": m.role} for m in table.members]
        return [Delivery(list(table.members), presence_message(table.name, members))]

    # -- rolling ------------------------------------------------------------------------

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
        if request.character is not None:
            self._character_for(table, member, request.character, request.ruleset)
            if request.mode == "self":
                # The GMs keep the sheets: a spend no GM could see would leave them values
                # their history of the character does not add up to.
                raise ProtocolError(
                    "invalid_params", "a roll as a character cannot be 'self': the GMs "
                    "see what it spends (use 'gm' to keep it from the other players)",
                    fr="un jet en tant que personnage ne peut pas être « self » : les MJ "
                       "voient ce qu'il dépense (« gm » le cache aux autres joueurs)",
                    details={"param": "mode", "field": "mode"})
        roll = self.preparer.prepare(
            request.ruleset, request.params, options=request.options, table=table.name,
            by=member.by, label=request.label, mode=request.mode,
            manual=request.dice is not None)
        roll.character = request.character
        roll.session, roll.turn = table.session, table.turns
        return RollTicket(table, member, roll, request.id, self._key(member, request.id),
                          answers=request.answers)

    # -- asks: the GM asks seats for a roll ------------------------------------------------

    @staticmethod
    def _ask_target(table: Table, ask_id: str, member: Member) -> tuple[dict[str, Any],
                                                                        dict[str, Any]]:
        """The open ask and the target in it that ``member`` answers for."""
        ask = table.asks.get(ask_id)
        if ask is None:
            raise bad_field("answers", "no open ask of that id at this table (unknown, "
                            "cancelled or answered by all)", fr="pas de demande ouverte de "
                            "cet identifiant à cette table (inconnue, annulée ou close)")
        target = next((t for t in ask["event"]["to"] if member.seat
                       and t["seat"] == member.name), None)
        if target is None:
            raise ProtocolError("forbidden", "this ask is not for you",
                                fr="cette demande ne vous est pas adressée",
                                details={"field": "answers"})
        if member.name in ask["answered"]:
            raise bad_field("answers", "you already answered this ask",
                            fr="vous avez déjà répondu à cette demande")
        return ask, target

    def _answering(self, table: Table, member: Member, request: RollRequest) -> RollRequest:
        """The roll an answer to an ask makes: the ask's ruleset, params, label, mode and
        options (the player adds only physical dice, where allowed)."""
        assert request.answers is not None
        ask, target = self._ask_target(table, request.answers, member)
        event = ask["event"]
        return dataclasses.replace(
            request, ruleset=event["ruleset"],
            params=deep_copy(target.get("params") or event["params"]),
            label=event["label"], mode=event["roll_mode"],
            options=deep_copy(event.get("options") or {}),
            character=target.get("character") or request.character)

    def ask_open(self, ticket: RollTicket, request: AskRequest) -> Pending:
        """The event of a GM's ask (the caller holds the table's turn): checked as a roll
        would be; each name of ``to`` is a seat, or a character (its owner's seat rolls as
        it)."""
        table = ticket.table
        if request.mode == "self":
            raise ProtocolError(
                "invalid_params", "an asked roll cannot be 'self': the GM would not see it",
                fr="un jet demandé ne peut pas être « self » : le MJ ne le verrait pas",
                details={"param": "mode", "field": "mode"})
        check_strings(request.params, request.options, self.config.max_string_chars)
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
                own = self.preparer.prepare(request.ruleset, {**request.params, **own},
                                            table=table.name, by=ticket.member.by).params
            if name in table.seats:
                targets.append({"seat": name, "character": None, "params": own})
                continue
            character = table.characters.get(name)
            if character is None or character.owner not in table.seats:
                raise ProtocolError(
                    "invalid_params", f"'{name[:64]}' is neither a seat nor a character "
                    "that a seat plays", fr=f"« {name[:64]} » n'est ni une place ni le "
                    "personnage d'une place", details={"param": "to", "field": "to",
                                                       "name": name[:64]})
            if character.ruleset != roll.ruleset:
                raise ProtocolError(
                    "invalid_params", f"'{name[:64]}' plays {character.ruleset}",
                    fr=f"« {name[:64]} » joue à {character.ruleset}",
                    details={"param": "to", "field": "to", "name": name[:64]})
            targets.append({"seat": character.owner, "character": name, "params": own})
        seats = [t["seat"] for t in targets]
        if len(set(seats)) != len(seats):
            raise ProtocolError("invalid_params", "a seat may be asked once per ask",
                                fr="une place n'est demandée qu'une fois par demande",
                                details={"param": "to", "field": "to"})
        ask_id = secrets.token_hex(6)
        for target in targets:
            if target["params"] is None:
                del target["params"]
        event = self._event(ticket, "ask", "", op="open", ask=ask_id, to=targets,
                            ruleset=roll.ruleset, params=roll.params, label=request.label,
                            roll_mode=request.mode, options=roll.options,
                            opposed=request.opposed, cooperative=request.cooperative)
        event["mode"] = "public"  # everyone sees that the GM asked (not how it goes)
        del event["audience"]
        return self._pending(ticket, event, (("ask", ask_id, {"event": event,
                                                               "answered": {}}),))

    def ask_cancel(self, ticket: RollTicket, request: AskRequest) -> Pending:
        """The event cancelling an open ask (the caller holds the table's turn)."""
        table = ticket.table
        assert request.ask is not None
        if request.ask not in table.asks:
            raise bad_field("ask", "no open ask of that id at this table",
                            fr="pas de demande ouverte de cet identifiant à cette table")
        event = self._event(ticket, "ask", "", op="cancel", ask=request.ask)
        event["mode"] = "public"
        del event["audience"]
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

    @staticmethod
    def _key(member: Member, request_id: Any) -> tuple[str, str, str] | None:
        """How a request id is remembered: per member identity (a seat is its own)."""
        if request_id is None:
            return None
        return (*member.key, request_key(request_id) or "")

    @staticmethod
    def _character_for(table: Table, member: Member, name: str,
                       ruleset: str | None) -> Character:
        """The character ``member`` may roll as: for a player, ``forbidden`` (one answer)
        unless it is theirs, ``invalid_params`` if theirs plays another ruleset; for a GM,
        ``invalid_params`` if there is none of that name (or of another ruleset)."""
        if member.role != "gm" and not member.seat:
            # None can be theirs: answered before looking, so that it tells nothing of
            # which characters (a GM's secret NPCs) exist.
            raise ProtocolError(
                "forbidden", "only a GM or a seat's player rolls as a character",
                fr="seuls un MJ ou le joueur d'une place jouent un personnage",
                details={"field": "character"})
        character = table.characters.get(name)
        if member.role != "gm" and (character is None or character.owner != member.name):
            # One answer whether it exists or not: a seat must not find the GM's secret
            # NPCs (or another seat's characters) by guessing names.
            raise not_yours(name)
        if character is None:
            raise TableCore._no_character(name)
        if ruleset is not None and character.ruleset != ruleset:
            raise ProtocolError(
                "invalid_params",
                f"'{name[:64]}' plays {character.ruleset}, not {ruleset[:40]}",
                fr=f"« {name[:64]} » joue à {character.ruleset}, pas à {ruleset[:40]}",
                details={"param": "character", "field": "character"})
        return character

    def attach_sheet(self, ticket: RollTicket) -> None:
        """Give the roll its character's values, as they are now (the caller holds the
        table's turn: no other event changes them until this roll is committed)."""
        roll = ticket.roll
        if roll is None or roll.character is None:
            return
        character = self._character_for(ticket.table, ticket.member, roll.character,
                                        roll.ruleset)
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
        roll_id = reaction.roll_id if reaction is not None else secrets.token_hex(8)
        opposition = cooperation = None
        if ticket.answers is not None:
            if reaction is None:
                ask, target = self._ask_target(table, ticket.answers, ticket.member)
                as_character = target.get("character")
            else:  # a decision on an answer left open (a cancelled ask is left alone)
                ask, as_character = table.asks.get(ticket.answers), roll.character
            if ask is not None:
                seat = roll.by["name"]
                side = {"seat": seat, "character": as_character, "seq": table.seq + 1,
                        "roll": roll_id, "open": outcome.choices is not None,
                        "success": bool(outcome.result.get("success")),
                        "margin": outcome.result.get("margin", 0)}
                answered = {**ask["answered"], seat: side}
                # Settled when every side answered and none still waits for a decision
                # taken after its dice (the opposition is judged on the final results).
                settled = (len(answered) == len(ask["event"]["to"])
                           and not any(other["open"] for other in answered.values()))
                records += (("ask", ticket.answers, None if settled
                             else {"event": ask["event"], "answered": answered}),)
                if settled and ask["event"].get("opposed"):
                    opposition = oppose(ticket.answers, [answered[t["seat"]]
                                                         for t in ask["event"]["to"]])
                elif settled and ask["event"].get("cooperative"):
                    cooperation = cooperate(ticket.answers, [answered[t["seat"]]
                                                             for t in ask["event"]["to"]])
        event = {
            "type": "outcome",
            "seq": table.seq + 1,
            "roll": roll_id,
            "table": table.name,
            "by": roll.by,
            "ruleset": roll.ruleset,
            "params": roll.params,
            "label": roll.label,
            "mode": roll.mode,
            "dice": outcome.dice,
            "result": outcome.result,
            "applied": outcome.applied,
            "notes": outcome.notes,
            "text": resolution.text,
            "request_id": ticket.request_id,
        }
        if roll.options:  # (what a verifier re-runs the extensions with)
            event["options"] = roll.options
        if asked is not None and asked != roll.params:
            event["asked_params"] = asked
        if ticket.answers is not None:
            event["answers"] = ticket.answers
            if opposition is not None:
                event["opposition"] = opposition
            if cooperation is not None:
                event["cooperation"] = cooperation
        if character is not None:
            event["character"] = character.name
            event["spent"] = spent
            event["sheet"] = sheet
        if source is not None:
            proof = dict(source.proof)
            proof["sides"] = [die["sides"] for die in source.rolled]
            event["proof"] = proof
        elif manual and self.provable:
            event["proof"] = {"manual": True, "by": {"name": ticket.member.name,
                                                     "role": ticket.member.role}}
        if reaction is not None:
            event["reacts_to"] = reaction.event["seq"]
            event["choice"] = reaction.choice
            event["reacted_by"] = reaction.member.by if reaction.member is not None else None
            records += (("open", reaction.roll_id, None),)
            if roll.mode == "blind":
                # Its roller may not even learn that it was decided (that it was open):
                # the decision is the GMs' alone, live, replayed and in history.
                event["audience"] = ""
        if outcome.choices is not None:
            problem = choices_problem(outcome.choices, outcome.default)
            if problem:
                raise ProtocolError(
                    "plugin_error", f"the ruleset '{roll.ruleset}' offered bad choices: "
                    f"{problem}", fr=f"le jeu de règles « {roll.ruleset} » a proposé des choix "
                    f"invalides : {problem}", details={"ruleset": roll.ruleset})
            event.update(open=True, choices=outcome.choices, default=outcome.default,
                         expires=round(now + self.config.react_timeout, 3),
                         options=roll.options, manual=roll.manual)
            records = tuple(r for r in records if r[0] != "open")
            records += (("open", event["roll"], event),)
        size = check_event_size(event, self.config.max_event_bytes)
        table.pending += 1
        return Pending(ticket, event, resolution.state, size, records)

    # -- verifiable dice: epochs ------------------------------------------------------------

    @property
    def provable(self) -> bool:
        """Whether faces come from committed epochs (``--dice provable``)."""
        return self.config.dice == "provable"

    def epoch_settings(self) -> dict[str, Any]:
        """What an epoch opened now records of this server (:class:`Epoch` ``settings``):
        whether players may enter physical dice, and the plugins resolving rolls."""
        return {"player_dice": self.config.allow_player_dice,
                "plugins": self.catalogue.versions()}

    def epoch_outdated(self, table: Table) -> bool:
        """Whether the table's current epoch was opened under other settings than this
        server's (or before epochs recorded them): it must end before anyone rolls in it
        here, or a verifier would judge its rolls by rules they were not made under."""
        epoch = table.epoch
        return epoch is not None and epoch.settings != self.epoch_settings()

    def roll_dice(self, table: Table, member: Member | None,
                  event: dict[str, Any] | None = None) -> ProvableDice:
        """The verifiable dice of the next event of ``table`` (the caller holds its turn and
        made sure the epoch is not full): its position, the roller's client seed
        (``event``: the open roll decided on, whose roller's seed is kept)."""
        epoch = table.epoch
        assert epoch is not None
        position = epoch.position(table.seq + 1)
        assert 0 <= position < LEAVES
        client = ((event or {}).get("proof") or {}).get("client") or (
            member.client_seed if member is not None and member.client_seed
            else new_client_seed())
        source = ProvableDice(epoch.leaf(position), client, position)
        source.proof = {"epoch": epoch.number, "commitment": epoch.commitment,
                        "position": position, "client": client}
        return source

    @staticmethod
    def epoch_full(table: Table) -> bool:
        """Whether the table's next event would be past its epoch's last position."""
        return table.epoch is not None and table.epoch.position(table.seq + 1) >= LEAVES

    @staticmethod
    def _server_ticket(table: Table, member: Member | None) -> RollTicket:
        by = Member(name="sidecar", role="server") if member is None else member
        return RollTicket(table, by, None, None, None)

    def begin_epoch_end(self, table: Table, member: Member, request: EpochRequest
                        ) -> RollTicket:
        """Check that ``member`` may end the epoch (GMs only, on a provable server)."""
        self._gm_only(member, "end an epoch", "clore une époque")
        if not self.provable:
            raise ProtocolError(
                "forbidden", "this server's dice are not verifiable (--dice provable)",
                fr="les dés de ce serveur ne sont pas vérifiables (--dice provable)")
        return RollTicket(table, member, None, request.id, self._key(member, request.id))

    def epoch_end(self, table: Table, ticket: RollTicket | None = None, *,
                  start_next: bool = True) -> Pending:
        """The event ending the current epoch (the caller holds the table's turn): its seed,
        journaled (the GMs' view shows it, players' does not) and the next commitment;
        ``start_next=False`` (the server stopping) leaves the next epoch to the table's
        next welcome."""
        old = table.epoch
        assert old is not None
        seq = table.seq + 1
        new = Epoch.fresh(old.number + 1, seq, self.epoch_settings()) if start_next else None
        ticket = ticket or self._server_ticket(table, None)
        event = {"type": "epoch", "op": "reveal", "seq": seq, "table": table.name,
                 "epoch": old.public(), "seed": old.seed.hex(), "events": seq - old.base - 1,
                 "next": new.public() if new is not None else None, "by": ticket.member.by,
                 "mode": "public", "request_id": ticket.request_id}
        return self._pending(ticket, event, (
            ("epoch", "current", new.record() if new is not None else None),
            ("epoch", str(old.number), {"seed": old.seed.hex(),
                                        "commitment": old.commitment, "base": old.base})))

    def epoch_start(self, table: Table) -> Pending:
        """The event starting a table's epoch (the caller holds the table's turn): its
        commitment, public; the seed stays in the server's records. The first one is 1;
        after a stop that revealed the last one, the next number."""
        epoch = Epoch.fresh(max(table.revealed, default=0) + 1, table.seq + 1,
                            self.epoch_settings())
        ticket = self._server_ticket(table, None)
        event = {"type": "epoch", "op": "start", "seq": table.seq + 1, "table": table.name,
                 "epoch": epoch.public(), "by": ticket.member.by, "mode": "public",
                 "request_id": None}
        return self._pending(ticket, event, (("epoch", "current", epoch.record()),))

    @staticmethod
    def with_key(table: Table, message: dict[str, Any]) -> dict[str, Any]:
        """An outcome as its reader sees it, plus (once its epoch is revealed) its roll's
        leaf key and path to the commitment: only readers who see the roll get them."""
        proof = message.get("proof")
        if proof is None or "position" not in proof:
            return message
        seed = table.revealed.get(proof["epoch"])
        if seed is None:
            return message
        position = proof["position"]
        message = dict(message)
        message["proof"] = {**proof, "key": leaf_key(seed, position).hex(),
                            "path": tree(seed).path(position)}
        return message

    # -- open rolls -----------------------------------------------------------------------

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
            key = self._key(member, request.id)
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
                    session=ticket.table.session, turn=ticket.table.turns)
        character = ticket.table.characters.get(roll.character) if roll.character else None
        if character is not None:
            roll.sheet = character.copy_values()
        elif roll.character is not None:
            roll.character = None  # the character was removed meanwhile: nothing to spend
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
        react = ReactTicket(table, None, event, "", None, None, None, None)
        ticket, roll, outcome = self.reopen(react)
        outcome.choices = outcome.default = None
        outcome.dice = []
        text = {locale: f"{event['text'][locale]} — "
                        f"{'temps écoulé' if locale == 'fr' else 'time is up'}"
                for locale in ("fr", "en")}
        resolution = Resolution(roll=roll, outcome=outcome, text=text, state=table.state)
        pending = self.number(ticket, resolution, reaction=react)
        pending.event["choice"] = None
        return pending


    def _spend(self, character: Character, roll: Roll, spend: Any, owner_seat: str, *,
               notes: list[str] | None = None
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
                fr=f"le jet a dépensé ce que la fiche de {character.ruleset} n'a pas "
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
        record = Character(character.name, character.ruleset, character.owner, values, shown)
        return spent, (("character", character.name, record.to_record()),)

    @staticmethod
    def _held(character: Character, roll: Roll, sheet: dict[str, Any],
              spend: dict[str, Any], notes: list[str]) -> dict[str, Any]:
        """A rolled outcome's spend, taken only as far as the sheet holds (contract §7:
        refusals never depend on the dice); what was not taken goes in ``notes``."""
        taken, unpaid = taken_as_far_as_held(sheet, character.values, spend)
        if unpaid:
            log.warning("ruleset %s spent past the sheet of %r after its dice (not taken: "
                        "%s): declare it in sidecar_max_spend or clamp it", roll.ruleset,
                        character.name, unpaid)
            notes.append(unpaid_note(unpaid))
        return taken

    def commit(self, pending: Pending) -> list[Delivery]:
        """The journal stored the event: commit it to the table; who gets which view."""
        ticket = pending.ticket
        table = ticket.table
        table.pending -= 1
        table.commit(pending.event, pending.state, ticket.key, pending.size, pending.records)
        pending.closing = self._unseat(table, pending.event, pending.close_seat)
        deliveries = [Delivery(members, message) for members, message in plan(
            pending.event, table.members, requester=ticket.member,
            request_id=None if not pending.echo else (
                pending.reply_id if pending.reply_id is not None else ticket.request_id),
            extra=pending.extra)]
        self.tables.forget_if_idle(table)
        return deliveries

    def apply(self, table: Table, event: dict[str, Any], state: dict[str, Any] | None,
              records: tuple[tuple[str, str, Any], ...], size: int = 0
              ) -> tuple[list[Delivery], list[Member]]:
        """An event another process stored (a shared store): take it as :meth:`commit`
        takes this process's own (``state`` None: the plugin state did not change; its
        request id remembered as the store files it, by roller), and say who here gets
        which view, and which connections its seat change closes."""
        key = None
        if event.get("request_id") is not None:
            by = event["by"]
            key = (by["name"], identity_role(by), request_key(event["request_id"]) or "")
        table.commit(event, table.state if state is None else state, key, size, records)
        closing = self._unseat(table, event, event["name"] if event["type"] == "seat"
                               and event.get("op") in ("remove", "rotate") else None)
        deliveries = [Delivery(members, message)
                      for members, message in plan(event, table.members)]
        self.tables.forget_if_idle(table)
        return deliveries, closing

    @staticmethod
    def _unseat(table: Table, event: dict[str, Any], close_seat: str | None) -> list[Member]:
        """The connections a committed seat event takes from the table (unseated here;
        the server closes them): those on ``close_seat`` (removed or re-keyed), or the
        players without a seat who took the name of a seat just added."""
        if close_seat is not None:
            # Found now, not when the event was numbered: a hello with the old token may
            # have joined while the event was on its way to the store.
            closing = table.seat_members(close_seat)
        elif event["type"] == "seat" and event.get("op") == "add":
            # Players who took the new seat's name (or one like it) with the shared token
            # leave: from now on that name is the seat's only.
            key = folded(event["name"])
            closing = [m for m in table.members if m.role == "player"
                       and not m.seat and folded(m.name) == key]
        else:
            return []
        for member in closing:
            table.leave(member)  # a removed or re-keyed seat sees nothing more from now
            member.gone = True  # ...and nothing it already sent is acted on
        return closing

    def abandon(self, pending: Pending) -> ProtocolError:
        """The journal refused the event: nothing was committed; the roller's error."""
        table = pending.ticket.table
        table.pending -= 1
        self.tables.forget_if_idle(table)
        return ProtocolError("internal", "the roll could not be stored; nothing was sent",
                             fr="le jet n'a pas pu être enregistré ; rien n'a été envoyé")

    # -- seats and characters -------------------------------------------------------------

    @staticmethod
    def _gm_only(member: Member, what: str, fr: str) -> None:
        if member.role != "gm":
            raise ProtocolError("forbidden", f"only a GM may {what}",
                                fr=f"seul un MJ peut {fr}")

    def begin_change(self, table: Table, member: Member,
                     request: SeatRequest | SheetRequest | SessionRequest | AskRequest
                     | InitiativeRequest) -> RollTicket:
        """Check that ``member`` may make this seat or sheet change (GMs only)."""
        if isinstance(request, InitiativeRequest):
            self._gm_only(member, "order the initiative", "ordonner l'initiative")
        elif isinstance(request, AskRequest):
            self._gm_only(member, "ask for rolls", "demander des jets")
        elif isinstance(request, SessionRequest):
            self._gm_only(member, "start a session", "commencer une séance")
        elif isinstance(request, SeatRequest):
            self._gm_only(member, "manage seats", "gérer les places")
        else:
            self._gm_only(member, "change characters", "modifier les personnages")
            check_strings(request.values, request.delta, self.config.max_string_chars)
        return RollTicket(table, member, None, request.id, self._key(member, request.id))

    def _event(self, ticket: RollTicket, kind: str, audience: str, **fields: Any
               ) -> dict[str, Any]:
        event = {"type": kind, "seq": ticket.table.seq + 1, "table": ticket.table.name,
                 **fields, "by": ticket.member.by, "mode": "gm", "audience": audience,
                 "request_id": ticket.request_id}
        return event

    def _pending(self, ticket: RollTicket, event: dict[str, Any],
                 records: tuple[tuple[str, str, Any], ...], **more: Any) -> Pending:
        size = check_event_size(event, self.config.max_event_bytes)
        ticket.table.pending += 1
        return Pending(ticket, event, ticket.table.state, size, records, **more)

    def seat_change(self, ticket: RollTicket, request: SeatRequest) -> Pending:
        """The event of a seat ``add``, ``remove`` or ``rotate`` (the caller holds the
        table's turn); the requester's copy alone gets the new token, link and QR code."""
        table, name = ticket.table, request.name
        assert name is not None
        has = name in table.seats
        if request.op == "add" and has:
            raise bad_field("name", f"'{name}' already has a seat (rotate it for a new link)",
                            fr=f"« {name} » a déjà une place (refaites son lien)")
        if request.op == "add" and (near := lookalike(name, table.seats)) is not None:
            raise bad_field("name", f"'{name}' looks like the seat '{near}'",
                            fr=f"« {name} » ressemble à la place « {near} »")
        if request.op != "add" and not has:
            raise bad_field("name", f"'{name}' has no seat", fr=f"« {name} » n'a pas de place")
        if request.op == "add" and len(table.seats) >= MAX_SEATS:
            raise ProtocolError("too_large", f"a table has at most {MAX_SEATS} seats",
                                fr=f"une table a au plus {MAX_SEATS} places")
        if request.op == "remove":
            event = self._event(ticket, "seat", "", op="remove", name=name)
            return self._pending(ticket, event, (("seat", name, None),),
                                 close_seat=name, close_reason="seat removed")
        token = new_token()
        digest = token_hash(token)
        # A new seat is a new identity, even under a name a removed seat had: it reads
        # none of that seat's secret rolls. A new token keeps the seat (and its id).
        seat_id = table.seat_ids[name] if request.op == "rotate" else secrets.token_hex(6)
        event = self._event(ticket, "seat", "", op=request.op, name=name, token_sha256=digest,
                            seat_id=seat_id)
        link = seat_link(self.public_url, table.name, name, token)
        extra = {"token": token, "link": link}  # (the server adds the QR code)
        return self._pending(ticket, event, (("seat", name, {"token_sha256": digest,
                                                             "id": seat_id}),),
                             extra=extra, close_seat=name if request.op == "rotate" else None,
                             close_reason="seat token changed" if request.op == "rotate"
                             else "name taken by a seat")

    def initiative_entries(self, table: Table, request: InitiativeRequest
                           ) -> tuple[str, list[dict[str, Any]]]:
        """The ruleset and the entries an initiative is asked for: known characters, all
        of one ruleset (``invalid_params`` otherwise)."""
        entries, rulesets = [], set()
        for given in request.characters:
            character = table.characters.get(given["character"])
            if character is None:
                raise self._no_character(given["character"])
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
                raise self._no_character(name)
            values, _ = apply_delta(sheet, character.values, amounts, sign=-1, where="spend")
            after = Character(name, character.ruleset, character.owner, values)
            records += (("character", name, after.to_record()),)
        event = {"type": "initiative", "seq": table.seq + 1, "table": table.name,
                 "ruleset": ruleset, "order": answer["order"],
                 "claims": [e["character"] for e in request.characters if e["claim"]],
                 "spent": answer["spend"], "entries": [dict(e) for e in request.characters],
                 "by": ticket.member.by, "mode": "public",
                 "request_id": ticket.request_id}
        return self._pending(ticket, event, records)

    def session_start(self, ticket: RollTicket) -> Pending:
        """The event of a new game session (the caller holds the table's turn): public,
        numbered after the last one; what lasts "for the session" starts over."""
        number = ticket.table.session + 1
        event = {"type": "session", "seq": ticket.table.seq + 1, "table": ticket.table.name,
                 "number": number, "by": ticket.member.by, "mode": "public",
                 "request_id": ticket.request_id}
        return self._pending(ticket, event, (("session", "current", {"number": number}),))

    def turn_next(self, ticket: RollTicket) -> Pending:
        """The event of a new turn (a table-wide ``refill turn``; the caller holds the
        table's turn): public, a ``session`` event with ``op: "turn"``, numbered after the
        last turn; what lasts "this turn and the next" counts on it (``roll.turn``)."""
        number = ticket.table.turns + 1
        event = {"type": "session", "op": "turn", "seq": ticket.table.seq + 1,
                 "table": ticket.table.name, "number": ticket.table.session, "turn": number,
                 "by": ticket.member.by, "mode": "public", "request_id": ticket.request_id}
        return self._pending(ticket, event, (("session", "turn", {"number": number}),))

    #: Where seat links point: set by the server once it knows its address.
    public_url = "http://127.0.0.1:8765/"

    def seat_list(self, table: Table, member: Member, request: SeatRequest) -> dict[str, Any]:
        """The answer to ``seat`` ``list`` (GMs only)."""
        self._gm_only(member, "manage seats", "gérer les places")
        page, more = take_page(seat_entries(table, request.after), limit=request.limit,
                               max_bytes=self.config.max_history_bytes, binary=member.binary)
        return seats_message(table.name, page, request.id, more=more,
                             next=page[-1]["name"] if page else request.after)

    def sheet_list(self, table: Table, member: Member, request: SheetRequest
                   ) -> dict[str, Any]:
        """The answer to ``sheet`` ``list``: a page of the characters ``member`` may see
        (``more`` and ``next``: pass ``after: next`` for the following page)."""
        page, more = self.visible_characters(table, member, after=request.after,
                                             limit=request.limit)
        return sheets_message(table.name, page, request.id, more=more,
                              next=page[-1]["character"] if page else request.after)

    def refill_targets(self, table: Table, request: SheetRequest) -> list[str]:
        """The characters a ``refill`` is about (one, or all of the table's)."""
        if request.character is not None:
            if request.character not in table.characters:
                raise self._no_character(request.character)
            return [request.character]
        return sorted(table.characters)

    @staticmethod
    def _no_character(name: str) -> ProtocolError:
        return ProtocolError("invalid_params", f"no character '{name[:64]}' at this table",
                             fr=f"pas de personnage « {name[:64]} » à cette table",
                             details={"param": "character", "field": "character"})

    def sheet_change(self, ticket: RollTicket, request: SheetRequest,
                     character_name: str | None = None) -> Pending | None:
        """The event of a sheet ``set``, ``adjust``, ``refill`` or ``remove`` (the caller
        holds the table's turn). ``character_name``: for a refill of every character,
        the one this event is about; ``None`` then when it changes nothing."""
        table = ticket.table
        name = character_name or request.character
        assert name is not None
        current = table.characters.get(name)
        reason = request.reason
        if request.op == "set":
            if current is None and len(table.characters) >= MAX_CHARACTERS:
                raise ProtocolError(
                    "too_large", f"a table has at most {MAX_CHARACTERS} characters",
                    fr=f"une table a au plus {MAX_CHARACTERS} personnages")
            assert request.ruleset is not None
            if current is not None and current.ruleset != request.ruleset:
                raise ProtocolError(
                    "invalid_params",
                    f"'{name}' plays {current.ruleset}; remove it to make a {request.ruleset[:40]} "
                    "character of that name",
                    fr=f"« {name} » joue à {current.ruleset} ; supprimez-le pour faire un "
                       f"personnage {request.ruleset[:40]} de ce nom",
                    details={"param": "ruleset", "field": "ruleset"})
            if request.ruleset not in {r["name"] for r in self.catalogue.ruleset_listing()}:
                raise ProtocolError(
                    "unknown_ruleset", f"unknown ruleset '{request.ruleset[:40]}'",
                    fr=f"jeu de règles inconnu « {request.ruleset[:40]} »",
                    details={"ruleset": request.ruleset[:40]})
            owner = current.owner if current is not None else None
            if request.has_owner:
                owner = request.owner
                if owner is not None and owner not in table.seats:
                    raise ProtocolError(
                        "invalid_params", f"owner '{owner[:64]}' has no seat at this table",
                        fr=f"« {owner[:64]} » n'a pas de place à cette table",
                        details={"param": "owner", "field": "owner"})
            sheet = self.catalogue.sheet_schema(request.ruleset)
            before = current.values if current is not None else {}
            values = checked_values(sheet, request.values, current.values if current else None)
            changed = diff(before, values)
            after = Character(name, request.ruleset, owner, values)
        else:
            if current is None:
                raise self._no_character(name)
            sheet = self.catalogue.sheet_schema(current.ruleset)
            if request.op == "adjust":
                values, changed = apply_delta(sheet, current.values, request.delta, sign=1,
                                              where="delta")
            elif request.op == "refill":
                assert request.what is not None
                values, changed = refilled(sheet, current.values, request.what)
                if character_name is not None and not changed:
                    return None
            else:  # remove
                values, changed = current.values, {}
            after = Character(name, current.ruleset, current.owner, values)
        fields: dict[str, Any] = {"op": request.op, "character": name,
                                  "ruleset": after.ruleset, "owner": after.owner,
                                  "values": after.values, "changed": changed,
                                  "reason": reason}
        if request.op == "refill":
            fields["what"] = request.what
        record: Any = after.to_record()
        if request.op == "remove":
            fields["removed"] = True
            record = None
        event = self._event(ticket, "sheet", sheet_audience(table, after.owner), **fields)
        return self._pending(ticket, event, (("character", name, record),))

    # -- other requests -----------------------------------------------------------------

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
        return roll

    @staticmethod
    def odds(request: OddsRequest, roll: Roll, odds: dict[str, Any]) -> dict[str, Any]:
        return odds_message(roll.ruleset, roll.params, odds, request.id)

    @staticmethod
    def replayed(member: Member, event: dict[str, Any],
                 table: Table | None = None) -> dict[str, Any] | None:
        """A journal event resent to a resuming member, as they may see it: once its
        epoch is revealed, an outcome carries its key and path as ``history`` gives them
        (:meth:`with_key`; ``table``: the member's)."""
        message = view(event, member)
        if message is not None and table is not None and "proof" in message:
            message = TableCore.with_key(table, message)
        return message

    def plugins(self, request: PluginsRequest) -> dict[str, Any]:
        return plugins_message(self.catalogue.status(), request.id)

    @staticmethod
    def already_joined(table: Table) -> ProtocolError:
        return ProtocolError(
            "bad_message", f"already joined table '{table.name}'",
            fr=f"déjà à la table « {table.name} »", details={"field": "type"})

    @staticmethod
    def not_joined() -> ProtocolError:
        return ProtocolError(
            "not_joined", "send 'hello' first to join a table",
            fr="envoyez d'abord « hello » pour rejoindre une table")


class HistoryPage:
    """One ``history`` answer being gathered, bounded in events and in bytes.

    The server asks the journal for :meth:`wanted` more events after :attr:`last` (plus
    one, to learn whether more exist) and hands each chunk to :meth:`add` until
    :meth:`wanted` says 0. The page stops at ``request.limit`` events or before
    ``max_bytes`` of events encoded as the client reads them (``binary``), so it never
    holds more in memory and always fits the client's frame; ``more`` then says so.
    """

    CHUNK = 50

    def __init__(self, table: Table, member: Member, request: HistoryRequest, *,
                 binary: bool, max_bytes: int) -> None:
        self.table, self.member, self.request = table, member, request
        self.binary, self.max_bytes = binary, max_bytes
        self.events: list[dict[str, Any]] = []
        #: Encoded bytes of the events gathered (what the client decodes).
        self.size = 0
        #: The seq the next chunk starts after.
        self.last = request.after
        self.more = False
        self._done = False

    def wanted(self) -> int:
        """How many more events to read from the journal (0: the page is complete)."""
        if self._done:
            return 0
        return min(self.CHUNK, self.request.limit - len(self.events))

    def add(self, chunk: list[dict[str, Any]]) -> None:
        """Take up to ``wanted() + 1`` journal events (as the member may see them)."""
        wanted = self.wanted()
        for event in chunk[:wanted]:
            message = view(event, self.member)
            if message is None:
                self.last = event["seq"]
                continue
            if "proof" in message:
                message = TableCore.with_key(self.table, message)
            size = encoded_size(message, self.binary)
            if self.events and self.size + size > self.max_bytes:
                self.more = self._done = True
                return
            self.events.append(message)
            self.size += size
            self.last = event["seq"]
        if len(chunk) <= wanted:  # the journal has nothing after this chunk
            self._done = True
        elif len(self.events) >= self.request.limit:
            self.more = self._done = True

    def message(self) -> dict[str, Any]:
        return history_message(self.table.name, self.events, more=self.more, next=self.last,
                               request_id=self.request.id)
