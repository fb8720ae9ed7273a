"""The built-in plugins' French, as a French member of a real server reads it (issue 29,
item 4's newcomer findings): counts agree (« 1A achetée », « 2A achetées », never
« achetée(s) »), no English inside French (Seuil's « Bonus/malus fixe »), accents where
French has them (d6code's « série »)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from sidecar.protocol.text import localized
from tests.helpers import GM_TOKEN, Peer, run, running_server

PLUGINS = Path(__file__).resolve().parents[1] / "plugins"


async def bought_after(peer: Peer, faces: list[int], choice: str) -> dict[str, Any]:
    """An O'Ween's roll whose augmentations are bought after the dice; the decision's
    outcome."""
    opened = await peer.roll("oweens", {"dice": len(faces), "difficulty": 5, "buy_after": True},
                             dice=faces)
    assert opened.get("open") is True, opened
    assert choice in [offer["name"] for offer in opened["choices"]], opened["choices"]
    decided = await peer.request({"type": "react", "id": f"buy-{choice}",
                                  "roll": opened["roll"], "choice": choice})
    assert decided["type"] == "outcome", decided
    return decided


def test_augmentations_bought_after_the_dice_agree_with_their_count() -> None:
    async def scenario() -> None:
        async with running_server() as server:
            gm = await Peer.open(server)
            await gm.join("accords", "MJ", "gm", GM_TOKEN)
            one = await bought_after(gm, [3, 3, 3, 3], "buy_1")
            two = await bought_after(gm, [3, 3, 3, 3], "buy_2")
            assert one["notes"][0].startswith("1A achetée après les dés pour "), one["notes"]
            assert two["notes"][0].startswith("2A achetées après les dés pour "), two["notes"]
            for note in one["notes"] + two["notes"]:
                assert "(s)" not in note, note
    run(scenario())


def test_seuil_and_d6code_speak_french_with_its_accents() -> None:
    async def scenario() -> None:
        async with running_server() as server:
            gm = await Peer.open(server)
            welcome = await gm.join("mots", "MJ", "gm", GM_TOKEN)
            rolled = await gm.roll("seuil", {"level": 3, "flat": 6, "threshold": 22},
                                   dice=[4, 7, 9])
            assert rolled["type"] == "outcome", rolled
            assert "Bonus/malus fixe : +6" in rolled["result"]["message"]["fr"].splitlines()
            rulesets = {item["name"]: item for item in welcome["rulesets"]}
            seuil = localized(rulesets["seuil"]["params"]["flat"]["description"], "fr")
            assert "flat" not in seuil, seuil
            surcompetence = rulesets["d6code"]["params"]["surcompetence"]
            described = localized(surcompetence["description"], "fr")
            assert "(série : " in described and "serie" not in described, described
            assert localized(surcompetence["choice_labels"]["serie"], "fr") == "série"
            # A choice's value is a key; people read its label, with its accent.
            for ruleset, param, choice, shown in [("d6code", "style", "extreme", "extrême"),
                                                  ("d6code", "style_if_needed", "extreme",
                                                   "extrême"),
                                                  ("oweens", "emotion_bonbonus", "fierte",
                                                   "Fierté")]:
                spec = rulesets[ruleset]["params"][param]
                assert localized(spec.get("choice_labels", {}).get(choice), "fr") == shown, spec
    run(scenario())


def test_no_builtin_plugin_writes_a_plural_in_parentheses() -> None:
    """« point(s) gardé(s) », « volée(s) », « dé(s) »: the count is known when the text is
    written, so the word agrees with it (:func:`sidecar.rules.agree`)."""
    found = [f"{path.name}:{number}: {line.strip()}"
             for path in sorted(PLUGINS.glob("*.py"))
             for number, line in enumerate(path.read_text().splitlines(), 1)
             if re.search(r"\w\((s|e|es)\)", line) and not line.lstrip().startswith("#")]
    assert not found, "\n".join(found)


def test_oweens_bourde_counts_its_ones_in_words() -> None:
    """« 1 dé à 1 », not « 1 × 1 », which reads as a multiplication (as Bloodlust's did);
    in English, "1 one: Blunder!" (no French « Bourde » in an English text)."""
    async def scenario() -> None:
        async with running_server() as server:
            gm = await Peer.open(server)
            await gm.join("bourde", "MJ", "gm", GM_TOKEN)
            english = await Peer.open(server)
            await english.join("bourde", "Ann", locale="en")
            one = await gm.roll("oweens", {"dice": 2, "difficulty": 3}, dice=[1, 2])
            two = await gm.roll("oweens", {"dice": 2, "difficulty": 3}, dice=[1, 1])
            assert one["result"]["kind"] == "botch", one["result"]
            assert "0 réussite, 1 dé à 1" in one["text"], one["text"]
            assert "0 réussite, 2 dés à 1" in two["text"], two["text"]
            assert "×" not in one["text"] + two["text"]
            # An English member reads English: the game's Bourde is a Blunder.
            heard = await english.recv_type("outcome")
            assert heard["text"].endswith("1 one: Blunder!"), heard["text"]
            assert "Bourde" not in heard["text"] + localized(heard["result"]["label"], "en")
    run(scenario())
