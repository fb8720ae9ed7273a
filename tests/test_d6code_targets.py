"""d6code aimed at a character (contract §8, issue 26): the opposition reads the
opponent's code from its sheet — the same skill, or the one the GM names (« le Maître du
Jeu décide quelles Compétences seront utilisées par chacun des protagonistes. Il se peut
en effet que ce ne soit pas les mêmes »); a code typed in ``opponent`` still wins."""

from __future__ import annotations

import asyncio

import pytest

from sidecar.protocol.errors import ProtocolError
from tests.sheet_helpers import PIPELINE, new_sheet, odds_as
from tests.target_helpers import aimed_roll, odds_at, roll_at

STRENGAL = new_sheet("d6code", competences={"CORPS À CORPS": "3D+5", "PILOTAGE": "4D+3"},
                     points_style=0)
KRULL = new_sheet("d6code", competences={"CORPS À CORPS": "4D+1", "PILOTAGE": "5D",
                                         "ESQUIVE": "2D"})


def test_the_seeds_duel_from_both_sheets():
    # « Strengal possède 3D+5 en CORPS À CORPS et Krull, 4D+1. Les jets donnent
    # respectivement 11 et 13 ce qui donne 16 (11+5) et 14 (13+1). C'est donc Strengal qui
    # sort vainqueur de l'affrontement. »
    duel = roll_at("d6code", {"skill": "CORPS À CORPS"}, STRENGAL, {"Krull": KRULL},
                   [4, 4, 3, 4, 3, 3, 3])
    r = duel.outcome.result
    assert (r["score"], r["opposed"]["score"], r["opposed"]["winner"]) == (16, 14, "roller")
    assert r["opposed"]["code"] == "4D+1" and duel.outcome.effects == {}


def test_the_seeds_race_with_a_difficulty():
    # « Difficile, le score à atteindre est 20 … 19 (13+3+3) et 21 (18+3). Krull remporte
    # l'affrontement »: the vehicles' handling (+3 each) is the situation, typed.
    race = roll_at("d6code", {"skill": "PILOTAGE", "opponent_skill": "PILOTAGE",
                              "difficulty": 20, "modifier": 3, "opponent_modifier": 3},
                   STRENGAL, {"Krull": KRULL}, [4, 3, 3, 3, 4, 4, 4, 3, 3])
    r = race.outcome.result
    assert (r["score"], r["opposed"]["score"], r["opposed"]["winner"]) == (19, 21, "opponent")


def test_with_a_difficulty_and_no_opponent_skill_the_target_does_not_roll():
    # A shot at Krull, difficulty 15: its skill is not opposed unless named (a side of
    # an opposed ask gives a difficulty too, and rolls only its own dice).
    shot = roll_at("d6code", {"skill": "PILOTAGE", "difficulty": 15}, STRENGAL,
                   {"Krull": KRULL}, [4, 3, 3, 3])
    assert shot.outcome.result["score"] == 16 and not shot.outcome.result.get("opposed")


def test_another_skill_named_for_the_opponent_and_a_typed_code_wins():
    dodge = roll_at("d6code", {"skill": "CORPS À CORPS", "opponent_skill": "ESQUIVE"},
                    STRENGAL, {"Krull": KRULL}, [4, 4, 3, 1, 1])
    assert dodge.outcome.result["opposed"]["code"] == "2D"
    typed = roll_at("d6code", {"skill": "CORPS À CORPS", "opponent": "1D"}, STRENGAL,
                    {"Krull": KRULL}, [4, 4, 3, 6])
    assert typed.outcome.result["opposed"]["score"] == 6


def test_a_skill_missing_from_the_opponents_sheet_is_refused_before_the_dice():
    with pytest.raises(ProtocolError) as caught:
        roll_at("d6code", {"skill": "CORPS À CORPS", "opponent_skill": "CHANT"}, STRENGAL,
                {"Krull": KRULL}, [4, 4, 3, 1])
    assert caught.value.details["param"] == "opponent_skill"
    assert "CHANT" in caught.value.message


def test_odds_read_the_opponents_code_as_the_roll_does():
    assert odds_at("d6code", {"skill": "CORPS À CORPS"}, STRENGAL, {"Krull": KRULL}) == \
        odds_as("d6code", {"code": "3D+5", "opponent": "4D+1"}, None)


def test_a_style_point_after_the_dice_replays_the_opponents_dice():
    # Strengal loses 9 + 5 = 14 to Krull's 15 + 1 = 16, then engages a style point after
    # the dice (1 and 5 → 20): the opposition replayed with the target's code and dice.
    hero = {**STRENGAL, "points_style": 1}
    roll = aimed_roll("d6code", {"skill": "CORPS À CORPS"}, hero, {"Krull": KRULL})
    lost = asyncio.run(PIPELINE.run(roll, dice=[3, 3, 3, 6, 5, 3, 1]))
    assert lost.outcome.result["opposed"]["winner"] == "opponent"
    assert "style_libre" in [c["name"] for c in lost.outcome.choices]
    styled = asyncio.run(PIPELINE.react(roll, lost.outcome, "style_libre", dice=[1, 5],
                                        table_state=lost.state))
    r = styled.outcome.result
    assert (r["score"], r["opposed"]["score"], r["opposed"]["winner"]) == (20, 16, "roller")
    assert r["opposed"]["code"] == "4D+1"
