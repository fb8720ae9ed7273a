"""Writing the journal: group commit on the event loop, checkpoints in a thread.

Every event with a ``seq`` is committed before anyone sees it. Appends made in one turn of
the event loop are committed together, in one transaction, at the end of that turn; each
append's future settles only once its own commit is done, in the order the appends were
made (so events are sent in ``seq`` order). A WAL commit with ``synchronous=NORMAL`` hands
pages to the operating system's cache (tens of µs for a whole batch), far cheaper than a
round trip through a thread (about 180 µs), so it runs on the loop; nothing on the loop
waits for the disk or for another write: when the writer thread holds the connection (a
checkpoint, or batches queued behind one), the turn's batch is queued to that thread, which
commits everything queued in one transaction, and the appends' futures settle from there.

Checkpoints are the only writes that ``fsync``; they run in the writer thread once about
:data:`CHECKPOINT_PAGES` pages were committed: first beside the commits (on the thread's
own connection), then holding the write connection for the few pages committed meanwhile,
so the WAL is fully copied and the next commit starts it over: it stays a few MiB.
Pages, not events, are counted: a group commit of 50 events writes far fewer pages than 50
commits of one, and should not pay 50 commits' share of checkpoints (each an fsync stall).

An append that fails changes nothing: bad data (NaN, a lone surrogate, a missing field) is
refused by :func:`~sidecar.stores.journal.schema.encode` before any transaction; a batch that
fails in SQLite (a duplicate ``seq`` or request id, a full disk) is rolled back and its
events are retried one by one, so only the events that cannot be stored fail, each with
:class:`JournalError`, and the journal takes the next append as usual.

Durability: WAL with ``synchronous=NORMAL``. A commit is in the operating system's hands
before the roll is sent, so a crash or ``kill -9`` of the server loses nothing acknowledged;
a power cut may lose the last commits (never corrupt the file).
"""

from __future__ import annotations

import asyncio
import logging
import queue
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from sidecar.stores.journal.schema import (
    DATA_MIGRATIONS,
    MIGRATIONS,
    SCHEMA,
    JournalError,
    Row,
    encode,
)

log = logging.getLogger("sidecar.journal")

#: WAL pages (estimated) between two checkpoints: 2 MiB with 4 KiB pages.
CHECKPOINT_PAGES = 512

INSERT_EVENT = ("INSERT INTO events (table_name, seq, type, mode, roller_name, roller_role, "
                "request_id, body, audience) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")
UPSERT_RECORD = ("INSERT INTO records VALUES (?, ?, ?, ?) ON CONFLICT(table_name, kind, name) "
                 "DO UPDATE SET body = excluded.body")
DELETE_RECORD = "DELETE FROM records WHERE table_name = ? AND kind = ? AND name = ?"
UPSERT_TABLE = ("INSERT INTO tables VALUES (?, ?, ?) ON CONFLICT(name) DO UPDATE "
                "SET seq = excluded.seq, state = excluded.state")

#: An append (a row) or a barrier (``None``), and the future settled when it is committed.
Item = tuple[Row | None, asyncio.Future[None]]


def damaged_message(path: str, details: str) -> str:
    """What a GM reads when the journal file is damaged: what, and the ways out."""
    return (f"the journal '{path}' is damaged ({details}); the server will not write to it. "
            f"Restore a backup of this file, or save what can still be read — "
            f"`sidecar export --table NAME --db {path}` for each table, or "
            f"`sqlite3 {path} .recover | sqlite3 repaired.db` — then start with --db on the "
            f"restored or repaired file (or a new one)")


class JournalWriter:
    """The one connection that writes a journal file; the caller holds the writer lock."""

    def __init__(self, path: str, *, shown: str | None = None) -> None:
        self.path = path
        self.shown = shown or path
        #: Transactions committed, and checkpoints run (figures for tests and benchmarks).
        self.commits = 0
        self.checkpoints = 0
        #: The longest a checkpoint held the connection, in seconds (commits waited).
        self.longest_stall = 0.0
        self._checkpointer: sqlite3.Connection | None = None  # the writer thread's own
        self._connection = self._open()
        # One transaction at a time on the connection, whichever thread runs it.
        self._lock = threading.Lock()
        self._queue: queue.SimpleQueue[tuple[list[Item], asyncio.AbstractEventLoop] | None]
        self._queue = queue.SimpleQueue()
        self._turn: list[Item] = []  # this loop turn's appends, committed together
        self._handed = 0  # items given to the thread and not settled yet (loop side)
        self._committed_this_turn = False  # an append of this loop turn committed alone
        self._waiting = 0  # appends queued whose callers have not resumed yet (loop side)
        self._since_checkpoint = 0  # WAL pages committed since the last checkpoint
        #: Each table's plugin state as last committed here (JSON text), to skip rewriting it.
        self._states: dict[str, str] = {}
        self._closed = False
        self._thread = threading.Thread(target=self._run, name="sidecar-journal", daemon=True)
        self._thread.start()

    # -- opening ------------------------------------------------------------------------

    def _open(self) -> sqlite3.Connection:
        if not Path(self.path).parent.is_dir():
            raise JournalError(f"the folder of the journal '{self.shown}' does not exist")
        connection = sqlite3.connect(Path(self.path).as_uri(), uri=True, timeout=2,
                                     check_same_thread=False, isolation_level=None)
        try:
            connection.execute("PRAGMA busy_timeout = 2000")
            # Before anything is written: a damaged file must not take new events.
            problems = [row[0] for row in connection.execute("PRAGMA quick_check(3)")]
            if problems != ["ok"]:
                raise JournalError(damaged_message(self.shown, "; ".join(problems)))
            # A new journal's pages: 8 KiB. Events are rows of a WITHOUT ROWID table, whose
            # pages keep at most about a quarter of a page per row inline: with 4 KiB pages
            # an event of a little over 1000 bytes (a 5d10 roll with its proof of verifiable
            # dice) spills into an overflow page of its own, four times the disk and the
            # writes. (Ignored by an existing journal, which keeps its page size.)
            connection.execute("PRAGMA page_size = 8192")
            mode = connection.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if mode.lower() != "wal":
                raise JournalError(f"journal '{self.shown}' cannot use WAL mode ({mode})")
            connection.execute("PRAGMA synchronous = NORMAL")
            # Checkpoints (the only writes that fsync) run in the writer thread, never
            # inside a commit running on the event loop.
            connection.execute("PRAGMA wal_autocheckpoint = 0")
            connection.executescript(SCHEMA)
            for table, column, sql in MIGRATIONS:
                columns = [row[1] for row in connection.execute(f"PRAGMA table_info({table})")]
                if column not in columns:
                    connection.execute(sql)
            done = connection.execute("PRAGMA user_version").fetchone()[0]
            for number, sql in enumerate(DATA_MIGRATIONS[done:], start=done + 1):
                connection.execute("BEGIN")
                connection.execute(sql)
                connection.execute(f"PRAGMA user_version = {number}")
                connection.execute("COMMIT")
            connection.execute("SELECT COUNT(*) FROM tables").fetchone()
            self._page_size = connection.execute("PRAGMA page_size").fetchone()[0]
        except JournalError:
            connection.close()
            raise
        except sqlite3.DatabaseError as exc:
            connection.close()
            text = str(exc)
            if "locked" in text or "busy" in text:
                raise JournalError(f"the journal '{self.shown}' is locked by another "
                                   "program; stop it or choose another --db") from None
            if "malformed" in text:
                raise JournalError(damaged_message(self.shown, text)) from None
            raise JournalError(f"'{self.shown}' is not a usable sidecar journal ({text}); "
                               "move it away or choose another --db") from None
        return connection

    # -- committing ---------------------------------------------------------------------

    def _transaction(self, rows: list[Row]) -> None:
        """One transaction for these rows, all or nothing (the caller holds the lock)."""
        connection = self._connection
        try:
            if connection.in_transaction:  # left open by a failure SQLite did not undo
                connection.execute("ROLLBACK")
            # A table's plugin state is written only when it changed: most rolls leave it
            # as it was, and the events already say the table's last seq.
            latest = {row.table: (row.seq, row.state) for row in rows}  # the last one wins
            states = {table: last for table, last in latest.items()
                      if self._states.get(table) != last[1]}
            connection.execute("BEGIN")
            if len(rows) == 1:  # the common case: execute costs less than executemany
                row = rows[0]
                connection.execute(INSERT_EVENT, row[:9])
                text = len(row.body)
            else:
                connection.executemany(INSERT_EVENT, [row[:9] for row in rows])
                text = sum(len(row.body) for row in rows)
            for row in rows:
                for kind, name, body in row.records:
                    if body is None:
                        connection.execute(DELETE_RECORD, (row.table, kind, name))
                    else:
                        connection.execute(UPSERT_RECORD, (row.table, kind, name, body))
                        text += len(body)
            if states:
                connection.executemany(UPSERT_TABLE, [(table, seq, state)
                                                      for table, (seq, state) in states.items()])
                text += sum(len(state) for _, state in states.values())
            connection.execute("COMMIT")
        except BaseException:
            try:
                connection.execute("ROLLBACK")
            except sqlite3.Error:
                pass  # SQLite already rolled it back (a full disk does)
            raise
        self._states.update((table, state) for table, (_, state) in states.items())
        self.commits += 1
        # What the commit added to the WAL: the tables page and the last events page, plus
        # the pages the new text fills (an estimate: SQLite does not tell).
        self._since_checkpoint += 2 + text // self._page_size

    def _commit(self, items: list[Item]) -> list[BaseException | None]:
        """Commit a batch; on failure, retry its events one by one. One error per item."""
        rows = [row for row, _ in items if row is not None]
        errors: list[BaseException | None] = [None] * len(items)
        if not rows:
            return errors
        try:
            self._transaction(rows)
            return errors
        except Exception as exc:
            if len(rows) == 1:
                return [exc if row is not None else None for row, _ in items]
        for index, (row, _) in enumerate(items):
            if row is not None:
                try:
                    self._transaction([row])
                except Exception as exc:
                    errors[index] = exc
        return errors

    @staticmethod
    def _settle(items: list[Item], errors: list[BaseException | None]) -> None:
        for (row, future), error in zip(items, errors, strict=True):
            if future.done():
                continue
            if error is None:
                future.set_result(None)
            else:
                where = f" (table {row.table!r}, seq {row.seq})" if row is not None else ""
                log.error("journal write failed%s: %s", where, error)
                future.set_exception(JournalError(f"journal write failed: {error}"))

    def _commit_turn(self, loop: asyncio.AbstractEventLoop) -> None:
        """End of a loop turn: commit its appends here, or queue them behind the thread."""
        batch, self._turn = self._turn, []
        self._committed_this_turn = False  # a new turn (even if _new_turn's loop is gone)
        if (self._handed == 0 and self._since_checkpoint < CHECKPOINT_PAGES
                and self._lock.acquire(blocking=False)):
            try:
                errors = self._commit(batch)
            except BaseException as exc:
                self._settle(batch, [exc] * len(batch))
                raise
            finally:
                self._lock.release()
            self._settle(batch, errors)
            return
        # The thread holds the connection or has batches queued (they go first), or a
        # checkpoint is due (the thread runs it after this commit).
        self._handed += len(batch)
        self._queue.put((batch, loop))

    def _new_turn(self) -> None:
        self._committed_this_turn = False

    def _settle_handed(self, items: list[Item], errors: list[BaseException | None]) -> None:
        self._handed -= len(items)
        self._settle(items, errors)

    async def append(self, event: dict[str, Any], state: dict[str, Any],
                     records: tuple[tuple[str, str, Any], ...] = ()) -> None:
        """Store an event, its table's plugin state and the table records it changes
        (see :func:`~sidecar.stores.journal.schema.encode`); return once committed.

        Appends return in the order they were made. JournalError if this event was not
        stored (then nothing of it was); the journal stays usable."""
        row = encode(event, state, records)
        await self._enqueue(row)

    def forget(self, table: str) -> None:
        """Forget ``table``'s last state written (the next commit writes it again). Any
        thread: one dict operation (atomic), and a commit racing it only writes the state
        once more."""
        self._states.pop(table, None)

    async def flush(self) -> None:
        """Wait until everything appended so far is committed."""
        if self._turn or self._handed:
            await self._enqueue(None)

    async def _enqueue(self, row: Row | None) -> None:
        if self._closed:
            raise JournalError("the journal is closed")
        loop = asyncio.get_running_loop()
        if (row is not None and not self._committed_this_turn and not self._waiting
                and self._since_checkpoint < CHECKPOINT_PAGES
                and self._lock.acquire(blocking=False)):
            # The first append of a loop turn, with no earlier append still to return (a
            # committed one may not have resumed its caller yet; this one must not return
            # first): commit it now, so a lone roll pays no extra loop turn. The turn's
            # later appends are grouped into one commit at its end.
            self._committed_this_turn = True
            loop.call_soon(self._new_turn)
            try:
                self._transaction([row])
            except Exception as error:
                log.error("journal write failed (table %r, seq %s): %s", row.table, row.seq,
                          error)
                raise JournalError(f"journal write failed: {error}") from None
            finally:
                self._lock.release()
            return
        future = loop.create_future()
        if not self._turn:
            loop.call_soon(self._commit_turn, loop)
        self._turn.append((row, future))
        # Futures settle in commit order and their callers resume in that order; counting
        # the callers not resumed yet keeps the lone-append path from overtaking them.
        self._waiting += 1
        try:
            await future
        finally:
            self._waiting -= 1

    # -- the writer thread --------------------------------------------------------------

    def _run(self) -> None:
        stop = False
        while not stop:
            got = self._queue.get()
            if got is None:
                break
            batches = [got]
            while True:  # everything already queued: one transaction for all
                try:
                    more = self._queue.get_nowait()
                except queue.Empty:
                    break
                if more is None:
                    stop = True
                    break
                batches.append(more)
            items = [item for batch, _ in batches for item in batch]
            with self._lock:
                try:
                    errors = self._commit(items)
                except BaseException as exc:  # keep the thread alive, tell every waiter
                    errors = [exc] * len(items)
            start = 0
            for batch, loop in batches:
                try:
                    loop.call_soon_threadsafe(self._settle_handed, batch,
                                              errors[start:start + len(batch)])
                except RuntimeError:
                    pass  # that loop is closed: nobody is waiting any more
                start += len(batch)
            if self._since_checkpoint >= CHECKPOINT_PAGES:
                self._checkpoint()
        self._checkpoint()
        if self._checkpointer is not None:
            self._checkpointer.close()
        self._connection.close()

    def _checkpoint(self) -> None:
        # In two steps, so commits wait only for the second. First, without the lock, on
        # the thread's own connection: copy the WAL as it is now into the file and fsync it
        # (most of the work; commits go on meanwhile, on the loop). Then, holding the lock
        # so no commit slips in, copy the few pages committed during the first step: the
        # WAL is then fully copied and the next commit starts it over.
        self._since_checkpoint = 0
        try:
            if self._checkpointer is None:
                self._checkpointer = sqlite3.connect(Path(self.path).as_uri(), uri=True,
                                                     timeout=2, isolation_level=None)
            self._checkpointer.execute("PRAGMA wal_checkpoint(PASSIVE)")
        except sqlite3.Error as exc:
            log.warning("journal checkpoint failed (retried later): %s", exc)
            return
        with self._lock:
            started = time.perf_counter()
            try:
                self._connection.execute("PRAGMA wal_checkpoint(PASSIVE)")
            except sqlite3.Error as exc:
                log.warning("journal checkpoint failed (retried later): %s", exc)
            else:
                self.checkpoints += 1
            self.longest_stall = max(self.longest_stall, time.perf_counter() - started)

    def close(self) -> None:
        """Commit what is queued, checkpoint, and close the connection."""
        if self._closed:
            return
        self._closed = True
        self._queue.put(None)
        self._thread.join(10)
