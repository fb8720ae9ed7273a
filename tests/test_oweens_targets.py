"""O'Ween's aimed at a character (contract §8, issue 26): the melee reads the target's
Peps and puts the wounds on its sheet, the combat options read its ENC and ECL, Charger
the roller's own PEP, Surprendre's lock names it, and a complex action against it drains
its reserve — every number from the sheets, none typed (seed 000, quoted in
docs/RULESETS.md). A value typed in ``options``/``params`` still wins (an NPC without a
sheet)."""

from __future__ import annotations

import pytest

from sidecar.protocol.errors import ProtocolError
from sidecar.table.asks import answer_targets
from tests.sheet_helpers import HOST, new_sheet, odds_as
from tests.target_helpers import odds_at, roll_at, struck

SCHEMA = HOST.sheet_schema("oweens")
MELEE = {"combat": {"attack": "melee"}}


def brady(**values):
    return new_sheet("oweens", **{"pep": 3, "ecl": 2, "enc": 2, **values})


def aengus(**values):
    return new_sheet("oweens", **{"pep": 4, "ecl": 3, "enc": 3, "bonbonus": 0, **values})


def test_melee_difficulty_is_the_targets_peps_and_the_mr_goes_on_its_wounds():
    # « Le joueur fait un jet de Peps contre le Peps de l'adversaire. » Brady's Peps 3:
    # [6, 6, 4] → 5 successes, MR 2, two wounds on Brady's sheet.
    hit = roll_at("oweens", {"characteristic": "PEP"}, aengus(), {"Brady": brady()},
                  [6, 6, 4, 2], options=MELEE)
    r = hit.outcome.result
    assert (r["difficulty"], r["margin"], r["wounds"]) == (3, 2, 2)
    assert hit.outcome.effects == {"Brady": {"blessures": 2}}
    assert struck(brady(), hit.outcome.effects["Brady"], SCHEMA)["blessures"] == 2
    # « la valeur de la réserve remplace la caractéristique »: Brady's Peps reserve at 1.
    tired = roll_at("oweens", {"characteristic": "PEP"}, aengus(),
                    {"Brady": brady(reserve_pep=-2)}, [6, 6, 4, 2], options=MELEE)
    assert tired.outcome.result["difficulty"] == 1
    assert tired.outcome.effects == {"Brady": {"blessures": 4}}


def test_a_miss_and_an_open_roll_change_no_target():
    miss = roll_at("oweens", {"characteristic": "PEP"}, aengus(), {"Brady": brady()},
                   [2, 2, 1, 3], options=MELEE)
    assert not miss.outcome.result["success"] and miss.outcome.effects == {}
    # As a character with bonbonus the roll stays open (buy after the dice): the wounds
    # come with the decision, not twice.
    rich = aengus(bonbonus=4)
    opened = roll_at("oweens", {"characteristic": "PEP"}, rich, {"Brady": brady()},
                     [6, 5, 4, 2], options=MELEE, close=False)
    assert opened.outcome.choices and opened.outcome.effects == {}
    closed = roll_at("oweens", {"characteristic": "PEP"}, rich, {"Brady": brady()},
                     [6, 5, 4, 2], options=MELEE)
    assert closed.outcome.effects == {"Brady": {"blessures": 1}}


def test_a_typed_opponent_pep_still_wins_and_the_wounds_still_land():
    typed = roll_at("oweens", {"characteristic": "PEP"}, aengus(), {"Brady": brady()},
                    [6, 6, 4, 2], options={"combat": {"attack": "melee", "opponent_pep": 1}})
    assert typed.outcome.result["difficulty"] == 1
    assert typed.outcome.effects == {"Brady": {"blessures": 4}}


def test_without_a_target_nor_a_typed_peps_the_melee_is_still_refused():
    with pytest.raises(ProtocolError) as caught:
        roll_at("oweens", {"characteristic": "PEP"}, aengus(), {}, [6, 6, 4, 2],
                options=MELEE)
    assert caught.value.details["param"] == "options.combat.opponent_pep"


def test_assommer_reads_the_targets_enc():
    # « Si vous faites plus de blessures que le score d'ENC de votre victime … Aucune
    # blessure n'est comptabilisée. » Brady's ENC 2; Assommer costs a die: 3 dice.
    options = {"combat": {"attack": "melee", "options": ["assommer"]}}
    out = roll_at("oweens", {"characteristic": "PEP"}, aengus(), {"Brady": brady(pep=1)},
                  [6, 6, 6], options=options)
    assert out.outcome.result["combat"]["knocked_out"] and out.outcome.effects == {}
    stays = roll_at("oweens", {"characteristic": "PEP"}, aengus(),
                    {"Brady": brady(pep=1, enc=5)}, [6, 6, 6], options=options)
    assert not stays.outcome.result["combat"]["knocked_out"]
    assert stays.outcome.effects == {"Brady": {"blessures": 5}}


def test_renverser_reads_the_targets_ecl():
    # « Si vous faites plus de blessures que le score d'ECL de votre adversaire … Une
    # seule blessure est comptée ». Renverser costs 2: 2 dice of Aengus's 4.
    options = {"combat": {"attack": "melee", "options": ["renverser"]}}
    down = roll_at("oweens", {"characteristic": "PEP"}, aengus(), {"Brady": brady(pep=0)},
                   [6, 6], options=options)
    assert down.outcome.result["combat"]["knocked_down"]
    assert down.outcome.effects == {"Brady": {"blessures": 1}}
    standing = roll_at("oweens", {"characteristic": "PEP"}, aengus(),
                       {"Brady": brady(pep=0, ecl=6)}, [6, 6], options=options)
    assert standing.outcome.effects == {"Brady": {"blessures": 4}}


def test_immobiliser_hold_is_enc_against_the_targets_ecl():
    # « faites à chaque tour un jet d'ENC contre l'ECL de la cible »: Brady's ECL 2.
    hold = {"combat": {"hold": True}}
    held = roll_at("oweens", {"characteristic": "ENC"}, aengus(), {"Brady": brady()},
                   [4, 4, 2], options=hold)
    assert held.outcome.result["difficulty"] == 2 and held.outcome.result["combat"]["held"]
    assert held.outcome.effects == {}  # « Aucune blessure n'est comptabilisée »
    freed = roll_at("oweens", {"characteristic": "ENC"}, aengus(),
                    {"Brady": brady(ecl=5)}, [4, 4, 2], options=hold)
    assert not freed.outcome.result["combat"]["held"]


def test_charger_adds_the_rollers_own_pep_from_its_sheet():
    # « ajoutez votre PEP aux blessures de votre adversaire »: Brady (PEP 3) charges.
    charge = {"combat": {"attack": "melee", "options": ["charger"], "initiative": True,
                         "room": True}}
    out = roll_at("oweens", {"characteristic": "PEP"}, brady(), {"Aengus": aengus(pep=1)},
                  [6], options=charge)
    assert out.outcome.result["wounds"] == 1 + 3
    assert out.outcome.effects == {"Aengus": {"blessures": 4}}
    # The audit's case: Brady, PEP 3, typing 9 got 9 wounds more; refused before the dice.
    with pytest.raises(ProtocolError) as caught:
        roll_at("oweens", {"characteristic": "PEP"}, brady(), {"Aengus": aengus(pep=1)},
                [6], options={"combat": {**charge["combat"], "attacker_pep": 9}})
    assert caught.value.details["param"] == "options.combat.attacker_pep"
    # Without a character the GM still types it (an NPC without a sheet).
    npc = roll_at("oweens", {"dice": 3}, None, {"Aengus": aengus(pep=1)}, [6],
                  options={"combat": {**charge["combat"], "attacker_pep": 2}})
    assert npc.outcome.result["wounds"] == 1 + 2


def test_surprendre_locks_the_initiative_over_the_target():
    options = {"combat": {"attack": "melee", "options": ["surprendre"]}}
    out = roll_at("oweens", {"characteristic": "PEP"}, aengus(), {"Brady": brady()},
                  [6, 6, 6], options=options, character="Aengus")
    assert out.outcome.result["surprise"]["over"] == "Brady"
    assert out.state["oweens"]["surprises"]["Brady"]["by"] == "Aengus"


def test_a_complex_action_against_a_character_drains_its_reserve():
    # « La caractéristique de résistance : c'est la caractéristique de l'adversaire qui
    # entre en résistance, et qui servira de difficulté à l'action. » « Si le jet est
    # réussie, la MR détermine combien de points sont retranchés à la réserve attaquée. »
    out = roll_at("oweens", {"characteristic": "ECL", "contest": True}, aengus(),
                  {"Brady": brady()}, [6, 6, 4])
    r = out.outcome.result
    assert (r["difficulty"], r["margin"]) == (2, 3)
    assert out.outcome.effects == {"Brady": {"reserve_ecl": -2}}  # as far as it holds
    assert out.outcome.spend == {}
    # Another resistance named, and what a reserve left to drain stops at.
    other = roll_at("oweens", {"characteristic": "ECL", "contest": True,
                               "resistance": "ENC"}, aengus(), {"Brady": brady(enc=5)},
                    [6, 6, 4])
    assert other.outcome.result["difficulty"] == 5
    assert other.outcome.effects == {}
    drained = roll_at("oweens", {"characteristic": "ECL", "contest": True},
                      aengus(), {"Brady": brady(ecl=4, reserve_ecl=-3)}, [6, 6, 4])
    assert drained.outcome.effects == {"Brady": {"reserve_ecl": -1}}


def test_a_lost_contest_against_a_character_leaves_the_rollers_reserve_alone():
    # The attacked reserve is the target's: the target's own action drains the roller's.
    lost = roll_at("oweens", {"characteristic": "ECL", "contest": True}, aengus(),
                   {"Brady": brady(ecl=4)}, [2, 1, 3])
    assert not lost.outcome.result["success"] and lost.outcome.spend == {}
    assert lost.outcome.effects == {}


def test_odds_read_the_target_as_the_roll_does():
    assert odds_at("oweens", {"characteristic": "PEP"}, aengus(), {"Brady": brady()},
                   options=MELEE) == odds_as("oweens", {"dice": 4, "difficulty": 3}, None)
    assert odds_at("oweens", {"characteristic": "ECL", "contest": True}, aengus(),
                   {"Brady": brady(reserve_ecl=-1)}) == odds_as(
        "oweens", {"dice": 3, "difficulty": 1, "contest": True}, None)


def test_collaborators_are_free_augmentations_and_the_odds_count_them():
    # « chaque participant gagne une augmentation par collaborateur »: the seed's door,
    # Aengus [5, 5, 3, 6] with his 1A (3 → 4) → 5 successes, MR 2.
    door = roll_at("oweens", {"dice": 4, "difficulty": 3, "collaborators": 1}, None, {},
                   [5, 5, 3, 6])
    assert (door.outcome.result["successes"], door.outcome.result["margin"]) == (5, 2)
    assert odds_as("oweens", {"dice": 4, "difficulty": 3, "collaborators": 2}, None) == \
        odds_as("oweens", {"dice": 4, "difficulty": 3, "augmentations": 2}, None)


def test_any_action_against_a_character_is_played_against_its_characteristic():
    # « On ajoute les réussites et on compare leur nombre à une difficulté. Celle-ci est
    # déterminée par les caractéristiques de l'adversaire »: « Peps contre le Peps ».
    plain = roll_at("oweens", {"characteristic": "PEP"}, aengus(),
                    {"Brady": brady(reserve_pep=-1)}, [6, 4, 2, 2])
    assert plain.outcome.result["difficulty"] == 2 and plain.outcome.effects == {}
    other = roll_at("oweens", {"characteristic": "FLA", "dice": 2, "resistance": "ENC"},
                    aengus(), {"Brady": brady(enc=4)}, [6, 6])
    assert other.outcome.result["difficulty"] == 4
    # Typed: kept.
    typed = roll_at("oweens", {"characteristic": "PEP", "difficulty": 1}, aengus(),
                    {"Brady": brady()}, [6, 4, 2, 2])
    assert typed.outcome.result["difficulty"] == 1
    assert odds_at("oweens", {"characteristic": "PEP"}, aengus(),
                   {"Brady": brady(reserve_pep=-1)}) == odds_as(
        "oweens", {"dice": 4, "difficulty": 2}, None)


def test_a_cooperative_sides_collaborators_are_never_its_targets():
    # « Combat à un contre plusieurs : chaque combattant gagne une augmentation gratuite
    # par personne qui l'aide »: an answer to a cooperative ask is aimed at the ask's
    # targets only — the Gobelin takes the wounds; Brady, who helps, is no target at all.
    ask = {"cooperative": True, "targets": ["Gobelin"],
           "to": [{"seat": "Lea", "character": "Aengus"}, {"seat": "Tom", "character": "Brady"}]}
    assert answer_targets(ask, "Aengus") == ("Gobelin",)
    assert answer_targets({**ask, "cooperative": False, "opposed": True}, "Aengus") == (
        "Gobelin", "Brady")
    both = roll_at("oweens", {"characteristic": "PEP", "collaborators": 1}, aengus(),
                   {"Gobelin": brady(pep=1)}, [6, 4, 2, 2], options=MELEE)
    assert both.outcome.result["difficulty"] == 1
    assert both.outcome.effects == {"Gobelin": {"blessures": 2}}
