"""What the table core hands the server: tickets of accepted requests, events numbered and
waiting for the journal (:class:`Pending`), messages to deliver (:class:`Delivery`) and
answers for the requester alone (:class:`Reply`).

The core never performs I/O: it returns these values, and the server's one runner
(:mod:`sidecar.server.runner`) journals each :class:`Pending`, commits it and delivers what
the commit returns.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sidecar.model import Roll
from sidecar.table.tables import Member, Table

#: The close code that follows some refusals (RFC 6455: policy violation).
CLOSE_POLICY = 1008


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
    #: The characters the roll is aimed at (contract §8).
    targets: tuple[str, ...] = ()


@dataclass
class ReactTicket:
    """A decision accepted on an open roll: the open outcome's event and the choice."""

    table: Table
    member: Member | None
    event: dict[str, Any]
    #: ``None``: the roll's time ran out without a default (closed as it stands).
    choice: str | None
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
    #: Targets whose owner the roll's mode hides it from: each is shown its new values
    #: by a ``sheet`` ``effect`` event right after this one (contract §8).
    notices: tuple[str, ...] = ()


@dataclass
class Reply:
    """A message for the requester alone, sent once the events before it are delivered
    (the list of characters after a whole-table refill)."""

    message: dict[str, Any]
