"""O'Ween's drinking, « se pinter » (seed 000): the difficulty of each glass and its
decay per hour, the bonbonus lost, Honte, the alcoholic coma and the emotion bonbonus,
rolled as a character (the sheet counts glasses and the effect manifested) and without;
odds exact for the new params, against enumeration of the roll code."""

from __future__ import annotations

import asyncio
import itertools
from fractions import Fraction

import pytest

from sidecar.protocol.errors import ProtocolError
from tests.sheet_helpers import PIPELINE, after, new_sheet, odds_as, roll_as


def drinker(**values):
    return new_sheet("oweens", **{"enc": 2, "bonbonus": 0, **values})


def glass(sheet, faces, **params):
    return roll_as("oweens", {"characteristic": "ENC", "drinking": True, **params}, sheet,
                   faces)


def test_each_glass_is_one_harder_and_each_hour_dry_one_easier():
    # « A chaque verre bu, le joueur effectue un jet d'Encaisse difficulté 1. La difficulté
    # augmente de 1 à chaque nouveau verre. »
    hero = drinker()
    first = glass(hero, [6, 6])
    assert first.outcome.result["difficulty"] == 1 and first.outcome.spend == {"verres": -1}
    hero = after(hero, first.outcome.spend, "oweens")
    second = glass(hero, [6, 6])
    assert second.outcome.result["difficulty"] == 2
    hero = after(hero, second.outcome.spend, "oweens")
    assert hero["verres"] == 2
    # « Chaque heure passée sans boire réduit la difficulté pour se pinter de 1 »
    later = glass(hero, [6, 6], hours_dry=2)
    assert later.outcome.result["difficulty"] == 1 and later.outcome.spend == {"verres": 1}
    # The request wins over the sheet: the glass's number, or a difficulty given.
    assert glass(hero, [6, 6], drinks=5).outcome.result["difficulty"] == 5
    assert glass(hero, [6, 6], difficulty=4).outcome.result["difficulty"] == 4
    # Without a character: the glass's number, less the hours, never below 1.
    plain = roll_as("oweens", {"dice": 2, "drinking": True, "drinks": 3, "hours_dry": 5},
                    None, [6, 6])
    assert plain.outcome.result["difficulty"] == 1


def test_a_failed_glass_loses_a_bonbonus_and_a_bourde_manifests_shame():
    # « Si le jet échoue … le personnage perd un bonbonus. En cas de Bourde, l'émotion de
    # Honte du personnage se manifeste. »
    hero = drinker(bonbonus=1, verres=2)
    failed = glass(hero, [4, 2])  # D 3, one success
    assert failed.outcome.spend == {"bonbonus": 1, "verres": -1}
    shamed = glass(hero, [1, 2])
    r = shamed.outcome.result
    assert r["kind"] == "botch" and r["drinking"]["honte"] and not r["drinking"]["coma"]
    assert shamed.outcome.spend == {"bonbonus": 1, "verres": -1, "effet_manifeste": -1}
    assert "Honte" in shamed.outcome.notes[0]["fr"]


def test_a_bourde_while_an_effect_is_manifested_is_a_coma_and_the_player_picks_the_loss():
    # « Si le personnage fait une bourde alors qu'un effet est manifesté, quel que soit le
    # jet, c'est le coma éthylique … il perd définitivement 1 point dans une
    # caractéristique de son choix. »
    hero = drinker(effet_manifeste=1)
    coma = glass(hero, [1, 1])
    r = coma.outcome.result
    assert r["drinking"]["coma"] and not r["drinking"]["honte"]
    assert [c["name"] for c in coma.outcome.choices] == ["lose_PEP", "lose_ECL", "lose_ENC",
                                                          "lose_FLA"]
    assert coma.outcome.default is None
    now = after(hero, coma.outcome.spend, "oweens")
    roll = coma.roll
    roll.sheet = now
    picked = asyncio.run(PIPELINE.react(roll, coma.outcome, "lose_ENC", None, coma.state))
    assert picked.outcome.spend == {"enc": 1}
    assert after(now, picked.outcome.spend, "oweens")["enc"] == 1
    # An hour without drinking ends the effect: a Bourde then is Shame again, not a coma.
    sober = glass(hero, [1, 1], hours_dry=1)
    assert sober.outcome.result["drinking"]["honte"] and sober.outcome.choices is None
    assert sober.outcome.spend == {"verres": -1}  # (the new Shame keeps the effect at 1)
    # Without a character the request says whether an effect is manifested.
    plain = roll_as("oweens", {"dice": 2, "drinking": True, "manifested": True}, None, [1, 1])
    assert plain.outcome.result["drinking"]["coma"] and plain.outcome.choices is None


def test_an_emotion_bonbonus_costs_one_and_manifests_its_effect():
    # « Si le joueur claque un bonbonus de Honte ou de Fierté pour son jet, l'effet associé
    # se manifeste. »
    hero = drinker(bonbonus=1)
    proud = glass(hero, [6, 6], emotion_bonbonus="fierte")
    assert proud.outcome.spend == {"bonbonus": 1, "verres": -1, "effet_manifeste": -1}
    assert proud.outcome.result["drinking"]["manifested"]
    # Manifested for this very roll: a Bourde on it is the coma.
    assert glass(hero, [1, 1], emotion_bonbonus="honte").outcome.result["drinking"]["coma"]
    assert glass(drinker(bonbonus=1), [6, 6],
                 emotion_bonbonus="honte").outcome.spend["bonbonus"] == 1
    with pytest.raises(ProtocolError) as broke:  # no bonbonus to claim: before the dice
        glass(drinker(), [6, 6], emotion_bonbonus="honte")
    assert broke.value.details == {"field": "bonbonus", "have": 0, "need": 1}


def _enumerated(params, sheet, count):
    """Kind probabilities by rolling every face sequence through the roll code."""
    kinds = {}
    for faces in itertools.product(range(1, 7), repeat=count):
        kind = roll_as("oweens", params, sheet, list(faces)).outcome.result["kind"]
        kinds[kind] = kinds.get(kind, 0) + 1
    return {k: Fraction(v, 6 ** count) for k, v in kinds.items()}


@pytest.mark.parametrize("params, sheet, count", [
    ({"dice": 2, "drinking": True, "drinks": 3, "hours_dry": 1}, None, 2),
    ({"characteristic": "ENC", "drinking": True, "bagage": True},
     {"enc": 2, "verres": 2}, 3),
    ({"characteristic": "ENC", "drinking": True, "hours_dry": 3}, {"enc": 3, "verres": 2}, 3),
])
def test_drinking_odds_are_exact(params, sheet, count):
    values = drinker(**sheet) if sheet is not None else None
    odds = odds_as("oweens", params, values)
    expected = _enumerated(params, values, count)
    for kind, p in odds["kinds"].items():
        assert p == pytest.approx(float(expected.get(kind, 0)), abs=1e-12), kind
