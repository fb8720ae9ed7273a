"""The journal's file on disk (issues #13.4, #14.4, #14.11): one writer per file whatever path
names it, readers beside a running server, appends that fail change nothing, damaged files
refused at start, one unreadable row or state isolated. Real files, corrupted by the tests."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import sqlite3
from pathlib import Path

import pytest

from sidecar.stores.journal import Journal, JournalError, JournalReader, WriterLock
from tests.helpers import GM_TOKEN, Peer, run, running_server
from tests.support.journal import event
from tests.support.serve import ServeProcess, sidecar


def rows(path: Path, sql: str) -> list[tuple]:
    with contextlib.closing(sqlite3.connect(path)) as db:
        return db.execute(sql).fetchall()


def fill(path: Path, count: int, table: str = "t", label: str = "") -> None:
    async def scenario() -> None:
        journal = Journal(path)
        try:
            for seq in range(1, count + 1):
                await journal.append({**event(table, seq), "label": label}, {"p": {"n": seq}})
        finally:
            journal.close()
    asyncio.run(scenario())


# -- the lock: one writer per database file --------------------------------------------------


def test_a_symlink_or_another_spelling_is_the_same_journal(tmp_path):
    (tmp_path / "sub").mkdir()
    real = tmp_path / "real.db"
    link = tmp_path / "sub" / "link.db"
    link.symlink_to(real)
    first = Journal(real)
    try:
        for other in (link, tmp_path / "sub" / ".." / "real.db"):
            with pytest.raises(JournalError, match="another sidecar server") as refused:
                Journal(other)
            assert str(real) in str(refused.value)  # the real file is named
    finally:
        first.close()
    second = Journal(link)  # released: the link opens the same database
    try:
        assert second.path == str(real)
    finally:
        second.close()
    assert not (tmp_path / "sub" / "link.db-wal").exists()  # no second WAL beside the link


def test_two_servers_through_a_symlink_the_second_is_refused(tmp_path):
    real, link = tmp_path / "real.db", tmp_path / "link.db"
    link.symlink_to(real)
    with ServeProcess("--db", str(real)) as server:
        second = sidecar("serve", "--port", "0", "--db", str(link))
        assert second.returncode == 1
        assert "another sidecar server is using the journal" in second.stderr
        assert str(real) in second.stderr and "Traceback" not in second.stderr
        assert server.stop() == 0


# -- readers: never the lock, never a write --------------------------------------------------


def test_export_works_beside_a_running_server(tmp_path):
    db = tmp_path / "live.db"
    with ServeProcess("--db", str(db)) as server:
        def roll(mode: str) -> None:
            done = sidecar("roll", "bloodlust", "pool=2", "--url", server.url, "--table",
                           "demo", "--role", "gm", "--token", GM_TOKEN, "--mode", mode)
            assert done.returncode == 0, done.stderr

        roll("public")
        roll("blind")
        exported = sidecar("export", "--table", "demo", "--db", str(db))
        assert exported.returncode == 0, exported.stderr
        assert [json.loads(line)["seq"] for line in exported.stdout.splitlines()] == [1, 2]
        roll("public")  # the server still writes after a reader came and went
        again = sidecar("export", "--table", "demo", "--db", str(db))
        assert [json.loads(line)["seq"] for line in again.stdout.splitlines()] == [1, 2, 3]
        assert server.stop() == 0


def test_a_reader_never_takes_the_lock_and_cannot_write(tmp_path):
    path = tmp_path / "r.db"
    fill(path, 2)
    reader = JournalReader(str(path))
    try:
        writer = Journal(path)  # a reader being open does not keep a server out
        writer.close()
        assert [e["seq"] for e in reader.all_events("t")] == [1, 2]
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            reader._connection().execute("DELETE FROM events")
    finally:
        reader.close()
    with pytest.raises(JournalError, match="no journal at"):
        JournalReader(str(tmp_path / "missing.db"))


# -- appends that fail change nothing --------------------------------------------------------


def test_an_event_that_cannot_be_encoded_stores_nothing(tmp_path):
    async def scenario() -> None:
        journal = Journal(tmp_path / "bad.db")
        try:
            await journal.append(event("t", 1), {"p": {"n": 1}})
            for bad in ({**event("t", 2), "label": "\ud800"},        # lone surrogate
                        {**event("t", 2), "result": {1: "a key that is not text"}},
                        {**event("t", 2), "seq": "2"},
                        {k: v for k, v in event("t", 2).items() if k != "by"}):
                with pytest.raises(JournalError, match="not stored"):
                    await journal.append(bad, {"p": {"n": 2}})
            with pytest.raises(JournalError, match="not stored"):
                await journal.append(event("new", 1), {"p": {"bad": "\udfff"}})
            loop_state: dict = {"p": {}}
            loop_state["p"]["again"] = loop_state  # a structure that contains itself
            with pytest.raises(JournalError, match="not stored"):
                await journal.append(event("new", 1), loop_state)
            assert journal.table_meta("t") == (1, {"p": {"n": 1}})
            assert journal.tables() == [("t", 1)]  # no state row for the table "new"
            await journal.append(event("t", 2), {"p": {"n": 2}})  # the same seq, now fine
            assert [e["seq"] for e in journal.all_events("t")] == [1, 2]
        finally:
            journal.close()
    run(scenario())


def test_a_full_disk_stores_nothing_and_the_next_append_works(tmp_path):
    async def scenario() -> None:
        journal = Journal(tmp_path / "full.db")
        try:
            await journal.append(event("t", 1), {"p": {"n": 1}})
            connection = journal.writer._connection
            pages = connection.execute("PRAGMA page_count").fetchone()[0]
            connection.execute(f"PRAGMA max_page_count = {pages}")  # the disk is full
            big = {**event("t", 2, rid="once"), "label": "x" * 20_000}
            with pytest.raises(JournalError, match="full"):
                await journal.append(big, {"p": {"n": 2}})
            with pytest.raises(JournalError, match="full"):  # a new table: no partial row
                await journal.append({**event("u", 1), "label": "y" * 20_000}, {"p": {}})
            assert not connection.in_transaction
            assert journal.table_meta("t") == (1, {"p": {"n": 1}})
            assert journal.tables() == [("t", 1)]
            assert journal.find_request("t", "A", "player", "once") is None
            connection.execute("PRAGMA max_page_count = 1073741823")  # space again
            await journal.append(big, {"p": {"n": 2}})
            assert journal.table_meta("t") == (2, {"p": {"n": 2}})
        finally:
            journal.close()
        assert rows(tmp_path / "full.db", "SELECT seq FROM events") == [(1,), (2,)]
    run(scenario())


@pytest.mark.parametrize("writer_busy", [False, True], ids=["loop-commit", "thread-commit"])
def test_one_failing_event_in_a_group_commit_fails_only_its_own_append(tmp_path, writer_busy):
    """Appends made in one loop turn share a commit (on the loop, or in the writer thread
    when it holds the connection); a duplicate request id among them fails alone."""
    async def scenario() -> None:
        journal = Journal(tmp_path / "group.db")
        try:
            await journal.append(event("t", 1, rid="x"), {"p": {"n": 1}})
            commits = journal.writer.commits
            if writer_busy:
                journal.writer._lock.acquire()
            appends = [journal.append(event("t", 2), {"p": {"n": 2}}),
                       journal.append(event("t", 3, rid="x"), {"p": {"n": 3}}),  # duplicate
                       journal.append(event("t", 4), {"p": {"n": 4}}),
                       journal.append(event("t", 5), {"p": {"n": 5}})]
            gathered = asyncio.gather(*appends, return_exceptions=True)
            if writer_busy:
                await asyncio.sleep(0)  # all four queued behind the busy writer
                journal.writer._lock.release()
            results = await gathered
            assert [type(r).__name__ for r in results] == \
                ["NoneType", "JournalError", "NoneType", "NoneType"]
            assert "UNIQUE" in str(results[1])
            # grouped: fewer commits than events, plus the one retry of each event
            assert journal.writer.commits - commits <= 1 + 3
            assert [e["seq"] for e in journal.all_events("t")] == [1, 2, 4, 5]
            assert journal.table_meta("t") == (5, {"p": {"n": 5}})
            await journal.append(event("t", 6), {"p": {"n": 6}})
        finally:
            journal.close()
    run(scenario())


def test_appends_in_one_loop_turn_share_a_commit(tmp_path):
    async def scenario() -> None:
        journal = Journal(tmp_path / "turn.db")
        try:
            before = journal.writer.commits
            await asyncio.gather(*(journal.append(event("t", seq), {})
                                   for seq in range(1, 51)))
            # the first commits at once, the 49 others together at the end of the turn
            assert journal.writer.commits - before == 2
            assert [e["seq"] for e in journal.all_events("t")] == list(range(1, 51))
            for start in range(51, 601, 50):
                await asyncio.gather(*(journal.append(event("t", seq), {})
                                       for seq in range(start, start + 50)))
            # 600 events in 24 commits write far fewer than CHECKPOINT_PAGES pages: no
            # checkpoint (an fsync stall) is due yet, as it would be after 600 lone commits
            assert journal.writer.commits - before == 24
            assert journal.writer.checkpoints == 0
        finally:
            journal.close()
    run(scenario())


# -- damaged files ---------------------------------------------------------------------------


def corrupt_a_page(path: Path) -> None:
    """Overwrite the header of a b-tree page in the middle of the file (a bad sector)."""
    page_size = rows(path, "PRAGMA page_size")[0][0]
    assert not Path(f"{path}-wal").exists()  # everything is in the main file
    pages = path.stat().st_size // page_size
    with open(path, "r+b") as file:
        file.seek(page_size * (pages // 2))
        file.write(b"\xa5" * 64)


def test_a_database_with_corrupted_pages_is_refused_at_start(tmp_path):
    path = tmp_path / "damaged.db"
    fill(path, 2000, label="a label of some length " * 4)
    corrupt_a_page(path)
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    with pytest.raises(JournalError) as refused:
        Journal(path)
    message = str(refused.value)
    assert "damaged" in message and "will not write" in message
    assert "sidecar export" in message and ".recover" in message and "backup" in message
    failed = sidecar("serve", "--port", "0", "--db", str(path))
    assert failed.returncode == 1
    assert "is damaged" in failed.stderr and "Traceback" not in failed.stderr
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before  # nothing written
    saved = sidecar("export", "--table", "t", "--db", str(path))  # what can be read
    assert saved.returncode == 1 and ".recover" in saved.stderr
    assert "Traceback" not in saved.stderr and len(saved.stdout.splitlines()) >= 1
    lock = WriterLock(path)  # the refused start released the writer's lock
    lock.acquire()
    lock.release()


def test_one_unreadable_event_does_not_break_history_or_resume(tmp_path, caplog):
    db = tmp_path / "row.db"

    async def play(count: int) -> None:
        async with running_server(db=str(db)) as server:
            gm = await Peer.open(server)
            await gm.join(name="MJ", role="gm")
            for _ in range(count):
                await gm.roll()
            await gm.close()

    run(play(4))
    with contextlib.closing(sqlite3.connect(db)) as file, file:
        file.execute("UPDATE events SET body = '{\"seq\": 2, \"type\": \"outc' WHERE seq = 2")
        file.execute("UPDATE events SET body = CAST(x'7b22ff' AS TEXT) WHERE seq = 3")

    async def scenario() -> None:
        async with running_server(db=str(db)) as server:
            gm, back = await Peer.open(server), await Peer.open(server)
            await gm.join(name="MJ", role="gm")
            page = await gm.request({"type": "history", "id": "h", "limit": 50})
            assert [e["seq"] for e in page["events"]] == [1, 2, 3, 4]
            for unreadable in page["events"][1:3]:
                assert unreadable["result"]["unreadable"] is True
                assert "illisible" in unreadable["text"] and unreadable["by"]["name"] == "MJ"
            assert page["events"][3]["result"].get("unreadable") is None
            welcome = await back.join(name="Brady", role="player", resume=0)
            assert welcome["replayed"] == 4
            assert [(await back.recv_type("outcome"))["seq"] for _ in range(4)] == [1, 2, 3, 4]
            assert (await gm.roll())["seq"] == 5  # the table goes on
            for peer in (gm, back):
                await peer.close()

    with caplog.at_level(logging.WARNING, logger="sidecar.journal"):
        run(scenario())
    warned = [r.getMessage() for r in caplog.records if "unreadable" in r.getMessage()]
    assert any("#2" in text for text in warned) and any("#3" in text for text in warned)
    exported = sidecar("export", "--table", "t", "--db", str(db))
    assert exported.returncode == 0, exported.stderr
    lines = [json.loads(line) for line in exported.stdout.splitlines()]
    assert [e["seq"] for e in lines] == [1, 2, 3, 4, 5] and lines[1]["unreadable"] is True


def test_unreadable_table_state_starts_empty_and_says_so(tmp_path, caplog):
    db = tmp_path / "state.db"

    async def play() -> None:
        async with running_server(db=str(db)) as server:
            gm = await Peer.open(server)
            await gm.join(name="MJ", role="gm")
            used = await gm.roll(params={"pool": 1}, dice=[1], options={"blank_botch": {}})
            assert used["result"]["kind"] == "failure"  # the blank botch is used up
            await gm.close()

    run(play())
    with contextlib.closing(sqlite3.connect(db)) as file, file:
        file.execute("UPDATE tables SET state = '{\"blank_botch\": {\"us' WHERE name = 't'")

    async def scenario() -> None:
        async with running_server(db=str(db)) as server:
            gm = await Peer.open(server)
            welcome = await gm.join(name="MJ", role="gm")
            assert welcome["seq"] == 1
            again = await gm.roll(params={"pool": 1}, dice=[1], options={"blank_botch": {}})
            # an empty state: the blank botch is available again, and the seq goes on
            assert again["seq"] == 2 and again["result"]["kind"] == "failure"
            await gm.close()

    with caplog.at_level(logging.ERROR, logger="sidecar.journal"):
        run(scenario())
    assert any("EMPTY state" in r.getMessage() and "'t'" in r.getMessage()
               for r in caplog.records)
    reader = JournalReader(str(db))
    try:
        seq, state = reader.table_meta("t")
        assert seq == 2 and isinstance(state, dict)  # the next append wrote a good state
    finally:
        reader.close()


def test_unreadable_rows_are_reported_once_each(tmp_path, caplog):
    path = tmp_path / "once.db"
    fill(path, 3)
    with contextlib.closing(sqlite3.connect(path)) as file, file:
        file.execute("UPDATE events SET body = 'not json' WHERE seq = 2")
        # valid JSON, but an outcome no view can show (no text)
        file.execute("UPDATE events SET body = json_remove(body, '$.text') WHERE seq = 3")
    reader = JournalReader(str(path))
    try:
        with caplog.at_level(logging.WARNING, logger="sidecar.journal"):
            for _ in range(3):
                page = reader.page("t", "A", "player", 0, None, 10)
                assert [e["seq"] for e in page] == [1, 2, 3]
                assert [e.get("unreadable", False) for e in page] == [False, True, True]
        assert sum("unreadable" in r.getMessage() for r in caplog.records) == 2
    finally:
        reader.close()


def test_an_append_never_returns_before_an_earlier_one(tmp_path):
    """Events are sent in the order their appends return: an append made while an earlier
    one is committed but its caller not yet resumed must not return first (the lone-append
    path would commit it at once)."""
    async def scenario() -> None:
        journal = Journal(tmp_path / "order.db")
        returned: list[int] = []

        async def append(seq: int, turns_later: int = 0) -> None:
            for _ in range(turns_later):
                await asyncio.sleep(0)
            await journal.append(event("t", seq), {})
            returned.append(seq)

        try:
            seq = 0
            for _ in range(20):
                # 1: committed at once; 2: grouped at the end of the turn; 3: appended in
                # the next turn, after 2 was committed and before 2's caller resumed.
                await asyncio.gather(append(seq + 1), append(seq + 2), append(seq + 3, 1),
                                     append(seq + 4, 2), append(seq + 5, 3))
                seq += 5
            assert returned == list(range(1, seq + 1))
        finally:
            journal.close()
    run(scenario())


# -- the table's plugin state is written when it changes ---------------------------------------


def test_a_state_is_written_only_when_it_changes_and_the_last_one_wins(tmp_path):
    path = tmp_path / "states.db"

    async def scenario() -> None:
        journal = Journal(path)
        try:
            for seq in (1, 2, 3):  # the same state three times: one write
                await journal.append(event("t", seq), {"p": {"n": 1}})
            assert rows(path, "SELECT seq, state FROM tables") == [(1, '{"p":{"n":1}}')]
            # In one loop turn: the first append commits at once, the other three together;
            # in that batch the state changes twice and comes back: the last one wins.
            await asyncio.gather(journal.append(event("t", 4), {"p": {"n": 2}}),
                                 journal.append(event("t", 5), {"p": {"n": 5}}),
                                 journal.append(event("t", 6), {"p": {"n": 6}}),
                                 journal.append(event("t", 7), {"p": {"n": 2}}))
            assert journal.table_meta("t") == (7, {"p": {"n": 2}})
            await journal.append(event("t", 8), {"p": {"n": 4}})
            assert journal.tables() == [("t", 8)]
        finally:
            journal.close()
        reopened = Journal(path)  # a restart reads the last state and the events' seq
        try:
            assert reopened.table_meta("t") == (8, {"p": {"n": 4}})
        finally:
            reopened.close()
    run(scenario())


def test_numbers_a_client_cannot_read_and_a_plugin_state_that_is_no_map_are_isolated(
        tmp_path, caplog):
    db = tmp_path / "numbers.db"

    async def play() -> None:
        async with running_server(db=str(db)) as server:
            gm = await Peer.open(server)
            await gm.join(name="MJ", role="gm")
            for _ in range(3):
                await gm.roll(options={"blank_botch": {}})
            await gm.close()

    run(play())
    with contextlib.closing(sqlite3.connect(db)) as file, file:
        # An infinity (1e999) and an integer past 64 bits, which MessagePack cannot carry.
        file.execute("""UPDATE events SET body = replace(body, '"margin":',
                        '"x":1e999,"margin":') WHERE seq = 1""")
        file.execute("""UPDATE events SET body = replace(body, '"margin":',
                        '"x":123456789012345678901234567890,"margin":') WHERE seq = 2""")
        file.execute("""UPDATE tables SET state = '{"blank_botch": 5}' WHERE name = 't'""")

    async def scenario() -> None:
        async with running_server(db=str(db)) as server:
            gm, back = await Peer.open(server), await Peer.open(server)  # MessagePack both
            await gm.join(name="MJ", role="gm")
            page = await gm.request({"type": "history", "id": "h", "limit": 50})
            assert page["type"] == "history", page
            assert [e["seq"] for e in page["events"]] == [1, 2, 3]
            assert page["events"][0]["result"]["unreadable"] is True
            assert page["events"][1]["result"]["x"] == float(123456789012345678901234567890)
            welcome = await back.join(name="Brady", role="player", resume=0)
            assert welcome["replayed"] == 3
            assert [(await back.recv_type("outcome"))["seq"] for _ in range(3)] == [1, 2, 3]
            rolled = await gm.roll(options={"blank_botch": {}})  # the table plays on
            assert rolled["type"] == "outcome" and rolled["seq"] == 4, rolled
            for peer in (gm, back):
                await peer.close()

    with caplog.at_level(logging.WARNING, logger="sidecar.journal"):
        run(scenario())
    assert any("'blank_botch'" in r.getMessage() and "not a map" in r.getMessage()
               for r in caplog.records)
