"""The one runner of the table core's effects: a request's events journaled (retried while
other processes write the table first), committed and delivered; repeats answered with
their original outcome."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from sidecar.config import ServerConfig
from sidecar.host.pipeline import RollPipeline
from sidecar.protocol.errors import ProtocolError
from sidecar.protocol.messages import SheetRequest
from sidecar.server.errors import lost_error, store_unavailable
from sidecar.server.transport import ClientSession
from sidecar.stores.base import DuplicateRequest, StaleTable, StoreFull, StoreUnavailable
from sidecar.stores.journal import JournalError
from sidecar.table.core import TableCore
from sidecar.table.effects import CLOSE_POLICY, Delivery, Pending, Reply, RollTicket
from sidecar.table.tables import Member, Table

log = logging.getLogger("sidecar.server")

#: How the steps hand the runner an effect: an event numbered after the last one committed
#: (journaled, committed, delivered when the await returns) or an answer for the requester
#: alone.
Perform = Callable[[Pending | Reply], Awaitable[None]]

#: A change to a table, as the runner gets it: each call starts it over (on a table brought
#: up to date) and hands its effects one at a time to ``perform``. (A callback, not an
#: async generator: a generator's ``asend``/``aclose`` machinery costs twice as much on the
#: path of every roll.)
Steps = Callable[[Perform], Awaitable[None]]


class Runner:
    """Journal, commit, deliver: what every change to a table goes through."""

    # (what this part uses of the server: see :class:`sidecar.server.connections.SidecarServer`)
    config: ServerConfig
    core: TableCore
    store: Any
    pipeline: RollPipeline

    #: Times an event is built again because other processes wrote the table first.
    MAX_ATTEMPTS = 50

    def _too_busy(self, table: Table) -> ProtocolError:
        log.warning("table %r: %d attempts lost to other processes' writes", table.name,
                    self.MAX_ATTEMPTS)
        return ProtocolError("store_unavailable", "the table is too busy on other servers; "
                             "send the same request again", fr="la table est trop occupée sur "
                             "les autres serveurs ; renvoyez la même demande",
                             details={"retry": True})

    async def _perform(self, table: Table, steps: Steps, *,
                       session: ClientSession | None = None,
                       ticket: RollTicket | None = None,
                       quiet: Member | None = None) -> int:
        """The one path of every change to a table; how many events it committed.

        A request whose id was already resolved (``ticket``: the request as the core
        accepted it) is answered with its original outcome — whether it was before, or
        while this one waited for the table's turn (another device of the member). Else,
        holding the table's turn, ``steps(perform)`` runs and each effect it hands to
        ``perform`` is performed in order: an event (:class:`Pending`) journaled,
        committed, delivered and, for an open roll, timed — the next step is built on
        the table as it leaves it; a :class:`Reply` sent to the requester (``session``).
        When another process wrote the table first (a shared store), the table is brought
        up to date and ``steps`` starts over.
        ``quiet``: a member who gets none of these events (a joiner, told by its welcome).
        """
        trims = table.trims
        # (Both looks for a repeat are made without a coroutine when nothing can be one:
        # the usual request, on the path of every roll. They are written out here, not
        # called: on every roll each call costs more than the look itself.)
        key = ticket.key if session is not None and ticket is not None else None
        if key is not None and (ticket.table.knows(key)
                                or ticket.table.needs_journal_lookup()) \
                and await self._answer_repeat(session, ticket):
            return 0
        committed = 0

        # Each effect the steps hand over, performed in order. A refusal of the store
        # (:class:`StaleTable`, …) is raised inside the steps, at their
        # ``await perform(...)``, and ends them there. (The store's write is awaited here,
        # not through :meth:`_store`: a coroutine more per event costs ~1.4k instructions.)
        async def perform(effect: Pending | Reply) -> None:
            nonlocal committed
            if effect.__class__ is Reply:
                assert session is not None, "a reply needs a requester"
                await self._send(session, effect.message)
                return
            try:
                await self.store.append(effect.event, effect.state, effect.records,
                                        expected=effect.ticket.table.seq)
            except BaseException as error:
                raise self._not_stored(effect, error) from None
            # (:meth:`_commit`, written out: on every roll)
            deliveries = self.core.commit(effect)
            self._close_members(effect.closing, effect.close_reason, CLOSE_POLICY)
            committed += 1
            if quiet is not None:
                for delivery in deliveries:
                    delivery.members = [m for m in delivery.members if m is not quiet]
            self._deliver(deliveries)
            if effect.event.get("open"):
                self._arm(table, effect.event)
            if effect.notices:
                committed += await self._notices(table, effect.notices)

        # One change of a table at a time, from reading its plugin state to committing the
        # new one: two rolls resolved side by side would each start from the same state,
        # and the second commit would erase the first's changes.
        async with table.turn:
            # Inside the table's turn: the same request may have been resolved while this
            # one waited (another device of the member). Memory knows, unless the table's
            # memory of request ids was trimmed since the first look: then
            # :meth:`_answer_repeat` asks the journal again.
            if key is not None and (ticket.table.knows(key) or ticket.table.trims != trims) \
                    and await self._answer_repeat(session, ticket):
                return 0
            for _ in range(self.MAX_ATTEMPTS):
                committed = 0
                try:
                    if table.notices:
                        # Owners not told yet of a hidden roll's effects (a server killed
                        # before it told them): told first.
                        committed += await self._notices(table, tuple(table.notices))
                    await steps(perform)
                    return committed
                except StaleTable as stale:
                    await self._after_stale(table, stale)
        raise self._too_busy(table)

    async def _notices(self, table: Table, names: tuple[str, ...]) -> int:
        """The ``sheet`` ``effect`` events that follow a committed targeted roll whose
        mode hid it from some targets' owners (contract §8): each journaled after it, built
        again on the table as it is when another process wrote first (or told them
        already) — never the roll again, which is stored already. How many were
        committed."""
        done = 0
        for name in names:
            for _ in range(self.MAX_ATTEMPTS):
                notice = self.core.effect_notice(table, name)
                if notice is None:
                    break
                try:
                    deliveries = await self._store(notice)
                except StaleTable as stale:
                    await self._after_stale(table, stale)
                    continue
                self._deliver(deliveries)
                done += 1
                break
        return done

    async def _after_stale(self, table: Table, stale: StaleTable) -> None:
        """Inside the table's turn, the store refused an event built on this process's
        table: catch up with what other processes wrote (the store may have sent it), so
        the event is built again — or, when the store holds fewer events than this
        process saw acknowledged, read the table again from the store."""
        if stale.lost or stale.seq < table.seq:
            self._store_lost(table, stale.seq)
            raise lost_error()
        missed = stale.missed
        if missed and missed[0][0]["seq"] == table.seq + 1 and missed[-1][0]["seq"] == stale.seq:
            self._apply(table, missed)
        else:
            await self._catch_up(table)

    async def _store(self, pending: Pending) -> list[Delivery]:
        """Journal a numbered event, then commit it (the caller holds the table's turn)."""
        try:
            await self.store.append(pending.event, pending.state, pending.records,
                                    expected=pending.ticket.table.seq)
        except BaseException as error:
            raise self._not_stored(pending, error) from None
        return self._commit(pending)

    def _commit(self, pending: Pending) -> list[Delivery]:
        """Commit a journaled event: who gets which copy. A removed or re-keyed seat's
        connections end now (they may reconnect only with the new link)."""
        deliveries = self.core.commit(pending)
        self._close_members(pending.closing, pending.close_reason, CLOSE_POLICY)
        return deliveries

    def _not_stored(self, pending: Pending, error: BaseException) -> BaseException:
        """The store refused ``pending`` (or its write failed): the core forgets it, and
        what is raised instead (the caller holds the table's turn)."""
        table = pending.ticket.table
        if isinstance(error, (StaleTable, DuplicateRequest)):
            # Another process wrote to the table (or resolved this request) first: this
            # event is dropped unseen; the caller catches up and builds it again, or
            # answers the original.
            self.core.abandon(pending)
            return error
        if isinstance(error, StoreUnavailable):
            # Once per interval: a flood of rolls against a Redis that is down or full
            # must not flood the log.
            self.log_throttle.log(logging.ERROR, f"store {type(error).__name__}",
                                  "event %s at %s not stored, not sent: %s",
                                  pending.event["seq"], table.name, error)
            self.core.abandon(pending)
            return store_unavailable(full=isinstance(error, StoreFull))
        if isinstance(error, JournalError):
            log.error("event %s at %s not journaled, not sent: %s", pending.event["seq"],
                      table.name, error)
            return self.core.abandon(pending)
        self.core.abandon(pending)
        return error

    async def _answer_repeat(self, session: ClientSession, ticket: RollTicket) -> bool:
        """Resend the original outcome of a request id already resolved; True if so."""
        table, member = ticket.table, ticket.member
        assert ticket.key is not None
        event = table.remembered(ticket.key)
        seq = table.recalled.get(ticket.key) if event is None else None
        if seq is not None:
            # Let go of to bound memory (sidecar.table.remembered): the store has it.
            event = await self.store.event(table.name, seq)
        if event is None and table.needs_journal_lookup():
            event = await self.store.find_request(table.name, *member.key,
                                                  ticket.request_id)
        if event is None:
            return False
        log.info("repeat of request %r by %r at %r: original outcome #%s resent",
                 ticket.request_id, member.name, table.name, event["seq"])
        await self._resend_original(session, event, ticket.request_id)
        return True

    async def _answer_duplicate(self, session: ClientSession, seq: int, rid: Any) -> None:
        """The store said request ``rid`` already made event ``seq``: resend it."""
        table, member = session.table, session.member
        assert table is not None and member is not None
        event = await self.store.event(table.name, seq)
        if event is None:
            raise StoreUnavailable(f"event #{seq} of {table.name!r} not readable")
        log.info("repeat of request %r by %r at %r: original outcome #%s resent (stored "
                 "by another server)", rid, member.name, table.name, seq)
        await self._resend_original(session, event, rid)

    async def _resend_original(self, session: ClientSession, event: dict[str, Any],
                               rid: Any) -> None:
        """A repeated request's answer: its original event, as the member may see it,
        marked ``duplicate`` (a refill of every character: the list of characters)."""
        table, member = session.table, session.member
        assert table is not None and member is not None
        if event.get("whole"):
            answer = self.core.sheet_list(table, member, SheetRequest(op="list", id=rid))
            answer["duplicate"] = True
            await self._send(session, answer)
            return
        await self._send(session, self.core.repeat(member, event))
