"""An async Python client for a sidecar table (what ``sidecar roll`` and ``watch`` use).

Example::

    async with SidecarClient("ws://127.0.0.1:8765/ws", table="demo", name="Aengus",
                             role="player", token="…") as client:
        outcome = await client.roll("bloodlust", {"pool": 5, "difficulty": 7})
        print(outcome["text"])
        async for event in client.events():
            ...
"""

from __future__ import annotations

import asyncio
import itertools
import secrets
from collections.abc import AsyncIterator
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from protocol.codec import decode, encode
from protocol.messages import PROTOCOL_VERSION


class SidecarError(Exception):
    """An ``error`` message from the server (``code``, ``message``, ``details``)."""

    def __init__(self, code: str, message: str, details: dict[str, Any] | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.details = details or {}


class SidecarClient:
    """One connection to one table. Requests are matched to replies by ``id``; everything
    the table streams (outcomes, presence) is available from :meth:`events`."""

    def __init__(self, url: str, *, table: str, name: str, role: str = "player",
                 token: str | None = None, locale: str = "fr", binary: bool = True,
                 resume: int | None = None) -> None:
        self.url = url
        self.hello: dict[str, Any] = {"type": "hello", "protocol": PROTOCOL_VERSION,
                                      "table": table, "name": name, "role": role,
                                      "locale": locale}
        if token is not None:
            self.hello["token"] = token
        if resume is not None:
            self.hello["resume"] = resume
        self.binary = binary
        self.welcome: dict[str, Any] = {}
        self._ws: ClientConnection | None = None
        self._ids = itertools.count(1)
        self._prefix = secrets.token_hex(6)
        self._pending: dict[Any, asyncio.Future[dict[str, Any]]] = {}
        self._events: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        self._reader: asyncio.Task[None] | None = None

    async def connect(self) -> dict[str, Any]:
        """Open the connection and join; returns ``welcome`` or raises :class:`SidecarError`."""
        self._ws = await connect(self.url, max_size=1 << 20, compression=None)
        await self._ws.send(encode({**self.hello, "id": "hello"}, binary=self.binary))
        reply = decode(await self._ws.recv())
        if reply.get("type") == "error":
            await self._ws.close()
            raise SidecarError(reply["code"], reply.get("message", ""), reply.get("details"))
        self.welcome = reply
        self._reader = asyncio.create_task(self._read())
        return reply

    async def _read(self) -> None:
        assert self._ws is not None
        try:
            async for frame in self._ws:
                message = decode(frame)
                rid = message.get("id")
                future = self._pending.get(rid) if rid is not None else None
                if message.get("type") in ("outcome", "presence"):
                    self._events.put_nowait(message)
                if future is not None and not future.done():
                    future.set_result(message)
        except ConnectionClosed:
            pass
        finally:
            self._events.put_nowait(None)
            for future in self._pending.values():
                if not future.done():
                    future.set_exception(SidecarError("closed", "connection closed"))

    async def request(self, message: dict[str, Any]) -> dict[str, Any]:
        """Send a request and wait for the reply carrying its ``id``."""
        assert self._ws is not None, "call connect() first"
        # Request ids are idempotency keys the server remembers (across restarts): they
        # must not repeat between processes, so each client has a random prefix.
        rid = message.setdefault("id", f"{self._prefix}-{next(self._ids)}")
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[rid] = future
        try:
            await self._ws.send(encode(message, binary=self.binary))
            reply = await future
        finally:
            self._pending.pop(rid, None)
        if reply.get("type") == "error":
            raise SidecarError(reply["code"], reply.get("message", ""), reply.get("details"))
        return reply

    async def roll(self, ruleset: str, params: dict[str, Any] | None = None, *,
                   label: str = "", mode: str = "public",
                   options: dict[str, Any] | None = None,
                   dice: list[int] | None = None) -> dict[str, Any]:
        """Roll and return this client's copy of the outcome."""
        message: dict[str, Any] = {"type": "roll", "ruleset": ruleset, "params": params or {},
                                   "label": label, "mode": mode, "options": options or {}}
        if dice is not None:
            message["dice"] = dice
        return await self.request(message)

    async def odds(self, ruleset: str, params: dict[str, Any] | None = None,
                   options: dict[str, Any] | None = None) -> dict[str, Any]:
        """The exact odds of a roll (nothing is rolled)."""
        return await self.request({"type": "odds", "ruleset": ruleset,
                                   "params": params or {}, "options": options or {}})

    async def events(self) -> AsyncIterator[dict[str, Any]]:
        """Outcomes and presence messages as they arrive, until the connection closes."""
        while True:
            event = await self._events.get()
            if event is None:
                return
            yield event

    async def close(self) -> None:
        if self._ws is not None:
            await self._ws.close()
        if self._reader is not None:
            await self._reader

    async def __aenter__(self) -> SidecarClient:
        await self.connect()
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.close()
