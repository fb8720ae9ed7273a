"""Per-connection byte accounting of what is waiting for a client to read.

Every frame the server means for one client is either written to the transport (its write
buffer grows until the client reads) or held back in memory (live events kept for a member
while its ``resume`` replay streams). An :class:`Outbox` counts both, in bytes, against one
bound: a client that lets more than that pile up is closed with :data:`CLOSE_TOO_SLOW`
instead of growing the server's memory. It can reconnect and ``resume``.

Nothing here waits: :meth:`Outbox.write` either writes at once or sheds the connection, so
no request handler is ever parked on a client that does not read. Streams that should
follow the client's pace (a replay) wait with :meth:`Outbox.room`, which returns once the
transport has drained or the connection is gone.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from websockets.asyncio.server import ServerConnection, broadcast
from websockets.protocol import State

log = logging.getLogger("sidecar.outbox")

#: Close code for a client that left too much unread ("try again later": reconnect and
#: resume).
CLOSE_TOO_SLOW = 1013
CLOSE_TOO_SLOW_REASON = "too slow / trop lent"
#: Seconds a shed connection has to take its close frame before its socket is cut (the
#: unread bytes stay in memory that long at most).
SHED_GRACE = 2.0


class Outbox:
    """The unread bytes of one connection, and the bound they must stay under.

    ``limit`` bounds the transport's write buffer plus :attr:`held` (bytes of messages
    the server keeps for later). Past it the connection is shed: a close frame with
    :data:`CLOSE_TOO_SLOW`, then the socket is aborted after :data:`SHED_GRACE` seconds.
    """

    def __init__(self, connection: ServerConnection, limit: int) -> None:
        self.connection = connection
        self.limit = limit
        #: Bytes of messages kept in memory for this connection (not yet written).
        self.held = 0
        #: Why the connection was shed (``None`` while it is not).
        self.shed_reason: str | None = None

    def buffered(self) -> int:
        """Bytes written to the transport that the client has not taken yet."""
        transport = self.connection.transport
        return transport.get_write_buffer_size() if transport is not None else 0

    def queued(self) -> int:
        """Everything waiting for this client: transport buffer and held messages."""
        return self.buffered() + self.held

    def fits(self, size: int) -> bool:
        """Whether ``size`` more bytes keep this connection under its bound."""
        return self.shed_reason is None and self.queued() + size <= self.limit

    def hold(self, size: int) -> bool:
        """Count ``size`` bytes kept for later; ``False`` (and the connection shed) if
        that would pass the bound."""
        if not self.fits(size):
            self.shed(f"more than {self.limit} bytes unread")
            return False
        self.held += size
        return True

    def release(self, size: int) -> None:
        """Held bytes that were written or dropped."""
        self.held = max(0, self.held - size)

    def write(self, frame: bytes | str) -> bool:
        """Write one encoded frame without waiting; ``False`` if the connection is shed
        (or already closed) instead."""
        size = len(frame)
        if not self.fits(size):
            self.shed(f"more than {self.limit} bytes unread")
            return False
        if self.connection.protocol.state is not State.OPEN:
            return False
        broadcast([self.connection], frame)
        return True

    async def room(self) -> None:
        """Wait until the transport has drained below its low-water mark (returns at once
        when it has, or when the connection is closed)."""
        connection = self.connection
        if connection.protocol.state is State.OPEN and self.shed_reason is None:
            try:
                await connection.drain()
            except Exception:  # noqa: BLE001 - the connection was lost: the next write says so
                return

    def shed(self, why: str, code: int = CLOSE_TOO_SLOW,
             reason: str = CLOSE_TOO_SLOW_REASON) -> None:
        """Close the connection (by default with :data:`CLOSE_TOO_SLOW`) without waiting
        on the client: the socket is cut :data:`SHED_GRACE` seconds later at most."""
        if self.shed_reason is not None:
            return
        self.shed_reason = why
        connection = self.connection
        transport = connection.transport
        if connection.protocol.state is State.OPEN:
            # The close frame goes behind what is unread: a slow reader still learns why.
            connection.protocol.send_close(code, reason)
            try:
                connection.send_data()
            except Exception:  # noqa: BLE001 - a dying socket: abort below regardless
                pass
        if transport is not None and not transport.is_closing():
            asyncio.get_running_loop().call_later(SHED_GRACE, _abort, transport)
        elif transport is not None:
            transport.abort()


def _abort(transport: Any) -> None:
    transport.abort()
