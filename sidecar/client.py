"""An async Python client for a sidecar table (what ``sidecar roll`` and ``watch`` use).

Example (``examples/roll_and_watch.py`` is a runnable version)::

    async with SidecarClient("ws://127.0.0.1:8765/ws", table="demo", name="Aengus",
                             role="player", token="…", reconnect=True) as client:
        odds = await client.odds("bloodlust", {"pool": 5, "difficulty": 7})
        outcome = await client.roll("bloodlust", {"pool": 5, "difficulty": 7})
        print(f"{odds['p_success']:.0%} →", outcome["text"])
        async for outcome in client.outcomes():
            print(outcome["text"])

With ``reconnect=True`` a dropped connection is reopened by itself (backing off up to 5 s)
and joined with ``resume`` = the last ``seq`` seen: the server replays what was missed, in
order, each event once, and :meth:`events` goes on as if nothing happened. Rolls left
unanswered by the drop are re-sent with the same ``id``; the server's idempotency makes
sure they are never rolled twice.
"""

from __future__ import annotations

import asyncio
import itertools
import random
import secrets
from collections.abc import AsyncIterator
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from sidecar.protocol.codec import decode, encode
from sidecar.protocol.messages import PROTOCOL_VERSION

#: Errors after which reconnecting cannot help: the server closed on purpose.
FATAL_CODES = frozenset({"forbidden", "unsupported_protocol", "bad_message"})


class SidecarError(Exception):
    """An ``error`` message from the server (``code``, ``message``, ``details``), or
    ``closed`` when the connection ended before a reply."""

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
                 resume: int | None = None, reconnect: bool = False,
                 max_delay: float = 5.0) -> None:
        self.url = url
        self.hello: dict[str, Any] = {"type": "hello", "protocol": PROTOCOL_VERSION,
                                      "table": table, "name": name, "role": role,
                                      "locale": locale}
        if token is not None:
            self.hello["token"] = token
        self.binary = binary
        self.reconnect = reconnect
        self.max_delay = max_delay
        #: The last ``seq`` received; the next join resumes after it.
        self.last_seq: int | None = resume
        self.welcome: dict[str, Any] = {}
        self._ws: ClientConnection | None = None
        self._ids = itertools.count(1)
        # Request ids are idempotency keys the server remembers (across restarts): they
        # must not repeat between processes, so each client has a random prefix.
        self._prefix = secrets.token_hex(6)
        self._pending: dict[Any, tuple[dict[str, Any], asyncio.Future[dict[str, Any]]]] = {}
        self._events: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        self._reader: asyncio.Task[None] | None = None
        self._closing = False
        self._finished = False
        # Set while joined: requests made during a reconnection wait for the new join.
        self._ready = asyncio.Event()

    # -- connection -------------------------------------------------------------------------

    async def connect(self) -> dict[str, Any]:
        """Open the connection and join; returns ``welcome`` or raises :class:`SidecarError`."""
        self._closing = False
        self._finished = False
        await self._join()
        self._reader = asyncio.create_task(self._read())
        return self.welcome

    async def _join(self) -> None:
        self._ws = await connect(self.url, max_size=1 << 20, compression=None)
        hello = {**self.hello, "id": f"{self._prefix}-hello"}
        if self.last_seq is not None:
            hello["resume"] = self.last_seq
        await self._ws.send(encode(hello, binary=self.binary))
        reply = decode(await self._ws.recv())
        if reply.get("type") == "error":
            await self._ws.close()
            raise SidecarError(reply["code"], reply.get("message", ""), reply.get("details"))
        self.welcome = reply
        if self.last_seq is None:
            self.last_seq = reply.get("seq", 0)
        # Rolls cut off by a drop: same id again, so the server answers without rerolling.
        for message, future in self._pending.values():
            if not future.done():
                await self._ws.send(encode(message, binary=self.binary))
        self._ready.set()

    async def _read(self) -> None:
        while True:
            assert self._ws is not None
            try:
                async for frame in self._ws:
                    self._dispatch(decode(frame))
            except ConnectionClosed:
                pass
            self._ready.clear()
            if self._closing or not self.reconnect or not await self._rejoin():
                break
        self._finished = True
        self._ready.set()  # nothing to wait for any more: requests fail at once
        self._events.put_nowait(None)
        for _, future in self._pending.values():
            if not future.done():
                future.set_exception(SidecarError("closed", "connection closed"))

    async def _rejoin(self) -> bool:
        """Reconnect with resume, backing off; False once it cannot succeed."""
        delay = 0.25
        while not self._closing:
            await asyncio.sleep(delay * random.uniform(0.75, 1.25))
            delay = min(self.max_delay, delay * 2)
            try:
                await self._join()
                return True
            except SidecarError as error:
                if error.code in FATAL_CODES:
                    return False
            except (OSError, InvalidHandshake, ConnectionClosed, TimeoutError):
                continue
        return False

    def _dispatch(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        seq = message.get("seq")
        if kind == "outcome" and isinstance(seq, int) and not message.get("duplicate"):
            if self.last_seq is None or seq > self.last_seq:
                self.last_seq = seq
                self._events.put_nowait(message)
        elif kind == "presence":
            self._events.put_nowait(message)
        rid = message.get("id")
        entry = self._pending.get(rid) if rid is not None else None
        if entry is not None and not entry[1].done():
            entry[1].set_result(message)

    # -- requests ---------------------------------------------------------------------------

    async def request(self, message: dict[str, Any]) -> dict[str, Any]:
        """Send a request and wait for the reply carrying its ``id``."""
        assert self._ws is not None, "call connect() first"
        await self._ready.wait()
        if self._finished:
            raise SidecarError("closed", "connection closed")
        rid = message.setdefault("id", f"{self._prefix}-{next(self._ids)}")
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[rid] = (message, future)
        try:
            try:
                await self._ws.send(encode(message, binary=self.binary))
            except ConnectionClosed:
                if not self.reconnect:
                    raise SidecarError("closed", "connection closed") from None
                # Sent again by _join once reconnected.
            reply = await future
        finally:
            self._pending.pop(rid, None)
        if reply.get("type") == "error":
            raise SidecarError(reply["code"], reply.get("message", ""), reply.get("details"))
        return reply

    async def roll(self, ruleset: str, params: dict[str, Any] | None = None, *,
                   label: str = "", mode: str = "public",
                   options: dict[str, Any] | None = None,
                   dice: list[int] | None = None, id: str | None = None) -> dict[str, Any]:
        """Roll and return this client's copy of the outcome. ``id`` (optional) is the
        request id: the same id never rolls twice."""
        message: dict[str, Any] = {"type": "roll", "ruleset": ruleset, "params": params or {},
                                   "label": label, "mode": mode, "options": options or {}}
        if dice is not None:
            message["dice"] = dice
        if id is not None:
            message["id"] = id
        return await self.request(message)

    async def odds(self, ruleset: str, params: dict[str, Any] | None = None,
                   options: dict[str, Any] | None = None) -> dict[str, Any]:
        """The exact odds of a roll (nothing is rolled)."""
        return await self.request({"type": "odds", "ruleset": ruleset,
                                   "params": params or {}, "options": options or {}})

    async def history(self, after: int = 0, limit: int = 100) -> dict[str, Any]:
        """One page of the table's journal as this client may see it
        (``events``, ``more``, ``next``)."""
        return await self.request({"type": "history", "after": after, "limit": limit})

    # -- streams ----------------------------------------------------------------------------

    async def events(self) -> AsyncIterator[dict[str, Any]]:
        """Outcomes (each ``seq`` once, replayed ones included) and presence messages as
        they arrive, until the connection closes for good."""
        while True:
            event = await self._events.get()
            if event is None:
                self._events.put_nowait(None)  # later iterators end too
                return
            yield event

    async def outcomes(self) -> AsyncIterator[dict[str, Any]]:
        """Only the outcomes of :meth:`events`."""
        async for event in self.events():
            if event.get("type") == "outcome":
                yield event

    async def drop(self) -> None:
        """Break the connection as a network failure would (it reconnects if enabled)."""
        if self._ws is not None and self._ws.transport is not None:
            self._ws.transport.abort()

    async def close(self) -> None:
        self._closing = True
        if self._ws is not None:
            await self._ws.close()
        if self._reader is not None:
            await self._reader

    async def __aenter__(self) -> SidecarClient:
        await self.connect()
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.close()
