"""The Redis store when things go wrong around it: a full Redis, a burst of joins, open
rolls whose process died, a wrong password, a wrong ``--store``, risky Redis settings.
Real redis-server, real servers (in process or ``sidecar serve``), real clients."""

from __future__ import annotations

import asyncio
import logging
import os
import subprocess

import pytest

from tests.helpers import PLAYER_TOKEN, Peer, run, running_server
from tests.redis_server import RedisServer
from tests.support.serve import ROOT, SIDECAR, serve_fails

pytestmark = pytest.mark.redis  # every test here runs a real redis-server


def test_a_full_redis_refuses_rolls_clearly_and_still_serves_joins_and_reads(tmp_path):
    with RedisServer(tmp_path / "r", maxmemory="3mb") as redis:
        redis.command("CONFIG", "SET", "maxmemory-policy", "noeviction")

        async def scenario():
            async with running_server(store=redis.url, rate_limit=0) as server:
                gm = await Peer.open(server)
                await gm.join(role="gm", name="MJ")
                label = "x" * 200  # big events: Redis fills up in a few thousand rolls
                reply = None
                for _ in range(20000):
                    reply = await gm.roll(params={"pool": 10}, label=label)
                    if reply["type"] == "error":
                        break
                assert reply["type"] == "error" and reply["code"] == "store_unavailable"
                assert reply["details"] == {"retry": True, "full": True}
                assert "plein" in reply["message"]
                last = gm.seen[-2]["seq"] if gm.seen[-2].get("seq") else None
                # A full Redis still serves reads: a new member joins, history reads,
                # and export works (how a GM moves old tables out).
                other = await Peer.open(server)
                await other.join(table="t", name="Bob")
                page = await other.request({"type": "history", "id": "h", "after": 0,
                                            "limit": 5})
                assert page["type"] == "history" and len(page["events"]) == 5
                redis.command("CONFIG", "SET", "maxmemory", "0")
                again = await gm.roll()
                assert again["type"] == "outcome"
                assert last is None or again["seq"] == last + 1
                await gm.close()
                await other.close()
        run(scenario(), timeout=180)
        export = subprocess.run([*SIDECAR, "export", "--table", "t", "--store", redis.url],
                                capture_output=True, text=True, timeout=60, cwd=ROOT)
        assert export.returncode == 0, export.stderr


def test_a_burst_of_joins_waits_for_redis_connections_instead_of_failing(redis_server):
    """Two hundred members joining at once (their process died, they all come back): each
    is welcomed, none told that Redis is unreachable."""
    async def scenario():
        async with running_server(store=redis_server.url, max_connections_per_address=0,
                                  max_members=1000) as server:
            async def join(index: int) -> str:
                peer = await Peer.open(server)
                try:
                    await peer.send({"type": "hello", "protocol": 1,
                                     "table": f"burst-{index % 150}", "name": f"P{index}",
                                     "role": "player", "token": PLAYER_TOKEN})
                    return (await peer.recv(30))["type"]
                finally:
                    await peer.close()
            answers = await asyncio.gather(*(join(i) for i in range(200)))
            assert answers.count("welcome") == 200, {a: answers.count(a) for a in answers}
    run(scenario(), timeout=120)


def test_an_open_roll_whose_process_died_takes_its_default_on_another(redis_server):
    """The process that made an open roll is gone and no member of its table is on
    another process: the others still take its default in time (they look for open
    rolls), once."""
    from tests.support.plugins import luck_host

    async def scenario():
        async with running_server(host=luck_host(), store=redis_server.url,
                                  react_timeout=1.0) as b:
            # (Held: a context manager left to the garbage collector would stop it.)
            dying = running_server(host=luck_host(), store=redis_server.url,
                                   react_timeout=1.5)
            a = await dying.__aenter__()
            # It dies before its own timer could take the default: it arms none (on a
            # loaded machine a timer of 1.5 s could fire before the test cancels it).
            a._arm = lambda table, event: None
            gm = await Peer.open(a)
            await gm.join(table="orphan", role="gm", name="MJ")
            out = await gm.roll("luck", {"target": 7, "skill": 0, "second_chance": True},
                                dice=[2])
            assert out["open"] is True
            # The process dies without a word (its timer with it): its transport cut,
            # its store connection closed, nothing more from it.
            for task in list(a.expiring):
                task.cancel()
            for timer in a.timers:
                timer.cancel()
            await gm.close()
            await a.store.close()
            # b never had a member at the table: its look for open rolls finds it.
            watcher = await Peer.open(b)
            async with asyncio.timeout(20):
                while True:
                    found = redis_server.command("HLEN", "sidecar:{orphan}:r:open")
                    if found.startswith(b":0"):
                        break
                    await asyncio.sleep(0.05)
            welcome = await watcher.join(table="orphan", role="gm", name="MJ2")
            if welcome["seq"] == out["seq"]:
                # Redis shows b's write a moment before b has its reply: it comes live.
                await watcher.recv_type("outcome")
            history = await watcher.request({"type": "history", "id": "h", "after": 0})
            assert [e["seq"] for e in history["events"]] == [out["seq"], out["seq"] + 1]
            decided = history["events"][-1]
            assert decided["reacts_to"] == out["seq"] and decided["choice"] == "keep"
            await watcher.close()
    run(scenario(), timeout=60)


def test_store_and_db_settled_in_one_line(tmp_path, redis_server):
    empty = serve_fails("--store", "")
    assert empty.returncode == 2 and "vide" in empty.stderr and "empty" not in empty.stderr
    empty = serve_fails("--store", "", "--locale", "en")  # (serve speaks one language)
    assert empty.returncode == 2 and "empty" in empty.stderr and "vide" not in empty.stderr
    both = serve_fails("--db", str(tmp_path / "x.db"), "--store", redis_server.url)
    assert both.returncode == 2 and "--db" in both.stderr and "--store" in both.stderr
    bad_db = serve_fails("--store", f"redis://127.0.0.1:{redis_server.port}/abc")
    assert bad_db.returncode != 0 and "abc" in bad_db.stderr
    assert len(bad_db.stderr.strip().splitlines()) == 1
    for result in (empty, both):
        assert len(result.stderr.strip().splitlines()) == 1
    export = subprocess.run([*SIDECAR, "export", "--table", "t", "--db", "x.db", "--store",
                             redis_server.url], capture_output=True, text=True, timeout=60,
                            cwd=ROOT)
    # (export speaks its reader's --locale, French by default: one language.)
    assert export.returncode == 2 and "choisissez l'un des deux" in export.stderr
    assert "choose one" not in export.stderr


def test_the_store_can_come_from_the_environment(redis_server):
    """$SIDECAR_STORE: a Redis password kept out of the process list."""
    from tests.support.serve import ServeProcess

    env = {**os.environ, "SIDECAR_STORE": redis_server.url}
    process = ServeProcess("--port", "0", env=env)
    try:
        # (French by default: « stockage : redis://… »)
        assert any(line.startswith("stockage : redis://") for line in process.lines), \
            process.lines
    finally:
        process.stop()


def test_a_wrong_password_is_said_as_such(redis_server):
    redis_server.command("CONFIG", "SET", "requirepass", "right-one")
    result = serve_fails("--store", f"redis://:wrong-one@127.0.0.1:{redis_server.port}/0")
    assert result.returncode != 0
    line = result.stderr.strip()
    assert len(line.splitlines()) == 1 and "mot de passe" in line and "password" not in line
    assert "wrong-one" not in line
    english = serve_fails("--store", f"redis://:wrong-one@127.0.0.1:{redis_server.port}/0",
                          "--locale", "en").stderr.strip()
    assert "password" in english and "mot de passe" not in english, english


def test_risky_redis_settings_are_warned_about_at_start(tmp_path, caplog):
    with RedisServer(tmp_path / "r") as redis:
        redis.command("CONFIG", "SET", "appendonly", "no")
        redis.command("CONFIG", "SET", "maxmemory-policy", "allkeys-lru")

        async def scenario():
            async with running_server(store=redis.url):
                pass
        with caplog.at_level(logging.WARNING, logger="sidecar.store"):
            run(scenario())
    warned = " ".join(r.getMessage() for r in caplog.records)
    assert "appendonly is off" in warned and "allkeys-lru" in warned



def test_a_unix_socket_store_serves_two_servers(tmp_path):
    """``--store unix:///PATH?db=N`` (Redis on the same machine, no TCP): the plain
    connection of each event's script goes through the socket too."""
    sock = tmp_path / "redis.sock"
    with RedisServer(tmp_path / "r", unixsocket=sock):
        url = f"unix://{sock}?db=1"

        async def scenario():
            async with running_server(store=url) as a, running_server(store=url) as b:
                alice, bob = await Peer.open(a), await Peer.open(b)
                await alice.join(name="Alice")
                await bob.join(name="Bob")
                assert (await alice.roll())["seq"] == 1
                assert (await bob.roll())["seq"] == 2
                while not any(m.get("seq") == 2 for m in alice.seen):
                    await alice.recv()
                await alice.close()
                await bob.close()
        run(scenario())


def test_a_hello_while_redis_is_down_is_answered_then_closed_1013(tmp_path):
    with RedisServer(tmp_path / "r") as redis:
        async def scenario():
            async with running_server(store=redis.url) as server:
                await asyncio.to_thread(redis.stop)
                peer = await Peer.open(server)
                await peer.send({"type": "hello", "protocol": 1, "table": "new-table",
                                 "name": "Bob", "role": "player", "token": PLAYER_TOKEN})
                error = await peer.recv()
                assert error["type"] == "error" and error["code"] == "store_unavailable"
                try:
                    await peer.recv()
                    raise AssertionError("the connection should be closed")
                except Exception as exc:  # ConnectionClosed
                    assert getattr(exc, "rcvd", None) is not None and exc.rcvd.code == 1013
        run(scenario())


def test_export_with_a_wrong_password_says_so(redis_server):
    redis_server.command("CONFIG", "SET", "requirepass", "right-one")
    url = f"redis://:wrong-one@127.0.0.1:{redis_server.port}/0"
    export = subprocess.run([*SIDECAR, "export", "--table", "t", "--store", url],
                            capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert export.returncode == 1 and "password" in export.stderr
    assert "wrong-one" not in export.stderr


def test_hellos_naming_many_tables_leave_nothing_behind_in_the_store(redis_server):
    """Each hello for a table not in memory reads it from Redis first; a flood of hellos
    naming new tables with a wrong token must not leave one entry each in the store's
    per-table memory."""
    async def scenario():
        async with running_server(store=redis_server.url, max_failed_hellos=0) as server:
            for k in range(50):
                peer = await Peer.open(server)
                await peer.send({"type": "hello", "protocol": 1, "table": f"nope-{k}",
                                 "name": "X", "role": "gm", "token": "wrong"})
                assert (await peer.recv())["code"] == "forbidden"
                await peer.close()
            store = server.store
            assert not store._incs and not store._states and not store._watched
    run(scenario())
