"""Where a server keeps its tables: the store interface, what it answers, and its errors.

The table server talks to one :class:`Store`: the SQLite journal (the default: one
process, one file, a LAN night) or Redis (``--store redis://…``: any number of processes
serving the same tables, see :mod:`sidecar.stores.redis`). The table core never knows
which: it numbers an event after the table's ``seq`` as this process knows it, and the
store either takes it or answers why not:

- :class:`StaleTable`: another process wrote to the table since (Redis only): the server
  catches up with :meth:`Store.since` and builds the event again on the newer table;
- :class:`DuplicateRequest`: the request id was already resolved (by another process, or
  before a crash): the original event is answered again;
- :class:`StoreUnavailable`: the store cannot be reached now (Redis down): nothing was
  written, the member gets ``store_unavailable`` and stays connected;
- :class:`~sidecar.stores.journal.JournalError`: the event cannot be stored at all.
"""

from __future__ import annotations

from collections.abc import Callable
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


class Store(Protocol):
    """What the table server needs from where tables are kept."""

    #: Whether other processes write the same tables (then events come from elsewhere).
    shared: bool
    #: What ``serve`` prints: ``journal: sidecar.db`` or ``store: redis://…``.
    described: str

    async def open(self) -> None:
        """Connect (and check the store answers); StoreUnavailable or JournalError if not."""

    async def preload(self, table: str) -> Snapshot | None:
        """A table as stored, read asynchronously (None: read it with :meth:`snapshot`)."""

    def snapshot(self, table: str) -> Snapshot:
        """A table as stored, read synchronously (SQLite; the table registry calls it
        while joining)."""

    async def append(self, event: dict[str, Any], state: dict[str, Any],
                     records: tuple[tuple[str, str, Any], ...], *, expected: int) -> None:
        """Store ``event`` (seq ``expected + 1``), the state after it and the records it
        changes, atomically; return once stored (acknowledged)."""

    async def flush(self) -> None:
        """Wait until everything appended so far is stored."""

    async def since(self, table: str, after: int) -> list[Entry]:
        """The events stored after ``after`` (written by other processes), in order."""

    def watch(self, table: str, changed: Callable[[str, int], None]) -> None:
        """Call ``changed(table, seq)`` when another process stores an event of ``table``."""

    def unwatch(self, table: str) -> None:
        """Stop watching ``table`` (forgotten by this process)."""

    def renew(self, table: str) -> None:
        """The store was found behind this process's copy of ``table`` (it lost events):
        make every other process holding it read it again."""

    async def count(self, table: str, name: str, role: str, after: int, upto: int) -> int:
        """How many events in (after, upto] the member (name, role) may see."""

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

    async def close(self) -> None:
        """Finish what is under way and let go of the store."""
