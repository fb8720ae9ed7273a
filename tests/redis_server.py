"""A real ``redis-server`` for tests: on a free loopback port, its files in a temporary
folder, stopped (or killed, or restarted on the same port with the same data) at will.

Debian's ``redis-server`` package is required: without it the tests that need Redis fail
(``.ci/run`` installs it), they are never skipped — a store that is not tested is not
known to work.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest

from tests.support.serve import ServeProcess, free_port


def redis_binary() -> str:
    """The ``redis-server`` program; fails the test (never skips) when it is missing."""
    found = shutil.which("redis-server") or (
        "/usr/bin/redis-server" if os.path.exists("/usr/bin/redis-server") else None)
    if found is None:
        pytest.fail("redis-server is not installed: `apt-get install redis-server` "
                    "(.ci/run does it); the Redis store's tests need a real server")
    return found


class RedisServer:
    """``with RedisServer(folder) as redis:`` — ``redis.url`` is the ``--store`` value.

    ``appendfsync``: Redis's AOF policy (``always``: every write on disk before the reply,
    what the tests of "nothing acknowledged is lost" across a Redis restart need)."""

    def __init__(self, folder: Path, *, appendfsync: str = "always", port: int | None = None,
                 maxmemory: str | None = None, unixsocket: Path | None = None) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.appendfsync = appendfsync
        self.port = port or free_port()
        #: A port of our choosing may be taken by another test (of another xdist worker)
        #: between free_port() and the bind: the first start then picks another one.
        self._may_move = port is None
        self.maxmemory = maxmemory
        #: Also listen on this Unix socket (``unix://`` stores).
        self.unixsocket = unixsocket
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, timeout: float = 20) -> RedisServer:
        """Start (or start again, same port and data) and wait until it answers PING."""
        args = [redis_binary(), "--port", str(self.port), "--bind", "127.0.0.1",
                "--dir", str(self.folder), "--appendonly", "yes",
                "--appendfsync", self.appendfsync, "--save", "",
                "--protected-mode", "yes", "--daemonize", "no", "--loglevel", "warning",
                "--logfile", str(self.folder / "redis.log")]
        if self.maxmemory:
            args += ["--maxmemory", self.maxmemory]
        if self.unixsocket is not None:
            args += ["--unixsocket", str(self.unixsocket), "--unixsocketperm", "700"]
        self.process = subprocess.Popen(args, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                log = (self.folder / "redis.log")
                text = log.read_text(errors="replace")[-2000:] if log.exists() else ""
                if self._may_move and "Address already in use" in text:
                    self.port = free_port()
                    self._may_move = False
                    return self.start(timeout)
                pytest.fail(f"redis-server exited with {self.process.returncode}: {text}")
            if self.ping():
                self._may_move = False  # restarts keep the port, as clients expect
                return self
            time.sleep(0.02)  # a process starting: nothing to wait on but its port
        pytest.fail(f"redis-server did not answer on port {self.port} in {timeout} s")

    def ping(self) -> bool:
        """Whether the server answers PING now (a raw RESP exchange, no client library)."""
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as sock:
                sock.sendall(b"*1\r\n$4\r\nPING\r\n")
                return sock.recv(64).startswith(b"+PONG")
        except OSError:
            return False

    def command(self, *args: str) -> bytes:
        """One command over raw RESP; the first reply's bytes (for tests that look inside)."""
        parts = [f"*{len(args)}\r\n".encode()]
        for arg in args:
            data = arg.encode()
            parts.append(b"$%d\r\n%s\r\n" % (len(data), data))
        with socket.create_connection(("127.0.0.1", self.port), timeout=5) as sock:
            sock.sendall(b"".join(parts))
            return sock.recv(1 << 20)

    def stop(self) -> None:
        """A clean stop (SIGTERM: Redis writes what it must and exits)."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(20)
        self.process = None

    def kill(self) -> None:
        """kill -9: what a crash of Redis looks like."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(20)
        self.process = None

    def restart(self) -> RedisServer:
        self.stop()
        return self.start()

    def __enter__(self) -> RedisServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


#: Clients of the Redis tests roll as fast as they can: the rate limit is not tested there.
SERVE_ARGS = ("--rate-limit", "100000", "--log-level", "warning")


class Sidecar(ServeProcess):
    """``sidecar serve --store URL`` on its own free port, clients rolling as fast as
    they can."""

    def __init__(self, store: str, *args: str) -> None:
        super().__init__("--store", store, *SERVE_ARGS, *args)


@pytest.fixture
def redis_server(tmp_path: Path):  # type: ignore[no-untyped-def]
    """A fresh real Redis for one test (AOF ``always``)."""
    with RedisServer(tmp_path / "redis") as server:
        yield server
