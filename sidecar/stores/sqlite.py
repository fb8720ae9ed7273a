"""The SQLite journal as a :class:`~sidecar.stores.base.Store`: one process, one file."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from typing import Any

from sidecar.stores.base import Entry, Snapshot
from sidecar.stores.journal import Journal


class SqliteStore:
    """The SQLite journal (``--db``) as a store: one process, nothing written elsewhere."""

    shared = False

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.journal = Journal(path)
        self.described = f"journal: {os.fspath(path)}"

    async def open(self) -> None:
        pass

    async def preload(self, table: str) -> Snapshot | None:
        return None  # read in place by snapshot(): a local file, a few hundred µs

    def snapshot(self, table: str) -> Snapshot:
        seq, state = self.journal.table_meta(table)
        return seq, state, self.journal.records(table) if seq else {}

    async def append(self, event: dict[str, Any], state: dict[str, Any],
                     records: tuple[tuple[str, str, Any], ...], *, expected: int) -> None:
        # One process writes this file (its lock says so): the table cannot have moved on,
        # and request ids were checked in memory or in the journal before numbering.
        await self.journal.append(event, state, records)

    async def flush(self) -> None:
        await self.journal.flush()

    async def since(self, table: str, after: int) -> list[Entry]:
        return []

    def watch(self, table: str, changed: Callable[[str, int], None]) -> None:
        pass

    def unwatch(self, table: str) -> None:
        pass

    def renew(self, table: str) -> None:
        pass  # (one process, one file: nobody else holds the table)

    async def count(self, table: str, name: str, role: str, after: int, upto: int) -> int:
        return await asyncio.to_thread(self.journal.count_visible, table, name, role, after,
                                       upto)

    async def page(self, table: str, name: str, role: str, after: int, upto: int | None,
                   limit: int) -> list[dict[str, Any]]:
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

    async def close(self) -> None:
        await asyncio.to_thread(self.journal.close)
