"""O'Ween's darts beyond one volley (docs/RULESETS.md, « Fléchettes »): a whole game in
one roll (``volleys``), each volley an open roll's stages, the points adding up, fewest
points winning — between players, an opposed ask judged on it. Odds exact against the
game played through the roll code; a real server with manual dice for the duel."""

from __future__ import annotations

import asyncio
import itertools
from fractions import Fraction

import pytest

from tests.helpers import Peer, run, running_server
from tests.sheet_helpers import PIPELINE, odds_as, prepared, roll_as


def react(rolled, choice, dice=None):
    return asyncio.run(PIPELINE.react(rolled.roll, rolled.outcome, choice, dice,
                                      rolled.state))


def test_a_game_chains_its_volleys_and_adds_up_their_points():
    # « Si on ne fait pas de triple on gagne 7 points, sinon on gagne la valeur de son
    # triple … Le gagnant est celui qui a le moins de points après 6 volées. »
    first = roll_as("oweens", {"volley": True, "volleys": 2}, None, [4, 4, 4])
    out = first.outcome
    assert out.result["game"] == {"volleys": 2, "volley": 1, "scores": [4], "total": 4}
    assert [c["name"] for c in out.choices] == ["next"] and out.choices[0]["dice"] == 3
    assert out.default == "next" and out.result["margin"] == 3
    assert all(d["volley"] == 1 for d in out.dice)
    second = react(first, "next", [1, 2, 3])
    r = second.outcome.result
    assert r["game"]["volley"] == 2 and r["game"]["scores"] == [4]
    assert r["volley"] == {"faces": [1, 2, 3], "throw": 1, "triple": None, "points": 7,
                           "bonus_used": 0}
    assert "reroll_12" in [c["name"] for c in second.outcome.choices]
    assert [d["volley"] for d in second.outcome.dice] == [1, 1, 1, 2, 2, 2]
    last = react(second, "stop")
    r = last.outcome.result
    assert r["game"] == {"volleys": 2, "volley": 2, "scores": [4, 7], "total": 11}
    assert (r["success"], r["kind"], r["margin"]) == (True, "success", 3)
    assert last.outcome.choices is None
    assert "partie : 11 points en 2 volées" in last.text["fr"]
    # A rerolled die of a later volley says which volley it belongs to.
    again = react(second, "reroll_12", [3, 3])
    assert again.outcome.dice[-1]["volley"] == 2 and again.outcome.dice[-1]["throw"] == 2
    done = again.outcome.result
    assert done["game"]["scores"] == [4, 3] and done["game"]["total"] == 7
    # Not one triple: the game still ends, with the worst score (a narrow "success").
    blank = roll_as("oweens", {"volley": True, "volleys": 2}, None, [1, 2, 3])
    blank = react(react(blank, "stop"), "next", [1, 2, 3])
    blank = react(blank, "stop")
    assert blank.outcome.result["game"]["total"] == 14
    assert blank.outcome.result["kind"] == "narrow" and blank.outcome.result["margin"] == 0
    # One volley plays as before (no game).
    assert "game" not in roll_as("oweens", {"volley": True}, None, [4, 4, 4]).outcome.result


def _played(bonus, volleys):
    """The game's total distribution, every volley played by its default choices, every
    face drawn, through the roll code (one event loop for the thousands of decisions). A
    state's future does not depend on the points already scored: each state (volley,
    faces, throw) is played once, its distribution of the points still to come reused —
    and once a volley ended, on its faces neither (the next volley throws three new
    dice)."""
    seen = {}
    params = {"volley": True, "volleys": volleys, "darts_bonus": bonus}

    async def play(rolled):
        result = rolled.outcome.result
        game, volley = result["game"], result["volley"]
        key = ((game["volley"], "next") if rolled.outcome.default == "next" else
               (game["volley"], tuple(sorted(volley["faces"])), volley["throw"],
                rolled.outcome.default))
        if key in seen:
            return seen[key]
        if rolled.outcome.choices is None:
            to_come = {0: Fraction(1)}
        else:
            choice = next(c for c in rolled.outcome.choices
                          if c["name"] == rolled.outcome.default)
            to_come = {}
            for new in itertools.product(range(1, 7), repeat=choice["dice"]):
                after = await PIPELINE.react(rolled.roll, rolled.outcome, choice["name"],
                                             list(new), rolled.state)
                gained = after.outcome.result["game"]["total"] - game["total"]
                for points, p in (await play(after)).items():
                    to_come[gained + points] = (to_come.get(gained + points, 0)
                                                + p / 6 ** choice["dice"])
        seen[key] = to_come
        return to_come

    async def every_game():
        totals = {}
        for first in itertools.product(range(1, 7), repeat=3):
            rolled = await PIPELINE.run(prepared("oweens", params, None), dice=list(first))
            start = rolled.outcome.result["game"]["total"]
            for points, p in (await play(rolled)).items():
                totals[start + points] = totals.get(start + points, 0) + p / 216
        return totals

    return asyncio.run(every_game())


@pytest.mark.parametrize("bonus, volleys", [(0, 2), (2, 3)])
def test_game_odds_are_exact_for_the_game_played_by_its_defaults(bonus, volleys):
    expected = _played(bonus, volleys)
    odds = odds_as("oweens", {"volley": True, "volleys": volleys, "darts_bonus": bonus},
                   None)
    assert odds["distribution"]["of"] == "total"
    values = dict(odds["distribution"]["values"])
    assert values.keys() == expected.keys()
    for total, p in expected.items():
        assert values[total] == pytest.approx(float(p), abs=1e-12), total
    worst = 7 * volleys
    assert odds["kinds"]["narrow"] == pytest.approx(float(expected.get(worst, 0)), abs=1e-12)
    assert odds["p_success"] == pytest.approx(1, abs=1e-12)


def test_a_darts_duel_is_an_opposed_ask_won_by_the_fewest_points():
    async def scenario():
        async with running_server(allow_player_dice=True) as server:
            gm = await Peer.open(server)
            await gm.join("pub", "MJ", "gm")
            peers = {}
            for name in ("Aengus", "Brady"):
                token = (await gm.request({"type": "seat", "id": f"s-{name}", "op": "add",
                                           "name": name}))["token"]
                peers[name] = await Peer.open(server)
                await peers[name].join("pub", name, token=token)
            # Each made a FLA roll first: Aengus's one success is +1 a volley.
            ask = await gm.request({"type": "ask", "id": "a1", "op": "open",
                                    "to": ["Aengus", "Brady"], "ruleset": "oweens",
                                    "params": {"volley": True, "volleys": 2},
                                    "each": {"Aengus": {"darts_bonus": 1}},
                                    "opposed": True, "label": "Fléchettes"})
            assert ask["type"] == "ask", ask

            async def play(name, first, then):
                rolled = await peers[name].roll("oweens", {}, answers=ask["ask"],
                                                dice=first)
                assert rolled["open"] and rolled["default"] == "next", rolled
                decided = await peers[name].request({
                    "type": "react", "id": f"n-{name}", "roll": rolled["roll"],
                    "choice": "next", "dice": then})
                assert "open" not in decided, decided
                return decided

            # Aengus: 5, 5, 4 (+1: triple 5), then 6, 6, 6: 11 points.
            aengus = await play("Aengus", [5, 5, 4], [6, 6, 6])
            assert aengus["result"]["game"]["total"] == 11 and "opposition" not in aengus
            # Brady: triple 2, then triple 1: 3 points, the fewest: he wins.
            brady = await play("Brady", [2, 2, 2], [1, 1, 1])
            assert brady["result"]["game"]["total"] == 3
            opposition = brady["opposition"]
            assert opposition["winner"] == "Brady" and opposition["draw"] is False
            assert [s["margin"] for s in opposition["sides"]] == [3, 11]
    run(scenario())
