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
        " t('ask.side', {name: 'Élodie'}), t('seats.qr', {name: 'Brann'})];"
        "state.lang = 'fr'; const fr = say(); state.lang = 'en';"
        "console.log(JSON.stringify({fr, en: say()}));"))
    assert got["fr"] == ["en tant qu'Aengus", "Lancer en tant qu'Ervald", "Lien d'Ysolde",
                         "Camp de Hugues", "Camp d'Élodie", "QR code du lien de Brann"]
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
        assert "Place d'Ervald : " in added.stdout and "'s seat" not in added.stdout
        added = sidecar("seat", "add", "Hugues", "--no-qr", *gm)
        assert "Place de Hugues : " in added.stdout


def test_localized_picks_one_language_and_passes_plain_strings():
    assert localized({"fr": "oui", "en": "yes"}, "en") == "yes"
    assert localized({"fr": "oui", "en": "yes"}, "fr") == "oui"
    assert localized({"fr": "oui"}, "en") == "oui"
    assert localized("tel quel", "en") == "tel quel"


# -- 1: one language per member, notes included ---------------------------------------------

def _bilingual(text: str) -> bool:
    """Whether ``text`` reads like the old « français / English » join."""
    return " / " in text


def test_each_member_reads_the_notes_in_its_own_language():
    async def scenario() -> None:
        async with running_server() as server:
            french, english = await Peer.open(server), await Peer.open(server)
            await french.join("pub", "MJ", "gm")
            await english.join("pub", "GM", "gm", locale="en")
            towing = await french.roll("oweens", {"dice": 3, "difficulty": 3,
                                                  "buy_after": True}, dice=[3, 2, 2])
            assert towing["open"] is True, towing
            decided = await french.request({"type": "react", "id": "buy",
                                            "roll": towing["roll"], "choice": "buy_1"})
            assert decided["type"] == "outcome", decided
            seen = await english.recv_type("outcome")
            while seen.get("reacts_to") != towing["seq"]:
                seen = await english.recv_type("outcome")
            assert decided["notes"] and seen["notes"]
            assert decided["notes"][0].startswith("1A achetée après les dés pour ")
            assert seen["notes"][0].startswith("1A bought after the dice for ")
            for note in decided["notes"] + seen["notes"]:
                assert not _bilingual(note), note
            assert "bought" not in " ".join(decided["notes"])
            assert "achetée" not in " ".join(seen["notes"])
            # A Bourde while drinking: the Shame note, one language each.
            shamed = await french.roll("oweens", {"dice": 2, "difficulty": 3,
                                                  "drinking": True}, dice=[1, 2])
            heard = await english.recv_type("outcome")
            assert shamed["notes"] == ["Bourde : la Honte du personnage se manifeste."]
            assert heard["notes"] == ["Blunder: the character's Shame manifests."]
    run(scenario())


def test_a_plain_string_note_passes_through_and_a_localised_one_is_picked(tmp_path):
    from tests.support.plugins import write_plugins

    noting = '''
from sidecar import hookimpl
from sidecar.model import label

@hookimpl
def sidecar_modify_outcome(roll, outcome):
    if roll.options.get("noting") is not None:
        outcome.notes.append("note d'avant / older note")
        outcome.notes.append(label("Rappel : boire de l'eau.", "Reminder: drink water."))
'''
    directory = write_plugins(tmp_path / "p", noting=noting)

    async def scenario() -> None:
        async with running_server(plugins_dir=str(directory)) as server:
            french, english = await Peer.open(server), await Peer.open(server)
            await french.join("t", "MJ", "gm")
            await english.join("t", "GM", "gm", locale="en")
            rolled = await french.roll(options={"noting": {}})
            heard = await english.recv_type("outcome")
            assert rolled["notes"] == ["note d'avant / older note", "Rappel : boire de l'eau."]
            assert heard["notes"] == ["note d'avant / older note", "Reminder: drink water."]
    run(scenario())


def test_a_failing_extensions_note_is_in_the_readers_language(tmp_path):
    from tests.support.plugins import write_plugins

    failing = '''
from sidecar import hookimpl

@hookimpl
def sidecar_modify_outcome(roll, outcome):
    if roll.options.get("failing") is not None:
        raise RuntimeError("boom")
'''
    directory = write_plugins(tmp_path / "p", failing=failing)

    async def scenario() -> None:
        async with running_server(plugins_dir=str(directory)) as server:
            french, english = await Peer.open(server), await Peer.open(server)
            await french.join("t", "MJ", "gm")
            await english.join("t", "GM", "gm", locale="en")
            rolled = await french.roll(options={"failing": {}})
            heard = await english.recv_type("outcome")
            assert rolled["notes"][0].startswith("extension « failing » en échec, ignorée")
            assert heard["notes"][0].startswith("extension 'failing' failed and was left out")
            assert not _bilingual(rolled["notes"][0]) and not _bilingual(heard["notes"][0])
    run(scenario())


@pytest.mark.parametrize(("locale", "note", "other"), [
    ("fr", "Échec critique blanc : premier échec critique", "Blank botch"),
    ("en", "first botch of the session counts as a simple failure", "Échec critique blanc"),
])
def test_the_command_line_prints_the_notes_in_its_locale(locale, note, other):
    with ServeProcess() as server:
        rolled = sidecar("roll", "bloodlust", "pool=2", "--url", server.url, "--role", "gm",
                         "--token", GM_TOKEN, "--dice", "1,2", "--option", "blank_botch={}",
                         "--locale", locale)
        assert rolled.returncode == 0, rolled.stderr
        notes = [line for line in rolled.stdout.splitlines()
                 if line.strip().startswith(("note :", "note:"))]
        assert len(notes) == 1 and note in notes[0] and other not in notes[0], rolled.stdout


# -- 2: labels, not keys ---------------------------------------------------------------------

def test_errors_name_sheet_fields_and_params_by_their_labels():
    async def scenario() -> None:
        async with running_server() as server:
            french, english = await Peer.open(server), await Peer.open(server)
            await french.join("t", "MJ", "gm")
            await english.join("t", "GM", "gm", locale="en")
            made = await french.request({"type": "sheet", "id": "s", "op": "set",
                                         "character": "Vlad", "ruleset": "bloodlust",
                                         "values": {"volonte_tour": 0}})
            assert made["type"] == "sheet", made
            for peer, said in ((french, "pas assez de « Volonté ce tour » : il en reste 0"),
                               (english, 'not enough "Willpower this turn": 0 left')):
                refused = await peer.roll("bloodlust", {"pool": 3, "willpower": True},
                                          character="Vlad")
                assert refused["type"] == "error" and refused["code"] == "insufficient"
                assert refused["details"]["field"] == "volonte_tour"  # (the key stays)
                assert said in refused["message"], refused
                assert "volonte_tour" not in refused["message"]
            refused = await french.roll("oweens", {"dice": 3, "difficulty": 3,
                                                   "buy_after": "oui"})
            assert refused["details"]["param"] == "buy_after"
            assert "« Acheter après les dés »" in refused["message"], refused
            refused = await english.roll("oweens", {"difficulty": 3})  # (no dice, no sheet)
            assert refused["code"] == "invalid_params", refused
            assert refused["message"].startswith('parameter "Dice" (\'dice\')'), refused
            refused = await french.roll("oweens", {"dice": 3, "difficulty": 3},
                                        options={"combat": {"options": ["voler"]}})
            assert refused["code"] == "invalid_params", refused
            assert "« Options de combat »" in refused["message"], refused
    run(scenario())


def test_a_spend_taken_as_far_as_the_sheet_holds_names_the_field_by_its_label():
    from sidecar.host.spending import unpaid_note

    sheet = {"points_chance": {"type": "int", "label": {"fr": "Points de chance",
                                                        "en": "Luck points"}}}
    note = unpaid_note({"points_chance": 1}, sheet)
    assert note["fr"].endswith("non prélevé : Points de chance 1")
    assert note["en"].endswith("not taken: Luck points 1")


def test_no_description_names_another_param_by_its_key():
    async def scenario() -> None:
        async with running_server() as server:
            welcome = await (await Peer.open(server)).join(role="gm", name="MJ")
            for ruleset in welcome["rulesets"]:
                described = {**ruleset["params"], **(ruleset.get("sheet") or {})}
                keys = [key for key in described if "_" in key]
                for name, spec in described.items():
                    text = json.dumps(spec.get("description", ""), ensure_ascii=False)
                    for key in keys:
                        assert f"« {key} »" not in text and f'\\"{key}\\"' not in text, \
                            (ruleset["name"], name, key)
    run(scenario())


@pytest.mark.parametrize(("locale", "wanted", "unwanted"), [
    ("fr", "1) Acheter 1A (2 BB+)", "Buy"), ("en", "1) Buy 1A (2 BB+)", "Acheter"),
])
def test_the_command_line_shows_an_open_rolls_choices_in_its_locale(locale, wanted, unwanted):
    with ServeProcess() as server:
        rolled = sidecar("roll", "oweens", "dice=3", "difficulty=3", "buy_after=yes",
                         "--url", server.url, "--role", "gm", "--token", GM_TOKEN,
                         "--dice", "3,2,2", "--no-ask", "--locale", locale)
        assert rolled.returncode == 0, rolled.stderr
        choices = [line for line in rolled.stdout.splitlines() if line.startswith("     1)")]
        assert len(choices) == 1 and wanted in choices[0], rolled.stdout
        assert unwanted not in choices[0] and " / " not in choices[0] and "buy_1" not in choices[0]


def test_the_extensions_line_is_in_the_members_language(tmp_path):
    from tests.support.plugins import write_plugins

    docstring = '"""Rappel : boire de l\'eau / reminder: drink water."""\n' \
        "from sidecar import hookimpl\n\n@hookimpl\ndef sidecar_modify_outcome(roll, outcome):\n" \
        "    pass\n"
    directory = write_plugins(tmp_path / "p", water=docstring)

    async def scenario() -> None:
        async with running_server(plugins_dir=str(directory)) as server:
            french = await (await Peer.open(server)).join("t", "MJ", "gm")
            english = await (await Peer.open(server)).join("t", "GM", "gm", locale="en")
            said = {locale: {e["name"]: e["description"] for e in welcome["extensions"]}
                    for locale, welcome in (("fr", french), ("en", english))}
            assert said["fr"]["blank_botch"].startswith("Règle optionnelle, pour les jets")
            assert said["en"]["blank_botch"].startswith("Optional rule, for the rolls")
            assert said["fr"]["water"] == "Rappel : boire de l'eau"
            assert said["en"]["water"] == "Reminder: drink water."
            for described in (*said["fr"].values(), *said["en"].values()):
                assert not _bilingual(described), described
    run(scenario())


# -- the fights' texts (issue 26, the fighter's report) ------------------------------------

def test_the_fights_texts_say_what_happened_in_plain_french():
    from sidecar.cli.labels import Labels
    from sidecar.cli.render import format_effects
    from tests.target_helpers import roll_at

    async def scenario() -> None:
        async with running_server(allow_player_dice=True) as server:
            gm = await Peer.open(server)
            welcome = await gm.join("t", "MJ", "gm")
            for name, values in (("Aengus", {"pep": 2, "ecl": 3}), ("Ogre", {"ecl": 2})):
                made = await gm.request({"type": "sheet", "id": f"c{name}", "op": "set",
                                         "character": name, "ruleset": "oweens",
                                         "values": values})
                assert made["type"] == "sheet", made
            # A reserve drained, in a sentence: its short label (« Réserve ECL (0 = pleine)
            # d'Ogre » read as a form's hint inside a sentence), what is left of its score.
            pushed = await gm.roll("oweens", {"characteristic": "ECL", "contest": True},
                                   character="Aengus", targets=["Ogre"], dice=[6, 6, 4])
            assert pushed["effects"] == {"Ogre": {"reserve_ecl": -2}}, pushed
            lines = format_effects(pushed, "fr", Labels(welcome, "fr"))
            assert "   Réserve ECL d'Ogre : 2 → 0 / 2" in lines, lines
            # « 1 dé », not « 1 dés »; « 1 donné ».
            extra = await gm.roll("bloodlust", {"pool": 1}, dice=[5, 6])
            assert extra["message"].endswith("ce jet utilise 1 dé (d10), 2 ont été donnés"), \
                extra
            # Not enough dice to pay for the options: what is missing, said as such.
            poor = await gm.roll("oweens", {"characteristic": "PEP"}, character="Aengus",
                                 targets=["Ogre"], dice=[6], options={
                                     "combat": {"attack": "melee", "options": ["renverser"]}})
            assert poor["code"] == "invalid_params", poor
            assert ("pas assez de dés pour payer 2 : il en faut 3 dés (2 à payer, 1 à "
                    "lancer), ce jet en a 2 dés ; payez en bonbonus") in poor["message"], poor
    run(scenario())
    # A missed attack reads the same whatever its option (« sans effet (attaque ratée) »).
    for option in ("assommer", "renverser", "immobiliser"):
        missed = roll_at("oweens", {"characteristic": "PEP"}, {"pep": 3},
                         {"Ogre": {"pep": 3, "enc": 2, "ecl": 2}},
                         [1] * (3 - (2 if option == "renverser" else 1)), options={
                             "combat": {"attack": "melee", "options": [option]}})
        said = [n["fr"] for n in missed.outcome.notes if isinstance(n, dict)
                and n["fr"].startswith("Options de combat")]
        assert said and "sans effet (attaque ratée)" in said[0], (option, said)
        assert "pas assommé" not in said[0] and "pas renversé" not in said[0]
