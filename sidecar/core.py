"""The table core: every decision about joining, rolling and answering, without I/O.

Modelled on websockets' sans-I/O ``ServerProtocol``: the server (:mod:`sidecar.server`)
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
import hmac
import logging
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from sidecar.config import ServerConfig
from sidecar.journal import request_key
from sidecar.limits import check_event_size, check_strings, encoded_size
from sidecar.model import Roll
from sidecar.pipeline import Resolution
from sidecar.protocol.errors import ProtocolError
from sidecar.protocol.messages import (
    Hello,
    HistoryRequest,
    OddsRequest,
    PluginsRequest,
    RollRequest,
    history_message,
    odds_message,
    plugins_message,
    presence_message,
    welcome_message,
)
from sidecar.table import Member, Table, Tables
from sidecar.visibility import plan, view

log = logging.getLogger("sidecar.core")

#: Close codes that follow some errors (RFC 6455).
CLOSE_PROTOCOL = 1002
CLOSE_POLICY = 1008

#: Seconds between two presence messages of one table: joins and leaves in between are
#: coalesced into the next one, which always carries the state at the time it is sent.
PRESENCE_INTERVAL = 0.25


class Catalogue(Protocol):
    """What the core reports about the plugins (the plugin host provides it)."""

    def ruleset_listing(self) -> list[dict[str, Any]]: ...
    def extension_listing(self) -> list[dict[str, Any]]: ...
    def status(self) -> list[dict[str, Any]]: ...


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
    """A roll accepted for resolution: the prepared roll and how to recognise a repeat."""

    table: Table
    member: Member
    roll: Roll
    request_id: Any
    key: tuple[str, str, str] | None


@dataclass
class Pending:
    """An event numbered tentatively, waiting for the journal: nothing is committed yet."""

    ticket: RollTicket
    event: dict[str, Any]
    state: dict[str, dict[str, Any]]
    #: The event's size as the journal stores it (bytes of JSON).
    size: int


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

    def _token_ok(self, token: str | None, role: str) -> bool:
        given = (token or "").encode()
        accepted = [self.config.gm_token]
        if role != "gm":
            accepted.append(self.config.player_token)
        # compare_digest against every candidate, so timing says nothing of which matched.
        ok = False
        for candidate in accepted:
            ok |= hmac.compare_digest(given, candidate.encode())
        return ok

    def join(self, hello: Hello, *, binary: bool, connection: Any = None
             ) -> tuple[Table, Member]:
        """Seat the sender of ``hello``; raises ``forbidden`` (wrong token: then close),
        ``too_large`` (limits) or ``forbidden`` (an observer naming a new table)."""
        token_ok = hello.token is not None and self._token_ok(hello.token, hello.role)
        if hello.role != "observer" and not token_ok:
            raise ProtocolError("forbidden", f"wrong token for the role '{hello.role}'",
                                fr=f"jeton incorrect pour le rôle « {hello.role} »",
                                close=CLOSE_POLICY)
        member = Member(name=hello.name, role=hello.role, locale=hello.locale, binary=binary,
                        connection=connection,
                        held=collections.deque() if hello.resume is not None else None)
        # Creating a table takes a token: observers without one only join existing tables.
        table = self.tables.join(hello.table, member, creator=token_ok)
        return table, member

    def welcome(self, table: Table, member: Member, hello: Hello,
                replayed: int | None = None) -> dict[str, Any]:
        """The ``welcome`` for a member just seated (``replayed``: events to be resent)."""
        return welcome_message(
            table=table.name, role=member.role, seq=table.seq, version=self.version,
            rulesets=self.catalogue.ruleset_listing(),
            extensions=self.catalogue.extension_listing(),
            manual_dice=member.role == "gm" or self.config.allow_player_dice,
            replayed=replayed if hello.resume is not None else None,
            request_id=hello.id)

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
        members = [{"name": m.name, "role": m.role} for m in table.members]
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
        key = None
        if request.id is not None:
            key = (member.name, member.role, request_key(request.id) or "")
        roll = self.preparer.prepare(
            request.ruleset, request.params, options=request.options, table=table.name,
            by={"name": member.name, "role": member.role}, label=request.label,
            mode=request.mode, manual=request.dice is not None)
        return RollTicket(table, member, roll, request.id, key)

    @staticmethod
    def repeat(member: Member, event: dict[str, Any]) -> dict[str, Any]:
        """The answer to a request id already resolved: its original outcome, as
        ``member`` may see it, marked ``duplicate``."""
        message = view(event, member, duplicate=True)
        assert message is not None, "a member always sees their own roll"
        return message

    def number(self, ticket: RollTicket, resolution: Resolution) -> Pending:
        """The journal event of a resolved roll, numbered after the table's committed seq.

        Nothing about the table changes until :meth:`commit`. The caller holds
        ``table.turn`` from here to commit or abandon. An event larger than
        ``max_event_bytes`` is refused here (``too_large``), before anything is counted.
        """
        table = ticket.table
        roll, outcome = resolution.roll, resolution.outcome
        event = {
            "type": "outcome",
            "seq": table.seq + 1,
            "roll": secrets.token_hex(8),
            "table": table.name,
            "by": {"name": roll.by["name"], "role": roll.by["role"]},
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
        size = check_event_size(event, self.config.max_event_bytes)
        table.pending += 1
        return Pending(ticket, event, resolution.state, size)

    def commit(self, pending: Pending) -> list[Delivery]:
        """The journal stored the event: commit it to the table; who gets which view."""
        ticket = pending.ticket
        table = ticket.table
        table.pending -= 1
        table.commit(pending.event, pending.state, ticket.key, pending.size)
        deliveries = [Delivery(members, message) for members, message in plan(
            pending.event, table.members, requester=ticket.member,
            request_id=ticket.request_id)]
        self.tables.forget_if_idle(table)
        return deliveries

    def abandon(self, pending: Pending) -> ProtocolError:
        """The journal refused the event: nothing was committed; the roller's error."""
        table = pending.ticket.table
        table.pending -= 1
        self.tables.forget_if_idle(table)
        return ProtocolError("internal", "the roll could not be stored; nothing was sent",
                             fr="le jet n'a pas pu être enregistré ; rien n'a été envoyé")

    # -- other requests -----------------------------------------------------------------

    def prepare_odds(self, table: Table, member: Member, request: OddsRequest) -> Roll:
        """The roll whose exact odds are asked (nothing is rolled)."""
        check_strings(request.params, request.options, self.config.max_string_chars)
        return self.preparer.prepare(
            request.ruleset, request.params, options=request.options, table=table.name,
            by={"name": member.name, "role": member.role})

    @staticmethod
    def odds(request: OddsRequest, roll: Roll, odds: dict[str, Any]) -> dict[str, Any]:
        return odds_message(roll.ruleset, roll.params, odds, request.id)

    @staticmethod
    def replayed(member: Member, event: dict[str, Any]) -> dict[str, Any] | None:
        """A journal event resent to a resuming member, as they may see it."""
        return view(event, member)

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
