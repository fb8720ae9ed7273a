"""Many ``sidecar serve`` processes on one Redis (issue 18): throughput, CPU per roll,
cross-process fan-out, the store's own cost and its bytes per event.

    .venv/bin/python benchmarks/redis_scaling.py              # about three minutes
    .venv/bin/python benchmarks/redis_scaling.py --seconds 2  # shorter windows
    .venv/bin/python benchmarks/redis_scaling.py --only throughput,fanout,store,memory

Needs the ``redis`` extra and Debian's ``redis-server`` (the test extra's helper
``tests/redis_server.py`` starts it: a free loopback port, its files in a temporary folder,
AOF on, ``appendfsync everysec`` unless the line says ``always``).

1. **Throughput and latency.** 1, 2 and 3 real ``sidecar serve --store redis://…``
   processes on one Redis, against one ``sidecar serve --db`` (SQLite journal, temporary
   folder). ``CLIENTS`` GM clients spread round-robin over the processes, each keeping
   ``DEPTH`` rolls in flight (bloodlust, 5 dice, mode ``self``: the outcome goes to the
   roller only, so the figure is the store's and not the fan-out's); either all at one
   table ("1 table") or each at its own ("N tables"). Warm-up, then a ``--seconds``
   window: rolls answered in it per second, p50/p99 of send → outcome.
2. **CPU per roll** in the same window, from ``/proc/<pid>/stat`` (user + system, every
   thread): the sidecar processes together, Redis, and this load generator. Redis's
   ``INFO commandstats`` over the window gives the scripts run per roll (more than 1: a
   process lost the compare-and-set to another and built the event again) and the reads
   of other processes' events (``XRANGE``) per roll.
3. **Fan-out across processes.** Two processes on one Redis; a GM on process A rolls in
   public; one observer on A and one on B: time from the send to each one's outcome,
   the same rolls (``FANOUT_ROUNDS`` of them, one at a time). The SQLite server's
   single-process figure beside it.
4. **The store in process.** No socket: the table core, the pipeline and the store, as
   ``characters.py`` times a roll. ``store.append`` alone and the whole roll (begin,
   pipeline, number, append, commit), SQLite journal against ``RedisStore`` (everysec):
   wall time (median of batches) and this process's CPU (best batch).
5. **Bytes per event in Redis.** A fresh Redis: ``MEMORY_EVENTS`` plain rolls at one
   table, the same as a character (d6code, a style point spent: the character's record
   rewritten by each event) at another; ``INFO memory`` ``used_memory`` before and after,
   and ``MEMORY USAGE … SAMPLES 0`` of each key, divided by ``XLEN``.

The load generator is this process (asyncio, websockets' client, ``DEPTH`` requests in
flight per connection): its CPU per roll is printed so it can be taken out when reading
the 2-core figures.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import msgpack
import redis as redis_sync
from websockets.asyncio.client import connect

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
from _common import GM, Process, free_port, percentile, sidecar_server  # noqa: E402

from tests.redis_server import RedisServer  # noqa: E402

try:
    import hiredis  # noqa: F401  (redis-py uses it for parsing when it is installed)
    HIREDIS = True
except ImportError:
    HIREDIS = False

CLIENTS = 12
DEPTH = 2
TABLES = 12
ROLL = {"type": "roll", "ruleset": "bloodlust", "params": {"pool": 5}, "mode": "self"}
WARMUP = 1.0
FANOUT_ROUNDS = 300
MEMORY_EVENTS = 2000
TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int | str) -> float:
    """User + system CPU of a whole process (all its threads), in seconds."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def redis_server(folder: Path, appendfsync: str) -> RedisServer:
    return RedisServer(folder, appendfsync=appendfsync).start()


def commandstats(client: Any) -> dict[str, int]:
    stats = client.info("commandstats")
    return {name.removeprefix("cmdstat_"): int(value["calls"]) for name, value in stats.items()}


# -- load --------------------------------------------------------------------------------

class Client:
    """One GM connection keeping ``depth`` rolls in flight; outcomes matched by id."""

    def __init__(self, index: int, url: str, table: str) -> None:
        self.index, self.url, self.table = index, url, table
        self.waiting: dict[str, tuple[float, asyncio.Future[float]]] = {}
        self.ws: Any = None
        self.counter = itertools.count()
        self.errors: dict[str, int] = {}

    async def open(self) -> None:
        self.ws = await connect(self.url, compression=None, max_size=1 << 22,
                                ping_interval=None, max_queue=None)
        await self.ws.send(msgpack.packb({"type": "hello", "protocol": 1,
                                          "table": self.table, "name": f"c{self.index}",
                                          "role": "gm", "token": GM}))
        welcome = msgpack.unpackb(await self.ws.recv())
        assert welcome["type"] == "welcome", welcome
        self.reader = asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        unpack = msgpack.unpackb
        async for frame in self.ws:
            message = unpack(frame)
            if message.get("type") == "presence":
                continue
            found = self.waiting.pop(message.get("id"), None)
            if found is not None:
                if message.get("type") != "outcome":
                    # Counted, not fatal: "too busy on other servers" is a finding here.
                    self.errors[message.get("code", "?")] = \
                        self.errors.get(message.get("code", "?"), 0) + 1
                    found[1].set_result(None)
                else:
                    found[1].set_result(time.perf_counter() - found[0])

    async def roll(self) -> tuple[float, float | None]:
        """One roll: (time answered, latency; None for an error answer)."""
        rid = f"{self.index}-{next(self.counter)}"
        future = asyncio.get_running_loop().create_future()
        self.waiting[rid] = (time.perf_counter(), future)
        await self.ws.send(msgpack.packb({**ROLL, "id": rid}))
        latency = await future
        return time.perf_counter(), latency

    async def close(self) -> None:
        await self.ws.close()
        self.reader.cancel()


async def load(urls: list[str], one_table: bool, seconds: float,
               pids: list[int], redis_pid: int | None, rclient: Any,
               count: int = CLIENTS, rate: float | None = None) -> dict[str, Any]:
    clients = [Client(i, urls[i % len(urls)], "bench" if one_table else f"bench{i % TABLES}")
               for i in range(count)]
    for client in clients:
        await client.open()
    window: dict[str, float] = {}
    latencies: list[float] = []
    answered = refused = 0
    stop = time.perf_counter() + WARMUP + seconds

    # ``rate``: rolls/s offered in all (paced, an open loop), instead of as fast as the
    # servers answer.
    gap = None if rate is None else count * DEPTH / rate

    async def worker(client: Client) -> None:
        nonlocal answered, refused
        due = time.perf_counter()
        while time.perf_counter() < stop:
            if gap is not None:
                due += gap
                await asyncio.sleep(max(0.0, due - time.perf_counter()))
            done, latency = await client.roll()
            if window.get("start", float("inf")) <= done <= window.get("end", float("inf")):
                if latency is None:
                    refused += 1
                else:
                    answered += 1
                    latencies.append(latency)

    async def clock() -> None:
        await asyncio.sleep(WARMUP)
        window["cpu0"] = sum(cpu_seconds(pid) for pid in pids)
        window["redis0"] = cpu_seconds(redis_pid) if redis_pid else 0.0
        window["self0"] = cpu_seconds("self")
        if rclient is not None:
            window["stats0"] = commandstats(rclient)  # type: ignore[assignment]
        window["start"] = time.perf_counter()
        await asyncio.sleep(seconds)
        window["end"] = time.perf_counter()
        window["cpu1"] = sum(cpu_seconds(pid) for pid in pids)
        window["redis1"] = cpu_seconds(redis_pid) if redis_pid else 0.0
        window["self1"] = cpu_seconds("self")
        if rclient is not None:
            window["stats1"] = commandstats(rclient)  # type: ignore[assignment]

    await asyncio.gather(clock(), *(worker(c) for c in clients for _ in range(DEPTH)))
    for client in clients:
        await client.close()
    elapsed = window["end"] - window["start"]
    row: dict[str, Any] = {
        "rolls/s": answered / elapsed,
        "p50": percentile(latencies, 0.5) * 1000, "p99": percentile(latencies, 0.99) * 1000,
        "server µs": (window["cpu1"] - window["cpu0"]) / answered * 1e6,
        "redis µs": (window["redis1"] - window["redis0"]) / answered * 1e6,
        "loadgen µs": (window["self1"] - window["self0"]) / answered * 1e6,
        "server cores": (window["cpu1"] - window["cpu0"]) / elapsed,
        "refused": refused,
        "errors": {code: n for c in clients for code, n in c.errors.items()},
    }
    if rclient is not None:
        before, after = window["stats0"], window["stats1"]  # type: ignore[index]

        def delta(name: str) -> int:
            return after.get(name, 0) - before.get(name, 0)  # type: ignore[union-attr]
        row["scripts/roll"] = (delta("evalsha") + delta("eval")) / answered
        row["xrange/roll"] = delta("xrange") / answered
        row["hget/roll"] = delta("hget") / answered
        row["publish/roll"] = delta("publish") / answered
    return row


def throughput_row(store: str, processes: int, one_table: bool, seconds: float,
                   folder: Path, start: Any = sidecar_server,
                   clients: int = CLIENTS, rate: float | None = None) -> dict[str, Any]:
    redis = rclient = None
    servers: list[Process] = []
    try:
        extra: tuple[str, ...] = ()
        if store != "sqlite":
            # A fresh Redis each run (a folder of its own): a Redis started again on an
            # earlier run's AOF would hold its tables, and the request ids made again.
            redis = redis_server(folder / f"redis-{store}-{processes}-{one_table}-"
                                          f"{os.urandom(3).hex()}", store)
            rclient = redis_sync.Redis(port=redis.port)
            extra = ("--store", redis.url)
        ports = [free_port() for _ in range(processes)]
        servers = [start(port, *extra) for port in ports]
        urls = [f"ws://127.0.0.1:{port}/ws" for port in ports]
        row = asyncio.run(load(urls, one_table, seconds, [s.pid for s in servers],
                               redis.process.pid if redis else None, rclient, clients,
                               rate))
    finally:
        for server in servers:
            server.stop()
        if rclient is not None:
            rclient.close()
        if redis is not None:
            redis.stop()
    row.update(store="SQLite journal" if store == "sqlite" else f"Redis {store}",
               processes=processes, tables="1 table" if one_table else f"{TABLES} tables")
    return row


def throughput(seconds: float, folder: Path) -> list[dict[str, Any]]:
    plan = [("sqlite", 1, True), ("sqlite", 1, False)]
    for store in ("everysec", "always"):
        for one_table in (True, False):
            plan += [(store, n, one_table) for n in (1, 2, 3)]
    print(f"{'store':<16} {'proc':>4} {'tables':<10} {'rolls/s':>8} {'p50 ms':>7} "
          f"{'p99 ms':>7} {'srv µs':>7} {'cores':>5} {'redis µs':>8} {'gen µs':>7} "
          f"{'scripts':>7} {'xrange':>6} {'hget':>5} {'refused':>7}  (µs: CPU per roll)")
    rows = []
    for store, processes, one_table in plan:
        r = throughput_row(store, processes, one_table, seconds, folder)
        rows.append(r)
        extra = (f"{r['scripts/roll']:>7.2f} {r['xrange/roll']:>6.2f} {r['hget/roll']:>5.2f}"
                 if "scripts/roll" in r else f"{'':>7} {'':>6} {'':>5}")
        if r["refused"]:
            extra += f" {r['refused']:>7} ({', '.join(r['errors'])})"
        print(f"{r['store']:<16} {r['processes']:>4} {r['tables']:<10} {r['rolls/s']:>8.0f} "
              f"{r['p50']:>7.2f} {r['p99']:>7.2f} {r['server µs']:>7.0f} "
              f"{r['server cores']:>5.2f} {r['redis µs']:>8.0f} {r['loadgen µs']:>7.0f} "
              f"{extra}", flush=True)
    equal_load(seconds, folder)
    return rows


#: Rolls/s offered to each process in :func:`equal_load` (well under what one core does,
#: so three processes, Redis and the load generator fit on 2 cores).
PACED = 700


def equal_load(seconds: float, folder: Path) -> None:
    """CPU per roll as processes are added, each process offered the same paced load
    (:data:`PACED` rolls/s, 4 clients each, 12 tables): the saturated rows above mix the
    cost of adding processes with the batching a lone saturated process gets (more work
    per wake-up) that processes sharing 2 cores do not."""
    print(f"\nequal paced load per process ({PACED} rolls/s each, 4 clients each, "
          f"{TABLES} tables):")
    # SQLite with 2 and 3 processes: separate servers, each its own journal and tables,
    # sharing nothing but the machine — what the machine alone adds per roll.
    for store in ("sqlite", "everysec"):
        for processes in (1, 2, 3):
            r = throughput_row(store, processes, False, seconds, folder,
                               clients=4 * processes, rate=PACED * processes)
            print(f"  {r['store']:<16} {processes} process(es): {r['rolls/s']:>6.0f} "
                  f"rolls/s, server CPU {r['server µs']:>4.0f} µs/roll "
                  f"({r['server cores'] / processes:.2f} cores each), Redis "
                  f"{r['redis µs']:>3.0f} µs/roll, p50 {r['p50']:.2f} ms, p99 "
                  f"{r['p99']:.2f} ms", flush=True)


def notice_cost(folder: Path, notices: int = 20000) -> None:
    """What one more process costs per roll elsewhere: an idle ``sidecar serve --store``
    (no member) hears every table's notices; its CPU per notice of a table it does not
    serve, for ``notices`` PUBLISHes sent in pipelines of 500."""
    redis = redis_server(folder / "redis-notices", "everysec")
    rclient = redis_sync.Redis(port=redis.port)
    server = sidecar_server(free_port(), "--store", redis.url)
    try:
        time.sleep(0.5)
        before = cpu_seconds(server.pid)
        for start in range(0, notices, 500):
            pipe = rclient.pipeline(transaction=False)
            for seq in range(start, start + 500):
                pipe.publish(f"sidecar:{{other{seq % 40}}}:notify", seq)
            pipe.execute()
        # Until the server has read them all: its CPU stops moving (a state, not a guess).
        last, deadline = cpu_seconds(server.pid), time.monotonic() + 60
        while time.monotonic() < deadline:
            time.sleep(0.3)
            now = cpu_seconds(server.pid)
            if now - last < 0.02:
                break
            last = now
        spent = cpu_seconds(server.pid) - before
    finally:
        server.stop()
        rclient.close()
        redis.stop()
    print(f"an idle process hearing {notices} notices of tables it does not serve: "
          f"{spent / notices * 1e6:.0f} µs of CPU per notice (paid by every process for "
          "every event of every table)")


# -- fan-out -------------------------------------------------------------------------------

async def fanout_rounds(roller_url: str, watcher_urls: list[str]) -> list[list[float]]:
    async def join(url: str, name: str, role: str) -> Any:
        ws = await connect(url, compression=None, max_size=1 << 22, ping_interval=None,
                           max_queue=None)
        hello = {"type": "hello", "protocol": 1, "table": "fan", "name": name, "role": role}
        if role == "gm":
            hello["token"] = GM
        await ws.send(msgpack.packb(hello))
        assert msgpack.unpackb(await ws.recv())["type"] == "welcome"
        return ws

    async def outcome(ws: Any, rid: str) -> float:
        while True:
            message = msgpack.unpackb(await ws.recv())
            if message.get("type") == "outcome" and message.get("id", rid) == rid:
                return time.perf_counter()

    roller = await join(roller_url, "roller", "gm")
    # A first roll puts the table in the store: observers may only join a table that exists.
    await roller.send(msgpack.packb({"type": "roll", "id": "first", "ruleset": "bloodlust",
                                     "params": {"pool": 5}}))
    await outcome(roller, "first")
    watchers = [await join(url, f"w{i}", "observer") for i, url in enumerate(watcher_urls)]

    times: list[list[float]] = [[] for _ in watchers]
    for index in range(FANOUT_ROUNDS + 20):
        rid = f"f{index}"
        start = time.perf_counter()
        await roller.send(msgpack.packb({"type": "roll", "id": rid, "ruleset": "bloodlust",
                                         "params": {"pool": 5}, "mode": "public"}))
        arrivals = await asyncio.gather(*(outcome(ws, rid) for ws in watchers))
        await outcome(roller, rid)
        if index >= 20:  # the first rounds warm the paths up
            for got, arrival in zip(times, arrivals, strict=True):
                got.append(arrival - start)
    for ws in [roller, *watchers]:
        await ws.close()
    return times


def fanout(folder: Path) -> None:
    redis = redis_server(folder / "redis-fanout", "everysec")
    servers = []
    try:
        ports = [free_port(), free_port()]
        servers = [sidecar_server(port, "--store", redis.url) for port in ports]
        a, b = (f"ws://127.0.0.1:{port}/ws" for port in ports)
        same, other = asyncio.run(fanout_rounds(a, [a, b]))
    finally:
        for server in servers:
            server.stop()
        redis.stop()
    port = free_port()
    server = sidecar_server(port)
    try:
        (sqlite,) = asyncio.run(fanout_rounds(f"ws://127.0.0.1:{port}/ws",
                                              [f"ws://127.0.0.1:{port}/ws"]))
    finally:
        server.stop()
    print(f"{FANOUT_ROUNDS} public rolls one at a time by a GM on process A, send → outcome:")
    for label, times in (("observer on process A (Redis, same process)", same),
                         ("observer on process B (Redis, other process)", other),
                         ("observer, one process on the SQLite journal", sqlite)):
        print(f"  {label:<46} p50 {percentile(times, 0.5) * 1000:6.2f} ms, "
              f"p99 {percentile(times, 0.99) * 1000:6.2f} ms")
    print(f"  → cross-process p99 / same-process p99: "
          f"{percentile(other, 0.99) / percentile(same, 0.99):.2f}×")


# -- in process ----------------------------------------------------------------------------

async def in_process(store_kind: str, folder: Path, batches: int = 11, per_batch: int = 100,
                     lookup: bool = False) -> list[tuple[float, float, float, float]]:
    """Batches of rolls through core, pipeline and store: (roll wall, roll CPU, append
    wall, append CPU) per roll in µs. ``lookup``: ask the store for the request id first,
    as the server does for a table whose ids it may not all know (every table, on Redis)."""
    from sidecar.config import ServerConfig
    from sidecar.host.pipeline import RollPipeline
    from sidecar.host.plugins import default_host
    from sidecar.protocol.messages import Hello, RollRequest
    from sidecar.stores.choice import open_store
    from sidecar.table.core import TableCore

    redis = None
    here = Path(tempfile.mkdtemp(dir=folder))  # a fresh store each call
    if store_kind == "sqlite":
        store = open_store(here / "inproc.db")
    else:
        redis = redis_server(here, "everysec")
        store = open_store("", redis.url)
    await store.open()
    config = ServerConfig(gm_token=GM, player_token="p")
    host = default_host()
    pipeline = RollPipeline(host)
    core = TableCore(config, catalogue=host, preparer=pipeline, load=lambda name: (0, {}))
    table, gm = core.join(Hello(table="bench", name="MJ", role="gm", token=GM), binary=True)
    counter = itertools.count()

    async def batch() -> tuple[float, float, float, float]:
        wall = cpu = append_wall = append_cpu = 0.0
        for _ in range(per_batch):
            start, start_cpu = time.perf_counter(), time.thread_time()
            rid = next(counter)
            ticket = core.begin_roll(table, gm, RollRequest(
                ruleset="bloodlust", params={"pool": 5}, mode="self", id=rid))
            if lookup:
                assert await store.find_request(table.name, *gm.key, rid) is None
            async with table.turn:
                core.attach_sheet(ticket)
                resolution = await pipeline.run(ticket.roll, table_state=table.state)
                pending = core.number(ticket, resolution, now=time.time())
                a, a_cpu = time.perf_counter(), time.thread_time()
                await store.append(pending.event, pending.state, pending.records,
                                   expected=table.seq)
                append_wall += time.perf_counter() - a
                append_cpu += time.thread_time() - a_cpu
                core.commit(pending)
            wall += time.perf_counter() - start
            cpu += time.thread_time() - start_cpu
            await asyncio.sleep(0)  # each roll in a loop turn of its own, as from a socket
        return (wall / per_batch * 1e6, cpu / per_batch * 1e6,
                append_wall / per_batch * 1e6, append_cpu / per_batch * 1e6)

    await batch()
    results = [await batch() for _ in range(batches)]
    await store.close()
    host.shutdown()
    if redis is not None:
        redis.stop()
    return results


async def client_floor(folder: Path, rounds: int = 3000) -> dict[str, float]:
    """redis-py's own CPU per command in this process: PING, an HGET, and an EVALSHA of a
    script that does nothing with as many arguments as the store's (17) — what any store
    on this client pays before Redis does any work."""
    import redis.asyncio as aredis

    server = redis_server(folder / "redis-floor", "everysec")
    client = aredis.from_url(server.url)
    noop = client.register_script("return {'ok', 1}")
    args = ["x" * 40] * 17
    calls = {"PING": lambda: client.ping(),
             "HGET": lambda: client.hget("k", "f"),
             "EVALSHA, 17 args": lambda: noop(keys=["a", "b", "c"], args=args)}
    figures = {}
    for label, call in calls.items():
        for _ in range(200):
            await call()
        start = time.thread_time()
        for _ in range(rounds):
            await call()
        figures[label] = (time.thread_time() - start) / rounds * 1e6
    await client.aclose()
    server.stop()
    return figures


def store_cost(folder: Path, rounds: int = 3) -> None:
    batches: dict[str, list[tuple[float, float, float, float]]] = {"sqlite": [], "redis": []}
    for _ in range(rounds):  # alternated, so both see the same machine
        for kind in batches:
            batches[kind] += asyncio.run(in_process(kind, folder))
    figures = {kind: {"roll": statistics.median(r[0] for r in results),
                      "roll cpu": min(r[1] for r in results),
                      "append": statistics.median(r[2] for r in results),
                      "append cpu": min(r[3] for r in results)}
               for kind, results in batches.items()}
    print(f"{'':<24} {'append wall':>11} {'append CPU':>10} {'roll wall':>10} "
          f"{'roll CPU':>9}   (µs; wall: median batch, CPU: best batch, this process)")
    for kind, label in (("sqlite", "SQLite journal"), ("redis", "Redis (everysec)")):
        f = figures[kind]
        print(f"{label:<24} {f['append']:>11.1f} {f['append cpu']:>10.1f} {f['roll']:>10.1f} "
              f"{f['roll cpu']:>9.1f}")
    floor = asyncio.run(client_floor(folder))
    print("redis-py alone, CPU per command in this process: " + ", ".join(
        f"{label} {cpu:.0f} µs" for label, cpu in floor.items()))
    s, r = figures["sqlite"], figures["redis"]
    print(f"Redis / SQLite: append wall ×{r['append'] / s['append']:.2f}, CPU "
          f"×{r['append cpu'] / s['append cpu']:.2f}; whole roll wall "
          f"×{r['roll'] / s['roll']:.2f}, CPU ×{r['roll cpu'] / s['roll cpu']:.2f}")


# -- memory --------------------------------------------------------------------------------

async def fill(url: str, table: str, events: int, as_character: bool) -> None:
    ws = await connect(url, compression=None, max_size=1 << 22, ping_interval=None)
    await ws.send(msgpack.packb({"type": "hello", "protocol": 1, "table": table,
                                 "name": "MJ", "role": "gm", "token": GM}))
    await ws.recv()

    async def ask(message: dict[str, Any]) -> dict[str, Any]:
        await ws.send(msgpack.packb(message))
        while True:
            reply = msgpack.unpackb(await ws.recv())
            if reply.get("id") == message["id"]:
                return reply

    values = {"competences": {"Tir": "4D+2"}, "points_style": 99}
    for index in range(events):
        if as_character and index % 90 == 0:  # the sheet (re)filled: an event too
            made = await ask({"type": "sheet", "id": f"sheet{index}", "op": "set",
                              "character": "Bench", "ruleset": "d6code", "values": values})
            assert made["type"] == "sheet", made
            continue
        message: dict[str, Any] = {"type": "roll", "id": index, "ruleset": "d6code",
                                   "params": {"code": "4D+2", "difficulty": 15,
                                              "style": "libre"}}
        if as_character:
            message["params"] = {"skill": "Tir", "difficulty": 15, "style": "libre"}
            message["character"] = "Bench"
        reply = await ask(message)
        assert reply["type"] == "outcome", reply
    await ws.close()


def aof_bytes(redis: RedisServer) -> int:
    """The append-only files' size on disk (Redis 7 keeps them in ``appendonlydir``)."""
    return sum(path.stat().st_size for path in redis.folder.rglob("*.aof"))


def bytes_per_event(folder: Path) -> None:
    redis = redis_server(folder / "redis-memory", "everysec")
    rclient = redis_sync.Redis(port=redis.port)
    port = free_port()
    server = sidecar_server(port, "--store", redis.url)
    try:
        url = f"ws://127.0.0.1:{port}/ws"
        asyncio.run(fill(url, "warm", 20, False))  # the scripts loaded, the first keys made
        print(f"{MEMORY_EVENTS} events per table (d6code 4D+2 with a style point, an id "
              "each; event bodies as stored):")
        for table, as_character in (("plain", False), ("character", True)):
            before, aof_before = rclient.info("memory")["used_memory"], aof_bytes(redis)
            asyncio.run(fill(url, table, MEMORY_EVENTS, as_character))
            after, aof_after = rclient.info("memory")["used_memory"], aof_bytes(redis)
            keys = sorted(k.decode() for k in rclient.scan_iter(f"sidecar:{{{table}}}:*"))
            xlen = rclient.xlen(f"sidecar:{{{table}}}:events")
            usage = {key: rclient.memory_usage(key, samples=0) or 0 for key in keys}
            body = rclient.xrange(f"sidecar:{{{table}}}:events", count=1,
                                  min=f"{xlen}-0")[0][1]
            parts = ", ".join(f"{key.split(':', 2)[2]} {size / xlen:.0f}"
                              for key, size in usage.items())
            print(f"  {table:<10} XLEN {xlen}: used_memory +{(after - before) / xlen:.0f} B/"
                  f"event; MEMORY USAGE {sum(usage.values()) / xlen:.0f} B/event ({parts}); "
                  f"last entry's fields {sum(len(k) + len(v) for k, v in body.items())} B "
                  f"(event JSON {len(body[b'e'])} B); AOF +{(aof_after - aof_before) / xlen:.0f}"
                  " B/event")
    finally:
        server.stop()
        rclient.close()
        redis.stop()


def main() -> None:
    seconds = float(sys.argv[sys.argv.index("--seconds") + 1]) if "--seconds" in sys.argv \
        else 4.0
    only = (sys.argv[sys.argv.index("--only") + 1].split(",") if "--only" in sys.argv
            else ["throughput", "fanout", "store", "memory"])
    print(f"machine: {platform.machine()}, CPython {platform.python_version()}, "
          f"{os.cpu_count()} cores; load average {os.getloadavg()[0]:.2f}; "
          f"{CLIENTS} clients × {DEPTH} in flight, {seconds:g} s windows; redis-py "
          f"{redis_sync.__version__}, hiredis parser: {'yes' if HIREDIS else 'no'}")
    folder = Path(tempfile.mkdtemp(prefix="sidecar-redis-bench-"))
    if "throughput" in only:
        print("\n== throughput, latency and CPU per roll ==")
        throughput(seconds, folder)
        notice_cost(folder)
    if "fanout" in only:
        print("\n== fan-out across processes ==")
        fanout(folder)
    if "store" in only:
        print("\n== the store's cost in process (bloodlust pool 5, mode self) ==")
        store_cost(folder)
    if "memory" in only:
        print("\n== bytes per event in Redis ==")
        bytes_per_event(folder)
    print(f"\nload average at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
