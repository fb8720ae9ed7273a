"""Each request, from the core's checks to its effects: rolls, decisions, seats, sheets,
asks, sessions, initiative, epochs, history and odds."""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from sidecar.config import ServerConfig
from sidecar.host.beforedice import params_refusal, seat_side, side_refusal
from sidecar.host.params import copy_params
from sidecar.host.pipeline import RollPipeline
from sidecar.protocol.errors import ProtocolError
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
from sidecar.server.runner import Perform
from sidecar.server.transport import ClientSession
from sidecar.table.core import TableCore
from sidecar.table.effects import RollTicket
from sidecar.table.history import HistoryPage
from sidecar.table.seats import qr_data_uri
from sidecar.table.tables import Member, Table

log = logging.getLogger("sidecar.server")

#: A ``history`` page costs one request of the rate limit per this many bytes of events
#: (beyond the one every frame costs): page floods are bounded in bytes per second.
HISTORY_BYTES_PER_TOKEN = 16 * 1024

#: Refusals that may rest on what another process changed a moment ago (a character, a
#: seat, a sheet's values): with a shared store they are checked again once caught up.
REFUSALS_OF_STATE = frozenset({"invalid_params", "forbidden", "insufficient"})
#: ``bad_message`` refusals that name something another process may have just made: an
#: open roll (decided from a second device), an ask (answered or closed), a seat.
FIELDS_OF_STATE = frozenset({"roll", "ask", "answers", "name"})


def may_rest_on_state(refusal: ProtocolError) -> bool:
    """Whether ``refusal`` may change once this process has read what others wrote."""
    if refusal.code in REFUSALS_OF_STATE:
        return True
    return refusal.code == "bad_message" and (refusal.details or {}).get("field") in FIELDS_OF_STATE


class Requests:
    """What the server does for each request of a joined member."""

    # (what this part uses of the server: see :class:`sidecar.server.connections.SidecarServer`)
    config: ServerConfig
    core: TableCore
    store: Any
    pipeline: RollPipeline

    async def _dispatch(self, session: ClientSession, request: Any, *,
                        again: bool = True) -> None:
        assert session.table is not None and session.member is not None
        try:
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
        except ProtocolError as refusal:
            # With a shared store, the refusal may rest on this process's copy of the
            # table before another process's write reached it (a character made, given
            # or refilled on another server a moment ago: its notice travels apart from
            # that server's answer). Caught up, the request is tried once more; with the
            # journal (one process) nothing is ever new and the refusal stands.
            if not again or not may_rest_on_state(refusal) \
                    or not await self._caught_up(session.table):
                raise
            if session.member.gone:
                return  # unseated by what was read: its connection is being closed
            await self._dispatch(session, request, again=False)

    async def _roll(self, session: ClientSession, request: RollRequest) -> None:
        member, table = session.member, session.table
        assert member is not None and table is not None
        ticket = self.core.begin_roll(table, member, request)
        roll = ticket.roll
        assert roll is not None
        # The params as asked: extensions may change them before the dice, and a retry
        # (another process wrote first) must start again from these, not from theirs.
        asked = copy_params(roll.params)

        async def steps(perform: Perform) -> None:
            if roll.character is not None and table.open_rolls:
                # An open roll as the character that the member may not see takes its
                # default first: refusing would tell them what its dice decided.
                await self._default_first(table, member, roll.character, perform)
            self.core.attach_sheet(ticket)
            roll.params = copy_params(asked)
            source = None
            if self.core.provable and request.dice is None:
                if not self.core.epoch_ready(table):  # (checked first: every roll passes)
                    await self._epoch_for_dice(table, perform)
                source = self.core.roll_dice(table, member)
            resolution = await self.pipeline.run(roll, dice=request.dice,
                                                 table_state=table.state, source=source)
            await perform(self.core.number(ticket, resolution, now=time.time(), source=source,
                                           manual=request.dice is not None, asked=asked))
        await self._perform(table, steps, session=session, ticket=ticket)

    async def reveal_all(self) -> int:
        """End the current epoch of every table that rolled in it; how many were ended."""
        names = await self.store.ended_at_stop(self.tables.tables)
        ended = 0
        for name in sorted(names):
            table = await self._open_table(name)

            async def steps(perform: Perform, table: Table = table) -> None:
                if table.epoch is None or table.seq == table.epoch.base:
                    return  # nothing happened in it
                # The next epoch starts at the table's next welcome: a stop computes no
                # new commitment for every table (its deadline is short).
                await perform(self.core.epoch_end(table, start_next=False))
            ended += await self._perform(table, steps)
        return ended

    async def _epoch_for_dice(self, table: Table, perform: Perform) -> None:
        """The table's epoch made ready for the next dice (the caller holds its turn):
        revealed when full or opened under other settings, the next one started; started
        when it has none — an open roll's default taken after a restart before anyone
        joined (the stop revealed the last epoch, the next starts at a welcome: issue 29)."""
        if table.epoch is None:
            await perform(self.core.epoch_start(table))
        elif self.core.epoch_full(table) or self.core.epoch_outdated(table):
            await perform(self.core.epoch_end(table))

    async def _ensure_epoch(self, table: Table, member: Member) -> None:
        """Give a table its first epoch before its first welcome (journaled first: the
        commitment a member is shown never changes under it after a restart); end one
        opened under other settings (a restart with other options or plugins) and start
        the next under this server's."""
        if table.epoch is not None and not self.core.epoch_outdated(table):
            return

        async def steps(perform: Perform) -> None:
            if table.epoch is None:
                await perform(self.core.epoch_start(table))
            elif self.core.epoch_outdated(table):  # (else another process started it)
                await perform(self.core.epoch_end(table))
        # The joiner learns it from its welcome.
        await self._perform(table, steps, quiet=member)

    async def _epoch(self, session: ClientSession, request: EpochRequest) -> None:
        member, table = session.member, session.table
        assert member is not None and table is not None
        ticket = self.core.begin_epoch_end(table, member, request)

        async def steps(perform: Perform) -> None:
            if table.epoch is None:
                await perform(self.core.epoch_start(table))
            await perform(self.core.epoch_end(table, ticket))
        # (the same request again: its reveal, not a second one)
        await self._perform(table, steps, session=session, ticket=ticket)

    async def _seat(self, session: ClientSession, request: SeatRequest) -> None:
        member, table = session.member, session.table
        assert member is not None and table is not None
        if request.op == "list":
            await self._send(session, self.core.seat_list(table, member, request))
            return
        ticket = self.core.begin_change(table, member, request)

        async def steps(perform: Perform) -> None:
            pending = self.core.seat_change(ticket, request)
            if pending.extra is not None:
                # A QR code takes milliseconds (more for long names): not on the loop.
                pending.extra["qr"] = await asyncio.to_thread(qr_data_uri,
                                                              pending.extra["link"])
            await perform(pending)
            log.info("seat %s %r at %r by %r", request.op, request.name, table.name,
                     member.name)
        await self._perform(table, steps, session=session, ticket=ticket)

    async def _ask(self, session: ClientSession, request: AskRequest) -> None:
        member, table = session.member, session.table
        assert member is not None and table is not None
        if request.op == "list":
            await self._send(session, self.core.ask_list(table, member, request))
            return
        ticket = self.core.begin_change(table, member, request)

        async def steps(perform: Perform) -> None:
            if request.op != "open":
                await perform(self.core.ask_cancel(ticket, request))
                return
            pending = self.core.ask_open(ticket, request)
            # Checked as each answer would be before its dice: an ask nobody could
            # answer is the GM's refusal now, not the player's later (issue 29).
            sides = pending.event["to"]
            for side, rolls in zip(sides, self.core.answer_rolls(ticket, pending.event),
                                   strict=True):
                refusals = [await params_refusal(self.pipeline, roll, table.state)
                            for roll in rolls]
                if side.get("character"):
                    if refusals[0] is not None:
                        raise side_refusal(refusals[0], side, len(sides) > 1)
                else:
                    seat_side(side, rolls, refusals, len(sides) > 1)
            await perform(pending)
        await self._perform(table, steps, session=session, ticket=ticket)

    async def _initiative(self, session: ClientSession, request: InitiativeRequest) -> None:
        member, table = session.member, session.table
        assert member is not None and table is not None
        ticket = self.core.begin_change(table, member, request)

        async def steps(perform: Perform) -> None:
            ruleset, entries = self.core.initiative_entries(table, request)
            roll = self.pipeline.prepare_plain(ruleset, table=table.name, by=member.by)
            roll.session, roll.turn = table.session, table.turns
            answer = await self.pipeline.initiative(roll, entries, table.state)
            await perform(self.core.initiative(ticket, ruleset, request, answer))
        await self._perform(table, steps, session=session, ticket=ticket)

    async def _session(self, session: ClientSession, request: SessionRequest) -> None:
        member, table = session.member, session.table
        assert member is not None and table is not None
        ticket = self.core.begin_change(table, member, request)

        async def steps(perform: Perform) -> None:
            await perform(self.core.session_start(ticket))
        await self._perform(table, steps, session=session, ticket=ticket)

    async def _sheet(self, session: ClientSession, request: SheetRequest) -> None:
        member, table = session.member, session.table
        assert member is not None and table is not None
        if request.op == "list":
            await self._send(session, self.core.sheet_list(table, member, request))
            return
        ticket = self.core.begin_change(table, member, request)

        async def steps(perform: Perform) -> None:
            if request.op == "refill" and request.character is None:
                for effect in self.core.refill_all(ticket, request):
                    await perform(effect)
                return
            pending = self.core.sheet_change(ticket, request)
            assert pending is not None
            await perform(pending)
        await self._perform(table, steps, session=session, ticket=ticket)

    async def _react(self, session: ClientSession, request: ReactRequest) -> None:
        member, table = session.member, session.table
        assert member is not None and table is not None
        ticket = RollTicket(table, member, None, request.id,
                            self.core.request_key(member, request.id))
        await self._decide(table, member, request, session=session, ticket=ticket)

    async def _decide(self, table: Table, member: Member | None, request: ReactRequest, *,
                      session: ClientSession | None = None,
                      ticket: RollTicket | None = None) -> None:
        """A decision on an open roll, by ``member`` (``None``: the default, in time)."""
        async def steps(perform: Perform) -> None:
            await self._decision(table, member, request, perform)
        await self._perform(table, steps, session=session, ticket=ticket)

    async def _decision(self, table: Table, member: Member | None, request: ReactRequest,
                        perform: Perform) -> None:
        """The steps of a decision (the caller holds the table's turn)."""
        react = self.core.begin_react(table, member, request)
        reopened, roll, outcome = self.core.reopen(react)
        source = None
        if self.core.provable and react.dice is None:
            if not self.core.epoch_ready(table):  # (checked first: every roll passes)
                await self._epoch_for_dice(table, perform)
            source = self.core.roll_dice(table, member, react.event)
        resolution = await self.pipeline.react(roll, outcome, react.choice, react.dice,
                                               table.state, source=source)
        await perform(self.core.number(reopened, resolution, now=time.time(),
                                       reaction=react, source=source,
                                       manual=react.dice is not None))

    async def _history(self, session: ClientSession, request: HistoryRequest) -> None:
        table, member = session.table, session.member
        assert table is not None and member is not None
        if member.seat:
            # What a seat's token opens is read with that token still valid everywhere:
            # with Redis, a rotate or remove on another process may not have reached this
            # one yet (issue 25, item 7).
            await self._current_for_seat(table)
            if member.gone:
                return  # unseated: its connection is being closed, it reads nothing
        # Read in chunks and stop at max_history_bytes: a page never holds more in memory.
        page = HistoryPage(table, member, request, binary=session.binary,
                           max_bytes=self.config.max_history_bytes)
        while (wanted := page.wanted()):
            page.add(await self.store.page(table.name, *member.key, page.last, table.seq,
                                           wanted + 1))
        # Which unseen events were notes (the GM preparing the table, a seat or a sheet set
        # during the game), so that a page does not show them as secret rolls (issue 29).
        # Only their kind, which no die decides: the seq's gap already says they exist.
        for seq in page.gaps():
            event = await self.store.event(table.name, seq)
            if event is not None and event.get("type") != "outcome":
                page.hidden_notes.append(seq)
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
