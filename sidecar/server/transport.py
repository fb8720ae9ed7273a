"""The WebSocket transport: one connection's session, frames in (rate limit, decoding,
the request loop) and out (one client, or many at once, encoded once per encoding)."""

from __future__ import annotations

import collections
import logging
import socket
from typing import Any

from websockets.asyncio.server import ServerConnection, broadcast
from websockets.exceptions import ConnectionClosed, ConnectionClosedError
from websockets.frames import Close

from sidecar.config import ServerConfig
from sidecar.host.pipeline import RollPipeline
from sidecar.protocol.codec import decode, encode
from sidecar.protocol.errors import ProtocolError
from sidecar.protocol.messages import parse_request, request_id
from sidecar.server.errors import store_unavailable
from sidecar.server.logthrottle import LogThrottle
from sidecar.server.outbox import CLOSE_TOO_SLOW, Outbox
from sidecar.server.ratelimit import TokenBucket
from sidecar.stores.base import DuplicateRequest, StoreUnavailable
from sidecar.table.core import TableCore
from sidecar.table.effects import CLOSE_POLICY, Delivery
from sidecar.table.tables import Member, Table

log = logging.getLogger("sidecar.server")


class ClientSession:
    """One connection's state: joined member (if any), encoding, locale, rate limit."""

    def __init__(self, connection: ServerConnection, config: ServerConfig) -> None:
        self.connection = connection
        self.member: Member | None = None
        self.table: Table | None = None
        self.binary = True
        self.locale = "fr"
        self.bucket = TokenBucket(config.rate_limit, config.rate_burst)
        #: Frames refused by ``bucket``: a client that keeps sending far past the rate
        #: (ten bursts' worth) is closed rather than answered frame by frame.
        self.refusals = TokenBucket(config.rate_limit, 10 * self.bucket.burst)
        self.outbox = Outbox(connection, config.max_pending_bytes)

    @property
    def peer(self) -> str:
        address = self.connection.remote_address
        return f"{address[0]}:{address[1]}" if address else "?"

    @property
    def address(self) -> str:
        """The remote IP address (what failed ``hello``s are counted by)."""
        return remote_ip(self.connection)


def remote_ip(connection: ServerConnection) -> str:
    """A connection's remote IP address, as the per-address limits count it."""
    address = connection.remote_address
    return str(address[0]) if address else "?"


class Transport:
    """Frames in and out of the connections."""

    # (what this part uses of the server: see :class:`sidecar.server.connections.SidecarServer`)
    config: ServerConfig
    core: TableCore
    store: Any
    pipeline: RollPipeline
    outboxes: dict[ServerConnection, Outbox]
    per_address: collections.Counter[str]
    log_throttle: LogThrottle

    # -- sending ------------------------------------------------------------------------

    async def _send(self, session: ClientSession, message: dict[str, Any]) -> None:
        """Write a message without waiting on the client; if that would leave more than
        ``max_pending_bytes`` unread, the connection is closed (1013) instead."""
        await self._send_frame(session, encode(message, binary=session.binary))

    async def _send_frame(self, session: ClientSession, frame: bytes | str) -> None:
        """:meth:`_send` for a message already encoded in the session's encoding."""
        if not session.outbox.write(frame):
            if session.outbox.shed_reason is not None:
                self._log_shed(session.outbox, session.peer)
            raise ConnectionClosedError(None, Close(CLOSE_TOO_SLOW, "too slow"))

    def _log_shed(self, outbox: Outbox, who: str) -> None:
        self.log_throttle.log(logging.INFO, "shed", "disconnecting %s: not reading (%s)", who,
                              outbox.shed_reason or "closed")

    async def _send_error(self, session: ClientSession, error: ProtocolError,
                          rid: Any = None) -> None:
        # (A plain invalid_params is the client's own business — a form being filled —: debug.)
        self.log_throttle.log(logging.DEBUG if error.code == "invalid_params" else logging.INFO,
                              f"error {error.code}", "error %s to %s: %s",
                              error.code, session.peer, error.message)
        await self._send(session, error.to_message(locale=session.locale, request_id=rid))

    def _deliver(self, deliveries: list[Delivery]) -> None:
        for delivery in deliveries:
            self._fan_out(delivery.members, delivery.message)

    def _admit(self, session: ClientSession) -> bool | None:
        """Count one frame against the rate limit: ``True``, answer it; ``False``, answer
        ``rate_limited``; ``None``, far past the rate: the connection is being closed."""
        bucket = session.bucket
        if bucket.rate <= 0 or bucket.allow():
            return True
        if session.refusals.allow():
            return False
        self._close_flooder(session)
        return None

    def _close_flooder(self, session: ClientSession) -> None:
        self.log_throttle.log(logging.INFO, "flood", "disconnecting %s: far past the rate "
                              "limit", session.peer)
        session.outbox.shed("far past the rate limit", CLOSE_POLICY,
                            "too many requests / trop de requêtes")

    @staticmethod
    def _decode(frame: bytes | str, allowed: bool) -> dict[str, Any]:
        """Decode a frame; past the rate limit a malformed one is not reported as such
        (the answer is ``rate_limited``, with the frame's id when it has one)."""
        if allowed:
            return decode(frame)
        try:
            return decode(frame)
        except ProtocolError as exc:
            return exc.parsed or {}

    def _rate_limited(self, session: ClientSession) -> ProtocolError:
        retry = session.bucket.retry_after()
        return ProtocolError(
            "rate_limited", f"too many requests; retry in {retry:.2f} s",
            fr=f"trop de requêtes ; réessayez dans {retry:.2f} s",
            details={"retry_after": round(retry, 3)})

    def _fan_out(self, members: list[Member], message: dict[str, Any]) -> None:
        """Write one message to several members without waiting on any of them (encoded
        once per encoding present: the core's groups share one)."""
        frames: dict[bool, bytes | str] = {}
        by_encoding: dict[bool, list[ServerConnection]] = {}
        for member in members:
            frame = frames.get(member.binary)
            if frame is None:
                frame = frames[member.binary] = encode(message, binary=member.binary)
            outbox = self.outboxes.get(member.connection)
            # A client that stopped reading must not grow our memory or delay others;
            # past its bound it is closed (1013) and can reconnect and resume.
            if member.held is not None:  # still replaying: keep live messages for after
                if outbox is None or outbox.hold(len(frame)):
                    member.held.append((message, frame))
                else:
                    self._log_shed(outbox, member.name)
                continue
            if outbox is not None and not outbox.fits(len(frame)):
                outbox.shed(f"more than {outbox.limit} bytes unread")
                self._log_shed(outbox, member.name)
                continue
            by_encoding.setdefault(member.binary, []).append(member.connection)
        for binary, connections in by_encoding.items():
            broadcast(connections, frames[binary])

    # -- connection handling ------------------------------------------------------------

    async def _handle(self, connection: ServerConnection) -> None:
        sock = connection.transport.get_extra_info("socket") if connection.transport else None
        if sock is not None:
            # The kernel would otherwise buffer up to several MiB towards a client that
            # stops reading: bound it, so such a client is noticed and dropped early.
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, self.config.socket_send_buffer)
        session = ClientSession(connection, self.config)
        self.outboxes[connection] = session.outbox
        self.per_address[session.address] += 1
        # Connections that never join are logged once per interval (a connect/guess loop
        # must not fill the log); joins and leaves of members are always logged.
        self.log_throttle.log(logging.INFO, "connection", "connection from %s", session.peer)
        try:
            if await self._join_phase(session):
                await self._member_phase(session)
        except ConnectionClosed:
            pass
        finally:
            self.outboxes.pop(connection, None)
            self.per_address[session.address] -= 1
            if not self.per_address[session.address]:
                del self.per_address[session.address]
            self._leave(session)
            if session.member and session.table:
                log.info("closed %s (%r at %r)", session.peer, session.member.name,
                         session.table.name)
            else:
                self.log_throttle.log(logging.INFO, "closed unjoined",
                                      "closed %s (not joined)", session.peer)

    def _leave(self, session: ClientSession) -> None:
        if session.table is not None and session.member is not None:
            self.core.leave(session.table, session.member)
            self._presence_changed(session.table)

    async def _member_phase(self, session: ClientSession) -> None:
        admit, dispatch = self._admit, self._dispatch
        async for frame in session.connection:
            message: dict[str, Any] = {}
            # Every frame counts, whatever it holds (malformed, unknown, plugins…).
            allowed = admit(session)
            if allowed is None:
                return
            try:
                message = self._decode(frame, allowed)
                if not allowed:
                    raise self._rate_limited(session)
                await dispatch(session, parse_request(message))
            except ProtocolError as error:
                await self._send_error(session, error, request_id(message or error.parsed))
            except DuplicateRequest as duplicate:
                # Resolved by another process (or before a crash): its original answer.
                await self._answer_duplicate(session, duplicate.seq, request_id(message))
            except StoreUnavailable:
                await self._send_error(session, store_unavailable(), request_id(message))
            except ConnectionClosed:
                raise
            except Exception:
                log.exception("internal error on a request from %s", session.peer)
                await self._send_error(session, ProtocolError(
                    "internal", "internal error; the server keeps running",
                    fr="erreur interne ; le serveur continue"), request_id(message))

    def _close_members(self, members: list[Member], reason: str, code: int,
                       why: str | None = None) -> None:
        """End these members' connections: ``code`` and ``reason`` in the close frame,
        ``why`` (default: the reason) kept as why the connection was shed."""
        for member in members:
            outbox = self.outboxes.get(member.connection)
            if outbox is not None:
                outbox.shed(why or reason, code, reason)
