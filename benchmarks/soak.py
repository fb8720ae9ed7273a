"""Soak: issue 14's client attacks, replayed for a while against 10 honest clients.

    .venv/bin/python benchmarks/soak.py [--seconds 150]

Starts ``sidecar serve`` (journal on a temporary file, default limits: 20 requests/s per
connection) and, in a separate attacker process so their work does not slow the honest
clients' measurements, loops for ``--seconds``:

- an observer that joins the honest table with ``resume: 0`` over a bare socket and never
  reads (it reconnects each time it is closed);
- five observers sending ``history`` ``limit: 500`` over and over, never reading;
- a player rolling with a 60 KB string in ``options`` and a 60 KB ``params`` string;
- a flood of malformed frames, ``plugins`` requests and unknown types, replies unread;
- a token guesser (one connection per guess) and an observer looping join/leave at the
  honest table;
- a GM at its own table setting off four third-party trap plugins the server loads: one
  calls ``sys.exit``, one holds the event loop, one spins the CPU in its thread, one
  returns an integer past 64 bits (each is disabled after five failures).

Meanwhile 10 honest clients (a GM and 9 players) roll at the honest table, one roll in
flight each, about 4 rolls/s each, and two honest observers watch it. Printed: the server's
peak RSS, the honest rolls' p50/p99 latency (send → own outcome), lost outcomes (a roll not
answered, or an outcome a watcher did not see, or saw out of order), the attackers'
closes, and how long the server takes to exit on SIGTERM with the attackers still there.
Targets: RSS < 150 MiB, p99 < 100 ms, 0 lost, SIGTERM → exit < 5 s.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import msgpack
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import GM, PLAYER, ROOT, Process, free_port, percentile  # noqa: E402

HONEST = "honnête"
RSS_TARGET_MIB = 150

#: Third-party plugins the soak's server loads (``--plugins-dir``); each misbehaves on rolls
#: with its label: ends the process, holds the event loop, spins the CPU in its thread,
#: returns an integer no client can read (issue 14, items 1, 7, 8).
TRAPS = {"exit": "sortie", "gel": "gel", "spin": "toupie", "huge": "enorme"}
TRAP_PLUGINS = {
    "sortie": """
import sys
from sidecar import hookimpl

@hookimpl
def sidecar_modify_outcome(roll, outcome):
    if roll.label == "exit":
        sys.exit("a plugin must not end the server")
""",
    "gel": """
import time
from sidecar import hookimpl

@hookimpl
async def sidecar_modify_roll(roll):
    if roll.label == "gel":
        time.sleep(0.5)  # holds the event loop
""",
    "toupie": """
import time
from sidecar import hookimpl

@hookimpl
def sidecar_modify_outcome(roll, outcome):
    if roll.label == "spin":
        end = time.monotonic() + 2
        while time.monotonic() < end:
            pass
""",
    "enorme": """
from sidecar import hookimpl

@hookimpl
def sidecar_modify_outcome(roll, outcome):
    if roll.label == "huge":
        outcome.result["x"] = 2 ** 70
""",
}


# -- attackers (run in their own process: ``soak.py --attack PORT SECONDS``) ---------------

def frame(payload: bytes) -> bytes:
    mask = os.urandom(4)
    body = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    n = len(payload)
    head = bytes([0x82, 0x80 | n]) if n < 126 else (
        bytes([0x82, 0x80 | 126]) + n.to_bytes(2, "big") if n < 65536
        else bytes([0x82, 0x80 | 127]) + n.to_bytes(8, "big"))
    return head + mask + body


def bare(port: int, hello: dict | None) -> socket.socket:
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.settimeout(5)
    sock.connect(("127.0.0.1", port))
    sock.sendall((f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                  "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                  "Sec-WebSocket-Version: 13\r\n\r\n").encode())
    response = b""
    while b"\r\n\r\n" not in response:
        chunk = sock.recv(1)
        if not chunk:
            raise ConnectionError("closed during the handshake")
        response += chunk
    if hello is not None:
        sock.sendall(frame(msgpack.packb(hello)))
    return sock


def is_closed(sock: socket.socket) -> bool:
    """Whether the server closed it (peeks without reading what is queued)."""
    try:
        sock.setblocking(False)
        try:
            return sock.recv(1, socket.MSG_PEEK) == b""
        except BlockingIOError:
            return False
        finally:
            sock.setblocking(True)
    except OSError:
        return True


class Counter:
    def __init__(self) -> None:
        self.counts: dict[str, int] = {}
        self.lock = threading.Lock()

    def add(self, key: str, n: int = 1) -> None:
        with self.lock:
            self.counts[key] = self.counts.get(key, 0) + n


async def reply_to(ws, rid: object) -> dict:
    while True:
        reply = msgpack.unpackb(await ws.recv())
        if reply.get("id") == rid:
            return reply


def attack(port: int, seconds: float) -> None:
    # On this shared machine the attackers' own CPU would be taken from the server: they
    # run niced, as if from other machines (the server's cost of serving them remains).
    os.nice(10)
    stop = time.monotonic() + seconds
    counter = Counter()
    open_at_end: list[socket.socket] = []

    def sleepers_resume() -> None:
        while time.monotonic() < stop:
            try:
                sock = bare(port, {"type": "hello", "protocol": 1, "table": HONEST,
                                   "name": "Dormeur", "role": "observer", "resume": 0})
            except OSError:
                counter.add("connect failed")
                time.sleep(0.5)
                continue
            counter.add("resume sleeper joined")
            while time.monotonic() < stop and not is_closed(sock):
                time.sleep(0.2)
            if time.monotonic() < stop:
                counter.add("resume sleeper closed by server")
                sock.close()
            else:
                open_at_end.append(sock)

    def history_readers(index: int) -> None:
        while time.monotonic() < stop:
            try:
                sock = bare(port, {"type": "hello", "protocol": 1, "table": "archives",
                                   "name": f"Lecteur{index}", "role": "observer"})
            except OSError:
                time.sleep(0.5)
                continue
            try:
                while time.monotonic() < stop:
                    sock.sendall(frame(msgpack.packb({"type": "history", "limit": 500})))
                    counter.add("history requests")
                    time.sleep(0.05)
                    if is_closed(sock):
                        counter.add("history reader closed by server")
                        break
            except OSError:
                counter.add("history reader closed by server")
            if time.monotonic() >= stop:
                open_at_end.append(sock)
            else:
                sock.close()

    async def async_attacks() -> None:
        url = f"ws://127.0.0.1:{port}/ws"
        huge = "z" * 60_000

        async def amplifier() -> None:
            async with connect(url, compression=None, max_size=None) as ws:
                await ws.send(msgpack.packb({"type": "hello", "protocol": 1, "table": "ampli",
                                             "name": "Ampli", "role": "gm", "token": GM}))
                await ws.recv()
                n = 0
                while time.monotonic() < stop:
                    n += 1
                    big = ({"options": {"combat": {"zone": huge}}} if n % 2 else
                           {"params": {"pool": 3, "zone": huge}})
                    await ws.send(msgpack.packb({"type": "roll", "ruleset": "bloodlust",
                                                 "id": n, **big}))
                    reply = await reply_to(ws, n)
                    counter.add(f"amplifier {reply.get('code', reply['type'])}")
                    await asyncio.sleep(0.05)

        async def archive_table() -> None:
            async with connect(url, compression=None, max_size=None) as ws:
                await ws.send(msgpack.packb({"type": "hello", "protocol": 1,
                                             "table": "archives", "name": "Archiviste",
                                             "role": "gm", "token": GM}))
                await ws.recv()
                # something for the history readers to ask for (at the rate limit)
                for n in range(300):
                    if time.monotonic() >= stop:
                        break
                    await ws.send(msgpack.packb({"type": "roll", "ruleset": "bloodlust",
                                                 "params": {"pool": 50}, "id": n,
                                                 "label": "l" * 200}))
                    reply = await reply_to(ws, n)
                    if reply.get("code") == "rate_limited":
                        await asyncio.sleep(reply["details"]["retry_after"])

        async def flood() -> None:
            while time.monotonic() < stop:
                try:
                    async with connect(url, compression=None, max_size=None) as ws:
                        await ws.send(msgpack.packb({"type": "hello", "protocol": 1,
                                                     "table": "déluge", "name": "Déluge",
                                                     "role": "observer"}))
                        await ws.recv()
                        while time.monotonic() < stop:
                            for _ in range(50):
                                await ws.send(b"\xc1\xff\x00garbage")
                                await ws.send(msgpack.packb({"type": "plugins"}))
                                await ws.send(msgpack.packb({"type": "n'importe"}))
                            counter.add("flood frames", 150)
                            await asyncio.sleep(0.01)
                except (ConnectionClosed, OSError):
                    counter.add("flood closed by server")

        async def guesser() -> None:
            while time.monotonic() < stop:
                try:
                    async with connect(url, compression=None) as ws:
                        await ws.send(msgpack.packb({"type": "hello", "protocol": 1,
                                                     "table": HONEST, "name": "Intrus",
                                                     "role": "gm", "token": "devine"}))
                        reply = msgpack.unpackb(await ws.recv())
                        counter.add(f"guess {reply.get('code')}")
                except (ConnectionClosed, OSError):
                    pass
                await asyncio.sleep(0.02)

        async def join_leave() -> None:
            while time.monotonic() < stop:
                try:
                    async with connect(url, compression=None, max_size=None) as ws:
                        await ws.send(msgpack.packb({"type": "hello", "protocol": 1,
                                                     "table": HONEST, "name": "Tempête",
                                                     "role": "observer"}))
                        await ws.recv()
                        counter.add("join/leave")
                except (ConnectionClosed, OSError):
                    pass
                await asyncio.sleep(0.1)

        async def plugin_traps() -> None:
            # Items 1, 7, 8: rolls whose labels set off the trap plugins the soak loads.
            async with connect(url, compression=None, max_size=None) as ws:
                await ws.send(msgpack.packb({"type": "hello", "protocol": 1, "table": "piège",
                                             "name": "Piégeur", "role": "gm", "token": GM}))
                await ws.recv()
                n = 0
                while time.monotonic() < stop:
                    for label in TRAPS:
                        n += 1
                        await ws.send(msgpack.packb({"type": "roll", "ruleset": "bloodlust",
                                                     "params": {"pool": 3}, "id": n,
                                                     "label": label}))
                        reply = await reply_to(ws, n)
                        counter.add(f"trap {label} {reply.get('code', reply['type'])}")
                    await asyncio.sleep(0.5)

        chosen = [amplifier(), archive_table(), flood(), guesser(), join_leave(),
                  plugin_traps()]
        names = ["amplifier", "archive", "flood", "guesser", "join_leave", "plugins"]
        await asyncio.gather(*(coro for name, coro in zip(names, chosen, strict=True)
                               if wanted(name)) or [asyncio.sleep(0)])
        for name, coro in zip(names, chosen, strict=True):
            if not wanted(name):
                coro.close()

    def wanted(name: str) -> bool:
        only = os.environ.get("SOAK_ONLY")  # e.g. SOAK_ONLY=flood,history to bisect
        return not only or name in only.split(",")

    threads = [threading.Thread(target=sleepers_resume, daemon=True)] \
        if wanted("resume") else []
    threads += [threading.Thread(target=history_readers, args=(i,), daemon=True)
                for i in range(5) if wanted("history")]
    for thread in threads:
        thread.start()
    asyncio.run(async_attacks())
    for thread in threads:
        thread.join(10)
    print(json.dumps({"counts": counter.counts, "open_at_end": len(open_at_end)}), flush=True)
    # keep the last sleepers connected, unread, until the soak has measured the SIGTERM
    sys.stdin.readline()


# -- honest clients -------------------------------------------------------------------------

async def honest_client(url: str, index: int, stop_at: float, latencies: list[float],
                        sent: list[str], answered: set[str]) -> None:
    role = "gm" if index == 0 else "player"
    async with connect(url, compression=None, max_size=None) as ws:
        await ws.send(msgpack.packb({"type": "hello", "protocol": 1, "table": HONEST,
                                     "name": f"H{index}", "role": role,
                                     "token": GM if index == 0 else PLAYER}))
        while msgpack.unpackb(await ws.recv())["type"] != "welcome":
            pass
        number = 0
        while time.monotonic() < stop_at:
            rid = f"h{index}-{number}"
            number += 1
            sent.append(rid)
            started = time.perf_counter()
            await ws.send(msgpack.packb({"type": "roll", "id": rid, "ruleset": "bloodlust",
                                         "params": {"pool": 5}}))
            while True:
                message = msgpack.unpackb(await asyncio.wait_for(ws.recv(), 30))
                if message.get("id") == rid:
                    break
            if message["type"] == "outcome":
                latencies.append(time.perf_counter() - started)
                answered.add(rid)
            await asyncio.sleep(0.25)


async def watcher(url: str, name: str, done: asyncio.Event, seen: list[int],
                  joined: asyncio.Event) -> None:
    async with connect(url, compression=None, max_size=None) as ws:
        # With the player token: the first watcher opens the honest table (observers
        # without a token may only watch a table that exists).
        await ws.send(msgpack.packb({"type": "hello", "protocol": 1, "table": HONEST,
                                     "name": name, "role": "observer", "token": PLAYER}))
        welcome = msgpack.unpackb(await asyncio.wait_for(ws.recv(), 10))
        assert welcome["type"] == "welcome", welcome
        joined.set()
        while not done.is_set():
            try:
                message = msgpack.unpackb(await asyncio.wait_for(ws.recv(), 0.5))
            except TimeoutError:
                continue
            if message["type"] == "outcome":
                seen.append(message["seq"])


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class RssSampler(threading.Thread):
    def __init__(self, server: Process) -> None:
        super().__init__(daemon=True)
        self.server = server
        self.peak = server.rss_mib()
        self.start_rss = self.peak
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.wait(0.1):
            try:
                self.peak = max(self.peak, self.server.rss_mib())
            except OSError:
                return


async def soak(seconds: float, attacks: bool = True) -> int:
    port = free_port()
    db = Path(tempfile.mkdtemp(prefix="sidecar-soak-")) / "soak.db"
    traps = db.parent / "plugins"
    traps.mkdir()
    for name, source in TRAP_PLUGINS.items():
        (traps / f"{name}.py").write_text(source)
    server = Process([sys.executable, "-m", "sidecar.cli.main", "serve", "--port", str(port),
                      "--db", str(db), "--gm-token", GM, "--player-token", PLAYER,
                      "--log-level", "warning", "--plugins-dir", str(traps)],
                     ready=r"WebSocket ws://")
    url = f"ws://127.0.0.1:{port}/ws"
    sampler = RssSampler(server)
    sampler.start()
    done = asyncio.Event()
    seen: list[list[int]] = [[], []]
    joined = [asyncio.Event(), asyncio.Event()]
    watchers = [asyncio.create_task(watcher(url, f"W{i}", done, seen[i], joined[i]))
                for i in range(2)]
    for event in joined:  # the honest table is open before any attacker comes
        await asyncio.wait_for(event.wait(), 10)
    attacker = subprocess.Popen([sys.executable, __file__, "--attack", str(port),
                                 str(seconds if attacks else 0)], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, text=True, cwd=ROOT)
    cpu_before, wall_before = cpu_seconds(server.pid), time.monotonic()
    latencies: list[float] = []
    sent: list[str] = []
    answered: set[str] = set()
    stop_at = time.monotonic() + seconds
    await asyncio.gather(*(honest_client(url, i, stop_at, latencies, sent, answered)
                           for i in range(10)))
    await asyncio.sleep(1.0)  # the last outcomes reach the watchers
    done.set()
    await asyncio.gather(*watchers)
    cpu = (cpu_seconds(server.pid) - cpu_before) / (time.monotonic() - wall_before)
    report = json.loads(await asyncio.to_thread(attacker.stdout.readline) or "{}")
    started = time.monotonic()
    server.proc.send_signal(15)
    try:
        server.proc.wait(30)
        stop_seconds = time.monotonic() - started
    except subprocess.TimeoutExpired:
        stop_seconds = float("inf")
        server.proc.kill()
    sampler.done.set()
    attacker.stdin.close()
    attacker.wait(10)
    # Only the honest clients roll at the honest table, on a fresh journal: every watcher
    # must have seen exactly seq 1..N, N the honest rolls answered.
    lost = len(sent) - len(answered)
    for stream in seen:
        if stream != list(range(1, len(answered) + 1)):
            lost += max(1, len(answered) - len(stream))
    print(f"soak {seconds:.0f} s, 10 honest clients, "
          + ("attacks from a separate process" if attacks else "no attacks (baseline)"))
    print(f"  server RSS: start {sampler.start_rss:.0f} MiB, peak {sampler.peak:.0f} MiB "
          f"(target < {RSS_TARGET_MIB}); server CPU {cpu * 100:.0f} % of a core")
    print(f"  honest rolls: {len(sent)} sent, {len(answered)} answered; latency p50 "
          f"{percentile(latencies, 0.5) * 1000:.1f} ms, p99 "
          f"{percentile(latencies, 0.99) * 1000:.1f} ms, max {max(latencies) * 1000:.1f} ms "
          f"(target p99 < 100)")
    print(f"  watchers saw {[len(s) for s in seen]} outcomes in seq order: lost {lost} "
          f"(target 0)")
    print(f"  SIGTERM → exit: {stop_seconds:.2f} s, rc {server.proc.returncode} "
          f"(target < 5), with {report.get('open_at_end', '?')} unread attackers connected")
    print("  attackers:", json.dumps(report.get("counts", {}), ensure_ascii=False))
    ok = (sampler.peak < RSS_TARGET_MIB and lost == 0 and stop_seconds < 5
          and percentile(latencies, 0.99) < 0.1)
    return 0 if ok else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=150.0)
    parser.add_argument("--no-attacks", action="store_true",
                        help="honest clients only: the machine's baseline")
    parser.add_argument("--attack", nargs=2, metavar=("PORT", "SECONDS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.attack:
        attack(int(args.attack[0]), float(args.attack[1]))
        return 0
    return asyncio.run(soak(args.seconds, not args.no_attacks))


if __name__ == "__main__":
    sys.exit(main())
