"""The journal's page size: an event of a little over 1000 bytes (a 5d10 roll with its
proof of verifiable dice) stays in its row, not in an overflow page of its own (real
files, read back with SQLite's ``dbstat``)."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from pathlib import Path

from sidecar.stores.journal import Journal
from tests.support.journal import event


def _write(path: Path, count: int, size: int) -> None:
    async def scenario() -> None:
        journal = Journal(path)
        try:
            for seq in range(1, count + 1):
                await journal.append({**event("t", seq), "label": "x" * size}, {})
        finally:
            journal.close()
    asyncio.run(scenario())


def _overflow_pages(path: Path) -> int:
    with contextlib.closing(sqlite3.connect(path)) as db:
        return db.execute("SELECT COUNT(*) FROM dbstat WHERE name = 'events' "
                          "AND pagetype = 'overflow'").fetchone()[0]


def test_events_of_a_little_over_a_kilobyte_stay_in_their_rows(tmp_path: Path) -> None:
    path = tmp_path / "journal.db"
    _write(path, 50, 1100)
    with contextlib.closing(sqlite3.connect(path)) as db:
        assert db.execute("PRAGMA page_size").fetchone()[0] == 8192
    assert _overflow_pages(path) == 0


def test_a_journal_made_with_smaller_pages_keeps_them(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    with contextlib.closing(sqlite3.connect(path)) as db:
        db.execute("PRAGMA page_size = 4096")
        db.execute("CREATE TABLE IF NOT EXISTS before_us (x)")
    _write(path, 5, 100)
    with contextlib.closing(sqlite3.connect(path)) as db:
        assert db.execute("PRAGMA page_size").fetchone()[0] == 4096
        assert db.execute("SELECT COUNT(*) FROM events").fetchone()[0] == 5
