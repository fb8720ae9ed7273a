"""Helpers shared by the benchmark scripts: start servers as processes, percentiles."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GM, PLAYER = "bench-gm", "bench-player"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


class Process:
    """A server process on a loopback port, stopped with SIGTERM."""

    def __init__(self, args: list[str], ready: str, env: dict[str, str] | None = None) -> None:
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     text=True, cwd=ROOT,
                                     env={**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})})
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if re.search(ready, line):
                return
            if not line:
                break
        raise RuntimeError(f"{args[:4]} did not start")

    @property
    def pid(self) -> int:
        return self.proc.pid

    def rss_mib(self) -> float:
        with open(f"/proc/{self.pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
        return float("nan")

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self.proc.stdout.close()


def serve_args(port: int, *extra: str) -> list[str]:
    """``serve`` and its options for a benchmark: journal on a temporary file, no rate
    limit, default plugins only (what follows ``sidecar``)."""
    db = Path(tempfile.mkdtemp(prefix="sidecar-bench-")) / "bench.db"
    # (A Redis store in ``extra`` replaces the journal: serve takes one or the other.)
    where = [] if "--store" in extra else ["--db", str(db)]
    return ["serve", "--port", str(port), *where, "--gm-token", GM, "--player-token", PLAYER,
            "--rate-limit", "0", "--log-level", "warning", "--disable", "boss",
            # Fan-out measures up to 500 observers at one table, all from loopback.
            "--max-observers", "1000", "--max-connections-per-address", "0", *extra]


def sidecar_server(port: int, *extra: str) -> Process:
    """The real server, journal on a temporary file, no rate limit, default plugins only."""
    return Process([sys.executable, "-m", "sidecar.cli.main", *serve_args(port, *extra)],
                   ready=r"WebSocket ws://")


def raw_server(port: int, mode: str) -> Process:
    """The baseline: a bare websockets server (``echo`` or ``broadcast``)."""
    return Process([sys.executable, str(ROOT / "benchmarks" / "raw_server.py"), str(port),
                    mode], ready=r"ready")
