"""O'Ween's (RULES.md §1): every rule and ruling, and every worked example of the seed."""

from __future__ import annotations

import pytest

from sidecar.rulesets.oweens_judging import die_successes, judge, place_augmentations
from tests.helpers import peers, run, running_server
from tests.rules_helpers import refused, resolve, result


@pytest.mark.parametrize("faces,successes", [([5, 3], 1), ([6, 2, 4], 3), ([4, 1, 6, 4], 4),
                                             ([6, 5, 5, 6], 6)])
def test_success_counting_examples(faces, successes):
    assert result("oweens", faces, dice=len(faces), difficulty=0)["successes"] == successes


def test_die_values():
    assert [die_successes(f) for f in range(1, 7)] == [0, 0, 0, 1, 1, 2]


def test_success_mr_and_failure_me():
    r = result("oweens", [6, 4, 1], dice=3, difficulty=2)
    assert r["success"] and r["kind"] == "success" and r["margin"] == 1
    r = result("oweens", [4, 2, 3], dice=3, difficulty=3)
    assert not r["success"] and r["kind"] == "failure" and r["margin"] == -2


def test_equal_is_narrow_success_with_mr_zero():
    r = result("oweens", [4, 5, 2], dice=3, difficulty=2)
    assert r["success"] and r["kind"] == "narrow" and r["margin"] == 0
    assert r["label"]["fr"] == "Réussite de justesse"


def test_bourde_more_natural_ones_than_successes():
    r = result("oweens", [1, 1, 4], dice=3, difficulty=1)
    assert r["bourde"] and r["kind"] == "botch" and not r["success"]
    # raw numbers met the target (1 success vs 1), yet a failure: margin ≤ −1
    assert r["margin"] == -1
    assert r["label"]["fr"] == "Bourde"


def test_bourde_uses_natural_faces_raising_a_one_does_not_undo_it():
    r = result("oweens", [1, 1, 4], dice=3, difficulty=0, augmentations=6)
    assert r["bourde"] and r["kind"] == "botch"
    assert r["successes"] >= 3  # augmentations raised dice, the Bourde stands


def test_coup_d_eclat_seed_example():
    r = result("oweens", [6, 5, 5, 6], dice=4, difficulty=3)
    assert r["coup_d_eclat"] and r["kind"] == "critical" and r["margin"] == 3
    assert r["label"]["fr"] == "Coup d'éclat"


def test_coup_d_eclat_needs_strictly_more_than_d():
    r = result("oweens", [4, 4], dice=2, difficulty=1)   # S=2 ≥ 2 and > 1
    assert r["coup_d_eclat"]
    r = result("oweens", [1, 2], dice=2, difficulty=0)   # S=0: not > 0
    assert not r["coup_d_eclat"]


def test_coup_d_eclat_judged_after_free_augmentations():
    r = result("oweens", [5, 5, 3], dice=3, difficulty=2, augmentations=2)  # → 6,6,3 = 4
    assert r["coup_d_eclat"] and r["successes"] == 4


def test_coup_d_eclat_judged_before_bought_augmentations():
    r = result("oweens", [5, 5, 3], dice=3, difficulty=2, buy_augmentations=2)
    assert r["successes"] == 4 and not r["coup_d_eclat"] and r["kind"] == "success"
    assert r["bonbonus_spent"] == 4


def test_augmentations_placed_to_maximise_successes():
    faces, used = place_augmentations([3, 5, 2], 1)
    assert sum(die_successes(f) for f in faces) == 2 and used == 1
    faces, used = place_augmentations([4, 2], 2)          # 4→6 or 2→4: one success either way
    assert sum(die_successes(f) for f in faces) == 2 and used == 2
    faces, used = place_augmentations([6, 6], 5)          # nothing to gain: nothing spent
    assert faces == [6, 6] and used == 0
    faces, _ = place_augmentations([3, 3, 3], 3)          # three 3→4 beats one 3→6
    assert faces == [4, 4, 4]


def test_placement_is_optimal_on_every_small_roll():
    """Greedy placement, closed form and exhaustive search agree (all faces, ≤ 4 dice)."""
    import itertools

    from sidecar.rulesets.oweens_judging import best_gain
    from tests.oweens_reference import exhaustive_placement
    for count in range(1, 5):
        for faces in itertools.product(range(1, 7), repeat=count):
            for budget in range(0, 11):
                placed, used = place_augmentations(list(faces), budget)
                gained = sum(die_successes(f) for f in placed)
                assert all(p >= f and p <= 6 for p, f in zip(placed, faces, strict=True))
                assert sum(p - f for p, f in zip(placed, faces, strict=True)) == used
                assert (gained, used) == exhaustive_placement(list(faces), budget)
                cheap = sum(1 for f in faces if f in (3, 5))
                medium = sum({2: 2, 3: 1, 4: 1}.get(f, 0) for f in faces)
                natural = sum(die_successes(f) for f in faces)
                assert best_gain(cheap, medium, faces.count(1), budget) == (
                    gained - natural, used)


def test_outcome_shows_which_dice_were_raised():
    resolution = resolve("oweens", [5, 5, 3, 6], dice=4, difficulty=3, augmentations=1)
    assert resolution.outcome.result["augmented"] == [{"die": 2, "from": 3, "to": 4}]
    assert resolution.outcome.dice[2]["raised_to"] == 4 and resolution.outcome.dice[2]["face"] == 3


def test_free_and_bought_augmentations_are_placed_together():
    # One free A alone cannot make a 2 succeed; with one bought A it makes 2→4.
    r = result("oweens", [2, 2], dice=2, difficulty=1, augmentations=1, buy_augmentations=1)
    assert r["successes"] == 1 and r["bonbonus_spent"] == 2
    assert r["augmentations_used"] == 1 and r["augmentations_bought"] == 1
    assert r["augmented"] == [{"die": 0, "from": 2, "to": 4}]


def test_bought_augmentations_cost_two_or_one_with_bagage():
    r = result("oweens", [5, 6, 6], dice=3, difficulty=4, buy_augmentations=1)
    assert r["bonbonus_spent"] == 2
    r = result("oweens", [5, 6, 6, 2], dice=3, bagage=True, difficulty=5, buy_augmentations=1)
    assert r["bonbonus_spent"] == 1


@pytest.mark.parametrize("faces,difficulty", [([1, 1, 4], 1), ([6, 6, 5], 2)])
def test_purchase_refused_and_not_charged_on_bourde_or_coup(faces, difficulty):
    resolution = resolve("oweens", faces, dice=3, difficulty=difficulty, buy_augmentations=2)
    r = resolution.outcome.result
    assert r["purchase_refused"] and r["bonbonus_spent"] == 0
    assert r["augmented"] == []
    assert "refusé" in resolution.outcome.notes[0]


def test_useless_bought_augmentations_are_not_charged():
    resolution = resolve("oweens", [6, 6, 2], dice=3, difficulty=5, buy_augmentations=3)
    r = resolution.outcome.result
    assert r["augmentations_bought"] == 2 and r["bonbonus_spent"] == 4  # 2→4 costs 2 steps
    assert "non facturée" in resolution.outcome.notes[0]


def test_bagage_adds_a_die_npc_bagage_adds_difficulty():
    resolution = resolve("oweens", [4, 4, 4], dice=2, bagage=True, difficulty=2)
    assert len(resolution.outcome.dice) == 3 and resolution.outcome.result["margin"] == 1
    r = result("oweens", [4, 4], dice=2, difficulty=2, npc_bagage=True)
    assert r["difficulty"] == 3 and r["kind"] == "failure"


def test_equipment_adds_to_mr_on_every_success_narrow_included():
    # « En cas de réussite, si le personnage utilise un matériel adéquat la MR est
    # augmentée »: a narrow success is a success (« l'action est réussie de justesse »).
    assert result("oweens", [6, 4], dice=2, difficulty=2, equipment=1)["margin"] == 2
    narrow = result("oweens", [4, 4], dice=2, difficulty=2, equipment=1)
    assert narrow["kind"] == "narrow" and narrow["margin"] == 1
    assert result("oweens", [4, 2], dice=2, difficulty=2, equipment=1)["margin"] == -1


def test_judge_palmes_give_brady_mr_1():
    # « S'ils avaient disposés de palmes Aengus et Brady aura bénéficié d'un bonus de 1 à
    # leurs MR »: Brady's narrow [1, 6, 5] against 3, with the palmes, MR 1.
    r = judge([1, 6, 5], difficulty=3, equipment=1, reserve=2)
    assert (r["successes"], r["kind"], r["margin"], r["reserve_after"]) == (3, "narrow", 1, 1)
    assert judge([1, 6, 5], difficulty=3, reserve=2)["margin"] == 0


def test_palmes_on_the_wire_brady_narrow_mr_1():
    resolution = resolve("oweens", [1, 6, 5], dice=3, difficulty=3, reserve=2, equipment=1)
    r = resolution.outcome.result
    assert (r["kind"], r["margin"], r["reserve_after"]) == ("narrow", 1, 1)
    assert "de justesse, MR 1" in resolution.text["fr"]
    assert "narrowly, success margin 1" in resolution.text["en"]


def test_characteristic_at_zero_cannot_be_used():
    error = refused("oweens", [], dice=0, difficulty=1)
    assert error.details == {"param": "dice"}


def test_a_characteristic_at_zero_is_named_by_its_label_in_the_refusal():
    """Issue 29: « paramètre « Dés » ('dice') : une caractéristique ou réserve à 0 … » for
    ``characteristic=ECL`` named neither Éclate nor what was at 0, and a raw key."""
    async def scenario():
        async with running_server() as server, peers(server, 2) as (gm, english):
            await gm.join(role="gm", name="MJ")
            await english.join(role="gm", name="GM", locale="en")
            for name, values in (("Aengus", {"ecl": 0}), ("Brady", {"ecl": 3,
                                                                    "reserve_ecl": -3})):
                await gm.request({"type": "sheet", "id": name, "op": "set",
                                  "character": name, "ruleset": "oweens", "values": values})
            said = {}
            for peer in (gm, english):
                for name in ("Aengus", "Brady"):
                    error = await peer.roll("oweens", {"characteristic": "ECL",
                                                       "difficulty": 2}, character=name)
                    assert error["code"] == "invalid_params", error
                    assert error["details"] == {"param": "characteristic"}
                    said[peer is gm, name] = error["message"]
            assert said[True, "Aengus"] == ("Éclate (ECL) est à 0 : une caractéristique à 0 "
                                            "ne peut plus être utilisée")
            assert said[False, "Aengus"] == ("Burst (ECL) is at 0: a characteristic at 0 can "
                                             "no longer be used")
            assert said[True, "Brady"] == ("La réserve d'Éclate (ECL) est à 0 : elle ne peut "
                                           "plus être utilisée avant un repos")
            assert said[False, "Brady"] == ("The Burst (ECL) reserve is at 0: it can no longer "
                                            "be used until a rest")
    run(scenario())


# -- the seed's complex-action example ------------------------------------------------------


def test_river_aengus_then_brady():
    r = result("oweens", [4, 1, 6, 4], dice=4, difficulty=3, reserve=3)
    assert (r["successes"], r["margin"], r["reserve_after"]) == (4, 1, 2)
    r = result("oweens", [1, 6, 5], dice=3, difficulty=3, reserve=2)
    assert r["kind"] == "narrow" and r["reserve_after"] == 2


def test_door_with_cooperation_augmentation():
    r = result("oweens", [5, 5, 3, 6], dice=4, difficulty=3, reserve=4, augmentations=1)
    assert (r["successes"], r["margin"], r["reserve_after"]) == (5, 2, 2)
    r = result("oweens", [1, 4, 5], dice=3, difficulty=3, reserve=2, augmentations=1)
    assert r["successes"] == 3 and r["kind"] == "narrow"
    assert r["augmented"] == [{"die": 2, "from": 5, "to": 6}]


def test_towing_with_a_bought_augmentation():
    r = result("oweens", [5, 6, 6], dice=3, difficulty=4)
    assert (r["successes"], r["margin"]) == (5, 1)
    r = result("oweens", [5, 6, 6], dice=3, difficulty=4, buy_augmentations=1)
    assert (r["successes"], r["margin"], r["bonbonus_spent"]) == (6, 2, 2)


def test_reserve_never_below_zero_and_includes_equipment():
    r = result("oweens", [6, 6, 6], dice=3, difficulty=1, reserve=3, equipment=1)
    assert r["reserve_after"] == 0
    assert "reserve_after" not in result("oweens", [6], dice=1, difficulty=1)


def test_text_reads_naturally():
    resolution = resolve("oweens", [5, 5, 3, 6], dice=4, difficulty=3, reserve=4,
                         augmentations=1, label="Éclate")
    assert resolution.text["fr"] == ("Aengus — Éclate : 4D+1A contre 3 : 5 réussites, MR 2, "
                                     "réserve 4 → 2")
    assert resolution.text["en"] == ("Aengus — Éclate: 4D+1A vs 3: 5 successes, "
                                     "success margin 2, reserve 4 → 2")
    resolution = resolve("oweens", [6, 5, 5, 6], dice=4, difficulty=3)
    assert resolution.text["fr"].endswith("6 réussites, MR 3 : Coup d'éclat !")


# -- combat options (built-in extension) ----------------------------------------------------


def combat(faces, dice, difficulty=0, **settings):
    return resolve("oweens", faces, options={"combat": settings}, dice=dice,
                   difficulty=difficulty).outcome


def test_melee_difficulty_is_the_opponents_peps_and_wounds_are_mr():
    outcome = combat([6, 6, 4], 3, attack="melee", opponent_pep=2)
    assert outcome.result["difficulty"] == 2 and outcome.result["wounds"] == 3


def test_ranged_difficulty_three_plus_only_the_worst_modifier():
    outcome = combat([6, 6, 6], 3, attack="ranged", ranged_modifiers={"distance": 1,
                                                                       "taille": 2})
    assert outcome.result["difficulty"] == 5


def test_option_cost_paid_with_dice_or_bonbonus():
    outcome = combat([6, 6], 3, options=["viser"], zone="bras")
    assert outcome.result["dice_count"] == 2 and outcome.result["bonbonus_spent"] == 0
    assert outcome.applied == ["combat"]
    outcome = combat([6, 6, 6], 3, options=["desarmer"], pay="bonbonus")
    assert outcome.result["dice_count"] == 3 and outcome.result["bonbonus_spent"] == 3


@pytest.mark.parametrize("options,cost", [(["assommer"], 1), (["viser"], 1), (["pousser"], 1),
                                          (["surprendre"], 1), (["immobiliser"], 1),
                                          (["renverser"], 2), (["charger"], 2),
                                          (["désarmer"], 3)])
def test_costs(options, cost):
    extra = {"target_enc": 1, "target_ecl": 1, "attacker_pep": 1, "initiative": True,
             "room": True}
    outcome = combat([6] * (5 - cost), 5, options=options, **extra)
    assert outcome.result["combat"]["cost"] == cost and outcome.result["dice_count"] == 5 - cost


def test_assommer_knocks_out_above_enc_and_counts_no_wound_then():
    out = combat([6, 6, 6], 4, difficulty=1, options=["assommer"], target_enc=3)
    assert out.result["combat"]["knocked_out"] and out.result["wounds"] == 0
    # Not knocked out: the blow still lands, its wounds count (as Renverser's do).
    out = combat([6, 4, 2], 4, difficulty=1, options=["assommer"], target_enc=3)
    assert not out.result["combat"]["knocked_out"] and out.result["wounds"] == 2


def test_renverser_above_ecl_counts_one_wound():
    out = combat([6, 6, 6], 5, difficulty=1, options=["renverser"], target_ecl=2)
    assert out.result["combat"]["knocked_down"] and out.result["wounds"] == 1
    out = combat([6, 4, 1], 5, difficulty=1, options=["renverser"], target_ecl=2)
    assert not out.result["combat"]["knocked_down"] and out.result["wounds"] == 2


def test_charger_adds_pep_and_needs_initiative_room_not_engaged():
    out = combat([6, 4], 4, difficulty=1, options=["charger"], attacker_pep=3,
                 initiative=True, room=True)
    assert out.result["wounds"] == 2 + 3
    for field, value in (("initiative", False), ("room", False), ("engaged", True)):
        settings = {"options": ["charger"], "attacker_pep": 3, "initiative": True,
                    "room": True, field: value}
        error = refused("oweens", [6, 4], options={"combat": settings}, dice=4)
        assert error.details["param"] == f"options.combat.{field}"


@pytest.mark.parametrize("option,cost", [("immobiliser", 1), ("desarmer", 3)])
def test_pin_and_disarm_count_no_wound(option, cost):
    out = combat([6, 6, 6], 3 + cost, difficulty=1, options=[option])
    assert out.result["wounds"] == 0 and out.result["combat"]["effects"]


def test_failed_attack_has_no_effect_and_no_wound():
    out = combat([2, 2], 3, difficulty=2, options=["pousser"])
    assert out.result["wounds"] == 0 and out.result["combat"]["effects"] == []


def test_not_enough_dice_to_pay_is_refused():
    error = refused("oweens", [6], options={"combat": {"options": ["desarmer"]}}, dice=3)
    assert error.details["param"] == "options.combat.pay"


def test_unknown_combat_option_is_refused():
    error = refused("oweens", [6], options={"combat": {"options": ["voler"]}}, dice=3)
    assert "voler" in error.message


def test_combat_over_the_protocol():
    async def scenario():
        async with running_server() as server, peers(server, 1) as (gm,):
            await gm.join(role="gm")
            outcome = await gm.roll("oweens", {"dice": 4}, dice=[6, 6, 4],
                                    options={"combat": {"attack": "melee", "opponent_pep": 2,
                                                        "options": ["viser"], "zone": "tête"}})
            assert outcome["params"]["dice"] == 3 and outcome["params"]["difficulty"] == 2
            assert outcome["result"]["wounds"] == 3 and outcome["applied"] == ["combat"]
            assert "zone visée touchée (tête)" in outcome["notes"][0]
            bad = await gm.roll("oweens", {"dice": 4}, dice=[6, 6, 4],
                                options={"combat": {"options": ["charger"], "attacker_pep": 2}})
            assert bad["code"] == "invalid_params"
    run(scenario())


# -- params ---------------------------------------------------------------------------------


@pytest.mark.parametrize("params,param", [
    ({}, "dice"), ({"dice": -1}, "dice"), ({"dice": 31}, "dice"), ({"dice": "4"}, "dice"),
    ({"dice": 3, "difficulty": 21}, "difficulty"), ({"dice": 3, "difficulty": -1}, "difficulty"),
    ({"dice": 3, "augmentations": -1}, "augmentations"),
    ({"dice": 3, "buy_augmentations": 1.5}, "buy_augmentations"),
    ({"dice": 3, "bagage": 1}, "bagage"), ({"dice": 3, "npc_bagage": "oui"}, "npc_bagage"),
    ({"dice": 3, "equipment": -2}, "equipment"), ({"dice": 3, "reserve": -1}, "reserve"),
])
def test_invalid_params(params, param):
    assert refused("oweens", None, **params).details == {"param": param}
