"""Tests of the boss weak points, with vtt-sidecar's kit (``sidecar.testing``): rolls of the
built-in rulesets through the real pipeline with this extension loaded, its descriptions
checked as at start-up, odds, and a real table with clients."""

from __future__ import annotations

import boss_weak_points
import pytest
from boss_weak_points import NAME

from sidecar import ProtocolError
from sidecar.testing import (
    check_descriptions,
    check_odds_match_enumeration,
    make_host,
    odds,
    plugin_name,
    resolve,
)

BOSS = {NAME: boss_weak_points}
#: O'Ween's, 3 dice against 1: [6, 6, 4] is 5 successes, MR 4.
OWEENS, PARAMS, FACES = "oweens", {"dice": 3, "difficulty": 1}, [6, 6, 4]


@pytest.fixture
def sidecar_plugins():
    """The live table gets this checkout's module (whether or not it is installed)."""
    return BOSS


def test_the_entry_point_names_it_boss():
    assert plugin_name(boss_weak_points) == NAME


def test_its_options_and_sheet_fields_pass_the_servers_checks():
    described = check_descriptions(boss_weak_points, name=NAME)
    assert described["rulesets"] == {}
    assert set(described["options"]["params"]) == {"armor", "weak_points", "aim", "critical"}
    assert set(described["sheets"]) == {"oweens", "ladder", "bloodlust", "d6code", "seuil"}
    assert set(described["sheets"]["ladder"]) == {"armure", "points_faibles"}


def test_the_fields_come_after_the_owners_on_each_sheet():
    host = make_host(BOSS)
    try:
        sheet = host.sheet_schema("oweens")
    finally:
        host.shutdown()
    assert sheet["armure"]["extension"] == NAME and list(sheet)[-2:] == ["armure",
                                                                         "points_faibles"]


def test_armour_takes_off_wounds():
    outcome = resolve(boss_weak_points, OWEENS, PARAMS, faces=FACES,
                      options={NAME: {"armor": 2}}, name=NAME)
    assert outcome["result"]["wounds"] == 4 - 2 and outcome["applied"] == [NAME]
    assert outcome["result"]["boss"]["wounds_before"] == 4


def test_an_aimed_weak_point_ignores_armour_and_a_critical_doubles():
    options = {NAME: {"armor": 5, "weak_points": {"oeil": 3}, "aim": "oeil"}}
    outcome = resolve(boss_weak_points, OWEENS, PARAMS, faces=FACES, options=options,
                      name=NAME)
    assert outcome["result"]["boss"]["hit_weak_point"] is True
    wounds = outcome["result"]["wounds"]
    assert wounds == (4 + 3) * (2 if outcome["result"]["kind"] == "critical" else 1)


def test_a_roll_as_the_boss_takes_the_opponents_margin_on_its_sheet():
    sheet = {"pv": 5, "armure": 1, "points_faibles": {}, "caracteristiques": {"geste": 3},
             "metiers": {}, "chance": 0}
    outcome = resolve(boss_weak_points, "ladder", {"characteristic": "geste",
                                                  "difficulty": 9},
                      faces=[2, 3], options={NAME: {}}, sheet=sheet, name=NAME)
    taken = outcome["result"]["boss"]["wounds_taken"]
    assert outcome["result"]["boss"]["side"] == "boss" and taken > 0
    assert outcome["spend"] == {"pv": min(taken, 5)}


def test_an_attack_aimed_at_the_boss_reads_its_sheet_and_wounds_it():
    # A server with targets: the boss's sheet gives its armour and weak points, and the
    # wounds go on it (``effects``). O'Ween's [6, 6, 4] against 1 is MR 4 (a Coup d'éclat).
    boss = {"pep": 1, "armure": 1, "points_faibles": {"oeil": 3}, "blessures": 0}
    blow = resolve(boss_weak_points, OWEENS, PARAMS, faces=FACES, name=NAME,
                   targets={"Le Capitaine": boss})
    assert blow["result"]["wounds"] == 4 - 1
    assert blow["effects"] == {"Le Capitaine": {"blessures": 3}}
    eye = resolve(boss_weak_points, OWEENS, PARAMS, faces=FACES, name=NAME,
                  options={NAME: {"aim": "oeil"}}, targets={"Le Capitaine": boss})
    assert eye["effects"] == {"Le Capitaine": {"blessures": (4 + 3) * 2}}


@pytest.mark.parametrize("options,key", [({"armour": 2}, "armour"), ({"armor": -1}, "armor"),
                                         ({"armor": "2"}, "armor")])
def test_bad_settings_are_refused_naming_the_key(options, key):
    with pytest.raises(ProtocolError) as refused:
        resolve(boss_weak_points, OWEENS, PARAMS, faces=FACES, options={NAME: options},
                name=NAME)
    assert refused.value.code == "invalid_params"
    assert f"{NAME}.{key}" in refused.value.message


def test_it_leaves_the_odds_as_the_ruleset_gives_them():
    options = {NAME: {"armor": 2}}
    assert odds(boss_weak_points, "ladder", {"level": 2, "difficulty": 3}, options=options,
                name=NAME) == odds(boss_weak_points, "ladder", {"level": 2,
                                                                 "difficulty": 3}, name=NAME)
    check_odds_match_enumeration(boss_weak_points, "bloodlust", {"pool": 2, "difficulty": 7},
                                 options=options, name=NAME)


def test_a_live_table_offers_it_and_applies_it(sidecar_client):
    gm = sidecar_client()
    assert NAME in [option["name"] for option in gm.welcome["options"]]
    player = sidecar_client("Aengus", role="player")
    outcome = gm.roll(OWEENS, PARAMS, dice=FACES, options={NAME: {"armor": 1}})
    assert outcome["result"]["wounds"] == 3 and NAME in outcome["applied"]
    seen = player.next_event()
    while seen.get("type") != "outcome":
        seen = player.next_event()
    assert seen["seq"] == outcome["seq"] and seen["result"]["wounds"] == 3
