"""d6code SurCompétence in series (issue 26, audit item 4): « Un doublement des jets … sur
trois actions successives de courte durée … utilisant la même Compétence ». One point
doubles three successive actions of one skill: another skill, or an action that is not
the series', ends it; the next ``serie`` roll then needs a new point."""

from __future__ import annotations

import pytest

from sidecar.client import SidecarError
from sidecar.protocol.errors import ProtocolError
from sidecar.testing import TableServer
from tests.sheet_helpers import after, new_sheet, roll_as

SKILLS = {"CORPS À CORPS": "3D+5", "PILOTAGE": "4D+3", "ARMES BLANCHES": "2D+1"}


def strengal(**values):
    # Seed 003: « Strengal possède 3D+5 en CORPS À CORPS », « 4D+3 en PILOTAGE », « 2D+1
    # en ARMES BLANCHES ».
    return new_sheet("d6code", **{"competences": SKILLS, "points_style": 0,
                                  "points_surcompetence": 1, **values})


class Player:
    """Strengal's rolls one after the other, the sheet and the table's state carried."""

    def __init__(self, **values):
        self.sheet, self.state = strengal(**values), None

    def roll(self, skill, faces, **params):
        rolled = roll_as("d6code", {"skill": skill, "difficulty": 10, **params}, self.sheet,
                         faces, state=self.state)
        self.sheet = after(self.sheet, rolled.outcome.spend, "d6code")
        self.state = rolled.state
        return rolled


def test_a_series_in_one_skill_does_not_double_another():
    strengal = Player()
    first = strengal.roll("PILOTAGE", [4, 4, 4, 4], surcompetence="serie")
    assert first.outcome.result["score"] == 38  # (16 + 3) × 2
    assert (strengal.sheet["points_surcompetence"], strengal.sheet["sc_serie"]) == (0, 2)
    # ARMES BLANCHES is not the series' skill: its own series needs a new point, refused
    # before the dice (no face given: a roll going on to its dice would be bad_dice).
    with pytest.raises(ProtocolError) as refused:
        strengal.roll("ARMES BLANCHES", [], surcompetence="serie")
    assert refused.value.code == "insufficient"
    assert refused.value.details["field"] == "points_surcompetence"
    # Given a point, it starts its own series: 1 SC, two more ARMES BLANCHES actions.
    strengal.sheet["points_surcompetence"] = 1
    own = strengal.roll("ARMES BLANCHES", [4, 4], surcompetence="serie")
    assert own.outcome.spend == {"points_surcompetence": 1}  # (sc_serie stays 2)
    assert strengal.roll("ARMES BLANCHES", [4, 4], surcompetence="serie").outcome.spend == {
        "sc_serie": 1}


def test_actions_between_end_the_series():
    strengal = Player()
    strengal.roll("PILOTAGE", [4, 4, 4, 4], surcompetence="serie")
    for _ in range(2):  # two actions that are not the series'
        strengal.roll("PILOTAGE", [4, 4, 4, 4])
    assert strengal.sheet["sc_serie"] == 0  # « trois actions successives »
    with pytest.raises(ProtocolError) as refused:
        strengal.roll("PILOTAGE", [], surcompetence="serie")
    assert refused.value.code == "insufficient"


def test_three_successive_actions_of_one_skill_are_one_point():
    strengal = Player()
    for spend in ({"points_surcompetence": 1, "sc_serie": -2}, {"sc_serie": 1},
                  {"sc_serie": 1}):
        rolled = strengal.roll("pilotage", [4, 4, 4, 4], surcompetence="serie")
        assert rolled.outcome.spend == spend and rolled.outcome.result["score"] == 38


def test_on_a_server_a_series_doubles_only_its_own_skill_in_a_row():
    with TableServer() as server:
        gm = server.client()
        gm.set_sheet("Strengal", "d6code", {"competences": SKILLS, "points_style": 0,
                                            "points_surcompetence": 1}, owner=None)

        def roll(skill, faces, **params):
            return gm.roll("d6code", {"skill": skill, "difficulty": 10, **params},
                           character="Strengal", dice=faces, mode="gm")
        assert roll("PILOTAGE", [4, 4, 4, 4], surcompetence="serie")["result"]["score"] == 38
        with pytest.raises(SidecarError) as refused:
            roll("ARMES BLANCHES", [4, 4], surcompetence="serie")
        assert refused.value.code == "insufficient"
        roll("PILOTAGE", [4, 4, 4, 4])
        (sheet,) = gm.sheets()
        assert sheet["values"]["sc_serie"] == 0
        with pytest.raises(SidecarError) as again:
            roll("PILOTAGE", [4, 4, 4, 4], surcompetence="serie")
        assert again.value.code == "insufficient"
