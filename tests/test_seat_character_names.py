"""A seat and a character of one name (issue 29): an ask ticking « Ervald (personnage de
Tom) » went to the empty seat Ervald. A name that is both a seat and a character is
allowed only when that seat plays that character (both then mean the same player, and an
ask to it is the character's); a journal that already holds a clash (an older server)
makes an ask naming it ``invalid_params`` "ambiguous", never a silent pick."""

from __future__ import annotations

from tests.helpers import Peer, run, running_server


async def _gm_with_tom(server):
    gm = await Peer.open(server)
    await gm.join("t", "MJ", "gm")
    await gm.request({"type": "seat", "id": "s-tom", "op": "add", "name": "Tom"})
    made = await gm.request({"type": "sheet", "id": "c", "op": "set", "character": "Ervald",
                             "ruleset": "luck", "owner": "Tom", "values": {"skill": 3}})
    assert made["type"] == "sheet", made
    return gm


def _sheet(name, owner, rid):
    return {"type": "sheet", "id": rid, "op": "set", "character": name, "ruleset": "luck",
            "owner": owner, "values": {"skill": 1}}


def test_a_seat_may_not_take_another_players_characters_name():
    from tests.support.plugins import luck_host

    async def scenario():
        async with running_server(host=luck_host()) as server:
            gm = await _gm_with_tom(server)
            refused = await gm.request({"type": "seat", "id": "s", "op": "add",
                                        "name": "Ervald"})
            assert refused["code"] == "invalid_params", refused
            assert refused["message"] == ("« Ervald » est déjà le nom d'un personnage de "
                                          "Tom : donnez un autre nom à la place")
            # An NPC's name neither.
            assert (await gm.request(_sheet("Gobelin", None, "npc")))["type"] == "sheet"
            npc = await gm.request({"type": "seat", "id": "s2", "op": "add",
                                    "name": "Gobelin"})
            assert npc["code"] == "invalid_params", npc
            assert "personnage sans place" in npc["message"], npc
            seats = await gm.request({"type": "seat", "id": "l", "op": "list"})
            assert [s["name"] for s in seats["seats"]] == ["Tom"]
    run(scenario())


def test_a_character_may_take_a_seats_name_only_as_that_seats_own():
    from tests.support.plugins import luck_host

    async def scenario():
        async with running_server(host=luck_host()) as server:
            gm = await _gm_with_tom(server)
            await gm.request({"type": "seat", "id": "s", "op": "add", "name": "Lise"})
            for owner in ("Tom", None):
                refused = await gm.request(_sheet("Lise", owner, f"c-{owner}"))
                assert refused["code"] == "invalid_params", refused
                assert refused["details"]["field"] == "character", refused
                assert refused["message"].startswith("« Lise » est déjà le nom d'une place"), \
                    refused
            # Lise's own character of her name: both mean the same player.
            assert (await gm.request(_sheet("Lise", "Lise", "own")))["type"] == "sheet"
            # Given away later: refused too (changing its owner).
            given = await gm.request(_sheet("Lise", "Tom", "give"))
            assert given["code"] == "invalid_params", given
            # An ask to « Lise » is her character's.
            ask = await gm.request({"type": "ask", "id": "a", "op": "open", "to": ["Lise"],
                                    "ruleset": "luck", "params": {}})
            assert ask["to"] == [{"seat": "Lise", "character": "Lise"}], ask
            # A seat of the name of a character that seat plays (re-added): allowed.
            await gm.request({"type": "seat", "id": "rm", "op": "remove", "name": "Lise"})
            again = await gm.request({"type": "seat", "id": "s3", "op": "add",
                                      "name": "Lise"})
            assert again["type"] == "seat" and "token" in again, again
    run(scenario())


def test_an_ask_naming_a_clash_an_older_server_left_is_ambiguous():
    from tests.support.plugins import luck_host

    async def scenario():
        async with running_server(host=luck_host()) as server:
            gm = await _gm_with_tom(server)
            # What an older server let a journal hold: a seat Ervald beside Tom's Ervald.
            table = server.tables.tables["t"]
            table.seats["Ervald"] = "0" * 64
            table.seat_ids["Ervald"] = "abcdef012345"
            refused = await gm.request({"type": "ask", "id": "a", "op": "open",
                                        "to": ["Ervald"], "ruleset": "luck", "params": {}})
            assert refused["code"] == "invalid_params", refused
            assert refused["details"].get("ambiguous") is True, refused
            assert "ambigu" in refused["message"], refused
    run(scenario())
