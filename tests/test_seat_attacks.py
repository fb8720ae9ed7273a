"""Seats and characters attacked as a hostile player would (contract §7, PROTOCOL.md §7).

Each test is one way found to get around a promise of §7, against a real server on a
loopback port: a removed or re-keyed seat that keeps acting, a join that slips in while a
seat is re-keyed, a stranger mapping out a table's seats and characters, a name that only
looks like a seat's, a plugin's malformed ``spend``.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed

from sidecar import hookimpl
from sidecar.host.plugins import default_host
from sidecar.model import Outcome, label
from sidecar.protocol.codec import decode
from tests import sheet_plugin
from tests.helpers import GM_TOKEN, PLAYER_TOKEN, Peer, run, running_server


def _host(*extra: tuple[Any, str]):
    host = default_host(None)
    host.register(sheet_plugin, "luck_rules", version="1.0", source="tests")
    for plugin, name in extra:
        host.register(plugin, name, version="1.0", source="tests")
    return host


async def _gm(server, table="t"):
    gm = await Peer.open(server)
    await gm.join(table, "MJ", "gm")
    return gm


async def _seat(gm, name="Alice", rid=None):
    reply = await gm.request({"type": "seat", "id": rid or f"add-{name}", "op": "add",
                              "name": name})
    assert reply["type"] == "seat", reply
    return reply["token"]


async def _character(gm, name="Ysolde", owner="Alice", rid=None, **values):
    reply = await gm.request({"type": "sheet", "id": rid or f"set-{name}", "op": "set",
                              "character": name, "ruleset": "luck", "owner": owner,
                              "values": values})
    assert reply["type"] == "sheet", reply
    return reply


async def _until(predicate, what: str, rounds: int = 500) -> None:
    """Wait (bounded) for a state of the in-process server."""
    for _ in range(rounds):
        if predicate():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"never happened: {what}")


async def _closed_code(peer: Peer) -> int | None:
    """The code the server closed ``peer`` with (``None``: still open after 5 s)."""
    try:
        while True:
            await peer.recv()
    except TimeoutError:
        return None
    except ConnectionClosed as closed:
        assert closed.rcvd is not None, "closed without a close frame"
        return closed.rcvd.code


async def _reply(peer: Peer, rid: str) -> dict[str, Any]:
    """The next message answering request ``rid``."""
    while (message := await peer.recv())["type"] == "presence" or message.get("id") != rid:
        pass
    return message


async def _hello(server, name, token, table="t", role="player"):
    """A raw ``hello``: the first answer (welcome or error)."""
    peer = await Peer.open(server)
    await peer.send({"type": "hello", "protocol": 1, "table": table, "name": name,
                     "role": role, "token": token})
    return peer, await peer.recv()


# -- a removed or re-keyed seat keeps acting ------------------------------------------------

@pytest.mark.parametrize("op", ["remove", "rotate"])
def test_frames_a_seat_sends_after_its_removal_are_not_acted_on(op):
    """The server closes a removed seat's connection (1008), but until the client reads
    that close frame it can still send: those frames were still rolled, journaled, spent
    from the character and shown to the GMs."""
    async def scenario():
        async with running_server(host=_host()) as server:
            gm = await _gm(server)
            token = await _seat(gm)
            await _character(gm)
            alice = await Peer.open(server)
            await alice.join("t", "Alice", token=token)
            # Alice's client stops reading: it will not see the close frame coming.
            alice.ws.transport.pause_reading()
            done = await gm.request({"type": "seat", "id": "x", "op": op, "name": "Alice"})
            assert done["type"] == "seat"
            # Sent after the server closed her seat's connection.
            await alice.send({"type": "roll", "id": "late", "ruleset": "luck",
                              "params": {"cost": 2}, "character": "Ysolde"})
            # Her connection ends on the server (the close's grace runs out).
            await _until(lambda: len(server.outboxes) == 1, "the seat's connection ended")
            page = await gm.request({"type": "history", "id": "h", "after": done["seq"]})
            assert page["events"] == [], page["events"]
            listing = await gm.request({"type": "sheet", "id": "l", "op": "list"})
            assert listing["characters"][0]["values"]["luck"] == 3
            assert await gm.quiet(0.1) == []
    run(scenario())


def test_a_roll_waiting_for_its_turn_when_its_seat_is_removed_is_not_made():
    """A seat's roll accepted just before the GM removes the seat, waiting for the table's
    turn behind the removal, was made afterwards: a removed seat spent its character."""
    async def scenario():
        async with running_server(host=_host()) as server:
            gm = await _gm(server)
            token = await _seat(gm)
            await _character(gm)
            alice = await Peer.open(server)
            await alice.join("t", "Alice", token=token)
            table = server.tables.get("t")
            turn = table.turn
            await turn.acquire()  # the table is busy (another roll being journaled)
            try:
                await gm.send({"type": "seat", "id": "x", "op": "remove", "name": "Alice"})
                await _until(lambda: len(turn._waiters or ()) == 1, "the removal waits")
                await alice.send({"type": "roll", "id": "r", "ruleset": "luck",
                                  "params": {"cost": 2}, "character": "Ysolde"})
                await _until(lambda: len(turn._waiters or ()) == 2, "the roll waits")
            finally:
                turn.release()
            done = await gm.recv_type("seat")
            assert await _closed_code(alice) == 1008
            await _until(lambda: len(server.outboxes) == 1, "the seat's connection ended")
            page = await gm.request({"type": "history", "id": "h", "after": done["seq"]})
            assert page["events"] == [], page["events"]
            listing = await gm.request({"type": "sheet", "id": "l", "op": "list"})
            assert listing["characters"][0]["values"]["luck"] == 3
    run(scenario())


@pytest.mark.parametrize("op", ["remove", "rotate"])
def test_a_join_with_the_old_token_while_the_seat_change_is_journaled_is_closed_too(op):
    """``rotate``/``remove`` chose the connections to close before its journal write; a
    ``hello`` with the old token arriving during that write joined, and stayed joined on a
    token that no longer works."""
    async def scenario():
        async with running_server(host=_host()) as server:
            gm = await _gm(server)
            token = await _seat(gm)
            entered, release = asyncio.Event(), asyncio.Event()
            append = server.store.journal.append

            async def slow_append(event, *args, **kwargs):
                if event.get("type") == "seat" and event.get("op") == op:
                    entered.set()
                    await release.wait()
                return await append(event, *args, **kwargs)

            server.store.journal.append = slow_append
            await gm.send({"type": "seat", "id": "x", "op": op, "name": "Alice"})
            await asyncio.wait_for(entered.wait(), 5)
            late = await Peer.open(server)
            await late.join("t", "Alice", token=token)  # before the change is stored
            release.set()
            assert (await gm.recv_type("seat"))["op"] == op
            assert await _closed_code(late) == 1008
            # And the old token no longer joins.
            _, answer = await _hello(server, "Alice", token)
            assert answer["code"] == "forbidden"
    run(scenario())


# -- what a stranger learns -----------------------------------------------------------------

def test_a_wrong_token_does_not_tell_which_names_have_a_seat():
    """Without any valid token, ``hello`` under a seat's name answered "'Alice' has a seat
    at this table" (with ``details.seat``), under another name "wrong token": anyone could
    map out a table's seats (and whether the table exists) by guessing names."""
    async def scenario():
        async with running_server(host=_host(), max_failed_hellos=100) as server:
            gm = await _gm(server)
            await _seat(gm)
            _, seat_name = await _hello(server, "Alice", "not-a-token")
            _, free_name = await _hello(server, "Zed", "not-a-token")
            assert seat_name["code"] == free_name["code"] == "forbidden"
            assert (seat_name["message"], seat_name.get("details")) == \
                (free_name["message"], free_name.get("details"))
            # With the shared token the player may be told why (presence shows seats to
            # everyone who holds it anyway).
            _, told = await _hello(server, "Alice", PLAYER_TOKEN)
            assert told["code"] == "forbidden" and told["details"]["seat"] == "Alice"
    run(scenario())


def test_a_member_without_a_seat_cannot_learn_which_characters_exist():
    """A player without a seat (or an observer asking odds) got ``invalid_params`` for a
    character that does not exist and ``forbidden`` for one that does: the GM's secret
    NPCs could be found by guessing names. None can be theirs: ``forbidden`` for all."""
    async def scenario():
        async with running_server(host=_host()) as server:
            gm = await _gm(server)
            await _seat(gm)
            await _character(gm, "Vampire", owner=None)
            carol = await Peer.open(server)
            await carol.join("t", "Carol")
            watcher = await Peer.open(server)
            await watcher.join("t", "Vue", "observer")
            answers = []
            for name in ("Vampire", "Nobody"):
                rolled = await carol.roll("luck", {}, character=name)
                carol_odds = await carol.request({"type": "odds", "id": f"o{name}",
                                                  "ruleset": "luck", "character": name})
                watched = await watcher.request({"type": "odds", "id": f"w{name}",
                                                 "ruleset": "luck", "character": name})
                answers.append([(a["code"], a["message"].replace(name, "X"))
                                for a in (rolled, carol_odds, watched)])
            assert answers[0] == answers[1], answers
            assert {code for code, _ in answers[0]} == {"forbidden"}
    run(scenario())


# -- names that only look like a seat's ------------------------------------------------------

LOOKALIKES = ["alice", "ALICE", "Alice ", " Alice", "Al\u200bice", "\uff21lice",
              "A\u00adlice", "Alice\u200d", "Alic\u00e8"]
# ("Alice\t" is refused at the door: no control character in a name, tests/test_door.py.)


def test_a_name_that_only_looks_like_a_seats_name_is_refused_with_the_shared_token():
    """Identities are exact (``"Alice "`` never sees Alice's secret rolls), but with the
    shared token anyone could sit beside the seat "Alice" as "alice", "Alice " or
    "Al\\u200bice" and roll in her name as the table reads it."""
    async def scenario():
        async with running_server(host=_host(), max_failed_hellos=100) as server:
            gm = await _gm(server)
            await _seat(gm)
            await _seat(gm, "\u00c9lodie")  # NFC
            refused = []
            # (An accent is no difference: "Elodie" would read as the seat "Élodie".)
            others = ["E\u0301lodie", "\u00e9lodie", "Elodie"]
            for name in [*LOOKALIKES, *others]:
                _, answer = await _hello(server, name, PLAYER_TOKEN)
                if answer["type"] == "error" and answer["code"] == "forbidden":
                    refused.append(name)
            assert refused == [*LOOKALIKES, *others]
            # Names that differ for real still join with the shared token.
            for name in ("Alicia", "Alice B", "Eloise"):
                peer, answer = await _hello(server, name, PLAYER_TOKEN)
                assert answer["type"] == "welcome", (name, answer)
            # And a GM cannot make two seats that look the same.
            twin = await gm.request({"type": "seat", "id": "twin", "op": "add",
                                     "name": "ALICE "})
            assert twin["code"] == "bad_message" and twin["details"]["field"] == "name"
    run(scenario())


def test_adding_a_seat_closes_the_shared_token_connections_under_its_name():
    """A player who joined with the shared token as "Alice" (or "alice") before the GM
    gave Alice a seat stayed at the table beside the seat, under her name."""
    async def scenario():
        async with running_server(host=_host()) as server:
            gm = await _gm(server)
            before = await Peer.open(server)
            await before.join("t", "Alice")
            lookalike = await Peer.open(server)
            await lookalike.join("t", "alice")
            other = await Peer.open(server)
            await other.join("t", "Carol")
            await _seat(gm)
            assert await _closed_code(before) == 1008
            assert await _closed_code(lookalike) == 1008
            # Carol stays.
            assert (await other.roll("luck", {}))["type"] == "outcome"
    run(scenario())


# -- a third-party ruleset's spend ------------------------------------------------------------

class Hostile:
    """An untrusted ruleset (as loaded with --plugins-dir) whose ``spend`` is whatever its
    ``how`` param says; its sheet has a counter without bounds."""

    SPENDS: dict[str, Any] = {"none": None, "list": [], "zero": 0, "text": "",
                              "one": {"luck": 1}}

    @hookimpl
    def sidecar_rulesets(self) -> list[dict[str, Any]]:
        return [{"name": "hostile", "title": "Hostile", "version": "1.0", "params": {
            "how": {"type": "string", "default": "one"}}}]

    @hookimpl
    def sidecar_sheet(self, ruleset: str) -> dict[str, Any] | None:
        if ruleset != "hostile":
            return None
        return {"luck": {"type": "int", "min": 0, "max": 5, "default": 3, "resource": True},
                "gold": {"type": "int", "default": 0}}

    @hookimpl
    def sidecar_resolve(self, roll: Any, dice: Any) -> Outcome:
        face = dice.roll(6)
        return Outcome(result={"success": True, "margin": face, "kind": "success",
                               "label": label("Réussite", "Success"), "total": face},
                       spend=self.SPENDS[roll.params["how"]])


@pytest.mark.parametrize("how", ["none", "list", "zero", "text"])
def test_a_spend_that_is_not_a_map_is_the_plugins_error_and_spends_nothing(how):
    """A falsy ``spend`` that is not a map (None, [], 0, "") slipped past the check of
    untrusted outcomes and crashed the server's spend (``internal``, a traceback in the
    log) instead of being that plugin's ``plugin_error``."""
    async def scenario():
        async with running_server(host=_host((Hostile(), "hostile_rules"))) as server:
            gm = await _gm(server)
            await _seat(gm)
            await gm.request({"type": "sheet", "id": "c", "op": "set", "character": "Y",
                              "ruleset": "hostile", "owner": "Alice", "values": {}})
            answer = await gm.roll("hostile", {"how": how}, character="Y")
            assert answer["type"] == "error" and answer["code"] == "plugin_error", answer
            assert answer["details"]["ruleset"] == "hostile"
            page = await gm.request({"type": "history", "id": "h"})
            assert [e["type"] for e in page["events"]] == ["seat", "sheet"]
            # Without a character, spend is ignored whatever it is.
            assert (await gm.roll("hostile", {"how": how}))["type"] == "outcome"
    run(scenario())


def test_an_adjustment_past_64_bits_is_insufficient_not_an_internal_error():
    """On a counter without ``max``, a GM's ``adjust`` past the 64-bit range answered
    ``internal`` ("this roll's outcome cannot be encoded"): it is a bound like any other."""
    async def scenario():
        async with running_server(host=_host((Hostile(), "hostile_rules"))) as server:
            gm = await _gm(server)
            await gm.request({"type": "sheet", "id": "c", "op": "set", "character": "Y",
                              "ruleset": "hostile", "owner": None,
                              "values": {"gold": 2**63 - 1}})
            for rid, delta in (("up", 1), ("far", 2**64 - 1)):
                answer = await gm.request({"type": "sheet", "id": rid, "op": "adjust",
                                           "character": "Y", "delta": {"gold": delta}})
                assert answer["code"] == "insufficient", answer
                assert answer["details"] == {"field": "gold", "have": 2**63 - 1,
                                             "need": delta}
            await gm.request({"type": "sheet", "id": "low", "op": "set", "character": "Y",
                              "ruleset": "hostile", "values": {"gold": -2**63}})
            answer = await gm.request({"type": "sheet", "id": "down", "op": "adjust",
                                       "character": "Y", "delta": {"gold": -1}})
            assert answer["code"] == "insufficient", answer
            listing = await gm.request({"type": "sheet", "id": "l", "op": "list"})
            assert listing["characters"][0]["values"]["gold"] == -2**63
    run(scenario())


# -- holes these attacks found, since fixed (each test failed before its fix) ----------------

def test_a_gm_joins_a_table_of_a_thousand_characters_within_the_frame_limit():
    """Every frame the server sends is meant to fit 64 KiB (history pages stop at 56 KiB);
    ``welcome.characters`` (and ``sheet list``, and a refill's answer) carried every
    character of the table: a GM at a table of 1,000 characters got a frame our own
    Python client refuses (``too_large``), and with full sheets one larger than the 1 MiB
    a connection may leave unread, so the server closed the GM at once (1013). They come
    in pages now."""
    async def scenario():
        async with running_server(host=_host(), rate_limit=0) as server:
            gm = await _gm(server)
            full = {f"{j:02d}" + "k" * 62: j for j in range(50)}  # a full map field
            for i in range(1000):
                await _character(gm, f"Personnage {i:04d}", owner=None, rid=f"c{i}",
                                 notes="n" * 200, skills=full)
            late = await Peer.open(server)
            await late.send({"type": "hello", "protocol": 1, "table": "t", "name": "MJ2",
                             "role": "gm", "token": GM_TOKEN})
            try:
                frame = await asyncio.wait_for(late.ws.recv(), 10)
            except ConnectionClosed as closed:
                raise AssertionError(f"closed on joining: {closed}") from None
            assert len(frame) <= 64 * 1024, len(frame)
            welcome = decode(frame)
            assert welcome["characters_more"] is True
            # Every character, page by page, each page within the frame limit.
            seen, after = [], ""
            while True:
                await late.send({"type": "sheet", "id": "p", "op": "list", "after": after})
                while True:
                    frame = await asyncio.wait_for(late.ws.recv(), 10)
                    page = decode(frame)
                    if page.get("id") == "p":
                        break
                assert len(frame) <= 64 * 1024, len(frame)
                seen += [c["character"] for c in page["characters"]]
                if not page["more"]:
                    break
                after = page["next"]
            assert seen == sorted(f"Personnage {i:04d}" for i in range(1000))
    run(scenario(), timeout=240)


class DiceSpend:
    """A ruleset whose spend depends on the dice: a failure costs a point of ``luck``
    (O'Ween's reserve drained by an opponent's margin is of this kind)."""

    @hookimpl
    def sidecar_rulesets(self) -> list[dict[str, Any]]:
        return [{"name": "drain", "title": "Drain", "version": "1.0", "params": {}}]

    @hookimpl
    def sidecar_sheet(self, ruleset: str) -> dict[str, Any] | None:
        if ruleset != "drain":
            return None
        return {"luck": {"type": "int", "min": 0, "max": 5, "default": 0, "resource": True}}

    @hookimpl
    def sidecar_resolve(self, roll: Any, dice: Any) -> Outcome:
        face = dice.roll(6)
        success = face >= 4
        return Outcome(result={"success": success, "margin": face - 4,
                               "kind": "success" if success else "failure",
                               "label": label("R", "S") if success else label("É", "F"),
                               "total": face},
                       spend={} if success else {"luck": 1})


def test_the_built_in_rulesets_never_refuse_what_the_dice_decide():
    """``insufficient`` comes after the dice (the contract: nothing rolled, no seq): a spend
    that depends on the dice, refused, would let a player roll again until the dice spare
    the sheet. The built-in rulesets take what the dice decide only as far as the sheet
    holds (O'Ween's reserve drained by the opponent's margin, the bonbonus that keeps a
    reserve point, the drink's lost bonbonus): the failure stands, journaled. (Third-party
    rulesets are told so in ``sidecar_resolve``'s documentation.)"""
    async def scenario():
        async with running_server() as server:
            gm = await _gm(server)
            cases = {"Y1": {"characteristic": "PEP", "difficulty": 6, "contest": True,
                            "keep_reserve": 3},
                     # (a glass is a « jet d'Encaisse »: ENC, issue 26)
                     "Y2": {"characteristic": "ENC", "difficulty": 6, "drinking": True}}
            for name, params in cases.items():
                await gm.request({"type": "sheet", "id": name, "op": "set", "character": name,
                                  "ruleset": "oweens", "values": {"pep": 2, "enc": 2,
                                                                "bonbonus": 0}})
                failed = await gm.roll("oweens", params, character=name, dice=[1, 1])
                assert failed["type"] == "outcome", failed
                assert failed["result"]["success"] is False
            values = {c["character"]: c["values"] for c in (await gm.request(
                {"type": "sheet", "id": "l", "op": "list"}))["characters"]}
            assert values["Y1"]["bonbonus"] == 0 and values["Y1"]["reserve_pep"] == -2
            assert values["Y2"]["bonbonus"] == 0
    run(scenario())


def test_a_seat_added_again_under_a_removed_seats_name_does_not_read_its_secrets():
    async def scenario():
        async with running_server(host=_host()) as server:
            gm = await _gm(server)
            first = await Peer.open(server)
            await first.join("t", "Alice", token=await _seat(gm))
            secret = await first.roll("luck", {}, mode="self")
            assert secret["type"] == "outcome"
            await gm.request({"type": "seat", "id": "rm", "op": "remove", "name": "Alice"})
            second = await Peer.open(server)
            await second.join("t", "Alice", token=await _seat(gm, rid="again"))
            page = await second.request({"type": "history", "id": "h"})
            assert secret["seq"] not in [e["seq"] for e in page["events"]]
    run(scenario())


def test_a_refill_of_the_whole_table_sent_again_gives_nothing_back_twice():
    """The GM's "new turn" (refill without ``character``) is lost on the way back and the
    client sends it again, as ids are made for. Meanwhile Alice spent her once-per-turn
    point: the second refill gives it back, and she spends it twice in one turn."""
    async def scenario():
        async with running_server(host=_host()) as server:
            gm = await _gm(server)
            alice = await Peer.open(server)
            await alice.join("t", "Alice", token=await _seat(gm))
            await _character(gm, focus=0)
            refill = {"type": "sheet", "id": "turn-7", "op": "refill", "what": "turn"}
            first = await gm.request(refill)
            assert first["characters"][0]["values"]["focus"] == 1
            await gm.request({"type": "sheet", "id": "spent", "op": "adjust",
                              "character": "Ysolde", "delta": {"focus": -1},
                              "reason": "Alice uses her point"})
            await gm.request(refill)  # the same request, sent again
            listing = await gm.request({"type": "sheet", "id": "l", "op": "list"})
            assert listing["characters"][0]["values"]["focus"] == 0
    run(scenario())


# -- the same request twice ----------------------------------------------------------------

def test_the_same_request_from_two_devices_spends_once_even_when_memory_is_trimmed(tmp_path):
    """A seat's two devices send one roll id; the second waits for the table's turn
    behind the first and behind other rolls. When the table's memory of request ids is
    trimmed meanwhile (a bound in bytes), the second, checked against memory only, was
    rolled and spent again."""
    async def scenario():
        async with running_server(host=_host(), db=str(tmp_path / "j.db"),
                                  max_remembered_bytes=1) as server:
            gm = await _gm(server)
            token = await _seat(gm)
            await _character(gm)
            phone = await Peer.open(server)
            await phone.join("t", "Alice", token=token)
            laptop = await Peer.open(server)
            await laptop.join("t", "Alice", token=token)
            roll = {"type": "roll", "id": "once", "ruleset": "luck", "params": {"cost": 1},
                    "character": "Ysolde"}
            turn = server.tables.get("t").turn
            await turn.acquire()
            try:
                await phone.send(roll)
                await _until(lambda: len(turn._waiters or ()) == 1, "the first waits")
                await gm.send({"type": "roll", "id": "other", "ruleset": "luck",
                               "params": {}})
                await _until(lambda: len(turn._waiters or ()) == 2, "the GM's waits")
                await laptop.send(roll)
                await _until(lambda: len(turn._waiters or ()) == 3, "the second waits")
            finally:
                turn.release()
            first, second = await _reply(phone, "once"), await _reply(laptop, "once")
            assert first["type"] == "outcome", first
            # (It was "internal": the journal's unique index refused the second write.)
            assert second["type"] == "outcome", second
            assert second["seq"] == first["seq"] and second.get("duplicate") is True
            listing = await gm.request({"type": "sheet", "id": "l", "op": "list"})
            assert listing["characters"][0]["values"]["luck"] == 2
    run(scenario())


def test_an_empty_configured_token_lets_nobody_in():
    """A server embedded with ``player_token=""`` (meaning: seats only, no shared token)
    let in anyone sending ``token: ""`` as a player under any free name; the same for an
    empty GM token."""
    async def scenario():
        async with running_server(host=_host(), player_token="",
                                  max_failed_hellos=100) as server:
            _, answer = await _hello(server, "Carol", "")
            assert answer["type"] == "error" and answer["code"] == "forbidden", answer
        async with running_server(host=_host(), gm_token="",
                                  max_failed_hellos=100) as server:
            _, answer = await _hello(server, "MJ", "", role="gm")
            assert answer["type"] == "error" and answer["code"] == "forbidden", answer
            _, answer = await _hello(server, "Carol", "")
            assert answer["type"] == "error" and answer["code"] == "forbidden", answer
    run(scenario())


def test_the_gms_history_of_a_character_adds_up_to_its_values():
    """A player rolls ``self`` as their character: only they see the outcome, so no GM
    sees its ``spent``, while the GMs' list shows the values it left. The GM cannot tell a
    spend from a cheat, and "the history of a character is its events" fails for them."""
    async def scenario():
        async with running_server(host=_host()) as server:
            gm = await _gm(server)
            alice = await Peer.open(server)
            await alice.join("t", "Alice", token=await _seat(gm))
            await _character(gm)
            refused = await alice.roll("luck", {"cost": 2}, character="Ysolde", mode="self")
            assert refused["code"] == "invalid_params"
            assert refused["details"]["param"] == "mode"
            secret = await alice.roll("luck", {"cost": 2}, character="Ysolde", mode="gm")
            assert secret["sheet"]["luck"] == 1
            page = await gm.request({"type": "history", "id": "h"})
            luck = None
            for event in page["events"]:
                if event["type"] == "sheet":
                    luck = event["values"]["luck"]
                elif event.get("character") == "Ysolde":
                    luck -= event["spent"].get("luck", 0)
            listing = await gm.request({"type": "sheet", "id": "l", "op": "list"})
            assert luck == listing["characters"][0]["values"]["luck"]
    run(scenario())


# -- attacks that found the promise kept (kept as regressions) -------------------------------

class Counter:
    """An extension that counts a table's rolls in its per-table state and spends a point
    of ``focus`` on every roll as a character (declared before the dice)."""

    @hookimpl
    def sidecar_max_spend(self, roll: Any, choice: Any) -> dict[str, int] | None:
        return {"focus": 1} if choice is None else None

    @hookimpl
    def sidecar_modify_outcome(self, roll: Any, outcome: Any) -> None:
        roll.state["rolls"] = roll.state.get("rolls", 0) + 1
        outcome.notes.append(f"roll {roll.state['rolls']}")
        if roll.sheet is not None:
            outcome.spend["focus"] = outcome.spend.get("focus", 0) + 1


def test_an_insufficient_roll_leaves_no_trace_in_plugin_state_or_ids():
    async def scenario():
        async with running_server(host=_host((Counter(), "counter"))) as server:
            gm = await _gm(server)
            alice = await Peer.open(server)
            await alice.join("t", "Alice", token=await _seat(gm))
            await _character(gm, focus=0)
            refused = await alice.roll("luck", {"cost": 0}, character="Ysolde", id="r")
            assert refused["code"] == "insufficient"
            assert refused["details"] == {"field": "focus", "have": 0, "need": 1}
            # The extension's count did not move; the same id may be tried again.
            await gm.request({"type": "sheet", "id": "give", "op": "adjust",
                              "character": "Ysolde", "delta": {"focus": 1}})
            made = await alice.roll("luck", {"cost": 0}, character="Ysolde", id="r")
            assert made["type"] == "outcome" and "duplicate" not in made
            assert "roll 1" in made["notes"] and made["sheet"]["focus"] == 0
    run(scenario())


def test_a_roll_waiting_for_its_turn_when_its_character_changes_hands_is_refused():
    async def scenario():
        async with running_server(host=_host()) as server:
            gm = await _gm(server)
            alice = await Peer.open(server)
            await alice.join("t", "Alice", token=await _seat(gm))
            await _seat(gm, "Bob")
            await _character(gm)
            turn = server.tables.get("t").turn
            await turn.acquire()
            try:
                await gm.send({"type": "sheet", "id": "give", "op": "set",
                               "character": "Ysolde", "ruleset": "luck", "owner": "Bob",
                               "values": {}})
                await _until(lambda: len(turn._waiters or ()) == 1, "the change waits")
                await alice.send({"type": "roll", "id": "r", "ruleset": "luck",
                                  "params": {"cost": 2}, "character": "Ysolde"})
                await _until(lambda: len(turn._waiters or ()) == 2, "the roll waits")
            finally:
                turn.release()
            answer = await _reply(alice, "r")
            assert answer["code"] == "forbidden", answer
            listing = await gm.request({"type": "sheet", "id": "l", "op": "list"})
            assert listing["characters"][0]["values"]["luck"] == 3
    run(scenario())
