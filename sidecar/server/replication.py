"""Other processes' events (a shared store, Redis): tables read from the store, caught up
with what others wrote, dropped when the store lost events; open rolls of tables no
process serves swept up."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from sidecar.config import ServerConfig
from sidecar.host.pipeline import RollPipeline
from sidecar.protocol.errors import ProtocolError
from sidecar.protocol.messages import Hello
from sidecar.server.errors import lost_error
from sidecar.stores.base import StaleTable, StoreUnavailable
from sidecar.table.core import TableCore
from sidecar.table.effects import CLOSE_POLICY
from sidecar.table.tables import Table

log = logging.getLogger("sidecar.server")


class Replication:
    """This process's tables kept in step with the store and the other processes."""

    # (what this part uses of the server: see :class:`sidecar.server.connections.SidecarServer`)
    config: ServerConfig
    core: TableCore
    store: Any
    pipeline: RollPipeline
    catching: dict[str, asyncio.Task[None]]
    announced: dict[str, int]

    def _load_table(self, name: str) -> tuple[int, dict[str, Any], dict[str, Any]]:
        # A table read from Redis just before (one slot, used at once: nothing piles up
        # for the tables named by hellos that fail), else read now (SQLite).
        preloaded, self._preloaded = self._preloaded, None
        if preloaded is not None and preloaded[0] == name:
            return preloaded[1]
        raise StoreUnavailable(f"table {name!r} was not read from the store first")

    async def _preload(self, name: str) -> None:
        """Read table ``name`` from the store for the next :meth:`_load_table` (the
        caller opens it right after, without awaiting anything in between)."""
        self._preloaded = (name, await self.store.load(name))

    async def _current_for_seat(self, table: Table) -> None:
        """The table as the store has it now, before a token is checked against it (a
        player's ``hello``) or a seat reads what its token opens (``history``): another
        process may have just rotated or removed (or added) that seat, and its notice may
        not be here yet. A seat unseated by what is read is ``gone``."""
        await self._caught_up(table)

    async def _caught_up(self, table: Table) -> bool:
        """Apply what other processes stored of ``table`` and this process has not heard
        of yet (their notices travel apart from their answers); whether anything was.
        One read, nothing when no event is new (always so with the journal); the table's
        turn only when one is."""
        try:
            news = await self.store.since(table.name, table.seq)
        except StaleTable as stale:  # the stream was written anew: Redis lost events
            self._store_lost(table, stale.seq)
            raise lost_error() from None
        if not news or self.tables.get(table.name) is not table:
            return False
        async with table.turn:
            if news[-1][0]["seq"] <= table.seq:
                return False  # heard meanwhile: nothing more to read
            await self._catch_up(table)
        return True

    async def _current_for_hello(self, hello: Hello) -> None:
        """The table as the store has it now, before a ``hello`` is checked against it
        (read now when not in memory; a player's token, see :meth:`_current_for_seat`).
        The caller joins right after, without awaiting anything between."""
        table = self.tables.get(hello.table)
        if table is not None and hello.role == "player":
            await self._current_for_seat(table)
        if self.tables.get(hello.table) is None:  # (also: forgotten while this waited)
            await self._preload(hello.table)

    async def _open_table(self, name: str) -> Table:
        """Table ``name``, read from the store first when it is not in memory."""
        table = self.tables.get(name)
        if table is None:
            await self._preload(name)
            table = self.tables.open(name)
        return table

    def _lost_notice(self, name: str, seq: int) -> None:
        """A notice of another incarnation of a table this process holds: another
        process found Redis behind (it lost events), so is this process's copy."""
        table = self.tables.get(name)
        if table is not None:
            self._store_lost(table, seq)

    def _store_lost(self, table: Table, seq: int) -> None:
        """The store is behind this process's table (Redis restarted without its last
        writes: ``appendfsync everysec`` and a crash, a failover to a late replica, a
        FLUSHALL). This process's copy is dropped and its members' connections closed:
        they join again and get the table as the store has it."""
        log.error("table %r: the store holds events up to #%d (or another incarnation of "
                  "the table) but this server had #%d acknowledged: Redis lost writes (see "
                  "docs/DEPLOY.md, persistence); the table is read again from Redis",
                  table.name, seq, table.seq)
        for member in table.members:
            member.gone = True
        self._close_members(list(table.members), "table read again from the store", 1012,
                            why="store lost events")
        if self.tables.get(table.name) is table:
            del self.tables.tables[table.name]
            table.forget_recent()  # (given back to the server-wide bound)
            self.store.forget(table.name)

    # -- other processes' events (a shared store) ---------------------------------------

    def _watch(self, table: Table) -> None:
        """A table now in memory: hear of other processes' events, and catch up on those
        written since it was read."""
        self._changed(table.name, table.seq + 1)
        # Its open rolls: their time runs here too (the process that made them may be
        # gone); whichever process takes a default first stores it, once.
        for event in list(table.open_rolls.values()):
            self._arm(table, event)

    #: Seconds between two looks for open rolls of tables no process serves (shared store).
    SWEEP_INTERVAL = 30.0

    async def _sweep_open_rolls(self) -> None:
        """With a shared store, open rolls whose table no member keeps in any process
        (the process that made them died) still take their default in time: every
        process looks for them now and then, and keeps those tables (their timers run)."""
        interval = min(self.SWEEP_INTERVAL, max(1.0, self.config.react_timeout / 2))
        while True:
            await asyncio.sleep(interval)
            try:
                for name in await self.store.tables_with("open"):
                    if self.tables.get(name) is None:
                        self.tables.keep(await self._open_table(name))
            except StoreUnavailable:
                continue  # Redis away: look again later
            except Exception:
                log.exception("looking for open rolls failed")

    def _changed(self, name: str, seq: int) -> None:
        """Another process stored event ``seq`` of table ``name`` (or may have)."""
        table = self.tables.get(name)
        if table is None:
            return
        self.announced[name] = max(seq, self.announced.get(name, 0))
        if seq <= table.seq or name in self.catching:
            return
        task = asyncio.get_running_loop().create_task(self._catch_up_task(table))
        self.catching[name] = task

    async def _catch_up_task(self, table: Table) -> None:
        delay = 0.1
        try:
            while (self.announced.get(table.name, 0) > table.seq
                   and self.tables.get(table.name) is table):
                before = table.seq
                try:
                    async with table.turn:
                        await self._catch_up(table)
                except StoreUnavailable as error:
                    # Redis away: try again (slower each time) until it is back; the
                    # subscription's return announces the table again anyway.
                    if delay == 0.1:
                        log.warning("table %r: cannot read other servers' events now (%s)",
                                    table.name, error)
                    await asyncio.sleep(delay)
                    delay = min(delay * 2, 2.0)
                    continue
                if table.seq == before:
                    break  # nothing new in the store (a notice ahead of a failed write)
        except ProtocolError:
            pass  # Redis lost events: the table was dropped and its members told
        except Exception:
            log.exception("table %r: catching up with other servers failed", table.name)
        finally:
            self.catching.pop(table.name, None)
            self.announced.pop(table.name, None)
            if self.tables.get(table.name) is table:
                self.tables.forget_if_idle(table)

    async def _catch_up(self, table: Table) -> None:
        """Inside the table's turn: apply the events other processes stored since this
        process's last, in order, and send each to this process's members."""
        try:
            entries = await self.store.since(table.name, table.seq)
        except StaleTable as stale:  # the stream was written anew: Redis lost events
            self._store_lost(table, stale.seq)
            raise lost_error() from None
        self._apply(table, entries)

    def _apply(self, table: Table, entries: list[Any]) -> None:
        """Apply other processes' events (in order, from the table's next seq) and send
        each to this process's members."""
        for event, state, records, size in entries:
            if event["seq"] <= table.seq:
                continue
            if event["seq"] != table.seq + 1:
                log.error("table %r: event #%s read after #%s; the gap is read again at "
                          "the next event", table.name, event["seq"], table.seq)
                return
            deliveries, closing = self.core.apply(table, event, state, records, size)
            self._close_members(closing, "seat changed", CLOSE_POLICY)
            self._deliver(deliveries)
            if event.get("open"):
                self._arm(table, event)
