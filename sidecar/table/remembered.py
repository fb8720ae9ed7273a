"""The server-wide bound on the events tables remember (``max_remembered_total_bytes``).

Each table remembers the events its requests produced, by request id, to answer a
repeated id without reading the journal (``Table.recent``, bounded per table by
``max_remembered_bytes``). With thousands of tables that per-table bound alone lets the
server's memory grow with tables × rolls; :class:`RememberedEvents` keeps the total under
one figure by trimming the oldest remembered events of any table. Nothing is lost: a table
that had an event trimmed asks the journal for a request id it does not remember
(``Table.needs_journal_lookup``), as a table loaded from the journal always does.
"""

from __future__ import annotations

import collections
from typing import Any, Protocol


class Table(Protocol):
    """What the bound uses of a table (:class:`sidecar.table.tables.Table`)."""

    recent: dict[tuple[str, str, str], dict[str, Any]]
    recent_bytes: int
    forgot: bool
    trims: int

#: One remembered event, in the order they were remembered: its table, request key, seq
#: (to tell it from a later event under the same key) and encoded size.
Entry = tuple[Table, tuple[str, str, str], int, int]

#: Entries of events already gone (their table emptied its memory, or was forgotten) are
#: dropped when they outnumber the live ones by this many (so the queue stays O(live)).
SLACK = 1024


class RememberedEvents:
    """The encoded bytes of every table's remembered events, and the oldest-first order in
    which they are trimmed past ``max_bytes`` (0 or less: no server-wide bound)."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        #: Encoded bytes and number of the events remembered by every table now.
        self.bytes = 0
        self.count = 0
        #: Events trimmed so far to keep the bound (a figure for benchmarks and logs).
        self.trimmed = 0
        self._order: collections.deque[Entry] = collections.deque()

    def added(self, table: Table, key: tuple[str, str, str], event: dict[str, Any],
              size: int) -> None:
        """``table`` now remembers ``event`` (``size`` bytes) under ``key``: count it, and
        trim the oldest events of any table while the total is past the bound."""
        self.bytes += size
        self.count += 1
        if self.max_bytes <= 0:
            return
        self._order.append((table, key, event["seq"], size))
        while self.bytes > self.max_bytes and self._order:
            self._trim(*self._order.popleft())
        if len(self._order) > 2 * self.count + SLACK:
            self._order = collections.deque(e for e in self._order if _live(*e))

    def released(self, count: int, size: int) -> None:
        """A table let go of ``count`` remembered events of ``size`` bytes in all (its own
        bound, or the table itself forgotten); their entries are dropped lazily."""
        self.bytes -= size
        self.count -= count

    def _trim(self, table: Table, key: tuple[str, str, str], seq: int, size: int) -> None:
        if not _live(table, key, seq, size):
            return  # already gone with its table's memory
        del table.recent[key]
        table.recent_bytes -= size
        # From now on a request id this table does not remember may be one of those
        # trimmed: the journal is asked (and a request waiting for the table's turn looks
        # again, as ``trims`` changed).
        table.forgot = True
        table.trims += 1
        self.bytes -= size
        self.count -= 1
        self.trimmed += 1


def _live(table: Table, key: tuple[str, str, str], seq: int, size: int) -> bool:
    event = table.recent.get(key)
    return event is not None and event["seq"] == seq
