"""The table journal: every event with a ``seq`` is stored in SQLite before anyone sees it.

A roll that finds the journal idle (no other append on its way) is committed right away,
on the event loop: a WAL commit with ``synchronous=NORMAL`` is an append to the operating
system's page cache (about 20 µs), far cheaper than the two thread hand-offs of the
writer thread (about 180 µs). Under load, appends go to one writer thread that commits
whatever has queued up in a single transaction (batching keeps up with any roll rate while
each roll still waits for its own commit). Only checkpoints touch the disk for real
(fsync); they run in the writer thread, never on the loop. Reads (replay, history,
idempotency look-ups) use per-thread connections and run off the loop too.

Durability: WAL mode with ``synchronous=NORMAL``. A commit is in the operating system's
hands before the roll is sent, so a crash or ``kill -9`` of the server loses nothing
acknowledged; a power cut or OS crash may lose the last commits (at most the last
fraction of a second), never corrupt the file. ``synchronous=FULL`` would survive power
loss at the cost of an fsync per batch.
"""

from __future__ import annotations

import asyncio
import fcntl
import json
import logging
import os
import queue
import shutil
import sqlite3
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

log = logging.getLogger("sidecar.journal")

#: Commits between two checkpoints (each a few pages of WAL).
CHECKPOINT_EVERY = 256

SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    table_name TEXT NOT NULL,
    seq INTEGER NOT NULL,
    type TEXT NOT NULL,
    mode TEXT NOT NULL,
    roller_name TEXT NOT NULL,
    roller_role TEXT NOT NULL,
    request_id TEXT,
    body TEXT NOT NULL,
    PRIMARY KEY (table_name, seq)
) WITHOUT ROWID;
CREATE UNIQUE INDEX IF NOT EXISTS events_request
    ON events (table_name, roller_name, roller_role, request_id)
    WHERE request_id IS NOT NULL;
CREATE TABLE IF NOT EXISTS tables (
    name TEXT PRIMARY KEY,
    seq INTEGER NOT NULL,
    state TEXT NOT NULL
);
"""

#: What a member may see, as SQL over (mode, roller): mirrors sidecar.visibility.
VISIBLE = """(mode = 'public'
    OR (:role = 'gm' AND mode IN ('gm', 'blind'))
    OR (roller_name = :name AND roller_role = :role AND mode IN ('gm', 'blind', 'self')))"""


class JournalError(Exception):
    """The journal cannot be opened or written; the message says why, for a person."""


def request_key(request_id: Any) -> str | None:
    """How a request id is stored: JSON, so the string "1" and the integer 1 differ."""
    return None if request_id is None else json.dumps(request_id)


class Journal:
    """An SQLite journal of table events.

    ``path`` ``":memory:"`` keeps the journal in a temporary file removed at :meth:`close`
    (SQLite's own in-memory databases cannot be shared by the writer thread and readers
    without table-level locks that ignore the busy timeout).
    """

    def __init__(self, path: str | os.PathLike[str] = "sidecar.db") -> None:
        self.memory = str(path) == ":memory:"
        self._temporary: str | None = None
        if self.memory:
            self._temporary = tempfile.mkdtemp(prefix="sidecar-journal-")
            path = os.path.join(self._temporary, "journal.db")
        self.path = str(path)
        self.uri = Path(self.path).resolve().as_uri()
        self._lock_file: Any = None
        self._local = threading.local()
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        # One transaction at a time on the write connection, whichever thread runs it.
        self._write_lock = threading.Lock()
        self._outstanding = 0  # appends not yet returned (event-loop side only)
        self._since_checkpoint = 0
        self._open()
        self._thread = threading.Thread(target=self._writer, name="sidecar-journal",
                                        daemon=True)
        self._thread.start()

    # -- opening ------------------------------------------------------------------------

    def _connect(self) -> sqlite3.Connection:
        connection = sqlite3.connect(self.uri, uri=True, timeout=5, check_same_thread=False,
                                     isolation_level=None)
        connection.execute("PRAGMA busy_timeout = 5000")
        return connection

    def _open(self) -> None:
        directory = Path(self.path).resolve().parent
        if not directory.is_dir():
            raise JournalError(f"the folder of the journal '{self.path}' does not exist")
        self._take_lock()
        try:
            connection = self._connect()
            connection.execute("PRAGMA busy_timeout = 2000")
            mode = connection.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if mode.lower() != "wal":
                raise JournalError(f"journal '{self.path}' cannot use WAL mode ({mode})")
            connection.execute("PRAGMA synchronous = NORMAL")
            # Checkpoints (the only writes that fsync) run in the writer thread, never
            # inside a commit that may be running on the event loop.
            connection.execute("PRAGMA wal_autocheckpoint = 0")
            connection.executescript(SCHEMA)
            connection.execute("SELECT COUNT(*) FROM tables").fetchone()
        except sqlite3.DatabaseError as exc:
            self._release_lock()
            text = str(exc)
            if "locked" in text or "busy" in text:
                raise JournalError(f"the journal '{self.path}' is locked by another "
                                   "program; stop it or choose another --db") from None
            raise JournalError(f"'{self.path}' is not a usable sidecar journal ({text}); "
                               "move it away or choose another --db") from None
        self._write_connection = connection

    def _take_lock(self) -> None:
        lock_path = f"{self.path}.lock"
        try:
            self._lock_file = open(lock_path, "a+")  # noqa: SIM115 - held for the lifetime
            fcntl.flock(self._lock_file, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._lock_file.close()
            self._lock_file = None
            raise JournalError(f"another sidecar server is using the journal '{self.path}' "
                               f"(lock file {lock_path})") from None
        except OSError as exc:
            raise JournalError(f"cannot lock the journal '{self.path}': {exc}") from None

    def _release_lock(self) -> None:
        if self._lock_file is not None:
            self._lock_file.close()
            self._lock_file = None

    # -- writing ------------------------------------------------------------------------

    def _write(self, connection: sqlite3.Connection,
               events: list[tuple[dict[str, Any], dict[str, Any]]]) -> None:
        """One transaction for these events (the caller holds the write lock)."""
        try:
            connection.execute("BEGIN")
            for event, state in events:
                connection.execute(
                    "INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (event["table"], event["seq"], event["type"], event["mode"],
                     event["by"]["name"], event["by"]["role"],
                     request_key(event.get("request_id")),
                     json.dumps(event, ensure_ascii=False)))
                connection.execute(
                    "INSERT INTO tables VALUES (?, ?, ?) ON CONFLICT(name) DO UPDATE "
                    "SET seq = excluded.seq, state = excluded.state",
                    (event["table"], event["seq"], json.dumps(state)))
            connection.execute("COMMIT")
        except BaseException:
            try:
                connection.execute("ROLLBACK")
            except sqlite3.Error:
                pass
            raise
        self._since_checkpoint += len(events)

    def _writer(self) -> None:
        connection = self._write_connection
        while True:
            item = self._queue.get()
            if item is None:
                break
            batch = [item]
            while True:  # take everything already queued: one transaction for all
                try:
                    more = self._queue.get_nowait()
                except queue.Empty:
                    break
                if more is None:
                    self._queue.put(None)
                    break
                batch.append(more)
            error: BaseException | None = None
            events = [payload for kind, payload, _, _ in batch if kind == "event"]
            try:
                with self._write_lock:
                    if events:
                        self._write(connection, events)
            except BaseException as exc:  # report to every waiter, keep the thread alive
                error = exc
                log.error("journal write failed: %s", exc)
            for _, _, future, loop in batch:
                loop.call_soon_threadsafe(_settle, future, error)
            if self._since_checkpoint >= CHECKPOINT_EVERY:
                self._checkpoint(connection)
        self._checkpoint(connection)
        connection.close()

    def _checkpoint(self, connection: sqlite3.Connection) -> None:
        # Holding the write lock, no commit can slip in: the checkpoint copies the whole
        # WAL, and the next commit starts it over, so it stays a few MiB. Appends made
        # meanwhile queue up for the writer thread, in order, as under load.
        with self._write_lock:
            self._since_checkpoint = 0
            try:
                connection.execute("PRAGMA wal_checkpoint(PASSIVE)")
            except sqlite3.Error as exc:
                log.warning("journal checkpoint failed (retried later): %s", exc)

    async def append(self, event: dict[str, Any], state: dict[str, Any]) -> None:
        """Store an event (and its table's plugin state); returns once committed.

        Appends return in the order they were made, so events are sent in ``seq`` order."""
        # Inline only when no other append is on its way (then nothing queued can be
        # overtaken, and every earlier roll has already been sent), and not when a
        # checkpoint is due: that append goes to the writer thread, which checkpoints
        # after committing it.
        if (self._outstanding == 0 and self._since_checkpoint < CHECKPOINT_EVERY
                and self._write_lock.acquire(blocking=False)):
            try:
                self._write(self._write_connection, [(event, state)])
            except BaseException as exc:
                log.error("journal write failed: %s", exc)
                raise JournalError(f"journal write failed: {exc}") from None
            finally:
                self._write_lock.release()
            return
        self._outstanding += 1
        try:
            loop = asyncio.get_running_loop()
            future = loop.create_future()
            self._queue.put(("event", (event, state), future, loop))
            await future
        finally:
            self._outstanding -= 1

    async def flush(self) -> None:
        """Wait until everything appended so far is committed."""
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        self._queue.put(("barrier", None, future, loop))
        await future

    def close(self) -> None:
        """Commit what is queued and stop the writer."""
        self._queue.put(None)
        self._thread.join(10)
        self._release_lock()
        if self._temporary is not None:
            shutil.rmtree(self._temporary, ignore_errors=True)

    # -- reading ------------------------------------------------------------------------

    def _reader(self) -> sqlite3.Connection:
        connection = getattr(self._local, "connection", None)
        if connection is None:
            connection = self._local.connection = self._connect()
        return connection

    def table_meta(self, table: str) -> tuple[int, dict[str, Any]]:
        """The last ``seq`` and the plugin state of a table (0 and {} when new)."""
        row = self._reader().execute("SELECT seq, state FROM tables WHERE name = ?",
                                     (table,)).fetchone()
        return (row[0], json.loads(row[1])) if row else (0, {})

    def find_request(self, table: str, name: str, role: str,
                     request_id: Any) -> dict[str, Any] | None:
        """The event a member's request id already produced, if any."""
        row = self._reader().execute(
            "SELECT body FROM events WHERE table_name = ? AND roller_name = ? AND "
            "roller_role = ? AND request_id = ?",
            (table, name, role, request_key(request_id))).fetchone()
        return json.loads(row[0]) if row else None

    def count_visible(self, table: str, name: str, role: str, after: int, upto: int) -> int:
        """How many events in (after, upto] the member (name, role) may see."""
        return self._reader().execute(
            f"SELECT COUNT(*) FROM events WHERE table_name = :table AND seq > :after "
            f"AND seq <= :upto AND {VISIBLE}",
            {"table": table, "after": after, "upto": upto, "name": name,
             "role": role}).fetchone()[0]

    def page(self, table: str, name: str, role: str, after: int, upto: int | None,
             limit: int) -> list[dict[str, Any]]:
        """Up to ``limit`` events after ``after`` (and ≤ ``upto``) the member may see."""
        rows = self._reader().execute(
            f"SELECT body FROM events WHERE table_name = :table AND seq > :after "
            f"AND seq <= :upto AND {VISIBLE} ORDER BY seq LIMIT :limit",
            {"table": table, "after": after, "upto": upto if upto is not None else 2**62,
             "name": name, "role": role, "limit": limit}).fetchall()
        return [json.loads(row[0]) for row in rows]

    def all_events(self, table: str) -> Iterator[dict[str, Any]]:
        """Every event of a table, in order, streamed (for export)."""
        after = 0
        while True:
            rows = self._reader().execute(
                "SELECT seq, body FROM events WHERE table_name = ? AND seq > ? "
                "ORDER BY seq LIMIT 500", (table, after)).fetchall()
            if not rows:
                return
            for seq, body in rows:
                after = seq
                yield json.loads(body)

    def tables(self) -> list[tuple[str, int]]:
        """Every table in the journal with its last seq."""
        return self._reader().execute("SELECT name, seq FROM tables ORDER BY name").fetchall()


def _settle(future: asyncio.Future[None], error: BaseException | None) -> None:
    if future.done():
        return
    if error is None:
        future.set_result(None)
    else:
        future.set_exception(JournalError(f"journal write failed: {error}"))
