"""The command line's last bilingual and raw words (issue 29, the newcomer's final replay):
errors in one language and in plain words (no « [Errno 2] »), ``new-plugin`` in the
run's language, ``serve``'s English banner with its colons after the words, params named
by their level in English, a choice's dice said once, ``verify``'s summary plainly. Real
``sidecar`` processes (against a real ``sidecar serve`` where one is needed)."""

from __future__ import annotations

import re
import subprocess

import pytest

from tests.helpers import GM_TOKEN
from tests.support.serve import ServeProcess, free_port, luck_serve, sidecar

BILINGUAL = re.compile(r" / [A-Za-z]")


def said(done) -> str:
    return done.stdout + done.stderr


@pytest.mark.parametrize("locale, expected", [
    ("fr", "sidecar: pas de journal à « sidecar.db »"),
    ("en", "sidecar: no journal at 'sidecar.db'"),
])
def test_export_without_journal_says_it_in_one_language(tmp_path, locale, expected):
    done = sidecar("export", "--table", "crypte", "--locale", locale, cwd=tmp_path)
    assert done.returncode != 0
    assert done.stderr.strip() == expected


@pytest.mark.parametrize("locale, expected", [
    ("fr", "sidecar: fichier introuvable : /nonexistent"),
    ("en", "sidecar: file not found: /nonexistent"),
])
def test_verify_a_missing_file_in_plain_words(tmp_path, locale, expected):
    done = sidecar("verify", "/nonexistent", "--locale", locale, cwd=tmp_path)
    assert done.returncode != 0
    assert done.stderr.strip() == expected
    assert "Errno" not in said(done)


@pytest.mark.parametrize("locale, expected", [
    ("fr", "rien n'écoute sur 127.0.0.1:{port} : le serveur est-il lancé ?"),
    ("en", "nothing listens on 127.0.0.1:{port}: is the server running?"),
])
def test_roll_to_a_closed_port_says_nothing_listens(tmp_path, locale, expected):
    port = free_port()
    done = sidecar("roll", "seuil", "--url", f"ws://127.0.0.1:{port}/ws", "--token", "x",
                   "--locale", locale, cwd=tmp_path)
    assert done.returncode == 3
    assert done.stderr.strip() == "sidecar: " + expected.format(port=port)
    assert "Errno" not in said(done)


@pytest.mark.parametrize("locale, heading, after", [
    ("fr", "jeu de règles « potion » écrit dans potion/ :", "ensuite :"),
    ("en", "ruleset 'potion' written to potion/:", "next:"),
])
def test_new_plugin_speaks_the_runs_language(tmp_path, locale, heading, after):
    done = sidecar("new-plugin", "potion", "--kind", "ruleset", "--locale", locale,
                   cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == heading
    assert after in lines
    assert not BILINGUAL.search(done.stdout), done.stdout
    again = sidecar("new-plugin", "potion", "--locale", locale, cwd=tmp_path)
    assert again.returncode == 2
    assert again.stderr.strip() == "sidecar: " + (
        "« potion » existe déjà : choisissez un autre nom ou --directory" if locale == "fr"
        else "'potion' already exists: choose another name or --directory")


def test_new_plugin_inside_a_checkout_warns_in_one_language(tmp_path):
    (tmp_path / ".git").mkdir()
    done = sidecar("new-plugin", "potion", "--kind", "ruleset", "--locale", "en",
                   cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith("sidecar: warning: ")
    assert "attention" not in done.stderr and not BILINGUAL.search(done.stderr)


def test_serve_in_english_puts_the_colon_after_the_word(tmp_path):
    with ServeProcess("--db", ":memory:", "--locale", "en", cwd=tmp_path) as server:
        rows = [line.rstrip("\n") for line in server.lines if line.startswith("  ")
                and "://" in line and not line.startswith("    ")]
        server.stop()
    labels = [row[2:].split("://")[0] for row in rows]
    assert any(label.startswith("Watch:") for label in labels), rows
    assert any(label.startswith("Browser GM:") for label in labels), rows
    for row in rows:
        assert re.match(r"  [A-Z][A-Za-z ]*?: +\S", row), row  # « GM:     … »
        assert " :" not in row.split("://")[0], row
    # The commands start in one column, as in French.
    assert len({len(re.match(r"  [^:]*: +", row).group(0)) for row in rows}) == 1, rows


@pytest.mark.parametrize("locale, shown", [("fr", "1) Relancer (1 dé)"),
                                           ("en", "1) Reroll (1 die)")])
def test_a_choices_dice_are_said_once_as_the_page_says_them(tmp_path, locale, shown):
    folder = tmp_path / "plugins"
    folder.mkdir()
    with luck_serve(folder) as server:
        rolled = sidecar("roll", "luck", "target=7", "skill=0", "second_chance=true",
                         "--dice", "2", "--url", server.url, "--table", "t", "--role", "gm",
                         "--token", GM_TOKEN, "--locale", locale, stdin=subprocess.DEVNULL,
                         cwd=tmp_path)
        server.stop()
    assert rolled.returncode == 0, rolled.stderr
    assert shown in [line.strip() for line in rolled.stdout.splitlines()], \
        rolled.stdout
    assert ", 1 d" not in rolled.stdout


def test_a_label_that_says_its_dice_is_not_followed_by_them_again():
    from sidecar.cli.render import format_choices
    from sidecar.rulesets.d6code import CHOICES

    message = {"roll": "r1", "default": "keep",
               "choices": [CHOICES["style_libre"], {"name": "keep", "label": "Garder"}]}
    assert format_choices(message, "en")[1] == "     1) Style point, free style (2 dice)"
    assert format_choices(message, "fr")[1] == "     1) Point de style, style libre (2 dés)"


@pytest.mark.parametrize("args, english, french", [
    (["seuil", "level=2", "threshold=Moyen"], "Threshold Average", "Moyen"),
    (["d6code", "code=3D", "difficulty=Moyen"], "Difficulty Average", "Moyen"),
    (["ladder", "level=2", "difficulty=Facile"], "Difficulty Easy", "Facile"),
])
def test_a_named_level_is_said_in_the_readers_language(tmp_path, args, english, french):
    en = sidecar("odds", *args, "--locale", "en", cwd=tmp_path)
    assert en.returncode == 0, en.stderr
    heading = en.stdout.splitlines()[0]
    assert english in heading and french not in heading, heading
    fr = sidecar("odds", *args, cwd=tmp_path)
    assert french in fr.stdout.splitlines()[0], fr.stdout


def test_oweens_combat_note_names_its_options_in_english(tmp_path):
    with ServeProcess(cwd=tmp_path) as server:
        rolled = sidecar("roll", "oweens", "dice=4", "difficulty=2", "--dice", "6,5,4",
                         "--option", "combat.options=viser", "--option", "combat.zone=tête",
                         "--url", server.url, "--role", "gm", "--token", GM_TOKEN,
                         "--locale", "en", cwd=tmp_path)
        server.stop()
    assert rolled.returncode == 0, rolled.stderr
    assert "Combat options (aim; cost: 1 fewer die)" in rolled.stdout, rolled.stdout
    assert "viser" not in rolled.stdout


def test_ladders_characteristic_help_says_why_its_examples_are_french():
    # The examples are the sheet's own keys (French): the English help says so.
    from sidecar.rulesets.ladder import PARAMS, SHEET

    english = PARAMS["characteristic"]["description"]["en"]
    assert "(geste, acuité, chance…)" not in english and "on the sheet" in english
    assert "on the sheet" in SHEET["caracteristiques"]["description"]["en"]


@pytest.mark.parametrize("locale, expected", [
    ("fr", "sidecar: attendu clé=valeur, reçu « level » (« threshold=level » ?)"),
    ("en", "sidecar: expected key=value, got 'level' ('threshold=level'?)"),
])
def test_a_usage_mistake_is_said_in_one_language(tmp_path, locale, expected):
    done = sidecar("odds", "seuil", "level", "--locale", locale, cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.strip() == expected
