"""The command line as a second newcomer met it (issue 29): ``verify``, ``export`` and
``epoch end`` in the reader's one language; an open roll's hint a command that runs as
shown; ``odds`` naming the game and its params as the page does, with the page's outcome
words and numbers; ``serve`` suggesting the game the journal's tables play, never one
nobody chose. Real ``sidecar`` processes against a real ``sidecar serve``."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import pytest

from sidecar import odds as local_odds
from tests.helpers import GM_TOKEN
from tests.support.serve import ROOT, ServeProcess, gm_options, luck_serve, seat_token, sidecar

STRINGS = ROOT / "sidecar" / "server" / "web" / "static" / "strings.js"
KINDS = ("botch", "failure", "narrow", "success", "critical")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with luck_serve(tmp_path_factory.mktemp("plugins")) as serving:
        yield serving


gm_of = gm_options


def page_kind_words() -> dict[str, dict[str, str]]:
    """The page's outcome words (strings.js ``kind.*``), by locale then kind."""
    text = STRINGS.read_text(encoding="utf-8")
    english = text.index("\n  en: {")
    words: dict[str, dict[str, str]] = {"fr": {}, "en": {}}
    for found in re.finditer(r'"kind\.(\w+)": "([^"]+)"', text):
        words["fr" if found.start() < english else "en"][found.group(1)] = found.group(2)
    assert set(words["fr"]) == set(words["en"]) == set(KINDS), words
    return words


def page_percent(p: float, locale: str) -> str:
    """app.js ``percent``: 0 and 100 whole, under 0.1 % said so, one decimal under 10 %,
    none above, rounded half up as ``toFixed`` does; a decimal comma in French, and
    English typography in English: no space before the sign (« 33 % », "33%", issue 29)."""
    sign = "%" if locale == "en" else " %"
    if p == 0:
        return "0" + sign
    if p == 1:
        return "100" + sign
    comma = "," if locale == "fr" else "."
    if p < 0.001:
        return f"< 0{comma}1{sign}"
    places = Decimal("0.1") if p < 0.1 else Decimal("1")
    text = str(Decimal(p * 100).quantize(places, rounding=ROUND_HALF_UP))
    return text.replace(".", comma) + sign


# -- 1. verify, export, epoch end: one language ----------------------------------------------

def test_verify_export_and_epoch_end_speak_the_readers_language(tmp_path):
    db = tmp_path / "t.db"
    with ServeProcess("--db", str(db), dice=None) as serving:  # provable: serve's default
        gm = ["--url", serving.url, "--table", "t", "--token", GM_TOKEN, "--role", "gm"]
        for _ in range(3):
            assert sidecar("roll", "dice", "expr=1d6", *gm).returncode == 0
        english = sidecar("epoch", "end", "--locale", "en", *gm)
        assert english.returncode == 0, english.stderr
        assert "epoch 1 ended after" in english.stdout, english.stdout
        assert "époque" not in english.stdout and " / " not in english.stdout, english.stdout
        assert sidecar("roll", "dice", "expr=1d6", *gm).returncode == 0
        french = sidecar("epoch", "end", *gm)
        assert french.returncode == 0, french.stderr
        assert "époque 2 close après" in french.stdout, french.stdout
        assert "epoch" not in french.stdout and " / " not in french.stdout, french.stdout
        out = str(tmp_path / "t.jsonl")
        exported = sidecar("export", "--db", str(db), "--table", "t", "-o", out)
        assert exported.returncode == 0, exported.stderr
        assert "événements écrits dans" in exported.stderr, exported.stderr
        assert "written" not in exported.stderr and " / " not in exported.stderr
        again = sidecar("export", "--db", str(db), "--table", "t", "-o", out, "--locale", "en")
        assert again.returncode == 0, again.stderr
        assert "events written to" in again.stderr and "écrits" not in again.stderr
    checked = sidecar("verify", out)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "4 jets vérifiés" in checked.stdout, checked.stdout
    for english_word in ("rolls checked", "who rolled", "what an export alone", " / "):
        assert english_word not in checked.stdout, (english_word, checked.stdout)
    checked = sidecar("verify", out, "--locale", "en")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "4 rolls checked" in checked.stdout, checked.stdout
    for french_word in ("jets vérifiés", "qui a lancé", "ce qu'un export seul", " / "):
        assert french_word not in checked.stdout, (french_word, checked.stdout)


# -- 2. an open roll's hint runs as shown --------------------------------------------------------

def test_an_open_rolls_hint_is_a_command_that_runs_as_shown(server):
    gm = gm_of(server, "indice")
    alice = ["--url", server.url, "--table", "indice", "--token", seat_token(gm, "Alice"),
             "--name", "Alice"]
    opened = sidecar("roll", "luck", "second_chance=true", "target=12", "--no-ask",
                     "--dice", "2", *alice)
    assert opened.returncode == 0, opened.stderr
    hint = next(line for line in opened.stdout.splitlines() if " react " in line)
    command = hint.split(" : ", 1)[1].replace("CHOIX", "2")
    # In a terminal where the venv is not activated: no `sidecar` on PATH, no $SIDECAR_*.
    bin_dir = Path(sys.executable).parent
    env = {key: value for key, value in os.environ.items() if not key.startswith("SIDECAR_")}
    env["PATH"] = os.pathsep.join(entry for entry in env.get("PATH", "").split(os.pathsep)
                                  if entry and Path(entry).resolve() != bin_dir.resolve())
    try:
        decided = subprocess.run(shlex.split(command), cwd=ROOT, env=env, text=True,
                                 capture_output=True, timeout=60)
    except FileNotFoundError:
        pytest.fail(f"the hint does not run as shown: {hint}")
    assert decided.returncode == 0, (hint, decided.stderr)
    assert "choix : Garder — par Alice (joueur)" in decided.stdout, decided.stdout


def test_the_command_lines_outcome_words_are_the_pages():
    from sidecar.cli.odds_view import KIND_WORDS, percent

    words = page_kind_words()
    assert {kind: (words["fr"][kind], words["en"][kind]) for kind in KINDS} == KIND_WORDS
    for p in (0, 1, 0.0004, 0.001, 0.0625, 0.09645, 0.099999, 0.1, 0.125, 0.5208, 0.995):
        for locale in ("fr", "en"):
            assert percent(p, locale) == page_percent(p, locale), (p, locale)


# -- 3. odds name the game and its params; 4. with the page's words and numbers --------------

def aengus_at(server: ServeProcess, table: str) -> list[str]:
    """A GM's options at ``table``, where Aengus (O'Ween's, Éclate 4) is the GM's own."""
    gm = gm_of(server, table)
    made = sidecar("sheet", "set", "Aengus", "--ruleset", "oweens", "ecl=4", "--no-owner", *gm)
    assert made.returncode == 0, made.stderr
    return gm


def test_odds_name_the_game_and_its_params_by_their_labels(server):
    gm = aengus_at(server, "titres")
    for locale, head in (("fr", "Aengus — O'Ween's : Caractéristique ECL · Difficulté 3"),
                         ("en", "Aengus — O'Ween's: Characteristic ECL · Difficulty 3")):
        asked = sidecar("odds", "oweens", "characteristic=ECL", "difficulty=3",
                        "--character", "Aengus", "--locale", locale, *gm)
        assert asked.returncode == 0, asked.stderr
        assert asked.stdout.splitlines()[0] == head, asked.stdout
        assert "oweens" not in asked.stdout and "characteristic=" not in asked.stdout
    # Computed here, without a server: the same names.
    here = sidecar("odds", "oweens", "dice=4", "difficulty=3", "bagage=true")
    assert here.stdout.splitlines()[0] == \
        "O'Ween's : Dés 4 · Difficulté 3 · Bagage adéquat oui", here.stdout


OWEENS_KINDS = {"botch": {"fr": "Bourde", "en": "Blunder"},
                "critical": {"fr": "Coup d'éclat", "en": "Coup d'éclat (critical)"}}


def test_odds_say_the_pages_outcome_words_and_numbers(server):
    gm = aengus_at(server, "chiffres")
    words = page_kind_words()
    expected = local_odds("oweens", {"dice": 4, "difficulty": 3})
    for locale in ("fr", "en"):
        asked = sidecar("odds", "oweens", "characteristic=ECL", "difficulty=3",
                        "--character", "Aengus", "--locale", locale, *gm)
        assert asked.returncode == 0, asked.stderr
        lines = asked.stdout.splitlines()
        success = page_percent(expected["p_success"], locale)
        assert re.search(rf"= {re.escape(success)}$", lines[1]), (success, asked.stdout)
        for kind, p in expected["kinds"].items():
            if p == 0 and kind != "success":
                continue
            # (O'Ween's names its botch and critical in its own words, ``kind_labels``.)
            said = OWEENS_KINDS.get(kind, {}).get(locale) or words[locale][kind]
            row = next((line for line in lines
                        if re.match(rf" +{re.escape(said)}  ", line)), None)
            assert row is not None, (said, asked.stdout)
            assert row.rstrip(" █").endswith(page_percent(p, locale)), (kind, row)
        # Computed here, without a server: the same words, the same numbers.
        here = sidecar("odds", "oweens", "dice=4", "difficulty=3", "--locale", locale)
        assert here.returncode == 0, here.stderr
        assert here.stdout.splitlines()[1:] == lines[1:], (here.stdout, asked.stdout)
    french = sidecar("odds", "oweens", "dice=4", "difficulty=3").stdout
    assert "critique " not in french.replace("Échec critique", ""), french
    assert not re.search(r"\d\.\d", french), french  # a decimal comma, in French


# -- 5. serve suggests the journal's game, never one nobody chose ------------------------------

def test_serve_without_table_suggests_the_game_the_journals_tables_play(tmp_path):
    db = str(tmp_path / "soiree.db")
    with ServeProcess("--db", db) as first:
        banner = "".join(first.lines)
        # A new journal: no game chosen yet, so no game's roll (the plain roller works).
        for game in ("bloodlust", "oweens", "ladder", "d6code", "seuil"):
            assert f"roll {game}" not in banner, banner
        assert "roll dice expr=2d6 --url" in banner, banner
        gm = ["--url", first.url, "--table", "crypte", "--token", GM_TOKEN, "--role", "gm"]
        made = sidecar("sheet", "set", "Aengus", "--ruleset", "oweens", "--no-owner", *gm)
        assert made.returncode == 0, made.stderr
    with ServeProcess("--db", db) as again:
        banner = "".join(again.lines)
        # The journal's table plays O'Ween's: so does the roll to paste, table demo or not.
        assert "roll oweens dice=3 difficulty=2 --url" in banner, banner
        assert "roll bloodlust" not in banner and "roll dice" not in banner, banner


def test_serve_suggests_the_newest_tables_game_over_an_older_bigger_one(tmp_path):
    db = str(tmp_path / "deux.db")
    with ServeProcess("--db", db) as first:
        for table, game, names in (("vieille", "bloodlust", ("Krull", "Mira", "Otto")),
                                   ("crypte", "oweens", ("Aengus",))):
            gm = ["--url", first.url, "--table", table, "--token", GM_TOKEN, "--role", "gm"]
            for name in names:
                made = sidecar("sheet", "set", name, "--ruleset", game, "--no-owner", *gm)
                assert made.returncode == 0, made.stderr
    with ServeProcess("--db", db) as again:
        banner = "".join(again.lines)
        # The GM's newest table plays O'Ween's: the old Bloodlust one has more characters.
        assert "roll oweens dice=3 difficulty=2 --url" in banner, banner
        assert "roll bloodlust" not in banner, banner


def test_serve_on_redis_suggests_the_game_most_tables_play(redis_server):
    # Redis keeps no order of tables in time: the game most of them play.
    with ServeProcess("--store", redis_server.url) as first:
        banner = "".join(first.lines)
        assert "roll dice expr=2d6 --url" in banner and "roll bloodlust" not in banner, banner
        for table, game in (("une", "oweens"), ("deux", "oweens"), ("trois", "bloodlust")):
            gm = ["--url", first.url, "--table", table, "--token", GM_TOKEN, "--role", "gm"]
            made = sidecar("sheet", "set", f"PJ-{table}", "--ruleset", game, "--no-owner", *gm)
            assert made.returncode == 0, made.stderr
    with ServeProcess("--store", redis_server.url) as again:
        banner = "".join(again.lines)
        assert "roll oweens dice=3 difficulty=2 --url" in banner, banner
