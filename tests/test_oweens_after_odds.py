"""O'Ween's odds when the player buys augmentations after seeing the dice (``buy_after``,
docs/RULESETS.md): the fewest purchases that turn a failure into a success, as far as the
budget pays. Checked exactly against every dice combination played through the real roll
code — the roll, its open choices, the decision taken by trying the offers in order
through ``react`` — and through a real server (odds as a character, then the roll)."""

from __future__ import annotations

import asyncio
import itertools
from fractions import Fraction

import pytest

from sidecar.protocol.messages import KINDS
from tests.helpers import Peer, run, running_server
from tests.sheet_helpers import PIPELINE, new_sheet, odds_as, roll_as


def react(rolled, choice, sheet):
    roll = rolled.roll
    roll.sheet = dict(sheet) if sheet is not None else None
    return asyncio.run(PIPELINE.react(roll, rolled.outcome, choice, None, rolled.state))


def played(rolled, sheet, budget):
    """The outcome the player ends with, and the BB+ it cost: a success keeps; a failure
    takes the first offer (fewest augmentations) whose decision succeeds and the budget
    pays, else ``keep``."""
    out = rolled.outcome
    if out.result["success"]:
        return out.result, 0
    for choice in out.choices or []:
        if not choice["name"].startswith("buy_"):
            continue
        decided = react(rolled, choice["name"], sheet)
        paid = decided.outcome.result["bonbonus_spent"]
        if decided.outcome.result["success"] and (budget is None or paid <= budget):
            return decided.outcome.result, paid
    return out.result, 0


def enumerated(params, sheet, count, budget):
    kinds: dict[str, Fraction] = {}
    mains: dict[int, Fraction] = {}
    spent = Fraction(0)
    share = Fraction(1, 6 ** count)
    for faces in itertools.product(range(1, 7), repeat=count):
        rolled = roll_as("oweens", params, sheet, list(faces))
        result, paid = played(rolled, sheet, budget)
        kinds[result["kind"]] = kinds.get(result["kind"], 0) + share
        mains[result["successes"]] = mains.get(result["successes"], 0) + share
        spent += paid * share
    return kinds, mains, spent


CASES = [
    # (params, sheet values or None, dice thrown, the budget the player has)
    ({"dice": 3, "difficulty": 3, "buy_after": True, "budget": 4}, None, 3, 4),
    ({"dice": 3, "difficulty": 4, "buy_after": True}, None, 3, None),
    ({"dice": 2, "difficulty": 2, "augmentations": 1, "buy_after": True, "budget": 3},
     None, 2, 3),
    ({"dice": 2, "difficulty": 3, "bagage": True, "npc_bagage": True, "buy_after": True,
      "budget": 2}, None, 3, 2),
    ({"characteristic": "ECL", "difficulty": 4, "buy_after": True},
     {"ecl": 3, "bonbonus": 3}, 3, 3),
    ({"characteristic": "PEP", "difficulty": 2, "buy_after": True, "equipment": 1},
     {"pep": 4, "reserve_pep": -1, "bonbonus": 1}, 3, 1),
]


@pytest.mark.parametrize("params, values, count, budget", CASES)
def test_after_dice_odds_equal_every_roll_played_through_the_roll_code(params, values,
                                                                       count, budget):
    sheet = new_sheet("oweens", **values) if values is not None else None
    odds = odds_as("oweens", params, sheet)
    kinds, mains, spent = enumerated(params, sheet, count, budget)
    for kind in KINDS:
        assert odds["kinds"][kind] == pytest.approx(float(kinds.get(kind, 0)), abs=1e-12), kind
    values_ = dict(odds["distribution"]["values"])
    assert values_.keys() == {v for v, p in mains.items() if p}
    for value, p in mains.items():
        assert values_[value] == pytest.approx(float(p), abs=1e-12)
    after = odds["after_dice"]
    assert after["budget"] == budget
    assert after["expected_bonbonus"] == pytest.approx(float(spent), abs=1e-12)
    # Buying after the dice never does worse than keeping the dice as they fall.
    # (Without ``budget`` too: alone, it is refused — it would count for nothing.)
    plain = odds_as("oweens", {k: v for k, v in params.items()
                               if k not in ("buy_after", "budget")}, sheet)
    assert odds["p_success"] >= plain["p_success"]


def test_the_budget_caps_the_purchase():
    # 3 dice against 4: [4, 4, 3] needs 3→4 and a 4→6 (3 steps, 6 BB+).
    rich = odds_as("oweens", {"dice": 3, "difficulty": 4, "buy_after": True, "budget": 6},
                   None)
    poor = odds_as("oweens", {"dice": 3, "difficulty": 4, "buy_after": True, "budget": 1},
                   None)
    plain = odds_as("oweens", {"dice": 3, "difficulty": 4}, None)
    assert poor["kinds"] == plain["kinds"] and poor["after_dice"]["expected_bonbonus"] == 0
    assert rich["p_success"] > plain["p_success"]


def test_through_a_server_the_odds_use_the_wallet_and_the_roll_plays_them():
    params = {"characteristic": "ECL", "difficulty": 6, "buy_after": True}
    expected = odds_as("oweens", params, new_sheet("oweens", ecl=3, bonbonus=3))

    async def scenario():
        async with running_server(allow_player_dice=True) as server:
            gm = await Peer.open(server)
            await gm.join("pub", "MJ", "gm")
            made = await gm.request({"type": "sheet", "id": "s1", "op": "set",
                                     "character": "Aengus", "ruleset": "oweens",
                                     "owner": None, "values": {"ecl": 3, "bonbonus": 3}})
            assert made["type"] == "sheet", made
            odds = await gm.request({"type": "odds", "id": "o1", "ruleset": "oweens",
                                     "params": params, "character": "Aengus"})
            assert odds["after_dice"]["budget"] == 3, odds
            assert odds["kinds"] == pytest.approx(expected["kinds"], abs=1e-12)
            assert odds["p_success"] > (await gm.request({
                "type": "odds", "id": "o2", "ruleset": "oweens",
                "params": {"characteristic": "ECL", "difficulty": 6},
                "character": "Aengus"}))["p_success"]
            # The towing's dice, 5, 6, 6 (5 successes), against 6: one short; the fewest
            # purchase (1A, 2 BB+) makes it the narrow success the odds count.
            rolled = await gm.roll("oweens", params, character="Aengus", dice=[5, 6, 6],
                                   mode="gm")
            assert rolled["open"] and rolled["result"]["kind"] == "failure", rolled
            assert rolled["choices"][0]["name"] == "buy_1"
            decided = await gm.request({"type": "react", "id": "x1", "roll": rolled["roll"],
                                        "choice": "buy_1"})
            assert decided["result"]["kind"] == "narrow", decided
            assert decided["spent"] == {"bonbonus": 2}
    run(scenario())


def test_the_wallet_left_after_what_the_roll_spends_before_the_dice_is_the_budget():
    # Viser paid in bonbonus takes 1 BB+ with the roll: 2 of the 3 are left to buy with.
    hero = new_sheet("oweens", pep=3, bonbonus=3)
    options = {"combat": {"options": ["viser"], "pay": "bonbonus"}}
    params = {"characteristic": "PEP", "difficulty": 4, "buy_after": True}
    odds = odds_as("oweens", params, hero, options)
    assert odds["after_dice"]["budget"] == 2
    assert odds == odds_as("oweens", {**params, "budget": 2}, hero, options)
    # The roll agrees: [5, 5, 3] (2 successes against 4) offers what 2 BB+ buy, 1A.
    rolled = roll_as("oweens", params, hero, [5, 5, 3], options=options)
    assert [c["name"] for c in rolled.outcome.choices] == ["buy_1", "keep"]
