"""O'Ween's Surprendre's two-turn lock (seed 000: « Surprendre : Coût 1 — Vous faites une
action déconcertante (à décrire), qui vous permet de prendre l'initiative sur votre
adversaire. Celui-ci ne pourra pas la reprendre durant ce tour et le suivant. »), through
a real server with manual dice: the surprise locks the initiative for the surpriser over
the named opponent; ``initiative`` puts the surpriser first and refuses the opponent's
claim; the table's "next turn" (``refill turn``) counts, and the lock ends after two of
them; it survives a restart (kept in the table state journaled with the roll)."""

from __future__ import annotations

from tests.helpers import Peer, run, running_server

SURPRISE = {"combat": {"options": ["surprendre"], "pay": "bonbonus", "opponent": "Brady"}}


async def _gm(server):
    gm = await Peer.open(server)
    await gm.join("pub", "MJ", "gm")
    return gm


async def _characters(gm):
    for name, pep in (("Aengus", 2), ("Brady", 4)):
        made = await gm.request({"type": "sheet", "id": f"c-{name}", "op": "set",
                                 "character": name, "ruleset": "oweens", "owner": None,
                                 "values": {"pep": pep, "bonbonus": 3}})
        assert made["type"] == "sheet", made


async def _initiative(gm, rid, brady_claims=False):
    return await gm.request({"type": "initiative", "id": rid, "characters": [
        "Aengus", {"character": "Brady", "claim": brady_claims}]})


async def _next_turn(gm, rid):
    gm.seen.clear()
    listing = await gm.request({"type": "sheet", "id": rid, "op": "refill", "what": "turn"})
    assert listing["type"] == "sheets", listing
    # The table's public event for the new turn (it may come before the answer).
    turns = [m for m in gm.seen if m["type"] == "session"]
    while not turns:
        message = await gm.recv_type("session")
        turns.append(message)
    assert turns[0]["op"] == "turn", turns
    return turns[0]["turn"]


def test_a_surprise_locks_the_initiative_for_this_turn_and_the_next(tmp_path):
    db = str(tmp_path / "j.db")

    async def scenario():
        async with running_server(db=db) as server:
            gm = await _gm(server)
            await _characters(gm)
            # Without a surprise, Brady's higher Peps goes first.
            plain = await _initiative(gm, "i0")
            assert plain["order"] == [["Brady"], ["Aengus"]], plain
            # A missed surprise locks nothing.
            missed = await gm.roll("oweens", {"characteristic": "PEP", "difficulty": 2},
                                   character="Aengus", options=SURPRISE, dice=[1, 2],
                                   mode="gm")
            assert missed["type"] == "outcome" and "surprise" not in missed["result"]
            hit = await gm.roll("oweens", {"characteristic": "PEP", "difficulty": 2},
                                character="Aengus", options=SURPRISE, dice=[6, 4],
                                mode="gm")
            assert hit["result"]["surprise"] == {"by": "Aengus", "over": "Brady", "turn": 0,
                                                 "until_turn": 1}, hit
            assert any("Surprise : Aengus" in note for note in hit["notes"])
            # This turn: Aengus first, for nothing; Brady may not claim it back.
            first = await _initiative(gm, "i1")
            assert first["order"] == [["Aengus"], ["Brady"]] and first["spent"] == {}
            refused = await _initiative(gm, "i2", brady_claims=True)
            assert refused["type"] == "error" and refused["code"] == "invalid_params"
            assert refused["details"]["param"] == "characters"
            assert await _next_turn(gm, "t1") == 1
            # The same "next turn" sent again (its answer lost) is not a second turn.
            again = await gm.request({"type": "sheet", "id": "t1", "op": "refill",
                                      "what": "turn"})
            assert again["type"] == "sheets" and again["duplicate"] is True, again
        async with running_server(db=db) as server:  # the lock survives a restart
            gm = await _gm(server)
            second = await _initiative(gm, "i3")
            assert second["order"] == [["Aengus"], ["Brady"]], second
            assert (await _initiative(gm, "i4", brady_claims=True))["type"] == "error"
            assert await _next_turn(gm, "t2") == 2
            # Two turns on, the lock is gone: Brady's Peps, and his claim is his to pay.
            free = await _initiative(gm, "i5")
            assert free["order"] == [["Brady"], ["Aengus"]], free
            claimed = await _initiative(gm, "i6", brady_claims=True)
            assert claimed["order"] == [["Brady"], ["Aengus"]]
            assert claimed["spent"] == {"Brady": {"bonbonus": 1}}
    run(scenario())


def test_a_surprise_without_a_named_opponent_is_not_tracked():
    async def scenario():
        async with running_server() as server:
            gm = await _gm(server)
            await _characters(gm)
            unnamed = {"combat": {"options": ["surprendre"], "pay": "bonbonus"}}
            hit = await gm.roll("oweens", {"characteristic": "PEP", "difficulty": 2},
                                character="Aengus", options=unnamed, dice=[6, 4], mode="gm")
            assert "surprise" not in hit["result"]
            assert any("pas suivi" in note for note in hit["notes"])
            assert (await _initiative(gm, "i1"))["order"] == [["Brady"], ["Aengus"]]
            bad = await gm.roll("oweens", {"characteristic": "PEP"}, character="Aengus",
                                options={"combat": {"options": ["surprendre"],
                                                    "opponent": 3}}, dice=[6])
            assert bad["code"] == "invalid_params"
            assert bad["details"]["param"] == "options.combat.opponent"
    run(scenario())
