"""Reading the journal: read-only SQLite connections that work beside a running writer.

A :class:`JournalReader` opens the database with ``mode=ro`` and never takes the writer's
lock: in WAL mode readers see the last commit and never wait for the writer, so
``sidecar export`` reads a table while ``sidecar serve`` keeps rolling on it. Each thread
gets its own connection (reads run off the event loop, in worker threads).

A row whose JSON cannot be read (or an outcome without the fields its views need) does
not break its table: it is returned as a placeholder event
(:func:`~sidecar.stores.journal.schema.unreadable_event`) with the same ``seq``, roller and mode,
and a warning is logged once per row. A table whose saved plugin state cannot be
read is loaded with an empty state, logged as an error: the GM can keep playing (only the
extensions' per-table memory, such as a used blank botch, is lost).
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from sidecar.stores.journal.schema import (
    JournalError,
    read_only_uri,
    real_path,
    request_key,
    unreadable_event,
)
from sidecar.stores.visible import VISIBLE, VISIBLE_BEFORE_AUDIENCE

log = logging.getLogger("sidecar.journal")

#: The columns a decoded event is built from; the body is read as bytes, so text that is
#: not UTF-8 is one unreadable row instead of an error for the whole page.
EVENT_COLUMNS = ("table_name, seq, type, mode, roller_name, roller_role, request_id, "
                 "CAST(body AS BLOB)")


#: What an outcome must hold for ``sidecar.table.visibility.outcome_view`` to show it.
OUTCOME_FIELDS = frozenset(("seq", "roll", "table", "by", "ruleset", "params", "label", "mode",
                            "dice", "result", "applied", "notes", "text"))


class JournalReader:
    """Read-only access to a journal file; safe to use from several threads."""

    def __init__(self, path: str) -> None:
        self.given = path
        self.path = real_path(path)
        if not Path(self.path).is_file():
            raise JournalError(f"pas de journal à « {path} » / no journal at '{path}'")
        self.uri = read_only_uri(self.path)
        self._local = threading.local()
        self._connections: list[sqlite3.Connection] = []
        self._guard = threading.Lock()
        self._reported: set[tuple[str, int]] = set()
        self._connection()  # fail now, clearly, if it cannot be opened

    def _connection(self) -> sqlite3.Connection:
        connection = getattr(self._local, "connection", None)
        if connection is None:
            try:
                connection = sqlite3.connect(self.uri, uri=True, timeout=5,
                                             check_same_thread=False, isolation_level=None)
                connection.execute("PRAGMA busy_timeout = 5000")
                connection.execute("SELECT 1 FROM tables LIMIT 1").fetchall()
                columns = [row[1] for row in connection.execute("PRAGMA table_info(events)")]
                # A journal no server of this version has opened yet (read by export).
                self._visible = VISIBLE if "audience" in columns else VISIBLE_BEFORE_AUDIENCE
                self._has_records = bool(connection.execute(
                    "SELECT 1 FROM sqlite_master WHERE name = 'records'").fetchall())
            except sqlite3.Error as exc:
                raise JournalError(f"cannot read the journal '{self.given}': {exc}") from None
            self._local.connection = connection
            with self._guard:
                self._connections.append(connection)
        return connection

    def _query(self, sql: str, parameters: Any = ()) -> list[Any]:
        try:
            return self._connection().execute(sql, parameters).fetchall()
        except sqlite3.DatabaseError as exc:
            raise JournalError(f"cannot read the journal '{self.given}': {exc}") from None

    def close(self) -> None:
        """Close every connection this reader opened, from whichever thread."""
        with self._guard:
            connections, self._connections = self._connections, []
        for connection in connections:
            connection.close()
        self._local = threading.local()

    # -- decoding -----------------------------------------------------------------------

    def _event(self, row: tuple[Any, ...]) -> dict[str, Any]:
        table, seq, type_, mode, name, role, rid, body = row
        try:
            # orjson refuses what would break a client later: infinities, lone surrogates
            # (an integer past 64 bits comes back as a float, which every client reads).
            event = orjson.loads(body)
            if not isinstance(event, dict) or event.get("seq") != seq:
                raise ValueError("not this row's event")
            if event.get("type") == "outcome" and not (
                    OUTCOME_FIELDS <= event.keys() and isinstance(event["text"], dict)
                    and "fr" in event["text"] and isinstance(event["by"], dict)):
                raise ValueError("an outcome without the fields every view of it needs")
            return event
        except (ValueError, TypeError) as exc:  # bad JSON, or bytes that are not UTF-8
            if (table, seq) not in self._reported:
                self._reported.add((table, seq))
                log.warning("journal '%s': event #%s of table %r is unreadable (%s); it is "
                            "shown as an unreadable event", self.given, seq, table, exc)
            return unreadable_event(table, seq, type_, mode, name, role, rid)

    # -- queries ------------------------------------------------------------------------

    def table_meta(self, table: str) -> tuple[int, dict[str, Any]]:
        """The last ``seq`` and the plugin state of a table (0 and {} when new)."""
        # The events hold the last seq (the tables row is written only when the plugin
        # state changes, see JournalWriter).
        seq = self._query("SELECT COALESCE(MAX(seq), 0) FROM events WHERE table_name = ?",
                          (table,))[0][0]
        rows = self._query("SELECT CAST(state AS BLOB) FROM tables WHERE name = ?", (table,))
        if not rows:
            return seq, {}
        text = rows[0][0]
        try:
            state = orjson.loads(text)
            if not isinstance(state, dict):
                raise ValueError("not a JSON object")
        except (ValueError, TypeError) as exc:
            log.error("journal '%s': the saved plugin state of table %r is unreadable (%s: "
                      "%.80r); the table starts with an EMPTY state — extensions forget what "
                      "they remembered for it (a used blank botch, for one)", self.given,
                      table, exc, text)
            return seq, {}
        for plugin in [name for name, value in state.items() if not isinstance(value, dict)]:
            # Each plugin's memory is a map; one that is not would fail every roll there.
            log.error("journal '%s': the saved state of plugin %r at table %r is not a map "
                      "(%.80r); that plugin starts with an EMPTY state there", self.given,
                      plugin, table, state[plugin])
            del state[plugin]
        return seq, state

    def records(self, table: str) -> dict[str, dict[str, Any]]:
        """A table's records (seats, characters), by kind then name; an unreadable one is
        logged and left out."""
        self._connection()
        if not self._has_records:
            return {}
        found: dict[str, dict[str, Any]] = {}
        for kind, name, body in self._query(
                "SELECT kind, name, CAST(body AS BLOB) FROM records WHERE table_name = ?",
                (table,)):
            try:
                found.setdefault(kind, {})[name] = orjson.loads(body)
            except (ValueError, TypeError) as exc:
                log.error("journal '%s': the %s %r of table %r is unreadable (%s); left out",
                          self.given, kind, name, table, exc)
        return found

    def newest_tables(self, limit: int) -> list[str]:
        """Up to ``limit`` tables, the newest first: ``tables`` rows are upserted, so
        their rowid is the order each table was first written in."""
        return [row[0] for row in self._query(
            "SELECT name FROM tables ORDER BY rowid DESC LIMIT ?", (limit,))]

    def tables_with(self, kind: str) -> list[str]:
        """The tables that hold records of ``kind`` (e.g. open rolls)."""
        self._connection()
        if not self._has_records:
            return []
        return [row[0] for row in self._query(
            "SELECT DISTINCT table_name FROM records WHERE kind = ? ORDER BY table_name",
            (kind,))]

    def find_request(self, table: str, name: str, role: str,
                     request_id: Any) -> dict[str, Any] | None:
        """The event a member's request id already produced, if any."""
        rows = self._query(
            f"SELECT {EVENT_COLUMNS} FROM events WHERE table_name = ? AND roller_name = ? "
            "AND roller_role = ? AND request_id = ?",
            (table, name, role, request_key(request_id)))
        return self._event(rows[0]) if rows else None

    def event(self, table: str, seq: int) -> dict[str, Any] | None:
        """One event of a table by its seq, if stored."""
        rows = self._query(f"SELECT {EVENT_COLUMNS} FROM events WHERE table_name = ? "
                           "AND seq = ?", (table, seq))
        return self._event(rows[0]) if rows else None

    def count_visible(self, table: str, name: str, role: str, after: int, upto: int) -> int:
        """How many events in (after, upto] the member (name, role) may see."""
        return self._query(
            f"SELECT COUNT(*) FROM events WHERE table_name = :table AND seq > :after "
            f"AND seq <= :upto AND {self._visible}",
            {"table": table, "after": after, "upto": upto, "name": name, "role": role})[0][0]

    def page(self, table: str, name: str, role: str, after: int, upto: int | None,
             limit: int) -> list[dict[str, Any]]:
        """Up to ``limit`` events after ``after`` (and ≤ ``upto``) the member may see."""
        rows = self._query(
            f"SELECT {EVENT_COLUMNS} FROM events WHERE table_name = :table AND seq > :after "
            f"AND seq <= :upto AND {self._visible} ORDER BY seq LIMIT :limit",
            {"table": table, "after": after, "upto": upto if upto is not None else 2**62,
             "name": name, "role": role, "limit": limit})
        return [self._event(row) for row in rows]

    def all_events(self, table: str) -> Iterator[dict[str, Any]]:
        """Every event of a table, in order, streamed (for export)."""
        after = 0
        while True:
            rows = self._query(
                f"SELECT {EVENT_COLUMNS} FROM events WHERE table_name = ? AND seq > ? "
                "ORDER BY seq LIMIT 500", (table, after))
            if not rows:
                return
            for row in rows:
                after = row[1]
                yield self._event(row)

    def tables(self) -> list[tuple[str, int]]:
        """Every table in the journal with its last seq."""
        # Every table has its row (written with its first event); the events hold its last
        # seq, found by a descent of the primary key, not a scan.
        return [tuple(row) for row in self._query(
            "SELECT name, (SELECT COALESCE(MAX(seq), 0) FROM events WHERE table_name = name) "
            "FROM tables ORDER BY name")]
