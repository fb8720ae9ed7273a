"""The journal a server uses: its lock, its writer and its reader, opened together.

:class:`Journal` is what ``SidecarServer`` holds. It takes the writer lock first (one
server per database file, whatever path names it), then opens the writer (which checks the
file's integrity before taking any write) and a read-only reader. ``sidecar export`` and
other tools that only read use :class:`~sidecar.stores.journal.reader.JournalReader` alone, which
never takes the lock and works beside a running server.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from typing import Any

from sidecar.stores.journal.lock import WriterLock
from sidecar.stores.journal.reader import JournalReader
from sidecar.stores.journal.schema import real_path
from sidecar.stores.journal.writer import JournalWriter


class Journal:
    """An SQLite journal of table events: appends go to the writer, reads to the reader.

    ``path`` ``":memory:"`` keeps the journal in a temporary file removed at :meth:`close`
    (SQLite's own in-memory databases cannot be shared by the writer and the readers).
    """

    def __init__(self, path: str | os.PathLike[str] = "sidecar.db") -> None:
        self.memory = os.fspath(path) == ":memory:"
        self._temporary: str | None = None
        if self.memory:
            self._temporary = tempfile.mkdtemp(prefix="sidecar-journal-")
            path = os.path.join(self._temporary, "journal.db")
        shown = os.fspath(path)
        #: The database file itself, symlinks and relative parts resolved.
        self.path = real_path(path)
        self.lock = WriterLock(path)
        self.lock.acquire()
        try:
            self.writer = JournalWriter(self.path, shown=shown)
        except BaseException:
            self.lock.release()
            self._remove_temporary()
            raise
        self.reader = JournalReader(self.path)

    # -- writing (the event loop) --------------------------------------------------------

    async def append(self, event: dict[str, Any], state: dict[str, Any],
                     records: tuple[tuple[str, str, Any], ...] = ()) -> None:
        """Store an event and its table's plugin state, and the table records (seats,
        characters) it changes, in one transaction; return once committed (in order).

        JournalError if it was not stored; then nothing of it was, and the next append
        works as usual."""
        await self.writer.append(event, state, records)

    async def flush(self) -> None:
        """Wait until everything appended so far is committed."""
        await self.writer.flush()

    def forget(self, table: str) -> None:
        """The server let ``table`` go: the writer forgets its last state (rewritten once
        at the table's next event), so a long-running server keeps nothing per table it
        no longer holds."""
        self.writer.forget(table)

    # -- reading (any thread) ------------------------------------------------------------

    def table_meta(self, table: str) -> tuple[int, dict[str, Any]]:
        """The last ``seq`` and the plugin state of a table (0 and {} when new)."""
        return self.reader.table_meta(table)

    def records(self, table: str) -> dict[str, dict[str, Any]]:
        """A table's records (seats, characters), by kind then name."""
        return self.reader.records(table)

    def tables_with(self, kind: str) -> list[str]:
        """The tables that hold records of ``kind`` (open rolls, at start-up)."""
        return self.reader.tables_with(kind)

    def find_request(self, table: str, name: str, role: str,
                     request_id: Any) -> dict[str, Any] | None:
        """The event a member's request id already produced, if any."""
        return self.reader.find_request(table, name, role, request_id)

    def count_visible(self, table: str, name: str, role: str, after: int, upto: int) -> int:
        """How many events in (after, upto] the member (name, role) may see."""
        return self.reader.count_visible(table, name, role, after, upto)

    def page(self, table: str, name: str, role: str, after: int, upto: int | None,
             limit: int) -> list[dict[str, Any]]:
        """Up to ``limit`` events after ``after`` (and ≤ ``upto``) the member may see."""
        return self.reader.page(table, name, role, after, upto, limit)

    def all_events(self, table: str) -> Iterator[dict[str, Any]]:
        """Every event of a table, in order, streamed (for export)."""
        return self.reader.all_events(table)

    def tables(self) -> list[tuple[str, int]]:
        """Every table in the journal with its last seq."""
        return self.reader.tables()

    # -- closing -------------------------------------------------------------------------

    def close(self) -> None:
        """Commit what is queued, close the readers then the writer, release the lock."""
        self.reader.close()
        # The writer's connection closes last: SQLite then folds the WAL into the file.
        self.writer.close()
        self.lock.release()
        self._remove_temporary()

    def _remove_temporary(self) -> None:
        if self._temporary is not None:
            shutil.rmtree(self._temporary, ignore_errors=True)
