"""The words an English run of the command line shows (issue 29, a newcomer replaying the
evening with ``--locale en``): a choice is listed with its reader's label beside its id
and typed back by either language's label. Real ``sidecar`` processes against a real
``sidecar serve``."""

from __future__ import annotations

import re

import pytest

from tests.helpers import GM_TOKEN
from tests.support.serve import ServeProcess, gm_options, sidecar


@pytest.fixture(scope="module")
def server():
    with ServeProcess("--db", ":memory:") as running:
        yield running


def roll(server: ServeProcess, locale: str, *args: str):
    return sidecar("roll", *args, *gm_options(server, "mots"), "--locale", locale)


@pytest.mark.parametrize("locale, ruleset, param, expected", [
    ("en", "seuil", "factors=foo",
     "unknown item 'foo' (known: stress_bas (low stress), stress_eleve (high stress), "),
    ("fr", "seuil", "factors=foo",
     "élément inconnu « foo » (connus : stress_bas (stress bas), stress_eleve (stress élevé), "),
    ("en", "d6code", "style=bar", "must be one of libre (free), extreme ["),
    ("fr", "d6code", "style=bar", "doit être l'un de libre, extreme (extrême) ["),
    ("en", "oweens", "emotion_bonbonus=zz", "must be one of honte (Shame), fierte (Pride) ["),
    ("fr", "oweens", "emotion_bonbonus=zz", "doit être l'un de honte (Honte), fierte (Fierté) ["),
])
def test_an_unknown_choice_lists_the_choices_in_the_readers_words(server, locale, ruleset,
                                                                  param, expected):
    done = roll(server, locale, ruleset, param)
    assert done.returncode == 1, done.stdout
    assert expected in done.stderr


@pytest.mark.parametrize("locale, expected", [
    ("en", "unknown item 'zz' (known: assommer (Knock out), viser (Aim), "),
    ("fr", "élément inconnu « zz » (connus : assommer (Assommer), viser (Viser), "),
])
def test_an_unknown_option_choice_lists_the_choices_in_the_readers_words(server, locale,
                                                                         expected):
    done = roll(server, locale, "oweens", "dice=3", "difficulty=2",
                "--option", "combat.options=zz")
    assert done.returncode == 1, done.stdout
    assert expected in done.stderr


@pytest.mark.parametrize("typed", ["low stress,Stress élevé", "Low_Stress,stress eleve"])
def test_a_choice_typed_by_its_label_is_taken_as_its_id(server, typed):
    by_id = roll(server, "en", "seuil", "factors=stress_bas,stress_eleve", "threshold=10",
                 "level=2", "--dice", "3,4,1")
    by_label = roll(server, "en", "seuil", f"factors={typed}", "threshold=10", "level=2",
                    "--dice", "3,4,1")
    assert by_id.returncode == by_label.returncode == 0, by_label.stderr
    assert "-1D8" in by_id.stdout  # the factors count: 1 + 3 = complication 4
    assert by_label.stdout.split(" ", 1)[1] == by_id.stdout.split(" ", 1)[1]  # (after #seq)


@pytest.mark.parametrize("typed", ["aim", "Viser", "AIM"])
def test_an_option_choice_typed_by_its_label_is_taken(server, typed):
    done = roll(server, "en", "oweens", "dice=3", "difficulty=2",
                "--option", f"combat.options={typed}", "--dice", "1,2")
    assert done.returncode == 0, done.stderr
    assert "Combat options (aim; cost: 1 fewer die)" in done.stdout


@pytest.mark.parametrize("typed", ["Free", "LIBRE"])
def test_a_single_choice_typed_by_its_label_is_taken(server, typed):
    by_id = roll(server, "en", "d6code", "code=3D", "difficulty=10", "style=libre",
                 "--dice", "1,2,3,4,5")
    by_label = roll(server, "en", "d6code", "code=3D", "difficulty=10", f"style={typed}",
                    "--dice", "1,2,3,4,5")
    assert by_id.returncode == by_label.returncode == 0, by_label.stderr
    assert by_label.stdout.split(" ", 1)[1] == by_id.stdout.split(" ", 1)[1]


@pytest.mark.parametrize("locale, expected", [
    ("en", "combat.options=<list: Knock out (1), Aim (1), Push (1), Surprise (1), Pin (1), "
           "Knock down (2), Charge (2), Disarm (3)>  Combat options"),
    ("en", 'combat.pay=<string: in dice, in bonbonus, default "in dice">  Pay'),
    ("fr", "combat.options=<liste : assommer (1), viser (1), pousser (1), surprendre (1), "
           "immobiliser (1), renverser (2), charger (2), desarmer (3)>  Options de combat"),
    # French glosses an id whose French label says more, and quotes « » (issue 29).
    ("fr", "combat.pay=<texte : dice (en dés), bonbonus (en bonbonus), défaut « dice »>  "
           "Payer"),
    ("fr", "combat.attack=<texte : melee (au contact), ranged (à distance)>  Attaque"),
    ("fr", "combat.initiative=<booléen, défaut non>  À l'initiative"),
])
def test_plugins_lists_an_options_choices_by_the_readers_names(locale, expected):
    done = sidecar("plugins", "--locale", locale)
    assert done.returncode == 0, done.stderr
    assert expected in done.stdout


@pytest.mark.parametrize("locale, shown, hidden", [
    ("en", "combat.options=aim combat.zone=head", "viser"),
    ("fr", "combat.options=viser combat.zone=tête", "aim"),
])
def test_roll_help_gives_the_option_example_in_the_readers_words(locale, shown, hidden):
    done = sidecar("roll", "--help", "--locale", locale)
    assert done.returncode == 0, done.stderr
    flat = " ".join(done.stdout.split())
    assert shown in flat
    assert hidden not in flat
    # « oui » in French, as `sidecar plugins` says it (issue 29); both are taken.
    yes = "EXT=oui l'active avec ses défauts (blank_botch=oui)" if locale == "fr" \
        else "EXT=yes turns it on with its defaults (blank_botch=yes)"
    assert yes in flat, flat


def test_the_english_example_rolls(server):
    done = roll(server, "en", "oweens", "dice=3", "difficulty=2", "--option",
                "combat.options=aim", "--option", "combat.zone=head", "--dice", "1,2")
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("locale, expected, absent", [
    ("en", [r"P\(success\) = 33%\n", r"\n    Narrow +20% █"], [" %"]),
    ("fr", [r"P\(réussite\) = 33 %\n", r"\n    De justesse +20 % █"], []),
])
def test_odds_write_percentages_as_the_readers_language_does(locale, expected, absent):
    done = sidecar("odds", "oweens", "dice=3", "difficulty=3", "--locale", locale)
    assert done.returncode == 0, done.stderr
    for pattern in expected:
        assert re.search(pattern, done.stdout), pattern
    for text in absent:
        assert text not in done.stdout


@pytest.mark.parametrize("locale, expected", [
    ("en", "P(success) = < 0.1%"), ("fr", "P(réussite) = < 0,1 %")])
def test_odds_below_a_thousandth_as_the_reader_writes_it(locale, expected):
    done = sidecar("odds", "dice", "expr=4d6", "target=24", "--locale", locale)
    assert done.returncode == 0, done.stderr
    assert expected in done.stdout.splitlines()


@pytest.mark.parametrize("locale, expected", [
    ("en", "Seat “Tom” removed"), ("fr", "Place « Tom » supprimée")])
def test_a_removed_seat_is_quoted_as_the_reader_quotes(server, locale, expected):
    gm = gm_options(server, f"places-{locale}")
    added = sidecar("seat", "add", "Tom", "--no-qr", *gm)
    assert added.returncode == 0, added.stderr
    removed = sidecar("seat", "remove", "Tom", *gm, "--locale", locale)
    assert removed.returncode == 0, removed.stderr
    assert removed.stdout.startswith(expected)


def test_no_english_text_of_the_command_line_uses_french_quotes():
    """Every ``say(locale, fr, en)`` of the command line (and the texts chosen the same way
    in sidecar/host, protocol and the built-in plugins), and every error's English beside
    its ``fr=``: the English never uses « »."""
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    found = []
    for folder in ("sidecar/cli", "sidecar/host", "protocol", "plugins"):
        for path in sorted((root / folder).rglob("*.py")):
            source = path.read_text(encoding="utf-8")
            for node in ast.walk(ast.parse(source)):
                if not isinstance(node, ast.Call):
                    continue
                name = getattr(node.func, "id", getattr(node.func, "attr", None))
                english = []
                if name in ("say", "_say") and len(node.args) >= 3:
                    english.append(node.args[2])
                if any(keyword.arg == "fr" for keyword in node.keywords):
                    english += [arg for arg in node.args
                                if isinstance(arg, (ast.Constant, ast.JoinedStr, ast.BinOp))]
                for text in english:
                    said = ast.get_source_segment(source, text) or ""
                    if "«" in said or "»" in said:
                        found.append(f"{path.relative_to(root)}:{node.lineno}")
    assert found == []


BUDGET_ALONE = {
    "fr": "paramètre « BB+ pour acheter après les dés » ('budget') : demande « Acheter après "
          "les dés » ('buy_after') [invalid_params]",
    "en": "parameter \"BB+ to buy after the dice\" ('budget'): needs \"Buy after the dice\" "
          "('buy_after') [invalid_params]",
}


@pytest.mark.parametrize("locale", ["fr", "en"])
def test_odds_refuse_a_budget_without_buying_after(locale):
    done = sidecar("odds", "oweens", "dice=3", "difficulty=3", "budget=2", "--locale", locale)
    assert done.returncode == 1, done.stdout
    assert done.stderr.strip() == "sidecar: " + BUDGET_ALONE[locale]
    bought = sidecar("odds", "oweens", "dice=3", "difficulty=3", "budget=2", "buy_after=yes",
                     "--locale", locale)
    assert bought.returncode == 0, bought.stderr


@pytest.mark.parametrize("locale", ["fr", "en"])
def test_a_roll_refuses_a_budget_without_buying_after(server, locale):
    done = roll(server, locale, "oweens", "dice=3", "difficulty=3", "budget=2")
    assert done.returncode == 1, done.stdout
    assert done.stderr.strip() == "sidecar: " + BUDGET_ALONE[locale]


PLUGINS_UNOPENED = {
    "fr": "sidecar: plugins --url lit la liste du serveur en rejoignant une table en "
          "observateur, et la table « demo » n'est pas ouverte : donnez --token (un jeton de "
          "MJ ou de joueur l'ouvre) ou --table d'une table ouverte",
    "en": "sidecar: plugins --url reads the server's list by joining a table as an observer, "
          "and table “demo” is not open: give --token (a GM's or a player's token opens it) "
          "or --table of an open table",
}


@pytest.mark.parametrize("locale", ["fr", "en"])
def test_plugins_of_a_server_without_a_table_says_what_it_does(locale):
    with ServeProcess("--db", ":memory:") as fresh:
        done = sidecar("plugins", "--url", fresh.url, "--locale", locale)
        assert done.returncode == 1, done.stdout
        assert done.stderr.strip() == PLUGINS_UNOPENED[locale]
        listed = sidecar("plugins", "--url", fresh.url, "--token", GM_TOKEN,
                         "--locale", locale)
        assert listed.returncode == 0, listed.stderr
        assert "oweens 1.1" in listed.stdout


@pytest.mark.parametrize("locale, expected", [
    ("fr", "Aengus — Pilotage : 3D+1 → 7 contre 10 → Échec"),
    ("en", "Aengus — Pilotage: 3D+1 → 7 vs 10 → Failure"),
])
def test_a_d6code_roll_names_the_skill_its_sheet_supplies(server, locale, expected):
    gm = gm_options(server, f"pilotes-{locale}")
    made = sidecar("sheet", "set", "Aengus", "--ruleset", "d6code",
                   "competences.Pilotage=3D+1", *gm)
    assert made.returncode == 0, made.stderr
    done = sidecar("roll", "d6code", "--character", "Aengus", "skill=pilotage",
                   "difficulty=10", "--dice", "1,2,3", "--no-ask", *gm, "--locale", locale)
    assert done.returncode == 0, done.stderr
    assert expected in done.stdout.splitlines()[0]


def test_a_d6code_roll_names_the_skill_its_params_name_and_keeps_a_label(server):
    gm = gm_options(server, "pilotes-sans-fiche")
    named = sidecar("roll", "d6code", "code=3D", "skill=Pilotage", "difficulty=10",
                    "--dice", "1,2,4", "--no-ask", *gm)
    assert named.returncode == 0, named.stderr
    assert "Morgane — Pilotage : 3D → 7 contre 10" in named.stdout.splitlines()[0]
    labelled = sidecar("roll", "d6code", "code=3D", "skill=Pilotage", "difficulty=10",
                       "--label", "Esquive", "--dice", "1,2,4", "--no-ask", *gm)
    assert labelled.returncode == 0, labelled.stderr
    assert "Morgane — Esquive : 3D → 7 contre 10" in labelled.stdout.splitlines()[0]


@pytest.mark.parametrize("locale, expected", [
    ("en", ["    Optional rule, for the rolls that ask for it: each one's first botch of the "
            "session counts as a simple failure",
            "    options (rulesets: bloodlust; off unless a roll asks for it: --option "
            "blank_botch=yes or --option blank_botch.KEY=VALUE):"]),
    ("fr", ["    Règle optionnelle, pour les jets qui la demandent : le premier échec critique "
            "de chacun dans la séance compte comme un simple échec",
            "    options (jeux de règles : bloodlust ; inactive sauf si un jet la demande : "
            "--option blank_botch=oui ou --option blank_botch.CLÉ=VALEUR) :"]),
])
def test_plugins_says_the_blank_botch_is_off_unless_a_roll_asks(locale, expected):
    listed = sidecar("plugins", "--locale", locale)
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    for line in expected:
        assert line in lines, listed.stdout


def test_the_blank_botch_plays_only_on_the_rolls_that_ask_for_it(server):
    """The seed's rule is the Conteur's option (« le Conteur peut donner… »): a roll
    without it keeps its botch; with it, the first botch is a failure."""
    gm = gm_options(server, "blanc")
    plain = sidecar("roll", "bloodlust", "pool=2", "difficulty=7", "--dice", "1,1", *gm,
                    "--locale", "en")
    assert plain.returncode == 0, plain.stderr
    assert plain.stdout.splitlines()[0].endswith("→ Critical failure (botch)")
    asked = sidecar("roll", "bloodlust", "pool=2", "difficulty=7", "--dice", "1,1",
                    "--option", "blank_botch=yes", *gm, "--locale", "en")
    assert asked.returncode == 0, asked.stderr
    assert asked.stdout.splitlines()[0].endswith("→ Failure (blank botch)")


@pytest.mark.parametrize("locale, expected", [
    ("en", "sidecar: \"Skill code\" comes from Aengus's sheet (3D+1): only the GM may change "
           "it [forbidden]"),
    ("fr", "sidecar: « Code de compétence » vient de la fiche d'Aengus (3D+1) : seul le MJ "
           "peut le changer [forbidden]"),
])
def test_a_value_from_the_sheet_is_quoted_as_the_reader_quotes(server, locale, expected):
    from tests.support.serve import seat_token

    gm = gm_options(server, f"fiche-{locale}")
    token = seat_token(gm, "Tom")
    made = sidecar("sheet", "set", "Aengus", "--ruleset", "d6code", "--owner", "Tom",
                   "competences.Pilotage=3D+1", *gm)
    assert made.returncode == 0, made.stderr
    done = sidecar("roll", "d6code", "--character", "Aengus", "skill=Pilotage", "code=5D",
                   "difficulty=10", "--url", server.url, "--table", f"fiche-{locale}",
                   "--name", "Tom", "--token", token, "--locale", locale)
    assert done.returncode == 1, done.stdout
    assert done.stderr.strip() == expected
