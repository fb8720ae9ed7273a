"""Capacity: many tables of players rolling now and then, as a community host sees them.

    .venv/bin/python benchmarks/capacity.py --tables 1000 --players 5 --interval 10 \\
        --ramp 20 --processes 2 --duration 60

``--tables`` × ``--players`` WebSocket connections (at most 10,000), each a player at its
table, join the real server (``sidecar serve`` on loopback, journal on a temporary file, no
rate limit) spread evenly over ``--ramp`` seconds, from ``--processes`` client processes.
Each player then rolls 5 dice of Bloodlust (public) every ``--interval`` seconds, jittered
by ±``--jitter`` of it, one roll in flight at a time; every member of its table receives
the outcome. After the ramp (and a settling second) the server's window opens for
``--duration`` seconds (at most 300), and one row is printed for it:

    rolls/s, p50, p99 (send → the roller's own outcome, rolls sent in the window),
    server CPU % (of one core, utime+stime over the window) and the client processes'
    (the load generator shares the machine's cores), RSS (and its peak),
    joins welcomed / refused (by code) / failed (no answer, closed, timed out),
    rolls lost (sent in the window, never answered).

The next lines give the server's CPU over the ramp a join, and what the server measured
inside itself in the window: each roll's time inside it (from the decoded request to the
outcome written to the roller's connection: the latency it adds, whatever the clients
cost), what its tables remember (the server-wide bound), how late a 10 ms sleep wakes
(event-loop lag), and its cyclic-GC collections by generation (count, total and longest).
``--clients node`` runs the clients as Node processes on bare sockets
(``capacity_clients.mjs``, about 40 % less CPU a roll than the Python ones; Node 20, nothing
to install); their hellos echo the welcome's ``catalogue`` unless ``--full-welcomes``.
``--profile PATH`` dumps a cProfile of the server's window. Settings
``serve`` has no flag for go through ``--server-config field=value,...`` (ServerConfig's
fields): ``max_tables`` is raised to the load's tables by default.

Loopback only; the server and the clients share this machine's cores: read the figures
as that (see benchmarks/README.md).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import random
import resource
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import msgpack
from websockets.asyncio.client import connect

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import PLAYER, ROOT, Process, free_port, percentile, serve_args  # noqa: E402

MAX_CONNECTIONS = 10_000
MAX_DURATION = 300.0
HELLO_TIMEOUT = 60.0
ROLL = {"type": "roll", "ruleset": "bloodlust", "params": {"pool": 5}, "mode": "public"}


# -- clients (each process runs its share of the connections) -------------------------------

class Share:
    """One client process's connections and what they measured."""

    def __init__(self, args: argparse.Namespace, url: str, start: float,
                 window: tuple[float, float], mine: list[int]) -> None:
        self.args, self.url, self.start, self.window, self.mine = args, url, start, window, mine
        self.latencies: list[float] = []
        self.rolls = 0
        self.lost = 0
        self.welcomed = 0
        self.refused: Counter[str] = Counter()
        self.failed: Counter[str] = Counter()

    async def player(self, k: int) -> None:
        args = self.args
        total = args.tables * args.players
        await asyncio.sleep(max(0.0, self.start + args.ramp * k / total - time.time()))
        table, seat = divmod(k, args.players)
        try:
            ws = await connect(self.url, compression=None, max_size=1 << 22, ping_interval=None,
                               open_timeout=HELLO_TIMEOUT, close_timeout=1)
        except Exception as exc:
            self.failed[f"connect: {type(exc).__name__}"] += 1
            return
        try:
            await ws.send(msgpack.packb({"type": "hello", "protocol": 1, "table": f"cap{table}",
                                         "name": f"p{seat}", "role": "player", "token": PLAYER}))
            try:
                first = msgpack.unpackb(await asyncio.wait_for(ws.recv(), HELLO_TIMEOUT))
            except Exception as exc:
                self.failed[f"hello: {type(exc).__name__}"] += 1
                return
            if first.get("type") != "welcome":
                self.refused[str(first.get("code"))] += 1
                return
            self.welcomed += 1
            await self.roll_loop(ws, k)
        finally:
            await ws.close()

    async def roll_loop(self, ws, k: int) -> None:  # type: ignore[no-untyped-def]
        args = self.args
        replies: dict[str, asyncio.Future] = {}

        async def read() -> None:
            async for frame in ws:
                message = msgpack.unpackb(frame)
                waiter = replies.pop(message.get("id"), None) if "id" in message else None
                if waiter is not None and not waiter.done():
                    waiter.set_result(message)

        reader = asyncio.get_running_loop().create_task(read())
        rng = random.Random(k)
        opened, closed = self.window
        next_at = time.time() + rng.uniform(0, args.interval)
        n = 0
        try:
            while True:
                await asyncio.sleep(max(0.0, next_at - time.time()))
                sent_wall = time.time()
                if sent_wall >= closed:
                    return
                n += 1
                rid = f"{k}-{n}"
                waiter = asyncio.get_running_loop().create_future()
                replies[rid] = waiter
                began = time.perf_counter()
                await ws.send(msgpack.packb({**ROLL, "id": rid}))
                try:
                    await asyncio.wait_for(waiter, max(1.0, closed + 10 - time.time()))
                except TimeoutError:
                    if opened <= sent_wall:
                        self.lost += 1
                    return
                if opened <= sent_wall:
                    self.latencies.append(time.perf_counter() - began)
                    self.rolls += 1
                next_at += args.interval * rng.uniform(1 - args.jitter, 1 + args.jitter)
                next_at = max(next_at, time.time())
        finally:
            reader.cancel()

    async def run(self) -> dict:
        players = asyncio.gather(*(self.player(k) for k in self.mine))
        # Bounded: whatever is still joining or closing when the window is long over is
        # abandoned (the row is printed all the same).
        try:
            await asyncio.wait_for(players, max(1.0, self.window[1] + 20 - time.time()))
        except TimeoutError:
            self.failed["still running after the window"] += 1
        return {"latencies": self.latencies, "rolls": self.rolls, "lost": self.lost,
                "welcomed": self.welcomed, "refused": dict(self.refused),
                "failed": dict(self.failed)}


def client_process(args: argparse.Namespace, url: str, start: float,
                   window: tuple[float, float], mine: list[int],
                   out: multiprocessing.Queue) -> None:
    _raise_fd_limit()
    if args.nice_clients:
        # Niced, the clients take what the server leaves of the shared cores (as if from
        # other machines), but on a busy machine their own waits then inflate the latency.
        os.nice(args.nice_clients)
    out.put(asyncio.run(Share(args, url, start, window, mine).run()))


def node_clients(args: argparse.Namespace, url: str, start: float,
                 window: tuple[float, float]) -> list[subprocess.Popen]:
    """The same load from ``--processes`` Node processes (``capacity_clients.mjs``)."""
    script = ROOT / "benchmarks" / "capacity_clients.mjs"
    procs = []
    for i in range(args.processes):
        settings = {"url": url, "token": PLAYER, "start": start, "opened": window[0],
                    "closed": window[1], "ramp": args.ramp, "interval": args.interval,
                    "jitter": args.jitter, "tables": args.tables, "players": args.players,
                    "mine": [i, args.processes], "catalogue": not args.full_welcomes}
        command = ["node", str(script), json.dumps(settings)]
        if args.nice_clients:
            command = ["nice", "-n", str(args.nice_clients), *command]
        procs.append(subprocess.Popen(command, stdout=subprocess.PIPE, text=True,
                                      preexec_fn=_raise_fd_limit))
    return procs


def _raise_fd_limit() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


# -- the server and the window ---------------------------------------------------------------

def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def peak_rss_mib(pid: int) -> float:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def start_server(args: argparse.Namespace, port: int, probe_out: str) -> Process:
    config = f"max_tables={max(1000, args.tables)}"
    if args.server_config:
        config += "," + args.server_config
    env = {"SIDECAR_PROBE_OUT": probe_out, "SIDECAR_PROBE_CONFIG": config}
    if args.profile:
        env["SIDECAR_PROBE_PROFILE"] = str(Path(args.profile).resolve())
    extra = ["--dice", args.dice] if args.dice else []
    return Process([sys.executable, str(ROOT / "benchmarks" / "_probe_serve.py"),
                    *serve_args(port, *extra, *args.serve)], ready=r"WebSocket ws://", env=env)


def run(args: argparse.Namespace) -> dict:
    _raise_fd_limit()
    port = free_port()
    probe_out = os.path.join(tempfile.mkdtemp(prefix="sidecar-capacity-"), "probe.json")
    server = start_server(args, port, probe_out)
    total = args.tables * args.players
    start = time.time() + 2.0  # the client processes' own start-up
    opened = start + args.ramp + 1.0
    window = (opened, opened + args.duration)
    url = f"ws://127.0.0.1:{port}/ws"
    out: multiprocessing.Queue = multiprocessing.Queue()
    workers: list = [] if args.clients == "node" else [multiprocessing.Process(
        target=client_process,
        args=(args, url, start, window, list(range(i, total, args.processes)), out))
        for i in range(args.processes)]
    ramp_cpu_at = cpu_seconds(server.pid)
    try:
        for worker in workers:
            worker.start()
        if args.clients == "node":
            workers = node_clients(args, url, start, window)
        time.sleep(max(0.0, opened - time.time()))
        os.kill(server.pid, signal.SIGUSR1)
        cpu_at, wall_at = cpu_seconds(server.pid), time.monotonic()
        ramp_cpu = cpu_at - ramp_cpu_at
        clients_at = sum(cpu_seconds(w.pid) for w in workers if w.pid)
        load_at = os.getloadavg()[0]
        time.sleep(max(0.0, window[1] - time.time()))
        wall = time.monotonic() - wall_at
        cpu = (cpu_seconds(server.pid) - cpu_at) / wall
        clients_cpu = (sum(cpu_seconds(w.pid) for w in workers if w.pid) - clients_at) / wall
        load = (load_at, os.getloadavg()[0])
        rss, peak = server.rss_mib(), peak_rss_mib(server.pid)
        os.kill(server.pid, signal.SIGUSR2)
        if args.clients == "node":
            results = [json.loads(w.communicate(timeout=120)[0].splitlines()[-1])
                       for w in workers]
        else:
            results = [out.get(timeout=120) for _ in workers]
            for worker in workers:
                worker.join(timeout=10)
        deadline = time.monotonic() + 10
        while not os.path.exists(probe_out) and time.monotonic() < deadline:
            time.sleep(0.1)
        probe = json.loads(Path(probe_out).read_text()) if os.path.exists(probe_out) else {}
    finally:
        for worker in workers:
            if (worker.poll() is None) if args.clients == "node" else worker.is_alive():
                worker.terminate()
        server.stop()
    scale = 1000.0 if args.clients == "node" else 1.0  # (node's latencies are in ms)
    latencies = [x / scale for r in results for x in r["latencies"]]
    refused: Counter[str] = Counter()
    failed: Counter[str] = Counter()
    for r in results:
        refused.update(r["refused"])
        failed.update(r["failed"])
    return {"connections": total, "rolls_per_s": sum(r["rolls"] for r in results) / args.duration,
            "p50_ms": percentile(latencies, 0.50) * 1000,
            "p99_ms": percentile(latencies, 0.99) * 1000,
            "cpu_percent": cpu * 100, "clients_cpu_percent": clients_cpu * 100,
            "load": load, "rss_mib": rss, "peak_rss_mib": peak, "ramp_cpu_s": ramp_cpu,
            "welcomed": sum(r["welcomed"] for r in results), "refused": dict(refused),
            "failed": dict(failed), "lost": sum(r["lost"] for r in results), "probe": probe}


def row(args: argparse.Namespace, r: dict) -> str:
    refused = sum(r["refused"].values())
    failed = sum(r["failed"].values())
    text = (f"{args.tables} tables × {args.players}, 1 roll/{args.interval:g} s: "
            f"{r['rolls_per_s']:.0f} rolls/s, p50 {r['p50_ms']:.1f} ms, p99 {r['p99_ms']:.1f} ms, "
            f"server CPU {r['cpu_percent']:.0f} % (clients {r['clients_cpu_percent']:.0f} %), "
            f"RSS {r['rss_mib']:.0f} MiB "
            f"(peak {r['peak_rss_mib']:.0f}), joins {r['welcomed']} welcomed / {refused} refused"
            f" / {failed} failed, {r['lost']} lost")
    if refused or failed:
        text += f"\n  refused {r['refused']}, failed {r['failed']}"
    text += (f"\n  ramp: server CPU {r['ramp_cpu_s']:.1f} s from the first join to the window "
             f"({1000 * r['ramp_cpu_s'] / max(1, r['welcomed']):.2f} ms a join welcomed, the "
             "rolls meanwhile included)")
    probe = r["probe"]
    if probe:
        lag, gcs, inside = probe["lag_ms"], probe["gc"], probe["roll_ms"]
        text += (f"\n  server: a roll inside it p50 {inside['p50']:.2f} ms, p99 "
                 f"{inside['p99']:.2f} ms, max {inside['max']:.0f} ms ({inside['count']} rolls); "
                 f"load average {r['load'][0]:.1f} → {r['load'][1]:.1f}")
        kept = probe.get("remembered")
        if kept:
            text += (f"\n  server: {kept['tables']} tables remember {kept['events']} events "
                     f"and {kept['ids']} ids alone, {kept['mib']:.1f} MiB as journaled "
                     f"(server-wide bound: {kept['trimmed']} events let go of, "
                     f"{kept['dropped']} ids dropped)")
        text += (f"\n  server: loop lag p50 {lag['p50']:.1f} ms, p99 {lag['p99']:.1f} ms, "
                 f"max {lag['max']:.0f} ms ({lag['over_50ms']} of {lag['samples']} over 50 ms); "
                 "\n  gc (wall/CPU ms): " + ", ".join(
                     f"gen{g} {d['count']}× {d['total_ms']:.0f}/{d['cpu_total_ms']:.0f} "
                     f"(max {d['max_ms']:.1f}/{d['cpu_max_ms']:.1f})" for g, d in gcs.items())
                 + f"; tracked {probe['tracked_objects']}, frozen {probe['gc_frozen']}, "
                 f"a full collection now {probe['full_collection_cpu_ms']:.0f} ms CPU, "
                 f"thresholds {tuple(probe['gc_threshold'])}"
                 f"\n  most tracked: {probe['tracked_types']}")
    return text


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=400)
    parser.add_argument("--players", type=int, default=5)
    parser.add_argument("--interval", type=float, default=10.0, help="seconds between rolls")
    parser.add_argument("--jitter", type=float, default=0.5, help="± fraction of the interval")
    parser.add_argument("--ramp", type=float, default=20.0, help="seconds over which all join")
    parser.add_argument("--processes", type=int, default=2, help="client processes")
    parser.add_argument("--duration", type=float, default=60.0, help="measured seconds")
    parser.add_argument("--clients", choices=("python", "node"), default="python",
                        help="the client processes: Python (websockets) or Node on bare "
                             "sockets (capacity_clients.mjs, a fraction of the CPU)")
    parser.add_argument("--full-welcomes", action="store_true",
                        help="node clients: never echo the welcome's catalogue (every join "
                             "sent the ruleset descriptions, about 33 KB, as for new clients)")
    parser.add_argument("--nice-clients", type=int, default=0, metavar="N",
                        help="run the client processes at nice N")
    parser.add_argument("--dice", choices=("secure", "provable"), default=None)
    parser.add_argument("--server-config", default="", metavar="FIELD=VALUE,...",
                        help="ServerConfig fields serve has no flag for")
    parser.add_argument("--profile", metavar="PATH", help="cProfile the server's window")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON too")
    parser.add_argument("serve", nargs="*", help="after --: more `sidecar serve` options")
    args = parser.parse_args(argv)
    if args.tables * args.players > MAX_CONNECTIONS:
        parser.error(f"at most {MAX_CONNECTIONS} connections")
    if args.duration + args.ramp > MAX_DURATION:
        parser.error(f"ramp + duration at most {MAX_DURATION:g} s")
    return args


def main(argv: list[str] | None = None) -> None:
    args = parse(argv)
    result = run(args)
    print(row(args, result))
    if args.json:
        print(json.dumps({k: v for k, v in result.items()}))


if __name__ == "__main__":
    main()
