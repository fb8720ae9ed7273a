"""The Redis store: several servers on one real Redis serve the same tables as one.

Every test starts a real ``redis-server`` (tests/redis_server.py) and real servers on
loopback ports pointed at it; clients are real WebSocket connections. (The servers run in
this process, on one event loop, each with its own store connection, its own tables in
memory and its own subscription: nothing is shared between them but Redis. Separate
``sidecar serve`` processes are tested in tests/test_redis_processes.py.)
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import pytest

from sidecar.stores.redis import Keys, table_of_channel, table_tag
from tests.helpers import Peer, run, running_server
from tests.redis_server import RedisServer
from tests.support.plugins import luck_host

pytestmark = pytest.mark.redis  # every test here runs a real redis-server


@contextlib.asynccontextmanager
async def servers(url: str, count: int = 2, **overrides: Any):
    async with contextlib.AsyncExitStack() as stack:
        yield [await stack.enter_async_context(running_server(store=url, **overrides))
               for _ in range(count)]


async def events_until(peer: Peer, seq: int, timeout: float = 10) -> list[dict[str, Any]]:
    """The journaled events ``peer`` received (so far, and until ``seq``), in order of
    arrival; read again from the start each call."""
    def journaled() -> list[dict[str, Any]]:
        return [m for m in peer.seen if "seq" in m and m["type"] not in ("welcome", "history")]
    while not journaled() or journaled()[-1]["seq"] < seq:
        await peer.recv(timeout)
    return journaled()


def test_a_member_of_one_server_receives_the_rolls_made_on_another(redis_server):
    async def scenario():
        async with servers(redis_server.url) as (a, b):
            alice, bob = await Peer.open(a), await Peer.open(b)
            await alice.join(name="Alice")
            await bob.join(name="Bob")
            seqs = []
            for i in range(6):
                roller = alice if i % 2 else bob
                reply = await roller.roll()
                assert reply["type"] == "outcome", reply
                seqs.append(reply["seq"])
            assert seqs == list(range(1, 7)), "one seq order per table, no gaps"
            for peer in (alice, bob):
                seen = await events_until(peer, 6)
                assert [e["seq"] for e in seen] == list(range(1, 7))
            await alice.close()
            await bob.close()
    run(scenario())


def test_one_table_many_servers_concurrent_rolls_take_distinct_seqs(redis_server):
    async def scenario():
        async with servers(redis_server.url, 3) as trio:
            members = []
            for index, server in enumerate(trio):
                for k in range(2):
                    peer = await Peer.open(server)
                    await peer.join(name=f"P{index}{k}")
                    members.append(peer)

            async def roll_many(peer: Peer) -> list[int]:
                return [(await peer.roll())["seq"] for _ in range(10)]
            results = await asyncio.gather(*(roll_many(p) for p in members))
            taken = sorted(seq for seqs in results for seq in seqs)
            assert taken == list(range(1, 61)), "every roll stored once, no gap, no double"
            for peer in members:
                seen = await events_until(peer, 60)
                assert [e["seq"] for e in seen] == list(range(1, 61))
            for peer in members:
                await peer.close()
    run(scenario(), timeout=120)


def test_a_request_id_resolved_on_one_server_is_a_repeat_on_another(redis_server):
    async def scenario():
        async with servers(redis_server.url) as (a, b):
            first, second = await Peer.open(a), await Peer.open(b)
            await first.join(name="Alice")
            await second.join(name="Alice")  # the same player, on another device
            original = await first.roll(id="once")
            again = await second.roll(id="once")
            assert again["duplicate"] is True
            assert again["seq"] == original["seq"] and again["dice"] == original["dice"]
            # Another member's same id is theirs, not a repeat.
            other = await Peer.open(b)
            await other.join(name="Bob")
            mine = await other.roll(id="once")
            assert "duplicate" not in mine and mine["seq"] == original["seq"] + 1
            # A repeat answered by the store changes nothing of the table on that server:
            # the next roll made elsewhere reaches it as usual.
            later = await first.roll()
            assert [e["seq"] for e in await events_until(second, later["seq"])][-1] == \
                later["seq"]
            for peer in (first, second, other):
                await peer.close()
    run(scenario())


def test_resume_and_history_work_on_any_server(redis_server):
    async def scenario():
        async with servers(redis_server.url) as (a, b):
            gm = await Peer.open(a)
            await gm.join(role="gm", name="MJ")
            for _ in range(3):
                await gm.roll()
            await gm.roll(mode="gm")
            # A player who saw up to #1 resumes on the other server.
            player = await Peer.open(b)
            welcome = await player.join(name="Bob", resume=1)
            assert welcome["seq"] == 4
            replayed = await events_until(player, 3)
            assert [e["seq"] for e in replayed] == [2, 3]  # the GM's secret #4 is not his
            history = await player.request({"type": "history", "id": "h", "after": 0})
            assert [e["seq"] for e in history["events"]] == [1, 2, 3]
            gm_history = await gm.request({"type": "history", "id": "h", "after": 0})
            assert [e["seq"] for e in gm_history["events"]] == [1, 2, 3, 4]
            await gm.close()
            await player.close()
    run(scenario())


def test_redis_down_rolls_answer_store_unavailable_and_resume_after(tmp_path, caplog):
    import logging

    caplog.set_level(logging.WARNING, logger="sidecar.store")
    with RedisServer(tmp_path / "r") as redis:
        async def scenario():
            async with servers(redis.url) as (a, b):
                alice, bob = await Peer.open(a), await Peer.open(b)
                await alice.join(name="Alice")
                await bob.join(name="Bob")
                assert (await alice.roll())["seq"] == 1
                await asyncio.to_thread(redis.stop)
                failed = await alice.roll(id="while-down")
                assert failed["type"] == "error" and failed["code"] == "store_unavailable"
                assert failed["details"]["retry"] is True
                await asyncio.to_thread(redis.start)
                # The members stayed connected; the same request goes through once the
                # server is connected again (as a client does on `retry`: tries again).
                again = await alice.roll(id="while-down")
                while again.get("code") == "store_unavailable" and again["details"]["retry"]:
                    await asyncio.sleep(0.1)
                    again = await alice.roll(id="while-down")
                assert again["type"] == "outcome" and again["seq"] == 2
                seen = await events_until(bob, 2)
                assert [e["seq"] for e in seen] == [1, 2]
                # And the other server's rolls reach the first one's members again.
                assert (await bob.roll())["seq"] == 3
                assert [e["seq"] for e in await events_until(alice, 3)][-1] == 3
                # The log says Redis went and came back.
                said = [r.getMessage() for r in caplog.records]
                assert any("notices lost" in m for m in said)
                assert any("Redis: back" in m for m in said)
                await alice.close()
                await bob.close()
        run(scenario(), timeout=90)


def test_a_tables_keys_share_one_hash_tag():
    for name in ("t", "la {table} de Zoé", "a:b%c}{", ""):
        keys = Keys(name)
        tag = "{" + table_tag(name) + "}"
        for key in (keys.meta, keys.events, keys.requests, keys.channel,
                    keys.record("seat")):
            # Redis Cluster hashes the text between the first "{" and the next "}".
            start = key.index("{")
            assert key[start:key.index("}", start) + 1] == tag
        assert table_of_channel(keys.channel) == name


@contextlib.asynccontextmanager
async def luck_servers(url: str, count: int = 2, **overrides: Any):
    async with contextlib.AsyncExitStack() as stack:
        yield [await stack.enter_async_context(
            running_server(host=luck_host(), store=url, **overrides))
            for _ in range(count)]


def test_spends_are_checked_against_the_one_table_whatever_the_server(redis_server):
    """Two GMs on two servers spend the same character's luck at once: exactly what it
    holds is spent, the rest is refused as ``insufficient``; never below zero."""
    async def scenario():
        async with luck_servers(redis_server.url) as (a, b):
            first, second = await Peer.open(a), await Peer.open(b)
            await first.join(role="gm", name="MJ1")
            await second.join(role="gm", name="MJ2")
            made = await first.request({"type": "sheet", "id": "c", "op": "set",
                                        "character": "Zed", "ruleset": "luck",
                                        "values": {"luck": 5}})
            assert made["type"] != "error", made

            async def spend(peer: Peer, count: int) -> list[str]:
                replies = [await peer.roll("luck", {"cost": 1}, character="Zed")
                           for _ in range(count)]
                return [r["type"] if r["type"] != "error" else r["code"] for r in replies]
            results = await asyncio.gather(spend(first, 5), spend(second, 5))
            flat = results[0] + results[1]
            assert flat.count("outcome") == 5 and flat.count("insufficient") == 5
            listed = await second.request({"type": "sheet", "id": "l", "op": "list"})
            zed = next(c for c in listed["characters"] if c["character"] == "Zed")
            assert zed["values"]["luck"] == 0
            await first.close()
            await second.close()
    run(scenario(), timeout=90)


@contextlib.contextmanager
def deaf(server: Any, table: str = "t"):
    """``server`` hears no notice of ``table`` meanwhile: what other servers write reaches
    it only when it reads the store itself (a notice still on its way, made certain)."""
    watched = server.store._watched
    heard = watched[table]
    watched[table] = lambda name, seq: None
    try:
        yield
    finally:
        watched[table] = heard


def test_a_refusal_is_checked_again_with_what_other_servers_just_wrote(redis_server):
    """A request refused on one server's copy of the table before another server's write
    reached it (a character made, given or refilled there a moment ago) is checked again
    once caught up: it goes through; a refusal that stands after is still refused."""
    async def scenario():
        async with luck_servers(redis_server.url) as (a, b):
            gm, other_gm = await Peer.open(a), await Peer.open(b)
            await gm.join(role="gm", name="MJ1")
            await other_gm.join(role="gm", name="MJ2")
            seat = await gm.request({"type": "seat", "id": "s", "op": "add", "name": "Lea"})
            lea = await Peer.open(b)
            await lea.join(name="Lea", token=seat["token"])
            with deaf(b):
                # A character made on A, rolled as at once by a GM on B.
                made = await gm.request({"type": "sheet", "id": "z", "op": "set",
                                         "character": "Zed", "ruleset": "luck",
                                         "values": {"luck": 0}})
                assert made["type"] != "error", made
                assert "Zed" not in b.tables.get("t").characters  # B has not heard
                rolled = await other_gm.roll("luck", {"cost": 0}, character="Zed", id="r1")
                assert rolled["type"] == "outcome", rolled
                # Refilled on A: B spends what A gave.
                refilled = await gm.request({"type": "sheet", "id": "f", "op": "set",
                                             "character": "Zed", "ruleset": "luck",
                                             "values": {"luck": 1}})
                assert refilled["type"] != "error", refilled
                spent = await other_gm.roll("luck", {"cost": 1}, character="Zed", id="r2")
                assert spent["type"] == "outcome", spent
                # Given to Lea on A: Lea, on B, rolls as it.
                given = await gm.request({"type": "sheet", "id": "g", "op": "set",
                                          "character": "Vlad", "ruleset": "luck",
                                          "values": {"luck": 1}, "owner": "Lea"})
                assert given["type"] != "error", given
                hers = await lea.roll("luck", {"cost": 1}, character="Vlad", id="r3")
                assert hers["type"] == "outcome", hers
                # What stands after catching up is still refused.
                again = await other_gm.roll("luck", {"cost": 1}, character="Zed", id="r4")
                assert again["type"] == "error" and again["code"] == "insufficient", again
                nobody = await other_gm.roll("luck", {"cost": 0}, character="Nobody", id="r5")
                assert nobody["type"] == "error" and nobody["code"] == "invalid_params"
            for peer in (gm, other_gm, lea):
                await peer.close()
    run(scenario(), timeout=90)


def test_a_seat_added_on_one_server_lets_its_player_join_on_another(redis_server):
    async def scenario():
        async with servers(redis_server.url) as (a, b):
            gm = await Peer.open(a)
            await gm.join(role="gm", name="MJ")
            seat = await gm.request({"type": "seat", "id": "s", "op": "add", "name": "Zoé"})
            assert seat["type"] == "seat", seat
            # The other server learns of the seat from the store, before its first join.
            player = await Peer.open(b)
            welcome = await player.join(name="Zoé", token=seat["token"])
            assert welcome["type"] == "welcome"
            # A new token for the seat (on the first server) closes the old link's
            # connection on the second one.
            rotated = await gm.request({"type": "seat", "id": "r", "op": "rotate",
                                        "name": "Zoé"})
            assert rotated["token"] != seat["token"]
            while True:  # the connection ends (a policy close), whatever came before it
                try:
                    await player.recv()
                except Exception as exc:  # ConnectionClosed, from websockets
                    assert "ConnectionClosed" in type(exc).__name__
                    break
            refused = await Peer.open(b)
            await refused.send({"type": "hello", "protocol": 1, "table": "t", "name": "Zoé",
                                "role": "player", "token": seat["token"]})
            assert (await refused.recv())["code"] == "forbidden"
            await gm.close()
    run(scenario())


def test_an_open_roll_made_on_one_server_is_decided_on_another(redis_server):
    async def scenario():
        async with luck_servers(redis_server.url) as (a, b):
            roller = await Peer.open(a)
            await roller.join(role="gm", name="MJ")  # (a GM may give the dice)
            other_device = await Peer.open(b)
            await other_device.join(role="gm", name="MJ")
            seat = await roller.request({"type": "seat", "id": "s", "op": "add", "name": "Lea"})
            lea = await Peer.open(b)
            await lea.join(name="Lea", token=seat["token"])
            with deaf(b):  # B decides before it hears of the roll (the race, every run)
                out = await roller.roll("luck", {"target": 7, "skill": 0,
                                                 "second_chance": True}, dice=[2])
                assert out["open"] is True
                decided = await other_device.request({"type": "react", "id": "d",
                                                      "roll": out["roll"], "choice": "keep"})
                assert decided["type"] == "outcome", decided
                assert decided["reacts_to"] == out["seq"]
                # An ask opened on A, answered from B before B heard of it.
                ask = await roller.request({"type": "ask", "id": "a", "op": "open",
                                            "to": ["Lea"], "ruleset": "luck",
                                            "params": {"target": 5}})
                assert ask["type"] == "ask", ask
                answer = await lea.roll("luck", {}, answers=ask["ask"])
                assert answer["type"] == "outcome" and answer["answers"] == ask["ask"], answer
            # Decided once, on any server.
            again = await roller.request({"type": "react", "id": "d2", "roll": out["roll"],
                                          "choice": "reroll"})
            assert again["type"] == "error", again
            for peer in (roller, other_device, lea):
                await peer.close()
    run(scenario())


def test_an_open_rolls_default_is_taken_once_by_the_servers_together(redis_server):
    async def scenario():
        async with luck_servers(redis_server.url, 3, react_timeout=0.5) as trio:
            peers_ = []
            for server in trio:
                peer = await Peer.open(server)
                await peer.join(role="gm", name="MJ")
                peers_.append(peer)
            out = await peers_[0].roll("luck", {"target": 7, "skill": 0,
                                                "second_chance": True}, dice=[2])
            assert out["open"] is True
            # Every server armed the roll's timer; one default is stored, seen by all.
            for peer in peers_:
                seen = await events_until(peer, out["seq"] + 1)
                assert [e["seq"] for e in seen][-2:] == [out["seq"], out["seq"] + 1]
                assert seen[-1]["reacts_to"] == out["seq"]
            rolled = await peers_[1].roll()
            assert rolled["seq"] == out["seq"] + 2, "the default was stored once"
            for peer in peers_:
                await peer.close()
    run(scenario())


def test_verifiable_dice_rolled_on_several_servers_verify_from_the_store(redis_server,
                                                                         tmp_path):
    """One epoch shared by the servers: positions are taken once each whichever server
    rolls, and the export from Redis verifies after the GM's reveal."""
    from tests.support.serve import sidecar

    async def scenario():
        async with servers(redis_server.url, 2, dice="provable") as (a, b):
            gm, player = await Peer.open(a), await Peer.open(b)
            first = await gm.join(role="gm", name="MJ", client_seed="aa" * 16)
            second = await player.join(name="Bob", client_seed="bb" * 16)
            assert first["epoch"]["commitment"] == second["epoch"]["commitment"]
            async def two(peer: Peer) -> list[dict[str, Any]]:
                return [await peer.roll(), await peer.roll()]
            pairs = await asyncio.gather(two(gm), two(player))
            rolls = pairs[0] + pairs[1]
            positions = sorted(r["proof"]["position"] for r in rolls)
            assert len(set(positions)) == 4, "each position drawn once"
            ended = await player.request({"type": "epoch", "id": "e", "op": "end"})
            assert ended["type"] == "error" and ended["code"] == "forbidden"
            ended = await gm.request({"type": "epoch", "id": "e", "op": "end"})
            assert ended["type"] == "epoch", ended
            await gm.close()
            await player.close()
    run(scenario())
    export = tmp_path / "t.jsonl"
    done = sidecar("export", "--table", "t", "--store", redis_server.url, "-o", str(export))
    assert done.returncode == 0, done.stderr
    checked = sidecar("verify", str(export))
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_the_python_client_moves_to_another_server_and_resumes_exactly_once(redis_server):
    """SidecarClient given both servers' URLs: its server stops during a flood of rolls
    made on the other one; it rejoins the other, resumes, and sees every seq once."""
    from sidecar.client import SidecarClient
    from tests.helpers import PLAYER_TOKEN

    async def scenario():
        async with running_server(store=redis_server.url) as b:
            started = running_server(store=redis_server.url)  # (held, stopped below)
            a = await started.__aenter__()
            client = SidecarClient([a.url, b.url], table="t", name="Aengus",
                                   token=PLAYER_TOKEN, reconnect=True)
            await client.connect()
            stream = client.events()
            roller = await Peer.open(b)
            await roller.join(role="gm", name="MJ")
            for _ in range(5):
                await roller.roll()
            await a.stop()  # the client's server goes away mid-session
            for _ in range(5):
                await roller.roll()
            mine = await client.roll("bloodlust", {"pool": 2}, id="after-move")
            assert client.url == b.url and mine["seq"] == 11
            seqs: list[int] = []
            async with asyncio.timeout(20):
                while not seqs or seqs[-1] < 11:
                    event = await anext(stream)
                    if "seq" in event:
                        seqs.append(event["seq"])
            assert seqs == list(range(1, 12))
            await client.close()
            await roller.close()
    run(scenario())


def test_plugin_state_is_shared_a_blank_botch_used_on_one_server_is_used_on_all(
        redis_server):
    async def scenario():
        async with servers(redis_server.url) as (a, b):
            first, second = await Peer.open(a), await Peer.open(b)
            # (the blank botch is each roller's, issue 26: the same GM on both servers)
            await first.join(role="gm", name="MJ")
            await second.join(role="gm", name="MJ")
            options = {"blank_botch": {}}
            used = await first.roll(params={"pool": 1}, dice=[1], options=options)
            assert used["result"]["kind"] == "failure"  # the GM's blank botch, used
            botch = await second.roll(params={"pool": 1}, dice=[1], options=options)
            assert botch["result"]["kind"] == "botch", "the other server knew it was used"
            await first.close()
            await second.close()
    run(scenario())


def _publishes(redis: RedisServer) -> int:
    stats = redis.command("INFO", "commandstats").decode()
    for line in stats.splitlines():
        if line.startswith("cmdstat_publish:"):
            return int(line.split("calls=")[1].split(",")[0])
    return 0


def _listeners(redis: RedisServer, table: str) -> int:
    reply = redis.command("PUBSUB", "NUMSUB", Keys(table).channel).decode().split("\r\n")
    return int(reply[-2].lstrip(":"))


def test_notices_go_only_to_the_servers_of_a_table_and_never_to_a_lone_writer(redis_server):
    """A server listens to the tables it serves, not to every table; a server alone at a
    table publishes no notice for its own writes (nobody else would hear it)."""
    async def scenario():
        async with servers(redis_server.url) as (a, b):
            alice = await Peer.open(a)
            await alice.join(table="t1", name="Alice")
            bob = await Peer.open(b)
            await bob.join(table="t2", name="Bob")

            async def until(check) -> None:  # the subscriptions are made in the background
                async with asyncio.timeout(10):
                    while not check():
                        await asyncio.sleep(0.01)
            await until(lambda: _listeners(redis_server, "t1") == 1
                        and _listeners(redis_server, "t2") == 1)
            before = _publishes(redis_server)
            for _ in range(3):
                await alice.roll()
            assert _publishes(redis_server) == before, "a lone writer publishes nothing"
            # Bob comes to t1 through the other server: from now on t1's writes are heard.
            carol = await Peer.open(b)
            await carol.join(table="t1", name="Carol")
            await until(lambda: _listeners(redis_server, "t1") == 2)
            assert (await alice.roll())["seq"] == 4
            assert [e["seq"] for e in await events_until(carol, 4)][-1] == 4
            assert _publishes(redis_server) > before
            for peer in (alice, bob, carol):
                await peer.close()
            await until(lambda: _listeners(redis_server, "t1") == 0)
    run(scenario())


def test_a_store_that_lost_acknowledged_events_is_read_again_not_jammed(redis_server,
                                                                       caplog):
    """Redis restarted without its last writes (everysec and a crash, a late replica,
    a FLUSHALL): the server says so, drops its copy of the table and closes its members'
    connections; joined again, the table is as Redis has it and takes rolls again."""
    import logging

    async def scenario():
        async with servers(redis_server.url, 1) as (a,):
            gm = await Peer.open(a)
            await gm.join(role="gm", name="MJ")
            await gm.roll()
            await gm.roll()
            redis_server.command("FLUSHALL")
            await gm.send({"type": "roll", "id": "after-loss", "ruleset": "bloodlust",
                           "params": {"pool": 3}})
            closed = None
            try:
                while True:
                    await gm.recv()
            except Exception as exc:  # the connection is closed: 1012, table read again
                closed = getattr(exc, "rcvd", None)
            assert closed is not None and closed.code == 1012
            assert not any(m.get("id") == "after-loss" and m["type"] == "outcome"
                           for m in gm.seen)
            again = await Peer.open(a)
            welcome = await again.join(role="gm", name="MJ")
            assert welcome["seq"] == 0
            assert (await again.roll(id="after-loss"))["seq"] == 1
            await again.close()
    with caplog.at_level(logging.ERROR, logger="sidecar.server"):
        run(scenario())
    assert any("Redis lost writes" in r.getMessage() for r in caplog.records)
    # The roll is refused (store_unavailable), not failed on (an internal error).
    assert not any("internal error" in r.getMessage() for r in caplog.records)


def test_when_redis_loses_events_every_server_holding_the_table_reads_it_again(
        redis_server):
    """Redis emptied under two servers (or restarted without its last writes): the one
    that writes next finds out; the table gets a new incarnation, and the other server,
    whose members saw the lost events, hears it and drops its copy too (its members'
    connections closed, 1012) instead of ignoring new events under numbers it had. The
    Python client then follows the table from its seq, lower than what it saw."""
    from sidecar.client import SidecarClient
    from tests.helpers import PLAYER_TOKEN

    async def scenario():
        async with servers(redis_server.url) as (a, b):
            watcher = await Peer.open(a)
            await watcher.join(name="Watcher")
            client = SidecarClient(a.url, table="t", name="Cli", token=PLAYER_TOKEN,
                                   reconnect=True)
            await client.connect()
            roller = await Peer.open(b)
            await roller.join(role="gm", name="MJ")
            for _ in range(3):
                await roller.roll()
            await events_until(watcher, 3)
            redis_server.command("FLUSHALL")
            await roller.send({"type": "roll", "id": "x", "ruleset": "bloodlust",
                               "params": {"pool": 3}})

            async def closed(peer: Peer) -> int:
                try:
                    while True:
                        await peer.recv(10)
                except Exception as exc:
                    return getattr(getattr(exc, "rcvd", None), "code", 0)
            assert await closed(roller) == 1012
            again = await Peer.open(b)
            assert (await again.join(role="gm", name="MJ"))["seq"] == 0
            first = await again.roll()
            assert first["seq"] == 1
            # Server a hears the new incarnation: its copy (at #3) goes, its members too.
            assert await closed(watcher) == 1012
            back = await Peer.open(a)
            welcome = await back.join(name="Watcher", resume=3)
            assert welcome["seq"] == 1
            # The client rejoined by itself and follows the table from #1.
            async with asyncio.timeout(10):
                while client.last_seq != 1 or not client._ready.is_set():
                    await asyncio.sleep(0.02)
            assert (await again.roll())["seq"] == 2
            async with asyncio.timeout(10):
                while client.last_seq != 2:
                    await asyncio.sleep(0.02)
            await client.close()
            for peer in (again, back):
                await peer.close()
    run(scenario(), timeout=60)


def test_the_same_ids_raced_on_two_servers_are_stored_once_and_change_nothing_else(
        redis_server):
    """The same request ids sent to two servers at once: the store's script answers the
    loser as a repeat (the original outcome); both members stay, and later rolls reach
    both servers as usual."""
    async def scenario():
        async with servers(redis_server.url) as (a, b):
            first, second = await Peer.open(a), await Peer.open(b)
            await first.join(name="Alice")
            await second.join(name="Alice")
            for k in range(10):
                one, two = await asyncio.gather(first.roll(id=f"race-{k}"),
                                                second.roll(id=f"race-{k}"))
                assert one["seq"] == two["seq"] and one["dice"] == two["dice"]
                assert bool(one.get("duplicate")) != bool(two.get("duplicate"))
            later = await first.roll()
            assert later["seq"] == 11
            for peer in (first, second):
                seen = await events_until(peer, later["seq"])
                assert sorted({e["seq"] for e in seen}) == list(range(1, 12))
            await first.close()
            await second.close()
    run(scenario())
