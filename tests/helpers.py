"""Test helpers: a real server on a loopback port, and raw WebSocket peers."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections.abc import AsyncIterator
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

from sidecar.config import ServerConfig
from sidecar.host.plugins import PluginHost, default_host
from sidecar.protocol.codec import CLIENT_FRAME_BYTES, decode, encode
from sidecar.server.connections import SidecarServer

GM_TOKEN = "gm-secret-token"
PLAYER_TOKEN = "player-secret-token"
TIMEOUT = 5.0


def make_config(**overrides: Any) -> ServerConfig:
    # Secure dice pinned (the product's default is provable, issue 28): the tests count a
    # table's events from seq 1, and a provable table's first event is its epoch's start.
    # Tests of verifiable dice pass dice="provable"; tests/test_dice_default.py checks
    # the default itself.
    # A guarded plugin's deadline of 2 s, as the plugin kit's own servers have
    # (sidecar.testing): the product's 0.25 s failed a call on a machine shared by other
    # runs; the tests of the deadline itself set theirs (plugin_timeout=0.05…).
    config = ServerConfig(host="127.0.0.1", port=0, gm_token=GM_TOKEN,
                          player_token=PLAYER_TOKEN, ping_interval=None, db=":memory:",
                          dice="secure", plugin_timeout=2.0)
    for key, value in overrides.items():
        setattr(config, key, value)
    return config


def run(coro: Any, timeout: float = 60) -> Any:
    """Run an async scenario to completion with an overall deadline."""
    async def bounded() -> Any:
        return await asyncio.wait_for(coro, timeout)
    return asyncio.run(bounded())


def hello(table: str = "t", name: str = "Aengus", role: str = "player",
          token: str | None = None, **extra: Any) -> dict[str, Any]:
    """The ``hello`` a member sends first, with the tests' token for its role unless
    ``token`` is given (an observer sends none unless given). ``extra``: ``resume`` and
    the like. Every test's hello is built here."""
    if token is None and role != "observer":
        token = GM_TOKEN if role == "gm" else PLAYER_TOKEN
    message = {"type": "hello", "protocol": 1, "table": table, "name": name, "role": role,
               **extra}
    if token is not None:
        message["token"] = token
    return message


async def start_server(host: PluginHost | None = None, **overrides: Any) -> SidecarServer:
    """The one way the tests start a sidecar in their own process: the tests' config
    (loopback, free port, known tokens, a journal in memory) with ``overrides``, the
    built-in plugins (and ``plugins_dir``'s) unless ``host`` is given. Stop it with
    ``await server.stop()``; :func:`running_server` does both, and
    :class:`tests.live_server.LiveServer` runs it in a thread."""
    config = make_config(**overrides)
    server = SidecarServer(config, host=host or default_host(
        config.plugins_dir, disabled=config.disabled_plugins))
    await server.start()
    return server


@contextlib.asynccontextmanager
async def running_server(host: PluginHost | None = None, **overrides: Any
                         ) -> AsyncIterator[SidecarServer]:
    """``async with running_server(...) as server:`` — :func:`start_server`, stopped at
    the end."""
    server = await start_server(host, **overrides)
    try:
        yield server
    finally:
        await server.stop()


class Peer:
    """A raw protocol client: sends maps, receives maps, in MessagePack or JSON."""

    def __init__(self, ws: ClientConnection, binary: bool = True) -> None:
        self.ws = ws
        self.binary = binary
        self.seen: list[dict[str, Any]] = []

    @classmethod
    async def open(cls, server: SidecarServer, *, binary: bool = True, **kwargs: Any) -> Peer:
        return await cls.connect(server.url, binary=binary, **kwargs)

    @classmethod
    async def connect(cls, url: str, *, binary: bool = True, **kwargs: Any) -> Peer:
        """A peer on any server's URL (a process, a proxy): ``kwargs`` go to websockets."""
        ws = await connect(url, **{"compression": None, "max_size": 1 << 22, **kwargs})
        return cls(ws, binary)

    async def send(self, message: dict[str, Any]) -> None:
        await self.ws.send(encode(message, binary=self.binary))

    async def send_raw(self, frame: bytes | str) -> None:
        await self.ws.send(frame)

    async def recv(self, timeout: float = TIMEOUT) -> dict[str, Any]:
        frame = await asyncio.wait_for(self.ws.recv(), timeout)
        assert isinstance(frame, bytes) == self.binary, "answered in the wrong encoding"
        message = decode(frame, max_bytes=CLIENT_FRAME_BYTES)  # what clients accept
        self.seen.append(message)
        return message

    async def recv_type(self, kind: str, timeout: float = TIMEOUT) -> dict[str, Any]:
        """The next message of type ``kind``, skipping others (e.g. presence)."""
        while True:
            message = await self.recv(timeout)
            if message["type"] == kind:
                return message

    async def recv_not_presence(self, timeout: float = TIMEOUT) -> dict[str, Any]:
        while True:
            message = await self.recv(timeout)
            if message["type"] != "presence":
                return message

    async def quiet(self, timeout: float = 0.3) -> list[dict[str, Any]]:
        """Every non-presence message that arrives within ``timeout`` (expected: none)."""
        got = []
        with contextlib.suppress(asyncio.TimeoutError, TimeoutError):
            while True:
                message = await self.recv(timeout)
                if message["type"] != "presence":
                    got.append(message)
        return got

    async def unseen(self, *, presence: bool = False) -> list[dict[str, Any]]:
        """Every message the server sent this peer before it answers a request sent now
        (expected: none), presence left out unless asked for. The server writes to one
        connection in order, so anything it had sent this peer — an event it must not see,
        say — comes before the answer: no waiting for time to pass."""
        rid = f"unseen-{secrets.token_hex(6)}"
        await self.send({"type": "plugins", "id": rid})
        got = []
        while True:
            message = await self.recv()
            if message.get("id") == rid:
                assert message["type"] == "plugins", message
                return got
            if presence or message["type"] != "presence":
                got.append(message)

    async def join(self, table: str = "t", name: str = "Aengus", role: str = "player",
                   token: str | None = None, **extra: Any) -> dict[str, Any]:
        """Send :func:`hello` and return the welcome (failing on anything else)."""
        await self.send(hello(table, name, role, token, **extra))
        welcome = await self.recv()
        assert welcome["type"] == "welcome", welcome
        return welcome

    async def roll(self, ruleset: str = "bloodlust", params: dict[str, Any] | None = None,
                   **fields: Any) -> dict[str, Any]:
        """Send a roll and return the reply to it (outcome or error)."""
        # Unique by default: ids are idempotency keys, remembered across restarts.
        rid = fields.pop("id", f"r-{secrets.token_hex(6)}")
        await self.send({"type": "roll", "id": rid, "ruleset": ruleset,
                         "params": params if params is not None else {"pool": 3}, **fields})
        while True:
            message = await self.recv()
            if message.get("id") == rid:
                return message

    async def request(self, message: dict[str, Any]) -> dict[str, Any]:
        """Send any message with an id and return the reply carrying it."""
        await self.send(message)
        while True:
            reply = await self.recv()
            if reply.get("id") == message.get("id"):
                return reply

    async def close(self) -> None:
        await self.ws.close()


async def seated_peer(server: SidecarServer, gm: Peer, name: str, table: str = "t") -> Peer:
    """A player joined at the seat ``name`` the GM ``gm`` adds for it (its own token)."""
    token = (await gm.request({"type": "seat", "id": f"s-{name}", "op": "add",
                               "name": name}))["token"]
    peer = await Peer.open(server)
    await peer.join(table, name, token=token)
    return peer


@contextlib.asynccontextmanager
async def peers(server: SidecarServer, count: int, **kwargs: Any) -> AsyncIterator[list[Peer]]:
    opened = [await Peer.open(server, **kwargs) for _ in range(count)]
    try:
        yield opened
    finally:
        for peer in opened:
            await peer.close()
