"""O'Ween's decisions after the dice (issue 12): augmentations bought once the dice are
seen, reserve points kept with bonbonus after a lost contest, and the combat fixes (the
wounds an option counts reach the attacked reserve; a cost paid in dice counts the
bagage's die). In process through the pipeline, and the seed's towing through a real
server (RULES.md §1, seed 000)."""

from __future__ import annotations

import asyncio

import pytest

from sidecar.protocol.errors import ProtocolError
from tests.helpers import GM_TOKEN, Peer, run, running_server
from tests.rules_helpers import refused
from tests.sheet_helpers import PIPELINE, after, new_sheet, odds_as, roll_as


def react(rolled, choice, sheet=None, dice=None):
    """The decision ``choice`` on the open roll ``rolled``, the character's values now
    being ``sheet`` (as the server reads them when the decision comes)."""
    roll = rolled.roll
    roll.sheet = dict(sheet) if sheet is not None else None
    return asyncio.run(PIPELINE.react(roll, rolled.outcome, choice, dice, rolled.state))


def names(resolution):
    return [c["name"] for c in resolution.outcome.choices or []]


# -- bug 1: the wounds an option counts are what the attacked reserve loses ---------------

MELEE = {"attack": "melee", "opponent_pep": 2}


def test_desarmer_counts_no_wound_and_the_reserve_keeps_its_points():
    # Issue 12: dice 6,6,6 against PEP 2 (MR 4) with Désarmer: "réserve 5 → 1, blessures 0".
    done = roll_as("oweens", {"dice": 6, "reserve": 5}, None, [6, 6, 6],
                   options={"combat": {**MELEE, "options": ["desarmer"]}})
    r = done.outcome.result
    assert (r["margin"], r["wounds"], r["reserve_after"]) == (4, 0, 5)
    assert "réserve 5 → 5, blessures 0" in done.text["fr"]


def test_charger_adds_the_attackers_pep_to_what_the_reserve_loses():
    # PEP 3 on 6,4,3 vs 2: MR 1, wounds 1 + 3 = 4: the reserve 5 → 1 (was 5 → 4).
    done = roll_as("oweens", {"dice": 5, "reserve": 5}, None, [6, 4, 3],
                   options={"combat": {**MELEE, "options": ["charger"], "attacker_pep": 3,
                                       "initiative": True, "room": True}})
    r = done.outcome.result
    assert (r["wounds"], r["reserve_after"]) == (4, 1)
    assert "réserve 5 → 1, blessures 4" in done.text["fr"]


def test_renverser_knocking_down_takes_one_point_and_the_named_adversity_follows():
    options = {"combat": {**MELEE, "options": ["renverser"], "target_ecl": 2}}
    done = roll_as("oweens", {"dice": 5, "reserve": 6, "adversity": "O'Daefon"}, None,
                   [6, 6, 6], options=options)
    r = done.outcome.result
    assert r["combat"]["knocked_down"] and (r["wounds"], r["reserve_after"]) == (1, 5)
    assert done.state["oweens"]["adversities"]["O'Daefon"] == 5
    # Not knocked down (wounds 2 ≤ ECL 2): both wounds count, the reserve loses 2.
    done = roll_as("oweens", {"dice": 5, "adversity": "O'Daefon"}, None, [6, 6, 2],
                   options=options, state=done.state)
    assert (done.outcome.result["wounds"], done.outcome.result["reserve_after"]) == (2, 3)
    assert done.state["oweens"]["adversities"]["O'Daefon"] == 3


def test_assommer_knocking_out_spares_the_reserve():
    options = {"combat": {**MELEE, "options": ["assommer"], "target_enc": 2}}
    done = roll_as("oweens", {"dice": 4, "reserve": 4}, None, [6, 6, 4], options=options)
    assert done.outcome.result["combat"]["knocked_out"]
    assert done.outcome.result["reserve_after"] == 4


# -- bug 2: a cost paid in dice counts the bagage's die -------------------------------------

def test_a_cost_paid_in_dice_may_take_all_but_the_bagage_die():
    options = {"combat": {**MELEE, "options": ["viser"], "zone": "bras"}}
    done = roll_as("oweens", {"dice": 1, "bagage": True}, None, [6], options=options)
    assert done.outcome.result["dice_count"] == 1 and done.outcome.result["margin"] == 0
    # Its odds are those of one die against 2.
    assert odds_as("oweens", {"dice": 1, "bagage": True}, None, options) == odds_as(
        "oweens", {"dice": 1, "difficulty": 2}, None)
    # Without the bagage there is no die left to throw; nor with a cost above both.
    assert refused("oweens", [6], options=options, dice=1).details[
        "param"] == "options.combat.pay"
    error = refused("oweens", [6], options={"combat": {"options": ["renverser"],
                                                       "target_ecl": 1}},
                    dice=1, bagage=True)
    assert error.details["param"] == "options.combat.pay"
    # A characteristic at 0 stays unusable, bagage or not.
    with pytest.raises(ProtocolError):
        roll_as("oweens", {"dice": 0, "bagage": True}, None, [6], options=options)


def test_as_a_character_the_bagage_die_pays_too():
    hero = new_sheet("oweens", pep=2, reserve_pep=-1)
    options = {"combat": {**MELEE, "options": ["viser"]}}
    done = roll_as("oweens", {"characteristic": "PEP", "bagage": True}, hero, [4],
                   options=options)
    assert done.outcome.result["dice_count"] == 1 and done.outcome.spend == {}


# -- ranged modifiers ------------------------------------------------------------------------

@pytest.mark.parametrize("modifiers, difficulty", [([1, 2], 5), ([-1, 2], 5),
                                                   ([-1, -2], 2), ([], 3), ([-5], 0)])
def test_only_the_most_handicapping_ranged_modifier_applies_even_a_favourable_one(
        modifiers, difficulty):
    done = roll_as("oweens", {"dice": 2}, None, [1, 2],
                   options={"combat": {"attack": "ranged", "ranged_modifiers": modifiers}})
    assert done.outcome.result["difficulty"] == difficulty


# -- augmentations bought after the dice -----------------------------------------------------

def aengus(**values):
    return new_sheet("oweens", **{"ecl": 3, "bonbonus": 3, "bagages": ["marin-pêcheur"],
                                  **values})


def test_towing_the_purchase_is_decided_after_the_dice_and_paid_then():
    """Seed: « Les dés d'Aengus révèlent un 5, et deux 6 … Il pioche donc 2 BB+ pour gagner
    une augmentation. Il transforme le 5 en 6 … amenant sa MR à 2. La réserve perd donc 2
    points et tombe à 0. »"""
    hero = aengus()
    start = roll_as("oweens", {"dice": 4, "difficulty": 3, "adversity": "rivière",
                               "reserve": 2}, None, [1, 1, 1, 1])  # a Bourde: not open
    assert start.outcome.choices is None
    rolled = roll_as("oweens", {"characteristic": "ECL", "difficulty": 4,
                                "adversity": "rivière"}, hero, [5, 6, 6], state=start.state)
    out = rolled.outcome
    assert out.result["margin"] == 1 and out.default == "keep"
    assert names(rolled) == ["buy_1", "keep"]
    assert out.choices[0]["label"]["fr"] == "Acheter 1A (2 BB+) : 6 réussites, MR 2"
    assert out.choices[0]["label"]["en"] == "Buy 1A (2 BB+): 6 successes, success margin 2"
    assert "0 BB+" in out.choices[1]["label"]["fr"] and out.spend == {}
    assert rolled.state["oweens"]["adversities"]["rivière"] == 1
    decided = react(rolled, "buy_1", hero)
    r = decided.outcome.result
    assert (r["successes"], r["margin"], r["reserve_after"]) == (6, 2, 0)
    assert r["decided"] and r["bought_after_dice"] == 1 and r["bonbonus_spent"] == 2
    assert decided.outcome.spend == {"bonbonus": 2} and decided.outcome.choices is None
    assert after(hero, decided.outcome.spend, "oweens")["bonbonus"] == 1
    assert r["augmented"] == [{"die": 0, "from": 5, "to": 6}]
    assert decided.outcome.dice[0]["raised_to"] == 6
    assert decided.state["oweens"]["adversities"]["rivière"] == 0
    assert "réserve 2 → 0" in decided.text["fr"]
    kept = react(rolled, "keep", hero)
    assert kept.outcome.spend == {} and kept.outcome.result["margin"] == 1
    assert kept.state["oweens"]["adversities"]["rivière"] == 1


def test_with_a_bagage_an_augmentation_costs_one_bonbonus():
    # « son augmentation ne lui aurait coûté qu'un seul BB+ »
    rolled = roll_as("oweens", {"characteristic": "ECL", "difficulty": 4, "bagage": True},
                     aengus(), [5, 6, 6, 2])
    assert rolled.outcome.choices[0]["label"]["fr"].startswith("Acheter 1A (1 BB+)")
    assert react(rolled, "buy_1", aengus()).outcome.spend == {"bonbonus": 1}


def test_offers_one_choice_per_success_as_far_as_the_wallet_pays():
    # [3, 2, 2]: 3→4 for 1A, then each 2→4 or 4→6 for 2 more, up to three 6s.
    # Without a character the roll opens only when asked (nobody's wallet is tracked).
    assert roll_as("oweens", {"dice": 3, "difficulty": 3}, None, [3, 2, 2]).outcome.choices \
        is None
    free = roll_as("oweens", {"dice": 3, "difficulty": 3, "buy_after": True}, None, [3, 2, 2])
    assert names(free) == ["buy_1", "buy_3", "buy_5", "buy_7", "buy_9", "buy_11", "keep"]
    rich = roll_as("oweens", {"characteristic": "ECL", "difficulty": 3},
                   aengus(bonbonus=6), [3, 2, 2])
    assert names(rich) == ["buy_1", "buy_3", "keep"]  # buy_6 would cost 12
    poor = roll_as("oweens", {"characteristic": "ECL", "difficulty": 3},
                   aengus(bonbonus=1), [3, 2, 2])
    assert poor.outcome.choices is None  # 1A costs 2: nothing to decide
    decided = react(rich, "buy_3", aengus(bonbonus=6))
    assert decided.outcome.result["successes"] == 2
    assert decided.outcome.spend == {"bonbonus": 6}


@pytest.mark.parametrize("faces, difficulty", [([1, 1, 4], 1), ([6, 6, 5], 2), ([6, 6, 6], 6)])
def test_nothing_to_buy_on_a_bourde_a_coup_or_a_full_roll(faces, difficulty):
    assert roll_as("oweens", {"dice": 3, "difficulty": difficulty}, None,
                   faces).outcome.choices is None


def test_a_declared_purchase_still_works_and_opens_nothing():
    declared = roll_as("oweens", {"characteristic": "ECL", "difficulty": 4,
                                  "buy_augmentations": 1}, aengus(), [5, 6, 6])
    assert declared.outcome.choices is None and declared.outcome.spend == {"bonbonus": 2}


def test_without_a_character_the_decision_spends_nothing():
    rolled = roll_as("oweens", {"dice": 3, "difficulty": 4}, None, [5, 6, 6])
    decided = react(rolled, "buy_1")
    assert decided.outcome.spend == {} and decided.outcome.result["bonbonus_spent"] == 2


def test_combat_options_paid_in_bonbonus_are_paid_once_and_leave_less_to_buy_with():
    hero = new_sheet("oweens", pep=3, bonbonus=3)
    options = {"combat": {**MELEE, "options": ["viser"], "pay": "bonbonus"}}
    rolled = roll_as("oweens", {"characteristic": "PEP"}, hero, [5, 4, 2], options=options)
    assert rolled.outcome.spend == {"bonbonus": 1}
    assert names(rolled) == ["buy_1", "keep"]  # 2 BB+ left: 1A, not 3A
    now = after(hero, rolled.outcome.spend, "oweens")
    decided = react(rolled, "buy_1", now)
    assert decided.outcome.spend == {"bonbonus": 2}
    assert decided.outcome.result["wounds"] == 1 and decided.outcome.result[
        "bonbonus_spent"] == 3


def test_a_drinking_failure_a_purchase_saves_costs_no_bonbonus():
    hero = new_sheet("oweens", enc=2, bonbonus=2)
    rolled = roll_as("oweens", {"characteristic": "ENC", "difficulty": 1,
                                "drinking": True}, hero, [3, 2])
    assert names(rolled) == ["buy_1", "keep"] and rolled.outcome.spend == {}
    assert react(rolled, "buy_1", hero).outcome.spend == {"bonbonus": 2, "verres": -1}
    assert react(rolled, "keep", hero).outcome.spend == {"bonbonus": 1, "verres": -1}


# -- reserve points kept after a lost contest ----------------------------------------------

def test_after_a_lost_contest_the_player_keeps_reserve_points_at_one_bonbonus_each():
    hero = new_sheet("oweens", pep=3, bonbonus=2)
    # PEP 3 vs 5, [4, 2, 1]: ME 4, the reserve (3) drained to 0; 2 BB+ cannot buy (2→4
    # is 4 BB+), but they keep up to 2 points.
    lost = roll_as("oweens", {"characteristic": "PEP", "difficulty": 5, "contest": True},
                   hero, [4, 2, 1])
    assert lost.outcome.spend == {"reserve_pep": 3}
    assert names(lost) == ["save_1", "save_2", "none"] and lost.outcome.default == "none"
    assert lost.outcome.choices[1]["label"]["fr"] == "Garder 2 points de réserve PEP (2 BB+)"
    now = after(hero, lost.outcome.spend, "oweens")
    saved = react(lost, "save_2", now)
    assert saved.outcome.spend == {"reserve_pep": -2, "bonbonus": 2}
    values = after(now, saved.outcome.spend, "oweens")
    assert (values["reserve_pep"], values["bonbonus"]) == (-1, 0)
    assert saved.outcome.result["reserve_drained"] == {
        "characteristic": "PEP", "before": 3, "lost": 1, "kept": 2, "after": 2}
    assert react(lost, "none", now).outcome.spend == {}


def test_keeping_is_offered_after_the_purchase_and_the_declared_keep_still_works():
    hero = new_sheet("oweens", pep=3, bonbonus=3)
    # [3, 2, 2] vs 4: ME 4; buy 1A (3→4) for 2 BB+ → ME 3, then 1 BB+ keeps 1 point.
    lost = roll_as("oweens", {"characteristic": "PEP", "difficulty": 4, "contest": True},
                   hero, [3, 2, 2])
    assert names(lost) == ["buy_1", "keep"] and lost.outcome.spend == {}
    bought = react(lost, "buy_1", hero)
    assert bought.outcome.spend == {"bonbonus": 2, "reserve_pep": 3}
    assert names(bought) == ["save_1", "none"]
    declared = roll_as("oweens", {"characteristic": "PEP", "difficulty": 5, "contest": True,
                                  "keep_reserve": 1}, new_sheet("oweens", pep=3, bonbonus=2),
                       [4, 2, 1])
    assert declared.outcome.choices is None
    assert declared.outcome.spend == {"reserve_pep": 2, "bonbonus": 1}
    broke = roll_as("oweens", {"characteristic": "PEP", "difficulty": 5, "contest": True},
                    new_sheet("oweens", pep=3), [4, 2, 1])
    assert broke.outcome.choices is None  # no bonbonus: nothing to decide


# -- through a real server -------------------------------------------------------------------

def test_the_towing_purchase_after_the_dice_plays_through_a_real_server():
    async def scenario():
        async with running_server(allow_player_dice=True) as server:
            gm = await Peer.open(server)
            await gm.join("pub", "MJ", "gm")
            seat = await gm.request({"type": "seat", "id": "seat", "op": "add",
                                     "name": "Joueuse"})
            player = await Peer.open(server)
            await player.join("pub", "Joueuse", token=seat["token"])
            made = await gm.request({"type": "sheet", "id": "a", "op": "set",
                                     "character": "Aengus", "ruleset": "oweens",
                                     "owner": "Joueuse", "values": {
                                         "ecl": 3, "bonbonus": 3,
                                         "bagages": ["marin-pêcheur"]}})
            assert made["type"] == "sheet", made
            river = await gm.roll("oweens", {"dice": 4, "difficulty": 3,
                                             "adversity": "rivière", "reserve": 3},
                                  dice=[1, 1, 1, 1])  # (a Bourde: the river stays at 3)
            assert river["type"] == "outcome" and "open" not in river, river
            towing = await player.roll("oweens", {"characteristic": "ECL", "difficulty": 4,
                                                  "adversity": "rivière"},
                                       character="Aengus", dice=[5, 6, 6])
            assert towing["open"] is True and towing["default"] == "keep", towing
            assert [c["name"] for c in towing["choices"]] == ["buy_1", "keep"]
            assert towing["result"]["margin"] == 1 and towing["spent"] == {}
            decided = await player.request({"type": "react", "id": "buy",
                                            "roll": towing["roll"], "choice": "buy_1"})
            assert decided["type"] == "outcome", decided
            assert decided["reacts_to"] == towing["seq"] and decided["choice"] == "buy_1"
            assert decided["result"]["margin"] == 2
            assert decided["result"]["reserve_after"] == 1  # 3 − 2
            assert decided["spent"] == {"bonbonus": 2} and decided["sheet"]["bonbonus"] == 1
            assert "réserve 3 → 1" in decided["text"]
            # The GM's card gets the decision too.
            seen = await gm.recv_type("outcome")
            while seen.get("reacts_to") != towing["seq"]:
                seen = await gm.recv_type("outcome")
            assert seen["result"]["successes"] == 6
            # The table's river went on from there.
            again = await gm.roll("oweens", {"dice": 3, "difficulty": 1,
                                             "adversity": "rivière"}, dice=[6, 6, 6])
            assert again["result"]["reserve_before"] == 1
            # One BB+ left: another purchase is not offered (1A costs 2).
            short = await player.roll("oweens", {"characteristic": "ECL", "difficulty": 4},
                                      character="Aengus", dice=[5, 6, 6])
            assert "open" not in short
    run(scenario())


# -- Immobiliser: the hold re-rolled each turn -----------------------------------------------

def test_each_turn_a_pinned_target_struggles_an_enc_roll_against_its_ecl():
    # « Si la cible se débat, faites à chaque tour un jet d'ENC contre l'ECL de la cible.
    # Si le jet est raté, la cible se libère. Aucune blessure n'est comptabilisée. »
    hold = {"combat": {"hold": True, "target_ecl": 2}}
    held = roll_as("oweens", {"dice": 3, "reserve": 4}, None, [6, 4, 1], options=hold)
    r = held.outcome.result
    assert r["difficulty"] == 2 and r["combat"]["held"] and r["wounds"] == 0
    assert r["reserve_after"] == 4 and "reste immobilisée" in held.outcome.notes[-1]["fr"]
    freed = roll_as("oweens", {"dice": 3}, None, [4, 2, 2], options=hold)
    assert not freed.outcome.result["combat"]["held"]
    assert "se libère" in freed.outcome.notes[-1]["fr"]
    hero = new_sheet("oweens", enc=3)
    as_hero = roll_as("oweens", {"characteristic": "ENC"}, hero, [6, 6, 6], options=hold)
    assert as_hero.outcome.result["combat"]["held"]
    for bad in ({"hold": True}, {"hold": True, "target_ecl": 2, "options": ["viser"]}):
        error = refused("oweens", [6], options={"combat": bad}, dice=3)
        assert error.details["param"].startswith("options.combat.")
    error = refused("oweens", [6, 6], options=hold, characteristic="PEP", dice=2)
    assert error.details["param"] == "options.combat.hold"


def test_a_late_purchase_moves_the_shared_reserve_by_what_it_changed():
    # The towing is left open while Brady rolls against the same river: the purchase then
    # takes one more point from where Brady left it, not from where the towing began.
    hero = aengus()
    start = roll_as("oweens", {"dice": 1, "difficulty": 3, "adversity": "rivière",
                               "reserve": 4}, None, [1])
    towing = roll_as("oweens", {"characteristic": "ECL", "difficulty": 4,
                                "adversity": "rivière"}, hero, [5, 6, 6], state=start.state)
    assert towing.state["oweens"]["adversities"]["rivière"] == 3
    brady = roll_as("oweens", {"dice": 3, "difficulty": 4, "adversity": "rivière"}, None,
                    [6, 6, 4], state=towing.state)
    assert brady.state["oweens"]["adversities"]["rivière"] == 2
    roll = towing.roll
    roll.sheet = dict(hero)
    decided = asyncio.run(PIPELINE.react(roll, towing.outcome, "buy_1", None, brady.state))
    assert decided.outcome.result["margin"] == 2
    assert decided.state["oweens"]["adversities"]["rivière"] == 1


def test_odds_follow_the_hold_and_the_favourable_ranged_modifier():
    hold = {"combat": {"hold": True, "target_ecl": 2}}
    assert odds_as("oweens", {"dice": 3}, None, hold) == odds_as(
        "oweens", {"dice": 3, "difficulty": 2}, None)
    ranged = {"combat": {"attack": "ranged", "ranged_modifiers": [-1, -2]}}
    assert odds_as("oweens", {"dice": 3}, None, ranged) == odds_as(
        "oweens", {"dice": 3, "difficulty": 2}, None)


def test_keeping_reserve_points_after_a_lost_contest_through_a_real_server():
    async def scenario():
        async with running_server(allow_player_dice=True) as server:
            gm = await Peer.open(server)
            await gm.join("pub", "MJ", "gm")
            made = await gm.request({"type": "sheet", "id": "b", "op": "set",
                                     "character": "Brady", "ruleset": "oweens",
                                     "owner": None, "values": {"pep": 3, "bonbonus": 2}})
            assert made["type"] == "sheet", made
            lost = await gm.roll("oweens", {"characteristic": "PEP", "difficulty": 5,
                                            "contest": True}, character="Brady",
                                 dice=[4, 2, 1])
            assert lost["open"] is True and lost["default"] == "none", lost
            assert lost["spent"] == {"reserve_pep": 3}
            assert [c["name"] for c in lost["choices"]] == ["save_1", "save_2", "none"]
            saved = await gm.request({"type": "react", "id": "s", "roll": lost["roll"],
                                      "choice": "save_1"})
            assert saved["spent"] == {"reserve_pep": -1, "bonbonus": 1}, saved
            assert (saved["sheet"]["reserve_pep"], saved["sheet"]["bonbonus"]) == (-2, 1)
            assert saved["result"]["reserve_drained"]["after"] == 1
    run(scenario())


def test_the_command_line_says_what_a_lost_contest_decided_in_one_minus_sign(tmp_path):
    """Issue 29: « note : Réserve ENC : 3 → 2 (ME 1, 0 point gardé pour 0 BB+) » while
    « 1) Garder 1 point de réserve ENC (1 BB+) » was still open, and « dépensé : Réserve
    ENC (0 = pleine) −1 → -1 »: the note says what is decided and what is left to decide,
    the spend line one minus sign and the field without the sheet's « (0 = pleine) »."""
    import re

    from tests.support.serve import ServeProcess, sidecar

    with ServeProcess("--db", ":memory:", "--allow-player-dice") as server:
        gm = ["--url", server.url, "--table", "t", "--role", "gm", "--token", GM_TOKEN]
        made = sidecar("sheet", "set", "Aengus", "--ruleset", "oweens", "enc=3", "bonbonus=1",
                       *gm)
        assert made.returncode == 0, made.stderr
        # ENC 3 against 2, [4, 2, 1]: one success, ME 1; 1 BB+ keeps the point lost.
        lost = sidecar("roll", "oweens", "characteristic=ENC", "difficulty=2", "contest=true",
                       "--character", "Aengus", "--dice", "4,2,1", "--no-ask", *gm)
        assert lost.returncode == 0, lost.stderr
        out = lost.stdout
        assert "note : Réserve ENC : 3 → 2 (ME 1) ; des points peuvent encore être gardés, " \
               "1 BB+ chacun." in out, out
        assert "0 point gardé" not in out and "1) Garder 1 point de réserve ENC (1 BB+)" in out
        assert "dépensé : Réserve ENC −1 → 2 / 3" in out, out
        roll = re.search(r"sidecar react (\S+)", out)
        assert roll, out
        saved = sidecar("react", roll.group(1), "save_1", *gm)
        assert saved.returncode == 0, saved.stderr
        assert "note : 1 point de réserve ENC gardé pour 1 BB+ : 3 → 3." in saved.stdout
        assert "dépensé : Réserve ENC +1 → 3 / 3, Bonbonus (BB+) −1 → 0" in saved.stdout, \
            saved.stdout
        for text in (out, saved.stdout):
            spent = [line for line in text.splitlines() if "dépensé" in line]
            assert spent and all("(0 = pleine)" not in line and "-" not in line
                                 for line in spent), spent


def test_every_offer_says_what_judging_the_roll_with_that_purchase_says():
    """The offers' closed form against the roll's own judge, every roll of up to 3 dice."""
    import itertools

    from sidecar.rulesets.oweens_decisions import purchase_offers
    from sidecar.rulesets.oweens_judging import judge
    for count in (1, 2, 3):
        for faces in itertools.product(range(1, 7), repeat=count):
            for difficulty, free, equipment, bagage in itertools.product(
                    (0, 1, 2, 4), (0, 1), (0, 1), (False, True)):
                params = {"difficulty": difficulty, "augmentations": free,
                          "equipment": equipment, "bagage": bagage, "npc_bagage": False}
                judged = judge(list(faces), difficulty=difficulty, augmentations=free,
                               equipment=equipment, bagage=bagage)
                offers = purchase_offers(list(faces), params, judged, None)
                last = judged["successes"]
                for offer in offers[:-1]:
                    steps = int(offer["name"][4:])
                    bought = judge(list(faces), difficulty=difficulty, augmentations=free,
                                   buy_augmentations=steps, equipment=equipment,
                                   bagage=bagage)
                    assert bought["augmentations_bought"] == steps
                    assert bought["successes"] > last
                    # …and one augmentation fewer would not have reached it.
                    fewer = judge(list(faces), difficulty=difficulty, augmentations=free,
                                  buy_augmentations=steps - 1, bagage=bagage)
                    assert fewer["successes"] < bought["successes"]
                    price = (1 if bagage else 2) * steps
                    assert offer["label"]["fr"] == (
                        f"Acheter {steps}A ({price} BB+) : "
                        + _verdict_fr(bought))
                    last = bought["successes"]
                if not offers:  # nothing to buy: no purchase could add a success
                    more = judge(list(faces), difficulty=difficulty, augmentations=free,
                                 buy_augmentations=15, bagage=bagage)
                    assert judged["bourde"] or judged["coup_d_eclat"] or \
                        more["successes"] == judged["successes"]


def _verdict_fr(result):
    count = f"{result['successes']} réussite" + ("s" if result["successes"] > 1 else "")
    if result["kind"] == "narrow":  # (equipment raises a narrow success's MR too)
        return f"{count}, de justesse" + (f", MR {result['margin']}" if result["margin"] else "")
    if result["success"]:
        return f"{count}, MR {result['margin']}"
    return f"{count}, ME {-result['margin']}"
