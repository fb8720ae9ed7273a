"""Each seed's fight played from sheets on both sides against a real server, with no
number typed by hand but the physical dice (issue 26, contract §8): O'Ween's melee with
its wounds, a complex action against a character's reserve, Assommer / Renverser /
Immobiliser against the GM's NPC, Charger with the roller's own PEP, Surprendre's lock
on the target; the d6code duel of the seed; an attack on the boss example's boss. The
rules are quoted in docs/RULESETS.md; the seed's cooperative door is in
tests/test_asks_characters.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.helpers import Peer, run, running_server

ROOT = Path(__file__).resolve().parent.parent
MELEE = {"combat": {"attack": "melee"}}


async def table(server: Any, ruleset: str, sheets: dict[str, tuple[str | None, dict]]
                ) -> tuple[Peer, Peer, Peer]:
    """A GM, Alice and Bob at one table; ``sheets``: character → (owner seat, values)."""
    gm = await Peer.open(server)
    await gm.join("t", "MJ", "gm")
    tokens = {}
    for name in ("Alice", "Bob"):
        tokens[name] = (await gm.request({"type": "seat", "id": f"s{name}", "op": "add",
                                          "name": name}))["token"]
    for character, (owner, values) in sheets.items():
        made = await gm.request({"type": "sheet", "id": f"c{character}", "op": "set",
                                 "character": character, "ruleset": ruleset,
                                 "owner": owner, "values": values})
        assert made["type"] == "sheet", made
    alice, bob = await Peer.open(server), await Peer.open(server)
    await alice.join("t", "Alice", token=tokens["Alice"])
    await bob.join("t", "Bob", token=tokens["Bob"])
    return gm, alice, bob


async def values(gm: Peer, name: str) -> dict[str, Any]:
    listed = await gm.request({"type": "sheet", "id": "list", "op": "list"})
    return next(c for c in listed["characters"] if c["character"] == name)["values"]


def oweens_table() -> dict[str, tuple[str | None, dict]]:
    return {"Aengus": ("Alice", {"pep": 4, "ecl": 3, "enc": 3}),
            "Brady": ("Bob", {"pep": 3, "ecl": 2, "enc": 2}),
            "Gobelin": (None, {"pep": 1, "ecl": 2, "enc": 2})}


def test_the_melee_reads_the_targets_peps_and_puts_the_wounds_on_its_sheet():
    async def scenario():
        async with running_server(allow_player_dice=True) as server:
            gm, alice, bob = await table(server, "oweens", oweens_table())
            # « Le joueur fait un jet de Peps contre le Peps de l'adversaire »: Brady's 3.
            hit = await alice.roll("oweens", {"characteristic": "PEP"}, character="Aengus",
                                   targets=["Brady"], options=MELEE, dice=[6, 6, 4, 2])
            assert hit["type"] == "outcome", hit
            assert hit["result"]["difficulty"] == 3 and hit["result"]["wounds"] == 2
            assert hit["effects"] == {"Brady": {"blessures": 2}}
            assert "target_sheets" not in hit  # the roller learns nothing of Brady's sheet
            assert (await values(gm, "Brady"))["blessures"] == 2
            # A complex action against him drains his Éclate reserve (MR 3, 2 held).
            pushed = await alice.roll("oweens", {"characteristic": "ECL", "contest": True},
                                      character="Aengus", targets=["Brady"],
                                      dice=[6, 6, 4])
            assert pushed["effects"] == {"Brady": {"reserve_ecl": -2}}
            assert pushed.get("spent", {}) == {}
            now = await values(gm, "Brady")
            assert (now["reserve_ecl"], now["blessures"]) == (-2, 2)
            # His Peps reserve, once drained, is the next melee's difficulty.
            tired = await gm.request({"type": "sheet", "id": "tired", "op": "adjust",
                                      "character": "Brady", "delta": {"reserve_pep": -2},
                                      "reason": "essoufflé"})
            assert tired["values"]["reserve_pep"] == -2, tired
            again = await alice.roll("oweens", {"characteristic": "PEP"},
                                     character="Aengus", targets=["Brady"], options=MELEE,
                                     dice=[2, 2, 4, 3])
            assert again["result"]["difficulty"] == 1
    run(scenario())


def test_assommer_renverser_and_the_hold_read_the_npcs_sheet():
    async def scenario():
        async with running_server(allow_player_dice=True) as server:
            gm, alice, bob = await table(server, "oweens", oweens_table())
            out = await alice.roll("oweens", {"characteristic": "PEP"}, character="Aengus",
                                   targets=["Gobelin"], dice=[6, 6, 6], options={
                                       "combat": {"attack": "melee",
                                                  "options": ["assommer"]}})
            assert out["result"]["combat"]["knocked_out"] and not out.get("effects")
            down = await alice.roll("oweens", {"characteristic": "PEP"}, character="Aengus",
                                    targets=["Gobelin"], dice=[6, 6], options={
                                        "combat": {"attack": "melee",
                                                   "options": ["renverser"]}})
            assert down["result"]["combat"]["knocked_down"]
            assert down["effects"] == {"Gobelin": {"blessures": 1}}
            held = await alice.roll("oweens", {"characteristic": "ENC"}, character="Aengus",
                                    targets=["Gobelin"], dice=[4, 4, 2],
                                    options={"combat": {"hold": True}})
            assert held["result"]["difficulty"] == 2 and held["result"]["combat"]["held"]
            assert (await values(gm, "Gobelin"))["blessures"] == 1
    run(scenario())


def test_charger_adds_the_rollers_own_pep_and_surprendre_locks_the_target():
    async def scenario():
        async with running_server(allow_player_dice=True) as server:
            gm, alice, bob = await table(server, "oweens", oweens_table())
            charge = {"combat": {"attack": "melee", "options": ["charger"],
                                 "initiative": True, "room": True}}
            # « ajoutez votre PEP aux blessures de votre adversaire »: Brady's 3.
            hit = await bob.roll("oweens", {"characteristic": "PEP"}, character="Brady",
                                 targets=["Gobelin"], options=charge, dice=[6])
            assert hit["result"]["wounds"] == 1 + 3
            assert hit["effects"] == {"Gobelin": {"blessures": 4}}
            typed = await bob.roll("oweens", {"characteristic": "PEP"}, character="Brady",
                                   targets=["Gobelin"], dice=[6], options={
                                       "combat": {**charge["combat"], "attacker_pep": 9}})
            assert typed["code"] == "invalid_params"
            assert typed["details"]["param"] == "options.combat.attacker_pep"
            surprise = await alice.roll("oweens", {"characteristic": "PEP"},
                                        character="Aengus", targets=["Brady"], options={
                                            "combat": {"attack": "melee",
                                                       "options": ["surprendre"]}},
                                        dice=[6, 6, 6])
            assert surprise["result"]["surprise"]["over"] == "Brady"
            claim = await gm.request({"type": "initiative", "id": "i", "characters": [
                "Aengus", {"character": "Brady", "claim": True}]})
            assert claim["code"] == "invalid_params", claim
    run(scenario())


def test_the_d6code_duel_of_the_seed_from_both_sheets():
    async def scenario():
        async with running_server(allow_player_dice=True) as server:
            gm, alice, bob = await table(server, "d6code", {
                "Strengal": ("Alice", {"competences": {"CORPS À CORPS": "3D+5"}}),
                "Krull": ("Bob", {"competences": {"CORPS À CORPS": "4D+1"}})})
            # « 16 (11+5) et 14 (13+1). C'est donc Strengal qui sort vainqueur »
            duel = await alice.roll("d6code", {"skill": "CORPS À CORPS"},
                                    character="Strengal", targets=["Krull"],
                                    dice=[4, 4, 3, 4, 3, 3, 3])
            assert duel["type"] == "outcome", duel
            opposed = duel["result"]["opposed"]
            assert (duel["result"]["score"], opposed["score"], opposed["winner"]) == (
                16, 14, "roller")
    run(scenario())


def test_an_attack_on_the_boss_reads_its_armour_and_wounds_it(boss_host):
    async def scenario():
        async with running_server(boss_host, allow_player_dice=True) as server:
            gm, alice, bob = await table(server, "oweens", {
                "Aengus": ("Alice", {"pep": 4}),
                "Le Capitaine": (None, {"pep": 3, "armure": 1,
                                        "points_faibles": {"oeil": 3}})})
            blow = await alice.roll("oweens", {"characteristic": "PEP"}, character="Aengus",
                                    targets=["Le Capitaine"], options=MELEE,
                                    dice=[6, 6, 4, 2])
            assert blow["result"]["wounds"] == 1  # MR 2, armour 1
            assert blow["effects"] == {"Le Capitaine": {"blessures": 1}}
            eye = await alice.roll("oweens", {"characteristic": "PEP"}, character="Aengus",
                                   targets=["Le Capitaine"], dice=[6, 6, 4], options={
                                       "combat": {"attack": "melee", "options": ["viser"],
                                                  "zone": "oeil"}})
            assert eye["effects"] == {"Le Capitaine": {"blessures": 5}}
            assert (await values(gm, "Le Capitaine"))["blessures"] == 6
    run(scenario())


def test_bloodlust_has_no_automatic_success_against_a_character():
    async def scenario():
        async with running_server(allow_player_dice=True) as server:
            gm, alice, bob = await table(server, "bloodlust", {
                "Vlad": ("Alice", {}), "Chasseur": (None, {})})
            # « jamais en combat ou autre situation tendue »
            tense = await alice.roll("bloodlust", {"pool": 6, "difficulty": 4,
                                                   "automatic": True}, character="Vlad",
                                     targets=["Chasseur"])
            assert tense["code"] == "invalid_params" and tense["details"]["param"] == \
                "automatic"
            alone = await alice.roll("bloodlust", {"pool": 6, "difficulty": 4,
                                                   "automatic": True}, character="Vlad")
            assert alone["type"] == "outcome" and alone["result"]["automatic"]
    run(scenario())


def test_two_against_one_as_a_cooperative_ask_wounds_only_the_enemy():
    # « Combat à un contre plusieurs : chaque combattant gagne une augmentation gratuite
    # par personne qui l'aide »: the ask counts the collaborator, and each side's answer,
    # aimed at the Gobelin and at its ally, wounds the Gobelin only.
    async def scenario():
        async with running_server(allow_player_dice=True) as server:
            gm, alice, bob = await table(server, "oweens", oweens_table())
            ask = await gm.request({"type": "ask", "id": "two", "op": "open",
                                    "to": ["Aengus", "Brady"], "ruleset": "oweens",
                                    "cooperative": True, "targets": ["Gobelin"],
                                    "params": {"characteristic": "PEP"}, "options": MELEE})
            assert ask["params"]["collaborators"] == 1, ask
            first = await alice.roll("oweens", {}, answers=ask["ask"], dice=[6, 4, 2, 2])
            assert first["result"]["difficulty"] == 1, first
            assert first["effects"] == {"Gobelin": {"blessures": 2}}
            second = await bob.roll("oweens", {}, answers=ask["ask"], dice=[4, 4, 1])
            assert second["effects"] == {"Gobelin": {"blessures": 1}}
            assert (await values(gm, "Gobelin"))["blessures"] == 3
            assert (await values(gm, "Aengus"))["blessures"] == 0
            assert (await values(gm, "Brady"))["blessures"] == 0
            # Without a target of its own the ask's sides are aimed at each other only:
            # allies, never wounded (the enemy's Peps typed, an NPC without a sheet).
            blind = await gm.request({"type": "ask", "id": "npc", "op": "open",
                                      "to": ["Aengus", "Brady"], "ruleset": "oweens",
                                      "cooperative": True,
                                      "params": {"characteristic": "PEP"}, "options": {
                                          "combat": {"attack": "melee", "opponent_pep": 1}}})
            hit = await alice.roll("oweens", {}, answers=blind["ask"], dice=[6, 4, 2, 2])
            assert hit["result"]["margin"] == 2 and not hit.get("effects"), hit
            assert (await values(gm, "Brady"))["blessures"] == 0
    run(scenario())
