"""The table server: accepts connections, moves frames, calls the table core.

Every decision (who may join, what a roll's event is, who sees which view, what each answer
says) is the table core's (:mod:`sidecar.table.core`); the server decodes a frame, hands the
request to the core, performs the I/O it asks for (the roll pipeline, the journal) and sends
what it returns, encoded once per group of readers. ``GET /`` serves the
web page; ``/ws`` is the WebSocket endpoint.

:class:`SidecarServer` assembles its parts, each a module of :mod:`sidecar.server`: the
HTTP side (:mod:`~sidecar.server.handshake`), frames in and out
(:mod:`~sidecar.server.transport`), joining (:mod:`~sidecar.server.joins`), each request
(:mod:`~sidecar.server.requests`), the one runner of the core's effects
(:mod:`~sidecar.server.runner`), other processes' events
(:mod:`~sidecar.server.replication`) and timers (:mod:`~sidecar.server.timers`).

Requests of one connection are handled one at a time, in order; the transport's receive
queue holds at most 16 more frames (then the server stops reading from that socket), so a
client never has more than 17 requests in flight.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import ssl
from typing import Any

from websockets.asyncio.server import Server, ServerConnection, serve

import sidecar
from sidecar.config import ServerConfig
from sidecar.host.pipeline import RollPipeline
from sidecar.host.plugins import PluginHost, default_host
from sidecar.server.errors import store_unavailable
from sidecar.server.foundry import FoundryModule
from sidecar.server.handshake import WS_PATH, Handshake, lan_address
from sidecar.server.joins import Joins
from sidecar.server.logthrottle import LogThrottle
from sidecar.server.outbox import Outbox
from sidecar.server.ratelimit import FailureGuard
from sidecar.server.replication import Replication
from sidecar.server.requests import Requests
from sidecar.server.runner import Runner
from sidecar.server.timers import Timers
from sidecar.server.transport import ClientSession, Transport, remote_ip
from sidecar.server.webassets import WebAssets
from sidecar.stores.choice import open_store
from sidecar.table.core import TableCore
from sidecar.table.tables import Tables

__all__ = ["WS_PATH", "ClientSession", "SidecarServer", "lan_address", "remote_ip",
           "store_unavailable"]

log = logging.getLogger("sidecar.server")


class SidecarServer(Transport, Handshake, Joins, Requests, Runner, Replication, Timers):
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
        self.full_log = LogThrottle(log, self.FULL_LOG_INTERVAL)
        #: Browser origins refused so far whose allowing flag was logged (bounded).
        self.refused_origins: set[str] = set()
        self.assets = WebAssets()
        self.foundry = FoundryModule()
        #: Timers of open rolls waiting for a decision (cancelled at stop).
        self.timers: set[asyncio.TimerHandle] = set()
        self.expiring: set[asyncio.Task[None]] = set()
        #: Tables being brought up to date with events of other processes (shared store),
        #: and the last seq another process announced for each.
        self.catching: dict[str, asyncio.Task[None]] = {}
        #: Open rolls whose timer runs here: (table, roll id).
        self.armed: set[tuple[str, str]] = set()
        self._preloaded: tuple[str, Any] | None = None
        self.announced: dict[str, int] = {}

    @property
    def tables(self) -> Tables:
        """The tables in memory (the core's registry)."""
        return self.core.tables

    # -- lifecycle ----------------------------------------------------------------------

    async def start(self) -> None:
        """Bind and start accepting connections."""
        self.assets.load()
        await self.store.open(self.tables, changed=self._changed, added=self._watch,
                              lost=self._lost_notice, sweep=self._sweep_open_rolls)
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
        # Which epochs a stop ends is the store's answer: with Redis, none (the other
        # processes keep serving the tables; the GM ends an epoch, from any process).
        if self.config.dice == "provable" and self.config.reveal_on_stop:
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
        await self.store.close()
        self.host.shutdown()

    async def __aenter__(self) -> SidecarServer:
        await self.start()
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.stop()
