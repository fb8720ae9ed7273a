"""A player's typed value that the table, a sheet or the GM sets never silently wins nor
silently loses in O'Ween's, against a real server (issue 29, found by a newcomer's replay):

- a melee attack's difficulty is its opponent's Peps: a difficulty Léa typed with
  ``combat.attack=melee`` was replaced without a word (« 2D contre 2 »); a ranged attack's
  difficulty is its table's, a hold's its target's ECL;
- a complex action's attacked reserve is the GM's obstacle (« le MJ détermine la valeur de
  la réserve »): a player may not set it, only go on from the one the table keeps.
"""

from __future__ import annotations

from typing import Any

from tests.helpers import Peer, run, running_server
from tests.test_fights_live import table as fight_table

SHEETS = {"Aengus": ("Alice", {"pep": 4, "ecl": 3, "enc": 3, "fla": 4}),
          "Garde": (None, {"pep": 2, "ecl": 2, "enc": 2})}


async def _next_seq(gm: Peer) -> int:
    return (await gm.roll("dice", {"expr": "1d6"}))["seq"]


async def _refused(peer: Peer, params: dict[str, Any], options: dict[str, Any],
                   targets: list[str] | None = None) -> dict[str, Any]:
    reply = await peer.roll("oweens", {"characteristic": "PEP", **params}, character="Aengus",
                            options=options, dice=[6, 6, 6, 6],
                            **({"targets": targets} if targets else {}))
    assert reply["type"] == "error", reply
    return reply


def test_a_players_typed_difficulty_is_never_replaced_by_a_combat_attack():
    """Léa's melee at the Garde with difficulty 1 is refused before any die, naming the
    field by its label and the Garde's sheet (as without ``attack=melee``); so is a
    difficulty other than a ranged attack's table or a hold's target; a difficulty equal
    to what the combat sets (her own typed opponent's Peps, the table's 3) passes; the GM's
    typed difficulty wins over the Garde's Peps."""
    async def scenario():
        async with running_server(allow_player_dice=True) as server:
            gm, alice, _bob = await fight_table(server, "oweens", SHEETS)
            before = await _next_seq(gm)
            melee = {"combat": {"attack": "melee"}}
            refused = await _refused(alice, {"difficulty": 1}, melee, ["Garde"])
            assert refused["code"] == "invalid_params", refused
            assert refused["details"]["param"] == "difficulty", refused
            assert "Difficulté" in refused["message"], refused
            assert "la fiche de Garde fixe cette valeur" in refused["message"], refused
            held = await _refused(alice, {"characteristic": "ENC", "difficulty": 1},
                                  {"combat": {"hold": True}}, ["Garde"])
            assert held["details"]["param"] == "difficulty", held
            # Without a target, what the attack sets is the table's or her own typing.
            ranged = await _refused(alice, {"characteristic": "FLA", "difficulty": 5},
                                    {"combat": {"attack": "ranged",
                                                "ranged_modifiers": [1]}})
            assert ranged["code"] == "invalid_params", ranged
            assert ranged["details"]["param"] == "difficulty", ranged
            assert "Difficulté" in ranged["message"] and "4" in ranged["message"], ranged
            typed = await _refused(alice, {"difficulty": 1},
                                   {"combat": {"attack": "melee", "opponent_pep": 3}})
            assert typed["details"]["param"] == "difficulty", typed
            # Nothing was rolled.
            assert await _next_seq(gm) == before + 1
            # Equal values pass.
            same = await alice.roll("oweens", {"characteristic": "FLA", "difficulty": 4},
                                    character="Aengus", dice=[6, 6, 6, 6],
                                    options={"combat": {"attack": "ranged",
                                                        "ranged_modifiers": [1]}})
            assert same["type"] == "outcome" and same["result"]["difficulty"] == 4, same
            same = await alice.roll("oweens", {"characteristic": "PEP", "difficulty": 3},
                                    character="Aengus", dice=[6, 6, 6, 6],
                                    options={"combat": {"attack": "melee",
                                                        "opponent_pep": 3}})
            assert same["type"] == "outcome" and same["result"]["difficulty"] == 3, same
            # Left out, the Garde's Peps is read; the GM's typed difficulty wins.
            plain = await alice.roll("oweens", {"characteristic": "PEP"}, character="Aengus",
                                     targets=["Garde"], options=melee, dice=[6, 6, 6, 6])
            assert plain["type"] == "outcome" and plain["result"]["difficulty"] == 2, plain
            called = await gm.roll("oweens", {"characteristic": "PEP", "dice": 2,
                                              "difficulty": 1},
                                   targets=["Garde"], options=melee, dice=[6, 6])
            assert called["type"] == "outcome", called
            assert called["result"]["difficulty"] == 1, called
    run(scenario())


def test_only_the_gm_sets_a_complex_actions_attacked_reserve():
    """Léa's ``reserve=9`` is ``forbidden`` before any die, alone or with ``adversity``
    (it would restart the GM's obstacle); the GM's starts it, her roll with only
    ``adversity`` goes on from the kept value, and her answer to the GM's ask carrying a
    reserve passes."""
    async def scenario():
        async with running_server(allow_player_dice=True) as server:
            gm, alice, _bob = await fight_table(server, "oweens", SHEETS)
            before = await _next_seq(gm)
            for params in ({"reserve": 9}, {"reserve": 9, "adversity": "Rivière"}):
                refused = await alice.roll("oweens", {"characteristic": "ECL",
                                                      "difficulty": 1, **params},
                                           character="Aengus", dice=[6, 6, 6])
                assert refused["code"] == "forbidden", refused
                assert refused["details"]["field"] == "reserve", refused
                assert "seul le MJ fixe la réserve attaquée" in refused["message"], refused
            assert await _next_seq(gm) == before + 1
            started = await gm.roll("oweens", {"dice": 3, "difficulty": 1, "reserve": 5,
                                               "adversity": "Rivière"}, dice=[6, 6, 1])
            kept = started["result"]["reserve_after"]
            assert 0 < kept < 5, started
            going = await alice.roll("oweens", {"characteristic": "ECL", "difficulty": 1,
                                                "adversity": "Rivière"},
                                     character="Aengus", dice=[6, 6, 1])
            assert going["type"] == "outcome", going
            assert going["result"]["reserve_before"] == kept, going
            ask = await gm.request({"type": "ask", "id": "a", "op": "open", "to": ["Aengus"],
                                    "ruleset": "oweens",
                                    "params": {"characteristic": "ECL", "difficulty": 1,
                                               "reserve": 6}})
            answer = await alice.roll("oweens", {}, answers=ask["ask"], dice=[6, 6, 1])
            assert answer["type"] == "outcome", answer
            assert answer["result"]["reserve_before"] == 6, answer
    run(scenario())


def test_a_players_glass_is_the_one_the_sheet_counts():
    """A drinking roll as a character: the glass is the sheet's « Verres » + 1 (« La
    difficulté augmente de 1 à chaque nouveau verre »). Léa typing another glass number,
    or another difficulty, for Aengus's glass is refused before any die, naming the field;
    the sheet's own number passes; the GM may type another (an NPC's round, a house rule)."""
    async def scenario():
        async with running_server(allow_player_dice=True) as server:
            gm, alice, _bob = await fight_table(server, "oweens", SHEETS)
            before = await _next_seq(gm)
            for typed in ({"drinks": 1}, {"difficulty": 2}):  # (glasses 1 and 2: the sheet's)
                first = await alice.roll("oweens", {"drinking": True, **typed},
                                         character="Aengus", dice=[6, 6, 6])
                assert first["type"] == "outcome", first
            for typed, label in (({"drinks": 1}, "Numéro du verre"),
                                 ({"difficulty": 1}, "Difficulté")):
                refused = await alice.roll("oweens", {"drinking": True, **typed},
                                           character="Aengus", dice=[6, 6, 6])
                assert refused["type"] == "error" and refused["code"] == "forbidden", refused
                assert refused["details"]["field"] == next(iter(typed)), refused
                assert f"« {label} » vient de la fiche d'Aengus (3)" in refused["message"], \
                    refused
            assert await _next_seq(gm) == before + 3  # (two glasses, nothing refused rolled)
            third = await alice.roll("oweens", {"drinking": True, "drinks": 3},
                                     character="Aengus", dice=[6, 6, 6])
            assert third["type"] == "outcome" and third["result"]["difficulty"] == 3, third
            mj = await gm.roll("oweens", {"drinking": True, "drinks": 1}, character="Aengus",
                               dice=[6, 6, 6])
            assert mj["type"] == "outcome" and mj["result"]["difficulty"] == 1, mj
    run(scenario())
