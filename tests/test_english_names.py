"""Words left in one language only (issue 29, French first, the newcomer's replay): the
Foundry manifest's description, a new plugin's description as ``sidecar plugins`` shows
it, and the French names of the ladder's difficulties and Seuil's ranks and thresholds
inside English texts (the seed's French stays on the wire and in French texts)."""

from __future__ import annotations

import json
import re
import subprocess
import urllib.request
from typing import Any

from sidecar.protocol.text import one_language
from tests.helpers import Peer, run, running_server
from tests.support.serve import SIDECAR, ServeProcess

#: The seeds' French names of the ladder's difficulties, Seuil's thresholds and ranks.
FRENCH_NAMES = re.compile(r"\b(Facile|Modéré|Pas évident|Difficile|Très difficile|Presque "
                          r"impossible|Ridiculement|Aisé|Moyen|Héroïque|Néophyte|Apprenti|"
                          r"Compagnon|Maître)\b")


def test_the_served_foundry_manifest_describes_the_module_french_first():
    with ServeProcess("--db", ":memory:", "--log-level", "warning") as server:
        page = server.url.replace("ws://", "http://").removesuffix("/ws")
        with urllib.request.urlopen(f"{page}/foundry/module.json", timeout=10) as got:  # noqa: S310
            manifest = json.loads(got.read())
    description = manifest["description"]
    french, english = one_language(description, "fr"), one_language(description, "en")
    assert description == f"{french} / {english}", description
    assert french.startswith("Jets résolus") and "/sc" in french, french
    assert english.startswith("Rolls resolved") and "/sc" in english, english


def test_a_new_plugins_description_reads_in_the_readers_language(tmp_path):
    made = subprocess.run([*SIDECAR, "new-plugin", "torche", "--kind", "ruleset"],
                          capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    said = {}
    for locale in ("fr", "en"):
        listed = subprocess.run([*SIDECAR, "plugins", "--plugins-dir", str(tmp_path / "torche"),
                                 "--locale", locale], capture_output=True, text=True,
                                timeout=60, cwd=tmp_path)
        assert listed.returncode == 0, listed.stderr
        lines = listed.stdout.splitlines()
        at = next(i for i, line in enumerate(lines) if line.startswith("torche "))
        said[locale] = lines[at + 1].strip()
    assert said == {"fr": "torche : un jeu de règles pour vtt-sidecar",
                    "en": "Torche: a ruleset for vtt-sidecar."}, said


def _texts(value: Any, locale: str) -> list[str]:
    """Every text of a description in ``locale``: the ``{fr, en}`` halves, plain strings."""
    if isinstance(value, dict):
        if set(value) == {"fr", "en"}:
            return [str(value[locale])]
        return [text for item in value.values() for text in _texts(item, locale)]
    if isinstance(value, list):
        return [text for item in value for text in _texts(item, locale)]
    return []


def test_english_descriptions_name_difficulties_and_ranks_in_english():
    async def scenario() -> dict[str, dict[str, Any]]:
        async with running_server() as server:
            peer = await Peer.open(server)
            welcome = await peer.join("t", "Ann", "gm", locale="en")
            return {r["name"]: r for r in welcome["rulesets"]}

    rulesets = run(scenario())
    for name in ("ladder", "seuil"):
        english = _texts({key: rulesets[name][key] for key in ("params", "sheet")}, "en")
        assert not [text for text in english if FRENCH_NAMES.search(text)], english
    ladder = rulesets["ladder"]["params"]["difficulty"]["description"]
    assert "Easy 3" in ladder["en"] and "Nearly impossible 13" in ladder["en"], ladder
    assert "Facile" in ladder["fr"]
    assert rulesets["ladder"]["params"]["difficulty"]["labels"]["Facile"] == 3  # the wire's
    seuil = rulesets["seuil"]
    assert "Neophyte 0" in seuil["sheet"]["competences"]["description"]["en"]
    assert "Néophyte 0" in seuil["sheet"]["competences"]["description"]["fr"]
    assert "Average 22" in seuil["params"]["threshold"]["description"]["en"]
    assert seuil["params"]["threshold"]["labels"]["Moyen"] == 22
