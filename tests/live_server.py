"""The tests' in-process sidecar (:func:`tests.helpers.start_server`) in a background
thread, for tests whose client is not asyncio (a browser, Node, a subprocess): start it,
hand out its URLs, stop it, start it again on the same port."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from sidecar.client import SidecarClient
from sidecar.server.connections import SidecarServer
from tests.helpers import start_server


class LiveServer:
    """``with LiveServer(**config) as server:`` — ``server.http`` is the page's base URL."""

    def __init__(self, **overrides: Any) -> None:
        self.overrides = overrides
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True,
                                       name="live-sidecar")
        self.thread.start()
        self.server: SidecarServer | None = None

    def call(self, coro: Any, timeout: float = 30) -> Any:
        """Run a coroutine on the server's loop and wait for its result."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def start(self, **more: Any) -> LiveServer:
        self.server = self.call(start_server(**{**self.overrides, **more}))
        # Restarts keep the port, as a restarted `sidecar serve --port N` would.
        self.overrides["port"] = self.server.port
        return self

    def stop(self) -> None:
        if self.server is not None:
            self.call(self.server.stop())
            self.server = None

    def close(self) -> None:
        self.stop()
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()

    def __enter__(self) -> LiveServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.close()

    @property
    def config(self) -> Any:
        assert self.server is not None
        return self.server.config

    @property
    def url(self) -> str:
        assert self.server is not None
        return self.server.url

    @property
    def http(self) -> str:
        return self.url.replace("ws://", "http://").rsplit("/ws", 1)[0]

    def client(self, **kwargs: Any) -> SidecarClient:
        """A Python client for this server (use it inside :meth:`call`)."""
        return SidecarClient(self.url, **kwargs)

    def roll(self, table: str, name: str, ruleset: str, params: dict[str, Any],
             role: str = "gm", **kwargs: Any) -> dict[str, Any]:
        """Join (as a GM unless told), roll once, leave; returns the outcome."""
        async def once() -> dict[str, Any]:
            async with self.client(table=table, name=name, role=role,
                                   token=self.config.gm_token) as client:
                return await client.roll(ruleset, params, **kwargs)
        return self.call(once())

    def odds(self, table: str, ruleset: str, params: dict[str, Any]) -> dict[str, Any]:
        async def once() -> dict[str, Any]:
            # A token: an observer may only open a table with one.
            async with self.client(table=table, name="oddsbot", role="observer",
                                   token=self.config.player_token) as client:
                return await client.odds(ruleset, params)
        return self.call(once())
