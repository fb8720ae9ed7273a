"""GM-requested rolls (issue 12, "Rolling together"): the GM asks seats or characters for
a roll; each answers with one roll made as asked; the GM sees the answers arrive; an ask
can be cancelled; it closes when everyone answered."""

from __future__ import annotations

from tests.helpers import Peer, run, running_server, seated_peer
from tests.support.plugins import luck_host


async def _table(server):
    gm = await Peer.open(server)
    await gm.join("t", "MJ", "gm")
    seats = {}
    for name in ("Alice", "Bob"):
        seats[name] = await seated_peer(server, gm, name)
    await gm.request({"type": "sheet", "id": "c", "op": "set", "character": "Ysolde",
                      "ruleset": "luck", "owner": "Bob", "values": {"skill": 5}})
    return gm, seats


def test_a_gm_asks_seats_for_a_roll_and_each_answers_once():
    async def scenario():
        async with running_server(host=luck_host()) as server:
            gm, seats = await _table(server)
            carol = await Peer.open(server)
            await carol.join("t", "Carol")
            ask = await gm.request({"type": "ask", "id": "a", "op": "open",
                                    "to": ["Alice", "Ysolde"], "ruleset": "luck",
                                    "params": {"target": 5}, "label": "Perception",
                                    "mode": "gm"})
            assert ask["type"] == "ask" and ask["op"] == "open" and ask["mode"] == "gm"
            assert ask["to"] == [{"seat": "Alice", "character": None},
                                 {"seat": "Bob", "character": "Ysolde"}]
            assert ask["params"] == {"target": 5, "cost": 1, "second_chance": False,
                                     "no_default": False}
            # Everyone learns that the GM asked (a public event).
            assert (await carol.recv_type("ask"))["ask"] == ask["ask"]
            listing = await seats["Alice"].request({"type": "ask", "id": "l", "op": "list"})
            assert [a["ask"] for a in listing["asks"]] == [ask["ask"]]
            assert (await carol.request({"type": "ask", "id": "l", "op": "list"}))[
                "asks"] == []
            # Carol, not asked, may not answer; Alice answers with the ask's roll.
            refused = await carol.roll("luck", {}, answers=ask["ask"])
            assert refused["code"] == "forbidden"
            alice = await seats["Alice"].roll("luck", {"target": 1}, answers=ask["ask"],
                                             mode="public", label="autre")
            assert alice["answers"] == ask["ask"] and alice["mode"] == "gm"
            assert alice["params"]["target"] == 5 and alice["label"] == "Perception"
            seen = await gm.recv_type("outcome")
            assert seen["answers"] == ask["ask"] and seen["by"]["name"] == "Alice"
            twice = await seats["Alice"].roll("luck", {}, answers=ask["ask"])
            assert twice["code"] == "bad_message"
            # Bob answers as the character named in the ask (his skill 5 from the sheet).
            bob = await seats["Bob"].roll("luck", {}, answers=ask["ask"])
            assert bob["character"] == "Ysolde"
            assert bob["result"]["total"] - bob["dice"][0]["face"] == 5
            # Everyone answered: the ask is closed.
            closed = await gm.request({"type": "ask", "id": "l2", "op": "list"})
            assert closed["asks"] == []
    run(scenario())


def test_an_ask_can_be_cancelled_and_bad_asks_are_refused(tmp_path):
    db = str(tmp_path / "j.db")

    async def scenario():
        async with running_server(host=luck_host(), db=db) as server:
            gm, seats = await _table(server)
            for fields, code in (({"to": ["Nobody"]}, "invalid_params"),
                                 ({"to": ["Alice"], "mode": "self"}, "invalid_params"),
                                 ({"to": ["Alice"], "params": {"target": 99}},
                                  "invalid_params"),
                                 ({"to": []}, "bad_message")):
                error = await gm.request({"type": "ask", "id": "x", "op": "open",
                                          "ruleset": "luck", "params": {}, **fields})
                assert error["code"] == code, (fields, error)
            player = await seats["Alice"].request({"type": "ask", "id": "p", "op": "open",
                                                   "to": ["Bob"], "ruleset": "luck"})
            assert player["code"] == "forbidden"
            ask = await gm.request({"type": "ask", "id": "a", "op": "open", "to": ["Alice"],
                                    "ruleset": "luck", "params": {}})
        # An open ask survives a restart; then it is cancelled.
        async with running_server(host=luck_host(), db=db) as server:
            gm = await Peer.open(server)
            await gm.join("t", "MJ", "gm")
            listing = await gm.request({"type": "ask", "id": "l", "op": "list"})
            assert [a["ask"] for a in listing["asks"]] == [ask["ask"]]
            seat = await Peer.open(server)
            welcome = await seat.join("t", "Carol")  # not asked: no asks in her welcome
            assert "asks" not in welcome
            cancel = await gm.request({"type": "ask", "id": "cancel", "op": "cancel",
                                       "ask": ask["ask"]})
            assert cancel["op"] == "cancel"
            again = await gm.request({"type": "ask", "id": "c2", "op": "cancel",
                                      "ask": ask["ask"]})
            assert again["code"] == "bad_message"
    run(scenario())


def test_an_opposed_roll_compares_the_sides_when_the_last_one_answers():
    """Seed 003's two examples: Strengal 3D+5 rolls 11 → 16 against Krull 4D+1 rolling
    13 → 14: Strengal wins; at difficulty 20 with handling +3, Strengal 4D+3 rolls 13 → 19
    and fails, Krull 5D rolls 18 → 21: Krull wins. Each side has its own params."""
    async def scenario():
        async with running_server(allow_player_dice=True) as server:
            gm = await Peer.open(server)
            await gm.join("t", "MJ", "gm")
            peers = {}
            for name in ("Strengal", "Krull"):
                peers[name] = await seated_peer(server, gm, name)

            async def duel(rid, params, each, dice, decide=None):
                ask = await gm.request({"type": "ask", "id": rid, "op": "open",
                                        "to": ["Strengal", "Krull"], "ruleset": "d6code",
                                        "params": params, "each": each, "opposed": True})
                assert ask["opposed"] is True, ask
                first = await peers["Strengal"].roll("d6code", {}, answers=ask["ask"],
                                                     dice=dice["Strengal"])
                assert "opposition" not in first
                last = await peers["Krull"].roll("d6code", {}, answers=ask["ask"],
                                                 dice=dice["Krull"])
                final, watcher = last, "Strengal"
                # A side whose roll offers a decision after its dice (d6code: a style
                # point on a failure) is judged on its final result: the opposition
                # comes with the event that settles the last side.
                for seat, answer in (("Strengal", first), ("Krull", last)):
                    if answer.get("open"):
                        assert "opposition" not in final
                        choice, faces = (decide or {}).get(seat, ("keep", None))
                        react = {"type": "react", "id": f"{rid}-{seat}",
                                 "roll": answer["roll"], "choice": choice}
                        if faces is not None:
                            react["dice"] = faces
                        final = await peers[seat].request(react)
                        watcher = "Krull" if seat == "Strengal" else "Strengal"
                # The other side sees the same opposition.
                seen = await peers[watcher].recv_type("outcome")
                while seen["seq"] != final["seq"]:
                    seen = await peers[watcher].recv_type("outcome")
                assert seen["opposition"] == final["opposition"]
                return first, last, final

            first, last, final = await duel(
                "d1", {"difficulty": 0}, {"Strengal": {"code": "3D+5"},
                                          "Krull": {"code": "4D+1"}},
                {"Strengal": [3, 4, 4], "Krull": [4, 4, 3, 2]})
            assert first["result"]["score"] == 16 and last["result"]["score"] == 14
            assert final["opposition"]["winner"] == "Strengal"
            duel_2 = ("d2", {"difficulty": 20, "modifier": 3},
                      {"Strengal": {"code": "4D+3"}, "Krull": {"code": "5D"}},
                      {"Strengal": [4, 3, 3, 3], "Krull": [4, 4, 4, 3, 3]})
            first, last, final = await duel(*duel_2)
            assert first["result"]["score"] == 19 and last["result"]["score"] == 21
            assert final["opposition"]["winner"] == "Krull"
            assert [s["seat"] for s in final["opposition"]["sides"]] == ["Strengal", "Krull"]
            # The same duel, Strengal spending a style point after seeing his 19: 6 and 6
            # make 31, and the opposition is his.
            first, last, final = await duel("d2b", *duel_2[1:],
                                            decide={"Strengal": ("style_libre", [6, 6])})
            assert final["reacts_to"] == first["seq"] and final["result"]["score"] == 31
            assert final["opposition"]["winner"] == "Strengal"
            # Nobody reaches the difficulty: everybody fails.
            first, last, final = await duel(
                "d3", {"difficulty": 30}, {"Strengal": {"code": "3D"}, "Krull": {"code": "3D"}},
                {"Strengal": [1, 2, 3], "Krull": [2, 2, 2]})
            assert final["opposition"]["winner"] is None
            assert final["opposition"]["draw"] is False
    run(scenario())


def test_a_cooperative_roll_counts_the_best_answer():
    """Seed 000's door: « chaque participant gagne une augmentation par collaborateur.
    Dans le cas d'une action simple, on ne prend en compte que le meilleur jet. » D=3, one
    collaborator each: Aengus [5,5,3,6] + 1A (3→4) → S=5, MR 2; Brady [1,4,5] + 1A (5→6)
    → S=3, narrow. The best roll, Aengus's, is what the table achieves."""
    async def scenario():
        async with running_server(allow_player_dice=True) as server:
            gm = await Peer.open(server)
            await gm.join("t", "MJ", "gm")
            peers = {}
            for name in ("Aengus", "Brady"):
                peers[name] = await seated_peer(server, gm, name)
            both = await gm.request({"type": "ask", "id": "x", "op": "open", "to": ["Aengus",
                                     "Brady"], "ruleset": "oweens", "params": {"dice": 1},
                                     "opposed": True, "cooperative": True})
            assert both["code"] == "invalid_params"
            ask = await gm.request({"type": "ask", "id": "door", "op": "open",
                                    "to": ["Aengus", "Brady"], "ruleset": "oweens",
                                    "params": {"difficulty": 3},  # (1A: 1 collaborator)
                                    "each": {"Aengus": {"dice": 4}, "Brady": {"dice": 3}},
                                    "cooperative": True, "label": "La porte"})
            assert ask["cooperative"] is True
            aengus = await peers["Aengus"].roll("oweens", {}, answers=ask["ask"],
                                                dice=[5, 5, 3, 6])
            assert aengus["result"]["successes"] == 5 and "cooperation" not in aengus
            brady = await peers["Brady"].roll("oweens", {}, answers=ask["ask"],
                                              dice=[1, 4, 5])
            assert brady["result"]["kind"] == "narrow"
            assert brady["cooperation"]["best"] == "Aengus"
            assert brady["cooperation"]["margin"] == 2
            assert brady["cooperation"]["success"] is True
    run(scenario())


def test_initiative_orders_characters_by_the_rulesets_rule_and_claims_spend():
    """O'Ween's (RULES.md §1): highest Peps first; at equal Peps a relevant bagage first;
    still tied, together; spending a bonbonus takes the initiative (the claims ordered by
    the same rules, before everyone), paid from the wallet in the same write."""
    async def scenario():
        async with running_server() as server:
            gm = await Peer.open(server)
            await gm.join("t", "MJ", "gm")
            for name, pep, bonbonus in (("Aengus", 3, 1), ("Brady", 3, 0), ("Cian", 2, 2),
                                        ("Dara", 4, 0), ("Eogan", 2, 0)):
                await gm.request({"type": "sheet", "id": f"c-{name}", "op": "set",
                                  "character": name, "ruleset": "oweens",
                                  "values": {"pep": pep, "bonbonus": bonbonus}})
            player = await Peer.open(server)
            await player.join("t", "Fiona")
            refused = await player.request({"type": "initiative", "id": "p",
                                             "characters": ["Aengus"]})
            assert refused["code"] == "forbidden"
            order = await gm.request({"type": "initiative", "id": "i", "characters": [
                "Aengus", {"character": "Brady", "bagage": True},
                {"character": "Cian", "claim": True}, "Dara", "Eogan"]})
            assert order["type"] == "initiative", order
            assert order["order"] == [["Cian"], ["Dara"], ["Brady"], ["Aengus"], ["Eogan"]]
            assert order["claims"] == ["Cian"] and order["spent"] == {"Cian": {"bonbonus": 1}}
            assert (await player.recv_type("initiative"))["seq"] == order["seq"]
            tied = await gm.request({"type": "initiative", "id": "i2",
                                     "characters": ["Aengus", "Brady"]})
            assert tied["order"] == [["Aengus", "Brady"]]
            broke = await gm.request({"type": "initiative", "id": "i3", "characters": [
                {"character": "Brady", "claim": True}]})
            assert broke["code"] == "insufficient"
            values = {c["character"]: c["values"] for c in (await gm.request(
                {"type": "sheet", "id": "l", "op": "list"}))["characters"]}
            assert values["Cian"]["bonbonus"] == 1 and values["Brady"]["bonbonus"] == 0
            mixed = await gm.request({"type": "sheet", "id": "c-x", "op": "set",
                                      "character": "Gob", "ruleset": "bloodlust",
                                      "values": {}})
            assert mixed["type"] == "sheet"
            for characters, code in ((["Aengus", "Gob"], "invalid_params"),
                                     (["Gob"], "invalid_params"),
                                     (["Nobody"], "invalid_params"),
                                     (["Aengus", "Aengus"], "bad_message")):
                error = await gm.request({"type": "initiative", "id": "e",
                                          "characters": characters})
                assert error["code"] == code, (characters, error)
    run(scenario())
