"""O'Ween's rules an independent audit found wrong (issue 26): the alcoholic coma on any
roll while an effect is manifested, and the characteristic a rule names. Driven in
process (the pipeline, as the server runs it) and through a real server."""

from __future__ import annotations

import asyncio

import pytest

from sidecar.client import SidecarError
from sidecar.protocol.errors import ProtocolError
from sidecar.testing import TableServer
from tests.sheet_helpers import PIPELINE, after, new_sheet, odds_as, roll_as

LOSSES = ["lose_PEP", "lose_ECL", "lose_ENC", "lose_FLA"]


def test_a_bourde_on_any_roll_while_an_effect_is_manifested_is_the_coma():
    # « Si le personnage fait une bourde alors qu'un effet est manifesté, quel que soit le
    # jet, c'est le coma éthylique » — any roll, not only a glass.
    hero = new_sheet("oweens", pep=3, effet_manifeste=1)
    coma = roll_as("oweens", {"characteristic": "PEP", "difficulty": 1}, hero, [1, 1, 4])
    r = coma.outcome.result
    assert r["kind"] == "botch" and r["coma"] is True and "drinking" not in r
    assert [c["name"] for c in coma.outcome.choices] == LOSSES
    assert coma.outcome.default is None
    assert "Coma éthylique" in coma.outcome.notes[-1]["fr"]
    roll = coma.roll
    roll.sheet = after(hero, coma.outcome.spend, "oweens")
    picked = asyncio.run(PIPELINE.react(roll, coma.outcome, "lose_ECL", None, coma.state))
    assert picked.outcome.spend == {"ecl": 1} and picked.outcome.result["coma_lost"] == "ECL"
    # No effect manifested: a Bourde is only a Bourde (no coma, nothing to choose).
    sober = roll_as("oweens", {"characteristic": "PEP", "difficulty": 1},
                    new_sheet("oweens", pep=3), [1, 1, 4])
    assert "coma" not in sober.outcome.result and sober.outcome.choices is None
    # A manifested effect without a Bourde changes nothing.
    fine = roll_as("oweens", {"characteristic": "PEP", "difficulty": 1}, hero, [6, 1, 4])
    assert "coma" not in fine.outcome.result
    # Without a character the request says whether an effect is manifested.
    plain = roll_as("oweens", {"dice": 3, "difficulty": 1, "manifested": True}, None,
                    [1, 1, 4])
    assert plain.outcome.result["coma"] and plain.outcome.choices is None


def test_on_a_server_a_manifested_effect_makes_a_brawls_bourde_a_coma():
    with TableServer() as server:
        gm = server.client()
        gm.set_sheet("Brady", "oweens", {"pep": 3, "effet_manifeste": 1}, owner=None)
        rolled = gm.roll("oweens", {"characteristic": "PEP", "difficulty": 2},
                         character="Brady", dice=[1, 1, 4], mode="gm")
        assert rolled["result"]["coma"] and rolled["open"], rolled
        assert [c["name"] for c in rolled["choices"]] == LOSSES
        decided = gm.react(rolled, "lose_PEP")
        assert decided["spent"] == {"pep": 1}, decided
        assert decided["sheet"]["pep"] == 2


# -- a rule that names the characteristic fixes it ---------------------------------------------

FIXED = [  # (params, options, the characteristic the seed names)
    ({"drinking": True}, None, "ENC"),  # « le joueur effectue un jet d'Encaisse »
    ({"difficulty": 1}, {"combat": {"attack": "melee", "opponent_pep": 2}}, "PEP"),
    ({"difficulty": 1}, {"combat": {"attack": "ranged"}}, "FLA"),  # « un jet de Flair »
]


@pytest.mark.parametrize("params, options, fixed", FIXED)
def test_another_characteristic_is_refused_before_any_die(params, options, fixed):
    hero = new_sheet("oweens", pep=3, ecl=3, enc=3, fla=3)
    for other in ("PEP", "ECL", "ENC", "FLA"):
        asked = {**params, "characteristic": other}
        if other == fixed:
            assert roll_as("oweens", asked, hero, [6, 6, 6], options=options).outcome
            continue
        for sheet, typed in ((hero, {}), (None, {"dice": 3})):
            with pytest.raises(ProtocolError) as refused:
                # No physical face given: a roll going on to its dice would be bad_dice.
                roll_as("oweens", {**asked, **typed}, sheet, [], options=options)
            assert refused.value.code == "invalid_params"
            assert refused.value.details == {"param": "characteristic"}
            assert refused.value.message_fr.startswith("paramètre « Caractéristique »")
            assert fixed in refused.value.message_fr
            with pytest.raises(ProtocolError):  # the odds say the same
                odds_as("oweens", {**asked, **typed}, sheet, options)


@pytest.mark.parametrize("params, options, fixed", FIXED)
def test_a_character_rolls_the_named_characteristic_by_default(params, options, fixed):
    hero = new_sheet("oweens", pep=1, ecl=2, enc=3, fla=4)
    count = {"PEP": 1, "ECL": 2, "ENC": 3, "FLA": 4}[fixed]
    rolled = roll_as("oweens", params, hero, [6] * count, options=options)
    assert rolled.outcome.result["characteristic"] == fixed
    assert rolled.outcome.result["dice_count"] == count


def test_on_a_server_a_glass_rolled_in_peps_is_refused_and_nothing_changes():
    with TableServer() as server:
        gm = server.client()
        gm.set_sheet("Brady", "oweens", {"pep": 3, "enc": 2}, owner=None)
        with pytest.raises(SidecarError) as refused:
            gm.roll("oweens", {"characteristic": "PEP", "drinking": True},
                    character="Brady", mode="gm")
        assert refused.value.code == "invalid_params"
        assert refused.value.details == {"param": "characteristic"}
        (brady,) = gm.sheets()
        assert brady["values"]["verres"] == 0
        glass = gm.roll("oweens", {"drinking": True}, character="Brady", dice=[6, 6],
                        mode="gm")
        assert glass["result"]["characteristic"] == "ENC" and glass["result"]["success"]
