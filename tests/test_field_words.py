"""A form's fields read in their reader's language and apart from each other (issue 29, a
newcomer's replay): d6code's English help gave a French skill name as its example
(« e.g. PILOTAGE »), and Bloodlust's form showed "Dice pool — Number of d10 in the pool"
right above "Pool — As a character: the sheet's dice pool to roll". Read from the welcome
of a real ``sidecar serve``."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from sidecar.client import SidecarClient
from tests.helpers import GM_TOKEN
from tests.support.serve import ServeProcess


@pytest.fixture(scope="module")
def rulesets() -> dict[str, dict[str, Any]]:
    async def welcome(url: str) -> dict[str, Any]:
        client = SidecarClient(url, table="mots", name="MJ", role="gm", token=GM_TOKEN)
        try:
            return await client.connect()
        finally:
            await client.close()

    with ServeProcess("--db", ":memory:") as server:
        said = asyncio.run(welcome(server.url))
    return {ruleset["name"]: ruleset for ruleset in said["rulesets"]}


def test_d6codes_english_help_gives_an_english_example(rulesets):
    params, sheet = rulesets["d6code"]["params"], rulesets["d6code"]["sheet"]
    for text in (params["skill"]["description"], sheet["competences"]["description"]):
        assert "PILOTAGE" not in text["en"] and "PILOTING" in text["en"], text
        assert "PILOTAGE" in text["fr"], text  # (the seed's own word, in French)


@pytest.mark.parametrize("locale", ["fr", "en"])
def test_bloodlusts_pool_and_sheet_pool_are_named_apart(rulesets, locale):
    params = rulesets["bloodlust"]["params"]
    pool, skill = params["pool"], params["skill"]
    pool_label, skill_label = pool["label"][locale], skill["label"][locale]
    # Neither name holds the other's, nor does one's help start as the other's name.
    assert pool_label.lower() not in skill_label.lower(), (pool_label, skill_label)
    assert skill_label.lower() not in pool_label.lower(), (pool_label, skill_label)
    # The count is a number of d10; the sheet's is one of its named pools.
    assert "d10" in pool_label and "d10" in pool["description"][locale]
    assert {"fr": "fiche", "en": "sheet"}[locale] in skill_label.lower(), skill_label


def test_rulesets_md_names_oweens_words_as_an_english_member_reads_them(rulesets):
    """docs/RULESETS.md said « Bourde » kept its name in English while the app says
    Blunder: the paragraph names each word as the server sends it."""
    from pathlib import Path

    doc = (Path(__file__).parent.parent / "docs" / "RULESETS.md").read_text()
    words = doc.split("**Words an English member reads**", 1)[1].split("\n\n", 1)[0]
    said = " ".join(words.split())
    kinds = rulesets["oweens"]["kind_labels"]
    assert f"« {kinds['botch']['en']} »" in said, said  # Blunder
    assert f"« {kinds['critical']['en']} »" in said, said  # Coup d'éclat (critical)
    assert "« Bourde », « Coup d'éclat » and the bonbonus (BB+) keep" not in said, said
