"""Bloodlust aimed at a character (contract §8, issue 26): « Attention, cela ne
fonctionne pas pour toutes les actions, et jamais en combat ou autre situation tendue »
— an action aimed at another character is that situation: no automatic success, in a
roll as in its odds (the dice are rolled as usual)."""

from __future__ import annotations

import pytest

from sidecar.protocol.errors import ProtocolError
from tests.sheet_helpers import new_sheet
from tests.target_helpers import odds_at, roll_at

VICTIM = new_sheet("bloodlust")


def test_no_automatic_success_against_a_character():
    with pytest.raises(ProtocolError) as caught:
        roll_at("bloodlust", {"pool": 6, "difficulty": 4, "automatic": True}, None,
                {"Victime": VICTIM}, [])
    assert caught.value.details["param"] == "automatic"
    with pytest.raises(ProtocolError):
        odds_at("bloodlust", {"pool": 6, "difficulty": 4, "automatic": True}, None,
                {"Victime": VICTIM})


def test_rolled_dice_against_a_character_and_an_automatic_success_alone_still_work():
    hit = roll_at("bloodlust", {"pool": 3, "difficulty": 6}, None, {"Victime": VICTIM},
                  [7, 8, 2])
    assert hit.outcome.result["success"] and hit.outcome.effects == {}
    alone = roll_at("bloodlust", {"pool": 6, "difficulty": 4, "automatic": True}, None, {})
    assert alone.outcome.result["automatic"]
