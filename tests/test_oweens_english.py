"""O'Ween's in English (issue 29 re-run 2, item 3): an English member reads no French word
of the game's own making — « Bagages » and the margins « MR » (Marge de Réussite) and « ME »
(Marge d'Échec) are « Backgrounds », « success margin » and « failure margin » — in the
labels the welcome describes (the page's forms and sheets, the CLI's), the rolls' texts,
their choices and notes; a French member still reads them as the seed writes them. Against
a real server (in process for the wire, a real `sidecar serve` for the CLI)."""

from __future__ import annotations

import json
import re
from typing import Any

from tests.helpers import GM_TOKEN, Peer, run, running_server
from tests.support.serve import ServeProcess, sidecar

#: The seed's French that an English member must not read (a word, not a part of one).
FRENCH_ONLY = re.compile(r"\bbagages?\b|\bM[RE]\b", re.IGNORECASE)

#: Physical dice (the GM's) for each verdict: a failure, a narrow success, a success, and
#: an open roll whose choices say what each purchase would make of it.
ROLLS = [({"dice": 3, "difficulty": 2}, [2, 2, 3]), ({"dice": 3, "difficulty": 2}, [4, 5, 2]),
         ({"dice": 3, "difficulty": 1}, [4, 5, 3]), ({"dice": 3, "difficulty": 2, "equipment": 1},
                                                     [4, 5, 2]),
         ({"dice": 3, "difficulty": 3, "buy_after": True}, [3, 2, 2]),
         ({"dice": 3, "difficulty": 2, "buy_after": True}, [3, 4, 2])]


def english(value: Any) -> list[str]:
    """Every text an English reader gets out of ``value``: the ``en`` of each ``{fr, en}``,
    every other string as it is."""
    if isinstance(value, dict):
        if set(value) == {"fr", "en"}:
            return [value["en"]]
        return [text for item in value.values() for text in english(item)]
    if isinstance(value, list):
        return [text for item in value for text in english(item)]
    return [value] if isinstance(value, str) else []


def read(outcome: dict[str, Any]) -> list[str]:
    """What a member reads of an outcome: its text, its notes, its result's label, the
    labels of its choices."""
    return [outcome["text"], *english(outcome.get("notes", [])),
            *english(outcome["result"].get("label")),
            *english([choice["label"] for choice in outcome.get("choices") or []])]


def test_an_english_member_reads_oweens_in_english():
    async def scenario() -> None:
        async with running_server(rate_limit=0) as server:
            french, british = await Peer.open(server), await Peer.open(server)
            await french.join("t", "MJ", "gm")
            welcome = await british.join("t", "GM", "gm", locale="en")
            oweens = next(r for r in welcome["rulesets"] if r["name"] == "oweens")
            # Everything the welcome describes: forms, sheets, extensions (combat).
            described = english(welcome)
            assert "Backgrounds" in english(oweens["sheet"]["bagages"]["label"])
            assert english(oweens["params"]["bagage"]["label"]) == ["Relevant background"]
            kinds, heard, said = set(), [], []
            for params, faces in ROLLS:
                rolled = await french.roll("oweens", params, dice=faces)
                assert rolled["type"] == "outcome", rolled
                seen = await british.recv_type("outcome")
                assert seen["seq"] == rolled["seq"]
                kinds.add(rolled["result"]["kind"])
                heard += read(seen)
                said += [rolled["text"], *[c["label"]["fr"] for c in rolled.get("choices") or []]]
            assert {"failure", "narrow"} <= kinds and kinds & {"success", "critical"}, kinds
            for text in described + heard:
                assert not FRENCH_ONLY.search(text), text
            assert any("success margin" in text for text in heard), heard
            assert any("failure margin" in text for text in heard), heard
            # French stays the seed's: « MR 1 », « ME 1 ».
            assert any(re.search(r"\bMR \d", text) for text in said), said
            assert any(re.search(r"\bME \d", text) for text in said), said
            assert "Bagages" in json.dumps(
                next(r for r in (await (await Peer.open(server)).join(
                    "t", "Morgane", "gm"))["rulesets"] if r["name"] == "oweens")["sheet"],
                ensure_ascii=False)
    run(scenario())


def test_the_command_line_says_oweens_in_english():
    with ServeProcess("--db", ":memory:") as server:
        gm = ["--url", server.url, "--table", "anglais", "--token", GM_TOKEN, "--name",
              "Morgane", "--role", "gm"]
        made = sidecar("sheet", "set", "Ervald", "--ruleset", "oweens", "ecl=3",
                       'bagages=["Marin"]', "--no-owner", *gm)
        assert made.returncode == 0, made.stderr
        rolled = sidecar("roll", "oweens", "characteristic=ECL", "difficulty=4", "--character",
                         "Ervald", "--dice", "2,2,4", "--no-ask", "--locale", "en", *gm)
        assert rolled.returncode == 0, rolled.stderr
        # (The sheet's labels: `sheet list` below; a roll says what it spent, not the sheet.)
        assert "failure margin" in rolled.stdout and "spent: nothing" in rolled.stdout, \
            rolled.stdout
        assert not FRENCH_ONLY.search(rolled.stdout), rolled.stdout
        listed = sidecar("sheet", "list", "--locale", "en", *gm)
        assert listed.returncode == 0, listed.stderr
        assert "Backgrounds" in listed.stdout and not FRENCH_ONLY.search(listed.stdout), \
            listed.stdout
