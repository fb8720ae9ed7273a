"""The server-wide bound on what tables remember of their requests (``max_remembered_total_bytes``).

Each table remembers the events its requests produced, by request id, to answer a
repeated id without reading the journal (``Table.recent``, bounded per table by
``max_remembered_bytes``). With thousands of tables that per-table bound alone lets the
server's memory grow with tables × rolls; :class:`RememberedEvents` keeps the total under
one figure, trimming in two steps, oldest first across tables:

1. past a quarter of the bound in events (a repeat is rare: an event is kept whole only
   to answer one without reading the store), the oldest event of any table is let go of
   but its request id is kept with the event's seq (``Table.recalled``, about 15 times
   smaller than the event): a repeat of it reads that one event from the store, and a new
   request id is still known new without asking the store;
2. past the whole bound, the oldest such id is dropped: its table then asks the store about
   every request id it does not remember (``Table.needs_journal_lookup``), as a table loaded
   from the journal always does — a read off the event loop per request, so this comes last.

Nothing is lost either way: the journal has every event.
"""

from __future__ import annotations

import collections
from collections.abc import Mapping
from typing import Any, Protocol

#: What a request id kept without its event counts against the bound, in the bound's unit
#: (bytes as journaled; a 5d10 outcome of 1 KB journaled holds about 4 KB in memory): its
#: key, seq and place in the order hold about 270 bytes in memory.
KEY_BYTES = 64

#: The share of the bound events kept whole may take (the rest: request ids alone).
WHOLE_SHARE = 4

#: Entries of events or ids already gone (their table emptied its memory, or was
#: forgotten) are dropped when they outnumber the live ones by this many.
SLACK = 1024


class Table(Protocol):
    """What the bound uses of a table (:class:`sidecar.table.tables.Table`)."""

    name: str
    recent: dict[tuple[str, str, str], dict[str, Any]]
    recalled: dict[tuple[str, str, str], int]
    recent_bytes: int
    forgot: bool
    trims: int


#: One remembered event or id, in the order they were remembered: its table's name, request
#: key, seq (to tell it from another under the same key) and encoded size. Only strings and
#: integers: the collector stops tracking such tuples, so a few hundred thousand of them
#: add nothing to a full collection's walk (a table object in each would).
Entry = tuple[str, tuple[str, str, str], int, int]


class RememberedEvents:
    """What every table remembers of its requests, in bytes as journaled, and the
    oldest-first order in which it is trimmed past ``max_bytes`` (0 or less: no
    server-wide bound)."""

    def __init__(self, max_bytes: int, tables: Mapping[str, Table]) -> None:
        self.max_bytes = max_bytes
        self._bounded = max_bytes > 0
        #: What events kept whole may take of the bound.
        self._whole_bytes = max_bytes // WHOLE_SHARE
        #: The tables in memory by name (an entry whose table is gone, or is another
        #: table of the same name loaded since, is skipped).
        self.tables = tables
        #: The total counted against the bound: the events' bytes, KEY_BYTES per id kept.
        self.bytes = 0
        #: Events remembered whole, and their bytes.
        self.count = 0
        self.event_bytes = 0
        #: Request ids kept without their event.
        self.keys = 0
        #: Events let go of (step 1) and ids dropped (step 2) so far, for benchmarks.
        self.trimmed = 0
        self.dropped = 0
        self._events: collections.deque[Entry] = collections.deque()
        self._keys: collections.deque[Entry] = collections.deque()

    def added(self, table: Table, key: tuple[str, str, str], event: dict[str, Any],
              size: int) -> None:
        """``table`` now remembers ``event`` (``size`` bytes) under ``key``: count it, and
        trim the oldest of any table while past the bound."""
        # Every roll passes here: the usual case (under the bound) is the counting, one
        # append and two comparisons; trimming and compaction are kept out of it.
        self.bytes += size
        self.event_bytes += size
        self.count += 1
        if self._bounded:
            self._events.append((table.name, key, event["seq"], size))
            if self.event_bytes > self._whole_bytes or self.bytes > self.max_bytes:
                self._trim()

    def _trim(self) -> None:
        """Let go of the oldest events past their share, then of the oldest ids past the
        whole bound."""
        while self.event_bytes > self._whole_bytes and self._events:
            self._recall(*self._events.popleft())
        while self.bytes > self.max_bytes and self._keys:
            self._drop(*self._keys.popleft())

    def released(self, count: int, size: int, keys: int) -> None:
        """A table let go of ``count`` events of ``size`` bytes in all and ``keys`` ids
        (its own bound, or the table itself forgotten); their entries go lazily."""
        self.bytes -= size + keys * KEY_BYTES
        self.event_bytes -= size
        self.count -= count
        self.keys -= keys
        # Only a release leaves entries behind that nothing points to any more: compact
        # here, once they outnumber the live ones, rather than on every roll.
        if len(self._events) > 2 * self.count + SLACK:
            self._events = collections.deque(e for e in self._events if self._whole(*e))
        if len(self._keys) > 2 * self.keys + SLACK:
            self._keys = collections.deque(e for e in self._keys if self._kept(*e))

    def _recall(self, name: str, key: tuple[str, str, str], seq: int, size: int) -> None:
        """Step 1: keep the id and seq of the event, not the event."""
        table = self._whole(name, key, seq, size)
        if table is None:
            return  # already gone with its table's memory
        del table.recent[key]
        table.recent_bytes -= size
        table.recalled[key] = seq
        self.event_bytes -= size
        self.count -= 1
        self.bytes -= size - KEY_BYTES
        self.keys += 1
        self.trimmed += 1
        self._keys.append((name, key, seq, KEY_BYTES))

    def _drop(self, name: str, key: tuple[str, str, str], seq: int, size: int) -> None:
        """Step 2: forget the id; from now on a request id this table does not remember
        may be one of those dropped: the journal is asked (and a request waiting for the
        table's turn looks again, as ``trims`` changed)."""
        table = self._kept(name, key, seq, size)
        if table is None:
            return
        del table.recalled[key]
        table.forgot = True
        table.trims += 1
        self.bytes -= KEY_BYTES
        self.keys -= 1
        self.dropped += 1

    def _whole(self, name: str, key: tuple[str, str, str], seq: int, size: int
               ) -> Table | None:
        """The table still holding this event whole, if any."""
        table = self.tables.get(name)
        event = None if table is None else table.recent.get(key)
        return table if event is not None and event["seq"] == seq else None

    def _kept(self, name: str, key: tuple[str, str, str], seq: int, size: int
              ) -> Table | None:
        """The table still holding this id without its event, if any."""
        table = self.tables.get(name)
        return table if table is not None and table.recalled.get(key) == seq else None
