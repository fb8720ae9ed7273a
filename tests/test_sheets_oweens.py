"""O'Ween's rolled as a character: dice from the chosen characteristic's reserve, the
bonbonus and reserve points the rules spend, and the seed's river and towing examples
played with sheets only (RULES.md §1, seed 000)."""

from __future__ import annotations

import pytest

from sidecar.protocol.errors import ProtocolError
from tests.sheet_helpers import HOST, after, new_sheet, odds_as, roll_as


def aengus(**values):
    # The towing paragraph's Aengus: 3D of Éclate, a marin-pêcheur (his bagage gives the
    # river's 4th die); the seed does not say how many BB+ he has: 3 here.
    return new_sheet("oweens", **{"ecl": 3, "pep": 2, "bonbonus": 3,
                                  "bagages": ["marin-pêcheur"], **values})


def test_the_sheet_is_sound_and_bilingual():
    # Sound: HOST's strict load refuses an unsound sheet (as does
    # tests/test_descriptions.py::test_every_built_in_and_the_boss_example_pass_the_strict_checks).
    sheet = HOST.sheet_schema("oweens")
    assert {"pep", "ecl", "enc", "fla", "reserve_pep", "reserve_ecl", "reserve_enc",
            "reserve_fla", "bonbonus", "bagages", "blessures"} <= set(sheet)
    for name, spec in sheet.items():
        assert spec["label"]["fr"] and spec["label"]["en"], name
    assert sheet["bonbonus"]["resource"] and sheet["reserve_ecl"]["resource"]
    assert sheet["reserve_ecl"]["refill"] == "rest" and sheet["reserve_ecl"]["default"] == 0
    assert not sheet["pep"].get("resource") and sheet["bagages"]["type"] == "list"


def test_river_and_towing_play_through_with_sheets_and_no_number_carried_by_hand():
    """Seed: river D=3, reserve 3; Aengus [4,1,6,4] → MR 1 → 2; Brady [1,6,5] → narrow,
    unchanged; towing D=4, Aengus [5,6,6] → S=5, buys 1A for 2 BB+ (5→6) → MR 2, "la
    réserve perd donc 2 points et tombe à 0"."""
    hero, brady = aengus(), new_sheet("oweens", ecl=3)
    state = {}
    river = roll_as("oweens", {"characteristic": "ECL", "difficulty": 3, "bagage": True,
                               "adversity": "rivière", "reserve": 3}, hero, [4, 1, 6, 4],
                    state=state)
    r = river.outcome.result
    assert (r["dice_count"], r["successes"], r["margin"], r["reserve_after"]) == (4, 4, 1, 2)
    assert river.outcome.spend == {}
    state = river.state
    # Brady joins the same complex action: the table keeps the shared reserve.
    swim = roll_as("oweens", {"characteristic": "ECL", "difficulty": 3,
                              "adversity": "rivière"}, brady, [1, 6, 5], state=state)
    assert swim.outcome.result["kind"] == "narrow"
    assert swim.outcome.result["reserve_before"] == 2 == swim.outcome.result["reserve_after"]
    state = swim.state
    towing = roll_as("oweens", {"characteristic": "ECL", "difficulty": 4,
                                "buy_augmentations": 1, "adversity": "rivière"},
                     hero, [5, 6, 6], state=state)
    r = towing.outcome.result
    assert (r["dice_count"], r["successes"], r["margin"]) == (3, 6, 2)
    assert r["augmented"] == [{"die": 0, "from": 5, "to": 6}]
    assert towing.outcome.spend == {"bonbonus": 2}
    assert after(hero, towing.outcome.spend, "oweens")["bonbonus"] == 1
    assert r["reserve_after"] == 0 and towing.state["oweens"]["adversities"]["rivière"] == 0
    assert "réserve 2 → 0" in towing.text["fr"]
    # "son augmentation ne lui aurait coûté qu'un seul BB+" with his bagage (and 1D more).
    remark = roll_as("oweens", {"characteristic": "ECL", "difficulty": 4, "bagage": True,
                                "buy_augmentations": 1}, hero, [5, 6, 6, 2])
    assert remark.outcome.spend == {"bonbonus": 1}


def test_dice_come_from_the_reserve_and_the_request_still_wins():
    hero = aengus(reserve_ecl=-1)
    rolled = roll_as("oweens", {"characteristic": "ECL", "difficulty": 1}, hero, [4, 4])
    assert rolled.outcome.result["dice_count"] == 2 and rolled.outcome.result[
        "characteristic"] == "ECL"
    explicit = roll_as("oweens", {"characteristic": "ECL", "dice": 4, "difficulty": 1},
                       hero, [4, 4, 4, 4])
    assert explicit.outcome.result["dice_count"] == 4
    with pytest.raises(ProtocolError) as caught:
        roll_as("oweens", {"characteristic": "ECL", "difficulty": 1},
                aengus(reserve_ecl=-3), [4])
    assert caught.value.details["param"] == "characteristic"  # a drained reserve: unusable


@pytest.mark.parametrize("params, sheet, field", [
    ({"difficulty": 1}, None, "dice"),                        # no character, no dice
    ({"characteristic": "PEP", "difficulty": 1}, None, "dice"),
    ({"difficulty": 1}, "sheet", "characteristic"),           # a character: which one?
])
def test_without_the_sheet_or_the_param_the_roll_and_its_odds_are_refused(params, sheet,
                                                                           field):
    values = aengus() if sheet else None
    for attempt in (lambda: roll_as("oweens", params, values, [4, 4]),
                    lambda: odds_as("oweens", params, values)):
        with pytest.raises(ProtocolError) as caught:
            attempt()
        assert caught.value.code == "invalid_params"
        assert caught.value.details["param"] == field


def test_params_a_sheet_gives_are_not_required_in_the_description():
    listing = next(r for r in HOST.ruleset_listing() if r["name"] == "oweens")
    assert not listing["params"]["dice"].get("required")
    assert listing["sheet"] == HOST.sheet_schema("oweens")


def test_an_opposed_failure_drains_the_reserve_used_by_the_opponents_margin():
    hero = new_sheet("oweens", pep=3, bonbonus=1)
    # PEP 3 vs 5: [4, 2, 1] → 1 success, ME 4; the reserve holds 3: it stops at 0.
    lost = roll_as("oweens", {"characteristic": "PEP", "difficulty": 5, "contest": True},
                   hero, [4, 2, 1])
    assert lost.outcome.result["margin"] == -4
    assert lost.outcome.spend == {"reserve_pep": 3}
    values = after(hero, lost.outcome.spend, "oweens")
    assert values["reserve_pep"] == -3 and values["bonbonus"] == 1
    assert lost.outcome.result["reserve_drained"]["after"] == 0
    # ME 1 on a full reserve, 1 BB+ keeps the point; asking to keep 3 charges only 1.
    kept = roll_as("oweens", {"characteristic": "PEP", "difficulty": 3, "contest": True,
                              "keep_reserve": 3}, hero, [4, 4, 2])
    assert kept.outcome.result["margin"] == -1 and kept.outcome.spend == {"bonbonus": 1}
    partly = roll_as("oweens", {"characteristic": "PEP", "difficulty": 4, "contest": True,
                                "keep_reserve": 1}, hero, [4, 2, 2])
    assert partly.outcome.spend == {"reserve_pep": 2, "bonbonus": 1}
    # A win drains nothing; without "contest" a failure drains nothing either.
    assert roll_as("oweens", {"characteristic": "PEP", "difficulty": 1, "contest": True},
                   hero, [6, 2, 2]).outcome.spend == {}
    assert roll_as("oweens", {"characteristic": "PEP", "difficulty": 5},
                   hero, [4, 2, 1]).outcome.spend == {}


def test_chosen_spends_are_never_reduced_to_what_the_wallet_holds():
    bought = roll_as("oweens", {"characteristic": "ECL", "difficulty": 4,
                                "buy_augmentations": 1}, aengus(bonbonus=2), [5, 6, 6])
    assert bought.outcome.spend == {"bonbonus": 2}
    # A wallet that cannot pay them is refused before the dice (whatever they would show:
    # refused after them, the player could roll until the augmentation went unused).
    with pytest.raises(ProtocolError) as broke:
        roll_as("oweens", {"characteristic": "ECL", "difficulty": 4,
                           "buy_augmentations": 1}, aengus(bonbonus=1), [5, 6, 6])
    assert broke.value.code == "insufficient"
    assert broke.value.details == {"field": "bonbonus", "have": 1, "need": 2}
    keep = roll_as("oweens", {"characteristic": "ECL", "difficulty": 3, "contest": True,
                              "keep_reserve": 2}, new_sheet("oweens", ecl=3), [2, 2, 2])
    # ME 3: keeping points is paid by what the wallet holds (0): the dice decide how many
    # points are at stake, and what the dice decide is never refused as insufficient
    # (a refused roll could be rolled again until the dice spare the sheet).
    assert keep.outcome.spend == {"reserve_ecl": 3}


def test_drinking_a_failure_loses_one_bonbonus_while_there_is_one():
    # (The glass counts on the sheet too: "difficulty": 2 is the second glass.)
    drunk = roll_as("oweens", {"characteristic": "ENC", "difficulty": 2, "drinking": True},
                    new_sheet("oweens", enc=2, bonbonus=2), [2, 2])
    assert drunk.outcome.spend == {"bonbonus": 1, "verres": -2}
    dry = roll_as("oweens", {"characteristic": "ENC", "difficulty": 2, "drinking": True},
                  new_sheet("oweens", enc=2, bonbonus=0), [2, 3])
    assert dry.outcome.spend == {"verres": -2}
    assert dry.outcome.result["drinking_bonbonus_lost"] == 0
    fine = roll_as("oweens", {"characteristic": "ENC", "difficulty": 1, "drinking": True},
                   new_sheet("oweens", enc=2, bonbonus=2), [4, 4])
    assert fine.outcome.spend == {"verres": -1}


def test_combat_options_paid_in_bonbonus_come_out_of_the_wallet():
    hero = new_sheet("oweens", pep=3, bonbonus=5)
    options = {"combat": {"attack": "melee", "opponent_pep": 2, "options": ["viser"],
                          "zone": "tête", "pay": "bonbonus"}}
    hit = roll_as("oweens", {"characteristic": "PEP"}, hero, [6, 4, 4], options=options)
    assert hit.outcome.spend == {"bonbonus": 1} and "combat" in hit.outcome.applied
    # Paid in dice, the reserve's dice are the ones given up.
    options["combat"]["pay"] = "dice"
    fewer = roll_as("oweens", {"characteristic": "PEP"}, hero, [6, 4], options=options)
    assert fewer.outcome.result["dice_count"] == 2 and fewer.outcome.spend == {}


def test_without_a_character_nothing_is_spent():
    plain = roll_as("oweens", {"dice": 3, "difficulty": 4, "buy_augmentations": 1,
                               "contest": True, "characteristic": "ECL"}, None, [5, 6, 6])
    assert plain.outcome.spend == {} and plain.outcome.result["bonbonus_spent"] == 2


@pytest.mark.parametrize("params, explicit", [
    ({"characteristic": "ECL", "difficulty": 4, "buy_augmentations": 1},
     {"dice": 2, "difficulty": 4, "buy_augmentations": 1}),
    ({"characteristic": "ECL", "difficulty": 3, "augmentations": 2, "bagage": True},
     {"dice": 2, "difficulty": 3, "augmentations": 2, "bagage": True}),
])
def test_odds_from_the_sheet_are_the_explicit_odds(params, explicit):
    hero = aengus(reserve_ecl=-1)
    from_sheet = odds_as("oweens", params, hero)
    assert from_sheet == odds_as("oweens", explicit, None)
    assert from_sheet != odds_as("oweens", {**explicit, "dice": 3}, None)


def test_odds_with_combat_options_paid_in_dice_from_the_sheet_are_the_explicit_odds():
    options = {"combat": {"attack": "melee", "opponent_pep": 2, "options": ["viser"]}}
    hero = new_sheet("oweens", pep=4, reserve_pep=-1)
    from_sheet = odds_as("oweens", {"characteristic": "PEP"}, hero, options)
    assert from_sheet == odds_as("oweens", {"dice": 3}, None, options)  # 3 − 1 for viser
    assert from_sheet == odds_as("oweens", {"dice": 2, "difficulty": 2}, None)
