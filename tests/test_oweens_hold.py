"""Immobiliser's hold (fighter report item 8): « Si la cible se débat, faites à chaque
tour un jet d'ENC contre l'ECL de la cible. Si le jet est raté, la cible se libère. »
(seed 000). The difficulty is the target's ECL — its reserve, as any resistance (« la
valeur de la réserve remplace la caractéristique ») — never its ENC, and the note says
the difficulty the dice were judged against."""

from __future__ import annotations

from tests.helpers import run, running_server
from tests.target_helpers import roll_at
from tests.test_fights_live import table, values

HOLD = {"combat": {"hold": True}}
#: An ogre strong in ENC whose ECL reserve is drained to 0 (the fighter's Ogre).
OGRE = {"pep": 2, "ecl": 1, "enc": 3, "reserve_ecl": -1}


def test_the_hold_is_enc_against_the_targets_ecl_reserve_in_process():
    done = roll_at("oweens", {"characteristic": "ENC"}, {"enc": 3}, {"Ogre": OGRE},
                   [4, 4, 2], options=HOLD)
    result = done.outcome.result
    assert result["difficulty"] == 0  # its ECL reserve, not its ENC 3
    assert result["combat"]["held"]
    assert any("contre ECL 0" in note["fr"] for note in done.outcome.notes
               if isinstance(note, dict)), done.outcome.notes
    fresh = roll_at("oweens", {"characteristic": "ENC"}, {"enc": 3},
                    {"Ogre": {**OGRE, "reserve_ecl": 0}}, [4, 4, 2], options=HOLD)
    assert fresh.outcome.result["difficulty"] == 1
    assert any("contre ECL 1" in note["fr"] for note in fresh.outcome.notes
               if isinstance(note, dict)), fresh.outcome.notes


def test_another_resistance_is_refused_for_a_hold():
    done = None
    try:
        done = roll_at("oweens", {"characteristic": "ENC", "resistance": "ENC"}, {"enc": 3},
                       {"Ogre": OGRE}, [4, 4, 2], options=HOLD)
    except Exception as error:  # (the pipeline raises the refusal)
        assert getattr(error, "code", None) == "invalid_params", error
    assert done is None


def test_the_hold_against_a_real_servers_npc_reads_its_ecl():
    async def scenario():
        async with running_server(allow_player_dice=True) as server:
            gm, alice, bob = await table(server, "oweens", {
                "Brady": ("Bob", {"pep": 3, "ecl": 2, "enc": 3}), "Ogre": (None, OGRE)})
            held = await bob.roll("oweens", {"characteristic": "ENC"}, character="Brady",
                                  targets=["Ogre"], dice=[4, 2, 1], options=HOLD)
            assert held["type"] == "outcome", held
            # « 3D contre 0 », as the note says: its ECL reserve, not its ENC 3.
            assert held["result"]["difficulty"] == 0 and held["result"]["combat"]["held"]
            assert any("contre ECL 0" in note for note in held["notes"]), held["notes"]
            assert "contre 0" in held["text"], held["text"]
            assert not held.get("effects")  # a hold counts no wound
            assert (await values(gm, "Ogre"))["blessures"] == 0
    run(scenario())
