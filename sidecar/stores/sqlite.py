"""The SQLite journal as a :class:`~sidecar.stores.base.Store`: one process, one file."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from sidecar.stores.base import Entry, Registry, Snapshot
from sidecar.stores.journal import Journal


class SqliteStore:
    """The SQLite journal (``--db``) as a store: one process writes it (its lock says so),
    so nothing is ever stored here that this process did not write."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.journal = Journal(path)  # opened (and locked) now: its errors come first
        self.described = f"journal: {os.fspath(path)}"

    async def open(self, tables: Registry | None = None, *,
                   changed: Callable[[str, int], None] | None = None,
                   added: Callable[[Any], None] | None = None,
                   lost: Callable[[str, int], None] | None = None,
                   sweep: Callable[[], Awaitable[None]] | None = None) -> None:
        # The journal was opened, checked and locked with the store (a bad file is said
        # before the server binds). No other process: nothing to hear, sweep or lose.
        if tables is not None:
            tables.forgotten = self.forget

    async def load(self, table: str) -> Snapshot:
        # Read in place, not in a thread: a local file, a few hundred µs.
        seq, state = self.journal.table_meta(table)
        return seq, state, self.journal.records(table) if seq else {}

    async def append(self, event: dict[str, Any], state: dict[str, Any],
                     records: tuple[tuple[str, str, Any], ...], *, expected: int) -> None:
        # One process writes this file: the table cannot have moved on, and request ids
        # were checked in memory or in the journal before numbering.
        await self.journal.append(event, state, records)

    async def since(self, table: str, after: int) -> list[Entry]:
        return []  # the only writer: nothing is stored that this process did not write

    def forget(self, table: str) -> None:
        self.journal.forget(table)

    async def count(self, table: str, name: str, role: str, after: int, upto: int) -> int:
        await self.journal.flush()  # (appends of other tables' turns may be in flight)
        return await asyncio.to_thread(self.journal.count_visible, table, name, role, after,
                                       upto)

    async def page(self, table: str, name: str, role: str, after: int, upto: int | None,
                   limit: int) -> list[dict[str, Any]]:
        await self.journal.flush()
        return await asyncio.to_thread(self.journal.page, table, name, role, after, upto,
                                       limit)

    async def event(self, table: str, seq: int) -> dict[str, Any] | None:
        return await asyncio.to_thread(self.journal.reader.event, table, seq)

    async def find_request(self, table: str, name: str, role: str,
                           request_id: Any) -> dict[str, Any] | None:
        return await asyncio.to_thread(self.journal.find_request, table, name, role,
                                       request_id)

    async def tables_with(self, kind: str) -> list[str]:
        return await asyncio.to_thread(self.journal.tables_with, kind)

    async def newest_tables(self, limit: int) -> list[str]:
        return await asyncio.to_thread(self.journal.reader.newest_tables, limit)

    async def ended_at_stop(self, held: Iterable[str]) -> list[str]:
        # This process is the tables' only server: stopping ends every epoch.
        return sorted(set(held) | set(await self.tables_with("epoch")))

    async def close(self) -> None:
        await asyncio.to_thread(self.journal.close)
