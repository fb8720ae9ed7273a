"""An O'Ween's combat roll's line (issue 29, the newcomer's replay): the verdict's cry
ends the line (« MR 3, blessures 3 : Coup d'éclat ! », never « Coup d'éclat !, blessures »),
wounds are counted only by an attack (a roll with the combat extension on and nothing it
attacks — no attack type, option, target nor opponent — wounds no one: seed 000's wounds
are « les blessures de votre adversaire »), and a melee's difficulty says whose Peps it is
as an opposed roll's does (« 2D contre 3 (Peps de Garde) »). A real server."""

from __future__ import annotations

from sidecar.rulesets import oweens
from sidecar.testing import TableServer


def test_combat_without_an_attack_counts_no_wound_and_ends_on_the_cry():
    with TableServer([oweens]) as server:
        gm = server.client("MJ")
        plain = gm.roll("oweens", {"dice": 2}, options={"combat": {}}, dice=[5, 6])
        assert plain["result"].get("wounds") is None, plain["result"]
        assert "blessures" not in plain["text"], plain["text"]
        assert plain["text"].endswith(" : Coup d'éclat !"), plain["text"]


def test_an_attacks_wounds_come_before_the_cry():
    with TableServer([oweens]) as server:
        gm = server.client("MJ")
        blow = gm.roll("oweens", {"dice": 2},
                       options={"combat": {"attack": "melee", "opponent_pep": 1}},
                       dice=[6, 6])
        assert blow["result"]["wounds"] == 3, blow["result"]
        assert "!," not in blow["text"], blow["text"]
        assert blow["text"].endswith(", MR 3, blessures 3 : Coup d'éclat !"), blow["text"]
        assert "2D contre 1 (Peps de l'adversaire) : " in blow["text"], blow["text"]


def test_a_melee_attacks_difficulty_says_whose_peps_it_is():
    with TableServer([oweens]) as server:
        gm = server.client("MJ")
        english = server.client("Watcher", role="observer", locale="en")
        gm.add_seat("Léa")
        gm.set_sheet("Aengus", "oweens", {"pep": 2, "ecl": 3, "enc": 3, "fla": 4},
                     owner="Léa")
        gm.set_sheet("Garde", "oweens", {"pep": 3, "ecl": 2, "enc": 2, "fla": 2}, owner=None)
        hit = gm.roll("oweens", {"characteristic": "PEP"}, character="Aengus",
                      targets=["Garde"], options={"combat": {"attack": "melee"}}, dice=[4, 4])
        assert hit["result"]["difficulty"] == 3, hit["result"]
        assert hit["text"].startswith("Aengus — 2D contre 3 (Peps de Garde) : "), hit["text"]
        while True:
            seen = english.next_event()
            if seen.get("roll") == hit["roll"]:
                break
        assert seen["text"].startswith("Aengus — 2D vs 3 (Garde's Peps): "), seen["text"]
