"""French first (issue 29, items 1–3): one language per member, labels instead of keys,
French elision.

* 1 — notes are ``{fr, en}`` values picked per member at delivery, like ``text``: a French
  member reads French only, an English member English only; a plain-string note (an older
  plugin, an older journal) passes through.
* 2 — an error or a text that names a sheet field or a param names it by its label
  (« Volonté du tour », « Acheter après les dés »), never by its key.
* 3 — « de », « que », « le », « la » elide before a vowel sound (d'Éclate, qu'Aengus),
  not before an aspirated h (de Hugues): one helper, :func:`sidecar.protocol.text.elide`,
  and its twin in the web page's ``strings.js``.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from sidecar.protocol.text import ASPIRATED_H, elide, localized, vowel_sound
from tests.helpers import GM_TOKEN, Peer, run, running_server
from tests.support.serve import ServeProcess, sidecar

STATIC = Path(__file__).resolve().parents[1] / "sidecar" / "server" / "web" / "static"

#: (word, following, as French writes it): vowels, accented vowels, mute and aspirated h, y.
ELISIONS = [
    ("de", "Éclate", "d'Éclate"), ("de", "Encaisse", "d'Encaisse"),
    ("que", "Aengus", "qu'Aengus"), ("de", "Ervald", "d'Ervald"), ("de", "Ysolde", "d'Ysolde"),
    ("de", "ours", "d'ours"), ("de", "Œil", "d'Œil"), ("de", "Ulrich", "d'Ulrich"),
    ("de", "île", "d'île"), ("la", "âme", "l'âme"), ("le", "Ogre", "l'Ogre"),
    ("De", "Aengus", "D'Aengus"), ("de", "« Éclate »", "d'« Éclate »"),
    ("de", "Hélène", "d'Hélène"), ("de", "homme", "d'homme"), ("le", "héroïne", "l'héroïne"),
    ("de", "Hugues", "de Hugues"), ("la", "Honte", "la Honte"), ("le", "hasard", "le hasard"),
    ("de", "héros", "de héros"), ("de", "haricots", "de haricots"),
    ("de", "Bloodlust", "de Bloodlust"), ("de", "yaourt", "de yaourt"), ("de", "8", "de 8"),
    ("de", "", "de "), ("en", "Aengus", "en Aengus"),
]


@pytest.mark.parametrize(("word", "following", "written"), ELISIONS)
def test_elision_on_vowels_mute_and_aspirated_h(word, following, written):
    assert elide(word, following) == written


def test_vowel_sound():
    assert vowel_sound("Aengus") and vowel_sound("Éclate") and vowel_sound("hiver")
    assert not vowel_sound("Honte") and not vowel_sound("Brann") and not vowel_sound("")


def _node(script: str) -> str:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    # page.js reads the address bar and local storage when it loads: a bare stand-in.
    prelude = ("globalThis.location = {search: '', hash: ''};"
               "globalThis.localStorage = {getItem() { return null; }, setItem() {}};")
    done = subprocess.run([node, "--input-type=module", "-e", prelude + script],
                          capture_output=True, text=True, cwd=STATIC, timeout=30)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_web_page_elides_as_the_server_does():
    cases = json.dumps([[word, following] for word, following, _ in ELISIONS])
    got = json.loads(_node(
        "const {elide, ASPIRATED_H} = await import('./strings.js');"
        f"console.log(JSON.stringify({{out: {cases}.map(([w, f]) => elide(w, f)),"
        " h: [...ASPIRATED_H]}));"))
    assert got["out"] == [written for _, _, written in ELISIONS]
    assert sorted(got["h"]) == sorted(ASPIRATED_H)  # one list, written twice


def test_the_web_pages_phrases_elide_in_french_only():
    got = json.loads(_node(
        "const {t, state} = await import('./page.js');"
        "const say = () => [t('log.as', {name: 'Aengus'}), t('roll.as', {name: 'Ervald'}),"
        " t('seats.link', {name: 'Ysolde'}), t('ask.side', {name: 'Hugues'}),"
        " t('ask.character_of', {seat: 'Élodie'}), t('seats.qr', {name: 'Brann'})];"
        "state.lang = 'fr'; const fr = say(); state.lang = 'en';"
        "console.log(JSON.stringify({fr, en: say()}));"))
    assert got["fr"] == ["en tant qu'Aengus", "Lancer en tant qu'Ervald", "Lien d'Ysolde",
                         "Camp de Hugues", "(personnage d'Élodie)", "QR code du lien de Brann"]
    assert got["en"][:2] == ["as Aengus", "Roll as Ervald"]


def test_a_french_member_reads_elided_sheet_descriptions():
    async def scenario() -> None:
        async with running_server() as server:
            welcome = await (await Peer.open(server)).join(role="gm", name="MJ")
            sheet = next(r for r in welcome["rulesets"] if r["name"] == "oweens")["sheet"]
            described = {name: spec["description"]["fr"] for name, spec in sheet.items()}
            assert described["ecl"].startswith("Score d'Éclate :")
            assert described["enc"].startswith("Score d'Encaisse :")
            assert described["reserve_ecl"].startswith("Réserve d'Éclate,")
            assert described["fla"].startswith("Score de Flair :")
            assert not re.search(r"\b(de|que) [AEIOUÉ]", json.dumps(
                sheet, ensure_ascii=False))
    run(scenario())


def test_the_command_line_elides_a_seats_name():
    with ServeProcess("--db", ":memory:") as server:
        gm = ["--url", server.url, "--table", "t", "--token", GM_TOKEN, "--name", "MJ"]
        added = sidecar("seat", "add", "Ervald", "--no-qr", *gm)
        assert added.returncode == 0, added.stderr
        assert "Place d'Ervald / Ervald's seat:" in added.stdout
        added = sidecar("seat", "add", "Hugues", "--no-qr", *gm)
        assert "Place de Hugues / Hugues's seat:" in added.stdout


def test_localized_picks_one_language_and_passes_plain_strings():
    assert localized({"fr": "oui", "en": "yes"}, "en") == "yes"
    assert localized({"fr": "oui", "en": "yes"}, "fr") == "oui"
    assert localized({"fr": "oui"}, "en") == "oui"
    assert localized("tel quel", "en") == "tel quel"
