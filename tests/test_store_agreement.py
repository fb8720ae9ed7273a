"""The SQLite journal and Redis answer alike: who sees what is one rule.

A table's events of every mode (public, gm, blind, self), with and without an audience
(``""``: the GMs; a seat by identity; a seat by name, as journals before seat ids wrote),
by a GM, a seated player, another seat and a player who joined with the shared token under
the seated player's name, are stored in a real SQLite journal file and a real Redis; each
member's history pages, counts and repeated requests must be the same in both, and hold
exactly what the live fan-out (``sidecar.table.visibility``) shows that member.
"""

from __future__ import annotations

import asyncio
import itertools
import sqlite3
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sidecar.stores.redis import RedisStore
from sidecar.stores.sqlite import SqliteStore
from sidecar.table.visibility import audience, identity

try:  # (the rule's own module: written once, in this version)
    from sidecar.stores.visible import audience_of
except ImportError:  # an earlier version: the plan's own reading
    def audience_of(event: dict[str, Any]) -> str | None:
        owner = event.get("audience")
        return "" if owner is None and event["mode"] == "blind" and "reacts_to" in event \
            else owner

GM = {"name": "Mo", "role": "gm"}
SEATED = {"name": "Ann", "role": "player", "seat": "s1"}
OTHER_SEAT = {"name": "Bob", "role": "player", "seat": "s2"}
SHARED_TOKEN = {"name": "Ann", "role": "player"}  # same display name, no seat
OLD_SEAT = {"name": "Ann", "role": "player", "seat": True}  # before seats had ids
ROLLERS = (GM, SEATED, OTHER_SEAT, SHARED_TOKEN, OLD_SEAT)
MEMBERS = [identity(by) for by in ROLLERS] + [("Oz", "observer"), ("Bob", "gm")]
MODES = ("public", "gm", "blind", "self")
AUDIENCES = (None, "", "seat:s1", "seat:s2", "Ann", "Bob", "seat:gone")


def outcome(table: str, seq: int, by: dict[str, Any], mode: str, owner: str | None,
            request_id: Any, reacts_to: int | None = None) -> dict[str, Any]:
    """An event as the server journals it (every field a reader of an outcome needs;
    ``reacts_to``: a decision on an open roll, without an audience as an earlier version
    wrote those on blind rolls)."""
    event = {"type": "outcome", "seq": seq, "roll": f"r{seq}", "table": table, "by": by,
             "ruleset": "d6", "params": {}, "label": "", "mode": mode, "dice": [],
             "result": {"success": True}, "applied": [], "notes": [],
             "text": {"fr": "x", "en": "x"}, "request_id": request_id}
    if owner is not None:
        event["audience"] = owner
    if reacts_to is not None:
        event["reacts_to"] = reacts_to
    return event


stored = st.tuples(st.sampled_from(ROLLERS), st.sampled_from(MODES),
                   st.sampled_from(AUDIENCES), st.sampled_from(("int", "str", None)),
                   st.booleans())


@pytest.fixture
def stores(tmp_path, redis_server):
    """A real SQLite journal file and a real Redis, opened on one event loop."""
    runner = asyncio.Runner()
    sqlite, redis = SqliteStore(tmp_path / "journal.db"), RedisStore(redis_server.url)
    runner.run(sqlite.open())
    runner.run(redis.open())
    yield runner, sqlite, redis
    runner.run(redis.close())
    runner.run(sqlite.close())
    runner.close()


tables = itertools.count(1)


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(events=st.lists(stored, min_size=1, max_size=14), cut=st.integers(0, 14),
       limit=st.integers(1, 5))
def test_the_journal_and_redis_show_each_member_the_same_history(stores, events, cut, limit):
    runner, sqlite, redis = stores
    table = f"t{next(tables)}"
    written = []
    for seq, (by, mode, owner, rid, decision) in enumerate(events, start=1):
        request_id = {"int": seq, "str": str(seq), None: None}[rid]
        event = outcome(table, seq, by, mode, None if decision else owner, request_id,
                        reacts_to=seq - 1 if decision else None)
        written.append(event)
        for store in (sqlite, redis):
            runner.run(store.append(event, {}, (), expected=seq - 1))
    last = len(events)

    async def answers(store: Any, member: tuple[str, str]) -> tuple[Any, ...]:
        whole = await store.page(table, *member, 0, None, 100)
        counts = [await store.count(table, *member, after, last) for after in range(last + 1)]
        paged, after = [], min(cut, last)
        while page := await store.page(table, *member, after, last, limit):
            paged.append([event["seq"] for event in page])
            after = page[-1]["seq"]
        found = [await store.find_request(table, *member, rid)
                 for seq in range(1, last + 1) for rid in (seq, str(seq))]
        return whole, counts, paged, [event and event["seq"] for event in found]

    for member in MEMBERS:
        journal, stream = runner.run(answers(sqlite, member)), runner.run(answers(redis, member))
        assert journal == stream, member
        # ... and exactly what the live fan-out shows that member.
        shown = [event["seq"] for event in written
                 if audience(event["mode"], member, identity(event["by"]),
                             audience_of(event)) is not None]
        assert [event["seq"] for event in journal[0]] == shown, member
        assert journal[1][0] == len(shown), member


def test_the_sql_rule_and_the_python_rule_agree_on_every_row():
    """The SQL the journal filters with and the Python Redis filters with, built from the
    one rule, agree on every (mode, roller, audience) and member — odd ones included
    (an unknown mode, roles spelled in capitals, a name that looks like a seat)."""
    from sidecar.stores.visible import VISIBLE, VISIBLE_BEFORE_AUDIENCE, visible

    modes = (*MODES, "other", "PUBLIC")
    roles = ("gm", "GM", "player", "observer", "seat", "seat:s1", "seat:s2", "SEAT:s1",
             "seatless")
    names = ("Ann", "Bob", "seat:s1", "")
    audiences = (*AUDIENCES, "seat:", "SEAT:s1", "seat:s1x")
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE events (mode, roller_name, roller_role, audience)")
    rows = list(itertools.product(modes, names, roles, audiences))
    db.executemany("INSERT INTO events VALUES (?, ?, ?, ?)", rows)
    for name, role in itertools.product(names, roles):
        member = {"name": name, "role": role}
        for sql, blank in ((VISIBLE, False), (VISIBLE_BEFORE_AUDIENCE, True)):
            got = set(db.execute(f"SELECT * FROM events WHERE {sql}", member).fetchall())
            expected = {row for row in rows
                        if visible(*row[:3], None if blank else row[3], name, role)}
            assert got == expected, (name, role, blank)


def test_what_nobody_may_see_every_member_sees_whole():
    """The live fan-out decides once for all readers what the identity no member has
    (``NOBODY``) may see whole: every member must then see it whole too, for every mode,
    audience and roller."""
    from sidecar.table.visibility import FULL, NOBODY

    seen_by_all = 0
    for by, mode, owner in itertools.product(ROLLERS, (*MODES, "other"), AUDIENCES):
        if audience(mode, NOBODY, identity(by), owner) == FULL:
            seen_by_all += 1
            for member in MEMBERS:
                assert audience(mode, member, identity(by), owner) == FULL, (by, mode, owner,
                                                                             member)
    assert seen_by_all == len(ROLLERS)  # a public outcome without an audience, by anyone


def test_a_journal_written_before_blind_decisions_had_an_audience_counts_what_it_shows(
        tmp_path):
    """Such a decision (a row of an earlier version: no audience) is the GMs' alone, live
    and in history: once the journal is opened by this version its roller's count no
    longer announces it (the plan never showed it), and the GM's still does."""
    path = tmp_path / "old.db"
    by = {"name": "Ann", "role": "player", "seat": "s1"}

    async def write() -> None:
        store = SqliteStore(path)
        await store.open()
        await store.append(outcome("t", 1, by, "blind", None, None), {}, (), expected=0)
        await store.append(outcome("t", 2, by, "blind", None, None, reacts_to=1), {}, (),
                           expected=1)
        await store.close()
    asyncio.run(write())
    with sqlite3.connect(path) as db:  # as an earlier version left it
        db.execute("UPDATE events SET audience = NULL")
        db.execute("PRAGMA user_version = 0")
    db.close()

    async def counts() -> list[int]:
        store = SqliteStore(path)
        try:
            return [await store.count("t", *member, 0, 2)
                    for member in (("Ann", "seat:s1"), ("Mo", "gm"))]
        finally:
            await store.close()
    assert asyncio.run(counts()) == [1, 2]
