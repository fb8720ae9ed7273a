"""The server's options, grouped as ``sidecar serve`` groups them, with safe defaults."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field


def new_token() -> str:
    """A fresh random token (about 96 bits), easy to paste;
    never starting with "-", which a command line would take for an option."""
    while True:
        token = secrets.token_urlsafe(12)
        if not token.startswith("-"):
            return token


@dataclass
class ServerConfig:
    """Everything ``SidecarServer`` needs to know; each field documents itself."""

    # Network
    #: Interface to listen on. 127.0.0.1 keeps the table on this machine; 0.0.0.0 opens it
    #: to the LAN.
    host: str = "127.0.0.1"
    #: TCP port (0 picks a free one).
    port: int = 8765

    # Access
    #: Secret a client gives with ``role: "gm"``.
    gm_token: str = field(default_factory=new_token)
    #: Secret a client gives with ``role: "player"`` (the GM token is accepted too).
    player_token: str = field(default_factory=new_token)
    #: Seconds an open roll waits for its roller's (or a GM's) decision before taking its
    #: default choice (or closing as it stands).
    react_timeout: float = 120.0
    #: Where seat links point (the web page's URL as players reach it); by default the
    #: server's own address, on ``0.0.0.0`` this machine's LAN address.
    public_url: str = ""
    #: Extra browser origins allowed to connect (exact, e.g. ``https://vtt.example.org``).
    #: The server's own origin and localhost are always allowed; clients sending no
    #: ``Origin`` (CLI, VTT servers) are always accepted.
    origins: tuple[str, ...] = ()
    #: TLS certificate chain (PEM) and its private key: with both, the server speaks
    #: ``wss://`` and serves its page over ``https://`` (a Foundry world behind HTTPS may
    #: only reach a sidecar that does). Neither: plain ``ws://`` and ``http://``.
    ssl_certfile: str | None = None
    ssl_keyfile: str | None = None
    #: Whether players (not only GMs) may send their own physical dice.
    allow_player_dice: bool = False
    #: Where faces come from: ``provable`` (the default: committed epoch seeds, checkable
    #: after their reveal, see sidecar.dice.provable; about 3 µs more server CPU a roll
    #: measured directly, 9–19 % end to end on a loaded machine, see
    #: benchmarks/provable_cpu.py) or ``secure`` (the OS's CSPRNG alone, no proof).
    dice: str = "provable"
    #: Whether a clean stop reveals every table's current epoch (provable dice).
    reveal_on_stop: bool = True

    # Journal
    #: SQLite file where every table event is stored before it is sent (":memory:" keeps
    #: tables only while the server runs).
    db: str = "sidecar.db"
    #: Where tables are kept instead of ``db``: ``redis://HOST:PORT/DB`` shares them with
    #: every ``sidecar serve`` pointed at the same Redis (see sidecar.stores.redis).
    store: str | None = None

    # Plugins
    #: A directory whose ``*.py`` files are loaded as plugins.
    plugins_dir: str | None = None
    #: Plugin names not to load.
    disabled_plugins: tuple[str, ...] = ()
    #: Third-party plugins to run inline like the built-ins (faster; the operator vouches
    #: that their hooks never block).
    trusted_plugins: tuple[str, ...] = ()
    #: Seconds a third-party hook call may take before it is skipped (and counted as a
    #: failure; 5 failures in 60 s disable the plugin for the rest of the run).
    plugin_timeout: float = 0.25

    # Limits
    #: Largest frame accepted; larger ones close the connection with 1009.
    max_frame_bytes: int = 64 * 1024
    #: Requests per second per connection, every frame counted (rolls, odds, history,
    #: plugins, malformed frames, unknown types); past it the answer is ``rate_limited``
    #: (0 turns the limit off).
    rate_limit: float = 20.0
    #: Burst allowed above the rate (defaults to twice the rate).
    rate_burst: float | None = None
    #: Failed ``hello``s (wrong token) one remote address may make per minute, as a burst
    #: refilling at that rate; past it that address's ``hello``s with a token are answered
    #: ``rate_limited`` and closed without the token being checked (0 turns it off).
    max_failed_hellos: float = 5.0
    #: Open WebSocket connections one remote address may hold; past it the handshake is
    #: answered 503 (each costs memory even before its ``hello``). Behind a reverse proxy
    #: every client has the proxy's address: raise it there (0 turns it off).
    max_connections_per_address: int = 500
    #: Most tables one server holds open at once (a table is open while someone sits at
    #: it; the journal keeps the others). Whoever would open one more is refused
    #: (``too_large``, ``details.limit: "tables"``). Sized on memory: an idle table of 5
    #: costs about 94 KiB with provable dice, its 5 connections included (about 9 KiB
    #: without them, its epoch's included; 85 KiB with secure dice; ``benchmarks/
    #: memory.py``), so 5,000 full tables stay near 0.5 GiB. CPU runs out
    #: first when every table rolls: see docs/DEPLOY.md for when to add processes.
    max_tables: int = 5000
    #: Most players and GMs at one table.
    max_members: int = 1000
    #: Most observers at one table, counted apart: observers never keep a player or a GM
    #: out. (Observers join existing tables only; creating one takes a token.)
    max_observers: int = 200
    #: Bytes waiting for one client to read — its transport buffer plus live events held
    #: while its ``resume`` replay streams — before it is closed with 1013 "too slow" (it
    #: can reconnect and resume); keeps one stalled phone from growing the server's memory.
    max_pending_bytes: int = 1024 * 1024
    #: Longest string (characters) a client may put anywhere in a roll's ``params`` or
    #: ``options``; longer is ``invalid_params`` / ``too_large``. Extensions copy such
    #: strings into notes and texts, so each one is paid several times per event.
    max_string_chars: int = 256
    #: Largest encoded event (bytes of JSON, as journaled) a roll may produce; larger is refused
    #: with ``too_large`` before it is numbered or stored.
    max_event_bytes: int = 16 * 1024
    #: Largest ``history`` page (bytes of its events, encoded); the page stops early with
    #: ``more: true`` past it. Under 64 KiB, the frame size clients accept by default.
    max_history_bytes: int = 56 * 1024
    #: Bytes of recent events each table remembers to answer a repeated request id without
    #: asking the journal (past it the memory is emptied and the journal is asked).
    max_remembered_bytes: int = 8 * 1024 * 1024
    #: The same for every table of the server together (``serve --max-remembered-mib``),
    #: in two steps (sidecar.table.remembered): past a quarter of it in events, the oldest
    #: event of any table is let go of and only its request id and seq kept (a repeat reads
    #: it from the store); past all of it, the oldest ids are dropped (their table then asks
    #: the store about every request id it does not know, a read per request). Counted in
    #: bytes as journaled, an id 64: in memory an event weighs about 4 times its journaled
    #: size (a 5d10 outcome with its proof: 1 KB journaled, 4 KB held), so the default's
    #: 16 MiB hold about 64 MiB — 4,000 events and 196,000 ids, sized so that 2,000 tables
    #: of 5 rolling stay under 300 MiB (their connections and epochs take about 220 MiB).
    #: 0: no server-wide bound.
    max_remembered_total_bytes: int = 16 * 1024 * 1024
    #: Kernel send buffer per connection (the OS default may grow to several MiB each).
    socket_send_buffer: int = 128 * 1024

    # Timeouts
    #: Seconds a new connection has to send its ``hello``.
    hello_timeout: float = 10.0
    #: Seconds between keepalive pings (None turns them off).
    ping_interval: float | None = 20.0
    #: Seconds ``stop()`` lets clients take their 1001 close before their sockets are
    #: cut, whatever they do (a SIGTERM must stop the server within a few seconds).
    stop_timeout: float = 2.0
    #: Seconds between two log lines of the same kind of client error (the others are
    #: counted, and the count is logged with the next line).
    log_interval: float = 10.0
    #: ``sidecar serve`` freezes what survives each full garbage collection (its pauses
    #: then stay short however many clients are connected) and thaws everything once per
    #: this many seconds, so that what was frozen and became garbage is freed (one longer
    #: pause per period). None: freeze once after start-up only.
    gc_thaw_every: float | None = 600.0
