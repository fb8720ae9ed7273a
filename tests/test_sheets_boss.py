"""The boss weak points example with sheets: its fields on the built-in rulesets' sheets,
a roll made as the boss taking the opponent's margin as wounds through its own armour and
weak points, and the per-roll options working as before."""

from __future__ import annotations

import asyncio
import importlib
import sys
from pathlib import Path

import pytest

from sidecar.host.pipeline import RollPipeline
from sidecar.host.plugins import default_host
from tests.target_helpers import roll_at

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "boss-weak-points"
BY = {"name": "MJ", "role": "gm"}


@pytest.fixture(scope="module")
def pipeline():
    sys.path.insert(0, str(EXAMPLE))
    try:
        boss = importlib.import_module("boss_weak_points")
    finally:
        sys.path.remove(str(EXAMPLE))
    host = default_host()
    host.register(boss, "boss", version=boss.__version__, source="example")
    yield RollPipeline(host)
    host.shutdown()
    sys.modules.pop("boss_weak_points", None)


def sheet_of(pipeline, ruleset, **values):
    sheet = {n: s.get("default") for n, s in pipeline.host.sheet_schema(ruleset).items()}
    sheet.update(values)
    return sheet


def roll(pipeline, ruleset, params, dice, sheet=None, options=None):
    prepared = pipeline.prepare(ruleset, params, options=options, by=BY)
    if sheet is not None:
        prepared.character, prepared.sheet = "Le Capitaine", sheet
    return asyncio.run(pipeline.run(prepared, dice=dice))


@pytest.mark.parametrize("ruleset", ["oweens", "ladder", "bloodlust", "d6code", "seuil"])
def test_the_extension_adds_armour_and_weak_points_to_every_sheet(pipeline, ruleset):
    sheet = pipeline.host.sheet_schema(ruleset)
    assert sheet["armure"]["extension"] == "boss"
    assert sheet["points_faibles"]["extension"] == "boss"
    assert sheet["points_faibles"]["values"] == "int"
    owners = [n for n, s in sheet.items() if "extension" not in s]
    assert owners and list(sheet)[:len(owners)] == owners  # the owner's fields first


def test_a_roll_as_the_boss_takes_the_opponents_margin_through_its_armour(pipeline):
    boss = sheet_of(pipeline, "oweens", pep=3, armure=2, points_faibles={"oeil": 3},
                    blessures=1)
    # The boss's Peps against Aengus's 4: [4, 2, 1] → 1 success, ME 3 = Aengus's margin.
    hit = roll(pipeline, "oweens", {"characteristic": "PEP", "difficulty": 4}, [4, 2, 1],
               boss, {"boss": {}})
    r = hit.outcome.result
    assert r["boss"]["side"] == "boss" and r["boss"]["wounds_taken"] == 3 - 2
    assert hit.outcome.spend == {"blessures": -1}  # one more wound on its sheet
    assert "boss" in hit.outcome.applied
    aimed = roll(pipeline, "oweens", {"characteristic": "PEP", "difficulty": 4}, [4, 2, 1],
                 boss, {"boss": {"aim": "oeil", "critical": True}})
    assert aimed.outcome.result["boss"]["wounds_taken"] == (3 + 3) * 2
    assert aimed.outcome.spend == {"blessures": -12}
    held = roll(pipeline, "oweens", {"characteristic": "PEP", "difficulty": 2}, [4, 4, 1],
                boss, {"boss": {"aim": "oeil"}})
    assert held.outcome.result["boss"]["wounds_taken"] == 0 and held.outcome.spend == {}


def test_hit_points_stop_at_zero_for_a_ladder_boss(pipeline):
    boss = sheet_of(pipeline, "ladder", pv=2, points_faibles={"nuque": 1},
                    caracteristiques={"geste": 3})
    hit = roll(pipeline, "ladder", {"characteristic": "geste", "difficulty": 9}, [2, 3],
               boss, {"boss": {"aim": "nuque"}})
    assert hit.outcome.result["boss"]["wounds_taken"] == 6 + 1
    assert hit.outcome.spend == {"pv": 2}


def test_options_still_work_as_before_with_or_without_a_sheet(pipeline):
    options = {"boss": {"armor": 2, "weak_points": {"oeil": 3}}}
    plain = roll(pipeline, "oweens", {"dice": 3, "difficulty": 1}, [6, 6, 4],
                 options=options)
    assert plain.outcome.result["wounds"] == 2 and plain.outcome.spend == {}
    # A hero attacking a boss whose settings come with the roll: the hero's sheet (no
    # armour of its own) changes nothing.
    hero = sheet_of(pipeline, "oweens", pep=3)
    attack = roll(pipeline, "oweens", {"characteristic": "PEP", "difficulty": 1},
                  [6, 6, 4], hero, options)
    assert attack.outcome.result["wounds"] == 2 and "side" not in attack.outcome.result[
        "boss"]
    # Settings given explicitly win over a boss sheet.
    boss = sheet_of(pipeline, "oweens", pep=3, armure=5)
    explicit = roll(pipeline, "oweens", {"characteristic": "PEP", "difficulty": 1},
                    [6, 6, 4], boss, options)
    assert explicit.outcome.result["wounds"] == 2


# -- aimed at the boss (contract §8, issue 26) ----------------------------------------------


def aimed(pipeline, ruleset, params, dice, targets, sheet=None, options=None):
    """A roll (as ``sheet``'s character, or none) aimed at ``targets`` (name → values)."""
    return roll_at(ruleset, params, sheet, targets, dice, options=options, pipeline=pipeline)


def test_an_attack_aimed_at_the_boss_uses_its_sheet_and_wounds_it(pipeline):
    boss = sheet_of(pipeline, "oweens", pep=3, armure=1, points_faibles={"oeil": 3},
                    blessures=1)
    hero = sheet_of(pipeline, "oweens", pep=4)
    melee = {"combat": {"attack": "melee"}}
    # Aengus's Peps against the boss's 3: [6, 6, 4, 2] → MR 2, its armour 1 → 1 wound.
    hit = aimed(pipeline, "oweens", {"characteristic": "PEP"}, [6, 6, 4, 2],
                {"Le Capitaine": boss}, hero, melee)
    r = hit.outcome.result
    assert r["boss"]["armor"] == 1 and r["wounds"] == 1 and "boss" in hit.outcome.applied
    assert hit.outcome.effects == {"Le Capitaine": {"blessures": 1}}
    # Viser at its eye (a weak point on its sheet): armour ignored, +3 → 5 wounds.
    eye = {"combat": {"attack": "melee", "options": ["viser"], "zone": "oeil"}}
    aimed_hit = aimed(pipeline, "oweens", {"characteristic": "PEP"}, [6, 6, 4],
                      {"Le Capitaine": boss}, hero, eye)
    assert aimed_hit.outcome.result["boss"]["hit_weak_point"]
    assert aimed_hit.outcome.effects == {"Le Capitaine": {"blessures": 5}}
    # Armour typed for the roll still wins (an NPC without a sheet); the wounds still land.
    typed = aimed(pipeline, "oweens", {"characteristic": "PEP"}, [6, 6, 4, 2],
                  {"Le Capitaine": boss}, hero, {**melee, "boss": {"armor": 0}})
    assert typed.outcome.effects == {"Le Capitaine": {"blessures": 2}}
    # A miss changes nothing.
    miss = aimed(pipeline, "oweens", {"characteristic": "PEP"}, [2, 2, 3, 3],
                 {"Le Capitaine": boss}, hero, melee)
    assert miss.outcome.effects == {}


def test_a_ladder_boss_loses_hit_points_as_far_as_it_has_them(pipeline):
    boss = sheet_of(pipeline, "ladder", pv=3, armure=1, caracteristiques={"geste": 3})
    hit = aimed(pipeline, "ladder", {"level": 3, "difficulty": 2}, [6, 6],
                {"Le Capitaine": boss})
    r = hit.outcome.result
    assert r["success"] and r["wounds"] == r["margin"] - 1 > 0
    assert hit.outcome.effects == {"Le Capitaine": {"pv": -r["wounds"]}}


def test_a_target_without_armour_nor_weak_points_is_no_boss(pipeline):
    plain = sheet_of(pipeline, "oweens", pep=3)
    hero = sheet_of(pipeline, "oweens", pep=4)
    hit = aimed(pipeline, "oweens", {"characteristic": "PEP"}, [6, 6, 4, 2],
                {"Brady": plain}, hero, {"combat": {"attack": "melee"}})
    assert "boss" not in hit.outcome.result and "boss" not in hit.outcome.applied
    assert hit.outcome.effects == {"Brady": {"blessures": 2}}
