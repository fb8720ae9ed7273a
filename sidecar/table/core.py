"""The table core: every decision about joining, rolling and answering, without I/O.

Modelled on websockets' sans-I/O ``ServerProtocol``: the server (:mod:`sidecar.server`)
decodes a frame, hands the parsed request to :class:`TableCore`, performs the I/O the core
asks for (run the roll pipeline, append to the journal, read a page of it) and sends the
:class:`Delivery` values the core returns. The core never touches a socket, the clock or
the journal: tests drive it directly (``tests/test_table_core.py``).

A roll goes through four calls, which the server's one runner
(:meth:`sidecar.server.runner.Runner._perform`) makes for every change to a table::

    ticket = core.begin_roll(table, member, request)      # checked; a repeat is answered
    async with table.turn:                                # one change at a time per table
        resolution = await pipeline.run(ticket.roll, ...) # plugins (async hooks)
        pending = core.number(ticket, resolution)         # tentative seq, nothing changed
        await journal.append(pending.event, pending.state)
        deliveries = core.commit(pending)                 # or core.abandon(pending)

so a journal write that fails changes nothing: no seq taken, no plugin state, no request
id remembered.
"""

from __future__ import annotations

from sidecar.table.asks import Asks, cooperate, oppose
from sidecar.table.basis import Catalogue, CoreBasis, Preparer
from sidecar.table.characters import Characters
from sidecar.table.commits import Commits
from sidecar.table.decisions import Decisions
from sidecar.table.effects import (
    CLOSE_POLICY,
    Delivery,
    Pending,
    ReactTicket,
    Reply,
    RollTicket,
)
from sidecar.table.epochs import Epochs
from sidecar.table.history import HistoryPage, replayed
from sidecar.table.joining import PRESENCE_INTERVAL, WELCOME_BYTES, Joining
from sidecar.table.rolling import Rolling
from sidecar.table.seating import Seating
from sidecar.table.sessions import Sessions

__all__ = ["CLOSE_POLICY", "PRESENCE_INTERVAL", "WELCOME_BYTES", "Catalogue",
           "CoreBasis", "Delivery", "HistoryPage", "Pending", "Preparer", "ReactTicket",
           "Reply", "RollTicket", "TableCore", "cooperate", "oppose"]


class TableCore(Joining, Rolling, Decisions, Asks, Characters, Seating, Sessions, Epochs,
                Commits):
    """The tables of one server and every rule about them. Plain Python, no I/O.

    One class over the features, each a module of :mod:`sidecar.table`: joining and
    presence (:mod:`~sidecar.table.joining`), rolls (:mod:`~sidecar.table.rolling`),
    decisions on open rolls (:mod:`~sidecar.table.decisions`), the GM's asks
    (:mod:`~sidecar.table.asks`), characters (:mod:`~sidecar.table.characters`), seats
    (:mod:`~sidecar.table.seating`), sessions and initiative
    (:mod:`~sidecar.table.sessions`), verifiable dice's epochs
    (:mod:`~sidecar.table.epochs`) and committing events (:mod:`~sidecar.table.commits`);
    what they share is :class:`~sidecar.table.basis.CoreBasis`.
    """

    #: A journal event as a member reads it again (a resume's replay).
    replayed = staticmethod(replayed)
