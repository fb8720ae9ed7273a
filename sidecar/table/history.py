"""A page of a table's history, gathered from the journal in chunks and bounded."""

from __future__ import annotations

from typing import Any

from sidecar.protocol.messages import HistoryRequest
from sidecar.protocol.replies import history_message
from sidecar.table.epochs import with_key
from sidecar.table.limits import encoded_size
from sidecar.table.tables import Member, Table
from sidecar.table.visibility import view


def replayed(member: Member, event: dict[str, Any],
             table: Table | None = None) -> dict[str, Any] | None:
    """A journal event as ``member`` reads it again (``history``, a resume's replay):
    their view of it, ``None`` when they may not see it; once its epoch is revealed, an
    outcome carries its leaf key and path (:func:`~sidecar.table.epochs.with_key`;
    ``table``: the member's)."""
    message = view(event, member)
    if message is not None and table is not None and "proof" in message:
        message = with_key(table, message)
    return message


class HistoryPage:
    """One ``history`` answer being gathered, bounded in events and in bytes.

    The server asks the journal for :meth:`wanted` more events after :attr:`last` (plus
    one, to learn whether more exist) and hands each chunk to :meth:`add` until
    :meth:`wanted` says 0. The page stops at ``request.limit`` events or before
    ``max_bytes`` of events encoded as the client reads them (``binary``), so it never
    holds more in memory and always fits the client's frame; ``more`` then says so.
    """

    CHUNK = 50

    def __init__(self, table: Table, member: Member, request: HistoryRequest, *,
                 binary: bool, max_bytes: int) -> None:
        self.table, self.member, self.request = table, member, request
        self.binary, self.max_bytes = binary, max_bytes
        self.events: list[dict[str, Any]] = []
        #: Encoded bytes of the events gathered (what the client decodes).
        self.size = 0
        #: The seq the next chunk starts after.
        self.last = request.after
        self.more = False
        self._done = False
        #: Of :meth:`gaps`, the events that are no roll (a seat, another's sheet), as the
        #: server found them: a page says "the GM prepares the table" (a GM's note) for them.
        self.hidden_notes: list[int] = []

    def wanted(self) -> int:
        """How many more events to read from the journal (0: the page is complete)."""
        if self._done:
            return 0
        return min(self.CHUNK, self.request.limit - len(self.events))

    def add(self, chunk: list[dict[str, Any]]) -> None:
        """Take up to ``wanted() + 1`` journal events (as the member may see them)."""
        wanted = self.wanted()
        for event in chunk[:wanted]:
            message = replayed(self.member, event, self.table)
            if message is None:
                self.last = event["seq"]
                continue
            size = encoded_size(message, self.binary)
            if self.events and self.size + size > self.max_bytes:
                self.more = self._done = True
                return
            self.events.append(message)
            self.size += size
            self.last = event["seq"]
        if len(chunk) <= wanted:  # the journal has nothing after this chunk
            self._done = True
        elif len(self.events) >= self.request.limit:
            self.more = self._done = True

    #: How many unseen seqs of a page the server looks at, at most.
    GAPS = 100

    def gaps(self) -> list[int]:
        """The seqs a page covers that the member does not see (the page's first
        :data:`GAPS`): the server tells which are no roll (a seat, another's sheet: the GM
        at work), wherever they are, so that a page does not show them as secret rolls."""
        seen = {event["seq"] for event in self.events}
        # Up to the page's end: the table's last seq, when it is the last page.
        end = self.last if self.more else max(self.last, self.table.seq)
        gaps = (seq for seq in range(self.request.after + 1, end + 1) if seq not in seen)
        return [seq for _, seq in zip(range(self.GAPS), gaps, strict=False)]

    def message(self) -> dict[str, Any]:
        return history_message(self.table.name, self.events, more=self.more, next=self.last,
                               request_id=self.request.id, hidden_notes=self.hidden_notes)
