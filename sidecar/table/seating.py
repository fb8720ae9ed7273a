"""The GM's seats: adding, removing and re-keying a seat, and the list of them (tokens,
links and QR codes are :mod:`sidecar.table.seats`)."""

from __future__ import annotations

import secrets
from typing import Any

from sidecar.protocol.errors import ProtocolError, bad_field
from sidecar.protocol.events import seat_event
from sidecar.protocol.messages import SeatRequest
from sidecar.protocol.replies import seats_message
from sidecar.table.basis import CoreBasis, gm_only
from sidecar.table.effects import Pending, RollTicket
from sidecar.table.listing import seat_entries, take_page
from sidecar.table.names import refuse_seat_name
from sidecar.table.seats import MAX_SEATS, lookalike, new_token, seat_link, token_hash
from sidecar.table.tables import Member, Table


class Seating(CoreBasis):
    """Seat changes (GMs only) and their list."""

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
        if request.op == "add":
            refuse_seat_name(table, name)
        if request.op != "add" and not has:
            raise bad_field("name", f"'{name}' has no seat", fr=f"« {name} » n'a pas de place")
        if request.op == "add" and len(table.seats) >= MAX_SEATS:
            raise ProtocolError("too_large", f"a table has at most {MAX_SEATS} seats",
                                fr=f"une table a au plus {MAX_SEATS} places")
        if request.op == "remove":
            event = seat_event(**self._head(ticket), op="remove", name=name)
            return self._pending(ticket, event, (("seat", name, None),),
                                 close_seat=name, close_reason="seat removed")
        token = new_token()
        digest = token_hash(token)
        # A new seat is a new identity, even under a name a removed seat had: it reads
        # none of that seat's secret rolls. A new token keeps the seat (and its id).
        seat_id = table.seat_ids[name] if request.op == "rotate" else secrets.token_hex(6)
        event = seat_event(**self._head(ticket), op=request.op, name=name, token_sha256=digest,
                           seat_id=seat_id)
        link = seat_link(self.public_url, table.name, name, token)
        extra = {"token": token, "link": link}  # (the server adds the QR code)
        return self._pending(ticket, event, (("seat", name, {"token_sha256": digest,
                                                             "id": seat_id}),),
                             extra=extra, close_seat=name if request.op == "rotate" else None,
                             close_reason="seat token changed" if request.op == "rotate"
                             else "name taken by a seat")

    def seat_list(self, table: Table, member: Member, request: SeatRequest) -> dict[str, Any]:
        """The answer to ``seat`` ``list`` (GMs only)."""
        gm_only(member, "manage seats", "gérer les places")
        page, more = take_page(seat_entries(table, request.after), limit=request.limit,
                               max_bytes=self.config.max_history_bytes, binary=member.binary)
        return seats_message(table.name, page, request.id, more=more,
                             next=page[-1]["name"] if page else request.after)
