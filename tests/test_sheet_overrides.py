"""A player rolling as a character may not replace what the character's sheet supplies
(issue 29, trust): O'Ween's ``dice`` (the characteristic's reserve) and d6code's ``code``
(the skill's) typed by a player with another value are ``forbidden`` before any die and
journal nothing; the sheet's own value is accepted; a GM keeps the override (NPCs,
situations). Odds stay free. Played on a real server."""

from __future__ import annotations

import subprocess
import sys

import pytest

import sidecar.rulesets.oweens
import sidecar.rulesets.sheets
from tests.helpers import Peer, run, running_server


async def _table(server, ruleset: str, values: dict) -> tuple[Peer, Peer]:
    gm = await Peer.open(server)
    await gm.join("pub", "MJ", "gm")
    seat = await gm.request({"type": "seat", "id": "seat", "op": "add", "name": "Léa"})
    player = await Peer.open(server)
    await player.join("pub", "Léa", token=seat["token"])
    made = await gm.request({"type": "sheet", "id": "set", "op": "set", "character": "Aengus",
                             "ruleset": ruleset, "owner": "Léa", "values": values,
                             "reason": "création"})
    assert made["type"] == "sheet", made
    await gm.unseen(), await player.unseen()
    return gm, player


async def _refused(gm: Peer, player: Peer, ruleset: str, params: dict, field: str) -> dict:
    refused = await player.roll(ruleset, params, character="Aengus")
    assert refused["type"] == "error" and refused["code"] == "forbidden", refused
    assert refused["details"]["field"] == field, refused
    assert await gm.unseen() == []  # nothing journaled, nothing shown
    return refused


def test_a_players_oweens_dice_other_than_the_reserve_are_forbidden():
    async def scenario():
        async with running_server() as server:
            gm, player = await _table(server, "oweens", {"enc": 3})
            refused = await _refused(gm, player, "oweens", {"characteristic": "ENC",
                                                            "difficulty": 2, "dice": 9},
                                     "dice")
            assert refused["message"].startswith(
                "« Dés » vient de la fiche d'Aengus (3) : seul le MJ peut le changer"), refused
            # Without a characteristic, typed dice would bypass the sheet all the same.
            await _refused(gm, player, "oweens", {"difficulty": 2, "dice": 9}, "dice")
            same = await player.roll("oweens", {"characteristic": "ENC", "difficulty": 2,
                                                "dice": 3}, character="Aengus")
            assert same["type"] == "outcome" and same["result"]["dice_count"] == 3, same
            await player.request({"type": "react", "id": "k", "roll": same["roll"],
                                  "choice": "keep"})
            odds = await player.request({"type": "odds", "id": "o", "ruleset": "oweens",
                                         "character": "Aengus",
                                         "params": {"characteristic": "ENC", "difficulty": 2,
                                                    "dice": 9}})
            assert odds["type"] == "odds", odds  # odds are harmless: free
            gm_roll = await gm.roll("oweens", {"characteristic": "ENC", "difficulty": 2,
                                               "dice": 9}, character="Aengus")
            assert gm_roll["type"] == "outcome" and gm_roll["result"]["dice_count"] == 9
    run(scenario())


def test_a_players_d6code_code_other_than_the_skills_is_forbidden():
    async def scenario():
        async with running_server() as server:
            gm, player = await _table(server, "d6code",
                                      {"competences": {"PILOTAGE": "3D+1"}})
            await _refused(gm, player, "d6code", {"skill": "PILOTAGE", "code": "9D",
                                                  "difficulty": 15}, "code")
            await _refused(gm, player, "d6code", {"code": "9D", "difficulty": 15}, "code")
            same = await player.roll("d6code", {"skill": "PILOTAGE", "code": "3D+1",
                                                "difficulty": 15}, character="Aengus")
            assert same["type"] == "outcome", same
            if same.get("choices"):  # (one open roll per character: decided first)
                await player.request({"type": "react", "id": "k", "roll": same["roll"],
                                      "choice": same["default"]})
            gm_roll = await gm.roll("d6code", {"skill": "PILOTAGE", "code": "9D",
                                               "difficulty": 15}, character="Aengus")
            assert gm_roll["type"] == "outcome" and gm_roll["result"]["code"] == "9D", gm_roll
    run(scenario())


def _journal_with_an_override(tmp_path, monkeypatch, version: str | None):
    """An export of a table where a player typed 9 dice for Aengus (the sheet: 3), on a
    server that let it through, its epoch recording oweens at ``version`` (``None``: the
    installed one)."""
    db = str(tmp_path / "journal.db")

    async def scenario():
        async with running_server(db=db, dice="provable") as server:
            gm, player = await _table(server, "oweens", {"enc": 3})
            old = await player.roll("oweens", {"characteristic": "ENC", "difficulty": 2,
                                               "dice": 9}, character="Aengus")
            assert old["type"] == "outcome" and old["result"]["dice_count"] == 9, old
            await gm.request({"type": "epoch", "op": "end", "id": "e1"})

    with monkeypatch.context() as old_server:  # (the rule as it was: any typed value wins)
        old_server.setattr(sidecar.rulesets.sheets, "sheet_override_allowed", lambda roll: True)
        if version is not None:
            old_server.setattr(sidecar.rulesets.oweens, "__version__", version)
        run(scenario())
    out = tmp_path / "export.jsonl"
    subprocess.run([sys.executable, "-m", "sidecar", "export", "--table", "pub", "--db", db,
                    "--output", str(out)], check=True, capture_output=True, timeout=60)
    return out


def _verify(out, locale: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sidecar", "verify", "--locale", locale,
                           str(out)], capture_output=True, text=True, timeout=120)


def test_verify_takes_an_old_journals_player_override_as_its_word(tmp_path, monkeypatch):
    """A journal written before the rule (oweens 1.0, a server that let a player type 9
    dice) still verifies: the re-run takes what the journal accepted then."""
    out = _journal_with_an_override(tmp_path, monkeypatch, "1.0")
    done = _verify(out, "en")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 roll checked" in done.stdout or "1 rolls checked" in done.stdout, done.stdout


def test_verify_fails_a_player_override_journaled_under_the_rule(tmp_path, monkeypatch):
    """Under oweens 1.1 (the rule came with it; the epoch records the version its rolls
    were resolved by) a player's roll typing another value than the sheet's is no
    journal's word: the server should have refused it, and verify says so, in each
    language."""
    out = _journal_with_an_override(tmp_path, monkeypatch, None)
    for locale, wanted in (("en", "a player may not type what the sheet supplies"),
                           ("fr", "un joueur ne peut pas saisir ce que la fiche donne")):
        done = _verify(out, locale)
        assert done.returncode != 0, done.stdout + done.stderr
        assert wanted in done.stdout + done.stderr, done.stdout + done.stderr
        assert "oweens 1.1" in done.stdout + done.stderr


@pytest.mark.parametrize(("ruleset", "values", "params", "field", "own", "other"), [
    ("bloodlust", {"groupements": {"Mêlée": 3}}, {"skill": "Mêlée"}, "pool", 3, 8),
    ("ladder", {"caracteristiques": {"geste": 3}},
     {"characteristic": "geste", "difficulty": 2}, "level", 3, 5),
    ("seuil", {"caracteristiques": {"Force": 4}},
     {"characteristic": "Force", "threshold": 10}, "level", 4, 1),
])
def test_the_other_rulesets_sheet_params_follow_the_same_rule(ruleset, values, params,
                                                              field, own, other):
    async def scenario():
        async with running_server() as server:
            gm, player = await _table(server, ruleset, values)
            await _refused(gm, player, ruleset, {**params, field: other}, field)
            unpicked = {k: v for k, v in params.items() if k not in ("skill", "characteristic")}
            await _refused(gm, player, ruleset, {**unpicked, field: other}, field)
            same = await player.roll(ruleset, {**params, field: own}, character="Aengus")
            assert same["type"] == "outcome", same
            if same.get("choices"):  # (one open roll per character: decided first)
                await player.request({"type": "react", "id": "k", "roll": same["roll"],
                                      "choice": same["default"]})
            gm_roll = await gm.roll(ruleset, {**params, field: other}, character="Aengus")
            assert gm_roll["type"] == "outcome", gm_roll
    run(scenario())


def test_dice_paid_to_a_combat_option_are_no_override():
    """Viser paid in dice lowers ``dice`` in the extension (before the ruleset reads it):
    the player typed nothing, and typing the reserve stays the sheet's value."""
    async def scenario():
        async with running_server() as server:
            gm, player = await _table(server, "oweens", {"pep": 3})
            options = {"combat": {"attack": "melee", "opponent_pep": 2, "options": ["viser"],
                                  "pay": "dice"}}
            for rid, params in (("a", {"characteristic": "PEP"}),
                                ("b", {"characteristic": "PEP", "dice": 3})):
                paid = await player.roll("oweens", params, character="Aengus", options=options,
                                         id=rid)
                assert paid["type"] == "outcome" and paid["result"]["dice_count"] == 2, paid
                await player.request({"type": "react", "id": f"k{rid}", "roll": paid["roll"],
                                      "choice": "keep"})
    run(scenario())


def test_a_sheet_left_blank_supplies_nothing_to_refuse():
    async def scenario():
        async with running_server() as server:
            gm, player = await _table(server, "bloodlust", {})  # no groupement
            rolled = await player.roll("bloodlust", {"pool": 6}, character="Aengus")
            assert rolled["type"] == "outcome" and rolled["result"]["pool"] == 6, rolled
    run(scenario())


def test_a_players_ladder_chance_other_than_the_sheets_is_forbidden():
    """The ladder's ``chance`` (the sheet's Chance, which decides whether a reroll or a
    sacrifice is offered or allowed) follows the rule too: a player typing another value
    is refused before any die; the sheet's own value passes; a GM keeps the override."""
    async def scenario():
        async with running_server() as server:
            values = {"caracteristiques": {"geste": 3}, "chance": 1}
            gm, player = await _table(server, "ladder", values)
            params = {"characteristic": "geste", "difficulty": 2}
            refused = await _refused(gm, player, "ladder", {**params, "chance": 5}, "chance")
            assert refused["message"].startswith(
                "« Chance actuelle » vient de la fiche d'Aengus (1) : seul le MJ peut le "
                "changer"), refused
            # A standing reroll a Chance of 1 does not allow, typed as if the sheet had 5.
            await _refused(gm, player, "ladder", {**params, "chance": 5, "reroll": True},
                           "chance")
            same = await player.roll("ladder", {**params, "chance": 1}, character="Aengus")
            assert same["type"] == "outcome", same
            if same.get("choices"):  # (one open roll per character: decided first)
                await gm.request({"type": "react", "id": "k", "roll": same["roll"],
                                  "choice": same["default"]})
            gm_roll = await gm.roll("ladder", {**params, "chance": 5}, character="Aengus")
            assert gm_roll["type"] == "outcome", gm_roll
    run(scenario())
