"""Issue 14's attacks, each against a real ``sidecar serve`` process on loopback.

One test per numbered item of the issue (several for some). Each one failed on the code the
issue was filed against. Every test is bounded: a fixed number of rolls, frames or
connections, and timeouts on every wait.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import socket
import sqlite3
import subprocess
import sys
import textwrap
import threading
from pathlib import Path
from typing import Any

import msgpack
import pytest
from websockets.exceptions import ConnectionClosed

from tests.helpers import GM_TOKEN, Peer, hello, run
from tests.support.plugins import write_plugins
from tests.support.raw import raw_client, read_until_closed, send_raw
from tests.support.serve import ROOT, ServeProcess

#: The bound stated for the server's resident memory under the attacks of item 2 (it
#: starts near 45 MiB; unbounded buffers took it past 240 MiB).
RSS_BOUND_MIB = 150


def serve(tmp: Path, *extra: str, plugins: dict[str, str] | None = None,
          db: Path | None = None) -> ServeProcess:
    """``sidecar serve`` with its journal in ``tmp`` (or ``db``), its standard error in
    ``tmp/server.log``, and ``plugins`` (name: source) in a folder of their own."""
    args = ["--db", str(db or tmp / "journal.db"), *extra]
    if plugins:
        args += ["--plugins-dir", str(write_plugins(tmp / "plugins", **plugins))]
    return ServeProcess(*args, log=tmp / "server.log")


class RssWatch:
    """Samples a process's RSS in a thread; ``peak`` is the highest seen."""

    def __init__(self, server: ServeProcess) -> None:
        self.server = server
        self.peak = server.rss_mib()
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self.done.wait(0.05):
            try:
                self.peak = max(self.peak, self.server.rss_mib())
            except OSError:
                return

    def stop(self) -> float:
        self.done.set()
        self.thread.join(5)
        return self.peak


# -- clients (those that never read: tests/support/raw.py) ----------------------------------

async def gm(server: ServeProcess, table: str = "t", **extra: Any) -> Peer:
    peer = await Peer.open(server)
    await peer.join(table=table, name="MJ", role="gm", **extra)
    return peer


async def roll_many(peer: Peer, count: int, **fields: Any) -> None:
    """``count`` rolls, at most 20 in flight; waits for each answer."""
    window = 20
    sent = answered = 0
    while answered < count:
        while sent < count and sent - answered < window:
            await peer.send({"type": "roll", "id": f"x{sent}", "ruleset": "bloodlust",
                             "params": {"pool": 50}, **fields})
            sent += 1
        message = await peer.recv(timeout=20)
        if "id" in message and message["type"] in ("outcome", "error"):
            assert message["type"] == "outcome", message
            answered += 1


# -- 1. a plugin can end the server -------------------------------------------------------

EXITING_PLUGIN = """
    import sys
    from sidecar import hookimpl

    @hookimpl
    def sidecar_modify_outcome(roll, outcome):
        if roll.label == "exit":
            sys.exit(3)
"""


def test_1_plugin_calling_sys_exit_does_not_end_the_server(tmp_path):
    with serve(tmp_path, plugins={"sortie": EXITING_PLUGIN}) as server:
        async def scenario() -> None:
            peer = await gm(server)
            await peer.roll(label="exit")
            await asyncio.sleep(0)  # the answer, if any, is in; now: is the server there?
            again = await peer.roll(label="calme")
            assert again["type"] == "outcome"
        run(scenario(), timeout=30)
        assert server.alive()


GENERATOR_EXIT_PLUGIN = """
    from sidecar import hookimpl

    @hookimpl
    def sidecar_modify_outcome(roll, outcome):
        if roll.label == "fin":
            raise GeneratorExit()
"""


def test_1_generator_exit_from_a_plugins_thread_is_its_failure(tmp_path):
    with serve(tmp_path, plugins={"generatrice": GENERATOR_EXIT_PLUGIN}) as server:
        async def scenario() -> None:
            peer = await gm(server)
            outcome = await peer.roll(label="fin")
            assert outcome["type"] == "outcome", outcome
            assert any("generatrice" in note for note in outcome["notes"])
            again = await peer.roll(label="calme")  # the same connection goes on
            assert again["type"] == "outcome"
            status = await peer.request({"type": "plugins", "id": "p"})
            plugin = next(p for p in status["plugins"] if p["name"] == "generatrice")
            assert plugin["recent_failures"] == 1 and "GeneratorExit" in plugin["last_error"]
        run(scenario(), timeout=30)


# -- 2. unbounded buffers, and a SIGTERM that hangs ----------------------------------------

def test_2_resume_observer_that_never_reads_is_closed_and_memory_stays_bounded(tmp_path):
    with serve(tmp_path, "--rate-limit", "0") as server:
        async def scenario() -> float:
            peer = await gm(server)
            # enough to replay that the replay itself stalls on the unread socket
            await roll_many(peer, 600)
            sleeper = await asyncio.to_thread(raw_client, server.port,
                                              hello("t", "Dormeur", "observer", resume=0))
            watch = RssWatch(server)
            await roll_many(peer, 3000)  # ~5 MB of outcomes, none of them read
            closed, read = await asyncio.to_thread(read_until_closed, sleeper, 10)
            sleeper.close()
            peak = watch.stop()
            print(f"resume sleeper: {read} bytes before the close, RSS peak {peak:.0f} MiB")
            assert closed, f"still open after {read} bytes"
            # what the server had queued for it is bounded (1 MiB + kernel buffers)
            assert read < 2.5 * (1 << 20), read
            return peak
        peak = run(scenario(), timeout=120)
        assert peak < RSS_BOUND_MIB, f"RSS peaked at {peak:.0f} MiB"


def test_2_history_readers_that_never_read_are_closed_and_memory_stays_bounded(tmp_path):
    with serve(tmp_path, "--rate-limit", "0") as server:
        async def scenario() -> float:
            peer = await gm(server)
            await roll_many(peer, 1000)
            sleepers = [await asyncio.to_thread(raw_client, server.port,
                                                hello("t", f"Lecteur{i}", "observer"))
                        for i in range(5)]
            watch = RssWatch(server)

            async def readers_seated() -> int:
                while True:
                    message = await peer.recv(timeout=60)
                    if message["type"] == "presence":
                        return sum(m["name"].startswith("Lecteur") for m in message["members"])

            while await readers_seated() < 5:
                pass
            # 40 pages of up to 56 KiB: twice the 1 MiB bound, whatever the kernel buffers
            for _ in range(40):
                for sock in sleepers:
                    await asyncio.to_thread(send_raw, sock, {"type": "history", "after": 0,
                                                             "limit": 500})
            # Nothing is read until the server has let them go (the table's presence says
            # so): a reader that started early could keep up with a slow server.
            while await readers_seated() > 0:
                pass
            results = await asyncio.gather(*(asyncio.to_thread(read_until_closed, sock)
                                             for sock in sleepers))
            peak = watch.stop()
            for sock in sleepers:
                sock.close()
            for closed, read in results:
                assert closed, f"still open after {read} bytes"
            return peak
        peak = run(scenario(), timeout=120)
        assert peak < RSS_BOUND_MIB, f"RSS peaked at {peak:.0f} MiB"


STUCK_PLUGIN = """
    import threading
    from sidecar import hookimpl

    FOREVER = threading.Event()

    @hookimpl
    def sidecar_modify_outcome(roll, outcome):
        if roll.label == "bloque":
            FOREVER.wait()
"""


def test_2_sigterm_stops_the_server_within_5_s_whatever_its_clients_and_plugins_do(tmp_path):
    with serve(tmp_path, "--rate-limit", "0", plugins={"colle": STUCK_PLUGIN}) as server:
        async def scenario() -> list[socket.socket]:
            peer = await gm(server)
            await roll_many(peer, 300)
            await peer.roll(label="bloque")  # its plugin call never returns
            sleepers = [await asyncio.to_thread(raw_client, server.port,
                                                hello("t", f"Dormeur{i}", "observer", resume=0))
                        for i in range(3)]
            for sock in sleepers:
                for _ in range(10):
                    await asyncio.to_thread(send_raw, sock, {"type": "history", "limit": 500})
            await roll_many(peer, 300)
            return sleepers
        sleepers = run(scenario(), timeout=60)
        code = server.stop_within(5)
        for sock in sleepers:
            sock.close()
        assert code is not None, "sidecar serve still running 5 s after SIGTERM"


LOOP_HOLDER = """
    import time
    from sidecar import hookimpl

    @hookimpl
    async def sidecar_modify_roll(roll):
        if roll.label == "gel":
            time.sleep(30)  # holds the event loop itself: no handler of the server can run
"""


@pytest.mark.slow  # waits out a plugin holding the loop
def test_2_sigterm_stops_the_server_within_5_s_even_while_a_plugin_holds_the_loop(tmp_path):
    with serve(tmp_path, plugins={"glacier": LOOP_HOLDER}) as server:
        async def scenario() -> None:
            peer = await gm(server)
            assert (await peer.roll())["type"] == "outcome"
            await peer.send({"type": "roll", "ruleset": "bloodlust", "params": {"pool": 1},
                             "label": "gel", "id": "gel"})
            # the loop is held once the server stops answering pings (one sent with the
            # roll may be answered before the hook runs)
            for _ in range(5):
                try:
                    await asyncio.wait_for(await peer.ws.ping(), 1.0)
                except TimeoutError:
                    break
            else:
                raise AssertionError("the plugin never held the event loop")
        run(scenario(), timeout=30)
        code = server.stop_within(5)
        assert code is not None, "sidecar serve still running 5 s after SIGTERM"


# -- 3. amplification ---------------------------------------------------------------------

def test_3_long_strings_big_events_and_big_history_pages_are_bounded(tmp_path):
    with serve(tmp_path, "--rate-limit", "0") as server:
        async def scenario() -> None:
            peer = await gm(server)
            huge = "z" * 60_000
            reply = await peer.roll(options={"combat": {"zone": huge}})
            assert reply["type"] == "error" and reply["code"] == "too_large", reply
            assert reply["details"]["field"] == "options.combat.zone"
            deep = await peer.roll(options={"x": {"y": [huge[:1000]]}})
            assert deep["type"] == "error" and deep["code"] == "too_large", deep
            # nothing was numbered: the next roll is seq 1
            first = await peer.roll(label="l" * 200)
            assert first["type"] == "outcome" and first["seq"] == 1
            await roll_many(peer, 299, label="l" * 200)
            page = await peer.request({"type": "history", "id": "h", "after": 0, "limit": 500})
            size = len(msgpack.packb(page["events"]))
            assert page["more"] is True, (len(page["events"]), size)
            assert size <= 60 * 1024, size
            assert page["next"] == page["events"][-1]["seq"] < 300
            seqs = [event["seq"] for event in page["events"]]
            for number in range(20):  # the rest, page by page
                if not page["more"]:
                    break
                page = await peer.request({"type": "history", "id": f"h{number}",
                                           "after": page["next"], "limit": 500})
                seqs += [event["seq"] for event in page["events"]]
            assert seqs == list(range(1, 301))
            # a JSON client's page is bounded in JSON: it fits the 64 KiB frame it accepts
            text = await Peer.open(server, binary=False)
            await text.join(name="Texte", role="observer")
            page = await text.request({"type": "history", "id": "j", "limit": 500})
            assert page["type"] == "history" and page["more"] is True
        run(scenario(), timeout=60)


# -- 4. a failed journal write burns a seq, state and the id -------------------------------

def test_4_lone_surrogate_is_refused_at_the_door_and_burns_nothing(tmp_path):
    with serve(tmp_path, "--rate-limit", "0") as server:
        async def scenario() -> None:
            peer = await Peer.open(server, binary=False)
            await peer.join(name="MJ", role="gm")
            await peer.send_raw('{"type": "roll", "id": "s", "ruleset": "bloodlust", '
                                '"params": {"pool": 2}, "label": "\\ud800"}')
            reply = await peer.recv_not_presence()
            assert reply["type"] == "error" and reply["code"] == "bad_message", reply
            after = await peer.roll(label="ok")
            assert after["seq"] == 1
        run(scenario(), timeout=30)


# -- 5. observers exhaust tables and seats -------------------------------------------------

def test_5_observers_cannot_create_tables(tmp_path):
    with serve(tmp_path) as server:
        async def scenario() -> None:
            peer = await Peer.open(server)
            await peer.send(hello("vide-1", "Curieux", "observer"))
            reply = await peer.recv()
            assert reply["type"] == "error", reply
        run(scenario(), timeout=30)


# -- 6. presence storms --------------------------------------------------------------------

async def _presence_until(peer: Peer, names: list[str]) -> None:
    """Read ``peer``'s messages until a presence lists exactly ``names`` (in any order)."""
    while True:
        message = await peer.recv_type("presence", timeout=20)
        if sorted(m["name"] for m in message["members"]) == sorted(names):
            return


def test_6_join_leave_loops_do_not_send_a_presence_per_change(tmp_path):
    with serve(tmp_path) as server:
        async def scenario() -> None:
            watcher = await gm(server)
            members = [await Peer.open(server) for _ in range(20)]
            for i, member in enumerate(members):
                await member.join(name=f"P{i}", role="observer")
            seated = ["MJ", *(f"P{i}" for i in range(20))]
            await _presence_until(watcher, seated)  # the joins' presence messages pass
            # what one full member list of this table weighs
            full = len(msgpack.packb({"type": "presence", "table": "t", "members": [
                {"name": f"P{i}", "role": "observer"} for i in range(20)]}))
            watcher.seen.clear()
            for _ in range(50):
                storm = await Peer.open(server)
                await storm.join(name="Tempête", role="observer")
                await storm.close()
            # One more member who stays: a list with it and no storm is the last word
            # (the storm's last leave and this join both told), however slow the machine.
            last = await Peer.open(server)
            await last.join(name="Fin", role="observer")
            await _presence_until(watcher, [*seated, "Fin"])
            presence = [m for m in watcher.seen if m["type"] == "presence"]
            sent = sum(len(msgpack.packb(m)) for m in presence)
            # coalesced or deltas: far less than a full list per change (101 changes)
            assert sent < 25 * full, f"{len(presence)} presence messages, {sent} bytes"
        run(scenario(), timeout=60)


# -- 7. plugin deadlines with holes --------------------------------------------------------

BLOCKING_ASYNC_PLUGIN = """
    import time
    from sidecar import hookimpl

    @hookimpl
    async def sidecar_modify_outcome(roll, outcome):
        if roll.label == "gel":
            time.sleep(1.0)
"""


def test_7_an_async_hook_blocking_the_loop_is_blamed(tmp_path):
    with serve(tmp_path, plugins={"glace": BLOCKING_ASYNC_PLUGIN}) as server:
        async def scenario() -> None:
            peer = await gm(server)
            await peer.roll(label="gel")
            status = await peer.request({"type": "plugins", "id": "p"})
            glace = next(p for p in status["plugins"] if p["name"] == "glace")
            assert glace["recent_failures"] >= 1 or glace["disabled"], glace
        run(scenario(), timeout=30)


PATIENT_PLUGIN = """
    import asyncio
    from sidecar import hookimpl

    @hookimpl
    async def sidecar_modify_roll(roll):
        if roll.table == "b":
            await asyncio.sleep(0.05)  # waits politely: never holds the loop
"""

LONG_BLOCKER_PLUGIN = """
    import time
    from sidecar import hookimpl

    @hookimpl
    async def sidecar_modify_outcome(roll, outcome):
        if roll.table == "a":
            time.sleep(0.4)  # holds the loop past the whole deadline: disabled at once
"""

BRIEF_BLOCKER_PLUGIN = """
    import time
    from sidecar import hookimpl

    @hookimpl
    async def sidecar_modify_outcome(roll, outcome):
        if roll.table == "c":
            time.sleep(0.15)  # holds the loop, within the 0.25 s deadline
"""


def test_7_only_the_plugin_that_holds_the_loop_is_blamed_even_under_its_deadline(tmp_path):
    with serve(tmp_path, plugins={"patient": PATIENT_PLUGIN, "bloqueur": LONG_BLOCKER_PLUGIN,
                                  "bref": BRIEF_BLOCKER_PLUGIN}) as server:
        async def scenario() -> None:
            at_b, at_a, at_c = [await gm(server, table=t) for t in "bac"]
            # b's patient hook is waiting when a's roll blocks the loop past its deadline
            await at_b.send({"type": "roll", "ruleset": "bloodlust", "params": {"pool": 1},
                             "id": "b1"})
            await asyncio.sleep(0.01)
            await at_a.send({"type": "roll", "ruleset": "bloodlust", "params": {"pool": 1},
                             "id": "a1"})
            for peer, rid in ((at_b, "b1"), (at_a, "a1")):
                while (reply := await peer.recv())["type"] == "presence":
                    pass
                assert reply["type"] == "outcome" and reply["id"] == rid, reply
            blocked = await at_c.roll()  # under the deadline, still a hold on the loop
            assert any("held the event loop" in note for note in blocked["notes"]), blocked
            status = await at_c.request({"type": "plugins", "id": "p"})
            by_name = {p["name"]: p for p in status["plugins"]}
            assert by_name["patient"]["recent_failures"] == 0, by_name["patient"]
            assert by_name["bloqueur"]["disabled"], by_name["bloqueur"]  # at once
            assert by_name["bref"]["recent_failures"] == 1, by_name["bref"]
            assert not by_name["bref"]["disabled"]  # five chances under the deadline
        run(scenario(), timeout=30)


# -- 8. what plugins return is validated before it is stored -------------------------------

HUGE_INT_PLUGIN = """
    from sidecar import hookimpl

    @hookimpl
    def sidecar_modify_outcome(roll, outcome):
        if roll.label == "énorme":
            outcome.result["margin"] = 2 ** 70
"""


def test_8_an_integer_above_2_64_from_a_plugin_does_not_poison_the_table(tmp_path):
    with serve(tmp_path, plugins={"enorme": HUGE_INT_PLUGIN}) as server:
        async def scenario() -> None:
            peer = await gm(server)
            # the extension is left out of the roll (and counted), the roll goes on
            outcome = await peer.roll(label="énorme")
            assert outcome["type"] == "outcome", outcome
            page = await peer.request({"type": "history", "id": "h"})
            assert page["type"] == "history", page
            status = await peer.request({"type": "plugins", "id": "p"})
            enorme = next(p for p in status["plugins"] if p["name"] == "enorme")
            assert enorme["recent_failures"] >= 1, enorme
        run(scenario(), timeout=30)


SPOILER_PLUGIN = """
    from sidecar import hookimpl

    def deep(levels):
        value = []
        for _ in range(levels):
            value = [value]
        return value

    @hookimpl
    def sidecar_modify_outcome(roll, outcome):
        if roll.label == "surrogate":
            outcome.notes.append("\\ud800")
        elif roll.label == "profond":
            outcome.result["x"] = deep(300)
        elif roll.label == "long":
            outcome.notes.append("n" * 20_000)
        elif roll.label == "liste":
            outcome.result["x"] = list(range(5000))
"""


def test_8_an_extension_cannot_make_every_roll_fail_without_being_blamed(tmp_path):
    with serve(tmp_path, plugins={"gacheur": SPOILER_PLUGIN}) as server:
        async def scenario() -> None:
            peer = await gm(server)
            for label in ("surrogate", "profond", "long", "liste"):
                outcome = await peer.roll(label=label)
                # the extension is left out of the roll, which goes on and is stored
                assert outcome["type"] == "outcome", (label, outcome)
                assert any("gacheur" in note for note in outcome["notes"]), outcome
                assert "x" not in outcome["result"]
            status = await peer.request({"type": "plugins", "id": "p"})
            spoiler = next(p for p in status["plugins"] if p["name"] == "gacheur")
            assert spoiler["recent_failures"] == 4, spoiler
            page = await peer.request({"type": "history", "id": "h"})
            assert [e["seq"] for e in page["events"]] == [1, 2, 3, 4]
        run(scenario(), timeout=30)


# -- 9. overflows and duplicate headers ----------------------------------------------------

def test_9_history_after_past_2_63_is_answered_without_internal_error(tmp_path):
    with serve(tmp_path) as server:
        async def scenario() -> None:
            peer = await gm(server)
            reply = await peer.request({"type": "history", "id": "h", "after": 2**63 + 1})
            assert reply["type"] == "history" or reply["code"] == "bad_message", reply
        run(scenario(), timeout=30)
        with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
            sock.sendall((f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n"
                          "Origin: http://127.0.0.1\r\nOrigin: https://evil.test\r\n"
                          "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                          "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                          "Sec-WebSocket-Version: 13\r\n\r\n").encode())
            status = sock.recv(1024).split(b"\r\n")[0]
        assert b" 500 " not in status, status


# -- 10. rate limits on every request, on token guesses, and on logs -----------------------

def test_10_every_request_is_rate_limited_and_errors_are_logged_once_per_interval(tmp_path):
    with serve(tmp_path, "--rate-limit", "20") as server:
        async def scenario() -> None:
            host = await Peer.open(server)  # a GM opens the table the observer watches
            await host.join(name="MJ", role="gm")
            peer = await Peer.open(server)
            await peer.join(name="Déluge", role="observer")
            before = server.log.stat().st_size
            with contextlib.suppress(ConnectionClosed):
                for _ in range(500):
                    await peer.send({"type": "plugins"})
                for _ in range(1000):
                    await peer.send_raw(b"\xc1\xff\x00garbage")
                for _ in range(200):
                    await peer.send({"type": "nimporte"})
            codes: list[str] = []
            with pytest.raises(ConnectionClosed) as closed:
                while True:
                    message = await peer.recv(timeout=20)
                    if message["type"] != "presence":
                        codes.append(message.get("code", message["type"]))
            # a burst of 40 answered, then rate_limited for every kind of frame, then,
            # ten bursts past the rate, the connection is closed (1008)
            counts = {code: codes.count(code) for code in set(codes)}
            assert counts.get("plugins", 0) < 100 and counts.get("rate_limited", 0) >= 390, \
                counts
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008
            # a line per kind of error and interval, not per frame
            grown = server.log.stat().st_size - before
            assert grown < 20_000, f"{grown} bytes of log for 1,700 bad requests"
        run(scenario(), timeout=60)


def test_10_token_guessing_is_throttled_per_address(tmp_path):
    with serve(tmp_path) as server:
        async def guess(token: str) -> tuple[str, str]:
            peer = await Peer.open(server)
            await peer.send(hello("t", "Intrus", "gm", token))
            reply = await peer.recv()
            await peer.close()
            return reply["type"], reply.get("code", "")

        async def scenario() -> None:
            host = await Peer.open(server)  # the table the observer joins at the end
            await host.join(name="MJ", role="gm")
            answers = [await guess(f"devine-{i}") for i in range(12)]
            codes = [code for _, code in answers]
            assert codes[:5] == ["forbidden"] * 5, codes
            assert codes[-5:] == ["rate_limited"] * 5, codes
            # while throttled, even the right token is not checked
            assert await guess(GM_TOKEN) == ("error", "rate_limited")
            # observers (no token) still join
            peer = await Peer.open(server)
            welcome = await peer.join(name="Spectateur", role="observer")
            assert welcome["type"] == "welcome"
        run(scenario(), timeout=30)


# -- 11. journal edge cases ----------------------------------------------------------------

def test_11_a_journal_with_corrupted_pages_is_refused_at_start(tmp_path):
    db = tmp_path / "corrupt.db"
    with serve(tmp_path, "--rate-limit", "0", db=db) as server:
        async def scenario() -> None:
            peer = await gm(server)
            await roll_many(peer, 400)
        run(scenario(), timeout=60)
        assert server.stop_within(20) is not None
    with sqlite3.connect(db) as check:
        page_size = check.execute("PRAGMA page_size").fetchone()[0]
    raw = bytearray(db.read_bytes())
    for page in range(2, len(raw) // page_size, 2):  # every other page after the header
        start = page * page_size + 100
        raw[start:start + 200] = os.urandom(200)
    db.write_bytes(bytes(raw))
    proc = subprocess.Popen(
        [sys.executable, "-m", "sidecar.cli.main", "serve", "--port", "0", "--db", str(db)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        code = proc.wait(20)
    except subprocess.TimeoutExpired:
        code = None
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(10)
    assert code not in (None, 0), "a corrupted journal was opened and served"


# -- 12. side channels ---------------------------------------------------------------------

def test_12_a_secret_roll_does_not_change_what_others_see_of_theirs(tmp_path):
    with serve(tmp_path, "--allow-player-dice") as server:
        async def botch(peer: Peer, mode: str) -> dict[str, Any]:
            return await peer.roll(params={"pool": 1}, dice=[1], mode=mode,
                                   options={"blank_botch": {}})

        async def player_botch(table: str, secret_before: bool) -> str:
            master = await gm(server, table=table)
            player = await Peer.open(server)
            await player.join(table=table, name="Joueuse")
            if secret_before:
                assert (await botch(master, "self"))["type"] == "outcome"
            outcome = await botch(player, "public")
            return outcome["result"]["kind"]

        async def scenario() -> None:
            alone = await player_botch("sans-secret", False)
            after_secret = await player_botch("avec-secret", True)
            assert after_secret == alone, (after_secret, alone)
        run(scenario(), timeout=30)


# -- 13. Foundry module: escaping ----------------------------------------------------------

def test_13_foundry_cards_escape_odds_values_and_show_enrichers_as_text(tmp_path):
    script = tmp_path / "probe.mjs"
    module = ROOT / "examples/foundry-module/scripts/sidecar-chat.js"
    script.write_text(textwrap.dedent(f"""
        import {{ renderOdds, renderCard }} from {json.dumps(module.as_uri())};
        const evil = '"><img src=x onerror=alert(1)>';
        const odds = {{ruleset: "bloodlust", p_success: 0.5,
                       kinds: {{botch: evil, failure: 0.1, narrow: 0.1, success: 0.2,
                               critical: 0.1}}}};
        const card = renderCard({{type: "outcome", seq: 1, roll: "r", table: "t",
            by: {{name: "A", role: "player"}}, ruleset: "bloodlust", params: {{}},
            label: "[[/r 1d20]] @UUID[Actor.x]{{y}}", mode: "public", dice: [],
            result: {{success: true, margin: 1, kind: "success",
                     label: {{fr: "ok", en: "ok"}}}}, applied: [], notes: [], text: "t"}});
        console.log(JSON.stringify({{odds: renderOdds(odds), card}}));
    """))
    done = subprocess.run(["node", str(script)], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    cards = json.loads(done.stdout)
    assert "<img" not in cards["odds"], cards["odds"]
    assert "[[" not in cards["card"] and "@UUID[" not in cards["card"], cards["card"]
