"""``sidecar serve`` as a real process, and ``sidecar …`` commands: the one way the tests
start the server as a user does (the in-process ones are in :mod:`tests.helpers`)."""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO, Any

from tests.helpers import GM_TOKEN, PLAYER_TOKEN

ROOT = Path(__file__).resolve().parent.parent.parent
#: How ``sidecar`` is run: the installed command, or the module of this interpreter.
SIDECAR = [shutil.which("sidecar") or "", ] if shutil.which("sidecar") else \
    [sys.executable, "-m", "sidecar.cli.main"]


def sidecar(*args: str, timeout: float = 30, **kwargs: Any) -> subprocess.CompletedProcess:
    """``sidecar ARGS`` run to its end from the checkout (or ``cwd=``), its output captured
    as text."""
    kwargs.setdefault("cwd", ROOT)
    return subprocess.run([*SIDECAR, *args], capture_output=True, text=True, timeout=timeout,
                          **kwargs)


def seat_token(gm: list[str], name: str) -> str:
    """``sidecar seat add NAME`` with the GM's options ``gm``; the new seat's token."""
    added = sidecar("seat", "add", name, "--no-qr", *gm)
    assert added.returncode == 0, added.stderr
    found = re.search(r"#token=(\S+)", added.stdout)
    assert found, added.stdout
    return found.group(1)


def serve_fails(*args: str) -> subprocess.CompletedProcess[str]:
    """``sidecar serve ARGS`` expected to stop at once (a bad option, a store it cannot
    use): what it printed and its exit code."""
    return subprocess.run([*SIDECAR, "serve", "--port", "0", "--gm-token", GM_TOKEN,
                           "--player-token", PLAYER_TOKEN, *args], capture_output=True,
                          text=True, timeout=60, cwd=ROOT)


def free_port() -> int:
    """A TCP port nobody listens on at the moment (loopback)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


#: Options of the processes killed and restarted under clients rolling as fast as they
#: can (the chaos tests): no rate limit, only warnings printed.
CHAOS_ARGS = ("--rate-limit", "0", "--log-level", "warning")


def serve_on(port: int, db: Path, *extra: str) -> ServeProcess:
    """``sidecar serve`` on a fixed port and journal, where it is started again after each
    kill (its clients reconnect to the same URL)."""
    return ServeProcess("--port", str(port), "--db", str(db), *CHAOS_ARGS, *extra)


class ServeProcess:
    """``sidecar serve`` started at once on a free loopback port (``--port N`` among
    ``args`` picks one), returning when its banner is printed: ``url``, ``port`` and the
    banner's ``lines`` are known then. ``with ServeProcess(...) as server:`` kills it at
    the end if the test did not stop it.

    ``args``: serve's options (``--db :memory:`` when none are given; ``--dice secure``
    unless they say ``--dice provable``, the tests counting events from seq 1; ``dice=None``
    passes no ``--dice``: serve's own default). ``command``: how
    ``sidecar`` is run (another environment's Python, for the plugin kit's test).
    ``banner_end``: text of the banner line read last. ``tokens=False``: no
    ``--gm-token``/``--player-token`` (serve makes its own). ``log``: a file that gets the
    process's standard error (its size is what some tests measure); without it, what it
    writes is kept in ``errors``. Everything it writes after the banner is read all along
    (``output``): a process blocked on a full pipe would look like a bug of the server."""

    def __init__(self, *args: str, command: list[str] | None = None, cwd: Path = ROOT,
                 env: dict[str, str] | None = None, timeout: float = 30,
                 banner_end: str = "role=gm", log: Path | None = None,
                 tokens: bool = True, dice: str | None = "secure") -> None:
        env = {**(os.environ if env is None else env), "PYTHONUNBUFFERED": "1"}
        self.log = log
        self._log_file: IO[str] | None = log.open("w") if log is not None else None
        self.proc = subprocess.Popen(
            [*(command or SIDECAR), "serve", "--port", "0",
             *(("--gm-token", GM_TOKEN, "--player-token", PLAYER_TOKEN) if tokens else ()),
             # Pinned as tests.helpers.make_config pins it (a later --dice in args wins;
             # dice=None: serve's own default).
             *(("--dice", dice) if dice else ()),
             *(args or ("--db", ":memory:"))],
            stdout=subprocess.PIPE, stderr=self._log_file or subprocess.PIPE, text=True,
            cwd=cwd, env=env)
        #: The banner, as printed (one string a line, with its newline).
        self.lines: list[str] = []
        #: What it wrote after the banner, standard output and error, as it came.
        self.output: list[str] = []
        #: What it wrote on standard output after the banner (the QR code, say).
        self.later: list[str] = []
        #: What it wrote on standard error (unless ``log`` took it).
        self.errors: list[str] = []
        self.url = ""
        self.port = 0
        if not self._read_banner(banner_end, timeout):
            self.stop(signal.SIGKILL)
            raise RuntimeError("sidecar serve did not start: " + "".join(self.lines)
                               + "".join(self.errors) + self._log_tail())
        self.readers = [threading.Thread(target=self._drain, args=(self.proc.stdout, False),
                                         daemon=True)]
        if self._log_file is None:
            self.readers.append(threading.Thread(target=self._drain,
                                                 args=(self.proc.stderr, True), daemon=True))
        for reader in self.readers:
            reader.start()

    def _read_banner(self, end: str, timeout: float) -> bool:
        assert self.proc.stdout is not None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                if self.proc.stderr is not None and self._log_file is None:
                    self.errors.append(self.proc.stderr.read())
                return False
            self.lines.append(line)
            if not self.url and (found := re.search(r"WebSocket (wss?://\S+)", line)):
                self.url = found.group(1)
                self.port = int(self.url.rsplit(":", 1)[1].split("/")[0])
            if self.url and end in line:
                return True
        return False

    def _drain(self, pipe: IO[str], errors: bool) -> None:
        for line in pipe:
            self.output.append(line)
            (self.errors if errors else self.later).append(line)

    def _log_tail(self) -> str:
        if self._log_file is None or self.log is None:
            return ""
        self._log_file.flush()
        return self.log.read_text(errors="replace")[-2000:]

    def alive(self) -> bool:
        return self.proc.poll() is None

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 15) -> int:
        """Send ``sig`` (SIGTERM: a clean stop) and return the exit code."""
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            return self.proc.wait(timeout=timeout)
        finally:
            self._close()

    def _close(self) -> None:
        for reader in getattr(self, "readers", ()):
            reader.join(5)  # the pipes end with the process
        for pipe in (self.proc.stdout, self.proc.stderr, self._log_file):
            if pipe is not None and not pipe.closed:
                pipe.close()

    def stop_checked(self, sig: int = signal.SIGTERM) -> int:
        """:meth:`stop`, and whatever the signal (even SIGKILL, in the middle of rolls),
        the server printed no traceback before it."""
        code = self.stop(sig)
        assert "Traceback" not in "".join(self.errors), "".join(self.errors)
        return code

    def stop_within(self, seconds: float) -> int | None:
        """SIGTERM, then the exit code if the process ended within ``seconds``."""
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(seconds)
        except subprocess.TimeoutExpired:
            return None

    def kill(self) -> None:
        """kill -9: no goodbye to clients, to Redis, to anything."""
        self.proc.kill()
        self.proc.wait(15)

    def freeze(self) -> None:
        """SIGSTOP, returning once the process is stopped (it reads nothing more)."""
        self.proc.send_signal(signal.SIGSTOP)
        stat = Path(f"/proc/{self.proc.pid}/stat")
        while stat.read_text().rpartition(")")[2].split()[0] not in ("T", "t"):
            time.sleep(0.001)  # the kernel's word is the only state to wait on

    def rss_mib(self) -> float:
        """The process's resident memory now, in MiB."""
        with open(f"/proc/{self.proc.pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
        return 0.0

    def __enter__(self) -> ServeProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(15)
        self._close()


def luck_serve(folder: Path) -> ServeProcess:
    """A `sidecar serve` (journal in memory) with the `luck` test ruleset of
    tests/sheet_plugin.py copied into ``folder``, players' own dice allowed: the server the
    command-line tests of one module share."""
    shutil.copy(ROOT / "tests" / "sheet_plugin.py", folder / "luck_rules.py")
    return ServeProcess("--db", ":memory:", "--plugins-dir", str(folder), "--allow-player-dice")


def gm_options(server: ServeProcess, table: str, name: str = "Morgane") -> list[str]:
    """The options that join ``table`` of ``server`` as its GM ``name``."""
    return ["--url", server.url, "--table", table, "--token", GM_TOKEN, "--name", name,
            "--role", "gm"]
