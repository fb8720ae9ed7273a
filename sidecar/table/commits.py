"""Committing: an event the journal stored becomes the table's (its seq, state, records),
and the core says who gets which view of it — this process's own events and, with a
shared store, other processes' (:meth:`Commits.apply`)."""

from __future__ import annotations

from typing import Any

from sidecar.protocol.errors import ProtocolError
from sidecar.stores.journal import request_key
from sidecar.stores.journal.schema import identity_role
from sidecar.table.basis import CoreBasis
from sidecar.table.effects import Delivery, Pending
from sidecar.table.seats import folded
from sidecar.table.tables import Member, Table
from sidecar.table.visibility import plan


class Commits(CoreBasis):
    """Events in and out of the journal: :meth:`commit`, :meth:`apply`, :meth:`abandon`."""

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
