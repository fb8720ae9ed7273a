"""Real ``sidecar serve --store redis://…`` processes on one real ``redis-server``.

What only separate processes show: a start-up that cannot use Redis (one line, no
traceback), a process killed with ``kill -9`` in the middle of rolls (its clients go on
with another process, resume and re-send what was not answered, and nothing is lost or
doubled), a client resuming on a process that has not read yet what the client saw
elsewhere, and the chaos run of issue 18 — three processes, clients spread over them, a
flood of rolls during which one process is killed and Redis restarted (or killed) —
after which every client's stream and the store hold exactly what was acknowledged.

The clients are raw protocol clients (:class:`Roller`), not ``sidecar.client``: what a
reconnecting client must do is spelled out here, message by message. Every check is on
what was received and stored, never on how long anything took.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterable
from typing import Any

import orjson
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from sidecar.protocol.codec import decode, encode
from sidecar.stores.journal.schema import request_key
from sidecar.stores.redis import Keys
from tests.helpers import GM_TOKEN, PLAYER_TOKEN, hello, run
from tests.redis_server import RedisServer, Sidecar
from tests.support.serve import ROOT, free_port, serve_fails

pytestmark = pytest.mark.redis  # every test here runs a real redis-server

#: Longest wait for any one message: past it the client reports itself stuck (a failure
#: that says where, instead of the whole test's deadline).
STALL = 30.0


class Tally:
    """Acknowledged requests of every client, and a way to wait until there are ``n``."""

    def __init__(self) -> None:
        self.count = 0
        self._changed = asyncio.Event()

    def add(self) -> None:
        self.count += 1
        self._changed.set()

    async def reach(self, n: int) -> None:
        while self.count < n:
            self._changed.clear()
            await self._changed.wait()


class Roller:
    """One member rolling through any of several processes, as a careful client does.

    It keeps every request it sent by id until an answer carries that id; when its
    connection is lost it tries the next URL, says ``hello`` with ``resume`` = the last
    seq it received, and sends every unanswered request again with the same id. A
    ``store_unavailable`` answer (Redis away) is sent again once ``redis_up`` is set.

    What it received is kept for the checks: ``stream`` (every journaled event, live or
    replayed, in order of arrival, repeats aside), ``answers`` (each id's answers: the
    outcome, a replayed copy, ``duplicate`` repeats) and ``problems`` (anything a careful
    client could not accept: a seq out of order, an unexpected error)."""

    def __init__(self, urls: list[str], table: str, name: str, *, start: int = 0,
                 redis_up: asyncio.Event, tally: Tally | None = None,
                 window: int = 4, role: str = "player") -> None:
        self.urls, self.index = urls, start
        self.table, self.name, self.role = table, name, role
        self.redis_up, self.tally, self.window = redis_up, tally, window
        self.stream: list[dict[str, Any]] = []
        self.answers: dict[str, list[dict[str, Any]]] = {}
        self.pending: dict[str, dict[str, Any]] = {}  # sent, not answered yet
        self.held: set[str] = set()  # answered store_unavailable: wait for Redis
        self.problems: list[str] = []
        self.counts = {"connections": 0, "resent": 0, "store_unavailable": 0,
                       "duplicates": 0}
        self.ws: Any = None
        self.inbox: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        self._reader: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def last(self) -> int:
        return self.stream[-1]["seq"] if self.stream else 0

    @property
    def url(self) -> str:
        return self.urls[self.index % len(self.urls)]

    # -- connecting ---------------------------------------------------------------------

    async def connect(self) -> None:
        """Join through the current URL, else the next ones, resuming after ``last``;
        then send again every request not answered."""
        for attempt in range(200):
            if attempt and attempt % len(self.urls) == 0:
                await asyncio.sleep(0.05)  # every process refused: one is starting
            try:
                ws = await connect(self.url, compression=None, max_size=1 << 22,
                                   open_timeout=10)
            except (OSError, InvalidHandshake, TimeoutError):
                self.index += 1
                continue
            try:
                if await self._hello(ws):
                    break
            except ConnectionClosed:
                pass  # 1013 (store unavailable while resuming), or the process died
            await ws.close()
            self.index += 1
        else:
            raise AssertionError(f"{self.name}: could not join any process")
        self.ws = ws
        self.counts["connections"] += 1
        self.inbox = asyncio.Queue()
        self._reader = asyncio.create_task(self._read(ws, self.inbox))
        again = [rid for rid in self.pending if rid not in self.held or self.redis_up.is_set()]
        for rid in again:
            self.held.discard(rid)
            self.counts["resent"] += 1
            await self._send(self.pending[rid])

    async def _hello(self, ws: Any) -> bool:
        """``hello`` with ``resume``; True once welcomed (the replay follows)."""
        frame = encode(hello(self.table, self.name, self.role, resume=self.last,
                             token=GM_TOKEN if self.role == "gm" else PLAYER_TOKEN),
                       binary=True)
        for _ in range(50):
            await ws.send(frame)
            while True:
                reply = decode(await asyncio.wait_for(ws.recv(), STALL))
                if reply["type"] != "presence":
                    break
            if reply["type"] == "welcome":
                return True
            if reply.get("code") != "store_unavailable":
                raise AssertionError(f"{self.name}: hello refused: {reply}")
            self.counts["store_unavailable"] += 1
            await self.redis_up.wait()
            await asyncio.sleep(0.05)  # Redis answers again; the process reconnects
        return False

    async def _read(self, ws: Any, inbox: asyncio.Queue[dict[str, Any] | None]) -> None:
        try:
            async for frame in ws:
                inbox.put_nowait(decode(frame))
        except ConnectionClosed:
            pass
        finally:
            inbox.put_nowait(None)  # the connection is gone (after all it delivered)

    async def _send(self, message: dict[str, Any]) -> None:
        try:
            await self.ws.send(encode(message, binary=True))
        except ConnectionClosed:
            pass  # the reader says so; the request is sent again after reconnecting

    # -- rolling ------------------------------------------------------------------------

    async def roll_all(self, ids: Iterable[str]) -> None:
        """Roll once per id (up to ``window`` at a time), until every one is answered."""
        todo = list(ids)
        todo.reverse()
        if self.ws is None:
            await self.connect()
        while todo or self.pending:
            while todo and len(self.pending) < self.window:
                await self.send_roll(todo.pop())
            await self._next()

    async def send_roll(self, rid: str) -> None:
        """Send one roll, kept until answered (``roll_all`` and ``until`` read answers)."""
        self.pending[rid] = {"type": "roll", "id": rid, "ruleset": "bloodlust",
                             "params": {"pool": 3}}
        await self._send(self.pending[rid])

    async def request(self, message: dict[str, Any]) -> None:
        """Any other request with an id, until answered."""
        self.pending[message["id"]] = message
        await self._send(message)
        while message["id"] in self.pending:
            await self._next()

    async def until(self, seq: int) -> None:
        """Read until the stream reaches ``seq``."""
        while self.last < seq:
            await self._next()

    async def _next(self) -> None:
        """Handle the next message (reconnecting first when the connection is gone)."""
        try:
            message = await asyncio.wait_for(self.inbox.get(), STALL)
        except TimeoutError:
            raise AssertionError(f"{self.name}: nothing received for {STALL} s at "
                                 f"{self.url}; pending {sorted(self.pending)}") from None
        if message is None:
            await self.connect()
            return
        self._handle(message)

    def _handle(self, message: dict[str, Any]) -> None:
        kind, rid = message["type"], message.get("id")
        if kind == "error":
            if rid is None and message.get("code") == "store_unavailable":
                # Welcomed, but the replay could not be read (Redis away): the process
                # closes the connection (1013); this client resumes from its last seq.
                self.counts["store_unavailable"] += 1
            elif rid not in self.pending:
                self.problems.append(f"error not about a pending request: {message}")
            elif message.get("code") == "store_unavailable" and message.get(
                    "details", {}).get("retry"):
                self.counts["store_unavailable"] += 1
                self.held.add(rid)
                task = asyncio.create_task(self._again(rid))
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)
            else:
                self.problems.append(f"unexpected error: {message}")
            return
        if "seq" not in message or kind in ("welcome", "history"):
            return  # presence and the like: not journaled
        if not message.get("duplicate"):
            if message["seq"] != self.last + 1:
                self.problems.append(f"#{message['seq']} received after #{self.last}")
            self.stream.append(message)
        if rid is not None:
            if message.get("duplicate"):
                self.counts["duplicates"] += 1
            elif rid not in self.pending and rid not in self.answers:
                self.problems.append(f"an answer to a request never sent: {message}")
            self.answers.setdefault(rid, []).append(message)
            if self.pending.pop(rid, None) is not None and self.tally is not None:
                self.tally.add()
            self.held.discard(rid)

    async def _again(self, rid: str) -> None:
        """A request answered ``store_unavailable``: the same request once Redis is back.
        (Right after Redis comes back a process may still answer so once per pooled
        connection: a short, growing pause between tries.)"""
        await self.redis_up.wait()
        await asyncio.sleep(0.02 * min(self.counts["store_unavailable"], 10))
        if rid in self.held and rid in self.pending:
            self.held.discard(rid)
            self.counts["resent"] += 1
            await self._send(self.pending[rid])

    async def lose_connection(self) -> None:
        """The connection is gone with whatever was on its way to this client (answers
        included): what a crashed process may leave."""
        if self._reader is not None:
            self._reader.cancel()
        self.ws.transport.abort()
        self.inbox = asyncio.Queue()
        self.inbox.put_nowait(None)

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        if self.ws is not None:
            await self.ws.close()
        if self._reader is not None:
            await self._reader


# -- what the checks compare ----------------------------------------------------------


def public(message: dict[str, Any]) -> dict[str, Any]:
    """An event as every member of the table sees it (the requester's copy alone echoes
    the request id)."""
    return {key: value for key, value in message.items() if key != "id"}


def stored_events(redis: RedisServer, table: str) -> list[tuple[str, dict[str, Any], str]]:
    """The table's stream read straight from Redis: (entry id, event, request key)."""
    import redis as redis_py

    client = redis_py.Redis(host="127.0.0.1", port=redis.port, db=0)
    try:
        # One MULTI: read while rolls are being stored, the stream and the seq must be
        # read at the same point (two commands would let a script run in between).
        with client.pipeline(transaction=True) as pipe:
            pipe.xrange(Keys(table).events, "-", "+")
            pipe.hget(Keys(table).meta, "seq")
            entries, seq = pipe.execute()
        meta_seq = int(seq or 0)
    finally:
        client.close()
    found = [(entry_id.decode(), orjson.loads(fields[b"e"]), fields[b"q"].decode())
             for entry_id, fields in entries]
    assert meta_seq == len(found), "the table's seq counts its events"
    return found


def check_table(redis: RedisServer, table: str, rollers: list[Roller]) -> int:
    """Everything a table's clients were answered and received against its store; its
    last seq."""
    stored = stored_events(redis, table)
    final = len(stored)
    # The store: seqs 1..N without a gap, as stream entry ids <seq>-0.
    assert [entry_id for entry_id, _, _ in stored] == [f"{s}-0" for s in range(1, final + 1)]
    assert [event["seq"] for _, event, _ in stored] == list(range(1, final + 1))
    # No request id produced two events.
    keys = [key for _, _, key in stored if key]
    assert len(keys) == len(set(keys)), "a request id stored twice"
    by_seq = {event["seq"]: (event, key) for _, event, key in stored}
    acknowledged = 0
    for roller in rollers:
        assert roller.problems == [], (roller.name, roller.problems[:5])
        assert not roller.pending, (roller.name, "unanswered", sorted(roller.pending))
        for rid, answers in roller.answers.items():
            # Every answer to one id is the same outcome (original, replay or repeat).
            seqs = {answer["seq"] for answer in answers}
            assert len(seqs) == 1, (roller.name, rid, seqs)
            (seq,) = seqs
            event, key = by_seq[seq]
            # ... stored once, as that member's request, with the very dice answered.
            assert key == f"{roller.role}\x1f{roller.name}\x1f{request_key(rid)}", (rid, key)
            for answer in answers:
                assert answer.get("dice") == event.get("dice"), (rid, answer, event)
            acknowledged += 1
        # Each event of the table exactly once, in order, no gap, up to the last.
        assert [m["seq"] for m in roller.stream] == list(range(1, final + 1)), roller.name
    # Every stored roll was acknowledged to the client that asked (nothing extra).
    assert acknowledged == len(keys) == final
    # Public rolls: every client saw the very same events.
    reference = [public(m) for m in rollers[0].stream]
    for roller in rollers[1:]:
        assert [public(m) for m in roller.stream] == reference, roller.name
    return final


def report(rollers: list[Roller]) -> str:
    totals: dict[str, int] = {}
    for roller in rollers:
        for key, value in roller.counts.items():
            totals[key] = totals.get(key, 0) + value
    return ", ".join(f"{key} {value}" for key, value in totals.items())


# -- start-up ---------------------------------------------------------------------------


def test_start_up_with_redis_unreachable_says_so_in_one_line():
    url = f"redis://127.0.0.1:{free_port()}/0"  # nobody listens there
    result = serve_fails("--store", url)
    assert result.returncode != 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    line = lines[0]
    # In the run's one language: French by default, English with --locale en.
    assert "Redis injoignable" in line and "unreachable" not in line and url in line
    assert "Traceback" not in result.stderr and "ws://" not in result.stdout
    english = serve_fails("--store", url, "--locale", "en").stderr.strip()
    assert "Redis unreachable" in english and "injoignable" not in english, english


def test_start_up_with_redis_refusing_the_connection_says_so_in_one_line(redis_server):
    # Redis answers, but refuses what the URL asks (database 99 of the default 16).
    url = f"redis://127.0.0.1:{redis_server.port}/99"
    result = serve_fails("--store", url)
    assert result.returncode != 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "Redis" in lines[0] and url in lines[0] and "Traceback" not in result.stderr


def test_the_banner_does_not_show_the_redis_password(redis_server):
    redis_server.command("CONFIG", "SET", "requirepass", "s3cret-pw")
    url = f"redis://:s3cret-pw@127.0.0.1:{redis_server.port}/0"
    with Sidecar(url) as process:
        banner = "".join(process.lines)
        assert f"stockage : redis://:***@127.0.0.1:{redis_server.port}/0" in banner
        assert process.stop() == 0
    assert "s3cret-pw" not in "".join(process.lines + process.output)


def test_store_naming_nothing_known_says_so_in_one_line():
    result = serve_fails("--store", "mysql://x")
    assert result.returncode != 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "mysql://x" in lines[0] and "n'est pas" in lines[0] and "is not" not in lines[0]
    english = serve_fails("--store", "mysql://x", "--locale", "en").stderr.strip()
    assert "is not" in english and "n'est pas" not in english, english


# -- kill -9 in the middle of rolls ----------------------------------------------------


def test_a_process_killed_mid_roll_loses_nothing_acknowledged_and_doubles_nothing(tmp_path):
    with RedisServer(tmp_path / "redis") as redis, Sidecar(redis.url) as a, \
            Sidecar(redis.url) as b:
        async def scenario() -> None:
            up = asyncio.Event()
            up.set()
            roller = Roller([a.url, b.url], "t", "Alice", redis_up=up, window=20)
            watcher = Roller([b.url], "t", "Bob", redis_up=up)
            await roller.connect()
            await watcher.connect()
            await roller.roll_all(f"a{i}" for i in range(5))  # answered by A
            assert roller.url == a.url and roller.last == 5
            # Ten rolls sent at once; once Redis holds three of them, A is frozen (what
            # it stored stays stored), ten more are sent to it, and it is killed: whatever
            # it answered is lost on the way. Some rolls reached Redis and were never
            # answered; the last ten did not go further than A's socket.
            for rid in (f"b{i}" for i in range(10)):
                await roller.send_roll(rid)
            while len(stored_events(redis, "t")) < 5 + 3:
                await asyncio.sleep(0.001)  # Redis is read directly: nothing to wait on
            a.freeze()
            late = [f"z{i}" for i in range(10)]
            for rid in late:
                await roller.send_roll(rid)
            a.kill()
            await roller.lose_connection()
            # The client goes on with B: resume, then the same ids again.
            await roller.roll_all(f"c{i}" for i in range(3))
            assert roller.url == b.url and roller.counts["connections"] == 2
            final = len(stored_events(redis, "t"))
            await roller.until(final)
            await watcher.until(final)
            check_table(redis, "t", [roller, watcher])
            assert final == 5 + 20 + 3
            # The rolls stored but unanswered came back twice: in the resume's replay
            # (with their id), then as the repeat of the id sent again; the others were
            # rolled once, on B.
            repeated = [rid for rid, answers in roller.answers.items()
                        if any(answer.get("duplicate") for answer in answers)]
            assert len(repeated) >= 3
            for rid in repeated:
                assert [bool(m.get("duplicate")) for m in roller.answers[rid]] == [False, True]
            assert all(len(answers) == 1 for rid, answers in roller.answers.items()
                       if rid not in repeated)
            assert not set(late) & set(repeated), "rolled once they reached B"
            print(f"kill -9 mid-roll: {report([roller])}")
            await roller.close()
            await watcher.close()
        run(scenario(), timeout=60)


def deaf_user(redis: RedisServer) -> str:
    """A Redis user that may do everything but subscribe: a process using it never hears
    other processes' notices (what a process that has not read them yet looks like, held
    as long as the test needs); its URL."""
    reply = redis.command("ACL", "SETUSER", "deaf", "on", ">deaf-pw", "~*", "&*", "+@all",
                          "-psubscribe", "-subscribe")
    assert reply.startswith(b"+OK"), reply
    return f"redis://deaf:deaf-pw@127.0.0.1:{redis.port}/0"


def test_resuming_on_a_process_behind_the_client_replays_nothing_twice(tmp_path):
    """A client saw #1-#3 on A and resumes on B, which has not heard of them yet (notices
    arrive when they arrive): B must not send them again when it learns of them."""
    with RedisServer(tmp_path / "redis") as redis, Sidecar(redis.url) as a, \
            Sidecar(deaf_user(redis)) as b:
        async def scenario() -> None:
            up = asyncio.Event()
            up.set()
            bob = Roller([b.url], "t", "Bob", redis_up=up)
            await bob.connect()  # B holds the table (at #0) from now on
            alice = Roller([a.url, b.url], "t", "Alice", redis_up=up)
            await alice.roll_all(["a1", "a2", "a3"])
            assert alice.last == 3
            await alice.lose_connection()
            alice.urls = [b.url]
            alice.index = 0
            await alice.roll_all(["a4"])  # resumes on B after #3, then rolls
            await bob.roll_all(["b1"])  # B's own write: it reads #1-#4 first
            await alice.until(5)
            await bob.until(5)
            check_table(redis, "t", [alice, bob])
            await alice.close()
            await bob.close()
        run(scenario(), timeout=60)


def test_resuming_on_a_process_behind_the_client_replays_no_other_event_twice(tmp_path):
    """The same with an event that is not a roll (a GM's new session)."""
    with RedisServer(tmp_path / "redis") as redis, Sidecar(redis.url) as a, \
            Sidecar(deaf_user(redis)) as b:
        async def scenario() -> None:
            up = asyncio.Event()
            up.set()
            bob = Roller([b.url], "t", "Bob", redis_up=up)
            await bob.connect()
            gm = Roller([a.url], "t", "MJ", redis_up=up, role="gm")
            alice = Roller([a.url, b.url], "t", "Alice", redis_up=up)
            await gm.connect()
            await alice.connect()
            await gm.request({"type": "session", "id": "s1", "op": "start"})
            await alice.until(1)
            await alice.lose_connection()
            alice.urls = [b.url]
            await alice.roll_all(["a1"])  # resumes on B after #1, then rolls
            await bob.until(2)
            await gm.until(2)
            check_table(redis, "t", [alice, bob, gm])
            for roller in (alice, bob, gm):
                await roller.close()
        run(scenario(), timeout=60)


# -- the chaos run ----------------------------------------------------------------------


@pytest.mark.slow  # three processes, a flood, kills and a Redis restart
@pytest.mark.parametrize("redis_down", ["restart", "crash"])
def test_chaos_kill_a_process_and_restart_redis_during_a_flood(tmp_path, redis_down):
    """Three processes, six clients at one table (two per process) and two at another;
    40 rolls each. A process is killed with kill -9 after 60 acknowledged rolls (its
    clients go on elsewhere) and Redis is restarted after 140 — stopped cleanly, or
    killed with kill -9 (AOF ``always``: what it acknowledged is on disk either way).
    Then every stream and the store are exactly what was acknowledged."""
    rolls = int(os.environ.get("CHAOS_ROLLS", "40"))
    with RedisServer(tmp_path / "redis", appendfsync="always") as redis, \
            Sidecar(redis.url) as p0, Sidecar(redis.url) as p1, Sidecar(redis.url) as p2:
        processes = [p0, p1, p2]
        urls = [p.url for p in processes]

        async def scenario() -> None:
            up, tally = asyncio.Event(), Tally()
            up.set()
            main = [Roller(urls, "crypte", f"P{i}", start=i % 3, redis_up=up, tally=tally)
                    for i in range(6)]
            other = [Roller(urls, "tour", f"Q{i}", start=i, redis_up=up, tally=tally)
                     for i in range(2)]
            everyone = main + other
            for roller in everyone:
                await roller.connect()
            flood = [asyncio.create_task(roller.roll_all(f"{roller.name}-{k}"
                                                         for k in range(rolls)))
                     for roller in everyone]

            await tally.reach(60)
            victim = p0
            on_victim = {r.name for r in everyone if r.url == victim.url}
            in_flight = sum(len(r.pending) for r in everyone if r.name in on_victim)
            victim.kill()
            await tally.reach(140)
            up.clear()
            if redis_down == "restart":
                await asyncio.to_thread(redis.restart)
            else:
                await asyncio.to_thread(redis.kill)
                await asyncio.to_thread(redis.start)
            up.set()
            await asyncio.gather(*flood)

            for table, rollers in (("crypte", main), ("tour", other)):
                final = len(stored_events(redis, table))
                for roller in rollers:
                    await roller.until(final)
                assert check_table(redis, table, rollers) == rolls * len(rollers)
            assert len(on_victim) == 3
            for roller in everyone:
                assert roller.url != victim.url, "nobody is left on the killed process"
                # Members stay connected while Redis restarts: only the killed process's
                # clients joined again (more than once if Redis was away as they came).
                if roller.name in on_victim:
                    assert roller.counts["connections"] >= 2, roller.name
                else:
                    assert roller.counts["connections"] == 1, roller.name
            print(f"chaos ({redis_down}): {in_flight} requests in flight on the killed process; "
                  f"{report(everyone)}")
            for roller in everyone:
                await roller.close()
        run(scenario(), timeout=120)
        for process in (p1, p2):
            assert process.proc.poll() is None, "".join(process.output[-20:])


@pytest.fixture(autouse=True)
def _no_journal_file_left():
    """``--store redis://…`` writes no SQLite journal (serve's default ``--db``)."""
    before = (ROOT / "sidecar.db").exists()
    yield
    assert (ROOT / "sidecar.db").exists() == before



def test_the_unreachable_line_does_not_show_the_redis_password():
    from tests.support.serve import free_port

    for url in (f"redis://:s3cret-pw@127.0.0.1:{free_port()}/0",
                f"redis://127.0.0.1:{free_port()}/0?password=s3cret-pw"):
        result = serve_fails("--store", url)
        assert result.returncode != 0 and "***" in result.stderr
        assert "s3cret-pw" not in result.stderr + result.stdout
