"""Texts in one language each (issue 29, items 1, 2 and 4 of the texts' leftovers): the
heading of an English text is English (« MJ — Climb: », no French space before the
colon), the ladder's tiers have English names in English texts, and a GM's roll as a
character names the character as its player's roll does (``by`` stays the GM: contract
§7). Each text as a French and an English member receive it from a real server."""

from __future__ import annotations

import re

import pytest

from sidecar.rulesets import bloodlust, d6code, dice, ladder, oweens, seuil
from sidecar.testing import TableServer

#: A roll of each built-in game, labelled « Escalade », with the dice a hand gave.
ROLLS = [
    ("dice", {"expr": "2d6"}, [3, 4]),
    ("oweens", {"dice": 3, "difficulty": 2}, [6, 5, 1]),
    ("ladder", {"level": 6, "difficulty": 5}, [3, 7]),
    ("d6code", {"code": "3D", "difficulty": 10}, [5, 5, 1]),
    ("d6code", {"code": "3D", "difficulty": 10}, [6, 6, 1]),
    ("d6code", {"code": "3D+2", "difficulty": 10, "style": "extreme"}, None),  # SP regained
    ("bloodlust", {"pool": 4, "difficulty": 6}, [7, 8, 1, 3]),
    ("seuil", {"level": 3, "threshold": 10}, None),
]
#: What French writes and English does not: a space before a colon or a semicolon.
FRENCH_SPACE = re.compile(r"\s[:;!?]")


@pytest.fixture(scope="module")
def table():
    with TableServer([bloodlust, d6code, dice, ladder, oweens, seuil]) as server:
        gm = server.client("MJ")
        english = server.client("Watcher", role="observer", locale="en")
        french = server.client("Regard", role="observer", locale="fr")
        yield server, gm, french, english


def received(client, roll_id):
    """The outcome ``client`` receives for ``roll_id`` (other events skipped)."""
    while True:
        event = client.next_event()
        if event.get("type") == "outcome" and event.get("roll") == roll_id:
            return event


@pytest.mark.parametrize("ruleset,params,faces", ROLLS)
def test_an_english_heading_has_an_english_colon(table, ruleset, params, faces):
    _, gm, french, english = table
    rolled = gm.roll(ruleset, params, label="Escalade", dice=faces)
    fr, en = received(french, rolled["roll"])["text"], received(english, rolled["roll"])["text"]
    assert fr.startswith("MJ — Escalade : "), fr
    assert en.startswith("MJ — Escalade: "), en
    assert not FRENCH_SPACE.search(en), en


def test_the_ladders_tiers_are_english_in_english_texts(table):
    _, gm, french, english = table
    seen = {}
    for level in (0, 1, 4, 7, 10):
        rolled = gm.roll("ladder", {"level": level, "difficulty": 3})
        seen[level] = (received(french, rolled["roll"])["text"],
                       received(english, rolled["roll"])["text"])
    assert [re.search(r"\((\w+)\)", fr).group(1) for fr, _ in seen.values()] == [
        "Incapacité", "Débutant", "Initié", "Expert", "Maître"]
    assert [re.search(r"\((\w+)\)", en).group(1) for _, en in seen.values()] == [
        "Incapable", "Beginner", "Initiate", "Expert", "Master"]


def test_a_gms_roll_as_a_character_names_the_character_as_its_players_does(table):
    server, gm, french, english = table
    token = gm.add_seat("Aengus")["token"]
    gm.set_sheet("Aengus", "ladder", {"caracteristiques": {"geste": 3}, "chance": 0},
                 owner="Aengus")
    player = server.client("Aengus", role="player", token=token)
    params = {"characteristic": "geste", "difficulty": 2, "reroll": False}
    by_player = player.roll("ladder", params, label="Escalade", character="Aengus")
    by_gm = gm.roll("ladder", params, label="Escalade", character="Aengus")
    for copy in (received(french, by_player["roll"]), received(french, by_gm["roll"])):
        assert copy["text"].startswith("Aengus — Escalade : niveau 3"), copy["text"]
    english_copy = received(english, by_gm["roll"])
    assert english_copy["text"].startswith("Aengus — Escalade: level 3"), english_copy["text"]
    # The wire's `by` is still who rolled (contract §7): only the words name the character.
    assert by_gm["by"]["name"] == "MJ" and by_gm["character"] == "Aengus"
    assert by_player["by"]["name"] == "Aengus"


def test_a_blind_roll_as_a_character_names_it_in_its_rollers_one_language(table):
    server, gm, _, _ = table
    # Its seat is named otherwise: the text names the character, not the seat.
    token = gm.add_seat("Bea")["token"]
    gm.set_sheet("Ervald", "ladder", {"caracteristiques": {"geste": 3}, "chance": 0},
                 owner="Bea")
    player = server.client("Bea", role="player", token=token, locale="en")
    params = {"characteristic": "geste", "difficulty": 2, "reroll": False}
    hidden = player.roll("ladder", params, label="Climb", mode="blind", character="Ervald")
    assert hidden["result"] == {"hidden": True}
    assert hidden["text"] == "Ervald — Climb: blind roll, result hidden", hidden["text"]


def test_the_boss_examples_notes_are_in_each_members_language(boss_host):
    """An extension's notes (the boss example's armour and weak point) reach a French and
    an English member each in their own language."""
    from tests.helpers import peers, run, running_server

    async def scenario():
        async with running_server(boss_host) as server, peers(server, 2) as (gm, watcher):
            await gm.join(role="gm", name="MJ")
            await watcher.join(role="observer", name="Watcher", locale="en")
            notes = {}
            for options in ({"armor": 2}, {"weak_points": {"tête": 1}, "aim": "tête"}):
                rolled = await gm.roll("oweens", {"dice": 3, "difficulty": 1}, dice=[6, 6, 5],
                                       options={"boss": options})
                seen = await watcher.recv_type("outcome")
                assert seen["seq"] == rolled["seq"]
                notes[len(notes)] = (rolled["notes"], seen["notes"])
            return notes

    notes = run(scenario())
    (armour_fr, armour_en), (weak_fr, weak_en) = notes[0], notes[1]
    assert any(n.startswith("Armure du boss 2 : ") for n in armour_fr), armour_fr
    assert any(n.startswith("Boss armour 2: ") for n in armour_en), armour_en
    assert any(n.startswith("Point faible « tête » touché : ") for n in weak_fr), weak_fr
    assert any(n.startswith("Weak point 'tête' hit: ") for n in weak_en), weak_en
    for note in armour_en + weak_en:
        assert not FRENCH_SPACE.search(note) and "blessure" not in note, note
