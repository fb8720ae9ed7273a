"""The WebSocket layer: accepts connections, moves frames, calls the table and pipeline.

Everything about rules, visibility and validation lives elsewhere; this module decodes a
frame, hands the request to plain objects, and sends what they return. ``GET /`` serves the
web page; ``/ws`` is the WebSocket endpoint.

Requests of one connection are handled one at a time, in order; the transport's receive
queue holds at most 16 more frames (then the server stops reading from that socket), so a
client never has more than 17 requests in flight.
"""

from __future__ import annotations

import asyncio
import hmac
import http
import ipaddress
import logging
import re
import socket
from typing import Any
from urllib.parse import urlsplit

from websockets.asyncio.server import Server, ServerConnection, broadcast, serve
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed, ConnectionClosedError
from websockets.frames import Close
from websockets.http11 import Request, Response

import sidecar
from protocol.codec import decode, encode
from protocol.errors import ProtocolError
from protocol.messages import (
    PROTOCOL_VERSION,
    Hello,
    HistoryRequest,
    OddsRequest,
    PluginsRequest,
    RollRequest,
    parse_request,
    request_id,
)
from sidecar.config import ServerConfig
from sidecar.journal import Journal, JournalError, request_key
from sidecar.limits import check_event_size, check_strings, encoded_size, resolution_payload
from sidecar.logthrottle import LogThrottle
from sidecar.outbox import CLOSE_TOO_SLOW, Outbox
from sidecar.pipeline import RollPipeline
from sidecar.plugins import PluginHost, default_host
from sidecar.ratelimit import FailureGuard, TokenBucket
from sidecar.table import Member, Table, Tables
from sidecar.visibility import audience, outcome_view
from sidecar.webassets import WebAssets, page_policy

log = logging.getLogger("sidecar.server")

WS_PATH = "/ws"
LOCALHOST_ORIGIN = re.compile(r"https?://(localhost|127\.0\.0\.1|\[::1\])(:\d{1,5})?")

#: A ``history`` page costs one request of the rate limit per this many bytes of events
#: (beyond the one every frame costs): page floods are bounded in bytes per second.
HISTORY_BYTES_PER_TOKEN = 16 * 1024

# Close codes
CLOSE_GOING_AWAY = 1001
CLOSE_PROTOCOL = 1002
CLOSE_POLICY = 1008


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
        address = self.connection.remote_address
        return str(address[0]) if address else "?"


def _is_ip_or_localhost(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    return True


class SidecarServer:
    """The table server. ``await start()``, then ``await stop()`` (or ``async with``)."""

    def __init__(self, config: ServerConfig | None = None, *,
                 host: PluginHost | None = None,
                 pipeline: RollPipeline | None = None) -> None:
        self.config = config or ServerConfig()
        self.host = host or default_host(self.config.plugins_dir,
                                         disabled=self.config.disabled_plugins)
        self.host.timeout = self.config.plugin_timeout
        self.host.trust(self.config.trusted_plugins)
        self.pipeline = pipeline or RollPipeline(self.host)
        self.journal = Journal(self.config.db)
        self.tables = Tables(max_tables=self.config.max_tables,
                             max_members=self.config.max_members,
                             load=self.journal.table_meta,
                             max_recent_bytes=self.config.max_remembered_bytes)
        self.server: Server | None = None
        #: Each open connection's outbox, for fan-out to find (see sidecar.outbox).
        self.outboxes: dict[ServerConnection, Outbox] = {}
        self.failed_hellos = FailureGuard(self.config.max_failed_hellos)
        self.log_throttle = LogThrottle(log, self.config.log_interval)
        self.assets = WebAssets()

    # -- lifecycle ----------------------------------------------------------------------

    async def start(self) -> None:
        """Bind and start accepting connections."""
        self.server = await serve(
            self._handle,
            self.config.host,
            self.config.port,
            process_request=self._process_request,
            # Small messages: compression would double the cost of every broadcast.
            compression=None,
            max_size=self.config.max_frame_bytes,
            max_queue=16,
            open_timeout=10,
            ping_interval=self.config.ping_interval,
            close_timeout=5,
            server_header=f"vtt-sidecar/{sidecar.__version__}",
        )

    @property
    def port(self) -> int:
        assert self.server is not None, "server not started"
        return self.server.sockets[0].getsockname()[1]

    @property
    def url(self) -> str:
        """The WebSocket URL clients connect to."""
        host = self.config.host
        if host in ("0.0.0.0", ""):
            host = "127.0.0.1"
        elif ":" in host:
            host = f"[{host}]"
        return f"ws://{host}:{self.port}{WS_PATH}"

    async def stop(self) -> None:
        """Close every connection with 1001 (going away) and stop listening."""
        if self.server is not None:
            self.server.close(close_connections=True)
            # Clients that don't read never take their close frame (and a close waits on
            # them): after a grace, cut every socket; handlers then end at once.
            try:
                await asyncio.wait_for(asyncio.shield(self.server.wait_closed()),
                                       self.config.stop_timeout)
            except TimeoutError:
                for connection in list(self.server.all_connections):
                    if connection.transport is not None:
                        connection.transport.abort()
                try:
                    await asyncio.wait_for(asyncio.shield(self.server.wait_closed()), 1.0)
                except TimeoutError:
                    for task in list(self.server.handler_tasks):
                        task.cancel()
                    log.warning("stop: connection handlers cancelled after %.1f s",
                                self.config.stop_timeout + 1)
        await asyncio.to_thread(self.journal.close)
        self.host.shutdown()

    async def __aenter__(self) -> SidecarServer:
        await self.start()
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.stop()

    # -- HTTP side ----------------------------------------------------------------------

    def _origin_allowed(self, origin: str, headers: Headers) -> bool:
        if origin in self.config.origins or LOCALHOST_ORIGIN.fullmatch(origin):
            return True
        # The server's own origin: the page it served, reached by IP or localhost. Named
        # hosts must be listed with --origin (DNS rebinding would otherwise pass).
        parts = urlsplit(origin)
        return (
            parts.scheme in ("http", "https")
            and parts.netloc == headers.get("Host", "")
            and _is_ip_or_localhost(parts.hostname or "")
        )

    def _process_request(self, connection: ServerConnection, request: Request) -> Response | None:
        path = request.path.split("?", 1)[0]
        if path == WS_PATH:
            origin = request.headers.get("Origin")
            if origin is not None and not self._origin_allowed(origin, request.headers):
                self.log_throttle.log(logging.INFO, "origin", "refused origin %s from %s",
                                      origin[:100], connection.remote_address)
                return connection.respond(http.HTTPStatus.FORBIDDEN,
                                          "Origin not allowed / origine refusée\n")
            return None
        if request.headers.get("Upgrade", "").lower() == "websocket":
            return connection.respond(http.HTTPStatus.NOT_FOUND,
                                      f"WebSocket endpoint is {WS_PATH}\n")
        asset = self.assets.get(path)
        if asset is None:
            return connection.respond(http.HTTPStatus.NOT_FOUND, "Not found / introuvable\n")
        response = connection.respond(http.HTTPStatus.OK, "")
        response.body = asset.body
        # respond() filled in headers for its empty text body: replace, not append.
        del response.headers["Content-Type"]
        del response.headers["Content-Length"]
        for name, value in asset.headers:
            response.headers[name] = value
        if asset.page:
            response.headers["Content-Security-Policy"] = page_policy(request.headers.get("Host"))
        response.headers["Content-Length"] = str(len(asset.body))
        return response

    # -- sending ------------------------------------------------------------------------

    async def _send(self, session: ClientSession, message: dict[str, Any]) -> None:
        """Write a message without waiting on the client; if that would leave more than
        ``max_pending_bytes`` unread, the connection is closed (1013) instead."""
        if not session.outbox.write(encode(message, binary=session.binary)):
            if session.outbox.shed_reason is not None:
                self._log_shed(session.outbox, session.peer)
            raise ConnectionClosedError(None, Close(CLOSE_TOO_SLOW, "too slow"))

    def _log_shed(self, outbox: Outbox, who: str) -> None:
        self.log_throttle.log(logging.INFO, "shed", "disconnecting %s: not reading (%s)", who,
                              outbox.shed_reason or "closed")

    async def _send_error(self, session: ClientSession, error: ProtocolError,
                          rid: Any = None) -> None:
        self.log_throttle.log(logging.INFO, f"error {error.code}", "error %s to %s: %s",
                              error.code, session.peer, error.message)
        await self._send(session, error.to_message(locale=session.locale, request_id=rid))

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
        except ProtocolError:
            return {}

    def _rate_limited(self, session: ClientSession) -> ProtocolError:
        retry = session.bucket.retry_after()
        return ProtocolError(
            "rate_limited", f"too many requests; retry in {retry:.2f} s",
            fr=f"trop de requêtes ; réessayez dans {retry:.2f} s",
            details={"retry_after": round(retry, 3)})

    def _fan_out(self, members: list[Member], message: dict[str, Any]) -> None:
        """Write one message to several members without waiting on any of them."""
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
                    member.held.append(message)
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
            self._leave(session)
            if session.member and session.table:
                log.info("closed %s (%s at %s)", session.peer, session.member.name,
                         session.table.name)
            else:
                self.log_throttle.log(logging.INFO, "closed unjoined",
                                      "closed %s (not joined)", session.peer)

    def _leave(self, session: ClientSession) -> None:
        if session.table is not None and session.member is not None:
            session.table.leave(session.member)
            self._fan_out(session.table.members, session.table.presence())

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
            allowed = session.bucket.allow()
            if not allowed and not session.refusals.allow():
                self._close_flooder(session)
                return False
            try:
                message = self._decode(frame, allowed)
                if not allowed:
                    raise self._rate_limited(session)
                request = parse_request(message)
                if not isinstance(request, Hello):
                    raise ProtocolError(
                        "not_joined", "send 'hello' first to join a table",
                        fr="envoyez d'abord « hello » pour rejoindre une table")
                session.locale = request.locale
                self._check_hello_guard(session, request)
                self._check_token(request)
                self._join(session, request)
                session.bucket.refund()  # a successful hello is not counted
            except ProtocolError as error:
                if error.code == "forbidden":
                    self.failed_hellos.failed(session.address)
                await self._send_error(session, error, request_id(message))
                if error.code in ("forbidden", "unsupported_protocol") or (
                        error.code == "rate_limited" and "hello" in (error.details or {})):
                    code = CLOSE_PROTOCOL if error.code == "unsupported_protocol" \
                        else CLOSE_POLICY
                    await session.connection.close(code, error.code)
                    return False
                continue
            await self._welcome(session, request)
            return True

    def _check_hello_guard(self, session: ClientSession, hello: Hello) -> None:
        """Refuse, without checking it, a token from an address that guessed too often."""
        if hello.role == "observer" or not self.failed_hellos.blocked(session.address):
            return
        retry = self.failed_hellos.retry_after(session.address)
        raise ProtocolError(
            "rate_limited", f"too many wrong tokens from your address; retry in {retry:.0f} s",
            fr=f"trop de jetons incorrects depuis votre adresse ; réessayez dans {retry:.0f} s",
            details={"hello": True, "retry_after": round(retry, 1)})

    def _check_token(self, hello: Hello) -> None:
        if hello.role == "observer":
            return
        given = (hello.token or "").encode()
        accepted = [self.config.gm_token]
        if hello.role == "player":
            accepted.append(self.config.player_token)
        # compare_digest against every candidate, so timing says nothing of which matched.
        ok = False
        for token in accepted:
            ok |= hmac.compare_digest(given, token.encode())
        if not ok:
            raise ProtocolError("forbidden", f"wrong token for the role '{hello.role}'",
                                fr=f"jeton incorrect pour le rôle « {hello.role} »")

    def _join(self, session: ClientSession, hello: Hello) -> None:
        member = Member(name=hello.name, role=hello.role, locale=hello.locale,
                        binary=session.binary, connection=session.connection,
                        held=[] if hello.resume is not None else None)
        session.table = self.tables.join(hello.table, member)
        session.member = member
        log.info("%s joined table %s as %s (%s)", hello.name, hello.table, hello.role,
                 session.peer)

    async def _welcome(self, session: ClientSession, hello: Hello) -> None:
        table, member = session.table, session.member
        assert table is not None and member is not None
        replayed = 0
        if hello.resume is not None:
            # Everything numbered so far is committed once this returns, so the journal
            # holds exactly (resume, upto]; later events are held for this member.
            await self.journal.flush()
            upto = table.seq
            replayed = await asyncio.to_thread(self.journal.count_visible, table.name,
                                               member.name, member.role, hello.resume, upto)
        welcome: dict[str, Any] = {
            "type": "welcome",
            "protocol": PROTOCOL_VERSION,
            "table": session.table.name,
            "role": hello.role,
            "seq": session.table.seq,
            "server": {"name": "vtt-sidecar", "version": sidecar.__version__},
            "rulesets": self.host.ruleset_listing(),
            "extensions": self.host.extension_listing(),
            "manual_dice": hello.role == "gm" or self.config.allow_player_dice,
        }
        if hello.resume is not None:
            welcome["replayed"] = replayed
        if hello.id is not None:
            welcome["id"] = hello.id
        await self._send(session, welcome)
        self._fan_out(table.members, table.presence())
        if hello.resume is not None:
            await self._replay(session, hello.resume, upto)

    REPLAY_PAGE = 100

    async def _replay(self, session: ClientSession, after: int, upto: int) -> None:
        """Stream the journal's (after, upto] to a resuming member, then what was held."""
        table, member = session.table, session.member
        assert table is not None and member is not None and member.held is not None
        last = after
        while last < upto:
            page = await asyncio.to_thread(self.journal.page, table.name, member.name,
                                           member.role, last, upto, self.REPLAY_PAGE)
            if not page:
                break
            for event in page:
                # At the client's pace: live events wait in ``held`` (bounded in bytes).
                await session.outbox.room()
                await self._send(session, self._view(event, member))
                last = event["seq"]
        last = max(last, upto)
        while member.held:
            message = member.held.pop(0)
            frame = encode(message, binary=session.binary)
            session.outbox.release(len(frame))
            if message.get("type") == "outcome" and message["seq"] <= last:
                continue  # already in the replay
            await session.outbox.room()
            await self._send(session, message)
        member.held = None
        session.outbox.held = 0

    @staticmethod
    def _view(event: dict[str, Any], member: Member, *, duplicate: bool = False
              ) -> dict[str, Any]:
        """A journaled event as ``member`` may see it; their own rolls carry their id."""
        roller = (event["by"]["name"], event["by"]["role"])
        view = audience(event["mode"], member.key, roller)
        assert view is not None
        own_id = event.get("request_id") if member.key == roller else None
        message = outcome_view(event, view, member.locale, own_id)
        if duplicate:
            message["duplicate"] = True
        return message

    async def _member_phase(self, session: ClientSession) -> None:
        async for frame in session.connection:
            message: dict[str, Any] = {}
            # Every frame counts, whatever it holds (malformed, unknown, plugins…).
            allowed = session.bucket.allow()
            if not allowed and not session.refusals.allow():
                self._close_flooder(session)
                return
            try:
                message = self._decode(frame, allowed)
                if not allowed:
                    raise self._rate_limited(session)
                request = parse_request(message)
                await self._dispatch(session, request)
            except ProtocolError as error:
                await self._send_error(session, error, request_id(message))
            except ConnectionClosed:
                raise
            except Exception:
                log.exception("internal error on a request from %s", session.peer)
                await self._send_error(session, ProtocolError(
                    "internal", "internal error; the server keeps running",
                    fr="erreur interne ; le serveur continue"), request_id(message))

    async def _dispatch(self, session: ClientSession, request: Any) -> None:
        if isinstance(request, Hello):
            assert session.table is not None
            raise ProtocolError(
                "bad_message", f"already joined table '{session.table.name}'",
                fr=f"déjà à la table « {session.table.name} »", details={"field": "type"})
        if isinstance(request, PluginsRequest):
            await self._dispatch_plugins(session, request)
            return
        if isinstance(request, RollRequest | OddsRequest):
            check_strings(request.params, request.options, self.config.max_string_chars)
        if isinstance(request, RollRequest):
            await self._roll(session, request)
        elif isinstance(request, OddsRequest):
            await self._odds(session, request)
        elif isinstance(request, HistoryRequest):
            await self._history(session, request)


    async def _dispatch_plugins(self, session: ClientSession, request: PluginsRequest) -> None:
        reply: dict[str, Any] = {"type": "plugins", "plugins": self.host.status()}
        if request.id is not None:
            reply["id"] = request.id
        await self._send(session, reply)

    async def _roll(self, session: ClientSession, request: RollRequest) -> None:
        member, table = session.member, session.table
        assert member is not None and table is not None
        if member.role == "observer":
            raise ProtocolError("forbidden", "observers cannot roll",
                                fr="les observateurs ne peuvent pas lancer de dés")
        if request.dice is not None and member.role != "gm" and not self.config.allow_player_dice:
            raise ProtocolError(
                "forbidden", "only the GM may enter physical dice on this server",
                fr="seul le MJ peut saisir des dés physiques sur ce serveur",
                details={"field": "dice"})
        key = None
        if request.id is not None:
            key = (member.name, member.role, request_key(request.id) or "")
            if await self._answer_repeat(session, table, member, key, request.id):
                return
        roll = self.pipeline.prepare(
            request.ruleset, request.params, options=request.options, table=table.name,
            by={"name": member.name, "role": member.role}, label=request.label,
            mode=request.mode, manual=request.dice is not None)
        resolution = await self.pipeline.run(roll, dice=request.dice, table_state=table.state)
        check_event_size(resolution_payload(resolution), self.config.max_event_bytes)
        if key is not None and table.remembered(key) is not None:
            # The same request resolved meanwhile (another device of this member).
            await self._answer_repeat(session, table, member, key, request.id)
            return
        event = table.record(resolution, request.id, key)
        try:
            await self.journal.append(event, table.state)
        except JournalError as error:
            log.error("roll %s at %s not journaled, not sent: %s", event["seq"], table.name,
                      error)
            raise ProtocolError("internal", "the roll could not be stored; nothing was sent",
                                fr="le jet n'a pas pu être enregistré ; rien n'a été envoyé")
        for members, message in table.plan_outcome(event, member, request.id):
            self._fan_out(members, message)

    async def _answer_repeat(self, session: ClientSession, table: Table, member: Member,
                             key: tuple[str, str, str], rid: Any) -> bool:
        """Resend the original outcome of a request id already resolved; True if so."""
        event = table.remembered(key)
        if event is not None:
            await self.journal.flush()  # it may still be on its way to the disk
        elif table.needs_journal_lookup():
            event = await asyncio.to_thread(self.journal.find_request, table.name,
                                            member.name, member.role, rid)
        if event is None:
            return False
        log.info("repeat of request %r by %s at %s: original outcome #%s resent", rid,
                 member.name, table.name, event["seq"])
        await self._send(session, self._view(event, member, duplicate=True))
        return True

    async def _history(self, session: ClientSession, request: HistoryRequest) -> None:
        table, member = session.table, session.member
        assert table is not None and member is not None
        await self.journal.flush()
        # Read in chunks and stop at max_history_bytes: a page never holds more in memory.
        events: list[dict[str, Any]] = []
        size, last, more = 0, request.after, False
        while len(events) < request.limit and not more:
            want = min(50, request.limit - len(events))
            chunk = await asyncio.to_thread(self.journal.page, table.name, member.name,
                                            member.role, last, None, want + 1)
            for event in chunk[:want]:
                view = self._view(event, member)
                size += encoded_size(view, session.binary)  # what the client decodes
                if events and size > self.config.max_history_bytes:
                    more = True
                    break
                events.append(view)
                last = event["seq"]
            else:
                if len(chunk) <= want:
                    break
                more = len(events) >= request.limit
        session.bucket.charge(size / HISTORY_BYTES_PER_TOKEN)
        reply: dict[str, Any] = {
            "type": "history", "table": table.name, "events": events,
            "more": more, "next": last,
        }
        if request.id is not None:
            reply["id"] = request.id
        await self._send(session, reply)
        # Pages are paid in bytes: a connection in debt is not read until it is paid off
        # (not refused: a client paging through a long table goes at the limit's pace).
        await asyncio.sleep(session.bucket.debt_delay())

    async def _odds(self, session: ClientSession, request: OddsRequest) -> None:
        member, table = session.member, session.table
        assert member is not None and table is not None
        roll = self.pipeline.prepare(
            request.ruleset, request.params, options=request.options, table=table.name,
            by={"name": member.name, "role": member.role})
        odds = await self.pipeline.odds(roll)
        reply = {"type": "odds", "ruleset": roll.ruleset, "params": roll.params, **odds}
        if request.id is not None:
            reply["id"] = request.id
        await self._send(session, reply)
