"""Each request, from the core's checks to its effects: rolls, decisions, seats, sheets,
asks, sessions, initiative, epochs, history and odds."""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from sidecar.config import ServerConfig
from sidecar.dice.sources import CURRENT
from sidecar.host.params import copy_params
from sidecar.host.pipeline import RollPipeline
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
)
from sidecar.server.transport import ClientSession
from sidecar.table.core import Delivery, HistoryPage, Pending, RollTicket, TableCore
from sidecar.table.seats import qr_data_uri
from sidecar.table.tables import Member, Table

log = logging.getLogger("sidecar.server")

#: A ``history`` page costs one request of the rate limit per this many bytes of events
#: (beyond the one every frame costs): page floods are bounded in bytes per second.
HISTORY_BYTES_PER_TOKEN = 16 * 1024


class Requests:
    """What the server does for each request of a joined member."""

    # (what this part uses of the server: see :class:`sidecar.server.connections.SidecarServer`)
    config: ServerConfig
    core: TableCore
    store: Any
    pipeline: RollPipeline

    async def _dispatch(self, session: ClientSession, request: Any) -> None:
        assert session.table is not None and session.member is not None
        if request.__class__ is RollRequest:  # (the most frequent request first)
            await self._roll(session, request)
            return
        if isinstance(request, Hello):
            raise self.core.already_joined(session.table)
        if isinstance(request, PluginsRequest):
            await self._send(session, self.core.plugins(request))
            return
        if isinstance(request, OddsRequest):
            await self._odds(session, request)
        elif isinstance(request, HistoryRequest):
            await self._history(session, request)
        elif isinstance(request, SeatRequest):
            await self._seat(session, request)
        elif isinstance(request, SheetRequest):
            await self._sheet(session, request)
        elif isinstance(request, ReactRequest):
            await self._react(session, request)
        elif isinstance(request, SessionRequest):
            await self._session(session, request)
        elif isinstance(request, AskRequest):
            await self._ask(session, request)
        elif isinstance(request, InitiativeRequest):
            await self._initiative(session, request)
        elif isinstance(request, EpochRequest):
            await self._epoch(session, request)

    async def _roll(self, session: ClientSession, request: RollRequest) -> None:
        member, table = session.member, session.table
        assert member is not None and table is not None
        ticket = self.core.begin_roll(table, member, request)
        trims = table.trims
        assert ticket.roll is not None
        # The params as asked: extensions may change them before the dice, and a retry
        # (another process wrote first) must start again from these, not from theirs.
        asked = copy_params(ticket.roll.params)

        async def roll() -> tuple[Pending, list[Delivery]]:
            self.core.attach_sheet(ticket)
            assert ticket.roll is not None
            ticket.roll.params = copy_params(asked)
            source = None
            if self.core.provable and request.dice is None:
                await self._roll_over(table)
                source = self.core.roll_dice(table, member)
            drawing = CURRENT.set(source)
            try:
                resolution = await self.pipeline.run(ticket.roll, dice=request.dice,
                                                     table_state=table.state)
            finally:
                CURRENT.reset(drawing)
            pending = self.core.number(ticket, resolution, now=time.time(), source=source,
                                       manual=request.dice is not None, asked=asked)
            return pending, await self._store(pending)

        if ticket.key is not None and await self._answer_repeat(session, ticket):
            return
        # One roll of a table at a time, from reading its plugin state to committing the
        # new one: two rolls resolved side by side would each start from the same state,
        # and the second commit would erase the first's changes.
        async with table.turn:
            if await self._repeated_meanwhile(session, ticket, trims):
                # The same request resolved meanwhile (another device of this member).
                return
            pending, deliveries = await self._retrying(table, roll)
        self._deliver(deliveries)
        if pending.event.get("open"):
            self._arm(table, pending.event)


    async def reveal_all(self) -> int:
        """End the current epoch of every table that rolled in it; how many were ended."""
        names = set(self.tables.tables) | set(
            await self.store.tables_with("epoch"))
        ended = 0
        for name in sorted(names):
            table = await self._open_table(name)
            async with table.turn:
                if table.epoch is None or table.seq == table.epoch.base:
                    continue  # nothing happened in it
                # The next epoch starts at the table's next welcome: a stop computes no
                # new commitment for every table (its deadline is short).
                self._deliver(await self._store(self.core.epoch_end(table,
                                                                    start_next=False)))
                ended += 1
        return ended

    async def _ensure_epoch(self, table: Table, member: Member) -> None:
        """Give a table its first epoch before its first welcome (journaled first: the
        commitment a member is shown never changes under it after a restart); end one
        opened under other settings (a restart with other options or plugins) and start
        the next under this server's."""
        if table.epoch is not None and not self.core.epoch_outdated(table):
            return
        async def start() -> list[Delivery]:
            if table.epoch is not None:
                if not self.core.epoch_outdated(table):
                    return []  # another process started it
                return await self._store(self.core.epoch_end(table))
            return await self._store(self.core.epoch_start(table))
        async with table.turn:
            if table.epoch is None or self.core.epoch_outdated(table):
                deliveries = await self._retrying(table, start)
                for delivery in deliveries:  # the joiner learns it from its welcome
                    delivery.members = [m for m in delivery.members if m is not member]
                self._deliver(deliveries)

    async def _roll_over(self, table: Table) -> None:
        """Inside the table's turn: a full epoch is revealed before the next roll."""
        if self.core.epoch_full(table):
            self._deliver(await self._store(self.core.epoch_end(table)))

    async def _epoch(self, session: ClientSession, request: EpochRequest) -> None:
        member, table = session.member, session.table
        assert member is not None and table is not None
        ticket = self.core.begin_epoch_end(table, member, request)
        if ticket.key is not None and await self._answer_repeat(session, ticket):
            return  # the same request again: its reveal, not a second one
        async def end() -> list[Delivery]:
            if table.epoch is None:
                self._deliver(await self._store(self.core.epoch_start(table)))
            return await self._store(self.core.epoch_end(table, ticket))
        async with table.turn:
            deliveries = await self._retrying(table, end)
        self._deliver(deliveries)


    async def _seat(self, session: ClientSession, request: SeatRequest) -> None:
        member, table = session.member, session.table
        assert member is not None and table is not None
        if request.op == "list":
            await self._send(session, self.core.seat_list(table, member, request))
            return

        async def build(ticket: RollTicket) -> list[Delivery]:
            pending = self.core.seat_change(ticket, request)
            if pending.extra is not None:
                # A QR code takes milliseconds (more for long names): not on the loop.
                pending.extra["qr"] = await asyncio.to_thread(qr_data_uri,
                                                              pending.extra["link"])
            deliveries = await self._store(pending)
            log.info("seat %s %r at %r by %r", request.op, request.name, table.name,
                     member.name)
            return deliveries
        await self._journal_change(session, request, build)

    async def _ask(self, session: ClientSession, request: AskRequest) -> None:
        member, table = session.member, session.table
        assert member is not None and table is not None
        if request.op == "list":
            await self._send(session, self.core.ask_list(table, member, request))
            return

        async def build(ticket: RollTicket) -> list[Delivery]:
            return await self._store(self.core.ask_open(ticket, request) if request.op == "open"
                                     else self.core.ask_cancel(ticket, request))
        await self._journal_change(session, request, build)

    async def _initiative(self, session: ClientSession, request: InitiativeRequest) -> None:
        async def build(ticket: RollTicket) -> list[Delivery]:
            table, member = ticket.table, ticket.member
            ruleset, entries = self.core.initiative_entries(table, request)
            roll = self.pipeline.prepare_plain(ruleset, table=table.name, by=member.by)
            roll.session, roll.turn = table.session, table.turns
            answer = await self.pipeline.initiative(roll, entries, table.state)
            return await self._store(self.core.initiative(ticket, ruleset, request, answer))
        await self._journal_change(session, request, build)

    async def _session(self, session: ClientSession, request: SessionRequest) -> None:
        async def build(ticket: RollTicket) -> list[Delivery]:
            return await self._store(self.core.session_start(ticket))
        await self._journal_change(session, request, build)

    async def _sheet(self, session: ClientSession, request: SheetRequest) -> None:
        member, table = session.member, session.table
        assert member is not None and table is not None
        if request.op == "list":
            await self._send(session, self.core.sheet_list(table, member, request))
            return

        async def build(ticket: RollTicket) -> list[Delivery]:
            if request.op == "refill" and request.character is None:
                # One event per character it changes; the first one keeps the request id
                # (a repeat finds it and changes nothing) but no copy echoes it: the
                # requester's answer is the list of characters after it.
                for name in self.core.refill_targets(table, request):
                    pending = self.core.sheet_change(ticket, request, name)
                    if pending is None:
                        continue
                    pending.event["whole"] = True
                    pending.echo = False
                    self._deliver(await self._store(pending))
                    ticket = RollTicket(table, member, None, None, None)
                if request.what == "turn":
                    # The table's next turn, counted (roll.turn), even when no sheet changed.
                    pending = self.core.turn_next(ticket)
                    pending.event["whole"] = True
                    pending.echo = False
                    self._deliver(await self._store(pending))
                await self._send(session, self.core.sheet_list(table, member, request))
                return []
            pending = self.core.sheet_change(ticket, request)
            assert pending is not None
            return await self._store(pending)
        await self._journal_change(session, request, build)


    async def _react(self, session: ClientSession, request: ReactRequest) -> None:
        member, table = session.member, session.table
        assert member is not None and table is not None
        if request.id is not None:
            ticket = RollTicket(table, member, None, request.id,
                                self.core.request_key(member, request.id))
            if await self._answer_repeat(session, ticket):
                return
        await self._decide(table, member, request)

    async def _decide(self, table: Table, member: Member | None,
                      request: ReactRequest) -> None:
        """A decision on an open roll, by ``member`` (``None``: the default, in time)."""
        async def decide() -> tuple[Pending, list[Delivery]]:
            react = self.core.begin_react(table, member, request)
            ticket, roll, outcome = self.core.reopen(react)
            source = None
            if self.core.provable and react.dice is None:
                await self._roll_over(table)
                source = self.core.roll_dice(table, member, react.event)
            drawing = CURRENT.set(source)
            try:
                resolution = await self.pipeline.react(roll, outcome, react.choice,
                                                       react.dice, table.state)
            finally:
                CURRENT.reset(drawing)
            pending = self.core.number(ticket, resolution, now=time.time(), reaction=react,
                                       source=source, manual=react.dice is not None)
            pending.reply_id = react.reply_id
            return pending, await self._store(pending)
        async with table.turn:
            pending, deliveries = await self._retrying(table, decide)
        self._deliver(deliveries)
        if pending.event.get("open"):
            self._arm(table, pending.event)


    async def _history(self, session: ClientSession, request: HistoryRequest) -> None:
        table, member = session.table, session.member
        assert table is not None and member is not None
        await self.store.flush()
        # Read in chunks and stop at max_history_bytes: a page never holds more in memory.
        page = HistoryPage(table, member, request, binary=session.binary,
                           max_bytes=self.config.max_history_bytes)
        while (wanted := page.wanted()):
            page.add(await self.store.page(table.name, *member.key, page.last, table.seq,
                                           wanted + 1))
        session.bucket.charge(page.size / HISTORY_BYTES_PER_TOKEN)
        await self._send(session, page.message())
        # Pages are paid in bytes: a connection in debt is not read until it is paid off
        # (not refused: a client paging through a long table goes at the limit's pace).
        await asyncio.sleep(session.bucket.debt_delay())

    async def _odds(self, session: ClientSession, request: OddsRequest) -> None:
        member, table = session.member, session.table
        assert member is not None and table is not None
        roll = self.core.prepare_odds(table, member, request)
        odds = await self.pipeline.odds(roll)
        await self._send(session, self.core.odds(request, roll, odds))
