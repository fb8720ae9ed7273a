"""Joining, over the wire: waiting for a valid ``hello``, the welcome, and a resuming
member's replay of what it missed."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from sidecar.config import ServerConfig
from sidecar.host.pipeline import RollPipeline
from sidecar.protocol.errors import ProtocolError
from sidecar.protocol.messages import Hello, parse_request, request_id
from sidecar.server.errors import store_unavailable
from sidecar.server.logthrottle import LogThrottle
from sidecar.server.ratelimit import FailureGuard
from sidecar.server.transport import ClientSession
from sidecar.stores.base import StoreUnavailable
from sidecar.table.core import TableCore
from sidecar.table.effects import CLOSE_POLICY

log = logging.getLogger("sidecar.server")


class Joins:
    """A connection's first phase: from its first frame to its welcome (and replay)."""

    # (what this part uses of the server: see :class:`sidecar.server.connections.SidecarServer`)
    config: ServerConfig
    core: TableCore
    store: Any
    pipeline: RollPipeline
    failed_hellos: FailureGuard
    #: Lines of "tables full" (its own throttle: the operator's one warning a while).
    full_log: LogThrottle

    #: Seconds between two "tables full" warnings (the refusals between are counted).
    FULL_LOG_INTERVAL = 600.0

    async def _join_phase(self, session: ClientSession) -> bool:
        """Wait for a valid ``hello``; answer errors meanwhile. True once joined."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.config.hello_timeout
        while True:
            try:
                async with asyncio.timeout_at(deadline):
                    frame = await session.connection.recv()
            except TimeoutError:
                self.log_throttle.log(logging.INFO, "no hello", "no hello from %s within %ss",
                                      session.peer, self.config.hello_timeout)
                await session.connection.close(
                    CLOSE_POLICY, f"hello expected within {self.config.hello_timeout:g} s")
                return False
            session.binary = isinstance(frame, bytes)
            message: dict[str, Any] = {}
            allowed = self._admit(session)
            if allowed is None:
                return False
            try:
                message = self._decode(frame, allowed)
                if not allowed:
                    raise self._rate_limited(session)
                request = parse_request(message)
                if not isinstance(request, Hello):
                    raise self.core.not_joined()
                session.locale = request.locale
                self._check_hello_guard(session, request)
                await self._current_for_hello(request)
                try:
                    session.table, session.member = self.core.join(
                        request, binary=session.binary, connection=session.connection)
                finally:
                    self._preloaded = None
                session.bucket.refund()  # a successful hello is not counted
            except StoreUnavailable:
                await self._try_again_later(session, message)
                return False
            except ProtocolError as error:
                if error.code == "forbidden" and error.close is not None:  # a wrong token
                    self.failed_hellos.failed(session.address)
                elif error.details and error.details.get("limit") == "tables":
                    self._tables_full(session)  # its own log line, not the generic one
                    await self._send(session, error.to_message(
                        locale=session.locale, request_id=request_id(message)))
                    continue
                await self._send_error(session, error, request_id(message or error.parsed))
                if error.close is not None:
                    await session.connection.close(error.close, error.code)
                    return False
                continue
            # Names and tables are shown quoted: a newline in one cannot forge a log line.
            log.info("%r joined table %r as %s (%s)", request.name, request.table,
                     request.role, session.peer)
            try:
                await self._welcome(session, request)
            except StoreUnavailable:  # joined, but its epoch or its resume cannot be read
                await self._try_again_later(session, message)
                return False
            return True

    def _tables_full(self, session: ClientSession) -> None:
        """A table refused at ``--max-tables``: the operator reads it once (then once per
        :data:`FULL_LOG_INTERVAL` at most, with the count), never once per refused hello."""
        self.full_log.log(
            logging.WARNING, "tables full",
            "refused a new table from %s: this server holds its %d tables (--max-tables); "
            "no new table opens until one closes", session.peer, self.config.max_tables)

    async def _try_again_later(self, session: ClientSession, hello: dict[str, Any]) -> None:
        """A hello the store cannot serve now: ``store_unavailable``, then close 1013
        (try again later, PROTOCOL.md §5); the client comes back and resumes."""
        await self._send_error(session, store_unavailable(), request_id(hello))
        await session.connection.close(1013, "store unavailable")

    def _check_hello_guard(self, session: ClientSession, hello: Hello) -> None:
        """Refuse, without checking it, a token from an address that guessed too often."""
        if hello.role == "observer" or not self.failed_hellos.blocked(session.address):
            return
        retry = self.failed_hellos.retry_after(session.address)
        raise ProtocolError(
            "rate_limited", f"too many wrong tokens from your address; retry in {retry:.0f} s",
            fr=f"trop de jetons incorrects depuis votre adresse ; réessayez dans {retry:.0f} s",
            details={"hello": True, "retry_after": round(retry, 1)}, close=CLOSE_POLICY)

    async def _welcome(self, session: ClientSession, hello: Hello) -> None:
        table, member = session.table, session.member
        assert table is not None and member is not None
        replayed = upto = None
        if self.config.dice == "provable":
            await self._ensure_epoch(table, member)
        if hello.resume is not None:
            # The table's seq counts only acknowledged events, and the store's count reads
            # everything appended so far, so it holds exactly (resume, upto]; later
            # events are held for this member.
            # This process may not have read yet events the client saw on another one
            # (Redis): read them first, else they would come live after the replay (seen
            # twice); the held copies of those the replay covers are dropped.
            async with table.turn:
                await self._catch_up(table)
            upto = table.seq
            replayed = await self.store.count(table.name, *member.key, hello.resume, upto)
        welcome = self.core.welcome(table, member, hello, replayed)
        await self._send(session, welcome)
        self._presence_changed(table)
        if hello.resume is not None and upto is not None:
            await self._replay(session, hello.resume, upto)
        else:
            await self._release_held(session, welcome["seq"])

    REPLAY_PAGE = 100

    async def _replay(self, session: ClientSession, after: int, upto: int) -> None:
        """Stream the journal's (after, upto] to a resuming member, then what was held."""
        table, member = session.table, session.member
        assert table is not None and member is not None and member.held is not None
        last = after
        while last < upto:
            page = await self.store.page(table.name, *member.key, last, upto,
                                         self.REPLAY_PAGE)
            if not page:
                break
            for event in page:
                message = self.core.replayed(member, event, table)
                if message is not None:
                    # At the client's pace: live events wait in ``held`` (bounded in bytes).
                    await session.outbox.room()
                    await self._send(session, message)
                last = event["seq"]
        await self._release_held(session, max(last, upto))

    async def _release_held(self, session: ClientSession, last: int) -> None:
        """Send what was held for a member while it joined (and replayed), after its
        welcome: events up to ``last`` are in the welcome or the replay already."""
        member = session.member
        assert member is not None and member.held is not None
        while member.held:
            message, frame = member.held.popleft()
            session.outbox.release(len(frame))
            if message.get("seq", last + 1) <= last:
                # Already in the replay: every journaled event carries its seq (an
                # outcome, a seat, a session…), live-only messages (presence) none.
                continue
            await session.outbox.room()
            await self._send_frame(session, frame)
        member.held = None
        session.outbox.held = 0
