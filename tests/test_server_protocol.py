"""The wire contract (CONTRACT.md §1–§5) through a real server and real WebSocket clients."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import msgpack
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

import sidecar
from sidecar.hookspecs import HOOKS_API
from sidecar.host.pipeline import RollPipeline
from sidecar.protocol.errors import ERROR_CODES
from tests.helpers import GM_TOKEN, Peer, peers, run, running_server

# -- §2 joining ----------------------------------------------------------------------------


def test_welcome_describes_table_server_rulesets_and_extensions():
    async def scenario():
        async with running_server() as server, peers(server, 1) as (peer,):
            await peer.send({"type": "hello", "id": 7, "protocol": 1, "table": "crypte",
                             "name": "Aengus", "role": "player", "token": "player-secret-token",
                             "locale": "fr"})
            welcome = await peer.recv()
            assert welcome["type"] == "welcome" and welcome["id"] == 7
            assert welcome["protocol"] == 1 and welcome["table"] == "crypte"
            assert welcome["role"] == "player" and welcome["seq"] == 0
            assert welcome["server"] == {"name": "vtt-sidecar", "version": sidecar.__version__,
                                         "hooks": HOOKS_API}
            bloodlust = next(r for r in welcome["rulesets"] if r["name"] == "bloodlust")
            assert {"name", "title", "version", "params"} <= set(bloodlust)
            assert bloodlust["params"]["pool"]["type"] == "int"
            extension = next(e for e in welcome["extensions"] if e["name"] == "blank_botch")
            assert set(extension) == {"name", "version", "description"}
            presence = await peer.recv()
            assert presence == {"type": "presence", "table": "crypte",
                                "members": [{"name": "Aengus", "role": "player"}]}
    run(scenario())


def test_welcome_seq_is_last_event_number():
    async def scenario():
        async with running_server() as server, peers(server, 2) as (a, b):
            await a.join()
            for _ in range(3):
                await a.roll()
            welcome = await b.join(name="Brady")
            assert welcome["seq"] == 3
    run(scenario())


@pytest.mark.parametrize("role,token", [("gm", "nope"), ("player", "nope"),
                                        ("gm", "player-secret-token")])
def test_wrong_token_is_forbidden_then_closed(role, token):
    async def scenario():
        async with running_server() as server, peers(server, 1) as (peer,):
            await peer.send({"type": "hello", "id": "h", "protocol": 1, "table": "t",
                             "name": "X", "role": role, "token": token})
            error = await peer.recv()
            assert error["type"] == "error" and error["code"] == "forbidden"
            assert error["id"] == "h"
            with pytest.raises(ConnectionClosed) as closed:
                await peer.recv()
            assert closed.value.rcvd.code == 1008
            assert server.tables.get("t") is None or not server.tables.get("t").members
    run(scenario())


def test_gm_token_is_accepted_for_a_player():
    async def scenario():
        async with running_server() as server, peers(server, 1) as (peer,):
            welcome = await peer.join(role="player", token=GM_TOKEN)
            assert welcome["role"] == "player"
    run(scenario())


def test_other_protocol_is_unsupported_then_closed():
    async def scenario():
        async with running_server() as server, peers(server, 1) as (peer,):
            await peer.send({"type": "hello", "protocol": 2, "table": "t", "name": "X",
                             "role": "observer"})
            error = await peer.recv()
            assert error["code"] == "unsupported_protocol"
            with pytest.raises(ConnectionClosed):
                await peer.recv()
    run(scenario())


def test_token_required_for_player_is_bad_message_naming_token():
    async def scenario():
        async with running_server() as server, peers(server, 1) as (peer,):
            await peer.send({"type": "hello", "protocol": 1, "table": "t", "name": "X",
                             "role": "player"})
            error = await peer.recv()
            assert error["code"] == "bad_message" and error["details"]["field"] == "token"
            # The connection stays open: a corrected hello joins.
            assert (await peer.join())["type"] == "welcome"
    run(scenario())


def test_observer_joins_without_token_and_cannot_roll():
    async def scenario():
        async with running_server() as server, peers(server, 2) as (gm, peer):
            await gm.join(role="gm")  # observers join tables that exist
            await peer.join(role="observer")
            reply = await peer.roll()
            assert reply["code"] == "forbidden"
    run(scenario())


def test_request_before_hello_is_not_joined_and_connection_stays_open():
    async def scenario():
        async with running_server() as server, peers(server, 1) as (peer,):
            await peer.send({"type": "roll", "id": 1, "ruleset": "bloodlust",
                             "params": {"pool": 2}})
            error = await peer.recv()
            assert error == {"type": "error", "id": 1, "code": "not_joined",
                             "message": error["message"], "messages": error["messages"]}
            assert error["message"] == error["messages"]["fr"]  # (the join's default locale)
            await peer.join()
    run(scenario())


def test_hello_must_arrive_in_time():
    async def scenario():
        async with running_server(hello_timeout=0.3) as server, peers(server, 1) as (peer,):
            with pytest.raises(ConnectionClosed) as closed:
                await peer.recv(timeout=3)
            assert closed.value.rcvd.code == 1008
    run(scenario())


def test_second_hello_is_refused():
    async def scenario():
        async with running_server() as server, peers(server, 1) as (peer,):
            await peer.join()
            reply = await peer.request({"type": "hello", "id": "again", "protocol": 1,
                                        "table": "u", "name": "X", "role": "observer"})
            assert reply["code"] == "bad_message"
    run(scenario())


# -- §1 transport --------------------------------------------------------------------------


def test_json_text_frames_are_answered_in_json():
    async def scenario():
        async with running_server() as server, peers(server, 1, binary=False) as (peer,):
            await peer.join()
            outcome = await peer.roll(params={"pool": 4, "difficulty": 6})
            assert outcome["type"] == "outcome" and len(outcome["dice"]) == 4
    run(scenario())


def test_unknown_fields_are_ignored():
    async def scenario():
        async with running_server() as server, peers(server, 1) as (peer,):
            await peer.join(colour="vert")
            outcome = await peer.roll(params={"pool": 2}, future_field={"x": 1})
            assert outcome["type"] == "outcome"
    run(scenario())


@pytest.mark.parametrize("message,field", [
    ({"type": "roll", "id": "x", "params": {}}, "ruleset"),
    ({"type": "roll", "id": "x", "ruleset": 5}, "ruleset"),
    ({"type": "roll", "id": "x", "ruleset": "bloodlust", "params": [1]}, "params"),
    ({"type": "roll", "id": "x", "ruleset": "bloodlust", "mode": "loud"}, "mode"),
    ({"type": "roll", "id": "x", "ruleset": "bloodlust", "dice": "3,4"}, "dice"),
    ({"type": "roll", "id": "x", "ruleset": "bloodlust", "options": 3}, "options"),
    ({"type": "roll", "id": {"a": 1}, "ruleset": "bloodlust"}, "id"),
    ({"type": "roll", "id": "x" * 65, "ruleset": "bloodlust"}, "id"),
    ({"type": 3}, "type"),
    ({"id": "x"}, "type"),
])
def test_ill_typed_fields_are_bad_message_naming_the_field(message, field):
    async def scenario():
        async with running_server() as server, peers(server, 1) as (peer,):
            await peer.join()
            await peer.send(message)
            error = await peer.recv_not_presence()
            assert error["type"] == "error" and error["code"] == "bad_message"
            assert error["details"]["field"] == field
            # nothing changed: the table has no event and the connection works
            assert server.tables.get("t").seq == 0
            assert (await peer.roll())["type"] == "outcome"
    run(scenario())


def test_unknown_type():
    async def scenario():
        async with running_server() as server, peers(server, 1) as (peer,):
            await peer.join()
            reply = await peer.request({"type": "teleport", "id": "q"})
            assert reply["code"] == "unknown_type"
    run(scenario())


@pytest.mark.parametrize("frame", [
    b"\xc1",                      # never-used msgpack byte
    b"\x93\x01",                  # truncated array
    b"\x91" * 5000 + b"\xc0",     # deeply nested
    b"\xd6\xff\x00\x00\x00\x01",  # timestamp extension
    "{not json",
    '{"type": NaN}',
    "[" * 5000,
])
def test_undecodable_frames_are_bad_frame_and_connection_stays_open(frame):
    async def scenario():
        async with running_server() as server, peers(server, 1) as (peer,):
            await peer.join()
            await peer.send_raw(frame)
            error = await peer.recv_not_presence()
            assert error["code"] == "bad_frame"
            assert (await peer.roll())["type"] == "outcome"
    run(scenario())


def test_non_map_message_is_bad_message():
    async def scenario():
        async with running_server() as server, peers(server, 1) as (peer,):
            await peer.join()
            await peer.send_raw(msgpack.packb([1, 2, 3]))
            error = await peer.recv_not_presence()
            assert error["code"] == "bad_message"
    run(scenario())


def test_oversized_frame_closes_with_1009():
    async def scenario():
        async with running_server() as server, peers(server, 1) as (peer,):
            await peer.join()
            await peer.send_raw(b"\x00" * (64 * 1024 + 1))
            with pytest.raises(ConnectionClosed) as closed:
                while True:
                    await peer.recv()
            assert closed.value.rcvd.code == 1009
    run(scenario())


def test_too_many_manual_dice_is_too_large():
    async def scenario():
        async with running_server() as server, peers(server, 1) as (peer,):
            await peer.join(role="gm")
            reply = await peer.roll(params={"pool": 3}, dice=[5] * 101)
            assert reply["code"] == "too_large"
    run(scenario())


# -- §3 rolling ----------------------------------------------------------------------------


def test_outcome_has_every_contract_field():
    async def scenario():
        async with running_server() as server, peers(server, 1) as (peer,):
            await peer.join(table="crypte", name="Brady")
            outcome = await peer.roll(params={"pool": 3}, label="Escalade", id="r1")
            assert outcome["type"] == "outcome" and outcome["id"] == "r1"
            assert outcome["seq"] == 1 and isinstance(outcome["roll"], str)
            assert outcome["table"] == "crypte"
            assert outcome["by"] == {"name": "Brady", "role": "player"}
            assert outcome["ruleset"] == "bloodlust"
            # defaults filled in
            assert outcome["params"] == {"pool": 3, "difficulty": 6, "willpower": False,
                                         "automatic": False, "tense": False}
            assert outcome["label"] == "Escalade" and outcome["mode"] == "public"
            assert [d["sides"] for d in outcome["dice"]] == [10, 10, 10]
            assert all(1 <= d["face"] <= 10 for d in outcome["dice"])
            result = outcome["result"]
            assert isinstance(result["success"], bool) and isinstance(result["margin"], int)
            assert result["kind"] in ("botch", "failure", "narrow", "success", "critical")
            assert set(result["label"]) == {"fr", "en"}
            assert outcome["applied"] == [] and outcome["notes"] == []
            assert outcome["text"].startswith("Brady — Escalade")
    run(scenario())


def test_text_follows_each_clients_locale():
    async def scenario():
        async with running_server() as server, peers(server, 2) as (fr, en):
            await fr.join(name="Aengus", locale="fr")
            await en.join(name="Brady", locale="en")
            await fr.roll(params={"pool": 2}, dice=None)
            theirs = await en.recv_type("outcome")
            assert "successes" in theirs["text"] and "succès" not in theirs["text"]
            mine = fr.seen[-1]
            assert "succès" in mine["text"]
    run(scenario())


def test_broadcast_reaches_every_client_with_the_same_seq_and_only_requester_gets_id():
    async def scenario():
        async with running_server() as server, peers(server, 4) as group:
            for i, peer in enumerate(group):
                await peer.join(name=f"P{i}", role="gm" if i == 0 else "player")
            outcome = await group[1].roll(id="mine")
            for peer in (group[0], group[2], group[3]):
                seen = await peer.recv_type("outcome")
                assert seen["seq"] == outcome["seq"] and seen["roll"] == outcome["roll"]
                assert "id" not in seen
                assert seen["dice"] == outcome["dice"] and seen["result"] == outcome["result"]
    run(scenario())


def test_seq_strictly_increasing_without_gaps_across_rollers_and_modes():
    async def scenario():
        async with running_server() as server, peers(server, 3) as (gm, a, b):
            await gm.join(name="MJ", role="gm")
            await a.join(name="A")
            await b.join(name="B")
            seqs = []
            for i, mode in enumerate(["public", "gm", "blind", "self", "public", "blind"]):
                roller = a if i % 2 else b
                seqs.append((await roller.roll(mode=mode))["seq"])
            assert seqs == list(range(1, 7))
    run(scenario())


def test_two_tables_are_isolated():
    async def scenario():
        async with running_server() as server, peers(server, 2) as (a, b):
            await a.join(table="nord")
            await b.join(table="sud")
            first = await a.roll()
            assert first["seq"] == 1
            assert await b.unseen() == []
            second = await b.roll()
            assert second["seq"] == 1 and second["table"] == "sud"
            assert await a.unseen() == []
    run(scenario())


def test_presence_on_join_and_leave():
    async def scenario():
        async with running_server() as server:
            a = await Peer.open(server)
            await a.join(name="A")
            b = await Peer.open(server)
            await b.join(name="B", role="gm")
            joined = await a.recv_type("presence")
            joined = joined if len(joined["members"]) == 2 else await a.recv_type("presence")
            assert joined["members"] == [{"name": "A", "role": "player"},
                                         {"name": "B", "role": "gm"}]
            assert "seq" not in joined
            await b.close()
            left = await a.recv_type("presence")
            assert left["members"] == [{"name": "A", "role": "player"}]
            await a.close()
    run(scenario())


# -- visibility ----------------------------------------------------------------------------


async def _table(server):
    """A GM, the roller, another player and an observer at one table."""
    gm, roller, other, watcher = [await Peer.open(server) for _ in range(4)]
    await gm.join(name="MJ", role="gm")
    await roller.join(name="Aengus")
    await other.join(name="Brady")
    await watcher.join(name="Public", role="observer")
    return gm, roller, other, watcher


def test_public_mode_everyone_sees_it():
    async def scenario():
        async with running_server() as server:
            gm, roller, other, watcher = await _table(server)
            outcome = await roller.roll(mode="public")
            for peer in (gm, other, watcher):
                assert (await peer.recv_type("outcome"))["dice"] == outcome["dice"]
    run(scenario())


def test_gm_mode_roller_and_gms_only():
    async def scenario():
        async with running_server() as server:
            gm, roller, other, watcher = await _table(server)
            outcome = await roller.roll(mode="gm")
            assert "hidden" not in outcome["result"]
            assert (await gm.recv_type("outcome"))["result"] == outcome["result"]
            assert await other.unseen() == [] and await watcher.unseen() == []
    run(scenario())


def test_blind_mode_gm_sees_all_roller_sees_hidden_others_nothing():
    async def scenario():
        async with running_server() as server:
            gm, roller, other, watcher = await _table(server)
            mine = await roller.roll(mode="blind", params={"pool": 6}, label="Perception")
            assert mine["result"] == {"hidden": True}
            assert mine["dice"] == [] and mine["notes"] == [] and mine["applied"] == []
            assert mine["seq"] == 1 and mine["label"] == "Perception"
            full = await gm.recv_type("outcome")
            assert len(full["dice"]) == 6 and "kind" in full["result"]
            assert await other.unseen() == [] and await watcher.unseen() == []
            # the dice appear in no stream but the GM's
            faces = [d["face"] for d in full["dice"]]
            for peer in (roller, other, watcher):
                for message in peer.seen:
                    assert message.get("type") != "outcome" or message["dice"] == []
            assert faces
    run(scenario())


def test_self_mode_roller_only():
    async def scenario():
        async with running_server() as server:
            gm, roller, other, watcher = await _table(server)
            outcome = await roller.roll(mode="self")
            assert len(outcome["dice"]) == 3
            for peer in (gm, other, watcher):
                assert await peer.unseen() == []
    run(scenario())


def test_roller_on_a_second_device_sees_their_own_gm_roll():
    async def scenario():
        async with running_server() as server:
            phone, laptop, other = [await Peer.open(server) for _ in range(3)]
            await phone.join(name="Aengus")
            await laptop.join(name="Aengus")
            await other.join(name="Brady")
            await phone.roll(mode="gm")
            assert (await laptop.recv_type("outcome"))["mode"] == "gm"
            assert await other.unseen() == []
    run(scenario())


# -- manual dice ---------------------------------------------------------------------------


def test_gm_manual_dice_are_used_in_order():
    async def scenario():
        async with running_server() as server, peers(server, 1) as (gm,):
            await gm.join(role="gm")
            outcome = await gm.roll(params={"pool": 5, "difficulty": 6}, dice=[3, 3, 8, 7, 10])
            assert [d["face"] for d in outcome["dice"]] == [3, 3, 8, 7, 10]
            assert outcome["result"]["net"] == 3
    run(scenario())


def test_player_manual_dice_forbidden_unless_enabled():
    async def scenario():
        async with running_server() as server, peers(server, 1) as (peer,):
            await peer.join()
            reply = await peer.roll(params={"pool": 2}, dice=[5, 6])
            assert reply["code"] == "forbidden"
        async with running_server(allow_player_dice=True) as server, peers(server, 1) as (peer,):
            welcome = await peer.join()
            assert welcome["manual_dice"] is True
            reply = await peer.roll(params={"pool": 2}, dice=[5, 6])
            assert [d["face"] for d in reply["dice"]] == [5, 6]
    run(scenario())


@pytest.mark.parametrize("dice,needle", [
    ([5, 6], "needs 3 (d10 ×3), 2 were given"),
    ([5, 6, 7, 8], "uses 3 dice (d10 ×3), 4 were given"),
    ([5, 11, 2], "face must be 1 to 10, not 11"),
    ([0, 5, 5], "face must be 1 to 10, not 0"),
])
def test_bad_manual_dice_say_what_was_expected(dice, needle):
    async def scenario():
        async with running_server() as server, peers(server, 1) as (gm,):
            await gm.join(role="gm", locale="en")
            reply = await gm.roll(params={"pool": 3}, dice=dice)
            assert reply["code"] == "bad_dice" and needle in reply["message"]
            assert server.tables.get("t").seq == 0
    run(scenario())


# -- §5 errors -----------------------------------------------------------------------------


def test_unknown_ruleset():
    async def scenario():
        async with running_server() as server, peers(server, 1) as (peer,):
            await peer.join()
            reply = await peer.roll(ruleset="poker")
            assert reply["code"] == "unknown_ruleset" and "bloodlust" in reply["message"]
    run(scenario())


@pytest.mark.parametrize("params,param", [
    ({}, "pool"),
    ({"pool": 0}, "pool"),
    ({"pool": "beaucoup"}, "pool"),
    ({"pool": 3, "difficulty": 11}, "difficulty"),
    ({"pool": 3, "difficulty": 1}, "difficulty"),
    ({"pool": 3, "willpower": "yes"}, "willpower"),
    ({"pool": 3, "poool": 3}, "poool"),
])
def test_invalid_params_name_the_parameter(params, param):
    async def scenario():
        async with running_server() as server, peers(server, 1) as (peer,):
            await peer.join()
            reply = await peer.roll(params=params)
            assert reply["code"] == "invalid_params" and reply["details"]["param"] == param
    run(scenario())


def test_rate_limit_answers_rate_limited_and_recovers():
    async def scenario():
        async with running_server(rate_limit=5, rate_burst=5) as server, \
                peers(server, 1) as (peer,):
            await peer.join()
            codes = [(await peer.roll())["type"] for _ in range(5)]
            assert codes == ["outcome"] * 5
            limited = await peer.roll()
            assert limited["code"] == "rate_limited" and limited["details"]["retry_after"] > 0
            # the server says when a token is back: wait exactly that long
            await asyncio.sleep(limited["details"]["retry_after"])
            assert (await peer.roll())["type"] == "outcome"
    run(scenario())


def test_rate_limit_zero_turns_it_off():
    async def scenario():
        async with running_server(rate_limit=0) as server, peers(server, 1) as (peer,):
            await peer.join()
            for _ in range(60):
                assert (await peer.roll())["type"] == "outcome"
    run(scenario())


def test_internal_error_is_reported_and_server_keeps_serving():
    class BrokenPipeline(RollPipeline):
        calls = 0

        def run(self, roll, **kwargs):
            BrokenPipeline.calls += 1
            if BrokenPipeline.calls == 1:
                raise RuntimeError("bug")
            return super().run(roll, **kwargs)

    async def scenario():
        async with running_server() as server, peers(server, 1) as (peer,):
            server.pipeline.__class__ = BrokenPipeline
            await peer.join()
            reply = await peer.roll()
            assert reply["code"] == "internal" and "Traceback" not in reply["message"]
            assert (await peer.roll())["seq"] == 1
    run(scenario())


def test_errors_answer_only_the_client_that_caused_them():
    async def scenario():
        async with running_server() as server, peers(server, 2) as (a, b):
            await a.join(name="A")
            await b.join(name="B")
            await a.roll(ruleset="nope")
            assert await b.unseen() == []
    run(scenario())


def test_error_messages_are_french_by_default():
    async def scenario():
        async with running_server() as server, peers(server, 1) as (peer,):
            await peer.join()
            reply = await peer.roll(params={"pool": 0})
            assert "paramètre « Réserve de d10 » ('pool')" in reply["message"]
    run(scenario())


BROKEN_RULESET = '''
"""A ruleset whose every roll fails."""
from sidecar import hookimpl

@hookimpl
def sidecar_rulesets():
    return [{"name": "casse", "params": {}}]

@hookimpl
def sidecar_resolve(roll, dice):
    raise RuntimeError("cassé")
'''


def test_every_error_code_is_reachable(tmp_path):
    """Each code of the contract, provoked against a real server by what causes it; a code
    added to the list without a way to reach it, or a path that stops raising it, fails."""
    from sidecar.stores.journal import JournalError
    from tests.support.plugins import write_plugins

    hello = {"type": "hello", "protocol": 1, "table": "t", "name": "N", "role": "gm",
             "token": GM_TOKEN}
    roll = {"type": "roll", "id": "r", "ruleset": "bloodlust", "params": {"pool": 1}}

    async def first_error(server, *frames, join=True):
        """Send ``frames`` on a fresh connection (joined first); the first error back."""
        async with peers(server, 1) as (peer,):
            if join:
                await peer.join(role="gm")
            for frame in frames:
                await (peer.send_raw(frame) if isinstance(frame, bytes)
                       else peer.send(frame))
            while True:
                message = await peer.recv()
                if message["type"] == "error":
                    return message["code"]

    async def internal(server):
        async def broken(event, state):
            raise JournalError("disk I/O error")
        real, server.store.journal.append = server.store.journal.append, broken
        try:
            return await first_error(server, roll)
        finally:
            server.store.journal.append = real

    async def store_down(server):
        # (Really provoked by a stopped Redis in tests/test_redis_store.py.)
        from sidecar.stores.base import StoreUnavailable

        async def down(*args, **kwargs):
            raise StoreUnavailable("Redis unreachable")
        real, server.store.append = server.store.append, down
        try:
            return await first_error(server, roll)
        finally:
            server.store.append = real

    provoke = {
        "bad_frame": lambda s: first_error(s, b"\xc1"),
        "bad_message": lambda s: first_error(s, {**roll, "ruleset": 5}),
        "unknown_type": lambda s: first_error(s, {"type": "teleport"}),
        "unknown_ruleset": lambda s: first_error(s, {**roll, "ruleset": "nope"}),
        "invalid_params": lambda s: first_error(s, {**roll, "params": {"pool": "x"}}),
        "bad_dice": lambda s: first_error(s, {**roll, "dice": [11]}),
        "forbidden": lambda s: first_error(s, {**hello, "token": "wrong"}, join=False),
        "not_joined": lambda s: first_error(s, roll, join=False),
        "rate_limited": lambda s: first_error(s, *[{"type": "odds", "ruleset": "bloodlust",
                                                    "params": {"pool": 1}}] * 5),
        "too_large": lambda s: first_error(s, {**roll, "dice": [1] * 101}),
        "plugin_error": lambda s: first_error(s, {**roll, "ruleset": "casse", "params": {}}),
        "unsupported_protocol": lambda s: first_error(s, {**hello, "protocol": 2},
                                                      join=False),
        "internal": internal,
        "store_unavailable": store_down,
        "insufficient": lambda s: first_error(
            s, {"type": "sheet", "id": "c", "op": "set", "character": "Zed", "ruleset": "luck",
                "values": {"luck": 0}},
            {"type": "roll", "id": "z", "ruleset": "luck", "params": {"cost": 1},
             "character": "Zed"}),
    }
    assert set(provoke) == set(ERROR_CODES), "every code needs a way to reach it"
    sheet_plugin = (Path(__file__).parent / "sheet_plugin.py").read_text()
    directory = write_plugins(tmp_path / "p", casse=BROKEN_RULESET, luck=sheet_plugin)

    async def scenario():
        async with running_server(plugins_dir=str(directory), rate_limit=1.0,
                                  rate_burst=2.0) as server:
            for code in ERROR_CODES:
                assert await provoke[code](server) == code, code
    run(scenario())


# -- origin --------------------------------------------------------------------------------


@pytest.mark.parametrize("origin,allowed", [
    ("http://localhost:30000", True),          # Foundry on this machine
    ("http://127.0.0.1:8080", True),
    ("https://evil.example", False),
    ("http://evil.example:PORT", False),        # DNS rebinding: named host not listed
    ("http://127.0.0.1:PORT", True),            # the server's own page
    ("https://vtt.example.org", True),          # listed with --origin
])
def test_origin_allow_list(origin, allowed):
    async def scenario():
        async with running_server(origins=("https://vtt.example.org",)) as server:
            real = origin.replace("PORT", str(server.port))
            # A DNS-rebinding page reaches the server under the attacker's name: the browser
            # then sends that name as Host too, matching its Origin.
            host = (f"evil.example:{server.port}" if "evil.example:" in real
                    else f"127.0.0.1:{server.port}")
            status = await _handshake_status(server, {"Host": host, "Origin": real})
            assert status == (101 if allowed else 403), (real, host, status)
    run(scenario())


async def _handshake_status(server, headers, path="/ws"):
    """Send a raw WebSocket upgrade with exactly these headers (repeats allowed, as a list
    of pairs); return the HTTP status of the answer."""
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    lines = [f"GET {path} HTTP/1.1"]
    pairs = headers if isinstance(headers, list) else list(headers.items())
    lines += [f"{name}: {value}" for name, value in pairs]
    lines += ["Upgrade: websocket", "Connection: Upgrade",
              "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version: 13"]
    writer.write(("\r\n".join(lines) + "\r\n\r\n").encode())
    await writer.drain()
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
    writer.close()
    return int(head.split(b" ", 2)[1])


@pytest.mark.parametrize("headers,status", [
    ([("Host", "127.0.0.1"), ("Host", "evil.example")], 400),
    ([("Host", "127.0.0.1"), ("Origin", "http://localhost:1"),
      ("Origin", "https://evil.example")], 400),
    ([("Host", "127.0.0.1"), ("Origin", "http://localhost:1")], 101),
])
def test_repeated_host_or_origin_is_refused_not_a_server_error(headers, status):
    async def scenario():
        async with running_server() as server:
            assert await _handshake_status(server, headers) == status
            # The page too, whose policy names the Host.
            if status == 400:
                assert await _handshake_status(server, headers, path="/") == 400
            # And the server still works.
            async with peers(server, 1) as (peer,):
                await peer.join()
    run(scenario())


@pytest.mark.parametrize("field", ["label", "type", "ruleset", "name", "table", "id"])
def test_lone_surrogates_in_text_frames_are_bad_message_and_change_nothing(field):
    async def scenario():
        async with running_server() as server, peers(server, 1, binary=False) as (peer,):
            if field in ("name", "table"):
                frame = ('{"type": "hello", "protocol": 1, "table": "t", "name": "n", '
                         '"role": "gm", "token": "' + GM_TOKEN + '"}').replace(
                             f'"{field}": "', f'"{field}": "\\ud800')
            else:
                await peer.join()
                frame = ('{"type": "roll", "id": "r1", "ruleset": "bloodlust", '
                         '"params": {"pool": 2}, "label": "ok"}').replace(
                             f'"{field}": "', f'"{field}": "\\ud800')
            await peer.send_raw(frame)
            error = await peer.recv_not_presence()
            assert error["type"] == "error" and error["code"] == "bad_message"
            assert error["details"] == {"field": field}
            if field not in ("name", "table"):
                # Nothing was numbered or remembered: the next roll is seq 1, and the same
                # id now rolls (it was never used).
                outcome = await peer.roll(id="r1", label="ok")
                assert outcome["seq"] == 1 and "duplicate" not in outcome
    run(scenario())


@pytest.mark.parametrize("value", [2**63, 2**64 - 1])
def test_history_after_and_resume_beyond_64_bits_are_bad_message(value):
    async def scenario():
        async with running_server() as server, peers(server, 2) as (peer, late):
            await peer.join()
            reply = await peer.request({"type": "history", "id": "h", "after": value})
            assert reply["code"] == "bad_message" and reply["details"] == {"field": "after"}
            await late.send({"type": "hello", "protocol": 1, "table": "t", "name": "B",
                             "role": "gm", "token": GM_TOKEN, "resume": value})
            error = await late.recv()
            assert error["code"] == "bad_message" and error["details"] == {"field": "resume"}
            assert (await late.join(name="B", role="gm", resume=2**63 - 1))["seq"] == 0
    run(scenario())


def test_no_origin_is_accepted_and_page_is_served():
    async def scenario():
        async with running_server() as server:
            ws = await connect(server.url)  # no Origin header, like a CLI or a VTT server
            await ws.close()
            reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
            writer.write(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            await writer.drain()
            head = await reader.readuntil(b"\r\n\r\n")
            assert head.startswith(b"HTTP/1.1 200") and b"text/html" in head
            writer.close()
    run(scenario())


def test_one_log_line_per_connection_and_per_error(caplog):
    async def scenario():
        async with running_server() as server, peers(server, 1) as (peer,):
            await peer.join(name="Aengus")
            await peer.roll(params={"pool": 0})
        await asyncio.sleep(0.05)

    with caplog.at_level("DEBUG", logger="sidecar"):
        run(scenario())
    lines = [r.getMessage() for r in caplog.records if r.name.startswith("sidecar")]
    assert sum(line.startswith("connection from 127.0.0.1") for line in lines) == 1
    assert sum(line.startswith("error invalid_params") for line in lines) == 1
    # A client's plain bad request (the page's odds for a form being filled) is no news for
    # the host: at debug level, not in the log it reads (issue 29).
    assert all(r.levelno == logging.DEBUG for r in caplog.records
               if r.getMessage().startswith("error invalid_params")), caplog.records
    assert any("'Aengus' joined table 't' as player" in line for line in lines)
    assert not any("Traceback" in line for line in lines)


# -- a failed journal write changes nothing (issue 14, item 4) -----------------------------

COUNTER = '''
"""Counts the table's rolls in its per-table state and says so in a note."""
from sidecar import hookimpl

@hookimpl
def sidecar_modify_outcome(roll, outcome):
    roll.state["count"] = roll.state.get("count", 0) + 1
    outcome.notes.append(f"count {roll.state['count']}")
'''


def test_a_failed_journal_write_takes_no_seq_no_state_no_request_id(tmp_path):
    from sidecar.stores.journal import JournalError
    from tests.support.plugins import write_plugins

    directory = write_plugins(tmp_path / "p", compteur=COUNTER)

    async def scenario():
        async with running_server(plugins_dir=str(directory)) as server, \
                peers(server, 3) as (a, b, watcher):
            await a.join(name="A")
            await b.join(name="B")
            await watcher.join(name="W", role="observer")
            real = server.store.journal.append
            entered, release, failing = asyncio.Event(), asyncio.Event(), [True]

            async def append(event, state, records=()):  # a full disk, the first write only
                if failing:
                    failing.pop()
                    entered.set()
                    await release.wait()
                    raise JournalError("database or disk is full")
                await real(event, state, records)
            server.store.journal.append = append

            await a.send({"type": "roll", "id": "a", "ruleset": "bloodlust",
                          "params": {"pool": 2}})
            await asyncio.wait_for(entered.wait(), 5)
            # B's roll resolves while A's write hangs, and waits for it.
            await b.send({"type": "roll", "id": "b", "ruleset": "bloodlust",
                          "params": {"pool": 2}})
            table = server.tables.get("t")
            for _ in range(500):
                if table.turn._waiters:
                    break
                await asyncio.sleep(0.01)
            assert table.turn._waiters, "B's roll never reached the journal's turn"
            release.set()
            error = await a.recv_not_presence()
            assert error["type"] == "error" and error["code"] == "internal"
            assert error["id"] == "a"
            got = await b.recv_not_presence()
            assert got["seq"] == 1 and got["id"] == "b"
            assert "count 1" in got["notes"]  # A's roll left no state behind
            # The same id again: never stored, so it rolls now (no "duplicate").
            again = await a.roll(id="a")
            assert again["seq"] == 2 and "duplicate" not in again and "count 2" in again["notes"]
            seen = [(await watcher.recv_type("outcome"))["seq"] for _ in range(2)]
            assert seen == [1, 2]  # no gap
            # And the id is remembered now that it is stored.
            assert (await a.roll(id="a"))["duplicate"] is True
    run(scenario())


# -- observers and the table limit (issue 14, item 5) --------------------------------------


def test_observers_cannot_open_tables_nor_exhaust_the_table_limit():
    async def scenario():
        async with running_server(max_tables=3) as server:
            for i in range(30):  # observers naming new tables: refused, nothing held
                async with peers(server, 1) as (peer,):
                    await peer.send({"type": "hello", "protocol": 1, "table": f"x{i}",
                                     "name": "Spam", "role": "observer"})
                    error = await peer.recv()
                    assert error["code"] == "forbidden" and error["details"] == {
                        "table": f"x{i}"}
                    assert "observ" in error["message"]
                    await peer.join(table="t", name="P")  # still open: may join another
            assert len(server.tables) <= 1
            # Tables nobody sits at leave memory: the limit counts open tables only.
            for i in range(10):
                async with peers(server, 1) as (gm,):
                    await gm.join(table=f"g{i}", role="gm")
                    await gm.roll()
            async with peers(server, 1) as (gm,):
                await gm.join(table="last", role="gm")
            # The journal keeps them: an observer may join one, its seq is there.
            async with peers(server, 1) as (watcher,):
                assert (await watcher.join(table="g3", role="observer"))["seq"] == 1
    run(scenario())


def test_observers_count_apart_and_never_keep_a_player_out():
    async def scenario():
        async with running_server(max_members=2, max_observers=3) as server, \
                peers(server, 7) as (gm, o1, o2, o3, o4, player, extra):
            await gm.join(role="gm")
            for i, peer in enumerate((o1, o2, o3)):
                await peer.join(name=f"O{i}", role="observer")
            await o4.send({"type": "hello", "protocol": 1, "table": "t", "name": "O4",
                           "role": "observer"})
            full = await o4.recv()
            assert full["code"] == "too_large" and full["details"] == {"role": "observer"}
            await player.join(name="Aengus")  # observers are at their limit, not this one
            await extra.send({"type": "hello", "protocol": 1, "table": "t", "name": "X",
                              "role": "player", "token": GM_TOKEN})
            assert (await extra.recv())["code"] == "too_large"
    run(scenario())


# -- presence storms (issue 14, item 6) ----------------------------------------------------


def test_a_join_leave_loop_produces_few_presence_messages_ending_with_the_truth():
    from sidecar.table.core import PRESENCE_INTERVAL

    async def scenario():
        async with running_server() as server, peers(server, 2) as (watcher, gm):
            await watcher.join(name="W")
            loop = asyncio.get_running_loop()
            started = loop.time()
            cycles = 40
            for _ in range(cycles):  # one observer joining and leaving in a loop
                async with peers(server, 1) as (looper,):
                    await looper.join(name="Loop", role="observer")
            await gm.join(name="MJ", role="gm")
            final = [{"name": "W", "role": "player"}, {"name": "MJ", "role": "gm"}]
            count = 0
            while True:  # wait for the state, counting every presence on the way
                message = await watcher.recv_type("presence")
                count += 1
                if message["members"] == final:
                    break
            elapsed = loop.time() - started
            # One per interval at most (plus the first, sent at once): the 2 × 40 changes
            # of the loop, one message each before, are coalesced.
            assert count <= elapsed / PRESENCE_INTERVAL + 2, (count, elapsed)
            assert count < 2 * cycles
            # The truth was the last word: no presence is due, and none came after it.
            assert server.tables.get("t").presence_due is None
            assert await watcher.unseen(presence=True) == []
    run(scenario())
