"""Hostile clients (issue #5): while honest clients keep rolling, attackers try everything.

Pass: the server never crashes or logs a traceback, each attacker gets the contract's error
or close code, the honest clients' streams are complete and gap-free, and memory stays
bounded. Loopback only; every loop is bounded.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import socket
import subprocess

import msgpack
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from sidecar.server.logthrottle import LogThrottle
from sidecar.server.ratelimit import FailureGuard
from tests.helpers import Peer, hello, run, running_server
from tests.support.raw import raw_client


def rss_mib() -> float:
    with open(f"/proc/{os.getpid()}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


async def expect_error(server, frame, code: str, *, join: bool = True) -> None:
    peer = await Peer.open(server, binary=not isinstance(frame, str))
    if join:
        await peer.join(table="ailleurs", name="Attaquant")
    await peer.send_raw(frame)
    reply = await peer.recv_not_presence()
    assert reply["type"] == "error" and reply["code"] == code, (frame[:40], reply)
    await peer.close()


async def expect_close(server, frame, code: int) -> None:
    peer = await Peer.open(server)
    await peer.join(table="ailleurs", name="Attaquant")
    await peer.send_raw(frame)
    with pytest.raises(ConnectionClosed) as closed:
        while True:
            await peer.recv()
    assert closed.value.rcvd is not None and closed.value.rcvd.code == code


async def compressed_frame_attack(server) -> None:
    """A frame with the RSV1 (compressed) bit, though no compression was negotiated."""
    ws = await connect(server.url, compression=None)
    peer = Peer(ws)
    await peer.join(table="ailleurs", name="Zip")
    payload = b"\x00" * 32
    mask = os.urandom(4)
    masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    ws.transport.write(bytes([0xC2, 0x80 | len(payload)]) + mask + masked)
    with pytest.raises(ConnectionClosed) as closed:
        while True:
            await peer.recv()
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1002


def never_reading_client(port: int) -> socket.socket:
    """Joins the honest table over a raw socket, then never reads again (blocking calls:
    run it in a thread, not in the server's event loop)."""
    return raw_client(port, hello("honnête", "Dormeur", "observer"), timeout=5)


def test_attackers_while_honest_clients_keep_rolling(caplog):
    honest_rolls = 150

    async def scenario():
        # The bound is in bytes: an honest client has at most one roll in flight, so it is
        # never more than a few outcomes behind, whatever the machine's load; the sleeper
        # takes nothing, so the stream (about 750 KB per member) passes its bound.
        async with running_server(rate_limit=0, max_pending_bytes=256 * 1024) as server:
            before = rss_mib()
            honest = [await Peer.open(server) for _ in range(3)]
            for i, peer in enumerate(honest):
                await peer.join(table="honnête", name=f"H{i}", role="gm" if i == 0 else
                                "player")
            sleeper = await asyncio.to_thread(never_reading_client, server.port)
            streams: list[list[int]] = [[] for _ in honest]
            total = honest_rolls * len(honest)

            async def roll_and_listen(index: int, peer: Peer) -> None:
                seen = streams[index]
                for number in range(honest_rolls):
                    rid = f"h{index}-{number}"
                    # big pools make big outcomes, to fill the sleeper's buffers fast
                    await peer.send({"type": "roll", "id": rid, "ruleset": "bloodlust",
                                     "params": {"pool": 50}})
                    while True:
                        message = await peer.recv(timeout=10)
                        if message["type"] == "outcome":
                            seen.append(message["seq"])
                            if message.get("id") == rid:
                                break
                while len(seen) < total:
                    message = await peer.recv(timeout=10)
                    if message["type"] == "outcome":
                        seen.append(message["seq"])

            async def attack() -> None:
                junk = [
                    (b"\xc1\xff\x00garbage", "bad_frame"),
                    (msgpack.packb({"type": "roll", "params": {"pool": 3}})[:-3], "bad_frame"),
                    (b"\x91" * 3000 + b"\xc0", "bad_frame"),
                    (b"\xdd\xff\xff\xff\xff\x01", "bad_frame"),           # 4G-entry array
                    (b"\xdb\xff\xff\xff\xf0abc", "bad_frame"),            # 4 GB string
                    (b"\xdf\x7f\xff\xff\xff", "bad_frame"),               # 2G-entry map
                    (json.dumps({"type": "roll", "ruleset": ["x"], "id": 1}), "bad_message"),
                    (json.dumps({"type": "roll", "ruleset": "bloodlust",
                                 "params": {"pool": "trois"}}), "invalid_params"),
                    ('{"type": "roll", "id": 1e400}', "bad_frame"),
                ]
                for frame, code in junk:
                    await expect_error(server, frame, code)
                await expect_error(server, msgpack.packb({"type": "roll", "ruleset": "x"}),
                                   "not_joined", join=False)
                await expect_close(server, b"\x00" * (64 * 1024 + 10), 1009)
                await compressed_frame_attack(server)
                # wrong token
                peer = await Peer.open(server)
                await peer.send({"type": "hello", "protocol": 1, "table": "honnête",
                                 "name": "Intrus", "role": "gm", "token": "devine"})
                assert (await peer.recv())["code"] == "forbidden"
                with pytest.raises(ConnectionClosed):
                    await peer.recv()
                # cross-site origin
                with pytest.raises(InvalidStatus) as refused:
                    await connect(server.url, additional_headers={"Origin": "https://evil.test"})
                assert refused.value.response.status_code == 403
                # flood past the rate limit (the honest table has none: another server would;
                # here the flood hits the in-flight bound and the per-connection queue)
                flood = await Peer.open(server)
                await flood.join(table="ailleurs", name="Déluge", role="gm")
                for _ in range(200):
                    await flood.send({"type": "odds", "ruleset": "bloodlust",
                                      "params": {"pool": 50}})
                answered = 0
                while answered < 200:
                    message = await flood.recv(timeout=10)
                    answered += message["type"] in ("odds", "error")
                await flood.close()

            await asyncio.gather(attack(), *(roll_and_listen(i, p) for i, p in
                                             enumerate(honest)))
            for stream in streams:
                assert stream == list(range(1, total + 1))
            # the sleeper was cut off once its backlog passed the limit (its socket is cut
            # after the close frame's grace); the table went on
            table = server.tables.get("honnête")
            for _ in range(100):
                if "Dormeur" not in [m.name for m in table.members]:
                    break
                await asyncio.sleep(0.1)
            assert "Dormeur" not in [m.name for m in table.members]
            sleeper.close()
            for peer in honest:
                await peer.close()
            growth = rss_mib() - before
            assert growth < 100, f"memory grew by {growth:.0f} MiB"

    with caplog.at_level(logging.DEBUG):
        run(scenario(), timeout=120)
    tracebacks = [r for r in caplog.records if r.exc_info or "Traceback" in r.getMessage()]
    assert not tracebacks, [r.getMessage() for r in tracebacks]
    assert any("not reading" in r.getMessage() for r in caplog.records)


def test_rate_limit_flood_is_answered_with_rate_limited_and_honest_peer_unaffected():
    async def scenario():
        async with running_server(rate_limit=20) as server:
            flooder, honest = await Peer.open(server), await Peer.open(server)
            await flooder.join(name="Déluge")
            await honest.join(name="Calme")
            for _ in range(300):
                await flooder.send({"type": "roll", "ruleset": "bloodlust",
                                    "params": {"pool": 1}})
            codes = []
            while len(codes) < 300:
                message = await flooder.recv(timeout=10)
                if message["type"] == "error":
                    codes.append(message["code"])
                elif message["type"] == "outcome" and message["by"]["name"] == "Déluge":
                    codes.append("outcome")
            assert codes.count("outcome") <= 45 and codes.count("rate_limited") >= 255
            outcome = await honest.roll()
            assert outcome["type"] == "outcome"
    run(scenario())


# -- the mechanisms behind issue 14's items 2, 3 and 10, one by one -------------------------

class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_log_throttle_writes_one_line_per_key_and_interval_then_the_count(caplog):
    clock = FakeClock()
    throttle = LogThrottle(logging.getLogger("test.throttle"), 10.0, clock=clock)
    with caplog.at_level(logging.INFO, logger="test.throttle"):
        written = [throttle.log(logging.INFO, "bad_frame", "error %s", n) for n in range(1000)]
        throttle.log(logging.INFO, "forbidden", "other kind")
        clock.now += 10.5
        throttle.log(logging.INFO, "bad_frame", "error %s", "again")
    assert written.count(True) == 1
    lines = [r.getMessage() for r in caplog.records]
    assert lines[0] == "error 0" and lines[1] == "other kind"
    assert lines[2].startswith("error again (and 999 more like it")
    assert len(lines) == 3


def test_failure_guard_blocks_an_address_after_its_burst_and_forgives_with_time():
    clock = FakeClock()
    guard = FailureGuard(per_minute=6, clock=clock, max_addresses=3)
    for _ in range(6):
        assert not guard.blocked("10.0.0.1")
        guard.failed("10.0.0.1")
    assert guard.blocked("10.0.0.1") and not guard.blocked("10.0.0.2")
    assert 9 < guard.retry_after("10.0.0.1") <= 10
    clock.now += 10.1  # one failure a 10 s refills
    assert not guard.blocked("10.0.0.1")
    for address in ("a", "b", "c", "d"):
        guard.failed(address)
    assert len(guard.buckets) == 3  # memory is bounded whatever addresses come


def test_remembered_request_ids_are_bounded_in_bytes():
    import orjson

    from sidecar.table.tables import Table

    table = Table("t", max_recent_bytes=64 * 1024)
    for number in range(200):
        event = {"type": "outcome", "seq": number + 1, "label": "x" * 200,
                 "notes": ["n" * 1000], "request_id": f"id{number}"}
        table.commit(event, {}, ("A", "gm", f"id{number}"), len(orjson.dumps(event)))
        assert table.recent_bytes <= 64 * 1024
    assert table.forgot and table.needs_journal_lookup()
    assert 0 < len(table.recent) < 60


def test_ctrl_c_stops_serve_within_5_s_with_a_client_that_never_reads(tmp_path):
    from tests.support.raw import send_raw
    from tests.support.serve import ServeProcess

    with ServeProcess("--db", str(tmp_path / "journal.db"), "--rate-limit", "0") as server:
        sleeper = raw_client(server.port, hello("t", "Dormeur", "observer"))
        for _ in range(30):
            send_raw(sleeper, {"type": "plugins"})
        assert server.proc is not None
        server.proc.send_signal(signal.SIGINT)
        try:
            code = server.proc.wait(5)
        except subprocess.TimeoutExpired:
            code = None
        sleeper.close()
        assert code == 0, "sidecar serve did not stop on Ctrl-C"


def test_a_client_that_leaves_too_much_unread_is_closed_with_1013_too_slow(monkeypatch):
    import sidecar.server.outbox

    # the close frame waits behind the unread bytes: give the slow reader time to get there
    monkeypatch.setattr(sidecar.server.outbox, "SHED_GRACE", 60.0)

    async def scenario():
        async with running_server(rate_limit=0, max_pending_bytes=64 * 1024) as server:
            master, slow = await Peer.open(server), await Peer.open(server, max_queue=1)
            await master.join(name="MJ", role="gm")
            await slow.join(name="Lent", role="observer")
            for number in range(300):  # ~500 KB of outcomes that the slow one does not read
                reply = await master.roll(params={"pool": 50}, id=f"r{number}")
                assert reply["type"] == "outcome"
                if not [m for m in server.tables.get("t").members if m.name == "Lent"]:
                    break
            with pytest.raises(ConnectionClosed) as closed:
                while True:
                    await slow.recv(timeout=10)
            assert closed.value.rcvd is not None, closed.value
            assert (closed.value.rcvd.code, closed.value.rcvd.reason) == (
                1013, "too slow / trop lent")
            assert (await master.roll())["type"] == "outcome"  # the table goes on

    run(scenario(), timeout=120)


def test_history_pages_are_paid_in_bytes_paced_not_refused():
    async def scenario():
        async with running_server(rate_limit=5, rate_burst=20) as server:
            for roller in range(4):  # ~130 KB of events, each roller within its burst
                master = await Peer.open(server)
                await master.join(name=f"MJ{roller}", role="gm")
                for number in range(16):
                    reply = await master.roll(params={"pool": 50}, label="l" * 200,
                                              id=f"r{number}")
                    assert reply["type"] == "outcome", reply
            reader = await Peer.open(server)
            await reader.join(name="Lecteur", role="observer")
            # 5 pages (~55 KB each, ~4.4 requests' worth) and 10 small requests, pipelined:
            # 15 frames, within the burst of 20 if pages cost one request each
            for number in range(5):
                await reader.send({"type": "history", "id": f"h{number}", "limit": 500})
            for number in range(10):
                await reader.send({"type": "plugins", "id": f"p{number}"})
            replies = [await reader.recv_not_presence(timeout=20) for _ in range(15)]
            assert [r["type"] for r in replies[:5]] == ["history"] * 5, replies[:5]
            assert all(len(r["events"]) > 20 for r in replies[:5])
            # the pages left the bucket just paid off: small requests are refused
            assert "rate_limited" in [r.get("code") for r in replies[5:]]

    run(scenario(), timeout=60)


def test_a_connect_and_guess_loop_does_not_write_a_log_line_per_connection(caplog):
    async def scenario():
        async with running_server(max_failed_hellos=0) as server:
            for _ in range(50):
                peer = await Peer.open(server)
                await peer.send({"type": "hello", "protocol": 1, "table": "t",
                                 "name": "Intrus", "role": "gm", "token": "devine"})
                assert (await peer.recv())["code"] == "forbidden"
                with pytest.raises(ConnectionClosed):
                    await peer.recv()

    with caplog.at_level(logging.INFO, logger="sidecar"):
        run(scenario())
    lines = [r.getMessage() for r in caplog.records if r.name.startswith("sidecar")]
    assert len(lines) < 10, lines


def test_connections_per_address_are_bounded():
    from websockets.asyncio.client import connect
    from websockets.exceptions import InvalidStatus

    from tests.helpers import running_server

    async def scenario():
        async with running_server(max_connections_per_address=3) as server:
            url = f"ws://127.0.0.1:{server.port}/ws"
            held = [await connect(url) for _ in range(3)]  # not even a hello
            with pytest.raises(InvalidStatus) as refused:
                await connect(url)
            assert refused.value.response.status_code == 503
            await held.pop().close()
            for _ in range(100):  # the server sees the close, then has room for one more
                if server.per_address.get("127.0.0.1", 0) < 3:
                    break
                await asyncio.sleep(0.01)
            again = await connect(url)
            for ws in [*held, again]:
                await ws.close()
    run(scenario())
