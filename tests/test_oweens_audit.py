"""O'Ween's rules an independent audit found wrong (issue 26): the alcoholic coma on any
roll while an effect is manifested, and the characteristic a rule names. Driven in
process (the pipeline, as the server runs it) and through a real server."""

from __future__ import annotations

import asyncio

from sidecar.testing import TableServer
from tests.sheet_helpers import PIPELINE, after, new_sheet, roll_as

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
