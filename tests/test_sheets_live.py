"""O'Ween's towing example end to end: characters made by a GM's ``sheet set`` on a real
server, a seat's player rolling as hers with ``roll.character``, the table keeping the
river's reserve, the wallet spent in the outcome's journal write and ``insufficient``
when it runs short (RULES.md §1, PROTOCOL.md §7)."""

from __future__ import annotations

from tests.helpers import Peer, run, running_server


async def _character(gm: Peer, name: str, owner: str | None, **values) -> dict:
    made = await gm.request({"type": "sheet", "id": f"set-{name}", "op": "set",
                             "character": name, "ruleset": "oweens", "owner": owner,
                             "values": values, "reason": "création"})
    assert made["type"] == "sheet", made
    return made


def test_the_towing_example_plays_through_a_real_server_from_sheets():
    async def scenario():
        # The seed's faces are typed: players may enter physical dice at this table.
        async with running_server(allow_player_dice=True) as server:
            gm = await Peer.open(server)
            welcome = await gm.join("pub", "MJ", "gm")
            oweens = next(r for r in welcome["rulesets"] if r["name"] == "oweens")
            assert oweens["sheet"]["bonbonus"]["resource"] is True
            assert not oweens["params"]["dice"].get("required")
            seat = await gm.request({"type": "seat", "id": "seat", "op": "add",
                                     "name": "Joueuse"})
            player = await Peer.open(server)
            await player.join("pub", "Joueuse", token=seat["token"])
            made = await _character(gm, "Aengus", "Joueuse", ecl=3, bonbonus=3,
                                    bagages=["marin-pêcheur"])
            assert made["values"]["reserve_ecl"] == 0
            await _character(gm, "Brady", None, ecl=3)

            # Odds asked as the character are the odds of the same roll typed.
            as_aengus = await player.request({"type": "odds", "id": "o1", "ruleset": "oweens",
                                              "character": "Aengus",
                                              "params": {"characteristic": "ECL",
                                                         "difficulty": 4}})
            typed = await player.request({"type": "odds", "id": "o2", "ruleset": "oweens",
                                          "params": {"dice": 3, "difficulty": 4}})
            assert as_aengus["type"] == "odds" and as_aengus["kinds"] == typed["kinds"]
            # River: D=3, reserve 3 (the GM's numbers, given once: only the GM sets an
            # attacked reserve, here by asking Aengus's roll).
            ask = await gm.request({"type": "ask", "id": "river", "op": "open",
                                    "to": ["Aengus"], "ruleset": "oweens",
                                    "params": {"characteristic": "ECL", "difficulty": 3,
                                               "bagage": True, "adversity": "rivière",
                                               "reserve": 3}})
            river = await player.roll("oweens", {}, answers=ask["ask"], dice=[4, 1, 6, 4])
            assert river["type"] == "outcome", river
            assert river["result"]["margin"] == 1 and river["result"]["reserve_after"] == 2
            assert river["character"] == "Aengus" and river["sheet"]["bonbonus"] == 3
            # Kept (its default) before Aengus acts again: one open roll per character
            # (contract §8).
            kept = await player.request({"type": "react", "id": "k", "roll": river["roll"],
                                         "choice": "keep"})
            assert kept["type"] == "outcome" and kept["result"]["margin"] == 1, kept
            brady = await gm.roll("oweens", {"characteristic": "ECL", "difficulty": 3,
                                             "adversity": "rivière"},
                                  character="Brady", dice=[1, 6, 5])
            assert brady["result"]["kind"] == "narrow"
            assert brady["result"]["reserve_after"] == 2
            # Towing: D=4, [5, 6, 6], 1A bought for 2 BB+ → MR 2, the river at 0.
            towing = await player.roll("oweens", {"characteristic": "ECL", "difficulty": 4,
                                                  "buy_augmentations": 1,
                                                  "adversity": "rivière"},
                                       character="Aengus", dice=[5, 6, 6])
            assert towing["type"] == "outcome", towing
            assert towing["result"]["margin"] == 2
            assert towing["result"]["reserve_after"] == 0
            assert towing["spent"] == {"bonbonus": 2} and towing["sheet"]["bonbonus"] == 1
            # The GM sees the change too.
            seen = await gm.recv_type("outcome")
            while seen["seq"] != towing["seq"]:
                seen = await gm.recv_type("outcome")
            assert seen["sheet"]["bonbonus"] == 1
            # One BB+ left: another bought augmentation is refused, nothing rolled.
            short = await player.roll("oweens", {"characteristic": "ECL", "difficulty": 4,
                                                 "buy_augmentations": 1},
                                      character="Aengus", dice=[5, 6, 6])
            assert short["code"] == "insufficient"
            assert short["details"] == {"field": "bonbonus", "have": 1, "need": 2}
            listing = await gm.request({"type": "sheet", "id": "list", "op": "list"})
            values = {c["character"]: c["values"] for c in listing["characters"]}
            assert values["Aengus"]["bonbonus"] == 1 and values["Brady"]["bonbonus"] == 0
            # An opposed complex action lost: the opponent's margin drains the reserve.
            lost = await player.roll("oweens", {"characteristic": "ECL", "difficulty": 5,
                                                "contest": True},
                                     character="Aengus", dice=[4, 2, 2])
            assert lost["spent"] == {"reserve_ecl": 3}
            assert lost["sheet"]["reserve_ecl"] == -3
            drained = await player.roll("oweens", {"characteristic": "ECL",
                                                   "difficulty": 1},
                                        character="Aengus", dice=[])
            assert drained["code"] == "invalid_params"  # a reserve at 0 can't be used
            await player.close()
            await gm.close()
    run(scenario())
