"""Where a server keeps its tables: the store interface, what it answers, and its errors.

The table server talks to one :class:`Store`: the SQLite journal (the default: one
process, one file, a LAN night) or Redis (``--store redis://…``: any number of processes
serving the same tables, see :mod:`sidecar.stores.redis`). The table core never knows
which: it numbers an event after the table's ``seq`` as this process knows it, and the
store either takes it or answers why not:

- :class:`StaleTable`: another process wrote to the table since (Redis only): the server
  catches up with :meth:`Store.since` and builds the event again on the newer table (or,
  ``lost``, reads the table again: Redis lost events it had acknowledged);
- :class:`DuplicateRequest`: the request id was already resolved (by another process, or
  before a crash): the original event is answered again;
- :class:`StoreUnavailable`: the store cannot be reached now (Redis down): nothing was
  written, the member gets ``store_unavailable`` and stays connected;
- :class:`~sidecar.stores.journal.JournalError`: the event cannot be stored at all.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from typing import Any, Protocol

#: What a store gives back for one event written by another process: the event, the
#: table's plugin state after it (``None``: unchanged), the records it changed and its
#: size as stored (bytes of JSON).
Entry = tuple[dict[str, Any], dict[str, Any] | None, tuple[tuple[str, str, Any], ...], int]
#: A table as loaded: last seq, plugin state, records by kind then name.
Snapshot = tuple[int, dict[str, Any], dict[str, dict[str, Any]]]


class StoreUnavailable(Exception):
    """The store cannot be reached (Redis down): nothing was written; try again later."""


class StoreFull(StoreUnavailable):
    """The store refused a write for want of memory (Redis ``maxmemory``, noeviction)."""


class StaleTable(Exception):
    """The table is at ``seq`` in the store, not where this process thought: another
    process wrote it (catch up — ``missed``: the events after the expected seq, when the
    store gave them at once — and build again), or, ``seq`` lower, the store lost
    events it had acknowledged (Redis restarted without them)."""

    def __init__(self, seq: int, missed: list[Entry] | None = None, *,
                 lost: bool = False) -> None:
        super().__init__(f"the table is at #{seq} in the store")
        self.seq = seq
        self.missed = missed
        #: The store lost events this process saw (its table is another incarnation).
        self.lost = lost


class DuplicateRequest(Exception):
    """The request id already produced event ``seq`` (the write was not made again)."""

    def __init__(self, seq: int) -> None:
        super().__init__(f"request already resolved as #{seq}")
        self.seq = seq


class Registry(Protocol):
    """The server's tables in memory, as a store hooks itself to them (:meth:`Store.open`):
    told when a table is read into memory, and when it is forgotten."""

    added: Callable[[Any], None] | None
    forgotten: Callable[[str], None] | None


class Store(Protocol):
    """What the table server needs from where tables are kept.

    Both stores implement every method; where they differ it is because one process writes
    a SQLite journal (its lock says so) while any number write a Redis: :meth:`since` and
    :meth:`open`'s hooks are how the server hears of other processes' events, and
    :meth:`ended_at_stop` whether stopping ends the tables' epochs. The server never asks
    which store it has."""

    #: What ``serve`` prints: ``journal: sidecar.db`` or ``store: redis://…``.
    described: str

    async def open(self, tables: Registry | None = None, *,
                   changed: Callable[[str, int], None] | None = None,
                   added: Callable[[Any], None] | None = None,
                   lost: Callable[[str, int], None] | None = None,
                   sweep: Callable[[], Awaitable[None]] | None = None) -> None:
        """Begin serving: connect (and check the store answers: StoreUnavailable or
        JournalError if not) and hook the store to the server's ``tables`` (``None``: a
        tool reading or writing the store alone). A store lets go of what it keeps of a
        table the server forgets; where other processes write (Redis) it hears their
        events of the tables held here (``changed(table, seq)``, after ``added(table)``),
        tells of a table Redis lost events of (``lost(table, seq)``) and runs ``sweep``
        (open rolls of tables no process holds any more) until :meth:`close`."""

    async def load(self, table: str) -> Snapshot:
        """A table as stored (the server reads it just before the registry opens it)."""

    async def append(self, event: dict[str, Any], state: dict[str, Any],
                     records: tuple[tuple[str, str, Any], ...], *, expected: int) -> None:
        """Store ``event`` (seq ``expected + 1``), the state after it and the records it
        changes, atomically; return once stored (acknowledged). StaleTable when the store
        holds another seq than ``expected`` (``lost`` when it holds fewer: the store lost
        events, and every other process holding the table is made to read it again)."""

    async def since(self, table: str, after: int) -> list[Entry]:
        """The events stored after ``after`` by other processes, in order (the journal:
        none, its lock makes this process its only writer)."""

    def forget(self, table: str) -> None:
        """This process no longer holds ``table``: let go of what the store keeps of it."""

    async def count(self, table: str, name: str, role: str, after: int, upto: int) -> int:
        """How many events in (after, upto] the member (name, role) may see (everything
        appended so far is read)."""

    async def page(self, table: str, name: str, role: str, after: int, upto: int | None,
                   limit: int) -> list[dict[str, Any]]:
        """Up to ``limit`` events after ``after`` (and ≤ ``upto``) the member may see."""

    async def event(self, table: str, seq: int) -> dict[str, Any] | None:
        """One event by its seq."""

    async def find_request(self, table: str, name: str, role: str,
                           request_id: Any) -> dict[str, Any] | None:
        """The event a member's request id already produced, if any."""

    async def tables_with(self, kind: str) -> list[str]:
        """The tables holding records of ``kind`` (open rolls, epochs)."""

    async def newest_tables(self, limit: int) -> list[str]:
        """Up to ``limit`` tables, the newest first, as far as the store knows their order
        (the journal: by when each was first written; Redis keeps no such order: none)."""

    async def ended_at_stop(self, held: Iterable[str]) -> list[str]:
        """The tables whose epoch a stopping process ends (``held``: those in its memory):
        the journal's, all of them that have one; Redis's, none — the other processes
        keep serving them (the GM ends an epoch, from any process)."""

    async def close(self) -> None:
        """Finish what is under way and let go of the store."""
