"""The WebSocket layer: accepts connections, moves frames, calls the table core.

Every decision (who may join, what a roll's event is, who sees which view, what each answer
says) is the table core's (:mod:`sidecar.table.core`); this module decodes a frame, hands the
request to the core, performs the I/O it asks for (the roll pipeline, the journal) and sends
what it returns, encoded once per group of readers. ``GET /`` serves the
web page; ``/ws`` is the WebSocket endpoint.

Requests of one connection are handled one at a time, in order; the transport's receive
queue holds at most 16 more frames (then the server stops reading from that socket), so a
client never has more than 17 requests in flight.
"""

from __future__ import annotations

import asyncio
import collections
import http
import ipaddress
import logging
import re
import socket
import ssl
import time
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import urlsplit

from websockets.asyncio.server import Server, ServerConnection, broadcast, serve
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed, ConnectionClosedError
from websockets.frames import Close
from websockets.http11 import Request, Response

import sidecar
from sidecar.config import ServerConfig
from sidecar.dice.sources import CURRENT, current_dice
from sidecar.host.params import copy_params
from sidecar.host.pipeline import RollPipeline
from sidecar.host.plugins import PluginHost, default_host
from sidecar.protocol.codec import decode, encode
from sidecar.protocol.errors import ProtocolError
from sidecar.protocol.messages import (
    AskRequest,
    EpochRequest,
    Hello,
    HistoryRequest,
    InitiativeRequest,
    OddsRequest,
    PluginsRequest,
    ReactRequest,
    RollRequest,
    SeatRequest,
    SessionRequest,
    SheetRequest,
    parse_request,
    request_id,
)
from sidecar.server.logthrottle import LogThrottle
from sidecar.server.outbox import CLOSE_TOO_SLOW, Outbox
from sidecar.server.ratelimit import FailureGuard, TokenBucket
from sidecar.server.webassets import WebAssets, page_policy
from sidecar.stores.base import (
    DuplicateRequest,
    StaleTable,
    StoreFull,
    StoreUnavailable,
)
from sidecar.stores.choice import open_store
from sidecar.stores.journal import JournalError
from sidecar.table.core import CLOSE_POLICY, Delivery, HistoryPage, Pending, RollTicket, TableCore
from sidecar.table.seats import qr_data_uri
from sidecar.table.tables import Member, Table, Tables

log = logging.getLogger("sidecar.server")

WS_PATH = "/ws"
LOCALHOST_ORIGIN = re.compile(r"https?://(localhost|127\.0\.0\.1|\[::1\])(:\d{1,5})?")
#: An origin as browsers send it (scheme, host, port): only these are echoed as a flag to copy.
SAFE_ORIGIN = re.compile(r"https?://[A-Za-z0-9.-]{1,253}(:\d{1,5})?|https?://\[[0-9A-Fa-f:.]{2,45}\](:\d{1,5})?")
#: Distinct refused origins explained in the log (each once); past it, the throttled line only.
MAX_REFUSED_ORIGINS = 64

#: A ``history`` page costs one request of the rate limit per this many bytes of events
#: (beyond the one every frame costs): page floods are bounded in bytes per second.
HISTORY_BYTES_PER_TOKEN = 16 * 1024


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


def store_unavailable(*, full: bool = False) -> ProtocolError:
    """The error of a request while the shared store (Redis) cannot be reached, or is
    full (``full``: Redis refused the write for want of memory)."""
    if full:
        return ProtocolError(
            "store_unavailable", "the table's store (Redis) is full: nothing was written; "
            "the GM must give Redis more memory (docs/DEPLOY.md), then send the same "
            "request again", fr="le stockage des tables (Redis) est plein : rien n'a été "
            "enregistré ; le MJ doit donner plus de mémoire à Redis (docs/DEPLOY.md), puis "
            "renvoyez la même demande", details={"retry": True, "full": True})
    return ProtocolError(
        "store_unavailable", "the table's store (Redis) cannot be reached: nothing was "
        "written; send the same request again in a moment",
        fr="le stockage des tables (Redis) est injoignable : rien n'a été enregistré ; "
           "renvoyez la même demande dans un instant", details={"retry": True})


def remote_ip(connection: ServerConnection) -> str:
    """A connection's remote IP address, as the per-address limits count it."""
    address = connection.remote_address
    return str(address[0]) if address else "?"


def lan_address() -> str:
    """This machine's address on its local network (where a phone reaches it), else
    127.0.0.1. A UDP socket "connected" to a private address sends nothing; it only makes
    the system choose the interface that leads there."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("10.254.254.254", 9))
        return str(probe.getsockname()[0])
    except OSError:
        return "127.0.0.1"
    finally:
        probe.close()


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
        if self.config.dice == "provable":
            # Each roll's verifiable dice are set around its run (``_roll``, ``_decide``):
            # plugins get them through the same ``dice`` argument as any other source.
            self.pipeline.dice_factory = current_dice
        self.store = open_store(self.config.db, self.config.store)
        self.core = TableCore(self.config, catalogue=self.host, preparer=self.pipeline,
                              load=self._load_table, version=sidecar.__version__)
        self.server: Server | None = None
        #: Each open connection's outbox, for fan-out to find (see sidecar.server.outbox).
        self.outboxes: dict[ServerConnection, Outbox] = {}
        #: Open connections per remote address (see ``max_connections_per_address``).
        self.per_address: collections.Counter[str] = collections.Counter()
        self.failed_hellos = FailureGuard(self.config.max_failed_hellos)
        self.log_throttle = LogThrottle(log, self.config.log_interval)
        #: Browser origins refused so far whose allowing flag was logged (bounded).
        self.refused_origins: set[str] = set()
        self.assets = WebAssets()
        #: Timers of open rolls waiting for a decision (cancelled at stop).
        self.timers: set[asyncio.TimerHandle] = set()
        self.expiring: set[asyncio.Task[None]] = set()
        #: Tables being brought up to date with events of other processes (shared store),
        #: and the last seq another process announced for each.
        self.catching: dict[str, asyncio.Task[None]] = {}
        #: Open rolls whose timer runs here: (table, roll id).
        self.armed: set[tuple[str, str]] = set()
        self.sweeper: asyncio.Task[None] | None = None
        self._preloaded: tuple[str, Any] | None = None
        self.announced: dict[str, int] = {}
        if self.store.shared:
            self.tables.added = self._watch
            self.tables.forgotten = self.store.unwatch
            self.store.lost = self._lost_notice

    def _load_table(self, name: str) -> tuple[int, dict[str, Any], dict[str, Any]]:
        # A table read from Redis just before (one slot, used at once: nothing piles up
        # for the tables named by hellos that fail), else read now (SQLite).
        preloaded, self._preloaded = self._preloaded, None
        if preloaded is not None and preloaded[0] == name:
            return preloaded[1]
        return self.store.snapshot(name)

    async def _preload(self, name: str) -> None:
        """Read table ``name`` from the store for the next :meth:`_load_table` (the
        caller opens it right after, without awaiting anything in between)."""
        snapshot = await self.store.preload(name)
        self._preloaded = None if snapshot is None else (name, snapshot)

    async def _current_for_hello(self, hello: Hello) -> None:
        """A shared store: the table as the store has it now, before a ``hello`` is
        checked against it. A player's token is checked against seats another process
        may have just rotated or removed (or added): its notice may not be here yet, so
        the store is asked (one read, nothing when no event is new; the table's turn only
        when one is). The caller joins right after, without awaiting anything between."""
        table = self.tables.get(hello.table)
        if table is not None and hello.role == "player":
            try:
                news = await self.store.since(table.name, table.seq)
            except StaleTable as stale:  # the stream was written anew: Redis lost events
                self._store_lost(table, stale.seq)
                raise self._lost_error() from None
            if news and self.tables.get(hello.table) is table:
                async with table.turn:
                    if news[-1][0]["seq"] > table.seq:
                        await self._catch_up(table)
        if self.tables.get(hello.table) is None:  # (also: forgotten while this waited)
            await self._preload(hello.table)

    async def _open_table(self, name: str) -> Table:
        """Table ``name``, read from the store first when it is not in memory."""
        table = self.tables.get(name)
        if table is None:
            await self._preload(name)
            table = self.tables.open(name)
        return table

    @property
    def tables(self) -> Tables:
        """The tables in memory (the core's registry)."""
        return self.core.tables

    # -- lifecycle ----------------------------------------------------------------------

    async def start(self) -> None:
        """Bind and start accepting connections."""
        self.assets.load()
        await self.store.open()
        self.server = await serve(
            self._handle,
            self.config.host,
            self.config.port,
            ssl=self.ssl_context(),
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
        self.core.public_url = self.config.public_url or self.page_url
        # Open rolls left by the last run: their time to decide keeps running.
        for name in await self.store.tables_with("open"):
            table = await self._open_table(name)
            self.tables.keep(table)
            for event in list(table.open_rolls.values()):
                self._arm(table, event)
        if self.store.shared:
            self.sweeper = asyncio.get_running_loop().create_task(self._sweep_open_rolls())

    def ssl_context(self) -> ssl.SSLContext | None:
        """The TLS context of ``--ssl-certfile``/``--ssl-keyfile``, or None (plain TCP).
        Raises OSError (ssl.SSLError is one) when the files cannot be read or do not match."""
        certfile, keyfile = self.config.ssl_certfile, self.config.ssl_keyfile
        if not certfile and not keyfile:
            return None
        if not (certfile and keyfile):
            raise ValueError("TLS needs both a certificate and its key "
                             "(--ssl-certfile and --ssl-keyfile)")
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        context.load_cert_chain(certfile, keyfile)
        return context

    @property
    def tls(self) -> bool:
        """Whether the server speaks TLS (``wss://`` and ``https://``)."""
        return bool(self.config.ssl_certfile and self.config.ssl_keyfile)

    @property
    def page_url(self) -> str:
        """The web page's URL as a phone on the LAN reaches it (seat links start so)."""
        host = self.config.host
        if host in ("0.0.0.0", "", "::"):
            host = lan_address()
        elif ":" in host:
            host = f"[{host}]"
        scheme = "https" if self.tls else "http"
        return f"{scheme}://{host}:{self.port}/"

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
        scheme = "wss" if self.tls else "ws"
        return f"{scheme}://{host}:{self.port}{WS_PATH}"

    async def stop(self) -> None:
        """Close every connection with 1001 (going away) and stop listening; first, with
        verifiable dice, reveal every table's current epoch (unless told not to)."""
        # With a shared store the other processes keep serving the tables: one stopping
        # ends no epoch (the GM ends it, from any process).
        if (self.config.dice == "provable" and self.config.reveal_on_stop
                and not self.store.shared):
            try:
                await self.reveal_all()
            except Exception:
                log.exception("stop: the epochs could not all be revealed")
        for timer in self.timers:
            timer.cancel()
        self.timers.clear()
        for task in list(self.expiring):
            task.cancel()
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
        for task in list(self.catching.values()):
            task.cancel()
        if self.sweeper is not None:
            self.sweeper.cancel()
        await self.store.close()
        self.host.shutdown()

    async def reveal_all(self) -> int:
        """End the current epoch of every table that rolled in it; how many were ended."""
        names = set(self.tables.tables) | set(
            await self.store.tables_with("epoch"))
        ended = 0
        for name in sorted(names):
            table = await self._open_table(name)
            async with table.turn:
                if table.epoch is None or table.seq == table.epoch.base:
                    continue  # nothing happened in it
                # The next epoch starts at the table's next welcome: a stop computes no
                # new commitment for every table (its deadline is short).
                self._deliver(await self._store(self.core.epoch_end(table,
                                                                    start_next=False)))
                ended += 1
        return ended

    async def _ensure_epoch(self, table: Table, member: Member) -> None:
        """Give a table its first epoch before its first welcome (journaled first: the
        commitment a member is shown never changes under it after a restart); end one
        opened under other settings (a restart with other options or plugins) and start
        the next under this server's."""
        if table.epoch is not None and not self.core.epoch_outdated(table):
            return
        async def start() -> list[Delivery]:
            if table.epoch is not None:
                if not self.core.epoch_outdated(table):
                    return []  # another process started it
                return await self._store(self.core.epoch_end(table))
            return await self._store(self.core.epoch_start(table))
        async with table.turn:
            if table.epoch is None or self.core.epoch_outdated(table):
                deliveries = await self._retrying(table, start)
                for delivery in deliveries:  # the joiner learns it from its welcome
                    delivery.members = [m for m in delivery.members if m is not member]
                self._deliver(deliveries)

    async def _roll_over(self, table: Table) -> None:
        """Inside the table's turn: a full epoch is revealed before the next roll."""
        if self.core.epoch_full(table):
            self._deliver(await self._store(self.core.epoch_end(table)))

    async def _epoch(self, session: ClientSession, request: EpochRequest) -> None:
        member, table = session.member, session.table
        assert member is not None and table is not None
        ticket = self.core.begin_epoch_end(table, member, request)
        if ticket.key is not None and await self._answer_repeat(session, ticket):
            return  # the same request again: its reveal, not a second one
        async def end() -> list[Delivery]:
            if table.epoch is None:
                self._deliver(await self._store(self.core.epoch_start(table)))
            return await self._store(self.core.epoch_end(table, ticket))
        async with table.turn:
            deliveries = await self._retrying(table, end)
        self._deliver(deliveries)

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

    def _log_refused_origin(self, origin: str, connection: ServerConnection) -> None:
        """Say once per origin which flag would let it in (a Foundry world on the LAN is
        the common case: ``http://192.168.1.20:30000``); repeats go to the throttled log."""
        if origin not in self.refused_origins and len(self.refused_origins) < MAX_REFUSED_ORIGINS:
            self.refused_origins.add(origin)
            if SAFE_ORIGIN.fullmatch(origin):
                log.warning("refused a connection from the browser origin %s (from %s); to "
                            "allow it, start the sidecar with: --origin %s",
                            origin, remote_ip(connection), origin)
            else:  # not a plain scheme://host[:port]: shown quoted, never as a flag to copy
                log.warning("refused a connection from the browser origin %r (from %s)",
                            origin[:100], remote_ip(connection))
            return
        self.log_throttle.log(logging.INFO, "origin", "refused origin %r from %s",
                              origin[:100], connection.remote_address)

    def _process_request(self, connection: ServerConnection, request: Request) -> Response | None:
        for name in ("Host", "Origin"):
            if len(request.headers.get_all(name)) > 1:
                # Which one would a proxy or the browser have meant? Neither is trusted.
                log.info("refused request from %s: repeated %s header",
                         connection.remote_address, name)
                return connection.respond(http.HTTPStatus.BAD_REQUEST,
                                          f"Repeated {name} header / en-tête {name} répété\n")
        path = request.path.split("?", 1)[0]
        if path == WS_PATH:
            address = remote_ip(connection)
            most = self.config.max_connections_per_address
            if most and self.per_address[address] >= most:
                self.log_throttle.log(logging.INFO, "per address", "refused a connection "
                                      "from %s: %d open already", address, most)
                return connection.respond(
                    http.HTTPStatus.SERVICE_UNAVAILABLE,
                    f"Too many connections from your address ({most}) / trop de connexions "
                    "depuis votre adresse\n")
            origin = request.headers.get("Origin")
            if origin is not None and not self._origin_allowed(origin, request.headers):
                self._log_refused_origin(origin, connection)
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
        self.log_throttle.log(logging.INFO, f"error {error.code}", "error %s to %s: %s",
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

    # -- presence -----------------------------------------------------------------------

    def _presence_changed(self, table: Table) -> None:
        loop = asyncio.get_running_loop()
        delay = self.core.presence_changed(table, loop.time())
        if delay is not None:
            loop.call_later(delay, self._send_presence, table)

    def _send_presence(self, table: Table) -> None:
        self._deliver(self.core.presence(table, asyncio.get_running_loop().time()))

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
                if self.store.shared:
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
            # Everything committed so far is in the journal once this returns (and the
            # table's seq counts only acknowledged events), so the journal holds exactly
            # (resume, upto]; later events are held for this member.
            if self.store.shared:
                # This process may not have read yet events the client saw on another
                # one: read them first, else they would come live after the replay
                # (seen twice); the held copies of those the replay covers are dropped.
                async with table.turn:
                    await self._catch_up(table)
            await self.store.flush()
            upto = table.seq
            replayed = await self.store.count(table.name, *member.key, hello.resume, upto)
        await self._send(session, self.core.welcome(table, member, hello, replayed))
        self._presence_changed(table)
        if hello.resume is not None and upto is not None:
            await self._replay(session, hello.resume, upto)

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
        last = max(last, upto)
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

    async def _dispatch(self, session: ClientSession, request: Any) -> None:
        assert session.table is not None and session.member is not None
        if request.__class__ is RollRequest:  # (the most frequent request first)
            await self._roll(session, request)
            return
        if isinstance(request, Hello):
            raise self.core.already_joined(session.table)
        if isinstance(request, PluginsRequest):
            await self._send(session, self.core.plugins(request))
            return
        if isinstance(request, OddsRequest):
            await self._odds(session, request)
        elif isinstance(request, HistoryRequest):
            await self._history(session, request)
        elif isinstance(request, SeatRequest):
            await self._seat(session, request)
        elif isinstance(request, SheetRequest):
            await self._sheet(session, request)
        elif isinstance(request, ReactRequest):
            await self._react(session, request)
        elif isinstance(request, SessionRequest):
            await self._session(session, request)
        elif isinstance(request, AskRequest):
            await self._ask(session, request)
        elif isinstance(request, InitiativeRequest):
            await self._initiative(session, request)
        elif isinstance(request, EpochRequest):
            await self._epoch(session, request)

    async def _roll(self, session: ClientSession, request: RollRequest) -> None:
        member, table = session.member, session.table
        assert member is not None and table is not None
        ticket = self.core.begin_roll(table, member, request)
        trims = table.trims
        assert ticket.roll is not None
        # The params as asked: extensions may change them before the dice, and a retry
        # (another process wrote first) must start again from these, not from theirs.
        asked = copy_params(ticket.roll.params)

        async def roll() -> tuple[Pending, list[Delivery]]:
            self.core.attach_sheet(ticket)
            assert ticket.roll is not None
            ticket.roll.params = copy_params(asked)
            source = None
            if self.core.provable and request.dice is None:
                await self._roll_over(table)
                source = self.core.roll_dice(table, member)
            drawing = CURRENT.set(source)
            try:
                resolution = await self.pipeline.run(ticket.roll, dice=request.dice,
                                                     table_state=table.state)
            finally:
                CURRENT.reset(drawing)
            pending = self.core.number(ticket, resolution, now=time.time(), source=source,
                                       manual=request.dice is not None, asked=asked)
            return pending, await self._store(pending)

        if ticket.key is not None and await self._answer_repeat(session, ticket):
            return
        # One roll of a table at a time, from reading its plugin state to committing the
        # new one: two rolls resolved side by side would each start from the same state,
        # and the second commit would erase the first's changes.
        async with table.turn:
            if await self._repeated_meanwhile(session, ticket, trims):
                # The same request resolved meanwhile (another device of this member).
                return
            pending, deliveries = await self._retrying(table, roll)
        self._deliver(deliveries)
        if pending.event.get("open"):
            self._arm(table, pending.event)

    #: Times an event is built again because other processes wrote the table first.
    MAX_ATTEMPTS = 50

    def _too_busy(self, table: Table) -> ProtocolError:
        log.warning("table %r: %d attempts lost to other processes' writes", table.name,
                    self.MAX_ATTEMPTS)
        return ProtocolError("store_unavailable", "the table is too busy on other servers; "
                             "send the same request again", fr="la table est trop occupée sur "
                             "les autres serveurs ; renvoyez la même demande",
                             details={"retry": True})

    async def _retrying(self, table: Table, build: Callable[[], Awaitable[Any]]) -> Any:
        """Inside the table's turn: ``build()`` again on a table brought up to date, as
        long as another process wrote the table first (a shared store)."""
        for _ in range(self.MAX_ATTEMPTS):
            try:
                return await build()
            except StaleTable as stale:
                await self._after_stale(table, stale)
        raise self._too_busy(table)

    async def _after_stale(self, table: Table, stale: StaleTable) -> None:
        """Inside the table's turn, the store refused an event built on this process's
        table: catch up with what other processes wrote (the store may have sent it), so
        the event is built again — or, when the store holds fewer events than this
        process saw acknowledged, read the table again from the store."""
        if stale.lost or stale.seq < table.seq:
            self._store_lost(table, stale.seq)
            raise self._lost_error()
        missed = stale.missed
        if missed and missed[0][0]["seq"] == table.seq + 1 and missed[-1][0]["seq"] == stale.seq:
            self._apply(table, missed)
        else:
            await self._catch_up(table)

    @staticmethod
    def _lost_error() -> ProtocolError:
        return ProtocolError(
            "store_unavailable", "the store lost this table's last events; the table was "
            "read again from it: join again", fr="le stockage a perdu les derniers "
            "événements de cette table ; elle a été relue : rejoignez-la",
            details={"retry": True})

    def _lost_notice(self, name: str, seq: int) -> None:
        """A notice of another incarnation of a table this process holds: another
        process found Redis behind (it lost events), so is this process's copy."""
        table = self.tables.get(name)
        if table is not None:
            self._store_lost(table, seq)

    def _store_lost(self, table: Table, seq: int) -> None:
        """The store is behind this process's table (Redis restarted without its last
        writes: ``appendfsync everysec`` and a crash, a failover to a late replica, a
        FLUSHALL). This process's copy is dropped and its members' connections closed:
        they join again and get the table as the store has it."""
        log.error("table %r: the store holds events up to #%d (or another incarnation of "
                  "the table) but this server had #%d acknowledged: Redis lost writes (see "
                  "docs/DEPLOY.md, persistence); the table is read again from Redis",
                  table.name, seq, table.seq)
        self.store.renew(table.name)  # every other process holding it reads it again
        for member in table.members:
            member.gone = True
        self._close_members(list(table.members), "table read again from the store", 1012,
                            why="store lost events")
        if self.tables.get(table.name) is table:
            del self.tables.tables[table.name]
            self.store.unwatch(table.name)

    # -- other processes' events (a shared store) ---------------------------------------

    def _watch(self, table: Table) -> None:
        """A table now in memory: hear of other processes' events, and catch up on those
        written since it was read."""
        self.store.watch(table.name, self._changed)
        self._changed(table.name, table.seq + 1)
        # Its open rolls: their time runs here too (the process that made them may be
        # gone); whichever process takes a default first stores it, once.
        for event in list(table.open_rolls.values()):
            self._arm(table, event)

    #: Seconds between two looks for open rolls of tables no process serves (shared store).
    SWEEP_INTERVAL = 30.0

    async def _sweep_open_rolls(self) -> None:
        """With a shared store, open rolls whose table no member keeps in any process
        (the process that made them died) still take their default in time: every
        process looks for them now and then, and keeps those tables (their timers run)."""
        interval = min(self.SWEEP_INTERVAL, max(1.0, self.config.react_timeout / 2))
        while True:
            await asyncio.sleep(interval)
            try:
                for name in await self.store.tables_with("open"):
                    if self.tables.get(name) is None:
                        self.tables.keep(await self._open_table(name))
            except StoreUnavailable:
                continue  # Redis away: look again later
            except Exception:
                log.exception("looking for open rolls failed")

    def _changed(self, name: str, seq: int) -> None:
        """Another process stored event ``seq`` of table ``name`` (or may have)."""
        table = self.tables.get(name)
        if table is None:
            return
        self.announced[name] = max(seq, self.announced.get(name, 0))
        if seq <= table.seq or name in self.catching:
            return
        task = asyncio.get_running_loop().create_task(self._catch_up_task(table))
        self.catching[name] = task

    async def _catch_up_task(self, table: Table) -> None:
        delay = 0.1
        try:
            while (self.announced.get(table.name, 0) > table.seq
                   and self.tables.get(table.name) is table):
                before = table.seq
                try:
                    async with table.turn:
                        await self._catch_up(table)
                except StoreUnavailable as error:
                    # Redis away: try again (slower each time) until it is back; the
                    # subscription's return announces the table again anyway.
                    if delay == 0.1:
                        log.warning("table %r: cannot read other servers' events now (%s)",
                                    table.name, error)
                    await asyncio.sleep(delay)
                    delay = min(delay * 2, 2.0)
                    continue
                if table.seq == before:
                    break  # nothing new in the store (a notice ahead of a failed write)
        except ProtocolError:
            pass  # Redis lost events: the table was dropped and its members told
        except Exception:
            log.exception("table %r: catching up with other servers failed", table.name)
        finally:
            self.catching.pop(table.name, None)
            self.announced.pop(table.name, None)
            if self.tables.get(table.name) is table:
                self.tables.forget_if_idle(table)

    async def _catch_up(self, table: Table) -> None:
        """Inside the table's turn: apply the events other processes stored since this
        process's last, in order, and send each to this process's members."""
        try:
            entries = await self.store.since(table.name, table.seq)
        except StaleTable as stale:  # the stream was written anew: Redis lost events
            self._store_lost(table, stale.seq)
            raise self._lost_error() from None
        self._apply(table, entries)

    def _apply(self, table: Table, entries: list[Any]) -> None:
        """Apply other processes' events (in order, from the table's next seq) and send
        each to this process's members."""
        for event, state, records, size in entries:
            if event["seq"] <= table.seq:
                continue
            if event["seq"] != table.seq + 1:
                log.error("table %r: event #%s read after #%s; the gap is read again at "
                          "the next event", table.name, event["seq"], table.seq)
                return
            deliveries, closing = self.core.apply(table, event, state, records, size)
            self._close_members(closing, "seat changed", CLOSE_POLICY)
            self._deliver(deliveries)
            if event.get("open"):
                self._arm(table, event)

    async def _store(self, pending: Pending) -> list[Delivery]:
        """Journal a numbered event, then commit it (the caller holds the table's turn)."""
        table = pending.ticket.table
        try:
            await self.store.append(pending.event, pending.state, pending.records,
                                    expected=table.seq)
        except (StaleTable, DuplicateRequest):
            # Another process wrote to the table (or resolved this request) first: this
            # event is dropped unseen; the caller catches up and builds it again, or
            # answers the original.
            self.core.abandon(pending)
            raise
        except StoreUnavailable as error:
            # Once per interval: a flood of rolls against a Redis that is down or full
            # must not flood the log.
            self.log_throttle.log(logging.ERROR, f"store {type(error).__name__}",
                                  "event %s at %s not stored, not sent: %s",
                                  pending.event["seq"], table.name, error)
            self.core.abandon(pending)
            raise store_unavailable(full=isinstance(error, StoreFull)) from None
        except JournalError as error:
            log.error("event %s at %s not journaled, not sent: %s", pending.event["seq"],
                      table.name, error)
            raise self.core.abandon(pending) from None
        except BaseException:
            self.core.abandon(pending)
            raise
        deliveries = self.core.commit(pending)
        # A removed or re-keyed seat: its connections end now (they may reconnect only
        # with the new link).
        self._close_members(pending.closing, pending.close_reason, CLOSE_POLICY)
        return deliveries

    def _close_members(self, members: list[Member], reason: str, code: int,
                       why: str | None = None) -> None:
        """End these members' connections: ``code`` and ``reason`` in the close frame,
        ``why`` (default: the reason) kept as why the connection was shed."""
        for member in members:
            outbox = self.outboxes.get(member.connection)
            if outbox is not None:
                outbox.shed(why or reason, code, reason)

    async def _journal_change(
            self, session: ClientSession,
            request: SeatRequest | SheetRequest | AskRequest | InitiativeRequest
            | SessionRequest,
            build: Callable[[RollTicket], Awaitable[list[Delivery]]]) -> None:
        """A GM's change to the table (seat, sheet, ask, initiative, session): checked,
        answered as a repeat when its id was already resolved (before or while it waited
        for the table's turn), else built, journaled and committed by ``build`` under the
        table's turn; what it returns is then delivered."""
        member, table = session.member, session.table
        assert member is not None and table is not None
        ticket = self.core.begin_change(table, member, request)
        trims = table.trims
        if ticket.key is not None and await self._answer_repeat(session, ticket):
            return
        async with table.turn:
            if await self._repeated_meanwhile(session, ticket, trims):
                return
            deliveries = await self._retrying(table, lambda: build(ticket))
        self._deliver(deliveries)

    async def _seat(self, session: ClientSession, request: SeatRequest) -> None:
        member, table = session.member, session.table
        assert member is not None and table is not None
        if request.op == "list":
            await self._send(session, self.core.seat_list(table, member, request))
            return

        async def build(ticket: RollTicket) -> list[Delivery]:
            pending = self.core.seat_change(ticket, request)
            if pending.extra is not None:
                # A QR code takes milliseconds (more for long names): not on the loop.
                pending.extra["qr"] = await asyncio.to_thread(qr_data_uri,
                                                              pending.extra["link"])
            deliveries = await self._store(pending)
            log.info("seat %s %r at %r by %r", request.op, request.name, table.name,
                     member.name)
            return deliveries
        await self._journal_change(session, request, build)

    async def _ask(self, session: ClientSession, request: AskRequest) -> None:
        member, table = session.member, session.table
        assert member is not None and table is not None
        if request.op == "list":
            await self._send(session, self.core.ask_list(table, member, request))
            return

        async def build(ticket: RollTicket) -> list[Delivery]:
            return await self._store(self.core.ask_open(ticket, request) if request.op == "open"
                                     else self.core.ask_cancel(ticket, request))
        await self._journal_change(session, request, build)

    async def _initiative(self, session: ClientSession, request: InitiativeRequest) -> None:
        async def build(ticket: RollTicket) -> list[Delivery]:
            table, member = ticket.table, ticket.member
            ruleset, entries = self.core.initiative_entries(table, request)
            roll = self.pipeline.prepare_plain(ruleset, table=table.name, by=member.by)
            roll.session, roll.turn = table.session, table.turns
            answer = await self.pipeline.initiative(roll, entries, table.state)
            return await self._store(self.core.initiative(ticket, ruleset, request, answer))
        await self._journal_change(session, request, build)

    async def _session(self, session: ClientSession, request: SessionRequest) -> None:
        async def build(ticket: RollTicket) -> list[Delivery]:
            return await self._store(self.core.session_start(ticket))
        await self._journal_change(session, request, build)

    async def _sheet(self, session: ClientSession, request: SheetRequest) -> None:
        member, table = session.member, session.table
        assert member is not None and table is not None
        if request.op == "list":
            await self._send(session, self.core.sheet_list(table, member, request))
            return

        async def build(ticket: RollTicket) -> list[Delivery]:
            if request.op == "refill" and request.character is None:
                # One event per character it changes; the first one keeps the request id
                # (a repeat finds it and changes nothing) but no copy echoes it: the
                # requester's answer is the list of characters after it.
                for name in self.core.refill_targets(table, request):
                    pending = self.core.sheet_change(ticket, request, name)
                    if pending is None:
                        continue
                    pending.event["whole"] = True
                    pending.echo = False
                    self._deliver(await self._store(pending))
                    ticket = RollTicket(table, member, None, None, None)
                if request.what == "turn":
                    # The table's next turn, counted (roll.turn), even when no sheet changed.
                    pending = self.core.turn_next(ticket)
                    pending.event["whole"] = True
                    pending.echo = False
                    self._deliver(await self._store(pending))
                await self._send(session, self.core.sheet_list(table, member, request))
                return []
            pending = self.core.sheet_change(ticket, request)
            assert pending is not None
            return await self._store(pending)
        await self._journal_change(session, request, build)

    # -- open rolls ---------------------------------------------------------------------

    def _arm(self, table: Table, event: dict[str, Any]) -> None:
        """Take the default of an open roll once its time to decide is over (once per
        roll and process, however many times it is armed)."""
        armed = (table.name, str(event["roll"]))
        if armed in self.armed:
            return
        self.armed.add(armed)
        loop = asyncio.get_running_loop()
        delay = max(0.0, event["expires"] - time.time())
        handle: asyncio.TimerHandle | None = None

        def due() -> None:
            self.armed.discard(armed)
            self.timers.discard(handle)  # type: ignore[arg-type]
            task = loop.create_task(self._expire(table, str(event["roll"])))
            self.expiring.add(task)
            task.add_done_callback(self.expiring.discard)
        handle = loop.call_later(delay, due)
        self.timers.add(handle)

    async def _expire(self, table: Table, roll_id: str) -> None:
        try:
            if self.store.shared:
                async with table.turn:  # another process may have decided it
                    await self._catch_up(table)
        except StoreUnavailable:
            pass  # decided on what this process knows; the store refuses a stale write
        except ProtocolError:
            return  # Redis lost events: the table was dropped (read again at a join)
        event = table.open_rolls.get(roll_id)
        if event is None:
            return  # decided meanwhile
        try:
            if event.get("default") is not None:
                await self._decide(table, None, ReactRequest(roll=roll_id,
                                                             choice=event["default"]))
            else:
                async def close() -> list[Delivery]:
                    if roll_id not in table.open_rolls:
                        return []
                    return await self._store(self.core.close_open_roll(table, roll_id))
                async with table.turn:
                    self._deliver(await self._retrying(table, close))
        except (ProtocolError, DuplicateRequest) as error:
            # With a shared store, another process taking the default first is the
            # normal race (each arms the roll): not worth a warning.
            log.log(logging.INFO if self.store.shared else logging.WARNING,
                    "open roll %s at %s could not take its default: %s", roll_id,
                    table.name, getattr(error, "message", error))
        except Exception:
            log.exception("open roll %s at %s: its default failed", roll_id, table.name)

    async def _react(self, session: ClientSession, request: ReactRequest) -> None:
        member, table = session.member, session.table
        assert member is not None and table is not None
        if request.id is not None:
            ticket = RollTicket(table, member, None, request.id,
                                self.core.request_key(member, request.id))
            if await self._answer_repeat(session, ticket):
                return
        await self._decide(table, member, request)

    async def _decide(self, table: Table, member: Member | None,
                      request: ReactRequest) -> None:
        """A decision on an open roll, by ``member`` (``None``: the default, in time)."""
        async def decide() -> tuple[Pending, list[Delivery]]:
            react = self.core.begin_react(table, member, request)
            ticket, roll, outcome = self.core.reopen(react)
            source = None
            if self.core.provable and react.dice is None:
                await self._roll_over(table)
                source = self.core.roll_dice(table, member, react.event)
            drawing = CURRENT.set(source)
            try:
                resolution = await self.pipeline.react(roll, outcome, react.choice,
                                                       react.dice, table.state)
            finally:
                CURRENT.reset(drawing)
            pending = self.core.number(ticket, resolution, now=time.time(), reaction=react,
                                       source=source, manual=react.dice is not None)
            pending.reply_id = react.reply_id
            return pending, await self._store(pending)
        async with table.turn:
            pending, deliveries = await self._retrying(table, decide)
        self._deliver(deliveries)
        if pending.event.get("open"):
            self._arm(table, pending.event)

    async def _repeated_meanwhile(self, session: ClientSession, ticket: RollTicket,
                                  trims: int) -> bool:
        """Inside the table's turn: whether the same request was resolved while this one
        waited (another device of the member), then answered as a repeat. Memory knows,
        unless the table's memory of request ids was trimmed since the first look
        (``trims``): then the journal is asked again."""
        table = ticket.table
        if ticket.key is None or (table.remembered(ticket.key) is None
                                  and table.trims == trims):
            return False
        return await self._answer_repeat(session, ticket)

    async def _answer_repeat(self, session: ClientSession, ticket: RollTicket) -> bool:
        """Resend the original outcome of a request id already resolved; True if so."""
        table, member = ticket.table, ticket.member
        assert ticket.key is not None
        event = table.remembered(ticket.key)
        if event is None and table.needs_journal_lookup():
            event = await self.store.find_request(table.name, *member.key,
                                                  ticket.request_id)
        if event is None:
            return False
        log.info("repeat of request %r by %r at %r: original outcome #%s resent",
                 ticket.request_id, member.name, table.name, event["seq"])
        await self._resend_original(session, event, ticket.request_id)
        return True

    async def _answer_duplicate(self, session: ClientSession, seq: int, rid: Any) -> None:
        """The store said request ``rid`` already made event ``seq``: resend it."""
        table, member = session.table, session.member
        assert table is not None and member is not None
        event = await self.store.event(table.name, seq)
        if event is None:
            raise StoreUnavailable(f"event #{seq} of {table.name!r} not readable")
        log.info("repeat of request %r by %r at %r: original outcome #%s resent (stored "
                 "by another server)", rid, member.name, table.name, seq)
        await self._resend_original(session, event, rid)

    async def _resend_original(self, session: ClientSession, event: dict[str, Any],
                               rid: Any) -> None:
        """A repeated request's answer: its original event, as the member may see it,
        marked ``duplicate`` (a refill of every character: the list of characters)."""
        table, member = session.table, session.member
        assert table is not None and member is not None
        if event.get("whole"):
            answer = self.core.sheet_list(table, member, SheetRequest(op="list", id=rid))
            answer["duplicate"] = True
            await self._send(session, answer)
            return
        await self._send(session, self.core.repeat(member, event))

    async def _history(self, session: ClientSession, request: HistoryRequest) -> None:
        table, member = session.table, session.member
        assert table is not None and member is not None
        await self.store.flush()
        # Read in chunks and stop at max_history_bytes: a page never holds more in memory.
        page = HistoryPage(table, member, request, binary=session.binary,
                           max_bytes=self.config.max_history_bytes)
        while (wanted := page.wanted()):
            page.add(await self.store.page(table.name, *member.key, page.last, table.seq,
                                           wanted + 1))
        session.bucket.charge(page.size / HISTORY_BYTES_PER_TOKEN)
        await self._send(session, page.message())
        # Pages are paid in bytes: a connection in debt is not read until it is paid off
        # (not refused: a client paging through a long table goes at the limit's pace).
        await asyncio.sleep(session.bucket.debt_delay())

    async def _odds(self, session: ClientSession, request: OddsRequest) -> None:
        member, table = session.member, session.table
        assert member is not None and table is not None
        roll = self.core.prepare_odds(table, member, request)
        odds = await self.pipeline.odds(roll)
        await self._send(session, self.core.odds(request, roll, odds))
