"""A character asked or rolled for in another game (issue 29: ``ask open --ruleset seuil
Aengus`` said only « « Aengus » joue à O'Ween's », the roll « pas à L'échelle des dés »,
a capital mid-sentence): both say both games, their titles quoted as the reader quotes
(« « O'Ween's », pas à « L'échelle des dés » », “O'Ween's”, not “The dice ladder”).
A real server."""

from __future__ import annotations

import pytest

from sidecar.client import SidecarError
from sidecar.rulesets import ladder, oweens, seuil
from sidecar.testing import TableServer

SAID = {
    ("fr", "seuil"): "« Aengus » joue à « O'Ween's », pas à « Seuil »",
    ("en", "seuil"): "“Aengus” plays “O'Ween's”, not “Seuil”",
    ("fr", "ladder"): "« Aengus » joue à « O'Ween's », pas à « L'échelle des dés »",
    ("en", "ladder"): "“Aengus” plays “O'Ween's”, not “The dice ladder”",
}


@pytest.mark.parametrize("locale", ["fr", "en"])
def test_an_ask_and_a_roll_in_another_game_say_both_games(locale):
    with TableServer([oweens, ladder, seuil]) as server:
        gm = server.client("MJ", locale=locale)
        gm.set_sheet("Aengus", "oweens", {"pep": 2, "ecl": 3, "enc": 3, "fla": 4}, owner=None)
        with pytest.raises(SidecarError) as asked:
            gm.ask(["Aengus"], "seuil", {"threshold": 10, "level": 2})
        assert asked.value.code == "invalid_params"
        assert asked.value.message == SAID[(locale, "seuil")], asked.value.message
        with pytest.raises(SidecarError) as rolled:
            gm.roll("ladder", {"level": 2, "difficulty": 10}, character="Aengus")
        assert rolled.value.message == SAID[(locale, "ladder")], rolled.value.message


@pytest.mark.parametrize("locale", ["fr", "en"])
def test_a_sheet_of_another_game_for_a_name_taken_says_both_games(locale):
    """Making « Aengus » a ladder character while he plays O'Ween's named the games by
    their keys (« joue à oweens ; … personnage ladder »)."""
    with TableServer([oweens, ladder]) as server:
        gm = server.client("MJ", locale=locale)
        gm.set_sheet("Aengus", "oweens", {"pep": 2, "ecl": 3, "enc": 3, "fla": 4}, owner=None)
        with pytest.raises(SidecarError) as made:
            gm.set_sheet("Aengus", "ladder", {}, owner=None)
        assert made.value.code == "invalid_params"
        assert made.value.message == {
            "fr": "« Aengus » joue à « O'Ween's » : supprimez-le pour faire un personnage de "
                  "« L'échelle des dés » de ce nom",
            "en": "“Aengus” plays “O'Ween's”: remove it to make a “The dice ladder” character "
                  "of that name"}[locale], made.value.message
