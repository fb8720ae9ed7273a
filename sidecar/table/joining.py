"""Joining a table: whose token opens which seat, the ``welcome``, leaving, presence."""

from __future__ import annotations

import collections
import hmac
from typing import Any

from sidecar.dice.provable import new_client_seed
from sidecar.hookspecs import HOOKS_API
from sidecar.protocol.errors import ProtocolError
from sidecar.protocol.messages import AskRequest, Hello, PluginsRequest
from sidecar.protocol.replies import plugins_message, presence_message, welcome_message
from sidecar.table.basis import CoreBasis
from sidecar.table.effects import CLOSE_POLICY, Delivery
from sidecar.table.joinlink import join_block
from sidecar.table.seats import lookalike, token_hash
from sidecar.table.tables import Member, Table

#: The most bytes of characters a ``welcome`` carries (the rest: ``sheet`` ``list``), and
#: the most of open asks (the rest: ``ask`` ``list``).
WELCOME_BYTES = 24 * 1024

#: Seconds between two presence messages of one table: joins and leaves in between are
#: coalesced into the next one, which always carries the state at the time it is sent.
PRESENCE_INTERVAL = 0.25


class Joining(CoreBasis):
    """Who may join a table as what, what they are told when they do, and who is there.
    The welcome's first pages of characters and asks are
    :class:`~sidecar.table.characters.Characters`' and :class:`~sidecar.table.asks.Asks`'."""

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
            raise self._refused("wrong token for the GM role",
                                "jeton incorrect pour le rôle de MJ")
        table = self.tables.open(hello.table)
        seat = ""
        if role == "player":
            digest = token_hash(hello.token) if hello.token and table.seats else None
            seat_name = table.seat_of(digest) if digest else None
            if hello.name in table.seats:
                if seat_name != hello.name:
                    if seat_name is None and not (player_ok or gm_ok):
                        # No valid token at all: say nothing of which names have seats.
                        raise self._refused("wrong token for the player role",
                                            "jeton incorrect pour le rôle de joueur")
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
                raise self._refused("wrong token for the player role",
                                    "jeton incorrect pour le rôle de joueur")
            elif (near := lookalike(hello.name, table.seats)) is not None:
                # Not the seat's identity, but the table would read it as the seat's name.
                raise self._refused(
                    f"'{hello.name}' looks like the name of the seat '{near}': join with "
                    "its link, or under another name",
                    f"« {hello.name} » ressemble au nom de la place « {near} » : rejoignez-la "
                    "avec son lien, ou sous un autre nom", seat=near)
        member = Member(name=hello.name, role=role, locale=hello.locale, binary=binary,
                        connection=connection, seat=seat,
                        # Live events wait until its welcome is sent (and, resuming,
                        # its replay): another member's event, or an epoch started by a
                        # member joining at the same moment, never comes before it.
                        held=collections.deque(),
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
        # What the client echoes in ``hello.catalogue`` it has already: not sent again.
        digest, described = self.catalogue.welcome_listing(member.locale)
        message = welcome_message(
            table=table.name, role=member.role, seq=table.seq, version=self.version,
            rulesets=described["rulesets"], extensions=described["extensions"],
            options=described["options"], catalogue=digest,
            cached=hello.catalogue == digest,
            manual_dice=member.role == "gm" or self.config.allow_player_dice,
            replayed=replayed if hello.resume is not None else None,
            request_id=hello.id, seat=member.seat, characters=characters,
            characters_more=more,
            asks=asks["asks"], asks_more=asks["more"],
            # (``by``: whose seed it is, as outcomes name their roller: a saved log then
            # says which of its rolls must show this seed.)
            epoch=({**table.epoch.public(), "client": member.client_seed,
                    "by": {"name": member.name, "role": member.role}}
                   if self.provable and table.epoch is not None else None),
            hooks=HOOKS_API)
        # GMs get the players' join link and its QR code (a server open to the LAN only).
        join = join_block(self.config, self.public_url, table.name) if member.role == "gm" \
            else None
        if join is not None:
            message["join"] = join
        return message

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
