"""The table core without a socket: joining rules, limits, presence, numbering and views.

These drive :class:`sidecar.table.core.TableCore` directly, as websockets' tests drive its
``ServerProtocol``: requests in, decisions and messages out, no server, no clock.
"""

from __future__ import annotations

import asyncio

import orjson
import pytest

from sidecar.hookspecs import HOOKS_API
from sidecar.host.pipeline import RollPipeline
from sidecar.host.plugins import default_host
from sidecar.protocol.codec import encode
from sidecar.protocol.errors import ProtocolError
from sidecar.protocol.messages import (
    Hello,
    HistoryRequest,
    OddsRequest,
    PluginsRequest,
    RollRequest,
)
from sidecar.protocol.text import heading
from sidecar.table.core import CLOSE_POLICY, PRESENCE_INTERVAL, HistoryPage, TableCore
from sidecar.table.visibility import view
from tests.helpers import GM_TOKEN, PLAYER_TOKEN, make_config

HOST = default_host(None)
PIPELINE = RollPipeline(HOST)


def make_core(journal: dict[str, tuple[int, dict]] | None = None, **config) -> TableCore:
    stored = journal if journal is not None else {}
    return TableCore(make_config(**config), catalogue=HOST, preparer=PIPELINE,
                     load=lambda name: stored.get(name, (0, {})), version="9.9")


def hello(name="Aengus", role="player", table="t", token="", **extra) -> Hello:
    if token == "":
        token = {"gm": GM_TOKEN, "player": PLAYER_TOKEN}.get(role)
    return Hello(table=table, name=name, role=role, token=token, **extra)


def roll(core, table, member, request_id="r1", **fields):
    """begin → resolve → number, as the server does; returns the pending event."""
    request = RollRequest(ruleset="bloodlust", params={"pool": 3}, id=request_id, **fields)
    ticket = core.begin_roll(table, member, request)
    resolution = asyncio.run(PIPELINE.run(ticket.roll, table_state=table.state))
    return core.number(ticket, resolution)


# -- joining -------------------------------------------------------------------------------


def test_wrong_token_is_forbidden_and_closes():
    core = make_core()
    with pytest.raises(ProtocolError) as refused:
        core.join(hello(token="nope"), binary=True)
    assert refused.value.code == "forbidden" and refused.value.close == CLOSE_POLICY
    assert len(core.tables) == 0


def test_observer_cannot_create_a_table_but_joins_an_existing_one():
    core = make_core(journal={"old": (7, {})})
    with pytest.raises(ProtocolError) as refused:
        core.join(hello(role="observer", table="new"), binary=True)
    assert refused.value.code == "forbidden" and refused.value.close is None
    assert refused.value.details == {"table": "new"} and len(core.tables) == 0
    # A table the journal knows exists, even with nobody at it.
    table, _ = core.join(hello(role="observer", table="old"), binary=True)
    assert table.seq == 7
    # One a player opened exists too; an observer with a valid token may open one.
    core.join(hello(table="opened"), binary=True)
    core.join(hello(name="W", role="observer", table="opened"), binary=True)
    core.join(hello(role="observer", table="new", token=PLAYER_TOKEN), binary=True)
    with pytest.raises(ProtocolError):
        core.join(hello(role="observer", table="new2", token="wrong"), binary=True)


def test_observers_have_their_own_limit_and_never_keep_players_out():
    core = make_core(max_members=2, max_observers=3)
    core.join(hello(name="GM", role="gm"), binary=True)
    for i in range(3):
        core.join(hello(name=f"O{i}", role="observer"), binary=True)
    with pytest.raises(ProtocolError) as refused:
        core.join(hello(name="O3", role="observer"), binary=True)
    assert refused.value.code == "too_large" and refused.value.details == {"role": "observer"}
    table, _ = core.join(hello(name="P"), binary=True)  # observers fill theirs, not this
    assert table.seated == 2 and table.observers == 3
    with pytest.raises(ProtocolError) as full:
        core.join(hello(name="P2"), binary=True)
    assert full.value.code == "too_large"


def test_an_empty_table_leaves_memory_and_comes_back_from_the_journal():
    journal: dict[str, tuple[int, dict]] = {}
    core = make_core(journal=journal, max_tables=1)
    table, member = core.join(hello(), binary=True)
    pending = roll(core, table, member)
    journal["t"] = (pending.event["seq"], pending.state)  # what the journal stored
    core.commit(pending)
    core.leave(table, member)
    assert core.tables.get("t") is None and len(core.tables) == 0
    # The slot is free for another table; the old one loads again when joined.
    other, gm = core.join(hello(role="gm", table="u"), binary=True)
    core.leave(other, gm)
    again, _ = core.join(hello(role="observer"), binary=True)
    assert again.seq == 1 and again is not table


def test_a_table_with_an_event_in_flight_stays_until_it_is_stored():
    core = make_core()
    table, member = core.join(hello(), binary=True)
    pending = roll(core, table, member)
    core.leave(table, member)
    assert core.tables.get("t") is table  # its event is on its way to the journal
    core.commit(pending)
    assert core.tables.get("t") is None


def test_welcome_is_built_from_the_table_and_the_catalogue():
    core = make_core()
    request = hello(role="gm", resume=0, id="h1")
    table, member = core.join(request, binary=True)
    welcome = core.welcome(table, member, request, replayed=0)
    assert welcome["type"] == "welcome" and welcome["protocol"] == 1
    assert welcome["server"] == {"name": "vtt-sidecar", "version": "9.9", "hooks": HOOKS_API}
    assert welcome["id"] == "h1" and welcome["replayed"] == 0 and welcome["manual_dice"]
    assert {r["name"] for r in welcome["rulesets"]} >= {"bloodlust", "oweens"}
    plain = hello(name="B")
    table, member = core.join(plain, binary=True)
    assert "replayed" not in core.welcome(table, member, plain)


# -- presence ------------------------------------------------------------------------------


def test_presence_is_coalesced_and_the_last_one_has_the_final_state():
    core = make_core()
    table, first = core.join(hello(name="A"), binary=True)
    assert core.presence_changed(table, now=100.0) == 0  # the first goes out at once
    assert [d.message["members"] for d in core.presence(table, now=100.0)] == [
        [{"name": "A", "role": "player"}]]
    # A burst of joins and leaves within the interval: one more presence, when due.
    delays = []
    for i in range(50):
        _, member = core.join(hello(name=f"O{i}", role="observer"), binary=True)
        delays.append(core.presence_changed(table, now=100.0 + i * 0.001))
        core.leave(table, member)
        delays.append(core.presence_changed(table, now=100.0 + i * 0.001))
    scheduled = [d for d in delays if d is not None]
    assert len(scheduled) == 1 and scheduled[0] == pytest.approx(PRESENCE_INTERVAL)
    _, last = core.join(hello(name="Z", role="gm"), binary=True)
    assert core.presence_changed(table, now=100.2) is None  # already due
    (delivery,) = core.presence(table, now=100.0 + PRESENCE_INTERVAL)
    assert delivery.members == [first, last]
    assert delivery.message == {"type": "presence", "table": "t", "members": [
        {"name": "A", "role": "player"}, {"name": "Z", "role": "gm"}]}


# -- rolling -------------------------------------------------------------------------------


def test_numbering_is_tentative_until_commit():
    core = make_core()
    table, member = core.join(hello(), binary=True)
    pending = roll(core, table, member)
    assert pending.event["seq"] == 1 and table.seq == 0 and table.remembered(
        pending.ticket.key) is None
    error = core.abandon(pending)  # the journal refused it
    assert error.code == "internal"
    assert table.seq == 0 and table.state == {} and table.recent == {}
    again = roll(core, table, member)  # the same id rolls anew, with the same seq
    assert again.event["seq"] == 1 and again.event["roll"] != pending.event["roll"]
    core.commit(again)
    assert table.seq == 1 and table.remembered(again.ticket.key) is again.event


def test_an_event_over_its_byte_bound_is_refused_before_it_counts():
    core = make_core(max_event_bytes=300)  # a bloodlust event takes about 700 bytes
    table, member = core.join(hello(), binary=True)
    with pytest.raises(ProtocolError) as refused:
        roll(core, table, member)
    assert refused.value.code == "too_large"
    assert refused.value.details["max_bytes"] == 300 and refused.value.details["bytes"] > 300
    assert table.pending == 0 and table.seq == 0  # nothing numbered, nothing waiting
    core.config.max_event_bytes = 16 * 1024
    pending = roll(core, table, member)
    assert pending.event["seq"] == 1 and pending.size == len(orjson.dumps(pending.event))
    core.commit(pending)
    assert table.recent_bytes == pending.size  # the size measured once serves both bounds


def test_observers_cannot_roll_and_players_no_manual_dice_unless_allowed():
    core = make_core()
    table, watcher = core.join(hello(role="observer", token=GM_TOKEN), binary=True)
    with pytest.raises(ProtocolError) as refused:
        core.begin_roll(table, watcher, RollRequest(ruleset="bloodlust"))
    assert refused.value.code == "forbidden"
    _, player = core.join(hello(), binary=True)
    with pytest.raises(ProtocolError) as refused:
        core.begin_roll(table, player, RollRequest(ruleset="bloodlust", dice=[1]))
    assert refused.value.details == {"field": "dice"}
    with pytest.raises(ProtocolError) as unknown:
        core.begin_roll(table, player, RollRequest(ruleset="nope"))
    assert unknown.value.code == "unknown_ruleset"


def test_one_plan_one_message_per_audience_group():
    core = make_core()
    table, roller = core.join(hello(name="R"), binary=True)
    _, other_device = core.join(hello(name="R"), binary=False)
    _, gm_fr = core.join(hello(name="GM", role="gm"), binary=True)
    _, gm_en = core.join(hello(name="GM2", role="gm", locale="en"), binary=True)
    _, other = core.join(hello(name="O"), binary=True)
    _, watcher = core.join(hello(name="W", role="observer"), binary=True)

    deliveries = core.commit(roll(core, table, roller, mode="blind", label="Sauter"))
    by_member = {id(m): d.message for d in deliveries for m in d.members}
    assert id(other) not in by_member and id(watcher) not in by_member
    mine = by_member[id(roller)]
    assert mine["id"] == "r1" and mine["result"] == {"hidden": True} and mine["dice"] == []
    assert mine["text"] == heading("R", "Sauter") + "jet à l'aveugle, résultat caché"
    assert "id" not in by_member[id(other_device)]
    assert by_member[id(other_device)]["result"] == {"hidden": True}
    assert by_member[id(gm_fr)]["result"]["kind"] and "id" not in by_member[id(gm_fr)]
    assert by_member[id(gm_en)]["text"] != by_member[id(gm_fr)]["text"]
    # Each group is one message object: encoded once for all of its members.
    assert sum(len(d.members) for d in deliveries) == len({id(m) for d in deliveries
                                                          for m in d.members})

    public = core.commit(roll(core, table, roller, request_id="r2"))
    # requester; fr+binary readers share one message; the JSON device; the English GM.
    assert sorted(len(d.members) for d in public) == [1, 1, 1, 3]


def test_repeat_history_and_replay_use_the_same_views():
    core = make_core()
    table, roller = core.join(hello(name="R"), binary=True)
    _, gm = core.join(hello(name="GM", role="gm"), binary=True)
    _, other = core.join(hello(name="O"), binary=True)
    pending = roll(core, table, roller, mode="self")
    core.commit(pending)
    event = pending.event
    repeat = core.repeat(roller, event)
    assert repeat["duplicate"] is True and repeat["id"] == "r1"
    assert core.replayed(other, event) is None
    assert core.replayed(gm, event) is None  # self: the roller only
    gathering = HistoryPage(table, roller, HistoryRequest(after=0, limit=1, id="h"),
                            binary=True, max_bytes=64 * 1024)
    assert gathering.wanted() == 1
    gathering.add([event, {**event, "seq": 2}])
    assert gathering.wanted() == 0
    page = gathering.message()
    assert page["more"] is True and page["next"] == 1 and page["id"] == "h"
    assert page["events"][0]["id"] == "r1" and "duplicate" not in page["events"][0]


def test_a_history_page_stops_before_its_byte_bound_and_says_more():
    core = make_core()
    table, roller = core.join(hello(name="R"), binary=True)
    events = []
    for _ in range(5):
        pending = roll(core, table, roller, request_id=None)
        core.commit(pending)
        events.append(pending.event)
    one = len(encode(view(events[0], roller), binary=True))
    gathering = HistoryPage(table, roller, HistoryRequest(after=0, limit=100),
                            binary=True, max_bytes=int(one * 2.5))
    gathering.add(events)  # fewer than asked for: the journal has no more
    page = gathering.message()
    assert [e["seq"] for e in page["events"]] == [1, 2] and page["more"] is True
    assert page["next"] == 2 and gathering.size <= one * 2.5
    everything = HistoryPage(table, roller, HistoryRequest(after=0, limit=100),
                             binary=True, max_bytes=64 * 1024)
    everything.add(events)
    assert len(everything.message()["events"]) == 5 and everything.message()["more"] is False


def test_odds_and_plugins_answers():
    core = make_core()
    table, member = core.join(hello(), binary=True)
    request = OddsRequest(ruleset="bloodlust", params={"pool": 1, "difficulty": 6}, id=3)
    prepared = core.prepare_odds(table, member, request)
    answer = core.odds(request, prepared, asyncio.run(PIPELINE.odds(prepared)))
    assert answer["type"] == "odds" and answer["id"] == 3 and answer["p_success"] == 0.5
    assert answer["params"]["pool"] == 1
    listing = core.plugins(PluginsRequest(id="p"))
    assert listing["id"] == "p" and {p["name"] for p in listing["plugins"]} >= {"bloodlust"}
