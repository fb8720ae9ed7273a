"""The server's and the command line's last raw words (issue 29, the third replay): a
choice's dice inside its own parentheses, luck without a character said to be counted by
the GM, ``sheet list`` with a seat's token. Real ``sidecar`` processes against a real
``sidecar serve``."""

from __future__ import annotations

import subprocess

import pytest

from tests.helpers import GM_TOKEN
from tests.support.serve import ServeProcess, seat_token, sidecar


@pytest.fixture(scope="module")
def server():
    with ServeProcess() as served:
        yield served


def gm(server: ServeProcess, *args: str, locale: str = "fr") -> subprocess.CompletedProcess:
    return sidecar(*args, "--url", server.url, "--table", "t", "--role", "gm",
                   "--token", GM_TOKEN, "--locale", locale, stdin=subprocess.DEVNULL)


@pytest.mark.parametrize("locale, reroll, sacrifice", [
    ("fr", "1) Relancer (1 point de chance du personnage, décompté à la main par le MJ ; "
           "le nouveau score remplace l'ancien ; 2 dés)",
     "2) Sacrifier 1 point de Chance du personnage (décompté à la main par le MJ) : "
     "l'action réussit"),
    ("en", "1) Reroll (1 of the character's Chance points, counted by hand by the GM; "
           "the new score replaces the old; 2 dice)",
     "2) Sacrifice 1 of the character's Chance points (counted by hand by the GM): "
     "the action succeeds"),
])
def test_luck_without_a_character_says_whose_point_with_its_dice_once(
        server, locale, reroll, sacrifice):
    rolled = gm(server, "roll", "ladder", "level=2", "difficulty=12", "--dice", "1,1",
                locale=locale)
    assert rolled.returncode == 0, rolled.stderr
    lines = [line.strip() for line in rolled.stdout.splitlines()]
    assert reroll in lines, rolled.stdout
    assert sacrifice in lines, rolled.stdout
    assert ") (" not in rolled.stdout


def test_sheet_list_with_a_seats_token_joins_as_that_player(server):
    gm_args = ["--url", server.url, "--table", "liste", "--token", GM_TOKEN, "--role", "gm"]
    token = seat_token(gm_args, "Aengus")
    made = sidecar("sheet", "set", "Aengus", "--ruleset", "ladder", "chance=3",
                   "--owner", "Aengus", *gm_args)
    assert made.returncode == 0, made.stderr
    # No --role: the help says « list for anyone », so a seat's token lists its own.
    mine = sidecar("sheet", "list", "--url", server.url, "--table", "liste", "--token", token)
    assert mine.returncode == 0, mine.stderr
    assert "Aengus" in mine.stdout and "rôle de MJ" not in mine.stderr
    # The GM's token still lists as the GM without --role.
    listed = sidecar("sheet", "list", "--url", server.url, "--table", "liste",
                     "--token", GM_TOKEN)
    assert listed.returncode == 0 and "Aengus" in listed.stdout, listed.stderr
    # A wrong token: said plainly, neither role's secret.
    wrong = sidecar("sheet", "list", "--url", server.url, "--table", "liste",
                    "--token", "pas-le-bon")
    assert wrong.returncode == 1 and "Traceback" not in wrong.stderr
    assert "jeton" in wrong.stderr, wrong.stderr


@pytest.mark.parametrize("args", [
    ["seuil", "level=3", "threshold=Average"],
    ["d6code", "code=3D", "difficulty=Hard"],
    ["ladder", "level=2", "difficulty=very HARD"],
    ["ladder", "level=2", "difficulty=tres_difficile"],
])
def test_a_named_level_is_taken_back_in_english_as_printed(server, args):
    # The English run prints « Threshold Average »: the same word is taken back.
    odds = sidecar("odds", "--locale", "en", *args)
    assert odds.returncode == 0, odds.stderr
    rolled = gm(server, "roll", *args, locale="en")
    assert rolled.returncode == 0, rolled.stderr
    assert "unknown label" not in rolled.stdout + rolled.stderr


def test_an_options_error_names_the_option_by_its_label(server):
    rolled = gm(server, "roll", "oweens", "characteristic=ECL", "difficulty=2",
                "--option", "combat.attack=melee", "--dice", "3,3,3")
    assert rolled.returncode == 1, rolled.stdout
    assert "« Peps de l'adversaire » ('options.combat.opponent_pep')" in rolled.stderr, \
        rolled.stderr
    english = gm(server, "roll", "oweens", "characteristic=ECL", "difficulty=2",
                 "--option", "combat.attack=melee", "--dice", "3,3,3", locale="en")
    assert "\"Opponent's Peps\" ('options.combat.opponent_pep')" in english.stderr, \
        english.stderr


def test_a_sheets_errors_name_its_fields_by_their_labels(server):
    gm_args = ["--url", server.url, "--table", "fiches", "--token", GM_TOKEN, "--role", "gm"]
    made = sidecar("sheet", "set", "Ervald", "--ruleset", "ladder", "chance=3", *gm_args)
    assert made.returncode == 0, made.stderr
    # A field that is not a number of the sheet: the numbers it has, by their labels.
    unknown = sidecar("sheet", "adjust", "Ervald", "reserve_ECL=-1", *gm_args)
    assert unknown.returncode == 1
    assert "Chance (chance)" in unknown.stderr, unknown.stderr
    # A value of the wrong type: the field by its label, its key beside it.
    wrong = sidecar("sheet", "set", "Ervald", "chance=beaucoup", *gm_args)
    assert wrong.returncode != 0
    assert "« Chance » ('values.chance')" in wrong.stderr, wrong.stderr


def test_an_unknown_field_is_answered_with_the_known_ones_by_their_labels(server):
    gm_args = ["--url", server.url, "--table", "fiches", "--token", GM_TOKEN, "--role", "gm"]
    made = sidecar("sheet", "set", "Vlad", "--ruleset", "bloodlust", 'pools={"x": 1}',
                   *gm_args)
    assert made.returncode != 0
    assert "Volonté (volonte)" in made.stderr, made.stderr


def test_an_ask_takes_a_named_level_in_english_too(server):
    seat_token(["--url", server.url, "--table", "t", "--token", GM_TOKEN, "--role", "gm"],
               "Alice")
    asked = gm(server, "ask", "open", "Alice", "--ruleset", "seuil", "level=3",
               "threshold=Average", locale="en")
    assert asked.returncode == 0, asked.stderr


def test_an_unknown_level_lists_the_names_the_reader_types() -> None:
    """An English run's « known: … » lists the English names it accepts back (« Average »),
    a French one the seed's (« Moyen »)."""
    english = sidecar("odds", "seuil", "level=2", "threshold=foo", "--locale", "en")
    assert "Average" in english.stderr and "Moyen" not in english.stderr, english.stderr
    french = sidecar("odds", "seuil", "level=2", "threshold=foo")
    assert "Moyen" in french.stderr and "Average" not in french.stderr, french.stderr
