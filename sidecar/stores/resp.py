"""One plain connection to Redis for the store's hot path: the script every event runs.

redis-py is used for everything else (reads, pub/sub, pools, TLS); but its layers cost
about 120 µs of CPU per command on this project's machine — more than the rest of a
roll's store — where a command written on an asyncio stream and its reply parsed by
hiredis (Redis's own C parser, redis-py's optional dependency) costs about 25 µs
(benchmarks/README.md). The store's throughput target (≥ 80 % of the SQLite journal's)
is out of reach without it.

Commands are pipelined on one connection: written in order, answered in order (Redis's
guarantee on a connection), each caller waiting for its own reply. A connection that
fails fails every command waiting on it with :class:`ConnectionLost` (the caller cannot
know whether Redis ran it: the store answers "unavailable", and a request sent again with
its id is answered as a repeat, never run twice); the next command connects again.
Only plain TCP and Unix sockets: a ``rediss://`` store keeps redis-py for everything.
"""

from __future__ import annotations

import asyncio
import collections
from typing import Any


class ConnectionLost(Exception):
    """The connection failed before this command's reply (it may or may not have run)."""


class RespError(Exception):
    """Redis answered this command with an error (``NOSCRIPT …``, ``OOM …``…)."""


def encode(args: tuple[Any, ...]) -> bytes:
    """A command as a RESP array of bulk strings."""
    out = [b"*%d\r\n" % len(args)]
    for arg in args:
        if isinstance(arg, bytes):
            data = arg
        elif isinstance(arg, str):
            data = arg.encode()
        else:
            data = str(arg).encode()
        out.append(b"$%d\r\n%s\r\n" % (len(data), data))
    return b"".join(out)


class RespConnection:
    """A pipelined connection to one Redis (``settings``: redis-py's ``parse_url``)."""

    def __init__(self, settings: dict[str, Any], *, timeout: float = 5.0,
                 connect_timeout: float = 2.0) -> None:
        import hiredis  # the redis extra's C parser

        self._hiredis = hiredis
        self.settings = settings
        self.timeout = timeout
        self.connect_timeout = connect_timeout
        self._writer: asyncio.StreamWriter | None = None
        self._reader_task: asyncio.Task[None] | None = None
        self._waiting: collections.deque[asyncio.Future[Any]] = collections.deque()
        self._connecting = asyncio.Lock()

    @staticmethod
    def usable(settings: dict[str, Any]) -> bool:
        """Whether a URL's settings are plain TCP or a Unix socket (not TLS)."""
        kind = getattr(settings.get("connection_class"), "__name__", "")
        return kind in ("", "UnixDomainSocketConnection")

    async def _connect(self) -> asyncio.StreamWriter:
        async with self._connecting:
            if self._writer is not None:
                return self._writer
            settings = self.settings
            try:
                async with asyncio.timeout(self.connect_timeout):
                    if "path" in settings:
                        reader, writer = await asyncio.open_unix_connection(settings["path"])
                    else:
                        reader, writer = await asyncio.open_connection(
                            settings.get("host", "localhost"), settings.get("port", 6379))
                    hello: list[tuple[Any, ...]] = []
                    if settings.get("password") is not None:
                        hello.append(("AUTH", settings["username"], settings["password"])
                                     if settings.get("username") else
                                     ("AUTH", settings["password"]))
                    if settings.get("db"):
                        hello.append(("SELECT", settings["db"]))
                    parser = self._hiredis.Reader()
                    for command in hello:
                        writer.write(encode(command))
                        reply: Any = False
                        while reply is False:
                            data = await reader.read(4096)
                            if not data:
                                raise ConnectionLost("connection closed by Redis")
                            parser.feed(data)
                            reply = parser.gets()
                        if isinstance(reply, self._hiredis.ReplyError):
                            writer.close()
                            raise ConnectionLost(str(reply))
            except (OSError, TimeoutError) as exc:
                raise ConnectionLost(str(exc) or type(exc).__name__) from None
            self._writer = writer
            self._reader_task = asyncio.get_running_loop().create_task(
                self._read(reader, writer, parser))
            return writer

    async def _read(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                    parser: Any) -> None:
        error: BaseException = ConnectionLost("connection closed by Redis")
        try:
            while True:
                data = await reader.read(65536)
                if not data:
                    break
                parser.feed(data)
                while (reply := parser.gets()) is not False:
                    if not self._waiting:
                        error = ConnectionLost("a reply nobody asked for")
                        return
                    future = self._waiting.popleft()
                    if not future.done():
                        if isinstance(reply, self._hiredis.ReplyError):
                            future.set_exception(RespError(str(reply)))
                        else:
                            future.set_result(reply)
        except (OSError, self._hiredis.ProtocolError) as exc:
            error = ConnectionLost(str(exc))
        finally:
            self._fail(writer, error)

    def _fail(self, writer: asyncio.StreamWriter, error: BaseException) -> None:
        """The connection is unusable: every command waiting on it fails."""
        if self._writer is writer:
            self._writer = None
        writer.close()
        waiting, self._waiting = self._waiting, collections.deque()
        for future in waiting:
            if not future.done():
                future.set_exception(ConnectionLost(str(error)))

    async def call(self, *args: Any) -> Any:
        """Send one command and return its reply; RespError for Redis's error reply,
        ConnectionLost when the connection failed first (or the reply took too long)."""
        writer = self._writer or await self._connect()
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._waiting.append(future)
        writer.write(encode(args))
        timer = asyncio.get_running_loop().call_later(self.timeout, self._too_slow, writer,
                                                      future)
        try:
            return await future
        finally:
            timer.cancel()

    def _too_slow(self, writer: asyncio.StreamWriter, future: asyncio.Future[Any]) -> None:
        if not future.done():
            # Replies come in order: one that is late makes every later one late too.
            self._fail(writer, ConnectionLost(f"no reply from Redis in {self.timeout:g} s"))

    async def close(self) -> None:
        writer = self._writer
        if writer is not None:
            self._fail(writer, ConnectionLost("closed"))
        if self._reader_task is not None:
            self._reader_task.cancel()
            try:
                await self._reader_task
            except (asyncio.CancelledError, Exception):
                pass
