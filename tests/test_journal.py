"""The table journal (issue #6): durable events, restart, resume, idempotency, history."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from sidecar.stores.journal import CHECKPOINT_PAGES, Journal, JournalError, JournalReader
from sidecar.table.visibility import audience
from tests.helpers import GM_TOKEN, Peer, peers, run, running_server
from tests.support.journal import event

ROOT = Path(__file__).resolve().parent.parent


# -- the journal alone ---------------------------------------------------------------------

def test_appends_while_the_writer_is_busy_keep_their_order(tmp_path):
    """An append commits inline only when nothing is on its way; while the writer thread
    holds the connection, appends queue, and all of them return in seq order."""
    async def scenario() -> None:
        journal = Journal(tmp_path / "order.db")
        returned: list[int] = []

        async def append(seq: int) -> None:
            await journal.append(event("t", seq), {"p": {"last": seq}})
            returned.append(seq)

        seq = 0
        for _ in range(10):
            journal.writer._lock.acquire()  # the writer thread is mid-transaction
            seq += 1
            first = asyncio.create_task(append(seq))
            await asyncio.sleep(0)  # queued behind the busy writer
            burst = []
            for _ in range(20):
                seq += 1
                burst.append(asyncio.create_task(append(seq)))  # queued too: one is waiting
            await asyncio.sleep(0.01)
            assert not returned or returned[-1] < seq - 20  # none committed yet
            journal.writer._lock.release()
            await asyncio.gather(first, *burst)
            seq += 1
            await append(seq)  # alone again: inline
        assert returned == list(range(1, seq + 1))
        assert journal.table_meta("t") == (seq, {"p": {"last": seq}})
        journal.close()
        reader = JournalReader(str(tmp_path / "order.db"))
        try:
            assert [e["seq"] for e in reader.all_events("t")] == list(range(1, seq + 1))
        finally:
            reader.close()
    run(scenario())


def wal_restarts(path: Path) -> int:
    """How many times SQLite started the WAL over: its header's checkpoint sequence number,
    which grows by one each time a commit finds the previous WAL fully checkpointed."""
    with open(f"{path}-wal", "rb") as wal:
        return int.from_bytes(wal.read(32)[12:16], "big")


async def wait_until(condition, what: str, timeout: float = 20) -> None:
    """Poll ``condition`` until it holds (a state, not a duration); fail after ``timeout``."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        assert loop.time() < deadline, f"still waiting for {what}"
        await asyncio.sleep(0.005)


def test_the_wal_is_checkpointed_and_started_over(tmp_path):
    """Commits never checkpoint (that fsyncs); the writer thread does it every
    CHECKPOINT_PAGES pages committed, so the WAL keeps starting over and stays small."""
    path = tmp_path / "wal.db"

    async def scenario() -> None:
        journal = Journal(path)
        big = {"p": {"notes": "x" * 2000}}
        # Each commit of one such event counts 2 pages (its text is under a page), so a
        # checkpoint falls due every CHECKPOINT_PAGES / 2 appends.
        every = CHECKPOINT_PAGES // 2
        count = 12 * every
        try:
            for seq in range(1, count + 1):
                await journal.append(event("t", seq), big)
            due = (count - 1) // every  # the appends that found one due
            await wait_until(lambda: journal.writer.checkpoints >= due,
                             f"{due} checkpoints by the writer thread")
            # Each checkpoint but the last was followed by a commit, which restarted the WAL.
            assert wal_restarts(path) >= due - 1
            # 3,072 commits of over 2 KiB of state each: without restarts the WAL would
            # hold them all (over 12 MiB). With them it holds what was committed between
            # two checkpoints, which the writer thread takes a little late on a loaded
            # machine (6.1-6.4 MiB seen under a load average of 30): the bound is the
            # no-restart size's three quarters, which a WAL that never restarts passes.
            size = (tmp_path / "wal.db-wal").stat().st_size
            assert size < 9 * 1024 * 1024, size
        finally:
            journal.close()
        with contextlib.closing(sqlite3.connect(path)) as db:
            assert db.execute("SELECT COUNT(*) FROM events").fetchone()[0] == count
    run(scenario())


def test_journal_appends_and_reads_back_after_reopening(tmp_path):
    path = tmp_path / "j.db"

    async def write():
        journal = Journal(path)
        for seq in range(1, 4):
            await journal.append(event("t", seq, rid=f"x{seq}"), {"blank_botch": {"used": True}})
        journal.close()

    asyncio.run(write())
    journal = Journal(path)
    try:
        assert journal.table_meta("t") == (3, {"blank_botch": {"used": True}})
        assert journal.table_meta("other") == (0, {})
        assert [e["seq"] for e in journal.all_events("t")] == [1, 2, 3]
        assert journal.find_request("t", "A", "player", "x2")["seq"] == 2
        assert journal.find_request("t", "A", "player", "nope") is None
        assert journal.tables() == [("t", 3)]
        mode = sqlite3.connect(path).execute("PRAGMA journal_mode").fetchone()[0]
        assert mode == "wal"
    finally:
        journal.close()


def test_journal_visibility_in_sql_matches_the_live_rule(tmp_path):
    combos = [(mode, name, role) for mode in ("public", "gm", "blind", "self")
              for name, role in (("A", "player"), ("B", "player"), ("M", "gm"))]

    async def fill(journal):
        for seq, (mode, name, role) in enumerate(combos, start=1):
            await journal.append(event("t", seq, mode, name, role), {})

    journal = Journal(tmp_path / "v.db")
    try:
        asyncio.run(fill(journal))
        for viewer in (("A", "player"), ("B", "player"), ("M", "gm"), ("O", "observer")):
            seen = [e["seq"] for e in journal.page("t", *viewer, 0, None, 1000)]
            expected = [seq for seq, (mode, name, role) in enumerate(combos, start=1)
                        if audience(mode, viewer, (name, role)) is not None]
            assert seen == expected, viewer
            assert journal.count_visible("t", *viewer, 0, 10**6) == len(expected)
    finally:
        journal.close()


def test_corrupt_journal_is_a_clear_error(tmp_path):
    path = tmp_path / "bad.db"
    path.write_bytes(b"this is not an sqlite database at all" * 100)
    with pytest.raises(JournalError) as refused:
        Journal(path)
    assert "not a usable sidecar journal" in str(refused.value)


def test_second_server_on_the_same_journal_is_refused(tmp_path):
    first = Journal(tmp_path / "j.db")
    try:
        with pytest.raises(JournalError, match="another sidecar server"):
            Journal(tmp_path / "j.db")
    finally:
        first.close()


def test_journal_locked_by_another_program_is_a_clear_error(tmp_path):
    path = tmp_path / "locked.db"
    Journal(path).close()
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("PRAGMA journal_mode = DELETE")
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(JournalError, match="locked by another program"):
            Journal(path)
    finally:
        holder.execute("ROLLBACK")
        holder.close()


def test_cli_serve_refuses_corrupt_journal_without_traceback(tmp_path):
    path = tmp_path / "bad.db"
    path.write_bytes(b"garbage" * 1000)
    failed = subprocess.run([sys.executable, "-m", "sidecar.cli.main", "serve", "--port", "0",
                             "--db", str(path)], capture_output=True, text=True, timeout=30)
    assert failed.returncode == 1
    assert "not a usable sidecar journal" in failed.stderr and "Traceback" not in failed.stderr


# -- restart -------------------------------------------------------------------------------


def test_restart_continues_seq_and_extension_state(tmp_path):
    db = str(tmp_path / "t.db")

    async def scenario():
        async with running_server(db=db) as server, peers(server, 1) as (gm,):
            await gm.join(role="gm")
            for _ in range(3):
                await gm.roll()
            used = await gm.roll(params={"pool": 1}, dice=[1], options={"blank_botch": {}})
            assert used["result"]["kind"] == "failure"  # the table's blank botch, used
        async with running_server(db=db) as server, peers(server, 1) as (gm,):
            welcome = await gm.join(role="gm")
            assert welcome["seq"] == 4
            after = await gm.roll(params={"pool": 1}, dice=[1], options={"blank_botch": {}})
            assert after["seq"] == 5 and after["result"]["kind"] == "botch"
    run(scenario())


# -- resume --------------------------------------------------------------------------------


def test_resume_replays_what_the_client_may_see_in_order_then_live():
    async def scenario():
        async with running_server() as server:
            gm, roller = await Peer.open(server), await Peer.open(server)
            await gm.join(name="MJ", role="gm")
            await roller.join(name="Aengus")
            leaver = await Peer.open(server)
            await leaver.join(name="Brady")
            first = await roller.roll()
            seen = await leaver.recv_type("outcome")
            assert seen["seq"] == first["seq"] == 1
            await leaver.close()
            # while Brady is away: every mode, by several people
            await roller.roll(mode="public")          # 2 visible
            await roller.roll(mode="gm")              # 3 not visible to Brady
            await gm.roll(mode="blind")               # 4 not visible
            await roller.roll(mode="self")            # 5 not visible
            await gm.roll(mode="public")              # 6 visible
            back = await Peer.open(server)
            welcome = await back.join(name="Brady", resume=1)
            assert welcome["replayed"] == 2 and welcome["seq"] == 6
            replay = [await back.recv_type("outcome") for _ in range(2)]
            assert [m["seq"] for m in replay] == [2, 6]
            assert all("id" not in m for m in replay)
            live = await gm.roll(mode="public")
            assert (await back.recv_type("outcome"))["seq"] == live["seq"] == 7
            assert await back.quiet() == []
            for peer in (gm, roller, back):
                await peer.close()
    run(scenario())


def test_resume_shows_own_blind_roll_hidden_and_own_ids():
    async def scenario():
        async with running_server() as server:
            player = await Peer.open(server)
            await player.join(name="Aengus")
            await player.roll(mode="blind", id="secret")
            await player.roll(mode="self", id="mine")
            await player.close()
            back = await Peer.open(server)
            welcome = await back.join(name="Aengus", resume=0)
            assert welcome["replayed"] == 2
            blind, own = await back.recv_type("outcome"), await back.recv_type("outcome")
            assert blind["result"] == {"hidden": True} and blind["dice"] == []
            assert blind["id"] == "secret" and own["id"] == "mine" and len(own["dice"]) == 3
            await back.close()
    run(scenario())


def test_resume_while_the_table_keeps_rolling_is_exactly_once_in_order():
    async def scenario():
        async with running_server(rate_limit=0) as server:
            roller = await Peer.open(server)
            await roller.join(name="Roller", role="gm")
            for _ in range(300):
                await roller.send({"type": "roll", "ruleset": "bloodlust",
                                   "params": {"pool": 1}})
            watcher = await Peer.open(server)
            # join (and replay) while those 300 rolls and 200 more are being resolved
            for _ in range(200):
                await roller.send({"type": "roll", "ruleset": "bloodlust",
                                   "params": {"pool": 1}})
            await watcher.join(name="Late", role="observer", resume=0)
            seqs = []
            while len(seqs) < 500:
                seqs.append((await watcher.recv_type("outcome", timeout=10))["seq"])
            assert seqs == list(range(1, 501))
            assert await watcher.quiet(0.3) == []
            roller.ws.transport.abort()  # it never read its outcomes: no slow goodbye
            await watcher.close()
    run(scenario(), timeout=120)


def test_a_client_that_missed_ten_thousand_events_gets_them_all(tmp_path):
    async def scenario():
        # The watcher below shares the server's event loop with four flooding rollers: on a
        # busy machine it can fall more than the default 1 MiB behind and be cut off as
        # "too slow", which is not what this test is about (resume is).
        async with running_server(rate_limit=0, db=str(tmp_path / "big.db"),
                                  max_pending_bytes=64 << 20) as server:
            rollers = [await Peer.open(server) for _ in range(4)]
            for i, peer in enumerate(rollers):
                await peer.join(name=f"R{i}", role="gm")

            # Each roller sends 2,500 rolls without ids; count outcomes at a watcher. The
            # rollers read what they receive, as real clients do (a client that stops
            # reading is disconnected by design).
            async def drain(peer):
                with contextlib.suppress(Exception):
                    async for _ in peer.ws:
                        pass
            drains = [asyncio.create_task(drain(peer)) for peer in rollers]
            counter = await Peer.open(server)
            await counter.join(name="Compteur", role="observer")

            # The watcher reads while the rolls are sent, as a live client does: one that
            # stops reading is cut off by design. Rolls go in rounds of 400, each sent once
            # the watcher has the previous round, so it never falls a megabyte behind.
            received = 0

            async def count_up_to(total: int) -> None:
                nonlocal received
                while received < total:
                    if (await counter.recv(timeout=30))["type"] == "outcome":
                        received += 1
            for round_ in range(25):
                for peer in rollers:
                    for _ in range(100):
                        await peer.send({"type": "roll", "ruleset": "bloodlust",
                                         "params": {"pool": 1}})
                await count_up_to(400 * (round_ + 1))
            late = await Peer.open(server)
            welcome = await late.join(name="Retard", role="observer", resume=0)
            assert welcome["replayed"] == 10_000 and welcome["seq"] == 10_000
            seqs = []
            while len(seqs) < 10_000:
                message = await late.recv(timeout=30)
                if message["type"] == "outcome":
                    seqs.append(message["seq"])
            assert seqs == list(range(1, 10_001))
            for task in drains:
                task.cancel()
            for peer in rollers:
                peer.ws.transport.abort()
            for peer in (counter, late):
                await peer.close()
    run(scenario(), timeout=300)


# -- idempotency ---------------------------------------------------------------------------


def test_same_id_three_times_across_a_restart_is_one_outcome(tmp_path):
    db = str(tmp_path / "idem.db")

    async def scenario():
        async with running_server(db=db) as server, peers(server, 2) as (player, other):
            await player.join(name="Aengus")
            await other.join(name="Brady")
            first = await player.roll(id="roll-42")
            again = await player.roll(id="roll-42")
            assert again["seq"] == first["seq"] and again["duplicate"] is True
            assert again["dice"] == first["dice"] and again["roll"] == first["roll"]
            assert (await other.recv_type("outcome"))["seq"] == first["seq"]
            assert await other.quiet() == []  # nobody else gets the repeat
            assert (await player.roll(id=42))["seq"] == 2  # the integer 42 is another id
        async with running_server(db=db) as server, peers(server, 2) as (player, gm):
            await player.join(name="Aengus")
            await gm.join(name="MJ", role="gm")
            third = await player.roll(id="roll-42")
            assert third["seq"] == 1 and third["duplicate"] is True
            assert await gm.quiet() == []
            # another member's same id is their own request
            assert (await gm.roll(id="roll-42"))["seq"] == 3
        journal = Journal(db)
        try:
            ids = [e["request_id"] for e in journal.all_events("t")]
            assert ids.count("roll-42") == 2 and len(ids) == 3
        finally:
            journal.close()
    run(scenario())


def test_concurrent_repeats_from_two_devices_resolve_once():
    async def scenario():
        async with running_server() as server, peers(server, 2) as (phone, laptop):
            await phone.join(name="Aengus")
            await laptop.join(name="Aengus")
            message = {"type": "roll", "id": "same", "ruleset": "bloodlust",
                       "params": {"pool": 2}}
            await phone.send(message)
            await laptop.send(message)
            replies = []
            for peer in (phone, laptop):
                while True:
                    got = await peer.recv()
                    if got.get("id") == "same":
                        replies.append(got)
                        break
            assert replies[0]["seq"] == replies[1]["seq"] == 1
            assert server.tables.get("t").seq == 1
    run(scenario())


# -- history and export --------------------------------------------------------------------


def test_history_pages_with_visibility():
    async def scenario():
        async with running_server() as server, peers(server, 2) as (gm, player):
            await gm.join(name="MJ", role="gm")
            await player.join(name="Aengus")
            for mode in ("public", "gm", "blind", "self") * 3:
                await gm.roll(mode=mode)
            page = await player.request({"type": "history", "id": "h", "limit": 2})
            assert [e["seq"] for e in page["events"]] == [1, 5] and page["more"] is True
            rest = await player.request({"type": "history", "id": "h2",
                                         "after": page["next"], "limit": 50})
            assert [e["seq"] for e in rest["events"]] == [9] and rest["more"] is False
            everything = await gm.request({"type": "history", "id": "g", "limit": 500})
            assert [e["seq"] for e in everything["events"]] == list(range(1, 13))
            bad = await gm.request({"type": "history", "id": "b", "limit": 501})
            assert bad["code"] == "bad_message" and bad["details"]["field"] == "limit"
    run(scenario())


def test_cli_history_and_export(tmp_path):
    from tests.support.serve import ServeProcess, sidecar

    db = tmp_path / "cli.db"
    with ServeProcess("--db", str(db)) as server:
        for mode in ("public", "blind"):
            rolled = sidecar("roll", "bloodlust", "pool=2", "--url", server.url, "--table",
                             "demo", "--role", "gm", "--token", GM_TOKEN, "--mode", mode)
            assert rolled.returncode == 0, rolled.stderr
        shown = sidecar("history", "--url", server.url, "--table", "demo", "--json")
        assert [json.loads(line)["seq"] for line in shown.stdout.splitlines()] == [1]
        as_gm = sidecar("history", "--url", server.url, "--table", "demo", "--role", "gm",
                        "--token", GM_TOKEN)
        assert as_gm.stdout.count("#") >= 2
        assert server.stop() == 0
    exported = tmp_path / "demo.jsonl"
    done = sidecar("export", "--table", "demo", "--db", str(db), "-o", str(exported))
    assert done.returncode == 0 and "2 événements écrits" in done.stderr  # (--locale fr)
    lines = [json.loads(line) for line in exported.read_text().splitlines()]
    assert [e["seq"] for e in lines] == [1, 2] and lines[1]["mode"] == "blind"
    missing = sidecar("export", "--table", "nope", "--db", str(db))
    assert missing.returncode == 1 and "demo" in missing.stderr
