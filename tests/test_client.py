"""The Python client (``sidecar.client``) against a real server: join, roll, odds, history,
iterating outcomes, and reconnecting with resume."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import Any

import pytest

from sidecar.client import SidecarClient, SidecarError
from sidecar.server.connections import SidecarServer
from tests.helpers import GM_TOKEN, PLAYER_TOKEN, run, running_server, start_server
from tests.support.plugins import luck_host


def _client(server: SidecarServer, name: str, **kwargs: Any) -> SidecarClient:
    kwargs.setdefault("role", "player")
    kwargs.setdefault("token", GM_TOKEN if kwargs["role"] == "gm" else PLAYER_TOKEN)
    return SidecarClient(server.url, table=kwargs.pop("table", "py"), name=name, **kwargs)


async def _next(iterator: Any, timeout: float = 5) -> Any:
    return await asyncio.wait_for(anext(iterator), timeout)


def test_join_roll_odds_history_and_outcomes() -> None:
    async def scenario() -> None:
        async with running_server() as server:
            async with _client(server, "Aengus") as player, \
                    _client(server, "Brann", role="observer", token=None) as watcher:
                assert player.welcome["type"] == "welcome"
                stream = watcher.outcomes()
                odds = await player.odds("bloodlust", {"pool": 1, "difficulty": 6})
                assert odds["p_success"] == 0.5
                outcome = await player.roll("bloodlust", {"pool": 3}, label="Sauter")
                assert len(outcome["dice"]) == 3 and outcome["id"].startswith(player._prefix)
                seen = await _next(stream)
                assert seen["seq"] == outcome["seq"] and "id" not in seen
                assert player.last_seq == watcher.last_seq == outcome["seq"]
                page = await watcher.history()
                assert [event["seq"] for event in page["events"]] == [outcome["seq"]]
                with pytest.raises(SidecarError) as error:
                    await player.roll("oweens", {"dice": 99})
                assert error.value.code == "invalid_params"
                assert error.value.details["param"] == "dice"
    run(scenario())


def test_a_wrong_token_is_not_retried() -> None:
    async def scenario() -> None:
        async with running_server() as server:
            client = _client(server, "Mallory", role="gm", token="wrong", reconnect=True)
            with pytest.raises(SidecarError) as error:
                await client.connect()
            assert error.value.code == "forbidden"
    run(scenario())


def test_reconnects_after_a_restart_and_resumes(tmp_path: Path) -> None:
    """The server goes away; while it is down nothing is lost; when it is back, the client
    rejoins with resume and gets what it missed, once each, then carries on live."""

    async def scenario() -> None:
        db = str(tmp_path / "journal.db")
        first = await start_server(db=db)
        port = first.port
        client = _client(first, "Aengus", reconnect=True)
        await client.connect()
        stream = client.outcomes()
        mine = await client.roll("bloodlust", {"pool": 2})
        assert (await _next(stream))["seq"] == mine["seq"]
        await first.stop()
        second = await start_server(db=db, port=port)
        try:
            async with _client(second, "Morgane", role="gm") as gm:
                missed = [(await gm.roll("bloodlust", {"pool": 2}))["seq"] for _ in range(3)]
            got = [(await _next(stream, 15))["seq"] for _ in missed]
            assert got == missed
            # (Replayed on its resume, or live when it was back first: either way once
            # each — the next event the stream gives is the new roll, never a repeat.)
            assert client.welcome["replayed"] in (0, 1, 2, 3)
            live = await client.roll("bloodlust", {"pool": 1})
            assert live["seq"] == missed[-1] + 1
            assert (await _next(stream))["seq"] == live["seq"]
            await client.close()
        finally:
            await second.stop()
    run(scenario())


def test_a_roll_cut_off_by_a_drop_is_answered_once() -> None:
    async def scenario() -> None:
        async with running_server() as server:
            async with _client(server, "Aengus", reconnect=True) as client:
                stream = client.outcomes()
                pending = asyncio.create_task(
                    client.roll("oweens", {"dice": 3}, id="py-drop-roll-1"))
                await asyncio.sleep(0)  # the frame is written…
                await client.drop()     # …and the connection dies under it
                outcome = await asyncio.wait_for(pending, 10)
                assert outcome["id"] == "py-drop-roll-1"
                again = await client.roll("oweens", {"dice": 3}, id="py-drop-roll-1")
                assert again["duplicate"] is True and again["seq"] == outcome["seq"]
                assert (await _next(stream))["seq"] == outcome["seq"]
                page = await client.history()
                assert [event["seq"] for event in page["events"]] == [outcome["seq"]]
                with contextlib.suppress(asyncio.TimeoutError):
                    extra = await _next(stream, 0.3)
                    raise AssertionError(f"outcome delivered twice: {extra}")
    run(scenario())


def test_without_reconnect_the_stream_ends_and_requests_fail() -> None:
    async def scenario() -> None:
        async with running_server() as server:
            client = _client(server, "Aengus")
            await client.connect()
            await client.drop()
            events = [event async for event in client.events()]
            assert all(event["type"] == "presence" for event in events)
            with pytest.raises(SidecarError) as error:
                await client.roll("bloodlust", {"pool": 1})
            assert error.value.code == "closed"
            await client.close()
    run(scenario())


# -- seats and characters (PROTOCOL.md §7) ------------------------------------------------

#: A ruleset whose characters spend luck (``tests/js/plugins/luck.py``, shared with Node).
PLUGINS = str(Path(__file__).resolve().parent / "js" / "plugins")


async def _until(client: SidecarClient, predicate: Any, events: Any) -> dict[str, Any]:
    """The next event of ``events`` (this client's stream) for which ``predicate`` holds."""
    while True:
        event = await _next(events)
        if predicate(event):
            return event


def test_a_seat_joins_with_its_own_token_and_rolls_as_its_character() -> None:
    async def scenario() -> None:
        async with running_server(plugins_dir=PLUGINS) as server:
            async with _client(server, "Morgane", role="gm", table="seats") as gm:
                gm_events = gm.events()
                seat = await gm.add_seat("Aengus")
                assert seat["name"] == "Aengus" and seat["token"]
                assert seat["link"].endswith(f"#token={seat['token']}")
                assert seat["qr"].startswith("data:image/svg+xml")
                # Its token is for its name only; its name takes its token only.
                for name, token in (("Brann", seat["token"]), ("Aengus", PLAYER_TOKEN)):
                    with pytest.raises(SidecarError) as refused:
                        await _client(server, name, token=token, table="seats").connect()
                    assert refused.value.code == "forbidden"
                async with _client(server, "Aengus", token=seat["token"],
                                   table="seats") as player:
                    assert player.welcome.get("seat") is True
                    events = player.events()
                    made = await gm.set_sheet("Aengus", "luck",
                                              {"level": 1, "skills": {"Nager": 1}},
                                              owner="Aengus", reason="création")
                    assert made["values"]["luck"] == 3 and made["owner"] == "Aengus"
                    assert made["reason"] == "création" and isinstance(made["seq"], int)
                    # The owner's seat sees the character arrive, live.
                    seen = await _until(player, lambda e: e["type"] == "sheet", events)
                    assert seen["seq"] == made["seq"] and "id" not in seen
                    assert player.characters["Aengus"]["values"]["level"] == 1
                    assert [c["character"] for c in await player.sheets()] == ["Aengus"]
                    assert [s["name"] for s in await gm.seats()] == ["Aengus"]
                    odds = await player.odds("luck", {"skill": "Nager"}, character="Aengus")
                    assert odds["p_success"] == pytest.approx(3 / 6)  # d6 + level 1 + Nager 1
                    outcome = await player.roll("luck", {"push": 2}, character="Aengus")
                    assert outcome["character"] == "Aengus" and outcome["spent"] == {"luck": 2}
                    assert outcome["sheet"]["luck"] == 1
                    assert player.characters["Aengus"]["values"]["luck"] == 1
                    # The GM sees the spend too, in the outcome the table gets.
                    theirs = await _until(gm, lambda e: e.get("seq") == outcome["seq"],
                                          gm_events)
                    assert theirs["spent"] == {"luck": 2} and gm.characters["Aengus"][
                        "values"]["luck"] == 1
                    with pytest.raises(SidecarError) as short:
                        await player.roll("luck", {"push": 2}, character="Aengus")
                    assert short.value.code == "insufficient"
                    assert short.value.details["field"] == "luck"
                    assert short.value.details["have"] == 1
                    given = await gm.adjust_sheet("Aengus", {"luck": 1}, reason="belle scène")
                    assert given["changed"] == {"luck": [1, 2]}
                    rested = await gm.refill("rest", "Aengus", reason="nuit au camp")
                    assert rested["values"]["luck"] == 3
                    seen = await _until(player, lambda e: e.get("seq") == rested["seq"], events)
                    assert player.characters["Aengus"]["values"]["luck"] == 3
                    # A player may not change a sheet, nor roll another seat's character.
                    with pytest.raises(SidecarError) as refused:
                        await player.adjust_sheet("Aengus", {"luck": 1})
                    assert refused.value.code == "forbidden"
                    # A new token closes the seat's connection: the old one stops working.
                    rotated = await gm.rotate_seat("Aengus")
                    assert rotated["token"] != seat["token"]
                    assert [e async for e in events if e["type"] != "presence"] == []
                with pytest.raises(SidecarError) as old:
                    await _client(server, "Aengus", token=seat["token"], table="seats").connect()
                assert old.value.code == "forbidden"
                removed = await gm.remove_sheet("Aengus", reason="mort au combat")
                assert removed.get("removed") is True and "Aengus" not in gm.characters
                assert (await gm.remove_seat("Aengus"))["removed"] is True
                assert await gm.seats() == []
    run(scenario())


def test_characters_follow_the_journaled_events_each_once() -> None:
    """Sheet events and rolls as a character update ``characters``; replays and duplicates
    change nothing; ``events()`` yields them in order (offline: frames handed in)."""
    client = SidecarClient("ws://127.0.0.1:9/ws", table="t", name="Aengus")
    client.last_seq = 0
    made = {"type": "sheet", "seq": 1, "op": "set", "character": "Aengus", "ruleset": "luck",
            "owner": "Aengus", "values": {"luck": 3}, "changed": {}}
    rolled = {"type": "outcome", "seq": 2, "ruleset": "luck", "character": "Aengus",
              "spent": {"luck": 1}, "sheet": {"luck": 2}}
    other = {"type": "outcome", "seq": 3, "ruleset": "luck", "character": "Rex",
             "spent": {}, "sheet": {"luck": 3}}
    for frame in (made, rolled, {**made, "duplicate": True}, made, other):
        client._dispatch(frame)
    assert client.characters["Aengus"] == {"character": "Aengus", "ruleset": "luck",
                                           "owner": "Aengus", "values": {"luck": 2}}
    assert client.characters["Rex"] == {"character": "Rex", "ruleset": "luck",
                                        "values": {"luck": 3}}
    client._dispatch({"type": "sheet", "seq": 4, "op": "remove", "character": "Aengus",
                      "removed": True, "values": {"luck": 2}})
    client._dispatch({"type": "seat", "seq": 5, "op": "add", "name": "Brann"})
    assert "Aengus" not in client.characters and client.last_seq == 5
    queued = [client._events.get_nowait()["seq"] for _ in range(client._events.qsize())]
    assert queued == [1, 2, 3, 4, 5]


def test_a_seat_add_cut_off_by_a_drop_is_not_sent_again() -> None:
    """Its repeat would answer without the token (shown once): it fails, and the GM can
    rotate the seat for a new link; rolls pending at the same time are still re-sent."""

    async def scenario() -> None:
        async with running_server() as server:
            async with _client(server, "Morgane", role="gm", table="drop-seat",
                               reconnect=True) as gm:
                adding = asyncio.create_task(gm.add_seat("Aengus"))
                rolling = asyncio.create_task(gm.roll("bloodlust", {"pool": 2}))
                await asyncio.sleep(0)  # both frames are written…
                await gm.drop()         # …and the connection dies under them
                with pytest.raises(SidecarError) as lost:
                    await asyncio.wait_for(adding, 10)
                assert lost.value.code == "closed" and "rotate" in lost.value.message
                assert (await asyncio.wait_for(rolling, 10))["type"] == "outcome"
                made = [seat["name"] for seat in await gm.seats()]
                fresh = await (gm.rotate_seat if made else gm.add_seat)("Aengus")
                assert fresh["token"] and fresh["link"].endswith(fresh["token"])
    run(scenario())


# -- open rolls: decide after seeing the dice ----------------------------------------------

FAIL = {"target": 7, "skill": 0, "second_chance": True}  # a d6 never reaches 7


def _luck_server(**overrides: Any) -> Any:
    return running_server(host=luck_host(), allow_player_dice=True, **overrides)


def test_react_decides_an_open_roll_and_open_rolls_offers_it_to_who_may_decide() -> None:
    async def scenario() -> None:
        async with _luck_server() as server:
            async with _client(server, "Alice") as alice, _client(server, "Bob") as bob, \
                    _client(server, "MJ", role="gm") as gm:
                mine, gms, everything = alice.open_rolls(), gm.open_rolls(), alice.outcomes()
                out = await alice.roll("luck", FAIL, dice=[2])
                assert out["open"] is True and out["default"] == "keep" and out["expires"] > 0
                assert [c["name"] for c in out["choices"]] == ["reroll", "keep"]
                assert (await _next(mine)) is alice.open[out["roll"]]
                assert (await _next(gms))["seq"] == out["seq"]
                # The open-roll iterator takes nothing from the events' stream.
                assert (await _next(everything))["seq"] == out["seq"]
                seen = await _next(bob.outcomes())
                assert seen["open"] is True and out["roll"] in bob.open
                assert not bob.may_decide(seen) and gm.may_decide(seen)
                with pytest.raises(SidecarError) as error:
                    await bob.react(out["roll"], "keep")
                assert error.value.code == "forbidden"
                with pytest.raises(SidecarError) as error:
                    await alice.react(out, "fly")
                assert error.value.code == "bad_message"
                decided = await alice.react(out, "reroll", dice=[6])
                assert decided["reacts_to"] == out["seq"] and decided["roll"] == out["roll"]
                assert decided["choice"] == "reroll" and "open" not in decided
                assert decided["reacted_by"] == {"name": "Alice", "role": "player"}
                assert decided["result"]["total"] == 6
                assert out["roll"] not in alice.open
                assert (await _next(bob.outcomes()))["reacts_to"] == out["seq"]
                assert out["roll"] not in bob.open
                with pytest.raises(SidecarError) as error:
                    await alice.react(out["roll"], "keep")
                assert error.value.code == "bad_message"
                assert error.value.details["field"] == "roll"
    run(scenario())


def test_a_blind_roll_is_decided_by_the_gm_and_a_decided_roll_is_not_offered() -> None:
    async def scenario() -> None:
        async with _luck_server() as server:
            async with _client(server, "Alice") as alice, \
                    _client(server, "MJ", role="gm") as gm:
                out = await alice.roll("luck", FAIL, dice=[3], mode="blind")
                # Its roller is not told that it is open (that would tell how it went).
                assert "open" not in out and "choices" not in out
                assert not alice.may_decide(out) and out["roll"] not in alice.open
                # Opened after the roll: still offered, as it is still open.
                stream = gm.open_rolls()
                full = await _next(stream)
                assert full["roll"] == out["roll"] and full["choices"]
                watching = alice.outcomes()
                decided = await gm.react(full, "keep")
                assert decided["reacted_by"] == {"name": "MJ", "role": "gm"}
                # ...nor that it was decided: the GM's next public roll is her next outcome.
                mark = await gm.roll("luck", {"target": 1, "skill": 0}, dice=[1])
                seen = await _next(watching, 5)
                while seen["seq"] != mark["seq"]:
                    assert "reacts_to" not in seen, seen
                    seen = await _next(watching, 5)
                assert not alice.open
                # Two open rolls; the first decided before the iterator takes it: skipped.
                first = await gm.roll("luck", FAIL, dice=[1])
                second = await gm.roll("luck", FAIL, dice=[1])
                later = gm.open_rolls()
                await gm.react(first, "keep")
                assert (await _next(later))["roll"] == second["roll"]
                assert (await _next(stream))["roll"] == second["roll"]
    run(scenario())


def test_time_running_out_closes_the_open_roll_with_no_one_deciding() -> None:
    async def scenario() -> None:
        async with _luck_server(react_timeout=0.2) as server:
            async with _client(server, "Alice") as alice:
                events = alice.outcomes()
                out = await alice.roll("luck", FAIL, dice=[2])
                assert (await _next(events))["seq"] == out["seq"]
                decided = await _next(events)
                assert decided["reacts_to"] == out["seq"] and decided["choice"] == "keep"
                assert decided["reacted_by"] is None and not alice.open
    run(scenario())


def test_open_rolls_ends_when_the_connection_closes() -> None:
    async def scenario() -> None:
        async with _luck_server() as server:
            alice = _client(server, "Alice")
            await alice.connect()
            stream = alice.open_rolls()
            await alice.close()
            assert [event async for event in stream] == []
            assert not alice._open_queues
    run(scenario())


def test_open_rolls_stops_watching_when_closed() -> None:
    async def scenario() -> None:
        async with _luck_server() as server:
            async with _client(server, "Alice") as alice:
                stream = alice.open_rolls()
                assert alice._open_queues == [stream.queue]
                await stream.aclose()
                assert alice._open_queues == []
                await alice.roll("luck", FAIL, dice=[2])
                assert [event async for event in stream] == []
    run(scenario())


# -- asked rolls, opposed rolls, sessions (PROTOCOL.md §7.4–7.5) --------------------------

def test_a_gm_asks_seats_they_answer_and_the_gm_follows_the_answers() -> None:
    async def scenario() -> None:
        async with running_server(host=luck_host()) as server:
            async with _client(server, "MJ", role="gm", table="asks") as gm:
                tokens = {name: (await gm.add_seat(name))["token"] for name in ("Alice", "Bob")}
                await gm.set_sheet("Ysolde", "luck", {"skill": 5}, owner="Bob")
                async with _client(server, "Alice", token=tokens["Alice"],
                                   table="asks") as alice, \
                        _client(server, "Bob", token=tokens["Bob"], table="asks") as bob:
                    events = alice.events()
                    gm_events = gm.events()
                    ask = await gm.ask(["Alice", "Ysolde"], "luck", {"target": 5},
                                       label="Perception", mode="gm")
                    assert ask["type"] == "ask" and ask["mode"] == "gm"
                    assert ask["to"][1] == {"seat": "Bob", "character": "Ysolde"}
                    seen = await _until(alice, lambda e: e["type"] == "ask", events)
                    assert seen["ask"] == ask["ask"]
                    # Each client follows the asks it may answer: both seats, the GM.
                    assert list(alice.asks) == [ask["ask"]] == list(gm.asks)
                    await _until(bob, lambda e: e["type"] == "ask", bob.events())
                    assert bob.asks[ask["ask"]]["ruleset"] == "luck"
                    assert [a["ask"] for a in await alice.asks()] == [ask["ask"]]
                    answer = await alice.answer(ask["ask"])
                    assert answer["answers"] == ask["ask"] and answer["label"] == "Perception"
                    assert answer["params"]["target"] == 5 and answer["mode"] == "gm"
                    assert alice.asks == {}  # answered: nothing left to answer
                    with pytest.raises(SidecarError) as twice:
                        await alice.answer(ask["ask"])
                    assert twice.value.code == "bad_message"
                    # The GM's copy of the ask fills as the answers arrive.
                    await _until(gm, lambda e: e.get("answers") == ask["ask"], gm_events)
                    assert gm.asks[ask["ask"]]["answered"]["Alice"]["seq"] == answer["seq"]
                    by_bob = await bob.answer(bob.asks[ask["ask"]])
                    assert by_bob["character"] == "Ysolde" and bob.asks == {}
                    await _until(gm, lambda e: e.get("seq") == by_bob["seq"], gm_events)
                    assert gm.asks == {}  # every seat answered: closed
                    # An answer left open settles its side only once decided.
                    later = await gm.ask("Alice", "luck", {"target": 7, "second_chance": True})
                    await _until(alice, lambda e: e.get("seq") == later["seq"], events)
                    opened = await alice.answer(later["ask"])
                    assert opened["open"] is True and alice.asks == {}
                    await _until(gm, lambda e: e.get("seq") == opened["seq"], gm_events)
                    assert gm.asks[later["ask"]]["answered"]["Alice"]["open"] is True
                    decided = await alice.react(opened, "keep")
                    assert decided["answers"] == later["ask"]
                    await _until(gm, lambda e: e.get("seq") == decided["seq"], gm_events)
                    assert gm.asks == {}
                    # A cancelled ask leaves every client's list.
                    other = await gm.ask("Alice", "luck", {"target": 3})
                    await _until(alice, lambda e: e.get("seq") == other["seq"], events)
                    assert list(alice.asks) == [other["ask"]]
                    cancel = await gm.cancel_ask(other)
                    assert cancel["op"] == "cancel"
                    await _until(alice, lambda e: e.get("seq") == cancel["seq"], events)
                    assert alice.asks == {} and gm.asks == {}
                    with pytest.raises(SidecarError) as closed:
                        await alice.answer(other["ask"])
                    assert closed.value.code == "bad_message"
                    # A new session: a public event, its number kept by every client.
                    session = await gm.start_session()
                    assert session["type"] == "session" and session["number"] == 1
                    seen = await _until(alice, lambda e: e["type"] == "session", events)
                    assert seen["number"] == 1 and alice.session == 1
                    with pytest.raises(SidecarError) as refused:
                        await alice.start_session()
                    assert refused.value.code == "forbidden"
            # An open ask is in the welcome of the seat it names, and of a GM.
            async with _client(server, "MJ", role="gm", table="asks") as gm:
                pending = await gm.ask(["Alice"], "luck", {})
                async with _client(server, "Alice", token=tokens["Alice"],
                                   table="asks") as alice:
                    assert list(alice.asks) == [pending["ask"]]
                    assert alice.asks[pending["ask"]]["answered"] == {}
                    assert (await alice.answer(pending["ask"]))["answers"] == pending["ask"]
                async with _client(server, "Bob", token=tokens["Bob"], table="asks") as bob:
                    assert bob.asks == {}  # not asked
    run(scenario())


def test_an_opposed_roll_surfaces_its_opposition_in_the_python_client() -> None:
    """Seed 003: Strengal 3D+5 rolls 11 → 16 against Krull 4D+1 rolling 13 → 14."""
    async def scenario() -> None:
        async with running_server(allow_player_dice=True) as server:
            async with _client(server, "MJ", role="gm", table="duel") as gm:
                tokens = {n: (await gm.add_seat(n))["token"] for n in ("Strengal", "Krull")}
                async with _client(server, "Strengal", token=tokens["Strengal"],
                                   table="duel") as strengal, \
                        _client(server, "Krull", token=tokens["Krull"], table="duel") as krull:
                    events, gm_events = strengal.events(), gm.events()
                    ask = await gm.ask(["Strengal", "Krull"], "d6code", {"difficulty": 0},
                                       opposed=True, each={"Strengal": {"code": "3D+5"},
                                                           "Krull": {"code": "4D+1"}})
                    assert ask["opposed"] is True
                    await _until(strengal, lambda e: e["type"] == "ask", events)
                    first = await strengal.answer(ask["ask"], [3, 4, 4])
                    assert "opposition" not in first and first["result"]["score"] == 16
                    await _until(krull, lambda e: e["type"] == "ask", krull.events())
                    last = await krull.answer(ask["ask"], dice=[4, 4, 3, 2])
                    assert last["opposition"]["winner"] == "Strengal"
                    assert last["opposition"]["draw"] is False
                    seen = await _until(strengal, lambda e: e.get("seq") == last["seq"], events)
                    assert seen["opposition"] == last["opposition"]
                    await _until(gm, lambda e: e.get("seq") == last["seq"], gm_events)
                    assert gm.asks == {}
    run(scenario())
