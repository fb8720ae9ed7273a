"""Seuil as a character names what it rolls as the sheet has it (issue 29 follow-up): the
seed's message lists the skills « (indiqués pour information, ainsi que leur(s)
niveau(x)) », so ``skills=Escalade`` on Mira (``competences {Escalade: 5}``) is
« Escalade 5 », and ``characteristic=physique`` is « Physique » as the sheet spells it
(d6code prints « PILOTAGE » so). The roll message is ``{fr, en}`` like every other text
of the result, one language per reader. A real server, a French and an English reader."""

from __future__ import annotations

import pytest

from sidecar.rulesets import seuil
from sidecar.testing import TableServer

ASKED = {"characteristic": "physique", "skills": ["Escalade"], "action": "Grimper",
         "threshold": "Moyen"}


def received(client, roll_id):
    """The outcome ``client`` receives for ``roll_id`` (other events skipped)."""
    while True:
        event = client.next_event()
        if event.get("type") == "outcome" and event.get("roll") == roll_id:
            return event


@pytest.fixture(scope="module")
def table():
    with TableServer([seuil]) as server:
        gm = server.client("MJ")
        gm.set_sheet("Mira", "seuil", {"caracteristiques": {"Physique": 3},
                                       "competences": {"Escalade": 5}}, owner=None)
        french = server.client("Regard", role="observer", locale="fr")
        english = server.client("Watcher", role="observer", locale="en")
        yield gm, french, english


def test_a_skill_named_as_a_character_shows_its_level_and_the_sheets_spelling(table):
    gm, french, english = table
    rolled = gm.roll("seuil", ASKED, character="Mira", dice=[5, 5, 5])
    fr = received(french, rolled["roll"])
    en = received(english, rolled["roll"])
    assert fr["text"] == ("Mira — Grimper (Physique, Escalade 5) : 3D10 → 15 contre le "
                          "seuil 22 → Échec"), fr["text"]
    assert en["text"] == ("Mira — Grimper (Physique, Escalade 5): 3D10 → 15 vs threshold "
                          "22 → Failure"), en["text"]
    message = fr["result"]["message"]
    assert set(message) == {"fr", "en"}, message
    assert "Caractéristique utilisée : Physique (niveau 3)" in message["fr"].splitlines()
    assert ("Compétences et bonus/malus : Escalade 5 (Compagnon)"
            in message["fr"].splitlines()), message["fr"]
    assert "Characteristic used: Physique (level 3)" in message["en"].splitlines()
    assert "Skills and bonuses: Escalade 5 (Journeyman)" in message["en"].splitlines()
    assert "Score: 15 → Failure" in message["en"].splitlines(), message["en"]
    assert not any(" :" in line for line in message["en"].splitlines()), message["en"]


def test_a_skill_not_on_the_sheet_or_with_its_level_stays_as_typed(table):
    gm, french, _ = table
    rolled = gm.roll("seuil", {**ASKED, "skills": ["Escalade 7", "Nage"]}, character="Mira",
                     dice=[5, 5, 5])
    text = received(french, rolled["roll"])["text"]
    assert "(Physique, Escalade 7, Nage)" in text, text
